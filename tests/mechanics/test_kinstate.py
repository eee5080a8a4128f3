"""Kinematic states: the algebra (identity, associativity), against finite differences, against the
joint's own rotation and relative angular velocity, the Coriolis term on a rotating disc, and the
analyze --relative columns."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _motion import random_model, sinusoid_motion

import humanbody as hb
from humanbody.mechanics.relative import KinematicState, compose, frame_state, identity, invert, relative
from humanbody.rotations import euler_to_matrix, unskew

T = np.linspace(0.0, 2.0, 2001)


def _smooth_state(rng, t=T) -> KinematicState:
    """A state with exact derivatives: p(t) and R(t) = exp of smooth Bryant angles."""
    A, w, ph = rng.uniform(0.2, 1.0, (2, 3)), rng.uniform(1, 3, (2, 3)), rng.uniform(0, 6, (2, 3))
    arg = np.einsum("f,ij->fij", t, w) + ph
    p, pd_, pdd = A[0] * np.sin(arg[:, 0]), A[0] * w[0] * np.cos(arg[:, 0]), -A[0] * w[0] ** 2 * np.sin(arg[:, 0])
    ang, angd, angdd = A[1] * np.sin(arg[:, 1]), A[1] * w[1] * np.cos(arg[:, 1]), -A[1] * w[1] ** 2 * np.sin(arg[:, 1])
    model = hb.BodyModel(names=["b"], parents=[0], joint_offset=[[0, 0, 0]], com_offset=[[0, 0, 0]], mass=[1.0],
                         inertia=[np.eye(3)])
    coords = pd.DataFrame({"time": t, "b_x": p[:, 0], "b_y": p[:, 1], "b_z": p[:, 2],
                           "b_alpha": ang[:, 0], "b_beta": ang[:, 1], "b_gamma": ang[:, 2],
                           "b_x_dot": pd_[:, 0], "b_y_dot": pd_[:, 1], "b_z_dot": pd_[:, 2],
                           "b_alpha_dot": angd[:, 0], "b_beta_dot": angd[:, 1], "b_gamma_dot": angd[:, 2],
                           "b_x_ddot": pdd[:, 0], "b_y_ddot": pdd[:, 1], "b_z_ddot": pdd[:, 2],
                           "b_alpha_ddot": angdd[:, 0], "b_beta_ddot": angdd[:, 1], "b_gamma_ddot": angdd[:, 2]})
    return frame_state(hb.compute(model, coords), "b")


def _close(a: KinematicState, b: KinematicState, atol=1e-10):
    for name in ("position", "orientation", "velocity", "acceleration", "omega", "alpha"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), atol=atol, err_msg=name)


def test_inverse_and_identity():
    rng = np.random.default_rng(1)
    a = _smooth_state(rng)
    _close(compose(invert(a), a), identity(len(T)))
    _close(compose(a, invert(a)), identity(len(T)))
    _close(invert(invert(a)), a)
    _close(compose(a, identity(len(T))), a)


def test_composition_is_associative():
    rng = np.random.default_rng(2)
    a, b, c = (_smooth_state(rng) for _ in range(3))
    _close(compose(compose(a, b), c), compose(a, compose(b, c)), atol=1e-9)


def test_relative_state_against_finite_differences():
    """Velocity and acceleration of the relative position, angular velocity and acceleration of the
    relative orientation, all seen in the reference frame, against central differences."""
    rng = np.random.default_rng(3)
    x, y = _smooth_state(rng), _smooth_state(rng)
    st = relative(x, y)
    h = T[1] - T[0]
    d = lambda q: (q[2:] - q[:-2]) / (2 * h)  # noqa: E731
    inner = slice(1, -1)
    np.testing.assert_allclose(st.velocity[inner], d(st.position), rtol=1e-5, atol=2e-4)
    np.testing.assert_allclose(st.acceleration[inner], d(st.velocity), rtol=1e-5, atol=2e-4)
    R = st.orientation
    w = unskew(d(R) @ np.swapaxes(R[inner], -1, -2))
    np.testing.assert_allclose(st.omega[inner], w, rtol=1e-5, atol=2e-4)
    np.testing.assert_allclose(st.alpha[inner], d(st.omega), rtol=1e-5, atol=2e-4)


def test_child_relative_to_parent_is_its_joint():
    """A segment relative to its parent: the joint's rotation S (its angles in its sequence), Huston's
    hat omega in parent axes, and the joint point fixed at xi_k in the parent."""
    rng = np.random.default_rng(4)
    model = random_model(rng).replace(sequences=["zxy"] + ["yxz"] * 16)
    coords = sinusoid_motion(model, np.linspace(0, 2, 300), rng)
    res = hb.compute(model, coords)
    k = model.names.index("right_lower_leg")
    p = int(model.parents[k]) - 1
    st = res.relative("right_lower_leg", to="right_upper_leg")
    S = euler_to_matrix(coords[["right_lower_leg_alpha", "right_lower_leg_beta", "right_lower_leg_gamma"]]
                        .to_numpy(), "yxz")
    np.testing.assert_allclose(st.orientation, S, atol=1e-12)
    hat = np.einsum("fji,fj->fi", res.R[:, p], res.omega_rel[:, k])  # hat omega, parent components
    np.testing.assert_allclose(st.omega, hat, atol=1e-10)
    np.testing.assert_allclose(st.position, np.broadcast_to(model.joint_offset[k], st.position.shape), atol=1e-12)
    np.testing.assert_allclose(st.velocity, 0.0, atol=1e-10)
    np.testing.assert_allclose(st.acceleration, 0.0, atol=1e-9)
    own = res.relative("right_lower_leg", to="right_upper_leg", axes="what")
    np.testing.assert_allclose(own.omega, np.einsum("fji,fj->fi", S, hat), atol=1e-10)


def test_coriolis_on_a_rotating_disc():
    """A point moving out along a radius of a disc turning at a constant rate W: in ground, its
    acceleration has the Coriolis term 2 W x v_rel besides the centripetal -W^2 r."""
    t = np.linspace(0, 1, 101)
    F, W, u = len(t), 3.0, 0.5  # rad/s, m/s outwards
    disc = KinematicState(np.zeros((F, 3)), euler_to_matrix(np.c_[0 * t, 0 * t, W * t], "xyz"), np.zeros((F, 3)),
                          np.zeros((F, 3)), np.tile([0, 0, W], (F, 1)), np.zeros((F, 3)))
    r = u * t
    point = KinematicState(np.c_[r, 0 * t, 0 * t], np.broadcast_to(np.eye(3), (F, 3, 3)),
                           np.tile([u, 0, 0], (F, 1)), np.zeros((F, 3)), np.zeros((F, 3)), np.zeros((F, 3)))
    g = compose(disc, point)
    c, s = np.cos(W * t), np.sin(W * t)
    radial, tangential = np.c_[c, s, 0 * t], np.c_[-s, c, 0 * t]
    want = -W**2 * r[:, None] * radial + 2 * W * u * tangential
    np.testing.assert_allclose(g.acceleration, want, atol=1e-12)
    np.testing.assert_allclose(g.velocity, u * radial + W * r[:, None] * tangential, atol=1e-12)


def test_unknown_frame_and_markers():
    rng = np.random.default_rng(5)
    model = random_model(rng)
    coords = sinusoid_motion(model, np.linspace(0, 1, 200), rng)
    res = hb.compute(model, coords)
    with pytest.raises(hb.InputError, match="no frame 'nose'"):
        res.relative("nose", to="head")
    # a marker fixed at the head's mass centre: at rest relative to the head.com frame
    k = model.names.index("head")
    markers = pd.DataFrame({"time": res.time, **{f"M_{a}": res.com[:, k, i] for i, a in enumerate("xyz")}})
    st = res.relative("M", to="head.com", markers=markers)
    np.testing.assert_allclose(st.position, 0.0, atol=1e-12)
    scale = np.abs(res.com_vel[:, k]).max()
    assert np.abs(st.velocity[20:-20]).max() < 0.01 * scale  # smoothed marker rates vs the segment's exact ones


def test_analyze_writes_relative_columns(tmp_path):
    from humanbody.cli import main

    root = Path(__file__).resolve().parents[2] / "data"
    out = tmp_path / "out"
    assert main(["analyze", str(root / "sample_walk_markers.trc"), "--static", str(root / "sample_static.trc"),
                 "--out", str(out), "-q", "--relative", "head:upper_torso"]) == 0
    table = pd.read_csv(out / "sample_walk_markers_results.csv")
    cols = [f"head_rel_upper_torso_{q}_{a}" for q in ("position", "velocity", "acceleration", "omega", "alpha",
                                                      "rotation") for a in "xyz"]
    assert set(cols) <= set(table.columns)
    analysis = hb.analyze_trial(root / "sample_walk_markers.trc", static=root / "sample_static.trc")
    st = analysis.results.relative("head", to="upper_torso")
    np.testing.assert_allclose(table[[f"head_rel_upper_torso_acceleration_{a}" for a in "xyz"]].to_numpy(),
                               st.acceleration, rtol=1e-6, atol=1e-6)
    assert main(["analyze", str(root / "sample_walk_markers.trc"), "--static", str(root / "sample_static.trc"),
                 "--out", str(out), "-q", "--relative", "head"]) == 2

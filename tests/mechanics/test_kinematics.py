"""compute(): independent checks of the compiled tree kinematics and inertia forces."""

import numpy as np
import pandas as pd
import pytest
from _huston_reference import reference_kinematics
from _motion import central_diff, random_model, random_tree, sinusoid_motion, split_coords

import humanbody as hb
from humanbody import BodyModel, InputError
from humanbody.mechanics.angular_rates import bryant_omega_body
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.mechanics.results import result_columns
from humanbody.model.segments import AXES, INERTIA_COMPONENTS, SEGMENT_NAMES, VECTOR_QUANTITIES

ARRAYS = ("R", "omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc",
          "force", "torque", "inertia", "body_com", "body_com_vel", "body_com_acc")


@pytest.fixture
def rng():
    return np.random.default_rng(20261121)


def _fd_omega(R, h):
    """Angular velocity from central differences of orientation: W = dS/dt S^T (eq. 8.123)."""
    W = np.einsum("fkij,fklj->fkil", central_diff(R, h), R)
    return np.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], axis=-1)


def test_shapes_dtypes_and_layout(rng):
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 50), rng)
    res = hb.compute(model, df)
    F, n = 50, 17
    for name in ARRAYS:
        arr = getattr(res, name)
        assert arr.dtype == np.float64 and arr.flags.c_contiguous, name
    assert res.R.shape == res.inertia.shape == (F, n, 3, 3)
    for q in VECTOR_QUANTITIES:
        assert getattr(res, q).shape == (F, n, 3)
    assert res.body_com.shape == (F, 3)
    table = res.to_dataframe()
    assert list(table.columns) == result_columns(SEGMENT_NAMES, coordinate_columns(model))
    # docs/conventions.md column names, spot checks
    for col in ("time", "left_foot_torque_z", "head_omega_rel_x", "right_hand_com_acc_y",
                "lower_torso_inertia_xz", "body_com_vel_z", "neck_alpha", "lower_torso_x"):
        assert col in table.columns
    np.testing.assert_array_equal(table["right_lower_leg_joint_x"].values, res.joint[:, 12, 0])
    k = SEGMENT_NAMES.index("left_upper_arm")
    for c, i, j in INERTIA_COMPONENTS:
        np.testing.assert_array_equal(table[f"left_upper_arm_inertia_{c}"], res.inertia[:, k, i, j])
    for a, ax in enumerate(AXES):
        np.testing.assert_array_equal(table[f"body_com_acc_{ax}"], res.body_com_acc[:, a])


def _with_sequences(model, which, rng):
    from humanbody.rotations import SEQUENCES

    if which == "xyz":
        return model
    if which == "flexion-first":
        return model.replace(sequences=["zxy"] + ["yxz"] * (model.n_bodies - 1))
    return model.replace(sequences=[SEQUENCES[i] for i in rng.integers(0, 12, model.n_bodies)])


@pytest.mark.parametrize("sequences", ["xyz", "flexion-first", "mixed"])
@pytest.mark.parametrize("tree", ["huston17", "random"])
def test_kernel_matches_numpy_reference_exactly(rng, tree, sequences):
    """The kernel's parent recursion equals the literal sum over lower body arrays (8.104), with the
    relative angular velocities and their rates derived literally from each body's sequence matrices."""
    parents = None if tree == "huston17" else random_tree(rng, 11)
    model = random_model(rng) if parents is None else random_model(rng, parents)
    model = _with_sequences(model, sequences, rng)
    df = sinusoid_motion(model, np.linspace(0, 2, 300), rng, amplitude=2.0)
    res = hb.compute(model, df)
    ref = reference_kinematics(model, *split_coords(model, df))
    for name in ARRAYS:
        np.testing.assert_allclose(getattr(res, name), ref[name], rtol=1e-12, atol=1e-11, err_msg=name)


@pytest.mark.parametrize("sequences", ["xyz", "mixed"])
def test_rates_against_finite_differences(rng, sequences):
    """Velocities and accelerations against central differences of positions and orientations."""
    model = _with_sequences(random_model(rng), sequences, rng)
    h = 1e-3
    t = np.arange(0, 1.0, h)
    res = hb.compute(model, sinusoid_motion(model, t, rng))
    s = slice(2, -2)

    def close(approx, exact, rel):
        err = np.abs(approx[s] - exact[s]).max()
        assert err < rel * np.abs(exact[s]).max(), err

    # positions -> velocities -> accelerations (FD error ~ h^2 * third derivative)
    close(central_diff(res.com, h), res.com_vel, 1e-4)
    close(central_diff(res.com_vel, h), res.com_acc, 1e-4)
    close(central_diff(res.body_com, h), res.body_com_vel, 1e-4)
    # orientations -> angular velocity -> angular acceleration
    close(_fd_omega(res.R, h), res.omega, 1e-4)
    close(central_diff(res.omega, h), res.alpha, 1e-4)
    # relative angular velocity from the relative orientation S_L(k)k
    Rp = np.concatenate([np.broadcast_to(np.eye(3), res.R[:, :1].shape), res.R], axis=1)[:, model.parents]
    S = np.einsum("fkji,fkjl->fkil", Rp, res.R)
    close(np.einsum("fkij,fkj->fki", Rp, _fd_omega(S, h)), res.omega_rel, 1e-4)


def test_orientation_matrices_are_rotations_and_inertia_physical(rng):
    model = random_model(rng)
    res = hb.compute(model, sinusoid_motion(model, np.linspace(0, 3, 200), rng, amplitude=3.0))
    RtR = np.einsum("fkji,fkjl->fkil", res.R, res.R)
    np.testing.assert_allclose(RtR, np.broadcast_to(np.eye(3), RtR.shape), atol=1e-13)
    np.testing.assert_allclose(np.linalg.det(res.R), 1.0, atol=1e-13)
    np.testing.assert_allclose(res.inertia, np.swapaxes(res.inertia, -1, -2), atol=0)
    ev = np.linalg.eigvalsh(res.inertia)
    ev0 = np.linalg.eigvalsh(model.inertia)
    np.testing.assert_allclose(ev, np.broadcast_to(ev0, ev.shape), rtol=1e-12)
    assert (ev > 0).all() and (ev[..., 0] + ev[..., 1] >= ev[..., 2] * (1 - 1e-12)).all()


def test_power_balance(rng):
    """d(KE)/dt = -sum(F* . v_G + T* . omega) along a random motion of the 17 segments."""
    model = random_model(rng)
    h = 2e-4
    t = np.arange(0, 0.4, h)
    res = hb.compute(model, sinusoid_motion(model, t, rng, amplitude=1.5))
    dke = central_diff(res.kinetic_energy(), h)[2:-2]
    power = res.inertia_power()[2:-2]
    scale = np.abs(power).max()
    assert scale > 10.0  # a real test: the motion does work
    np.testing.assert_allclose(dke, -power, atol=1e-5 * scale)


def test_two_body_pendulum_by_hand():
    """A planar double pendulum about y, derived by hand."""
    L1, c1, c2 = 0.45, 0.2, 0.25
    I2 = np.diag([0.05, 0.055, 0.01])
    model = BodyModel(names=["a", "b"], parents=[0, 1],
                      joint_offset=[[0, 0, 0], [0, 0, -L1]], com_offset=[[0, 0, -c1], [0, 0, -c2]],
                      mass=[3.0, 2.0], inertia=[np.diag([0.1, 0.1, 0.02]), I2])
    t = np.linspace(0, 2, 101)
    a1, w1, a2, w2 = 0.7, 2.1, 0.9, 3.3
    th1, th1d, th1dd = a1 * np.sin(w1 * t), a1 * w1 * np.cos(w1 * t), -a1 * w1**2 * np.sin(w1 * t)
    th2, th2d, th2dd = a2 * np.sin(w2 * t), a2 * w2 * np.cos(w2 * t), -a2 * w2**2 * np.sin(w2 * t)
    z = np.zeros_like(t)
    cols = {"time": t}
    for name, (q, qd, qdd) in {"a_beta": (th1, th1d, th1dd), "b_beta": (th2, th2d, th2dd)}.items():
        cols[name], cols[name + "_dot"], cols[name + "_ddot"] = q, qd, qdd
    for name in ("a_x", "a_y", "a_z", "a_alpha", "a_gamma", "b_alpha", "b_gamma"):
        cols[name] = cols[name + "_dot"] = cols[name + "_ddot"] = z
    res = hb.compute(model, pd.DataFrame(cols))
    phi, phid, phidd = th1 + th2, th1d + th2d, th1dd + th2dd
    G2 = np.stack([-L1 * np.sin(th1) - c2 * np.sin(phi), z, -L1 * np.cos(th1) - c2 * np.cos(phi)], -1)
    V2 = np.stack([-L1 * np.cos(th1) * th1d - c2 * np.cos(phi) * phid, z,
                   L1 * np.sin(th1) * th1d + c2 * np.sin(phi) * phid], -1)
    A2 = np.stack([L1 * (np.sin(th1) * th1d**2 - np.cos(th1) * th1dd) + c2 * (np.sin(phi) * phid**2 - np.cos(phi) * phidd), z,
                   L1 * (np.cos(th1) * th1d**2 + np.sin(th1) * th1dd) + c2 * (np.cos(phi) * phid**2 + np.sin(phi) * phidd)], -1)
    np.testing.assert_allclose(res.com[:, 1], G2, atol=1e-14)
    np.testing.assert_allclose(res.com_vel[:, 1], V2, atol=1e-13)
    np.testing.assert_allclose(res.com_acc[:, 1], A2, atol=1e-12)
    np.testing.assert_allclose(res.joint[:, 1], np.stack([-L1 * np.sin(th1), z, -L1 * np.cos(th1)], -1), atol=1e-14)
    np.testing.assert_allclose(res.omega[:, 1], np.stack([z, phid, z], -1), atol=1e-14)
    np.testing.assert_allclose(res.omega_rel[:, 1], np.stack([z, th2d, z], -1), atol=1e-14)
    np.testing.assert_allclose(res.alpha[:, 1], np.stack([z, phidd, z], -1), atol=1e-13)
    np.testing.assert_allclose(res.force[:, 1], -2.0 * A2, atol=1e-12)
    np.testing.assert_allclose(res.torque[:, 1], np.stack([z, -I2[1, 1] * phidd, z], -1), atol=1e-13)
    M = 5.0
    G1 = np.stack([-c1 * np.sin(th1), z, -c1 * np.cos(th1)], -1)
    np.testing.assert_allclose(res.body_com, (3.0 * G1 + 2.0 * G2) / M, atol=1e-14)


def test_gyroscopic_torque_matches_body_frame_euler_equations():
    """A spinning, precessing top: T* from ground components equals Euler's equations in body axes."""
    I = np.diag([0.08, 0.08, 0.02])
    model = BodyModel(names=["top"], parents=[0], joint_offset=[[0, 0, 0]], com_offset=[[0, 0, 0.1]],
                      mass=[1.5], inertia=[I])
    h = 1e-4
    t = np.arange(0, 0.5, h)
    wp, b0, ws = 1.3, 0.6, 25.0
    z, one = np.zeros_like(t), np.ones_like(t)
    ang = np.stack([wp * t, b0 * one, ws * t], -1)
    rate = np.stack([wp * one, z, ws * one], -1)
    cols = {"time": t, "top_x": z, "top_y": z, "top_z": z, "top_x_dot": z, "top_y_dot": z, "top_z_dot": z,
            "top_x_ddot": z, "top_y_ddot": z, "top_z_ddot": z}
    for i, a in enumerate(("alpha", "beta", "gamma")):
        cols[f"top_{a}"], cols[f"top_{a}_dot"], cols[f"top_{a}_ddot"] = ang[:, i], rate[:, i], z
    res = hb.compute(model, pd.DataFrame(cols))
    wb = bryant_omega_body(ang, rate)                  # eq. 8.96, body components
    wbd = central_diff(wb, h)
    Tb = -(wbd @ I.T + np.cross(wb, wb @ I.T))         # Euler's equations, body axes
    Tg_in_body = np.einsum("fji,fj->fi", res.R[:, 0], res.torque[:, 0])
    np.testing.assert_allclose(Tg_in_body[2:-2], Tb[2:-2], atol=1e-5)
    assert np.abs(Tb).max() > 0.4


def _topological_relabel(rng, parents):
    """A random renumbering that keeps every parent before its children."""
    n = len(parents)
    children = {k: [j + 1 for j in range(n) if parents[j] == k] for k in range(n + 1)}
    order, ready = [], list(children[0])
    while ready:
        k = ready.pop(int(rng.integers(len(ready))))
        order.append(k)
        ready += children[k]
    return order


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_whole_body_quantities_invariant_under_renumbering(seed):
    rng = np.random.default_rng(seed)
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 80), rng)
    order = _topological_relabel(rng, list(model.parents))
    other = model.reordered(order)
    assert other.names != model.names or seed == 0
    a, b = hb.compute(model, df), hb.compute(other, df)
    for name in ("body_com", "body_com_vel", "body_com_acc"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(a.kinetic_energy(), b.kinetic_energy(), rtol=1e-12)
    np.testing.assert_allclose(a.inertia_power(), b.inertia_power(), rtol=1e-10, atol=1e-9)
    idx = [model.names.index(nm) for nm in other.names]
    for name in ("omega", "alpha", "com_acc", "torque", "inertia", "R"):
        np.testing.assert_allclose(getattr(a, name)[:, idx], getattr(b, name), rtol=1e-12, atol=1e-12)


def test_exact_rates_are_used_exactly(rng):
    """With _dot/_ddot given, a pure translation of body 1 passes through untouched."""
    model = random_model(rng, parents=[0], names=["lower_torso"])
    df = sinusoid_motion(model, np.linspace(0, 1, 30), rng)
    for a in ("alpha", "beta", "gamma"):
        for suffix in ("", "_dot", "_ddot"):
            df[f"lower_torso_{a}{suffix}"] = 0.0
    res = hb.compute(model, df)
    root = df[["lower_torso_x_dot", "lower_torso_y_dot", "lower_torso_z_dot"]].to_numpy()
    acc = df[["lower_torso_x_ddot", "lower_torso_y_ddot", "lower_torso_z_ddot"]].to_numpy()
    np.testing.assert_array_equal(res.com_vel[:, 0], root)
    np.testing.assert_array_equal(res.com_acc[:, 0], acc)
    np.testing.assert_array_equal(res.force[:, 0], -model.mass[0] * acc)


def test_at_the_bryant_singularity(rng):
    """beta = pi/2 exactly: no division, finite results, consistent with finite differences."""
    model = random_model(rng)
    h = 1e-3
    t = np.arange(0, 0.6, h)
    df = sinusoid_motion(model, t, rng)
    for name in ("left_upper_arm", "right_lower_leg", "lower_torso"):
        df[f"{name}_beta"], df[f"{name}_beta_dot"], df[f"{name}_beta_ddot"] = np.pi / 2, 0.0, 0.0
    with np.errstate(all="raise"):
        res = hb.compute(model, df)
        diffd = hb.compute(model, df, rates="differentiate", differentiation="gradient")
    for name in ARRAYS:
        assert np.isfinite(getattr(res, name)).all()
        assert np.isfinite(getattr(diffd, name)).all()
    s = slice(3, -3)
    np.testing.assert_allclose(_fd_omega(res.R, h)[s], res.omega[s], atol=3e-4)
    np.testing.assert_allclose(diffd.omega[s], res.omega[s], atol=3e-4)
    np.testing.assert_allclose(diffd.alpha[s], res.alpha[s], atol=3e-2)


@pytest.mark.parametrize("method", ["savgol", "butterworth", "spline", "gradient"])
def test_differentiated_rates_approach_exact_rates(rng, method):
    """Without rate columns: a slow, smooth motion sampled at 200 Hz gives nearly the exact results."""
    model = random_model(rng)
    t = np.arange(0, 3.0, 0.005)
    df = sinusoid_motion(model, t, rng, amplitude=0.5)
    exact = hb.compute(model, df)
    plain = df[["time"] + coordinate_columns(model)]
    approx = hb.compute(model, plain, differentiation=hb.Differentiation(method=method, cutoff_hz=8.0))
    s = slice(40, -40)  # edges of smoothing windows excluded
    scale_w = np.abs(exact.omega).max()
    scale_a = np.abs(exact.alpha).max()
    assert np.abs(approx.omega - exact.omega)[s].max() < 0.01 * scale_w
    assert np.abs(approx.alpha - exact.alpha)[s].max() < 0.03 * scale_a


def test_rates_options_and_errors(rng):
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 40), rng)
    with pytest.raises(InputError, match="lack column 'lower_torso_alpha'"):
        hb.compute(model, df.drop(columns=["lower_torso_alpha"]))
    partial = df.drop(columns=["neck_beta_ddot"])
    with pytest.raises(InputError, match="some coordinates but not all"):
        hb.compute(model, partial)
    with pytest.raises(InputError, match="_dot and _ddot"):
        hb.compute(model, df[["time"] + coordinate_columns(model)], rates="given")
    bad = df.copy()
    bad.loc[5, "time"] = bad.loc[4, "time"]
    bad.attrs["source"] = "trial.csv"
    with pytest.raises(InputError, match=r"trial.csv: time is not strictly increasing at row 6"):
        hb.compute(model, bad)
    with pytest.raises(InputError, match="no 'time' column"):
        hb.compute(model, df.drop(columns=["time"]))
    text = df.astype({"head_gamma": object})
    text.loc[3, "head_gamma"] = "abc"
    with pytest.raises(InputError, match="head_gamma"):
        hb.compute(model, text)
    with pytest.raises(InputError, match="unknown differentiation"):
        hb.compute(model, df, rates="differentiate", differentiation="magic")


def test_nan_frames_stay_local(rng):
    """A missing frame gives NaN where it enters, not everywhere."""
    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 1, 60), rng)
    df.loc[30, "left_hand_alpha"] = np.nan
    res = hb.compute(model, df)
    k = SEGMENT_NAMES.index("left_hand")
    assert np.isnan(res.R[30, k]).any()
    assert np.isfinite(res.R[:, :k]).all() and np.isfinite(res.R[np.arange(60) != 30]).all()


@pytest.mark.parametrize("rates", ["auto", "differentiate"])
def test_frame_ranges_of_a_prepared_motion_equal_one_call(rng, rates):
    """Long trials are evaluated in ranges: rows must be those of the whole-trial result, bit for bit."""
    from humanbody.mechanics.kinematics import compute_motion, prepare_motion

    model = random_model(rng)
    df = sinusoid_motion(model, np.linspace(0, 3, 301), rng)
    whole = hb.compute(model, df, rates=rates)
    motion = prepare_motion(model, df, rates=rates)
    parts = [compute_motion(model, motion, a, min(a + 64, 301)) for a in range(0, 301, 64)]
    for name in ARRAYS:
        joined = np.concatenate([getattr(p, name) for p in parts])
        np.testing.assert_array_equal(joined, getattr(whole, name), err_msg=name)
    np.testing.assert_array_equal(np.concatenate([p.to_matrix() for p in parts]), whole.to_matrix())


@pytest.mark.parametrize("method", ["savgol", "gradient", "butterworth"])
def test_rates_in_overlapping_blocks_equal_one_pass(method):
    """prepare_motion differentiates a long trial block by block; no value changes."""
    from humanbody.mechanics import kinematics as kin

    model = BodyModel.default(mass=70.0, height=1.7)
    rng = np.random.default_rng(8)
    F = 1500
    t = np.arange(F) / 120.0
    cols = kin.coordinate_columns(model)
    phase = rng.uniform(0, 2 * np.pi, len(cols))
    freq = rng.uniform(0.3, 3.0, len(cols))
    data = np.sin(2 * np.pi * freq * t[:, None] + phase) * 2.5 + rng.normal(0, 1e-3, (F, len(cols)))
    coords = pd.DataFrame(np.column_stack([t, data]), columns=["time"] + cols)
    d = kin.Differentiation(method=method)
    seq = kin.sequence_axes_array(model)
    whole = kin._rates_block(d, t, data, seq, d.step(t))
    for chunk in (100, 333, 490, 1400):  # 490: a last block of 30 frames is merged
        qd, qdd = kin._differentiated_rates(d, t, data, seq, chunk=chunk)
        np.testing.assert_array_equal(qd, whole[0])
        np.testing.assert_array_equal(qdd, whole[1])
    motion = kin.prepare_motion(model, coords, differentiation=d)
    np.testing.assert_array_equal(motion.qd, whole[0])


def test_quaternion_omega_kernel_equals_the_numpy_form():
    from humanbody._kernels import tree as _kernels
    from humanbody.mechanics.kinematics import local_rates_from_quaternions

    rng = np.random.default_rng(5)
    q, qd, qdd = (rng.normal(size=(50, 17, 4)) for _ in range(3))
    w, wd = np.full((50, 54), np.nan), np.full((50, 54), np.nan)
    _kernels.quaternion_omegas(q, qd, qdd, w, wd, 3)
    want_w, want_wd = local_rates_from_quaternions(q, qd, qdd)
    np.testing.assert_allclose(w[:, 3:], want_w.reshape(50, 51), rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(wd[:, 3:], want_wd.reshape(50, 51), rtol=1e-13, atol=1e-13)
    assert np.isnan(w[:, :3]).all()


@pytest.mark.parametrize("seq", ["xyz", "yxz", "zxy", "zxz", "yzy"])
def test_sequence_quaternion_kernel_equals_the_numpy_form(seq):
    from humanbody._kernels import tree as _kernels
    from humanbody.rotations import sequence_axes, sequence_to_quaternion

    rng = np.random.default_rng(9)
    t = np.linspace(0, 30, 3000)[:, None, None]
    angles = np.concatenate([3 * np.sin(t + rng.uniform(0, 6, (1, 17, 1))),
                             1.5 * np.sin(0.3 * t + rng.uniform(0, 6, (1, 17, 1))),
                             2.0 * t * rng.uniform(-1, 1, (1, 17, 1))], axis=2)
    angles[100, 4] = np.nan
    angles[0, 2] = [0.0, 0.0, np.pi]  # eps4 = 0 at the first frame: the tie rule
    out = np.empty(angles.shape[:2] + (4,))
    _kernels.sequence_quaternions(np.ascontiguousarray(angles), np.array([sequence_axes(seq)] * 17), out)
    want = sequence_to_quaternion(angles, seq, continuous=True)
    # after the gap (frame 100 of body 4) the kernel starts a new sign run from the canonical sign
    sign = np.sign(np.sum(out[101:, 4] * want[101:, 4], axis=-1))
    assert np.all(sign == sign[0])
    want[101:, 4] *= sign[0]
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-15)
    np.testing.assert_array_equal(np.isnan(out), np.isnan(want))

"""Clinical joint moments in the frame the user chooses (--moment-frame distal|proximal|jcs|global).

A still leg (no motion, no gravity) with one known ground reaction on the right foot: the net internal
moment at each joint is -(P - O) x E (statics), computed here by hand, and each frame's components are its
dot products with that frame's axes, built here from the posture with scipy (an independent rotation code).
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy.spatial.transform import Rotation

import humanbody as hb
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns
from humanbody.mechanics.moment_frames import (
    MOMENT_FRAMES,
    distal_moments,
    moment_frame,
    project_moments,
    with_moment_frame,
)

MASS = 70.0
BASE = hb.BodyModel.default(mass=MASS, height=1.75).replace(gravity=np.zeros(3))
# a posture with every joint of the right leg turned about all three axes, so the frames differ
POSE = {"right_upper_leg": (20.0, -8.0, 12.0), "right_lower_leg": (-35.0, 6.0, 15.0), "right_foot": (10.0, -12.0, 9.0),
        "lower_torso": (5.0, 4.0, -7.0)}
FORCE = np.array([60.0, -35.0, 700.0])  # N, ground axes


def _still(model, F=3):
    cols = coordinate_columns(model)
    c = pd.DataFrame({"time": np.arange(F) / 100.0, **{k: np.zeros(F) for k in cols}})
    c["lower_torso_z"] = 0.95
    for seg, ang in POSE.items():
        for a, v in zip(("alpha", "beta", "gamma"), ang, strict=True):
            c[f"{seg}_{a}"] = np.radians(v)
    return c


def _setup(frame):
    model = with_moment_frame(BASE, frame)
    c = _still(model)
    res = hb.compute(model, c, differentiation="gradient")
    k = model.names.index("right_foot")
    P = res.joint[:, k] + np.array([0.12, -0.02, -0.07])  # the centre of pressure under the forefoot
    E = np.broadcast_to(FORCE, P.shape)
    loads = SimpleNamespace(force=np.ascontiguousarray(E[:, None]), moment_o=np.ascontiguousarray(np.cross(P, E)[:, None]),
                            body=np.full((len(c), 1), k, dtype=np.int64))
    table = pd.DataFrame(kinetic_block(model, res, loads), columns=kinetic_columns(model))
    return model, c, res, P, table


def _absolute(model, c, seg):
    """Orientation of ``seg`` in ground composed with scipy from the coordinates (frame 0)."""
    R = np.eye(3)
    chain = []
    k = model.names.index(seg)
    while k >= 0:
        chain.append(k)
        k = int(model.parents[k]) - 1
    for k in reversed(chain):
        name = model.names[k]
        ang = [c[f"{name}_{a}"].iloc[0] for a in ("alpha", "beta", "gamma")]
        R = R @ Rotation.from_euler(model.sequences[k].upper(), ang).as_matrix()  # intrinsic (body-fixed) sequence
    return R


JOINTS = (("hip", "right_upper_leg", "lower_torso", ("flexion", "adduction", "internal_rotation")),
          ("knee", "right_lower_leg", "right_upper_leg", ("flexion", "adduction", "internal_rotation")),
          ("ankle", "right_foot", "right_lower_leg", ("dorsiflexion", "inversion", "internal_rotation")))
SIGNS = np.array([-1.0, 1.0, 1.0]), np.array([1.0, 1.0, 1.0]), np.array([-1.0, 1.0, 1.0])  # hip, knee, ankle (right)


@pytest.mark.parametrize("frame", ["distal", "proximal", "global"])
def test_a_loaded_leg_s_moments_by_hand(frame):
    """Each joint's moment -(P - O) x E on the distal segment's axes (y flexion, x adduction, z rotation), the
    proximal segment's, or the lab's (walking along +X here), with the clinical signs, per kg."""
    model, c, res, P, table = _setup(frame)
    for (joint, seg, ref, words), signs in zip(JOINTS, SIGNS, strict=True):
        O = res.joint[0, model.names.index(seg)]
        m = -np.cross(P[0] - O, FORCE)  # statics: what the proximal segment exerts on the distal one
        np.testing.assert_allclose(table[[f"{seg}_joint_moment_{a}" for a in "xyz"]].iloc[0], m, atol=1e-9)
        R = {"distal": _absolute(model, c, seg), "proximal": _absolute(model, c, ref), "global": np.eye(3)}[frame]
        local = R.T @ m
        want = signs * local[[1, 0, 2]] / MASS
        got = table[[f"right_{joint}_{w}_moment_Nm_per_kg" for w in words]].iloc[0].to_numpy()
        np.testing.assert_allclose(got, want, atol=1e-9, err_msg=f"{frame} {joint}")


def test_the_frames_differ_and_jcs_is_unchanged():
    """In this posture the four frames give different components (the test can tell them apart); the joint
    coordinate system's are the kernel's, as before; the vector's size is the same on orthonormal axes."""
    got = {f: _setup(f)[4] for f in MOMENT_FRAMES}
    cols = [f"right_{j}_{w}_moment_Nm_per_kg" for j, _, _, words in JOINTS for w in words]
    for a in MOMENT_FRAMES:
        for b in MOMENT_FRAMES:
            if a < b:
                assert np.abs(got[a][cols].to_numpy() - got[b][cols].to_numpy()).max() > 0.01, (a, b)
    for j, _, _, words in JOINTS:
        size = {f: np.linalg.norm(got[f][[f"right_{j}_{w}_moment_Nm_per_kg" for w in words]].to_numpy(), axis=1)
                for f in ("distal", "proximal", "global")}
        np.testing.assert_allclose(size["distal"], size["proximal"], rtol=1e-12)
        np.testing.assert_allclose(size["distal"], size["global"], rtol=1e-12)
    # the JCS columns: the kernel's projection on (proximal y, floating axis, distal z)
    model, c, res, P, table = _setup("jcs")
    M = table[[f"right_lower_leg_joint_moment_{a}" for a in "xyz"]].iloc[0].to_numpy()
    u1, u3 = _absolute(model, c, "right_upper_leg")[:, 1], _absolute(model, c, "right_lower_leg")[:, 2]
    u2 = np.cross(u1, u3) / np.linalg.norm(np.cross(u1, u3))
    want = np.array([M @ u1, M @ u2, M @ u3]) / MASS
    np.testing.assert_allclose(table[["right_knee_flexion_moment_Nm_per_kg", "right_knee_adduction_moment_Nm_per_kg",
                                      "right_knee_internal_rotation_moment_Nm_per_kg"]].iloc[0], want, atol=1e-9)


def test_powers_are_the_same_in_every_frame():
    """The joint power M . (omega_d - omega_p) is a scalar: the same columns whatever the moment frame."""
    model = BASE
    F = 40
    c = _still(model, F)
    t = c["time"].to_numpy()
    c["right_lower_leg_alpha"] += 0.4 * np.sin(6 * t)
    c["right_foot_gamma"] += 0.2 * np.sin(9 * t)
    powers = {}
    for frame in MOMENT_FRAMES:
        m = with_moment_frame(model, frame)
        res = hb.compute(m, c, differentiation="gradient")
        k = m.names.index("right_foot")
        P = res.joint[:, k] + np.array([0.12, -0.02, -0.07])
        E = np.broadcast_to(FORCE, P.shape)
        loads = SimpleNamespace(force=np.ascontiguousarray(E[:, None]),
                                moment_o=np.ascontiguousarray(np.cross(P, E)[:, None]),
                                body=np.full((F, 1), k, dtype=np.int64))
        tab = pd.DataFrame(kinetic_block(m, res, loads), columns=kinetic_columns(m))
        powers[frame] = tab[[f"right_{j}_power_W_per_kg" for j in ("hip", "knee", "ankle")]].to_numpy()
        kk, kp = m.names.index("right_lower_leg"), m.names.index("right_upper_leg")
        w = res.omega[:, kk] - res.omega[:, kp]
        Mk = tab[[f"right_lower_leg_joint_moment_{a}" for a in "xyz"]].to_numpy()
        np.testing.assert_allclose(powers[frame][:, 1], np.einsum("fi,fi->f", Mk, w) / MASS, atol=1e-9)
    assert np.abs(powers["jcs"]).max() > 0.1
    for frame in MOMENT_FRAMES:
        np.testing.assert_allclose(powers[frame], powers["jcs"], atol=1e-12)


def test_distal_moments_from_a_results_table():
    """What the C3D export writes: the distal components rebuilt from the table's joint moments and
    coordinates equal the distal frame's columns, whatever frame the results use."""
    model, c, res, P, table = _setup("jcs")
    full = pd.concat([c, table], axis=1)
    rebuilt = distal_moments(model, {k: full[k].to_numpy() for k in full.columns})
    want = _setup("distal")[4]
    assert len(rebuilt) == 18  # both sides (the left unloaded: zero)
    for col, v in rebuilt.items():
        np.testing.assert_allclose(v, want[col], atol=1e-9, err_msg=col)


def test_frame_names_and_defaults():
    assert moment_frame(BASE) == "jcs"
    assert moment_frame(with_moment_frame(BASE, "distal")) == "distal"
    assert with_moment_frame(BASE, None) is BASE
    with pytest.raises(hb.InputError, match="^moment_frame must be one of distal, proximal, jcs, global"):
        with_moment_frame(BASE, "segment")
    R = np.broadcast_to(np.eye(3), (1, 2, 3, 3))
    M = np.array([[[0.0, 0.0, 0.0], [1.0, 2.0, 3.0]]])
    np.testing.assert_allclose(project_moments(R, M, [1], [0], [[1.0, 1.0, 1.0]], 1.0, "global", np.pi / 2),
                               [[[-1.0, 2.0, 3.0]]], atol=1e-12)  # progression +Y: its left is -X

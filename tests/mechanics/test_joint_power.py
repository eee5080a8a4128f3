"""Joint powers as Vicon Nexus computes them: P = M . (omega_distal - omega_proximal) / body mass (W/kg).

A moving, loaded leg; the angular velocities are computed here by central differences of orientation
matrices that scipy composes from the coordinates (independent of the kernels' analytic rates), and the
moment is taken from the results' joint-moment columns (checked by hand in test_moment_frames.py).  The
power is the same scalar whether both vectors are in ground axes or in the distal segment's (the frame
Nexus expresses its moments in), and equals the sum of the distal clinical moment columns times the
relative angular velocity's components on the same axes.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
from scipy.spatial.transform import Rotation

import humanbody as hb
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns
from humanbody.mechanics.moment_frames import with_moment_frame

MASS = 70.0
MODEL = with_moment_frame(hb.BodyModel.default(mass=MASS, height=1.75), "distal")
FORCE = np.array([60.0, -35.0, 700.0])
DT = 1e-3
JOINTS = (("hip", "right_upper_leg", "lower_torso", ("flexion", "adduction", "internal_rotation"), (-1.0, 1.0, 1.0)),
          ("knee", "right_lower_leg", "right_upper_leg", ("flexion", "adduction", "internal_rotation"), (1.0, 1.0, 1.0)),
          ("ankle", "right_foot", "right_lower_leg", ("dorsiflexion", "inversion", "internal_rotation"),
           (-1.0, 1.0, 1.0)))


def _motion(F=200):
    t = np.arange(F) * DT
    c = pd.DataFrame({"time": t, **{k: np.zeros(F) for k in coordinate_columns(MODEL)}})
    c["lower_torso_z"] = 0.95
    for k, (seg, amp) in enumerate((("lower_torso", 0.2), ("right_upper_leg", 0.6), ("right_lower_leg", 0.9),
                                     ("right_foot", 0.5))):
        for j, a in enumerate(("alpha", "beta", "gamma")):
            c[f"{seg}_{a}"] = amp / (1 + j) * np.sin((3 + k + 2 * j) * t + 0.3 * j + k)
    return c


def _orientation(c, seg):
    """Ground orientation of ``seg`` in every frame, composed with scipy along its chain."""
    chain, k = [], MODEL.names.index(seg)
    while k >= 0:
        chain.append(k)
        k = int(MODEL.parents[k]) - 1
    R = np.broadcast_to(np.eye(3), (len(c), 3, 3))
    for k in reversed(chain):
        name = MODEL.names[k]
        ang = c[[f"{name}_{a}" for a in ("alpha", "beta", "gamma")]].to_numpy()
        R = R @ Rotation.from_euler(MODEL.sequences[k].upper(), ang).as_matrix()
    return R


def _omega(R):
    """omega from central differences: [omega]x = dR/dt R^T (frames 1 .. F-2; ends NaN)."""
    W = np.full((len(R), 3), np.nan)
    S = np.einsum("fij,fkj->fik", (R[2:] - R[:-2]) / (2 * DT), R[1:-1])
    W[1:-1] = 0.5 * np.c_[S[:, 2, 1] - S[:, 1, 2], S[:, 0, 2] - S[:, 2, 0], S[:, 1, 0] - S[:, 0, 1]]
    return W


def test_powers_are_moment_dot_relative_angular_velocity_by_hand():
    c = _motion()
    res = hb.compute(MODEL, c, differentiation="gradient")
    k = MODEL.names.index("right_foot")
    P = res.joint[:, k] + np.array([0.12, -0.02, -0.07])
    E = np.broadcast_to(FORCE, P.shape)
    loads = SimpleNamespace(force=np.ascontiguousarray(E[:, None]), moment_o=np.ascontiguousarray(np.cross(P, E)[:, None]),
                            body=np.full((len(c), 1), k, dtype=np.int64))
    tab = pd.DataFrame(kinetic_block(MODEL, res, loads), columns=kinetic_columns(MODEL))
    inner = slice(5, -5)
    for joint, seg, ref, words, signs in JOINTS:
        Rd, Rp = _orientation(c, seg), _orientation(c, ref)
        w = _omega(Rd) - _omega(Rp)
        M = tab[[f"{seg}_joint_moment_{a}" for a in "xyz"]].to_numpy()
        got = tab[f"right_{joint}_power_W_per_kg"].to_numpy()
        ground = np.einsum("fi,fi->f", M, w) / MASS
        in_distal = np.einsum("fi,fi->f", np.einsum("fji,fj->fi", Rd, M), np.einsum("fji,fj->fi", Rd, w)) / MASS
        scale = np.abs(ground[inner]).max()
        assert scale > 0.5, joint  # the test moves and loads every joint
        np.testing.assert_allclose(got[inner], ground[inner], atol=2e-4 * scale, err_msg=joint)
        np.testing.assert_allclose(in_distal[inner], ground[inner], atol=1e-9 * scale, err_msg=joint)
        # Nexus's moment outputs are these distal columns (times -1000): the power is their dot product with
        # the relative angular velocity on the same axes (y flexion, x adduction, z rotation), the signs undone
        cols = tab[[f"right_{joint}_{wd}_moment_Nm_per_kg" for wd in words]].to_numpy()
        w_local = np.einsum("fji,fj->fi", Rd, w)[:, [1, 0, 2]]
        np.testing.assert_allclose(np.sum(cols * np.array(signs) * w_local, axis=1)[inner], ground[inner],
                                   atol=2e-4 * scale, err_msg=joint)

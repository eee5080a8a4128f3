"""Inverse dynamics from external loads: joint forces, moments and powers.

The d'Alembert form the kinematics already give (inertia forces and torques,
Huston ch. 9-10) balanced body by body from the tips of the tree to the root
(:func:`humanbody._kinetic_kernels.joint_loads`).  Results columns
(docs/conventions.md, "Results"):

- ``<segment>_joint_force_<axis>`` (N), ``<segment>_joint_moment_<axis>``
  (N·m about O_k): what the segment receives from its parent, ground axes;
  body 1's are the residual force and moment from ground;
- ``<segment>_joint_power`` (W): joint moment . relative angular velocity;
- clinical moments ``s_hip_flexion_moment_Nm_per_kg`` ...: the generalized
  force of each clinical angle of the hips, knees and ankles (the joint moment
  projected on that angle's axis of the joint coordinate system, positive in
  the sense of the positive angle), per kg of body mass; joint powers
  ``s_hip_power_W_per_kg`` ...; ground reaction per foot
  ``s_grf_<axis>_N_per_kg``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .clinical import CLINICAL_ANGLES
from .rotations import angle_rate_matrix, matrix_to_euler

__all__ = ["JointLoads", "joint_loads", "kinetic_columns", "kinetic_block", "KINETIC_JOINTS"]

#: Joints with clinical moments and powers: (joint, segment, reference) for each side.
KINETIC_JOINTS = tuple((f"{side}_{j}", f"{side}_{seg}", ref.format(side=side))
                       for side in ("right", "left")
                       for j, seg, ref in (("hip", "upper_leg", "lower_torso"), ("knee", "lower_leg", "{side}_upper_leg"),
                                           ("ankle", "foot", "{side}_lower_leg")))


@dataclass(eq=False)
class JointLoads:
    """Joint forces (F, n, 3) N, moments (F, n, 3) N·m about O_k, powers (F, n) W; ground axes."""

    joint_force: np.ndarray
    joint_moment: np.ndarray
    joint_power: np.ndarray


def _external(loads, results, start: int, stop: int):
    """External force and moment about O_k on every body, (F, n, 3) each, and the ambiguous frames (F,)."""
    F, n = results.joint.shape[:2]
    ext_f = np.zeros((F, n, 3))
    ext_m = np.zeros((F, n, 3))
    bad = np.zeros(F, dtype=bool)
    if loads is None:
        return ext_f, ext_m, bad
    force, moment_o, body = (a[start:stop] for a in (loads.force, loads.moment_o, loads.body))
    frames = np.arange(F)
    for j in range(force.shape[1]):
        b = body[:, j]
        bad |= b == -2
        on = b >= 0
        if not on.any():
            continue
        f_idx, k = frames[on], b[on]
        fo = force[on, j]
        np.add.at(ext_f, (f_idx, k), fo)
        np.add.at(ext_m, (f_idx, k), moment_o[on, j] - np.cross(results.joint[f_idx, k], fo))
    return ext_f, ext_m, bad


def joint_loads(model, results, loads=None, start: int = 0) -> JointLoads:
    """Joint forces, moments and powers of every body, every frame of ``results``.

    Parameters
    ----------
    model : BodyModel
    results : Results
        Kinematics and inertia forces of frames ``start .. start + F`` of
        the motion (:func:`humanbody.compute` or a chunk of it).
    loads : humanbody.loads.FrameLoads, optional
        Conditioned and assigned external loads on the motion's frames
        (:func:`humanbody.loads.condition_loads`, :func:`~humanbody.loads.assign_loads`);
        without loads the root carries everything (a swing phase in the air,
        a simulation).
    start : int
        First frame of ``results`` in the loads' frames.

    Frames where a load's body is ambiguous (two feet on one plate) are NaN.
    """
    from ._kinetic_kernels import joint_loads as kernel

    F, n = results.joint.shape[:2]
    ext_f, ext_m, bad = _external(loads, results, start, start + F)
    out = JointLoads(np.empty((F, n, 3)), np.empty((F, n, 3)), np.empty((F, n)))
    kernel(np.asarray(model.parents, dtype=np.int64), np.asarray(model.mass, dtype=float),
           np.asarray(model.gravity, dtype=float), results.joint, results.com, results.force, results.torque,
           results.omega_rel, ext_f, ext_m, out.joint_force, out.joint_moment, out.joint_power)
    if bad.any():
        out.joint_force[bad] = np.nan
        out.joint_moment[bad] = np.nan
        out.joint_power[bad] = np.nan
    return out


def _clinical_of(joint: str) -> list:
    return [a for a in CLINICAL_ANGLES if a.joint == joint]


def kinetic_columns(model) -> list[str]:
    """Kinetic columns of the results table for ``model`` (docs/conventions.md)."""
    cols = []
    for name in model.names:
        cols += [f"{name}_joint_force_{a}" for a in "xyz"] + [f"{name}_joint_moment_{a}" for a in "xyz"]
        cols.append(f"{name}_joint_power")
    for joint, seg, ref in KINETIC_JOINTS:
        if seg in model.names and ref in model.names:
            cols += [a.column[: -len("_deg")] + "_moment_Nm_per_kg" for a in _clinical_of(joint)]
            cols.append(f"{joint}_power_W_per_kg")
    for side in ("right", "left"):
        if f"{side}_foot" in model.names:
            cols += [f"{side}_grf_{a}_N_per_kg" for a in "xyz"]
    return cols


def kinetic_block(model, results, loads, start: int = 0) -> np.ndarray:
    """The kinetic columns (:func:`kinetic_columns`) of frames ``start ..`` as one (F, c) array."""
    jl = joint_loads(model, results, loads, start)
    F, n = results.joint.shape[:2]
    body_mass = float(model.total_mass)
    parts = [np.concatenate([jl.joint_force, jl.joint_moment, jl.joint_power[..., None]], axis=2).reshape(F, n * 7)]
    for joint, seg, ref in KINETIC_JOINTS:
        if seg not in model.names or ref not in model.names:
            continue
        k, p = model.names.index(seg), model.names.index(ref)
        Rp = results.R[:, p]
        S = np.swapaxes(Rp, -1, -2) @ results.R[:, k]
        axes = Rp @ angle_rate_matrix(matrix_to_euler(S, "yxz"), "yxz", "parent")  # (F, 3, 3), columns in ground
        M = jl.joint_moment[:, k]
        proj = np.einsum("fi,fij->fj", M, axes)
        signs = np.array([a.sign for a in _clinical_of(joint)])
        parts.append(proj * signs / body_mass)
        parts.append(jl.joint_power[:, k:k + 1] / body_mass)
    for side in ("right", "left"):
        if f"{side}_foot" not in model.names:
            continue
        k = model.names.index(f"{side}_foot")
        grf = np.zeros((F, 3))
        if loads is not None:
            body = loads.body[start:start + F]
            for j in range(loads.force.shape[1]):
                grf += np.where((body[:, j] == k)[:, None], loads.force[start:start + F, j], 0.0)
            grf[(body == -2).any(axis=1)] = np.nan
        parts.append(grf / body_mass)
    return np.concatenate(parts, axis=1)

"""Inverse dynamics from external loads: joint forces, moments and powers.

The d'Alembert form the kinematics already give (inertia forces and torques,
Huston ch. 9-10) balanced body by body from the tips of the tree to the root
on the model's core (:func:`humanbody.core.huston.huston_loads`).  Results columns
(docs/conventions.md, "Results"):

- ``<segment>_joint_force_<axis>`` (N), ``<segment>_joint_moment_<axis>``
  (N·m about O_k): what the segment receives from its parent, ground axes;
  body 1's are the residual force and moment from ground;
- ``<segment>_joint_power`` (W): joint moment . relative angular velocity;
- clinical moments ``s_hip_flexion_moment_Nm_per_kg`` ...: the joint moment
  projected on the axis of each clinical angle of the hips, knees and ankles
  in the model's moment frame (:mod:`humanbody.mechanics.moment_frames`: by
  default the joint coordinate system, whose components are the generalized
  forces of the clinical angles; the distal segment's frame for the Plug-in
  Gait sets), positive in the sense of the positive angle, per kg of body
  mass; joint powers
  ``s_hip_power_W_per_kg`` ...; ground reaction per foot
  ``s_grf_<axis>_N_per_kg``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels.kinetics import clinical_moments, ground_reactions, tree_dynamics
from ..core.huston import huston_loads
from .clinical import CLINICAL_ANGLES, KINETIC_JOINTS, lab_axis_heading
from .moment_frames import apply_moment_frame, moment_frame, trial_heading
from .results import run_tree as _run_kernel

__all__ = ["JointLoads", "joint_load_table", "kinetic_columns", "kinetic_block", "compute_with_kinetics", "KINETIC_JOINTS",
           "moment_contributions"]

@dataclass(eq=False)
class JointLoads:
    """Joint forces (F, n, 3) N, moments (F, n, 3) N·m about O_k, powers (F, n) W; ground axes."""

    joint_force: np.ndarray
    joint_moment: np.ndarray
    joint_power: np.ndarray


def _load_arrays(loads, start: int, stop: int):
    """The loads of frames ``start:stop`` as the kernel takes them (no loads: none)."""
    if loads is None:
        F = stop - start
        return np.zeros((F, 0, 3)), np.zeros((F, 0, 3)), np.zeros((F, 0), dtype=np.int64)
    if hasattr(loads, "kernel_arrays"):  # feet sharing a plate, feet never loaded: NaN for them only
        return loads.kernel_arrays(start, stop)
    return (np.ascontiguousarray(loads.force[start:stop]), np.ascontiguousarray(loads.moment_o[start:stop]),
            np.ascontiguousarray(loads.body[start:stop], dtype=np.int64))


def joint_load_table(model, results, loads=None, start: int = 0, out: JointLoads | None = None) -> JointLoads:
    """Joint forces, moments and powers of every body, every frame of ``results``.

    Parameters
    ----------
    model : BodyModel
        The tree; its core model's parents, masses and gravity balance the loads.
    results : Results
        Kinematics and inertia forces of frames ``start .. start + F`` of
        the motion (:func:`humanbody.compute` or a chunk of it).
    loads : humanbody.mechanics.loads.FrameLoads, optional
        Conditioned and assigned external loads on the motion's frames
        (:func:`humanbody.mechanics.loads.condition_loads`, :func:`~humanbody.mechanics.foot_contact.assign_loads`);
        without loads the root carries everything (a swing phase in the air,
        a simulation).
    start : int
        First frame of ``results`` in the loads' frames.
    out : JointLoads, optional
        Arrays to write into (any strides; views of a results block).

    Returns
    -------
    JointLoads
        Joint forces (F, n, 3) N, moments (F, n, 3) N m about O_k and powers (F, n) W, ground axes: what each
        body receives from its parent (``out`` when given).  Frames where a load's body is ambiguous (two feet
        on one plate) are NaN.
    """
    F = results.joint.shape[0]
    kinematics = {name: getattr(results, name) for name in ("joint", "com", "force", "torque", "omega_rel")}
    arrays = None if out is None else (out.joint_force, out.joint_moment, out.joint_power)
    load_force, load_moment, load_body = _load_arrays(loads, start, start + F)
    force, moment, power = huston_loads(model.core, kinematics, load_force, load_moment, load_body, arrays)
    return out if out is not None else JointLoads(force, moment, power)


def _clinical_of(joint: str) -> list:
    return [a for a in CLINICAL_ANGLES if a.joint == joint]


def kinetic_columns(model) -> list[str]:
    """Kinetic columns of the results table for ``model`` (docs/conventions.md).

    Parameters
    ----------
    model : BodyModel
        Its segment names (hips, knees, ankles and feet by name).

    Returns
    -------
    list of str
        Per segment ``<name>_joint_force_{x,y,z}``, ``<name>_joint_moment_{x,y,z}``, ``<name>_joint_power``;
        per hip, knee and ankle the clinical moments (N m/kg) and power (W/kg); per foot the ground reaction
        ``<side>_grf_{x,y,z}_N_per_kg``.
    """
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


def _clinical_joints(model):
    """(child, parent, signs) arrays of the joints with clinical moments in ``model``."""
    rows = [(model.names.index(seg), model.names.index(ref), [a.sign for a in _clinical_of(joint)])
            for joint, seg, ref in KINETIC_JOINTS if seg in model.names and ref in model.names]
    return (np.array([r[0] for r in rows], dtype=np.int64), np.array([r[1] for r in rows], dtype=np.int64),
            np.array([r[2] for r in rows], dtype=float).reshape(-1, 3))


def _block_layout(model, F: int, out):
    """The kinetic table of F frames (reused ``out`` when its shape fits), its joint-load views and clinical arrays."""
    n = len(model.names)
    child, parent, signs = _clinical_joints(model)
    feet = np.array([model.names.index(f"{s}_foot") for s in ("right", "left") if f"{s}_foot" in model.names],
                    dtype=np.int64)
    shape = (F, 7 * n + 4 * len(child) + 3 * len(feet))
    if out is None or out.shape != shape:
        out = np.empty(shape)
    seg = out[:, :7 * n].reshape(F, n, 7)  # the kernels write the table's columns in place
    return out, JointLoads(seg[..., :3], seg[..., 3:6], seg[..., 6]), child, parent, signs, feet


def kinetic_block(model, results, loads, start: int = 0, out: np.ndarray | None = None,
                  heading: float | None = None) -> np.ndarray:
    """The kinetic columns (:func:`kinetic_columns`) of frames ``start ..`` as one (F, c) array.

    Joint forces, moments and powers (:func:`joint_load_table`); the clinical
    moments and powers of hips, knees and ankles
    (:func:`humanbody._kernels.kinetics.clinical_moments`: the moment on the
    axes of the joint coordinate system); the ground reaction on each foot
    (:func:`humanbody._kernels.kinetics.ground_reactions`).  All per kg of
    body mass except the per-segment columns.  ``out``, when it has the
    right shape, is written and returned (a reused buffer).  The clinical
    moments are in the model's moment frame
    (:func:`humanbody.mechanics.moment_frames.moment_frame`: the joint
    coordinate system unless the model names another); ``"global"`` takes
    the trial's progression axis ``heading`` (rad; default: from these
    frames, :func:`~humanbody.mechanics.moment_frames.trial_heading`).

    Parameters
    ----------
    model : BodyModel
        The tree, its total mass (the per-kg columns) and moment frame.
    results : Results
        Kinematics of frames ``start ..`` of the motion.
    loads : FrameLoads or None
        Conditioned and assigned loads on the motion's frames.
    start : int
        First frame of ``results`` in the loads' frames.
    out : ndarray, shape (F, c), optional
        A buffer to write into.
    heading : float, optional
        rad about Z from X, for the ``"global"`` moment frame.

    Returns
    -------
    ndarray, shape (F, c)
        The columns of :func:`kinetic_columns` (c of them), in that order.
    """
    F, n = results.joint.shape[:2]
    body_mass = float(model.total_mass)
    out, jl, child, parent, signs, feet = _block_layout(model, F, out)
    joint_load_table(model, results, loads, start, out=jl)
    clinical_moments(results.R, jl.joint_moment, jl.joint_power, child, parent, signs, body_mass, out, 7 * n)
    _in_frame(model, results.R, jl, child, parent, signs, out, 7 * n, heading,
              lambda: _heading_of(model, results))
    force, _, body = _load_arrays(loads, start, start + F)
    ground_reactions(force, body, feet, body_mass, out, 7 * n + 4 * len(child))
    return out


def compute_with_kinetics(model, motion, loads, start: int = 0, stop: int | None = None, out=None,
                          block: np.ndarray | None = None):
    """:func:`humanbody.mechanics.kinematics.compute_motion` and :func:`kinetic_block` of frames ``start:stop`` in one pass.

    The same numbers as the two calls one after the other
    (:func:`humanbody._kernels.kinetics.tree_dynamics` runs each frame's
    kinetics right after its kinematics, while they are in cache).  ``out``
    is a results workspace as in :func:`~humanbody.mechanics.kinematics.compute_motion`,
    ``block`` a kinetic table to reuse.  Returns ``(results, block)``.

    Parameters
    ----------
    model : BodyModel
        The tree, its total mass (the per-kg columns) and moment frame.
    motion : Motion
        The prepared motion (:func:`humanbody.mechanics.kinematics.prepare_motion`).
    loads : FrameLoads or None
        Conditioned and assigned loads on the motion's frames.
    start, stop : int
        The frame range (``stop`` None: to the end); it must not be empty.
    out : Results, optional
        The results workspace.
    block : ndarray, shape (F, c), optional
        The kinetic table to reuse.

    Returns
    -------
    results : Results
        The range's kinematics and inertia forces.
    block : ndarray, shape (F, c)
        Its kinetic columns (:func:`kinetic_columns`).
    """
    stop = motion.n_frames if stop is None else stop
    sl = slice(start, stop)
    q, qd, qdd = motion.q[sl], motion.qd[sl], motion.qdd[sl]
    if q.shape[0] == 0:
        raise ValueError(f"frame range {start}:{stop} of a {motion.n_frames}-frame motion is empty")
    F, n = q.shape[0], len(model.names)
    block, jl, child, parent, signs, feet = _block_layout(model, F, block)
    extra = (np.asarray(model.gravity, dtype=float), *_load_arrays(loads, start, stop), jl.joint_force,
             jl.joint_moment, jl.joint_power, child, parent, signs, feet, float(model.total_mass), block, 7 * n)
    results = _run_kernel(model, motion.time[sl], q, qd, qdd, motion.local_rates, motion.how, out,
                          kernel=lambda *args: tree_dynamics(*args, *extra))
    _in_frame(model, results.R, jl, child, parent, signs, block, 7 * n, None, lambda: trial_heading(model, motion.q))
    return results, block


def _heading_of(model, results) -> float:
    """The progression lab axis of the frames of ``results`` (root travel and facing)."""
    R0 = np.asarray(results.R)[:, 0]
    return lab_axis_heading(np.asarray(results.joint)[:, 0, :2], np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))


def _in_frame(model, R, jl, child, parent, signs, out, first, heading, find_heading) -> None:
    """The clinical moment columns re-expressed in the model's moment frame (the kernel wrote the JCS's)."""
    frame = moment_frame(model)
    if frame == "jcs":
        return
    if frame == "global" and heading is None:
        heading = find_heading()
    apply_moment_frame(model, R, jl.joint_moment, child, parent, signs, out, first, heading)


def _subtree(parents, k: int) -> list[int]:
    """Body ``k`` and every body below it in the tree (``parents`` 0-based, -1 = ground, as the core's)."""
    out = [k]
    for j in range(k + 1, len(parents)):  # bodies are numbered parents first
        if parents[j] in out:
            out.append(j)
    return out


def moment_contributions(model, results, loads, segment: str) -> dict[str, np.ndarray]:
    """The joint moment ``segment`` receives from its parent, term by term: (F, 3) N·m each, ground axes.

    Summed over the bodies j of the segment's subtree (the segment and every
    segment below it), the recursion of :func:`joint_load_table` is

    ``m_k = - sum_loads ((P - O_k) x E + M_free) - sum_j (G_j - O_k) x m_j g
    - sum_j (G_j - O_k) x F*_j - sum_j T*_j``

    with ``E`` the force of each external load on the subtree, ``P`` its
    centre of pressure and ``M_free`` its free moment (``M_O = P x E +
    M_free``), ``F*_j = -m_j a_j`` and ``T*_j = -(I_j alpha_j + omega_j x I_j
    omega_j)`` the inertia force and torque.  Returned, in that order:
    ``"loads: force"`` (the ground reaction's lever arm about O_k),
    ``"loads: free moment"``, then for each body j ``"<j> weight"``,
    ``"<j> inertia force"`` (``-(G_j - O_k) x F*_j``: the ``m a`` term) and
    ``"<j> inertia torque"`` (``-T*_j``: the ``I alpha + omega x I omega``
    term).  They sum to ``joint_load_table(...).joint_moment[:, k]``; a clinical
    moment's terms are their components on its axis (e.g. the hip flexion
    moment on the pelvis's y axis, :func:`kinetic_block`).  Frames where a
    load's body is ambiguous are NaN, as in :func:`joint_load_table`.

    Parameters
    ----------
    model : BodyModel
        The tree: its parents, masses and gravity.
    results : Results
        Kinematics and inertia loads of the loads' frames (:func:`humanbody.compute`).
    loads : FrameLoads or None
        Conditioned and assigned loads on the same frames (None: no external load).
    segment : str
        A segment of ``model``: the moment it receives from its parent is split.

    Returns
    -------
    dict of str to ndarray, shape (F, 3)
        N m, ground axes, keyed as above (the two loads' terms zero when ``loads`` is None).
    """
    k = model.names.index(segment)
    bodies = _subtree(model.core.parents, k)
    F = results.joint.shape[0]
    O = results.joint[:, k]
    force, moment_o, body = _load_arrays(loads, 0, F)
    on = np.isin(body, bodies)[..., None]
    E = np.where(on, force, 0.0)
    external = (np.where(on, moment_o, 0.0) - np.cross(O[:, None], E)).sum(axis=1)  # (P - O) x E + M_free
    free = np.zeros((F, 3))
    cop = None if loads is None else getattr(loads, "cop", None)
    if cop is not None:
        L = cop.shape[1]
        mine = on[:, :L]
        free = np.where(mine, moment_o[:, :L] - np.cross(np.nan_to_num(cop), force[:, :L]), 0.0).sum(axis=1)
    out = {"loads: force": -(external - free), "loads: free moment": -free}
    g = np.asarray(model.gravity, dtype=float)
    for j in bodies:
        arm = results.com[:, j] - O
        name = model.names[j]
        out[f"{name} weight"] = -np.cross(arm, model.mass[j] * g)
        out[f"{name} inertia force"] = -np.cross(arm, results.force[:, j])
        out[f"{name} inertia torque"] = -np.asarray(results.torque[:, j], dtype=float)
    bad = (body == -2).any(axis=1)
    if bad.any():
        for v in out.values():
            v[bad] = np.nan
    return out

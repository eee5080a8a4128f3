"""The frame the clinical joint moments are expressed in: distal, proximal, joint coordinate system, global.

A joint's net internal moment M (N·m, ground axes: what the proximal
segment exerts on the distal one about the joint centre,
:func:`humanbody.mechanics.kinetics.joint_load_table`) is one vector; the
clinical columns ``s_<joint>_<angle>_moment_Nm_per_kg`` are its components
on three axes, one per clinical angle of the joint, each positive in the
sense of its positive angle (``sign``: flexion, adduction, internal
rotation, dorsiflexion, inversion on both sides) and divided by the body
mass m:

``column_a = sign_a (M . u_a) / m``,  a = flexion (about y), adduction (x), rotation (z)

with the axes u_a taken from

- ``"jcs"``: the joint coordinate system (Grood and Suntay): ``u_y = R_p e_y``
  fixed in the proximal segment, ``u_z = R_d e_z`` fixed in the distal one
  and the floating ``u_x = unit(u_y x u_z)`` (not orthogonal in general:
  the generalized forces of the clinical angles);
- ``"distal"``: the distal segment's own axes, ``u_a = R_d e_a`` (Plug-in
  Gait's and Vicon Nexus's, pyCGM2's ``"Distal"`` projection: the hip's
  moment in the thigh's frame, the knee's in the shank's, the ankle's in the
  foot's);
- ``"proximal"``: the proximal segment's axes, ``u_a = R_p e_a``;
- ``"global"``: the progression frame of the trial, one lab axis
  (:func:`humanbody.mechanics.clinical.lab_axis_heading`): ``u_x`` along
  the progression, ``u_y`` to its left, ``u_z`` up.

The joint power ``P = M . (omega_d - omega_p)`` (W; per kg in
``s_<joint>_power_W_per_kg``) is a scalar and the same in every frame;
Vicon Nexus writes it, in W/kg, as the Z component of ``RHipPower`` ....
Nexus's own moment outputs (``RHipMoment`` ..., N·mm/kg) are the distal
components with extensor, abductor, external rotator and plantarflexor
positive, that is ``-1000`` times the ``"distal"`` columns here
(:func:`nexus_moments`).
"""

from __future__ import annotations

import numpy as np

from ..core import forward_kinematics
from ..errors import InputError
from ..rotations.angles import euler_to_matrix
from .clinical import CLINICAL_ANGLES, KINETIC_JOINTS, lab_axis_heading

__all__ = ["MOMENT_FRAMES", "NEXUS_FRAME", "moment_frame", "with_moment_frame", "moment_axes", "project_moments",
           "apply_moment_frame", "trial_heading", "distal_moments", "moment_frame_note"]

#: The frames a user may choose (``--moment-frame``).
MOMENT_FRAMES = ("distal", "proximal", "jcs", "global")

#: The frame of Vicon Nexus's Plug-in Gait moments (and of the C3D export).
NEXUS_FRAME = "distal"

_LETTERS = (1, 0, 2)  # flexion about y, adduction about x, rotation about z: the clinical angles' axes


def _check(frame: str) -> str:
    if frame not in MOMENT_FRAMES:
        raise InputError(f"moment_frame must be one of {', '.join(MOMENT_FRAMES)}, not {frame!r}", option="moment_frame")
    return frame


def moment_frame(model) -> str:
    """The frame of ``model``'s clinical moment columns.

    Parameters
    ----------
    model : BodyModel
        Its ``conventions.moment_frame`` (the Plug-in Gait sets: ``"distal"``).

    Returns
    -------
    str
        One of :data:`MOMENT_FRAMES`; ``"jcs"`` when the model does not say.
    """
    return _check(model.conventions.moment_frame or "jcs")


def with_moment_frame(model, frame: str | None):
    """``model`` with its clinical moments in ``frame``.

    Parameters
    ----------
    model : BodyModel
        The model whose conventions change.
    frame : str or None
        One of :data:`MOMENT_FRAMES`; None: the marker set's, or ``"jcs"`` (``model`` unchanged).

    Returns
    -------
    BodyModel
        A copy of ``model`` whose conventions name ``frame`` (``model`` itself when ``frame`` is None).
    """
    if frame is None:
        return model
    return model.replace(conventions=model.conventions.replace(moment_frame=_check(str(frame))))


def moment_frame_note(model) -> str:
    """One log line naming the frame of the clinical moment columns.

    Parameters
    ----------
    model : BodyModel
        Its ``conventions.moment_frame``.

    Returns
    -------
    str
        The log line (stage "mechanics").
    """
    frame = moment_frame(model)
    what = {"distal": "the distal segment's frame (the thigh's for the hip, the shank's for the knee, the foot's "
                      "for the ankle), as Plug-in Gait expresses them",
            "proximal": "the proximal segment's frame (the pelvis's for the hip, the thigh's for the knee, the "
                        "shank's for the ankle)",
            "jcs": "the joint coordinate system's axes (proximal flexion axis, floating axis, distal long axis)",
            "global": "the trial's progression frame (one lab axis, its left and the vertical)"}[frame]
    return (f"moments: clinical moment columns (*_moment_Nm_per_kg) in {what} (--moment-frame {frame}); "
            "the C3D export writes Plug-in Gait's (distal, N.mm/kg, extensor, abductor, external rotator, "
            "plantarflexor positive)")


def _yaw(heading: float) -> np.ndarray:
    c, s = np.cos(heading), np.sin(heading)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def moment_axes(R, child, parent, frame: str, heading: float = 0.0) -> np.ndarray:
    """The axes u_flexion, u_adduction, u_rotation of each joint, ground components.

    Parameters
    ----------
    R : (F, n, 3, 3) array_like
        Absolute orientations of the segments (columns: the body axes in ground).
    child, parent : (J,) int array_like
        0-based indices of each joint's distal and proximal segments.
    frame : str
        One of :data:`MOMENT_FRAMES`.
    heading : float
        rad, the progression's lab axis (``"global"`` only).

    Returns
    -------
    (F, J, 3, 3) ndarray
        Axis last-but-one: ``u[f, j, a]`` is axis a of joint j.
    """
    R = np.asarray(R, dtype=float)
    Rd, Rp = R[:, child], R[:, parent]
    if frame == "distal":
        return np.swapaxes(Rd[..., list(_LETTERS)], -1, -2)
    if frame == "proximal":
        return np.swapaxes(Rp[..., list(_LETTERS)], -1, -2)
    if frame == "global":
        G = _yaw(float(heading))[:, list(_LETTERS)].T
        return np.broadcast_to(G, Rd.shape).copy()
    _check(frame)
    u1, u3 = Rp[..., :, 1], Rd[..., :, 2]
    u2 = np.cross(u1, u3)
    u2 /= np.linalg.norm(u2, axis=-1, keepdims=True)
    return np.stack([u1, u2, u3], axis=-2)


def project_moments(R, joint_moment, child, parent, signs, body_mass: float, frame: str,
                    heading: float = 0.0) -> np.ndarray:
    """``sign_a (M . u_a) / m`` of each joint (module docstring).

    Parameters
    ----------
    R, child, parent, frame, heading
        As :func:`moment_axes`.
    joint_moment : (F, n, 3) array_like
        Each segment's joint moment (N·m, ground axes).
    signs : (J, 3) array_like
        The clinical sign of each joint's three components.
    body_mass : float
        kg.

    Returns
    -------
    (F, J, 3) ndarray
        N·m/kg.
    """
    M = np.asarray(joint_moment, dtype=float)[:, child]
    u = moment_axes(R, child, parent, frame, heading)
    return np.asarray(signs, dtype=float) * np.einsum("fjai,fji->fja", u, M) / float(body_mass)


def apply_moment_frame(model, R, joint_moment, child, parent, signs, out, first: int, heading=None) -> None:
    """Write the clinical moment columns of ``out`` in ``model``'s frame (:func:`moment_frame`).

    Four columns per joint from ``first``: three moments, then the power (left as it is); the kernel's
    ``"jcs"`` columns are left as they are.

    Parameters
    ----------
    model : BodyModel
        Its moment frame (:func:`moment_frame`).
    R, joint_moment, child, parent, signs
        As :func:`project_moments`.
    out : (F, columns) ndarray
        The results block, written in place.
    first : int
        Its first clinical moment column.
    heading : float, optional
        rad, the trial's progression axis (:func:`trial_heading`), needed by ``"global"``.
    """
    frame = moment_frame(model)
    if frame == "jcs" or len(child) == 0:
        return
    if frame == "global" and heading is None:
        raise ValueError("the global moment frame needs the trial's heading")
    comps = project_moments(R, joint_moment, child, parent, signs, float(model.total_mass), frame,
                            0.0 if heading is None else float(heading))
    for i in range(len(child)):
        out[:, first + 4 * i:first + 4 * i + 3] = comps[:, i]


def _root_rotation(model, angles) -> np.ndarray:
    return euler_to_matrix(np.asarray(angles, dtype=float), model.sequences[0])


def trial_heading(model, q) -> float:
    """The trial's progression lab axis from its coordinates: the root's travel and facing
    (:func:`humanbody.mechanics.clinical.lab_axis_heading`).

    Parameters
    ----------
    model : BodyModel
        Its root's rotation sequence.
    q : (F, 3 + 3n) array_like
        Generalized coordinates (m, rad).

    Returns
    -------
    float
        rad about Z from X: one of 0, pi/2, pi, -pi/2.
    """
    q = np.asarray(q, dtype=float)
    R0 = _root_rotation(model, q[:, 3:6])
    return lab_axis_heading(q[:, :2], np.arctan2(R0[:, 1, 0], R0[:, 0, 0]))


def _orientations(model, table, names) -> dict:
    """Absolute orientations (F, 3, 3) of the segments ``names`` from the coordinate columns of ``table``.

    One pass of the core's kinematics (:func:`humanbody.core.forward_kinematics`) over the angles of
    the segments on the way from ``names`` to the root (the other coordinates do not move them).
    """
    core = model.core
    columns = {}
    for name in names:
        k = model.names.index(name)
        while k >= 0:
            start = int(core.q_start[k]) + (3 if k == 0 else 0)
            for i, a in enumerate(("alpha", "beta", "gamma")):
                columns[start + i] = np.asarray(table[f"{model.names[k]}_{a}"], dtype=float)
            k = int(core.parents[k])
    q = np.zeros((len(next(iter(columns.values()))), core.nq))
    for c, values in columns.items():
        q[:, c] = values
    R = forward_kinematics(core, q).R
    return {n: R[:, model.names.index(n)] for n in names}


def distal_inputs(model) -> list[str]:
    """The results columns :func:`distal_moments` reads: the hips', knees' and ankles' joint moments and the
    coordinates of the segments down to the feet.

    The walk to the root follows the core's parents (0-based, -1 = ground: ``BodyModel.core.parents``),
    as :func:`_orientations` does.

    Parameters
    ----------
    model : BodyModel
        The segments whose hips, knees and ankles the columns name.

    Returns
    -------
    list of str
        ``<segment>_joint_moment_{x,y,z}`` of each hip, knee and ankle segment of ``model``, then
        ``<segment>_{alpha,beta,gamma}`` of every segment from it to the root; each name once, in that order.
    """
    parents = model.core.parents
    cols = []
    for _, seg, _ in KINETIC_JOINTS:
        if seg not in model.names:
            continue
        cols += [f"{seg}_joint_moment_{a}" for a in "xyz"]
        k = model.names.index(seg)
        while k >= 0:
            cols += [f"{model.names[k]}_{a}" for a in ("alpha", "beta", "gamma")]
            k = int(parents[k])
    return list(dict.fromkeys(cols))


def distal_moments(model, table) -> dict:
    """The clinical moment columns in the distal frame (N·m/kg, our signs) from a results table.

    What the C3D export writes (times -1000: Nexus's N·mm/kg and signs) whatever ``--moment-frame``.

    Parameters
    ----------
    model : BodyModel
        Its segments, parents, sequences and total mass (kg).
    table : pandas.DataFrame or Mapping
        The results' joint moments (N·m, ground axes) and coordinates (:func:`distal_inputs`).

    Returns
    -------
    dict of str to (F,) ndarray
        ``{column: values}`` for every hip, knee and ankle of ``model`` that the table has.
    """
    out: dict[str, np.ndarray] = {}
    joints = [(j, seg) for j, seg, ref in KINETIC_JOINTS if seg in model.names and ref in model.names
              and f"{seg}_joint_moment_x" in table]
    if not joints:
        return out
    R = _orientations(model, table, [seg for _, seg in joints])
    m = float(model.total_mass)
    for joint, seg in joints:
        M = np.stack([np.asarray(table[f"{seg}_joint_moment_{a}"], dtype=float) for a in "xyz"], -1)
        angles = [a for a in CLINICAL_ANGLES if a.joint == joint]
        for a, letter in zip(angles, _LETTERS, strict=True):
            out[a.column[: -len("_deg")] + "_moment_Nm_per_kg"] = a.sign * np.einsum("fi,fi->f", R[seg][:, :, letter],
                                                                                     M) / m
    return out

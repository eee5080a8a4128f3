"""Clinical joint angles: the angles clinicians read, by name, in degrees.

Every joint angle is a rotation of a segment's anatomical frame relative to
its reference (the parent segment, or for the pelvis the direction of
progression), decomposed in the joint coordinate system of Grood and Suntay:
flexion about the reference's medio-lateral y axis, ab/adduction about the
floating axis, axial rotation about the segment's long axis z (sequence
``yxz``).  So the angles do not depend on the rotation sequences the model
itself uses for its coordinates.  Signs are chosen so that both sides read
alike (docs/conventions.md, "Clinical joint angles"; docs/joint_angles.md):

- for a joint with relative orientation S, ``(a1, a2, a3) =
  matrix_to_euler(S, "yxz")`` and the clinical angles are ``(f a1, s a2,
  s a3)``, with ``f`` the flexion sign of the joint and ``s`` = +1 on the
  right side, -1 on the left (adduction, varus, inversion, internal
  rotation are positive on both sides);
- zero is anatomical (``zero="anatomical"``, the default): the segment
  frames are the anatomical frames the marker set builds from landmarks and
  joint centres, so a standing subject reads his own pelvic tilt, hip and
  knee angles.  ``zero="static"`` subtracts the same angles in the
  calibration (standing) pose instead, except for the upper limbs
  (shoulders, elbows, wrists), which are always measured from the
  reference posture (arms hanging, frames parallel) since static trials
  often hold the arms out (a T-pose);
- the pelvis is decomposed rotation-obliquity-tilt (``zxy``, Baker 2001)
  relative to the horizontal direction of progression (static zero: less
  its standing tilt and obliquity); a model may name Plug-in Gait's
  tilt-obliquity-rotation instead (``{"pelvis": "yxz"}``, below);
- foot progression is the angle on the floor between the foot's long axis
  and the horizontal direction of progression, positive when the toes turn
  in; NaN while the foot points more than 80 degrees up or down (kneeling,
  a foot lifted behind), where it has no meaningful direction on the floor.
  A model's ``conventions.clinical_sequences["foot_progression"] = "yzx"``
  takes Plug-in Gait's instead: the foot relative to the progression frame
  decomposed pitch, then about the floating z, then roll, the angle about z
  being arcsin(l_y) of the foot's unit long axis l in that frame (its
  angle from the vertical plane of progression: sin = cos(pitch) times the
  sine of the floor angle, so the two agree with the foot flat), defined
  in every pose;
- the direction of progression follows the pelvis's horizontal travel over
  one second (:func:`progression_heading`); a model whose
  ``conventions.progression_frame`` is ``"lab_axis"`` (the Plug-in Gait sets)
  takes Plug-in Gait's instead, one lab axis for the whole trial
  (:func:`lab_axis_heading`: the axis closest to the pelvis's travel, or
  to its facing when it does not travel), for every angle referred to it;
- a model whose ``conventions.clinical_sequences`` names another order for a
  joint kind (``{"ankle": "yzx"}``, Plug-in Gait's: flexion, then rotation
  about the floating axis, then inversion about the foot's long axis)
  decomposes that joint in it, each angle keeping its axis and sign; one
  whose ``conventions.clinical_reference_twists`` gives a joint an angle t
  (rad; ``{"right_ankle": t}``) measures it from the reference segment's
  frame turned about its z axis by t, S <- Rz(t)^T S (Plug-in Gait's ankle:
  the shank's ankle axis, the knee's shank turned by the tibial torsion).

Angles are continuous along time: the same rules as the tracked coordinates
keep them continuous through and beyond a singular set
(:func:`humanbody._kernels.angles.continuous_angles`), then first and
third angles are unwrapped and every column is brought into (-180, 180]
(:func:`wrap_degrees`): a whole-turn shift that puts the column's median
there, then samples still outside are wrapped, so a column jumps by 360
degrees only where its angle really passes +-180.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from .._kernels.angles import continuous_angles, joint_rotation_angles, unwrap_columns
from ..errors import InputError
from ..model.body import sequence_axes_array
from ..rotations.angles import euler_to_matrix, matrix_to_euler
from ..rotations.common import sequence_axes

__all__ = ["ClinicalAngle", "CLINICAL_ANGLES", "KINETIC_JOINTS", "PROGRESSION_ANGLES", "ANGLE_ZEROS", "clinical_angles", "clinical_columns",
           "progression_heading", "lab_axis_heading", "wrap_degrees"]

#: The two zeros of the clinical angles (docs/joint_angles.md, "Zero").
ANGLE_ZEROS = ("anatomical", "static")

_SIDES = (("right", 1.0), ("left", -1.0))


@dataclass(frozen=True)
class ClinicalAngle:
    """One clinical angle: a column of the results table.

    Attributes
    ----------
    column : str                 e.g. ``"right_hip_flexion_deg"``
    joint : str                  e.g. ``"right_hip"``
    segments : tuple of str      the segments whose relative rotations, composed, make the joint's
                                 rotation (``("middle_torso", "upper_torso")`` for the thorax)
    reference : str              the reference segment, or ``"progression"`` for the pelvis
    index : int                  which angle of the decomposition (0, 1, 2)
    sign : float                 +1 or -1
    sequence : str               the decomposition (``"yxz"``, the pelvis ``"zxy"``)
    static_zero : bool           under ``zero="static"``: zero in the calibration pose (else in the
                                 reference posture)
    """

    column: str
    joint: str
    segments: tuple
    reference: str
    index: int
    sign: float
    sequence: str = "yxz"
    static_zero: bool = True


def _table() -> tuple[ClinicalAngle, ...]:
    rows = []

    def joint(name, segments, reference, names, signs, sequence="yxz", static_zero=True):
        for i, (word, sign) in enumerate(zip(names, signs, strict=True)):
            rows.append(ClinicalAngle(f"{name}_{word}_deg", name, tuple(segments), reference, i, float(sign),
                                      sequence, static_zero))

    # pelvis relative to the direction of progression: rotation (z, to the left), obliquity
    # (floating x; +x lifts the left side, so right side up is negative), tilt (y, anterior)
    joint("pelvis", ("lower_torso",), "progression", ("rotation", "obliquity", "tilt"), (1, -1, 1), "zxy")
    # trunk and neck: forward flexion turns +z towards +x (positive about y); bending to the
    # right turns +z towards -y (positive about x); rotation to the left is positive about z
    joint("thorax", ("middle_torso", "upper_torso"), "lower_torso",
          ("flexion", "lateral_flexion", "rotation"), (1, 1, 1))
    joint("neck", ("neck", "head"), "upper_torso", ("flexion", "lateral_flexion", "rotation"), (1, 1, 1))
    for side, s in _SIDES:
        # hip: the thigh's distal end goes forward for a negative rotation about y
        joint(f"{side}_hip", (f"{side}_upper_leg",), "lower_torso",
              ("flexion", "adduction", "internal_rotation"), (-1, s, s))
        joint(f"{side}_knee", (f"{side}_lower_leg",), f"{side}_upper_leg",
              ("flexion", "adduction", "internal_rotation"), (1, s, s))
        joint(f"{side}_ankle", (f"{side}_foot",), f"{side}_lower_leg",
              ("dorsiflexion", "inversion", "internal_rotation"), (-1, s, s))
        joint(f"{side}_shoulder", (f"{side}_upper_arm",), "upper_torso",
              ("flexion", "adduction", "internal_rotation"), (-1, s, s), static_zero=False)
        joint(f"{side}_elbow", (f"{side}_lower_arm",), f"{side}_upper_arm",
              ("flexion", "adduction", "internal_rotation"), (-1, s, s), static_zero=False)
        joint(f"{side}_wrist", (f"{side}_hand",), f"{side}_lower_arm",
              ("flexion", "adduction", "internal_rotation"), (-1, s, s), static_zero=False)
    return tuple(rows)


#: Every clinical angle of the 17-segment model, in results-table order.
CLINICAL_ANGLES: tuple[ClinicalAngle, ...] = _table()

#: Joints with clinical moments and powers: (joint, segment, reference) for each side.
KINETIC_JOINTS = tuple((f"{side}_{j}", f"{side}_{seg}", ref.format(side=side))
                       for side in ("right", "left")
                       for j, seg, ref in (("hip", "upper_leg", "lower_torso"), ("knee", "lower_leg", "{side}_upper_leg"),
                                           ("ankle", "foot", "{side}_lower_leg")))


def _progression_table() -> tuple[ClinicalAngle, ...]:
    """Thorax and head relative to the direction of progression (Plug-in Gait's ThoraxAngles, HeadAngles).

    Y-X-Z Cardan angles of the segment's frame relative to the progression
    frame (x along the horizontal direction of progression, z up): tilt
    about y (forward positive), obliquity about the floating x (right side
    up positive: -x), rotation about the segment's z (to the left positive).
    Measured from the anatomical frames under either zero.
    """
    rows = []
    chains = {"thorax": ("lower_torso", "middle_torso", "upper_torso"),
              "head": ("lower_torso", "middle_torso", "upper_torso", "neck", "head")}
    words = {"thorax": ("tilt", "obliquity", "progression_rotation"), "head": ("tilt", "obliquity", "rotation")}
    for seg, chain in chains.items():
        for i, (word, sign) in enumerate(zip(words[seg], (1.0, -1.0, 1.0), strict=True)):
            rows.append(ClinicalAngle(f"{seg}_{word}_deg", f"{seg}_progression", chain, "progression",
                                      i, sign, "yxz", static_zero=False))
    return tuple(rows)


#: Angles relative to the direction of progression a model may add (``conventions.clinical_progression``:
#: ``["thorax", "head"]``, the ``plug_in_gait`` set), after :data:`CLINICAL_ANGLES`' columns.
PROGRESSION_ANGLES: tuple[ClinicalAngle, ...] = _progression_table()

#: Foot progression is left undefined (NaN) where the foot's long axis is
#: steeper than 80 degrees from the floor (sine of it): its direction on the
#: floor is then dominated by noise and can swing round in a frame.
_STEEP = np.sin(np.radians(80.0))

#: Foot progression columns (not a rotation relative to a segment: see :func:`clinical_angles`).
FOOT_PROGRESSION = tuple(f"{side}_foot_progression_deg" for side, _ in _SIDES)


def clinical_columns(names, progression=(), pig_foot: bool = False) -> list[str]:
    """The clinical columns a model with segments ``names`` supports, in table order.

    ``progression``: segments (``"thorax"``, ``"head"``) whose angles relative to the direction of
    progression (:data:`PROGRESSION_ANGLES`) are added after the others (a model's
    ``conventions.clinical_progression``).  ``pig_foot``: the foot's progression angles are Plug-in Gait's
    (``conventions.clinical_sequences["foot_progression"] == "yzx"``); each foot then also has
    ``s_foot_progression_x_deg`` and ``s_foot_progression_y_deg``, Nexus's ``SFootProgressAngles`` X and Y
    (:func:`clinical_angles`).

    Parameters
    ----------
    names : iterable of str
        The model's segment names.
    progression : iterable of str
        Segments with progression angles.
    pig_foot : bool
        The feet's progression angles are Plug-in Gait's.

    Returns
    -------
    list of str
        ``s_<joint>_<angle>_deg`` columns whose segments (and reference) the model has, then the
        ``<side>_foot_progression_deg`` columns.
    """
    have = set(names)
    cols = [a.column for a in _angles_of(progression)
            if set(a.segments) <= have and (a.reference == "progression" or a.reference in have)]
    for side, _ in _SIDES:
        if f"{side}_foot" in have:
            cols.append(f"{side}_foot_progression_deg")
            if pig_foot:
                cols += [f"{side}_foot_progression_x_deg", f"{side}_foot_progression_y_deg"]
    return cols


def _angles_of(progression=()) -> tuple[ClinicalAngle, ...]:
    """:data:`CLINICAL_ANGLES` and the :data:`PROGRESSION_ANGLES` of the segments named in ``progression``."""
    want = {f"{seg}_progression" for seg in (progression or ())}
    return CLINICAL_ANGLES + tuple(a for a in PROGRESSION_ANGLES if a.joint in want)


def _relative(model, coords: pd.DataFrame, seg: str) -> np.ndarray:
    """S of segment ``seg`` relative to its parent from its coordinates, (F, 3, 3)."""
    k = model.names.index(seg)
    cols = [f"{seg}_alpha", f"{seg}_beta", f"{seg}_gamma"]
    return euler_to_matrix(coords[cols].to_numpy(dtype=float), model.sequences[k])


def _absolute(model, coords, seg: str, memo: dict) -> np.ndarray:
    """R_0k of segment ``seg``, (F, 3, 3), composed down the tree (memoised)."""
    if seg not in memo:
        k = model.names.index(seg)
        S = _relative(model, coords, seg)
        p = int(model.core.parents[k])
        memo[seg] = S if p < 0 else _absolute(model, coords, model.names[p], memo) @ S
    return memo[seg]


def progression_heading(time, root_xy, window_s: float = 1.0, min_speed: float = 0.15,
                        facing=None) -> np.ndarray:
    """Heading of the direction of progression (rad about Z from ground X), every frame.

    The direction of the pelvis's horizontal travel over a centred window
    of ``window_s`` seconds (shorter at the ends of the trial).  Where the
    pelvis travels slower than ``min_speed`` m/s over the window (a
    treadmill, standing, turning on the spot), or, when ``facing`` is given,
    travels backwards (more than 90 degrees from where the pelvis faces: the
    hips going back in a squat or a sit-to-stand, a step back), the heading
    is ground +X (which the readers point along the direction of
    progression), so that such sway never turns the progression frame round.

    Parameters
    ----------
    time : ndarray, shape (F,), s
        The frames' times.
    root_xy : ndarray, shape (F, 2), m
        Horizontal position of the pelvis origin, ground axes.
    facing : ndarray, shape (F,), rad, optional
        Heading of the pelvis's forward axis on the floor (about Z from ground X).
    window_s : float, s
        Length of the centred window.
    min_speed : float, m/s
        The travel speed below which the heading is ground +X.

    Returns
    -------
    ndarray, shape (F,), rad
        Unwrapped (continuous across +-pi); 0 for fewer than two frames.
    """
    t = np.asarray(time, dtype=float)
    xy = np.asarray(root_xy, dtype=float)
    F = len(t)
    if F < 2:
        return np.zeros(F)
    lo = np.searchsorted(t, t - 0.5 * window_s, side="left")
    hi = np.searchsorted(t, t + 0.5 * window_s, side="right") - 1
    d = xy[hi] - xy[lo]
    dt = t[hi] - t[lo]
    with np.errstate(invalid="ignore", divide="ignore"):
        speed = np.hypot(d[:, 0], d[:, 1]) / dt
    slow = ~(speed >= min_speed)
    heading = np.arctan2(d[:, 1], d[:, 0])
    if facing is not None:
        with np.errstate(invalid="ignore"):
            slow |= ~(np.cos(heading - np.asarray(facing, dtype=float)) > 0.0)
    heading[slow] = 0.0
    return _unwrapped(heading)


#: Plug-in Gait's travel threshold (m): a trial whose pelvis moves less than this along every horizontal lab axis,
#: first to last frame, takes its progression from the pelvis's facing (pyCGM2's 800 mm).
LAB_AXIS_TRAVEL = 0.8


def lab_axis_heading(root_xy, facing=None, travel: float = LAB_AXIS_TRAVEL) -> float:
    """Plug-in Gait's progression direction: one horizontal lab axis for the whole trial (rad about Z from X).

    The displacement of the pelvis from its first to its last measured frame,
    ``d = p_last - p_first``, is compared along ground X and Y; when its
    larger component exceeds ``travel`` (m), the progression is that axis in
    the sense of the travel: 0 (+X), pi (-X), pi/2 (+Y) or -pi/2 (-Y).
    Otherwise (standing, a treadmill, turning on the spot) it is the lab
    axis closest to the pelvis's facing in its first measured frame (the
    heading of its forward axis, rounded to a multiple of pi/2), as Nexus
    and pyCGM2 (``PelvisProgressionFrameProcedure``) choose it; with no
    facing either, +X.

    Parameters
    ----------
    root_xy : ndarray, shape (F, 2), m
        Horizontal position of the pelvis origin, ground axes.
    facing : ndarray, shape (F,), rad, optional
        Heading of the pelvis's forward axis on the floor (about Z from ground X).
    travel : float, m
        The displacement above which the travel decides.

    Returns
    -------
    float, rad
        One of 0, pi/2, pi, -pi/2.
    """
    xy = np.asarray(root_xy, dtype=float).reshape(-1, 2)
    ok = np.flatnonzero(np.isfinite(xy).all(axis=1))
    if len(ok) >= 2:
        d = xy[ok[-1]] - xy[ok[0]]
        i = int(np.argmax(np.abs(d)))
        if abs(d[i]) > travel:
            return float((0.0 if d[0] > 0 else np.pi) if i == 0 else np.copysign(0.5 * np.pi, d[1]))
    if facing is not None:
        f = np.asarray(facing, dtype=float).reshape(-1)
        f = f[np.isfinite(f)]
        if len(f):
            q = int(np.round(f[0] / (0.5 * np.pi))) % 4  # 0 +X, 1 +Y, 2 -X, 3 -Y
            return float((0.0, 0.5 * np.pi, np.pi, -0.5 * np.pi)[q])
    return 0.0


def _yaw(psi) -> np.ndarray:
    return euler_to_matrix(np.stack([np.zeros_like(psi), np.zeros_like(psi), psi], axis=-1), "xyz")


def _continuous_degrees(angles: np.ndarray, sequence: str) -> np.ndarray:
    """Angles (F, 3) rad made continuous through singular sets and unwrapped, in degrees."""
    a = np.ascontiguousarray(angles, dtype=float).reshape(-1, 1, 3).copy()
    continuous_angles(a, np.array([sequence_axes(sequence)], dtype=np.int64), 1e-9)
    a = a[:, 0]
    a[:, [0, 2]] = _unwrapped(a[:, [0, 2]])
    return np.degrees(a)


def _unwrapped(x: np.ndarray) -> np.ndarray:
    """Columns of angles (rad) unwrapped over their finite samples (:func:`humanbody._kernels.angles.unwrap_columns`,
    numpy.unwrap's steps); NaN stays NaN.  (F, C) or (F,) in, the same shape out."""
    out = np.ascontiguousarray(np.asarray(x, dtype=float).reshape(len(x), -1)).copy()
    unwrap_columns(out)
    return out.reshape(np.shape(x))


def wrap_degrees(x) -> np.ndarray:
    """A continuous angle curve (degrees) brought into (-180, 180].

    First the whole curve is shifted by the multiple of 360 that puts the
    median of its finite samples in (-180, 180] (a curve that stays within
    one turn is then unchanged up to that shift); samples still outside are
    wrapped, ``x - 360 ceil((x - 180) / 360)``, so a jump of 360 appears
    only where the angle really passes +-180 (a foot turned backwards, a
    subject turning round).  NaN stays NaN.  Works on (F,) or (F, C), column
    by column.

    Parameters
    ----------
    x : array_like, shape (F,) or (F, C), deg
        The angle curve(s), continuous over time, one column per angle.

    Returns
    -------
    ndarray, same shape, deg in (-180, 180]
        A new array; ``x`` is not changed.
    """
    a = np.array(x, dtype=float)
    cols = a.reshape(len(a), -1)
    for j in range(cols.shape[1]):
        c = cols[:, j]
        ok = np.isfinite(c)
        if not ok.any():
            continue
        m = np.median(c[ok])
        c[ok] -= 360.0 * np.ceil((m - 180.0) / 360.0)
        c[ok] -= 360.0 * np.ceil((c[ok] - 180.0) / 360.0)
    return cols.reshape(a.shape)


def _resequenced(a: ClinicalAngle, overrides) -> ClinicalAngle:
    """The angle in the decomposition ``overrides[joint kind]`` (e.g. ``{"ankle": "yzx"}``), same axis and sign.

    The kind is the joint's name without its side.  Each angle keeps its
    rotation axis (the letter ``a.sequence[a.index]``) and so its name and
    sign; only the order of the three rotations changes.
    """
    kind = a.joint.split("_", 1)[1] if a.joint.startswith(("right_", "left_")) else a.joint
    seq = overrides.get(kind)
    if not seq or seq == a.sequence:
        return a

    return replace(a, sequence=str(seq), index=str(seq).index(a.sequence[a.index]))


def clinical_angles(model, coords: pd.DataFrame, calibration=None, zero: str = "anatomical") -> pd.DataFrame:
    """The clinical joint angles of a trial, one row per frame (degrees).

    Parameters
    ----------
    model : BodyModel
        The model the coordinates belong to (its sequences and names); the
        17-segment model gives every column of :data:`CLINICAL_ANGLES`,
        another tree the ones whose segments it has.
    coords : DataFrame
        Generalized coordinates (docs/conventions.md): ``time``, the root
        position and every segment's angles in its sequence.
    calibration : Calibration, optional
        The static calibration; used only by ``zero="static"``.
    zero : {"anatomical", "static"}
        ``"anatomical"`` (default): angles between the anatomical segment
        frames, so the standing posture shows (pelvic tilt, knee flexion).
        ``"static"``: the angles of the calibration's relative orientations
        in the standing pose (``calibration.relative``) are subtracted (not
        for the upper limbs); without a calibration (a coordinates trial)
        the two are the same.

    Returns
    -------
    pandas.DataFrame
        The columns of :func:`clinical_columns` (no ``time``), degrees, every value in (-180, 180]
        (:func:`wrap_degrees`).
    """
    if zero not in ANGLE_ZEROS:
        raise InputError(f"angle zero must be one of {', '.join(ANGLE_ZEROS)}, not {zero!r}")
    F = len(coords)
    names = list(model.names)
    progression, overrides = model.conventions.clinical_progression, dict(model.conventions.clinical_sequences)
    foot_seq = str(overrides.get("foot_progression", "zyx"))
    columns = clinical_columns(names, progression, pig_foot=foot_seq == "yzx")
    relative0 = (getattr(calibration, "relative", None) or {}) if zero == "static" else {}
    joints: dict[str, list] = {}
    for a in _angles_of(progression):
        if a.column in columns:
            joints.setdefault(a.joint, []).append(_resequenced(a, overrides))
    heading = _heading(model, coords)
    feet = [(side, s) for side, s in _SIDES if f"{side}_foot_progression_deg" in columns]
    chain_arr, use_yaw, seq_arr = _kernel_chains(model, joints, [side for side, _ in feet], foot_seq)
    q = np.ascontiguousarray(coords[[f"{n}_{x}" for n in names for x in ("alpha", "beta", "gamma")]]
                             .to_numpy(dtype=float)).reshape(F, len(names), 3)
    raw = np.empty((F, len(chain_arr), 3))
    joint_rotation_angles(q, sequence_axes_array(model), chain_arr, np.ascontiguousarray(heading),
                          use_yaw, seq_arr, 1e-9, raw)
    n_joints = len(joints)
    twists = model.conventions.clinical_reference_twists
    for i, (joint, angles) in enumerate(joints.items()):
        if twists.get(joint):  # reference frame turned about its z: S <- Rz(t)^T S
            S = _yaw(np.array(float(twists[joint]))).T @ euler_to_matrix(raw[:, i], angles[0].sequence)
            raw[:, i] = matrix_to_euler(S, angles[0].sequence)
    cont = np.ascontiguousarray(raw[:, :n_joints])
    continuous_angles(cont, seq_arr[:n_joints], 1e-9)
    _principal_branch(cont, seq_arr[:n_joints], [a[0].reference == "progression" for a in joints.values()])
    out = {}
    for i, (joint, angles) in enumerate(joints.items()):
        first = angles[0]
        deg = cont[:, i].copy()
        deg[:, [0, 2]] = _unwrapped(deg[:, [0, 2]])
        deg = np.degrees(deg)
        z0 = _static_zero(first, relative0, twists.get(joint) if zero == "static" else None)
        for a in angles:
            out[a.column] = wrap_degrees(a.sign * (deg[:, a.index] - z0[a.index]))
    for i, (side, s) in enumerate(feet):
        out[f"{side}_foot_progression_deg"] = _foot_progression(raw[:, n_joints + i], foot_seq, s)
        if foot_seq == "yzx":
            out.update(_pig_foot_tilt_roll(raw[:, n_joints + i], side, s))
    return pd.DataFrame({c: out[c] for c in columns}, index=range(F))


def _heading(model, coords: pd.DataFrame) -> np.ndarray:
    """The direction of progression per frame (F,; rad about ground z) from the root's travel and facing, or one
    lab axis for every frame when the model says so (``conventions.progression_frame == "lab_axis"``: Plug-in
    Gait)."""
    time = coords["time"].to_numpy(dtype=float)
    root = model.names[0]
    R_root = _relative(model, coords, root)  # the root's relative rotation is its orientation in ground
    root_xy = coords[[f"{root}_x", f"{root}_y"]].to_numpy(dtype=float)
    facing = np.arctan2(R_root[:, 1, 0], R_root[:, 0, 0])
    if model.conventions.progression_frame == "lab_axis":  # Plug-in Gait: one lab axis
        return np.full(len(coords), lab_axis_heading(root_xy, facing))
    return progression_heading(time, root_xy, facing=facing)


def _kernel_chains(model, joints: dict, feet: list, foot_seq: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The kernel's inputs for one pass over every joint's composed rotation, decomposed (the feet ``feet``: their
    absolute axes as yaw-pitch-roll ``foot_seq``): the segment chains (J, width; -1 padded), whether each is
    measured from the progression (J,) and the sequences' axes (J, 3)."""
    names = list(model.names)
    chains, use_yaw, seqs = [], [], []
    for angles in joints.values():
        chains.append([names.index(seg) for seg in angles[0].segments])
        use_yaw.append(angles[0].reference == "progression")
        seqs.append(angles[0].sequence)
    for side in feet:
        chains.append([k - 1 for k in reversed(model.chain(names.index(f"{side}_foot") + 1))])
        use_yaw.append(True)
        seqs.append(foot_seq)
    width = max(len(c) for c in chains) if chains else 1
    chain_arr = np.full((len(chains), width), -1, dtype=np.int64)
    for i, c in enumerate(chains):
        chain_arr[i, :len(c)] = c
    seq_arr = np.array([sequence_axes(s) for s in seqs], dtype=np.int64).reshape(-1, 3)
    return chain_arr, np.array(use_yaw, dtype=np.bool_), seq_arr


def _static_zero(first, relative0: dict, twist) -> np.ndarray:
    """The angles (deg, 3) of a joint in the standing pose that ``zero="static"`` subtracts: its segments'
    calibrated relative orientations composed (the reference turned by ``twist`` about z, rad, when given),
    with the heading removed for a joint measured from the progression; zeros unless ``first.static_zero``."""
    S0 = np.eye(3)
    for seg in first.segments:
        S0 = S0 @ np.asarray(relative0.get(seg, np.eye(3)), dtype=float)
    if twist:
        S0 = _yaw(np.array(float(twist))).T @ S0
    if first.reference == "progression":
        S0 = _yaw(np.array(np.arctan2(S0[1, 0], S0[0, 0]))).T @ S0  # the standing posture, heading removed
    z0 = np.degrees(matrix_to_euler(S0, first.sequence)) if first.static_zero else np.zeros(3)
    if first.reference == "progression":
        z0[first.sequence.index("z")] = 0.0  # the heading is measured from the direction of progression itself
    return z0


def _principal_branch(cont: np.ndarray, seq_axes: np.ndarray, which) -> None:
    """The angles (F, J, 3; rad, continuous along time) of each Cardan joint ``which[j]`` names (the segments
    measured from the progression: pelvis, thorax, head) on the branch whose middle angle stays within +-90 deg
    over most of the trial: where the median |middle angle| (wrapped) is beyond 90 deg, the same rotations as
    (a + 180, 180 - b, c + 180) deg, in place.  Continuity started from a stretch of garbled frames (a trial
    whose first tracked frames lack markers) can otherwise hold a whole trial on the other branch, every
    angle 180 deg from the clinical one (the shared ``sample_23_Vicon_analysis.c3d``'s pelvis).  Joints may
    pass 90 deg in their middle angle (a shoulder flexed overhead) and are left alone."""
    for i in range(cont.shape[1]):
        if not which[i] or len(set(int(a) for a in seq_axes[i])) < 3:
            continue  # a joint, or a proper Euler sequence (its middle angle lies in [0, 180])
        mid = np.angle(np.exp(1j * cont[:, i, 1]))
        if np.isfinite(mid).any() and np.nanmedian(np.abs(mid)) > 0.5 * np.pi:
            cont[:, i, 0] += np.pi
            cont[:, i, 1] = np.pi - cont[:, i, 1]
            cont[:, i, 2] += np.pi


def _pig_foot_tilt_roll(pitch_turn_roll: np.ndarray, side: str, sign: float) -> dict:
    """Nexus's ``SFootProgressAngles`` X and Y (deg, (F,) each) from the foot's angles relative to the
    progression frame (F, 3; rad, sequence ``yzx``: pitch about y, the turn about the floating z, roll about
    the foot's long axis x): X = pitch - 90 (Plug-in Gait's foot axes: its z along the foot), Y = ``sign`` x
    roll (s = +1 right, -1 left: each side's own sense)."""
    pitch, roll = _unwrapped(pitch_turn_roll[:, 0]), _unwrapped(pitch_turn_roll[:, 2])
    return {f"{side}_foot_progression_x_deg": wrap_degrees(np.degrees(pitch) - 90.0),
            f"{side}_foot_progression_y_deg": wrap_degrees(sign * np.degrees(roll))}


def _foot_progression(yaw_pitch: np.ndarray, foot_seq: str, sign: float) -> np.ndarray:
    """The foot progression angle (F,; deg, toe-in positive towards the other foot: ``sign``) from the foot's
    absolute angles ``yaw_pitch`` (F, 3; rad, sequence ``foot_seq``): its long axis on the floor from the
    direction of progression, NaN where it points up or down, continuous when it turns far round."""
    angle = yaw_pitch[:, foot_seq.index("z")].copy()
    if foot_seq == "zyx":  # pointing up or down: no direction on the floor
        angle[np.abs(np.sin(yaw_pitch[:, 1])) > _STEEP] = np.nan
    angle = _unwrapped(angle)
    return wrap_degrees(sign * np.degrees(angle))

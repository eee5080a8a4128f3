"""Generalized coordinates of an orientation trial.

From the segments' orientations in ground ``R_k(t)``
(:mod:`humanbody.imu.calibration`, eq. 2) the relative orientation of each
segment in its parent is ``S_k = R_L(k)^T R_k`` (``S_1 = R_1``), whose
angles in the segment's rotation sequence are its generalized coordinates
(:func:`humanbody._kernels.angles.relative_angles`, exactly as
:func:`humanbody.rotations.matrix_to_euler`), made continuous through the
singular sets and unwrapped along time as for marker trials.  A segment
without a sensor keeps its parent's orientation (its joint in the
reference posture).  The root's origin O_1 (mid-point of the hip centres)
is the Xsens Pelvis origin when the file gives positions, else it stays at
the model's standing height above the ground origin.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy.spatial.transform import Rotation

from .._kernels.angles import continuous_angles, relative_angles, unwrap_columns
from ..errors import InputError
from ..model.body import coordinate_columns, sequence_axes_array
from ..model.segments import SEGMENT_NAMES
from .calibration import CALIBRATION_WINDOW_S, calibrate_sensors, lab_axes, sensor_rotations
from .knee_axis import knee_heading
from .knee_hinge import hinge_knees
from .vertical import find_vertical

__all__ = ["orientations_to_coordinates", "segment_orientations", "standing_height"]


def standing_height(model) -> float:
    """Height of O_1 above the soles in the reference posture (m).

    The model's ``reference_pose.lower_torso_height`` when it records it
    (the default model does), else the hip-knee-ankle drop of the right leg.

    Parameters
    ----------
    model : BodyModel
        The body model.

    Returns
    -------
    float, m
        The height.
    """
    ref = model.meta.get("reference_pose") or {}
    if "lower_torso_height" in ref:
        return float(ref["lower_torso_height"])
    drop = 0.0
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot"):
        drop += float(model.joint_offset[model.names.index(seg)][2])
    return -drop


def _axes_check(angles: np.ndarray, segment_of: dict) -> list[str]:
    """A note when a knee turns more about the shank's long axis than it flexes.

    Knees flex about their medio-lateral axis; read with the wrong vertical
    (a Z-up sensor world taken as OpenSim's Y-up one), that rotation is
    about the calibrated shank's long axis and appears as the knee's third
    angle.  More than 30 degrees of it, and more than the flexion, is taken
    as that mistake.
    """
    lines = []
    for side in ("right", "left"):
        seg = f"{side}_lower_leg"
        if seg not in segment_of or f"{side}_upper_leg" not in segment_of:
            continue
        k = SEGMENT_NAMES.index(seg)
        span = np.nanmax(angles[:, k], axis=0) - np.nanmin(angles[:, k], axis=0)
        if span[2] > np.radians(30.0) and span[2] > span[0]:
            lines.append(f"check the axes: the {side} knee turns {np.degrees(span[2]):.0f} deg about the shank's "
                         f"long axis but flexes {np.degrees(span[0]):.0f} deg; a Z-up sensor world needs "
                         "--axes x,y,z")
    return lines


def _knee_turns(R: dict, segment_of: dict) -> list[str]:
    """:func:`_axes_check` on each knee read from its own two sensors (before a hinge fit hides the turn)."""
    angles = np.zeros((len(next(iter(R.values()))), len(SEGMENT_NAMES), 3))
    for side in ("right", "left"):
        thigh, shank = f"{side}_upper_leg", f"{side}_lower_leg"
        if thigh in R and shank in R:
            S = np.einsum("fji,fjk->fik", R[thigh], R[shank])
            yxz = np.unwrap(Rotation.from_matrix(S).as_euler("YXZ"), axis=0)  # intrinsic y, x, z: the knee's sequence
            angles[:, SEGMENT_NAMES.index(shank)] = yxz
    return _axes_check(angles, segment_of)


def segment_orientations(df, *, static=None, axes="auto", heading=None,
                         window_s: float = CALIBRATION_WINDOW_S, knee: str = "hinge"):
    """Every covered segment's orientation in ground and what was done.

    Parameters
    ----------
    df : DataFrame
        Orientation trial (:mod:`humanbody.io.imu`).
    static : DataFrame, optional
        Orientation file in the calibration posture (same sensors).
    axes : str
        Lab axes; "auto": the vertical found from the data
        (:func:`humanbody.imu.vertical.find_vertical`; MVN's calibrated
        segments: the format's Z-up world).
    heading : str, optional
        Pelvis-sensor axis pointing forward in the posture; None: the one
        the knees' flexion axis points to
        (:func:`humanbody.imu.knee_axis.knee_heading`), else the world's +X.
    window_s : float
        Calibration window at the start of ``df`` when no ``static`` (s).
    knee : {"hinge", "free"}
        Sensor trials: "hinge" fits each thigh and shank to both sensors
        with the knee flexing only (:mod:`humanbody.imu.knee_hinge`, as
        OpenSense's models); "free" reads each segment from its own sensor.
        MVN's calibrated segments are used as they are.

    Returns
    -------
    R : dict of str to ndarray, shape (F, 3, 3)
        Segment -> its absolute orientation R_k (axes as columns, ground components).
    turn : ndarray, shape (3, 3)
        The ground turn applied (Z(psi0)^T), also to positions.
    A : ndarray, shape (3, 3)
        Lab -> ground axes.
    notes : list of str
        What was done, for the log.
    """
    segment_of = df.attrs["segment_of"]
    anatomical = bool(df.attrs.get("anatomical")) and static is None
    auto = axes is None or (isinstance(axes, str) and axes.strip().lower() == "auto")
    if auto and not anatomical:  # the vertical from the data (gravity, else the standing posture)
        posture = df if static is None else static
        t = posture["time"].to_numpy(dtype=float)
        n = max(1, int(np.searchsorted(t, t[0] + window_s - 1e-9 * max(1.0, abs(t[0])), side="right")))
        A, spec, line = find_vertical(df, posture, segment_of, n, str(df.attrs.get("world", "x,y,z")))
        notes = [line]
    else:
        A, how = lab_axes(df, axes)
        notes = [f"axes: {how}"]
    if anatomical:
        notes.append("segment orientations as calibrated by MVN (N-pose: segment frames parallel to ground)")
        if heading is not None:
            notes.append("--imu-heading not used: it applies to a calibration posture (give --static)")
        R = {seg: sensor_rotations(df, label, A) for seg, label in segment_of.items()}
        return R, np.eye(3), A, notes
    posture = df if static is None else static
    if static is not None and not auto:
        A_s, _ = lab_axes(static, axes)
        if not np.allclose(A_s, A):
            raise InputError("the static file is of another format than the trial", static.attrs.get("source"))
    where = None if static is not None else f"first {window_s:g} s of the trial"
    labels = list(segment_of.values())
    root = segment_of["lower_torso"]
    if heading is None:  # the subject's heading from the knees' flexion axis, as a pelvis-sensor axis
        cal0 = calibrate_sensors(posture, A, labels, window_s=window_s, root_label=root, source=where)
        R0 = {seg: np.einsum("fij,jk->fik", sensor_rotations(df, label, A), cal0.mounting[label])
              for seg, label in segment_of.items()}
        heading, line = knee_heading(R0, cal0.mounting[root].T)
        notes.append(f"heading from the data: {line}" + ("; --imu-heading AXIS overrides" if heading is not None
                                                          else ""))
    cal = calibrate_sensors(posture, A, labels, heading=heading, window_s=window_s, root_label=root, source=where)
    notes.append(f"calibration posture: {cal.source}")
    notes += cal.notes
    turn = cal.turn()
    R = {seg: np.einsum("ij,fjk,kl->fil", turn, sensor_rotations(df, label, A), cal.mounting[label])
         for seg, label in segment_of.items()}
    if knee == "hinge":
        notes += _knee_turns(R, segment_of)
        notes += hinge_knees(R)
    elif knee != "free":
        raise InputError(f"imu_knee {knee!r}: expected hinge or free", option="imu_knee")
    return R, turn, A, notes


def orientations_to_coordinates(df, model, *, static=None, axes="auto", heading=None,
                                window_s: float = CALIBRATION_WINDOW_S, knee: str = "hinge"):
    """Generalized coordinates (docs/conventions.md layout) of an orientation trial.

    Parameters
    ----------
    df : DataFrame
        Orientation trial of kind ``orientations``.
    model : BodyModel
        The 17-segment model (its sequences and standing height).
    static, axes, heading, window_s, knee
        See :func:`segment_orientations`.

    Returns
    -------
    coords : DataFrame
        ``time``, ``lower_torso_x/_y/_z`` (m), every ``<segment>_alpha/_beta/_gamma``
        (rad), attrs kind="coordinates".
    notes : list of str
        Axes, calibration, heading, segments without a sensor, root position;
        the line starting ``mapping:`` lists every label and its segment.
    """
    if tuple(model.names) != SEGMENT_NAMES:
        raise InputError("orientation trials need the 17-segment model (its segment names); "
                         f"the model has {', '.join(model.names)}")
    R_seg, turn, A, notes = segment_orientations(df, static=static, axes=axes, heading=heading, window_s=window_s,
                                                 knee=knee)
    F, n = len(df), len(SEGMENT_NAMES)
    R = np.empty((F, n, 3, 3))
    missing = []
    for k, seg in enumerate(SEGMENT_NAMES):
        if seg in R_seg:
            R[:, k] = R_seg[seg]
        else:
            R[:, k] = R[:, model.parents[k] - 1]  # parent < k: already filled (the root is always present)
            missing.append(seg)
    segment_of = df.attrs["segment_of"]
    notes.append(f"segments: {len(segment_of)} of {n} have a sensor")
    notes.append("mapping: " + ", ".join(f"{label} -> {seg}" for seg, label in segment_of.items()))
    if missing:
        notes.append(f"no sensor for {', '.join(missing)}: held in the reference posture relative to the parent")
    unused = df.attrs.get("unused") or []
    if unused:
        notes.append(f"not used (no segment of the model): {', '.join(unused)}")
    parent = np.asarray(model.parents, dtype=np.int64) - 1
    seq = sequence_axes_array(model)
    angles = np.empty((F, n, 3))
    relative_angles(np.ascontiguousarray(R), parent, seq, 1e-9, angles)
    continuous_angles(angles, seq, 1e-9)
    flat = np.ascontiguousarray(angles.reshape(F, 3 * n))
    unwrap_columns(flat)
    notes += _axes_check(angles, segment_of)
    pelvis = segment_of["lower_torso"]
    if df.attrs.get("positions") and f"{pelvis}_px" in df.columns:
        p = df[[f"{pelvis}_p{c}" for c in "xyz"]].to_numpy(dtype=float)
        root = p @ (turn @ A).T
        notes.append(f"root position: the {pelvis} origin (mid-point of the hip centres) from the file")
    else:
        h = standing_height(model)
        root = np.tile([0.0, 0.0, h], (F, 1))
        notes.append(f"root position: no positions in the file, pelvis held at its standing height {h:.3f} m "
                     "above the ground origin (no translation)")
    table = np.column_stack([df["time"].to_numpy(dtype=float), root, flat])
    coords = pd.DataFrame(table, columns=["time"] + coordinate_columns(model))
    coords.attrs.update(kind="coordinates", source=str(df.attrs.get("source", "")),
                        conversions=["segment orientations from the orientation trial"],
                        rate_hz=df.attrs.get("rate_hz"))
    return coords, notes

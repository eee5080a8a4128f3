"""Values the recording does not measure, left empty: joints of a segment carried from its parent, and a side's
kinetics while its foot stands on the ground off the plates.

Two gaps in a recording give numbers that look like measurements and are not:

* A segment whose markers are lost is **carried from its parent** (tracking's
  status ``fallback``): its pose is its parent's motion with the last fitted
  relative pose.  Over a run longer than :data:`~humanbody.checks.outputs.MAX_CARRIED_S`
  the angles of its joints are the frozen relative pose (a knee held at
  0.5 deg while the thigh swings), those of its child joints are the child
  measured against a segment that is not where it is (Codamotion's
  ``gaitwands``: a left ankle at 84 deg where the shank leaves the cameras'
  view), and its velocities and accelerations, hence the moments and powers of
  its own joint, its child's and every joint above it on its limb, are its
  parent's.  At the run's return to its markers the pose jumps; a smoothing
  differentiator spreads that jump over its half window on either side
  (Qualisys's ``Walking_Hybrid_1_1``: a right knee power of 5.5 W/kg in the
  0.04 s after the shank returns).  Left empty: the angles of the segment's
  joints over the run, and the limb's kinetics over the run widened by the
  differentiator's half window (:func:`humanbody.checks.edges.edge_frames`).
  A shorter run (a gap bridged) leaves its joints' angles empty too: they are
  a held relative pose, and a segment carried under a carried parent is
  further still (Codamotion's left ankle at 50 deg for 0.01 s at 6.88 s); its
  kinetics, a few frames of a held pose, are kept.
* A foot that strikes the ground **off the plates** takes a ground reaction
  no plate measures: its side's moments and powers are computed as if the
  foot were in the air (Vicon's ``Vicon_analysis``: the right foot strikes
  the floor beyond the last plate at 5.60 s; a right hip moment of 6-7.6
  N·m/kg in the trial's last frames).  Left empty: the side's kinetics over
  such a stance (:func:`humanbody.gait.selection.unloaded_stance`), as
  ``humanbody report`` leaves them.

Both say so in one line naming ``--skip-check unmeasured``, which writes the
values as computed (the output checks then judge them).
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..markers.tracking import STATUS
from .edges import edge_frames
from .outputs import MAX_CARRIED_S, carried_frames

__all__ = ["SEGMENT_JOINTS", "LIMB_JOINTS", "carried_runs", "unmeasured_masks", "unmeasured_line",
           "analysis_masks"]

#: Segment (side-less name) -> the clinical joints its pose enters: its own (to its parent) and its child's
#: (``foot_progression``: the foot against the lab).
SEGMENT_JOINTS = {"upper_leg": ("hip", "knee"), "lower_leg": ("knee", "ankle"), "foot": ("ankle", "foot_progression"),
                  "upper_arm": ("shoulder", "elbow"), "lower_arm": ("elbow", "wrist"), "hand": ("wrist",)}
#: Segment -> the segments of its limb whose kinetics its accelerations enter (itself, those above it, its child:
#: inverse dynamics runs from the distal end up; the child's clinical axes are the segment's).
LIMB_SEGMENTS = {"upper_leg": ("upper_leg", "lower_leg"), "lower_leg": ("upper_leg", "lower_leg", "foot"),
                 "foot": ("upper_leg", "lower_leg", "foot"), "upper_arm": ("upper_arm", "lower_arm"),
                 "lower_arm": ("upper_arm", "lower_arm", "hand"), "hand": ("upper_arm", "lower_arm", "hand")}
#: Segment (side-less) -> its own clinical joint, for the kinetic columns (``right_knee_power_W_per_kg``).
LIMB_JOINTS = {"upper_leg": "hip", "lower_leg": "knee", "foot": "ankle", "upper_arm": "shoulder",
               "lower_arm": "elbow", "hand": "wrist"}
_LEG = ("upper_leg", "lower_leg", "foot")


def carried_runs(status, time, longer_than: float = MAX_CARRIED_S) -> dict:
    """Per segment, the frames in runs carried from the parent longer than ``longer_than``.

    Parameters
    ----------
    status : pandas.DataFrame or None
        The tracking's status table (one column per segment: ``fit``, ``fallback``, ``missing``, ...; a
        ``time`` column is ignored), one row per frame.
    time : array_like, shape (F,), s
        The frames' times.
    longer_than : float, s
        Shortest run kept, exclusive (default :data:`~humanbody.checks.outputs.MAX_CARRIED_S`; 0: every
        carried frame).

    Returns
    -------
    dict of str to ndarray of bool, shape (F,)
        Segment name -> True in the frames of its carried runs longer than ``longer_than``; segments without
        one are left out.
    """
    t = np.asarray(time, dtype=float)
    if status is None or len(t) < 2:
        return {}
    dt = float(np.median(np.diff(t)))
    out = {}
    for name, carried in carried_frames(status):
        edges = np.diff(np.concatenate([[0], carried.astype(np.int8), [0]]))
        long = np.zeros(len(t), dtype=bool)
        for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True):
            if (b - a) * dt > longer_than:
                long[a:b] = True
        if long.any():
            out[name] = long
    return out


def _widened(frames: np.ndarray, margin: int) -> np.ndarray:
    """``frames`` (bool, F) with ``margin`` frames added on either side of each run."""
    if margin < 1 or not frames.any():
        return frames
    idx = np.flatnonzero(frames)
    out = np.zeros_like(frames)
    lo = np.maximum(idx - margin, 0)
    hi = np.minimum(idx + margin + 1, len(frames))
    for a, b in zip(lo, hi, strict=True):
        out[a:b] = True
    return out


def _split(segment: str) -> tuple[str, str]:
    """(side, side-less name) of ``right_lower_leg``; ("", name) for a segment without a side."""
    side, _, rest = segment.partition("_")
    return (side, rest) if side in ("right", "left") else ("", segment)


def _kinetic_columns(columns, side: str, base: str) -> list[str]:
    """The kinetic columns of ``side``'s limb segments that ``base``'s motion enters (:data:`LIMB_SEGMENTS`)."""
    out = []
    for seg in LIMB_SEGMENTS.get(base, ()):
        joint = LIMB_JOINTS[seg]
        out += [c for c in columns if c.startswith(f"{side}_{seg}_joint_")
                or (c.startswith(f"{side}_{joint}_") and c.endswith(("_moment_Nm_per_kg", "_power_W_per_kg")))]
    return out


def unmeasured_masks(columns, carried: dict, unloaded: dict | None = None, margin: int = 0,
                     every: dict | None = None) -> dict:
    """Column -> the frames (bool, F) whose values the recording does not measure.

    Parameters
    ----------
    columns : sequence of str
        The table's columns (clinical angles ``*_deg``, kinetic columns; others are never masked).
    carried : dict of str to ndarray of bool, shape (F,)
        Segment -> its long carried runs (:func:`carried_runs`).
    unloaded : dict of str to ndarray of bool, shape (F,), optional
        Side (``right``/``left``) -> the frames of its stances off the plates
        (:func:`humanbody.gait.selection.unloaded_stance`).
    margin : int
        Frames (the differentiator's half window) by which a carried run widens for the kinetics.
    every : dict of str to ndarray of bool, shape (F,), optional
        Segment -> every frame it is carried, runs of any length (``carried_runs(status, time, 0.0)``): its
        joints' angles there are a held relative pose, left empty too (the kinetics of a short run are kept).

    Returns
    -------
    dict of str to ndarray of bool, shape (F,)
        Only columns with at least one masked frame.
    """
    columns = list(columns)
    out: dict = {}

    def add(cols, frames):
        for c in cols:
            out[c] = out[c] | frames if c in out else frames.copy()

    for segment in set(carried) | set(every or {}):
        side, base = _split(segment)
        if base not in SEGMENT_JOINTS or not side:
            continue
        angles = [c for c in columns if c.endswith("_deg")
                  and any(c.startswith(f"{side}_{j}_") for j in SEGMENT_JOINTS[base])]
        if segment in carried:
            add(angles, carried[segment])
            add(_kinetic_columns(columns, side, base), _widened(carried[segment], margin))
        if every and segment in every:
            add(angles, every[segment])
    for side, frames in (unloaded or {}).items():
        if frames.any():
            add([c for base in _LEG for c in _kinetic_columns(columns, side, base)], frames)
    return {c: m for c, m in out.items() if m.any()}


def _spans(frames: np.ndarray, t: np.ndarray) -> str:
    """``1.454-1.521 s`` for each run of ``frames``, joined by commas."""
    edges = np.diff(np.concatenate([[0], frames.astype(np.int8), [0]]))
    return ", ".join(f"{t[a]:.3f}-{t[b - 1]:.3f} s"
                     for a, b in zip(np.flatnonzero(edges == 1), np.flatnonzero(edges == -1), strict=True))


def unmeasured_line(carried: dict, unloaded: dict | None, time, kinetics: bool, short: int = 0) -> str:
    """The one line that says what was left empty and why, naming ``--skip-check unmeasured``; "" when nothing.

    Parameters
    ----------
    carried : dict of str to ndarray of bool, shape (F,)
        Segment -> its long carried runs (:func:`carried_runs`).
    unloaded : dict of str to ndarray of bool, shape (F,), optional
        Side -> its stances off the plates.
    time : array_like, shape (F,), s
        The trial's frame times, for the runs' times in the line.
    kinetics : bool
        The table has kinetics (the line names them only then).
    short : int
        Frames of limb segments carried in runs of at most :data:`~humanbody.checks.outputs.MAX_CARRIED_S`
        (their joints' angles left empty too).

    Returns
    -------
    str
        The line (starting "check outputs: not measured, left empty"), or "" when nothing was left empty.
    """
    t = np.asarray(time, dtype=float)
    parts = []
    limbs = [s for s in carried if _split(s)[1] in SEGMENT_JOINTS and _split(s)[0]]
    if limbs:
        what = "their joints' angles" + (" and their limbs' kinetics" if kinetics else "")
        parts.append(f"{what} where a segment is carried from its parent (too few markers): "
                     + "; ".join(f"{s} {_spans(carried[s], t)}" for s in limbs))
    if short:
        parts.append(f"their joints' angles in {short} frame(s) of shorter runs carried (at most "
                     f"{MAX_CARRIED_S:g} s)")
    feet = {s: f for s, f in (unloaded or {}).items() if f.any()}
    if feet and kinetics:
        parts.append("the side's kinetics where a foot stands on the ground off the plates (no force measured): "
                     + "; ".join(f"{s} {_spans(f, t)}" for s, f in feet.items()))
    if not parts:
        return ""
    return ("check outputs: not measured, left empty (--skip-check unmeasured writes them as computed): "
            + "; ".join(parts))


def analysis_masks(analysis, columns, unloaded: dict | None = None) -> tuple[dict, str]:
    """The masks (:func:`unmeasured_masks`) and the line (:func:`unmeasured_line`) of an analysed trial's table.

    Parameters
    ----------
    analysis : humanbody.analysis.Analysis
        Its tracking status, loads, markers or model points (the gait events that time a stance off the
        plates), options (the differentiator's half window, ``skip_checks``).
    columns : sequence of str
        The table's columns.
    unloaded : dict of str to ndarray of bool, shape (F,), optional
        Side -> its stances off the plates, when the caller has them (``humanbody report``: the strides'
        events); else found from the trial's gait events (:func:`humanbody.gait.selection.trial_events`).

    Returns
    -------
    (dict of str to ndarray of bool, shape (F,), str)
        Column -> frames to leave empty, and the line to say ("" and no mask under ``skip_checks``
        ``unmeasured`` or when nothing is unmeasured).
    """
    options = analysis.options
    if "unmeasured" in getattr(options, "skip_checks", ()):
        return {}, ""
    time = np.asarray(analysis.motion.time, dtype=float)
    tracking = getattr(analysis, "tracking", None)
    status = getattr(tracking, "status", None)
    counts = getattr(tracking, "status_counts", None)
    if status is not None and counts is not None:  # only the segments ever carried (counted once)
        fallback = STATUS.index("fallback")
        odd = [seg for seg, n in counts.items() if n[fallback]]
        status = status[odd] if odd else None
    carried = carried_runs(status, time)
    if unloaded is None and analysis.loads is not None:
        from ..gait.selection import trial_events, unloaded_stance  # lazy: only trials with loads

        try:
            used = trial_events(analysis)[1]
            unloaded = unloaded_stance(analysis, used)
        except InputError:  # no foot markers to time a stance by: nothing said of it
            unloaded = None
    margin = 0
    if len(time) > 2 and getattr(options, "differentiation", None) is not None:
        margin = edge_frames(options.differentiation, (len(time) - 1) / (time[-1] - time[0]), len(time))
    every = {s: f for s, f in carried_runs(status, time, 0.0).items()
             if _split(s)[1] in SEGMENT_JOINTS and _split(s)[0]}
    masks = unmeasured_masks(columns, carried, unloaded, margin, every)
    if not masks:
        return {}, ""
    kinetic = any(c.endswith(("_moment_Nm_per_kg", "_power_W_per_kg")) for c in masks)
    short = sum(int((f & ~carried.get(s, np.zeros_like(f))).sum()) for s, f in every.items())
    return masks, unmeasured_line(carried, unloaded, time, kinetic, short)

"""Which gait events cut a trial's strides: the kinematic, force-plate and file events of an analysed trial.

:func:`trial_events` finds the kinematic events (Zeni et al. 2008; from model
points when the trial has no foot markers, :func:`pseudo_markers`), the
force events (per foot from the loads the analysis gave each foot, or from
an OpenSim file's plate per foot), and adds the trial file's own events;
per side it chooses the events that cut the strides (:data:`EVENT_SOURCES`).
:func:`unloaded_stance` marks the stances no plate measured.  ``analysis`` is
an analysed trial (:class:`humanbody.analysis.Analysis`): its ``results``,
``model``, ``markers``, ``loads``, ``load_table``, ``axes`` and ``events``.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io import read_trial
from ..io.forceplates import SIDE_PREFIXES, vertical_forces
from ..signal import FORCE_THRESHOLD
from .events import PSEUDO_FEET, events_of, foot_markers, force_events, kinematic_events, pelvis_markers
from .spatiotemporal import spatiotemporal

__all__ = ["EVENT_SOURCES", "MEASURED_STANCE", "pseudo_markers", "trial_events", "events_source", "unloaded_stance",
           "file_event_stances"]


def pseudo_markers(results, time) -> pd.DataFrame:
    """Foot and pelvis points from the model, in the marker layout (ground axes, m).

    For trials without markers (generalized coordinates, orientations): the
    ankle joint O (origin of each foot segment) stands for the heel, the head
    of the second metatarsal ``2 G - O`` for the toe (the foot's mass centre G
    lies halfway from the ankle to it, Winter 2009, Table 4.1), and the
    lower-torso origin for the pelvis.  Events from these points are an
    approximation of the marker-based ones: on the sample walk (whose marker
    version has stance 60.7 % and double support 21.4 %) they give 59.7 % and
    19.4 % (the mass centre itself as the toe: 57.6 % and 15.1 %, the toe
    leaving its furthest point behind the pelvis too early).

    Parameters
    ----------
    results : Results
        The trial's kinematics (segment origins and mass centres, m, ground axes).
    time : array_like, shape (F,), s
        The frames' times.

    Returns
    -------
    pandas.DataFrame
        ``time`` and ``<point>_x/_y/_z`` columns of ``right_ankle``, ``right_toe``, ``left_ankle``, ``left_toe``
        and ``pelvis``.
    """
    cols = {"time": np.asarray(time, dtype=float)}
    right, left = results.segment("right_foot"), results.segment("left_foot")
    points = {
        "right_ankle": results.joint[:, right],
        "right_toe": 2 * results.com[:, right] - results.joint[:, right],
        "left_ankle": results.joint[:, left],
        "left_toe": 2 * results.com[:, left] - results.joint[:, left],
        "pelvis": results.joint[:, results.segment("lower_torso")],
    }
    for name, p in points.items():
        for j, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = p[:, j]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="model points", markers=list(points))
    return df




def trial_events(analysis, grf_path=None, force_threshold: float = FORCE_THRESHOLD, source: str = "auto"):
    """Gait events of an analysed trial and the points they came from.

    Parameters
    ----------
    analysis : Analysis
        The analysed trial; its ``events`` are the trial file's own (a C3D ``EVENT`` group), if any.
    grf_path : str, optional
        The trial's force file.
    force_threshold : float
        Vertical force of foot contact (N).
    source : str
        Which events cut the strides, per side (:data:`EVENT_SOURCES`): "auto": the file's events when the side
        has at least two foot strikes in them, else the force-plate events, else the kinematic ones; "file",
        "force", "kinematic": that source only, a side without it falling back as "auto" does without it (said
        in ``messages``).

    Returns
    -------
    events : pandas.DataFrame
        Kinematic events, plus force events when ``grf_path`` is given, plus the file's (times in s).
    used : pandas.DataFrame
        The events that define strides.
    points : pandas.DataFrame
        The marker table the kinematic events came from (m, ground axes).
    feet, pelvis : dict and list of str, or None
        The marker names given to the kinematic events: side -> (heel, toe), and the pelvis markers (None: the
        gait module's defaults).
    messages : list of str
        Lines for the log on the events and their sources.
    """
    if source not in EVENT_SOURCES:
        raise InputError(f"events must be one of {', '.join(EVENT_SOURCES)}, not {source!r}", option="events")
    events, used, points, feet, pelvis, messages = _detected_events(analysis, grf_path, force_threshold)
    own = getattr(analysis, "events", None)
    if source == "auto" and (own is None or not len(own)):
        return events, used, points, feet, pelvis, messages
    events, used = _choose_events(events, used, own, source, messages)
    return events, used, points, feet, pelvis, messages


#: Choices of ``--events`` (:class:`ReportOptions` ``events``): which events cut the strides.
EVENT_SOURCES = ("auto", "file", "force", "kinematic")

_SOURCE_NAMES = {"file": "the file (its EVENT group)", "force": "the force plates",
                 "kinematic": "the markers (kinematic, Zeni et al. 2008)"}


def _sorted(table: pd.DataFrame, by) -> pd.DataFrame:
    return table.sort_values(by, kind="stable").reset_index(drop=True)


def _choose_events(events, used, own, source: str, messages: list):
    """The events table with the file's events added, and the events that cut each side's strides.

    ``used`` is what the force and kinematic events alone give (force events where the plates give them);
    the file's events replace a side's when it has at least two foot strikes in them ("auto", "file").
    """
    sides = ("right", "left")
    if own is None:
        own = events.iloc[:0]
    if len(own):
        events = _sorted(pd.concat([events, own], ignore_index=True), ["time", "source"])
    if source == "kinematic":
        used = events[events["source"] == "kinematic"].reset_index(drop=True)
    strikes = {s: int(((own["side"] == s) & (own["event"] == "foot_strike")).sum()) for s in sides}
    from_file = [s for s in sides if strikes[s] >= 2] if source in ("auto", "file") else []
    if from_file:
        used = _sorted(pd.concat([own[own["side"].isin(from_file)], used[~used["side"].isin(from_file)]],
                                 ignore_index=True), ["time", "side"])
    if len(own) and source in ("force", "kinematic"):
        messages.append(f"--events {source}: the file's {len(own)} gait events not used")
    parts = []
    for side in sides:
        mine = used[used["side"] == side]
        got = list(dict.fromkeys(mine["source"]))
        if source != "auto" and source not in got:
            why = (f"the file has {strikes[side]} foot strike(s) on it (2 needed)" if source == "file"
                   else f"no {source} events on it")
            messages.append(f"--events {source}: {side} side: {why}; its strides are cut at the "
                            f"{' and '.join(got) or 'no'} events")
        what = " and ".join(_SOURCE_NAMES.get(g, g) for g in got) or "nowhere (no events)"
        n_fs = int((mine["event"] == "foot_strike").sum())
        n_fo = int((mine["event"] == "foot_off").sum())
        parts.append(f"{side} from {what}: {n_fs} foot strikes, {n_fo} foot offs")
    messages.append("gait events cutting the strides: " + "; ".join(parts))
    return events, used


def events_source(used: pd.DataFrame) -> str:
    """``events_source`` of the summary: the source of the events that cut the strides; ``"right file,
    left kinematic"`` when the sides' differ and the file's are among them.

    Parameters
    ----------
    used : pandas.DataFrame
        The events that cut strides (``side``, ``source``).

    Returns
    -------
    str
        Without the file's events among them, the first event's source ("force" or "kinematic"); with them, the
        sources of both sides when they agree (e.g. "file"), else "right ..., left ..."; "none" without events.
    """
    if not len(used):
        return "none"
    first = str(used["source"].iloc[0])
    if not (used["source"] == "file").any():
        return first
    per_side = {s: "+".join(dict.fromkeys(used.loc[used["side"] == s, "source"])) or "none"
                for s in ("right", "left")}
    if len(set(per_side.values())) == 1:
        return per_side["right"]
    return ", ".join(f"{s} {v}" for s, v in per_side.items())


def file_event_stances(events: pd.DataFrame, used: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Each side cut at the file's own events: ``(stance %, stance %)`` of its strides cut at them and at the
    markers' (kinematic) events (:func:`humanbody.gait.spatiotemporal.spatiotemporal`, temporal part: the mean
    over the side's strides); NaN where a side has no whole stride.

    Parameters
    ----------
    events : pandas.DataFrame
        Every event found (a ``source`` column: ``file``, ``kinematic``, ``force``).
    used : pandas.DataFrame
        The events the strides are cut at (``side``, ``source``, ...).

    Returns
    -------
    dict of str to (float, float)
        Per side with file events: stance (% of stride) at the file's events and at the markers' events.
    """
    if not len(used) or not (used["source"] == "file").any():
        return {}
    sides = [s for s in ("right", "left") if ((used["side"] == s) & (used["source"] == "file")).any()]
    own = spatiotemporal(used)
    kin = spatiotemporal(events[events["source"] == "kinematic"].reset_index(drop=True))

    def stance(params, side) -> float:
        return float(params.loc[side, "stance_pct"]) if side in params.index else float("nan")

    return {side: (stance(own, side), stance(kin, side)) for side in sides}


def _detected_events(analysis, grf_path, force_threshold: float):
    """Kinematic and force events (:func:`trial_events` without the file's): ``(events, used, points,
    feet, pelvis, messages)``, ``used`` the force events where the plates give them, else kinematic."""
    messages = []
    time = analysis.results.time
    points, feet, pelvis = analysis.markers, None, None
    if points is not None:
        try:
            foot_markers(points)
            pelvis_markers(points)
        except InputError as err:
            messages.append(f"gait events from model points: {err.message}")
            points = None
    if points is None:
        points, feet, pelvis = pseudo_markers(analysis.results, time), PSEUDO_FEET, ["pelvis"]
    kin = kinematic_events(points, feet=feet, pelvis=pelvis)
    methods = kin.attrs.get("method", {})
    messages.append("kinematic events (Zeni et al. 2008, " + ", ".join(f"{s}: {m}" for s, m in methods.items())
                    + f"): {len(kin)}")
    used = kin
    events = kin
    loads = getattr(analysis, "loads", None)
    per_foot_file = False  # an OpenSim file with a plate per foot: its own samples time the events best
    if grf_path is not None and str(grf_path).lower().endswith((".mot", ".sto")):
        try:
            with open(grf_path, encoding="utf-8", errors="replace") as fh:
                head = fh.read(65536)
            per_foot_file = all(f"{p}vy" in head for p in SIDE_PREFIXES.values())
        except OSError:
            per_foot_file = False
    if loads is not None and loads.body is not None and not per_foot_file:
        fe = _load_events(analysis, force_threshold)
        sides = [s for s in ("right", "left") if (fe["side"] == s).any()]
        messages.append(f"force events from the loads on each foot ({force_threshold:g} N threshold): {len(fe)}")
        events = pd.concat([kin, fe], ignore_index=True).sort_values(["time", "source"], kind="stable")
        events = events.reset_index(drop=True)
        strikes = {s: ((fe["side"] == s) & (fe["event"] == "foot_strike")).sum() for s in ("right", "left")}
        skipped = {s: _skipped_strikes(fe, kin, s) for s in ("right", "left")}
        for s in [s for s in ("right", "left") if strikes[s] >= 2 and skipped[s]]:
            messages.append(f"force events of the {s} foot: its {strikes[s]} strikes on the plates are not "
                            f"consecutive (the markers see {skipped[s]} strike(s) between them, off the plates); "
                            f"its strides are cut at the kinematic events")
        good = [s for s in sides if strikes[s] >= 2 and not skipped[s]]
        if len(good) == 2:
            used = fe
        elif sides:  # a side off the plates (or on plates strides apart) keeps its kinematic events
            used = pd.concat([fe[fe["side"].isin(good)], kin[~kin["side"].isin(good)]], ignore_index=True)
            used = used.sort_values(["time", "side"], kind="stable").reset_index(drop=True)
        return events, used, points, feet, pelvis, messages
    if grf_path is not None:
        try:
            t, vertical, columns = _plate_verticals(analysis, grf_path)
            fe = force_events(t, vertical, threshold=force_threshold, frame_times=time, source=os.fspath(grf_path))
        except InputError as err:  # the kinematic events still make a report
            messages.append(f"force events skipped: {err}")
            return events, used, points, feet, pelvis, messages
        messages.append(f"force events ({force_threshold:g} N threshold on "
                        + ", ".join(f"{s}: {c}" for s, c in columns.items()) + f"): {len(fe)}")
        events = pd.concat([kin, fe], ignore_index=True).sort_values(["time", "source"], kind="stable")
        events = events.reset_index(drop=True)
        if len(fe):
            used = fe
    return events, used, points, feet, pelvis, messages


#: s: a kinematic foot strike this far from both force strikes around it is a strike of its own (the force-clock
#: check's largest lag between a plate's onset and the markers' strike, humanbody.checks.force_timing)
EVENT_LAG = 0.15


def _skipped_strikes(force: pd.DataFrame, kinematic: pd.DataFrame, side: str) -> int:
    """Foot strikes of ``side`` the markers saw between two consecutive force strikes (plates hit strides apart,
    e.g. plates 1 and 3 of a walkway, the foot's strike between them off the plates).

    A kinematic strike counts when it lies more than :data:`EVENT_LAG` s from both force strikes around it and
    those two are more than 1.5 times the side's median kinematic stride apart (a stray kinematic extremum
    inside one stride does not count).

    Returns
    -------
    int  the number of such strikes (0: the force strikes cut true strides)
    """
    f = events_of(force, side, "foot_strike")
    k = events_of(kinematic, side, "foot_strike")
    if len(f) < 2 or len(k) < 2:
        return 0
    stride = float(np.median(np.diff(k)))
    n = 0
    for a, b in zip(f[:-1], f[1:], strict=True):
        if b - a > 1.5 * stride:
            n += int(((k > a + EVENT_LAG) & (k < b - EVENT_LAG)).sum())
    return n


def _plate_verticals(analysis, grf_path) -> tuple[np.ndarray, dict, dict]:
    """Each foot's vertical force from an OpenSim file with a plate per foot (:data:`SIDE_PREFIXES`):
    ``(time, side -> (T,) N, side -> the file's column)``.

    The plates the analysis read from that file (its :class:`~humanbody.io.loads.LoadTable`, ground axes,
    the file's own samples): their vertical force, named by the file's column of the lab axis that is
    ground Z; else the file read again (:func:`humanbody.io.forceplates.vertical_forces`).
    """
    table = getattr(analysis, "load_table", None)
    matrix = getattr(getattr(analysis, "axes", None), "matrix", None)
    if table is None or matrix is None or os.fspath(table.source) != os.fspath(grf_path):
        return vertical_forces(read_trial(grf_path))
    up = "xyz"[int(np.argmax(np.abs(np.asarray(matrix, dtype=float)[2])))]  # ground = matrix @ lab
    vertical, columns = {}, {}
    for side, prefix in SIDE_PREFIXES.items():
        name = prefix.rstrip("_")
        if name not in table.names:
            raise InputError(f"no plate {name!r} for the {side} foot", grf_path)
        vertical[side] = table.force[:, table.names.index(name), 2]
        columns[side] = f"{prefix}v{up}"
    return np.asarray(table.time, dtype=float), vertical, columns


def _foot_load(analysis) -> dict:
    """Vertical load (N) on each foot per frame from the assigned loads; a plate two feet share counts for both."""
    loads, model = analysis.loads, analysis.model
    out = {}
    for side, k in _feet(model):
        out[side] = np.where(_on_foot(loads, k), loads.force[..., 2], 0.0).sum(axis=1)
    return out


def _feet(model):
    """(side, body index) of each foot the model has."""
    return [(side, model.names.index(f"{side}_foot")) for side in ("right", "left") if f"{side}_foot" in model.names]


def _on_foot(loads, k: int, rows=slice(None)) -> np.ndarray:
    """(frames, loads) bool: each load of the given frames assigned to body ``k``, alone or shared."""
    on = loads.body[rows] == k
    if loads.shared is not None:
        on = on | (loads.shared[rows] == k).any(axis=2)
    return on


def _raw_foot_load(analysis) -> tuple[np.ndarray, dict] | None:
    """Each foot's vertical load at the force file's own samples (not filtered): every sample takes the
    assignment of the nearest frame.  None when the loads do not carry their samples."""
    loads, model = analysis.loads, analysis.model
    if getattr(loads, "raw_time", None) is None or loads.raw_fz is None:
        return None
    time = analysis.results.time
    t = loads.raw_time
    inside = (t >= time[0]) & (t <= time[-1])
    t, fz = t[inside], loads.raw_fz[inside]
    i = np.clip(np.searchsorted(time, t), 1, len(time) - 1)
    nearest = np.where(np.abs(t - time[i - 1]) <= np.abs(time[i] - t), i - 1, i)
    out = {}
    for side, k in _feet(model):
        on = _on_foot(loads, k, nearest)
        # a sample just before the first loaded frame of a contact: its nearest frame is not yet loaded
        out[side] = np.where(on | (loads.body[nearest] == -1) & _near_foot(loads, nearest, k), fz, 0.0).sum(axis=1)
    return t, out


def _near_foot(loads, nearest, k) -> np.ndarray:
    """Samples whose load is unassigned at the nearest frame but assigned to foot ``k`` one frame on or back."""
    F = loads.body.shape[0]
    after = loads.body[np.minimum(nearest + 1, F - 1)] == k
    before = loads.body[np.maximum(nearest - 1, 0)] == k
    return after | before


def _load_events(analysis, threshold: float) -> pd.DataFrame:
    """Foot strikes and offs where each foot's assigned vertical load crosses ``threshold``
    (one plate under both feet, a treadmill: the assignment tells the feet apart), at the force
    file's own samples when the loads carry them."""
    time = analysis.results.time
    raw = _raw_foot_load(analysis)
    t, per_foot = raw if raw is not None else (time, _foot_load(analysis))
    return force_events(t, per_foot, threshold=threshold, frame_times=time, min_duration=0.03)


#: Fraction of a stance's frames that must carry a load on the foot for the stance to count as measured
#: (kinematic events time a stance less exactly than the plate does; a stance off the plates carries none).
MEASURED_STANCE = 0.5


def unloaded_stance(analysis, events) -> dict:
    """Per side, the frames (bool, F) of the stances that were not measured: between a strike and the next off
    of the events that define strides, fewer than :data:`MEASURED_STANCE` of the frames carry a load on the
    foot (the foot stood off the plates).  The side's kinetics there are not known.

    Parameters
    ----------
    analysis : Analysis
        Its loads and frames.
    events : pandas.DataFrame
        The events that define strides (time s, side, event).

    Returns
    -------
    dict of str to ndarray of bool, shape (F,)
        Side -> True at the frames of its unmeasured stances.
    """
    time = analysis.results.time
    dt = float(np.median(np.diff(time))) if len(time) > 1 else 0.0
    out = {}
    for side, fz in _foot_load(analysis).items():
        gap = np.zeros(len(time), dtype=bool)
        offs = events_of(events, side, "foot_off")
        for t0 in events_of(events, side, "foot_strike"):
            later = offs[offs > t0]
            t1 = later[0] if len(later) else time[-1]
            stance = (time >= t0) & (time <= t1)
            if stance.any() and np.mean(fz[stance] > 0.0) < MEASURED_STANCE:
                # from two frames after the strike: the stride that ends at this strike keeps its last point
                gap |= stance & (time > t0 + 2.0 * dt)
        out[side] = gap
    return out

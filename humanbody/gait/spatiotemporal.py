"""Spatiotemporal gait parameters from an events table and the foot markers.

Definitions (Perry & Burnfield, *Gait Analysis*, 2nd ed. 2010, ch. 1-2;
Whittle, *Gait Analysis: An Introduction*, 4th ed. 2007, ch. 2):

* a **stride** of one side runs from a foot strike of that foot to its next
  foot strike; a **step** ends with a foot strike and starts at the previous
  foot strike of the other foot;
* **stance** is foot strike to foot off of the same foot, **swing** the rest
  of the stride; **double support** is the part of the stride with both feet
  down: from the stride's foot strike to the other foot's off, plus from the
  other foot's strike to this foot's off;
* **cadence** is steps per minute, 120 / stride time;
* overground, **stride length** is the displacement of the heel between two
  strikes of the same foot along the direction of progression, **step
  length** the distance along that direction from the other heel (at its
  strike) to this heel (at its strike), **step width** the lateral distance
  between those two heel positions, and **speed** stride length / stride time;
* on a **treadmill** the body stays in place, so lengths are the distance
  the belt carries the body: stride length = speed x stride time, step
  length = speed x step time, where speed = belt speed + the pelvis' own mean
  forward velocity.  The belt speed is given, or estimated as the mean
  backward velocity of the heel and toe markers in the middle of each stance,
  when the foot rides on the belt.

Every column name carries its unit (:data:`PARAMETERS`).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .events import (
    SIDES,
    events_of,
    fill_nan,
    foot_markers,
    marker_xyz,
    pelvis_centre,
    pelvis_markers,
    progression_axes,
)

__all__ = ["PARAMETERS", "strides", "belt_speed", "is_treadmill", "spatiotemporal", "flatten"]

#: Output columns and their meaning.
PARAMETERS = {
    "n_strides": "number of complete strides",
    "cadence_steps_per_min": "steps per minute (120 / stride time)",
    "stride_time_s": "foot strike to next strike of the same foot",
    "step_time_s": "other foot's strike to this foot's strike",
    "stance_time_s": "foot strike to foot off",
    "swing_time_s": "foot off to next foot strike",
    "stance_pct": "stance time, % of stride",
    "swing_pct": "swing time, % of stride",
    "double_support_pct": "both feet down, % of stride",
    "stride_length_m": "distance covered in one stride",
    "step_length_m": "distance covered in one step",
    "step_width_m": "lateral distance between the two heels at successive strikes",
    "speed_m_per_s": "walking (or running) speed",
}

#: Fraction of stance (start, end) whose foot velocity gives the belt speed.
BELT_WINDOW = (0.25, 0.75)


def _interp_rows(t: np.ndarray, p: np.ndarray, when: float) -> np.ndarray:
    """Position (3,) at time ``when`` by linear interpolation of ``p`` (F, 3)."""
    return np.array([np.interp(when, t, p[:, j]) for j in range(3)])


def _first_in(times: np.ndarray, lo: float, hi: float) -> float:
    sel = times[(times > lo) & (times < hi)]
    return float(sel[0]) if len(sel) else np.nan


def _last_in(times: np.ndarray, lo: float, hi: float) -> float:
    sel = times[(times > lo) & (times < hi)]
    return float(sel[-1]) if len(sel) else np.nan


def strides(events: pd.DataFrame) -> pd.DataFrame:
    """Temporal parameters of every complete stride.

    Parameters
    ----------
    events : pandas.DataFrame
        Events table (:func:`humanbody.gait.kinematic_events` or :func:`humanbody.gait.force_events`).

    Returns
    -------
    pandas.DataFrame
        One row per stride: ``side``, ``start_s``, ``end_s`` (the two foot strikes), ``foot_off_s``,
        ``other_strike_s``, ``other_off_s``, ``stride_time_s``, ``step_time_s``, ``stance_time_s``,
        ``swing_time_s``, ``stance_pct``, ``swing_pct``, ``double_support_pct`` (s and % of the stride).  Phases
        whose events are missing are NaN.
    """
    rows = []
    for side in SIDES:
        other = SIDES[1 - SIDES.index(side)]
        fs, fo = events_of(events, side, "foot_strike"), events_of(events, side, "foot_off")
        ofs, ofo = events_of(events, other, "foot_strike"), events_of(events, other, "foot_off")
        for a, b in zip(fs[:-1], fs[1:], strict=True):
            stride = b - a
            off = _first_in(fo, a, b)
            o_off = _first_in(ofo, a, off if np.isfinite(off) else b)
            o_strike = _last_in(ofs, a, b)
            stance = off - a
            ds = np.nan
            if np.isfinite(off) and np.isfinite(o_off) and np.isfinite(o_strike) and o_strike < off:
                ds = (o_off - a) + (off - o_strike)
            rows.append({
                "side": side, "start_s": a, "end_s": b, "foot_off_s": off,
                "other_strike_s": o_strike, "other_off_s": o_off,
                "stride_time_s": stride, "step_time_s": b - o_strike,
                "stance_time_s": stance, "swing_time_s": b - off,
                "stance_pct": 100.0 * stance / stride, "swing_pct": 100.0 * (b - off) / stride,
                "double_support_pct": 100.0 * ds / stride,
            })
    cols = ["side", "start_s", "end_s", "foot_off_s", "other_strike_s", "other_off_s", "stride_time_s",
            "step_time_s", "stance_time_s", "swing_time_s", "stance_pct", "swing_pct", "double_support_pct"]
    return pd.DataFrame(rows, columns=cols)


def belt_speed(markers: pd.DataFrame, events: pd.DataFrame, *, feet=None, forward=None,
               window=BELT_WINDOW) -> float:
    """Treadmill belt speed (m/s) from the stance foot's markers.

    In mid-stance the foot rides on the belt, so the mean backward velocity
    of its heel and toe markers along the direction of progression is the
    belt speed.  Velocities are central differences (``numpy.gradient``) of
    the given (preferably filtered) positions, averaged over the fraction
    ``window`` of every stance (foot strike to foot off) of both feet.

    Returns NaN when no stance is complete.

    Parameters
    ----------
    markers : pandas.DataFrame
        Marker table, ground axes (m).
    events : pandas.DataFrame
        The events table (time s, side, event), e.g. humanbody.gait.kinematic_events or force_events.
    feet : dict, optional
        Side -> its heel and toe markers.
    forward : ndarray, shape (3,), optional
        The direction of progression (default from the feet).
    window : (float, float)
        The part of each stance averaged, as fractions of it (default the middle half).

    Returns
    -------
    float, m/s
        The belt speed (positive), NaN when no stance is complete.
    """
    t = markers["time"].to_numpy(dtype=float)
    pairs = foot_markers(markers, feet)
    if forward is None:
        forward, _ = progression_axes(markers, pairs)
    speeds = []
    for side, names in pairs.items():
        fs, fo = events_of(events, side, "foot_strike"), events_of(events, side, "foot_off")
        vel = [np.gradient(fill_nan(t, marker_xyz(markers, n) @ forward), t) for n in names]
        for a in fs:
            off = _first_in(fo, a, np.inf)
            if not np.isfinite(off):
                continue
            lo, hi = a + window[0] * (off - a), a + window[1] * (off - a)
            sel = (t >= lo) & (t <= hi)
            if sel.any():
                speeds.append(-np.mean([v[sel] for v in vel]))
    return float(np.mean(speeds)) if speeds else float("nan")


def is_treadmill(markers: pd.DataFrame, *, pelvis=None, feet=None, max_speed: float = 0.25) -> bool:
    """True when the pelvis does not progress: mean speed below ``max_speed`` (m/s).

    Parameters
    ----------
    markers : pandas.DataFrame
        Marker table, ground axes (m), with time (s).
    pelvis : sequence of str, optional
        The pelvis markers (default the gait module's).
    feet : dict, optional
        Side -> its heel and toe markers (default the gait module's).
    max_speed : float, m/s
        The pelvis's mean horizontal speed below which the trial is a treadmill's.

    Returns
    -------
    bool
        True on a treadmill.
    """
    t = markers["time"].to_numpy(dtype=float)
    pel = pelvis_centre(markers, pelvis_markers(markers, pelvis))
    forward, _ = progression_axes(markers, feet)
    x = fill_nan(t, pel @ forward)
    if not np.isfinite(x).any() or t[-1] <= t[0]:
        return False
    return abs(x[-1] - x[0]) / (t[-1] - t[0]) < max_speed


def _pelvis_held(pel: np.ndarray) -> bool:
    """True when the pelvis centre (F, 3) never moves horizontally (held at one place)."""
    horizontal = pel[:, :2][np.isfinite(pel[:, :2]).all(axis=1)]
    return len(horizontal) > 1 and float(np.ptp(horizontal, axis=0).max()) < 1e-9


def spatiotemporal(
    events: pd.DataFrame,
    markers: pd.DataFrame | None = None,
    *,
    feet: dict | None = None,
    pelvis=None,
    treadmill: bool | None = None,
    treadmill_speed: float | None = None,
    held_pelvis: bool = False,
) -> pd.DataFrame:
    """Spatiotemporal parameters per side and overall.

    Parameters
    ----------
    events : DataFrame
        Events table (foot strikes and offs of both feet).
    markers : DataFrame, optional
        Marker table in ground axes (X forward, Y left, Z up; m) with heel,
        toe and pelvis markers; without it only temporal parameters (and, on
        a treadmill with ``treadmill_speed``, lengths) are given.
    feet, pelvis :
        Marker names (see :func:`humanbody.gait.kinematic_events`).
    treadmill : bool, optional
        Treadmill trial; detected (:func:`is_treadmill`) when None.
    held_pelvis : bool
        The pelvis position was not measured (an orientation trial without
        positions holds it in place): when it indeed never moves
        horizontally, speed and lengths come from the stance feet as on a
        treadmill, but ``attrs["treadmill"]`` is False and ``attrs["note"]``
        says why.
    treadmill_speed : float, optional
        Belt speed (m/s); implies a treadmill.  Estimated with
        :func:`belt_speed` when not given.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``side`` ("right", "left", "overall") with the columns of :data:`PARAMETERS` (means over
        strides, units in their names; "overall" pools the strides of both feet) and ``attrs`` ``treadmill``
        (bool), ``belt_speed_m_per_s`` and ``strides`` (the per-stride table).
    """
    table = strides(events)
    if treadmill_speed is not None:
        treadmill = True
    length_cols = ["stride_length_m", "step_length_m", "step_width_m", "speed_m_per_s"]
    for c in length_cols:
        table[c] = np.nan
    belt = float(treadmill_speed) if treadmill_speed is not None else np.nan
    held = False
    if markers is not None and len(table):
        pairs = foot_markers(markers, feet)
        forward, left = progression_axes(markers, pairs)
        pel = pelvis_centre(markers, pelvis_markers(markers, pelvis))
        held = held_pelvis and treadmill is None and _pelvis_held(pel)
        if treadmill is None:
            treadmill = held or is_treadmill(markers, pelvis=pelvis, feet=pairs)
        if treadmill and treadmill_speed is None:
            belt = belt_speed(markers, events, feet=pairs, forward=forward)
        cols = _stride_lengths(table, markers, pairs, pel, (forward, left), bool(treadmill), belt)
        for c in length_cols:
            table[c] = cols[c]
    elif treadmill and np.isfinite(belt) and len(table):
        table["speed_m_per_s"] = belt
        table["stride_length_m"] = belt * table["stride_time_s"]
        table["step_length_m"] = belt * table["step_time_s"]
    out = _side_means(table)
    out.attrs.update(treadmill=bool(treadmill) and not held, belt_speed_m_per_s=np.nan if held else belt,
                     strides=table)
    if held:
        out.attrs["note"] = ("the pelvis is held in place (an orientation trial without positions): speed and "
                             "lengths from the stance feet's backward velocity relative to it, as on a treadmill; "
                             "not a treadmill walk")
    if not len(table):
        out.attrs["note"] = "no complete stride: fewer than two foot strikes of each foot"
    return out


def _stride_lengths(table: pd.DataFrame, markers: pd.DataFrame, pairs: dict, pel: np.ndarray, axes,
                    treadmill: bool, belt: float) -> dict:
    """Every stride's length, step length and width and speed (m, m/s) from the heel markers (``pairs``) at its
    strikes along the progression ``axes`` (forward, left); on a treadmill the belt speed ``belt`` plus the
    pelvis centre's (``pel``, F x 3) drift, times the stride and step times.  ``{column: (strides,) values}``."""
    forward, left = axes
    t = markers["time"].to_numpy(dtype=float)
    heels = {side: marker_xyz(markers, pairs[side][0]) for side in SIDES}
    cols = {c: np.full(len(table), np.nan) for c in ("stride_length_m", "step_length_m", "step_width_m",
                                                     "speed_m_per_s")}
    stride_time, step_time = table["stride_time_s"].to_numpy(), table["step_time_s"].to_numpy()
    for i, (side, a, b, o) in enumerate(zip(table["side"].tolist(), table["start_s"].tolist(),
                                            table["end_s"].tolist(), table["other_strike_s"].tolist(), strict=True)):
        other = SIDES[1 - SIDES.index(side)]
        h_a, h_b = _interp_rows(t, heels[side], a), _interp_rows(t, heels[side], b)
        h_o = _interp_rows(t, heels[other], o) if np.isfinite(o) else np.full(3, np.nan)
        if treadmill:
            drift = float((_interp_rows(t, pel, b) - _interp_rows(t, pel, a)) @ forward) / (b - a)
            speed = belt + drift
            cols["speed_m_per_s"][i] = speed
            cols["stride_length_m"][i] = speed * stride_time[i]
            cols["step_length_m"][i] = speed * step_time[i]
        else:
            stride_len = float((h_b - h_a) @ forward)
            cols["stride_length_m"][i] = stride_len
            cols["step_length_m"][i] = float((h_b - h_o) @ forward)
            cols["speed_m_per_s"][i] = stride_len / stride_time[i]
        cols["step_width_m"][i] = abs(float((h_b - h_o) @ left))
    return cols


def _side_means(table: pd.DataFrame) -> pd.DataFrame:
    """The means over the strides of :data:`PARAMETERS` per side and overall (both feet's strides pooled); the
    cadence from the mean stride time."""
    sides = table["side"].to_numpy(dtype=object)
    values = {c: table[c].to_numpy(dtype=float) for c in PARAMETERS if c in table.columns}
    summary: dict[str, list[float]] = {c: [] for c in PARAMETERS}
    for key in ("right", "left", "overall"):
        rows = np.ones(len(table), dtype=bool) if key == "overall" else sides == key
        for col in PARAMETERS:
            if col == "n_strides":
                summary[col].append(float(rows.sum()))
            elif col in values:
                vals = values[col][rows]
                summary[col].append(float(np.nanmean(vals)) if np.isfinite(vals).any() else np.nan)
            elif col != "cadence_steps_per_min":
                summary[col].append(np.nan)
        st = summary["stride_time_s"][-1]
        summary["cadence_steps_per_min"].append(120.0 / st if np.isfinite(st) and st > 0 else np.nan)
    return pd.DataFrame({c: np.array(v, dtype=float) for c, v in summary.items()},
                        index=pd.Index(["right", "left", "overall"], name="side"))


def flatten(params: pd.DataFrame) -> dict:
    """One-row form of :func:`spatiotemporal`'s table for a summary.

    The overall values keep their names, the per-side values are prefixed
    ``right_`` / ``left_``; ``treadmill`` and ``belt_speed_m_per_s`` are added.

    Parameters
    ----------
    params : pandas.DataFrame
        The table of spatiotemporal (indexed by side, with its attrs).

    Returns
    -------
    dict
        Column name -> value (float; treadmill a bool).
    """
    row = {}
    columns = [str(c) for c in params.columns.tolist()]
    labels = params.index.tolist()
    for key, prefix in (("overall", ""), ("right", "right_"), ("left", "left_")):
        values = params.iloc[labels.index(key)].to_numpy() if params.shape[1] else []
        for col, value in zip(columns, values, strict=True):
            row[prefix + col] = value
    row["treadmill"] = bool(params.attrs.get("treadmill", False))
    row["belt_speed_m_per_s"] = params.attrs.get("belt_speed_m_per_s", np.nan)
    return row

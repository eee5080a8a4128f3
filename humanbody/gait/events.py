"""Gait events (foot strike, foot off) from marker kinematics or force plates.

Kinematic events follow Zeni, Richards & Higginson (2008), "Two simple methods
for determining gait events during treadmill and overground walking using
kinematic data", Gait & Posture 27:710-714:

* ``"coordinate"`` - the heel and toe positions relative to the pelvis centre,
  projected on the direction of progression.  Foot strike is a maximum of
  heel - pelvis (the heel is furthest ahead), foot off is a minimum of
  toe - pelvis (the toe is furthest behind).
* ``"velocity"`` - the same relative positions differentiated in time: foot
  strike where the heel's relative velocity changes sign from forward to
  backward, foot off where the toe's changes from backward to forward.  It
  needs no peak picking and is the usual choice for running.

Both work on a treadmill and overground because they use pelvis-relative
coordinates.  Force events use a threshold on the vertical ground reaction
force of each foot (:data:`humanbody.signal.FORCE_THRESHOLD`, 20 N, by default).

All functions return an *events table*: a DataFrame with columns ``time``
(s), ``frame`` (nearest frame index of the trial), ``side`` ("right" /
"left"), ``event`` ("foot_strike" / "foot_off") and ``source``
("kinematic" / "force"), sorted by time.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pandas as pd

from ..errors import InputError
from ..signal import FORCE_THRESHOLD

__all__ = [
    "EVENT_COLUMNS",
    "FOOT_MARKERS",
    "PSEUDO_FEET",
    "PELVIS_MARKERS",
    "foot_markers",
    "pelvis_markers",
    "pelvis_centre",
    "marker_xyz",
    "progression_axes",
    "kinematic_events",
    "force_events",
    "events_of",
]

EVENT_COLUMNS = ["time", "frame", "side", "event", "source"]
SIDES = ("right", "left")

#: Model points that stand in for (heel, toe) when a trial has no foot markers
#: (:func:`humanbody.gait.selection.pseudo_markers`).
PSEUDO_FEET = {"right": ("right_ankle", "right_toe"), "left": ("left_ankle", "left_toe")}

#: Candidate (heel, toe) marker names per side, tried in order.
FOOT_MARKERS = {
    "right": [
        ("R.Heel", "R.Toe.Tip"),  # OpenSim gait2392 marker set
        ("RHEE", "RTOE"),  # Plug-in Gait
        ("R.Heel", "R.Toe"),
        ("RHeel", "RToe"),
        ("R_Heel", "R_Toe"),
        ("RCAL", "RMT2"),
        ("right_heel", "right_toe"),
    ],
    "left": [
        ("L.Heel", "L.Toe.Tip"),
        ("LHEE", "LTOE"),
        ("L.Heel", "L.Toe"),
        ("LHeel", "LToe"),
        ("L_Heel", "L_Toe"),
        ("LCAL", "LMT2"),
        ("left_heel", "left_toe"),
    ],
}

#: Pelvis markers whose mean (of those present) is the pelvis centre.
PELVIS_MARKERS = (
    "V.Sacral", "R.ASIS", "L.ASIS", "R.PSIS", "L.PSIS",
    "SACR", "RASI", "LASI", "RPSI", "LPSI", "pelvis",
)

# --------------------------------------------------------------------------- markers
def _names(df: pd.DataFrame) -> set[str]:
    cols = set(map(str, df.columns.tolist()))  # a list first: pandas iterates Arrow text slowly
    return {c[:-2] for c in cols if c.endswith("_x") and c[:-2] + "_y" in cols and c[:-2] + "_z" in cols}


def _column_positions(df: pd.DataFrame) -> dict | None:
    """``{column: position}`` of a table with unique column names (None otherwise): the columns of a marker
    found without pandas' look-up of string columns (a millisecond a call; the events, the spatiotemporal
    parameters and the figures read the same table's markers many times)."""
    names = df.columns.tolist()
    return {c: i for i, c in enumerate(names)} if len(set(names)) == len(names) else None


def marker_xyz(df: pd.DataFrame, name: str) -> np.ndarray:
    """Positions of marker ``name``, shape (F, 3), m; all-zero samples -> NaN.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table, ground axes.
    name : str
        The marker's name (columns <name>_x, _y, _z).

    Returns
    -------
    ndarray, shape (F, 3), m
        Its positions, ground axes; NaN where missing or all-zero.
    """
    cols = [f"{name}_x", f"{name}_y", f"{name}_z"]
    one_block = getattr(getattr(df, "_mgr", None), "is_single_block", False)
    positions = _column_positions(df) if one_block else None
    idx = [positions.get(c, -1) for c in cols] if positions is not None else [-1]
    values = df.to_numpy() if min(idx) >= 0 else None
    if values is not None and values.dtype.kind == "f":
        # a table of floats in one block (as read and conditioned): its array is a view, the
        # three columns taken from it without a DataFrame per call (each copies the table's attrs)
        p = np.ascontiguousarray(values[:, idx], dtype=float)  # C order, as the copy below: the same sums
    else:  # missing names (pandas says which), mixed columns
        p = df[cols].to_numpy(dtype=float).copy()
    p[(p == 0.0).all(axis=1)] = np.nan
    return p


def foot_markers(df: pd.DataFrame, feet: dict | None = None) -> dict[str, tuple[str, str]]:
    """Heel and toe marker names of each side.

    Parameters
    ----------
    df : DataFrame
        Marker table (``<name>_x/_y/_z`` columns).
    feet : dict, optional
        ``{"right": (heel, toe), "left": (heel, toe)}``; sides left out are
        found among :data:`FOOT_MARKERS`.

    Returns
    -------
    dict of str to (str, str)
        Side ("right", "left") -> its heel and toe marker names.

    Raises
    ------
    InputError  when a side has no heel/toe pair in the table.
    """
    have = _names(df)
    out = {}
    for side in SIDES:
        given = (feet or {}).get(side)
        candidates = [tuple(given)] if given else FOOT_MARKERS[side]
        pair = next((c for c in candidates if c[0] in have and c[1] in have), None)
        if pair is None and not given:
            pair = _named_foot(have, side)
        if pair is None:
            tried = ", ".join("/".join(c) for c in candidates)
            raise InputError(
                f"no {side} heel and toe markers for gait events (looked for {tried}, and for names read as a "
                "heel and a toe or metatarsal)",
                df.attrs.get("source"),
            )
        out[side] = (str(pair[0]), str(pair[1]))
    return out


#: Landmarks (:mod:`humanbody.lab.vocabulary`) that stand for the toe in Zeni's foot-off, and for the heel in
#: his foot strike (a malleolus where the trial has no heel marker), in order of preference.
_TOE_ROLES = ("toe", "mt1", "mt5", "midfoot")
_HEEL_ROLES = ("heel", "ankle")
#: Landmarks whose markers' mean stands for the pelvis centre.
_PELVIS_ROLES = ("asis", "psis", "sacrum")


def _readings(have: set[str]) -> dict[tuple[str | None, str | None], list[str]]:
    """The table's marker names by (landmark role, side) as their names read, wands left out."""
    from ..lab.vocabulary import read_name  # lazy: the vocabulary file is read on first use

    out: dict[tuple[str | None, str | None], list[str]] = {}
    for name in sorted(have):
        told_apart = re.fullmatch(r"(.+)_\d+", name)  # a repeated label told apart (``r met_2``): its first's
        if "wand" in name.lower() or (told_apart and told_apart.group(1) in have):
            continue
        r = read_name(name)
        out.setdefault((r.role, r.side), []).append(name)
    return out


def _named_foot(have: set[str], side: str) -> tuple[str, str] | None:
    """A heel (else an ankle) and a toe (else a first or fifth metatarsal, else a midfoot) marker of ``side`` read
    from the names (``r mall``/``r met`` of BTS, ``R_HEEL``/``R_MT_1`` of Qualisys); None when the names hold no
    such pair."""
    by = _readings(have)
    heel = next((by[(role, side)] for role in _HEEL_ROLES if (role, side) in by), None)
    toe = next((by[(role, side)] for role in _TOE_ROLES if (role, side) in by), None)
    if not heel or not toe:
        return None
    return heel[0], toe[0]


def pelvis_markers(df: pd.DataFrame, pelvis=None) -> list[str]:
    """Names of the pelvis markers present (``pelvis`` overrides the defaults).

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table.
    pelvis : sequence of str, optional
        The pelvis marker names to look for (default PELVIS_MARKERS).

    Returns
    -------
    list of str
        The names present in the table, in the order looked for.

    Raises
    ------
    InputError
        When none is present.
    """
    have = _names(df)
    names = [n for n in (pelvis or PELVIS_MARKERS) if n in have]
    if not names and not pelvis:  # names read as ASIS, PSIS or sacrum (``r asis``, ``SACRUM``, ``L_IAS``)
        by = _readings(have)
        names = [n for role in _PELVIS_ROLES for side in ("right", "left", None) for n in by.get((role, side), [])]
    if not names:
        raise InputError(
            "no pelvis markers for gait events (looked for " + ", ".join(pelvis or PELVIS_MARKERS)
            + ("" if pelvis else ", and for names read as an ASIS, PSIS or sacral marker") + ")",
            df.attrs.get("source"),
        )
    return names


def pelvis_centre(df: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Mean of the pelvis markers present at each frame, (F, 3), m.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table, ground axes (m).
    names : list of str
        The pelvis markers (pelvis_markers).

    Returns
    -------
    ndarray, shape (F, 3), m
        The mean of the markers seen at each frame; NaN where none is.
    """
    stack = np.stack([marker_xyz(df, n) for n in names])
    with np.errstate(invalid="ignore"), _quiet():
        return np.nanmean(stack, axis=0)


class _quiet:
    """Silence numpy's 'mean of empty slice' warning (an all-NaN frame stays NaN)."""

    def __enter__(self):
        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore", RuntimeWarning)

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


def progression_axes(df: pd.DataFrame, feet: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Direction of progression and the lateral direction, horizontal unit vectors.

    The forward direction is the mean horizontal heel -> toe vector of both
    feet (the toes point forward in walking and running), so the result does
    not depend on the subject moving through the lab: it is valid on a
    treadmill too.  Ground axes are assumed (Z up, docs/conventions.md).

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table, ground axes.
    feet : dict, optional
        Side -> its heel and toe markers (default the module's names).

    Returns
    -------
    forward : ndarray, shape (3,)
        The direction of progression, a horizontal unit vector, ground axes.
    left : ndarray, shape (3,)
        ``Z x forward``, a horizontal unit vector, ground axes.
    """
    pairs = foot_markers(df, feet)
    v = np.zeros(3)
    for heel, toe in pairs.values():
        d = marker_xyz(df, toe) - marker_xyz(df, heel)
        v += np.nanmean(d, axis=0)
    v[2] = 0.0
    norm = np.linalg.norm(v)
    if not np.isfinite(norm) or norm < 1e-6:
        raise InputError("cannot tell the direction of progression from the foot markers", df.attrs.get("source"))
    forward = v / norm
    left = np.cross([0.0, 0.0, 1.0], forward)
    return forward, left


# --------------------------------------------------------------------------- peaks and crossings
def fill_nan(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """``y`` with its NaN samples linearly interpolated over ``t`` (unchanged with fewer than two finite ones).

    Parameters
    ----------
    t : ndarray, shape (F,), s
        The samples' times.
    y : ndarray, shape (F,)
        The signal (any unit).

    Returns
    -------
    ndarray, shape (F,)
        The signal with its gaps filled (the ends hold the nearest finite value, as numpy.interp does).
    """
    ok = np.isfinite(y)
    if ok.sum() < 2:
        return y
    return np.interp(t, t[ok], y[ok])


def _maxima(t: np.ndarray, y: np.ndarray, min_interval: float, prominence: float) -> list[float]:
    """Times of the maxima of ``y`` (sub-sample, parabolic), at least ``min_interval`` s apart.

    A maximum must lie in the upper half of the signal's range and stand out
    from its neighbourhood by ``prominence`` times that range
    (:func:`scipy.signal.find_peaks`); the half-range rule keeps maxima near the ends
    of the trial, whose prominence the trial's end cuts short.
    """
    y = fill_nan(t, y)
    if not np.isfinite(y).all() or len(y) < 3:
        return []
    dt = float(np.median(np.diff(t)))
    rng = float(np.ptp(y))
    if rng <= 0:
        return []
    lo, hi = float(np.min(y)), float(np.max(y))
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when events are first found

    peaks, _ = signal.find_peaks(
        y, height=0.5 * (lo + hi), distance=max(1, int(min_interval / dt)),
        prominence=prominence * rng, wlen=max(3, int(2 * min_interval / dt) | 1),
    )
    return _refine_peaks(t, y, peaks)


def _refine_peaks(t: np.ndarray, y: np.ndarray, idx: np.ndarray) -> list[float]:
    """Times of the vertices of the parabolas through samples i-1, i, i+1 for each i in ``idx``.

    The vertex lies ``shift = (y[i-1] - y[i+1]) / (2 (y[i-1] - 2 y[i] + y[i+1]))``
    samples from i (clipped to ±0.5, as at a true peak), towards the
    neighbour it is nearer to; t[i] itself at the ends of the signal or
    where the three samples are collinear.
    """
    idx = np.asarray(idx, dtype=np.intp)
    out = t[idx].astype(float)
    at = np.flatnonzero((idx > 0) & (idx < len(y) - 1))
    i = idx[at]
    y0, y1, y2 = y[i - 1], y[i], y[i + 1]
    den = y0 - 2.0 * y1 + y2
    ok = (den != 0) & np.isfinite(den)
    at, i, y0, y2, den = at[ok], i[ok], y0[ok], y2[ok], den[ok]
    shift = np.clip(0.5 * (y0 - y2) / den, -0.5, 0.5)  # in samples, |shift| <= 0.5 at a true peak
    j = np.where(shift > 0, i + 1, i - 1)
    out[at] = t[i] + shift * np.abs(t[j] - t[i])
    return out.tolist()


def _crossings(t: np.ndarray, v: np.ndarray, rising: bool, keep: np.ndarray, min_interval: float) -> list[float]:
    """Times where ``v`` crosses zero upwards (``rising``) or downwards, linearly interpolated.

    Only crossings at samples where ``keep`` is true are returned, and of
    crossings closer than ``min_interval`` s only the first.
    """
    s = np.sign(v)
    idx = np.flatnonzero((s[:-1] < 0) & (s[1:] >= 0)) if rising else np.flatnonzero((s[:-1] > 0) & (s[1:] <= 0))
    out: list[float] = []
    for i in idx:
        if not (keep[i] or keep[i + 1]):
            continue
        frac = v[i] / (v[i] - v[i + 1]) if v[i] != v[i + 1] else 0.0
        tc = float(t[i] + frac * (t[i + 1] - t[i]))
        if out and tc - out[-1] < min_interval:
            continue
        out.append(tc)
    return out


def _nearest_frames(frame_times: np.ndarray, times) -> np.ndarray:
    times = np.asarray(times, dtype=float)
    i = np.clip(np.searchsorted(frame_times, times), 1, len(frame_times) - 1)
    left = frame_times[i - 1]
    right = frame_times[i]
    return np.where(np.abs(times - left) <= np.abs(right - times), i - 1, i).astype(int)


def _table(rows, frame_times: np.ndarray) -> pd.DataFrame:
    times = [r[0] for r in rows]
    if rows and np.isfinite(times).all():
        # sorted by time, side, event (stable), as the DataFrame sort below, without pandas' sort of a few rows
        rows = sorted(rows, key=lambda r: (r[0], r[1], r[2]))
        t = np.array([r[0] for r in rows], dtype=float)
        return pd.DataFrame({
            "time": t,
            "frame": _nearest_frames(frame_times, t) if len(frame_times) > 1 else np.zeros(len(t), dtype=int),
            "side": [r[1] for r in rows], "event": [r[2] for r in rows], "source": [r[3] for r in rows],
        })
    df = pd.DataFrame(rows, columns=["time", "side", "event", "source"])
    if df.empty:
        return pd.DataFrame({c: pd.Series(dtype=d) for c, d in
                             zip(EVENT_COLUMNS, (float, int, object, object, object), strict=True)})
    df["frame"] = _nearest_frames(frame_times, df["time"].to_numpy()) if len(frame_times) > 1 else 0
    df = df[EVENT_COLUMNS].sort_values(["time", "side", "event"], kind="stable").reset_index(drop=True)
    return df


# --------------------------------------------------------------------------- kinematic events
def kinematic_events(
    markers: pd.DataFrame,
    *,
    method: str = "auto",
    feet: dict | None = None,
    pelvis=None,
    min_stride_time: float = 0.4,
    prominence: float = 0.02,
) -> pd.DataFrame:
    """Foot strikes and foot offs from heel and toe markers (Zeni et al. 2008).

    Parameters
    ----------
    markers : DataFrame
        Marker table in ground axes (X forward, Y left, Z up; metres), e.g.
        ``Analysis.markers`` or the output of
        :func:`humanbody.lab.axes.to_ground`.  Filtered data work best.
    method : {"auto", "coordinate", "velocity"}
        ``"coordinate"``: maxima of heel - pelvis and minima of toe - pelvis
        along the progression direction.  ``"velocity"``: sign changes of the
        time derivatives of the same signals (Zeni's second method).
        ``"auto"``: coordinate, falling back to velocity for a side where the
        coordinate method finds fewer than two foot strikes.
    feet : dict, optional
        ``side -> (heel, toe)`` marker names (defaults: :data:`FOOT_MARKERS`).
    pelvis : list of str, optional
        Pelvis markers whose mean is the pelvis centre (default
        :data:`PELVIS_MARKERS`, those present).
    min_stride_time : float
        Shortest time between two strikes (or offs) of one foot, s.
    prominence : float
        Minimum prominence of an extremum as a fraction of the signal range.

    Returns
    -------
    pandas.DataFrame
        The events table (:data:`EVENT_COLUMNS`: times in s), ``source = "kinematic"``; ``attrs`` holds ``method``
        (per side), ``feet``, ``pelvis`` and ``forward`` (the progression direction used).
    """
    if method not in ("auto", "coordinate", "velocity"):
        raise InputError(f"unknown gait event method {method!r}; choose auto, coordinate or velocity")
    if "time" not in markers.columns or len(markers) < 5:
        raise InputError("too few frames for gait events", markers.attrs.get("source"))
    t = markers["time"].to_numpy(dtype=float)
    pairs = foot_markers(markers, feet)
    pel_names = pelvis_markers(markers, pelvis)
    pel = pelvis_centre(markers, pel_names)
    forward, _ = progression_axes(markers, pairs)
    rows, used = [], {}
    for side, (heel, toe) in pairs.items():
        h = (marker_xyz(markers, heel) - pel) @ forward
        q = (marker_xyz(markers, toe) - pel) @ forward
        h, q = fill_nan(t, h), fill_nan(t, q)
        how = "velocity" if method == "velocity" else "coordinate"
        strikes, offs = _events_by(how, t, h, q, min_stride_time, prominence)
        if method == "auto" and len(strikes) < 2:
            s2, o2 = _events_by("velocity", t, h, q, min_stride_time, prominence)
            if len(s2) > len(strikes):
                how, strikes, offs = "velocity", s2, o2
        used[side] = how
        rows += [(ts, side, "foot_strike", "kinematic") for ts in strikes]
        rows += [(to, side, "foot_off", "kinematic") for to in offs]
    out = _table(rows, t)
    out.attrs.update(method=used, feet=pairs, pelvis=pel_names, forward=forward.tolist(),
                     source=markers.attrs.get("source"))
    return out


def _events_by(how, t, heel_rel, toe_rel, min_interval, prominence):
    if how == "coordinate":
        return _maxima(t, heel_rel, min_interval, prominence), _maxima(t, -toe_rel, min_interval, prominence)
    vh = np.gradient(heel_rel, t)
    vt = np.gradient(toe_rel, t)
    # a strike is the heel turning back while ahead of its mean position, an
    # off the toe turning forward while behind its mean position
    strikes = _crossings(t, vh, rising=False, keep=heel_rel > np.median(heel_rel), min_interval=min_interval)
    offs = _crossings(t, vt, rising=True, keep=toe_rel < np.median(toe_rel), min_interval=min_interval)
    return strikes, offs


# --------------------------------------------------------------------------- force events
def _contact_runs(on: np.ndarray, min_samples: int) -> np.ndarray:
    """``on`` with runs (of either value) shorter than ``min_samples`` merged into their neighbours."""
    on = on.copy()
    if min_samples <= 1 or len(on) == 0:
        return on
    edges = np.flatnonzero(np.diff(on.astype(int))) + 1
    bounds = np.concatenate([[0], edges, [len(on)]])
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        if b - a < min_samples and a > 0 and b < len(on):
            on[a:b] = on[a - 1]
    return on


def force_events(
    time,
    vertical: dict,
    *,
    threshold: float = FORCE_THRESHOLD,
    frame_times=None,
    min_duration: float = 0.05,
    source=None,
) -> pd.DataFrame:
    """Foot strikes and foot offs where each foot's vertical force crosses ``threshold``.

    Parameters
    ----------
    time : (T,) array_like
        Times (s) of the force samples.
    vertical : dict
        ``side -> (T,)`` vertical force on that foot (N).  A force that is
        mostly negative (a plate reporting the action on the plate) is
        flipped.  :func:`humanbody.io.forceplates.vertical_forces` takes
        them from a force table; a :class:`~humanbody.io.loads.LoadTable`
        holds them as ``force[:, plate, 2]``.
    threshold : float
        Vertical force (N) above which the foot is on the ground.
    frame_times : array_like, optional
        Times of the marker frames: ``frame`` is then the nearest marker frame;
        otherwise the nearest force sample.
    min_duration : float
        Contacts and flights shorter than this (s) are treated as noise.
    source : str, optional
        The force file, for messages (``attrs["source"]``).

    Returns
    -------
    pandas.DataFrame
        The events table (:data:`EVENT_COLUMNS`: times in s) with ``source = "force"``; crossing times are
        linearly interpolated between samples.
    """
    t = np.asarray(time, dtype=float)
    rows = []
    for side, force in vertical.items():
        f = np.asarray(force, dtype=float)
        if f.shape != t.shape:
            raise InputError(f"vertical force of the {side} foot has {f.shape} samples, time {t.shape}", source)
        if np.nanpercentile(-f, 95) > np.nanpercentile(f, 95):  # plate reports the action on the plate
            f = -f
        f = fill_nan(t, f)
        dt = float(np.median(np.diff(t))) if len(t) > 1 else 1.0
        on = _contact_runs(f > threshold, int(round(min_duration / dt)))
        g = f - threshold
        for i in np.flatnonzero(np.diff(on.astype(int))):
            frac = g[i] / (g[i] - g[i + 1]) if g[i] != g[i + 1] else 0.5
            frac = float(np.clip(frac, 0.0, 1.0))
            tc = float(t[i] + frac * (t[i + 1] - t[i]))
            rows.append((tc, side, "foot_strike" if on[i + 1] else "foot_off", "force"))
    frame_times = t if frame_times is None else np.asarray(frame_times, dtype=float)
    out = _table(rows, frame_times)
    out.attrs.update(threshold=float(threshold), source=source)
    return out


def events_of(events: pd.DataFrame, side: str, event: str) -> np.ndarray:
    """Sorted times (s) of one side's ``event`` ("foot_strike" or "foot_off").

    Parameters
    ----------
    events : pandas.DataFrame
        An events table (``time``, ``side``, ``event``).
    side : {"right", "left"}
        The foot.
    event : {"foot_strike", "foot_off"}
        The event.

    Returns
    -------
    ndarray, shape (n,), s
        The event's times, increasing.
    """
    sel = (events["side"].to_numpy() == side) & (events["event"].to_numpy() == event)
    return np.sort(events["time"].to_numpy(dtype=float)[sel])

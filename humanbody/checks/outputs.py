"""Are the results what a body does?  Angles, moments, powers, jumps and carried segments, before they are written.

The inputs' checks refuse; these judge the numbers an analysis gives, and
flag them: each finding is one log line (``check outputs: ...``), a
``warnings`` list in ``<stem>_model.json``, and in a report the trial's
status ``ok with warnings`` with the findings on its page.  The numbers are
still written (a flagged trial may be right: an athlete, a fall), never as
plain "ok".

Limits of gait (walking, adults and children), each about twice the largest
value healthy subjects reach at their fastest walking speed, so that a
normal trial is never flagged and a number no body makes is:

============================  =========  ==========================================================
quantity                      limit      source of the largest normal value
============================  =========  ==========================================================
hip moment (any axis)         2.5 N·m/kg  Winter (2009) Biomechanics and Motor Control of Human
                                         Movement, 4th ed., ch. 5: hip extensor peak about 1 N·m/kg;
                                         Schwartz et al. (2008) "VeryFast" norms: 1.5
knee moment (any axis)        2.0 N·m/kg  Winter (2009): knee extensor peak 0.5-1; Schwartz (2008): 1.0
ankle moment (any axis)       2.5 N·m/kg  Winter (2009): plantarflexor peak 1.4-1.7; Schwartz (2008): 1.7
hip, knee power               5 W/kg     Winter (2009), Schwartz (2008): peaks 1-2 W/kg (fast: 2.5)
ankle power                   7 W/kg     push-off peak 3-5 W/kg at the fastest walking speeds
joint angle rate              1500 deg/s the swing knee's 350-450 deg/s; joints in sport reach 1000-2000
knee flexion                  -30..120°  walking 0-70°
ankle dorsiflexion            -60..50°   walking -25..20°
hip flexion                   -45..110°  walking -20..45°
pose carried from a parent    0.1 s      tracking holds a segment without its markers; past a few frames
                                         its motion is its parent's, not its own
stance (% of the stride)      20-75 %    walking: 58-65 % (Perry and Burnfield 2010, Gait Analysis);
                                         running 22-40 %, sprinting down to about 20 %
file's gait events (report)   0.07 s     median lag of a side's file strikes or offs from the markers'
                                         (kinematic) events; agreeing files lie within 0.05 s
============================  =========  ==========================================================

A trial whose ground reactions never load both feet at once (running,
hopping, jumping: no double support) is judged by :data:`RUN_MOMENT_LIMIT`
and :data:`RUN_POWER_LIMIT` instead of the walking moment and power limits.

The checks are array operations over the columns they judge (a maximum, a
difference): they cost little beside writing the table.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["MOMENT_LIMITS", "POWER_LIMITS", "ANGLE_RANGES", "MAX_ANGLE_RATE", "MAX_CARRIED_S", "STANCE_PCT",
           "WALK_STANCE_PCT", "OutputWatch", "angle_findings", "carried_findings", "stance_findings", "event_findings"]

#: Largest |moment| (N·m/kg) per joint, any clinical axis (the module's table).
MOMENT_LIMITS = {"hip": 2.5, "knee": 2.0, "ankle": 2.5}
#: Largest |power| (W/kg) per joint.
POWER_LIMITS = {"hip": 5.0, "knee": 5.0, "ankle": 7.0}
#: Largest |moment| (N·m/kg) and |power| (W/kg) of any joint in a trial that is not a walk (no frame with both
#: feet loaded: running, hopping, jumping): about 1.5 times the largest at sprinting speeds (Schache et al. 2011,
#: "Effect of running speed on lower limb joint kinetics", Med Sci Sports Exerc 43:1260-1271).
RUN_MOMENT_LIMIT, RUN_POWER_LIMIT = 6.0, 40.0
#: A foot is loaded above this vertical ground reaction (N/kg).
LOADED_N_PER_KG = 1.0
#: Range (deg) of the sagittal angles, by side-less clinical name.
ANGLE_RANGES = {"hip_flexion_deg": (-45.0, 110.0), "knee_flexion_deg": (-30.0, 120.0),
                "ankle_dorsiflexion_deg": (-60.0, 50.0)}
#: Largest rate (deg/s) of a clinical angle between two frames.
MAX_ANGLE_RATE = 1500.0
#: Longest run (s) of frames in which a segment's pose is carried from its parent.
MAX_CARRIED_S = 0.1
#: Range (%) of the stance phase of a stride, walking (58-65 %) or running (22-40 %).
STANCE_PCT = (20.0, 75.0)
#: s: a side's file events (the C3D's ``EVENT`` group) disagree with where the feet are when the median lag of
#: its foot strikes or of its foot offs from the markers' (kinematic, Zeni et al. 2008) is larger.  Files whose
#: events agree with the feet lag at most 0.05 s (the shared C3D.org walks: gait-pig 0.03, Vicon_analysis 0.046,
#: the Nexus 2.9 file's left side 0.041 s; Zeni's strikes lie 0.02-0.05 s after the plates'); the Nexus file's
#: right strikes lie 0.084 s after (a 52.5 % stance that the markers' events make 64.4 %).
EVENT_LAG_S = 0.07
#: Range (%) of the stance phase of a walk's stride (Perry and Burnfield 2010: about 60 %): a side cut at the file's
#: events whose stance falls outside it while the markers' events give a stance inside it is said, as a lag is.
WALK_STANCE_PCT = (55.0, 68.0)
#: s: a file event farther than this from every kinematic event of its kind and side has no twin among them (a
#: stride the markers' events miss) and is not compared.
EVENT_PAIR_S = 0.25


def _kinetic_limit(name: str) -> tuple[float, str] | None:
    """(limit, unit) of a clinical kinetic column ``s_<joint>_..._moment_Nm_per_kg`` / ``_power_W_per_kg``."""
    parts = name.split("_")
    if len(parts) < 3 or parts[0] not in ("right", "left"):
        return None
    joint = parts[1]
    if name.endswith("_moment_Nm_per_kg") and joint in MOMENT_LIMITS:
        return MOMENT_LIMITS[joint], "N·m/kg"
    if name.endswith("_power_W_per_kg") and joint in POWER_LIMITS:
        return POWER_LIMITS[joint], "W/kg"
    return None


def _angle_range(name: str):
    """(lo, hi) deg of a clinical angle column with a range in :data:`ANGLE_RANGES`, else None."""
    side_less = name.split("_", 1)[1] if name.startswith(("right_", "left_")) else name
    return ANGLE_RANGES.get(side_less)


class OutputWatch:
    """What the output checks judge in a results table, seen block by block as the table is written.

    ``columns``: the table's columns (``time`` among them for the angles' rates).  Kept per judged
    column: the largest |value| of each clinical moment and power (:data:`MOMENT_LIMITS`,
    :data:`POWER_LIMITS`), the smallest and largest value of the ranged angles (:data:`ANGLE_RANGES`)
    and the largest rate of every clinical angle (``*_deg``) between two frames (wrapped at +-180 deg),
    each with its frame.  :meth:`see` takes each block (frames, columns) and the index of its first
    frame; :meth:`findings` gives one line per quantity past its limit.
    """

    def __init__(self, columns):
        columns = list(columns)
        kinetic = [(j, c) for j, c in enumerate(columns) if c.endswith(("_moment_Nm_per_kg", "_power_W_per_kg"))]
        judged = [(j, c, *lim) for j, c in kinetic if (lim := _kinetic_limit(c)) is not None]
        self.index = np.array([j for j, *_ in judged], dtype=np.int64)
        self.names = [c for _, c, *_ in judged]
        self.limits = np.array([lim for _, _, lim, _ in judged], dtype=float)
        self.units = [u for *_, u in judged]
        self.peak = np.zeros(len(judged))
        self.at = np.zeros(len(judged), dtype=np.int64)
        self.time = columns.index("time") if "time" in columns else -1
        self.angle_index = np.array([j for j, c in enumerate(columns) if c.endswith("_deg")], dtype=np.int64)
        self.angle_names = [columns[j] for j in self.angle_index]
        n = len(self.angle_index)
        self.low, self.high = np.full(n, np.inf), np.full(n, -np.inf)
        self.low_at, self.high_at = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        self.rate, self.rate_at, self.step = np.zeros(n), np.zeros(n, dtype=np.int64), np.zeros(n)
        self.last: np.ndarray | None = None  # the previous block's last row: time, then the angles
        grf = [columns.index(f"{side}_grf_z_N_per_kg") for side in ("right", "left")
               if f"{side}_grf_z_N_per_kg" in columns]
        self.grf = np.array(grf if len(grf) == 2 else [], dtype=np.int64)
        self.double_support = not len(self.grf)  # without both feet's forces: judged as a walk

    def see(self, block: np.ndarray, start: int) -> None:
        """Take the rows of ``block`` (frames ``start``...) into the kept extremes.

        Parameters
        ----------
        block : ndarray, shape (B, columns)
            Rows of the results table (frames start .. start + B - 1), in the watch's columns.
        start : int
            Index of the block's first frame in the table.
        """
        if not len(block):
            return
        if len(self.index):
            values = np.abs(block[:, self.index])
            values = np.where(np.isfinite(values), values, -1.0)
            i = values.argmax(axis=0)
            top = values[i, np.arange(len(i))]
            more = top > self.peak
            self.peak[more], self.at[more] = top[more], start + i[more]
        if len(self.grf) and not self.double_support:
            self.double_support = bool((block[:, self.grf] > LOADED_N_PER_KG).all(axis=1).any())
        if len(self.angle_index) and self.time >= 0:
            self._see_angles(block[:, self.angle_index], block[:, self.time], start)

    def _see_angles(self, a: np.ndarray, t: np.ndarray, start: int) -> None:
        cols = np.arange(a.shape[1])
        lo = np.where(np.isfinite(a), a, np.inf).argmin(axis=0)
        hi = np.where(np.isfinite(a), a, -np.inf).argmax(axis=0)
        less, more = a[lo, cols] < self.low, a[hi, cols] > self.high
        self.low[less], self.low_at[less] = a[lo, cols][less], start + lo[less]
        self.high[more], self.high_at[more] = a[hi, cols][more], start + hi[more]
        first = start
        if self.last is not None:  # the step from the previous block's last frame
            a, t, first = np.vstack([self.last[1:], a]), np.concatenate([self.last[:1], t]), start - 1
        self.last = np.concatenate([t[-1:], a[-1]])
        if len(t) < 2:
            return
        step = (np.diff(a, axis=0) + 180.0) % 360.0 - 180.0  # an angle wrapping at +-180 deg does not jump
        with np.errstate(invalid="ignore", divide="ignore"):
            rate = np.abs(step) / np.diff(t)[:, None]
        rate = np.where(np.isfinite(rate), rate, 0.0)
        f = rate.argmax(axis=0)
        more = rate[f, cols] > self.rate
        self.rate[more], self.rate_at[more], self.step[more] = rate[f, cols][more], first + f[more], step[f, cols][more]

    def findings(self, time) -> list[str]:
        """One line per quantity past its limit: the ranged angles, the angles' rates, then moments and powers.

        Parameters
        ----------
        time : array_like, shape (F,), s
            The table's times (to name the frames).

        Returns
        -------
        list of str
            One line per quantity past its limit (its value, unit and frame time); empty when none is.
        """
        t = np.asarray(time, dtype=float)
        out = []
        for j, name in enumerate(self.angle_names):
            lo_hi = _angle_range(name)
            if lo_hi is not None and (self.low[j] < lo_hi[0] or self.high[j] > lo_hi[1]):
                v, at = (self.low[j], self.low_at[j]) if self.low[j] < lo_hi[0] else (self.high[j], self.high_at[j])
                out.append(f"check outputs: {name} reaches {v:.1f} deg at {t[at]:.3f} s (a body: {lo_hi[0]:g} to "
                           f"{lo_hi[1]:g} deg)")
        for j, name in enumerate(self.angle_names):
            if self.rate[j] > MAX_ANGLE_RATE:
                f = int(self.rate_at[j])
                out.append(f"check outputs: {name} jumps {abs(self.step[j]):.1f} deg between {t[f]:.3f} and "
                           f"{t[f + 1]:.3f} s ({self.rate[j]:.0f} deg/s; a joint: at most {MAX_ANGLE_RATE:g} deg/s)")
        walk = self.double_support
        limits = self.limits if walk else np.array([RUN_MOMENT_LIMIT if u == "N·m/kg" else RUN_POWER_LIMIT
                                                    for u in self.units])
        activity = "a body in gait" if walk else "a body running or jumping (no double support)"
        out += [f"check outputs: {name} reaches {peak:.2f} {unit} at {t[at]:.3f} s ({activity}: at most "
                f"{lim:g} {unit})"
                for name, peak, at, lim, unit in zip(self.names, self.peak, self.at, limits, self.units,
                                                      strict=True) if peak > lim]
        return out


def angle_findings(angles, time) -> list[str]:
    """Lines on clinical angles (``angles``: DataFrame of ``*_deg`` columns, (F,) ``time`` s) outside
    :data:`ANGLE_RANGES` or changing faster than :data:`MAX_ANGLE_RATE` between two frames
    (:class:`OutputWatch` over the whole table at once).

    Parameters
    ----------
    angles : pandas.DataFrame
        The clinical angles (deg), one column per angle ending in _deg.
    time : array_like, shape (F,), s
        The table's times.

    Returns
    -------
    list of str
        One line per angle past its range or rate limit; empty when none is.
    """
    t = np.asarray(time, dtype=float)
    if len(t) < 2:
        return []
    watch = OutputWatch(["time", *angles.columns])
    watch.see(np.column_stack([t, angles.to_numpy(dtype=float)]), 0)
    return watch.findings(t)


def carried_frames(status):
    """The frames in which each segment's pose is carried from its parent (status "fallback").

    Parameters
    ----------
    status : pandas.DataFrame
        The tracking's status per frame, one column per segment ("fit", "fallback", ...; categorical or
        text); a ``time`` column is skipped.

    Yields
    ------
    (str, ndarray of bool, shape (F,))
        Segment name and its carried frames, for the segments carried in at least one frame.
    """
    for name in status.columns:
        if name == "time":
            continue
        column = status[name]
        if isinstance(column.dtype, pd.CategoricalDtype):  # the tracking's status: compare the codes
            if "fallback" not in column.cat.categories:
                continue
            carried = column.cat.codes.to_numpy() == column.cat.categories.get_loc("fallback")
        else:
            carried = column.to_numpy() == "fallback"
        if carried.any():
            yield name, carried


def carried_findings(status, time) -> list[str]:
    """Lines on segments whose pose is carried from the parent (``status`` "fallback", a tracking's status
    table: one column per segment) for longer than :data:`MAX_CARRIED_S` in one run.

    Parameters
    ----------
    status : pandas.DataFrame or None
        The tracking's status per frame, one column per segment ("fit", "fallback", ...).
    time : array_like, shape (F,), s
        The table's times.

    Returns
    -------
    list of str
        One line per such segment; empty when none is.
    """
    t = np.asarray(time, dtype=float)
    if status is None or len(t) < 2:
        return []
    dt = float(np.median(np.diff(t)))
    out = []
    for name, carried in carried_frames(status):
        edges = np.diff(np.concatenate([[0], carried.astype(np.int8), [0]]))
        starts, stops = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)
        k = int(np.argmax(stops - starts))
        run = int(stops[k] - starts[k])
        if run * dt > MAX_CARRIED_S:
            out.append(f"check outputs: {name} carried from its parent for {run} frames "
                       f"({run * dt:.2f} s from {t[starts[k]]:.3f} s; at most {MAX_CARRIED_S:g} s): its motion "
                       "there is its parent's")
    return out


def stance_findings(params) -> list[str]:
    """Lines on a walking trial's stance phase (spatiotemporal ``params``: indexed by side, a ``stance_pct``
    column; :func:`humanbody.gait.spatiotemporal.spatiotemporal`) outside :data:`STANCE_PCT`.

    Parameters
    ----------
    params : pandas.DataFrame or None
        The spatiotemporal table (indexed by side, with stance_pct).

    Returns
    -------
    list of str
        One line per side whose stance is outside STANCE_PCT; empty when none is.
    """
    lo, hi = STANCE_PCT
    if params is None or "stance_pct" not in getattr(params, "columns", ()):
        return []
    out = []
    for side in ("right", "left"):
        if side in params.index:
            v = float(params.loc[side, "stance_pct"])
            if np.isfinite(v) and not lo <= v <= hi:
                out.append(f"check outputs: {side} stance {v:.0f} % of the stride (a body walking or running: {lo:g}-{hi:g} %)")
    return out


def _lags(cols: dict, side: str, kind: str) -> np.ndarray:
    """Lags (s) of ``side``'s file events of ``kind`` after the nearest kinematic one (within
    :data:`EVENT_PAIR_S`); ``cols`` the events table's columns as arrays."""
    mine = (cols["side"] == side) & (cols["event"] == kind)
    own = cols["time"][mine & (cols["source"] == "file")]
    kin = cols["time"][mine & (cols["source"] == "kinematic")]
    if not len(own) or not len(kin):
        return np.empty(0)
    d = own - kin[np.abs(own[:, None] - kin[None, :]).argmin(axis=1)]
    return d[np.abs(d) <= EVENT_PAIR_S]


def event_findings(events: pd.DataFrame, used: pd.DataFrame, stances: dict | None = None,
                   command: str = "report") -> list[str]:
    """One line when a side's strides are cut at the file's own events and those disagree with the feet.

    Parameters
    ----------
    events : DataFrame
        Every event of the trial (``time`` s, ``side``, ``event`` foot_strike/foot_off, ``source``: kinematic,
        force, file; :func:`humanbody.gait.selection.trial_events`).
    used : DataFrame
        The events that cut the strides (same columns).
    stances : dict, optional
        ``side -> (stance % with the file's events, stance % with the markers')``
        (:func:`humanbody.gait.selection.file_event_stances`).
    command : str
        The command the line is said by: "report" (its strides are cut at the file's events) or "analyze"
        (which cuts no strides: the line says what ``humanbody report`` does).

    Returns
    -------
    list of str
        ``check outputs: ...`` naming each disagreeing side, the median lag of its strikes and offs from the
        markers' (lag = file time - nearest kinematic time of the same side and kind, within
        :data:`EVENT_PAIR_S`; disagreeing: ``|median| >`` :data:`EVENT_LAG_S`, or a stance outside
        :data:`WALK_STANCE_PCT` that the markers' events put inside it), its stance both ways, and
        ``--events kinematic``; empty when they agree or no side uses the file's events.
    """
    if not len(used) or "source" not in used.columns or not (used["source"] == "file").any():
        return []
    cut = set(used.loc[used["source"] == "file", "side"])
    cols = {c: events[c].to_numpy(float if c == "time" else object) for c in ("time", "side", "event", "source")}
    lo, hi = WALK_STANCE_PCT
    parts = []
    lagging = False
    for side in [s for s in ("right", "left") if s in cut]:
        lag = {k: _lags(cols, side, k) for k in ("foot_strike", "foot_off")}
        med = {k: float(np.median(v)) for k, v in lag.items() if len(v)}
        own, kin = (stances or {}).get(side, (np.nan, np.nan))
        off_stance = np.isfinite(own) and not lo <= own <= hi and np.isfinite(kin) and lo <= kin <= hi
        late = any(abs(m) > EVENT_LAG_S for m in med.values())
        if not late and not off_stance:
            continue
        lagging |= late
        said = [f"{k.replace('_', ' ')}s {abs(m):.2f} s {'after' if m > 0 else 'before'} the markers' (median "
                f"of {len(lag[k])})" for k, m in med.items()]
        if np.isfinite(own) and not lo <= own <= hi:
            said.append(f"stance {own:.1f} % ({kin:.1f} % at the markers' events; a walk: {lo:g}-{hi:g} %)")
        parts.append(f"{side} " + ", ".join(said))
    if not parts:
        return []
    tail = ("the strides are cut at the file's events, --events kinematic cuts them at the markers'"
            if command == "report" else "`humanbody report` cuts the strides at the file's events, with "
            "--events kinematic at the markers'")
    why = f" (more than {EVENT_LAG_S:g} s from the markers')" if lagging else ""
    return [f"check outputs: the file's gait events are not where the feet are{why}: {'; '.join(parts)}; {tail}"]

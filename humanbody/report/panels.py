"""What the report's figures show, as plain arrays: one :class:`Panel` per plot.

Both renderers draw from these: :mod:`humanbody.report.svg` (the default,
SVG written directly, inlined in each trial's page) and
:mod:`humanbody.report.plots` (PNG through matplotlib, ``--plots png``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..gait.cycles import curve_index
from ..gait.events import foot_markers, marker_xyz, pelvis_centre, pelvis_markers, progression_axes
from ..gait.gps import SIDE_SENSE
from ..gait.normative import normative_curves

__all__ = ["Panel", "Series", "ANGLE_PANELS", "KINETIC_PANELS", "MECHANICS_PANELS", "SIDE_COLOURS",
           "cycle_panels", "foot_off_percent"]

SIDE_COLOURS = {"right": "#c0392b", "left": "#2471a3"}

#: (title, variable with {side}, scale, unit label): clinical angles, already in degrees.
#: Pelvic obliquity and rotation are drawn in each side's own sense (the left side's negated), as
#: Plug-in Gait and the normative data give them.
ANGLE_PANELS = [
    ("pelvis tilt (anterior +)", "pelvis_tilt_deg", 1.0, "deg"),
    ("pelvis obliquity (own side up +)", "pelvis_obliquity_deg", 1.0, "deg"),
    ("pelvis rotation (own side forward +)", "pelvis_rotation_deg", 1.0, "deg"),
    ("hip flexion", "{side}_hip_flexion_deg", 1.0, "deg"),
    ("hip adduction", "{side}_hip_adduction_deg", 1.0, "deg"),
    ("hip internal rotation", "{side}_hip_internal_rotation_deg", 1.0, "deg"),
    ("knee flexion", "{side}_knee_flexion_deg", 1.0, "deg"),
    ("knee adduction (varus +)", "{side}_knee_adduction_deg", 1.0, "deg"),
    ("knee internal rotation", "{side}_knee_internal_rotation_deg", 1.0, "deg"),
    ("ankle dorsiflexion", "{side}_ankle_dorsiflexion_deg", 1.0, "deg"),
    ("ankle inversion", "{side}_ankle_inversion_deg", 1.0, "deg"),
    ("foot progression (toe in +)", "{side}_foot_progression_deg", 1.0, "deg"),
]
#: Kinetics over the stride (internal moments and powers per kg; ground reaction per kg)
KINETIC_PANELS = [
    ("ground reaction, forward", "{side}_grf_x_N_per_kg", 1.0, "N/kg"),
    ("ground reaction, vertical", "{side}_grf_z_N_per_kg", 1.0, "N/kg"),
    ("ground reaction, lateral (left +)", "{side}_grf_y_N_per_kg", 1.0, "N/kg"),
    ("hip flexion moment", "{side}_hip_flexion_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("knee flexion moment", "{side}_knee_flexion_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("ankle dorsiflexion moment", "{side}_ankle_dorsiflexion_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("hip adduction moment", "{side}_hip_adduction_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("knee adduction moment", "{side}_knee_adduction_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("ankle inversion moment", "{side}_ankle_inversion_moment_Nm_per_kg", 1.0, "N m/kg"),
    ("hip power", "{side}_hip_power_W_per_kg", 1.0, "W/kg"),
    ("knee power", "{side}_knee_power_W_per_kg", 1.0, "W/kg"),
    ("ankle power", "{side}_ankle_power_W_per_kg", 1.0, "W/kg"),
]
MECHANICS_PANELS = [
    ("mass centre height", "body_com_z", 1.0, "m"),
    ("mass centre forward velocity", "body_com_vel_x", 1.0, "m/s"),
    ("foot inertia force, vertical", "{side}_foot_force_z", 1.0, "N"),
    ("lower leg inertia force, forward", "{side}_lower_leg_force_x", 1.0, "N"),
    ("thigh inertia torque about y", "{side}_upper_leg_torque_y", 1.0, "N m"),
    ("lower leg inertia torque about y", "{side}_lower_leg_torque_y", 1.0, "N m"),
]


@dataclass
class Series:
    """One side's mean curve and SD over its strides."""

    side: str
    percent: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    n_strides: int

    @property
    def colour(self) -> str:
        return SIDE_COLOURS[self.side]


@dataclass
class Panel:
    """One plot over the stride: the sides' curves, the normative band and the foot-off lines."""

    title: str
    unit: str
    series: list = field(default_factory=list)
    band: tuple | None = None          # (percent, mean, sd) of the normative data
    foot_off: dict = field(default_factory=dict)  # side -> percent of stride
    bars: dict = field(default_factory=dict)  # side -> [(start, end) percent]: on/off bars under the curves

    def limits(self) -> tuple[float, float]:
        """Range of y that shows the curves +- SD and the band (a unit range when there is nothing).

        Returns
        -------
        lo, hi : float
            The lower and upper y limits (the variable's unit).
        """
        lo, hi = np.inf, -np.inf
        for s in self.series:
            sd = np.nan_to_num(s.sd)
            lo, hi = min(lo, np.nanmin(s.mean - sd)), max(hi, np.nanmax(s.mean + sd))
        if self.band is not None:
            lo, hi = min(lo, np.min(self.band[1] - self.band[2])), max(hi, np.max(self.band[1] + self.band[2]))
        if not (np.isfinite(lo) and np.isfinite(hi)):
            return -1.0, 1.0
        if hi - lo < 1e-9:
            return lo - 1.0, hi + 1.0
        return float(lo), float(hi)


def foot_off_percent(params: pd.DataFrame | None) -> dict:
    """Each side's foot off in percent of its stride: its mean stance percentage (spatiotemporal table).

    Parameters
    ----------
    params : pandas.DataFrame or None
        The spatiotemporal table (indexed by side, with its mean stance_pct, %).

    Returns
    -------
    dict of str to float
        Side -> %; empty without a table.
    """
    out: dict[str, float] = {}
    if params is None or "stance_pct" not in getattr(params, "columns", ()):
        return out
    for side in ("right", "left"):
        if side in params.index:
            v = float(params.loc[side, "stance_pct"])
            if np.isfinite(v):
                out[side] = v
    return out


def cycle_panels(cycles: pd.DataFrame, panels, normative: pd.DataFrame | dict | None = None,
                 foot_off: dict | None = None, curves: dict | None = None) -> list:
    """The :class:`Panel` list of one figure from a cycles table (:func:`humanbody.gait.normalize_cycles`).

    ``normative`` (variable, percent, mean, sd with side-less names) gives the
    grey bands; ``foot_off`` (side -> percent) the vertical lines; ``curves`` the rows of each curve
    (:func:`humanbody.gait.cycles.normalized_curves`; default: found in ``cycles``).

    Parameters
    ----------
    cycles : pandas.DataFrame
        The cycles table (humanbody.gait.normalize_cycles): mean and SD of every variable per side and percent of the
        stride.
    panels : iterable
        The figure's panel specifications (title, variables, unit).
    normative : pandas.DataFrame or dict, optional
        The normative table (variable, percent, mean, sd; side-less names) or its curves (normative_curves): the grey
        bands.
    foot_off : dict, optional
        Side -> its foot off in percent of the stride (foot_off_percent): the vertical lines.
    curves : dict, optional
        The rows of each curve in cycles (humanbody.gait.cycles.normalized_curves); default found in cycles.

    Returns
    -------
    list of Panel
        One panel per specification, in order (without curves when the table lacks its variables).
    """
    groups = curve_index(cycles) if curves is None else curves

    norm = normative_curves(normative) if normative is not None else {}
    empty = np.empty(0)  # no cycles: no curve is looked up
    pct_col = cycles["percent"].to_numpy(dtype=float) if len(cycles) else empty
    mean_col = cycles["mean"].to_numpy(dtype=float) if len(cycles) else empty
    sd_col = cycles["sd"].to_numpy(dtype=float) if len(cycles) else empty
    n_col = cycles["n_strides"].to_numpy() if len(cycles) else empty
    out = []
    for title, pattern, scale, unit in panels:
        plain = pattern.replace("{side}_", "")
        panel = Panel(title, unit, foot_off=dict(foot_off or {}))
        for side in SIDE_COLOURS:
            idx = groups.get((side, pattern.format(side=side)))
            if idx is None:
                continue
            m = mean_col[idx] * scale
            if not np.isfinite(m).any():
                continue
            sense = SIDE_SENSE.get(plain, {}).get(side, 1.0)
            panel.series.append(Series(side, pct_col[idx], sense * m, sd_col[idx] * scale, int(n_col[idx][0])))
        if plain in norm:
            p, m, sd = norm[plain]
            panel.band = (p, m * scale, sd * scale)
        out.append(panel)
    return out


def event_traces(points: pd.DataFrame, events: pd.DataFrame, feet=None, pelvis=None):
    """Heel and toe minus pelvis along the progression direction, and the events on them.

    Parameters
    ----------
    points : pandas.DataFrame
        Marker (or model point) table, ground axes.
    events : pandas.DataFrame
        The events table (time s, side, event, source).
    feet : dict, optional
        Side -> its heel and toe marker names (default the gait module's).
    pelvis : sequence of str, optional
        The pelvis markers whose mean is the pelvis centre (default the gait module's).

    Returns
    -------
    series : list of (label, colour, dashed, time (s), forward distance (m))
        One curve per side and heel/toe: its label, colour, whether dashed, its times and its distance ahead of the
        pelvis.
    marks : list of (time, value, colour, filled, source): filled for foot strikes (on
            the heel curve), open for foot offs (on the toe curve); source "kinematic", "force" or
            "file" (the trial file's own events)
    """
    t = points["time"].to_numpy(dtype=float)
    pairs = foot_markers(points, feet)
    pel = pelvis_centre(points, pelvis_markers(points, pelvis))
    forward, _ = progression_axes(points, pairs)
    series, marks = [], []
    ev_t = events["time"].to_numpy(dtype=float)
    ev_side = events["side"].to_numpy()
    ev_kind = events["event"].to_numpy()
    ev_src = events["source"].to_numpy()
    for side, (heel, toe) in pairs.items():
        c = SIDE_COLOURS[side]
        h = (marker_xyz(points, heel) - pel) @ forward
        q = (marker_xyz(points, toe) - pel) @ forward
        series.append((f"{side} heel ({heel})", c, False, t, h))
        series.append((f"{side} toe ({toe})", c, True, t, q))
        for i in np.flatnonzero(ev_side == side):
            strike = ev_kind[i] == "foot_strike"
            marks.append((ev_t[i], float(np.interp(ev_t[i], t, h if strike else q)), c, bool(strike),
                          ev_src[i] if ev_src[i] in ("kinematic", "file") else "force"))
    return series, marks

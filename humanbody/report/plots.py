"""Report figures as PNG bytes (matplotlib, Agg canvas; no display needed): ``--plots png``.

The default report draws the same panels as SVG (:mod:`humanbody.report.svg`);
both take their data from :mod:`humanbody.report.panels`.

* :func:`angles_figure` - the clinical joint angles (deg) over the stride:
  pelvis, hip, knee, ankle and foot progression, mean +- SD, both sides in
  one panel;
* :func:`mechanics_figure` - whole-body mass centre and lower-limb inertia
  forces and torques over the stride;
* :func:`events_figure` - heel and toe positions relative to the pelvis over
  time with the detected events;
* :func:`map_figure` - the Movement Analysis Profile (GVS per variable and the GPS).

Curve panels carry the normative band (grey, mean +- 1 SD) when normative
data are given and each side's foot off as a dashed line.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .panels import ANGLE_PANELS, KINETIC_PANELS, MECHANICS_PANELS, SIDE_COLOURS, cycle_panels, event_traces  # noqa: F401 - re-exported

__all__ = ["angles_figure", "kinetics_figure", "mechanics_figure", "events_figure", "map_figure", "SIDE_COLOURS"]

_DPI = 90
_BAND = "#c8c8c8"


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, metadata={"Software": None})
    return buf.getvalue()


def _cycle_grid(cycles: pd.DataFrame, panels, title: str, ncols: int = 2, normative=None,
                foot_off=None) -> bytes:
    panels = cycle_panels(cycles, panels, normative, foot_off)
    nrows = int(np.ceil(len(panels) / ncols))
    fig = Figure(figsize=(4.2 * ncols, 2.5 * nrows))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.07, top=0.92, wspace=0.22, hspace=0.45)
    for i, panel in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        if panel.band is not None:
            x, m, sd = panel.band
            ax.fill_between(x, m - sd, m + sd, color=_BAND, linewidth=0, label="normative ± 1 SD")
        for s in panel.series:
            sd = np.nan_to_num(s.sd)
            ax.fill_between(s.percent, s.mean - sd, s.mean + sd, color=s.colour, alpha=0.2, linewidth=0)
            ax.plot(s.percent, s.mean, color=s.colour, label=f"{s.side} (n={s.n_strides})")
            if s.side in panel.foot_off:
                ax.axvline(panel.foot_off[s.side], color=s.colour, linestyle="--", linewidth=0.8)
        ax.set_title(panel.title, fontsize=9)
        ax.set_ylabel(panel.unit, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlim(0, 100)
        if i >= len(panels) - ncols:
            ax.set_xlabel("% stride", fontsize=8)
        if panel.series:
            if i == 0:
                ax.legend(fontsize=7, frameon=False)
        else:
            ax.text(0.5, 0.5, "no complete stride", transform=ax.transAxes, ha="center", fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _png(fig)


def angles_figure(cycles: pd.DataFrame, title: str = "", normative=None, foot_off=None) -> bytes:
    """Clinical joint angles (pelvis, hip, knee, ankle, foot progression), degrees, mean +- SD over strides.

    The pelvis panels show the pelvis over the right and over the left strides (obliquity and
    rotation in each side's own sense); ``normative`` adds the grey bands, ``foot_off`` the lines.

    Parameters
    ----------
    cycles : pandas.DataFrame
        The cycles table (humanbody.gait.normalize_cycles): mean and SD of every variable per side and percent of the
        stride.
    title : str
        The figure's title (the trial's name); empty for none.
    normative : pandas.DataFrame or dict, optional
        The normative table (variable, percent, mean, sd; side-less names) or its curves (normative_curves): the grey
        bands.
    foot_off : dict, optional
        Side -> its foot off in percent of the stride (foot_off_percent): the vertical lines.

    Returns
    -------
    bytes
        PNG.
    """
    return _cycle_grid(cycles, ANGLE_PANELS, f"{title}: joint angles over the stride".strip(": "), ncols=3,
                       normative=normative, foot_off=foot_off)


def kinetics_figure(cycles: pd.DataFrame, title: str = "", normative=None, foot_off=None) -> bytes:
    """Ground reactions, internal joint moments and joint powers per kg over the stride, mean +- SD.

    Parameters
    ----------
    cycles : pandas.DataFrame
        The cycles table (humanbody.gait.normalize_cycles): mean and SD of every variable per side and percent of the
        stride.
    title : str
        The figure's title (the trial's name); empty for none.
    normative : pandas.DataFrame or dict, optional
        The normative table (variable, percent, mean, sd; side-less names) or its curves (normative_curves): the grey
        bands.
    foot_off : dict, optional
        Side -> its foot off in percent of the stride (foot_off_percent): the vertical lines.

    Returns
    -------
    bytes
        PNG.
    """
    return _cycle_grid(cycles, KINETIC_PANELS, f"{title}: kinetics over the stride".strip(": "), ncols=3,
                       normative=normative, foot_off=foot_off)


def mechanics_figure(cycles: pd.DataFrame, title: str = "", foot_off=None) -> bytes:
    """Whole-body mass centre and lower-limb inertia forces/torques, mean +- SD.

    Parameters
    ----------
    cycles : pandas.DataFrame
        The cycles table (humanbody.gait.normalize_cycles): mean and SD of every variable per side and percent of the
        stride.
    title : str
        The figure's title (the trial's name); empty for none.
    foot_off : dict, optional
        Side -> its foot off in percent of the stride (foot_off_percent): the vertical lines.

    Returns
    -------
    bytes
        PNG.
    """
    return _cycle_grid(cycles, MECHANICS_PANELS, f"{title}: mass centre and inertia loads".strip(": "),
                       foot_off=foot_off)


def events_figure(points: pd.DataFrame, events: pd.DataFrame, feet=None, pelvis=None, title: str = "") -> bytes:
    """Heel and toe minus pelvis along the progression direction, with events.

    Foot strikes are marked with filled triangles (kinematic), circles
    (force) or squares (the trial file's own), foot offs with open ones.

    Parameters
    ----------
    points : pandas.DataFrame
        Marker (or model point) table, ground axes (m).
    events : pandas.DataFrame
        The events table (time s, side, event, source).
    feet : dict, optional
        Side -> its heel and toe marker names (default the gait module's).
    pelvis : sequence of str, optional
        The pelvis markers whose mean is the pelvis centre (default the gait module's).
    title : str
        The figure's title (the trial's name); empty for none.

    Returns
    -------
    bytes
        PNG.
    """
    fig = Figure(figsize=(8.4, 3.6))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.13, top=0.91)
    ax = fig.add_subplot(1, 1, 1)
    series, marks = event_traces(points, events, feet, pelvis)
    for label, colour, dashed, t, v in series:
        ax.plot(t, v, color=colour, linestyle="--" if dashed else "-", label=label)
    for t, v, colour, filled, source in marks:
        ax.plot([t], [v], marker={"kinematic": "v", "file": "s"}.get(source, "o"),
                markerfacecolor=colour if filled else "white",
                markeredgecolor=colour, markersize=7, linestyle="none")
    ax.set_xlabel("time (s)", fontsize=8)
    ax.set_ylabel("relative to pelvis, forward (m)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, frameon=False, ncol=2)
    square = ", square: file" if any(m[4] == "file" for m in marks) else ""
    ax.set_title(f"{title}: gait events (filled: foot strike, open: foot off; "
                 f"triangle: kinematic, circle: force{square})".strip(": "), fontsize=9)
    return _png(fig)


def map_figure(scores: dict, variables, labels, gps: dict, title: str = "") -> bytes:
    """Movement Analysis Profile as PNG: GVS per variable and side, and the GPS (deg).

    Parameters
    ----------
    scores : dict
        ``(side, variable)`` -> GVS (deg).
    variables : sequence of str
        The GPS variables (clinical angle columns without the side), in the figure's order.
    labels : sequence of str
        Their labels under the bars.
    gps : dict
        "overall", "right", "left" -> the Gait Profile Score (deg); a missing key draws no bar.
    title : str
        The figure's title (the trial's name); empty for none.

    Returns
    -------
    bytes
        PNG.
    """
    fig = Figure(figsize=(8.4, 2.9))
    fig.subplots_adjust(left=0.07, right=0.99, bottom=0.16, top=0.88)
    ax = fig.add_subplot(1, 1, 1)
    names = list(labels) + ["GPS"]
    x = np.arange(len(names), dtype=float)
    w = 0.28
    right = [scores.get(("right", v), np.nan) for v in variables] + [gps.get("right", np.nan)]
    left = [scores.get(("left", v), np.nan) for v in variables] + [gps.get("left", np.nan)]
    ax.bar(x - w, right, w, color=SIDE_COLOURS["right"], label="right")
    ax.bar(x, left, w, color=SIDE_COLOURS["left"], label="left")
    ax.bar([x[-1] + w], [gps.get("overall", np.nan)], w, color="#555", label="overall GPS")
    centres = x - w / 2
    centres[-1] = x[-1]  # the GPS group has three bars
    ax.set_xticks(centres)
    ax.set_xticklabels(names, fontsize=7)
    ax.set_ylabel("deg", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, frameon=False, ncol=3)
    ax.set_title(title, fontsize=9)
    return _png(fig)

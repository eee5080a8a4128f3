"""Report figures as PNG bytes (matplotlib, Agg canvas; no display needed).

* :func:`angles_figure` - the clinical joint angles (deg) over the stride:
  pelvis, hip, knee, ankle and foot progression, mean +- SD, both sides in
  one panel;
* :func:`mechanics_figure` - whole-body mass centre and lower-limb inertia
  forces and torques over the stride;
* :func:`events_figure` - heel and toe positions relative to the pelvis over
  time with the detected events.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

__all__ = ["angles_figure", "kinetics_figure", "mechanics_figure", "events_figure", "SIDE_COLOURS"]

SIDE_COLOURS = {"right": "#c0392b", "left": "#2471a3"}
_DPI = 90

#: (title, variable with {side}, scale, unit label): clinical angles, already in degrees
ANGLE_PANELS = [
    ("pelvis tilt (anterior +)", "pelvis_tilt_deg", 1.0, "deg"),
    ("pelvis obliquity (right side up +)", "pelvis_obliquity_deg", 1.0, "deg"),
    ("pelvis rotation (to the left +)", "pelvis_rotation_deg", 1.0, "deg"),
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


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=_DPI, metadata={"Software": None})
    return buf.getvalue()


def _cycle_grid(cycles: pd.DataFrame, panels, title: str, ncols: int = 2) -> bytes:
    nrows = int(np.ceil(len(panels) / ncols))
    fig = Figure(figsize=(4.2 * ncols, 2.5 * nrows))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.07, top=0.92, wspace=0.22, hspace=0.45)
    groups = {k: g for k, g in cycles.groupby(["side", "variable"], sort=False)} if len(cycles) else {}
    for i, (name, pattern, scale, unit) in enumerate(panels):
        ax = fig.add_subplot(nrows, ncols, i + 1)
        drawn = False
        for side, colour in SIDE_COLOURS.items():
            g = groups.get((side, pattern.format(side=side)))
            if g is None or not np.isfinite(g["mean"]).any():
                continue
            p = g["percent"].to_numpy()
            m = g["mean"].to_numpy() * scale
            s = np.nan_to_num(g["sd"].to_numpy() * scale)
            n = int(g["n_strides"].iloc[0])
            ax.fill_between(p, m - s, m + s, color=colour, alpha=0.2, linewidth=0)
            ax.plot(p, m, color=colour, label=f"{side} (n={n})")
            drawn = True
        ax.set_title(name, fontsize=9)
        ax.set_ylabel(unit, fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlim(0, 100)
        if i >= len(panels) - ncols:
            ax.set_xlabel("% stride", fontsize=8)
        if drawn:
            ax.legend(fontsize=7, frameon=False)
        else:
            ax.text(0.5, 0.5, "no complete stride", transform=ax.transAxes, ha="center", fontsize=8)
    fig.suptitle(title, fontsize=10)
    return _png(fig)


def angles_figure(cycles: pd.DataFrame, title: str = "") -> bytes:
    """Clinical joint angles (pelvis, hip, knee, ankle, foot progression), degrees, mean +- SD over strides.

    The pelvis panels show the pelvis over the right and over the left strides.
    """
    return _cycle_grid(cycles, ANGLE_PANELS, f"{title}: joint angles over the stride".strip(": "), ncols=3)


def kinetics_figure(cycles: pd.DataFrame, title: str = "") -> bytes:
    """Ground reactions, internal joint moments and joint powers per kg over the stride, mean +- SD."""
    return _cycle_grid(cycles, KINETIC_PANELS, f"{title}: kinetics over the stride".strip(": "), ncols=3)


def mechanics_figure(cycles: pd.DataFrame, title: str = "") -> bytes:
    """Whole-body mass centre and lower-limb inertia forces/torques, mean +- SD."""
    return _cycle_grid(cycles, MECHANICS_PANELS, f"{title}: mass centre and inertia loads".strip(": "))


def events_figure(points: pd.DataFrame, events: pd.DataFrame, feet=None, pelvis=None, title: str = "") -> bytes:
    """Heel and toe minus pelvis along the progression direction, with events.

    Foot strikes are marked with filled triangles (kinematic) or circles
    (force), foot offs with open ones.
    """
    from ..gait.events import _pelvis_centre, _xyz, foot_markers, pelvis_markers, progression_axes

    fig = Figure(figsize=(8.4, 3.6))
    fig.subplots_adjust(left=0.08, right=0.98, bottom=0.13, top=0.91)
    ax = fig.add_subplot(1, 1, 1)
    t = points["time"].to_numpy(dtype=float)
    pairs = foot_markers(points, feet)
    pel = _pelvis_centre(points, pelvis_markers(points, pelvis))
    forward, _ = progression_axes(points, pairs)
    for side, (heel, toe) in pairs.items():
        c = SIDE_COLOURS[side]
        h = (_xyz(points, heel) - pel) @ forward
        q = (_xyz(points, toe) - pel) @ forward
        ax.plot(t, h, color=c, label=f"{side} heel ({heel})")
        ax.plot(t, q, color=c, linestyle="--", label=f"{side} toe ({toe})")
        for _, e in events[events["side"] == side].iterrows():
            y = np.interp(e["time"], t, h if e["event"] == "foot_strike" else q)
            marker = "v" if e["source"] == "kinematic" else "o"
            face = c if e["event"] == "foot_strike" else "white"
            ax.plot([e["time"]], [y], marker=marker, markerfacecolor=face, markeredgecolor=c, markersize=7,
                    linestyle="none")
    ax.set_xlabel("time (s)", fontsize=8)
    ax.set_ylabel("relative to pelvis, forward (m)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.legend(fontsize=7, frameon=False, ncol=2)
    ax.set_title(f"{title}: gait events (filled: foot strike, open: foot off; "
                 "triangle: kinematic, circle: force)".strip(": "), fontsize=9)
    return _png(fig)

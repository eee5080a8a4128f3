"""A synthetic walking trial with exactly known events, for tests and examples.

The feet follow a piecewise motion relative to the pelvis: in stance the foot
slides backward at constant speed (it rides on the belt, or stands still on
the floor while the body passes over it); in swing it comes forward along a
half-cosine that starts and ends at rest.  So the heel is furthest ahead of
the pelvis exactly at foot strike and the toe furthest behind exactly at
foot off: the events of Zeni et al. (2008) are the true events.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["walking_markers", "walking_forces"]


def _foot_offset(t: np.ndarray, first_strike: float, stride: float, stance: float, reach: float):
    """Foot position along progression relative to the pelvis, and its height.

    Returns (x, z, in_stance) for times ``t``; strikes at ``first_strike + k * stride``.
    """
    phase = np.mod(t - first_strike, stride)
    ts = stance * stride
    in_stance = phase < ts
    u = np.clip((phase - ts) / (stride - ts), 0.0, 1.0)
    x = np.where(in_stance, reach - 2.0 * reach * phase / ts, -reach + reach * (1.0 - np.cos(np.pi * u)))
    z = np.where(in_stance, 0.0, 0.08 * np.sin(np.pi * u))
    return x, z, in_stance


def walking_markers(
    *,
    duration: float = 4.0,
    rate_hz: float = 100.0,
    stride_time: float = 1.1,
    stance: float = 0.62,
    stride_length: float = 1.3,
    step_width: float = 0.16,
    treadmill: bool = False,
    first_strike: float = 0.25,
    names: tuple = ("R.Heel", "R.Toe.Tip", "L.Heel", "L.Toe.Tip", "V.Sacral", "R.ASIS", "L.ASIS"),
) -> pd.DataFrame:
    """Marker table (ground axes, m) of steady walking with known events.

    Parameters
    ----------
    duration, rate_hz : float
        Trial length (s) and frame rate (Hz).
    stride_time : float
        Duration of a stride (s).
    stance : float
        Stance fraction of the stride (0.5 < stance < 1 gives double support).
    stride_length : float
        The distance covered per stride (m).
    step_width : float
        Lateral distance between the heels (m).
    treadmill : bool
        The pelvis stays in place and the belt moves at the walking speed.
    first_strike : float
        Time of the first right foot strike (s); the left strikes half a stride later.
    names : tuple of str
        Heel, toe (right), heel, toe (left), then pelvis markers.

    Returns
    -------
    pandas.DataFrame
        The marker layout (time, ``<name>_x/_y/_z`` in m); ``attrs["truth"]`` holds the true
        ``foot_strike``/``foot_off`` times per side and the speed (m/s).
    """
    t = np.arange(0.0, duration, 1.0 / rate_hz)
    speed = stride_length / stride_time
    reach = 0.5 * speed * stance * stride_time  # stance slide = speed x stance time
    pelvis_x = np.zeros_like(t) if treadmill else speed * t
    cols = {"time": t}
    truth, stances = {}, {}
    r_heel, r_toe, l_heel, l_toe, *pelvis = names
    for side, heel, toe, start, y in (
        ("right", r_heel, r_toe, first_strike, -0.5 * step_width),
        ("left", l_heel, l_toe, first_strike + 0.5 * stride_time, 0.5 * step_width),
    ):
        x, z, _ = _foot_offset(t, start, stride_time, stance, reach)
        for name, dx, dz in ((heel, -0.05, 0.06), (toe, 0.17, 0.03)):
            cols[f"{name}_x"] = pelvis_x + x + dx
            cols[f"{name}_y"] = np.full_like(t, y)
            cols[f"{name}_z"] = z + dz
        k = np.arange(-3, int(duration / stride_time) + 3)
        strikes = start + k * stride_time
        offs = strikes + stance * stride_time
        stances[side] = list(zip(strikes.tolist(), offs.tolist(), strict=True))
        truth[side] = {
            "foot_strike": strikes[(strikes > t[0]) & (strikes < t[-1])],
            "foot_off": offs[(offs > t[0]) & (offs < t[-1])],
        }
    for name, dy, dx in zip(pelvis, (0.0, -0.12, 0.12), (-0.1, 0.05, 0.05), strict=True):
        cols[f"{name}_x"] = pelvis_x + dx
        cols[f"{name}_y"] = np.full_like(t, dy)
        cols[f"{name}_z"] = np.full_like(t, 1.0)
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="synthetic walk", rate_hz=float(rate_hz),
                    markers=list(names), truth=truth, stances=stances, speed=speed)
    return df


def walking_forces(markers: pd.DataFrame, *, rate_hz: float = 1000.0, weight: float = 700.0) -> pd.DataFrame:
    """Vertical ground reaction forces of :func:`walking_markers` (OpenSim GRF layout).

    Each stance carries a half-sine of peak ``weight`` (N) in ``ground_force_vy``
    (right foot) and ``1_ground_force_vy`` (left foot), lab Y up.

    Parameters
    ----------
    markers : pandas.DataFrame
        :func:`walking_markers`' table.
    rate_hz : float, Hz
        The force samples' rate.
    weight : float, N
        The half-sines' peak.

    Returns
    -------
    pandas.DataFrame
        time (s) and per foot the force columns vx, vy, vz (N) of OpenSim's ground-reaction layout (prefixes
        "ground_force_" right, "1_ground_force_" left), lab Y up.
    """
    stances = markers.attrs["stances"]
    t0, t1 = float(markers["time"].iloc[0]), float(markers["time"].iloc[-1])
    t = np.arange(t0, t1, 1.0 / rate_hz)
    cols = {"time": t}
    for side, prefix in (("right", "ground_force_"), ("left", "1_ground_force_")):
        f = np.zeros_like(t)
        for strike, off in stances[side]:
            sel = (t >= strike) & (t <= off)
            f[sel] = weight * np.sin(np.pi * (t[sel] - strike) / (off - strike))
        cols[f"{prefix}vx"] = np.zeros_like(t)
        cols[f"{prefix}vy"] = f
        cols[f"{prefix}vz"] = np.zeros_like(t)
    df = pd.DataFrame(cols)
    df.attrs.update(kind="forces", source="synthetic forces", rate_hz=float(rate_hz))
    return df

"""Recorded markers, tracking residuals and force-plate data on the results' time base.

The viewer shows one frame of :func:`humanbody.compute`'s results at a time;
whatever else it draws (marker trajectories, residuals per marker, ground
reactions) is brought onto the same time instants here, by linear
interpolation, NaN outside the recorded span.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from ..lab.layout import table_markers

__all__ = ["resample", "markers_on_time_base", "residuals_on_time_base", "grf_on_time_base"]


def resample(t_src: np.ndarray, values: np.ndarray, t_dst: np.ndarray) -> np.ndarray:
    """Linear interpolation of ``values`` (F_src, ...) at times ``t_dst``; NaN outside.

    Parameters
    ----------
    t_src : ndarray, shape (F_src,), s
        The values' times, increasing.
    values : ndarray, shape (F_src, ...)
        The values (any unit).
    t_dst : ndarray, shape (F,), s
        The times wanted.

    Returns
    -------
    ndarray, shape (F, ...)
        The values at t_dst, in their unit; NaN outside t_src's span.
    """
    if values.shape[0] == t_dst.shape[0] and np.allclose(t_src, t_dst):
        return values
    flat = values.reshape(values.shape[0], -1)
    out = np.full((t_dst.shape[0], flat.shape[1]), np.nan)
    inside = (t_dst >= t_src[0] - 1e-9) & (t_dst <= t_src[-1] + 1e-9)
    for j in range(flat.shape[1]):
        ok = np.isfinite(flat[:, j])
        if ok.sum() >= 2:
            out[inside, j] = np.interp(t_dst[inside], t_src[ok], flat[ok, j])
    return out.reshape((t_dst.shape[0],) + values.shape[1:])


def markers_on_time_base(markers: pd.DataFrame | None, time: np.ndarray):
    """Marker positions (F, m, 3), m, at ``time`` and their names; ``(None, ())`` when there are none.

    A table without a ``time`` column must have one row per instant of ``time``.

    Parameters
    ----------
    markers : pandas.DataFrame or None
        A marker table (m, ground axes), or None.
    time : ndarray, shape (F,), s
        The viewer's times.

    Returns
    -------
    points : ndarray, shape (F, m, 3), or None
        The markers' positions at time (m, ground axes).
    names : tuple of str
        The markers' names, in points' order.
    """
    if markers is None:
        return None, ()
    names = table_markers(markers)
    if not names:
        return None, ()
    xyz = np.stack(
        [markers[[f"{m}_x", f"{m}_y", f"{m}_z"]].to_numpy(dtype=float) for m in names], axis=1
    )
    if "time" in markers.columns:
        xyz = resample(markers["time"].to_numpy(dtype=float), xyz, time)
    elif xyz.shape[0] != time.shape[0]:
        return None, ()
    return xyz, tuple(names)


def residuals_on_time_base(residuals: pd.DataFrame, names, segment_of: dict, time: np.ndarray):
    """Tracking residual (F, m), m, of each marker in ``names`` at ``time``, or None when none is known.

    A marker takes its own column of ``residuals`` when there is one, else the
    column of its segment (``segment_of``: marker -> segment name).

    Parameters
    ----------
    residuals : pandas.DataFrame
        ``time`` and one column per marker or segment (m).
    names : sequence of str
        The markers, in the viewer's order.
    segment_of : dict of str to str
        Marker -> the segment it is fitted to.
    time : ndarray, shape (F,), s
        The viewer's times.

    Returns
    -------
    ndarray, shape (F, m), or None
        The residual of each marker (m), NaN where unknown; None when no marker has one.
    """
    res = residuals
    t_src = res["time"].to_numpy(dtype=float) if "time" in res.columns else None
    cols = {}
    for m in names:
        if m in res.columns:
            cols[m] = res[m]
        elif segment_of.get(m) in res.columns:
            cols[m] = res[segment_of[m]]
    if not cols:
        return None
    table = np.column_stack(
        [np.asarray(cols[m], dtype=float) if m in cols else np.full(len(res), np.nan) for m in names]
    )
    if t_src is not None:
        table = resample(t_src, table, time)
    elif table.shape[0] != time.shape[0]:
        return None
    return table


def grf_on_time_base(grf, time: np.ndarray):
    """Ground reaction force (F, p, 3), N, and centre of pressure (F, p, 3), m, per plate at ``time``.

    ``grf`` is a :class:`~humanbody.io.loads.LoadTable` (ground axes); ``(None, None)`` when there is
    none or it has no plate.

    Parameters
    ----------
    grf : LoadTable or None
        The measured loads, ground axes.
    time : ndarray, shape (F,), s
        The viewer's times.

    Returns
    -------
    force : ndarray, shape (F, p, 3), or None
        Each plate's ground reaction force (N), ground axes.
    cop : ndarray, shape (F, p, 3), or None
        Each plate's centre of pressure (m), ground axes.
    """
    if grf is None or np.shape(grf.force)[1] == 0:
        return None, None
    t_src = np.asarray(grf.time, dtype=float)
    return resample(t_src, np.asarray(grf.force, dtype=float), time), resample(t_src, np.asarray(grf.point, dtype=float), time)

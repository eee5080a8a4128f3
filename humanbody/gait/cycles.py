"""Stride-normalised curves: 0-100 % of the stride, mean and SD over strides.

Each stride of one side (foot strike to the next strike of the same foot) is
resampled at 101 points, 0, 1, ..., 100 % of its duration, by linear
interpolation in time (the usual time normalisation of gait curves; Winter,
*Biomechanics and Motor Control of Human Movement*, 4th ed. 2009, sec. 1.4).
Strides with a missing sample in a variable are left out of that variable's
statistics.  The long output table has one row per (side, variable,
percent): ``side``, ``variable``, ``unit``, ``percent``, ``mean``, ``sd``
(sample SD, ddof = 1; NaN for a single stride), ``n_strides``.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np
import pandas as pd

from .events import SIDES, events_of

__all__ = ["CYCLE_COLUMNS", "PERCENT", "stride_curves", "normalize_cycles", "normalized_curves", "unit_of", "default_variables",
           "curve_index", "clinical_variables", "stride_table"]

CYCLE_COLUMNS = ["side", "variable", "unit", "percent", "mean", "sd", "n_strides"]
PERCENT = np.linspace(0.0, 100.0, 101)

# unit of a column from its name (docs/conventions.md coordinates and results layouts)
_UNITS = [
    (re.compile(r"_(alpha|beta|gamma)$"), "rad"),
    (re.compile(r"_(alpha|beta|gamma)_dot$"), "rad/s"),
    (re.compile(r"_(alpha|beta|gamma)_ddot$"), "rad/s^2"),
    (re.compile(r"_omega(_rel)?_[xyz]$"), "rad/s"),
    (re.compile(r"_alpha_[xyz]$"), "rad/s^2"),
    (re.compile(r"_com_vel_[xyz]$"), "m/s"),
    (re.compile(r"_com_acc_[xyz]$"), "m/s^2"),
    (re.compile(r"_(com|joint)_[xyz]$"), "m"),
    (re.compile(r"^lower_torso_[xyz]$"), "m"),
    (re.compile(r"_force_[xyz]$"), "N"),
    (re.compile(r"_torque_[xyz]$"), "N m"),
    (re.compile(r"_inertia_(xx|yy|zz|xy|xz|yz)$"), "kg m^2"),
    (re.compile(r"_deg$"), "deg"),
    (re.compile(r"_Nm_per_kg$"), "N m/kg"),
    (re.compile(r"_W_per_kg$"), "W/kg"),
    (re.compile(r"_N_per_kg$"), "N/kg"),
    (re.compile(r"_joint_power$"), "W"),
]


@lru_cache(maxsize=4096)  # a study's tables share their columns
def unit_of(column: str) -> str:
    """SI unit of a coordinates/results column from its name ("" when unknown).

    Parameters
    ----------
    column : str
        A column name (e.g. "right_knee_flexion_deg", "lower_torso_x").

    Returns
    -------
    str
        Its unit ("m", "rad", "deg", "N m/kg", ...), or "" when unknown.
    """
    for pattern, unit in _UNITS:
        if pattern.search(column):
            return unit
    return ""


def default_variables(columns) -> list[str]:
    """Columns normalised by default: clinical joint angles (degrees), clinical
    moments and powers and ground reactions per kg, the model's joint angles,
    relative angular velocities, whole-body mass centre (position, velocity,
    acceleration), inertia forces and torques.

    Parameters
    ----------
    columns : iterable of str
        The table's columns.

    Returns
    -------
    list of str
        In the order of ``columns``.
    """
    return list(_default_variables(tuple(map(str, _as_list(columns)))))


def _as_list(columns) -> list:
    """``columns`` as a list (a pandas Index by its ``tolist``: iterating an Index of Arrow text costs a
    microsecond a name)."""
    return columns.tolist() if hasattr(columns, "tolist") else list(columns)


@lru_cache(maxsize=16)
def _default_variables(columns: tuple) -> tuple:
    """:func:`default_variables` of a tuple of names, kept for the next table of the same columns."""
    keep = re.compile(
        r"(_deg$)|(_per_kg$)|(_(alpha|beta|gamma)$)|(_omega_rel_[xyz]$)|(^body_com(_vel|_acc)?_[xyz]$)"
        r"|(_force_[xyz]$)|(_torque_[xyz]$)"
    )
    skip = re.compile(r"_joint_(force|moment)_[xyz]$")  # ground components of the joint loads: in the results
    return tuple(c for c in columns if keep.search(c) and not skip.search(c) and c != "time")


def stride_curves(time, values, strikes, points: int = 101) -> np.ndarray:
    """Resample every stride to ``points`` samples from 0 to 100 %.

    Parameters
    ----------
    time : ndarray, shape (F,), s
        The frames' times, increasing.
    values : ndarray, shape (F,) or (F, V)
        The V variables per frame (any units; returned in the same).
    strikes : ndarray, shape (S,), s
        Successive foot strikes of one foot.
    points : int
        Samples per stride, evenly spread from 0 to 100 % (101: every 1 %).

    Returns
    -------
    ndarray, shape (S - 1, points, V)
        Stride i spans ``strikes[i]`` to ``strikes[i + 1]``; strides not inside ``time`` are NaN, and so is a
        variable of a stride with a missing sample between the frames that bracket the stride.

    Notes
    -----
    Each sample is the linear interpolation between the frames ``j`` and
    ``j + 1`` around its time ``tq``, evaluated as :func:`numpy.interp` does,
    ``y_j + (tq - t_j) (y_{j+1} - y_j) / (t_{j+1} - t_j)`` (the same
    floating-point operations, so the same numbers), for every stride and
    variable at once.
    """
    t = np.asarray(time, dtype=float)
    y = np.asarray(values, dtype=float)
    y = y[:, None] if y.ndim == 1 else y
    s = np.sort(np.asarray(strikes, dtype=float))
    frac = np.linspace(0.0, 1.0, points)
    out = np.full((max(len(s) - 1, 0), points, y.shape[1]), np.nan)
    if len(s) < 2 or len(t) == 0:
        return out
    a, b = s[:-1], s[1:]
    inside = np.flatnonzero((a >= t[0]) & (b <= t[-1]))
    if inside.size == 0:
        return out
    a, b = a[inside], b[inside]
    # the frames that bracket each stride: a stride's variable needs all of them finite
    j0 = np.maximum(np.searchsorted(t, a) - 1, 0)
    j1 = np.minimum(np.searchsorted(t, b) + 1, len(t))
    missing = np.concatenate([np.zeros((1, y.shape[1]), dtype=np.int64),
                              np.cumsum(~np.isfinite(y), axis=0, dtype=np.int64)])
    usable = (missing[j1] - missing[j0]) == 0  # (strides, V)
    tq = a[:, None] + frac[None, :] * (b - a)[:, None]  # (strides, points)
    n = len(t)
    if n == 1:
        res = np.broadcast_to(y[0], tq.shape + (y.shape[1],)).copy()
    else:
        j = np.clip(np.searchsorted(t, tq, side="right") - 1, 0, n - 2)
        t0, t1 = t[j][..., None], t[j + 1][..., None]
        y0, y1 = y[j], y[j + 1]
        slope = (y1 - y0) / (t1 - t0)
        x = tq[..., None]
        with np.errstate(invalid="ignore", over="ignore"):
            res = slope * (x - t0) + y0
            retry = np.isnan(res)
            if retry.any():  # numpy.interp's second try, from the right-hand frame
                res = np.where(retry, slope * (x - t1) + y1, res)
                res = np.where(retry & np.isnan(res) & (y0 == y1), y0, res)
        at_node = (x == t0) | (x >= t[-1])  # on a frame (or the last one): its value
        res = np.where(at_node, np.where(x >= t[-1], y[-1][None, None, :], y0), res)
    res = np.where(usable[:, None, :], res, np.nan)
    out[inside] = res
    return out


def normalize_cycles(table: pd.DataFrame, events: pd.DataFrame, variables=None,
                     points: int = 101) -> pd.DataFrame:
    """Mean and SD over strides of each variable, per side, at 0..100 % stride (:func:`normalized_curves`'
    table).

    Parameters
    ----------
    table, events, variables, points
        As :func:`normalized_curves`.

    Returns
    -------
    DataFrame
        The cycles table (:data:`CYCLE_COLUMNS`).
    """
    return normalized_curves(table, events, variables, points)[0]


def normalized_curves(table: pd.DataFrame, events: pd.DataFrame, variables=None,
                      points: int = 101) -> tuple[pd.DataFrame, dict]:
    """Mean and SD over strides of each variable, per side, at 0..100 % stride, with the rows of each curve.

    Parameters
    ----------
    table : DataFrame
        Per-frame table with a ``time`` column (s): a coordinates or results
        table (docs/conventions.md) or both joined.
    events : DataFrame
        Events table; its foot strikes delimit the strides.
    variables : list of str, optional
        Columns to normalise (default :func:`default_variables`).
    points : int
        Samples per stride (101: every 1 %).

    Returns
    -------
    cycles : DataFrame
        :data:`CYCLE_COLUMNS`, sorted by side, variable order, percent.  Units
        are those of the table (angles in rad).
    curves : dict
        ``(side, variable)`` -> the rows of its curve (:func:`curve_index`'s
        layout, known here without a search): give it to the functions that
        look curves up (``curves=``).
    """
    variables = default_variables(table.columns) if variables is None else list(variables)
    t = table["time"].to_numpy(dtype=float)
    values = table[variables].to_numpy(dtype=float) if variables else np.empty((len(t), 0))
    pct = np.linspace(0.0, 100.0, points)
    units = [unit_of(v) for v in variables]
    nv = len(variables)
    sides, means, sds, counts = [], [], [], []
    for side in SIDES:
        curves = stride_curves(t, values, events_of(events, side, "foot_strike"), points)
        if curves.shape[0] == 0 or not variables:
            continue
        ok = np.isfinite(curves).all(axis=1)  # (S, V): stride usable for variable
        n = ok.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            c = np.where(ok[:, None, :], curves, np.nan)
            mean = np.nansum(np.nan_to_num(c), axis=0) / np.where(n > 0, n, np.nan)
            dev = np.where(ok[:, None, :], c - mean[None], 0.0)
            sd = np.sqrt((dev**2).sum(axis=0) / np.where(n > 1, n - 1, np.nan))
        sides.append(side)
        means.append(mean.T.reshape(-1))
        sds.append(sd.T.reshape(-1))
        counts.append(np.repeat(n, points).astype(int))
    if not sides:
        return pd.DataFrame({c: pd.Series(dtype=d) for c, d in
                             zip(CYCLE_COLUMNS, (object, object, object, float, float, float, int), strict=True)}), {}
    rows = nv * points  # rows of one side: each variable's curve, one run of ``points`` rows
    label = np.repeat(np.arange(nv), points)
    out = pd.DataFrame({
        "side": _labels(SIDES, np.repeat([SIDES.index(s) for s in sides], rows)),
        "variable": _labels(variables, np.tile(label, len(sides))),
        "unit": _labels(units, np.tile(label, len(sides))),
        "percent": np.tile(pct, nv * len(sides)),
        "mean": np.concatenate(means),
        "sd": np.concatenate(sds),
        "n_strides": np.concatenate(counts),
    })
    if len(set(variables)) != nv:  # a variable named twice: its rows are found by a search
        return out, curve_index(out)
    return out, {(side, v): np.arange(k * rows + i * points, k * rows + (i + 1) * points)
                 for k, side in enumerate(sides) for i, v in enumerate(variables)}


def _labels(words, index: np.ndarray):
    """A text column ``words[index]``, as pandas stores text (built by Arrow from the few distinct
    words: ten times faster than from a Python string per row)."""
    dtype = pd.StringDtype(na_value=np.nan)
    if dtype.storage == "pyarrow":
        import pyarrow as pa

        return pd.array(pa.array(list(words), type=pa.large_string()).take(pa.array(index)), dtype=dtype)
    return np.array(list(words), dtype=object)[index]


def curve_index(cycles: pd.DataFrame) -> dict:
    """Rows of every curve of a cycles table: ``{(side, variable): row indices}``.

    The labels are factorized once (no comparison of strings per row) and the
    rows grouped by a stable sort, so the rows of a curve keep their order
    (a curve split over several runs is joined).  :func:`normalized_curves`
    gives it with the table, without a search; the summary peaks, the Gait
    Profile Score and the figures take it (``curves=``) or compute it once.

    Parameters
    ----------
    cycles : DataFrame
        A cycles table (:func:`normalize_cycles`): ``side`` and ``variable`` columns.

    Returns
    -------
    dict
        ``(side, variable)`` -> int64 row positions, in the table's order.
    """
    if not len(cycles):
        return {}
    side, sides = pd.factorize(cycles["side"], use_na_sentinel=False)
    var, variables = pd.factorize(cycles["variable"], use_na_sentinel=False)
    key = side.astype(np.int64) * len(variables) + var
    order = np.argsort(key, kind="stable")
    sorted_key = key[order]
    cuts = np.flatnonzero(np.diff(sorted_key)) + 1
    starts = np.concatenate([[0], cuts]).tolist()
    stops = np.append(cuts, len(order)).tolist()
    sides, variables = list(sides), list(variables)
    return {(sides[k // len(variables)], variables[k % len(variables)]): order[a:b]
            for k, a, b in zip(sorted_key[starts].tolist(), starts, stops, strict=True)}


#: Clinical curves: joint angles (deg), internal joint moments (N m/kg) and joint powers (W/kg).
CLINICAL_CURVE = re.compile(r"(_deg|_moment_Nm_per_kg|_power_W_per_kg)$")


def clinical_variables(columns) -> list[str]:
    """The clinical angle, moment and power columns among ``columns`` (names ending in
    ``_deg``, ``_moment_Nm_per_kg`` or ``_power_W_per_kg``), in their order.

    Parameters
    ----------
    columns : iterable of str
        A table's column names.

    Returns
    -------
    list of str
        Those columns, in the order given.
    """
    return list(_clinical_variables(tuple(map(str, _as_list(columns)))))


@lru_cache(maxsize=16)
def _clinical_variables(columns: tuple) -> tuple:
    """:func:`clinical_variables` of a tuple of names, kept for the next table of the same columns."""
    return tuple(c for c in columns if CLINICAL_CURVE.search(c))


def stride_table(table: pd.DataFrame, events: pd.DataFrame, variables=None, points: int = 101) -> pd.DataFrame:
    """Every stride's curve, one row per (side, stride, percent), one column per variable.

    Parameters
    ----------
    table : DataFrame
        Per-frame table with a ``time`` column (s).
    events : DataFrame
        Events table; its foot strikes delimit the strides.
    variables : list of str, optional
        Columns to resample (default :func:`clinical_variables`).
    points : int
        Samples per stride (101: every 1 %).

    Returns
    -------
    pandas.DataFrame
        Columns ``side``, ``stride`` (0, 1, ... per side), ``percent`` and the variables (NaN where a stride has a
        missing sample): the per-stride curves behind :func:`normalize_cycles`' mean and SD.
    """
    variables = clinical_variables(table.columns) if variables is None else list(variables)
    t = table["time"].to_numpy(dtype=float)
    values = table[variables].to_numpy(dtype=float) if variables else np.empty((len(t), 0))
    pct = np.linspace(0.0, 100.0, points)
    sides, strides, blocks = [], [], []
    for k, side in enumerate(SIDES):
        curves = stride_curves(t, values, events_of(events, side, "foot_strike"), points)  # (S, P, V)
        n = curves.shape[0]
        if n == 0:
            continue
        sides.append(np.full(n * points, k))
        strides.append(np.repeat(np.arange(n), points))
        blocks.append(curves.reshape(n * points, len(variables)))
    if not blocks:
        return pd.DataFrame(columns=["side", "stride", "percent", *variables])
    body = np.concatenate(blocks)
    columns = {"side": _labels(SIDES, np.concatenate(sides)), "stride": np.concatenate(strides),
               "percent": np.tile(pct, len(body) // points)}
    if len(set(variables)) != len(variables) or set(variables) & set(columns):  # names a dict cannot hold
        out = pd.DataFrame(body, columns=variables)
        for name in ("percent", "stride", "side"):
            out.insert(0, name, columns[name])
        return out
    columns.update({v: body[:, j] for j, v in enumerate(variables)})
    return pd.DataFrame(columns)

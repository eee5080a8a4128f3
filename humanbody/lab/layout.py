"""Marker DataFrames <-> position arrays, shared by the conditioning steps and the axis detection.

A marker DataFrame (COMMON layout) holds ``time`` in seconds, then
``<name>_x``, ``<name>_y``, ``<name>_z`` in metres; the position array is
(frames, markers, 3) with NaN for a missing sample.
"""

from __future__ import annotations

import copy

import numpy as np
import pandas as pd

from .._kernels.marker_layout import copy_positions
from ..errors import InputError


def table_markers(df: pd.DataFrame) -> list[str]:
    """Marker names of a marker DataFrame, in column order.

    ``df.attrs["markers"]`` is used when every listed name has its three
    columns; otherwise the names are every ``<name>`` with ``<name>_x``,
    ``<name>_y`` and ``<name>_z`` columns.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table (``time``, ``<name>_x/_y/_z``).

    Returns
    -------
    list of str
        The names.
    """
    cols = set(map(str, df.columns.tolist()))  # a list first: pandas iterates Arrow text slowly
    listed = df.attrs.get("markers")
    if listed and all(f"{n}_{a}" in cols for n in listed for a in "xyz"):
        return [str(n) for n in listed]
    names = [c[:-2] for c in map(str, df.columns.tolist()) if c.endswith("_x")]
    return [n for n in names if f"{n}_y" in cols and f"{n}_z" in cols]


def table_positions(df: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Marker positions of a table as one array, missing samples NaN.

    A sample is missing when any coordinate is NaN or all three are exactly 0.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table (m).
    names : list of str
        The markers to take, in this order (each with its three columns).

    Returns
    -------
    (frames, markers, 3) float64 ndarray
        A new array (m), NaN where a sample is missing.
    """
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if plain_layout(df, cols):  # one float block: copy it out in parallel, missing samples marked

        P = np.empty((len(df), len(names), 3))
        copy_positions(df.to_numpy(copy=False)[:, 1:], P)
        return P
    try:
        P = df[cols].to_numpy(dtype=float).reshape(len(df), len(names), 3)
    except (TypeError, ValueError) as exc:
        raise InputError(f"marker columns are not numeric ({exc})", df.attrs.get("source")) from None
    P = P.copy()
    missing = np.isnan(P).any(axis=2) | (P == 0.0).all(axis=2)
    P[missing] = np.nan
    return P


def output_positions(df: pd.DataFrame, names: list[str]) -> tuple[np.ndarray | None, np.ndarray]:
    """The positions (missing -> NaN) already placed in the table of the output DataFrame.

    For a plain table (``time`` then the marker columns, float64) the new
    table is made here with its time column filled, and ``P`` is a view of
    its marker columns, so conditioning works where the result will live:
    one copy of a long trial fewer.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table (m).
    names : list of str
        Its markers (:func:`table_markers`).

    Returns
    -------
    table : (frames, 1 + 3 markers) ndarray or None
        The output table (None when ``df`` is not plain).
    P : (frames, markers, 3) ndarray
        The positions (m, NaN where missing): a view of ``table`` when it is
        given, else :func:`table_positions`.
    """
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if not plain_layout(df, cols):
        return None, table_positions(df, names)

    values = df.to_numpy(copy=False)
    table = np.empty(values.shape)
    table[:, 0] = values[:, 0]
    P = table[:, 1:].reshape(len(df), len(names), 3)
    copy_positions(values[:, 1:], P)
    return table, P


def with_positions(df: pd.DataFrame, names: list[str], P: np.ndarray) -> pd.DataFrame:
    """Copy of ``df`` with the marker columns replaced by ``P`` (attrs deep-copied).

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table.
    names : list of str
        The markers of ``P``, in its order.
    P : (frames, markers, 3) ndarray
        The new positions (m).

    Returns
    -------
    pandas.DataFrame
        The new table.
    """
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if plain_layout(df, cols):  # build the one float block directly
        table = np.empty((len(df), 1 + len(cols)))
        table[:, 0] = df["time"].to_numpy()
        table[:, 1:] = P.reshape(len(df), -1)
        out = pd.DataFrame(table, columns=df.columns, index=df.index, copy=False)
    else:
        out = df.copy()
        out[cols] = P.reshape(len(df), -1)
    out.attrs = copy.deepcopy(df.attrs)
    return out


def plain_layout(df: pd.DataFrame, cols: list[str]) -> bool:
    """Whether ``df`` is exactly ``time`` then ``cols``, all float64 (what the readers make).

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table.
    cols : list of str
        The marker columns expected after ``time``.

    Returns
    -------
    bool
        True when it is.
    """
    return (df.shape[1] == len(cols) + 1 and df.columns[0] == "time" and list(df.columns[1:]) == cols
            and all(dt == np.float64 for dt in df.dtypes))


def table_time(df: pd.DataFrame) -> np.ndarray:
    """The times of a marker table (s): its ``time`` column, else frame / ``attrs["rate_hz"]``.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table.

    Returns
    -------
    ndarray, shape (frames,), s
        The frames' times.

    Raises
    ------
    InputError
        With neither a time column nor a rate.
    """
    if "time" in df.columns:
        return df["time"].to_numpy(dtype=float)
    rate = df.attrs.get("rate_hz")
    if not rate:
        raise InputError("marker table has neither a time column nor attrs['rate_hz']", df.attrs.get("source"))
    return np.arange(len(df)) / float(rate)


def table_rate(df: pd.DataFrame) -> float:
    """Sampling rate in Hz: ``attrs["rate_hz"]``, else from the median time step.

    The filter and the gap durations assume uniform sampling: times rounded
    in the file (e.g. to 1 ms) pass, dropped frames do not.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table.

    Returns
    -------
    float
        Hz.

    Raises
    ------
    InputError
        When the times do not increase, stray from a uniform grid by more than
        a quarter step, or are fewer than two without a rate.
    """
    src = df.attrs.get("source")
    t = table_time(df)
    if len(t) >= 3:
        dt = np.diff(t)
        if not np.all(np.isfinite(dt)) or np.any(dt <= 0):
            raise InputError("time column is not increasing", src)
        h = (t[-1] - t[0]) / (len(t) - 1)
        if np.max(np.abs(t - t[0] - h * np.arange(len(t)))) > 0.25 * h:
            raise InputError("time steps are not uniform; resample the trial before conditioning", src)
    rate = df.attrs.get("rate_hz")
    if rate:
        return float(rate)
    if len(t) < 2:
        raise InputError("cannot tell the sampling rate of a trial with fewer than 2 frames", src)
    return 1.0 / float(np.median(np.diff(t)))

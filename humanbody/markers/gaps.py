"""Gaps of marker trajectories: finding them and filling them.

A marker is missing at a frame when any of its coordinates is NaN or it sits
exactly at (0, 0, 0).  Gaps are filled by a cubic spline or a straight line
in time, or by the rigid motion of the other markers of the segment
(Söderkvist & Wedin 1993).  docs/conditioning.md states the rules.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import interpolate

from ..errors import InputError
from ..lab.layout import table_markers, table_positions, table_rate, table_time, with_positions
from .rigid import horn_rotations

FILL_METHODS = ("spline", "linear", "rigid")
GAP_COLUMNS = ["marker", "start_frame", "end_frame", "start_time", "end_time", "length_frames"]
REPORT_COLUMNS = GAP_COLUMNS + ["filled", "method", "note"]


def true_runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index pairs of the True runs of a 1-D boolean array.

    Parameters
    ----------
    mask : ndarray of bool, shape (n,)
        The array.

    Returns
    -------
    list of (int, int)
        The first and last index (0-based, inclusive) of each run, in order.
    """
    m = np.concatenate([[False], np.asarray(mask, bool), [False]])
    d = np.diff(m.astype(np.int8))
    starts = np.nonzero(d == 1)[0]
    ends = np.nonzero(d == -1)[0] - 1
    return list(zip(starts.tolist(), ends.tolist(), strict=True))


def gap_rows(names: list[str], P: np.ndarray, t: np.ndarray) -> list[dict]:
    """One dict per NaN run of every marker of ``P`` (frames, markers, 3).

    Parameters
    ----------
    names : list of str
        The markers' names.
    P : ndarray, shape (F, M, 3)
        Marker positions (any length unit), NaN in the gaps.
    t : ndarray, shape (F,), s
        The frames' times.

    Returns
    -------
    list of dict
        Keys of :data:`GAP_COLUMNS` (frames 0-based and inclusive, times in s).
    """
    rows = []
    missing = np.isnan(P[:, :, 0]).T.copy()  # (markers, frames): one pass over P, then row by row
    for j, name in enumerate(names):
        for s, e in true_runs(missing[j]):
            rows.append({"marker": name, "start_frame": s, "end_frame": e,
                         "start_time": float(t[s]), "end_time": float(t[e]), "length_frames": e - s + 1})
    return rows


def find_gaps(df: pd.DataFrame) -> pd.DataFrame:
    """Runs of missing samples of every marker.

    Parameters
    ----------
    df : DataFrame
        Marker table (``time``, ``<name>_x/_y/_z`` in m).

    Returns
    -------
    DataFrame
        One row per gap with columns ``marker``, ``start_frame``,
        ``end_frame`` (0-based row indices, inclusive), ``start_time``,
        ``end_time`` (s, times of the first and last missing frame) and
        ``length_frames``.  A frame is missing when any coordinate is NaN or
        the marker is exactly at (0, 0, 0).
    """
    names = table_markers(df)
    return gap_table(gap_rows(names, table_positions(df, names), table_time(df)))


def gap_table(rows: list[dict]) -> pd.DataFrame:
    """The gap rows (:func:`gap_rows`) as a table with integer frame columns.

    Parameters
    ----------
    rows : list of dict
        The gap rows (gap_rows).

    Returns
    -------
    pandas.DataFrame
        Columns :data:`GAP_COLUMNS`.
    """
    return _records(rows, GAP_COLUMNS, {"start_frame": int, "end_frame": int, "length_frames": int})


def _records(rows: list[dict], columns: list[str], dtypes: dict) -> pd.DataFrame:
    """``pd.DataFrame(rows, columns=columns).astype(dtypes)``; without rows (a trial with no gap: the usual case),
    the same empty table made directly (pandas' inference and conversion cost 2 ms a table on nothing)."""
    if not rows:
        return pd.DataFrame({c: np.empty(0, dtype=dtypes.get(c, object)) for c in columns})
    return pd.DataFrame(rows, columns=columns).astype(dtypes)


# --------------------------------------------------------------------------- filling
def _spline_fill(x: np.ndarray, s: int, e: int, window: int) -> tuple[np.ndarray, str]:
    """Fill frames s..e of ``x`` (frames, 3) from the valid samples around the gap.

    A cubic spline (:class:`scipy.interpolate.CubicSpline`, not-a-knot ends)
    through the valid samples within ``window`` frames before and after the
    gap.  With fewer than two valid samples on a side the fill is linear.
    """
    n = len(x)
    idx = np.arange(max(0, s - window), min(n, e + 1 + window))
    ok = ~np.isnan(x[idx, 0])
    before = idx[(idx < s) & ok]
    after = idx[(idx > e) & ok]
    gap = np.arange(s, e + 1)
    if len(before) >= 2 and len(after) >= 2:
        k = np.concatenate([before, after])
        return interpolate.CubicSpline(k, x[k], axis=0)(gap), "spline"
    a, b = s - 1, e + 1
    w = ((gap - a) / (b - a))[:, None]
    return (1 - w) * x[a] + w * x[b], "linear"


def _rigid_transform(A: np.ndarray, B: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Least-squares rigid motion taking points ``A`` onto ``B``.

    Minimises ``sum_i |R a_i + d - b_i|^2`` over rotations R and vectors d
    (Söderkvist & Wedin 1993, J. Biomech. 26(12):1473-1477): with centroids
    a_bar, b_bar, R is Horn's rotation of ``H = (A - a_bar)^T (B - b_bar)``
    (:func:`humanbody.markers.rigid.horn_rotations`) and ``d = b_bar - R a_bar``.

    Parameters
    ----------
    A, B : ndarray, shape (n, 3), n >= 3
        The same points at the reference frame and at the target frame (m).

    Returns
    -------
    R : ndarray (3, 3), d : ndarray (3,)
    """
    a_bar, b_bar = A.mean(axis=0), B.mean(axis=0)
    R = horn_rotations(((A - a_bar).T @ (B - b_bar))[None])[0]
    return R, b_bar - R @ a_bar


def _well_spread(A: np.ndarray) -> bool:
    """True when points A (n, 3) are not (nearly) collinear: 2nd singular value > 1 mm."""
    if len(A) < 3:
        return False
    sv = np.linalg.svd(A - A.mean(axis=0), compute_uv=False)
    return sv[1] > 1e-3


def _rigid_fill(P: np.ndarray, j: int, others: list[int], s: int, e: int) -> np.ndarray:
    """Reconstruct marker ``j`` over frames s..e from a rigid cluster.

    For every missing frame f the other markers of the segment visible at f
    and at the anchor frame (the last frame before the gap, s - 1, and the
    first after it, e + 1) give a least-squares rigid motion from the anchor
    to f (:func:`_rigid_transform`), which carries the marker's anchor
    position to f.  With both anchors the two reconstructions are blended
    linearly in time, so the filled path joins both ends of the gap.

    Returns
    -------
    ndarray (e - s + 1, 3)
        NaN at frames where no anchor has >= 3 well-spread shared references.
    """
    n = P.shape[0]
    anchors = [a for a in (s - 1, e + 1) if 0 <= a < n and not np.isnan(P[a, j, 0])]
    out = np.full((e - s + 1, 3), np.nan)
    for i, f in enumerate(range(s, e + 1)):
        recon, weights = [], []
        for a in anchors:
            refs = [k for k in others if not np.isnan(P[f, k, 0]) and not np.isnan(P[a, k, 0])]
            if len(refs) < 3 or not _well_spread(P[a, refs]):
                continue
            R, d = _rigid_transform(P[a, refs], P[f, refs])
            recon.append(R @ P[a, j] + d)
            weights.append(1.0 / abs(f - a))
        if recon:
            w = np.asarray(weights) / np.sum(weights)
            out[i] = np.tensordot(w, np.asarray(recon), axes=1)
    return out


def _max_gap_frames(rate: float, max_gap: float | None, max_gap_frames: int | None, src) -> int:
    if max_gap_frames is not None:
        if int(max_gap_frames) != max_gap_frames or max_gap_frames < 0:
            raise InputError(f"max_gap_frames must be a non-negative integer, got {max_gap_frames!r}", src)
        return int(max_gap_frames)
    if max_gap is None or not np.isfinite(max_gap) or max_gap < 0:
        raise InputError(f"max_gap must be a non-negative number of seconds, got {max_gap!r}", src)
    return int(np.floor(max_gap * rate + 1e-9))


def fill_gaps(df: pd.DataFrame, max_gap: float = 0.1, max_gap_frames: int | None = None,
              method: str = "spline", segments: dict[str, list[str]] | None = None,
              ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Fill the gaps of every marker.

    Parameters
    ----------
    df : DataFrame
        Marker table (``time``, ``<name>_x/_y/_z`` in m, NaN = missing).
    max_gap : float
        Longest gap interpolated, in seconds: a gap of n missing frames at
        rate r lasts n / r s and is filled when n <= floor(max_gap * r).
    max_gap_frames : int, optional
        The same limit in frames; overrides ``max_gap``.
    method : {"spline", "linear", "rigid"}
        ``"spline"``: cubic spline through the valid samples within
        max(10, n) frames on each side of the gap (linear when fewer than two
        valid samples exist on a side).  ``"linear"``: straight line between
        the samples bounding the gap.  ``"rigid"``: first reconstruct every
        marker of ``segments`` that has at least three other visible markers
        on its segment by the least-squares rigid motion of that cluster
        (Söderkvist & Wedin 1993, fitted at the last frame before and the
        first frame after the gap, any gap length, also at the trial's ends);
        what it cannot fill is then spline-filled under ``max_gap``.
    segments : dict str -> list of str, optional
        Segment name -> marker names on that segment; required by "rigid".

    Returns
    -------
    filled : DataFrame
        Copy of ``df`` with gaps filled (attrs kept, a line appended to
        ``attrs["conditioning"]``).
    report : DataFrame
        One row per gap handled: the :func:`find_gaps` columns plus
        ``filled`` (bool), ``method`` ("spline", "linear", "rigid" or "") and
        ``note`` (why a gap stays missing).  Gaps touching the first or last
        frame are never interpolated (no extrapolation in time) and gaps
        longer than the limit stay NaN; both are listed with filled False.
    """
    src = df.attrs.get("source")
    rate = table_rate(df)
    names = table_markers(df)
    P = table_positions(df, names)
    rows, limit = fill_array(P, names, table_time(df), rate, max_gap, max_gap_frames, method, segments, src)
    report = fill_report(rows)
    out = with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).append(fill_line(report, method, limit, rate))
    return out, report


def fill_report(rows: list[dict]) -> pd.DataFrame:
    """The filling's rows as a table: :data:`REPORT_COLUMNS`, frame columns int, ``filled`` bool.

    Parameters
    ----------
    rows : list of dict
        The filling's rows (keys of REPORT_COLUMNS).

    Returns
    -------
    pandas.DataFrame
        One row per gap: marker, frames, times (s), length and whether it was filled.
    """
    return _records(rows, REPORT_COLUMNS, {"start_frame": int, "end_frame": int, "length_frames": int, "filled": bool})


def fill_line(report: pd.DataFrame, method: str, limit: int, rate: float) -> str:
    """One log line: how many gaps (and frames) were filled, by which method, under which limit.

    Parameters
    ----------
    report : pandas.DataFrame
        :func:`fill_report`'s table.
    method : str
        The filling method (one of FILL_METHODS).
    limit : int
        The longest gap filled (frames).
    rate : float, Hz
        The frame rate, to give the limit in seconds.

    Returns
    -------
    str
        The line.
    """
    done = report[report["filled"]]
    return (f"filled {len(done)} gaps ({int(done['length_frames'].sum())} frames) by {method}, "
            f"limit {limit} frames ({limit / rate:.3g} s)")


def fill_array(P, names, t, rate, max_gap, max_gap_frames, method, segments, src) -> tuple[list[dict], int]:
    """:func:`fill_gaps` on the positions ``P`` (frames, markers, 3), in place.

    Returns the report rows (sorted by marker, then start frame) and the gap
    limit in frames.

    Parameters
    ----------
    P : ndarray, shape (F, M, 3), m
        Filled in place.
    names : sequence of str
        The markers' names, in P's order.
    t : ndarray, shape (F,), s
        The frames' times.
    rate : float, Hz
        The frame rate.
    max_gap : float, s
        The longest gap filled.
    max_gap_frames : int or None
        Overrides ``max_gap`` when given.
    method : str
        One of :data:`FILL_METHODS`.
    segments : dict of str to list of str, optional
        Segment -> markers, for the rigid-body fill.
    src : str
        The trial's file, for messages.

    Returns
    -------
    rows : list of dict
        Keys of :data:`REPORT_COLUMNS`.
    limit : int
        Frames.
    """
    if method not in FILL_METHODS:
        raise InputError(f"unknown fill method {method!r}; use one of {', '.join(FILL_METHODS)}", src)
    limit = _max_gap_frames(rate, max_gap, max_gap_frames, src)
    n = P.shape[0]
    rows: list[dict] = []

    if method == "rigid":
        if not segments:
            raise InputError("rigid-body filling needs segments: a dict of segment -> marker names", src)
        index = {m: i for i, m in enumerate(names)}
        for seg, members in segments.items():
            unknown = [m for m in members if m not in index]
            if unknown:
                raise InputError(f"segment {seg!r} names markers not in the trial: {', '.join(map(str, unknown))}",
                                 src)
        missing = np.isnan(P[:, :, 0])
        original = P.copy() if missing.any() else P
        for seg, members in segments.items():
            ids = [index[m] for m in members]
            for j in ids:
                others = [k for k in ids if k != j]
                if len(others) < 3:
                    continue
                for s, e in true_runs(missing[:, j]):
                    filled = _rigid_fill(original, j, others, s, e)
                    new = np.isnan(P[s:e + 1, j, 0]) & ~np.isnan(filled[:, 0])
                    P[s:e + 1, j][new] = filled[new]
                    for a, b in true_runs(new):
                        rows.append({"marker": names[j], "start_frame": s + a, "end_frame": s + b,
                                     "start_time": float(t[s + a]), "end_time": float(t[s + b]),
                                     "length_frames": b - a + 1, "filled": True, "method": "rigid",
                                     "note": f"rigid cluster of segment {seg}"})

    interp = "linear" if method == "linear" else "spline"
    gaps = gap_rows(names, P, t)
    knots = P.copy() if gaps else P  # interpolate from measured (or rigid-filled) samples only
    for row in gaps:
        j, s, e = names.index(row["marker"]), row["start_frame"], row["end_frame"]
        if s == 0 or e == n - 1:
            row.update(filled=False, method="", note="at the start or end of the trial (not extrapolated)")
        elif row["length_frames"] > limit:
            row.update(filled=False, method="",
                       note=f"longer than the limit ({limit} frames = {limit / rate:.3g} s)")
        else:
            if interp == "linear":
                w = ((np.arange(s, e + 1) - (s - 1)) / (e - s + 2))[:, None]
                P[s:e + 1, j], used = (1 - w) * knots[s - 1, j] + w * knots[e + 1, j], "linear"
            else:
                P[s:e + 1, j], used = _spline_fill(knots[:, j], s, e, max(10, e - s + 1))
            note = "" if used == interp else "too few valid samples around the gap for a spline"
            row.update(filled=True, method=used, note=note)
        rows.append(row)

    order = {m: i for i, m in enumerate(names)}
    rows.sort(key=lambda r: (order[r["marker"]], r["start_frame"]))
    return rows, limit

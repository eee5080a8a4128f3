"""Conditioning of marker trajectories: gaps, gap filling, zero-phase low-pass.

Input and output are marker DataFrames (COMMON layout): a ``time`` column in
seconds, then ``<name>_x``, ``<name>_y``, ``<name>_z`` in metres; NaN marks a
missing sample.  A marker is missing at a frame when any of its three
coordinates is NaN or when it sits exactly at (0, 0, 0) (the usual "not seen"
code of capture systems; readers already turn it into NaN).

Functions
---------
find_gaps   table of the runs of missing frames of every marker
fill_gaps   cubic-spline, linear or rigid-body (Soderkvist & Wedin 1993) filling
lowpass     zero-phase Butterworth, per contiguous valid run, Winter's cut-off
condition   the chain gaps -> fill -> low-pass, with a :class:`ConditioningReport`

docs/conditioning.md states the rules and the filter definition.
"""

from __future__ import annotations

import copy
import os
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import InputError
from ..filters import butterworth_sos, winter_design_cutoff  # noqa: F401  (re-exported)

FILL_METHODS = ("spline", "linear", "rigid")
GAP_COLUMNS = ["marker", "start_frame", "end_frame", "start_time", "end_time", "length_frames"]
REPORT_COLUMNS = GAP_COLUMNS + ["filled", "method", "note"]


# --------------------------------------------------------------------------- layout helpers
def _marker_names(df: pd.DataFrame) -> list[str]:
    """Marker names of a marker DataFrame, in column order.

    ``df.attrs["markers"]`` is used when every listed name has its three
    columns; otherwise the names are every ``<name>`` with ``<name>_x``,
    ``<name>_y`` and ``<name>_z`` columns.
    """
    cols = set(map(str, df.columns))
    listed = df.attrs.get("markers")
    if listed and all(f"{n}_{a}" in cols for n in listed for a in "xyz"):
        return [str(n) for n in listed]
    names = [c[:-2] for c in map(str, df.columns) if c.endswith("_x")]
    return [n for n in names if f"{n}_y" in cols and f"{n}_z" in cols]


def _positions(df: pd.DataFrame, names: list[str]) -> np.ndarray:
    """Marker positions, shape (frames, markers, 3), float64, missing -> NaN.

    A sample is missing when any coordinate is NaN or all three are exactly 0.
    """
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if _plain_layout(df, cols):  # one float block: copy it out in parallel, missing samples marked
        from ._kernels import copy_positions

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


def _output_positions(df: pd.DataFrame, names: list[str]) -> tuple[np.ndarray | None, np.ndarray]:
    """The positions (missing -> NaN) already placed in the table of the output DataFrame.

    For a plain table (``time`` then the marker columns, float64) returns the
    new (frames, 1 + 3 markers) table with the time column filled and ``P``,
    a (frames, markers, 3) view of its marker columns, so conditioning
    works where the result will live: one copy of a long trial fewer.
    Otherwise ``(None, _positions(df, names))``.
    """
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if not _plain_layout(df, cols):
        return None, _positions(df, names)
    from ._kernels import copy_positions

    values = df.to_numpy(copy=False)
    table = np.empty(values.shape)
    table[:, 0] = values[:, 0]
    P = table[:, 1:].reshape(len(df), len(names), 3)
    copy_positions(values[:, 1:], P)
    return table, P


def _with_positions(df: pd.DataFrame, names: list[str], P: np.ndarray) -> pd.DataFrame:
    """Copy of ``df`` (attrs deep-copied) with the marker columns replaced by ``P``."""
    cols = [f"{n}_{a}" for n in names for a in "xyz"]
    if _plain_layout(df, cols):  # build the one float block directly
        table = np.empty((len(df), 1 + len(cols)))
        table[:, 0] = df["time"].to_numpy()
        table[:, 1:] = P.reshape(len(df), -1)
        out = pd.DataFrame(table, columns=df.columns, index=df.index, copy=False)
    else:
        out = df.copy()
        out[cols] = P.reshape(len(df), -1)
    out.attrs = copy.deepcopy(df.attrs)
    return out


def _plain_layout(df: pd.DataFrame, cols: list[str]) -> bool:
    """True when ``df`` is exactly ``time`` then ``cols``, all float64 (what the readers make)."""
    return (df.shape[1] == len(cols) + 1 and df.columns[0] == "time" and list(df.columns[1:]) == cols
            and all(dt == np.float64 for dt in df.dtypes))


def _time(df: pd.DataFrame) -> np.ndarray:
    if "time" in df.columns:
        return df["time"].to_numpy(dtype=float)
    rate = df.attrs.get("rate_hz")
    if not rate:
        raise InputError("marker table has neither a time column nor attrs['rate_hz']", df.attrs.get("source"))
    return np.arange(len(df)) / float(rate)


def _rate(df: pd.DataFrame) -> float:
    """Sampling rate in Hz: ``attrs["rate_hz"]``, else from the median time step.

    Raises InputError when the times stray from a uniform grid by more than
    a quarter step (times rounded in the file, e.g. to 1 ms, pass; dropped
    frames do not), since the filter and the gap durations assume uniform
    sampling.
    """
    src = df.attrs.get("source")
    t = _time(df)
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


def _runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Inclusive (start, end) index pairs of the True runs of a 1-D boolean array."""
    m = np.concatenate([[False], np.asarray(mask, bool), [False]])
    d = np.diff(m.astype(np.int8))
    starts = np.nonzero(d == 1)[0]
    ends = np.nonzero(d == -1)[0] - 1
    return list(zip(starts.tolist(), ends.tolist()))


def _gap_rows(names: list[str], P: np.ndarray, t: np.ndarray) -> list[dict]:
    """One dict per NaN run of every marker of ``P`` (frames, markers, 3)."""
    rows = []
    missing = np.isnan(P[:, :, 0]).T.copy()  # (markers, frames): one pass over P, then row by row
    for j, name in enumerate(names):
        for s, e in _runs(missing[j]):
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
    names = _marker_names(df)
    return _gap_frame(_gap_rows(names, _positions(df, names), _time(df)))


def _gap_frame(rows: list[dict]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=GAP_COLUMNS).astype(
        {"start_frame": int, "end_frame": int, "length_frames": int})


# --------------------------------------------------------------------------- filling
def _spline_fill(x: np.ndarray, s: int, e: int, window: int) -> tuple[np.ndarray, str]:
    """Fill frames s..e of ``x`` (frames, 3) from the valid samples around the gap.

    A cubic spline (:class:`scipy.interpolate.CubicSpline`, not-a-knot ends)
    through the valid samples within ``window`` frames before and after the
    gap.  With fewer than two valid samples on a side the fill is linear.
    """
    from scipy import interpolate

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
    a_bar, b_bar and ``C = (B - b_bar)^T (A - a_bar) = U S V^T``,
    ``R = U diag(1, 1, det(U V^T)) V^T`` and ``d = b_bar - R a_bar``.

    Parameters
    ----------
    A, B : ndarray, shape (n, 3), n >= 3
        The same points at the reference frame and at the target frame (m).

    Returns
    -------
    R : ndarray (3, 3), d : ndarray (3,)
    """
    a_bar, b_bar = A.mean(axis=0), B.mean(axis=0)
    U, _, Vt = np.linalg.svd((B - b_bar).T @ (A - a_bar))
    D = np.diag([1.0, 1.0, np.sign(np.linalg.det(U @ Vt))])
    R = U @ D @ Vt
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
    rate = _rate(df)
    names = _marker_names(df)
    P = _positions(df, names)
    rows, limit = _fill_array(P, names, _time(df), rate, max_gap, max_gap_frames, method, segments, src)
    report = _fill_report(rows)
    out = _with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).append(_fill_line(report, method, limit, rate))
    return out, report


def _fill_report(rows: list[dict]) -> pd.DataFrame:
    report = pd.DataFrame(rows, columns=REPORT_COLUMNS)
    return report.astype({"start_frame": int, "end_frame": int, "length_frames": int, "filled": bool})


def _fill_line(report: pd.DataFrame, method: str, limit: int, rate: float) -> str:
    done = report[report["filled"]]
    return (f"filled {len(done)} gaps ({int(done['length_frames'].sum())} frames) by {method}, "
            f"limit {limit} frames ({limit / rate:.3g} s)")


def _fill_array(P, names, t, rate, max_gap, max_gap_frames, method, segments, src) -> tuple[list[dict], int]:
    """:func:`fill_gaps` on the positions ``P`` (frames, markers, 3), in place.

    Returns the report rows (sorted by marker, then start frame) and the gap
    limit in frames.
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
                for s, e in _runs(missing[:, j]):
                    filled = _rigid_fill(original, j, others, s, e)
                    new = np.isnan(P[s:e + 1, j, 0]) & ~np.isnan(filled[:, 0])
                    P[s:e + 1, j][new] = filled[new]
                    for a, b in _runs(new):
                        rows.append({"marker": names[j], "start_frame": s + a, "end_frame": s + b,
                                     "start_time": float(t[s + a]), "end_time": float(t[s + b]),
                                     "length_frames": b - a + 1, "filled": True, "method": "rigid",
                                     "note": f"rigid cluster of segment {seg}"})

    interp = "linear" if method == "linear" else "spline"
    gaps = _gap_rows(names, P, t)
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


# --------------------------------------------------------------------------- low-pass filter
def _padlen(sos: np.ndarray) -> int:
    """The padding :func:`scipy.signal.sosfiltfilt` uses by default."""
    ntaps = 2 * len(sos) + 1 - min((sos[:, 2] == 0).sum(), (sos[:, 5] == 0).sum())
    return 3 * int(ntaps)


@dataclass(frozen=True)
class FilterReport:
    """What :func:`lowpass` did.

    Attributes
    ----------
    cutoff_hz : float
        -3 dB frequency of the complete zero-phase filter (Hz).
    order : int
        Order of the complete filter (each pass has order // 2).
    design_hz : float
        Cut-off of each pass after Winter's correction (Hz).
    rate_hz : float
    padlen : int
        Samples of odd-extension padding; valid runs of at most this many
        frames are left unfiltered.
    unfiltered : DataFrame
        Runs left unfiltered (marker, start_frame, end_frame, length_frames).
    """

    cutoff_hz: float
    order: int
    design_hz: float
    rate_hz: float
    padlen: int
    unfiltered: pd.DataFrame = field(repr=False)

    def describe(self) -> str:
        return (f"zero-phase Butterworth low-pass, order {self.order} "
                f"(order {self.order // 2} run forwards and backwards), -3 dB at {self.cutoff_hz:g} Hz "
                f"(each pass designed at {self.design_hz:.4g} Hz, Winter's correction), "
                f"sampling {self.rate_hz:g} Hz")

    def to_dict(self) -> dict:
        return {"cutoff_hz": self.cutoff_hz, "order": self.order, "design_hz": self.design_hz,
                "rate_hz": self.rate_hz, "padlen": self.padlen, "description": self.describe(),
                "unfiltered": self.unfiltered.to_dict(orient="records")}


def lowpass(df: pd.DataFrame, cutoff_hz: float = 6.0, order: int = 4) -> tuple[pd.DataFrame, FilterReport]:
    """Zero-phase Butterworth low-pass of every marker coordinate.

    Each contiguous run of valid frames of each marker is filtered on its own
    with :func:`scipy.signal.sosfiltfilt` (odd extension, ``padlen`` samples
    at each end); missing frames stay NaN (all three coordinates) and runs of
    at most ``padlen`` frames are left as they are and reported.

    Parameters
    ----------
    df : DataFrame
        Marker table, uniformly sampled.
    cutoff_hz : float
        -3 dB frequency of the complete forward-backward filter (Hz), not of
        one pass: each pass is designed higher by Winter's correction
        (:func:`winter_design_cutoff`), so the amplitude at ``cutoff_hz`` is
        1/sqrt(2) of the input's.  Must lie in (0, rate / 2).
    order : int
        Order of the complete zero-phase filter, even (default 4: a
        2nd-order Butterworth run forwards and backwards, the usual
        "4th-order zero-lag" filter of biomechanics).

    Returns
    -------
    filtered : DataFrame
        Copy of ``df`` (attrs kept, a line appended to ``attrs["conditioning"]``).
    report : FilterReport
    """
    src = df.attrs.get("source")
    rate = _rate(df)
    names = _marker_names(df)
    P = _positions(df, names)
    report = _lowpass_array(P, names, _time(df), rate, cutoff_hz, order, src)
    out = _with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).append(report.describe())
    return out, report


#: Marker-frames filtered per sosfiltfilt call (its padded copies are a few
#: times this many samples x 3 coordinates x 8 bytes, ~10 MB each); a long
#: trial's calls run on two threads (scipy's sosfilt releases the GIL).
_JOB_SAMPLES = 400_000


def _lowpass_array(P, names, t, rate, cutoff_hz, order, src) -> FilterReport:
    """:func:`lowpass` on the positions ``P`` (frames, markers, 3), in place.

    Markers whose valid frames form the same runs (usually all of them: one
    run over the whole trial) are filtered together, a few at a time
    (:data:`_JOB_SAMPLES`) by :func:`scipy.signal.sosfiltfilt` on two
    threads; each column is filtered on its own, so the result equals
    filtering marker by marker.
    """
    from .._scipy import signal

    sos = butterworth_sos(cutoff_hz, rate, order, src)
    pad = _padlen(sos)
    skipped = []
    by_run: dict[tuple[int, int], list[int]] = {}
    for j, name in enumerate(names):
        for s, e in _runs(~np.isnan(P[:, j, 0])):
            if e - s + 1 <= pad:
                skipped.append({"marker": name, "start_frame": s, "end_frame": e,
                                "start_time": float(t[s]), "end_time": float(t[e]), "length_frames": e - s + 1})
                continue
            by_run.setdefault((s, e), []).append(j)
    jobs = []
    for (s, e), markers in by_run.items():
        # groups of markers small enough that sosfiltfilt's copies stay small; two threads take them
        size = max(1, _JOB_SAMPLES // (e - s + 1))
        jobs += [(s, e, markers[i:i + size]) for i in range(0, len(markers), size)]

    def run(job):
        s, e, markers = job
        cols = slice(markers[0], markers[-1] + 1) if markers[-1] - markers[0] == len(markers) - 1 else markers
        P[s:e + 1, cols] = signal.sosfiltfilt(sos, P[s:e + 1, cols], axis=0, padlen=pad)

    if len(jobs) > 1 and sum((e - s + 1) * len(m) for s, e, m in jobs) >= _JOB_SAMPLES:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 1)) as pool:
            list(pool.map(run, jobs))  # sosfilt releases the GIL; the jobs write disjoint columns
    else:
        for job in jobs:
            run(job)
    skipped.sort(key=lambda r: (names.index(r["marker"]), r["start_frame"]))
    return FilterReport(float(cutoff_hz), int(order), winter_design_cutoff(cutoff_hz, rate, int(order)),
                        rate, pad, pd.DataFrame(skipped, columns=GAP_COLUMNS))


# --------------------------------------------------------------------------- the chain
def _ranges(frames: pd.DataFrame) -> str:
    return ", ".join(f"{s}" if s == e else f"{s}-{e}"
                     for s, e in zip(frames["start_frame"], frames["end_frame"]))


@dataclass(frozen=True)
class ConditioningReport:
    """What :func:`condition` did to a marker trial.

    Attributes
    ----------
    rate_hz : float
    frames : int
    gaps : DataFrame
        Gaps of the input (:func:`find_gaps`).
    fills : DataFrame
        Fill report of :func:`fill_gaps` (method per gap, why unfilled).
    filter : FilterReport or None
        None when no low-pass was asked for.
    remaining : DataFrame
        Gaps still present in the output.
    """

    rate_hz: float
    frames: int
    gaps: pd.DataFrame = field(repr=False)
    fills: pd.DataFrame = field(repr=False)
    filter: FilterReport | None
    remaining: pd.DataFrame = field(repr=False)

    def lines(self) -> list[str]:
        """Human-readable summary, one statement per line (frames are 0-based rows)."""
        out = [f"{self.frames} frames at {self.rate_hz:g} Hz; {len(self.gaps)} gaps in "
               f"{self.gaps['marker'].nunique()} markers"]
        for r in self.fills.itertuples():
            span = (f"frames {r.start_frame}-{r.end_frame} "
                    f"({r.start_time:.3f}-{r.end_time:.3f} s, {r.length_frames} frames)")
            if r.filled:
                out.append(f"filled {r.marker} {span} by {r.method}" + (f" ({r.note})" if r.note else ""))
            else:
                out.append(f"left {r.marker} {span} missing: {r.note}")
        if self.filter is not None:
            out.append(f"low-pass: {self.filter.describe()}")
            for r in self.filter.unfiltered.itertuples():
                out.append(f"not filtered {r.marker} frames {r.start_frame}-{r.end_frame}: "
                           f"run of {r.length_frames} frames is too short for the filter padding "
                           f"({self.filter.padlen} samples)")
        else:
            out.append("low-pass: none")
        if len(self.remaining):
            for marker, g in self.remaining.groupby("marker", sort=False):
                out.append(f"still missing {marker}: frames {_ranges(g)} ({int(g['length_frames'].sum())} frames)")
        else:
            out.append("no missing samples remain")
        return out

    def summary_lines(self) -> list[str]:
        """A few lines for the terminal: counts instead of one line per gap (:meth:`lines` has the detail)."""
        fills = self.fills
        filled = fills[fills["filled"]] if len(fills) else fills
        left = fills[~fills["filled"]] if len(fills) else fills
        line = f"{self.frames} frames at {self.rate_hz:g} Hz; {len(self.gaps)} gaps in {self.gaps['marker'].nunique()} markers"
        if len(fills):
            methods = ", ".join(sorted(set(filled["method"]))) if len(filled) else ""
            line += f": {len(filled)} filled" + (f" (by {methods})" if methods else "")
            line += f", {len(left)} left missing" if len(left) else ""
        out = [line]
        out.append(f"low-pass: {self.filter.describe()}" if self.filter is not None else "low-pass: none")
        if self.filter is not None and len(self.filter.unfiltered):
            u = self.filter.unfiltered
            out.append(f"not filtered: {len(u)} run(s) in {u['marker'].nunique()} marker(s) too short for the "
                       f"filter padding ({self.filter.padlen} samples)")
        if len(self.remaining):
            out.append(f"still missing: {int(self.remaining['length_frames'].sum())} samples in "
                       f"{self.remaining['marker'].nunique()} marker(s)")
        else:
            out.append("no missing samples remain")
        return out

    def to_dict(self) -> dict:
        """JSON-friendly dict (tables as lists of records)."""
        return {"rate_hz": self.rate_hz, "frames": self.frames,
                "gaps": self.gaps.to_dict(orient="records"),
                "fills": self.fills.to_dict(orient="records"),
                "filter": None if self.filter is None else self.filter.to_dict(),
                "remaining": self.remaining.to_dict(orient="records"),
                "lines": self.lines()}


def condition(df: pd.DataFrame, max_gap: float = 0.1, cutoff_hz: float | None = 6.0, fill: str = "spline",
              segments: dict[str, list[str]] | None = None, order: int = 4,
              max_gap_frames: int | None = None) -> tuple[pd.DataFrame, ConditioningReport]:
    """Find gaps, fill them, low-pass filter: the whole conditioning chain.

    Parameters
    ----------
    df : DataFrame
        Marker table (``time``, ``<name>_x/_y/_z`` in m).
    max_gap, max_gap_frames, fill, segments
        As ``max_gap``, ``max_gap_frames``, ``method``, ``segments`` of :func:`fill_gaps`.
    cutoff_hz, order
        As in :func:`lowpass`; ``cutoff_hz=None`` skips the filter.

    Returns
    -------
    conditioned : DataFrame
        attrs kept; ``attrs["conditioning"]`` lists what was done.
    report : ConditioningReport
        ``report.lines()`` for people, ``report.to_dict()`` for files.
    """
    src = df.attrs.get("source")
    rate = _rate(df)
    names = _marker_names(df)
    t = _time(df)
    table, P = _output_positions(df, names)
    gaps = _gap_frame(_gap_rows(names, P, t))
    rows, limit = _fill_array(P, names, t, rate, max_gap, max_gap_frames, fill, segments, src)
    fills = _fill_report(rows)
    lines = [_fill_line(fills, fill, limit, rate)]
    frep = None
    if cutoff_hz is not None:
        frep = _lowpass_array(P, names, t, rate, cutoff_hz, order, src)
        lines.append(frep.describe())
    remaining = _gap_frame(_gap_rows(names, P, t))
    if table is not None:  # P was worked on inside the output table
        out = pd.DataFrame(table, columns=df.columns, index=df.index, copy=False)
        out.attrs = copy.deepcopy(df.attrs)
    else:
        out = _with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).extend(lines)
    return out, ConditioningReport(rate, len(df), gaps, fills, frep, remaining)

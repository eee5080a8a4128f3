"""Conditioning of marker trajectories: gaps, gap filling, zero-phase low-pass.

Input and output are marker DataFrames (COMMON layout): a ``time`` column in
seconds, then ``<name>_x``, ``<name>_y``, ``<name>_z`` in metres; NaN marks a
missing sample.  A marker is missing at a frame when any of its three
coordinates is NaN or when it sits exactly at (0, 0, 0) (the usual "not seen"
code of capture systems; readers already turn it into NaN).

Functions
---------
find_gaps   table of the runs of missing frames of every marker (:mod:`.gaps`)
fill_gaps   cubic-spline, linear or rigid-body (Soderkvist & Wedin 1993) filling (:mod:`.gaps`)
lowpass     zero-phase Butterworth, per contiguous valid run, Winter's cut-off
condition   the chain gaps -> fill -> low-pass, with a :class:`ConditioningReport`

docs/conditioning.md states the rules and the filter definition.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..errors import FILTERING, InputError, Note
from ..lab.layout import output_positions, table_markers, table_positions, table_rate, table_time, with_positions
from ..signal import CUTOFF_HZ
from ..signal.filters import butterworth_sos, winter_design_cutoff  # noqa: F401  (re-exported)
from ..signal.residual import residual_cutoff
from .gaps import GAP_COLUMNS, fill_array, fill_line, fill_report, gap_rows, gap_table, true_runs


# --------------------------------------------------------------------------- low-pass filter
def _padlen(sos: np.ndarray) -> int:
    """The padding :func:`scipy.signal.sosfiltfilt` uses by default: 3 x (2 S + 1 - poles/zeros at 0)."""
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
    chosen_by : str
        How the cut-off was chosen when it was not given ("" when given).
    """

    cutoff_hz: float
    order: int
    design_hz: float
    rate_hz: float
    padlen: int
    unfiltered: pd.DataFrame = field(repr=False)
    chosen_by: str = ""

    def describe(self) -> str:
        """The filter in one line for the log (order, cut-off, Winter's design frequency, sampling rate).

        Returns
        -------
        str
            The line.
        """
        return (f"zero-phase Butterworth low-pass, order {self.order} "
                f"(order {self.order // 2} run forwards and backwards), -3 dB at {self.cutoff_hz:g} Hz "
                f"(each pass designed at {self.design_hz:.4g} Hz, Winter's correction), "
                f"sampling {self.rate_hz:g} Hz" + (f"; {self.chosen_by}" if self.chosen_by else ""))

    def to_dict(self) -> dict:
        """The report as JSON-friendly values (the unfiltered runs as a list of records).

        Returns
        -------
        dict
            cutoff_hz, order, design_hz, rate_hz, padlen, description, the unfiltered runs and chosen_by when set.
        """
        out = {"cutoff_hz": self.cutoff_hz, "order": self.order, "design_hz": self.design_hz,
               "rate_hz": self.rate_hz, "padlen": self.padlen, "description": self.describe(),
               "unfiltered": self.unfiltered.to_dict(orient="records")}
        if self.chosen_by:
            out["chosen_by"] = self.chosen_by
        return out


def lowpass(df: pd.DataFrame, cutoff_hz: float = CUTOFF_HZ, order: int = 4) -> tuple[pd.DataFrame, FilterReport]:
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
        The filter's design and the runs left unfiltered.
    """
    src = df.attrs.get("source")
    rate = table_rate(df)
    names = table_markers(df)
    P = table_positions(df, names)
    report = lowpass_array(P, names, table_time(df), rate, cutoff_hz, order, src)
    out = with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).append(report.describe())
    return out, report


#: Marker-frames filtered per sosfiltfilt call (its padded copies are a few
#: times this many samples x 3 coordinates x 8 bytes, ~10 MB each); a long
#: trial's calls run on two threads (scipy's sosfilt releases the GIL).
_JOB_SAMPLES = 400_000


def lowpass_array(P, names, t, rate, cutoff_hz, order, src) -> FilterReport:
    """:func:`lowpass` on the positions ``P`` (frames, markers, 3), in place.

    Markers whose valid frames form the same runs (usually all of them: one
    run over the whole trial) are filtered together, a few at a time
    (:data:`_JOB_SAMPLES`) by :func:`scipy.signal.sosfiltfilt` on two
    threads; each column is filtered on its own, so the result equals
    filtering marker by marker.

    Parameters
    ----------
    P : ndarray, shape (F, M, 3), m
        Marker positions, NaN where missing; filtered in place.
    names : sequence of str
        The M markers' names (for the report).
    t : ndarray, shape (F,), s
        The frames' times.
    rate : float, Hz
        The sampling rate.
    cutoff_hz : float, Hz
        -3 dB frequency of the complete forward-backward filter.
    order : int
        Order of the complete filter.
    src : str
        The trial's file, for messages.

    Returns
    -------
    FilterReport
        The filter's design and the runs left unfiltered.
    """
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when markers are first filtered

    sos = butterworth_sos(cutoff_hz, rate, order, src)
    pad = _padlen(sos)
    skipped = []
    by_run: dict[tuple[int, int], list[int]] = {}
    for j, name in enumerate(names):
        for s, e in true_runs(~np.isnan(P[:, j, 0])):
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
                     for s, e in zip(frames["start_frame"], frames["end_frame"], strict=True))


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
        """Human-readable summary, one statement per line (frames are 0-based rows).

        Returns
        -------
        list of str
            Frames, rate, gaps and what was filled and filtered, one statement per line.
        """
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
        """A few lines for the terminal: counts instead of one line per gap (:meth:`lines` has the detail).

        Returns
        -------
        list of str
            The counts of gaps, fills and filtering.
        """
        fills = self.fills
        filled = fills[fills["filled"]] if len(fills) else fills
        left = fills[~fills["filled"]] if len(fills) else fills
        line = f"{self.frames} frames at {self.rate_hz:g} Hz; {len(self.gaps)} gaps in {self.gaps['marker'].nunique()} markers"
        if len(fills):
            methods = ", ".join(sorted(set(filled["method"]))) if len(filled) else ""
            line += f": {len(filled)} filled" + (f" (by {methods})" if methods else "")
            line += f", {len(left)} left missing" if len(left) else ""
        out = [line]
        out.append(Note(f"low-pass: {self.filter.describe()}" if self.filter is not None else "low-pass: none", FILTERING))
        if self.filter is not None and len(self.filter.unfiltered):
            u = self.filter.unfiltered
            out.append(Note(f"not filtered: {len(u)} run(s) in {u['marker'].nunique()} marker(s) too short for "
                            f"the filter padding ({self.filter.padlen} samples)", FILTERING))
        if len(self.remaining):
            out.append(Note(f"still missing: {int(self.remaining['length_frames'].sum())} samples in "
                            f"{self.remaining['marker'].nunique()} marker(s)", FILTERING))
        else:
            out.append(Note("no missing samples remain", FILTERING))
        return out

    def to_dict(self) -> dict:
        """JSON-friendly dict (tables as lists of records).

        Returns
        -------
        dict
            rate_hz, frames, gaps, fills, filter (None when not filtered), remaining gaps and lines.
        """
        return {"rate_hz": self.rate_hz, "frames": self.frames,
                "gaps": self.gaps.to_dict(orient="records"),
                "fills": self.fills.to_dict(orient="records"),
                "filter": None if self.filter is None else self.filter.to_dict(),
                "remaining": self.remaining.to_dict(orient="records"),
                "lines": self.lines()}


def condition(df: pd.DataFrame, max_gap: float = 0.1, cutoff_hz: float | str | None = CUTOFF_HZ, fill: str = "spline",
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
        As in :func:`lowpass`; ``cutoff_hz=None`` skips the filter;
        ``"auto"`` chooses it from the gap-filled markers by Winter's residual
        analysis (:func:`humanbody.signal.residual.residual_cutoff`, one
        cut-off for all markers; ``report.filter.cutoff_hz`` is the one chosen).

    Returns
    -------
    conditioned : DataFrame
        attrs kept; ``attrs["conditioning"]`` lists what was done.
    report : ConditioningReport
        ``report.lines()`` for people, ``report.to_dict()`` for files.
    """
    src = df.attrs.get("source")
    rate = table_rate(df)
    names = table_markers(df)
    t = table_time(df)
    table, P = output_positions(df, names)
    gaps = gap_table(gap_rows(names, P, t))
    rows, limit = fill_array(P, names, t, rate, max_gap, max_gap_frames, fill, segments, src)
    fills = fill_report(rows)
    lines = [fill_line(fills, fill, limit, rate)]
    frep = found = None
    if isinstance(cutoff_hz, str):
        if cutoff_hz != "auto":
            raise InputError(f"marker cut-off {cutoff_hz!r}: give a frequency in Hz or 'auto'", src)

        found = residual_cutoff(P.reshape(len(P), -1), rate, order, source=src)
        cutoff_hz = found.cutoff_hz
    if cutoff_hz is not None:
        frep = lowpass_array(P, names, t, rate, cutoff_hz, order, src)
        if found is not None:
            frep = dataclasses.replace(frep, chosen_by=found.describe())
        lines.append(frep.describe())
    remaining = gap_table(gap_rows(names, P, t))
    if table is not None:  # P was worked on inside the output table
        out = pd.DataFrame(table, columns=df.columns, index=df.index, copy=False)
        out.attrs = copy.deepcopy(df.attrs)
    else:
        out = with_positions(df, names, P)
    out.attrs.setdefault("conditioning", []).extend(lines)
    return out, ConditioningReport(rate, len(df), gaps, fills, frep, remaining)

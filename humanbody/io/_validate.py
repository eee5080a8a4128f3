"""Checks and building blocks shared by every trial reader.

Every function here raises :class:`humanbody.errors.InputError` naming the
file, in one sentence, for input a user can fix: a missing or empty file, a
short or non-numeric row, time that does not increase, irregular sampling,
unknown units, duplicate marker names.  The readers (``trc``, ``opensim``,
``csv_markers``, ``c3d``, ``coords``) only parse their layout and hand the
numbers to these helpers, so every format reports problems the same way.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ._parse import MISSING_TOKENS  # cell texts read as a missing value

#: Length units a header may name, with the factor to metres.
LENGTH_UNITS: dict[str, float] = {
    "mm": 1e-3,
    "millimeter": 1e-3,
    "millimeters": 1e-3,
    "millimetre": 1e-3,
    "millimetres": 1e-3,
    "cm": 1e-2,
    "centimeter": 1e-2,
    "centimeters": 1e-2,
    "centimetre": 1e-2,
    "centimetres": 1e-2,
    "m": 1.0,
    "meter": 1.0,
    "meters": 1.0,
    "metre": 1.0,
    "metres": 1.0,
}



#: Largest deviation of a time stamp from the uniform grid, as a fraction of
#: the sampling period, still taken as rounding of the printed time.
GRID_TOLERANCE = 0.25


# ----------------------------------------------------------------------------- files
def check_file(path) -> Path:
    """Return ``path`` as a Path after checking it is a readable, non-empty file.

    Raises
    ------
    InputError
        When the file does not exist, is a directory, cannot be read or is
        empty.
    """
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError("file not found", p)
    if p.is_dir():
        raise InputError("is a directory, not a trial file", p)
    try:
        size = p.stat().st_size
        with open(p, "rb") as fh:
            fh.read(1)
    except OSError as err:
        raise InputError(f"cannot read the file ({err.strerror or err})", p) from None
    if size == 0:
        raise InputError("the file is empty", p)
    return p


def read_lines(path: Path) -> list[str]:
    """Text lines of ``path`` without line ends (UTF-8, BOM and Latin-1 tolerated)."""
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the file ({err.strerror or err})", path) from None
    if b"\x00" in raw[:4096]:
        raise InputError("is a binary file, not a text trial file", path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise InputError("the file holds only blank lines", path)
    return lines


def split_line(line: str, sep: str | None) -> list[str]:
    """Fields of one line: ``sep`` is a delimiter, or None for runs of white space."""
    if sep is None:
        return line.split()
    return [f.strip() for f in line.split(sep)]


# ----------------------------------------------------------------------------- numbers
def parse_block(
    rows: list[list[str]],
    line_numbers: list[int],
    names: list[str],
    path: Path,
) -> np.ndarray:
    """Numbers of a data block, shape (rows, len(names)), missing cells -> NaN.

    Parameters
    ----------
    rows : list of list of str
        Fields of each data row (already split).
    line_numbers : list of int
        1-based line number of each row in the file, for messages.
    names : list of str
        Column names, for messages; their count is the expected row width.
        Extra fields after the last column must be blank.
    path : Path
        The file, for messages.

    Raises
    ------
    InputError
        A row shorter than the header ("truncated at line N" for the last
        row), a non-blank field beyond the header, or a cell that is not a
        number (naming the line and the column).
    """
    ncol = len(names)
    if not rows:
        raise InputError("has a header but no data rows", path)
    cells = []
    for k, (fields, line_no) in enumerate(zip(rows, line_numbers)):
        if len(fields) < ncol:
            if k == len(rows) - 1:
                raise InputError(
                    f"truncated at line {line_no}: the last row has {len(fields)} of "
                    f"{ncol} values", path,
                )
            raise InputError(
                f"line {line_no} has {len(fields)} values but the header has {ncol} columns",
                path,
            )
        if len(fields) > ncol:
            extra = [f for f in fields[ncol:] if f.strip()]
            if extra:
                raise InputError(
                    f"line {line_no} has more values ({len(fields)}) than the header has "
                    f"columns ({ncol})", path,
                )
            fields = fields[:ncol]
        cells.append(fields)
    try:  # fast path: pandas' C parser on the checked rows
        text = "\n".join("\t".join(fields) for fields in cells)
        values = pd.read_csv(
            io.StringIO(text), sep="\t", header=None, names=range(ncol), dtype=float,
            na_values=sorted(MISSING_TOKENS), keep_default_na=True, skipinitialspace=True,
            quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c",
        ).to_numpy(dtype=float)
        if values.shape == (len(cells), ncol):
            return values
    except (ValueError, TypeError, pd.errors.ParserError):
        pass
    frame = pd.DataFrame(cells, dtype=object)
    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    for i, j in zip(*np.nonzero(np.isnan(values))):  # NaN: a missing token or bad text
        text = str(cells[i][j]).strip().strip('"')
        if text.lower() not in MISSING_TOKENS:
            raise InputError(
                f"non-numeric value {text!r} at line {line_numbers[i]}, "
                f"column {j + 1} ({names[j]!r})", path,
            )
    return values


def length_scale(unit: str, path: Path, where: str = "the header") -> float:
    """Factor from the length unit ``unit`` (mm, cm, m, ...) to metres.

    Raises
    ------
    InputError
        When the unit is not a known length unit.
    """
    key = str(unit).strip().strip('"').lower()
    if key not in LENGTH_UNITS:
        raise InputError(
            f"unknown length unit {str(unit).strip()!r} in {where} (expected mm, cm or m)", path
        )
    return LENGTH_UNITS[key]


def canonical_unit(unit: str) -> str:
    """Short name (mm, cm or m) of a length unit known to :data:`LENGTH_UNITS`."""
    return {1e-3: "mm", 1e-2: "cm", 1.0: "m"}[LENGTH_UNITS[str(unit).strip().strip('"').lower()]]


# ----------------------------------------------------------------------------- time
def time_base(
    time: np.ndarray,
    path: Path,
    line_numbers=None,
    header_rate: float | None = None,
    conversions: list | None = None,
) -> tuple[np.ndarray, float]:
    """Check a time column and return the time base and the frame rate.

    The samples must be finite and strictly increasing, at least two, and
    uniformly spaced: every time stamp within ``GRID_TOLERANCE`` of a period
    of the uniform grid ``t0 + i*dt`` (this accepts times printed with few
    decimals, such as 0.017 s for 1/60 s, and rejects dropped frames).

    Parameters
    ----------
    time : ndarray, shape (frames,)
        Times of the file (s).
    path : Path
        The file, for messages.
    line_numbers : sequence of int, optional
        Line of each frame in the file, for messages (frame numbers otherwise).
    header_rate : float, optional
        Frame rate the header states (Hz).  When given, the time column must
        agree with it, and the returned time is the exact grid
        ``t0 + i / header_rate`` (the file's times are only rounded copies);
        the rebuild is reported in ``conversions``.
    conversions : list of str, optional
        Receives a sentence about any rebuilt time base.

    Returns
    -------
    time : ndarray, shape (frames,)
        Time (s) starting at the file's first time.
    rate_hz : float
        Frame rate (Hz).
    """
    t = np.asarray(time, dtype=float)
    where = (lambda i: f"line {line_numbers[i]}") if line_numbers is not None else (
        lambda i: f"frame {i + 1}")
    if t.size < 2:
        raise InputError(f"has {t.size} frame{'s' if t.size != 1 else ''}; a trial needs at least 2", path)
    bad = np.flatnonzero(~np.isfinite(t))
    if bad.size:
        raise InputError(f"time is missing or not finite at {where(bad[0])}", path)
    step = np.diff(t)
    back = np.flatnonzero(step <= 0)
    if back.size:
        i = back[0] + 1
        raise InputError(
            f"time is not strictly increasing at {where(i)} ({t[i]:g} s after {t[i - 1]:g} s)", path
        )
    n = t.size
    dt = (t[-1] - t[0]) / (n - 1)
    grid = t[0] + dt * np.arange(n)
    dev = np.abs(t - grid)
    worst_step = int(np.argmax(np.abs(step - dt)))
    if dev.max() > GRID_TOLERANCE * dt or abs(step[worst_step] - dt) > 2 * GRID_TOLERANCE * dt:
        i = worst_step + 1
        raise InputError(
            f"sampling is irregular: the time step before {where(i)} is {step[worst_step]:.6g} s "
            f"but the mean step is {dt:.6g} s", path,
        )
    rate = 1.0 / dt
    if header_rate is None:
        return t, rate
    header_rate = float(header_rate)
    exact = t[0] + np.arange(n) / header_rate
    off = np.abs(t - exact).max()
    if off > GRID_TOLERANCE / header_rate:
        raise InputError(
            f"the header rate {header_rate:g} Hz disagrees with the time column "
            f"({rate:.6g} Hz)", path,
        )
    if conversions is not None and off > 1e-9 * max(1.0, abs(t[-1])):
        conversions.append(
            f"time rebuilt as t0 + i/{header_rate:g} Hz (file times rounded, "
            f"largest difference {off:.2g} s)"
        )
    return exact, header_rate


def time_from_rate(n: int, rate_hz: float, path: Path, t0: float = 0.0) -> np.ndarray:
    """Time base ``t0 + i / rate_hz`` for a file without a usable time column."""
    if rate_hz is None or not np.isfinite(rate_hz) or rate_hz <= 0:
        raise InputError("has no time column and no frame rate; pass rate_hz=", path)
    if n < 2:
        raise InputError(f"has {n} frame{'s' if n != 1 else ''}; a trial needs at least 2", path)
    return t0 + np.arange(n) / float(rate_hz)


def positive_rate(value, path: Path, what: str = "frame rate") -> float:
    """``value`` as a positive finite float (Hz), else InputError."""
    try:
        rate = float(str(value).strip())
    except (TypeError, ValueError):
        raise InputError(f"the {what} {str(value).strip()!r} is not a number", path) from None
    if not np.isfinite(rate) or rate <= 0:
        raise InputError(f"the {what} {rate:g} Hz is not positive", path)
    return rate


# ----------------------------------------------------------------------------- markers
def check_marker_names(names: list[str], path: Path) -> list[str]:
    """Marker names stripped; empty or duplicate names raise InputError."""
    out = [str(n).strip() for n in names]
    for i, n in enumerate(out):
        if not n:
            raise InputError(f"marker {i + 1} has no name", path)
    seen: dict[str, int] = {}
    for n in out:
        if n in seen:
            raise InputError(f"marker name {n!r} appears twice", path)
        seen[n] = 1
    return out


#: A marker coordinate beyond this, in the file's own unit (a kilometre of millimetres), is absurd:
#: treated as missing and counted.
ABSURD = 1.0e6


def marker_frame(
    time: np.ndarray,
    names: list[str],
    xyz: np.ndarray,
    *,
    path: Path,
    fmt: str,
    rate_hz: float,
    units_in_file: str,
    scale: float,
    conversions: list[str],
    extra_attrs: dict | None = None,
    table: np.ndarray | None = None,
) -> pd.DataFrame:
    """Marker DataFrame of the COMMON layout from positions in file units.

    Parameters
    ----------
    time : ndarray, shape (frames,)
        Time (s).
    names : list of str
        Marker names as in the file (checked for duplicates and blanks).
    xyz : ndarray, shape (frames, markers, 3)
        Positions in the file's unit and lab axes; NaN for missing samples.
    scale : float
        Factor from the file's unit to metres.
    units_in_file, fmt : str
        Recorded in ``attrs``.
    conversions : list of str
        Sentences describing what was converted; the unit conversion and the
        zero-coded samples are appended here.
    table : ndarray, shape (frames, 1 + 3 * markers), optional
        A C-contiguous array whose columns 1: are ``xyz`` (``xyz`` is
        ``table[:, 1:].reshape(frames, markers, 3)``, as the fast path of
        :func:`humanbody.io._fastread.fast_block` fills it): the frame is built on it, in place,
        with no copy.  Otherwise a new table receives ``xyz``.

    Returns
    -------
    DataFrame
        ``time``, then ``<name>_x``, ``<name>_y``, ``<name>_z`` (m).  A sample
        exactly at (0, 0, 0), or with any NaN coordinate, is set to NaN in
        all three (:func:`humanbody.io._marker_kernels.clean_markers`, one parallel
        pass).  ``attrs`` carries kind, source, format, rate_hz, markers,
        units_in_file, conversions, missing (frames missing per marker, only
        markers with gaps) and empty_markers (markers missing in every frame).
    """
    from . import _fastread as fr
    from . import _marker_kernels as mk

    names = check_marker_names(names, path)
    n, m = len(time), len(names)
    if table is not None and not (
        table.shape == (n, 1 + 3 * m) and table.flags.c_contiguous and xyz.shape == (n, m, 3)
        and np.shares_memory(table[:, 1:], xyz) and xyz.strides == (table.strides[0], 24, 8)
    ):
        raise ValueError("marker_frame: xyz must be table[:, 1:] of a C-contiguous (frames, 1 + 3 m) table")
    if table is None:
        table = np.empty((n, 1 + 3 * m))  # one block: no per-column copies
        table[:, 1:].reshape(n, m, 3)[...] = xyz
    table[:, 0] = time
    k = fr.threads() if n * m > 1 << 16 else 1
    parts = np.zeros((k, m), dtype=np.int64)  # missing samples per marker, per range
    odd = np.zeros((k, 1), dtype=np.int64)  # infinite or absurd samples, per range
    limit = ABSURD  # in the file's units
    zeros = fr.in_threads(lambda i, r0, r1: mk.clean_markers(table, float(scale), r0, r1, parts[i], odd[i], limit), n, k)
    n_zero = int(sum(zeros))
    n_odd = int(odd.sum())
    counts = parts.sum(axis=0)
    conv = list(conversions)
    if scale != 1.0:
        conv.append(f"marker coordinates {units_in_file} -> m")
    if n_zero:
        conv.append(f"{n_zero} marker samples at exactly (0, 0, 0) set to NaN (missing)")
    if n_odd:
        conv.append(f"{n_odd} marker samples with an infinite or absurd coordinate (beyond "
                    f"{ABSURD:g} {units_in_file}) set to NaN (missing)")
    missing = {nm: int(c) for nm, c in zip(names, counts) if c}
    empty = [nm for nm, c in zip(names, counts) if c == n]
    columns = ["time"] + [f"{nm}_{axis}" for nm in names for axis in "xyz"]
    df = pd.DataFrame(table, columns=columns, copy=False)
    df.attrs.update(
        kind="markers",
        source=str(path),
        format=fmt,
        rate_hz=float(rate_hz),
        markers=list(names),
        units_in_file=units_in_file,
        conversions=conv,
        missing=missing,
        missing_zero_samples=n_zero,
        invalid_samples=n_odd,
        empty_markers=empty,
    )
    if extra_attrs:
        df.attrs.update(extra_attrs)
    return df


def table_frame(
    time: np.ndarray,
    columns: list[str],
    values: np.ndarray,
    *,
    path: Path,
    fmt: str,
    kind: str,
    rate_hz: float,
    conversions: list[str],
    extra_attrs: dict | None = None,
) -> pd.DataFrame:
    """DataFrame ``time`` + named columns with the common ``attrs``."""
    data = {"time": np.asarray(time, dtype=float)}
    for j, c in enumerate(columns):
        data[c] = values[:, j]
    df = pd.DataFrame(data)
    df.attrs.update(
        kind=kind, source=str(path), format=fmt, rate_hz=float(rate_hz),
        conversions=list(conversions),
    )
    if extra_attrs:
        df.attrs.update(extra_attrs)
    return df

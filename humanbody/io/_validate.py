"""The one validation step of every trial reader: checks, then the DataFrame.

A reader opens and parses its own format (with :mod:`humanbody.io._text`
or the fast path :mod:`humanbody.io._fastread`) and hands what it found -
names, numbers, the length unit and where it was given, the time column or
the frame rate, the file - to one call: :func:`marker_frame` for marker
trials, :func:`table_frame` for tables.  That call checks everything a user
can get wrong the same way for every format, and raises
:class:`humanbody.errors.InputError` naming the file, in one sentence:

* the length unit is known (mm, cm, m and their long names), and the units
  a file gives per column agree;
* the frame rate is a positive number;
* the time column is finite, strictly increasing and uniformly sampled, at
  least 2 frames, and agrees with a stated rate (frame numbers must be
  regular in the same way);
* marker names are present and unique; required table columns have no
  missing values.

Marker samples at exactly (0, 0, 0), with a NaN coordinate, or infinite or
absurdly far are set to NaN (missing) and counted; the unit is converted to
metres.  What was converted is listed in ``attrs["conversions"]``: the
reader's own notes first, then those of this step (time base, units,
missing samples).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._kernels import marker_table
from ..errors import INPUT, InputError, Note
from . import _threads

if TYPE_CHECKING:
    import pandas as pd

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


def _length_scale(unit: str, path: Path, where: str = "the header") -> float:
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


def length_unit(unit: str) -> tuple[str, float]:
    """Short name (mm, cm or m) of a length unit known to :data:`LENGTH_UNITS`, and metres per unit.

    Parameters
    ----------
    unit : str
        A length unit's name as a file or option gives it (e.g. "millimeters", "mm").

    Returns
    -------
    name : str
        "mm", "cm" or "m".
    metres : float
        Metres per unit.

    Raises
    ------
    InputError
        For an unknown unit.
    """
    short = _canonical_unit(unit)
    return short, LENGTH_UNITS[short]


def _canonical_unit(unit: str) -> str:
    """Short name (mm, cm or m) of a length unit known to :data:`LENGTH_UNITS`."""
    return {1e-3: "mm", 1e-2: "cm", 1.0: "m"}[LENGTH_UNITS[str(unit).strip().strip('"').lower()]]


# ----------------------------------------------------------------------------- time
def checked_time_base(
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


def _time_from_rate(n: int, rate_hz: float, path: Path, t0: float = 0.0) -> np.ndarray:
    """Time base ``t0 + i / rate_hz`` for a file without a usable time column."""
    if rate_hz is None or not np.isfinite(rate_hz) or rate_hz <= 0:
        raise InputError("has no time column and no frame rate; pass rate_hz=", path)
    if n < 2:
        raise InputError(f"has {n} frame{'s' if n != 1 else ''}; a trial needs at least 2", path)
    return t0 + np.arange(n) / float(rate_hz)


def _positive_rate(value, path: Path, what: str = "frame rate") -> float:
    """``value`` as a positive finite float (Hz), else InputError."""
    try:
        rate = float(str(value).strip())
    except (TypeError, ValueError):
        raise InputError(f"the {what} {str(value).strip()!r} is not a number", path) from None
    if not np.isfinite(rate) or rate <= 0:
        raise InputError(f"the {what} {rate:g} Hz is not positive", path)
    return rate


# ----------------------------------------------------------------------------- markers
def _check_marker_names(names: list[str], path: Path) -> list[str]:
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


def _unit(units, path: Path) -> tuple[str, float]:
    """Short name and factor to metres of ``units`` = (unit text or set of texts, where given)."""
    unit, where = units
    texts = [unit] if isinstance(unit, str) else sorted(unit)
    for u in texts:
        _length_scale(u, path, where)
    short = {_canonical_unit(u) for u in texts}
    if len(short) > 1:
        raise InputError(f"the marker columns give different units ({', '.join(texts)})", path)
    name = short.pop()
    return name, LENGTH_UNITS[name]


def _clock(path: Path, n: int, rate, time, frames, first_frame: int, line_numbers,
           time_note: str | None, conversions: list[str]) -> tuple[np.ndarray, float]:
    """Checked time base (s) and frame rate (Hz) of ``n`` frames; notes go to ``conversions``."""
    if rate is not None:
        rate = _positive_rate(rate[0], path, rate[1])
    if time is not None:
        time, rate = checked_time_base(time, path, line_numbers, header_rate=rate, conversions=conversions)
    elif frames is not None:
        numbers, origin = frames
        time, _ = checked_time_base((numbers - origin) / rate, path, line_numbers)  # frame numbers must be regular
    else:
        time = _time_from_rate(n, rate, path, t0=(first_frame - 1) / rate if rate is not None else 0.0)
    if time_note:
        conversions.append(time_note.format(rate=rate))
    return time, rate


def marker_frame(path: Path, fmt: str, names: list[str], xyz: np.ndarray, *, units: tuple,
                 rate: tuple | None = None, time: np.ndarray | None = None, frames: tuple | None = None,
                 first_frame: int = 1, line_numbers=None, time_note: str | None = None,
                 conversions: list[str] | tuple[str, ...] = (), extra_attrs: dict | None = None,
                 table: np.ndarray | None = None) -> pd.DataFrame:
    """Check a marker trial as read from its file and build its DataFrame.

    Parameters
    ----------
    path : Path
        The file, for messages and ``attrs["source"]``.
    fmt : str
        Format name, recorded in ``attrs["format"]``.
    names : list of str
        Marker names as in the file (checked for duplicates and blanks).
    xyz : ndarray, shape (frames, markers, 3)
        Positions in the file's unit and lab axes; NaN for missing samples.
    units : (str or set of str, str)
        The length unit (mm, cm, m or a long name) and where the file or
        the options give it ("the TRC Units field"), for the message.  A
        set holds the units of several columns, which must agree.
    rate : (value, str), optional
        The frame rate (Hz) the file or the options state, as text or a
        number, and what it is ("TRC DataRate"), for the message.
    time, frames, first_frame : optional
        The time base, by the first that applies: ``time`` (s), the file's
        time column (checked; with ``rate``, it must agree with it and the
        exact grid ``t0 + i / rate`` replaces the rounded file times);
        ``frames`` = (frame numbers, the number at time 0), time
        ``(number - origin) / rate`` (the numbers regular); else
        ``(first_frame - 1) / rate + i / rate``.
    line_numbers : sequence of int, optional
        Line of each frame in the file, for messages.
    time_note : str, optional
        A note on how time was obtained (``{rate}`` is the checked rate),
        added to the conversions after the time base is checked.
    conversions : list of str
        The reader's notes on what it converted; this step's notes follow.
    extra_attrs : dict, optional
        More ``attrs`` of the format.
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
        all three (:func:`humanbody._kernels.marker_table.clean_markers`, one parallel
        pass).  ``attrs`` carries kind, source, format, rate_hz, markers,
        units_in_file, conversions, missing (frames missing per marker, only
        markers with gaps) and empty_markers (markers missing in every frame).

    Raises
    ------
    InputError
        For an unknown or mixed length unit, a rate that is not a positive
        number, fewer than 2 frames, a bad time column or irregular frame
        numbers, a blank or repeated marker name, and markers that span more
        than ``MAX_SPAN`` metres within a frame (a wrong length unit).
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    conversions = list(conversions)
    units_in_file, scale = _unit(units, path)
    time, rate_hz = _clock(path, len(xyz), rate, time, frames, first_frame, line_numbers, time_note, conversions)
    names = _check_marker_names(names, path)
    n, m = len(time), len(names)
    table = _marker_table(table, xyz, time, m)
    n_zero, n_odd, counts = _clean(table, scale, n, m)
    _check_span(table, n, m, units, path)
    conversions += _cleaning_notes(units_in_file, scale, n_zero, n_odd)
    missing, empty = _gaps(names, counts, n)
    df = pd.DataFrame(table, columns=["time"] + [f"{nm}_{axis}" for nm in names for axis in "xyz"], copy=False)
    df.attrs.update(kind="markers", source=str(path), format=fmt, rate_hz=float(rate_hz), markers=list(names),
                    units_in_file=units_in_file, conversions=conversions, missing=missing,
                    missing_zero_samples=n_zero, invalid_samples=n_odd, empty_markers=empty)
    if extra_attrs:
        df.attrs.update(extra_attrs)
    return df


#: Largest median extent (m) of a frame's markers still taken as metres: one person, or a few people in
#: one capture volume, span a few metres; a hundred means the coordinates are not in the stated unit.
MAX_SPAN = 100.0


def _check_span(table: np.ndarray, n: int, m: int, units: tuple, path: Path) -> None:
    """Refuse a marker trial whose markers, in metres, span more than ``MAX_SPAN`` within a frame.

    The span of a frame is the largest extent along x, y or z of its valid markers; the median over up
    to 64 evenly spaced frames with 2 or more markers is compared (a few stray samples do not decide).
    Millimetres stated as metres make a person 1700 m tall.

    Parameters
    ----------
    table : numpy.ndarray
        (n, 1 + 3 m) time then the marker coordinates, in metres, NaN for missing samples.
    n, m : int
        Frames and markers.
    units : (str or set of str, str)
        The unit the file states and where, for the message.
    path : pathlib.Path
        The trial, named by the message.

    Raises
    ------
    InputError
        When the median span exceeds ``MAX_SPAN``.
    """
    if n == 0 or m < 2:
        return
    rows = np.unique(np.linspace(0, n - 1, min(n, 64)).astype(np.int64))
    xyz = table[rows, 1:].reshape(len(rows), m, 3)
    valid = np.isfinite(xyz).all(axis=2)[:, :, None]
    high = np.where(valid, xyz, -np.inf).max(axis=1)
    low = np.where(valid, xyz, np.inf).min(axis=1)
    used = valid[:, :, 0].sum(axis=1) >= 2
    if not used.any():
        return
    span = float(np.median((high - low)[used].max(axis=1)))
    if span > MAX_SPAN:
        unit, where = units
        shown = unit if isinstance(unit, str) else "/".join(sorted(unit))
        raise InputError(f"its markers span {span:.0f} m within a frame (a person spans a few): the coordinates "
                         f"are not in {shown!s} as {where} says (millimetres?)", path)


def _marker_table(table: np.ndarray | None, xyz: np.ndarray, time: np.ndarray, m: int) -> np.ndarray:
    """The (n, 1 + 3 m) block the marker frame is built on, ``time`` in its column 0: ``table`` itself when
    ``xyz`` is its ``table[:, 1:]`` (checked), else a new block holding ``xyz``."""
    n = len(time)
    if table is not None and not (
        table.shape == (n, 1 + 3 * m) and table.flags.c_contiguous and xyz.shape == (n, m, 3)
        and np.shares_memory(table[:, 1:], xyz) and xyz.strides == (table.strides[0], 24, 8)
    ):
        raise ValueError("marker_frame: xyz must be table[:, 1:] of a C-contiguous (frames, 1 + 3 m) table")
    if table is None:
        table = np.empty((n, 1 + 3 * m))  # one block: no per-column copies
        table[:, 1:].reshape(n, m, 3)[...] = xyz
    table[:, 0] = time
    return table


def _gaps(names: list[str], counts: np.ndarray, n: int) -> tuple[dict[str, int], list[str]]:
    """Missing samples per marker (markers with gaps only) and the markers missing in all ``n`` frames."""
    missing = {nm: int(c) for nm, c in zip(names, counts, strict=True) if c}
    return missing, [nm for nm, c in zip(names, counts, strict=True) if c == n]


def _clean(table: np.ndarray, scale: float, n: int, m: int) -> tuple[int, int, np.ndarray]:
    """Scale the marker columns of ``table`` to metres and set missing, zero, infinite or absurd samples
    to NaN, in place (:func:`humanbody._kernels.marker_table.clean_markers`, in threads over row ranges
    for large tables): ``(samples at exactly zero, infinite or absurd samples, missing per marker)``."""
    k = _threads.threads() if n * m > 1 << 16 else 1
    parts = np.zeros((k, m), dtype=np.int64)  # missing samples per marker, per range
    odd = np.zeros((k, 1), dtype=np.int64)  # infinite or absurd samples, per range
    limit = ABSURD  # in the file's units
    zeros = _threads.in_threads(
        lambda i, r0, r1: marker_table.clean_markers(table, float(scale), r0, r1, parts[i], odd[i], limit), n, k)
    return int(sum(zeros)), int(odd.sum()), parts.sum(axis=0)


def _cleaning_notes(units_in_file: str, scale: float, n_zero: int, n_odd: int) -> list[str]:
    """The conversions of :func:`marker_frame`'s step: units to metres, samples set to NaN."""
    notes: list[str] = []
    if scale != 1.0:
        notes.append(Note(f"marker coordinates {units_in_file} -> m", INPUT))
    if n_zero:
        notes.append(f"{n_zero} marker samples at exactly (0, 0, 0) set to NaN (missing)")
    if n_odd:
        notes.append(f"{n_odd} marker samples with an infinite or absurd coordinate (beyond "
                     f"{ABSURD:g} {units_in_file}) set to NaN (missing)")
    return notes


def table_frame(
    path: Path,
    fmt: str,
    kind: str,
    columns: list[str],
    values: np.ndarray,
    *,
    time: np.ndarray,
    line_numbers=None,
    required=(),
    conversions: list[str] | tuple[str, ...] = (),
    extra_attrs: dict | None = None,
) -> pd.DataFrame:
    """Check a table as read from its file and build its DataFrame: ``time`` + named columns.

    Parameters
    ----------
    path : Path
        The file, for messages and ``attrs["source"]``.
    fmt, kind : str
        Format and kind of table, recorded in ``attrs``.
    columns : list of str
        Names of the columns of ``values`` (time not among them).
    values : ndarray, shape (frames, len(columns))
        The columns' values (SI units after the reader's conversions).
    time : ndarray, shape (frames,)
        The file's time column (s): finite, strictly increasing, uniformly
        sampled, at least 2 frames.
    line_numbers : sequence of int, optional
        Line of each frame in the file, for messages.
    required : sequence of str
        Columns (``"time"`` among them, if named) that may not miss a value.
    conversions : list of str
        The reader's notes on what it converted.
    extra_attrs : dict, optional
        More ``attrs`` of the format.

    Returns
    -------
    pandas.DataFrame
        time (s) then the columns, with attrs (source, format, kind, conversions and extra_attrs).
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    if required:
        index = {c: j for j, c in enumerate(columns)}
        block = np.column_stack([time if c == "time" else values[:, index[c]] for c in required])
        holes = np.argwhere(np.isnan(block))
        if holes.size:
            i, j = holes[0]
            where = f"line {line_numbers[i]}" if line_numbers is not None else f"frame {i + 1}"
            raise InputError(f"missing value at {where} in column {required[j]!r}", path)
    time, rate_hz = checked_time_base(time, path, line_numbers)
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

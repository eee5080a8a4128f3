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
import re
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError

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

#: Cell texts read as a missing value (besides an empty cell).
MISSING_TOKENS = frozenset({"", "nan", "-nan", "+nan", "na", "n/a", "null", "-"})

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


# ----------------------------------------------------------------------------- fast path
#: Files below this size are read by the careful path only (it is fast enough).
FAST_MIN_BYTES = 256 * 1024

#: Bytes read at a time by the fast path (the file is never held whole); a
#: multiple of :data:`BLOCK_BYTES`.
CHUNK_BYTES = 1 << 23

#: Line feeds are counted per block of this many bytes; a chunk is parsed in
#: pieces that start on block boundaries, so each piece knows its first row.
BLOCK_BYTES = 1 << 18

#: Bytes read first for the header lines (more when they do not fit).
_HEAD_BYTES = 1 << 16

#: Characters besides "\n" (and "\r\n") that str.splitlines() takes as line ends.
_OTHER_LINE_ENDS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


class Head:
    """The first lines of a large text file, as :func:`read_lines` gives them.

    Attributes
    ----------
    path : Path
        The file.
    size : int
        Its size (bytes).
    lines : list of str
        The first lines (line ends removed).
    offsets : list of int
        Byte offset of the start of each line in ``lines`` and of the line after.
    """

    def __init__(self, path: Path, size: int, lines: list[str], offsets: list[int]):
        self.path, self.size, self.lines, self.offsets = path, size, lines, offsets


def read_head(path: Path, n_lines: int, min_bytes: int | None = None) -> Head | None:
    """First ``n_lines`` lines of a large text file, reading only its beginning.

    Returns None (use :func:`read_lines`) when the file is smaller than
    ``min_bytes`` (default :data:`FAST_MIN_BYTES`), has fewer lines, is not plain UTF-8 with "\n" or "\r\n"
    line ends in its head, or looks binary: then the head might not be what
    :func:`read_lines` makes of it.
    """
    try:
        with open(path, "rb") as fh:
            size = os.fstat(fh.fileno()).st_size
            if size < (FAST_MIN_BYTES if min_bytes is None else min_bytes):
                return None
            raw = fh.read(_HEAD_BYTES)
            if b"\x00" in raw[:4096]:
                return None
            offsets = [0]
            while len(offsets) <= n_lines:
                k = raw.find(b"\n", offsets[-1])
                if k >= 0:
                    offsets.append(k + 1)
                    continue
                more = fh.read(max(len(raw), _HEAD_BYTES))
                if not more:
                    return None  # fewer lines than n_lines
                raw += more
    except OSError:
        return None
    try:
        text = raw[: offsets[-1]].decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    lines = text.split("\n")[:n_lines]
    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
    if any(_OTHER_LINE_ENDS.search(line) for line in lines) or not any(line.strip() for line in lines):
        return None
    return Head(path, size, lines, offsets)


def _read_full(fh, view) -> int:
    """Fill ``view`` from ``fh`` (fewer bytes only at the end of the file); the bytes read."""
    got = 0
    while got < len(view):
        k = fh.readinto(view[got:])
        if not k:
            break
        got += k
    return got


def _count_lines(fh, bufs: list, expected: int, pool):
    """Line feeds of the rest of ``fh`` per :data:`BLOCK_BYTES` block (first pass).

    Reads ``bufs[0].size`` bytes (a multiple of the block) at a time; with
    two buffers and a thread pool, one chunk is counted on a pool thread
    while the next is read.  Returns ``lf`` (line feeds per block),
    ``ends_lf`` (the block's last byte is a line feed) and the bytes read,
    or None when a carriage return is not followed by a line feed
    (``str.splitlines`` would end a line there) or the file does not have
    the ``expected`` size.
    """
    from .. import _format as f

    blocks = -(-expected // BLOCK_BYTES)
    lf = np.zeros(blocks, dtype=np.int64)
    ends_lf = np.zeros(blocks, dtype=np.bool_)
    total = cr = crlf = 0
    prev_cr = False
    pending = None
    i = 0
    while True:
        buf = bufs[i % len(bufs)]
        k = _read_full(fh, memoryview(buf))  # meanwhile the previous chunk is counted
        if pending is not None:
            a, b = pending.result()
            cr, crlf, pending = cr + a, crlf + b, None
        if total + k > expected:
            return None
        if k:
            crlf += prev_cr and buf[0] == 10
            prev_cr = buf[k - 1] == 13
            args = (buf, k, BLOCK_BYTES, lf, ends_lf, total // BLOCK_BYTES)
            if pool is None or len(bufs) < 2:
                a, b = f.count_line_ends(*args)
                cr, crlf = cr + a, crlf + b
            else:
                pending = pool.submit(f.count_line_ends, *args)
            total += k
        if k < buf.size:
            break
        i += 1
    if pending is not None:
        a, b = pending.result()
        cr, crlf = cr + a, crlf + b
    if total != expected or cr != crlf:
        return None
    return lf, ends_lf, total


def threads() -> int:
    """Threads for the reading kernels: numba's thread count (NUMBA_NUM_THREADS).

    ``numba.get_num_threads()`` (which follows ``numba.set_num_threads``)
    once numba's threading layer runs; its configured count otherwise,
    without starting the layer (tens of ms) just to ask.
    """
    import numba
    from numba.np.ufunc import parallel

    if getattr(parallel, "_is_initialized", False):
        return max(1, numba.get_num_threads())
    return max(1, int(numba.config.NUMBA_NUM_THREADS))


def in_threads(fn, n: int, k: int) -> list:
    """Call ``fn(i, r0, r1)`` for ``[0, n)`` cut into ``k`` ranges, one per thread.

    ``fn`` calls a kernel that releases the GIL.  Returns the results in
    range order; one call on this thread when ``k`` is 1.
    """
    cuts = [n * i // k for i in range(k + 1)]
    if k == 1:
        return [fn(0, 0, n)]
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(k) as pool:
        return list(pool.map(lambda i: fn(i, cuts[i], cuts[i + 1]), range(k)))


def _flagged_row(line: np.ndarray, ncol: int, sep: str) -> np.ndarray | None:
    """Numbers of one line with cells the kernel leaves to Python; None to decline.

    The line is parsed again by :func:`humanbody._format.parse_rows`, which
    flags each such cell: long numbers are read by ``float``, missing-value
    tokens become NaN, any other text (or a row of only missing cells)
    declines the fast path.
    """
    from .. import _format as f

    values = np.empty((1, ncol))
    flags = np.zeros((1, ncol), dtype=np.uint8)
    status = np.empty(1, dtype=np.uint8)
    f.parse_rows(line, np.zeros(1, np.int64), np.array([line.size]), ncol, ord(sep), f._EXACT_POW10,
                 values, flags, status)
    if status[0] != f.ROW_OK:
        return None
    cells = None
    for j in np.flatnonzero(flags[0]):
        if cells is None:
            cells = bytes(line).decode("utf-8", "replace").split(sep)
        cell = cells[j].strip()
        if flags[0, j] == f.CELL_SLOW:
            values[0, j] = float(cell)
        elif cell.lower() in MISSING_TOKENS:
            values[0, j] = np.nan
        else:
            return None
    if np.isnan(values).all():
        return None
    return values[0]


class _Rows:
    """Row of the first line starting at a block boundary, from the first pass's counts."""

    def __init__(self, lf: np.ndarray, ends_lf: np.ndarray):
        self.before = np.concatenate(([0], np.cumsum(lf)))  # line feeds before block B
        self.ends_lf = ends_lf

    def at(self, block: int) -> int:
        """Lines starting before byte ``block * BLOCK_BYTES`` (> 0, within the text)."""
        return int(1 + self.before[block] - self.ends_lf[block - 1])


def _parse_chunk(pool, n_threads, buf, g0, cut, row, rows: _Rows, ncol, sep, dest, table, aux, status,
                 bounds):
    """Parse the whole lines buf[:cut] (text offset ``g0``, first row ``row``) into the table.

    Returns the row after the last line, or None to decline.  The chunk is
    cut into pieces at block boundaries (a few per thread), whose first rows
    are known; flagged rows are then read again one by one in Python.
    """
    from .. import _format as f

    b1, b2 = g0 // BLOCK_BYTES + 1, (g0 + cut - 1) // BLOCK_BYTES
    blocks = [] if pool is None else list(range(b1, b2 + 1, max(1, (b2 - b1 + 1) // (4 * n_threads))))
    edges = [0] + [b * BLOCK_BYTES - g0 for b in blocks] + [cut]
    first = [row] + [rows.at(b) for b in blocks]

    def piece(i):
        return f.parse_range(buf, edges[i], edges[i + 1], cut, ncol, ord(sep), f._EXACT_POW10, dest,
                             table, aux, status, bounds, first[i])

    ends = [piece(0)] if len(first) == 1 else list(pool.map(piece, range(len(first))))
    if any(e != s for e, s in zip(ends, first[1:])) or ends[-1] < 0:
        return None  # the file changed since its lines were counted
    end = ends[-1]
    st = status[row:end]
    if end > row and st.max() >= f.ROW_FLAGGED:
        if st.max() > f.ROW_FLAGGED:
            return None
        for r in row + np.flatnonzero(st == f.ROW_FLAGGED):  # rare: long numbers, odd tokens
            a, b = bounds[r]
            values = _flagged_row(buf[a:b], ncol, sep)
            if values is None:
                return None
            for j in np.flatnonzero(dest >= 0):
                table[r, dest[j]] = values[j]
            for j in np.flatnonzero(dest <= -2):
                aux[r, -2 - dest[j]] = values[j]
            status[r] = f.ROW_OK
    return end


def fast_block(head: Head, start: int, names: list[str], sep: str, dest, width: int, n_aux: int = 0):
    """Numbers of the data lines ``start`` (0-based) to the end, fast, straight into a table.

    The file is read twice, :data:`CHUNK_BYTES` at a time into one buffer:
    first its line feeds are counted (so the table is allocated once, at its
    final size), then the whole lines of each chunk are parsed on
    :func:`threads` threads (:func:`humanbody._format.parse_range`) into
    consecutive table rows.  The file is never held whole.  Blank lines
    are skipped as :func:`parse_block` skips them.  Any line or cell the
    careful path would treat differently or reject (a short or long row,
    text other than a missing-value token, a row of only missing cells, a
    stray CR) makes this return None: the caller then runs the careful
    path, which gives the precise message.

    Parameters
    ----------
    head : Head
        From :func:`read_head`.
    start : int
        First data line (0-based; within the head).
    names : list of str
        Column names of the data lines (their count is the row width).
    sep : str
        Field separator (one character, not a space).
    dest : sequence of int, length len(names)
        Where column j goes: table column ``dest[j]`` (>= 0), aux column
        ``-2 - dest[j]`` (<= -2), or nowhere (-1; still checked).
    width : int
        Table columns.  Columns no field goes to are left uninitialised.
    n_aux : int
        Aux columns.

    Returns
    -------
    table : ndarray, shape (rows, width), C-contiguous rows
    aux : ndarray, shape (rows, n_aux)
    line_numbers : ndarray of int
        1-based line of each row.
    """
    from concurrent.futures import ThreadPoolExecutor

    from .. import _format as f

    while start < len(head.lines) and not head.lines[start].strip(" \t"):
        start += 1  # leading blank lines: no row to move up later
    if start >= len(head.offsets):
        return None
    ncol = len(names)
    dest = np.asarray(dest, dtype=np.int64)
    first = head.offsets[start]
    expected = head.size - first
    if expected <= 0:
        return None
    chunk = max(BLOCK_BYTES, CHUNK_BYTES - CHUNK_BYTES % BLOCK_BYTES)  # whole blocks
    buf = np.empty(min(chunk, -(-expected // BLOCK_BYTES) * BLOCK_BYTES), dtype=np.uint8)
    n_threads = threads()
    pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else None
    try:
        with open(head.path, "rb", buffering=0) as fh:
            fh.seek(first)
            bufs = [buf] if pool is None or expected <= buf.size else [buf, np.empty_like(buf)]
            counted = _count_lines(fh, bufs, expected, pool)
            del bufs
            if counted is None:
                return None
            lf, ends_lf, _ = counted
            n = int(lf.sum()) + (0 if ends_lf[-1] else 1)
            rows = _Rows(lf, ends_lf)
            table = np.empty((n, width))
            aux = np.empty((n, n_aux))
            status = np.empty(n, dtype=np.uint8)
            bounds = np.empty((n, 2), dtype=np.int64)
            fh.seek(first)
            row = carry = g0 = 0
            while True:
                if carry == buf.size:  # one line longer than the buffer
                    buf = np.concatenate((buf, np.empty(buf.size, dtype=np.uint8)))
                k = _read_full(fh, memoryview(buf)[carry:])
                end = carry + k
                cut = end if not k else f.last_line_feed(buf, end) + 1
                if cut > 0:
                    row = _parse_chunk(pool, n_threads, buf, g0, cut, row, rows, ncol, sep, dest, table, aux,
                                       status, bounds)
                    if row is None:
                        return None
                    buf[:end - cut] = buf[cut:end]
                    g0 += cut
                carry = end - cut
                if not k:
                    break
    except OSError:
        return None
    finally:
        if pool is not None:
            pool.shutdown()
    del buf, bounds
    if row != n:
        return None  # the file changed between the two passes
    keep = status != f.ROW_BLANK
    kept = int(np.count_nonzero(keep))
    if kept == 0:
        return None
    if kept < n:  # blank lines: move the rows up, in place
        if (n - kept) * 8 > n:
            table, aux = table[keep], aux[keep]
        else:
            f.compact_rows(table, keep)
            f.compact_rows(aux, keep)
            table, aux = table[:kept], aux[:kept]
    line_numbers = start + 1 + np.flatnonzero(keep)
    return table, aux, line_numbers


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
        :func:`fast_block` fills it): the frame is built on it, in place,
        with no copy.  Otherwise a new table receives ``xyz``.

    Returns
    -------
    DataFrame
        ``time``, then ``<name>_x``, ``<name>_y``, ``<name>_z`` (m).  A sample
        exactly at (0, 0, 0), or with any NaN coordinate, is set to NaN in
        all three (:func:`humanbody._format.clean_markers`, one parallel
        pass).  ``attrs`` carries kind, source, format, rate_hz, markers,
        units_in_file, conversions, missing (frames missing per marker, only
        markers with gaps) and empty_markers (markers missing in every frame).
    """
    from .. import _format as f

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
    k = threads() if n * m > 1 << 16 else 1
    parts = np.zeros((k, m), dtype=np.int64)  # missing samples per marker, per range
    odd = np.zeros((k, 1), dtype=np.int64)  # infinite or absurd samples, per range
    limit = ABSURD  # in the file's units
    zeros = in_threads(lambda i, r0, r1: f.clean_markers(table, float(scale), r0, r1, parts[i], odd[i], limit), n, k)
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

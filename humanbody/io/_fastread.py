"""The fast reading engine: large delimited text files straight into a float64 table.

The readers that take large files (``trc``, ``csv_markers``) parse their
header themselves, then hand the data lines here: :func:`read_head` reads
only the beginning of the file, :func:`fast_block` streams the rest in
chunks through the parsing kernels (:mod:`humanbody._kernels.text_parse`) on several
threads.  Anything the careful path (:mod:`humanbody.io._text`) would
read differently or reject makes :func:`fast_block` decline (return None);
the reader then runs the careful path, which gives the precise message.
The numbers are the same either way.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from .._kernels import text_parse
from .._kernels.text_parse import MISSING_TOKENS
from ._threads import in_threads, threads  # noqa: F401  (fr.threads, fr.in_threads)

#: Files below this size are read by the careful path only.  A walk of a few seconds (TRC
#: of 40 markers, an OpenSim GRF file: 100-250 kB) already reads 1.4-6x faster by the fast
#: path (the same table), which a study of many short trials feels.
FAST_MIN_BYTES = 64 * 1024

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
    """The first lines of a large text file, as :func:`humanbody.io._text.read_lines` gives them.

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

    Returns None (use :func:`humanbody.io._text.read_lines`) when the file is smaller than
    ``min_bytes`` (default :data:`FAST_MIN_BYTES`), has fewer lines, is not plain UTF-8 with "\n" or "\r\n"
    line ends in its head, or looks binary: then the head might not be what
    :func:`humanbody.io._text.read_lines` makes of it.

    Parameters
    ----------
    path : pathlib.Path
        The text file.
    n_lines : int
        Lines wanted.
    min_bytes : int, optional
        The size below which the file is read whole instead (default FAST_MIN_BYTES).

    Returns
    -------
    Head or None
        The first lines and the file's size; None to read the file whole.
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
                a, b = text_parse.count_line_ends(*args)
                cr, crlf = cr + a, crlf + b
            else:
                pending = pool.submit(text_parse.count_line_ends, *args)
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


#: A decimal number as the kernels read one: sign, digits with at most one
#: point (at least one digit), optional exponent with at least one digit.
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


def flagged_row(line, ncol: int, sep: str) -> np.ndarray | None:
    """Numbers of one line the kernel marked ROW_FLAGGED; None to decline the fast path.

    A cell the kernel reads (:func:`humanbody._kernels.text_parse.parse_range`) is a
    decimal number (:data:`_DECIMAL`) or a missing-value token; the kernel
    flags the numbers it cannot round in one operation and other text.  Here
    every cell of the line is read by the same rule: a decimal number by
    ``float`` (correctly rounded, as the kernel's fast path), a missing-value
    token as NaN.  Any other text, a short row, a non-blank field past the
    last column or a row of only missing cells declines the fast path (the
    careful path then gives its message).

    Parameters
    ----------
    line : bytes-like
        The line without its line feed.
    ncol : int
        Fields expected.
    sep : str
        Field separator.

    Returns
    -------
    ndarray, shape (ncol,), or None
        The line's numbers (NaN for missing), or None to decline the fast path.
    """
    cells = bytes(line).decode("utf-8", "replace").split(sep)
    if len(cells) < ncol or any(c.strip(" \t\r") for c in cells[ncol:]):
        return None
    values = np.empty(ncol)
    for j, cell in enumerate(cells[:ncol]):
        cell = cell.strip(" \t\r")
        if _DECIMAL.fullmatch(cell):
            values[j] = float(cell)
        elif cell.strip().lower() in MISSING_TOKENS:
            values[j] = np.nan
        else:
            return None
    if np.isnan(values).all():
        return None
    return values


class _Rows:
    """Row of the first line starting at a block boundary, from the first pass's counts."""

    def __init__(self, lf: np.ndarray, ends_lf: np.ndarray):
        self.before = np.concatenate(([0], np.cumsum(lf)))  # line feeds before block B
        self.ends_lf = ends_lf

    def at(self, block: int) -> int:
        """Lines starting before byte ``block * BLOCK_BYTES`` (> 0, within the text)."""
        return int(1 + self.before[block] - self.ends_lf[block - 1])


class _Parse:
    """What every chunk of the second pass is parsed with (:func:`_parse_chunk`): the pool, the rows of the
    block boundaries, the layout (columns, separator, destinations) and the arrays it fills."""

    def __init__(self, pool, n_threads: int, rows: _Rows, ncol: int, sep: str, dest: np.ndarray,
                 table: np.ndarray, aux: np.ndarray, status: np.ndarray, bounds: np.ndarray):
        self.pool, self.n_threads, self.rows, self.ncol, self.sep, self.dest = pool, n_threads, rows, ncol, sep, dest
        self.table, self.aux, self.status, self.bounds = table, aux, status, bounds


def _parse_chunk(p: _Parse, buf, g0, cut, row):
    """Parse the whole lines buf[:cut] (text offset ``g0``, first row ``row``) into the table ``p.table``.

    Returns the row after the last line, or None to decline.  The chunk is
    cut into pieces at block boundaries (a few per thread), whose first rows
    are known; flagged rows are then read again one by one in Python.
    """
    pool, rows, ncol, sep, dest = p.pool, p.rows, p.ncol, p.sep, p.dest
    table, aux, status, bounds = p.table, p.aux, p.status, p.bounds
    b1, b2 = g0 // BLOCK_BYTES + 1, (g0 + cut - 1) // BLOCK_BYTES
    blocks = [] if pool is None else list(range(b1, b2 + 1, max(1, (b2 - b1 + 1) // (4 * p.n_threads))))
    edges = [0] + [b * BLOCK_BYTES - g0 for b in blocks] + [cut]
    first = [row] + [rows.at(b) for b in blocks]

    def piece(i):
        return text_parse.parse_range(buf, edges[i], edges[i + 1], cut, ncol, ord(sep), text_parse.EXACT_POW10,
                                      dest, table, aux, status, bounds, first[i])

    ends = [piece(0)] if len(first) == 1 else list(pool.map(piece, range(len(first))))
    # strict=False: piece i must end where piece i + 1 starts; the last piece's end is checked on its own
    if any(e != s for e, s in zip(ends, first[1:], strict=False)) or ends[-1] < 0:
        return None  # the file changed since its lines were counted
    end = ends[-1]
    st = status[row:end]
    if end > row and st.max() >= text_parse.ROW_FLAGGED:
        if st.max() > text_parse.ROW_FLAGGED:
            return None
        for r in row + np.flatnonzero(st == text_parse.ROW_FLAGGED):  # rare: long numbers, odd tokens
            a, b = bounds[r]
            values = flagged_row(buf[a:b], ncol, sep)
            if values is None:
                return None
            for j in np.flatnonzero(dest >= 0):
                table[r, dest[j]] = values[j]
            for j in np.flatnonzero(dest <= -2):
                aux[r, -2 - dest[j]] = values[j]
            status[r] = text_parse.ROW_OK
    return end


def fast_block(head: Head, start: int, names: list[str], sep: str, dest, width: int, n_aux: int = 0):
    """Numbers of the data lines ``start`` (0-based) to the end, fast, straight into a table.

    The file is read twice, :data:`CHUNK_BYTES` at a time into one buffer:
    first its line feeds are counted (so the table is allocated once, at its
    final size), then the whole lines of each chunk are parsed on
    :func:`threads` threads (:func:`humanbody._kernels.text_parse.parse_range`) into
    consecutive table rows.  The file is never held whole.  Blank lines
    are skipped as :func:`humanbody.io._text.parse_block` skips them.  Any line or cell the
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
        The numbers of the columns sent to the table (file units); None (the whole return) declines.
    aux : ndarray, shape (rows, n_aux)
        The numbers of the columns sent to aux.
    line_numbers : ndarray of int
        1-based line of each row.
    """
    while start < len(head.lines) and not head.lines[start].strip(" \t"):
        start += 1  # leading blank lines: no row to move up later
    if start >= len(head.offsets):
        return None
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
            table, aux = np.empty((n, width)), np.empty((n, n_aux))
            status = np.empty(n, dtype=np.uint8)
            fh.seek(first)
            parse = _Parse(pool, n_threads, _Rows(lf, ends_lf), len(names), sep, np.asarray(dest, dtype=np.int64),
                           table, aux, status, np.empty((n, 2), dtype=np.int64))
            row = _second_pass(fh, buf, parse)
    except OSError:
        return None
    finally:
        if pool is not None:
            pool.shutdown()
    del buf, parse
    if row != n:
        return None  # the file changed between the two passes (or a line declined)
    return _without_blank_rows(table, aux, status, start)


def _second_pass(fh, buf: np.ndarray, p: _Parse) -> int | None:
    """Parse the rest of ``fh`` chunk by chunk (whole lines; a partial last line carried to the next
    chunk, the buffer doubled for a line longer than it): the row after the last, or None to decline."""
    row = carry = g0 = 0
    while True:
        if carry == buf.size:  # one line longer than the buffer
            buf = np.concatenate((buf, np.empty(buf.size, dtype=np.uint8)))
        # an ndarray is a buffer; numpy's stubs declare __buffer__ only for Python >= 3.12
        k = _read_full(fh, memoryview(buf)[carry:])  # type: ignore[arg-type]
        end = carry + k
        cut = end if not k else text_parse.last_line_feed(buf, end) + 1
        if cut > 0:
            got = _parse_chunk(p, buf, g0, cut, row)
            if got is None:
                return None
            row = got
            buf[:end - cut] = buf[cut:end]
            g0 += cut
        carry = end - cut
        if not k:
            return row


def _without_blank_rows(table: np.ndarray, aux: np.ndarray, status: np.ndarray, start: int):
    """``(table, aux, line numbers)`` without the rows of blank lines (moved up in place when few), or
    None when every line is blank; line numbers are 1-based, the first data line being ``start``."""
    n = len(status)
    keep = status != text_parse.ROW_BLANK
    kept = int(np.count_nonzero(keep))
    if kept == 0:
        return None
    if kept < n:  # blank lines: move the rows up, in place
        if (n - kept) * 8 > n:
            table, aux = table[keep], aux[keep]
        else:
            text_parse.compact_rows(table, keep)
            text_parse.compact_rows(aux, keep)
            table, aux = table[:kept], aux[:kept]
    line_numbers = start + 1 + np.flatnonzero(keep)
    return table, aux, line_numbers

"""Numba kernels that read delimited decimal text into a float64 table (arrays in, arrays out).

Nothing here knows about files, pandas or column names; the fast reading
engine (:mod:`humanbody.io._fastread`) reads the file in chunks and calls
these on the bytes.  Kernels are cached on disk (``cache=True``).

:func:`parse_range` reads the lines starting in a byte range of a text
chunk, each in one pass over its bytes, straight into the rows and columns
of the caller's table (:func:`_line_into`).  Decimal numbers are read with
Clinger's fast path: with at most 18 digits, a mantissa below 2^53 and a
decimal exponent within +-22, the value is the mantissa times or divided by
an exact power of ten, one correctly rounded operation (Clinger 1990, "How
to read floating point numbers accurately", PLDI), so it equals the
correctly rounded value of the text.  Missing-value tokens become NaN.  A
line with any other cell (a longer number, other text) is marked
ROW_FLAGGED; the caller reads that line with Python's ``float`` (see
:func:`humanbody.io._fastread.flagged_row`), which is correctly rounded too.
:func:`count_line_ends` counts line feeds per block in a first pass, so the
caller knows the row of the first line of every block and runs several
ranges on threads (the kernels release the GIL).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True

#: Row status codes of :func:`parse_range`: a row of numbers, a blank line
#: (skipped), a row with a cell for Python to read, a row with fewer fields
#: than columns, a row with a non-blank field past the last column, a row of
#: only missing cells.
ROW_OK, ROW_BLANK, ROW_FLAGGED, ROW_SHORT, ROW_EXTRA, ROW_EMPTY = 0, 1, 2, 3, 4, 5

#: Exact doubles 10.0**i, i = 0..22 (Clinger's fast path).
EXACT_POW10 = np.array([10.0**i for i in range(23)])
_MAX_EXACT = 9007199254740992  # 2^53: larger integer mantissas are not all doubles

#: Cell texts read as a missing value (besides an empty cell), any case: the
#: tokens :func:`_missing_token` recognises, for the Python paths.
MISSING_TOKENS = frozenset({"", "nan", "-nan", "+nan", "na", "n/a", "null", "-"})


@nb.njit(cache=_CACHE, inline="always")
def _trim(c, sep):
    """True for a byte stripped around a field: space, CR, and tab unless tab separates."""
    return c == 32 or c == 13 or (c == 9 and sep != 9)


@nb.njit(cache=_CACHE, inline="always")
def _missing_token(buf, s, t):
    """True when buf[s:t] is "-", "na", "nan", "n/a", "-nan", "+nan" or "null" (any case)."""
    size = t - s
    if size == 1:
        return buf[s] == 45
    if size == 2:
        return buf[s] | 32 == 110 and buf[s + 1] | 32 == 97
    if size == 3:
        if buf[s] | 32 != 110:
            return False
        return ((buf[s + 1] | 32 == 97 and buf[s + 2] | 32 == 110)
                or (buf[s + 1] == 47 and buf[s + 2] | 32 == 97))
    if size == 4:
        c = buf[s]
        if c == 43 or c == 45:
            return buf[s + 1] | 32 == 110 and buf[s + 2] | 32 == 97 and buf[s + 3] | 32 == 110
        return c | 32 == 110 and buf[s + 1] | 32 == 117 and buf[s + 2] | 32 == 108 and buf[s + 3] | 32 == 108
    return False


@nb.njit(cache=_CACHE)
def _line_into(buf, s, n, ncol, sep, pow10, dest, table, aux, row):
    """Parse the line starting at buf[s] into row ``row`` of table/aux (one pass over its bytes).

    Returns the row status and the offset of the line's end (its line feed,
    or ``n``).  Field j goes to ``table[row, dest[j]]`` when dest[j] >= 0,
    to ``aux[row, -2 - dest[j]]`` when dest[j] <= -2, nowhere when -1 (it is
    still checked).  A number with more than 18 digits (leading zeros
    counted), a mantissa above 2^53 or a decimal exponent beyond +-22, or
    text other than a missing-value token makes the row ROW_FLAGGED.
    """
    q = s
    while q < n and (buf[q] == 32 or buf[q] == 9 or buf[q] == 13):
        q += 1
    if q >= n or buf[q] == 10:
        return ROW_BLANK, q
    j = 0
    p = s
    flagged = 0
    numeric = 0
    k = s
    while True:
        while p < n and _trim(buf[p], sep):
            p += 1
        c = buf[p] if p < n else 10
        k = p
        x = np.nan
        if c != sep and c != 10:
            if j >= ncol:  # a non-blank field past the last column
                while k < n and buf[k] != 10:
                    k += 1
                return ROW_EXTRA, k
            neg = False
            if c == 43 or c == 45:  # + -
                neg = c == 45
                k += 1
            mant = np.uint64(0)  # wraps past 19 digits (then unused: nd > 18 flags the cell)
            nd = 0  # digits read, leading zeros included; more than 18: Python reads the cell
            exp10 = 0
            while k < n:
                d = np.uint64(buf[k]) - np.uint64(48)  # a non-digit wraps above 9
                if d > np.uint64(9):
                    break
                mant = mant * np.uint64(10) + d
                nd += 1
                k += 1
            if k < n and buf[k] == 46:  # '.'
                k += 1
                k0 = k
                while k < n:
                    d = np.uint64(buf[k]) - np.uint64(48)
                    if d > np.uint64(9):
                        break
                    mant = mant * np.uint64(10) + d
                    k += 1
                nd += k - k0
                exp10 = k0 - k
            ok = nd > 0
            if ok and k < n and (buf[k] == 101 or buf[k] == 69):  # e E
                k += 1
                eneg = False
                if k < n and (buf[k] == 43 or buf[k] == 45):
                    eneg = buf[k] == 45
                    k += 1
                ev = 0
                ne = 0
                while k < n and 48 <= buf[k] <= 57:
                    if ev < 100000:
                        ev = ev * 10 + (np.int64(buf[k]) - 48)
                    ne += 1
                    k += 1
                if ne == 0:
                    ok = False
                exp10 += -ev if eneg else ev
            while k < n and _trim(buf[k], sep):
                k += 1
            if ok and (k >= n or buf[k] == sep or buf[k] == 10):
                numeric += 1
                if nd > 18 or exp10 < -22 or exp10 > 22 or mant > np.uint64(_MAX_EXACT):
                    flagged += 1  # exact rounding needs more than one operation
                elif mant == np.uint64(0):
                    x = -0.0 if neg else 0.0
                else:
                    # Clinger's fast path: both operands exact, one rounding
                    m = float(mant)
                    x = m * pow10[exp10] if exp10 >= 0 else m / pow10[-exp10]
                    if neg:
                        x = -x
            else:  # not a number: the field runs to the separator
                while k < n and buf[k] != sep and buf[k] != 10:
                    k += 1
                t = k
                while t > p and _trim(buf[t - 1], sep):
                    t -= 1
                if not _missing_token(buf, p, t):
                    flagged += 1
        if j < ncol:
            d = dest[j]
            if d >= 0:
                table[row, d] = x
            elif d <= -2:
                aux[row, -2 - d] = x
        j += 1
        if k >= n or buf[k] == 10:
            break
        p = k + 1
    if j < ncol:
        return ROW_SHORT, k
    if flagged:
        return ROW_FLAGGED, k
    if numeric == 0:
        return ROW_EMPTY, k
    return ROW_OK, k


@nb.njit(cache=_CACHE, nogil=True)
def parse_range(buf, a, b, n, ncol, sep, pow10, dest, table, aux, status, bounds, r):
    """Parse the lines of buf[:n] that start in [a, b) into table rows r, r + 1, ...

    The caller knows the row of the first line from the line feeds counted
    per block by :func:`count_line_ends` and runs several ranges on
    threads (the GIL is released).  Each line is read in
    one pass over its bytes (:func:`_line_into`): no array of line offsets
    is made first.

    Parameters
    ----------
    buf : ndarray, uint8
        Text; buf[:n] starts at a line start.  Lines end with a line feed
        (a CR before it is a blank); the last may run to ``n``.
    a, b : int
        Byte range of the line starts to parse.
    ncol : int
        Fields per line; further fields must be blank.
    sep : int
        Byte of the field separator (not a space).
    pow10 : ndarray, shape (23,)
        :data:`EXACT_POW10`.
    dest : ndarray, shape (ncol,), int64
        Where field j goes (see :func:`_line_into`).
    table, aux : ndarray, float64, shape (rows, .)
        Receive the numbers of kept fields (NaN for empty and missing-value
        cells); blank lines leave their rows untouched.
    status : ndarray, shape (rows,), uint8
        Receives the ROW_* code of each line.
    bounds : ndarray, shape (rows, 2), int64
        Receives the start and end (line feed or n) of each line in buf.
    r : int
        Row of the first line starting in [a, b).

    Returns
    -------
    int
        The row after the last line parsed; -1 when the lines would overrun
        the table (nothing written past it).
    """
    s = a
    if a > 0:
        while s < b and buf[s - 1] != 10:
            s += 1
    while s < b:
        if r >= status.shape[0]:
            return -1
        st, e = _line_into(buf, s, n, ncol, sep, pow10, dest, table, aux, r)
        status[r] = st
        bounds[r, 0] = s
        bounds[r, 1] = e
        r += 1
        s = e + 1
    return r


@nb.njit(cache=_CACHE, nogil=True)
def count_line_ends(buf, n, block, lf, ends_lf, b0):
    """Line feeds of buf[:n] per block of ``block`` bytes, and the carriage returns.

    Block j (bytes ``j * block`` to ``(j + 1) * block``) stores its count
    of line feeds in ``lf[b0 + j]`` and whether its last byte is one in
    ``ends_lf[b0 + j]``.  Returns the number of CR and of CR LF pairs.

    Parameters
    ----------
    buf : ndarray of uint8, shape (>= n,)
        The bytes read from the file (a chunk of it).
    n : int
        Bytes of ``buf`` to scan (``buf[:n]``).
    block : int
        Bytes per block (the last block of the chunk may be shorter).
    lf : ndarray of int64
        Written at ``b0 .. b0 + ceil(n / block) - 1``: line feeds (byte 10) per block.
    ends_lf : ndarray of bool
        Written at the same indices: whether the block's last byte is a line feed.
    b0 : int
        0-based index in ``lf`` and ``ends_lf`` of this chunk's first block.

    Returns
    -------
    cr : int
        Number of carriage returns (byte 13) in ``buf[:n]``.
    crlf : int
        Number of CR LF pairs wholly inside ``buf[:n]`` (a pair split across chunks is the caller's).
    """
    cr = 0
    for j in range((n + block - 1) // block):
        piece = buf[j * block:min(n, (j + 1) * block)]
        c = np.uint32(0)  # 32-bit lanes: this form is vectorised
        r = np.uint32(0)
        for x in piece:
            c += np.uint32(x == 10)
            r += np.uint32(x == 13)
        lf[b0 + j] = c
        ends_lf[b0 + j] = piece[-1] == 10
        cr += r
    crlf = 0
    if cr:
        for i in range(n - 1):
            if buf[i] == 13 and buf[i + 1] == 10:
                crlf += 1
    return cr, crlf


@nb.njit(cache=_CACHE)
def last_line_feed(buf, n):
    """Offset of the last line feed in buf[:n], -1 when there is none.

    Parameters
    ----------
    buf : ndarray of uint8, shape (>= n,)
        The bytes to search.
    n : int
        Bytes of ``buf`` searched (``buf[:n]``).

    Returns
    -------
    int
        0-based offset of the last line feed (byte 10) in ``buf[:n]``, -1 when there is none.
    """
    for i in range(n - 1, -1, -1):
        if buf[i] == 10:
            return i
    return -1


@nb.njit(cache=_CACHE)
def compact_rows(table, keep):
    """Move the rows with ``keep`` set to the top of ``table``, in order, in place; return their count.

    Parameters
    ----------
    table : ndarray, shape (rows, cols)
        Any dtype; changed in place: rows ``0 .. count - 1`` become the kept rows in their order, the
        rows below are left as they were (stale).
    keep : ndarray of bool, shape (rows,)
        Which rows to keep.

    Returns
    -------
    int
        The number of kept rows ``count`` (the caller slices ``table[:count]``).
    """
    w = 0
    for i in range(table.shape[0]):
        if keep[i]:
            if w != i:
                for j in range(table.shape[1]):
                    table[w, j] = table[i, j]
            w += 1
    return w

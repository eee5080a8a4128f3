"""Numba kernels between float64 matrices and CSV text (arrays in, arrays out).

Nothing here knows about files, pandas or column names.  The printing
kernels take a float64 matrix and fill a ``uint8`` buffer the caller
allocated (:mod:`humanbody.writers` writes the bytes); the parsing kernel
takes the bytes of a text block and fills a float64 matrix
(:func:`humanbody.io._validate.fast_block` checks and uses it).  Kernels
are cached on disk (``cache=True``).

Printing.  Each value is printed with ``digits`` significant digits in the
layout of C's ``%.{digits}g`` (Python's ``"%.10g" % x``): fixed notation for
decimal exponents -4 <= e < digits, else ``d.ddde+XX``; trailing zeros and
a trailing point are dropped; NaN is an empty field, infinities are
``inf`` and ``-inf``, negative zero is ``-0``.  The output is the correctly
rounded decimal (half to even, as ``%g``), byte for byte what ``%g``
prints, except when x lies within about 10^-15 units of the last digit of
a rounding tie, and always

    |x - D| <= (0.5 + 1e-15) * 10^(e - digits + 1).

How: per row, :func:`_row_digits` scales |x| by 10^k (k = digits - 1 - e)
with one double multiplication (error below 2^-51 relative) and rounds;
when that error could change the result (the scaled value within
2^-50 * 10^digits of a tie or of a power of ten) it hands the value to
:func:`_exact_digits`, which forms the product in double-double
arithmetic: 10^k stored as an unevaluated sum hi + lo of two doubles (from
exact integers), x * (hi + lo) formed without rounding error by Dekker's
two-product (Dekker 1971, "A floating-point technique for extending the
available precision", Numer. Math. 18; Ogita, Rump & Oishi 2005, SIAM J.
Sci. Comput. 26, Algorithm 3.3), leaving about 2^-104 relative.  ``digits``
is at most 15 so the scaled integer stays below 2^53.

Parsing.  :func:`parse_rows` reads decimal numbers with Clinger's fast path
(one correctly rounded operation when the mantissa has at most 18 digits
and fits 2^53 and the exponent is within +-22) and flags every other cell
for the caller.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba as nb
import numpy as np

_CACHE = True

#: Largest number of significant digits the kernels print.
MAX_DIGITS = 15


def field_width(digits: int) -> int:
    """Largest number of bytes one printed value takes, without its separator.

    Sign, ``digits`` digits, the point, ``e``, the exponent sign and three
    exponent digits.
    """
    return digits + 7


# Powers of ten 10^k, k in [_K_MIN, _K_MAX], as hi + lo (double-double).  The
# scaling exponent k = digits - 1 - e spans about [-309, 338]; values
# scaled by 2^+-_SHIFT (see _scale) keep every product and split finite.
_K_MIN, _K_MAX = -330, 360
_SHIFT = 256
_UP = 2.0**_SHIFT  # module constants: numba freezes them (a ** in a kernel is a runtime loop)
_DOWN = 2.0**-_SHIFT


def _pow10_table(shift: int) -> np.ndarray:
    """Rows (hi, lo) with hi + lo = 10^k * 2^shift to ~2^-106 relative, k = _K_MIN.._K_MAX."""
    out = np.zeros((_K_MAX - _K_MIN + 1, 2))
    two = Fraction(2) ** shift
    for i, k in enumerate(range(_K_MIN, _K_MAX + 1)):
        exact = Fraction(10) ** k * two
        hi = float(exact) if exact < Fraction(2) ** 1023 else np.inf
        if np.isfinite(hi) and hi > 0.0:
            lo = float(exact - Fraction(hi))
        else:
            hi, lo = np.inf, 0.0
        out[i] = hi, lo
    return out


def pow10_tables() -> np.ndarray:
    """Tables for :func:`format_block`, shape (3, n, 2).

    Row ``k - _K_MIN`` of table 0 holds 10^k as hi + lo; table 1 holds
    10^k * 2^SHIFT (for |x| > 1e270, which :func:`_scaled` multiplies by
    2^-SHIFT), table 2 holds 10^k * 2^-SHIFT (for |x| < 1e-270).
    """
    return np.stack([_pow10_table(0), _pow10_table(_SHIFT), _pow10_table(-_SHIFT)])


@nb.njit(cache=_CACHE, inline="always")
def _two_prod(a, b):
    """p + e = a * b exactly (Dekker's product with Veltkamp splitting)."""
    p = a * b
    c = 134217729.0 * a
    ah = c - (c - a)
    al = a - ah
    c = 134217729.0 * b
    bh = c - (c - b)
    bl = b - bh
    e = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    return p, e


@nb.njit(cache=_CACHE, inline="always")
def _scaled(ax, k, tables):
    """|x| * 10^k as hi + lo (double-double); |x| finite and positive."""
    # keep the split (134217729 * a) and the product finite: move very large
    # or very small |x| by an exact power of two and use the table that
    # carries the opposite power.
    if ax > 1e270:
        a = ax * _DOWN
        t = 1
    elif ax < 1e-270:
        a = ax * _UP
        t = 2
    else:
        a = ax
        t = 0
    ph = tables[t, k - _K_MIN, 0]
    pl = tables[t, k - _K_MIN, 1]
    hi, err = _two_prod(a, ph)
    lo = err + a * pl
    s = hi + lo  # renormalise (fast two-sum, |hi| >= |lo|)
    return s, lo - (s - hi)


@nb.njit(cache=_CACHE)
def _exact_digits(ax, digits, tables, ipow10):
    """Rounded digits q (digits-digit integer) and decimal exponent e of ax > 0, exactly.

    ax is rounded to ``digits`` significant digits, half to even, from its
    double-double scaling ax * 10^(digits - 1 - e) (module docstring).
    """
    # decimal exponent e with 10^e <= ax < 10^(e+1): estimate from the binary
    # exponent (low by at most one), raise it by comparing with 10^(e+1)
    e2 = math.frexp(ax)[1]  # ax = m * 2^e2, m in [0.5, 1)
    e = ((e2 - 1) * 78913) >> 18  # floor((e2 - 1) * log10(2)) for |e2| < 2^12
    if ax >= tables[0, e + 1 - _K_MIN, 0]:
        e += 1
    lower = float(ipow10[digits - 1])
    upper = float(ipow10[digits])
    hi, lo = _scaled(ax, digits - 1 - e, tables)
    for _ in range(2):  # only when ax is within rounding of a power of ten
        # compare the double-double hi + lo exactly with the bounds
        if hi < lower or (hi == lower and lo < 0.0):
            e -= 1
        elif hi > upper or (hi == upper and lo >= 0.0):
            e += 1
        else:
            break
        hi, lo = _scaled(ax, digits - 1 - e, tables)
    # round hi + lo to an integer q, half to even
    n = np.floor(hi)
    frac = (hi - n) + lo
    if frac < 0.0:
        n -= 1.0
        frac += 1.0
    elif frac >= 1.0:
        n += 1.0
        frac -= 1.0
    q = np.uint64(n)
    if frac > 0.5 or (frac == 0.5 and (q & np.uint64(1)) == np.uint64(1)):
        q += np.uint64(1)
    if q >= np.uint64(ipow10[digits]):  # rounded up to the next power of ten
        q = np.uint64(ipow10[digits - 1])
        e += 1
    return q, e


#: Marks a value :func:`_row_digits` leaves to :func:`_exact_digits`.
_SPECIAL = -9999


@nb.njit(cache=_CACHE)
def _row_digits(row, bits, digits, tables, ipow10, q_out, e_out):
    """Rounded digits q and decimal exponent e of every value of a row, fast path.

    One double multiplication x * 10^k (both rounded: relative error below
    2^-52) gives the scaled value y to within ``margin`` = 2^-50 * 10^digits
    units; whenever that is not enough to decide (y within ``margin`` of a
    rounding tie or of the bounds 10^(digits-1), 10^digits), and for zero,
    NaN, infinities and |x| outside (1e-270, 1e270), e is set to _SPECIAL
    and the caller handles the value (the exact :func:`_exact_digits`).
    """
    lower = float(ipow10[digits - 1])
    upper = float(ipow10[digits])
    margin = upper * 2.0**-50
    top = np.uint64(ipow10[digits])
    for j in range(row.shape[0]):
        ax = abs(row[j])
        if not (ax > 1e-270 and ax < 1e270):
            e_out[j] = _SPECIAL
            continue
        e = ((((bits[j] >> 52) & 0x7FF) - 1023) * 78913) >> 18  # floor(e2 * log10(2))
        if ax >= tables[0, e + 1 - _K_MIN, 0]:
            e += 1
        y = ax * tables[0, digits - 1 - e - _K_MIN, 0]
        n = np.floor(y)
        frac = y - n
        if (y < lower + margin or y > upper - margin or abs(frac - 0.5) <= margin
                or frac <= margin or frac >= 1.0 - margin):
            e_out[j] = _SPECIAL
            continue
        q = np.uint64(n)
        if frac > 0.5:
            q += np.uint64(1)
            if q == top:  # rounded up to the next power of ten
                q = np.uint64(ipow10[digits - 1])
                e += 1
        q_out[j] = q
        e_out[j] = e


@nb.njit(cache=_CACHE)
def _format_rows(values, bits, r0, r1, digits, sep, tables, ipow10, dig2, out, pos):
    """Rows r0..r1-1 of ``values`` as CSV lines at out[pos:]; return the end position.

    The printing is written out in this one loop on purpose: a call per
    value to a function taking arrays costs more than the printing.
    """
    ncol = values.shape[1]
    qrow = np.empty(ncol, np.uint64)
    erow = np.empty(ncol, np.int64)
    zero, ten, hundred = np.uint64(0), np.uint64(10), np.uint64(100)
    for i in range(r0, r1):
        _row_digits(values[i], bits[i], digits, tables, ipow10, qrow, erow)
        for j in range(ncol):
            if j:
                out[pos] = sep
                pos += 1
            x = values[i, j]
            if x < 0.0 or (x == 0.0 and np.signbit(x)):
                out[pos] = 45  # '-'
                pos += 1
            e = erow[j]
            q = qrow[j]
            if e == _SPECIAL:
                ax = abs(x)
                if x != x:  # NaN: empty field
                    continue
                if ax == np.inf:
                    out[pos] = 105  # 'i'
                    out[pos + 1] = 110  # 'n'
                    out[pos + 2] = 102  # 'f'
                    pos += 3
                    continue
                if ax == 0.0:
                    out[pos] = 48
                    pos += 1
                    continue
                q, e = _exact_digits(ax, digits, tables, ipow10)
            # drop trailing zeros, then write the nd digits of q right to left,
            # two at a time, straight into out (the field's length is known)
            nd = digits
            while nd > 1 and q % ten == zero:
                q //= ten
                nd -= 1
            if e < -4 or e >= digits:  # exponential notation d.ddde+XX
                end = pos + nd + (1 if nd > 1 else 0)
                p = end
                for _ in range((nd - 1) >> 1):
                    r = q % hundred
                    q //= hundred
                    out[p - 1] = dig2[2 * r + 1]
                    out[p - 2] = dig2[2 * r]
                    p -= 2
                if (nd - 1) & 1:
                    out[p - 1] = 48 + q % ten
                    q //= ten
                    p -= 1
                if nd > 1:
                    out[pos + 1] = 46  # '.'
                out[pos] = 48 + q
                pos = end
                out[pos] = 101  # 'e'
                if e < 0:
                    out[pos + 1] = 45
                    ee = -e
                else:
                    out[pos + 1] = 43  # '+'
                    ee = e
                pos += 2
                if ee >= 100:
                    out[pos] = 48 + ee // 100
                    pos += 1
                    ee %= 100
                out[pos] = dig2[2 * ee]
                out[pos + 1] = dig2[2 * ee + 1]
                pos += 2
                continue
            if e >= 0:  # d..d[.d..d]
                whole = e + 1
                frac = nd - whole
                if frac <= 0:  # an integer: q followed by -frac zeros
                    end = pos + whole
                    for c in range(end + frac, end):
                        out[c] = 48
                    p = end + frac
                    count = nd
                else:
                    end = pos + nd + 1
                    p = end
                    for _ in range(frac >> 1):
                        r = q % hundred
                        q //= hundred
                        out[p - 1] = dig2[2 * r + 1]
                        out[p - 2] = dig2[2 * r]
                        p -= 2
                    if frac & 1:
                        out[p - 1] = 48 + q % ten
                        q //= ten
                        p -= 1
                    p -= 1
                    out[p] = 46  # '.'
                    count = whole
            else:  # 0.000ddd
                out[pos] = 48
                out[pos + 1] = 46
                for c in range(pos + 2, pos + 1 - e):
                    out[c] = 48
                end = pos + 1 - e + nd
                p = end
                count = nd
            for _ in range(count >> 1):
                r = q % hundred
                q //= hundred
                out[p - 1] = dig2[2 * r + 1]
                out[p - 2] = dig2[2 * r]
                p -= 2
            if count & 1:
                out[p - 1] = 48 + q % ten
            pos = end
        out[pos] = 10  # '\n'
        pos += 1
    return pos


def powers_of_ten() -> np.ndarray:
    """10**i for i = 0..MAX_DIGITS, int64."""
    return np.array([10**i for i in range(MAX_DIGITS + 1)], dtype=np.int64)


def digit_pairs() -> np.ndarray:
    """ASCII "000102...99" as 200 uint8: the two digits of i at [2i], [2i + 1]."""
    return np.frombuffer("".join(f"{i:02d}" for i in range(100)).encode(), dtype=np.uint8).copy()


@nb.njit(cache=_CACHE, parallel=True)
def format_block(values, bits, digits, sep, tables, ipow10, dig2, block_rows, out, lengths):
    """Print a float64 matrix as CSV lines, in parallel over blocks of rows.

    Parameters
    ----------
    values : ndarray, shape (rows, cols), float64
        The numbers.
    bits : ndarray, shape (rows, cols), int64
        ``values.view(np.int64)`` (the binary exponent is read from it).
    digits : int
        Significant digits, 1 <= digits <= :data:`MAX_DIGITS`.
    sep : int
        Byte of the field separator (44 for ",").
    tables : ndarray, shape (3, n, 2)
        :func:`pow10_tables`.
    ipow10 : ndarray, shape (MAX_DIGITS + 1,), int64
        10**i (:func:`powers_of_ten`).
    dig2 : ndarray, shape (200,), uint8
        :func:`digit_pairs`.
    block_rows : int
        Rows per block; block b starts at byte
        ``b * block_rows * row_bytes`` of ``out``, with
        ``row_bytes = cols * (field_width(digits) + 1)``.
    out : ndarray, uint8
        At least ``rows * row_bytes`` bytes.
    lengths : ndarray, shape (blocks,), int64
        Receives the number of bytes each block wrote.
    """
    rows, cols = values.shape
    row_bytes = cols * (digits + 8)
    nblocks = lengths.shape[0]
    for b in nb.prange(nblocks):
        r0 = b * block_rows
        r1 = min(rows, r0 + block_rows)
        start = r0 * row_bytes
        lengths[b] = _format_rows(values, bits, r0, r1, digits, sep, tables, ipow10, dig2, out, start) - start


@nb.njit(cache=_CACHE)
def format_block_serial(values, bits, digits, sep, tables, ipow10, dig2, block_rows, out, lengths):
    """:func:`format_block` on the calling thread only (for small inputs)."""
    rows, cols = values.shape
    row_bytes = cols * (digits + 8)
    for b in range(lengths.shape[0]):
        r0 = b * block_rows
        r1 = min(rows, r0 + block_rows)
        start = r0 * row_bytes
        lengths[b] = _format_rows(values, bits, r0, r1, digits, sep, tables, ipow10, dig2, out, start) - start


# ----------------------------------------------------------------------------- parsing
#: Row status codes of :func:`parse_rows`.
ROW_OK, ROW_BLANK, ROW_SHORT, ROW_EXTRA = 0, 1, 2, 3
#: Cell flags of :func:`parse_rows`: a number the fast path cannot round
#: exactly (Python's float() reads it), and text that is not a number.
CELL_OK, CELL_SLOW, CELL_TEXT = 0, 1, 2

_EXACT_POW10 = np.array([10.0**i for i in range(23)])  # exact doubles


@nb.njit(cache=_CACHE, inline="always")
def _is_blank(c):
    return c == 32 or c == 9 or c == 13  # space, tab, CR


@nb.njit(cache=_CACHE)
def _parse_row(buf, a, b, ncol, sep, pow10, values, flags, r):
    """Parse the line buf[a:b] into values[r, :]; return its status code."""
    blank = True
    for p in range(a, b):
        if not _is_blank(buf[p]):
            blank = False
            break
    if blank:
        return ROW_BLANK
    j = 0
    p = a
    while True:
        # one field: buf[p:q] up to the separator or the line end
        q = p
        while q < b and buf[q] != sep:
            q += 1
        s, t = p, q
        while s < t and (buf[s] == 32 or buf[s] == 13 or (sep != 9 and buf[s] == 9)):
            s += 1
        while t > s and (buf[t - 1] == 32 or buf[t - 1] == 13 or (sep != 9 and buf[t - 1] == 9)):
            t -= 1
        if j < ncol:
            flag = CELL_OK
            x = np.nan
            if t > s:
                k = s
                neg = False
                if buf[k] == 43 or buf[k] == 45:  # + -
                    neg = buf[k] == 45
                    k += 1
                mant = np.int64(0)
                ndig = 0  # significant digits kept in mant
                exp10 = 0
                seen = False
                big = False
                while k < t and 48 <= buf[k] <= 57:
                    seen = True
                    if mant == 0 and buf[k] == 48:
                        pass
                    elif ndig < 18:
                        mant = mant * 10 + (buf[k] - 48)
                        ndig += 1
                    else:
                        exp10 += 1
                        big = big or buf[k] != 48
                    k += 1
                if k < t and buf[k] == 46:  # '.'
                    k += 1
                    while k < t and 48 <= buf[k] <= 57:
                        seen = True
                        if mant == 0 and buf[k] == 48:
                            exp10 -= 1
                        elif ndig < 18:
                            mant = mant * 10 + (buf[k] - 48)
                            ndig += 1
                            exp10 -= 1
                        else:
                            big = big or buf[k] != 48
                        k += 1
                if seen and k < t and (buf[k] == 101 or buf[k] == 69):  # e E
                    k += 1
                    eneg = False
                    if k < t and (buf[k] == 43 or buf[k] == 45):
                        eneg = buf[k] == 45
                        k += 1
                    if k == t:
                        seen = False
                    ev = 0
                    while k < t and 48 <= buf[k] <= 57:
                        if ev < 100000:
                            ev = ev * 10 + (buf[k] - 48)
                        k += 1
                    exp10 += -ev if eneg else ev
                if not seen or k != t:
                    flag = CELL_TEXT
                elif mant == 0:
                    x = -0.0 if neg else 0.0
                elif big or mant > 9007199254740992 or exp10 < -22 or exp10 > 22:
                    flag = CELL_SLOW  # exact rounding needs more than one operation
                else:
                    # Clinger's fast path: both operands exact, one rounding
                    m = float(mant)
                    x = m * pow10[exp10] if exp10 >= 0 else m / pow10[-exp10]
                    if neg:
                        x = -x
            values[r, j] = x
            flags[r, j] = flag
        elif t > s:
            return ROW_EXTRA
        j += 1
        if q >= b:
            break
        p = q + 1
    if j < ncol:
        return ROW_SHORT
    return ROW_OK


@nb.njit(cache=_CACHE, parallel=True)
def parse_rows(buf, starts, ends, ncol, sep, pow10, values, flags, status):
    """Parse delimited lines of decimal numbers into a float64 matrix, in parallel.

    Parameters
    ----------
    buf : ndarray, uint8
        The text.
    starts, ends : ndarray, shape (rows,), int64
        Line r is ``buf[starts[r]:ends[r]]`` (without its line end).
    ncol : int
        Fields expected per line; further fields must be blank.
    sep : int
        Byte of the field separator.
    pow10 : ndarray, shape (23,)
        Exact 10.0**i (:data:`_EXACT_POW10`).
    values : ndarray, shape (rows, ncol), float64
        Receives the numbers; NaN for empty fields and flagged cells.
    flags : ndarray, shape (rows, ncol), uint8
        CELL_OK, CELL_SLOW (a number with more than 18 significant digits
        or a decimal exponent beyond +-22: read it with float()) or
        CELL_TEXT (not a plain decimal number).
    status : ndarray, shape (rows,), uint8
        ROW_OK, ROW_BLANK (only spaces, tabs, CR), ROW_SHORT (fewer than
        ``ncol`` fields) or ROW_EXTRA (a non-blank field after ``ncol``).

    Numbers are ``[+-]digits[.digits][(e|E)[+-]digits]`` with blanks around
    them; with at most 18 significant digits and a decimal exponent within
    +-22 the value is the mantissa times or divided by an exact power of ten,
    one correctly rounded operation (Clinger 1990, "How to read floating
    point numbers accurately", PLDI), so it equals the correctly rounded
    value of the decimal text.
    """
    for r in nb.prange(starts.shape[0]):
        status[r] = _parse_row(buf, starts[r], ends[r], ncol, sep, pow10, values, flags, r)


@nb.njit(cache=_CACHE)
def any_row_all_nan(values):
    """True when some row of a float matrix is NaN in every column."""
    for i in range(values.shape[0]):
        full = True
        for j in range(values.shape[1]):
            if values[i, j] == values[i, j]:
                full = False
                break
        if full:
            return True
    return False

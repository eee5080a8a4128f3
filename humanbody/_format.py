"""Numba kernels between float64 matrices and CSV text (arrays in, arrays out).

Nothing here knows about files, pandas or column names.  The printing
kernels take a float64 matrix and fill a ``uint8`` buffer the caller
allocated (:mod:`humanbody.writers` writes the bytes); the parsing kernels
take the bytes of a text block and fill a float64 matrix
(:func:`humanbody.io._validate.fast_block` checks and uses them).  Kernels
are cached on disk (``cache=True``).

Printing.  Each value is printed with ``digits`` significant digits in the
layout of C's ``%.{digits}g`` (Python's ``"%.10g" % x``): fixed notation for
decimal exponents -4 <= e < digits, else ``d.ddde+XX``; trailing zeros and
a trailing point are dropped; NaN is an empty field, infinities are
``inf`` and ``-inf``, negative zero is ``-0``.  The output is the correctly
rounded decimal (half to even, as ``%g``), byte for byte what ``%g``
prints, for every double and 1 <= digits <= 15.

How a value x is rounded, in three tiers, each used only when the one
before cannot decide:

1. One double multiplication y = |x| * 10^k (k = digits - 1 - e, e the
   decimal exponent) carries a relative error below 2^-52, so below
   2^-52 * 10^digits units; unless y lies within four times that of a
   rounding tie n + 1/2, rounding y to the nearest integer gives the digits
   q.  (Near an integer, or near the bounds 10^(digits-1) and 10^digits,
   both sides round to the same printed text, so only ties matter.)  About
   2e-8 of all values leave this tier at 7 digits, 2e-5 at 10, 2e-3 at
   12, all at 15.
2. :func:`_exact_digits` forms the product in double-double arithmetic:
   10^k stored as an unevaluated sum hi + lo of two doubles (from exact
   integers), |x| * (hi + lo) formed by Dekker's two-product (Dekker 1971,
   "A floating-point technique for extending the available precision",
   Numer. Math. 18; Ogita, Rump & Oishi 2005, SIAM J. Sci. Comput. 26,
   Algorithm 3.3), error below 2^-104 * 10^digits (table 2^-106, the
   product of |x| with lo and the sum of the low parts 2^-106, 2^-105).
   The side of n + 1/2 is decided from the sign of ((hi - n) - 1/2) + lo,
   which is exact.  When the distance is below 2^-98 * 10^digits (64 times
   the error): an exact tie is only possible for |k| <= 22 (then 5^|k| must
   divide the odd part of the scaled value), where 10^|k| is an exact
   double and |x| * 10^k is compared with n + 1/2 exactly (for k < 0: 2|x|
   with (2n + 1) * 10^-k, one more two-product); ties round half to even.
3. For |k| > 22 a scaled value within 2^-50 of a tie, yet not on it, is
   possible in principle though never met in tests; the kernel then gives
   up on the block of rows (length -1) and the caller prints that block
   with Python's ``%`` operator (C's printf).

Text.  The ``digits`` decimal digits of q are made eight at a time by SWAR
("SIMD within a register") arithmetic: one int64 holds eight digits in its
bytes, split 8 -> 4+4 -> 2+2 -> 1+1 by multiplications with fixed-point
reciprocals of 10^4, 100 and 10 (exact for these ranges), and stored with
unaligned 8-byte stores (:func:`_store8`); the count of trailing zero
digits is a count of leading zero bits (:func:`_clz`).  The decimal point
is inserted by storing the digit word again shifted by whole bytes, and the
exponent ``e+XX`` is one table word (:func:`exponent_words`).  Stores may
write up to :data:`SLACK` bytes of scratch past the end of the text, which
later stores overwrite; each block of rows gets that much spare room.

Parsing.  :func:`parse_range` reads the lines starting in a byte range of
a text chunk, each in one pass over its bytes, straight into the rows and
columns of the caller's table (:func:`_line_into`); decimal numbers are
read with Clinger's fast path (one correctly rounded operation when the
mantissa has at most 18 digits and fits 2^53 and the exponent is within
+-22), missing-value tokens become NaN, and a line with any other cell is
marked for the caller, which reads it again with the cell-by-cell
reference parser :func:`parse_rows`.  :func:`count_line_ends` counts line
feeds per block in a first pass, so the caller knows the row of the first
line of every block and runs several ranges on threads (all parsing
kernels release the GIL).  :func:`clean_markers` and :func:`cloud_extents`
are the row-range passes over a finished marker table (missing samples and
units; the marker-cloud extent for unit detection).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numba as nb
import numpy as np
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

_CACHE = True

#: Largest number of significant digits the kernels print.
MAX_DIGITS = 15

#: Bytes past the end of a block's text that the printing kernels may
#: overwrite with scratch (the buffer needs this much room after each block).
SLACK = 64


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
_TWO_1023 = 2**1023  # a Python int
_UP = 2.0**_SHIFT  # module constants: numba freezes them (a ** in a kernel is a runtime loop)
_DOWN = 2.0**-_SHIFT
# Biased binary exponents of the fast tier: 2^-893 > 1e-270 ... 2^897 < 1e270.
_EX_MIN, _EX_MAX = 130, 1920
# Decimal exponents covered by exponent_words().
_E_MIN, _E_MAX = -400, 400
_FAST_MARGIN = 2.0**-50  # times 10^digits: tier 1's error bound (2^-52) four times over
_TIE_MARGIN = 2.0**-98  # times 10^digits: tier 2's error bound (2^-104) 64 times over
_ASCII0 = 0x3030303030303030  # eight '0' bytes
_ZERO_POINT = 0x3030303030302E30  # "0.000000" (little-endian)
_STATUS_OK, _STATUS_DEFER = 0, 1


def _pow10_table(shift: int) -> np.ndarray:
    """Rows (hi, lo) with hi + lo = 10^k * 2^shift to ~2^-106 relative, k = _K_MIN.._K_MAX.

    Exact integer arithmetic: with 10^k * 2^shift = num / den, ``hi`` is
    num / den rounded to the nearest double (Python's integer true division
    rounds correctly) and ``lo`` the remainder num / den - hi, rounded the
    same way; inf from 2^1023 on (the split in :func:`_two_prod` would overflow).
    """
    out = np.zeros((_K_MAX - _K_MIN + 1, 2))
    up, down = 2 ** max(shift, 0), 2 ** max(-shift, 0)
    for i, k in enumerate(range(_K_MIN, _K_MAX + 1)):
        num, den = (10**k * up, down) if k >= 0 else (up, 10**-k * down)
        hi = num / den if num < den * _TWO_1023 else np.inf  # from 2^1023 on, as overflow
        if np.isfinite(hi) and hi > 0.0:
            p, q = hi.as_integer_ratio()
            out[i] = hi, (num * q - p * den) / (den * q)
        else:
            out[i] = np.inf, 0.0
    return out


def pow10_tables() -> np.ndarray:
    """Tables for :func:`format_block`, shape (3, n, 2).

    Row ``k - _K_MIN`` of table 0 holds 10^k as hi + lo; table 1 holds
    10^k * 2^SHIFT (for |x| > 1e270, which :func:`_scaled` multiplies by
    2^-SHIFT), table 2 holds 10^k * 2^-SHIFT (for |x| < 1e-270).
    """
    return np.stack([_pow10_table(0), _pow10_table(_SHIFT), _pow10_table(-_SHIFT)])


def margins(digits: int) -> tuple[float, float]:
    """Distances from a rounding tie (in units of the last digit) below which tier 1 and tier 2 defer.

    Returns (2^-50 * 10^digits, 2^-98 * 10^digits): :func:`format_block`'s
    ``fast_margin`` and ``tie_margin`` (module docstring).
    """
    return 10.0**digits * _FAST_MARGIN, 10.0**digits * _TIE_MARGIN


def powers_of_ten() -> np.ndarray:
    """10**i for i = 0..16, int64."""
    return np.array([10**i for i in range(17)], dtype=np.int64)


def exponent_words() -> np.ndarray:
    """Exponent suffixes of the e-notation, shape (2, _E_MAX - _E_MIN), int64.

    Column ``e - _E_MIN``: row 0 holds the ASCII bytes of ``"e%+03d" % e``
    (``e+05``, ``e-123``) as a little-endian int64, row 1 their count.
    """
    out = np.zeros((2, _E_MAX - _E_MIN), dtype=np.int64)
    for i, e in enumerate(range(_E_MIN, _E_MAX)):
        s = ("e%+03d" % e).encode()
        out[0, i] = int.from_bytes(s.ljust(8, b"\0"), "little")
        out[1, i] = len(s)
    return out


@intrinsic
def _store8(typingctx, arr, idx, val):
    """arr[idx:idx + 8] = the eight bytes of the int64 ``val``, little-endian (unaligned store)."""
    sig = types.void(arr, types.int64, types.int64)

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]])
        store = builder.store(args[2], builder.bitcast(ptr, ir.IntType(64).as_pointer()))
        store.align = 1
        return context.get_dummy_value()

    return sig, codegen


@intrinsic
def _clz(typingctx, val):
    """Number of leading zero bits of a nonzero int64 (LLVM ``ctlz``)."""
    sig = types.int64(types.int64)

    def codegen(context, builder, signature, args):
        return builder.ctlz(args[0], ir.Constant(ir.IntType(1), 1))

    return sig, codegen


@nb.njit(cache=_CACHE, inline="always")
def _swar8(v):
    """The eight decimal digits of 0 <= v < 10^8, one per byte, first digit in the lowest byte.

    v -> (v // 10^4, v % 10^4) in 32-bit lanes -> pairs in 16-bit lanes ->
    digits in bytes.  The quotients are fixed-point multiplications, exact
    for these ranges: v * 109951163 >> 40 = v // 10^4 for v < 10^8,
    w * 10486 >> 20 = w // 100 for w < 10^4, u * 103 >> 10 = u // 10 for
    u < 100 (the lanes never carry into each other).
    """
    hi = (v * 109951163) >> 40
    w = hi | ((v - hi * 10000) << 32)
    d100 = ((w * 10486) >> 20) & 0x0000007F0000007F
    w = d100 | ((w - d100 * 100) << 16)
    d10 = ((w * 103) >> 10) & 0x000F000F000F000F
    return d10 | ((w - d10 * 10) << 8)


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
    """|x| * 10^k as hi + lo (double-double) and the table used; |x| finite and positive."""
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
    return s, lo - (s - hi), t


@nb.njit(cache=_CACHE)
def _exact_digits(ax, digits, tables, ipow10, tie_margin):
    """Rounded digits q, decimal exponent e and status of ax > 0 (tiers 2 and 3, module docstring).

    Returns (q, e, _STATUS_OK) with q the ``digits``-digit integer, ax
    rounded half to even, or (0, 0, _STATUS_DEFER) when the double-double
    product cannot decide (``tie_margin``, :func:`margins`; tests raise it
    to exercise the exact tie test and the deferral).
    """
    # decimal exponent e with 10^e <= ax < 10^(e+1): estimate from the binary
    # exponent (low by at most one), raise it by comparing with 10^(e+1)
    e2 = math.frexp(ax)[1]  # ax = m * 2^e2, m in [0.5, 1)
    e = ((e2 - 1) * 78913) >> 18  # floor((e2 - 1) * log10(2)) for |e2| < 2^12
    if ax >= tables[0, e + 1 - _K_MIN, 0]:
        e += 1
    lower = float(ipow10[digits - 1])
    upper = float(ipow10[digits])
    hi, lo, t = _scaled(ax, digits - 1 - e, tables)
    for _ in range(2):  # only when ax is within rounding of a power of ten
        # compare the double-double hi + lo exactly with the bounds
        if hi < lower or (hi == lower and lo < 0.0):
            e -= 1
        elif hi > upper or (hi == upper and lo >= 0.0):
            e += 1
        else:
            break
        hi, lo, t = _scaled(ax, digits - 1 - e, tables)
    k = digits - 1 - e
    n = np.floor(hi)
    # d has the sign of (hi + lo) - (n + 1/2): hi - n and the subtraction of
    # 1/2 are exact, the one rounding of "+ lo" keeps the sign
    d = ((hi - n) - 0.5) + lo
    q = np.int64(n)
    if abs(d) > tie_margin:
        up = d > 0.0
    elif t == 0 and 0 <= k <= 22:
        # 10^k is an exact double: hi + lo is exactly ax * 10^k
        up = d > 0.0 or (d == 0.0 and (q & 1) == 1)
    elif t == 0 and -22 <= k < 0:
        # ax * 10^k against n + 1/2  <=>  2 ax against (2n + 1) * 10^-k = p + r exactly
        p, r = _two_prod(2.0 * n + 1.0, tables[0, -k - _K_MIN, 0])
        s = 2.0 * ax - p  # exact (Sterbenz: 2 ax and p are within a factor 2)
        up = s > r or (s == r and (q & 1) == 1)
    else:
        return np.int64(0), 0, _STATUS_DEFER
    if up:
        q += 1
    if q >= ipow10[digits]:  # rounded up to the next power of ten
        q = ipow10[digits - 1]
        e += 1
    return q, e, _STATUS_OK


@nb.njit(cache=_CACHE)
def _format_rows(values, r0, r1, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, out, pos):
    """Rows r0..r1-1 of ``values`` as CSV lines at out[pos:]; return the end position, or -1.

    -1: a value needs tier 3 (module docstring); the caller prints the
    rows another way.  Per row, a first loop rounds every value by tier 1
    (no calls, no stores into ``out``: the compiler keeps it tight) and a
    second loop writes the text, taking the values tier 1 left through
    :func:`_exact_digits` and the special values.
    """
    ncol = values.shape[1]
    bits = values.view(np.int64)
    p10 = tables[0, :, 0]
    lower = ipow10[digits - 1]
    upper = ipow10[digits]
    wide = digits > 8  # two digit words
    pad = ipow10[16 - digits] if wide else ipow10[8 - digits]
    qrow = np.empty(ncol, np.int64)
    erow = np.empty(ncol, np.int64)
    okrow = np.empty(ncol, np.bool_)
    for i in range(r0, r1):
        # tier 1: digits q and exponent e of every value of the row
        for j in range(ncol):
            ex = (bits[i, j] >> 52) & 0x7FF
            ax = abs(values[i, j])
            e = ((ex - 1023) * 78913) >> 18  # floor(log10(2^(ex - 1023)))
            e += ax >= p10[e + 1 - _K_MIN]
            y = ax * p10[digits - 1 - e - _K_MIN]
            if not y < 1e17:  # inf and NaN (left to the second loop)
                y = 0.0
            n = np.int64(y)
            frac = y - n
            q = n + (frac > 0.5)
            carry = q == upper  # rounded up to the next power of ten
            qrow[j] = lower if carry else q
            erow[j] = e + carry
            okrow[j] = ex >= _EX_MIN and ex <= _EX_MAX and abs(frac - 0.5) > fast_margin
        for j in range(ncol):
            neg = bits[i, j] < 0
            out[pos] = 45  # '-', kept only for a negative value
            pos += neg
            q = qrow[j]
            e = erow[j]
            if not okrow[j]:
                x = values[i, j]
                ax = abs(x)
                if x != x:  # NaN: empty field
                    pos -= neg
                    out[pos] = sep
                    pos += 1
                    continue
                if ax == np.inf:
                    out[pos] = 105  # 'i'
                    out[pos + 1] = 110  # 'n'
                    out[pos + 2] = 102  # 'f'
                    out[pos + 3] = sep
                    pos += 4
                    continue
                if ax == 0.0:
                    out[pos] = 48
                    out[pos + 1] = sep
                    pos += 2
                    continue
                q, e, status = _exact_digits(ax, digits, tables, ipow10, tie_margin)
                if status != _STATUS_OK:
                    return -1
            # the digits of q padded with zeros to 8 (16), one per byte; nd
            # significant digits once trailing zeros are dropped
            Q = q * pad
            if wide:
                h = Q // 100000000
                w0 = _swar8(h)
                w1 = _swar8(Q - h * 100000000)
                if w1 == 0:
                    nd = 8 - (_clz(w0) >> 3)
                else:
                    nd = 16 - (_clz(w1) >> 3)
                w1 += _ASCII0
            else:
                w0 = _swar8(Q)
                nd = 8 - (_clz(w0) >> 3)
                w1 = _ASCII0
            w0 += _ASCII0
            if e < -4 or e >= digits:  # d.ddde+XX: digits one byte on, first moved back
                _store8(out, pos + 1, w0)
                if wide:
                    _store8(out, pos + 9, w1)
                out[pos] = w0 & 0xFF
                out[pos + 1] = 46  # '.'
                pos += nd + 1 if nd > 1 else 1
                _store8(out, pos, expw[0, e - _E_MIN])
                pos += expw[1, e - _E_MIN]
            elif e >= 0:  # ddd[.ddd]: digits, then the fraction again one byte on
                _store8(out, pos, w0)
                if wide:
                    _store8(out, pos + 8, w1)
                k = e + 1  # digits before the point
                if nd > k:
                    if k < 8:
                        t0 = (w0 >> (8 * k)) | (w1 << (64 - 8 * k))
                        t1 = w1 >> (8 * k)
                    else:
                        t0 = w1 >> (8 * k - 64)
                        t1 = 0
                    out[pos + k] = 46  # '.'
                    _store8(out, pos + k + 1, t0)
                    if wide:
                        _store8(out, pos + k + 9, t1)
                    pos += nd + 1
                else:
                    pos += k
            else:  # 0.000ddd
                _store8(out, pos, _ZERO_POINT)
                _store8(out, pos + 1 - e, w0)
                if wide:
                    _store8(out, pos + 9 - e, w1)
                pos += 1 - e + nd
            out[pos] = sep
            pos += 1
        if ncol:
            out[pos - 1] = 10  # '\n' in place of the last separator
        else:
            out[pos] = 10
            pos += 1
    return pos


@nb.njit(cache=_CACHE, parallel=True, nogil=True)
def format_block(values, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, block_rows, block_bytes,
                 out, lengths):
    """Print a float64 matrix as CSV lines, in parallel over blocks of rows.

    Parameters
    ----------
    values : ndarray, shape (rows, cols), float64, C-contiguous
        The numbers.
    digits : int
        Significant digits, 1 <= digits <= :data:`MAX_DIGITS`.
    sep : int
        Byte of the field separator (44 for ",").
    tables : ndarray, shape (3, n, 2)
        :func:`pow10_tables`.
    ipow10 : ndarray, int64
        10**i (:func:`powers_of_ten`).
    expw : ndarray, shape (2, m), int64
        :func:`exponent_words`.
    fast_margin, tie_margin : float
        Distances from a rounding tie below which tier 1 hands a value to
        tier 2 and tier 2 to its exact test (:func:`margins`; module
        docstring).
    block_rows : int
        Rows per block.
    block_bytes : int
        Bytes reserved per block: block b's text starts at
        ``b * block_bytes``; at least
        ``block_rows * cols * (field_width(digits) + 1) + SLACK``.
    out : ndarray, uint8
        At least ``blocks * block_bytes`` bytes.
    lengths : ndarray, shape (blocks,), int64
        Receives the number of bytes each block wrote, or -1 for a block
        to print another way (tier 3).

    The GIL is released (``nogil``): a thread can write the previous
    block to a file meanwhile.
    """
    rows = values.shape[0]
    for b in nb.prange(lengths.shape[0]):
        r0 = b * block_rows
        r1 = min(rows, r0 + block_rows)
        start = b * block_bytes
        end = _format_rows(values, r0, r1, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, out, start)
        lengths[b] = end - start if end >= 0 else -1


@nb.njit(cache=_CACHE, nogil=True)
def format_block_serial(values, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, block_rows,
                        block_bytes, out, lengths):
    """:func:`format_block` on the calling thread only (for small inputs)."""
    rows = values.shape[0]
    for b in range(lengths.shape[0]):
        r0 = b * block_rows
        r1 = min(rows, r0 + block_rows)
        start = b * block_bytes
        end = _format_rows(values, r0, r1, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, out, start)
        lengths[b] = end - start if end >= 0 else -1


# ----------------------------------------------------------------------------- parsing
#: Row status codes of :func:`parse_lines` and :func:`parse_rows`: a row of
#: numbers, a blank line (skipped), a row with a cell for Python to read
#: (:func:`parse_lines` only), a row with fewer fields than columns, a row
#: with a non-blank field past the last column, a row of only missing cells.
ROW_OK, ROW_BLANK, ROW_FLAGGED, ROW_SHORT, ROW_EXTRA, ROW_EMPTY = 0, 1, 2, 3, 4, 5
#: Cell flags of :func:`parse_rows`: a number the fast path cannot round
#: exactly (Python's float() reads it), and text that is not a number.
CELL_OK, CELL_SLOW, CELL_TEXT = 0, 1, 2

_EXACT_POW10 = np.array([10.0**i for i in range(23)])  # exact doubles
_MAX_EXACT = 9007199254740992  # 2^53: larger integer mantissas are not all doubles


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
                elif big or mant > _MAX_EXACT or exp10 < -22 or exp10 > 22:
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


@nb.njit(cache=_CACHE)
def parse_rows(buf, starts, ends, ncol, sep, pow10, values, flags, status):
    """Parse delimited lines of decimal numbers into a float64 matrix, cell by cell.

    The reference parser, with a flag for every cell it leaves to Python;
    :func:`humanbody.io._validate.fast_block` calls it on the few rows
    :func:`parse_lines` marks ROW_FLAGGED.

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
    for r in range(starts.shape[0]):
        status[r] = _parse_row(buf, starts[r], ends[r], ncol, sep, pow10, values, flags, r)


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
    still checked).  Cells are read as :func:`_parse_row` reads them; a
    number it would flag CELL_SLOW (and here also one with more than 18
    digits counting leading zeros) or text other than a missing-value token
    makes the row ROW_FLAGGED.
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
        :data:`_EXACT_POW10`.
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
    """Offset of the last line feed in buf[:n], -1 when there is none."""
    for i in range(n - 1, -1, -1):
        if buf[i] == 10:
            return i
    return -1


@nb.njit(cache=_CACHE)
def compact_rows(table, keep):
    """Move the rows with ``keep`` set to the top of ``table``, in order, in place; return their count."""
    w = 0
    for i in range(table.shape[0]):
        if keep[i]:
            if w != i:
                for j in range(table.shape[1]):
                    table[w, j] = table[i, j]
            w += 1
    return w


# ----------------------------------------------------------------------------- marker tables
@nb.njit(cache=_CACHE, nogil=True)
def clean_markers(table, scale, r0, r1, missing, absurd, limit):
    """Missing marker samples to NaN and coordinates to metres, rows r0:r1, in place.

    ``table`` (frames, 1 + 3 * markers) holds time then x, y, z of each
    marker.  A sample exactly at (0, 0, 0), with any NaN coordinate, or with
    a coordinate that is infinite or beyond ``limit`` in magnitude (file
    units: no marker is that far) becomes (NaN, NaN, NaN); then, when
    ``scale`` != 1, every coordinate is multiplied by it (the same
    operations, so the same bits, as doing it with numpy array by array).
    Adds the missing samples of each marker to ``missing`` (markers,), the
    infinite or absurd ones to ``absurd[0]``, and returns the number of
    (0, 0, 0) samples.  The GIL is released: the caller runs row ranges on
    several threads.
    """
    m = (table.shape[1] - 1) // 3
    zeros = 0
    for i in range(r0, r1):
        for k in range(m):
            c = 1 + 3 * k
            x = table[i, c]
            y = table[i, c + 1]
            z = table[i, c + 2]
            gone = False
            if x == 0.0 and y == 0.0 and z == 0.0:
                zeros += 1
                gone = True
            elif x != x or y != y or z != z:
                gone = True
            elif not (abs(x) <= limit and abs(y) <= limit and abs(z) <= limit):
                absurd[0] += 1
                gone = True
            if gone:
                missing[k] += 1
                x = np.nan
                y = np.nan
                z = np.nan
            if scale != 1.0:
                x *= scale
                y *= scale
                z *= scale
            table[i, c] = x
            table[i, c + 1] = y
            table[i, c + 2] = z
    return zeros


@nb.njit(cache=_CACHE, nogil=True)
def cloud_extents(xyz, r0, r1, count, ext):
    """Per frame r0:r1: usable samples and the largest coordinate extent across them.

    ``xyz`` (frames, markers, 3); a sample is usable when its coordinates
    are finite and not all zero.  ``count[i]`` receives the usable samples
    of frame i; ``ext[i]``, for a frame with at least two, max over x, y, z
    of (largest - smallest coordinate), else 0.  The GIL is released.
    """
    for i in range(r0, r1):
        c = 0
        lo0 = lo1 = lo2 = np.inf
        hi0 = hi1 = hi2 = -np.inf
        for k in range(xyz.shape[1]):
            x = xyz[i, k, 0]
            y = xyz[i, k, 1]
            z = xyz[i, k, 2]
            if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
                continue
            if x == 0.0 and y == 0.0 and z == 0.0:
                continue
            c += 1
            lo0 = min(lo0, x)
            hi0 = max(hi0, x)
            lo1 = min(lo1, y)
            hi1 = max(hi1, y)
            lo2 = min(lo2, z)
            hi2 = max(hi2, z)
        count[i] = c
        ext[i] = max(hi0 - lo0, max(hi1 - lo1, hi2 - lo2)) if c >= 2 else 0.0

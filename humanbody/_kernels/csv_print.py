"""Numba kernels that print a float64 matrix as CSV text (arrays in, arrays out).

Nothing here knows about files, pandas or column names.  The kernels take a
float64 matrix and fill a ``uint8`` buffer the caller allocated
(:mod:`humanbody.io.writers` writes the bytes).  Kernels are cached on disk
(``cache=True``).

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
"""

from __future__ import annotations

import math

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

    Parameters
    ----------
    digits : int
        Significant digits printed, 1 <= digits <= :data:`MAX_DIGITS`.

    Returns
    -------
    int
        ``digits + 7`` bytes.
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

    Returns
    -------
    ndarray, shape (3, n, 2), float64
        The three tables, ``n = _K_MAX - _K_MIN + 1`` rows each, columns hi and lo; ``(inf, 0)`` where
        hi would reach 2^1023.
    """
    return np.stack([_pow10_table(0), _pow10_table(_SHIFT), _pow10_table(-_SHIFT)])


def margins(digits: int) -> tuple[float, float]:
    """Distances from a rounding tie (in units of the last digit) below which tier 1 and tier 2 defer.

    Returns (2^-50 * 10^digits, 2^-98 * 10^digits): :func:`format_block`'s
    ``fast_margin`` and ``tie_margin`` (module docstring).

    Parameters
    ----------
    digits : int
        Significant digits printed, 1 <= digits <= :data:`MAX_DIGITS`.

    Returns
    -------
    fast_margin, tie_margin : float
        ``2^-50 * 10^digits`` and ``2^-98 * 10^digits``, in units of the last printed digit.
    """
    return 10.0**digits * _FAST_MARGIN, 10.0**digits * _TIE_MARGIN


def powers_of_ten() -> np.ndarray:
    """10**i for i = 0..16, int64.

    Returns
    -------
    ndarray of int64, shape (17,)
        Entry i is ``10**i`` (exact).
    """
    return np.array([10**i for i in range(17)], dtype=np.int64)


def exponent_words() -> np.ndarray:
    """Exponent suffixes of the e-notation, shape (2, _E_MAX - _E_MIN), int64.

    Column ``e - _E_MIN``: row 0 holds the ASCII bytes of ``"e%+03d" % e``
    (``e+05``, ``e-123``) as a little-endian int64, row 1 their count.

    Returns
    -------
    ndarray of int64, shape (2, _E_MAX - _E_MIN)
        Row 0 the suffix's bytes (zero-padded to 8), row 1 its length in bytes (4 or 5), column
        ``e - _E_MIN`` for the decimal exponent e.
    """
    out = np.zeros((2, _E_MAX - _E_MIN), dtype=np.int64)
    for i, e in enumerate(range(_E_MIN, _E_MAX)):
        s = f"e{e:+03d}".encode()
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

    The GIL is released (``nogil``): a thread can write the previous
    block to a file meanwhile.

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
    """:func:`format_block` on the calling thread only (for small inputs).

    Parameters
    ----------
    values, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, block_rows, block_bytes, out, lengths
        As :func:`format_block` takes them.
    """
    rows = values.shape[0]
    for b in range(lengths.shape[0]):
        r0 = b * block_rows
        r1 = min(rows, r0 + block_rows)
        start = b * block_bytes
        end = _format_rows(values, r0, r1, digits, sep, tables, ipow10, expw, fast_margin, tie_margin, out, start)
        lengths[b] = end - start if end >= 0 else -1

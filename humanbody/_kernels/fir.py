"""Numba kernel of a short FIR filter along the rows of a matrix (arrays in, arrays out).

Used by :mod:`humanbody.signal.differentiate` for Savitzky-Golay
derivatives of many columns at once.  Cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, parallel=True)
def convolve_rows(x, taps, out):
    """Interior of the convolution of every column with a short filter: ``out[i] = sum_k taps[k] x[i + h - k]``.

    ``h = (len(taps) - 1) // 2``; rows ``h .. F - h - 1`` are written (the
    others are the caller's: they need edge rules).  The same sum as
    :func:`scipy.ndimage.convolve1d` along axis 0, in parallel over blocks of
    rows (a Savitzky-Golay derivative is such a filter).

    Parameters
    ----------
    x : ndarray, shape (F, C), float64, C-contiguous
        The samples: F rows (frames), C columns filtered independently.
    taps : ndarray, shape (W,), float64
        The filter's coefficients, W odd, centred on ``taps[h]``; applied as a convolution (reversed),
        so ``out = x * taps`` as :func:`scipy.ndimage.convolve1d`.
    out : ndarray, shape (F, C), float64
        Rows ``h .. F - h - 1`` written; the first and last ``h`` rows are left as they were (nothing
        is written when ``F <= 2 h``).  Must not alias ``x``.
    """
    F, C = x.shape
    W = taps.shape[0]
    h = (W - 1) // 2
    n = F - 2 * h
    if n <= 0:
        return
    block = 512
    for b in nb.prange((n + block - 1) // block):
        lo = h + b * block
        hi = min(F - h, lo + block)
        for i in range(lo, hi):
            for j in range(C):
                out[i, j] = 0.0
            for k in range(W):
                t = taps[k]
                r = i + h - k
                for j in range(C):
                    out[i, j] += t * x[r, j]

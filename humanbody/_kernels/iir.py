"""Numba kernel of a third-order recursive (IIR) filter along the rows of a matrix (arrays in, arrays out).

Used by :func:`humanbody.muscles.coordinates.butterworth3` (OpenSim's Signal::LowpassIIR), one pass
per call: a sample-by-sample recursion, every column at once.  Cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE)
def iir3_pass(s, a, b):
    """``f[i] = a0 s[i] + a1 s[i-1] + a2 s[i-2] + a3 s[i-3] - b1 f[i-1] - b2 f[i-2] - b3 f[i-3]`` for
    ``i >= 3``, ``f[:3] = s[:3]`` (OpenSim's start: its first outputs copy the input), summed in that order.

    Parameters
    ----------
    s : ndarray, shape (F, C), float64
        The samples, frames along axis 0 (F >= 1); every column is filtered independently.
    a : ndarray, shape (4,), float64
        Feed-forward (numerator) coefficients ``a0 .. a3``.
    b : ndarray, shape (4,), float64
        Feedback (denominator) coefficients; ``b[0]`` (1) is not read, ``b1 .. b3`` are.

    Returns
    -------
    f : ndarray, shape (F, C), float64
        The filtered samples (a new array); ``f[:3]`` equals ``s[:3]``.
    """
    F, C = s.shape
    f = np.empty_like(s)
    for i in range(min(F, 4)):
        for j in range(C):
            f[i, j] = s[i, j]
    for i in range(3, F):
        for j in range(C):
            f[i, j] = (a[0] * s[i, j] + a[1] * s[i - 1, j] + a[2] * s[i - 2, j] + a[3] * s[i - 3, j]
                       - b[1] * f[i - 1, j] - b[2] * f[i - 2, j] - b[3] * f[i - 3, j])
    return f

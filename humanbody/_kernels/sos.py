"""Numba kernel of a cascade of second-order IIR sections along the rows of a matrix.

Used by :mod:`humanbody.signal.iir` for the forward and backward passes of
a zero-phase filter.  A recursive filter cannot be vectorised over time,
hence the kernel; columns are independent and vectorise.  Cached on disk
(``cache=True``).
"""

from __future__ import annotations

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, nogil=True)
def sosfilt_rows(sos, x, zi):
    """Filter every column of ``x`` in place by the sections ``sos`` (direct form II transposed).

    For each sample ``v`` of a column and each section ``(b0, b1, b2, 1, a1, a2)``
    in turn, with the section's two states ``z0, z1``::

        y  = b0 v + z0
        z0 = (b1 v - a1 y) + z1
        z1 = b2 v - a2 y
        v  = y

    the operations in this order and without fused multiply-adds, so each
    column is bit for bit what a sample-by-sample loop over that column
    gives.  The kernel releases the GIL (threads may filter disjoint columns).

    Parameters
    ----------
    sos : (S, 6) float64
        Second-order sections, ``sos[:, 3] == 1``.
    x : (F, C) float64, C-contiguous
        Samples along axis 0, overwritten by the filtered samples.
    zi : (S, 2, C) float64
        Initial states of each section and column, overwritten by the final states.
    """
    F, C = x.shape
    S = sos.shape[0]
    for n in range(F):
        for s in range(S):
            b0 = sos[s, 0]
            b1 = sos[s, 1]
            b2 = sos[s, 2]
            a1 = sos[s, 4]
            a2 = sos[s, 5]
            for j in range(C):
                v = x[n, j]
                y = b0 * v + zi[s, 0, j]
                zi[s, 0, j] = b1 * v - a1 * y + zi[s, 1, j]
                zi[s, 1, j] = b2 * v - a2 * y
                x[n, j] = y

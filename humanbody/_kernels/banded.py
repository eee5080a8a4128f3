"""Numba kernel: solve a banded linear system by LU with partial pivoting (LAPACK's ``dgbsv``, unblocked).

Array in, array out.  ``A`` (n, n) with ``kl`` sub- and ``ku`` super-diagonals is given in LAPACK's
band storage ``ab`` (2 kl + ku + 1, n): ``ab[kl + ku + i - j, j] = A[i, j]``, the first ``kl`` rows
free for the fill-in of the row exchanges.  Column by column (``dgbtf2``): the largest ``|A[i, j]|``
of the ``kl + 1`` rows below the diagonal is the pivot, its row exchanged with row ``j`` over the
columns the band reaches, the multipliers ``l_i = A[i, j] · (1 / A[j, j])``, and ``A[i, c] -= l_i
A[j, c]``; then (``dgbtrs``) the exchanges and ``L`` forwards on the right-hand sides and ``U``
backwards.  O(n kl (kl + ku)) operations: B-spline collocation of a trial of any length.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels

drop_stale_kernels()

_CACHE = True


@nb.njit(cache=_CACHE)
def banded_solve(ab, kl, ku, b):
    """Solve ``A x = b`` in place.

    Parameters
    ----------
    ab : numpy.ndarray
        (2 kl + ku + 1, n) ``A`` in band storage (above), its first ``kl`` rows zero; overwritten by the factors.
    kl, ku : int
        The numbers of sub- and super-diagonals of ``A``.
    b : numpy.ndarray
        (n, m) right-hand sides, overwritten by the solutions ``x``.

    Returns
    -------
    int
        0, or ``j + 1`` when the pivot of column ``j`` is exactly zero (``A`` singular; ``b`` is then left as it
        was).
    """
    n = ab.shape[1]
    m = b.shape[1]
    kv = kl + ku
    ipiv = np.empty(n, dtype=np.int64)
    ju = 0
    for j in range(n):
        km = min(kl, n - 1 - j)
        jp = 0
        best = abs(ab[kv, j])
        for i in range(1, km + 1):
            if abs(ab[kv + i, j]) > best:
                best = abs(ab[kv + i, j])
                jp = i
        ipiv[j] = j + jp
        if ab[kv + jp, j] == 0.0:
            return j + 1
        ju = max(ju, min(j + ku + jp, n - 1))
        if jp != 0:
            for c in range(j, ju + 1):
                d = c - j
                t = ab[kv + jp - d, c]
                ab[kv + jp - d, c] = ab[kv - d, c]
                ab[kv - d, c] = t
        if km > 0:
            r = 1.0 / ab[kv, j]
            for i in range(1, km + 1):
                ab[kv + i, j] *= r
            for c in range(j + 1, ju + 1):
                d = c - j
                u = ab[kv - d, c]
                if u != 0.0:
                    for i in range(1, km + 1):
                        ab[kv + i - d, c] -= ab[kv + i, j] * u
    for j in range(n - 1):
        lm = min(kl, n - 1 - j)
        p = ipiv[j]
        for k in range(m):
            if p != j:
                t = b[p, k]
                b[p, k] = b[j, k]
                b[j, k] = t
            bj = b[j, k]
            for i in range(1, lm + 1):
                b[j + i, k] -= ab[kv + i, j] * bj
    for k in range(m):
        for j in range(n - 1, -1, -1):
            if b[j, k] != 0.0:
                b[j, k] /= ab[kv, j]
                t = b[j, k]
                for i in range(j - 1, max(0, j - kv) - 1, -1):
                    b[i, k] -= t * ab[kv + i - j, j]
    return 0

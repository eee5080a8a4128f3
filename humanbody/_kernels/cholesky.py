"""Numba helper: solve a small symmetric positive definite system by Cholesky, in place (inlined into kernels).

``H = L Lᵀ`` (``L`` lower triangular, row by row: ``L_jj = sqrt(H_jj - Σ_k<j L_jk²)``,
``L_ij = (H_ij - Σ_k<j L_ik L_jk) / L_jj``), then ``L y = g`` forwards and ``Lᵀ x = y`` backwards:
n³/6 multiply-adds, no allocation.  Used by the Newton steps of :mod:`.static_opt` and the
Levenberg–Marquardt steps of :mod:`.osim_ik` (systems of a few tens of unknowns, one per frame and
iteration, where a LAPACK call would cost more than the arithmetic).
"""

from __future__ import annotations

import math

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def cholesky_solve(H, g, out, floor):
    """Solve ``H out = g`` for symmetric positive definite ``H``; ``H``'s lower triangle becomes ``L``.

    Parameters
    ----------
    H : ndarray, shape (n, n), float64
        The symmetric positive definite matrix: its lower triangle and diagonal are read (the upper
        triangle is not), and overwritten in place by the factor ``L``.
    g : ndarray, shape (n,), float64
        The right-hand side (read only).
    out : ndarray, shape (n,), float64
        Written: the solution ``x`` of ``H x = g``.
    floor : float
        A pivot ``H_jj - Σ L_jk²`` that is not positive is replaced by ``floor`` when ``floor > 0``
        (a nearly singular ``H`` still gives a step); with ``floor <= 0`` the solve stops there.

    Returns
    -------
    bool
        False when a pivot was not positive and ``floor <= 0`` (``H`` is not positive definite;
        ``out`` is then not written and ``H`` is partly factored), True otherwise.
    """
    n = H.shape[0]
    for j in range(n):
        s = H[j, j]
        for k in range(j):
            s -= H[j, k] * H[j, k]
        if not s > 0.0:
            if not floor > 0.0:
                return False
            s = floor
        H[j, j] = math.sqrt(s)
        for i in range(j + 1, n):
            t = H[i, j]
            for k in range(j):
                t -= H[i, k] * H[j, k]
            H[i, j] = t / H[j, j]
    for i in range(n):
        t = g[i]
        for k in range(i):
            t -= H[i, k] * out[k]
        out[i] = t / H[i, i]
    for i in range(n - 1, -1, -1):
        t = out[i]
        for k in range(i + 1, n):
            t -= H[k, i] * out[k]
        out[i] = t / H[i, i]
    return True

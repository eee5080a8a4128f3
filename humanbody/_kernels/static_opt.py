"""Numba kernel of static optimization: per frame, the exact minimiser of a separable cost under ``A x = b`` and bounds.

Array in, array out.  Every frame ``f`` solves

    minimise  sum_i |x_i|^p / p   subject to   A_f x = b_f,   lo <= x <= hi

(``x`` the actuator controls, ``A_f`` (C, N) the generalised force of each
actuator at control 1, given transposed (N, C: each actuator's row contiguous),
``b_f`` (C,) the generalised forces to reproduce).
Its dual is the smooth convex minimisation of

    D(lam) = sum_i psi_i(a_i . lam) - b . lam,   x_i(s) = clip(sign(s) |s|^(1/(p-1)), lo_i, hi_i),
    psi_i(s) = s x_i(s) - |x_i(s)|^p / p,        grad D = A x(A^T lam) - b,

solved by Newton's method on ``grad D = 0`` (Hessian ``A diag(x_i'(s)) A^T``,
exact line search on ``D``, whose slope along a step is monotone): for p = 2, ``x`` is piecewise linear in
``lam``, and once the set of controls at their bounds is right one Newton
step is exact, so the solution is the QP's optimum to rounding, not an
approximation.  Frames are split into one chunk per thread; inside a chunk
each frame starts from the previous frame's multipliers.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .cholesky import cholesky_solve

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def control_of(s, p, lo, hi):
    """The control minimising ``|x|^p / p - s x`` on ``[lo, hi]`` and its derivative in ``s`` (0 at a bound).

    Parameters
    ----------
    s : float
        ``a_i . lam``: the actuator's column of ``A`` times the multipliers.
    p : float
        The cost's exponent (> 1).
    lo, hi : float
        The control's bounds.

    Returns
    -------
    x : float
        The control.
    dx_ds : float
        Its derivative in ``s`` (0 at a bound).
    """
    if p == 2.0:
        x, d = s, 1.0
    else:
        e = 1.0 / (p - 1.0)
        r = abs(s) ** e
        x = r if s >= 0.0 else -r
        d = e * abs(s) ** (e - 1.0) if s != 0.0 else 0.0
    if x <= lo:
        return lo, 0.0
    if x >= hi:
        return hi, 0.0
    return x, d


@nb.njit(cache=_CACHE, inline="always")
def slope_along(s, w, t, p, lo, hi, bw):
    """``d/dt D(lam + t step)`` with ``s = A^T lam``, ``w = A^T step``, ``bw = b . step``: monotone in ``t``.

    Parameters
    ----------
    s : numpy.ndarray
        (N,) ``A^T lam``.
    w : numpy.ndarray
        (N,) ``A^T step``.
    t : float
        The step length.
    p : float
        The cost's exponent.
    lo, hi : numpy.ndarray
        (N,) the controls' bounds.
    bw : float
        ``b . step``.

    Returns
    -------
    float
        The slope of the dual along the step at ``t``.
    """
    total = -bw
    for i in range(s.shape[0]):
        xi, _ = control_of(s[i] + t * w[i], p, lo[i], hi[i])
        total += w[i] * xi
    return total


@nb.njit(cache=_CACHE, inline="always")
def exact_step(s, w, p, lo, hi, bw):
    """The minimiser ``t > 0`` of ``D`` along the step: the root of the monotone slope (bracket, bisect,
    then the secant, exact on the last linear piece).  ``-1`` when ``D`` falls without end (infeasible).

    Parameters
    ----------
    s : numpy.ndarray
        (N,) ``A^T lam``.
    w : numpy.ndarray
        (N,) ``A^T step``.
    p : float
        The cost's exponent.
    lo, hi : numpy.ndarray
        (N,) the controls' bounds.
    bw : float
        ``b . step``.

    Returns
    -------
    float
        The step length ``t``, or -1.
    """
    t_lo, t_hi = 0.0, 1.0
    g_lo = slope_along(s, w, 0.0, p, lo, hi, bw)
    g_hi = slope_along(s, w, t_hi, p, lo, hi, bw)
    while g_hi < 0.0:
        t_lo, g_lo = t_hi, g_hi
        t_hi *= 4.0
        if t_hi > 1e40:
            return -1.0
        g_hi = slope_along(s, w, t_hi, p, lo, hi, bw)
    for _ in range(200):
        if g_hi - g_lo <= 0.0 or t_hi - t_lo <= 1e-15 * t_hi:
            break
        t = t_lo - g_lo * (t_hi - t_lo) / (g_hi - g_lo)  # secant: exact on a linear piece
        g = slope_along(s, w, t, p, lo, hi, bw)
        if abs(g) <= 1e-14 * (abs(g_lo) + abs(g_hi)):
            return t
        mid = 0.5 * (t_lo + t_hi)
        gm = slope_along(s, w, mid, p, lo, hi, bw)
        if g < 0.0:
            t_lo, g_lo = t, g
        else:
            t_hi, g_hi = t, g
        if gm < 0.0 and mid > t_lo:
            t_lo, g_lo = mid, gm
        elif gm >= 0.0 and mid < t_hi:
            t_hi, g_hi = mid, gm
    if g_hi - g_lo <= 0.0:
        return t_hi
    return t_lo - g_lo * (t_hi - t_lo) / (g_hi - g_lo)


@nb.njit(cache=_CACHE)
def column_nonzeros(At, rows, count):
    """The nonzeros of each actuator's row of ``At`` (N, C) (a column of ``A``): ``rows[i, :count[i]]``
    (written) their coordinates, ascending.

    A muscle's column has a nonzero only on the coordinates it crosses and a coordinate actuator's on
    its own: the sums over them are the full sums with their zero terms left out (the same
    floating-point result, in the same order, at a few percent of the work).

    Parameters
    ----------
    At : numpy.ndarray
        (N, C) ``A`` transposed.
    rows : numpy.ndarray
        (N, C) int, written: the coordinates of each row's nonzeros, ascending.
    count : numpy.ndarray
        (N,) int, written: how many nonzeros each row has.
    """
    na, nc = At.shape
    for i in range(na):
        c = 0
        for j in range(nc):
            if At[i, j] != 0.0:
                rows[i, c] = j
                c += 1
        count[i] = c


@nb.njit(cache=_CACHE)
def solve_frame(At, b, lam, p, lo, hi, tol, max_iter, x, rows, count):
    """One frame: Newton on the dual from ``lam`` (updated in place) with exact line search; controls into ``x``.

    ``At`` (N, C): ``A`` transposed; ``rows``, ``count``: scratch (N, C) and (N,) for the columns' nonzeros (:func:`column_nonzeros`).
    Returns the iterations taken, or ``-1`` when ``|A x - b|`` did not fall
    under ``tol`` (the constraints cannot be met within the bounds).

    Parameters
    ----------
    At : numpy.ndarray
        (N, C) the generalised force of each actuator at control 1 (N·m or N).
    b : numpy.ndarray
        (C,) generalised forces to reproduce (N·m or N).
    lam : numpy.ndarray
        (C,) the dual multipliers: the start, updated in place.
    p : float
        The cost's exponent.
    lo, hi : numpy.ndarray
        (N,) the controls' bounds.
    tol : float
        Largest ``|A x - b|`` accepted (N·m or N).
    max_iter : int
        Newton iterations at most.
    x : numpy.ndarray
        (N,) written: the controls.
    rows, count : numpy.ndarray
        Scratch, (N, C) and (N,) int.

    Returns
    -------
    int
        The iterations taken, or -1.
    """
    na, nc = At.shape
    H = np.empty((nc, nc))
    g = np.empty(nc)
    step = np.empty(nc)
    s = np.empty(na)
    w = np.empty(na)
    d = np.empty(na)
    column_nonzeros(At, rows, count)
    for it in range(max_iter + 1):
        for i in range(na):
            si = 0.0
            for c in range(count[i]):
                si += At[i, rows[i, c]] * lam[rows[i, c]]
            s[i] = si
            x[i], di = control_of(si, p, lo[i], hi[i])
            d[i] = max(di, 1e-10)  # a control at a bound still bends D a little: H stays invertible
        for j in range(nc):
            g[j] = -b[j]
        for i in range(na):
            for c in range(count[i]):
                g[rows[i, c]] += At[i, rows[i, c]] * x[i]
        worst = 0.0
        for j in range(nc):
            worst = max(worst, abs(g[j]))
            g[j] = -g[j]
        if worst <= tol:
            return it
        if it == max_iter:
            break
        for j in range(nc):  # H = A diag(d) Aᵀ, lower triangle
            for k in range(j + 1):
                H[j, k] = 0.0
        for i in range(na):
            for c1 in range(count[i]):
                j = rows[i, c1]
                a = At[i, j] * d[i]
                for c2 in range(c1 + 1):
                    H[j, rows[i, c2]] += a * At[i, rows[i, c2]]
        scale = 0.0
        for j in range(nc):
            scale = max(scale, H[j, j])
        for j in range(nc):
            H[j, j] += 1e-13 * scale + 1e-300
        cholesky_solve(H, g, step, 1e-300)  # a pivot <= 0 (rounding) taken as 1e-300
        bw = 0.0
        for j in range(nc):
            bw += b[j] * step[j]
        for i in range(na):
            wi = 0.0
            for c in range(count[i]):
                wi += At[i, rows[i, c]] * step[rows[i, c]]
            w[i] = wi
        t = exact_step(s, w, p, lo, hi, bw)
        if t < 0.0:
            return -1
        for j in range(nc):
            lam[j] += t * step[j]
    return -1


@nb.njit(cache=_CACHE, parallel=True)
def static_optimization(At, b, p, lo, hi, tol, max_iter, chunks):
    """Every frame's optimum.

    Parameters
    ----------
    At : ndarray, shape (F, N, C), float64
        Per frame, the generalised forces (N for translational, N·m for rotational coordinates) of each
        of the N actuators at control 1 on the C constrained coordinates (``A_f`` transposed: each
        actuator's row contiguous).
    b : ndarray, shape (F, C), float64
        The generalised forces to reproduce every frame (N or N·m).
    p : float
        The cost's exponent (> 1; 2 gives the quadratic program).
    lo, hi : ndarray, shape (N,), float64
        Lower and upper bound of each actuator's control (dimensionless).
    tol : ndarray, shape (F,), float64
        Largest accepted ``max_j |(A x - b)_j|`` per frame (N or N·m).
    max_iter : int
        Most Newton iterations per frame.
    chunks : int
        Number of runs of consecutive frames, solved in parallel (one per thread); inside a run each frame
        starts from the previous frame's multipliers.

    Returns
    -------
    x : ndarray, shape (F, N), float64
        Every frame's controls.
    iterations : ndarray, shape (F,), int64
        Newton iterations taken per frame, -1 where the constraints could not be met within the bounds
        (``x`` is then the last iterate).
    """
    nf, na, nc = At.shape
    x = np.zeros((nf, na))
    iters = np.zeros(nf, dtype=np.int64)
    size = (nf + chunks - 1) // chunks
    for c in nb.prange(chunks):
        lam = np.zeros(nc)
        rows = np.empty((na, nc), dtype=np.int64)
        count = np.empty(na, dtype=np.int64)
        for f in range(c * size, min(nf, (c + 1) * size)):
            iters[f] = solve_frame(At[f], b[f], lam, p, lo, hi, tol[f], max_iter, x[f], rows, count)
    return x, iters

"""The natural interpolating quintic spline of OpenSim's AnalyzeTool and InverseDynamicsTool, at its samples.

OpenSim differentiates coordinates with a GCVSplineSet of degree 5 and no
smoothing: the quintic spline through the samples, knots at the samples,
third and fourth derivatives zero at both ends.  :mod:`humanbody.muscles.coordinates`
(static optimization's speeds and accelerations) and :mod:`humanbody.osim.id`
(inverse dynamics) take their derivatives from :func:`natural_quintic_derivatives`.

Why not SciPy's ``make_interp_spline``, which builds the same spline (the tests hold
the two within 1e-12): ``import scipy.interpolate`` costs about 0.5 CPU-s (it loads
``scipy.linalg``; measured 2026-12-02 on the project machine: a Python with numpy and
numba imported 0.39 CPU-s, with ``scipy.interpolate`` too 0.90 CPU-s), which the
``humanbody muscles`` command's start-up avoids on purpose (tests/integration/test_startup.py
holds its imports).  The spline here is de Boor's
B-spline recurrence and one banded solve (:func:`humanbody._kernels.banded.banded_solve`,
LAPACK's ``dgbsv``), O(F) per column.
"""

from __future__ import annotations

import numpy as np

from .._kernels.banded import banded_solve

DEGREE = 5  # quintic


def bspline_local(knots: np.ndarray, k: int, x: np.ndarray, deriv: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The ``deriv``-th derivative of the B-splines of degree ``k`` on ``knots`` that are not zero at each ``x``:
    ``(N, first)``, ``N`` (len(x), k + 1) the values of ``B[first] .. B[first + k]`` at each point
    (a point at the last knot in the last non-empty interval).

    At ``x`` in ``[t_c, t_c+1)`` only ``B[c-k] .. B[c]`` are not zero (``first = c - k``); they are raised
    degree by degree (de Boor's recurrence, ``B[i,d] = w[i,d] B[i,d-1] + (1 - w[i+1,d]) B[i+1,d-1]``,
    ``w[i,d] = (x - t_i) / (t_i+d - t_i)``), the last ``deriv`` raises by the derivative's
    ``dB[i,d] = d (B[i,d-1] / (t_i+d - t_i) - B[i+1,d-1] / (t_i+d+1 - t_i+1))`` (0/0 taken as 0).

    Parameters
    ----------
    knots : numpy.ndarray
        (K,) non-decreasing knot vector.
    k : int
        Degree of the B-splines.
    x : numpy.ndarray
        (n,) points at which to evaluate.
    deriv : int, default 0
        Order of the derivative (0: the values).

    Returns
    -------
    N : numpy.ndarray
        (n, k + 1) the nonzero B-splines (or their ``deriv``-th derivatives) at each point.
    first : numpy.ndarray
        (n,) int, index of the first of those B-splines at each point.
    """
    t = np.asarray(knots, dtype=float)
    x = np.asarray(x, dtype=float)
    last = int(np.flatnonzero(t[1:] > t[:-1])[-1])
    c = np.clip(np.searchsorted(t, x, side="right") - 1, 0, last)
    c = np.where(x >= t[last + 1], last, c)
    N = np.ones((len(x), 1))  # N[:, j]: B[c - d + j] at degree d
    for d in range(1, k + 1):
        i = c[:, None] - d + np.arange(d + 1)  # the d + 1 functions of degree d
        lo = np.pad(N, ((0, 0), (1, 0)))  # B[i, d-1] (B[c - d] of degree d - 1 is zero)
        hi = np.pad(N, ((0, 0), (0, 1)))  # B[i+1, d-1]
        span, span1 = t[i + d] - t[i], t[i + d + 1] - t[i + 1]
        if d > k - deriv:
            a = np.divide(d, span, out=np.zeros_like(span), where=span > 0)
            b = np.divide(d, span1, out=np.zeros_like(span1), where=span1 > 0)
            N = lo * a - hi * b
        else:
            w = np.divide(x[:, None] - t[i], span, out=np.zeros_like(span), where=span > 0)
            w1 = np.divide(x[:, None] - t[i + 1], span1, out=np.zeros_like(span1), where=span1 > 0)
            N = w * lo + (1.0 - w1) * hi
    return N, c - k


def natural_quintic_derivatives(t: np.ndarray, y: np.ndarray, orders: tuple[int, ...] = (1,)) -> list[np.ndarray]:
    """Derivatives, at the samples ``t`` (F,), of the quintic spline interpolating each column of ``y`` there,
    knots at the samples, third and fourth derivatives zero at both ends (OpenSim's GCVSpline of degree 5
    without smoothing; SciPy's ``make_interp_spline(t, y, k=5, bc_type=([(3, 0), (4, 0)], [(3, 0), (4, 0)]))``,
    to rounding: tests/muscles/test_quintic_spline.py holds them within 1e-12 of each other).

    Its B-spline coefficients ``c`` (knots ``t`` with 5 more copies of each end) solve
    ``B(t) c = y`` with ``B3(t0) c = B4(t0) c = B3(tn) c = B4(tn) c = 0`` (``Bd``: the basis' d-th
    derivative, :func:`bspline_local`), rows in that order: a banded system (each row's 6 nonzeros
    near the diagonal), solved by :func:`humanbody._kernels.banded.banded_solve` in O(F); the slopes
    are ``B1(t) c``.

    Parameters
    ----------
    t : numpy.ndarray
        (F,) increasing sample times (s), at least 6.
    y : numpy.ndarray
        (F, C) or (F, ...) samples to interpolate, one column per signal.
    orders : tuple of int, default (1,)
        The derivatives wanted, each 0 to 5 (0: the values, which are ``y``).

    Returns
    -------
    list of numpy.ndarray
        One per order: the spline's derivative of that order at ``t``, shaped like ``y`` (units of ``y``
        per s to the order).

    Raises
    ------
    ValueError
        The collocation matrix is singular (repeated sample times).
    """
    k = DEGREE
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    knots = np.concatenate([np.full(k, t[0]), t, np.full(k, t[-1])])
    ends = t[[0, -1]]
    parts = [bspline_local(knots, k, ends[:1], 3), bspline_local(knots, k, ends[:1], 4),
             bspline_local(knots, k, t), bspline_local(knots, k, ends[1:], 3), bspline_local(knots, k, ends[1:], 4)]
    N = np.concatenate([p[0] for p in parts])
    first = np.concatenate([p[1] for p in parts])
    n = len(N)
    rows = np.repeat(np.arange(n), k + 1)
    cols = (first[:, None] + np.arange(k + 1)).ravel()
    values = N.ravel()
    nonzero = values != 0.0
    rows, cols, values = rows[nonzero], cols[nonzero], values[nonzero]
    kl, ku = max(int(np.max(rows - cols)), 0), max(int(np.max(cols - rows)), 0)
    ab = np.zeros((2 * kl + ku + 1, n))
    ab[kl + ku + rows - cols, cols] = values
    rhs = np.zeros((n, int(np.prod(y.shape[1:], dtype=int))))
    rhs[2: 2 + len(t)] = y.reshape(len(t), -1)
    if banded_solve(ab, kl, ku, rhs):
        raise ValueError("the spline's collocation matrix is singular (repeated sample times)")
    out = []
    for order in orders:
        basis, at = bspline_local(knots, k, t, order)
        out.append(np.einsum("fj,fjc->fc", basis, rhs[at[:, None] + np.arange(k + 1)]).reshape(y.shape))
    return out


def natural_quintic_slopes(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The first derivative of :func:`natural_quintic_derivatives`'s spline at the samples.

    Parameters
    ----------
    t : numpy.ndarray
        (F,) increasing sample times (s), at least 6.
    y : numpy.ndarray
        (F, C) or (F, ...) samples to interpolate, one column per signal.

    Returns
    -------
    numpy.ndarray
        The spline's slope at ``t``, shaped like ``y`` (units of ``y`` per s).

    Raises
    ------
    ValueError
        The collocation matrix is singular (repeated sample times).
    """
    return natural_quintic_derivatives(t, y, (1,))[0]

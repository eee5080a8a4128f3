"""The one evaluator of functions of one coordinate (:mod:`humanbody.core.functions`): joints, couplers and
muscle path points alike.

A *function table* is five arrays (:class:`humanbody.core.functions.FunctionTable` packs it):
``fcode`` (nf,) int64 type codes (:data:`CONSTANT` ... :data:`MULTIPLIER`), ``fstart``, ``fsize`` (nf,) int64 the
slice of ``fcoef`` holding each function's numbers, ``finner`` (nf,) int64 the function a multiplier scales
(-1 otherwise), ``fcoef`` (m,) float64 the numbers:

- constant: ``(c,)``; linear: ``(slope, intercept)``; polynomial: coefficients of decreasing powers;
- piecewise linear: ``(x_0..x_{n-1}, y_0..y_{n-1})``;
- cubic (SimmSpline, natural cubic spline): ``(x, a, b, c, d)``, n each, the piece on ``[x_i, x_{i+1}]`` being
  ``a_i + b_i h + c_i h^2 + d_i h^3`` with ``h = x - x_i``;
- multiplier: ``(scale,)``.

Outside its knots a piecewise function continues along its end slope, as OpenSim's do.
"""

from __future__ import annotations

import numba as nb

_CACHE = True

CONSTANT, LINEAR, POLYNOMIAL, PIECEWISE_LINEAR, CUBIC, MULTIPLIER = 0, 1, 2, 3, 4, 5


@nb.njit(cache=_CACHE)
def _cubic(c, n, x):
    """Piecewise cubic ``c = (x_0..x_{n-1}, a, b, cc, d)`` at ``x``: value, slope, curvature.

    On ``[x_i, x_{i+1}]``: ``a_i + b_i h + cc_i h^2 + d_i h^3``, ``h = x - x_i``;
    outside the knots (strictly) the end value continues along the end slope (second derivative 0).
    """
    if x < c[0]:
        return c[n] + c[2 * n] * (x - c[0]), c[2 * n], 0.0
    if x > c[n - 1]:
        return c[2 * n - 1] + c[3 * n - 1] * (x - c[n - 1]), c[3 * n - 1], 0.0
    lo, hi = 0, n - 1
    if x == c[n - 1]:
        lo = n - 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if c[mid] <= x:
            lo = mid
        else:
            hi = mid
    h = x - c[lo]
    a, b, cc, d = c[n + lo], c[2 * n + lo], c[3 * n + lo], c[4 * n + lo]
    return a + h * (b + h * (cc + h * d)), b + h * (2.0 * cc + 3.0 * d * h), 2.0 * cc + 6.0 * d * h


@nb.njit(cache=_CACHE)
def _linear_pieces(c, n, x):
    """Piecewise linear through ``(c[:n], c[n:2n])``, the end pieces extended: value, slope, 0."""
    i = 0
    while i < n - 2 and x > c[i + 1]:
        i += 1
    slope = (c[n + i + 1] - c[n + i]) / (c[i + 1] - c[i])
    return c[n + i] + slope * (x - c[i]), slope, 0.0


@nb.njit(cache=_CACHE)
def function_value(fcode, fstart, fsize, finner, fcoef, fid, x):
    """``(f(x), f'(x), f''(x))`` of function ``fid`` of the table (see the module docstring).

    Parameters
    ----------
    fcode, fstart, fsize, finner : numpy.ndarray
        (nf,) int64, the function table.
    fcoef : numpy.ndarray
        The table's numbers.
    fid : int
        The function.
    x : float
        The variable (a coordinate: rad or m).

    Returns
    -------
    value, slope, curvature : float
        ``f(x)``, ``f'(x)``, ``f''(x)``.
    """
    scale = 1.0
    while fcode[fid] == MULTIPLIER:
        scale *= fcoef[fstart[fid]]
        fid = finner[fid]
    code, s, m = fcode[fid], fstart[fid], fsize[fid]
    c = fcoef[s:s + m]
    if code == CONSTANT:
        v, d1, d2 = c[0], 0.0, 0.0
    elif code == LINEAR:
        v, d1, d2 = c[0] * x + c[1], c[0], 0.0
    elif code == POLYNOMIAL:  # coefficients of decreasing powers (Horner, and its derivatives)
        v = d1 = d2 = 0.0
        for i in range(m):
            d2 = d2 * x + 2.0 * d1
            d1 = d1 * x + v
            v = v * x + c[i]
    elif code == PIECEWISE_LINEAR:
        v, d1, d2 = _linear_pieces(c, m // 2, x)
    else:
        v, d1, d2 = _cubic(c, m // 5, x)
    return scale * v, scale * d1, scale * d2


@nb.njit(cache=_CACHE)
def evaluate_functions(fcode, fstart, fsize, finner, fcoef, fid, x, out):
    """``out[i] = (f, f', f'')`` of function ``fid`` at ``x[i]``; out (n, 3).

    Parameters
    ----------
    fcode, fstart, fsize, finner, fcoef : numpy.ndarray
        The function table.
    fid : int
        The function.
    x : numpy.ndarray
        (n,) where to evaluate.
    out : numpy.ndarray
        (n, 3) written.
    """
    for i in range(x.shape[0]):
        out[i, 0], out[i, 1], out[i, 2] = function_value(fcode, fstart, fsize, finner, fcoef, fid, x[i])

"""OpenSim's functions of one variable over the packed table of :class:`humanbody.osim.functions.FunctionTable`.

``evaluate(f, x, kind, start, size, scale, inner, data)`` returns ``(value, derivative)``
of function ``f`` at ``x``.  Piecewise functions continue along their end slopes outside
their knots; a cubic piece is ``y_k + dx (b_k + dx (c_k + dx d_k))``.
"""

from __future__ import annotations

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def _interval(data, s, n, x):
    """Index k of the knot interval [x_k, x_k+1] holding ``x`` (binary search; 0 <= k <= n - 2)."""
    lo, hi = 0, n - 1
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if x < data[s + mid]:
            hi = mid
        else:
            lo = mid
    return lo


@nb.njit(cache=_CACHE)
def _piecewise(kind, s, n, data, x):
    """Value and slope of a piecewise-linear (kind 3) or cubic (kind 4) function at ``x``."""
    x0, xn = data[s], data[s + n - 1]
    y = s + n
    if n == 1:
        return data[y], 0.0
    b = y + n
    if x <= x0:
        return data[y] + (x - x0) * data[b], data[b]
    if x >= xn:
        return data[y + n - 1] + (x - xn) * data[b + n - 1], data[b + n - 1]
    k = _interval(data, s, n, x)
    dx = x - data[s + k]
    if kind == 3:
        return data[y + k] + dx * data[b + k], data[b + k]
    c, d = data[b + n + k], data[b + 2 * n + k]
    bk = data[b + k]
    return data[y + k] + dx * (bk + dx * (c + dx * d)), bk + dx * (2.0 * c + 3.0 * dx * d)


@nb.njit(cache=_CACHE)
def evaluate(f, x, kind, start, size, scale, inner, data):
    """Value and first derivative of function ``f`` at ``x`` (a multiplier: ``scale`` x its inner function).

    Parameters
    ----------
    f : int
        The function's row in the table.
    x : float
        The variable (a coordinate: rad or m).
    kind, start, size, scale, inner, data : numpy.ndarray
        The table's arrays (:meth:`humanbody.osim.functions.FunctionTable.arrays`).

    Returns
    -------
    value : float
        ``f(x)``.
    derivative : float
        ``f'(x)``.
    """
    factor = 1.0
    while kind[f] == 5:
        factor *= scale[f]
        f = inner[f]
    k, s, n = kind[f], start[f], size[f]
    if k == 0:
        return factor * data[s], 0.0
    if k == 1:
        return factor * (data[s] * x + data[s + 1]), factor * data[s]
    if k == 2:
        v, dv = 0.0, 0.0
        for i in range(n):
            dv = dv * x + v
            v = v * x + data[s + i]
        return factor * v, factor * dv
    v, dv = _piecewise(k, s, n, data, x)
    return factor * v, factor * dv

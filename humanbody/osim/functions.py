"""OpenSim's functions of one variable, packed into flat arrays the numba kernels evaluate.

A :class:`FunctionTable` holds any number of :class:`~humanbody.osim.model.Function`
values; :func:`humanbody._kernels.osim_functions.evaluate` gives a function's value and
first derivative at ``x``.  Cubic splines keep their polynomial coefficients per
interval, ``y(x) = y_k + dx (b_k + dx (c_k + dx d_k))`` with ``dx = x - x_k``; outside the
knots every piecewise function continues along its end slope, as OpenSim's do.

SimmSpline's coefficients follow SIMM's end conditions (third derivatives at the ends
from divided differences, Forsythe, Malcolm and Moler's ``spline``); NaturalCubicSpline's
have zero second derivative at both ends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .model import Function

KIND_CODES = {"constant": 0, "linear": 1, "polynomial": 2, "piecewise_linear": 3, "spline": 4,
              "natural_spline": 4, "multiplier": 5}
_TINY = 1e-7


def simm_spline_coefficients(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients ``b, c, d`` (each shape (n,)) of SIMM's interpolating cubic through ``(x, y)``.

    The tridiagonal system for the second derivatives closes with third derivatives at both
    ends taken from divided differences of the data (Forsythe, Malcolm and Moler 1977); two
    points give the straight line.

    Parameters
    ----------
    x : numpy.ndarray
        (n,) increasing knots.
    y : numpy.ndarray
        (n,) values at the knots.

    Returns
    -------
    b, c, d : numpy.ndarray
        (n,) each: the first-, second- and third-order coefficients of each interval's cubic (zeros for one point).
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = len(x)
    b, c, d = np.zeros(n), np.zeros(n), np.zeros(n)
    if n == 1:
        return b, c, d
    if n == 2:
        b[:] = (y[1] - y[0]) / max(_TINY, x[1] - x[0])
        return b, c, d
    h = np.maximum(_TINY, np.diff(x))
    slope = np.diff(y) / h
    d[:-1] = h
    b[1:-1] = 2.0 * (h[:-1] + h[1:])
    c[1:-1] = slope[1:] - slope[:-1]
    b[0], b[-1] = -h[0], -h[-1]
    if n > 3:
        c0 = c[2] / max(_TINY, x[3] - x[1]) - c[1] / max(_TINY, x[2] - x[0])
        cn = c[-2] / max(_TINY, x[-1] - x[-3]) - c[-3] / max(_TINY, x[-2] - x[-4])
        c[0] = c0 * h[0] * h[0] / max(_TINY, x[3] - x[0])
        c[-1] = -cn * h[-1] * h[-1] / max(_TINY, x[-1] - x[-4])
    _solve_tridiagonal(b, c, d)
    return _polynomial_coefficients(x, y, h, c)


def natural_spline_coefficients(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coefficients ``b, c, d`` of the natural cubic spline through ``(x, y)`` (zero curvature at the ends).

    Parameters
    ----------
    x : numpy.ndarray
        (n,) increasing knots.
    y : numpy.ndarray
        (n,) values at the knots.

    Returns
    -------
    b, c, d : numpy.ndarray
        (n,) each: the interval cubics' coefficients (``c`` is half the second derivative at the knots); fewer
        than three points: :func:`simm_spline_coefficients`'s.
    """
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    n = len(x)
    if n < 3:
        return simm_spline_coefficients(x, y)
    h = np.diff(x)
    a = np.zeros((n, n))
    r = np.zeros(n)
    a[0, 0] = a[-1, -1] = 1.0
    for i in range(1, n - 1):
        a[i, i - 1], a[i, i], a[i, i + 1] = h[i - 1], 2.0 * (h[i - 1] + h[i]), h[i]
        r[i] = 3.0 * ((y[i + 1] - y[i]) / h[i] - (y[i] - y[i - 1]) / h[i - 1])
    c = np.linalg.solve(a, r)                       # c = y''/2 at the knots
    b, d = np.zeros(n), np.zeros(n)
    b[:-1] = np.diff(y) / h - h * (2.0 * c[:-1] + c[1:]) / 3.0
    d[:-1] = np.diff(c) / (3.0 * h)
    b[-1] = b[-2] + 2.0 * c[-2] * h[-1] + 3.0 * d[-2] * h[-1] ** 2
    return b, c, d


def _solve_tridiagonal(b: np.ndarray, c: np.ndarray, d: np.ndarray) -> None:
    """Solve in place the symmetric tridiagonal system (diagonal ``b``, off-diagonal ``d``, right side ``c``)."""
    n = len(b)
    for i in range(1, n):
        t = d[i - 1] / b[i - 1]
        b[i] -= t * d[i - 1]
        c[i] -= t * c[i - 1]
    c[-1] /= b[-1]
    for i in range(n - 2, -1, -1):
        c[i] = (c[i] - d[i] * c[i + 1]) / b[i]


def _polynomial_coefficients(x, y, h, sigma):
    """Per-interval cubic coefficients from the solved curvature terms ``sigma``."""
    n = len(x)
    b, c, d = np.zeros(n), np.zeros(n), np.zeros(n)
    b[-1] = (y[-1] - y[-2]) / h[-1] + h[-1] * (sigma[-2] + 2.0 * sigma[-1])
    b[:-1] = (y[1:] - y[:-1]) / h - h * (sigma[1:] + 2.0 * sigma[:-1])
    d[:-1] = (sigma[1:] - sigma[:-1]) / h
    c[:] = 3.0 * sigma
    d[-1] = d[-2]
    return b, c, d


@dataclass(frozen=True)
class FunctionTable:
    """Functions packed for the kernels.

    Attributes
    ----------
    kind : (n,) int64      0 constant, 1 linear, 2 polynomial, 3 piecewise linear, 4 cubic spline, 5 multiplier
    start : (n,) int64     where the function's numbers start in ``data``
    size : (n,) int64      how many knots (or coefficients)
    scale : (n,) float64   the multiplier's factor (1 otherwise)
    inner : (n,) int64     the multiplier's function (-1 otherwise)
    data : (m,) float64    constant: value; linear, polynomial: coefficients; piecewise: x, y, slopes;
                           spline: x, y, b, c, d
    """

    kind: np.ndarray
    start: np.ndarray
    size: np.ndarray
    scale: np.ndarray
    inner: np.ndarray
    data: np.ndarray

    @classmethod
    def build(cls, functions: list[Function]) -> FunctionTable:
        """Pack ``functions``; function ``i`` of the list is function ``i`` of the table
        (a multiplier's inner functions are appended after them).

        Parameters
        ----------
        functions : list of Function
            The functions to pack.

        Returns
        -------
        FunctionTable
            The packed table.
        """
        rows: list[list] = []
        data: list[float] = []
        pending = list(functions)
        i = 0
        while i < len(pending):
            f = pending[i]
            inner = -1
            if f.kind == "multiplier":
                assert f.inner is not None
                pending.append(f.inner)
                inner = len(pending) - 1
            numbers = _numbers(f)
            rows.append([KIND_CODES[f.kind], len(data), _size(f), f.scale if f.kind == "multiplier" else 1.0, inner])
            data.extend(numbers)
            i += 1
        arr = np.array(rows, dtype=float).reshape(-1, 5)
        return cls(arr[:, 0].astype(np.int64), arr[:, 1].astype(np.int64), arr[:, 2].astype(np.int64),
                   arr[:, 3].copy(), arr[:, 4].astype(np.int64), np.array(data + [0.0], dtype=float))

    def arrays(self) -> tuple:
        """The six arrays in the kernels' order.

        Returns
        -------
        tuple of numpy.ndarray
            ``(kind, start, size, scale, inner, data)``.
        """
        return self.kind, self.start, self.size, self.scale, self.inner, self.data


def _size(f: Function) -> int:
    if f.kind in ("linear", "polynomial"):
        return len(f.coefficients)
    if f.kind in ("piecewise_linear", "spline", "natural_spline"):
        return len(f.x)
    return 1


def _numbers(f: Function) -> list[float]:
    if f.kind == "constant":
        return [f.value]
    if f.kind in ("linear", "polynomial"):
        return list(f.coefficients)
    x, y = np.asarray(f.x, float), np.asarray(f.y, float)
    if f.kind == "piecewise_linear":
        slopes = np.zeros(len(x))
        if len(x) > 1:
            slopes[:-1] = np.diff(y) / np.diff(x)
            slopes[-1] = slopes[-2]
        return [*x, *y, *slopes]
    if f.kind in ("spline", "natural_spline"):
        coef = simm_spline_coefficients if f.kind == "spline" else natural_spline_coefficients
        b, c, d = coef(x, y)
        return [*x, *y, *b, *c, *d]
    return []

"""Scalar functions of one coordinate, as data: what an OpenSim ``TransformAxis`` or coupler applies.

Each function is a small frozen value; a model packs all of its functions
into one :class:`FunctionTable` (type codes and coefficient arrays) that one
numba kernel evaluates, with the first and second derivatives, whatever the
model, for joints, couplers and muscle path points alike
(:func:`humanbody._kernels.functions.function_value`).

============================  ==============================================  ====================
type                          value                                           outside the knots
============================  ==============================================  ====================
``Constant(value)``           ``c``                                           --
``Linear(slope, intercept)``  ``a x + b``                                     --
``Polynomial(coefficients)``  ``c_0 x^n + ... + c_n`` (decreasing powers,     --
                              as OpenSim's PolynomialFunction and np.polyval)
``PiecewiseLinear(x, y)``     straight pieces through the points              end pieces extended
``SimmSpline(x, y)``          OpenSim's SimmSpline: the cubic spline of       end value + end slope
                              Forsythe, Malcolm and Moler (end third
                              derivatives those of the cubics through the
                              first and last four points; 3 points: the
                              parabola; 2: the line)
``NaturalCubicSpline(x, y)``  cubic spline, zero curvature at both ends       end value + end slope
``Multiplier(function, s)``   ``s f(x)`` (OpenSim's MultiplierFunction)        as ``f``
============================  ==============================================  ====================

Units are those of the coordinate (x: rad or m) and of what the function
gives (rad or m).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import functions as _k
from ..errors import InputError

__all__ = ["Function", "Constant", "Linear", "Polynomial", "PiecewiseLinear", "SimmSpline",
           "NaturalCubicSpline", "Multiplier", "FunctionTable"]


class Function:
    """A scalar function of one variable with its first two derivatives (the types below)."""

    def coefficients(self) -> tuple[int, np.ndarray]:  # pragma: no cover - every type overrides
        """The function as the kernel reads it (every type overrides this; the overrides share this description).

        Returns
        -------
        code : int
            The type code of :mod:`humanbody._kernels.functions`.
        coefficients : (k,) float ndarray
            The type's numbers (knots, spline coefficients, ...).
        """
        raise NotImplementedError

    def __call__(self, x: ArrayLike, derivative: int = 0) -> np.ndarray:
        """The function (``derivative`` 0), its slope (1) or its curvature (2) at ``x``, the shape of ``x``."""
        if derivative not in (0, 1, 2):
            raise InputError(f"derivative must be 0, 1 or 2, got {derivative}")
        table = FunctionTable.of([self])
        xs = np.asarray(x, dtype=float)
        out = table.evaluate(0, xs.reshape(-1))
        return out[:, derivative].reshape(xs.shape)


def _knots(x: ArrayLike, y: ArrayLike, what: str, least: int) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x, dtype=float).ravel(), np.asarray(y, dtype=float).ravel()
    if xa.shape != ya.shape or xa.size < least:
        raise InputError(f"{what} needs x and y of one length, at least {least} points; got {xa.size} and {ya.size}")
    if not (np.all(np.isfinite(xa)) and np.all(np.isfinite(ya))):
        raise InputError(f"{what} has a non-finite point")
    if np.any(np.diff(xa) <= 0.0):
        raise InputError(f"{what} needs strictly increasing x")
    return xa, ya


@dataclass(frozen=True)
class Constant(Function):
    """``f(x) = value``."""

    value: float

    def coefficients(self):
        return _k.CONSTANT, np.array([float(self.value)])


@dataclass(frozen=True)
class Linear(Function):
    """``f(x) = slope x + intercept``."""

    slope: float = 1.0
    intercept: float = 0.0

    def coefficients(self):
        return _k.LINEAR, np.array([float(self.slope), float(self.intercept)])


@dataclass(frozen=True, eq=False)
class Polynomial(Function):
    """``f(x) = c_0 x^n + c_1 x^(n-1) + ... + c_n`` (decreasing powers)."""

    coefficients_: tuple

    def __init__(self, coefficients: Sequence[float]):
        c = tuple(float(v) for v in np.asarray(coefficients, dtype=float).ravel())
        if not c:
            raise InputError("a polynomial needs at least one coefficient")
        object.__setattr__(self, "coefficients_", c)

    def coefficients(self):
        return _k.POLYNOMIAL, np.array(self.coefficients_)


@dataclass(frozen=True, eq=False)
class PiecewiseLinear(Function):
    """Straight pieces through the points ``(x_i, y_i)`` (x increasing), the end pieces extended."""

    x: np.ndarray
    y: np.ndarray

    def __init__(self, x: ArrayLike, y: ArrayLike):
        xa, ya = _knots(x, y, "a piecewise linear function", 2)
        object.__setattr__(self, "x", xa)
        object.__setattr__(self, "y", ya)

    def coefficients(self):
        return _k.PIECEWISE_LINEAR, np.concatenate([self.x, self.y])


_TINY = 1e-7   # OpenSim's floor on a knot interval in SimmSpline (m or rad)


def _solve_tridiagonal(diagonal: np.ndarray, right: np.ndarray, off: np.ndarray) -> None:
    """Solve in place the symmetric tridiagonal system ``T s = right`` (Thomas' elimination, no pivoting).

    Parameters
    ----------
    diagonal : (n,) float ndarray
        The diagonal of ``T``; overwritten by the elimination.
    right : (n,) float ndarray
        The right-hand side; overwritten by the solution ``s``.
    off : (n,) float ndarray
        ``off[i]`` is ``T[i, i+1] = T[i+1, i]`` (the last entry unused).
    """
    n = diagonal.size
    for i in range(1, n):
        t = off[i - 1] / diagonal[i - 1]
        diagonal[i] -= t * off[i - 1]
        right[i] -= t * right[i - 1]
    right[-1] /= diagonal[-1]
    for i in range(n - 2, -1, -1):
        right[i] = (right[i] - off[i] * right[i + 1]) / diagonal[i]


def _pieces(x: np.ndarray, y: np.ndarray, h: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """The kernel's ``(x, a, b, c, d)`` of the cubic pieces whose curvature terms at the knots are ``sigma``.

    With ``sigma = y'' / 6`` at the knots and ``D_i = (y_(i+1) - y_i) / h_i``, the piece on
    ``[x_i, x_(i+1)]`` is ``y_i + b_i t + c_i t^2 + d_i t^3`` (``t = x - x_i``):
    ``b_i = D_i - h_i (sigma_(i+1) + 2 sigma_i)``, ``c_i = 3 sigma_i``,
    ``d_i = (sigma_(i+1) - sigma_i) / h_i``; the last knot's ``b`` is the slope there,
    ``D + h (sigma_(n-2) + 2 sigma_(n-1))`` (the function continues along it).

    Parameters
    ----------
    x, y : (n,) float ndarray
        Knots (increasing; rad or m) and values there.
    h : (n-1,) float ndarray
        The knot intervals.
    sigma : (n,) float ndarray
        One sixth of the second derivative at each knot.

    Returns
    -------
    (5 n,) float ndarray
        ``x, y, b, c, d`` one after the other.
    """
    b, c, d = np.zeros(x.size), np.zeros(x.size), np.zeros(x.size)
    b[-1] = (y[-1] - y[-2]) / h[-1] + h[-1] * (sigma[-2] + 2.0 * sigma[-1])
    b[:-1] = (y[1:] - y[:-1]) / h - h * (sigma[1:] + 2.0 * sigma[:-1])
    d[:-1] = (sigma[1:] - sigma[:-1]) / h
    c[:] = 3.0 * sigma
    d[-1] = d[-2]
    return np.concatenate([x, y, b, c, d])


def simm_spline_coefficients(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """OpenSim's SimmSpline through ``(x, y)`` as the kernel's cubic pieces, computed as OpenSim computes it.

    Continuity of slope and curvature inside, ``h_(i-1) s_(i-1) + 2 (h_(i-1) + h_i) s_i + h_i s_(i+1) =
    D_i - D_(i-1)`` (``s = y''/6``); at each end the third derivative of the end piece is that of the cubic
    through the end four points (the divided differences of Forsythe, Malcolm and Moler's ``spline``, 1977);
    three points give the parabola, two the line.  The system is tridiagonal and solved in O(n), with
    OpenSim's floor of 1e-7 on the intervals.

    Parameters
    ----------
    x : (n,) float ndarray
        Knots, strictly increasing, n >= 2 (rad or m: the coordinate's unit).
    y : (n,) float ndarray
        Values at the knots (the function's unit).

    Returns
    -------
    (5 n,) float ndarray
        ``x, y, b, c, d``: the piece on ``[x_i, x_(i+1)]`` is ``y_i + b_i t + c_i t^2 + d_i t^3``, ``t = x - x_i``.
    """
    n = x.size
    h = np.maximum(_TINY, np.diff(x))
    if n == 2:
        return _pieces(x, y, h, np.zeros(2))
    slope = np.diff(y) / h
    off, diagonal, right = np.zeros(n), np.zeros(n), np.zeros(n)
    off[:-1] = h
    diagonal[1:-1] = 2.0 * (h[:-1] + h[1:])
    right[1:-1] = slope[1:] - slope[:-1]
    diagonal[0], diagonal[-1] = -h[0], -h[-1]
    if n > 3:
        first = right[2] / max(_TINY, x[3] - x[1]) - right[1] / max(_TINY, x[2] - x[0])
        last = right[-2] / max(_TINY, x[-1] - x[-3]) - right[-3] / max(_TINY, x[-2] - x[-4])
        right[0] = first * h[0] * h[0] / max(_TINY, x[3] - x[0])
        right[-1] = -last * h[-1] * h[-1] / max(_TINY, x[-1] - x[-4])
    _solve_tridiagonal(diagonal, right, off)
    return _pieces(x, y, h, right)


def natural_spline_coefficients(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The natural cubic spline through ``(x, y)`` (zero second derivative at both ends) as the kernel's pieces.

    The inside equations of :func:`simm_spline_coefficients` with ``s_0 = s_(n-1) = 0``, solved by the same
    tridiagonal elimination.

    Parameters
    ----------
    x : (n,) float ndarray
        Knots, strictly increasing, n >= 2 (rad or m).
    y : (n,) float ndarray
        Values at the knots.

    Returns
    -------
    (5 n,) float ndarray
        ``x, y, b, c, d`` as :func:`simm_spline_coefficients` gives them.
    """
    h = np.diff(x)
    sigma = np.zeros(x.size)
    if x.size > 2:
        slope = np.diff(y) / h
        inside = sigma[1:-1]
        inside[:] = slope[1:] - slope[:-1]
        _solve_tridiagonal(2.0 * (h[:-1] + h[1:]), inside, h[1:].copy())
    return _pieces(x, y, h, sigma)


@dataclass(frozen=True, eq=False)
class SimmSpline(Function):
    """OpenSim's SimmSpline through ``(x_i, y_i)``: Forsythe-Malcolm-Moler end conditions (module docstring)."""

    x: np.ndarray
    y: np.ndarray

    def __init__(self, x: ArrayLike, y: ArrayLike):
        xa, ya = _knots(x, y, "a spline", 2)
        object.__setattr__(self, "x", xa)
        object.__setattr__(self, "y", ya)

    def coefficients(self):
        return _k.CUBIC, simm_spline_coefficients(self.x, self.y)


@dataclass(frozen=True, eq=False, init=False)
class NaturalCubicSpline(SimmSpline):
    """The natural cubic spline through ``(x_i, y_i)``: zero second derivative at both ends."""

    def coefficients(self):
        return _k.CUBIC, natural_spline_coefficients(self.x, self.y)


@dataclass(frozen=True)
class Multiplier(Function):
    """``scale * function(x)`` (OpenSim's MultiplierFunction)."""

    function: Function
    scale: float = 1.0

    def coefficients(self):
        return _k.MULTIPLIER, np.array([float(self.scale)])


@dataclass(frozen=True, eq=False)
class FunctionTable:
    """Functions packed for the kernel: codes, coefficient slices, the function each multiplier scales.

    Attributes
    ----------
    code, start, size, inner : ndarray of int64, shape (nf,)
    coef : ndarray of float64
    """

    code: np.ndarray
    start: np.ndarray
    size: np.ndarray
    inner: np.ndarray
    coef: np.ndarray

    @classmethod
    def of(cls, functions: Sequence[Function]) -> FunctionTable:
        """Pack functions for the kernel.

        Parameters
        ----------
        functions : sequence of Function
            Entry i becomes function i; a multiplier's inner functions are appended after them.

        Returns
        -------
        FunctionTable
            The functions' type codes, coefficient slices and numbers, in the kernel's layout.

        Raises
        ------
        InputError
            For an entry that is not a function of the core.
        """
        todo = list(functions)
        code, start, size, inner, parts = [], [], [], [], []
        at = 0
        i = 0
        while i < len(todo):
            fn = todo[i]
            if not isinstance(fn, Function):
                raise InputError(f"not a function of the core: {fn!r}")
            c, co = fn.coefficients()
            code.append(c)
            start.append(at)
            size.append(co.size)
            parts.append(co)
            at += co.size
            if isinstance(fn, Multiplier):
                inner.append(len(todo))
                todo.append(fn.function)
            else:
                inner.append(-1)
            i += 1
        as_int = lambda v: np.array(v, dtype=np.int64)  # noqa: E731
        coef = np.concatenate(parts) if parts else np.zeros(0)
        return cls(as_int(code), as_int(start), as_int(size), as_int(inner), coef)

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The kernel's arguments.

        Returns
        -------
        tuple of ndarray
            ``(code, start, size, inner, coef)``.
        """
        return self.code, self.start, self.size, self.inner, self.coef

    def evaluate(self, fid: int, x: ArrayLike) -> np.ndarray:
        """Values and first two derivatives of one function of the table.

        Parameters
        ----------
        fid : int
            The function's index in the table.
        x : array_like
            Where (any shape; flattened).

        Returns
        -------
        (n, 3) ndarray
            ``(f, f', f'')`` at each ``x``.
        """
        xs = np.ascontiguousarray(np.asarray(x, dtype=float).ravel())
        out = np.empty((xs.size, 3))
        _k.evaluate_functions(*self.arrays(), int(fid), xs, out)
        return out

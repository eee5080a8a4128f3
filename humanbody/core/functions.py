"""Scalar functions of one coordinate, as data: what an OpenSim ``TransformAxis`` or coupler applies.

Each function is a small frozen value; a model packs all of its functions
into one :class:`FunctionTable` (type codes and coefficient arrays) that one
numba kernel evaluates, with the first and second derivatives, whatever the
model (:func:`humanbody._kernels.joint_tree.function_value`).

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

from .._kernels import joint_tree as _k
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
            The type code of :mod:`humanbody._kernels.joint_tree`.
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


def _cubic_coefficients(x: np.ndarray, y: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``(x, a, b, c, d)`` of the cubic pieces with second derivatives M at the knots.

    On piece i, ``h = x - x_i``: ``a = y_i``, ``b = D_i - h_i (2 M_i + M_(i+1)) / 6``,
    ``c = M_i / 2``, ``d = (M_(i+1) - M_i) / (6 h_i)``, with ``D_i`` the piece's slope; the
    last knot's b is the slope there (the end continues along it).
    """
    h = np.diff(x)
    D = np.diff(y) / h
    b = np.empty_like(x)
    b[:-1] = D - h * (2.0 * M[:-1] + M[1:]) / 6.0
    b[-1] = D[-1] + h[-1] * (M[-2] + 2.0 * M[-1]) / 6.0
    c = M / 2.0
    d = np.zeros_like(x)
    d[:-1] = np.diff(M) / (6.0 * h)
    return np.concatenate([x, y, b, c, d])


def _spline_curvatures(x: np.ndarray, y: np.ndarray, natural: bool) -> np.ndarray:
    """Second derivatives M at the knots: continuity of slope inside, the end conditions at the ends.

    Inside: ``h_(i-1) M_(i-1) + 2 (h_(i-1) + h_i) M_i + h_i M_(i+1) = 6 (D_i - D_(i-1))``.
    Natural: ``M_0 = M_(n-1) = 0``.  Forsythe-Malcolm-Moler (``natural`` False): the
    third derivative on the end piece, ``(M_1 - M_0) / h_0``, equals that of the
    cubic through the first four points, ``6 y[x_0, x_1, x_2, x_3]`` (divided
    difference; likewise at the other end); with three points ``M_0 = M_1 = M_2``.
    """
    n = x.size
    if n == 2:
        return np.zeros(2)
    h, D = np.diff(x), np.diff(y) / np.diff(x)
    A, r = np.zeros((n, n)), np.zeros(n)
    for i in range(1, n - 1):
        A[i, i - 1:i + 2] = h[i - 1], 2.0 * (h[i - 1] + h[i]), h[i]
        r[i] = 6.0 * (D[i] - D[i - 1])
    if natural:
        A[0, 0] = A[-1, -1] = 1.0
    elif n == 3:
        A[0, :2], A[-1, -2:] = (1.0, -1.0), (1.0, -1.0)
    else:
        def third(xs, ys):  # the divided difference y[x0, x1, x2, x3]
            d1 = np.diff(ys) / np.diff(xs)
            d2 = np.diff(d1) / (xs[2:] - xs[:-2])
            return (d2[1] - d2[0]) / (xs[3] - xs[0])
        A[0, :2], r[0] = (-1.0 / h[0], 1.0 / h[0]), 6.0 * third(x[:4], y[:4])
        A[-1, -2:], r[-1] = (-1.0 / h[-1], 1.0 / h[-1]), 6.0 * third(x[-4:], y[-4:])
    return np.linalg.solve(A, r)


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
        return _k.CUBIC, _cubic_coefficients(self.x, self.y, _spline_curvatures(self.x, self.y, natural=False))


@dataclass(frozen=True, eq=False)
class NaturalCubicSpline(SimmSpline):
    """The natural cubic spline through ``(x_i, y_i)``: zero second derivative at both ends."""

    def coefficients(self):
        return _k.CUBIC, _cubic_coefficients(self.x, self.y, _spline_curvatures(self.x, self.y, natural=True))


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

"""Inline numba helpers on 3-vectors carried as 3-tuples of floats (LLVM keeps them in registers)."""

from __future__ import annotations

import math

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def add(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@nb.njit(cache=_CACHE, inline="always")
def sub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@nb.njit(cache=_CACHE, inline="always")
def scale(a, s):
    return (a[0] * s, a[1] * s, a[2] * s)


@nb.njit(cache=_CACHE, inline="always")
def axpy(s, a, b):
    """``b + s a``."""
    return (b[0] + s * a[0], b[1] + s * a[1], b[2] + s * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dot(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@nb.njit(cache=_CACHE, inline="always")
def cross(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@nb.njit(cache=_CACHE, inline="always")
def norm(a):
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dist2(a, b):
    d = sub(a, b)
    return dot(d, d)


@nb.njit(cache=_CACHE, inline="always")
def unit(a):
    """``a / |a|``, or the zero vector when ``a`` is zero."""
    n = norm(a)
    if n == 0.0:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@nb.njit(cache=_CACHE, inline="always")
def mat_vec(m, v):
    """``M v`` for a 3x3 array ``m``."""
    return (m[0, 0] * v[0] + m[0, 1] * v[1] + m[0, 2] * v[2],
            m[1, 0] * v[0] + m[1, 1] * v[1] + m[1, 2] * v[2],
            m[2, 0] * v[0] + m[2, 1] * v[1] + m[2, 2] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def mat_t_vec(m, v):
    """``M^T v`` for a 3x3 array ``m``."""
    return (m[0, 0] * v[0] + m[1, 0] * v[1] + m[2, 0] * v[2],
            m[0, 1] * v[0] + m[1, 1] * v[1] + m[2, 1] * v[2],
            m[0, 2] * v[0] + m[1, 2] * v[1] + m[2, 2] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def acos_clipped(c):
    """``acos`` of a cosine that rounding may have pushed past ±1."""
    return math.acos(min(1.0, max(-1.0, c)))

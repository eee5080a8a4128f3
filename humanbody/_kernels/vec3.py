"""Inline numba helpers on 3-vectors carried as 3-tuples of floats (LLVM keeps them in registers)."""

from __future__ import annotations

import math

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def add(a, b):
    """``a + b``.

    Parameters
    ----------
    a, b : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@nb.njit(cache=_CACHE, inline="always")
def sub(a, b):
    """``a - b``.

    Parameters
    ----------
    a, b : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@nb.njit(cache=_CACHE, inline="always")
def scale(a, s):
    """``s a``.

    Parameters
    ----------
    a : tuple of 3 float
    s : float

    Returns
    -------
    tuple of 3 float
    """
    return (a[0] * s, a[1] * s, a[2] * s)


@nb.njit(cache=_CACHE, inline="always")
def axpy(s, a, b):
    """``b + s a``.

    Parameters
    ----------
    s : float
    a, b : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (b[0] + s * a[0], b[1] + s * a[1], b[2] + s * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dot(a, b):
    """``a . b``.

    Parameters
    ----------
    a, b : tuple of 3 float

    Returns
    -------
    float
    """
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@nb.njit(cache=_CACHE, inline="always")
def cross(a, b):
    """``a x b``.

    Parameters
    ----------
    a, b : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@nb.njit(cache=_CACHE, inline="always")
def norm(a):
    """``|a|``.

    Parameters
    ----------
    a : tuple of 3 float

    Returns
    -------
    float
    """
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dist2(a, b):
    """``|a - b|^2``.

    Parameters
    ----------
    a, b : tuple of 3 float

    Returns
    -------
    float
    """
    d = sub(a, b)
    return dot(d, d)


@nb.njit(cache=_CACHE, inline="always")
def unit(a):
    """``a / |a|``, or the zero vector when ``a`` is zero.

    Parameters
    ----------
    a : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    n = norm(a)
    if n == 0.0:
        return (0.0, 0.0, 0.0)
    return (a[0] / n, a[1] / n, a[2] / n)


@nb.njit(cache=_CACHE, inline="always")
def mat_vec(m, v):
    """``M v`` for a 3x3 array ``m``.

    Parameters
    ----------
    m : ndarray, shape (3, 3)
    v : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (m[0, 0] * v[0] + m[0, 1] * v[1] + m[0, 2] * v[2],
            m[1, 0] * v[0] + m[1, 1] * v[1] + m[1, 2] * v[2],
            m[2, 0] * v[0] + m[2, 1] * v[1] + m[2, 2] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def mat_t_vec(m, v):
    """``M^T v`` for a 3x3 array ``m``.

    Parameters
    ----------
    m : ndarray, shape (3, 3)
    v : tuple of 3 float

    Returns
    -------
    tuple of 3 float
    """
    return (m[0, 0] * v[0] + m[1, 0] * v[1] + m[2, 0] * v[2],
            m[0, 1] * v[0] + m[1, 1] * v[1] + m[2, 1] * v[2],
            m[0, 2] * v[0] + m[1, 2] * v[1] + m[2, 2] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def acos_clipped(c):
    """``acos`` of a cosine that rounding may have pushed past ±1.

    Parameters
    ----------
    c : float

    Returns
    -------
    float, rad in [0, pi]
    """
    return math.acos(min(1.0, max(-1.0, c)))

"""The kernels' one set of inline numba helpers on 3-vectors carried as 3-tuples of floats (LLVM keeps them in
registers): sums, differences, products, norms, matrix-vector products with 3x3 arrays, and the loads and stores of a
3-vector in an array.  Rotations (9-tuple matrices, angles, quaternions) are :mod:`humanbody._kernels.rot`'s."""

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
        The two vectors (one unit for both).

    Returns
    -------
    tuple of 3 float
        ``a + b``.
    """
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2])


@nb.njit(cache=_CACHE, inline="always")
def sub(a, b):
    """``a - b``.

    Parameters
    ----------
    a, b : tuple of 3 float
        The two vectors (one unit for both).

    Returns
    -------
    tuple of 3 float
        ``a - b``.
    """
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2])


@nb.njit(cache=_CACHE, inline="always")
def scale(a, s):
    """``s a``.

    Parameters
    ----------
    a : tuple of 3 float
        The vector (any unit).
    s : float
        The factor.

    Returns
    -------
    tuple of 3 float
        ``s a``, component by component ``a_i s``.
    """
    return (a[0] * s, a[1] * s, a[2] * s)


@nb.njit(cache=_CACHE, inline="always")
def axpy(s, a, b):
    """``b + s a``.

    Parameters
    ----------
    s : float
        The factor of ``a``.
    a, b : tuple of 3 float
        The vectors (one unit for both).

    Returns
    -------
    tuple of 3 float
        ``b + s a``.
    """
    return (b[0] + s * a[0], b[1] + s * a[1], b[2] + s * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dot(a, b):
    """``a . b``.

    Parameters
    ----------
    a, b : tuple of 3 float
        The two vectors.

    Returns
    -------
    float
        ``a . b`` (the product of their units).
    """
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@nb.njit(cache=_CACHE, inline="always")
def cross(a, b):
    """``a x b``.

    Parameters
    ----------
    a, b : tuple of 3 float
        The two vectors, in one right-handed frame's components.

    Returns
    -------
    tuple of 3 float
        ``a x b`` in the same components.
    """
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@nb.njit(cache=_CACHE, inline="always")
def norm(a):
    """``|a|``.

    Parameters
    ----------
    a : tuple of 3 float
        The vector (any unit).

    Returns
    -------
    float
        Its length (the vector's unit).
    """
    return math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2])


@nb.njit(cache=_CACHE, inline="always")
def dist2(a, b):
    """``|a - b|^2``.

    Parameters
    ----------
    a, b : tuple of 3 float
        Two points (one unit for both, e.g. m).

    Returns
    -------
    float
        The squared distance between them (unit squared).
    """
    d = sub(a, b)
    return dot(d, d)


@nb.njit(cache=_CACHE, inline="always")
def unit(a):
    """``a / |a|``, or the zero vector when ``a`` is zero.

    Parameters
    ----------
    a : tuple of 3 float
        The vector (any unit).

    Returns
    -------
    tuple of 3 float
        The unit vector along ``a`` (dimensionless).
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
        The matrix (e.g. a rotation, body -> ground).
    v : tuple of 3 float
        The vector (any unit).

    Returns
    -------
    tuple of 3 float
        ``M v`` (the unit of ``v``).
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
        The matrix (e.g. a rotation, body -> ground, whose transpose maps back).
    v : tuple of 3 float
        The vector (any unit).

    Returns
    -------
    tuple of 3 float
        ``M^T v`` (the unit of ``v``).
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
        The cosine, clipped to [-1, 1] first.

    Returns
    -------
    float, rad in [0, pi]
        The angle.
    """
    return math.acos(min(1.0, max(-1.0, c)))


@nb.njit(cache=_CACHE, inline="always")
def row3(a, i):
    """Row ``i`` of an (n, 3) array as a 3-tuple.

    Parameters
    ----------
    a : ndarray, shape (n, 3)
        Vectors, one per row (any unit).
    i : int
        The row.

    Returns
    -------
    tuple of 3 float
        ``(a[i, 0], a[i, 1], a[i, 2])``.
    """
    return (a[i, 0], a[i, 1], a[i, 2])


@nb.njit(cache=_CACHE, inline="always")
def load3(X, f, b):
    """Vector ``X[f, b]`` of an (F, n, 3) array (frames x items x 3) as a 3-tuple.

    Parameters
    ----------
    X : ndarray, shape (F, n, 3)
        One vector per frame and item (any unit).
    f, b : int
        Frame and item.

    Returns
    -------
    tuple of 3 float
        ``(X[f, b, 0], X[f, b, 1], X[f, b, 2])``.
    """
    return (X[f, b, 0], X[f, b, 1], X[f, b, 2])


@nb.njit(cache=_CACHE, inline="always")
def store3(X, f, b, t):
    """Write a 3-tuple into ``X[f, b]`` of an (F, n, 3) array.

    Parameters
    ----------
    X : ndarray, shape (F, n, 3)
        Written in place.
    f, b : int
        Frame and item.
    t : tuple of 3 float
        The vector written.
    """
    X[f, b, 0], X[f, b, 1], X[f, b, 2] = t

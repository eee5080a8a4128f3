"""Inline numba helpers for rotations: one small function per operation.

Shared by the tree recursion (:mod:`humanbody._kernels.tree`) and the tracking
kernels (:mod:`humanbody._kernels.marker_fit`,
:mod:`humanbody._kernels.angles`), so they read like the equations.  A 3x3 matrix travels as a 9-tuple of scalars, row by row
(``(m00, m01, m02, m10, ..., m22)``), which LLVM keeps in registers; a
quaternion as ``(e1, e2, e3, e4)``, scalar last (Huston eq. 8.166).  Axes
are numbered 0 = x, 1 = y, 2 = z.  The NumPy forms are in
:mod:`humanbody.rotations`; 3-vector algebra (sums, products, cross products) is
:mod:`humanbody._kernels.vec3`'s.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def elementary(axis, s, c):
    """Matrix of a simple rotation about body axis ``axis`` with sine ``s`` and cosine ``c``
    (Huston's A, B, C of eqs. 8.64, 8.67, 8.70; parent = M . body).

    Parameters
    ----------
    axis : int
        0, 1 or 2.
    s, c : float
        Sine and cosine of the angle of rotation.

    Returns
    -------
    tuple of 9 float
        Row-major.
    """
    if axis == 0:
        return (1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
    if axis == 1:
        return (c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
    return (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)


@nb.njit(cache=_CACHE, inline="always")
def mul33(a, b):
    """Matrix product ``a b`` of two 9-tuples.

    Parameters
    ----------
    a, b : tuple of 9 float
        Two 3x3 matrices, row by row.

    Returns
    -------
    tuple of 9 float
        ``a b``, row by row.
    """
    return (
        a[0] * b[0] + a[1] * b[3] + a[2] * b[6],
        a[0] * b[1] + a[1] * b[4] + a[2] * b[7],
        a[0] * b[2] + a[1] * b[5] + a[2] * b[8],
        a[3] * b[0] + a[4] * b[3] + a[5] * b[6],
        a[3] * b[1] + a[4] * b[4] + a[5] * b[7],
        a[3] * b[2] + a[4] * b[5] + a[5] * b[8],
        a[6] * b[0] + a[7] * b[3] + a[8] * b[6],
        a[6] * b[1] + a[7] * b[4] + a[8] * b[7],
        a[6] * b[2] + a[7] * b[5] + a[8] * b[8],
    )


@nb.njit(cache=_CACHE, inline="always")
def tmul33(a, b):
    """``a^T b`` of two 9-tuples (the products and sums of ``mul33(transpose33(a), b)``).

    Parameters
    ----------
    a, b : tuple of 9 float
        Two 3x3 matrices, row by row.

    Returns
    -------
    tuple of 9 float
        ``a^T b``, row by row.
    """
    return mul33(transpose33(a), b)


@nb.njit(cache=_CACHE, inline="always")
def bryant(sa, ca, sb, cb, sg, cg):
    """The Bryant matrix S = A(alpha) B(beta) C(gamma) in closed form (Huston eq. 8.74).

    Parameters
    ----------
    sa, ca, sb, cb, sg, cg : float
        Sines and cosines of alpha, beta, gamma.

    Returns
    -------
    tuple of 9 float
        The rotation matrix (body -> parent components), row by row.
    """
    return (
        cb * cg, -cb * sg, sb,
        ca * sg + sa * sb * cg, ca * cg - sa * sb * sg, -sa * cb,
        sa * sg - ca * sb * cg, sa * cg + ca * sb * sg, ca * cb,
    )


@nb.njit(cache=_CACHE, inline="always")
def sequence_matrix(i0, i1, i2, sa, ca, sb, cb, sg, cg):
    """``S = R_i0(alpha) R_i1(beta) R_i2(gamma)`` and the middle rotation axis.

    Returns ``(S, u2)``: S as a 9-tuple and ``u2 = R_i0(alpha) e_i1``, the
    floating axis in parent components.  The first axis is ``e_i0`` and the
    third ``S e_i2`` (column i2 of S), so the three joint axes of the
    sequence (the columns of :func:`humanbody.mechanics.angular_rates.angle_rate_matrix`)
    come without further work.

    Parameters
    ----------
    i0, i1, i2 : int
        The sequence's axes.
    sa, ca, sb, cb, sg, cg : float
        Sines and cosines of its three angles.

    Returns
    -------
    S : tuple of 9 float
        The rotation matrix ``R_i0 R_i1 R_i2`` (body -> parent), row by row.
    u2 : tuple of 3 float
        The second rotation's axis in the parent's components (unit vector).
    """
    A = elementary(i0, sa, ca)
    u2 = (A[i1], A[3 + i1], A[6 + i1])
    if i0 == 0 and i1 == 1 and i2 == 2:
        return bryant(sa, ca, sb, cb, sg, cg), u2
    return mul33(mul33(A, elementary(i1, sb, cb)), elementary(i2, sg, cg)), u2


@nb.njit(cache=_CACHE, inline="always")
def mv33(m, v):
    """Product ``m v`` of a 9-tuple matrix and a 3-tuple.

    Parameters
    ----------
    m : tuple of 9 float
        A 3x3 matrix, row by row.
    v : tuple of 3 float
        A vector in the components ``m`` maps from.

    Returns
    -------
    tuple of 3 float
        ``m v``.
    """
    return (m[0] * v[0] + m[1] * v[1] + m[2] * v[2],
            m[3] * v[0] + m[4] * v[1] + m[5] * v[2],
            m[6] * v[0] + m[7] * v[1] + m[8] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def tmv33(m, v):
    """Product ``m^T v`` of a 9-tuple matrix and a 3-tuple.

    Parameters
    ----------
    m : tuple of 9 float
        A 3x3 matrix, row by row.
    v : tuple of 3 float
        A vector in the components ``m`` maps to.

    Returns
    -------
    tuple of 3 float
        ``m^T v``.
    """
    return (m[0] * v[0] + m[3] * v[1] + m[6] * v[2],
            m[1] * v[0] + m[4] * v[1] + m[7] * v[2],
            m[2] * v[0] + m[5] * v[1] + m[8] * v[2])


@nb.njit(cache=_CACHE, inline="always")
def quaternion_product(p1, p2, p3, p4, q1, q2, q3, q4):
    """Euler parameters of ``S(p) S(q)``: ``(p4 q + q4 p + p x q, p4 q4 - p . q)``.

    Parameters
    ----------
    p1, p2, p3, p4 : float
        p, scalar last.
    q1, q2, q3, q4 : float
        q, scalar last.

    Returns
    -------
    tuple of 4 float
        The product quaternion, scalar last.
    """
    return (
        p4 * q1 + q4 * p1 + (p2 * q3 - p3 * q2),
        p4 * q2 + q4 * p2 + (p3 * q1 - p1 * q3),
        p4 * q3 + q4 * p3 + (p1 * q2 - p2 * q1),
        p4 * q4 - (p1 * q1 + p2 * q2 + p3 * q3),
    )


@nb.njit(cache=_CACHE, inline="always")
def axis_quaternion(axis, s, c):
    """Euler parameters ``(sin(t/2) e_axis, cos(t/2))`` of a simple rotation, from the half-angle's sine and cosine.

    Parameters
    ----------
    axis : int
        The rotation axis: 0 = x, 1 = y, 2 = z.
    s, c : float
        Sine and cosine of half the angle.

    Returns
    -------
    tuple of 4 float
        The quaternion of that elementary rotation, scalar last.
    """
    if axis == 0:
        return s, 0.0, 0.0, c
    if axis == 1:
        return 0.0, s, 0.0, c
    return 0.0, 0.0, s, c


@nb.njit(cache=_CACHE, inline="always")
def canonical_quaternion(e1, e2, e3, e4):
    """The sign of a quaternion (e1, e2, e3 vector part, e4 scalar) that makes e4 > 0;
    ties (e4 == 0) broken by the first non-zero of e1, e2, e3 being positive.

    Parameters
    ----------
    e1, e2, e3, e4 : float
        A unit quaternion, scalar last.

    Returns
    -------
    tuple of 4 float
        The same rotation with a non-negative scalar part.
    """
    key = e4
    if key == 0.0:
        key = e1
    if key == 0.0:
        key = e2
    if key == 0.0:
        key = e3
    if key < 0.0:
        return -e1, -e2, -e3, -e4
    return e1, e2, e3, e4


@nb.njit(cache=_CACHE, inline="always")
def transpose33(a):
    """Transpose of a 9-tuple matrix.

    Parameters
    ----------
    a : tuple of 9 float
        A 3x3 matrix, row by row.

    Returns
    -------
    tuple of 9 float
        ``a^T``, row by row.
    """
    return (a[0], a[3], a[6], a[1], a[4], a[7], a[2], a[5], a[8])


@nb.njit(cache=_CACHE, inline="always")
def rotation_angle(m, axis):
    """Angle of a simple rotation about ``axis`` read from its matrix (atan2 of its sine and cosine entries).

    Parameters
    ----------
    m : tuple of 9 float
        An elementary rotation matrix, row by row.
    axis : int
        Its axis: 0 = x, 1 = y, 2 = z.

    Returns
    -------
    float, rad
        The angle of the rotation, in (-pi, pi].
    """
    p = (axis + 1) % 3
    r = (axis + 2) % 3
    return np.arctan2(m[3 * r + p] - m[3 * p + r], m[3 * p + p] + m[3 * r + r])


@nb.njit(cache=_CACHE, inline="always")
def sequence_angles(i, j, i3, s, tol):
    """Angles of the matrix ``s`` (9-tuple) in the sequence with axes (i, j, i3).

    The same algorithm as :func:`humanbody.rotations.matrix_to_euler`:
    the middle angle from atan2 of an entry and a hypotenuse, the first from
    two entries the middle rotation does not mix, the third from
    ``R_j(middle)^T R_i(first)^T S = R_i3(third)``; on the singular set
    (``|sin|`` or ``|cos|`` of the middle angle below ``tol``) the third is 0
    and the first is read from ``S R_j(middle)^T = R_i(first)``.
    Returns ``(first, middle, third)`` in rad.

    Parameters
    ----------
    i, j, i3 : int
        The axes of the sequence's three rotations (0 = x, 1 = y, 2 = z).
    s : tuple of 9 float
        The rotation matrix (body -> parent), row by row.
    tol : float
        The singular set's bound on ``|sin|`` (Euler) or ``|cos|`` (Cardan) of the middle angle, below which the
        third angle is set to 0.

    Returns
    -------
    tuple of 3 float
        ``(first, middle, third)`` (rad).
    """
    k = 3 - i - j
    e = 1.0 if (j - i) % 3 == 1 else -1.0
    if i == i3:  # Euler sequence
        sm = np.hypot(s[3 * i + j], s[3 * i + k])
        middle = np.arctan2(sm, s[3 * i + i])
        first = np.arctan2(s[3 * j + i], -e * s[3 * k + i])
    else:  # Cardan sequence
        sm = np.hypot(s[3 * i + i], s[3 * i + j])
        middle = np.arctan2(e * s[3 * i + k], sm)
        first = np.arctan2(-e * s[3 * j + k], s[3 * k + k])
    rm = elementary(j, np.sin(middle), np.cos(middle))
    if sm < tol:
        return rotation_angle(mul33(s, transpose33(rm)), i), middle, 0.0
    a = elementary(i, np.sin(first), np.cos(first))
    return first, middle, rotation_angle(tmul33(rm, tmul33(a, s)), i3)


@nb.njit(cache=_CACHE, inline="always")
def finite33(a):
    """Whether every entry of a 9-tuple matrix is finite.

    Parameters
    ----------
    a : tuple of 9 float
        A 3x3 matrix, row by row.

    Returns
    -------
    bool
        True when every entry is finite.
    """
    ok = True
    for v in a:
        ok = ok and np.isfinite(v)
    return ok


#: A 9-tuple matrix of NaN (no rotation could be formed).
NAN33 = (np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan)


@nb.njit(cache=_CACHE, inline="always")
def load33(A, f):
    """The 3x3 matrix ``A[f]`` of an (F, 3, 3) array as a 9-tuple.

    Parameters
    ----------
    A : ndarray, shape (F, 3, 3)
        One matrix per frame.
    f : int
        The frame.

    Returns
    -------
    tuple of 9 float
        ``A[f]``, row by row.
    """
    return (A[f, 0, 0], A[f, 0, 1], A[f, 0, 2], A[f, 1, 0], A[f, 1, 1], A[f, 1, 2],
            A[f, 2, 0], A[f, 2, 1], A[f, 2, 2])


@nb.njit(cache=_CACHE, inline="always")
def store33(A, f, m):
    """``A[f] = m`` for an (F, 3, 3) array and a 9-tuple matrix.

    Parameters
    ----------
    A : ndarray, shape (F, 3, 3)
        One matrix per frame; written in place.
    f : int
        The frame.
    m : tuple of 9 float
        The matrix written into ``A[f]``, row by row.
    """
    (A[f, 0, 0], A[f, 0, 1], A[f, 0, 2], A[f, 1, 0], A[f, 1, 1], A[f, 1, 2],
     A[f, 2, 0], A[f, 2, 1], A[f, 2, 2]) = m


@nb.njit(cache=_CACHE, inline="always")
def quaternion_matrix(e1, e2, e3, e4):
    """Rotation matrix (9-tuple) of a unit quaternion, vector e1, e2, e3, scalar e4 (Huston eq. 8.176).

    Parameters
    ----------
    e1, e2, e3, e4 : float
        A unit quaternion, scalar last (Huston eq. 8.166).

    Returns
    -------
    tuple of 9 float
        Its rotation matrix, row by row.
    """
    return (e4 * e4 + e1 * e1 - e2 * e2 - e3 * e3, 2.0 * (e1 * e2 - e4 * e3), 2.0 * (e1 * e3 + e4 * e2),
            2.0 * (e1 * e2 + e4 * e3), e4 * e4 - e1 * e1 + e2 * e2 - e3 * e3, 2.0 * (e2 * e3 - e4 * e1),
            2.0 * (e1 * e3 - e4 * e2), 2.0 * (e2 * e3 + e4 * e1), e4 * e4 - e1 * e1 - e2 * e2 + e3 * e3)


@nb.njit(cache=_CACHE, inline="always")
def shepperd(s):
    """Unit quaternion (e1, e2, e3, e4) of a rotation matrix (9-tuple), Shepperd's method.

    As :func:`humanbody.rotations.matrix_to_quaternion`: the largest diagonal
    entry of ``K = 4 q q^T`` picks the column of K that is normalised; the
    sign makes e4 >= 0 (ties broken by e1, e2, e3, :func:`canonical_quaternion`).

    Parameters
    ----------
    s : tuple of 9 float
        A rotation matrix, row by row.

    Returns
    -------
    tuple of 4 float
        Its unit quaternion ``(e1, e2, e3, e4)``, scalar last, ``e4 >= 0``.
    """
    s00, s01, s02, s10, s11, s12, s20, s21, s22 = s
    d0 = 1.0 + s00 - s11 - s22
    d1 = 1.0 - s00 + s11 - s22
    d2 = 1.0 - s00 - s11 + s22
    d3 = 1.0 + s00 + s11 + s22
    k01, k02, k12 = s01 + s10, s02 + s20, s12 + s21
    k03, k13, k23 = s21 - s12, s02 - s20, s10 - s01
    if d0 >= d1 and d0 >= d2 and d0 >= d3:
        x, y, z, w = d0, k01, k02, k03
    elif d1 >= d2 and d1 >= d3:
        x, y, z, w = k01, d1, k12, k13
    elif d2 >= d3:
        x, y, z, w = k02, k12, d2, k23
    else:
        x, y, z, w = k03, k13, k23, d3
    nrm = np.sqrt(x * x + y * y + z * z + w * w)
    return canonical_quaternion(x / nrm, y / nrm, z / nrm, w / nrm)

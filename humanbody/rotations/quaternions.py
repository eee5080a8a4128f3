"""Euler parameters (quaternions, scalar last) and axis-angle: conversions, products, the rotation dyadic (Huston 8.149-8.176)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .common import as_matrices as _mat
from .common import as_vectors as _vec
from .common import check_sequence as _check_seq
from .common import scipy_rotation, skew, stacked_scipy


def sequence_to_quaternion(angles, seq="xyz", continuous: bool = False):
    """Euler parameters of a rotation sequence's angles, without forming the matrix.

    The product of the three axis quaternions ``(sin(t/2) n_axis,
    cos(t/2))`` of the sequence's rotations, in order (scipy's
    ``Rotation.from_euler(seq.upper(), angles)``, body-fixed axes).  Equal
    to ``matrix_to_quaternion(euler_to_matrix(angles, seq))`` to rounding,
    with no singular set.

    Parameters
    ----------
    angles, seq
        As in :func:`humanbody.rotations.euler_to_matrix`.
    continuous : bool
        As in :func:`matrix_to_quaternion`.

    Returns
    -------
    q : ndarray, shape (..., 4)
        Unit Euler parameters (quaternion), scalar last.
    """
    seq = _check_seq(seq)
    a = _vec(angles, 3, "angles")
    return _signed(stacked_scipy(lambda x: scipy_rotation().from_euler(seq.upper(), x).as_quat(), a, 3), continuous)


def quaternion_product(p, q):
    """Product of Euler parameters, the quaternion of ``S(p) S(q)``.

    Parameters
    ----------
    p, q : array_like, shape (..., 4)
        Euler parameters of S(p) and S(q), scalar last.

    Returns
    -------
    ndarray, shape (..., 4)
        The product (p4 q + q4 p + p x q, p4 q4 - p . q), scalar last.
    """
    p, q = _vec(p, 4, "a quaternion"), _vec(q, 4, "a quaternion")
    pv, qv = p[..., :3], q[..., :3]
    out = np.empty(np.broadcast_shapes(p.shape, q.shape))
    out[..., :3] = p[..., 3:] * qv + q[..., 3:] * pv + np.cross(pv, qv)
    out[..., 3] = p[..., 3] * q[..., 3] - np.sum(pv * qv, axis=-1)
    return out


def quaternion_to_matrix(q):
    """Transformation matrix of Euler parameters, Huston eq. 8.176.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        ``(eps1, eps2, eps3, eps4)``: vector part ``l sin(theta/2)`` then the
        scalar ``cos(theta/2)`` (eq. 8.166), the same order as
        ``scipy.spatial.transform.Rotation.as_quat``.  Normalised first, so
        any non-zero 4-vector is accepted.

    Returns
    -------
    S : ndarray, shape (..., 3, 3)
        The transformation matrix: parent components = S . body components.
    """
    q = _vec(q, 4, "a quaternion")
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(~(n > 0)):
        raise InputError("a quaternion has zero or non-finite norm.")
    return stacked_scipy(lambda x: scipy_rotation().from_quat(x).as_matrix(), q / n, 4)


def _canonical_sign(q):
    """+1/-1 making eps4 > 0; ties (eps4 == 0) broken by eps1, eps2, eps3."""
    key = q[..., 3]
    for i in (0, 1, 2):
        key = np.where(key == 0.0, q[..., i], key)
    return np.where(key < 0.0, -1.0, 1.0)


def _signed(q, continuous: bool):
    """``q`` with the canonical sign (eps4 >= 0), then continued along axis 0 when ``continuous``."""
    q = q * _canonical_sign(q)[..., None]
    if continuous:
        _continue_signs(q)
    return q


def _continue_signs(q):
    """Flip signs in place along axis 0 so consecutive quaternions have a non-negative dot product."""
    if q.ndim > 1 and q.shape[0] > 1:
        dots = np.sum(q[1:] * q[:-1], axis=-1)
        flips = np.cumprod(np.where(dots < 0.0, -1.0, 1.0), axis=0)
        q[1:] *= flips[..., None]


def matrix_to_quaternion(S, continuous: bool = False):
    """Euler parameters of a transformation matrix (inverse of eq. 8.176).

    Computed by ``scipy.spatial.transform.Rotation.from_matrix``: the
    matrix is orthogonalised first, then the largest of its trace and
    diagonal picks the formula (Shepperd's method: the symmetric 4x4 matrix
    ``K = 4 q q^T`` is linear in S and its largest diagonal entry picks the
    column q is read from, so no small number is divided by; the numba
    helper :func:`humanbody._kernels.rot.shepperd` does the same in the kernels).
    NaN where S has a non-finite entry.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Rotation matrices, parent = S . body.
    continuous : bool
        False: each quaternion has ``eps4 >= 0`` (ties at eps4 = 0 broken by
        the first non-zero of eps1, eps2, eps3 being positive).
        True: for a time series along axis 0, signs are flipped so that
        consecutive quaternions have a non-negative dot product (the first
        one keeps ``eps4 >= 0``), which keeps q(t) smooth for differentiation.

    Returns
    -------
    q : ndarray, shape (..., 4)
        Unit Euler parameters (quaternion), scalar last; NaN where S is not finite.
    """
    S = _mat(S)
    finite = np.isfinite(S).all(axis=(-2, -1))
    q = np.full(S.shape[:-2] + (4,), np.nan)
    q[finite] = stacked_scipy(lambda x: scipy_rotation().from_matrix(x).as_quat(), S[finite], (3, 3))
    return _signed(q, continuous)


def bryant_to_quaternion(angles, continuous: bool = False):
    """Euler parameters of dextral (Bryant) angles, without forming the matrix.

    ``S = A(alpha) B(beta) C(gamma)`` (eq. 8.74) is the product of three
    rotations about body axes x, y, z, so its quaternion is the product of
    theirs, ``(sin(alpha/2) n_x, cos(alpha/2)) (sin(beta/2) n_y, cos(beta/2))
    (sin(gamma/2) n_z, cos(gamma/2))``; with ``s_a = sin(alpha/2)``,
    ``c_a = cos(alpha/2)`` and so on::

        eps1 = s_a c_b c_g + c_a s_b s_g      eps3 = c_a c_b s_g + s_a s_b c_g
        eps2 = c_a s_b c_g - s_a c_b s_g      eps4 = c_a c_b c_g - s_a s_b s_g

    It equals ``matrix_to_quaternion(bryant_to_matrix(angles))`` to rounding
    and has no singular set (:func:`sequence_to_quaternion` with ``"xyz"``).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        alpha, beta, gamma (rad).
    continuous : bool
        As in :func:`matrix_to_quaternion`: each quaternion has ``eps4 >= 0``,
        or, when True, signs follow the first quaternion along axis 0 so
        consecutive ones have a non-negative dot product.

    Returns
    -------
    q : ndarray, shape (..., 4)
        Unit Euler parameters (quaternion), scalar last.
    """
    return sequence_to_quaternion(angles, "xyz", continuous)


def axis_angle_to_quaternion(axis, angle):
    """Euler parameters of a rotation about a unit axis, Huston eq. 8.166.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Direction of the rotation axis l in parent components (normalised).
    angle : array_like, shape (...)
        Rotation angle theta (rad), right-hand rule about l.

    Returns
    -------
    q : ndarray, shape (..., 4)
        The Euler parameters (l sin(theta/2), cos(theta/2)), scalar last.
    """
    l = _unit(axis)
    h = 0.5 * np.asarray(angle, dtype=np.float64)
    return np.concatenate((l * np.sin(h)[..., None], np.cos(h)[..., None]), axis=-1)


def rotation_vector_to_quaternion(phi):
    """Euler parameters of rotation vectors ``phi = theta l`` (rad), eq. 8.166 with the axis and angle in one vector.

    Parameters
    ----------
    phi : array_like, shape (..., 3)
        Rotation vectors theta l (rad), in parent components.

    Returns
    -------
    q : ndarray, shape (..., 4): ``(phi sin(theta/2) / theta, cos(theta/2))``, theta = |phi|;
        the identity for |phi| <= 1e-12.
    """
    phi = _vec(phi, 3, "a rotation vector")
    th = np.linalg.norm(phi, axis=-1, keepdims=True)
    s = np.where(th > 1e-12, np.sin(th / 2) / np.where(th > 1e-12, th, 1.0), 0.5)
    return np.concatenate([s * phi, np.cos(th / 2)], axis=-1)


def quaternion_to_axis_angle(q):
    """Axis and angle of Euler parameters (inverse of eq. 8.166).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Euler parameters, scalar last (normalised first).

    Returns
    -------
    axis : ndarray, shape (..., 3)
        The unit rotation axis; (1, 0, 0) for the identity.
    angle : ndarray, shape (...), rad in [0, pi]:
        ``2 atan2(|eps_1..3|, |eps4|)`` with the axis sign following eps4.
    """
    q = _vec(q, 4, "a quaternion")
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    q = q * _canonical_sign(q)[..., None]  # scipy keeps a quaternion with eps4 = 0 as it is
    v = stacked_scipy(lambda x: scipy_rotation().from_quat(x).as_rotvec(), q, 4)
    angle = np.linalg.norm(v, axis=-1)
    axis = np.where((angle > 0.0)[..., None], v / np.where(angle > 0.0, angle, 1.0)[..., None],
                    np.array([1.0, 0.0, 0.0]))
    return axis, angle


def _unit(axis):
    l = _vec(axis, 3, "an axis")
    n = np.linalg.norm(l, axis=-1, keepdims=True)
    if np.any(~(n > 0)):
        raise InputError("a rotation axis has zero or non-finite length.")
    return l / n


def rotation_dyadic(axis, angle):
    """Components ``R_ij`` of the rotation dyadic, Huston eqs. 8.151-8.153.

    ``R_ij = (1 - cos theta) l_i l_j + delta_ij cos theta - e_ijk l_k sin theta``.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        Axis l (normalised) in the basis the dyadic is expressed in.
    angle : array_like, shape (...), rad
        The rotation angle theta, right-hand rule about l.

    Returns
    -------
    R : ndarray, shape (..., 3, 3)
        ``R @ p`` is p rotated about l through theta (eq. 8.150); both
        indices refer to the same basis.  Numerically equal to the
        transformation matrix of the rotated body (eq. 8.159), see
        :func:`axis_angle_to_matrix`.
    """
    l = _unit(axis)
    th = np.asarray(angle, dtype=np.float64)
    c, s = np.cos(th)[..., None, None], np.sin(th)[..., None, None]
    eye = np.eye(3)
    return (1.0 - c) * l[..., :, None] * l[..., None, :] + c * eye + s * skew(l)


def rotate(axis, angle, p):
    """Rotate vectors p about axis l through theta, Huston eq. 8.149.

    ``p_hat = (p . l) l + [p - (p . l) l] cos theta + l x p sin theta``.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        The rotation axis l (normalised), in p's basis.
    angle : array_like, shape (...), rad
        The rotation angle theta, right-hand rule about l.
    p : array_like, shape (..., 3)
        The vectors to rotate.

    Returns
    -------
    ndarray, shape (..., 3)
        The rotated vectors, in p's basis.
    """
    l = _unit(axis)
    p = _vec(p, 3, "p")
    th = np.asarray(angle, dtype=np.float64)[..., None]
    pl = np.sum(p * l, axis=-1, keepdims=True) * l
    return pl + (p - pl) * np.cos(th) + np.cross(l, p) * np.sin(th)


def axis_angle_to_matrix(axis, angle):
    """Transformation matrix of a body rotated from the reference orientation
    about axis l through theta, Huston eqs. 8.159 and 8.165.

    With the body axes n_i aligned with the parent axes N_i in the reference
    orientation, ``S_ij = N_i . n_j = R_ij`` (eq. 8.159): the same numbers as
    :func:`rotation_dyadic`, read as a change of components (parent = S . body)
    instead of an operator that moves vectors.

    Parameters
    ----------
    axis : array_like, shape (..., 3)
        The rotation axis l, in parent (= reference body) components (normalised).
    angle : array_like, shape (...), rad
        The rotation angle theta, right-hand rule about l.

    Returns
    -------
    S : ndarray, shape (..., 3, 3)
        The transformation matrix: parent components = S . body components.
    """
    return rotation_dyadic(axis, angle)


def matrix_to_axis_angle(S):
    """Axis and angle of a transformation matrix (inverse of eq. 8.165).

    Goes through :func:`matrix_to_quaternion`, so it stays accurate near
    theta = 0 and theta = pi where the trace and the skew part are poor.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Transformation (rotation) matrices.

    Returns
    -------
    axis : ndarray, shape (..., 3)
        The unit rotation axis; (1, 0, 0) when theta = 0.
    angle : ndarray, shape (...), rad
        The rotation angle, in [0, pi].
    """
    return quaternion_to_axis_angle(matrix_to_quaternion(S))

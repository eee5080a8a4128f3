"""Angle sequences <-> transformation matrix, and the singular sets of the sequences (Huston 8.64-8.91, 8.135)."""

from __future__ import annotations

import numpy as np

from .common import AXIS_INDEX as _AXIS
from .common import as_matrices as _mat
from .common import as_vectors as _vec
from .common import check_sequence as _check_seq
from .common import elementary as _elementary
from .common import is_euler_sequence, scipy_rotation, stacked_scipy
from .common import transpose as _swap


def bryant_to_matrix(angles):
    """Transformation matrix of dextral (Bryant) angles, Huston eq. 8.74.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        alpha, beta, gamma (rad): successive rotations about the body-fixed
        x, y and z axes.

    Returns
    -------
    S : ndarray, shape (..., 3, 3)
        ``S = A(alpha) B(beta) C(gamma)`` with parent = S . body components.
    """
    return euler_to_matrix(angles, "xyz")


def matrix_to_bryant(S, tol: float = 1e-9):
    """Dextral (Bryant) angles of a transformation matrix (inverse of eq. 8.74).

    :func:`matrix_to_euler` with ``seq="xyz"``.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Proper orthogonal matrices, parent = S . body.
    tol : float
        Where ``cos(beta) < tol`` the orientation is on the singular set:
        only alpha + gamma (beta = +pi/2) or alpha - gamma (beta = -pi/2) is
        defined; gamma is then set to 0 and alpha carries the whole rotation.

    Returns
    -------
    ndarray, shape (..., 3)
        alpha, beta in [-pi/2, pi/2], gamma (rad); alpha, gamma in (-pi, pi].

    Notes
    -----
    beta = atan2(S13, hypot(S11, S12)); alpha = atan2(-S23, S33) (singular:
    alpha from ``S B(beta)^T = A(alpha)``); gamma is read from
    ``B(beta)^T A(alpha)^T S = C(gamma)``, so a rounding error in alpha next
    to the singular set is compensated by gamma and S is reproduced
    accurately.
    """
    return matrix_to_euler(S, "xyz", tol=tol)


def euler_to_matrix(angles, seq="xyz"):
    """Transformation matrix of three successive body-fixed rotations.

    Computed by ``scipy.spatial.transform.Rotation.from_euler(seq.upper(),
    angles).as_matrix()`` (upper case: body-fixed, "intrinsic" axes), which
    is exactly this S (parent = S . body).

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        The three angles (rad) in the order they are applied.
    seq : str
        One of :data:`SEQUENCES`.  For ``seq = "ijk"`` the matrix is
        ``S = R_i(first) R_j(second) R_k(third)``, each factor the matrix of a
        simple rotation about a body axis (Huston eqs. 8.64, 8.67, 8.70).
        ``"xyz"``: dextral (Bryant) angles, S = A B C (eq. 8.74, same as
        :func:`bryant_to_matrix`); ``"zxz"``: Euler angles (eqs. 8.84-8.91);
        ``"yxz"``: flexion, ab/adduction about the floating axis, axial
        rotation (the joint coordinate system of Grood and Suntay).

    Returns
    -------
    S : ndarray, shape (..., 3, 3)
        The transformation matrix: parent components = S . body components.
    """
    seq = _check_seq(seq)
    a = _vec(angles, 3, "angles")
    return stacked_scipy(lambda x: scipy_rotation().from_euler(seq.upper(), x).as_matrix(), a, 3)


def _parity(i, j, k) -> float:
    """+1 when (i, j, k) is a cyclic order of (0, 1, 2), -1 otherwise."""
    return 1.0 if (j - i) % 3 == 1 else -1.0


def _rotation_angle(M, axis):
    """Angle of a simple rotation about ``axis`` read from its matrix (atan2 of sine and cosine entries)."""
    p, r = (axis + 1) % 3, (axis + 2) % 3
    return np.arctan2(M[..., r, p] - M[..., p, r], M[..., p, p] + M[..., r, r])


def matrix_to_euler(S, seq="xyz", tol: float = 1e-9):
    """Angles of a transformation matrix for a rotation sequence (inverse of
    :func:`euler_to_matrix`).

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Proper orthogonal matrices, parent = S . body.
    seq : str
        One of :data:`SEQUENCES`.
    tol : float
        The orientation is on the singular set where ``|singular_factor| <
        tol`` (cos of the middle angle for a Cardan sequence, its sine for an
        Euler sequence).  There only the sum or difference of the first and
        third angles is defined; the third is then set to exactly 0 and the
        first carries the whole rotation about that axis.

    Returns
    -------
    ndarray, shape (..., 3), rad.
        First and third angles in (-pi, pi]; the middle angle in
        [-pi/2, pi/2] (Cardan) or [0, pi] (Euler).

    Notes
    -----
    For ``seq = "ijk"`` (Euler: ``"iji"``, k the remaining axis) with
    parity e = +1 for a cyclic order of the axes and -1 otherwise:
    Cardan, ``middle = atan2(e S_ik, hypot(S_ii, S_ij))`` and
    ``first = atan2(-e S_jk, S_kk)``; Euler, ``middle = atan2(hypot(S_ij,
    S_ik), S_ii)`` and ``first = atan2(S_ji, -e S_ki)``.  The third angle is
    read from ``R_j(middle)^T R_i(first)^T S = R_k(third)``, so a rounding
    error in the first angle is compensated by the third and S is
    reproduced to machine precision even next to the singular set.
    """
    seq = _check_seq(seq)
    S = _mat(S)
    i, j, k3 = (_AXIS[c] for c in seq)
    euler = i == k3
    k = 3 - i - j  # the axis neither the first nor the second rotation turns about
    e = _parity(i, j, k)
    if euler:
        sm = np.hypot(S[..., i, j], S[..., i, k])
        middle = np.arctan2(sm, S[..., i, i])
        first = np.arctan2(S[..., j, i], -e * S[..., k, i])
    else:
        sm = np.hypot(S[..., i, i], S[..., i, j])  # |cos middle|
        middle = np.arctan2(e * S[..., i, k], sm)
        first = np.arctan2(-e * S[..., j, k], S[..., k, k])
    singular = sm < tol
    Rm = _elementary(j, middle)
    if np.any(singular):  # third = 0: R_i(first) = S R_j(middle)^T
        first = np.where(singular, _rotation_angle(S @ _swap(Rm), i), first)
    M = _swap(Rm) @ _swap(_elementary(i, first)) @ S
    third = np.where(singular, 0.0, _rotation_angle(M, k3))
    return np.stack((first, middle, third), axis=-1)


def singular_factor(angles, seq="xyz"):
    """The factor angle rates are divided by, eqs. 8.135-8.136, 8.196-8.198.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        The three angles of the sequence, in the order applied.
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    ndarray, shape (...)
        The cosine of the middle angle for a Cardan sequence (``cos(beta)``
        for "xyz"), its sine for an Euler sequence (``sin(theta2)`` for
        "zxz").  Its absolute value is the sine of the angle between the first
        and the third rotation axes: zero where they line up (gimbal lock).
    """
    a = _vec(angles, 3, "angles")
    return np.sin(a[..., 1]) if is_euler_sequence(seq) else np.cos(a[..., 1])


def is_singular(angles, seq="xyz", tol: float = 1e-6):
    """Boolean mask of orientations with ``|singular_factor| < tol``.

    Parameters
    ----------
    angles, seq
        As in :func:`singular_factor`.
    tol : float
        Threshold on ``|singular_factor|``.

    Returns
    -------
    ndarray of bool, shape (...)
        True where the orientation is singular.
    """
    return np.abs(singular_factor(angles, seq)) < tol


def singular_distance(angles, seq="xyz"):
    """Angular distance (rad) of each orientation from its sequence's singular set.

    The angle between the first and the third rotation axes (or its
    supplement), ``arcsin |singular_factor|``: pi/2 far from it, 0 on it.
    ``angles`` and ``seq`` as in :func:`singular_factor`.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        The three angles of the sequence, in the order applied.
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    ndarray, shape (...), rad
        The distance, in [0, pi/2]; NaN where the angles are NaN.
    """
    return np.arcsin(np.minimum(np.abs(singular_factor(angles, seq)), 1.0))

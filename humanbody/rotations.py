"""Orientation library: angle sequences, Euler parameters, axis-angle, rates.

All functions are vectorised over leading dimensions and return float64
NumPy arrays: angles ``(..., 3)``, Euler parameters ``(..., 4)`` stored
``(eps1, eps2, eps3, eps4)`` with the scalar last, matrices ``(..., 3, 3)``.
A transformation matrix ``S`` maps body components to parent components,
``v_parent = S @ v_body`` (Huston eq. 8.73); see docs/orientation.md.
"""

from __future__ import annotations


import numpy as np

from .errors import InputError


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


# ---------------------------------------------------------------------------
# Common helpers
# ---------------------------------------------------------------------------

#: Angle sequences the library knows: three rotations about body-fixed
#: (intrinsic, "successive") axes, named by the axes in the order applied.
#: Cardan (Bryant) sequences use three different axes, Euler sequences repeat
#: the first.  "xyz" are Huston's dextral (Bryant) angles (8.74), "zxz" his
#: Euler angles (8.82-8.91), "yxz" the flexion-first joint coordinate system
#: of Grood and Suntay (the default at the limb, trunk and neck joints).
CARDAN = ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx")
EULER = ("xyx", "xzx", "yxy", "yzy", "zxz", "zyz")
SEQUENCES = CARDAN + EULER
_AXIS = {"x": 0, "y": 1, "z": 2}


def _check_seq(seq):
    s = str(seq).lower()
    if s == "bryant":
        s = "xyz"
    if s not in SEQUENCES:
        raise InputError(f"unknown rotation sequence {seq!r}; expected three body axes such as "
                         f"'yxz' (one of {', '.join(SEQUENCES)}).")
    return s


def sequence_axes(seq):
    """The axis indices (0 = x, 1 = y, 2 = z) of a rotation sequence's three rotations.

    Parameters
    ----------
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    tuple of int, length 3.
    """
    return tuple(_AXIS[c] for c in _check_seq(seq))


def is_euler_sequence(seq) -> bool:
    """True for an Euler sequence (first and third axes equal, e.g. "zxz"), False for Cardan."""
    a = sequence_axes(seq)
    return a[0] == a[2]


def _vec(x, n, what):
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] != n:
        raise InputError(f"{what} must have shape (..., {n}), got {a.shape}.")
    return a


def _mat(S):
    S = np.asarray(S, dtype=np.float64)
    if S.ndim < 2 or S.shape[-2:] != (3, 3):
        raise InputError(f"a rotation matrix must have shape (..., 3, 3), got {S.shape}.")
    return S


def _elementary(axis, angle):
    """Matrix of a simple rotation about body axis ``axis`` (0, 1, 2).

    The matrices A, B, C of Huston eqs. 8.64, 8.67 and 8.70 (parent = M . body
    components after a rotation about x, y, z through ``angle``).
    """
    c, s = np.cos(angle), np.sin(angle)
    M = np.zeros(np.shape(angle) + (3, 3))
    i, j = (axis + 1) % 3, (axis + 2) % 3
    M[..., axis, axis] = 1.0
    M[..., i, i] = c
    M[..., j, j] = c
    M[..., i, j] = -s
    M[..., j, i] = s
    return M


def skew(omega):
    """Angular velocity matrix W of a vector, Huston eqs. 8.121-8.122.

    ``W_im = -e_iml V_l`` so that ``W @ p = omega x p``.

    Parameters
    ----------
    omega : array_like, shape (..., 3)

    Returns
    -------
    W : ndarray, shape (..., 3, 3), skew-symmetric.
    """
    w = _vec(omega, 3, "omega")
    W = np.zeros(w.shape[:-1] + (3, 3))
    W[..., 0, 1], W[..., 0, 2] = -w[..., 2], w[..., 1]
    W[..., 1, 0], W[..., 1, 2] = w[..., 2], -w[..., 0]
    W[..., 2, 0], W[..., 2, 1] = -w[..., 1], w[..., 0]
    return W


def unskew(W):
    """Dual vector of the skew-symmetric part of W (inverse of :func:`skew`).

    Parameters
    ----------
    W : array_like, shape (..., 3, 3)

    Returns
    -------
    ndarray, shape (..., 3): ``((W32 - W23)/2, (W13 - W31)/2, (W21 - W12)/2)``.
    Averaging both off-diagonal entries halves the effect of a non-skew error.
    """
    W = _mat(W)
    return 0.5 * np.stack(
        (W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]),
        axis=-1,
    )


def _swap(S):
    return np.swapaxes(S, -1, -2)


def _rotation():
    """``scipy.spatial.transform.Rotation``, imported on first use (a third of a second)."""
    from scipy.spatial.transform import Rotation

    return Rotation


def _scipy(fn, x, inner):
    """``fn`` (a scipy Rotation conversion of a stack) on ``x`` of shape (..., *inner), leading axes kept.

    Rotation takes a stack (n, *inner) (older scipy only one leading axis);
    the result's trailing shape is kept and the leading axes restored.
    """
    inner = (inner,) if isinstance(inner, int) else tuple(inner)
    lead = x.shape[:x.ndim - len(inner)]
    flat = np.ascontiguousarray(x).reshape((-1,) + inner)
    if flat.shape[0] == 0:
        out = fn(np.zeros((1,) + inner))
        return np.empty(lead + out.shape[1:])
    out = fn(flat)
    return out.reshape(lead + out.shape[1:])


# ---------------------------------------------------------------------------
# Angle sequences <-> matrix
# ---------------------------------------------------------------------------


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
    S : ndarray, shape (..., 3, 3), parent = S . body components.
    """
    seq = _check_seq(seq)
    a = _vec(angles, 3, "angles")
    return _scipy(lambda x: _rotation().from_euler(seq.upper(), x).as_matrix(), a, 3)


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
    angles : array_like, shape (..., 3), rad.
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
    angles : array_like, shape (..., 3), rad.
    seq : str
        One of :data:`SEQUENCES`.
    tol : float
        Threshold on ``|singular_factor|``.

    Returns
    -------
    ndarray of bool, shape (...).
    """
    return np.abs(singular_factor(angles, seq)) < tol


def singular_distance(angles, seq="xyz"):
    """Angular distance (rad) of each orientation from its sequence's singular set.

    The angle between the first and the third rotation axes (or its
    supplement), ``arcsin |singular_factor|``: pi/2 far from it, 0 on it.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad.
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    ndarray, shape (...), rad in [0, pi/2]; NaN where the angles are NaN.
    """
    return np.arcsin(np.minimum(np.abs(singular_factor(angles, seq)), 1.0))


def sequence_to_quaternion(angles, seq="xyz", continuous: bool = False):
    """Euler parameters of a rotation sequence's angles, without forming the matrix.

    The product of the three axis quaternions ``(sin(t/2) n_axis,
    cos(t/2))`` of the sequence's rotations, in order (scipy's
    ``Rotation.from_euler(seq.upper(), angles)``, body-fixed axes).  Equal
    to ``matrix_to_quaternion(euler_to_matrix(angles, seq))`` to rounding,
    with no singular set.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad.
    seq : str
        One of :data:`SEQUENCES`.
    continuous : bool
        As in :func:`matrix_to_quaternion`.

    Returns
    -------
    q : ndarray, shape (..., 4), unit norm, scalar last.
    """
    seq = _check_seq(seq)
    a = _vec(angles, 3, "angles")
    return _signed(_scipy(lambda x: _rotation().from_euler(seq.upper(), x).as_quat(), a, 3), continuous)


def quaternion_product(p, q):
    """Product of Euler parameters, the quaternion of ``S(p) S(q)``.

    Parameters
    ----------
    p, q : array_like, shape (..., 4), scalar last.

    Returns
    -------
    ndarray, shape (..., 4): ``(p4 q + q4 p + p x q, p4 q4 - p . q)``.
    """
    p, q = _vec(p, 4, "a quaternion"), _vec(q, 4, "a quaternion")
    pv, qv = p[..., :3], q[..., :3]
    out = np.empty(np.broadcast_shapes(p.shape, q.shape))
    out[..., :3] = p[..., 3:] * qv + q[..., 3:] * pv + np.cross(pv, qv)
    out[..., 3] = p[..., 3] * q[..., 3] - np.sum(pv * qv, axis=-1)
    return out


# ---------------------------------------------------------------------------
# Euler parameters (quaternions, scalar last) and axis-angle
# ---------------------------------------------------------------------------


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
    S : ndarray, shape (..., 3, 3), parent = S . body.
    """
    q = _vec(q, 4, "a quaternion")
    n = np.linalg.norm(q, axis=-1, keepdims=True)
    if np.any(~(n > 0)):
        raise InputError("a quaternion has zero or non-finite norm.")
    return _scipy(lambda x: _rotation().from_quat(x).as_matrix(), q / n, 4)


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
    helper :func:`humanbody._rot.shepperd` does the same in the kernels).
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
    q : ndarray, shape (..., 4), unit norm, scalar last.
    """
    S = _mat(S)
    finite = np.isfinite(S).all(axis=(-2, -1))
    q = np.full(S.shape[:-2] + (4,), np.nan)
    q[finite] = _scipy(lambda x: _rotation().from_matrix(x).as_quat(), S[finite], (3, 3))
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
    q : ndarray, shape (..., 4), unit norm, scalar last.
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
    q : ndarray, shape (..., 4): ``(l sin(theta/2), cos(theta/2))``.
    """
    l = _unit(axis)
    h = 0.5 * np.asarray(angle, dtype=np.float64)
    return np.concatenate((l * np.sin(h)[..., None], np.cos(h)[..., None]), axis=-1)


def quaternion_to_axis_angle(q):
    """Axis and angle of Euler parameters (inverse of eq. 8.166).

    Parameters
    ----------
    q : array_like, shape (..., 4), scalar last (normalised first).

    Returns
    -------
    axis : ndarray, shape (..., 3), unit; (1, 0, 0) for the identity.
    angle : ndarray, shape (...), rad in [0, pi]:
        ``2 atan2(|eps_1..3|, |eps4|)`` with the axis sign following eps4.
    """
    q = _vec(q, 4, "a quaternion")
    q = q / np.linalg.norm(q, axis=-1, keepdims=True)
    q = q * _canonical_sign(q)[..., None]  # scipy keeps a quaternion with eps4 = 0 as it is
    v = _scipy(lambda x: _rotation().from_quat(x).as_rotvec(), q, 4)
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
    angle : array_like, shape (...), rad.

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
    angle : array_like, shape (...), rad.
    p : array_like, shape (..., 3)

    Returns
    -------
    ndarray, shape (..., 3): rotated vectors, same basis as p.
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
    axis : array_like, shape (..., 3), parent (= reference body) components.
    angle : array_like, shape (...), rad.

    Returns
    -------
    S : ndarray, shape (..., 3, 3).
    """
    return rotation_dyadic(axis, angle)


def matrix_to_axis_angle(S):
    """Axis and angle of a transformation matrix (inverse of eq. 8.165).

    Goes through :func:`matrix_to_quaternion`, so it stays accurate near
    theta = 0 and theta = pi where the trace and the skew part are poor.

    Returns
    -------
    axis : ndarray, shape (..., 3), unit; (1, 0, 0) when theta = 0.
    angle : ndarray, shape (...), rad in [0, pi].
    """
    return quaternion_to_axis_angle(matrix_to_quaternion(S))


_NAMES = {"matrix": "matrix", "quaternion": "quaternion", "rotvec": "rotvec", "bryant": "xyz",
          **{seq: seq for seq in SEQUENCES}}


def convert(value, from_: str, to: str, tol: float = 1e-9):
    """Convert orientations between any two conventions.

    Parameters
    ----------
    value : array_like
        Orientations in the ``from_`` convention.
    from_, to : str
        ``"matrix"`` (..., 3, 3), parent = S . body;
        ``"quaternion"`` (..., 4) Euler parameters, scalar last (eq. 8.166);
        ``"rotvec"`` (..., 3) axis times angle, ``theta l`` (rad);
        any of :data:`SEQUENCES` (``"bryant"`` = ``"xyz"``), (..., 3) angles (rad).
    tol : float
        Singular-set threshold passed to :func:`matrix_to_euler`.

    Returns
    -------
    ndarray in the ``to`` convention.  Every conversion passes through the
    transformation matrix; quaternions come out with eps4 >= 0.
    """
    try:
        src, dst = _NAMES[from_], _NAMES[to]
    except KeyError as exc:
        raise InputError(f"unknown orientation convention {exc.args[0]!r}; expected one of "
                         f"{', '.join(_NAMES)}.") from None
    if src == "matrix":
        S = _mat(value)
    elif src == "quaternion":
        S = quaternion_to_matrix(value)
    elif src == "rotvec":
        S = _scipy(lambda x: _rotation().from_rotvec(x).as_matrix(), _vec(value, 3, "a rotation vector"), 3)
    else:
        S = euler_to_matrix(value, src)
    if dst == "matrix":
        return np.array(S, dtype=np.float64)
    if dst == "quaternion":
        return matrix_to_quaternion(S)
    if dst == "rotvec":
        axis, th = matrix_to_axis_angle(S)
        return axis * th[..., None]
    return matrix_to_euler(S, dst, tol=tol)

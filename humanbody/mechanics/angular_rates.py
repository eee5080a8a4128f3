"""Angular velocity and acceleration from orientation rates, and back (Huston, sections 8.12-8.18).

The kinematic differential equations of every orientation representation of
:mod:`humanbody.rotations`: the matrix derivative ``dS/dt = W S``, the
relation between angle rates and angular velocity for all twelve angle
sequences (with the singular set reported, never divided through), and the
Euler-parameter rates.  Angular velocity is that of the body relative to its
parent; every function takes ``frame="parent"`` or ``frame="body"`` for its
components.  Shapes broadcast over leading dimensions; docs/orientation.md
states the conventions.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import InputError, SingularityWarning
from ..rotations.angles import is_singular
from ..rotations.common import AXIS_INDEX as _AXIS
from ..rotations.common import as_matrices as _mat
from ..rotations.common import as_vectors as _vec
from ..rotations.common import check_sequence as _check_seq
from ..rotations.common import elementary as _elementary
from ..rotations.common import skew, unskew
from ..rotations.common import transpose as _swap

_FRAMES = ("parent", "body")


def _check_frame(frame):
    if frame not in _FRAMES:
        raise InputError(f"unknown frame {frame!r}; expected 'parent' or 'body'.")
    return frame


def bryant_omega_parent(angles, rates):
    """Angular velocity in parent components from Bryant angle rates, eq. 8.95.

    Parameters
    ----------
    angles, rates : array_like, shape (..., 3)
        (alpha, beta, gamma) in rad and their time derivatives in rad/s.

    Returns
    -------
    ndarray, shape (..., 3)
        ``(a' + g' sb,  b' ca - g' sa cb,  b' sa + g' ca cb)`` in rad/s.
        No division: valid at every orientation, the singular set included.
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    sa, sb = np.sin(a[..., 0]), np.sin(a[..., 1])
    ca, cb = np.cos(a[..., 0]), np.cos(a[..., 1])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    return np.stack(
        (ad + gd * sb, bd * ca - gd * sa * cb, bd * sa + gd * ca * cb), axis=-1
    )


def bryant_omega_body(angles, rates):
    """Angular velocity in body components from Bryant angle rates, eq. 8.96.

    Returns ``(a' cb cg + b' sg,  -a' cb sg + b' cg,  a' sb + g')`` (rad/s),
    shape (..., 3).

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        Bryant angles (alpha, beta, gamma), sequence "xyz".
    rates : array_like, shape (..., 3), rad/s
        Their time derivatives.

    Returns
    -------
    ndarray, shape (..., 3), rad/s
        The angular velocity in body components.
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    sb, sg = np.sin(a[..., 1]), np.sin(a[..., 2])
    cb, cg = np.cos(a[..., 1]), np.cos(a[..., 2])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    return np.stack(
        (ad * cb * cg + bd * sg, -ad * cb * sg + bd * cg, ad * sb + gd), axis=-1
    )


def bryant_omega_parent_dot(angles, rates, accels):
    """Time derivative of the parent components of eq. 8.95.

    Differentiating the components of the relative angular velocity in the
    parent frame gives the relative angular acceleration seen from the
    parent (the term ``d(omega_hat)/dt`` of Huston eq. 8.115).

    Parameters
    ----------
    angles, rates, accels : array_like, shape (..., 3)
        Bryant angles (rad), their first (rad/s) and second (rad/s^2)
        time derivatives.

    Returns
    -------
    ndarray, shape (..., 3), rad/s^2
        The time derivative of the relative angular velocity's parent-frame components.
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    dd = np.asarray(accels, dtype=float)
    sa, sb = np.sin(a[..., 0]), np.sin(a[..., 1])
    ca, cb = np.cos(a[..., 0]), np.cos(a[..., 1])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    add, bdd, gdd = dd[..., 0], dd[..., 1], dd[..., 2]
    v1 = add + gdd * sb + gd * bd * cb
    v2 = (bdd * ca - bd * ad * sa) - (gdd * sa * cb + gd * ad * ca * cb - gd * bd * sa * sb)
    v3 = (bdd * sa + bd * ad * ca) + (gdd * ca * cb - gd * ad * sa * cb - gd * bd * ca * sb)
    return np.stack((v1, v2, v3), axis=-1)


def matrix_rate(S, omega, frame="parent"):
    """Time derivative of a transformation matrix, Huston eq. 8.123.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        The transformation matrix: parent components = S . body components.
    omega : array_like, shape (..., 3), rad/s
        Angular velocity of the body relative to the parent.
    frame : {"parent", "body"}
        Components omega is given in: parent ``dS/dt = W S`` (8.123),
        body ``dS/dt = S W_body`` (the same relation with W = S W_body S^T).

    Returns
    -------
    ndarray, shape (..., 3, 3), 1/s
        dS/dt.
    """
    S = _mat(S)
    W = skew(omega)
    return W @ S if _check_frame(frame) == "parent" else S @ W


def omega_from_matrix_rate(S, S_dot, frame="parent"):
    """Angular velocity from a matrix and its derivative, eqs. 8.187-8.189.

    Parameters
    ----------
    S, S_dot : array_like, shape (..., 3, 3)
        Transformation matrix (parent = S . body) and its time derivative.
    frame : {"parent", "body"}
        ``"parent"``: dual vector of ``W = dS/dt S^T`` (eqs. 8.123, 8.187-8.189);
        ``"body"``: dual vector of ``S^T dS/dt``.

    Returns
    -------
    ndarray, shape (..., 3), rad/s
        The body's angular velocity relative to the parent, in frame's components.
    """
    S, S_dot = _mat(S), _mat(S_dot)
    W = S_dot @ _swap(S) if _check_frame(frame) == "parent" else _swap(S) @ S_dot
    return unskew(W)


def angle_rate_matrix(angles, seq="xyz", frame="parent"):
    """Matrix H with ``omega = H . angle_rates`` for an angle sequence.

    Each column is the unit vector of one successive rotation axis (the
    horizontal lines of Huston's configuration graph, eqs. 8.92-8.94).

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        The three angles of the sequence.
    seq : str
        One of :data:`SEQUENCES`.
    frame : {"parent", "body"}
        Components of omega.  Parent: eqs. 8.95 ("xyz") and 8.97 ("zxz");
        body: eqs. 8.96 and 8.98.

    Returns
    -------
    H : ndarray, shape (..., 3, 3)
        Omega = H . angle rates, in frame's components; det H is plus or minus
        :func:`humanbody.rotations.singular_factor` (cos(beta) for "xyz", -sin(theta2) for "zxz").
    """
    seq = _check_seq(seq)
    a = _vec(angles, 3, "angles")
    ax = [_AXIS[c] for c in seq]
    e = np.eye(3)
    if _check_frame(frame) == "parent":
        R1 = _elementary(ax[0], a[..., 0])
        R12 = R1 @ _elementary(ax[1], a[..., 1])
        cols = (np.broadcast_to(e[ax[0]], a.shape), R1[..., :, ax[1]], R12[..., :, ax[2]])
    else:
        R3t = _swap(_elementary(ax[2], a[..., 2]))
        R23t = R3t @ _swap(_elementary(ax[1], a[..., 1]))
        cols = (R23t[..., :, ax[0]], R3t[..., :, ax[1]], np.broadcast_to(e[ax[2]], a.shape))
    return np.stack(cols, axis=-1)


def omega_from_angle_rates(angles, rates, seq="xyz", frame="parent"):
    """Angular velocity from angle rates, eqs. 8.95-8.98 (no singularity).

    Parameters
    ----------
    angles, rates : array_like, shape (..., 3)
        Angles (rad) and their time derivatives (rad/s).
    seq : str
        One of :data:`SEQUENCES`.
    frame : {"parent", "body"}
        The frame whose components omega is given in (parent: the parent frame; body: the body frame).

    Returns
    -------
    ndarray, shape (..., 3), rad/s
        Omega = angle_rate_matrix(angles) @ rates, in frame's components.
    """
    H = angle_rate_matrix(angles, seq, frame)
    return (H @ _vec(rates, 3, "rates")[..., None])[..., 0]


def angle_rates(angles, omega, seq="xyz", frame="parent", tol: float = 1e-6,
                warn: bool = True):
    """Angle rates from angular velocity, never dividing by ~0.

    Solves ``omega = H rates`` (see :func:`angle_rate_matrix`) by the
    adjugate, ``rates = adj(H) omega / det(H)``; for "xyz" this is exactly
    Huston's eqs. 8.135 (parent), 8.136 (body), 8.196-8.198.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        The three angles of the sequence.
    omega : array_like, shape (..., 3), rad/s
        Angular velocity relative to the parent, in frame's components.
    seq : str
        One of :data:`SEQUENCES`.
    frame : {"parent", "body"}
        The frame whose components omega is given in (parent: the parent frame; body: the body frame).
    tol : float
        Orientations with ``|singular_factor(angles, seq)| < tol`` (e.g.
        ``|cos beta| < tol``) are singular: their rates are not computed.
    warn : bool
        Emit one :class:`~humanbody.errors.SingularityWarning` when any
        orientation is singular.

    Returns
    -------
    rates : ndarray, shape (..., 3), rad/s
        NaN where singular.  Fallback there: Euler parameter rates from
        :func:`quaternion_rates`, which have no singularity.
    singular : ndarray of bool, shape (...)
        True where the orientation is singular (rates NaN).
    """
    seq = _check_seq(seq)
    H = angle_rate_matrix(angles, seq, frame)
    w = _vec(omega, 3, "omega")
    singular = np.broadcast_to(is_singular(angles, seq, tol), np.broadcast_shapes(H.shape[:-2], w.shape[:-1]))
    h0, h1, h2 = H[..., :, 0], H[..., :, 1], H[..., :, 2]
    adj = np.stack((np.cross(h1, h2), np.cross(h2, h0), np.cross(h0, h1)), axis=-2)
    det = np.sum(h0 * adj[..., 0, :], axis=-1)
    num = (adj @ w[..., None])[..., 0]
    ok = ~singular
    rates = np.divide(num, det[..., None], out=np.full(num.shape, np.nan), where=ok[..., None])
    if warn and np.any(singular):
        warnings.warn(
            f"{int(np.count_nonzero(singular))} of {singular.size} orientations are within "
            f"tol={tol:g} of the {seq} singular set; their angle rates are NaN "
            "(use quaternion_rates there).",
            SingularityWarning,
            stacklevel=2,
        )
    return rates, np.array(singular)


def bryant_rates(angles, omega, frame="parent", tol: float = 1e-6, warn: bool = True):
    """Bryant angle rates from angular velocity, eqs. 8.135/8.136 (8.196-8.198).

    Same as ``angle_rates(angles, omega, "xyz", frame, tol, warn)``: returns
    ``(rates, singular)`` with NaN rates where ``|cos beta| < tol``.

    Parameters
    ----------
    angles : array_like, shape (..., 3), rad
        Bryant angles, sequence "xyz".
    omega : array_like, shape (..., 3), rad/s
        Angular velocity in ``frame`` components.
    frame : {"parent", "body"}
        The frame whose components omega is given in (parent: the parent frame; body: the body frame).
    tol : float
        ``|cos beta|`` below which an orientation is singular.
    warn : bool
        Emit one :class:`~humanbody.errors.SingularityWarning` when any orientation is singular.

    Returns
    -------
    rates : ndarray, shape (..., 3), rad/s
        NaN where singular.
    singular : ndarray of bool, shape (...)
        The singular orientations.
    """
    return angle_rates(angles, omega, "xyz", frame, tol, warn)


# ---------------------------------------------------------------------------
# Euler parameter rates
# ---------------------------------------------------------------------------


def euler_parameter_matrix(q, frame="parent"):
    """The orthogonal 4x4 matrix E of Huston eq. 8.206.

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Euler parameters (quaternion), scalar last.
    frame : {"parent", "body"}
        ``"parent"``: Huston's E, rows 1-3 give parent (ground) components
        of omega = 2 E q_dot (eqs. 8.190-8.192, 8.206-8.207).
        ``"body"``: rows 1-3 give body components.  Derived from
        ``omega_body = S^T omega`` : with q = (v, w),
        ``omega_parent = 2 (w v' - w' v + v x v')`` and
        ``omega_body = 2 (w v' - w' v - v x v')``; only the sign of the
        cross-product block changes.  Row 4 is ``q . q_dot`` (eq. 8.205,
        zero for unit q) in both cases.

    Returns
    -------
    E : ndarray, shape (..., 4, 4)
        The matrix of eq. 8.206; E^-1 = E^T for unit q (eq. 8.209).
    """
    q = _vec(q, 4, "a quaternion")
    e1, e2, e3, e4 = np.moveaxis(q, -1, 0)
    sgn = 1.0 if _check_frame(frame) == "parent" else -1.0
    E = np.empty(q.shape[:-1] + (4, 4))
    E[..., 0, :] = np.stack((e4, -sgn * e3, sgn * e2, -e1), axis=-1)
    E[..., 1, :] = np.stack((sgn * e3, e4, -sgn * e1, -e2), axis=-1)
    E[..., 2, :] = np.stack((-sgn * e2, sgn * e1, e4, -e3), axis=-1)
    E[..., 3, :] = q
    return E


def omega_from_quaternion_rates(q, q_dot, frame="parent"):
    """Angular velocity from Euler parameter rates, eqs. 8.190-8.192.

    Parameters
    ----------
    q, q_dot : array_like, shape (..., 4)
        Unit Euler parameters (scalar last) and their rates (1/s).
    frame : {"parent", "body"}
        Components of the result (see :func:`euler_parameter_matrix`).

    Returns
    -------
    ndarray, shape (..., 3), rad/s
        The first three rows of 2 E q_dot, in frame's components.
    """
    E = euler_parameter_matrix(q, frame)
    return 2.0 * (E[..., :3, :] @ _vec(q_dot, 4, "q_dot")[..., None])[..., 0]


def quaternion_rates(q, omega, frame="parent"):
    """Euler parameter rates from angular velocity, eqs. 8.208-8.213.

    ``q_dot = 1/2 E^T [omega; 0]``: linear, valid at every orientation (the
    fallback where angle rates are singular).

    Parameters
    ----------
    q : array_like, shape (..., 4)
        Unit Euler parameters (quaternion), scalar last.
    omega : array_like, shape (..., 3), rad/s
        Angular velocity, in frame's components.
    frame : {"parent", "body"}
        The frame whose components omega is given in (parent: the parent frame; body: the body frame).

    Returns
    -------
    q_dot : ndarray, shape (..., 4), 1/s
        The Euler parameters' time derivative, scalar last.
    """
    E = euler_parameter_matrix(q, frame)
    w = _vec(omega, 3, "omega")
    return 0.5 * (_swap(E)[..., :, :3] @ w[..., None])[..., 0]


def angular_acceleration_from_quaternion(q, q_ddot, frame="parent"):
    """Angular acceleration from the second derivative of Euler parameters.

    Differentiating ``omega = 2 E(q) q_dot`` gives
    ``omega_dot = 2 E(q) q_ddot + 2 E(q_dot) q_dot``; the vector rows of
    ``E(q_dot) q_dot`` are ``w' v' - w' v' +/- v' x v' = 0``, so
    ``omega_dot = 2 E(q) q_ddot`` (rows 1-3).  In body components this is
    the derivative of the body components of omega, which equals the body
    components of the angular acceleration (Huston eq. 8.110).

    Parameters
    ----------
    q, q_ddot : array_like, shape (..., 4)
        Unit Euler parameters and their second time derivative (1/s^2).
    frame : {"parent", "body"}
        The frame whose components omega is given in (parent: the parent frame; body: the body frame).

    Returns
    -------
    ndarray, shape (..., 3), rad/s^2
        Angular acceleration (the first three rows of 2 E q_ddot), in frame's components.
    """
    return omega_from_quaternion_rates(q, q_ddot, frame)

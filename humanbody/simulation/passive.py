"""Passive elements of a simulation: joint springs and dampers, contact springs against a plane.

Joint springs act about a neutral relative orientation.  With ``S0`` the
neutral transformation matrix of a joint (parent = S0 . body) and ``S`` the
current one, the deviation is the rotation vector ``phi`` of ``S0^T S``
(body-frame components, |phi| < pi) and the spring's potential energy is
``V = 1/2 phi^T K phi`` with ``K = diag(k_x, k_y, k_z)`` (N m/rad) about the
body's own axes.  Since the body components of the relative angular velocity
are ``w_b = J_r(phi) phi'`` (``J_r`` the right Jacobian of SO(3)), the moment
from the parent that does work ``-V'`` is

    m_b = -J_l(phi)^-1 K phi + m_0 - C w_b,

``J_l^-1 = J_r^-T = I - 1/2 [phi]x + (1/theta^2 - (1 + cos theta)/(2 theta sin theta)) [phi]x^2``
(theta = |phi|); ``m_0`` is a constant moment (the muscle tone that holds a
posture) and ``C = diag(c_x, c_y, c_z)`` (N m s/rad) the damper.  The spring
is exactly conservative at any deviation, has no singular orientation, and is
``K phi`` for small deviations.

Contacts are penalty springs at points fixed in bodies against a horizontal
plane (a floor or a seat) that may move vertically with a base: with the
penetration ``d = z_plane + z_base(t) - p_z`` of point p, the normal force is
``max(0, k d + c d')`` while ``d > 0`` and zero otherwise (force only in
compression, Hunt and Crossley's condition that a damper never pulls).  While
in contact the point is also held horizontally by a spring and damper to an
anchor on the plane (``-k_t (p_xy - a_xy) - c_t p'_xy``), a linear model of
static friction.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import InputError

__all__ = ["JointSprings", "Contacts", "rotation_vector", "inverse_left_jacobian"]


def rotation_vector(e) -> np.ndarray:
    """Rotation vector ``theta l`` of unit Euler parameters (scalar last), |theta| <= pi, (..., 3).

    Parameters
    ----------
    e : ndarray, shape (..., 4)
        Euler parameters (scalar last)

    Returns
    -------
    ndarray, shape (..., 3), rad
        The rotation vectors (axis times angle).
    """
    e = np.asarray(e, dtype=float)
    e = np.where(e[..., 3:] < 0, -e, e)  # the shorter of the two rotations
    v = e[..., :3]
    s = np.linalg.norm(v, axis=-1, keepdims=True)
    theta = 2.0 * np.arctan2(s, e[..., 3:])
    # theta / sin(theta/2) -> 2 as s -> 0
    scale = np.where(s > 1e-12, theta / np.where(s > 1e-12, s, 1.0), 2.0 / np.maximum(e[..., 3:], 1e-300))
    return scale * v


def inverse_left_jacobian(phi) -> np.ndarray:
    """``J_l(phi)^-1`` of SO(3) (equal to ``J_r(phi)^-T``), (..., 3, 3).

    Parameters
    ----------
    phi : ndarray, shape (..., 3), rad
        Rotation vectors

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``J_l(phi)^-1`` for each rotation vector.
    """
    phi = np.asarray(phi, dtype=float)
    th = np.linalg.norm(phi, axis=-1)[..., None, None]
    P = np.zeros(phi.shape[:-1] + (3, 3))
    P[..., 0, 1], P[..., 0, 2], P[..., 1, 2] = -phi[..., 2], phi[..., 1], -phi[..., 0]
    P[..., 1, 0], P[..., 2, 0], P[..., 2, 1] = phi[..., 2], -phi[..., 1], phi[..., 0]
    small = th < 1e-4
    t = np.where(small, 1.0, th)
    coef = np.where(small, 1.0 / 12.0 + th**2 / 720.0, 1.0 / t**2 - (1.0 + np.cos(t)) / (2.0 * t * np.sin(t)))
    return np.eye(3) - 0.5 * P + coef * (P @ P)


def _quat_conj_mul(p, q):
    """``p^-1 (x) q`` for unit quaternions, scalar last, (..., 4)."""
    pv, pw, qv, qw = -p[..., :3], p[..., 3:], q[..., :3], q[..., 3:]
    v = pw * qv + qw * pv + np.cross(pv, qv)
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    return np.concatenate([v, w], axis=-1)


@dataclass
class JointSprings:
    """Springs and dampers of every joint about a neutral orientation.

    Parameters
    ----------
    stiffness, damping : (N, 3)
        ``k`` (N m/rad) and ``c`` (N m s/rad) about body k's x, y, z axes; row
        0 is body 1 relative to ground (usually zero).
    neutral : (N, 4)
        Neutral orientation of each body relative to its parent, Euler
        parameters (scalar last).
    preload : (N, 3)
        Constant moment ``m_0`` (N m, body axes).
    """

    stiffness: np.ndarray
    damping: np.ndarray
    neutral: np.ndarray
    preload: Any = None  # array_like or None in, (N, 3) ndarray after construction

    def __post_init__(self):
        N = len(self.neutral)
        self.neutral = np.asarray(self.neutral, dtype=float).reshape(N, 4)
        self.neutral = self.neutral / np.linalg.norm(self.neutral, axis=1, keepdims=True)
        for name in ("stiffness", "damping", "preload"):
            value = getattr(self, name)
            a = np.zeros((N, 3)) if value is None else np.broadcast_to(np.asarray(value, dtype=float), (N, 3)).copy()
            if not np.all(np.isfinite(a)):
                raise InputError(f"joint spring {name} must be finite numbers")
            if name != "preload" and np.any(a < 0):
                raise InputError(f"joint spring {name} must not be negative")
            setattr(self, name, a)

    def deviation(self, e) -> np.ndarray:
        """Rotation vectors ``phi`` of the deviation from neutral, body axes, (N, 3).

        Parameters
        ----------
        e : ndarray, shape (..., N, 4)
            Relative Euler parameters.

        Returns
        -------
        ndarray, shape (..., N, 3), rad
            Each joint's rotation vector from its neutral orientation, body axes.
        """
        return rotation_vector(_quat_conj_mul(self.neutral, e))

    def moments(self, e, S, w_parent) -> np.ndarray:
        """Moment each body receives from its parent through the spring and damper, parent axes, (N, 3).

        Parameters
        ----------
        e : (..., N, 4)
            Relative Euler parameters;  S : (..., N, 3, 3) the same as matrices (parent = S . body)
        w_parent : (..., N, 3)
            Relative angular velocities, parent axes (rad/s)

        Returns
        -------
        ndarray, shape (..., N, 3), N m
            Each joint's spring and damper moment on its body, parent axes.
        """
        phi = self.deviation(e)
        Kphi = self.stiffness * phi
        m_b = -np.einsum("...nij,...nj->...ni", inverse_left_jacobian(phi), Kphi) + self.preload
        w_b = np.einsum("...nji,...nj->...ni", S, w_parent)
        m_b -= self.damping * w_b
        return np.einsum("...nij,...nj->...ni", S, m_b)

    def energy(self, e) -> float:
        """Potential energy ``sum 1/2 phi^T K phi`` (J); the preload's ``-m_0 . phi`` is not included.

        Parameters
        ----------
        e : ndarray, shape (N, 4)
            Every body's Euler parameters relative to its parent (scalar last)

        Returns
        -------
        float, J
            The springs' stored energy.
        """
        phi = self.deviation(e)
        return float(0.5 * np.sum(self.stiffness * phi * phi))


@dataclass
class Contacts:
    """Penalty contacts of body points with horizontal planes.

    Parameters
    ----------
    body : (C,) int  0-based index of the body each point is fixed in
    point : (C, 3)  the point in the body's frame, from its joint point O_k (m)
    height : (C,)  height of the plane under the point when the base is at rest (m)
    stiffness, damping : (C,)  normal spring (N/m) and damper (N s/m)
    tangential_stiffness, tangential_damping : (C,)  horizontal spring (N/m) and damper (N s/m)
        to the anchor while in contact
    anchor : (C, 2)  horizontal anchor of each point (m); NaN: the point's position at the start
    moving : (C,) bool  the plane moves with the base's vertical displacement
    names : tuple of str  a name per contact (output columns)
    """

    # array_like (or None) in; ndarrays of the shapes above after construction
    body: Any
    point: Any
    height: Any
    stiffness: Any
    damping: Any
    tangential_stiffness: Any = None
    tangential_damping: Any = None
    anchor: Any = None
    moving: Any = None
    names: tuple = field(default=())

    def __post_init__(self):
        self.body = np.asarray(self.body, dtype=np.int64).reshape(-1)
        C = len(self.body)
        self.point = np.asarray(self.point, dtype=float).reshape(C, 3)
        for name in ("height", "stiffness", "damping", "tangential_stiffness", "tangential_damping"):
            value = getattr(self, name)
            a = np.zeros(C) if value is None else np.broadcast_to(np.asarray(value, dtype=float), (C,)).copy()
            if not np.all(np.isfinite(a)):
                raise InputError(f"contact {name} must be finite numbers")
            if name != "height" and np.any(a < 0):
                raise InputError(f"contact {name} must not be negative")
            setattr(self, name, a)
        self.anchor = (np.full((C, 2), np.nan) if self.anchor is None
                       else np.asarray(self.anchor, dtype=float).reshape(C, 2).copy())
        self.moving = np.zeros(C, bool) if self.moving is None else np.broadcast_to(self.moving, (C,)).astype(bool)
        self.names = tuple(self.names) or tuple(f"contact{i + 1}" for i in range(C))

    def __len__(self) -> int:
        return len(self.body)

    def points(self, joint, R, com, com_vel, omega):
        """Position and velocity of every contact point in ground, (..., C, 3) each, from kinematics (..., N, 3).

        Parameters
        ----------
        joint, com : ndarray, shape (..., N, 3), m
            Every body's joint point O_k and mass centre, ground
        R : ndarray, shape (..., N, 3, 3)
            Body orientations (body to ground)
        com_vel : ndarray, shape (..., N, 3), m/s
            Mass-centre velocities, ground axes
        omega : ndarray, shape (..., N, 3), rad/s
            Angular velocities, ground axes

        Returns
        -------
        p : ndarray, shape (..., C, 3), m
            Contact points in ground
        v : ndarray, shape (..., C, 3), m/s
            Their velocities, ground axes
        """
        b = self.body
        r = np.einsum("...cij,cj->...ci", R[..., b, :, :], self.point)
        p = joint[..., b, :] + r
        v = com_vel[..., b, :] + np.cross(omega[..., b, :], p - com[..., b, :])
        return p, v

    def forces(self, p, v, z_base: float = 0.0, v_base: float = 0.0) -> np.ndarray:
        """Force on every contact point (N, ground axes), (..., C, 3), from positions and velocities (..., C, 3).

        Parameters
        ----------
        p : ndarray, shape (..., C, 3), m
            Contact points in ground
        v : ndarray, shape (..., C, 3), m/s
            Their velocities, ground axes
        z_base : float, m
            The base's height.
        v_base : float, m/s
            Its vertical velocity.

        Returns
        -------
        ndarray, shape (..., C, 3), N
            Each contact's force on the body, ground axes (zero off the ground).
        """
        zb = np.where(self.moving, z_base, 0.0)
        vb = np.where(self.moving, v_base, 0.0)
        d = self.height + zb - p[..., 2]
        dd = vb - v[..., 2]
        on = d > 0
        f = np.zeros_like(p)
        f[..., 2] = np.where(on, np.maximum(self.stiffness * d + self.damping * dd, 0.0), 0.0)
        anchor = np.where(np.isnan(self.anchor), p[..., :2], self.anchor)
        ft = (-self.tangential_stiffness[:, None] * (p[..., :2] - anchor)
              - self.tangential_damping[:, None] * v[..., :2])
        f[..., :2] = np.where(on[..., None], ft, 0.0)
        return f

    def energy(self, p, z_base: float = 0.0) -> float:
        """Potential energy of the normal and tangential springs in compression (J).

        Parameters
        ----------
        p : ndarray, shape (C, 3), m
            Contact points in ground
        z_base : float, m
            Height of the moving planes

        Returns
        -------
        float, J
            The contacts' stored spring energy.
        """
        d = self.height + np.where(self.moving, z_base, 0.0) - p[:, 2]
        on = d > 0
        anchor = np.where(np.isnan(self.anchor), p[:, :2], self.anchor)
        t = np.sum((p[:, :2] - anchor) ** 2, axis=1)
        return float(0.5 * np.sum(np.where(on, self.stiffness * d * d + self.tangential_stiffness * t, 0.0)))

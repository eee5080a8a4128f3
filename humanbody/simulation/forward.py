"""Forward simulation of the body tree with Euler parameters (Huston section 8.19).

State ``y = (x, e_1 .. e_N, u)``: the root's position x in ground (m); every
body's Euler parameters ``e_k`` relative to its parent (scalar last; body 1
relative to ground); the generalized speeds ``u = (x', w_1, .., w_N)`` with
``w_k`` the relative angular velocity of body k in its parent's axes (Huston's
hat omega, eq. 8.104).  With these speeds no orientation is singular:

- ``e_k' = 1/2 E(e_k)^T [w_k; 0]`` (eqs. 8.208-8.213,
  :func:`humanbody.mechanics.angular_rates.quaternion_rates`), with the drift of ``|e_k|``
  from 1 damped by ``- (|e_k|^2 - 1) e_k``;
- ``M_u(q) u' = tau_u - b(q, u)``, ``tau_u`` the generalized forces of the
  joint torques and passive elements, ``b`` the recursive Newton-Euler
  residual at ``u' = 0`` with gravity and contact forces as external loads,
  and ``M_u`` by the composite rigid body algorithm, both the core's kernels
  (:func:`humanbody._kernels.joint_tree.newton_euler`,
  :func:`humanbody._kernels.joint_tree.composite_mass_matrix`) on the model's
  core twin (:func:`humanbody.core.from_body_model`) with the speed axes in
  place of the angles' axes: body k's speeds turn it about its parent's axes
  ``R_L(k)`` (:meth:`System.speed_axes`).  Poses come from
  :func:`humanbody.core.forward_kinematics`; velocities and the accelerations
  at ``u' = 0`` from the speeds (:meth:`System.kinematics`), so no angle rate
  is formed.

The generalized force conjugate to ``w_k`` of a moment ``m`` (ground axes)
from parent to body k is ``R_L(k)^T m``: the power is ``m . (omega_k -
omega_L(k))``.  Torques given for the angle coordinates (``tau_theta``, what
:func:`humanbody.inverse_dynamics` returns) become ``H_k^-T tau_theta`` with
``w_k = H_k theta_k'`` (:func:`humanbody.mechanics.angular_rates.angle_rate_matrix`).
Angles in each segment's own sequence are formed only for the kernels and the
output.
"""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.integrate import solve_ivp

from .. import core
from .._kernels import joint_tree as _jt
from .._kernels.angles import continuous_angles, unwrap_columns
from .._kernels.tree import threads_for
from ..errors import InputError
from ..mechanics import angular_rates as rates
from ..model.body import coordinate_columns
from ..rotations.angles import matrix_to_euler
from ..rotations.common import sequence_axes
from ..rotations.quaternions import quaternion_to_matrix, sequence_to_quaternion

if TYPE_CHECKING:
    from ..model.body import BodyModel

__all__ = ["System", "Simulation", "simulate"]


class System:
    """A body model with its joint torques, passive elements, gravity and moving base.

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity.
    torques : callable ``(t, q, qd) -> (n,)``, optional
        Generalized forces conjugate to the coordinates (N for the root's
        translations, N m for the angles), the layout of
        :func:`humanbody.inverse_dynamics`.
    springs : :class:`humanbody.simulation.passive.JointSprings`, optional
        Joint springs and dampers (none by default).
    contacts : :class:`humanbody.simulation.passive.Contacts`, optional
        Contact points on the bodies and the planes they touch (none by default).
    base : callable ``t -> (z, z')``, optional
        Vertical displacement (m) and velocity (m/s) of the moving planes.
    gravity : bool
        Use the model's gravity (True) or none.
    locked : sequence of str
        Bodies whose joint is locked at its initial orientation (the root's
        name locks its position and orientation in ground; ``<root>_x``,
        ``_y``, ``_z`` one of its translations, ``<root>_rotation`` its
        orientation only).
    """

    def __init__(self, model, torques=None, springs=None, contacts=None, base=None, gravity: bool = True,
                 locked=()):
        self.model = model if gravity else model.replace(gravity=[0.0, 0.0, 0.0])
        self.N = model.n_bodies
        self.n = 3 + 3 * self.N
        self.torques, self.springs, self.contacts, self.base = torques, springs, contacts, base
        if contacts is not None and len(contacts) == 0:
            self.contacts = None
        self.core = self.model.core
        rot = np.flatnonzero(self.core.compiled.akind == 0)  # three per body, in coordinate order
        self._rot, self._rot_body, self._rot_col = rot, np.repeat(np.arange(self.N), 3), np.tile(np.arange(3), self.N)
        self._groups: dict = {}
        for k, s in enumerate(model.sequences):
            self._groups.setdefault(s, []).append(k)
        n = self.n
        self.free = np.ones(n, bool)
        root = model.names[0]
        extra = {f"{root}_{a}": [i] for i, a in enumerate("xyz")}
        extra[f"{root}_rotation"] = [3, 4, 5]
        for name in locked:
            if name in extra:
                self.free[extra[name]] = False
                continue
            if name not in model.names:
                raise InputError(f"cannot lock {name!r}: the model has no segment of that name")
            k = model.names.index(name)
            self.free[3 + 3 * k:6 + 3 * k] = False
            if k == 0:
                self.free[:3] = False

    # -- state -------------------------------------------------------------
    def split(self, y):
        """``(x (3,), e (N, 4), u (n,))`` views of a state vector.

        Parameters
        ----------
        y : ndarray, shape (3 + 4N + n,)
            A state vector (:meth:`state`).

        Returns
        -------
        x : ndarray, shape (3,), m
            The root's origin in ground (a view of ``y``).
        e : ndarray, shape (N, 4)
            Each body's Euler parameters relative to its parent, scalar last (a view).
        u : ndarray, shape (n,)
            The speeds: the root's velocity (m/s), then every body's angular velocity relative to its parent in parent axes (rad/s) (a view).
        """
        N = self.N
        return y[:3], y[3:3 + 4 * N].reshape(N, 4), y[3 + 4 * N:]

    def state(self, q, qd) -> np.ndarray:
        """State vector from coordinates (m, rad) and their rates.

        Parameters
        ----------
        q : array_like, shape (n,)
            n = 3 + 3N: the root's position (m), then every body's angles (rad).
        qd : array_like, shape (n,)
            Their rates (m/s, rad/s).

        Returns
        -------
        ndarray, shape (3 + 4N + n,)
            The state ``(x, e, u)``: root origin (m), Euler parameters, speeds (m/s, rad/s).
        """
        q, qd = np.asarray(q, dtype=float), np.asarray(qd, dtype=float)
        if q.shape != (self.n,) or qd.shape != (self.n,):
            raise InputError(f"coordinates and rates must have {self.n} values for this model")
        a, ad = q[3:].reshape(self.N, 3), qd[3:].reshape(self.N, 3)
        e = np.empty((self.N, 4))
        w = np.empty((self.N, 3))
        for s, idx in self._groups.items():
            e[idx] = sequence_to_quaternion(a[idx], s)
            w[idx] = rates.omega_from_angle_rates(a[idx], ad[idx], s, "parent")
        u = np.concatenate([qd[:3], w.ravel()])
        return np.concatenate([q[:3], e.ravel(), np.where(self.free, u, 0.0)])

    def angles(self, e) -> np.ndarray:
        """Each body's angles in its own sequence from its Euler parameters, (..., N, 3).

        Parameters
        ----------
        e : ndarray, shape (..., N, 4)
            Every body's Euler parameters relative to its parent (scalar last).

        Returns
        -------
        ndarray, shape (..., N, 3), rad
            Each body's angles relative to its parent, in its rotation sequence.
        """
        S = quaternion_to_matrix(e)
        out = np.empty(e.shape[:-1] + (3,))
        for s, idx in self._groups.items():
            out[..., idx, :] = matrix_to_euler(S[..., idx, :, :], s)
        return out

    def rate_matrices(self, angles) -> np.ndarray:
        """``H_k`` with ``w_k = H_k theta_k'`` (parent axes), (..., N, 3, 3).

        Parameters
        ----------
        angles : ndarray, shape (..., N, 3)
            Every body's angles in its own sequence (rad).

        Returns
        -------
        ndarray, shape (..., N, 3, 3)
            ``H_k`` of every body (angle rates to parent-axis angular velocity).
        """
        out = np.empty(angles.shape + (3,))
        for s, idx in self._groups.items():
            out[..., idx, :, :] = rates.angle_rate_matrix(angles[..., idx, :], s, "parent")
        return out

    # -- equations of motion ------------------------------------------------
    def kinematics(self, q, u):
        """The core's pose of every body at coordinates ``q`` and its motion at speeds ``u`` with ``u' = 0``.

        Positions by :func:`humanbody.core.forward_kinematics` (the angles
        only: they are regular everywhere); velocities and the accelerations
        at ``u' = 0`` along the speed axes (:meth:`speed_axes`,
        :func:`humanbody._kernels.joint_tree.joint_frame_motion`), which no
        orientation makes singular.

        Parameters
        ----------
        q : ndarray, shape (k, n)
            Coordinates: the root's position (m), then every body's angles (rad).
        u : ndarray, shape (k, n)
            Speeds: the root's velocity (m/s), then every body's angular velocity relative to its parent
            in the parent's axes (rad/s).

        Returns
        -------
        data : humanbody.core.Data
            Poses, joint axes and (replacing the angle-rate ones) ``omega``, ``velocity``, ``alpha`` and
            ``acceleration`` (F = k; rad/s, m/s, rad/s^2, m/s^2).
        axes : ndarray, shape (k, A, 3)
            The speed axes (unit, ground components).
        """
        model = self.core
        data = core.forward_kinematics(model, q)
        axes = self.speed_axes(data)
        c = model.compiled
        w, v, al, a = (np.empty_like(data.origin) for _ in range(4))
        _jt.joint_frame_motion(model.parents, c.astart, c.akind, c.acoord, data.origin, axes,
                               np.ascontiguousarray(u, dtype=float), w, v, al, a)
        return dataclasses.replace(data, qd=np.array(u, dtype=float), omega=w, velocity=v, alpha=al,
                                   acceleration=a), axes

    def speed_axes(self, data) -> np.ndarray:
        """The direction of every speed, (k, A, 3): the root's translations along ground's axes and each body's
        rotations about its joint frame's (its parent's) x, y and z axes (ground components).

        Parameters
        ----------
        data : humanbody.core.Data
            Poses of the core model (its joint frames).

        Returns
        -------
        ndarray, shape (k, A, 3)
            Unit vectors; A = the core model's axes.
        """
        axes = data.axis_vector.copy()
        axes[:, self._rot] = np.swapaxes(data.joint_rotation, -1, -2)[:, self._rot_body, self._rot_col]
        return axes

    def speed_jacobian(self, data, axes, body, offset) -> np.ndarray:
        """``d x / d(speed)`` of points fixed on bodies: their velocity per unit of each speed, (k, M, 3, n).

        :func:`humanbody._kernels.joint_tree.translational_jacobian` with the speed axes
        (:meth:`speed_axes`) in place of the angles' axes; also the first-order
        displacement per unit perturbation of :func:`humanbody.simulation.linearize.perturb`.

        Parameters
        ----------
        data : humanbody.core.Data
            Poses of the core model.
        axes : ndarray, shape (k, A, 3)
            The speed axes (:meth:`speed_axes`).
        body : array_like of int, shape (M,)
            Body of each point (0-based).
        offset : array_like, shape (M, 3)
            The points in their bodies' frames, from the body origin O_k (m).

        Returns
        -------
        ndarray, shape (k, M, 3, n)
            m/s per m/s (translations) and m/s per rad/s (rotations).
        """
        model = self.core
        c = model.compiled
        body = np.ascontiguousarray(np.atleast_1d(np.asarray(body, dtype=np.int64)))
        x = np.ascontiguousarray(data.points(body, np.asarray(offset, dtype=float).reshape(-1, 3)))
        J = np.empty((data.frames, body.shape[0], 3, model.nq))
        _jt.translational_jacobian(model.parents, c.astart, c.akind, c.acoord, data.axis_origin, axes,
                           np.ones_like(data.axis_slope), body, x, J)
        return J

    # -- equations of motion ------------------------------------------------
    def evaluate_many(self, t, Y) -> dict:
        """Everything at k states ``Y`` (k, len(y)) in one pass of the kernels; arrays with a leading k axis.

        Keys: ``q`` coordinates, ``e`` unit Euler parameters, ``u`` speeds, ``udot``, ``angles``, ``M``,
        ``applied`` (generalized forces of torques, springs and dampers), ``data`` (the core's kinematics of
        the k states, frame j for state j, :meth:`kinematics`), ``com`` (mass centres, m), ``contact_points``,
        ``contact_forces``, ``z_base``.

        Parameters
        ----------
        t : float
            Time (s), for the torques and the base.
        Y : ndarray, shape (k, S)
            States (:meth:`state`).

        Returns
        -------
        dict
            Name -> array with a leading axis of the k states (the keys above).
        """
        model, N, n = self.core, self.N, self.n
        k = len(Y)
        x, u = Y[:, :3], Y[:, 3 + 4 * N:]
        e = Y[:, 3:3 + 4 * N].reshape(k, N, 4)
        e = e / np.linalg.norm(e, axis=2, keepdims=True)
        ang = self.angles(e)
        q = np.concatenate([x, ang.reshape(k, 3 * N)], axis=1)
        c = model.compiled
        with threads_for(k):  # a few frames: one thread, no waiting for a parallel region
            data, axes = self.kinematics(q, u)
            r = np.einsum("fbij,bj->fbi", data.R, model.com)
            com = data.origin + r
            com_vel = data.velocity + np.cross(data.omega, r)
            C = 0 if self.contacts is None else len(self.contacts)
            external = np.zeros((k, N, 6))
            fc = p = np.zeros((k, 0, 3))
            zb = vb = 0.0
            if C:
                if self.base is not None:
                    zb, vb = self.base(t)
                p, v = self.contacts.points(data.origin, data.R, com, com_vel, data.omega)
                fc = self.contacts.forces(p, v, zb, vb)
                moment = np.cross(p - data.origin[:, np.asarray(self.contacts.body, dtype=np.int64)], fc)
                for i, b in enumerate(self.contacts.body):  # force, and moment about the body origin
                    external[:, b, :3] += fc[:, i]
                    external[:, b, 3:] += moment[:, i]
            M = np.empty((k, n, n))
            ones = np.ones_like(data.axis_slope)
            _jt.composite_mass_matrix(model.parents, c.astart, c.akind, c.acoord, model.mass, model.com,
                                      model.inertia, data.R, data.origin, data.axis_origin, axes, ones, M)
            tau = np.empty((k, n))  # the residual b at u' = 0, conjugate to the speeds
            _jt.newton_euler(model.parents, c.astart, c.akind, c.acoord, model.mass, model.com, model.inertia,
                             model.gravity, data.R, data.origin, data.omega, data.alpha, data.acceleration,
                             data.axis_origin, axes, ones, external, np.empty((k, N, 3)), np.empty((k, N, 3)), tau)
        w = u[:, 3:].reshape(k, N, 3)
        applied = np.zeros((k, n))
        if self.springs is not None:
            applied[:, 3:] += self.springs.moments(e, quaternion_to_matrix(e), w).reshape(k, 3 * N)
        if self.torques is not None:
            H = self.rate_matrices(ang)
            td = np.linalg.solve(H, w[..., None])[..., 0].reshape(k, 3 * N)
            for j in range(k):
                qd = np.concatenate([u[j, :3], td[j]])
                tq = np.asarray(self.torques(t, q[j], qd), dtype=float).reshape(n)
                applied[j, :3] += tq[:3]
                applied[j, 3:] += np.linalg.solve(np.swapaxes(H[j], -1, -2), tq[3:].reshape(N, 3, 1))[..., 0].ravel()
        udot = np.zeros((k, n))
        f = self.free
        rhs = applied - tau
        if f.all():
            udot = np.linalg.solve(M, rhs[..., None])[..., 0]
        elif f.any():
            udot[:, f] = np.linalg.solve(M[:, f][:, :, f], rhs[:, f, None])[..., 0]
        return dict(q=q, e=e, u=u, udot=udot, angles=ang, M=M, applied=applied, data=data, com=com,
                    contact_points=p, contact_forces=fc, z_base=zb)

    def evaluate(self, t, y) -> dict:
        """Everything at one state (:meth:`evaluate_many` without the leading axis; ``data`` keeps its frame axis).

        Parameters
        ----------
        t : float
            Time (s), for the torques and the base.
        y : ndarray, shape (S,)
            A state vector (:meth:`state`).

        Returns
        -------
        dict
            Name -> array of the one state (as :meth:`evaluate_many`).
        """
        ev = self.evaluate_many(t, np.asarray(y, dtype=float)[None])
        return {key: (val if key in ("data", "z_base") else val[0]) for key, val in ev.items()}

    def rhs(self, t, y) -> np.ndarray:
        """``y'`` (root velocity, Euler parameter rates of eq. 8.213, ``u'``) of a state (S,) or states (S, k).

        Parameters
        ----------
        t : float
            Time (s), for the torques and the base.
        y : ndarray, shape (S,) or (S, k)
            One state, or k states as columns (``solve_ivp``'s vectorized layout).

        Returns
        -------
        ndarray, shape of ``y``
            The state's time derivative: root velocity (m/s), Euler parameter rates (1/s), ``u'`` (m/s², rad/s²).
        """
        Y = np.asarray(y, dtype=float)
        single = Y.ndim == 1
        Y = Y[None] if single else Y.T
        ev = self.evaluate_many(t, Y)
        N, k = self.N, len(Y)
        e = Y[:, 3:3 + 4 * N].reshape(k, N, 4)
        w = ev["u"][:, 3:].reshape(k, N, 3)
        ed = rates.quaternion_rates(ev["e"], w, "parent") - (np.sum(e * e, axis=2, keepdims=True) - 1.0) * e
        out = np.concatenate([ev["u"][:, :3], ed.reshape(k, 4 * N), ev["udot"]], axis=1)
        return out[0] if single else out.T

    def energy(self, t, y) -> float:
        """Kinetic + gravitational + spring + contact energy (J).

        Parameters
        ----------
        t : float
            Time (s), for the torques and the base.
        y : ndarray, shape (S,)
            A state vector (:meth:`state`).

        Returns
        -------
        float, J
            The total mechanical energy of the state.
        """
        ev = self.evaluate(t, y)
        u = ev["u"]
        E = 0.5 * u @ ev["M"] @ u - float(np.einsum("k,ki,i->", self.model.mass, ev["com"], self.model.gravity))
        if self.springs is not None:
            E += self.springs.energy(ev["e"])
        if self.contacts is not None:
            E += self.contacts.energy(ev["contact_points"], ev["z_base"])
        return float(E)


@dataclass
class Simulation:
    """What :func:`simulate` returns.

    Attributes
    ----------
    coordinates : DataFrame  the generalized-coordinates trial with exact ``_dot`` and ``_ddot`` columns
    torques : DataFrame  ``time`` and ``<coordinate>_tau``: the generalized forces of the joint torques and
        springs and dampers (the layout of :func:`humanbody.inverse_dynamics`)
    contacts : DataFrame or None  contact forces as an external-loads table (docs/formats.md)
    quaternions : (F, N, 4)  every body's Euler parameters relative to its parent
    states : (F, len(y))  the integrated state vectors
    system : System
    messages : list of str
    """

    coordinates: pd.DataFrame
    torques: pd.DataFrame
    contacts: pd.DataFrame | None
    quaternions: np.ndarray
    states: np.ndarray
    system: System
    messages: list


def _continuous(angles: np.ndarray, sequences) -> np.ndarray:
    """Angles (F, N, 3) over time made continuous through and beyond each sequence's singular set and unwrapped.

    The one rule of the marker tracking and the clinical angles:
    :func:`humanbody._kernels.angles.continuous_angles` (each frame the nearer of
    the two equivalent triples, the third angle carried through the singular set),
    then every column unwrapped by :func:`humanbody._kernels.angles.unwrap_columns`
    (numpy.unwrap's steps).
    """
    F, N = angles.shape[:2]
    a = np.array(angles, dtype=float, order="C")
    continuous_angles(a, np.array([sequence_axes(s) for s in sequences], dtype=np.int64).reshape(N, 3), 1e-9)
    flat = a.reshape(F, 3 * N)
    unwrap_columns(flat)
    return flat.reshape(F, N, 3)


def _outputs(system: System, t, Y):
    """Coordinates, rates and accelerations (F, n) each, applied forces and contact loads."""
    F, N = len(t), system.N
    ev = [system.evaluate(t[f], Y[f]) for f in range(F)]
    e = np.array([v["e"] for v in ev])
    ang = _continuous(system.angles(e), system.model.sequences)
    u = Y[:, 3 + 4 * N:]
    ud = np.array([v["udot"] for v in ev])
    H = system.rate_matrices(ang)
    w, wd = u[:, 3:].reshape(F, N, 3), ud[:, 3:].reshape(F, N, 3)
    td = np.linalg.solve(H, w[..., None])[..., 0]
    u1, u2, u3 = H[..., 0], H[..., 1], H[..., 2]
    cross = (td[..., :1] * td[..., 1:2] * np.cross(u1, u2) + td[..., :1] * td[..., 2:] * np.cross(u1, u3)
             + td[..., 1:2] * td[..., 2:] * np.cross(u2, u3))
    tdd = np.linalg.solve(H, (wd - cross)[..., None])[..., 0]
    q = np.concatenate([Y[:, :3], ang.reshape(F, 3 * N)], axis=1)
    qd = np.concatenate([u[:, :3], td.reshape(F, 3 * N)], axis=1)
    qdd = np.concatenate([ud[:, :3], tdd.reshape(F, 3 * N)], axis=1)
    applied = np.array([v["applied"] for v in ev])
    tau = applied.copy()  # back to the angle coordinates: tau_theta = H^T tau_w
    tau[:, 3:] = np.einsum("fkij,fki->fkj", H, applied[:, 3:].reshape(F, N, 3)).reshape(F, 3 * N)
    loads = None
    if system.contacts is not None:
        loads = {"time": t}
        for c, name in enumerate(system.contacts.names):
            for i, a in enumerate("xyz"):
                loads[f"{name}_force_{a}"] = [v["contact_forces"][c, i] for v in ev]
            for i, a in enumerate("xyz"):
                loads[f"{name}_point_{a}"] = [v["contact_points"][c, i] for v in ev]
            for a in "xyz":
                loads[f"{name}_moment_{a}"] = np.zeros(F)
        loads = pd.DataFrame(loads)
    return q, qd, qdd, tau, e, loads


def simulate(model: BodyModel, duration: float, q0: ArrayLike, qd0: ArrayLike | None = None, *, torques=None, springs=None, contacts=None, base=None,
             gravity: bool = True, locked=(), rate_hz: float = 100.0, method: str = "BDF", rtol: float = 1e-8,
             atol: float = 1e-9, max_step: float = np.inf, progress: bool = False) -> Simulation:
    """Integrate the equations of motion from an initial posture and speeds.

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity
    duration : float
        Simulated time (s)
    q0, qd0 : (n,)  initial coordinates (m, rad; order of :func:`humanbody.coordinate_columns`) and
        their rates (m/s, rad/s; default at rest)
    torques : callable ``(t, q, qd) -> (n,)``, optional  generalized forces (N, N m) as in
        :func:`humanbody.inverse_dynamics` (for the default model's joints: the moment about the
        flexion, ab/adduction and axial-rotation axes)
    springs : :class:`humanbody.simulation.passive.JointSprings`, optional
        Joint springs and dampers
    contacts : :class:`humanbody.simulation.passive.Contacts`, optional  contact points and planes (anchors left NaN are set to the
        points' starting positions)
    base : callable ``t -> (z, z')``, optional
        Vertical motion of the contacts marked moving (m, m/s)
    gravity : bool
        The model's gravity (True) or none
    locked : sequence of str
        Bodies whose joints are locked (the root's name: the root is fixed in ground)
    rate_hz : float
        Output frames per second
    method, rtol, atol, max_step : passed to :func:`scipy.integrate.solve_ivp`.  The default BDF (implicit)
        stays stable with stiff contacts and with dampers on light segments (the hands: ``c / I`` of
        thousands per second); DOP853 (explicit, 8th order) is the better choice for smooth undamped
        systems at tight tolerances.
    progress : bool
        A progress bar on stderr (only on a terminal)

    Returns
    -------
    Simulation
        The integrated motion at ``rate_hz``: the coordinates with exact rates (m, rad), the joint torques' generalized forces, contact forces, Euler parameters, states and messages.
    """
    if not (np.isfinite(duration) and duration > 0):
        raise InputError("the duration must be a positive number of seconds")
    if not (np.isfinite(rate_hz) and rate_hz > 0):
        raise InputError("the output rate must be a positive number of frames per second")
    if contacts is not None and np.any(np.isnan(contacts.anchor)):
        contacts = dataclasses.replace(contacts, anchor=contacts.anchor.copy())
    system = System(model, torques, springs, contacts, base, gravity, locked)
    qd0 = np.zeros(system.n) if qd0 is None else qd0
    y0 = system.state(q0, qd0)
    if not np.all(np.isfinite(y0)):
        raise InputError("the initial coordinates and rates must be finite")
    if system.contacts is not None and np.any(np.isnan(system.contacts.anchor)):
        p = system.evaluate(0.0, y0)["contact_points"]
        c = system.contacts
        c.anchor = np.where(np.isnan(c.anchor), p[:, :2], c.anchor)
    t_eval = np.arange(0.0, duration * (1 + 1e-12), 1.0 / rate_hz)
    bar = _bar(progress, duration)
    fun = system.rhs
    if bar is not None:
        def fun(t, y):
            bar.update(max(0.0, min(t, duration) - bar.n))
            return system.rhs(t, y)
    try:
        sol = solve_ivp(fun, (0.0, float(t_eval[-1])), y0, method=method, t_eval=t_eval, rtol=rtol, atol=atol,
                        max_step=max_step, vectorized=True)  # the implicit methods' Jacobians: one kernel pass
    finally:
        if bar is not None:
            bar.close()
    if sol.status != 0 or not np.all(np.isfinite(sol.y)):
        raise InputError(f"the integration stopped at t = {sol.t[-1] if len(sol.t) else 0.0:.4g} s: {sol.message}")
    Y = sol.y.T.copy()
    N = system.N
    e = Y[:, 3:3 + 4 * N].reshape(-1, N, 4)
    Y[:, 3:3 + 4 * N] = (e / np.linalg.norm(e, axis=2, keepdims=True)).reshape(-1, 4 * N)  # onto the unit sphere
    q, qd, qdd, tau, e, loads = _outputs(system, sol.t, Y)

    coords, torq = _tables(coordinate_columns(model), sol.t, q, qd, qdd, tau)
    jac = f" ({sol.njev} Jacobians, each one pass over {len(y0)} states)" if sol.njev else ""
    msg = [f"simulated {duration:g} s with {method}: {sol.nfev} evaluations of the equations of motion{jac}, "
           f"{len(sol.t)} frames at {rate_hz:g} Hz"]
    return Simulation(coords, torq, loads, e, Y, system, msg)


def _tables(cols: list, t: np.ndarray, q, qd, qdd, tau) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The coordinates with their rates (``time``, each coordinate, ``_dot``, ``_ddot``) and the generalized
    forces (``_tau``) as tables, one row per output frame."""
    data = {"time": t}
    for i, c in enumerate(cols):
        data[c] = q[:, i]
    for i, c in enumerate(cols):
        data[c + "_dot"] = qd[:, i]
    for i, c in enumerate(cols):
        data[c + "_ddot"] = qdd[:, i]
    return pd.DataFrame(data), pd.DataFrame({"time": t, **{c + "_tau": tau[:, i] for i, c in enumerate(cols)}})


def _bar(enabled: bool, duration: float):
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm

    return tqdm(total=duration, desc="simulate", unit="s", leave=False,
                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n:.2f}/{total:.2f} s [{elapsed}<{remaining}]")

"""Equations of motion of the body tree: ``M(q) q'' + h(q, q') = tau``.

q are the generalized coordinates in the order of
:func:`humanbody.mechanics.kinematics.coordinate_columns` (the root's position in
ground, then the three angles of every body in its rotation sequence; n = 3 +
3 N for N bodies) and the generalized speeds are their time derivatives.
tau are the generalized forces conjugate to them: the force on the root along
each ground axis, and for every body the moment of its joint about each of its
sequence's three rotation axes (docs/dynamics.md).

Every function runs on the core (:mod:`humanbody.core`): the BodyModel becomes
a core model (:func:`humanbody.core.from_body_model`, a Free root and a
Cardan joint per body, the same coordinates in the same order), and

- :func:`inverse_dynamics` is :func:`humanbody.core.inverse_dynamics`, the
  recursive Newton-Euler algorithm (Walker and Orin 1982): the force ``f_k``
  and moment ``m_k`` each body receives from its parent, projected on the
  joint's axes: ``tau_root = (f_1, H_1^T m_1)``, ``tau_k = (R_L(k) H_k)^T m_k``;
- :func:`bias_forces` is inverse dynamics with ``q'' = 0``;
- :func:`mass_matrix` is :func:`humanbody.core.mass_matrix`, the composite
  rigid body algorithm (Walker and Orin's third method; Featherstone 2008,
  section 6.2);
- :func:`forward_dynamics` solves ``q'' = M^-1 (tau - h)`` by Cholesky.

Every function also takes arrays with a leading frames axis; below 2048 frames
the kernels run on one thread (:func:`humanbody._kernels.tree.threads_for`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, cho_solve

from .. import core
from .._kernels.tree import threads_for
from ..errors import InputError

if TYPE_CHECKING:
    from ..model.body import BodyModel

__all__ = ["mass_matrix", "bias_forces", "inverse_dynamics", "forward_dynamics", "generalized_forces"]


def _arrays(model, *xs) -> tuple[list[np.ndarray], bool, tuple[int, ...]]:
    """Coordinate-like arrays broadcast to one shape and flattened to (F, n); whether the input was one row."""
    n = 3 + 3 * model.n_bodies
    out = []
    for x in xs:
        a = np.asarray(x, dtype=float)
        if a.shape[-1] != n:
            raise InputError(f"generalized coordinates must have {n} columns for this model, got {a.shape[-1]}")
        out.append(a)
    single = out[0].ndim == 1
    shape = np.broadcast_shapes(*(a.shape for a in out))
    return [np.ascontiguousarray(np.broadcast_to(a, shape).reshape(-1, n)) for a in out], single, shape


def _rotation_axes(model: core.Model, q: np.ndarray) -> np.ndarray:
    """Every body's three rotation axes in ground components, (F, N, 3, 3) (columns): the core's joint axes."""
    data = core.forward_kinematics(model, q)
    rot = np.flatnonzero(model.compiled.akind == 0)
    return np.swapaxes(data.axis_vector[:, rot].reshape(q.shape[0], model.nbodies, 3, 3), -1, -2)


def generalized_forces(model: BodyModel, q: ArrayLike, joint_force: np.ndarray,
                       joint_moment: np.ndarray) -> np.ndarray:
    """Generalized forces from the joint loads: ``(f_1, H_1^T m_1, ..., H_k^T m_k, ...)``, (F, n).

    ``H_k`` are body k's three rotation axes in ground components (the core's
    joint axes of ``q``).

    Parameters
    ----------
    model : BodyModel
        The body tree (its sequences give the axes).
    q : array_like, shape (F, n) or (n,)
        Coordinates (m, rad) at which the joint axes are taken.
    joint_force : ndarray, shape (F, N, 3)
        Force each body receives from its parent (N), ground axes
        (:func:`humanbody.mechanics.kinetics.joint_loads`).
    joint_moment : ndarray, shape (F, N, 3)
        Moment each body receives from its parent about its joint point O_k (N m), ground axes.

    Returns
    -------
    ndarray, shape (F, n)
        N for the root translations, N m for every angle.
    """
    q = np.asarray(q, dtype=float).reshape(-1, 3 + 3 * model.n_bodies)
    H = _rotation_axes(model.core, q)
    F, N = q.shape[0], model.n_bodies
    tau = np.empty((F, 3 + 3 * N))
    tau[:, :3] = joint_force[:, 0]
    tau[:, 3:] = np.einsum("fkij,fki->fkj", H, joint_moment).reshape(F, 3 * N)
    return tau


def inverse_dynamics(model: BodyModel, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
    """Generalized forces tau that produce accelerations ``qdd`` at ``(q, qd)``: ``M qdd + h``.

    :func:`humanbody.core.inverse_dynamics` on the model's core twin.

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity.
    q : array_like, shape (n,) or (F, n)
        Coordinates (m for the root's position, rad for the angles).
    qd : array_like, shape of ``q``
        Their rates (m/s, rad/s).
    qdd : array_like, shape of ``q``
        Their accelerations (m/s^2, rad/s^2).

    Returns
    -------
    ndarray, shape of ``q``
        N for the root translations, N m for every angle.
    """
    (q, qd, qdd), single, shape = _arrays(model, q, qd, qdd)
    with threads_for(q.shape[0]):
        tau = core.inverse_dynamics(model.core, q, qd, qdd)
    return tau[0] if single else tau.reshape(shape)


def bias_forces(model: BodyModel, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """``h(q, qd)``: Coriolis, centrifugal and gravity terms (the inverse dynamics at ``qdd = 0``).

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity.
    q : array_like, shape (n,) or (F, n)
        Coordinates (m, rad).
    qd : array_like, shape of ``q``
        Their rates (m/s, rad/s).

    Returns
    -------
    ndarray, shape of ``q``
        N for the root translations, N m for every angle.
    """
    (q, qd), single, shape = _arrays(model, q, qd)
    with threads_for(q.shape[0]):
        tau = core.inverse_dynamics(model.core, q, qd, np.zeros_like(q))
    return tau[0] if single else tau.reshape(shape)


def mass_matrix(model: BodyModel, q: ArrayLike) -> np.ndarray:
    """The joint-space inertia matrix M(q), (n, n) or (F, n, n): symmetric, positive definite.

    :func:`humanbody.core.mass_matrix` (the composite rigid body algorithm,
    equations in docs/dynamics.md) on the model's core twin: each body's
    coordinates turn it about the axes ``R_L(k) H_k`` (ground components)
    through its joint point.  Units: kg (root translations), kg m
    (translation-rotation), kg m^2 (rotations).

    Parameters
    ----------
    model : BodyModel
        The body tree and its inertias.
    q : array_like, shape (n,) or (F, n)
        Coordinates (m, rad).

    Returns
    -------
    ndarray, shape (n, n) or (F, n, n)
        kg, kg m, kg m^2.
    """
    (q,), single, shape = _arrays(model, q)
    with threads_for(q.shape[0]):
        M = core.mass_matrix(model.core, q)
    n = q.shape[1]
    return M[0] if single else M.reshape(shape[:-1] + (n, n))


def forward_dynamics(model: BodyModel, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
    """Accelerations ``qdd = M^-1 (tau - h)`` at ``(q, qd)`` under generalized forces ``tau``.

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity.
    q : array_like, shape (n,) or (F, n)
        Coordinates (m, rad).
    qd : array_like, shape of ``q``
        Their rates (m/s, rad/s).
    tau : array_like, shape of ``q``
        Generalized forces (N for the root translations, N m for the angles).

    Returns
    -------
    ndarray, shape of ``q``
        m/s^2 and rad/s^2 (Cholesky solve, frame by frame).
    """
    (q, qd, tau), single, shape = _arrays(model, q, qd, tau)
    twin = model.core
    with threads_for(q.shape[0]):
        M = core.mass_matrix(twin, q)
        rhs = tau - core.inverse_dynamics(twin, q, qd, np.zeros_like(q))
    qdd = np.empty_like(q)
    for f in range(q.shape[0]):
        qdd[f] = cho_solve(cho_factor(M[f]), rhs[f])
    return qdd[0] if single else qdd.reshape(shape)

"""Equations of motion of the body tree: ``M(q) q'' + h(q, q') = tau``.

q are the generalized coordinates in the order of
:func:`humanbody.mechanics.kinematics.coordinate_columns` (the root's position in
ground, then the three angles of every body in its rotation sequence; n = 3 +
3 N for N bodies) and the generalized speeds are their time derivatives.
tau are the generalized forces conjugate to them: the force on the root along
each ground axis, and for every body the moment of its joint about each of its
sequence's three rotation axes (docs/dynamics.md).

Algorithms (Walker and Orin 1982, on Huston's recursion):

- :func:`inverse_dynamics` — the recursive Newton-Euler algorithm in
  d'Alembert form: the compiled kinematics give every body's inertia force and
  torque (:func:`humanbody.compute`), the tip-to-root kernel of the kinetics
  (:func:`humanbody._kernels.kinetics.joint_loads`) the force ``f_k`` and moment
  ``m_k`` each body receives from its parent, and the generalized forces are
  their projections on the joint's motion: ``tau_root = (f_1, H_1^T m_1)``,
  ``tau_k = (R_L(k) H_k)^T m_k`` with ``H_k`` the sequence's axes
  (:func:`humanbody.mechanics.angular_rates.angle_rate_matrix`).
- :func:`bias_forces` — inverse dynamics with ``q'' = 0``.
- :func:`mass_matrix` — the composite rigid body algorithm (Walker and Orin's
  third method; Featherstone 2008, section 6.2): composite inertias from the
  tips to the root, then each column from the momentum of a unit rate of one
  coordinate (:func:`humanbody._kernels.mass_matrix.composite_mass_matrix`).
- :func:`forward_dynamics` — ``q'' = M^-1 (tau - h)`` by a Cholesky solve.

Every function also takes arrays with a leading frames axis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike
from scipy.linalg import cho_factor, cho_solve

from .._kernels.mass_matrix import composite_mass_matrix
from .._kernels.tree import threads_for
from ..errors import InputError
from .angular_rates import angle_rate_matrix
from .kinetics import joint_loads
from .results import run_tree as _run_kernel

if TYPE_CHECKING:
    from ..model.body import BodyModel

__all__ = ["mass_matrix", "bias_forces", "inverse_dynamics", "forward_dynamics", "generalized_forces"]


def _arrays(model, *xs) -> tuple[list[np.ndarray], bool, tuple[int, ...]]:
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


def _joint_axes(model, q, res=None) -> np.ndarray:
    """Every body's three rotation axes in ground components, (F, N, 3, 3) (columns).

    ``res`` : the kinematics of ``q`` (:func:`humanbody.mechanics.results.run_tree`), computed when None.
    """
    F, N = q.shape[0], model.n_bodies
    if res is None:
        zero = np.zeros_like(q)
        res = _run_kernel(model, np.arange(F, dtype=float), q, zero, zero, False, "")
    angles = q[:, 3:].reshape(F, N, 3)
    H = np.empty((F, N, 3, 3))
    for k, seq in enumerate(model.sequences):
        Hk = angle_rate_matrix(angles[:, k], seq, "parent")
        p = int(model.parent_index[k])
        H[:, k] = Hk if p < 0 else res.R[:, p] @ Hk
    return H


def generalized_forces(model: BodyModel, q: ArrayLike, joint_force: np.ndarray,
                       joint_moment: np.ndarray) -> np.ndarray:
    """Generalized forces from the joint loads: ``(f_1, H_1^T m_1, ..., H_k^T m_k, ...)``, (F, n).

    Parameters
    ----------
    model : BodyModel
    q : (F, n)  coordinates (for the joint axes)
    joint_force, joint_moment : (F, N, 3)  what each body receives from its parent (N, N m about O_k),
        ground axes (:func:`humanbody.mechanics.kinetics.joint_loads`)

    Returns
    -------
    ndarray, shape (F, n)
        N for the root translations, N m for every angle.
    """
    q = np.asarray(q, dtype=float).reshape(-1, 3 + 3 * model.n_bodies)
    H = _joint_axes(model, q)
    F, N = q.shape[0], model.n_bodies
    tau = np.empty((F, 3 + 3 * N))
    tau[:, :3] = joint_force[:, 0]
    tau[:, 3:] = np.einsum("fkij,fki->fkj", H, joint_moment).reshape(F, 3 * N)
    return tau


def _inverse(model, q, qd, qdd, gravity=True) -> np.ndarray:
    m = model if gravity else model.replace(gravity=[0.0, 0.0, 0.0])
    res = _run_kernel(m, np.arange(q.shape[0], dtype=float), q, qd, qdd, False, "")
    jl = joint_loads(m, res)
    return generalized_forces(model, q, jl.joint_force, jl.joint_moment)


def inverse_dynamics(model: BodyModel, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike) -> np.ndarray:
    """Generalized forces tau that produce accelerations ``qdd`` at ``(q, qd)``: ``M qdd + h``.

    Parameters
    ----------
    model : BodyModel
    q, qd, qdd : (n,) or (F, n)  coordinates (m, rad), their rates and accelerations

    Returns
    -------
    tau : (n,) or (F, n)  N for the root translations, N m for every angle.
    """
    (q, qd, qdd), single, shape = _arrays(model, q, qd, qdd)
    tau = _inverse(model, q, qd, qdd)
    return tau[0] if single else tau.reshape(shape)


def bias_forces(model: BodyModel, q: ArrayLike, qd: ArrayLike) -> np.ndarray:
    """``h(q, qd)``: Coriolis, centrifugal and gravity terms (the inverse dynamics at ``qdd = 0``).

    Parameters
    ----------
    model : BodyModel
    q, qd : array_like, shape (n,) or (F, n)
        Coordinates (m, rad) and their rates (m/s, rad/s).

    Returns
    -------
    ndarray, shape of ``q``
        N for the root translations, N m for every angle.
    """
    (q, qd), single, shape = _arrays(model, q, qd)
    tau = _inverse(model, q, qd, np.zeros_like(q))
    return tau[0] if single else tau.reshape(shape)


def mass_matrix(model: BodyModel, q: ArrayLike) -> np.ndarray:
    """The joint-space inertia matrix M(q), (n, n) or (F, n, n): symmetric, positive definite.

    The composite rigid body algorithm over the model's parent array
    (:func:`humanbody._kernels.mass_matrix.composite_mass_matrix`, equations in
    docs/dynamics.md), with each body's coordinates moving it about the axes
    ``R_L(k) H_k`` (ground components) through its joint point.  Units: kg
    (root translations), kg m (translation-rotation), kg m^2 (rotations).

    Parameters
    ----------
    model : BodyModel
    q : array_like, shape (n,) or (F, n)
        Coordinates (m, rad).

    Returns
    -------
    ndarray, shape (n, n) or (F, n, n)
    """
    (q,), single, shape = _arrays(model, q)
    F, n = q.shape
    zero = np.zeros_like(q)
    res = _run_kernel(model, np.arange(F, dtype=float), q, zero, zero, False, "")
    axes = np.ascontiguousarray(_joint_axes(model, q, res))
    M = np.empty((F, n, n))
    with threads_for(F):
        composite_mass_matrix(model.parent_index, np.ascontiguousarray(model.mass),
                              np.ascontiguousarray(model.inertia, dtype=float), res.R, res.joint, res.com, axes, M)
    return M[0] if single else M.reshape(shape[:-1] + (n, n))


def forward_dynamics(model: BodyModel, q: ArrayLike, qd: ArrayLike, tau: ArrayLike) -> np.ndarray:
    """Accelerations ``qdd = M^-1 (tau - h)`` at ``(q, qd)`` under generalized forces ``tau``.

    Parameters
    ----------
    model : BodyModel
    q, qd : array_like, shape (n,) or (F, n)
        Coordinates (m, rad) and their rates.
    tau : array_like, shape (n,) or (F, n)
        Generalized forces (N for the root translations, N m for the angles).

    Returns
    -------
    ndarray, shape of ``q``
        m/s^2 and rad/s^2 (Cholesky solve, frame by frame).
    """
    (q, qd, tau), single, shape = _arrays(model, q, qd, tau)
    M = mass_matrix(model, q).reshape(q.shape[0], q.shape[1], q.shape[1])
    rhs = tau - _inverse(model, q, qd, np.zeros_like(q))
    qdd = np.empty_like(q)
    for f in range(q.shape[0]):
        qdd[f] = cho_solve(cho_factor(M[f]), rhs[f])
    return qdd[0] if single else qdd.reshape(shape)

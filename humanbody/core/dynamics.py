"""Inverse dynamics and the mass matrix of any core model.

The generalized forces ``tau`` are conjugate to the coordinates' time
derivatives: for a coordinate driving joint axes a through functions f_a,
``tau_c = sum_a f_a'(q_c) (u_a . n_a)`` over its rotations (``n_a`` the moment the
body receives from its parent about the axis' point) plus ``f_a'(q_c) (u_a . f)``
over its translations; N for lengths, N m for angles.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import joint_tree as _k
from ..errors import InputError
from .data import Data
from .kinematics import forward_kinematics
from .model import Model

__all__ = ["inverse_dynamics", "joint_loads", "mass_matrix"]


def _external(model: Model, external: ArrayLike | None, F: int) -> np.ndarray:
    if external is None:
        return np.zeros((F, model.nbodies, 6))
    e = np.asarray(external, dtype=float)
    try:
        return np.ascontiguousarray(np.broadcast_to(e, (F, model.nbodies, 6)))
    except ValueError:
        raise InputError(f"external loads must have shape (frames, {model.nbodies}, 6), got {e.shape}") from None


def joint_loads(model: Model, data: Data, external: ArrayLike | None = None) -> tuple[np.ndarray, ...]:
    """Recursive Newton-Euler over ``data``'s motion: ``(force, moment, tau)``.

    Parameters
    ----------
    model : Model
        The tree, its inertias, gravity and couplers.
    data : Data
        A kinematics pass of ``model`` with rates and accelerations (:func:`forward_kinematics`).
    external : (F, B, 6) or (B, 6), optional  loads on each body: force (N) and
        moment (N m) about the body's origin, ground components

    Returns
    -------
    force, moment : (F, B, 3)  what each body receives from its parent, N and
        N m about the body's origin, ground components
    tau : (F, nq)
        Generalized forces (couplers folded into the independent coordinates)
    """
    c = model.compiled
    F = data.frames
    force, moment = np.empty((F, model.nbodies, 3)), np.empty((F, model.nbodies, 3))
    tau = np.empty((F, model.nq))
    _k.newton_euler(model.parents, c.astart, c.akind, c.acoord, model.mass, model.com, model.inertia,
                    model.gravity, data.R, data.origin, data.omega, data.alpha, data.acceleration,
                    data.axis_origin, data.axis_vector, data.axis_slope, _external(model, external, F),
                    force, moment, tau)
    for k in range(c.cdep.shape[0] - 1, -1, -1):
        d, i = c.cdep[k], c.cind[k]
        tau[:, i] += data.coupler_slope[:, k] * tau[:, d]
        tau[:, d] = 0.0
    return force, moment, tau


def inverse_dynamics(model: Model, q: ArrayLike, qd: ArrayLike, qdd: ArrayLike,
                     external: ArrayLike | None = None) -> np.ndarray:
    """Generalized forces that give accelerations ``qdd`` at ``(q, qd)`` under gravity and ``external``.

    Parameters
    ----------
    model : Model
        The tree, its inertias, gravity and couplers.
    q, qd, qdd : (F, nq) or (nq,)
        Coordinates (m, rad) and their derivatives
    external : (F, B, 6) or (B, 6), optional  loads on each body: force (N) and
        moment (N m) about the body's origin, ground components (:func:`joint_loads`)

    Returns
    -------
    tau : (F, nq) or (nq,)
        N for lengths, N m for angles
    """
    data = forward_kinematics(model, q, qd, qdd)
    tau = joint_loads(model, data, external)[2]
    return tau[0] if np.ndim(q) == 1 else tau


def mass_matrix(model: Model, q: ArrayLike) -> np.ndarray:
    """The joint-space inertia matrix ``M(q) = sum_b m_b J_Gb^T J_Gb + J_wb^T I_gb J_wb``.

    ``J_Gb`` is the Jacobian of body b's mass centre, ``J_wb`` of its angular
    velocity, ``I_gb = R I_b R^T``.  Computed by the composite rigid body
    algorithm over the joint axes
    (:func:`humanbody._kernels.joint_tree.composite_mass_matrix`), then the
    couplers folded in by the chain rule, last to first: ``M <- T^T M T``
    with ``T`` the identity plus ``f'`` at (dependent, independent) and the
    dependent column zeroed.

    Parameters
    ----------
    model : Model
        The tree, its inertias and couplers.
    q : (F, nq) or (nq,) array_like
        Coordinates (m, rad).

    Returns
    -------
    (F, nq, nq) or (nq, nq) ndarray
        kg, kg m, kg m^2 by the coordinates' units; symmetric, positive definite
        for a model whose every coordinate moves a mass (a coupler's dependent
        coordinate has a zero row and column).
    """
    data = forward_kinematics(model, q)
    c = model.compiled
    M = np.empty((data.frames, model.nq, model.nq))
    _k.composite_mass_matrix(model.parents, c.astart, c.akind, c.acoord, model.mass, model.com, model.inertia,
                             data.R, data.origin, data.axis_origin, data.axis_vector, data.axis_slope, M)
    for k in range(c.cdep.shape[0] - 1, -1, -1):
        d, i = c.cdep[k], c.cind[k]
        s = data.coupler_slope[:, k]
        M[:, :, i] += s[:, None] * M[:, :, d]
        M[:, i, :] += s[:, None] * M[:, d, :]
        M[:, :, d] = 0.0
        M[:, d, :] = 0.0
    return M[0] if np.ndim(q) == 1 else M

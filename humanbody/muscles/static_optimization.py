"""Static optimization as OpenSim states it: the activations that reproduce the generalised forces at least cost.

At every frame ``f``, with muscles ``i`` (capacity ``F_i`` (N) at activation 1,
moment arms ``r_ij`` (m) on coordinate ``j``) and coordinate actuators ``k``
(optimal force ``F_k`` on coordinate ``c_k``):

    minimise   sum_i a_i^p + sum_k u_k^p
    subject to sum_i a_i F_i r_ij + P_ij + sum_{k: c_k = j} u_k F_k = tau_j   for every coordinate j,
               min_control <= a, u <= max_control,

``tau`` the inverse-dynamics generalised forces (N·m or N) and ``P_ij`` the
generalised forces of passive fibre forces when they are included (OpenSim's
StaticOptimization overrides each muscle's force by ``a_i F_i``, so its
optimum has none: ``passive=None`` is OpenSim's problem).  The cost and the
bounds are OpenSim's StaticOptimizationTarget's: every actuator, reserves
included, weighs ``|control|^p``.  :mod:`humanbody._kernels.static_opt`
solves it exactly per frame (p = 2 is a convex QP).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._kernels.static_opt import static_optimization as _solve
from .reserves import Reserves

MAX_ITER = 200


@dataclass(frozen=True)
class Optimum:
    """The optimum of every frame.

    Attributes
    ----------
    controls : (F, M + K) muscle activations then reserve controls.
    forces : (F, M + K) actuator forces: ``a_i F_i`` (N, along the tendon) then ``u_k F_k`` (N·m or N).
    iterations : (F,) Newton iterations, -1 where the constraints could not be met within the bounds.
    residual : (F, C) ``A x - tau`` (N·m or N): zero to rounding where the frame was solved.
    """

    controls: np.ndarray
    forces: np.ndarray
    iterations: np.ndarray
    residual: np.ndarray


def actuator_forces(capacity: np.ndarray, moment_arms: np.ndarray, reserves: Reserves) -> np.ndarray:
    """(F, M + K, C): the generalised forces of each actuator at control 1 (``A`` of the constraints, each
    frame's transposed: an actuator's row is contiguous, as the kernel reads it).

    Parameters
    ----------
    capacity : numpy.ndarray
        (F, M) muscle capacity (N) at activation 1.
    moment_arms : numpy.ndarray
        (F, M, C) moment arms (m; dimensionless on translational coordinates).
    reserves : the reserve actuators (coordinate index and optimal force each; their ``directions``
        (F, K, C) per unit force when some are point or torque actuators).

    Returns
    -------
    numpy.ndarray
        (F, M + K, C) generalised force (N·m or N) of each actuator at control 1.
    """
    nf, nm, nc = moment_arms.shape
    At = np.zeros((nf, nm + len(reserves.names), nc))
    np.multiply(moment_arms, capacity[:, :, None], out=At[:, :nm])
    if reserves.directions is not None:  # point and torque actuators: their generalised force, frame by frame
        At[:, nm:] = reserves.directions * np.asarray(reserves.optimal_force)[:, None]
        return At
    for k, (j, force) in enumerate(zip(reserves.coordinates, reserves.optimal_force, strict=True)):
        At[:, nm + k, j] = force
    return At


def constraint_matrix(capacity: np.ndarray, moment_arms: np.ndarray, reserves: Reserves) -> np.ndarray:
    """``A`` (F, C, M + K): the generalised force of each actuator at control 1 (a view of
    :func:`actuator_forces`, whose parameters it takes).

    Parameters
    ----------
    capacity : numpy.ndarray
        (F, M) muscle capacity (N) at activation 1.
    moment_arms : numpy.ndarray
        (F, M, C) moment arms (m).
    reserves : Reserves
        The reserve actuators.

    Returns
    -------
    numpy.ndarray
        (F, C, M + K) the constraints' ``A`` (N·m or N per unit control).
    """
    return np.transpose(actuator_forces(capacity, moment_arms, reserves), (0, 2, 1))


def solve(capacity: np.ndarray, moment_arms: np.ndarray, generalized_forces: np.ndarray, reserves: Reserves,
          min_control: np.ndarray, max_control: np.ndarray, exponent: float = 2.0,
          passive: np.ndarray | None = None, threads: int | None = None) -> Optimum:
    """Solve static optimization at every frame.

    Parameters
    ----------
    capacity : numpy.ndarray
        (F, M) active muscle force (N) at activation 1 (:mod:`humanbody.muscles.capacity`).
    moment_arms : numpy.ndarray
        (F, M, C) moment arms (m) on the coordinates that take part.
    generalized_forces : numpy.ndarray
        (F, C) inverse-dynamics generalised forces ``tau`` (N·m or N).
    reserves : Reserves
        Coordinate actuators with their optimal forces and control bounds.
    min_control, max_control : numpy.ndarray
        (M,) muscle activation bounds.
    exponent : float
        The cost's ``p`` (OpenSim's ``activation_exponent``, default 2).
    passive : numpy.ndarray, optional
        (F, M) passive fibre forces (N) along the tendon, moved to the right-hand side.
    threads : int, optional
        Chunks of frames solved in parallel (default: numba's thread count).

    Returns
    -------
    Optimum
        Activations, forces, iterations and residuals per frame.
    """
    import numba  # lazy: the thread count only

    capacity = np.ascontiguousarray(capacity, dtype=float)
    moment_arms = np.ascontiguousarray(moment_arms, dtype=float)
    tau = np.ascontiguousarray(generalized_forces, dtype=float)
    if passive is not None:
        tau = tau - np.einsum("fm,fmc->fc", passive, moment_arms)
    At = actuator_forces(capacity, moment_arms, reserves)
    lo = np.concatenate([np.asarray(min_control, float), reserves.min_control])
    hi = np.concatenate([np.asarray(max_control, float), reserves.max_control])
    tol = 1e-11 * (1.0 + np.abs(tau).max(axis=1))
    chunks = max(1, min(len(tau), threads or numba.get_num_threads()))
    x, iterations = _solve(At, tau, float(exponent), lo, hi, tol, MAX_ITER, chunks)
    scale = np.concatenate([capacity, np.broadcast_to(reserves.optimal_force, (len(x), len(reserves.names)))], axis=1)
    residual = np.einsum("fnc,fn->fc", At, x) - tau
    return Optimum(controls=x, forces=x * scale, iterations=iterations, residual=residual)

"""Root trajectory adjusted so that the body's momentum rates match the measured loads (the second half of
residual reduction).

Every coordinate but the root's is relative to its parent, so a change of
the root's pose moves the whole body rigidly about O_1: a translation
``u(t)`` and a small rotation ``theta(t)`` (a rotation vector in ground axes)
give every body point ``p' = O_1 + u + E(theta) (p - O_1)`` and leave every
joint angle as tracked.  The residual of frame t is a function of the
root's pose, velocity and acceleration there; linearised about the current
trajectory,

    r_t(x) ~ r_t + Jq_t x_t + Jv_t (D1 x)_t + Ja_t (D2 x)_t,     x_t = (u_t, theta_t)

with D1, D2 the central first and second differences over the frames and
the 6 x 6 blocks Jq, Jv, Ja found by finite differences of the project's
kinetic kernel (Ja is exact: the residual is linear in the accelerations).
:func:`track_root` solves the penalised least squares

    min_x  sum_t w_t |N (r_t + ...)|^2 + beta sum_t (|u_t| / s_u)^2 + (|theta_t| / s_theta)^2
           + sum_t (1 - w_t) |N Ja_t (D2 x)_t|^2

(N divides force rows by F_pk and moment rows by h F_pk; w_t = 1 on frames
whose contacts are all measured; on the others the dynamics are left as
they were: no change of the root's acceleration there), a sparse linear
system of 6F unknowns, solved twice, the second time about the first
solution with the first linearisation's blocks (a chord Gauss-Newton step).  ``beta`` is the smallest of a
geometric ladder for which the body's points move at most
:data:`POINT_RMS` RMS and :data:`POINT_MAX` at most and the root turns at
most :data:`ANGLE_RMS` RMS: the kinematics stay within the tracking's
criteria, and what the residual needs beyond them stays in it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import spsolve
from scipy.spatial.transform import Rotation

from ..rotations import euler_to_matrix, matrix_to_euler
from .kinematics import compute_motion
from .residuals import ExternalLoads, root_residual

if TYPE_CHECKING:
    from .kinematics import Motion

__all__ = ["RootChange", "apply_root_change", "track_root", "point_motion", "POINT_RMS", "POINT_MAX", "ANGLE_RMS"]

#: Limits the adjustment keeps (m, m, deg): below OpenSim's 2 cm RMS / 4 cm and 2 deg RMS, with a margin.
POINT_RMS = 0.015
POINT_MAX = 0.035
ANGLE_RMS = 1.5
#: Penalty scales: 1 cm and 1 deg.
S_U = 0.01
S_THETA = np.radians(1.0)
#: Finite-difference steps (m, rad; and per second, per second squared).
STEP = 1e-5
#: Ladder of penalty weights tried, smallest first.
BETAS = np.geomspace(1e-8, 1e4, 37)


@dataclass(eq=False)
class RootChange:
    """The root's translation u (F, 3) m and rotation vector theta (F, 3) rad with their rates."""

    u: np.ndarray
    ud: np.ndarray
    udd: np.ndarray
    th: np.ndarray
    thd: np.ndarray
    thdd: np.ndarray

    @classmethod
    def zero(cls, F: int) -> RootChange:
        """No change over ``F`` frames: every array zeros (F, 3).

        Parameters
        ----------
        F : int
            Number of frames.

        Returns
        -------
        RootChange
            Zero translation u (m), rotation theta (rad) and their rates.
        """
        return cls(*(np.zeros((F, 3)) for _ in range(6)))

    @classmethod
    def from_samples(cls, x: np.ndarray, D1, D2) -> RootChange:
        """From samples x (F, 6) = (u, theta) with rates by the difference operators.

        Parameters
        ----------
        x : ndarray, shape (F, 6)
            u (m) and theta (rad) per frame.
        D1, D2 : scipy.sparse matrix, shape (F, F)
            First and second difference operators over the frames (per s, per s^2).

        Returns
        -------
        RootChange
            u, theta and their first and second rates (m, rad; per s, per s^2).
        """
        d1, d2 = D1 @ x, D2 @ x
        return cls(x[:, :3], d1[:, :3], d2[:, :3], x[:, 3:], d1[:, 3:], d2[:, 3:])


def _rotvec_matrix(th: np.ndarray) -> np.ndarray:
    return Rotation.from_rotvec(th).as_matrix()


def apply_root_change(model, motion, change: RootChange):
    """The motion with the root moved by ``change`` (module docstring); a new :class:`Motion`.

    Marker trials carry the root's angular velocity and its rate in ground
    axes (``local_rates``): ``omega' = theta_dot + E omega``, ``alpha' =
    theta_ddot + E alpha + theta_dot x E omega`` (the rotation's own rates
    taken as theta's, exact to first order in theta), and the angles those of
    ``E S_01``.  A trial with angle rates (``local_rates`` False) takes
    ``theta`` as increments of the root's three angles.

    Parameters
    ----------
    model : BodyModel
        The body model.
    motion : Motion
        The tracked motion (coordinates and their rates).
    change : RootChange
        The root's translation u (m, ground axes) and rotation vector theta (rad) per frame, with their rates.

    Returns
    -------
    Motion
        The moved motion (the input is unchanged).
    """
    q, qd, qdd = motion.q.copy(), motion.qd.copy(), motion.qdd.copy()
    q[:, :3] += change.u
    qd[:, :3] += change.ud
    qdd[:, :3] += change.udd
    if not motion.local_rates:
        q[:, 3:6] += change.th
        qd[:, 3:6] += change.thd
        qdd[:, 3:6] += change.thdd
    else:
        seq = model.sequences[0]
        E = _rotvec_matrix(change.th)
        S = euler_to_matrix(motion.q[:, 3:6], seq)
        new = matrix_to_euler(E @ S, seq)
        q[:, 3:6] = motion.q[:, 3:6] + (new - motion.q[:, 3:6] + np.pi) % (2 * np.pi) - np.pi
        om = np.einsum("fij,fj->fi", E, motion.qd[:, 3:6])
        qd[:, 3:6] = change.thd + om
        qdd[:, 3:6] = change.thdd + np.einsum("fij,fj->fi", E, motion.qdd[:, 3:6]) + np.cross(change.thd, om)
    return replace(motion, q=q, qd=qd, qdd=qdd)


def point_motion(points: np.ndarray, O1: np.ndarray, change: RootChange) -> np.ndarray:
    """Distance (F, P) m each body point ``points`` (F, P, 3) moves under ``change`` (O_1: (F, 3)).

    Parameters
    ----------
    points : ndarray, shape (F, P, 3), m
        Body points (markers, joint or mass centres), ground axes.
    O1 : ndarray, shape (F, 3), m
        The root's origin, about which theta turns the points.
    change : RootChange
        The root's change per frame.

    Returns
    -------
    ndarray, shape (F, P), m
        How far each point moves.
    """
    E = _rotvec_matrix(change.th)
    rel = points - O1[:, None]
    moved = np.einsum("fij,fpj->fpi", E, rel) - rel + change.u[:, None]
    return np.linalg.norm(moved, axis=2)


def _differences(time: np.ndarray):
    """Sparse central first and second differences (F, F) over frames ``time`` (one-sided at the ends)."""
    F = time.size
    h = float(np.median(np.diff(time))) if F > 1 else 1.0
    if F < 4:
        return sparse.csr_matrix((F, F)), sparse.csr_matrix((F, F))
    i = np.arange(1, F - 1)
    # second-order one-sided differences at the ends, so the end frames have their own accelerations
    rows = np.concatenate([i, i, [0, 0, 0, F - 1, F - 1, F - 1]])
    cols = np.concatenate([i - 1, i + 1, [0, 1, 2, F - 1, F - 2, F - 3]])
    vals = np.concatenate([np.full(F - 2, -0.5), np.full(F - 2, 0.5), [-1.5, 2.0, -0.5, 1.5, -2.0, 0.5]]) / h
    D1 = sparse.csr_matrix((vals, (rows, cols)), shape=(F, F))
    rows2 = np.concatenate([i, i, i, np.repeat([0, F - 1], 4)])
    cols2 = np.concatenate([i - 1, i, i + 1, [0, 1, 2, 3, F - 1, F - 2, F - 3, F - 4]])
    vals2 = np.concatenate([np.ones(F - 2), np.full(F - 2, -2.0), np.ones(F - 2), [2, -5, 4, -1, 2, -5, 4, -1]]) / h ** 2
    D2 = sparse.csr_matrix((vals2, (rows2, cols2)), shape=(F, F))
    return D1, D2


def _residual_of(model, motion, ext, change: RootChange):
    res = compute_motion(model, apply_root_change(model, motion, change))
    f1, m1 = root_residual(model, res, ext)
    return np.concatenate([f1, m1], axis=1)


def _jacobians(model, motion, ext, change: RootChange, base: np.ndarray):
    """Blocks Jq, Jv, Ja (F, 6, 6) of the residual's change per unit of x, its rate and its acceleration.

    The 18 perturbed motions go through the kernel as one motion of 18 F frames (every frame is evaluated on
    its own), one call instead of 18.
    """
    F = base.shape[0]
    names = (("u", "th"), ("ud", "thd"), ("udd", "thdd"))
    moved = []
    for pair in names:
        for col in range(6):
            field, axis = pair[col // 3], col % 3
            one = replace(change, **{field: getattr(change, field).copy()})
            getattr(one, field)[:, axis] += STEP
            moved.append(apply_root_change(model, motion, one))
    stacked = replace(motion, time=np.tile(motion.time, len(moved)), q=np.concatenate([m.q for m in moved]),
                      qd=np.concatenate([m.qd for m in moved]), qdd=np.concatenate([m.qdd for m in moved]))
    ext_all = ExternalLoads(np.tile(ext.force, (len(moved), 1)), np.tile(ext.moment_o, (len(moved), 1)))
    f1, m1 = root_residual(model, compute_motion(model, stacked), ext_all)
    r = np.concatenate([f1, m1], axis=1).reshape(len(moved), F, 6)
    J = (r - base[None]) / STEP  # (18, F, 6): perturbation, frame, residual row
    return J.reshape(3, 6, F, 6).transpose(0, 2, 3, 1)


@dataclass(eq=False)
class RootTracking:
    """The adjusted motion, the change, and the penalty weight chosen."""

    motion: Motion
    change: RootChange
    beta: float
    iterations: int


def track_root(model, motion, ext, mask, scale_force: float, scale_moment: float, points, iterations: int = 2,
               ) -> RootTracking:
    """The root's trajectory adjusted (module docstring).

    Parameters
    ----------
    model : BodyModel
        The body model.
    motion : Motion
        The tracked motion (its rates as the rates stage gave them).
    ext : ExternalLoads
        The summed measured loads on the motion's frames (N, N m, ground axes).
    mask : ndarray of bool, shape (F,)
        The frames whose contacts are all measured.
    scale_force, scale_moment : float
        F_pk (N) and h F_pk (N m): the residual force and moment are divided by them.
    points : ndarray, shape (F, P, 3), m
        Body points whose motion is limited (markers, or joint and mass centres), ground axes.
    iterations : int
        Linearisations of the residual (Gauss-Newton steps).

    Returns
    -------
    RootTracking
        The adjusted motion, the change, the penalty weight beta and the iterations done.
    """
    F = motion.n_frames
    D1, D2 = _differences(np.asarray(motion.time, dtype=float))
    I6 = sparse.identity(6, format="csr")
    K1, K2 = sparse.kron(D1, I6, format="csr"), sparse.kron(D2, I6, format="csr")
    norm = np.array([scale_force] * 3 + [scale_moment] * 3)
    w = np.asarray(mask, dtype=float)
    x = np.zeros(F * 6)
    change = RootChange.zero(F)
    prior = sparse.diags(np.tile(np.array([1 / S_U ** 2] * 3 + [1 / S_THETA ** 2] * 3), F))
    O1 = np.asarray(motion.q[:, :3], dtype=float)
    beta = BETAS[-1]
    done = 0
    for it in range(iterations):
        base = _residual_of(model, motion, ext, change)
        rn = np.nan_to_num(base / norm)
        if it == 0:  # the blocks of the first linearisation serve every iteration (a chord method)
            Jq, Jv, Ja = np.nan_to_num(_jacobians(model, motion, ext, change, base) / norm[None, None, :, None])

            def block(J, weight):
                return sparse.bsr_matrix((J * weight[:, None, None], np.arange(F), np.arange(F + 1)),
                                         shape=(6 * F, 6 * F))

            A = block(Jq, w) + block(Jv, w) @ K1 + block(Ja, w) @ K2
            B = block(Ja, 1.0 - w) @ K2  # unmeasured frames: the root's acceleration kept
        rhs0 = (rn * w[:, None]).ravel()
        # linearised about x: r(x') ~ r + A (x' - x)
        AtA = (A.T @ A).tocsc()
        b = AtA @ x - A.T @ rhs0
        AtA = (AtA + B.T @ B).tocsc()
        if it == 0:
            beta = _choose_beta(AtA, b, prior, points, O1, D1, D2, F)
        x_next = spsolve((AtA + beta * prior).tocsc(), b)
        if it > 0 and not _within(x_next, points, O1, D1, D2, F):
            # the step about the first solution went past the limits (running: flight phases and impacts make
            # the residual far from linear in the root's pose): the penalty is raised until it keeps them
            beta = _choose_beta(AtA, b, prior, points, O1, D1, D2, F, start=beta)
            x_next = spsolve((AtA + beta * prior).tocsc(), b)
        x = x_next
        change = RootChange.from_samples(x.reshape(F, 6), D1, D2)
        done = it + 1
    return RootTracking(apply_root_change(model, motion, change), change, float(beta), done)


def _within(x: np.ndarray, points, O1, D1, D2, F) -> bool:
    """Whether the change ``x`` (6 F,) keeps the points within :data:`POINT_RMS` and :data:`POINT_MAX` and the
    root's turn within :data:`ANGLE_RMS`."""
    change = RootChange.from_samples(x.reshape(F, 6), D1, D2)
    d = point_motion(points, O1, change)
    d = d[np.isfinite(d)]
    angle = np.degrees(np.sqrt(np.mean(np.sum(change.th ** 2, axis=1))))
    return bool((d.size == 0 or (np.sqrt(np.mean(d ** 2)) <= POINT_RMS and d.max() <= POINT_MAX))
                and angle <= ANGLE_RMS)


def _choose_beta(AtA, b, prior, points, O1, D1, D2, F, start: float | None = None) -> float:
    """The smallest penalty of :data:`BETAS` (above ``start`` when given) whose change keeps the points and the
    root's angle within the limits.

    The change shrinks as the penalty grows, so the ladder is bisected (six solves for 37 rungs).
    """
    def within(beta) -> bool:
        return _within(spsolve((AtA + beta * prior).tocsc(), b), points, O1, D1, D2, F)

    lo = -1 if start is None else int(np.searchsorted(BETAS, start * (1 + 1e-9)) - 1)
    hi = len(BETAS) - 1  # BETAS[hi] is taken when nothing smaller keeps the limits
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if within(BETAS[mid]):
            hi = mid
        else:
            lo = mid
    return float(BETAS[hi])

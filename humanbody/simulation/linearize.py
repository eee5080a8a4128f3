"""Linearisation of a simulated system about an equilibrium: ``M d'' + C d' + K d = b_z z + b_v z'``.

The perturbation ``d`` (n) is the root's displacement in ground (m) and, for
every body, the small rotation ``dphi_k`` of its orientation relative to its
parent, in the parent's axes: ``e_k = exp(dphi_k) (x) e0_k``; to first order
``dphi_k' = w_k``, the generalized speed of :mod:`humanbody.simulation.forward`, so
the same mass matrix applies.  With ``G(d, u, z, z') = tau_u - b`` the
generalized forces of :meth:`humanbody.simulation.forward.System.evaluate` (joint
torques, springs, dampers, gravity, contacts with the base at ``z``):

- ``M = M_u(q0)``;
- ``K = -dG/dd`` (joint and contact stiffness plus gravity's geometric
  stiffness), ``C = -dG/du``, ``b_z = dG/dz``, ``b_v = dG/dz'``,

by central differences (step 1e-6 m or rad; checked against closed forms in
tests/simulation/test_vibration.py).  Locked bodies keep their orientation and are left
out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd
from scipy.linalg import eig, solve

from ..rotations.quaternions import quaternion_product, rotation_vector_to_quaternion

if TYPE_CHECKING:
    from .forward import System

__all__ = ["Linearization", "linearize", "perturb", "modes", "frequency_response", "point_sensitivity"]


def perturb(system, y0, d, u=None) -> np.ndarray:
    """The state at perturbation ``d`` (n,) and speeds ``u`` (n,) from the state ``y0``.

    Parameters
    ----------
    system : System
        The simulated system (:class:`humanbody.simulation.forward.System`).
    y0 : ndarray, shape (S,)
        The state perturbed (its speeds are replaced).
    d : array_like, shape (n,)
        Root translation (m), then each body's rotation vector (rad, parent axes).
    u : array_like, shape (n,), optional
        Speeds (default zero).

    Returns
    -------
    ndarray, shape (S,)
        The perturbed state vector (root origin m, Euler parameters, speeds).
    """
    x, e, _ = system.split(y0)
    N = system.N
    d = np.asarray(d, dtype=float)
    e1 = quaternion_product(rotation_vector_to_quaternion(d[3:].reshape(N, 3)), e)
    u = np.zeros(system.n) if u is None else np.asarray(u, dtype=float)
    return np.concatenate([x + d[:3], e1.ravel(), u])


@dataclass
class Linearization:
    """The linear equations about an equilibrium, on the free coordinates.

    Attributes
    ----------
    M, C, K : (m, m)  mass (kg, kg m, kg m^2), damping and stiffness matrices
    bz, bv : (m,)  generalized forces per unit base displacement (per m) and velocity (per m/s)
    free : (n,) bool  the coordinates kept (bodies not locked)
    system, y0 : the system and its equilibrium state
    residual : float  largest generalized force left at the equilibrium (N or N m)
    """

    M: np.ndarray
    C: np.ndarray
    K: np.ndarray
    bz: np.ndarray
    bv: np.ndarray
    free: np.ndarray
    system: System
    y0: np.ndarray
    residual: float

    def names(self) -> list[str]:
        """Names of the free coordinates: ``lower_torso_x .. _z``, then ``<body>_rx/_ry/_rz`` (parent axes).

        Returns
        -------
        list of str
            The n free coordinates' names, in the matrices' order.
        """
        model = self.system.model
        cols = [f"{model.names[0]}_{a}" for a in "xyz"]
        for name in model.names:
            cols += [f"{name}_r{a}" for a in "xyz"]
        return [c for c, f in zip(cols, self.free, strict=True) if f]


def unbalanced_forces(system, y0, d, u, z, v):
    """``M u'`` (= applied - bias forces) at the perturbed state, with the base at height ``z`` moving at ``v``.

    Parameters
    ----------
    system : System
        The simulated system.
    y0 : ndarray
        The equilibrium state.
    d, u : ndarray, shape (n,)
        Perturbation and speeds (:func:`perturb`).
    z : float
        Height of the moving base (m).
    v : float
        Its vertical velocity (m/s).

    Returns
    -------
    forces : ndarray, shape (n,)
        Applied minus bias forces on the free coordinates (the locked ones are held at zero acceleration).
    evaluation : dict
        :meth:`System.evaluate`'s.
    """
    y = perturb(system, y0, d, u)
    old = system.base
    system.base = lambda t: (z, v)
    try:
        ev = system.evaluate(0.0, y)
    finally:
        system.base = old
    return ev["M"] @ ev["udot"], ev  # = applied - b on the free coordinates (locked ones: 0 acceleration)


def linearize(system, y0, h: float = 1e-6) -> Linearization:
    """Mass, damping and stiffness matrices and the base inputs at the equilibrium ``y0`` (speeds zero).

    Parameters
    ----------
    system : System
        The simulated system.
    y0 : ndarray, shape (S,)
        The equilibrium state (speeds zero).
    h : float
        Step of the central differences.

    Returns
    -------
    Linearization
        The mass, damping and stiffness matrices (m, m) of the free coordinates and the generalized forces per unit base displacement and velocity, about ``y0``.
    """
    n = system.n
    free = system.free
    idx = np.nonzero(free)[0]
    zero = np.zeros(n)
    g0, ev = unbalanced_forces(system, y0, zero, zero, 0.0, 0.0)
    m = len(idx)
    K, C = np.empty((m, m)), np.empty((m, m))
    for j, i in enumerate(idx):
        e = np.zeros(n)
        e[i] = h
        K[:, j] = -(unbalanced_forces(system, y0, e, zero, 0.0, 0.0)[0] - unbalanced_forces(system, y0, -e, zero, 0.0, 0.0)[0])[idx] / (2 * h)
        C[:, j] = -(unbalanced_forces(system, y0, zero, e, 0.0, 0.0)[0] - unbalanced_forces(system, y0, zero, -e, 0.0, 0.0)[0])[idx] / (2 * h)
    bz = (unbalanced_forces(system, y0, zero, zero, h, 0.0)[0] - unbalanced_forces(system, y0, zero, zero, -h, 0.0)[0])[idx] / (2 * h)
    bv = (unbalanced_forces(system, y0, zero, zero, 0.0, h)[0] - unbalanced_forces(system, y0, zero, zero, 0.0, -h)[0])[idx] / (2 * h)
    M = ev["M"][np.ix_(idx, idx)]
    residual = float(np.abs(g0[idx]).max())
    return Linearization(M, C, K, bz, bv, free.copy(), system, np.asarray(y0, dtype=float), residual)


def modes(lin: Linearization, count: int | None = None):
    """Natural frequencies, damping ratios and mode shapes from the eigenvalues of the state matrix.

    ``A = [[0, I], [-M^-1 K, -M^-1 C]]``; each complex pair ``lambda = -zeta w_n +- i w_n sqrt(1 - zeta^2)``
    gives ``f_n = |lambda| / 2 pi`` (Hz) and ``zeta = -Re(lambda) / |lambda|``; overdamped and rigid-body
    (zero) roots are left out.

    Parameters
    ----------
    lin : Linearization
        The linear equations (:func:`linearize`).
    count : int, optional
        The most modes kept (lowest frequencies first).

    Returns
    -------
    table : DataFrame
        ``frequency_hz``, ``damping_ratio``, ``dominant`` (the largest components of the shape)
    shapes : (modes, m) complex
        Displacement shapes, largest component 1
    """
    m = len(lin.M)
    A = np.zeros((2 * m, 2 * m))
    A[:m, m:] = np.eye(m)
    A[m:, :m] = -solve(lin.M, lin.K, assume_a="pos")
    A[m:, m:] = -solve(lin.M, lin.C, assume_a="pos")
    lam, V = eig(A)
    keep = lam.imag > 1e-6 * np.maximum(1.0, np.abs(lam))
    lam, V = lam[keep], V[:m, keep]
    order = np.argsort(np.abs(lam))
    lam, V = lam[order], V[:, order]
    shapes = V / V[np.argmax(np.abs(V), axis=0), np.arange(V.shape[1])]
    names = lin.names()
    dom = []
    for s in shapes.T:
        top = np.argsort(-np.abs(s))[:3]
        dom.append(", ".join(f"{names[i]} {abs(s[i]):.2f}" for i in top if abs(s[i]) >= 0.1))
    table = pd.DataFrame({"frequency_hz": np.abs(lam) / (2 * np.pi), "damping_ratio": -lam.real / np.abs(lam),
                          "dominant": dom})
    if count is not None:
        table, shapes = table.iloc[:count], shapes[:, :count]
    return table, shapes.T


def frequency_response(lin: Linearization, freqs_hz) -> np.ndarray:
    """Displacement of the free coordinates per unit base displacement, (F, m) complex.

    ``(K - w^2 M + i w C) X = b_z + i w b_v`` at ``w = 2 pi f``.

    Parameters
    ----------
    lin : Linearization
        The linear equations (:func:`linearize`).
    freqs_hz : array_like, shape (F,)
        Frequencies of the base motion (Hz).

    Returns
    -------
    ndarray of complex, shape (F, m)
        The free coordinates' complex amplitudes per unit base displacement (rad/m or m/m) at each frequency.
    """
    w = 2 * np.pi * np.asarray(freqs_hz, dtype=float)
    out = np.empty((len(w), len(lin.M)), dtype=complex)
    for i, wi in enumerate(w):
        out[i] = np.linalg.solve(lin.K - wi * wi * lin.M + 1j * wi * lin.C, lin.bz + 1j * wi * lin.bv)
    return out


def point_sensitivity(lin: Linearization, body: int, point) -> np.ndarray:
    """``dp/dd``: displacement of a point fixed in ``body`` per unit perturbation of each free coordinate, (3, m).

    To first order a perturbation ``d`` moves the point as the speeds ``u = d``
    would in unit time, so this is the point's speed Jacobian at the
    equilibrium (:meth:`humanbody.simulation.forward.System.speed_jacobian`,
    analytic): ``e`` for the root's translation along ground axis ``e`` and
    ``e x (p - O_k)`` for a rotation of an ancestor k about its parent's axis ``e``.

    Parameters
    ----------
    lin : Linearization
        The linear equations (their system and equilibrium).
    body : int
        The body the point is fixed on (0-based).
    point : array_like, shape (3,)
        The point in the body's frame, from its joint point O_k (m).

    Returns
    -------
    ndarray, shape (3, m)
        m per m (root translations) and m per rad (rotations), columns of the free coordinates.
    """
    system = lin.system
    x, e, _ = system.split(lin.y0)
    q = np.concatenate([x, system.angles(e).ravel()])[None]
    data, axes = system.kinematics(q, np.zeros_like(q))
    J = system.speed_jacobian(data, axes, [body], np.asarray(point, dtype=float)[None])
    return J[0, 0][:, lin.free]

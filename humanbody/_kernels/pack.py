"""Numba kernels that lay the mechanics out for output (arrays in, arrays out).

The inertia dyadics in ground components and the rows of the results table,
from the arrays :func:`humanbody._kernels.tree.tree_kinematics` and the kinetics
filled.  Both form ``R I R^T`` by the same inline product
(:func:`_ground_component`), so the table holds bit for bit the values of
:func:`ground_inertia`.  Kernels are cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb

_CACHE = True


@nb.njit(cache=_CACHE, inline="always", fastmath={"contract"})
def _ground_component(R, inertia, f, k, i, j):
    """Component (i, j) of ``R I R^T`` for body k at frame f: sum_a R[i, a] (I R^T)[a, j]."""
    v = 0.0
    for a in range(3):
        t = inertia[k, a, 0] * R[f, k, j, 0] + inertia[k, a, 1] * R[f, k, j, 1] + inertia[k, a, 2] * R[f, k, j, 2]
        v += R[f, k, i, a] * t
    return v


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def ground_inertia(R, inertia, out):
    """Inertia dyadics in ground components, ``I_g = R I R^T``.

    Parameters
    ----------
    R : ndarray, shape (F, n, 3, 3), float64
        Absolute orientation of each body in each frame (ground components = ``R`` . body components).
    inertia : ndarray, shape (n, 3, 3), float64
        Each body's inertia about its mass centre, in body components (kg m^2).
    out : ndarray, shape (F, n, 3, 3), float64
        Written: the inertia about the mass centre in ground components (kg m^2); exactly symmetric
        (the upper triangle is computed and mirrored).
    """
    F, n = R.shape[0], R.shape[1]
    for f in nb.prange(F):
        for k in range(n):
            for i in range(3):
                for j in range(i, 3):
                    v = _ground_component(R, inertia, f, k, i, j)
                    out[f, k, i, j] = v
                    out[f, k, j, i] = v


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})  # as ground_inertia: the same fused products
def pack_rows(time, coords, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
              R, inertia, iu_i, iu_j, body_com, body_com_vel, body_com_acc, out):
    """One row of the results table per frame (docs/conventions.md column order), in parallel.

    ``time``, the coordinates, then per segment the nine vector quantities
    (omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque)
    and the six inertia components ``(iu_i[p], iu_j[p])`` of ``R I R^T``
    (computed as :func:`ground_inertia` computes them, so bit for bit its
    values), then the whole-body mass centre, its velocity and acceleration.

    Parameters
    ----------
    time : ndarray, shape (F,), float64
        Time of each frame (s).
    coords : ndarray, shape (F, c), float64
        The generalized coordinates, copied as they are.
    omega_rel, omega : ndarray, shape (F, n, 3), float64
        Angular velocity of each segment relative to its parent, and absolute (rad/s).
    alpha : ndarray, shape (F, n, 3), float64
        Absolute angular acceleration (rad/s^2).
    joint : ndarray, shape (F, n, 3), float64
        Position of each segment's joint point (m).
    com, com_vel, com_acc : ndarray, shape (F, n, 3), float64
        Each segment's mass centre position (m), velocity (m/s) and acceleration (m/s^2).
    force, torque : ndarray, shape (F, n, 3), float64
        Each segment's inertia force (N) and inertia torque (N m).
    R : ndarray, shape (F, n, 3, 3), float64
        Absolute orientation of each segment (ground = ``R`` . body), as :func:`ground_inertia`.
    inertia : ndarray, shape (n, 3, 3), float64
        Each segment's inertia about its mass centre in body components (kg m^2).
    iu_i, iu_j : ndarray, shape (p,), int64
        Row and column (0-based) of each inertia component written per segment, in column order
        (the six of ``INERTIA_COMPONENTS``: xx, yy, zz, xy, xz, yz); either order of a pair gives
        the same, symmetric value.
    body_com, body_com_vel, body_com_acc : ndarray, shape (F, 3), float64
        The whole-body mass centre (m), its velocity (m/s) and acceleration (m/s^2).
    out : ndarray, shape (F, 1 + c + (27 + p) n + 9), float64
        Written, every entry: one row per frame in the order above (``1 + c + 33 n + 9`` columns
        with the six inertia components).
    """
    F, n = R.shape[0], R.shape[1]
    nc = coords.shape[1]
    for f in nb.prange(F):
        out[f, 0] = time[f]
        for j in range(nc):
            out[f, 1 + j] = coords[f, j]
        c = 1 + nc
        for k in range(n):
            for a in range(3):
                out[f, c + a] = omega_rel[f, k, a]
                out[f, c + 3 + a] = omega[f, k, a]
                out[f, c + 6 + a] = alpha[f, k, a]
                out[f, c + 9 + a] = joint[f, k, a]
                out[f, c + 12 + a] = com[f, k, a]
                out[f, c + 15 + a] = com_vel[f, k, a]
                out[f, c + 18 + a] = com_acc[f, k, a]
                out[f, c + 21 + a] = force[f, k, a]
                out[f, c + 24 + a] = torque[f, k, a]
            c += 27
            for p in range(iu_i.shape[0]):
                i, j = iu_i[p], iu_j[p]
                if i > j:
                    i, j = j, i
                out[f, c + p] = _ground_component(R, inertia, f, k, i, j)
            c += iu_i.shape[0]
        for a in range(3):
            out[f, c + a] = body_com[f, a]
            out[f, c + 3 + a] = body_com_vel[f, a]
            out[f, c + 6 + a] = body_com_acc[f, a]

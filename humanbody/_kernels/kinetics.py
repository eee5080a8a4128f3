"""Numba kernels of the kinetics: joint loads from the tips of the tree to the root, and their
clinical components, every frame.

Array in, array out, like :mod:`humanbody._kernels.tree`; the equations are in
:func:`tree_loads` and docs/kinetics.md.  Each kernel is a loop over frames
around one-frame helpers (:func:`frame_loads`, :func:`frame_clinical`,
:func:`frame_grf`); :func:`tree_dynamics` runs them right after the
kinematics of the same block of frames (:func:`humanbody._kernels.tree.block_kinematics`),
while that block's values are still in cache.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .tree import block_kinematics

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
_BLOCK = 256  # frames a thread takes at a time (one scratch array each)


@nb.njit(cache=_CACHE, inline="always", fastmath={"contract"})
def frame_loads(f, parents, mass, gravity, joint, com, force, torque, omega_rel, load_force, load_moment, load_body,
                joint_force, joint_moment, joint_power, sums):
    """Frame ``f`` of :func:`tree_loads` (same arguments): the bodies from the tips to the root.

    ``sums`` (n, 6) is scratch for each body's running sums of force and
    moment (what its children and the loads on it contribute); each output
    element is written once.

    Parameters
    ----------
    f : int
        The frame.
    parents, mass, gravity, joint, com, force, torque, omega_rel : numpy.ndarray
        As :func:`tree_loads`.
    load_force, load_moment, load_body : numpy.ndarray
        As :func:`tree_loads`.
    joint_force, joint_moment, joint_power : numpy.ndarray
        As :func:`tree_loads`, row ``f`` written.
    sums : numpy.ndarray
        (n, 6) scratch.
    """
    n = joint.shape[1]
    L = load_force.shape[1]
    g0, g1, g2 = gravity[0], gravity[1], gravity[2]
    for k in range(n):
        for a in range(6):
            sums[k, a] = 0.0
    bad = False
    for j in range(L):  # -E_k and -N_k (moment about O_k: M_O - O_k x F) start each body's sums
        b = load_body[f, j]
        if b == -2:
            bad = True
        if b < 0:
            continue
        e0, e1, e2 = load_force[f, j, 0], load_force[f, j, 1], load_force[f, j, 2]
        o0, o1, o2 = joint[f, b, 0], joint[f, b, 1], joint[f, b, 2]
        sums[b, 0] -= e0
        sums[b, 1] -= e1
        sums[b, 2] -= e2
        sums[b, 3] -= load_moment[f, j, 0] - (o1 * e2 - o2 * e1)
        sums[b, 4] -= load_moment[f, j, 1] - (o2 * e0 - o0 * e2)
        sums[b, 5] -= load_moment[f, j, 2] - (o0 * e1 - o1 * e0)
    for k in range(n - 1, -1, -1):
        m = mass[k]
        w0 = m * g0 + force[f, k, 0]
        w1 = m * g1 + force[f, k, 1]
        w2 = m * g2 + force[f, k, 2]
        fk0 = sums[k, 0] - w0
        fk1 = sums[k, 1] - w1
        fk2 = sums[k, 2] - w2
        r0 = com[f, k, 0] - joint[f, k, 0]
        r1 = com[f, k, 1] - joint[f, k, 1]
        r2 = com[f, k, 2] - joint[f, k, 2]
        mk0 = sums[k, 3] - (r1 * w2 - r2 * w1) - torque[f, k, 0]
        mk1 = sums[k, 4] - (r2 * w0 - r0 * w2) - torque[f, k, 1]
        mk2 = sums[k, 5] - (r0 * w1 - r1 * w0) - torque[f, k, 2]
        if bad:
            joint_force[f, k, 0] = joint_force[f, k, 1] = joint_force[f, k, 2] = np.nan
            joint_moment[f, k, 0] = joint_moment[f, k, 1] = joint_moment[f, k, 2] = np.nan
            joint_power[f, k] = np.nan
        else:
            joint_force[f, k, 0], joint_force[f, k, 1], joint_force[f, k, 2] = fk0, fk1, fk2
            joint_moment[f, k, 0], joint_moment[f, k, 1], joint_moment[f, k, 2] = mk0, mk1, mk2
            joint_power[f, k] = mk0 * omega_rel[f, k, 0] + mk1 * omega_rel[f, k, 1] + mk2 * omega_rel[f, k, 2]
        p = parents[k]
        if p >= 0:  # the parent takes f_k at O_k: add f_k and m_k + (O_k - O_p) x f_k to its sums
            d0 = joint[f, k, 0] - joint[f, p, 0]
            d1 = joint[f, k, 1] - joint[f, p, 1]
            d2 = joint[f, k, 2] - joint[f, p, 2]
            sums[p, 0] += fk0
            sums[p, 1] += fk1
            sums[p, 2] += fk2
            sums[p, 3] += mk0 + (d1 * fk2 - d2 * fk1)
            sums[p, 4] += mk1 + (d2 * fk0 - d0 * fk2)
            sums[p, 5] += mk2 + (d0 * fk1 - d1 * fk0)


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def tree_loads(parents, mass, gravity, joint, com, force, torque, omega_rel, load_force, load_moment, load_body,
               joint_force, joint_moment, joint_power):
    """Force and moment every body receives from its parent, and the joint powers.

    d'Alembert's principle for body k (Huston ch. 9-10): the force ``f_k``
    and moment ``m_k`` (about the joint point O_k) from the parent balance
    the body's weight ``m_k g`` and inertia force ``F*_k`` (at G_k), its
    inertia torque ``T*_k``, the external loads on it (``E_k``, moment
    ``N_k`` about O_k) and what each child c takes (``-f_c``, ``-m_c`` at O_c):

    - ``f_k = sum_c f_c - m_k g - F*_k - E_k``
    - ``m_k = sum_c (m_c + (O_c - O_k) x f_c) - (G_k - O_k) x (m_k g + F*_k) - T*_k - N_k``

    evaluated from the highest body number down (children before parents).
    Body 1's ``f_1``, ``m_1`` are the residual force and moment from ground
    that the external loads leave unbalanced.  Joint power ``P_k = m_k .
    (omega_k - omega_L(k)) = m_k . omega_rel_k``.

    Parameters
    ----------
    parents : (n,) int64
        The parent of body k (0-based, -1 = ground).
    mass : (n,)
        Body masses (kg).
    gravity : (3,)
        Gravitational acceleration, ground axes (m/s^2).
    joint, com, force, torque, omega_rel : (F, n, 3)
        O_k, G_k (m), F*_k (N), T*_k (N m) and hat omega in ground (rad/s), ground components.
    load_force, load_moment : (F, L, 3)
        Each load's force (N) and moment about the ground origin (N m).
    load_body : (F, L) int64
        Body index (0-based) each load acts on, < 0: on none; -2 marks an ambiguous frame,
        whose outputs are NaN.
    joint_force, joint_moment : (F, n, 3)
        Written: f_k (N) and m_k (N m about O_k), ground components.
    joint_power : (F, n)
        Written: P_k (W).
    """
    F, n = joint.shape[0], joint.shape[1]
    nblocks = (F + _BLOCK - 1) // _BLOCK
    for blk in nb.prange(nblocks):
        sums = np.empty((n, 6))
        for f in range(blk * _BLOCK, min(F, (blk + 1) * _BLOCK)):
            frame_loads(f, parents, mass, gravity, joint, com, force, torque, omega_rel, load_force, load_moment,
                        load_body, joint_force, joint_moment, joint_power, sums)


@nb.njit(cache=_CACHE, inline="always", fastmath={"contract"})
def frame_clinical(f, R, joint_moment, joint_power, child, parent, signs, body_mass, out, first):
    """Frame ``f`` of :func:`clinical_moments` (same arguments).

    Parameters
    ----------
    f : int
        The frame.
    R, joint_moment, joint_power, child, parent, signs : numpy.ndarray
        As :func:`clinical_moments`.
    body_mass : float
        kg.
    out : numpy.ndarray
        (F, C) row ``f`` written in columns ``first .. first + 4 J - 1``.
    first : int
        The first column written.
    """
    J = child.shape[0]
    for i in range(J):
        k, p = child[i], parent[i]
        a0, a1, a2 = R[f, p, 0, 1], R[f, p, 1, 1], R[f, p, 2, 1]
        c0, c1, c2 = R[f, k, 0, 2], R[f, k, 1, 2], R[f, k, 2, 2]
        b0 = a1 * c2 - a2 * c1
        b1 = a2 * c0 - a0 * c2
        b2 = a0 * c1 - a1 * c0
        nb_ = np.sqrt(b0 * b0 + b1 * b1 + b2 * b2)
        b0, b1, b2 = b0 / nb_, b1 / nb_, b2 / nb_
        m0, m1, m2 = joint_moment[f, k, 0], joint_moment[f, k, 1], joint_moment[f, k, 2]
        c = first + 4 * i
        out[f, c] = signs[i, 0] * (m0 * a0 + m1 * a1 + m2 * a2) / body_mass
        out[f, c + 1] = signs[i, 1] * (m0 * b0 + m1 * b1 + m2 * b2) / body_mass
        out[f, c + 2] = signs[i, 2] * (m0 * c0 + m1 * c1 + m2 * c2) / body_mass
        out[f, c + 3] = joint_power[f, k] / body_mass


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def clinical_moments(R, joint_moment, joint_power, child, parent, signs, body_mass, out, first):
    """Joint moments on the axes of the flexion-first joint coordinate system, per kg.

    For each joint i (segment ``child[i]``, reference ``parent[i]``) the axes
    of the ``yxz`` decomposition of its relative orientation, in ground:
    ``u1 = R_p e_y`` (fixed in the reference), ``u3 = R_k e_z`` (fixed in the
    segment) and the floating axis ``u2 = (u1 x u3) / |u1 x u3|``; written
    are ``signs[i, a] (M . u_a) / body_mass`` for a = 1, 2, 3, then
    ``P_k / body_mass``, four columns per joint from column ``first`` of
    ``out``.  (With the joint's angle rates, ``sum_a (M . u_a) rate_a`` is the
    joint power.)

    Parameters
    ----------
    R : (F, n, 3, 3)
        Absolute orientations of the bodies.
    joint_moment : (F, n, 3)
        Joint moments (N m, ground components).
    joint_power : (F, n)
        Joint powers (W).
    child, parent : (J,) int64
        Each joint's segment and reference segment (0-based).
    signs : (J, 3) float64
        The sign of each of the joint's three clinical axes (+1 or -1).
    body_mass : float
        The body's mass (kg): the columns are per kg.
    out : (F, C)
        Written in columns ``first .. first + 4 J - 1``.
    first : int
        The first column written.
    """
    for f in nb.prange(R.shape[0]):
        frame_clinical(f, R, joint_moment, joint_power, child, parent, signs, body_mass, out, first)


@nb.njit(cache=_CACHE, inline="always", fastmath={"contract"})
def frame_grf(f, load_force, load_body, feet, body_mass, out, first):
    """Ground reaction on each foot per kg, frame ``f``: the sum of the loads assigned to it.

    Three columns per foot of ``feet`` (0-based body indices) from column
    ``first`` of ``out``; NaN in a frame where a load's body is ambiguous
    (``load_body == -2``).

    Parameters
    ----------
    f : int
        The frame.
    load_force : numpy.ndarray
        (F, L, 3) each load's force (N), ground components.
    load_body : numpy.ndarray
        (F, L) int64, body each load acts on (0-based; < 0 none; -2 ambiguous).
    feet : numpy.ndarray
        (K,) int64, the feet's body indices.
    body_mass : float
        kg.
    out : numpy.ndarray
        (F, C) row ``f`` written in columns ``first .. first + 3 K - 1`` (N/kg).
    first : int
        The first column written.
    """
    L = load_force.shape[1]
    bad = False
    for j in range(L):
        if load_body[f, j] == -2:
            bad = True
    for i in range(feet.shape[0]):
        s0 = s1 = s2 = 0.0
        for j in range(L):
            if load_body[f, j] == feet[i]:
                s0 += load_force[f, j, 0]
                s1 += load_force[f, j, 1]
                s2 += load_force[f, j, 2]
        c = first + 3 * i
        if bad:
            out[f, c] = out[f, c + 1] = out[f, c + 2] = np.nan
        else:
            out[f, c], out[f, c + 1], out[f, c + 2] = s0 / body_mass, s1 / body_mass, s2 / body_mass


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def ground_reactions(load_force, load_body, feet, body_mass, out, first):
    """:func:`frame_grf` of every frame.

    Parameters
    ----------
    load_force, load_body, feet, body_mass, out, first
        As :func:`frame_grf`; every row of ``out`` written.
    """
    for f in nb.prange(load_force.shape[0]):
        frame_grf(f, load_force, load_body, feet, body_mass, out, first)


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def tree_dynamics(
    q, qd, qdd, local_rates,
    parents, seq, xi, rcom, mass, inertia,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
    body_com, body_vel, body_acc, block,
    gravity, load_force, load_moment, load_body, joint_force, joint_moment, joint_power,
    child, parent, signs, feet, body_mass, out, first,
):
    """Kinematics and kinetics in one pass over the frames.

    Per block of frames, :func:`humanbody._kernels.tree.block_kinematics`
    (root to tips, the outputs of :func:`humanbody._kernels.tree.tree_kinematics`),
    then per frame :func:`frame_loads` (tips to root), :func:`frame_clinical`
    and :func:`frame_grf` on the values just computed: the same numbers as
    the separate kernels, the block's kinematic rows still in cache.
    ``first`` is the first clinical column of ``out``; the ground
    reactions follow the ``4 len(child)`` clinical columns.  The arguments
    are those of the kernels named.

    Parameters
    ----------
    q, qd, qdd, local_rates, parents, seq, xi, rcom, mass, inertia
        Inputs of :func:`humanbody._kernels.tree.tree_kinematics`.
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque, body_com, body_vel, body_acc
        Outputs of :func:`humanbody._kernels.tree.tree_kinematics`, written.
    block : int
        Frames per block (at least 1).
    gravity, load_force, load_moment, load_body
        Inputs of :func:`tree_loads`.
    joint_force, joint_moment, joint_power
        Outputs of :func:`tree_loads`, written.
    child, parent, signs, body_mass
        Inputs of :func:`clinical_moments`.
    feet : numpy.ndarray
        (K,) int64, the feet's body indices (:func:`ground_reactions`).
    out : numpy.ndarray
        (F, C) written: the clinical columns, then ``3 K`` ground-reaction columns (N/kg).
    first : int
        The first clinical column of ``out``.
    """
    F, n = q.shape[0], parents.shape[0]
    total = 0.0
    for k in range(n):
        total += mass[k]
    grf_first = first + 4 * child.shape[0]
    block = max(1, block)
    for blk in nb.prange((F + block - 1) // block):
        block_kinematics(np.int64(blk), block, total, q, qd, qdd, local_rates, parents, seq, xi, rcom, mass, inertia,
                         R, omega_rel, omega, alpha, joint, com, com_vel, com_acc, force, torque,
                         body_com, body_vel, body_acc, False)  # read again right below
        sums = np.empty((n, 6))
        for f in range(blk * block, min(F, (blk + 1) * block)):
            frame_loads(f, parents, mass, gravity, joint, com, force, torque, omega_rel, load_force, load_moment,
                        load_body, joint_force, joint_moment, joint_power, sums)
            frame_clinical(f, R, joint_moment, joint_power, child, parent, signs, body_mass, out, first)
            frame_grf(f, load_force, load_body, feet, body_mass, out, grf_first)

"""Numba kernel of the joint loads: from the tips of the tree to the root, every frame.

Array in, array out, like :mod:`humanbody._kernels`; the equations are in
:func:`joint_loads` and docs/kinetics.md.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def joint_loads(parents, mass, gravity, joint, com, force, torque, omega_rel, ext_force, ext_moment,
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
    parents : (n,) int64   L(k), 0 = ground
    mass : (n,) kg;  gravity : (3,) m/s^2
    joint, com, force, torque, omega_rel : (F, n, 3)  O_k, G_k (m), F*_k (N), T*_k (N m), hat omega (rad/s)
    ext_force, ext_moment : (F, n, 3)  external force on each body (N) and its moment about O_k (N m)
    joint_force, joint_moment : (F, n, 3) written (N, N m);  joint_power : (F, n) written (W)
    """
    F, n = joint.shape[0], joint.shape[1]
    g0, g1, g2 = gravity[0], gravity[1], gravity[2]
    for f in nb.prange(F):
        for k in range(n):
            joint_force[f, k, 0] = joint_force[f, k, 1] = joint_force[f, k, 2] = 0.0
            joint_moment[f, k, 0] = joint_moment[f, k, 1] = joint_moment[f, k, 2] = 0.0
        for k in range(n - 1, -1, -1):
            m = mass[k]
            w0 = m * g0 + force[f, k, 0]
            w1 = m * g1 + force[f, k, 1]
            w2 = m * g2 + force[f, k, 2]
            # children's contributions were added into joint_force/joint_moment[f, k] below
            fk0 = joint_force[f, k, 0] - w0 - ext_force[f, k, 0]
            fk1 = joint_force[f, k, 1] - w1 - ext_force[f, k, 1]
            fk2 = joint_force[f, k, 2] - w2 - ext_force[f, k, 2]
            r0 = com[f, k, 0] - joint[f, k, 0]
            r1 = com[f, k, 1] - joint[f, k, 1]
            r2 = com[f, k, 2] - joint[f, k, 2]
            mk0 = joint_moment[f, k, 0] - (r1 * w2 - r2 * w1) - torque[f, k, 0] - ext_moment[f, k, 0]
            mk1 = joint_moment[f, k, 1] - (r2 * w0 - r0 * w2) - torque[f, k, 1] - ext_moment[f, k, 1]
            mk2 = joint_moment[f, k, 2] - (r0 * w1 - r1 * w0) - torque[f, k, 2] - ext_moment[f, k, 2]
            joint_force[f, k, 0], joint_force[f, k, 1], joint_force[f, k, 2] = fk0, fk1, fk2
            joint_moment[f, k, 0], joint_moment[f, k, 1], joint_moment[f, k, 2] = mk0, mk1, mk2
            joint_power[f, k] = mk0 * omega_rel[f, k, 0] + mk1 * omega_rel[f, k, 1] + mk2 * omega_rel[f, k, 2]
            p = parents[k] - 1
            if p >= 0:  # the parent takes f_k at O_k: add f_k and m_k + (O_k - O_p) x f_k to its sums
                d0 = joint[f, k, 0] - joint[f, p, 0]
                d1 = joint[f, k, 1] - joint[f, p, 1]
                d2 = joint[f, k, 2] - joint[f, p, 2]
                joint_force[f, p, 0] += fk0
                joint_force[f, p, 1] += fk1
                joint_force[f, p, 2] += fk2
                joint_moment[f, p, 0] += mk0 + (d1 * fk2 - d2 * fk1)
                joint_moment[f, p, 1] += mk1 + (d2 * fk0 - d0 * fk2)
                joint_moment[f, p, 2] += mk2 + (d0 * fk1 - d1 * fk0)

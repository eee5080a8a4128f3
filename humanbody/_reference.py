"""A plain NumPy implementation of the same equations as the numba kernel.

It follows Huston's text literally, one equation per line and vectorised over
frames, with the absolute angular velocity summed over the lower body arrays
(eq. 8.104) instead of the kernel's parent recursion.  It exists to
cross-check :func:`humanbody._kernels.tree_kinematics` in the tests and to
measure the kernel against it in ``benchmarks/``.  Not a public API.
"""

from __future__ import annotations

import numpy as np

from .model import BodyModel
from .rotations import bryant_omega_parent, bryant_omega_parent_dot, bryant_to_matrix


def reference_kinematics(model: BodyModel, root, root_vel, root_acc, angles, rates, accels) -> dict:
    """Mechanics of every body from Bryant angles and exact rates.

    Parameters
    ----------
    model : BodyModel
    root, root_vel, root_acc : (F, 3)  origin of body 1 and its rates.
    angles, rates, accels : (F, n, 3)  relative Bryant angles and rates.

    Returns
    -------
    dict of arrays named as :class:`humanbody.results.Results`.
    """
    F, n = angles.shape[:2]
    S = bryant_to_matrix(angles)                                   # (8.74)
    w_loc = bryant_omega_parent(angles, rates)                     # (8.95)
    wd_loc = bryant_omega_parent_dot(angles, rates, accels)
    R = np.empty((F, n, 3, 3))
    for k in range(n):                                             # S_0k = S_0L(k) S_L(k)k
        p = model.parents[k] - 1
        R[:, k] = S[:, k] if p < 0 else R[:, p] @ S[:, k]
    Rpar = np.stack([np.broadcast_to(np.eye(3), (F, 3, 3)) if p == 0 else R[:, p - 1]
                     for p in model.parents], axis=1)
    omega_rel = np.einsum("fkij,fkj->fki", Rpar, w_loc)            # hat omega_k in ground
    omega = np.zeros((F, n, 3))
    p = 0
    while True:                                                    # (8.104): sum over q = L^p(k)
        q = model.lower_body_array(p)
        live = q > 0
        if not live.any():
            break
        omega[:, live] += omega_rel[:, q[live] - 1]
        p += 1
    alpha = np.empty((F, n, 3))
    joint = np.empty((F, n, 3))
    vO = np.empty((F, n, 3))
    aO = np.empty((F, n, 3))
    for k in range(n):
        p = model.parents[k] - 1
        wp = np.zeros((F, 3)) if p < 0 else omega[:, p]
        ap = np.zeros((F, 3)) if p < 0 else alpha[:, p]
        # (8.115): alpha_k = alpha_p + d(hat omega_k)/dt, derivative in ground
        alpha[:, k] = ap + np.einsum("fij,fj->fi", Rpar[:, k], wd_loc[:, k]) + np.cross(wp, omega_rel[:, k])
        if k == 0:
            joint[:, 0], vO[:, 0], aO[:, 0] = root, root_vel, root_acc
            continue
        base = (np.zeros((F, 3)),) * 3 if p < 0 else (joint[:, p], vO[:, p], aO[:, p])
        d = Rpar[:, k] @ model.joint[k]
        joint[:, k] = base[0] + d                                  # O_k = O_p + xi_k
        vO[:, k] = base[1] + np.cross(wp, d)                       # (8.126)
        aO[:, k] = base[2] + np.cross(ap, d) + np.cross(wp, np.cross(wp, d))  # (8.129)
    rg = np.einsum("fkij,kj->fki", R, model.com)
    com = joint + rg
    com_vel = vO + np.cross(omega, rg)
    com_acc = aO + np.cross(alpha, rg) + np.cross(omega, np.cross(omega, rg))
    inertia = np.einsum("fkij,kjl,fkml->fkim", R, model.inertia, R)      # I_g = R I R^T
    force = -model.mass[None, :, None] * com_acc                   # (10.1)
    Iw = np.einsum("fkij,fkj->fki", inertia, omega)
    torque = -np.einsum("fkij,fkj->fki", inertia, alpha) - np.cross(omega, Iw)  # (10.2)
    M = model.mass.sum()
    body = [np.einsum("k,fkc->fc", model.mass, x) / M for x in (com, com_vel, com_acc)]  # (9.19)
    return dict(
        R=R, omega_rel=omega_rel, omega=omega, alpha=alpha, joint=joint, com=com,
        com_vel=com_vel, com_acc=com_acc, force=force, torque=torque, inertia=inertia,
        body_com=body[0], body_com_vel=body[1], body_com_acc=body[2],
    )

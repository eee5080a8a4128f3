"""A plain NumPy implementation of the same equations as the numba kernel.

It follows Huston's text literally, one equation per line and vectorised over
frames, with the absolute angular velocity summed over the lower body arrays
(eq. 8.104) instead of the kernel's parent recursion.  It exists to
cross-check :func:`humanbody._kernels.tree.tree_kinematics` in the tests and to
measure the kernel against it in ``benchmarks/`` (``bench_compute.py`` imports it from here).
"""

from __future__ import annotations

import numpy as np

from humanbody.model.body import BodyModel
from humanbody.rotations.common import elementary as _elementary
from humanbody.rotations.common import sequence_axes, skew, unskew


def _sequence_motion(angles, rates, accels, seq):
    """S, hat omega and its rate (parent components) of one body, literally from the matrices.

    ``S = R_1 R_2 R_3`` (eqs. 8.64-8.74), the derivative of each factor
    ``R_i' = R_i K_i t_i'`` and ``R_i'' = R_i (K_i K_i t_i'^2 + K_i t_i'')``
    with ``K_i`` the skew matrix of the rotation axis; then ``hat omega =
    unskew(S' S^T)`` (eq. 8.121) and its rate ``unskew(S'' S^T)`` (the
    other term of the derivative, ``S' S'^T``, is symmetric).
    """
    axes = sequence_axes(seq)
    R, Rd, Rdd = [], [], []
    for i, ax in enumerate(axes):
        K = skew(np.eye(3)[ax])
        M = _elementary(ax, angles[:, i])
        t1, t2 = rates[:, i, None, None], accels[:, i, None, None]
        R.append(M)
        Rd.append(M @ K * t1)
        Rdd.append(M @ (K @ K * t1**2 + K * t2))
    S = R[0] @ R[1] @ R[2]
    Sd = Rd[0] @ R[1] @ R[2] + R[0] @ Rd[1] @ R[2] + R[0] @ R[1] @ Rd[2]
    Sdd = (Rdd[0] @ R[1] @ R[2] + R[0] @ Rdd[1] @ R[2] + R[0] @ R[1] @ Rdd[2]
           + 2 * (Rd[0] @ Rd[1] @ R[2] + Rd[0] @ R[1] @ Rd[2] + R[0] @ Rd[1] @ Rd[2]))
    St = np.swapaxes(S, -1, -2)
    return S, unskew(Sd @ St), unskew(Sdd @ St)


def reference_kinematics(model: BodyModel, root, root_vel, root_acc, angles, rates, accels) -> dict:
    """Mechanics of every body from its angles (in its sequence) and exact rates.

    Parameters
    ----------
    model : BodyModel
    root, root_vel, root_acc : (F, 3)  origin of body 1 and its rates.
    angles, rates, accels : (F, n, 3)  relative angles in each body's
        sequence (``model.sequences``) and their rates.

    Returns
    -------
    dict of arrays named as :class:`humanbody.mechanics.results.Results`.
    """
    F, n = angles.shape[:2]
    S = np.empty((F, n, 3, 3))
    w_loc = np.empty((F, n, 3))
    wd_loc = np.empty((F, n, 3))
    for k in range(n):
        S[:, k], w_loc[:, k], wd_loc[:, k] = _sequence_motion(
            angles[:, k], rates[:, k], accels[:, k], model.sequences[k])
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
        d = Rpar[:, k] @ model.joint_offset[k]
        joint[:, k] = base[0] + d                                  # O_k = O_p + xi_k
        vO[:, k] = base[1] + np.cross(wp, d)                       # (8.126)
        aO[:, k] = base[2] + np.cross(ap, d) + np.cross(wp, np.cross(wp, d))  # (8.129)
    rg = np.einsum("fkij,kj->fki", R, model.com_offset)
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

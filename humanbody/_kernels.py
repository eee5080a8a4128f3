"""Numba kernels over plain arrays: the recursion over the tree, per frame.

Nothing here knows about pandas, names or files.  Every kernel takes
C-contiguous float64 arrays and writes into output arrays the caller
allocated, so callers can process a long trial in chunks and reuse buffers.
Kernels are compiled once and cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def _bryant(sa, ca, sb, cb, sg, cg, S):
    """Fill S (3x3) with the Bryant transformation matrix, Huston eq. 8.74."""
    S[0, 0] = cb * cg
    S[0, 1] = -cb * sg
    S[0, 2] = sb
    S[1, 0] = ca * sg + sa * sb * cg
    S[1, 1] = ca * cg - sa * sb * sg
    S[1, 2] = -sa * cb
    S[2, 0] = sa * sg - ca * sb * cg
    S[2, 1] = sa * cg + ca * sb * sg
    S[2, 2] = ca * cb


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def tree_kinematics(
    q, qd, qdd, local_rates,
    parents, xi, rcom, mass, inertia,
    R, omega_rel, omega, alpha, joint, com, com_vel, com_acc,
    force, torque, body, block,
):
    """Kinematics and inertia forces of every body of a tree, every frame.

    The recursion runs over bodies in numbering order (``parents[k] < k``)
    and in parallel over blocks of frames.  For body k with parent p = L(k):

    - ``R_k = R_p S_k``                       (absolute orientation, eq. 8.73)
    - ``omega_rel_k = R_p hat_omega_k``      (hat omega in ground, eq. 8.99)
    - ``omega_k = omega_p + omega_rel_k``    (addition theorem, eq. 8.104)
    - ``alpha_k = alpha_p + R_p d(hat_omega_k)/dt + omega_p x omega_rel_k`` (eq. 8.115)
    - ``O_k = O_p + R_p xi_k``; velocity and acceleration of O_k and of the
      mass centre ``G_k = O_k + R_k r_k`` from eqs. 8.126 and 8.129
    - ``I_k = R_k I R_k^T`` (inertia dyadic in ground components, used for
      the torque; not stored — :func:`ground_inertia` gives it on request)
    - ``F*_k = -m_k a_Gk`` (eq. 10.1), ``T*_k = -I_k alpha_k - omega_k x (I_k omega_k)`` (10.2)
    - whole-body mass centre ``sum m_k G_k / M`` (eq. 9.19) and its rates.

    Parameters
    ----------
    q : (F, 3 + 3n)  generalized coordinates: origin of body 1 in ground (m),
        then the Bryant angles alpha, beta, gamma of body k relative to L(k)
        in columns 3 + 3(k-1) .. 5 + 3(k-1) (rad).
    qd, qdd : (F, 3 + 3n)  velocity and acceleration of the origin of body 1
        (m/s, m/s^2) in columns 0-2, then per body either the Bryant angle
        rates (``local_rates`` False) or the parent-frame components of the
        relative angular velocity hat omega_k and their time derivatives
        (``local_rates`` True).  From angle rates, eq. 8.95 and its
        derivative give hat omega_k without any division, so the singular
        set cos(beta) = 0 needs no special case.
    local_rates : bool
    parents : (n,) int64  L(k) for body k = index + 1 (0 = ground).
    xi : (n, 3)  joint offsets in the parent frame (m).
    rcom : (n, 3)  mass-centre offsets in the body frame (m).
    mass : (n,)  kg.   inertia : (n, 3, 3)  about G_k, body frame, kg m^2.

    Outputs (written): R (F, n, 3, 3); omega_rel, omega, alpha,
    joint, com, com_vel, com_acc, force, torque (F, n, 3); body (F, 9) =
    whole-body mass-centre position, velocity, acceleration.
    block : int  frames per block.  Threads take blocks of frames; each block
        first copies its rows of q, qd, qdd into a small row-major buffer (the
        columns pandas hands over are strided, often column-major), then runs
        the recursion frame by frame with the buffer in L1/L2 cache.
    """
    F, n = q.shape[0], parents.shape[0]
    total = 0.0
    for k in range(n):
        total += mass[k]
    ncol = q.shape[1]
    block = max(1, block)
    nblocks = (F + block - 1) // block
    for blk in nb.prange(nblocks):
        f0 = blk * block
        f1 = min(F, f0 + block)
        qb = np.empty((f1 - f0, ncol))
        qdb = np.empty((f1 - f0, ncol))
        qddb = np.empty((f1 - f0, ncol))
        for c in range(ncol):
            for j in range(f1 - f0):
                qb[j, c] = q[f0 + j, c]
                qdb[j, c] = qd[f0 + j, c]
                qddb[j, c] = qdd[f0 + j, c]
        vO = np.empty((n, 3))
        aO = np.empty((n, 3))
        S = np.empty((3, 3))
        Rp = np.empty((3, 3))
        wp = np.empty(3)
        ap = np.empty(3)
        Op = np.empty(3)
        vOp = np.empty(3)
        aOp = np.empty(3)
        d = np.empty(3)
        wr = np.empty(3)
        wd = np.empty(3)
        wl = np.empty(3)
        wdl = np.empty(3)
        rg = np.empty(3)
        IR = np.empty((3, 3))
        Ig = np.empty((3, 3))
        for f in range(f0, f1):
            r = f - f0
            bc0 = bc1 = bc2 = 0.0
            bv0 = bv1 = bv2 = 0.0
            ba0 = ba1 = ba2 = 0.0
            for k in range(n):
                p = parents[k] - 1
                if p < 0:
                    for i in range(3):
                        for j in range(3):
                            Rp[i, j] = 1.0 if i == j else 0.0
                        wp[i] = 0.0
                        ap[i] = 0.0
                        if k == 0:
                            Op[i] = qb[r, i]
                            vOp[i] = qdb[r, i]
                            aOp[i] = qddb[r, i]
                        else:  # another body hinged to ground: pinned at xi_k
                            Op[i] = 0.0
                            vOp[i] = 0.0
                            aOp[i] = 0.0
                else:
                    for i in range(3):
                        for j in range(3):
                            Rp[i, j] = R[f, p, i, j]
                        wp[i] = omega[f, p, i]
                        ap[i] = alpha[f, p, i]
                        Op[i] = joint[f, p, i]
                        vOp[i] = vO[p, i]
                        aOp[i] = aO[p, i]
                if k == 0:
                    d[0] = d[1] = d[2] = 0.0
                else:
                    for i in range(3):
                        d[i] = Rp[i, 0] * xi[k, 0] + Rp[i, 1] * xi[k, 1] + Rp[i, 2] * xi[k, 2]
                # joint point O_k: position, velocity, acceleration (8.126, 8.129)
                wxd0 = wp[1] * d[2] - wp[2] * d[1]
                wxd1 = wp[2] * d[0] - wp[0] * d[2]
                wxd2 = wp[0] * d[1] - wp[1] * d[0]
                joint[f, k, 0] = Op[0] + d[0]
                joint[f, k, 1] = Op[1] + d[1]
                joint[f, k, 2] = Op[2] + d[2]
                vO[k, 0] = vOp[0] + wxd0
                vO[k, 1] = vOp[1] + wxd1
                vO[k, 2] = vOp[2] + wxd2
                aO[k, 0] = aOp[0] + (ap[1] * d[2] - ap[2] * d[1]) + (wp[1] * wxd2 - wp[2] * wxd1)
                aO[k, 1] = aOp[1] + (ap[2] * d[0] - ap[0] * d[2]) + (wp[2] * wxd0 - wp[0] * wxd2)
                aO[k, 2] = aOp[2] + (ap[0] * d[1] - ap[1] * d[0]) + (wp[0] * wxd1 - wp[1] * wxd0)
                # orientation R_k = R_p S_k (eq. 8.74) and hat omega_k (eq. 8.95)
                c = 3 + 3 * k
                sa, ca = np.sin(qb[r, c]), np.cos(qb[r, c])
                sb, cb = np.sin(qb[r, c + 1]), np.cos(qb[r, c + 1])
                sg, cg = np.sin(qb[r, c + 2]), np.cos(qb[r, c + 2])
                _bryant(sa, ca, sb, cb, sg, cg, S)
                for i in range(3):
                    for j in range(3):
                        R[f, k, i, j] = Rp[i, 0] * S[0, j] + Rp[i, 1] * S[1, j] + Rp[i, 2] * S[2, j]
                if local_rates:
                    for i in range(3):
                        wl[i] = qdb[r, c + i]
                        wdl[i] = qddb[r, c + i]
                else:
                    ad, bd, gd = qdb[r, c], qdb[r, c + 1], qdb[r, c + 2]
                    add, bdd, gdd = qddb[r, c], qddb[r, c + 1], qddb[r, c + 2]
                    wl[0] = ad + gd * sb
                    wl[1] = bd * ca - gd * sa * cb
                    wl[2] = bd * sa + gd * ca * cb
                    wdl[0] = add + gdd * sb + gd * bd * cb
                    wdl[1] = (bdd * ca - bd * ad * sa) - (gdd * sa * cb + gd * ad * ca * cb - gd * bd * sa * sb)
                    wdl[2] = (bdd * sa + bd * ad * ca) + (gdd * ca * cb - gd * ad * sa * cb - gd * bd * ca * sb)
                # angular velocity (addition theorem) and acceleration
                for i in range(3):
                    wr[i] = Rp[i, 0] * wl[0] + Rp[i, 1] * wl[1] + Rp[i, 2] * wl[2]
                    wd[i] = Rp[i, 0] * wdl[0] + Rp[i, 1] * wdl[1] + Rp[i, 2] * wdl[2]
                w0, w1, w2 = wp[0] + wr[0], wp[1] + wr[1], wp[2] + wr[2]
                a0 = ap[0] + wd[0] + (wp[1] * wr[2] - wp[2] * wr[1])
                a1 = ap[1] + wd[1] + (wp[2] * wr[0] - wp[0] * wr[2])
                a2 = ap[2] + wd[2] + (wp[0] * wr[1] - wp[1] * wr[0])
                omega_rel[f, k, 0] = wr[0]
                omega_rel[f, k, 1] = wr[1]
                omega_rel[f, k, 2] = wr[2]
                omega[f, k, 0] = w0
                omega[f, k, 1] = w1
                omega[f, k, 2] = w2
                alpha[f, k, 0] = a0
                alpha[f, k, 1] = a1
                alpha[f, k, 2] = a2
                # mass centre G_k = O_k + R_k r_k
                for i in range(3):
                    rg[i] = R[f, k, i, 0] * rcom[k, 0] + R[f, k, i, 1] * rcom[k, 1] + R[f, k, i, 2] * rcom[k, 2]
                wxr0 = w1 * rg[2] - w2 * rg[1]
                wxr1 = w2 * rg[0] - w0 * rg[2]
                wxr2 = w0 * rg[1] - w1 * rg[0]
                g0 = joint[f, k, 0] + rg[0]
                g1 = joint[f, k, 1] + rg[1]
                g2 = joint[f, k, 2] + rg[2]
                v0 = vO[k, 0] + wxr0
                v1 = vO[k, 1] + wxr1
                v2 = vO[k, 2] + wxr2
                c0 = aO[k, 0] + (a1 * rg[2] - a2 * rg[1]) + (w1 * wxr2 - w2 * wxr1)
                c1 = aO[k, 1] + (a2 * rg[0] - a0 * rg[2]) + (w2 * wxr0 - w0 * wxr2)
                c2 = aO[k, 2] + (a0 * rg[1] - a1 * rg[0]) + (w0 * wxr1 - w1 * wxr0)
                com[f, k, 0] = g0
                com[f, k, 1] = g1
                com[f, k, 2] = g2
                com_vel[f, k, 0] = v0
                com_vel[f, k, 1] = v1
                com_vel[f, k, 2] = v2
                com_acc[f, k, 0] = c0
                com_acc[f, k, 1] = c1
                com_acc[f, k, 2] = c2
                m = mass[k]
                force[f, k, 0] = -m * c0
                force[f, k, 1] = -m * c1
                force[f, k, 2] = -m * c2
                bc0 += m * g0
                bc1 += m * g1
                bc2 += m * g2
                bv0 += m * v0
                bv1 += m * v1
                bv2 += m * v2
                ba0 += m * c0
                ba1 += m * c1
                ba2 += m * c2
                # inertia dyadic in ground components I_g = R I R^T
                for i in range(3):
                    for j in range(3):
                        IR[i, j] = (
                            inertia[k, i, 0] * R[f, k, j, 0]
                            + inertia[k, i, 1] * R[f, k, j, 1]
                            + inertia[k, i, 2] * R[f, k, j, 2]
                        )
                for i in range(3):
                    for j in range(i, 3):
                        v = R[f, k, i, 0] * IR[0, j] + R[f, k, i, 1] * IR[1, j] + R[f, k, i, 2] * IR[2, j]
                        Ig[i, j] = v
                        Ig[j, i] = v
                # inertia torque T* = -I alpha - omega x (I omega)
                Ia0 = Ig[0, 0] * a0 + Ig[0, 1] * a1 + Ig[0, 2] * a2
                Ia1 = Ig[1, 0] * a0 + Ig[1, 1] * a1 + Ig[1, 2] * a2
                Ia2 = Ig[2, 0] * a0 + Ig[2, 1] * a1 + Ig[2, 2] * a2
                Iw0 = Ig[0, 0] * w0 + Ig[0, 1] * w1 + Ig[0, 2] * w2
                Iw1 = Ig[1, 0] * w0 + Ig[1, 1] * w1 + Ig[1, 2] * w2
                Iw2 = Ig[2, 0] * w0 + Ig[2, 1] * w1 + Ig[2, 2] * w2
                torque[f, k, 0] = -Ia0 - (w1 * Iw2 - w2 * Iw1)
                torque[f, k, 1] = -Ia1 - (w2 * Iw0 - w0 * Iw2)
                torque[f, k, 2] = -Ia2 - (w0 * Iw1 - w1 * Iw0)
            body[f, 0] = bc0 / total
            body[f, 1] = bc1 / total
            body[f, 2] = bc2 / total
            body[f, 3] = bv0 / total
            body[f, 4] = bv1 / total
            body[f, 5] = bv2 / total
            body[f, 6] = ba0 / total
            body[f, 7] = ba1 / total
            body[f, 8] = ba2 / total


@nb.njit(cache=_CACHE, parallel=True, fastmath={"contract"})
def ground_inertia(R, inertia, out):
    """Inertia dyadics in ground components, ``I_g = R I R^T``.

    Parameters
    ----------
    R : (F, n, 3, 3)  absolute orientation of each body (ground = R . body).
    inertia : (n, 3, 3)  inertia about the mass centre, body components (kg m^2).
    out : (F, n, 3, 3)  written; exactly symmetric.
    """
    F, n = R.shape[0], R.shape[1]
    for f in nb.prange(F):
        for k in range(n):
            for i in range(3):
                for j in range(i, 3):
                    v = 0.0
                    for a in range(3):
                        t = inertia[k, a, 0] * R[f, k, j, 0] + inertia[k, a, 1] * R[f, k, j, 1] + inertia[k, a, 2] * R[f, k, j, 2]
                        v += R[f, k, i, a] * t
                    out[f, k, i, j] = v
                    out[f, k, j, i] = v

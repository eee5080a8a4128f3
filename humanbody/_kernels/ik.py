"""Numba kernel of whole-body inverse kinematics: one damped Gauss-Newton fit per frame (arrays in, arrays out).

For every frame the generalized coordinates of the tree (root position p
and each body's rotation S_k relative to its parent) minimise

    C = sum_m w_m |O_s(m) + R_s(m) c_m - q_m|^2                   (markers)
      + sum_k lam_k |S_k - S0_k|_F^2                              (neutral pull)
      + sum_k h_k |S_k a_k - S0_k a_k|^2                          (hinge pull)
      + w_L sum_kj (theta_kj - clip(theta_kj, lo_kj, hi_kj))^2    (joint limits, optional)

with R_k = R_L(k) S_k, O_k = O_L(k) + R_L(k) xi_k (joints held together),
c_m the marker's position in its segment's frame and q_m its measured
position (a NaN marker is left out of that frame).  The increments are
rotation vectors delta_k in ground components applied at the joint:
``S_k <- exp([R_L^T delta_k]) S_k``, so body k and everything it carries
turn about O_k and no Cardan angle (nor its singular set) enters the solver.

Analytic Jacobian: a marker at P carried by joint k moves by
``delta_k x (P - O_k)``; its block is ``-[P - O_k]x``, and the Gauss-Newton
blocks are ``A_a^T A_b = (l_a . l_b) I - l_b l_a^T`` with lever arms
``l = P - O``.  The neutral pull's Gauss-Newton block is ``2 lam I`` and its
gradient ``-lam R_L vee(M - M^T)`` with ``M = S S0^T``; the hinge pull's are
``R_L (I - v v^T) R_L^T`` and ``-R_L (v x b)`` with ``v = S a``, ``b = S0 a``.
theta_k are the angles of S_k in body k's rotation sequence; a rotation u of
the body in its parent moves them by ``B^-1 u`` with B the sequence's joint
axes (:func:`_limit_rows`), which gives the limit term's Jacobian.  The
penalty is zero inside the limits, so a frame that stays inside is solved
exactly as without them; after the fit an angle still beyond (by about
1e-4 of the push) is set onto its limit.
Levenberg-Marquardt damping (Marquardt's scaled diagonal) and a cap on the
increment (a trust region of 0.2 rad or m) make every step lower the cost
without leaving the seed's basin.  ``prange`` over blocks of frames; within a block each frame
starts from the previous frames' solutions (``chained``: the constant-velocity
prediction ``S_f = S_f-1 S_f-2^T S_f-1``, ``p_f = 2 p_f-1 - p_f-2``, which
leaves the solver an error of the order of the acceleration times the frame
interval squared instead of the velocity times the frame interval), the
block's first frame from its seed.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .rot import sequence_angles, sequence_matrix
from .vec3 import cross

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


def tree_order(parent):
    """Where each body's unknowns go: the tree's post-order, so the Gauss-Newton matrix is an envelope.

    Parameters
    ----------
    parent : (n,) int64
        Parent index, the core's convention: 0-based, -1 = ground (parent[k] < k)

    Returns
    -------
    base : (n,) int64
        First of the three rotation unknowns of body k
    first : (3n + 3,) int64    first non-zero column of each row of the lower triangle: a body's rows
                               couple only with its descendants (just before it) and ancestors (after);
                               the root translation (the last three rows) with everything
    """
    n = len(parent)
    children = [[] for _ in range(n)]
    for k in range(n):
        if parent[k] >= 0:
            children[parent[k]].append(k)
    order, size = [], [1] * n
    def visit(k):
        for c in children[k]:
            visit(c)
            size[k] += size[c]
        order.append(k)
    for k in range(n):
        if parent[k] < 0:
            visit(k)
    pos = {k: i for i, k in enumerate(order)}
    base = np.array([3 * pos[k] for k in range(n)], dtype=np.int64)
    first = np.zeros(3 * n + 3, dtype=np.int64)
    for k in range(n):
        first[base[k]:base[k] + 3] = 3 * (pos[k] - size[k] + 1)
    return base, first
_FAST = {"contract", "reassoc"}  # fused multiply-adds and reordered sums; NaN tests stay exact
_BLOCK = 128  # frames per parallel work item (scratch allocated once per block)
_MAX_STEP = 0.2  # largest increment component of one iteration (rad, m): a trust region
_LIMIT_DET = 0.17  # |det B| below this (middle angle within ~10 deg of the singular set): the joint's limits rest


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _forward(S, p, parent, xi, R, O):
    """R_k = R_L S_k, O_k = O_L + R_L xi_k down the tree (root: R_1 = S_1, O_1 = p)."""
    n = parent.shape[0]
    for k in range(n):
        L = parent[k]
        if L < 0:
            for i in range(3):
                O[k, i] = p[i]
                for j in range(3):
                    R[k, i, j] = S[k, i, j]
        else:
            for i in range(3):
                acc = O[L, i]
                for j in range(3):
                    acc += R[L, i, j] * xi[k, j]
                    s = 0.0
                    for m in range(3):
                        s += R[L, i, m] * S[k, m, j]
                    R[k, i, j] = s
                O[k, i] = acc


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _cost(R, O, S, q, weight, seg_of, local, S0, lam, axis, hinge, res):
    """Weighted cost C of the configuration (R, O, S); ``res[m]`` = marker distance (m, NaN when missing)."""
    c = 0.0
    for m in range(q.shape[0]):
        if np.isnan(q[m, 0]) or np.isnan(q[m, 1]) or np.isnan(q[m, 2]):
            res[m] = np.nan
            continue
        s = seg_of[m]
        d2 = 0.0
        for i in range(3):
            P = O[s, i] + R[s, i, 0] * local[m, 0] + R[s, i, 1] * local[m, 1] + R[s, i, 2] * local[m, 2]
            d2 += (P - q[m, i]) ** 2
        res[m] = np.sqrt(d2)
        c += weight[m] * d2
    for k in range(S.shape[0]):
        if lam[k] > 0.0:
            for i in range(3):
                for j in range(3):
                    c += lam[k] * (S[k, i, j] - S0[k, i, j]) ** 2
        if hinge[k] > 0.0:
            for i in range(3):
                v = S[k, i, 0] * axis[k, 0] + S[k, i, 1] * axis[k, 1] + S[k, i, 2] * axis[k, 2]
                b = S0[k, i, 0] * axis[k, 0] + S0[k, i, 1] * axis[k, 1] + S0[k, i, 2] * axis[k, 2]
                c += hinge[k] * (v - b) ** 2
    return c


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _limit_rows(S, k, seq, out):
    """Angles of S_k in its sequence and the rows of dtheta/du (u: parent-frame rotation increment).

    The angle rates and the relative angular velocity are related by
    ``omega = B thetadot`` with ``B = [e_i0, R_i0(alpha) e_i1, S e_i2]``
    (the sequence's three joint axes in parent components), so a small
    rotation u of the body in its parent changes the angles by ``B^-1 u``;
    the rows of ``B^-1`` are ``(b2 x b3, b3 x b1, b1 x b2) / det B``.
    ``out`` (4, 3) is written: row 0 the angles, rows 1-3 the rows of B^-1.
    Returns det B (the caller leaves the joint alone near the singular set).
    """
    s = (S[k, 0, 0], S[k, 0, 1], S[k, 0, 2], S[k, 1, 0], S[k, 1, 1], S[k, 1, 2], S[k, 2, 0], S[k, 2, 1], S[k, 2, 2])
    i0, i1, i2 = seq[k, 0], seq[k, 1], seq[k, 2]
    a, b, c = sequence_angles(i0, i1, i2, s, 1e-9)
    _, u2 = sequence_matrix(i0, i1, i2, np.sin(a), np.cos(a), np.sin(b), np.cos(b), np.sin(c), np.cos(c))
    b1 = (1.0 if i0 == 0 else 0.0, 1.0 if i0 == 1 else 0.0, 1.0 if i0 == 2 else 0.0)
    b3 = (s[i2], s[3 + i2], s[6 + i2])
    c23, c31, c12 = cross(u2, b3), cross(b3, b1), cross(b1, u2)
    det = b1[0] * c23[0] + b1[1] * c23[1] + b1[2] * c23[2]
    out[0, 0], out[0, 1], out[0, 2] = a, b, c
    if abs(det) < _LIMIT_DET:
        return det
    for i in range(3):
        out[1, i] = c23[i] / det
        out[2, i] = c31[i] / det
        out[3, i] = c12[i] / det
    return det


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _violation(x, lo, hi):
    """How far the angle x lies beyond [lo, hi] (negative below, 0 inside)."""
    if x > hi:
        return x - hi
    if x < lo:
        return x - lo
    return 0.0


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _limit_cost(S, seq, lo, hi, wl, limited, rows):
    """Joint-limit penalty ``wl sum (theta - clip(theta, lo, hi))^2`` over the limited bodies."""
    c = 0.0
    for k in range(S.shape[0]):
        if not limited[k]:
            continue
        if abs(_limit_rows(S, k, seq, rows)) < _LIMIT_DET:
            continue
        for j in range(3):
            v = _violation(rows[0, j], lo[k, j], hi[k, j])
            c += wl * v * v
    return c


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _limit_terms(S, R, parent, seq, lo, hi, wl, limited, base, H, g, rows):
    """Add the penalty's Gauss-Newton block and gradient: r = theta_j - clip, dr/ddelta = R_L B^-T e_j."""
    for k in range(S.shape[0]):
        if not limited[k]:
            continue
        if abs(_limit_rows(S, k, seq, rows)) < _LIMIT_DET:
            continue
        L = parent[k]
        ik = base[k]
        for j in range(3):
            v = _violation(rows[0, j], lo[k, j], hi[k, j])
            if v == 0.0:
                continue
            J0, J1, J2 = rows[1 + j, 0], rows[1 + j, 1], rows[1 + j, 2]
            if L >= 0:  # delta = R_L u: dtheta/ddelta = R_L dtheta/du
                J0, J1, J2 = (R[L, 0, 0] * rows[1 + j, 0] + R[L, 0, 1] * rows[1 + j, 1] + R[L, 0, 2] * rows[1 + j, 2],
                              R[L, 1, 0] * rows[1 + j, 0] + R[L, 1, 1] * rows[1 + j, 1] + R[L, 1, 2] * rows[1 + j, 2],
                              R[L, 2, 0] * rows[1 + j, 0] + R[L, 2, 1] * rows[1 + j, 1] + R[L, 2, 2] * rows[1 + j, 2])
            Jv = (J0, J1, J2)
            for a in range(3):
                g[ik + a] += wl * v * Jv[a]
                for b in range(3):
                    H[ik + a, ik + b] += wl * Jv[a] * Jv[b]


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _clamp(S, seq, lo, hi, limited, rows):
    """Put every limited angle beyond its limit on it (S_k rebuilt from the clipped angles); True if any moved."""
    moved = False
    for k in range(S.shape[0]):
        if not limited[k]:
            continue
        if abs(_limit_rows(S, k, seq, rows)) < _LIMIT_DET:
            continue
        a, b, c = rows[0, 0], rows[0, 1], rows[0, 2]
        if _violation(a, lo[k, 0], hi[k, 0]) == 0.0 and _violation(b, lo[k, 1], hi[k, 1]) == 0.0 \
                and _violation(c, lo[k, 2], hi[k, 2]) == 0.0:
            continue
        a, b, c = min(max(a, lo[k, 0]), hi[k, 0]), min(max(b, lo[k, 1]), hi[k, 1]), min(max(c, lo[k, 2]), hi[k, 2])
        m, _ = sequence_matrix(seq[k, 0], seq[k, 1], seq[k, 2], np.sin(a), np.cos(a), np.sin(b), np.cos(b),
                               np.sin(c), np.cos(c))
        for i in range(3):
            for j in range(3):
                S[k, i, j] = m[3 * i + j]
        moved = True
    return moved


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _normal_equations(R, O, S, q, weight, seg_of, local, parent, S0, lam, axis, hinge, base, first, H, g, chain,
                      lever, work):
    """Gauss-Newton matrix H = J^T W J and gradient g = J^T W r at the configuration (R, O, S).

    ``base[k]`` is the first unknown of body k's rotation; the root
    translation is the last three.  Only the lower triangle of H is written
    (in the tree order an ancestor's rows follow its descendants'), within
    the envelope ``first``.  ``work`` is (5, 3, 3) scratch.
    """
    D = H.shape[0]
    tb = D - 3
    for i in range(D):
        g[i] = 0.0
        for j in range(first[i], i + 1):
            H[i, j] = 0.0
    r = work[0, 0]
    P = work[0, 1]
    vv = work[0, 2]
    bv = work[1, 0]
    Hu = work[2]
    M = work[3]
    for m in range(q.shape[0]):
        if np.isnan(q[m, 0]) or np.isnan(q[m, 1]) or np.isnan(q[m, 2]):
            continue
        w = weight[m]
        s = seg_of[m]
        for i in range(3):
            P[i] = O[s, i] + R[s, i, 0] * local[m, 0] + R[s, i, 1] * local[m, 1] + R[s, i, 2] * local[m, 2]
            r[i] = P[i] - q[m, i]
        c = 0
        k = s
        while k >= 0:
            chain[c] = k
            for i in range(3):
                lever[c, i] = P[i] - O[k, i]
            c += 1
            k = parent[k]
        # root translation: J = I
        for i in range(3):
            H[tb + i, tb + i] += w
            g[tb + i] += w * r[i]
        for a in range(c):
            ia = base[chain[a]]
            la0, la1, la2 = lever[a, 0], lever[a, 1], lever[a, 2]
            # g_a += w l_a x r
            g[ia] += w * (la1 * r[2] - la2 * r[1])
            g[ia + 1] += w * (la2 * r[0] - la0 * r[2])
            g[ia + 2] += w * (la0 * r[1] - la1 * r[0])
            # H[t, a] = -[l_a]x (and its transpose)
            sk = ((0.0, la2, -la1), (-la2, 0.0, la0), (la1, -la0, 0.0))  # -[l_a]x
            for i in range(3):
                for j in range(3):
                    H[tb + i, ia + j] += w * sk[i][j]
            for b in range(a, c):  # b: a itself or an ancestor, whose rows come later
                ib = base[chain[b]]
                dot = la0 * lever[b, 0] + la1 * lever[b, 1] + la2 * lever[b, 2]
                for i in range(3):
                    for j in range(3):
                        v = -lever[a, i] * lever[b, j]
                        if i == j:
                            v += dot
                        H[ib + i, ia + j] += w * v
    for k in range(S.shape[0]):
        L = parent[k]
        ik = base[k]
        gu0 = gu1 = gu2 = 0.0
        for i in range(3):
            for j in range(3):
                Hu[i, j] = 0.0
        if lam[k] > 0.0:
            # M = S S0^T; g_u = -lam vee(M - M^T); H_u = 2 lam I
            for i in range(3):
                for j in range(3):
                    M[i, j] = S[k, i, 0] * S0[k, j, 0] + S[k, i, 1] * S0[k, j, 1] + S[k, i, 2] * S0[k, j, 2]
            gu0 -= lam[k] * (M[1, 2] - M[2, 1])
            gu1 -= lam[k] * (M[2, 0] - M[0, 2])
            gu2 -= lam[k] * (M[0, 1] - M[1, 0])
            for i in range(3):
                Hu[i, i] += 2.0 * lam[k]
        if hinge[k] > 0.0:
            for i in range(3):
                vv[i] = S[k, i, 0] * axis[k, 0] + S[k, i, 1] * axis[k, 1] + S[k, i, 2] * axis[k, 2]
                bv[i] = S0[k, i, 0] * axis[k, 0] + S0[k, i, 1] * axis[k, 1] + S0[k, i, 2] * axis[k, 2]
            h = hinge[k]
            gu0 -= h * (vv[1] * bv[2] - vv[2] * bv[1])
            gu1 -= h * (vv[2] * bv[0] - vv[0] * bv[2])
            gu2 -= h * (vv[0] * bv[1] - vv[1] * bv[0])
            for i in range(3):
                for j in range(3):
                    Hu[i, j] += h * ((1.0 if i == j else 0.0) - vv[i] * vv[j])
        if lam[k] > 0.0 or hinge[k] > 0.0:
            if L < 0:
                g[ik] += gu0
                g[ik + 1] += gu1
                g[ik + 2] += gu2
                for i in range(3):
                    for j in range(3):
                        H[ik + i, ik + j] += Hu[i, j]
            else:  # delta = R_L u: g_delta = R_L g_u, H_delta = R_L H_u R_L^T
                for i in range(3):
                    g[ik + i] += R[L, i, 0] * gu0 + R[L, i, 1] * gu1 + R[L, i, 2] * gu2
                for i in range(3):
                    for j in range(3):
                        acc = 0.0
                        for a in range(3):
                            for bb in range(3):
                                acc += R[L, i, a] * Hu[a, bb] * R[L, j, bb]
                        H[ik + i, ik + j] += acc


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _cholesky_solve(A, rhs, x, first):
    """Solve A x = rhs for symmetric positive definite A by an envelope (profile) Cholesky; False if not SPD.

    Row i of A's lower triangle is zero left of column ``first[i]``; with
    the unknowns in the tree's post-order (:func:`tree_order`: a body's
    descendants just before it, the root translation last) the factor has
    no fill outside that envelope, so only it is read and written.
    """
    D = A.shape[0]
    for i in range(D):
        fi = first[i]
        for j in range(fi, i + 1):
            s = A[i, j]
            k0 = max(fi, first[j])
            for k in range(k0, j):
                s -= A[i, k] * A[j, k]
            if j < i:
                A[i, j] = s / A[j, j]
            else:
                if not s > 0.0:
                    return False
                A[i, i] = np.sqrt(s)
    for i in range(D):
        t = rhs[i]
        for k in range(first[i], i):
            t -= A[i, k] * x[k]
        x[i] = t / A[i, i]
    for i in range(D - 1, -1, -1):
        t = x[i]
        for k in range(i + 1, D):
            if first[k] <= i:
                t -= A[k, i] * x[k]
        x[i] = t / A[i, i]
    return True


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _apply_step(S, p, R, parent, base, step, Sn, pn, E):
    """``Sn_k = exp([R_L^T delta_k]) S_k`` (Rodrigues), ``pn = p + delta_p``."""
    for i in range(3):
        pn[i] = p[i] + step[step.shape[0] - 3 + i]
    for k in range(S.shape[0]):
        L = parent[k]
        b = base[k]
        d0, d1, d2 = step[b], step[b + 1], step[b + 2]
        if L < 0:
            u0, u1, u2 = d0, d1, d2
        else:
            u0 = R[L, 0, 0] * d0 + R[L, 1, 0] * d1 + R[L, 2, 0] * d2
            u1 = R[L, 0, 1] * d0 + R[L, 1, 1] * d1 + R[L, 2, 1] * d2
            u2 = R[L, 0, 2] * d0 + R[L, 1, 2] * d1 + R[L, 2, 2] * d2
        th = np.sqrt(u0 * u0 + u1 * u1 + u2 * u2)
        if th < 1e-12:
            a, bcoef = 1.0, 0.5
        else:
            a, bcoef = np.sin(th) / th, (1.0 - np.cos(th)) / (th * th)
        # E = I + a [u]x + b [u]x^2
        E[0, 0] = 1.0 - bcoef * (u1 * u1 + u2 * u2)
        E[1, 1] = 1.0 - bcoef * (u0 * u0 + u2 * u2)
        E[2, 2] = 1.0 - bcoef * (u0 * u0 + u1 * u1)
        E[0, 1] = -a * u2 + bcoef * u0 * u1
        E[1, 0] = a * u2 + bcoef * u0 * u1
        E[0, 2] = a * u1 + bcoef * u0 * u2
        E[2, 0] = -a * u1 + bcoef * u0 * u2
        E[1, 2] = -a * u0 + bcoef * u1 * u2
        E[2, 1] = a * u0 + bcoef * u1 * u2
        for i in range(3):
            for j in range(3):
                Sn[k, i, j] = E[i, 0] * S[k, 0, j] + E[i, 1] * S[k, 1, j] + E[i, 2] * S[k, 2, j]


@nb.njit(cache=_CACHE, fastmath=_FAST)
def _orthonormalise(S, k):
    """Gram-Schmidt on the columns of S_k: the nearest rotation to first order (S_k near orthonormal)."""
    n0 = np.sqrt(S[k, 0, 0] ** 2 + S[k, 1, 0] ** 2 + S[k, 2, 0] ** 2)
    for i in range(3):
        S[k, i, 0] /= n0
    d = S[k, 0, 0] * S[k, 0, 1] + S[k, 1, 0] * S[k, 1, 1] + S[k, 2, 0] * S[k, 2, 1]
    for i in range(3):
        S[k, i, 1] -= d * S[k, i, 0]
    n1 = np.sqrt(S[k, 0, 1] ** 2 + S[k, 1, 1] ** 2 + S[k, 2, 1] ** 2)
    for i in range(3):
        S[k, i, 1] /= n1
    S[k, 0, 2] = S[k, 1, 0] * S[k, 2, 1] - S[k, 2, 0] * S[k, 1, 1]
    S[k, 1, 2] = S[k, 2, 0] * S[k, 0, 1] - S[k, 0, 0] * S[k, 2, 1]
    S[k, 2, 2] = S[k, 0, 0] * S[k, 1, 1] - S[k, 1, 0] * S[k, 0, 1]


@nb.njit(cache=_CACHE, parallel=True, fastmath=_FAST)
def solve_frames(meas, weight, seg_of, local, parent, xi, S0, lam, axis, hinge, base, first, seq, lo, hi, limit_w,
                 S_seed, p_seed, max_iter, tol, rtol, chained, R_out, O_out, res_out, cost_out, iters_out):
    """Whole-body inverse kinematics of every frame (Levenberg-Marquardt from the seeds).

    Parameters
    ----------
    meas : (F, M, 3) float64
        Measured marker positions in ground (m), NaN where missing
    weight : (M,) float64
        Marker weights w_m
    seg_of : (M,) int64
        Segment carrying each marker (0-based)
    local : (M, 3) float64
        Marker position c_m in its segment's frame (m)
    parent : (n,) int64
        Parent of each segment, the core's convention (0-based, -1 = ground)
    xi : (n, 3) float64
        Joint offsets xi_k in the parent frame (m)
    S0 : (n, 3, 3) float64
        Neutral relative rotations (parent <- body)
    lam : (n,) float64
        Neutral-pull weights (m^2)
    axis : (n, 3) float64
        Hinge axis a_k in body k's frame (unit)
    hinge : (n,) float64
        Hinge-pull weights (m^2), 0 for none
    base : (n,) int64
        First unknown of each body's rotation (:func:`tree_order`)
    first : (3n + 3,) int64
        First column of each row's envelope (:func:`tree_order`)
    seq : (n, 3) int64
        Axes of each body's rotation sequence (0 = x, 1 = y, 2 = z)
    lo, hi : (n, 3) float64       joint limits of each body's three angles relative to its parent (rad;
                                  -inf / inf: none); a body within 10 deg of its sequence's singular
                                  set is left unlimited in that frame
    limit_w : float
        Weight of the limit penalty (m^2/rad^2); 0: no limits
    S_seed : (F, n, 3, 3)
        Starting relative rotations (finite)
    p_seed : (F, 3)
        Starting root positions (finite)
    max_iter : int
        Iterations per frame
    tol : float
        Stop when the largest step component is below tol (rad or m)
    rtol : float
        ... or when a step lowers the cost by less than rtol times the cost
    chained : bool                start each frame of a block of _BLOCK frames from the previous frame's
                                  solution (the block's first frame, and a frame after an empty one,
                                  from its seed); False: every frame from its seed
    R_out : (F, n, 3, 3)
        Written: absolute frames R_0k (NaN where no marker is present)
    O_out : (F, n, 3)
        Written: joint points O_k
    res_out : (F, M)
        Written: marker distances |model - measured| (m), NaN when missing
    cost_out : (F,)
        Written: final cost C
    iters_out : (F,) int64
        Written: iterations taken
    """
    F, M = meas.shape[0], meas.shape[1]
    n = parent.shape[0]
    D = 3 + 3 * n
    limited = np.zeros(n, dtype=np.bool_)
    if limit_w > 0.0:
        for k in range(n):
            for j in range(3):
                if np.isfinite(lo[k, j]) or np.isfinite(hi[k, j]):
                    limited[k] = True
    blocks = (F + _BLOCK - 1) // _BLOCK
    for blk in nb.prange(blocks):
        H = np.empty((D, D))
        A = np.empty((D, D))
        g = np.empty(D)
        rhs = np.empty(D)
        step = np.empty(D)
        S = np.empty((n, 3, 3))
        Sn = np.empty((n, 3, 3))
        R = np.empty((n, 3, 3))
        O = np.empty((n, 3))
        Rn = np.empty((n, 3, 3))
        On = np.empty((n, 3))
        p = np.empty(3)
        pn = np.empty(3)
        chain = np.empty(n, dtype=np.int64)
        lever = np.empty((n, 3))
        res = np.empty(M)
        resn = np.empty(M)
        work = np.empty((5, 3, 3))
        rows = np.empty((4, 3))
        Sprev = np.empty((n, 3, 3))
        pprev = np.empty(3)
        warm = False
        warm2 = False
        for f in range(blk * _BLOCK, min(F, (blk + 1) * _BLOCK)):
            q = meas[f]
            present = 0
            for m in range(M):
                if not (np.isnan(q[m, 0]) or np.isnan(q[m, 1]) or np.isnan(q[m, 2])):
                    present += 1
            if present == 0:
                for k in range(n):
                    for i in range(3):
                        O_out[f, k, i] = np.nan
                        for j in range(3):
                            R_out[f, k, i, j] = np.nan
                for m in range(M):
                    res_out[f, m] = np.nan
                cost_out[f] = np.nan
                iters_out[f] = 0
                warm = warm2 = False
                continue
            if not (chained and warm):  # else S, p hold the previous frame's solution
                for k in range(n):
                    for i in range(3):
                        for j in range(3):
                            S[k, i, j] = S_seed[f, k, i, j]
                for i in range(3):
                    p[i] = p_seed[f, i]
            elif warm2:  # two solved frames behind: constant-velocity prediction S <- S Sprev^T S, p <- 2p - pprev
                for k in range(n):
                    for i in range(3):
                        for j in range(3):
                            acc = 0.0
                            for a in range(3):
                                acc += (S[k, i, 0] * Sprev[k, a, 0] + S[k, i, 1] * Sprev[k, a, 1]
                                        + S[k, i, 2] * Sprev[k, a, 2]) * S[k, a, j]
                            Sn[k, i, j] = acc
                    _orthonormalise(Sn, k)  # else rounding errors grow ~2.4x per frame through the product
                Sprev[:] = S
                S[:] = Sn
                for i in range(3):
                    pn[i] = 2.0 * p[i] - pprev[i]
                    pprev[i] = p[i]
                    p[i] = pn[i]
            else:  # one solved frame behind: start from it, keep it for the next frame's prediction
                Sprev[:] = S
                pprev[:] = p
            _forward(S, p, parent, xi, R, O)
            cost = _cost(R, O, S, q, weight, seg_of, local, S0, lam, axis, hinge, res)
            if limit_w > 0.0:
                cost += _limit_cost(S, seq, lo, hi, limit_w, limited, rows)
            mu = 1e-10
            it = 0
            touched = False
            while it < max_iter:
                it += 1
                _normal_equations(R, O, S, q, weight, seg_of, local, parent, S0, lam, axis, hinge, base, first,
                                  H, g, chain, lever, work)
                if limit_w > 0.0:
                    _limit_terms(S, R, parent, seq, lo, hi, limit_w, limited, base, H, g, rows)
                dmax = 0.0
                for i in range(D):
                    if H[i, i] > dmax:
                        dmax = H[i, i]
                floor = 1e-13 * dmax + 1e-300
                accepted = False
                small = False
                for _ in range(12):
                    for i in range(D):
                        rhs[i] = -g[i]
                        for j in range(first[i], i + 1):
                            A[i, j] = H[i, j]
                        A[i, i] += mu * max(H[i, i], floor) + floor
                    if not _cholesky_solve(A, rhs, step, first):
                        mu *= 10.0
                        continue
                    big = 0.0
                    for i in range(D):
                        if abs(step[i]) > big:
                            big = abs(step[i])
                    if big > _MAX_STEP:  # trust region: no increment beyond _MAX_STEP rad (or m)
                        for i in range(D):
                            step[i] *= _MAX_STEP / big
                        big = _MAX_STEP
                    _apply_step(S, p, R, parent, base, step, Sn, pn, work[4])
                    _forward(Sn, pn, parent, xi, Rn, On)
                    new = _cost(Rn, On, Sn, q, weight, seg_of, local, S0, lam, axis, hinge, resn)
                    if limit_w > 0.0:
                        pen = _limit_cost(Sn, seq, lo, hi, limit_w, limited, rows)
                        new += pen
                        touched = touched or pen > 0.0
                    if new <= cost:
                        accepted = True
                        # a frame that met a limit stops on the step size only: the last approach to the
                        # limit lowers the cost by little, and stopping there would leave the joint short of it
                        small = big < tol or (cost - new <= rtol * cost and not touched)
                        cost = new
                        S[:] = Sn
                        p[:] = pn
                        R[:] = Rn
                        O[:] = On
                        res[:] = resn
                        mu = max(mu / 3.0, 1e-14)
                        break
                    mu = max(4.0 * mu, 1e-4)  # from 1e-4, 11 refusals shrink the step ~400x (into a limit)
                    if big < tol:
                        small = True
                        break
                if not accepted or small:
                    break
            if limit_w > 0.0 and _clamp(S, seq, lo, hi, limited, rows):  # the penalty's last ~1e-4 onto the limit
                _forward(S, p, parent, xi, R, O)
                cost = _cost(R, O, S, q, weight, seg_of, local, S0, lam, axis, hinge, res)
            R_out[f] = R
            O_out[f] = O
            for m in range(M):
                res_out[f, m] = res[m]
            cost_out[f] = cost
            iters_out[f] = it
            warm2 = warm
            warm = True

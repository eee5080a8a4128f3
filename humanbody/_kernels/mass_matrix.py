"""Numba kernel of the joint-space mass matrix by the composite rigid body algorithm, every frame.

Array in, array out, like :mod:`humanbody._kernels.tree`.  The equations are
in :func:`composite_mass_matrix` and docs/dynamics.md.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def frame_composites(f, parents, mass, inertia, R, joint, com, cm, cc, cJ):
    """Frame ``f``: every body's composite (itself and its descendants) about its joint point O_k.

    Writes ``cm[k]`` the composite's mass (kg), ``cc[k]`` its first moment
    ``sum m_i (G_i - O_k)`` (kg m) and ``cJ[k]`` its inertia about O_k (kg m^2),
    ground components.  A body starts with ``R I R^T + m (|r|^2 E - r r^T)``,
    ``r = G_k - O_k``; then, tips to root, each composite is carried to the
    parent's joint point by ``d = O_k - O_p``:
    ``c_p += c + m d``,
    ``J_p += J + 2 (c . d) E - c d^T - d c^T + m (|d|^2 E - d d^T)``.

    Parameters
    ----------
    f : int
        The frame.
    parents : numpy.ndarray
        (n,) int64, the parent of body k (0-based, -1 = ground), ``parents[k] < k``.
    mass : numpy.ndarray
        (n,) kg.
    inertia : numpy.ndarray
        (n, 3, 3) inertia about the mass centre, body components (kg m^2).
    R : numpy.ndarray
        (F, n, 3, 3) body orientations (body to ground).
    joint, com : numpy.ndarray
        (F, n, 3) joint points O_k and mass centres G_k in ground (m).
    cm : numpy.ndarray
        (n,) written: composite masses (kg).
    cc : numpy.ndarray
        (n, 3) written: composite first moments about O_k (kg m).
    cJ : numpy.ndarray
        (n, 3, 3) written: composite inertias about O_k (kg m^2).
    """
    n = parents.shape[0]
    for k in range(n):
        m = mass[k]
        r0 = com[f, k, 0] - joint[f, k, 0]
        r1 = com[f, k, 1] - joint[f, k, 1]
        r2 = com[f, k, 2] - joint[f, k, 2]
        cm[k] = m
        cc[k, 0], cc[k, 1], cc[k, 2] = m * r0, m * r1, m * r2
        rr = r0 * r0 + r1 * r1 + r2 * r2
        r = (r0, r1, r2)
        for i in range(3):
            for j in range(3):
                s = 0.0  # (R I R^T)_ij
                for a in range(3):
                    t = 0.0
                    for b in range(3):
                        t += inertia[k, a, b] * R[f, k, j, b]
                    s += R[f, k, i, a] * t
                cJ[k, i, j] = s + m * ((rr if i == j else 0.0) - r[i] * r[j])
    for k in range(n - 1, 0, -1):
        p = parents[k]
        if p < 0:
            continue
        m = cm[k]
        d = (joint[f, k, 0] - joint[f, p, 0], joint[f, k, 1] - joint[f, p, 1], joint[f, k, 2] - joint[f, p, 2])
        c = (cc[k, 0], cc[k, 1], cc[k, 2])
        cd = c[0] * d[0] + c[1] * d[1] + c[2] * d[2]
        dd = d[0] * d[0] + d[1] * d[1] + d[2] * d[2]
        cm[p] += m
        for i in range(3):
            cc[p, i] += c[i] + m * d[i]
            for j in range(3):
                e = 1.0 if i == j else 0.0
                cJ[p, i, j] += cJ[k, i, j] + 2.0 * cd * e - c[i] * d[j] - d[i] * c[j] + m * (dd * e - d[i] * d[j])


@nb.njit(cache=_CACHE, parallel=True)
def composite_mass_matrix(parents, mass, inertia, R, joint, com, axes, M):
    """The joint-space mass matrix of a tree by the composite rigid body algorithm, every frame.

    Coordinates: the root's position (columns 0-2, translation along the
    ground axes) and three rotations per body k about the axes ``s_kj =
    axes[f, k, :, j]`` (ground components) through its joint point O_k
    (columns 3 + 3k + j).  With the composite of body k (:func:`frame_composites`:
    mass m_k, first moment c_k, inertia J_k about O_k), a unit rate about
    ``s = s_kj`` gives the composite the momentum ``h = s x c_k`` and the
    moment of momentum ``n = J_k s`` about O_k.  The entry of every coordinate
    of body k or an ancestor a on the path to the root is the projection of
    that momentum on its motion (Featherstone 2008, section 6.2):

    - ``M[3+3a+i, 3+3k+j] = s_ai . (n + (O_k - O_a) x h)`` (rotations of a);
    - ``M[i, 3+3k+j] = h_i`` when the path reaches the root (body index 0);
    - ``M[i, j] = m_0 delta_ij`` for the root's translations;

    each entry written with its mirror, so M is exactly symmetric.  Entries
    of coordinates on different branches are zero.  Bodies hinged to ground
    other than the root do not move with the root's translation.

    Parameters
    ----------
    parents : (n,) int64  the parent of body k (0-based, -1 = ground), ``parents[k] < k``.
    mass : (n,)  kg.
    inertia : (n, 3, 3)  inertia about the mass centre, body components (kg m^2).
    R : (F, n, 3, 3)  body orientations (body to ground).
    joint, com : (F, n, 3)  joint points O_k and mass centres G_k in ground (m).
    axes : (F, n, 3, 3)  columns: each body's three rotation axes, ground components.
    M : (F, 3 + 3n, 3 + 3n)  written: kg, kg m and kg m^2 entries.
    """
    F, n = R.shape[0], parents.shape[0]
    for f in nb.prange(F):
        cm = np.empty(n)
        cc = np.empty((n, 3))
        cJ = np.empty((n, 3, 3))
        frame_composites(f, parents, mass, inertia, R, joint, com, cm, cc, cJ)
        for i in range(3 + 3 * n):
            for j in range(3 + 3 * n):
                M[f, i, j] = 0.0
        for k in range(n):
            for j in range(3):
                col = 3 + 3 * k + j
                s0, s1, s2 = axes[f, k, 0, j], axes[f, k, 1, j], axes[f, k, 2, j]
                c0, c1, c2 = cc[k, 0], cc[k, 1], cc[k, 2]
                h0, h1, h2 = s1 * c2 - s2 * c1, s2 * c0 - s0 * c2, s0 * c1 - s1 * c0
                n0 = cJ[k, 0, 0] * s0 + cJ[k, 0, 1] * s1 + cJ[k, 0, 2] * s2
                n1 = cJ[k, 1, 0] * s0 + cJ[k, 1, 1] * s1 + cJ[k, 1, 2] * s2
                n2 = cJ[k, 2, 0] * s0 + cJ[k, 2, 1] * s1 + cJ[k, 2, 2] * s2
                a = k
                while a >= 0:
                    d0 = joint[f, k, 0] - joint[f, a, 0]
                    d1 = joint[f, k, 1] - joint[f, a, 1]
                    d2 = joint[f, k, 2] - joint[f, a, 2]
                    m0 = n0 + d1 * h2 - d2 * h1
                    m1 = n1 + d2 * h0 - d0 * h2
                    m2 = n2 + d0 * h1 - d1 * h0
                    for i in range(3 if a != k else j + 1):
                        row = 3 + 3 * a + i
                        v = axes[f, a, 0, i] * m0 + axes[f, a, 1, i] * m1 + axes[f, a, 2, i] * m2
                        M[f, row, col] = v
                        M[f, col, row] = v
                    if a == 0:
                        M[f, 0, col] = M[f, col, 0] = h0
                        M[f, 1, col] = M[f, col, 1] = h1
                        M[f, 2, col] = M[f, col, 2] = h2
                    a = parents[a]
        for i in range(3):
            M[f, i, i] = cm[0]

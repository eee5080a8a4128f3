"""Numba kernel of the loads muscles put on the bodies their paths cross.

Array in, array out.  A muscle of tension ``T`` (N) whose path runs through
points ``p_0 .. p_n`` (ground, m) pulls each point towards its neighbours:
for every segment ``k -> k+1`` the body holding ``p_k`` receives
``T u_k`` at ``p_k`` and the body holding ``p_{k+1}`` receives ``-T u_k`` at
``p_{k+1}``, ``u_k = (p_{k+1} - p_k) / |p_{k+1} - p_k|``.  Segments within one
body cancel on it, as they should.  Each load is returned as a force and a
moment about the receiving body's origin (ground components).
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .cache import drop_stale_kernels

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def add_load(loads, f, b, origin, p, fx, fy, fz):
    """Force ``(fx, fy, fz)`` at ``p`` on body ``b``: into ``loads[f, b]`` as force and moment about its origin."""
    rx = p[0] - origin[f, b, 0]
    ry = p[1] - origin[f, b, 1]
    rz = p[2] - origin[f, b, 2]
    loads[f, b, 0] += fx
    loads[f, b, 1] += fy
    loads[f, b, 2] += fz
    loads[f, b, 3] += ry * fz - rz * fy
    loads[f, b, 4] += rz * fx - rx * fz
    loads[f, b, 5] += rx * fy - ry * fx


@nb.njit(cache=_CACHE)
def muscle_body_loads(points, body, start, active, tension, origin, nbodies):
    """Loads of every muscle on every body.

    Parameters
    ----------
    points : (F, P, 3) path points of all muscles, muscle after muscle, ground (m).
    body : (P,) the body each point is fixed to (ground: -1, its loads dropped).
    start : (M + 1,) muscle ``m`` owns points ``start[m]:start[m+1]``.
    active : (F, P) whether a point is on the path at that frame (conditional points).
    tension : (F, M) muscle forces (N).
    origin : (F, B, 3) body origins, ground (m).
    nbodies : B.

    Returns
    -------
    (F, B, 6) force (N) and moment about the body origin (N m), ground components.
    """
    nf = points.shape[0]
    nm = start.shape[0] - 1
    loads = np.zeros((nf, nbodies, 6))
    for f in range(nf):
        for m in range(nm):
            T = tension[f, m]
            if T == 0.0:
                continue
            prev = -1
            for k in range(start[m], start[m + 1]):
                if not active[f, k]:
                    continue
                if prev >= 0 and body[prev] != body[k]:
                    d0 = points[f, k, 0] - points[f, prev, 0]
                    d1 = points[f, k, 1] - points[f, prev, 1]
                    d2 = points[f, k, 2] - points[f, prev, 2]
                    n = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
                    if n > 0.0:
                        fx, fy, fz = T * d0 / n, T * d1 / n, T * d2 / n
                        if body[prev] >= 0:
                            add_load(loads, f, body[prev], origin, points[f, prev], fx, fy, fz)
                        if body[k] >= 0:
                            add_load(loads, f, body[k], origin, points[f, k], -fx, -fy, -fz)
                prev = k
    return loads

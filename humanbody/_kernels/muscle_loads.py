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
from .muscle_paths import muscle_path

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def add_load(loads, f, b, origin, p, fx, fy, fz):
    """Force ``(fx, fy, fz)`` at ``p`` on body ``b``: into ``loads[f, b]`` as force and moment about its origin.

    Parameters
    ----------
    loads : numpy.ndarray
        (F, B, 6) force (N) and moment about the body origin (N m), ground components: added to.
    f : int
        The frame.
    b : int
        The body.
    origin : numpy.ndarray
        (F, B, 3) the bodies' origins in ground (m).
    p : numpy.ndarray
        (3,) the point of application in ground (m).
    fx, fy, fz : float
        The force (N), ground components.
    """
    rx = p[0] - origin[f, b, 0]
    ry = p[1] - origin[f, b, 1]
    rz = p[2] - origin[f, b, 2]
    loads[f, b, 0] += fx
    loads[f, b, 1] += fy
    loads[f, b, 2] += fz
    loads[f, b, 3] += ry * fz - rz * fy
    loads[f, b, 4] += rz * fx - rx * fz
    loads[f, b, 5] += rx * fy - ry * fx


@nb.njit(cache=_CACHE, parallel=True)
def path_loads(Q, Rs, Os, tension, n_muscles, max_points, pk):
    """Loads of every muscle on the bodies its current path crosses (OpenSim model paths).

    ``Q`` (F, nq) coordinates, ``Rs`` (F, B, 3, 3) and ``Os`` (F, B, 3) the bodies' poses
    (body 0 the ground), ``tension`` (F, M) N; ``pk`` the packed paths
    (:meth:`humanbody.muscles.paths.PackedPaths.arrays`).  Each path is the one
    :func:`humanbody._kernels.muscle_paths.muscle_path` builds (points, wrap tangent
    points on their surface's body).  Returns (F, B, 6): force (N) and moment
    about the body origin (N m), ground components; the ground's row is left 0.

    Parameters
    ----------
    Q : numpy.ndarray
        (F, nq) coordinates (rad, m), the OpenSim model's order.
    Rs : numpy.ndarray
        (F, B, 3, 3) body orientations (body to ground), body 0 the ground.
    Os : numpy.ndarray
        (F, B, 3) body origins in ground (m).
    tension : numpy.ndarray
        (F, M) muscle tensions (N).
    n_muscles : int
        M.
    max_points : int
        Most points a path can hold (the scratch size).
    pk : tuple of numpy.ndarray
        The packed paths.

    Returns
    -------
    numpy.ndarray
        (F, B, 6) force (N) and moment about the body origin (N m) on each body, ground components.
    """
    F = Q.shape[0]
    B = Rs.shape[1]
    loads = np.zeros((F, B, 6))
    for f in nb.prange(F):
        tag = np.empty(max_points, np.int64)
        body = np.empty(max_points, np.int64)
        loc = np.empty((max_points, 3))
        pos = np.empty((max_points, 3))
        wlen = np.zeros(pk[8].shape[0] + 1)
        gpos = np.empty((max_points, 3))
        wseen = np.empty((2 * pk[8].shape[0] + 2, 3))
        wvalid = np.zeros(2 * pk[8].shape[0] + 2, np.bool_)
        for m in range(n_muscles):
            T = tension[f, m]
            if T == 0.0:
                continue
            n, _ = muscle_path(m, Q[f], Rs[f], Os[f], tag, body, loc, pos, wlen, gpos, wseen, wvalid, pk)
            for k in range(n - 1):
                b0, b1 = body[k], body[k + 1]
                if b0 == b1:
                    continue
                d0 = gpos[k + 1, 0] - gpos[k, 0]
                d1 = gpos[k + 1, 1] - gpos[k, 1]
                d2 = gpos[k + 1, 2] - gpos[k, 2]
                norm = math.sqrt(d0 * d0 + d1 * d1 + d2 * d2)
                if norm == 0.0:
                    continue
                fx, fy, fz = T * d0 / norm, T * d1 / norm, T * d2 / norm
                if b0 > 0:
                    add_load(loads, f, b0, Os, pos[k], fx, fy, fz)
                if b1 > 0:
                    add_load(loads, f, b1, Os, pos[k + 1], -fx, -fy, -fz)
    return loads

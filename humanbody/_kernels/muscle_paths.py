"""Muscle paths over a trial: the points in ground, the wrapping, the length and its rates.

Inputs per frame: the bodies' rotations ``R`` (bodies x 3 x 3, body → ground) and origins ``O``
(bodies x 3, m), the coordinates ``q``.  A muscle's path is OpenSim's "current path": its
active points (a conditional point while its coordinate lies in its range ± 1e-5, a moving
point at its three functions of coordinates), then for each of its path wraps, in order, the
two tangent points of the best segment within the wrap's range (a segment that cuts the
surface wins; otherwise the one whose length grows least).  With two or more wraps the
wrapping repeats, each from the path the others left, until the length changes by less
than 0.5 mm (at most 8 times), as OpenSim's GeometryPath does.

OpenSim 4.6 reads a tangent point's place in ground through a cache that its wrapping does
not refresh: once read while a path is built (by the length-change test of a later wrap, or
the length after a round), a tangent point keeps that place in ground for the rest of the
build, although the wrapping moves it on its surface.  The lengths, the segment directions
of the rates and the loads use these places (``gpos``), as OpenSim's lengths and its moment-arm
solver's path forces do; the wrapping itself and the points where forces act use the points
where their surfaces put them (``pos``).  Paths with one wrap are not affected.

Length: straight segments plus the arcs on the surfaces.  Rates: for K velocity directions
(columns of the bodies' Jacobians ``J``: angular velocity and origin velocity, bodies x 6 x
columns, and the coordinates' rates ``qd``, K x coordinates), the rate of change of the length is the sum over
straight segments of ``u . (v_end - v_start)`` with the tangent points carried by their
surface's body (the arcs move rigidly with it).  With ``across_bodies_only`` the segments
between two points of one body are left out, as OpenSim's moment-arm solver does.

The packed model (``pk``) is the tuple :meth:`humanbody.muscles.paths.PackedPaths.arrays` gives.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .functions import function_value
from .vec3 import add, cross, dist2, dot, mat_t_vec, mat_vec, row3, sub, unit
from .wrap import INSIDE, MANDATORY, NO_WRAP, WRAPPED, wrap_cylinder, wrap_sphere
from .wrap_ellipsoid import wrap_ellipsoid
from .wrap_torus import wrap_torus

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def _coordinate_function(i, a, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd):
    """Axis ``a`` of moving point ``i``: its location (m) and slope (m per unit of its coordinate)."""
    f = pt_fn[i, a]
    if f < 0:
        return pt_loc[i, a], 0.0
    c = pt_mcoord[i, a]
    v, d1, _ = function_value(fk, fs, fn, fin, fd, f, q[c] if c >= 0 else 0.0)
    return v, d1


@nb.njit(cache=_CACHE, inline="always")
def _point_local(i, q, pt_kind, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd):
    """Location of path point ``i`` in its body's frame (m)."""
    if pt_kind[i] != 2:
        return row3(pt_loc, i)
    x = _coordinate_function(i, 0, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[0]
    y = _coordinate_function(i, 1, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[0]
    z = _coordinate_function(i, 2, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[0]
    return (x, y, z)


@nb.njit(cache=_CACHE, inline="always")
def _active(i, q, pt_kind, pt_coord, pt_range):
    if pt_kind[i] != 1:
        return True
    v = q[pt_coord[i]]
    return v >= pt_range[i, 0] - 1e-5 and v <= pt_range[i, 1] + 1e-5


@nb.njit(cache=_CACHE, inline="always")
def _to_ground(R, O, b, loc):
    return add(mat_vec(R[b], loc), row3(O, b))


@nb.njit(cache=_CACHE, inline="always")
def _to_wrap_frame(R, O, x, wb, wR, wp):
    """Ground point ``x`` in the frame of a wrap surface on body ``wb`` (wR, wp: surface in body)."""
    in_body = mat_t_vec(R[wb], sub(x, row3(O, wb)))
    return mat_t_vec(wR, sub(in_body, (wp[0], wp[1], wp[2])))


@nb.njit(cache=_CACHE, inline="always")
def _wrap_to_body(r, wR, wp):
    return add(mat_vec(wR, r), (wp[0], wp[1], wp[2]))


@nb.njit(cache=_CACHE, inline="always")
def _remove_wrap(w, n, tag, body, loc, pos):
    """Take wrap ``w``'s two tangent points out of the path; the new point count."""
    for j in range(n):
        if tag[j] == -(2 * w + 1):
            for k in range(j, n - 2):
                tag[k] = tag[k + 2]
                body[k] = body[k + 2]
                loc[k] = loc[k + 2]
                pos[k] = pos[k + 2]
            return n - 2
    return n


@nb.njit(cache=_CACHE, inline="always")
def _insert(j, n, t, b, lc, ps, tag, body, loc, pos):
    for k in range(n, j, -1):
        tag[k] = tag[k - 1]
        body[k] = body[k - 1]
        loc[k] = loc[k - 1]
        pos[k] = pos[k - 1]
    tag[j] = t
    body[j] = b
    for a in range(3):
        loc[j, a] = lc[a]
        pos[j, a] = ps[a]
    return n + 1


@nb.njit(cache=_CACHE, inline="always")
def _seen(j, tag, pos, wseen, wvalid):
    """Point ``j`` in ground as OpenSim's ``getLocationInGround`` returns it: a tangent point keeps
    the place it had when first read while its path was being built (see the module notes)."""
    if tag[j] >= 0:
        return row3(pos, j)
    slot = -tag[j] - 1
    if not wvalid[slot]:
        wvalid[slot] = True
        for a in range(3):
            wseen[slot, a] = pos[j, a]
    return row3(wseen, slot)


@nb.njit(cache=_CACHE, inline="always")
def _path_length(n, tag, pos, wlen, gpos, wseen, wvalid):
    """The path's length (m); ``gpos[:n]`` gets the points as OpenSim sees them in ground."""
    total = 0.0
    for j in range(n):
        g = _seen(j, tag, pos, wseen, wvalid)
        for a in range(3):
            gpos[j, a] = g[a]
    for j in range(n - 1):
        if tag[j] < 0 and tag[j + 1] == tag[j] - 1 and (-tag[j]) % 2 == 1:
            total += wlen[(-tag[j] - 1) // 2]
        else:
            total += math.sqrt(dist2(row3(gpos, j + 1), row3(gpos, j)))
    return total


@nb.njit(cache=_CACHE)
def _wrap_one(w, m, n, q, R, O, tag, body, loc, pos, wlen, wseen, wvalid, pk):
    """Apply path wrap ``w`` of muscle ``m`` to the current path; ``(new n, status)``."""
    (pt_body, pt_loc, pt_kind, pt_coord, pt_range, pt_mcoord, pt_fn, m_pt,
     pw_obj, pw_range, m_pw, wo_body, wo_R, wo_p, wo_kind, wo_dim, wo_axis, wo_sign, wo_active, pw_method,
     fk, fs, fn, fin, fd) = pk
    n = _remove_wrap(w, n, tag, body, loc, pos)
    o = pw_obj[w]
    if not wo_active[o]:
        return n, NO_WRAP
    first, count = m_pt[m], m_pt[m + 1] - m_pt[m]
    ws = 0 if pw_range[w, 0] < 1 else pw_range[w, 0] - 1
    we = count - 1 if pw_range[w, 1] < 1 else pw_range[w, 1] - 1
    smp, emp = -1, -1
    for j in range(ws, we + 1):
        if _active(first + j, q, pt_kind, pt_coord, pt_range):
            smp = first + j
            break
    for j in range(we, ws - 1, -1):
        if _active(first + j, q, pt_kind, pt_coord, pt_range):
            emp = first + j
            break
    if smp < 0 or emp < 0:
        return n, NO_WRAP
    start, end = -1, -1
    for j in range(n):
        if tag[j] == smp:
            start = j
        if tag[j] == emp:
            end = j
    status = NO_WRAP
    best, best_change = -1, np.inf
    b1, b2, blen = (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), 0.0
    wb, wR, wp = wo_body[o], wo_R[o], wo_p[o]
    for j in range(start, end):
        if tag[j] < 0 and tag[j + 1] < 0 and pw_obj[(-tag[j] - 1) // 2] == pw_obj[(-tag[j + 1] - 1) // 2]:
            continue
        x1 = _to_wrap_frame(R, O, row3(pos, j), wb, wR, wp)
        x2 = _to_wrap_frame(R, O, row3(pos, j + 1), wb, wR, wp)
        if wo_kind[o] == 1:
            status, r1, r2, arc = wrap_sphere(x1, x2, wo_dim[o, 0], wo_axis[o], wo_sign[o])
        elif wo_kind[o] == 2:
            status, r1, r2, arc = wrap_ellipsoid(x1, x2, (wo_dim[o, 0], wo_dim[o, 1], wo_dim[o, 2]), wo_axis[o],
                                                 wo_sign[o], pw_method[w])
        elif wo_kind[o] == 3:
            status, r1, r2, arc = wrap_torus(x1, x2, wo_dim[o, 0], wo_dim[o, 1], wo_axis[o], wo_sign[o],
                                             m_pw[m + 1] - m_pw[m] == 1)
        else:
            status, r1, r2, arc = wrap_cylinder(x1, x2, wo_dim[o, 0], wo_dim[o, 1], wo_axis[o], wo_sign[o],
                                                m_pw[m + 1] - m_pw[m] == 1)
        if status == MANDATORY:
            best, b1, b2, blen = j, r1, r2, arc
            break
        if status == WRAPPED:
            g1 = _seen(j, tag, pos, wseen, wvalid)
            g2 = _seen(j + 1, tag, pos, wseen, wvalid)
            t1 = _to_ground(R, O, wb, _wrap_to_body(r1, wR, wp))
            t2 = _to_ground(R, O, wb, _wrap_to_body(r2, wR, wp))
            change = math.sqrt(dist2(g1, t1)) + arc + math.sqrt(dist2(t2, g2)) - math.sqrt(dist2(g1, g2))
            if change < best_change:
                best, b1, b2, blen, best_change = j, r1, r2, arc, change
    if best >= 0:
        l1, l2 = _wrap_to_body(b1, wR, wp), _wrap_to_body(b2, wR, wp)
        n = _insert(best + 1, n, -(2 * w + 1), wb, l1, _to_ground(R, O, wb, l1), tag, body, loc, pos)
        n = _insert(best + 2, n, -(2 * w + 2), wb, l2, _to_ground(R, O, wb, l2), tag, body, loc, pos)
        wlen[w] = blen
    return n, status


@nb.njit(cache=_CACHE, inline="always")
def muscle_path(m, q, R, O, tag, body, loc, pos, wlen, gpos, wseen, wvalid, pk):
    """Build muscle ``m``'s current path in the scratch arrays; ``(point count, length)``.

    ``pos[:n]`` holds the points in ground where their bodies put them, ``gpos[:n]`` where
    OpenSim sees them (``wseen``, ``wvalid``: scratch for the tangent points, 2 per path wrap).

    Parameters
    ----------
    m : int
        The muscle.
    q : numpy.ndarray
        (nq,) coordinates (rad, m), the OpenSim model's order.
    R : numpy.ndarray
        (B, 3, 3) body orientations (body to ground).
    O : numpy.ndarray
        (B, 3) body origins in ground (m).
    tag, body : numpy.ndarray
        (max_points,) int64 scratch, written: each point's packed point index (negative for a wrap's tangent
        point) and body.
    loc, pos : numpy.ndarray
        (max_points, 3) scratch, written: each point in its body (m) and in ground (m).
    wlen : numpy.ndarray
        Scratch: the arc length on each wrap (m).
    gpos : numpy.ndarray
        (max_points, 3) scratch, written: the points as OpenSim sees them in ground (m).
    wseen, wvalid : numpy.ndarray
        Scratch for the tangent points' places in ground and whether they were read.
    pk : tuple of numpy.ndarray
        The packed paths.

    Returns
    -------
    n : int
        Number of points of the path.
    length : float
        The path's length (m).
    """
    pt_body, pt_loc, pt_kind, pt_coord, pt_range, pt_mcoord, pt_fn, m_pt = pk[:8]
    m_pw = pk[10]
    fk, fs, fn, fin, fd = pk[20:25]
    n = 0
    for i in range(m_pt[m], m_pt[m + 1]):
        if _active(i, q, pt_kind, pt_coord, pt_range):
            lc = _point_local(i, q, pt_kind, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)
            n = _insert(n, n, i, pt_body[i], lc, _to_ground(R, O, pt_body[i], lc), tag, body, loc, pos)
    w0, nw = m_pw[m], m_pw[m + 1] - m_pw[m]
    for slot in range(2 * w0, 2 * (w0 + nw)):
        wvalid[slot] = False
    if nw == 0:
        return n, _path_length(n, tag, pos, wlen, gpos, wseen, wvalid)
    order = np.arange(w0, w0 + nw)
    results = np.zeros(nw, np.int64)
    last = np.inf
    length = 0.0
    for kk in range(1 if nw < 2 else 8):
        for i in range(nw):
            n, results[i] = _wrap_one(order[i], m, n, q, R, O, tag, body, loc, pos, wlen, wseen, wvalid, pk)
        length = _path_length(n, tag, pos, wlen, gpos, wseen, wvalid)
        if abs(length - last) < 0.0005:
            break
        last = length
        if kk == 0 and nw > 1 and results[0] == NO_WRAP and results[1] == INSIDE:
            order[0], order[1] = w0 + 1, w0
            n = _remove_wrap(w0, n, tag, body, loc, pos)
    return n, length


@nb.njit(cache=_CACHE, inline="always")
def path_rates(n, tag, body, pos, gpos, O, J, kcol, ks, across_bodies_only, out):
    """Add to ``out[k]`` the rate of the path's length that the bodies' motion gives, for each
    velocity direction ``k`` (m/s): straight segments only, points carried by their bodies.
    ``J[b, 0:3, kcol[k]]`` is body b's angular velocity and ``J[b, 3:6, kcol[k]]`` its origin's velocity;
    only the directions ``ks`` are computed (the others leave the length alone).

    Parameters
    ----------
    n : int
        Number of points of the path.
    tag, body, pos, gpos : numpy.ndarray
        The path as :func:`muscle_path` left it.
    O : numpy.ndarray
        (B, 3) body origins in ground (m).
    J : numpy.ndarray
        (B, 6, C) the bodies' angular velocity (rad/s) and origin velocity (m/s) per unit of each column.
    kcol : numpy.ndarray
        (K,) int64, the column of ``J`` of each direction.
    ks : numpy.ndarray
        The directions to compute.
    across_bodies_only : bool
        Leave out segments between two points of one body.
    out : numpy.ndarray
        (K,) length rates (m/s per unit rate), added to.
    """
    for j in range(n - 1):
        if tag[j] < 0 and tag[j + 1] == tag[j] - 1 and (-tag[j]) % 2 == 1:
            continue
        b0, b1 = body[j], body[j + 1]
        if across_bodies_only and b0 == b1:
            continue
        u = unit(sub(row3(gpos, j + 1), row3(gpos, j)))
        r0, r1 = sub(row3(pos, j), row3(O, b0)), sub(row3(pos, j + 1), row3(O, b1))
        for k in ks:
            c = kcol[k]
            v0 = add((J[b0, 3, c], J[b0, 4, c], J[b0, 5, c]), cross((J[b0, 0, c], J[b0, 1, c], J[b0, 2, c]), r0))
            v1 = add((J[b1, 3, c], J[b1, 4, c], J[b1, 5, c]), cross((J[b1, 0, c], J[b1, 1, c], J[b1, 2, c]), r1))
            out[k] += dot(u, sub(v1, v0))


@nb.njit(cache=_CACHE, inline="always")
def moving_point_rates(n, tag, body, gpos, q, R, qd, ks, across_bodies_only, out, pk):
    """Add to ``out[k]`` what the moving points' own motion on their bodies adds to the length's rate.

    Parameters
    ----------
    n : int
        Number of points of the path.
    tag, body, gpos : numpy.ndarray
        The path as :func:`muscle_path` left it.
    q : numpy.ndarray
        (nq,) coordinates (rad, m).
    R : numpy.ndarray
        (B, 3, 3) body orientations (body to ground).
    qd : numpy.ndarray
        (K, nq) the coordinates' rates of each direction.
    ks : numpy.ndarray
        The directions to compute.
    across_bodies_only : bool
        Leave out neighbours on the moving point's own body.
    out : numpy.ndarray
        (K,) length rates (m/s per unit rate), added to.
    pk : tuple of numpy.ndarray
        The packed paths.
    """
    pt_kind, pt_loc, pt_mcoord, pt_fn = pk[2], pk[1], pk[5], pk[6]
    fk, fs, fn, fin, fd = pk[20:25]
    for j in range(n):
        i = tag[j]
        if i < 0 or pt_kind[i] != 2:
            continue
        sx = _coordinate_function(i, 0, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[1]
        sy = _coordinate_function(i, 1, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[1]
        sz = _coordinate_function(i, 2, q, pt_loc, pt_mcoord, pt_fn, fk, fs, fn, fin, fd)[1]
        cx, cy, cz = pt_mcoord[i, 0], pt_mcoord[i, 1], pt_mcoord[i, 2]
        Rb = R[body[j]]
        for side in (-1, 1):
            o = j + side
            if o < 0 or o >= n or (across_bodies_only and body[o] == body[j]):
                continue
            u = mat_t_vec(Rb, unit(sub(row3(gpos, o), row3(gpos, j))))   # toward the neighbour, body frame
            for k in ks:
                rate = (sx * qd[k, cx] if cx >= 0 else 0.0, sy * qd[k, cy] if cy >= 0 else 0.0,
                        sz * qd[k, cz] if cz >= 0 else 0.0)
                out[k] -= dot(u, rate)


@nb.njit(cache=_CACHE, parallel=True)
def trial_paths(Q, Rs, Os, Js, kcol, QDs, m_dir, dirs, across_bodies_only, n_muscles, max_points, pk):
    """Lengths (F x M, m) and length rates (F x M x K, m/s) of every muscle over a trial.

    ``Q`` (F x nq), ``Rs`` (F x B x 3 x 3), ``Os`` (F x B x 3), ``Js`` (F x B x 6 x C): the bodies'
    angular and origin velocities per unit of C rates; direction k takes column ``kcol[k]`` (K,) and
    moves the coordinates at ``QDs[:, k]`` (F x K x nq); K may be 0.  Muscle m's rates are computed
    for the directions ``dirs[m_dir[m]:m_dir[m + 1]]`` only (the coordinates it crosses), the others 0.

    Parameters
    ----------
    Q : numpy.ndarray
        (F, nq) coordinates (rad, m).
    Rs, Os : numpy.ndarray
        (F, B, 3, 3) body orientations and (F, B, 3) origins in ground (m).
    Js : numpy.ndarray
        (F, B, 6, C) body angular and origin velocities per unit rate.
    kcol : numpy.ndarray
        (K,) int64, the column of ``Js`` of each direction.
    QDs : numpy.ndarray
        (F, K, nq) the coordinates' rates of each direction.
    m_dir, dirs : numpy.ndarray
        int64: muscle m's directions are ``dirs[m_dir[m]:m_dir[m + 1]]``.
    across_bodies_only : bool
        Leave out segments within one body (OpenSim's moment-arm solver).
    n_muscles : int
        M.
    max_points : int
        Most points a path can hold.
    pk : tuple of numpy.ndarray
        The packed paths.

    Returns
    -------
    lengths : numpy.ndarray
        (F, M) m.
    rates : numpy.ndarray
        (F, M, K) m/s per unit rate of each direction.
    """
    F = Q.shape[0]
    K = kcol.shape[0]
    lengths = np.empty((F, n_muscles))
    rates = np.zeros((F, n_muscles, K))
    nw_max = max(1, np.max(pk[10][1:] - pk[10][:-1]))
    for f in nb.prange(F):
        tag = np.empty(max_points, np.int64)
        body = np.empty(max_points, np.int64)
        loc = np.empty((max_points, 3))
        pos = np.empty((max_points, 3))
        wlen = np.zeros(pk[8].shape[0] + nw_max)
        gpos = np.empty((max_points, 3))
        wseen = np.empty((2 * pk[8].shape[0] + 2, 3))
        wvalid = np.zeros(2 * pk[8].shape[0] + 2, np.bool_)
        for m in range(n_muscles):
            n, length = muscle_path(m, Q[f], Rs[f], Os[f], tag, body, loc, pos, wlen, gpos, wseen, wvalid, pk)
            lengths[f, m] = length
            if K > 0:
                ks = dirs[m_dir[m]:m_dir[m + 1]]
                path_rates(n, tag, body, pos, gpos, Os[f], Js[f], kcol, ks, across_bodies_only, rates[f, m])
                moving_point_rates(n, tag, body, gpos, Q[f], Rs[f], QDs[f], ks, across_bodies_only, rates[f, m], pk)
    return lengths, rates


@nb.njit(cache=_CACHE, parallel=True)
def trial_path_points(Q, Rs, Os, n_muscles, max_points, pk):
    """Every muscle's current path in ground (F x M x max_points x 3, m; NaN past its last point)
    and the number of points (F x M).

    Parameters
    ----------
    Q : numpy.ndarray
        (F, nq) coordinates (rad, m).
    Rs, Os : numpy.ndarray
        (F, B, 3, 3) body orientations and (F, B, 3) origins in ground (m).
    n_muscles : int
        M.
    max_points : int
        Most points a path can hold.
    pk : tuple of numpy.ndarray
        The packed paths.

    Returns
    -------
    points : numpy.ndarray
        (F, M, max_points, 3) m.
    counts : numpy.ndarray
        (F, M) int64.
    """
    F = Q.shape[0]
    out = np.full((F, n_muscles, max_points, 3), np.nan)
    counts = np.zeros((F, n_muscles), np.int64)
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
            n, _ = muscle_path(m, Q[f], Rs[f], Os[f], tag, body, loc, pos, wlen, gpos, wseen, wvalid, pk)
            counts[f, m] = n
            out[f, m, :n] = pos[:n]
    return out, counts

"""Numba kernels of the core (:mod:`humanbody.core`): functions of coordinates and the tree of joint axes.

A model reaches these kernels as plain arrays (:class:`humanbody.core.model.Model`
compiles itself to them):

- a *function table* ``fcode, fstart, fsize, finner, fcoef``
  (:mod:`humanbody._kernels.functions`, evaluated by its ``function_value``);
- the bodies ``0 .. B-1`` with ``parents[b] < b`` (-1 = ground), each with a
  constant placement of its joint frame in the parent body (``pR``, ``pp``),
  a run of *axes* ``astart[b] .. astart[b+1]-1`` applied in order, each a
  rotation (kind 0) about or a translation (kind 1) along a unit vector of
  the frame the previous axes produced, by ``value = f(q[c])``, and a
  constant placement of the body frame in the joint's child frame (``cR``, ``cp``).

Vectors are in ground components; a 3x3 matrix maps frame components to its
parent's (``x_parent = R x_frame``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .functions import function_value
from .rot import load33, mul33, mv33
from .vec3 import add, cross, dot, load3, scale, store3, sub

drop_stale_kernels()

_CACHE = True

@nb.njit(cache=_CACHE)
def couple_coordinates(q, qd, qdd, dep, fun, ind, fcode, fstart, fsize, finner, fcoef, slope):
    """Coordinate couplers, in order: ``q_d = f(q_i)`` and its rates by the chain rule, every frame.

    ``q_d' = f' q_i'``, ``q_d'' = f'' q_i'^2 + f' q_i''``; ``slope`` (F, ncoupler) receives f'.
    q, qd, qdd (F, nq) are written in place.

    Parameters
    ----------
    q, qd, qdd : numpy.ndarray
        (F, nq) coordinates (rad, m) and their rates; the dependent columns written.
    dep, fun, ind : numpy.ndarray
        (ncoupler,) int64: each coupler's dependent coordinate, function and independent coordinate.
    fcode, fstart, fsize, finner, fcoef : numpy.ndarray
        The function table.
    slope : numpy.ndarray
        (F, ncoupler) written: ``f'(q_i)``.
    """
    for f in range(q.shape[0]):
        for k in range(dep.shape[0]):
            d, i = dep[k], ind[k]
            v, d1, d2 = function_value(fcode, fstart, fsize, finner, fcoef, fun[k], q[f, i])
            q[f, d] = v
            qd[f, d] = d1 * qd[f, i]
            qdd[f, d] = d2 * qd[f, i] * qd[f, i] + d1 * qdd[f, i]
            slope[f, k] = d1


@nb.njit(cache=_CACHE)
def axis_values(q, qd, qdd, afun, acoord, fcode, fstart, fsize, finner, fcoef, val, slope, rate, accel):
    """Every joint axis's value ``v = f(q_c)``, ``f'``, ``v'`` and ``v''``, every frame; outputs (F, A).

    ``afun[a] = -1`` means ``v = q_c``; ``acoord[a] = -1`` a constant ``v = f(0)``.

    Parameters
    ----------
    q, qd, qdd : numpy.ndarray
        (F, nq) coordinates (rad, m) and their rates.
    afun, acoord : numpy.ndarray
        (A,) int64: each axis's function and coordinate.
    fcode, fstart, fsize, finner, fcoef : numpy.ndarray
        The function table.
    val, slope, rate, accel : numpy.ndarray
        (F, A) written: ``v`` (rad or m), ``f'(q_c)`` (0 for a constant axis), ``v'``, ``v''``.
    """
    for f in range(q.shape[0]):
        for a in range(afun.shape[0]):
            c = acoord[a]
            x = q[f, c] if c >= 0 else 0.0
            if afun[a] < 0:
                v, d1, d2 = x, 1.0, 0.0
            else:
                v, d1, d2 = function_value(fcode, fstart, fsize, finner, fcoef, afun[a], x)
            xd = qd[f, c] if c >= 0 else 0.0
            xdd = qdd[f, c] if c >= 0 else 0.0
            val[f, a] = v
            slope[f, a] = d1 if c >= 0 else 0.0
            rate[f, a] = d1 * xd
            accel[f, a] = d2 * xd * xd + d1 * xdd


@nb.njit(cache=_CACHE, inline="always")
def axis_rotation(u, v):
    """Rotation by angle ``v`` about unit vector ``u`` (frame components): ``c I + s [u]x + (1 - c) u u^T``.

    About a coordinate axis the matrix is the elementary one, exactly.

    Parameters
    ----------
    u : tuple of 3 float
        Unit axis, frame components.
    v : float
        Angle (rad).

    Returns
    -------
    tuple of 9 float
        The 3x3 rotation matrix, row by row.
    """
    s, c = np.sin(v), np.cos(v)
    x, y, z = u
    if y == 0.0 and z == 0.0 and x == 1.0:
        return (1.0, 0.0, 0.0, 0.0, c, -s, 0.0, s, c)
    if x == 0.0 and z == 0.0 and y == 1.0:
        return (c, 0.0, s, 0.0, 1.0, 0.0, -s, 0.0, c)
    if x == 0.0 and y == 0.0 and z == 1.0:
        return (c, -s, 0.0, s, c, 0.0, 0.0, 0.0, 1.0)
    t = 1.0 - c
    return (c + t * x * x, t * x * y - s * z, t * x * z + s * y,
            t * x * y + s * z, c + t * y * y, t * y * z - s * x,
            t * x * z - s * y, t * y * z + s * x, c + t * z * z)


@nb.njit(cache=_CACHE, inline="always")
def carry(o, v, a, w, al, r):
    """Point ``o + r`` of a moving frame: position, velocity ``v + w x r``, acceleration ``a + al x r + w x (w x r)``.

    Parameters
    ----------
    o, v, a : tuple of 3 float
        A point of the frame: position (m), velocity (m/s), acceleration (m/s^2), ground components.
    w, al : tuple of 3 float
        The frame's angular velocity (rad/s) and acceleration (rad/s^2).
    r : tuple of 3 float
        Offset of the point carried (m), ground components.

    Returns
    -------
    position, velocity, acceleration : tuple of 3 float
        Of ``o + r``.
    """
    wr = cross(w, r)
    return add(o, r), add(v, wr), add(add(a, cross(al, r)), cross(w, wr))


@nb.njit(cache=_CACHE, inline="always")
def _tup9(M, f, b):
    return (M[f, b, 0, 0], M[f, b, 0, 1], M[f, b, 0, 2], M[f, b, 1, 0], M[f, b, 1, 1], M[f, b, 1, 2],
            M[f, b, 2, 0], M[f, b, 2, 1], M[f, b, 2, 2])


@nb.njit(cache=_CACHE, inline="always")
def _put9(M, f, b, t):
    (M[f, b, 0, 0], M[f, b, 0, 1], M[f, b, 0, 2], M[f, b, 1, 0], M[f, b, 1, 1], M[f, b, 1, 2],
     M[f, b, 2, 0], M[f, b, 2, 1], M[f, b, 2, 2]) = t


@nb.njit(cache=_CACHE)
def _tree_frame(f, parents, astart, akind, aaxis, pR, pp, cR, cp, val, rate, accel,
                R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, aaxis_g):
    """Frame f of :func:`joint_tree`."""
    for b in range(parents.shape[0]):
        p = parents[b]
        if p < 0:
            Rk = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
            o = v = a = w = al = (0.0, 0.0, 0.0)
        else:
            Rk = _tup9(R, f, p)
            o, v, a = load3(origin, f, p), load3(velocity, f, p), load3(acceleration, f, p)
            w, al = load3(omega, f, p), load3(alpha, f, p)
        o, v, a = carry(o, v, a, w, al, mv33(Rk, (pp[b, 0], pp[b, 1], pp[b, 2])))
        Rk = mul33(Rk, load33(pR, b))
        _put9(jR, f, b, Rk)
        store3(jorigin, f, b, o)
        for k in range(astart[b], astart[b + 1]):
            u = mv33(Rk, (aaxis[k, 0], aaxis[k, 1], aaxis[k, 2]))
            store3(aorigin, f, k, o)
            store3(aaxis_g, f, k, u)
            x, xd, xdd = val[f, k], rate[f, k], accel[f, k]
            if akind[k] == 0:
                Rk = mul33(Rk, axis_rotation((aaxis[k, 0], aaxis[k, 1], aaxis[k, 2]), x))
                al = add(add(al, scale(u, xdd)), scale(cross(w, u), xd))
                w = add(w, scale(u, xd))
            else:
                o, v, a = carry(o, v, a, w, al, scale(u, x))
                v = add(v, scale(u, xd))
                a = add(add(a, scale(cross(w, u), 2.0 * xd)), scale(u, xdd))
        o, v, a = carry(o, v, a, w, al, mv33(Rk, (cp[b, 0], cp[b, 1], cp[b, 2])))
        Rk = mul33(Rk, load33(cR, b))
        _put9(R, f, b, Rk)
        store3(origin, f, b, o)
        store3(velocity, f, b, v)
        store3(acceleration, f, b, a)
        store3(omega, f, b, w)
        store3(alpha, f, b, al)


@nb.njit(cache=_CACHE, parallel=True)
def joint_tree(parents, astart, akind, aaxis, pR, pp, cR, cp, val, rate, accel,
               R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, aaxis_g):
    """Forward kinematics of the tree of joint axes, every frame (frames in parallel).

    For body b with parent p (the ground at rest when p = -1): the joint frame
    ``(R_p pR_b, o_p + R_p pp_b)``; then each axis a of the joint in order,
    with ``u = R u_a`` in ground components:

    - rotation: ``R <- R Rot(u_a, v)``, ``omega <- omega + u v'``,
      ``alpha <- alpha + u v'' + omega x u v'``;
    - translation: ``o <- o + u v``, ``o' <- o' + omega x u v + u v'``,
      ``o'' <- o'' + alpha x u v + omega x (omega x u v) + 2 omega x u v' + u v''``;

    then the body frame ``(R cR_b, o + R cp_b)``.  Outputs (written), F frames,
    B bodies, A axes: R, jR (F, B, 3, 3); origin, omega, velocity, alpha,
    acceleration, jorigin (F, B, 3); aorigin, aaxis_g (F, A, 3): each axis's
    point and unit vector before it acts.

    Parameters
    ----------
    parents : numpy.ndarray
        (B,) int64, ``parents[b] < b``, -1 = ground.
    astart : numpy.ndarray
        (B + 1,) int64, the run of axes of each body.
    akind : numpy.ndarray
        (A,) int64, 0 rotation, 1 translation.
    aaxis : numpy.ndarray
        (A, 3) unit vectors in the frame the previous axes produced.
    pR, pp : numpy.ndarray
        (B, 3, 3) and (B, 3): joint frame in the parent body (m).
    cR, cp : numpy.ndarray
        (B, 3, 3) and (B, 3): body frame in the joint's child frame (m).
    val, rate, accel : numpy.ndarray
        (F, A) axis values (rad or m) and their rates (:func:`axis_values`).
    R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, aaxis_g : numpy.ndarray
        Written, as above (m, m/s, m/s^2, rad/s, rad/s^2).
    """
    for f in nb.prange(val.shape[0]):
        _tree_frame(f, parents, astart, akind, aaxis, pR, pp, cR, cp, val, rate, accel,
                    R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, aaxis_g)


@nb.njit(cache=_CACHE)
def _point_jacobian_frame(f, parents, astart, akind, acoord, aorigin, aaxis_g, slope, body, point, J):
    """One frame of :func:`translational_jacobian`."""
    for m in range(J.shape[1]):
        for i in range(3):
            for c in range(J.shape[3]):
                J[f, m, i, c] = 0.0
        x = load3(point, f, m)
        b = body[m]
        while b >= 0:
            for k in range(astart[b], astart[b + 1]):
                c = acoord[k]
                if c < 0:
                    continue
                u = load3(aaxis_g, f, k)
                col = cross(u, sub(x, load3(aorigin, f, k))) if akind[k] == 0 else u
                s = slope[f, k]
                J[f, m, 0, c] += s * col[0]
                J[f, m, 1, c] += s * col[1]
                J[f, m, 2, c] += s * col[2]
            b = parents[b]


@nb.njit(cache=_CACHE, parallel=True)
def translational_jacobian(parents, astart, akind, acoord, aorigin, aaxis_g, slope, body, point, J):
    """Jacobian ``d x / d q`` of points fixed on bodies, every frame; J (F, M, 3, nq) written (zeroed here).

    Point m lies on ``body[m]`` at ``point[f, m]`` (ground, m).  Each axis a of
    a joint on the path from the body to the ground adds to column ``c = acoord[a]``:
    ``f'(q_c) u_a x (x - o_a)`` for a rotation, ``f'(q_c) u_a`` for a translation.

    Parameters
    ----------
    parents, astart, akind : numpy.ndarray
        The tree, as :func:`joint_tree`.
    acoord : numpy.ndarray
        (A,) int64, each axis's coordinate (-1: constant).
    aorigin, aaxis_g : numpy.ndarray
        (F, A, 3) from :func:`joint_tree`.
    slope : numpy.ndarray
        (F, A) ``f'(q_c)`` of each axis (:func:`axis_values`).
    body : numpy.ndarray
        (M,) int64, the body of each point.
    point : numpy.ndarray
        (F, M, 3) the points in ground (m).
    J : numpy.ndarray
        (F, M, 3, nq) written (m per rad or m per m).
    """
    for f in nb.prange(J.shape[0]):
        _point_jacobian_frame(f, parents, astart, akind, acoord, aorigin, aaxis_g, slope, body, point, J)


@nb.njit(cache=_CACHE)
def _newton_euler_frame(f, parents, astart, akind, acoord, mass, com_body, inertia, gravity,
                        R, origin, omega, alpha, acceleration, aorigin, aaxis_g, slope, external,
                        force, moment, tau):
    """Frame f of :func:`newton_euler`."""
    B = parents.shape[0]
    for c in range(tau.shape[1]):
        tau[f, c] = 0.0
    for b in range(B):
        Rk = _tup9(R, f, b)
        w, al = load3(omega, f, b), load3(alpha, f, b)
        r = mv33(Rk, (com_body[b, 0], com_body[b, 1], com_body[b, 2]))
        aG = add(add(load3(acceleration, f, b), cross(al, r)), cross(w, cross(w, r)))
        Fb = scale(sub(aG, (gravity[0], gravity[1], gravity[2])), mass[b])
        J = (inertia[b, 0, 0], inertia[b, 0, 1], inertia[b, 0, 2], inertia[b, 1, 0], inertia[b, 1, 1],
             inertia[b, 1, 2], inertia[b, 2, 0], inertia[b, 2, 1], inertia[b, 2, 2])
        bw = mv33((Rk[0], Rk[3], Rk[6], Rk[1], Rk[4], Rk[7], Rk[2], Rk[5], Rk[8]), w)
        ba = mv33((Rk[0], Rk[3], Rk[6], Rk[1], Rk[4], Rk[7], Rk[2], Rk[5], Rk[8]), al)
        Nb = mv33(Rk, add(mv33(J, ba), cross(bw, mv33(J, bw))))
        Nb = add(Nb, cross(r, Fb))
        store3(force, f, b, sub(Fb, (external[f, b, 0], external[f, b, 1], external[f, b, 2])))
        store3(moment, f, b, sub(Nb, (external[f, b, 3], external[f, b, 4], external[f, b, 5])))
    for b in range(B - 1, -1, -1):
        fb, nb_ = load3(force, f, b), load3(moment, f, b)
        o = load3(origin, f, b)
        for k in range(astart[b], astart[b + 1]):
            c = acoord[k]
            if c < 0:
                continue
            u = load3(aaxis_g, f, k)
            if akind[k] == 0:
                tau[f, c] += slope[f, k] * dot(u, add(nb_, cross(sub(o, load3(aorigin, f, k)), fb)))
            else:
                tau[f, c] += slope[f, k] * dot(u, fb)
        p = parents[b]
        if p >= 0:
            op = load3(origin, f, p)
            store3(force, f, p, add(load3(force, f, p), fb))
            store3(moment, f, p, add(add(load3(moment, f, p), nb_), cross(sub(o, op), fb)))


@nb.njit(cache=_CACHE, parallel=True)
def newton_euler(parents, astart, akind, acoord, mass, com_body, inertia, gravity,
                 R, origin, omega, alpha, acceleration, aorigin, aaxis_g, slope, external,
                 force, moment, tau):
    """Recursive Newton-Euler: joint loads tips to root and the generalized forces, every frame.

    With ``G = o + R r``, ``a_G`` from the body's motion, ``I_g = R I R^T``:
    ``f_b = m (a_G - g) + sum_children f_c - f_ext``,
    ``n_b = I_g alpha + omega x I_g omega + (G - o) x m (a_G - g)
    + sum_children (n_c + (o_c - o) x f_c) - n_ext`` (moments about the body
    origin o; ``external`` (F, B, 6): force, moment about o, ground).  Axis a
    of body b adds ``f'(q_c) u_a . (n_b + (o - o_a) x f_b)`` (rotation) or
    ``f'(q_c) u_a . f_b`` (translation) to ``tau[f, c]``.  Outputs force,
    moment (F, B, 3): what each body receives from its parent; tau (F, nq) (zeroed here).

    Parameters
    ----------
    parents, astart, akind, acoord : numpy.ndarray
        The tree, as :func:`translational_jacobian`.
    mass : numpy.ndarray
        (B,) kg.
    com_body : numpy.ndarray
        (B, 3) mass centre in the body frame (m).
    inertia : numpy.ndarray
        (B, 3, 3) inertia about the mass centre, body components (kg m^2).
    gravity : numpy.ndarray
        (3,) m/s^2.
    R, origin, omega, alpha, acceleration, aorigin, aaxis_g : numpy.ndarray
        From :func:`joint_tree`.
    slope : numpy.ndarray
        (F, A) from :func:`axis_values`.
    external : numpy.ndarray
        (F, B, 6) external force (N) and moment about the body origin (N m), ground components.
    force, moment : numpy.ndarray
        (F, B, 3) written (N, N m).
    tau : numpy.ndarray
        (F, nq) written: generalized forces (N m, N).
    """
    for f in nb.prange(R.shape[0]):
        _newton_euler_frame(f, parents, astart, akind, acoord, mass, com_body, inertia, gravity,
                            R, origin, omega, alpha, acceleration, aorigin, aaxis_g, slope, external,
                            force, moment, tau)


@nb.njit(cache=_CACHE, parallel=True)
def angular_jacobian(parents, astart, akind, acoord, aaxis_g, slope, body, J):
    """``d omega / d q'`` of bodies, every frame: J (F, M, 3, nq) written (zeroed here).

    Each rotation axis a on the path from ``body[m]`` to the ground adds
    ``f'(q_c) u_a`` to column ``c = acoord[a]``.

    Parameters
    ----------
    parents, astart, akind, acoord : numpy.ndarray
        The tree, as :func:`translational_jacobian`.
    aaxis_g : numpy.ndarray
        (F, A, 3) from :func:`joint_tree`.
    slope : numpy.ndarray
        (F, A) from :func:`axis_values`.
    body : numpy.ndarray
        (M,) int64, the bodies.
    J : numpy.ndarray
        (F, M, 3, nq) written (rad/s per unit rate).
    """
    for f in nb.prange(J.shape[0]):
        for m in range(J.shape[1]):
            for i in range(3):
                for c in range(J.shape[3]):
                    J[f, m, i, c] = 0.0
            b = body[m]
            while b >= 0:
                for k in range(astart[b], astart[b + 1]):
                    c = acoord[k]
                    if c < 0 or akind[k] != 0:
                        continue
                    s = slope[f, k]
                    J[f, m, 0, c] += s * aaxis_g[f, k, 0]
                    J[f, m, 1, c] += s * aaxis_g[f, k, 1]
                    J[f, m, 2, c] += s * aaxis_g[f, k, 2]
                b = parents[b]


@nb.njit(cache=_CACHE)
def _composites(f, parents, mass, com_body, inertia, R, origin, cm, cc, cJ):
    """Frame f: every body's composite (itself and its descendants) about its origin, ground components.

    ``cm[b]`` mass (kg), ``cc[b] = sum m_i (G_i - o_b)`` (kg m), ``cJ[b]`` inertia about o_b (kg m^2).
    A body starts with ``R I R^T + m (|r|^2 E - r r^T)``, ``r = R com_b``; tips to root each composite
    is carried to its parent's origin by ``d = o_b - o_p``: ``c_p += c + m d``,
    ``J_p += J + 2 (c . d) E - c d^T - d c^T + m (|d|^2 E - d d^T)``.
    """
    B = parents.shape[0]
    for b in range(B):
        m = mass[b]
        r = mv33(_tup9(R, f, b), (com_body[b, 0], com_body[b, 1], com_body[b, 2]))
        rr = dot(r, r)
        cm[b] = m
        for i in range(3):
            cc[b, i] = m * r[i]
            for j in range(3):
                s = 0.0  # (R I R^T)_ij
                for a in range(3):
                    t = 0.0
                    for k in range(3):
                        t += inertia[b, a, k] * R[f, b, j, k]
                    s += R[f, b, i, a] * t
                cJ[b, i, j] = s + m * ((rr if i == j else 0.0) - r[i] * r[j])
    for b in range(B - 1, -1, -1):
        p = parents[b]
        if p < 0:
            continue
        m = cm[b]
        d = sub(load3(origin, f, b), load3(origin, f, p))
        c = (cc[b, 0], cc[b, 1], cc[b, 2])
        cd, dd = dot(c, d), dot(d, d)
        cm[p] += m
        for i in range(3):
            cc[p, i] += c[i] + m * d[i]
            for j in range(3):
                e = 1.0 if i == j else 0.0
                cJ[p, i, j] += cJ[b, i, j] + 2.0 * cd * e - c[i] * d[j] - d[i] * c[j] + m * (dd * e - d[i] * d[j])


@nb.njit(cache=_CACHE)
def _crba_frame(f, parents, astart, akind, acoord, mass, com_body, inertia, R, origin, aorigin, aaxis_g, slope,
                M, cm, cc, cJ):
    """Frame f of :func:`composite_mass_matrix`."""
    n = M.shape[1]
    for i in range(n):
        for j in range(n):
            M[f, i, j] = 0.0
    _composites(f, parents, mass, com_body, inertia, R, origin, cm, cc, cJ)
    for b in range(parents.shape[0]):
        ob = load3(origin, f, b)
        c = (cc[b, 0], cc[b, 1], cc[b, 2])
        for a in range(astart[b], astart[b + 1]):
            col = acoord[a]
            if col < 0:
                continue
            u = load3(aaxis_g, f, a)
            if akind[a] == 0:  # unit rate about u through p: v(o_b) = u x (o_b - p), omega = u
                v0 = cross(u, sub(ob, load3(aorigin, f, a)))
                h = add(scale(v0, cm[b]), cross(u, c))
                L = add(mv33(load33(cJ, b), u), cross(c, v0))
            else:  # unit rate along u
                h = scale(u, cm[b])
                L = cross(c, u)
            sa = slope[f, a]
            k = b
            last = a
            while k >= 0:
                for a2 in range(astart[k], min(astart[k + 1], last + 1)):
                    row = acoord[a2]
                    if row < 0:
                        continue
                    u2 = load3(aaxis_g, f, a2)
                    if akind[a2] == 0:
                        val = dot(u2, add(L, cross(sub(ob, load3(aorigin, f, a2)), h)))
                    else:
                        val = dot(u2, h)
                    val *= sa * slope[f, a2]
                    M[f, row, col] += val
                    if a2 != a:
                        M[f, col, row] += val
                k = parents[k]
                last = astart[k + 1] - 1 if k >= 0 else -1


@nb.njit(cache=_CACHE, parallel=True)
def composite_mass_matrix(parents, astart, akind, acoord, mass, com_body, inertia, R, origin, aorigin, aaxis_g,
                          slope, M):
    """The joint-space mass matrix by the composite rigid body algorithm, every frame; M (F, nq, nq) written.

    Featherstone (2008, section 6.2) on the tree of joint axes: with the
    composite of body b (itself and its descendants; mass m, first moment c
    and inertia J about the body origin o, :func:`_composites`), a unit rate
    of axis a of b's joint gives the composite the momentum ``h`` and the
    moment of momentum ``L`` about o:

    - rotation about ``u_a`` through ``o_a``: ``v = u_a x (o - o_a)``,
      ``h = m v + u_a x c``, ``L = J u_a + c x v``;
    - translation along ``u_a``: ``h = m u_a``, ``L = c x u_a``.

    Every axis a' that moves the composite (the axes of b's joint up to a,
    then every axis of the joints on the path to the ground) adds the
    projection of that momentum on its motion,
    ``f'_a f'_a' u_a' . (L + (o - o_a') x h)`` (rotation) or
    ``f'_a f'_a' u_a' . h`` (translation), to ``M[c_a', c_a]`` and its mirror
    (``c`` the axes' coordinates), so M is exactly symmetric.  Couplers are
    not folded here (:func:`humanbody.core.dynamics.mass_matrix` does).

    Parameters
    ----------
    parents, astart, akind, acoord : numpy.ndarray
        The tree, as :func:`translational_jacobian`.
    mass : numpy.ndarray
        (B,) body masses (kg).
    com_body : numpy.ndarray
        (B, 3) mass centres in the body frames (m).
    inertia : numpy.ndarray
        (B, 3, 3) inertias about the mass centres, body components (kg m^2).
    R, origin : numpy.ndarray
        (F, B, 3, 3) and (F, B, 3): body poses from :func:`joint_tree` (origin in m).
    aorigin, aaxis_g : numpy.ndarray
        (F, A, 3) each axis's point (m) and unit vector from :func:`joint_tree`.
    slope : numpy.ndarray
        (F, A) ``f'(q_c)`` of each axis (:func:`axis_values`).
    M : numpy.ndarray
        (F, nq, nq) written: kg, kg m, kg m^2 by the coordinates' units.
    """
    B = parents.shape[0]
    for f in nb.prange(M.shape[0]):
        cm, cc, cJ = np.empty(B), np.empty((B, 3)), np.empty((B, 3, 3))
        _crba_frame(f, parents, astart, akind, acoord, mass, com_body, inertia, R, origin, aorigin, aaxis_g,
                    slope, M, cm, cc, cJ)


@nb.njit(cache=_CACHE)
def _joint_frame_motion_frame(f, parents, astart, akind, acoord, origin, speed_axes, u, omega, velocity, alpha,
                              acceleration):
    """Frame f of :func:`joint_frame_motion`."""
    zero = (0.0, 0.0, 0.0)
    for b in range(parents.shape[0]):
        p = parents[b]
        o = load3(origin, f, b)
        w, v, al, a, d = zero, zero, zero, zero, zero
        if p >= 0:
            w, v, al, a = load3(omega, f, p), load3(velocity, f, p), load3(alpha, f, p), load3(acceleration, f, p)
            d = sub(o, load3(origin, f, p))
        wr, vr = zero, zero
        for k in range(astart[b], astart[b + 1]):
            c = acoord[k]
            if c < 0:
                continue
            e = scale(load3(speed_axes, f, k), u[f, c])
            if akind[k] == 0:
                wr = add(wr, e)
            else:
                vr = add(vr, e)
        wd = cross(w, d)
        store3(omega, f, b, add(w, wr))
        store3(alpha, f, b, add(al, cross(w, wr)))
        store3(velocity, f, b, add(add(v, wd), vr))
        store3(acceleration, f, b, add(add(add(a, cross(al, d)), cross(w, wd)), scale(cross(w, vr), 2.0)))


@nb.njit(cache=_CACHE, parallel=True)
def joint_frame_motion(parents, astart, akind, acoord, origin, speed_axes, u, omega, velocity, alpha, acceleration):
    """Velocities and the accelerations at ``u' = 0`` of speeds along axes fixed in each joint frame, every frame.

    Speed ``u_c`` of axis a (``c = acoord[a]``) turns body b about, or moves it
    along, the unit vector ``e_a = speed_axes[f, a]`` fixed in b's joint frame
    (which turns with the parent at ``omega_p``); the rotations are about axes
    through the body origin (the Free root and Cardan joints of
    :func:`humanbody.core.huston.from_body_model`: ``u`` = root velocity, then
    each body's angular velocity relative to its parent along the joint
    frame's axes).  With ``d = o_b - o_p``, ``w_r = sum u_c e_a`` (rotations)
    and ``v_r = sum u_c e_a`` (translations):

    - ``omega_b = omega_p + w_r``, ``alpha_b = alpha_p + omega_p x w_r``;
    - ``v_b = v_p + omega_p x d + v_r``,
      ``a_b = a_p + alpha_p x d + omega_p x (omega_p x d) + 2 omega_p x v_r``

    (the ground at rest for ``parents[b] = -1``).

    Parameters
    ----------
    parents, astart, akind, acoord : numpy.ndarray
        The tree, as :func:`translational_jacobian`.
    origin : numpy.ndarray
        (F, B, 3) body origins in ground (m), from :func:`joint_tree`.
    speed_axes : numpy.ndarray
        (F, A, 3) each axis's speed direction, ground components (unit).
    u : numpy.ndarray
        (F, nq) speeds (m/s along translations, rad/s about rotations).
    omega, velocity, alpha, acceleration : numpy.ndarray
        (F, B, 3) written: angular velocity (rad/s), origin velocity (m/s),
        angular acceleration (rad/s^2) and origin acceleration (m/s^2) at ``u' = 0``.
    """
    for f in nb.prange(u.shape[0]):
        _joint_frame_motion_frame(f, parents, astart, akind, acoord, origin, speed_axes, u, omega, velocity, alpha,
                                  acceleration)

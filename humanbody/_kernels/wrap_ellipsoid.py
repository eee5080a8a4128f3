"""Wrapping one straight path segment over an ellipsoid, as OpenSim 4.6's WrapEllipsoid computes it.

:func:`wrap_ellipsoid` takes the segment's end points in the ellipsoid's frame (centred, semi-axes
``dims`` along x, y, z, m) and returns ``(status, r1, r2, length)`` as the functions of
:mod:`humanbody._kernels.wrap` do.  Every quantity is first multiplied by
``k = 3 / (dims[0] + dims[1] + dims[2])`` so that the ellipsoid's size is about 1, and divided back at the end.

1. The segment wraps only when both ends lie outside the ellipsoid (``sum (p_i / a_i)^2 - 1 >= -1e-4``)
   and the line cuts the ellipsoid between them (the roots ``l1``, ``l2`` of
   ``|(p2 + l (p1 - p2)) / a|^2 = 1`` both in (0, 1)); the entry and exit points are ``r1``, ``r2``.
2. A point ``c1`` on the surface fixes the plane of the path.  The *axial* estimate takes the axis
   most parallel to the segment (largest ``|u_i|`` of its direction ``u``), the point ``sv`` of the
   chord ``r1 r2`` where that coordinate is 0, and the point of that plane's ellipse nearest to it.
   The *fan* estimate averages the directions from 298 evenly spaced chord points to their nearest
   surface points, steps 1 along the mean from the chord's middle and takes the surface point nearest
   to that.  ``hybrid`` uses the axial estimate when ``|u_i| >= 0.9``, the fan one when
   ``|u_i| <= 0.7073``, and between them the nearest surface point to their blend (the axial weight
   fades out as ``sv`` nears the ends of the chord); ``midpoint`` takes the surface point nearest to
   the chord's middle.
3. With a quadrant ``(axis, sign)``, a ``c1`` on the wrong side is mirrored across the plane
   ``x_axis = 0`` (moved back towards that plane by the fan's weight, then put back on the surface).
4. The plane through ``p1``, ``p2`` and ``c1`` (normal ``vs``) holds the path.  Each tangent point
   starts at ``c1`` and is moved by damped Gauss-Newton steps until it is on the surface, in the plane
   and its line to the end point is tangent to the surface (the four residuals' squares sum below
   1e-8, at most 50 steps), the search OpenSim uses.
5. The path on the surface is the cut of the plane between the tangent points, sampled at
   ``n = floor(|r1 - r2| / 1 mm)`` equal angles (at most 499) about a point of the plane on the axis
   its normal is most along; its length is the sum of the chords.  With a quadrant, a path whose
   first or last chord turns back towards its end point goes round the far side instead.

The nearest surface point is Eberly's Newton iteration (Graphics Gems IV) on the ellipsoid, or on
the ellipse of a principal plane when the point lies in it, as OpenSim computes it.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .vec3 import acos_clipped, add, axpy, cross, dot, norm, scale, sub, unit
from .wrap import INSIDE, MANDATORY, NO_WRAP

_CACHE = True

HYBRID, MIDPOINT, AXIAL = 0, 1, 2
_ROUNDOFF = 2e-13
_MU_BLEND_MIN = 0.7073
_MU_BLEND_MAX = 0.9
_FAN_SAMPLES = 300
_SV_BOUNDARY_BLEND = 0.3
_TINY = 1e-8
_ZERO3 = (0.0, 0.0, 0.0)


@nb.njit(cache=_CACHE)
def _nearest_on_ellipse(a, b, u, v):
    """Point of the ellipse ``(x/a)^2 + (y/b)^2 = 1`` nearest to ``(u, v)``: ``(x, y)``."""
    a2, b2 = a * a, b * b
    a2u2, b2v2 = a2 * u * u, b2 * v * v
    near_x, near_y = abs(u) <= _ROUNDOFF, abs(v) <= _ROUNDOFF
    if near_x and near_y:
        if a < b:
            return (-a if u < 0.0 else a), v
        return u, (-b if v < 0.0 else b)
    if near_x:
        if a >= b or abs(v) >= b - a2 / b:
            return u, (b if v >= 0.0 else -b)
        y = b2 * v / (b2 - a2)
        ydb = y / b
        return a * math.sqrt(abs(1.0 - ydb * ydb)), y
    if near_y:
        if b >= a or abs(u) >= a - b2 / a:
            return (a if u >= 0.0 else -a), v
        x = a2 * u / (a2 - b2)
        xda = x / a
        return x, b * math.sqrt(abs(1.0 - xda * xda))
    t = 0.0
    if (u / a) ** 2 + (v / b) ** 2 >= 1.0:
        t = max(a, b) * math.sqrt(u * u + v * v)
    P, Q = t + a2, t + b2
    for _ in range(64):
        P, Q = t + a2, t + b2
        f = P * P * Q * Q - a2u2 * Q * Q - b2v2 * P * P
        if abs(f) < 1e-9:
            break
        t -= f / (2.0 * (P * Q * (P + Q) - a2u2 * Q - b2v2 * P))
    return a2 * u / P, b2 * v / Q


@nb.njit(cache=_CACHE)
def _nearest_on_ellipsoid(a, p, dims, special, fallback):
    """Point of the ellipsoid of semi-axes ``a`` nearest to ``p``.  ``special`` (0-2) solves in the plane
    ``p[special]`` = const; -1 does so when ``p`` lies in a principal plane (the one whose ellipse has the
    smallest sum of ``dims``), else in 3-D.  ``fallback`` is returned when the 3-D iteration fails."""
    if special < 0:
        smallest = np.inf
        for i in range(3):
            if abs(p[i]) <= _ROUNDOFF:
                s = dims[0] + dims[1] + dims[2] - dims[i]
                if smallest > s:
                    special, smallest = i, s
    if special == 0:
        y, z = _nearest_on_ellipse(a[1], a[2], p[1], p[2])
        return (p[0], y, z)
    if special == 1:
        z, x = _nearest_on_ellipse(a[2], a[0], p[2], p[0])
        return (x, p[1], z)
    if special == 2:
        x, y = _nearest_on_ellipse(a[0], a[1], p[0], p[1])
        return (x, y, p[2])
    a2, b2, c2 = a[0] ** 2, a[1] ** 2, a[2] ** 2
    u, v, w = p
    a2u2, b2v2, c2w2 = a2 * u * u, b2 * v * v, c2 * w * w
    t = 0.0
    if (u / a[0]) ** 2 + (v / a[1]) ** 2 + (w / a[2]) ** 2 >= 1.0:
        t = max(a[0], a[1], a[2]) * math.sqrt(u * u + v * v + w * w)
    for _ in range(64):
        P, Q, R = t + a2, t + b2, t + c2
        f = P * P * Q * Q * R * R - a2u2 * Q * Q * R * R - b2v2 * P * P * R * R - c2w2 * P * P * Q * Q
        if abs(f) < 1e-9:
            return (a2 * u / P, b2 * v / Q, c2 * w / R)
        PQ, PR, QR = P * Q, P * R, Q * R
        fp = 2.0 * (PQ * R * (QR + PR + PQ) - a2u2 * QR * (Q + R) - b2v2 * PR * (P + R) - c2w2 * PQ * (P + Q))
        t -= f / fp
    return fallback


@nb.njit(cache=_CACHE, inline="always")
def _residuals(r, d, p, a, vs, vs4):
    """The tangent search's residuals: in the plane, on the surface, the tangent plane through r and p."""
    n = (2.0 * r[0] / a[0] ** 2, 2.0 * r[1] / a[1] ** 2, 2.0 * r[2] / a[2] ** 2)
    e0 = dot(vs, r) + vs4
    e1 = -1.0 + (r[0] / a[0]) ** 2 + (r[1] / a[1]) ** 2 + (r[2] / a[2]) ** 2
    e2 = dot(n, r) + d
    e3 = dot(n, p) + d
    return (e0, e1, e2, e3), e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3


@nb.njit(cache=_CACHE)
def _solve4(A, b):
    """``A^-1 b`` for a 4 x 4 ``A`` (Gaussian elimination with partial pivoting; ``A``, ``b`` are overwritten)."""
    for k in range(4):
        piv = k
        for i in range(k + 1, 4):
            if abs(A[i, k]) > abs(A[piv, k]):
                piv = i
        if piv != k:
            for j in range(4):
                A[k, j], A[piv, j] = A[piv, j], A[k, j]
            b[k], b[piv] = b[piv], b[k]
        for i in range(k + 1, 4):
            f = A[i, k] / A[k, k]
            for j in range(k, 4):
                A[i, j] -= f * A[k, j]
            b[i] -= f * b[k]
    x = np.zeros(4)
    for i in range(3, -1, -1):
        s = b[i]
        for j in range(i + 1, 4):
            s -= A[i, j] * x[j]
        x[i] = s / A[i, i]
    return x


@nb.njit(cache=_CACHE)
def _step(r, d, vt, f):
    return (r[0] + f * vt[0], r[1] + f * vt[1], r[2] + f * vt[2]), d + f * vt[3]


@nb.njit(cache=_CACHE)
def _tangent_point(pe, r, p, a, vs, vs4):
    """Move ``r`` (on the surface) until its line to ``p`` touches the surface within the plane (vs, vs4),
    by OpenSim's damped Gauss-Newton search on four residuals (step 4 of the module notes)."""
    if abs(pe) < 0.0001:
        return p
    n = (2.0 * r[0] / a[0] ** 2, 2.0 * r[1] / a[1] ** 2, 2.0 * r[2] / a[2] ** 2)
    d = -dot(n, r)
    ee, ssq = _residuals(r, d, p, a, vs, vs4)
    ssqo = ssq
    alpha = 0.01
    J = np.zeros((4, 4))
    JJ = np.zeros((4, 4))
    rhs = np.zeros(4)
    vt = np.zeros(4)
    diag = np.zeros(4)
    v = np.zeros(4)
    pm = unit(p)
    for _ in range(50):
        if not ssq > _TINY:
            break
        for i in range(3):
            J[i, 0] = vs[i]
            J[i, 1] = 2.0 * r[i] / a[i] ** 2
            J[i, 2] = 2.0 * (2.0 * r[i]) / a[i] ** 2
            J[i, 3] = 2.0 * p[i] / a[i] ** 2
        J[3, 0], J[3, 1], J[3, 2], J[3, 3] = 0.0, 0.0, 1.0, 1.0
        pcos = dot(unit(sub(p, r)), pm)
        dd = 1.0 - pcos ** 100 if pcos > 0.1 else 1.0
        for i in range(4):
            v[i] = -(J[i, 0] * ee[0] + J[i, 1] * ee[1] + J[i, 2] * ee[2] + J[i, 3] * ee[3])
        for i in range(4):
            for j in range(4):
                JJ[i, j] = J[i, 0] * J[j, 0] + J[i, 1] * J[j, 1] + J[i, 2] * J[j, 2] + J[i, 3] * J[j, 3]
            diag[i] = JJ[i, i]
        k = 0
        while ssq >= ssqo and k < 1000:
            A = JJ.copy()
            for i in range(4):
                A[i, i] = diag[i] * (1.0 + alpha)
                rhs[i] = v[i]
            x = _solve4(A, rhs)
            for i in range(4):
                vt[i] = dd * x[i] / 16.0
            r, d = _step(r, d, vt, 1.0)
            ee, s_new = _residuals(r, d, p, a, vs, vs4)
            ssqo, ssq = ssq, s_new
            alpha *= 4.0
            k += 1
        alpha /= 8.0
        fakt = 0.5
        k = 0
        while ssq <= ssqo and k < 1000:
            fakt *= 2.0
            r, d = _step(r, d, vt, fakt)
            ee, s_new = _residuals(r, d, p, a, vs, vs4)
            ssqo, ssq = ssq, s_new
            k += 1
        r, d = _step(r, d, vt, -fakt)
        ee, ssq = _residuals(r, d, p, a, vs, vs4)
        ssqo = ssq
    return r


@nb.njit(cache=_CACHE)
def _surface_path(r1, r2, a, vs, vs4, factor, far_side):
    """The cut of the plane over the surface from ``r1`` to ``r2`` (step 5 of the module notes):
    ``(length, chord count, first inner point, last inner point)``, all scaled by ``factor``."""
    chord = norm(sub(r1, r2))
    n = int(chord / factor / 0.001)
    if n <= 1:
        return chord, 1, r2, r1
    n = min(n, 499)
    imax = 0
    for i in range(1, 3):
        if abs(vs[i]) > abs(vs[imax]):
            imax = i
    a0 = [0.0, 0.0, 0.0]
    a0[imax] = -vs4 / vs[imax]
    c = (a0[0], a0[1], a0[2])
    ar1 = unit(sub(r1, c))
    ar2 = unit(sub(r2, c))
    phi0 = acos_clipped(dot(ar1, ar2))
    dphi = -(2.0 * math.pi - phi0) / n if far_side else phi0 / n
    vsz = unit(cross(ar1, ar2))
    vsy = cross(vsz, ar1)
    f2 = (c[0] / a[0], c[1] / a[1], c[2] / a[2])
    cc = dot(f2, f2) - 1.0
    length = 0.0
    prev = r1
    first, last = r1, r1
    for i in range(n - 1):
        phi = (i + 1) * dphi
        r = add(scale(ar1, math.cos(phi)), scale(vsy, math.sin(phi)))
        f1 = (r[0] / a[0], r[1] / a[1], r[2] / a[2])
        aa = dot(f1, f1)
        bb = 2.0 * dot(f1, f2)
        s = axpy((-bb + math.sqrt(bb * bb - 4.0 * aa * cc)) / (2.0 * aa), r, c)
        if i == 0:
            first = s
        last = s
        length += norm(sub(s, prev))
        prev = s
    length += norm(sub(r2, prev))
    return length, n, first, last


@nb.njit(cache=_CACHE)
def wrap_ellipsoid(p1_, p2_, dims, axis, sign, method):
    """Wrap segment p1-p2 over the ellipsoid of semi-axes ``dims`` centred at the origin (OpenSim's
    WrapEllipsoid; ``method``: :data:`HYBRID`, :data:`MIDPOINT` or :data:`AXIAL`).

    Parameters
    ----------
    p1_, p2_ : tuple of 3 float
        The segment's end points in the ellipsoid's frame (m).
    dims : tuple of 3 float
        The semi-axes along x, y, z (m).
    axis, sign : int
        The active quadrant: axis 0-2 and side +1/-1 (sign 0: every quadrant).
    method : int
        The path-wrap method (:data:`HYBRID`, :data:`MIDPOINT`, :data:`AXIAL`).

    Returns
    -------
    tuple
        ``(status, r1, r2, length)``: :data:`~humanbody._kernels.wrap.MANDATORY` when the path wraps (as
        OpenSim reports every ellipsoid wrap), else ``NO_WRAP`` or ``INSIDE``; the tangent points ``r1``,
        ``r2`` in the ellipsoid's frame (m) and the length over the surface between them (m).
    """
    factor = 3.0 / (dims[0] + dims[1] + dims[2])
    p1, p2 = scale(p1_, factor), scale(p2_, factor)
    a = scale(dims, factor)
    p1e = -1.0 + (p1[0] / a[0]) ** 2 + (p1[1] / a[1]) ** 2 + (p1[2] / a[2]) ** 2
    p2e = -1.0 + (p2[0] / a[0]) ** 2 + (p2[1] / a[1]) ** 2 + (p2[2] / a[2]) ** 2
    if p1e < -0.0001 or p2e < -0.0001:
        return INSIDE, _ZERO3, _ZERO3, 0.0
    p1p2 = sub(p1, p2)
    if abs(dot(unit(p1), unit(p2)) - 1.0) < 0.0001:
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    f1 = (p1p2[0] / a[0], p1p2[1] / a[1], p1p2[2] / a[2])
    f2 = (p2[0] / a[0], p2[1] / a[1], p2[2] / a[2])
    aa, bb, cc = dot(f1, f1), 2.0 * dot(f1, f2), dot(f2, f2) - 1.0
    disc = bb * bb - 4.0 * aa * cc
    if disc < 0.0:
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    l1 = (-bb + math.sqrt(disc)) / (2.0 * aa)
    l2 = (-bb - math.sqrt(disc)) / (2.0 * aa)
    if not (0.0 < l1 < 1.0) or not (0.0 < l2 < 1.0):
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    r1 = axpy(l1, p1p2, p2)
    r2 = axpy(l2, p1p2, p2)
    r1r2 = sub(r2, r1)
    u = unit(p1p2)
    mu = [abs(u[0]), abs(u[1]), abs(u[2])]
    t = [math.nan, math.nan, math.nan]
    t_sv = [(math.nan, math.nan, math.nan)] * 3
    t_c1 = [(math.nan, math.nan, math.nan)] * 3
    for i in range(3):
        if r1r2[i] != 0.0:
            t[i] = -r1[i] / r1r2[i]
            t_sv[i] = axpy(t[i], r1r2, r1)
            t_c1[i] = _nearest_on_ellipsoid(a, t_sv[i], dims, i, t_sv[i])
    best = 0
    for i in range(1, 3):
        if mu[i] > mu[best]:
            best = i
    c1, sv = r1, r1
    fan_weight = -np.inf
    if method == HYBRID or method == AXIAL:
        if method == HYBRID and mu[best] > _MU_BLEND_MIN:
            s = 1.0
            if t[best] < 0.0 or t[best] > 1.0:
                s = 0.0
            elif t[best] < _SV_BOUNDARY_BLEND:
                s = t[best] / _SV_BOUNDARY_BLEND
            elif t[best] > 1.0 - _SV_BOUNDARY_BLEND:
                s = (1.0 - t[best]) / _SV_BOUNDARY_BLEND
            if s < 1.0:
                mu[best] = _MU_BLEND_MIN + s * (mu[best] - _MU_BLEND_MIN)
        if method == AXIAL or mu[best] > _MU_BLEND_MIN:
            c1, sv = t_c1[best], t_sv[best]
        if method == HYBRID and mu[best] < _MU_BLEND_MAX:
            middle = axpy(0.5, r1r2, r1)
            v_sum = _ZERO3
            near = middle
            for i in range(1, _FAN_SAMPLES - 1):
                on_chord = axpy(i / _FAN_SAMPLES, r1r2, r1)
                near = _nearest_on_ellipsoid(a, on_chord, dims, -1, near)
                v_sum = add(v_sum, unit(sub(near, on_chord)))
            fan_point = add(middle, unit(v_sum))
            if mu[best] <= _MU_BLEND_MIN:
                c1 = _nearest_on_ellipsoid(a, fan_point, dims, -1, c1)
                sv = middle
                fan_weight = 1.0
            else:
                tt = (mu[best] - _MU_BLEND_MIN) / (_MU_BLEND_MAX - _MU_BLEND_MIN)
                fan_c1 = _nearest_on_ellipsoid(a, fan_point, dims, -1, fan_point)
                blend = add(scale(c1, tt), scale(fan_c1, 1.0 - tt))
                sv = add(scale(sv, tt), scale(middle, 1.0 - tt))
                c1 = _nearest_on_ellipsoid(a, blend, dims, -1, c1)
                fan_weight = 1.0 - tt
    else:
        sv = axpy(0.5, sub(r2, r1), r1)
        c1 = _nearest_on_ellipsoid(a, sv, dims, -1, c1)
    if method != AXIAL or (t[best] > 0.0 and t[best] < 1.0):
        r1, r2 = c1, c1
    if sign != 0 and (1 if c1[axis] >= 0.0 else -1) != sign:
        flipped = [c1[0], c1[1], c1[2]]
        flipped[axis] = -c1[axis]
        c1 = (flipped[0], flipped[1], flipped[2])
        r1, r2 = c1, c1
        if fan_weight > 1.0:
            fan_weight = 1.0
        if fan_weight > 0.0:           # (never after the axial estimate alone, as in OpenSim)
            flipped[axis] = c1[axis] + fan_weight * (0.0 - c1[axis])
            c1 = _nearest_on_ellipsoid(a, (flipped[0], flipped[1], flipped[2]), dims, -1, c1)
    vs = unit(cross(p1p2, sub(p1, c1)))
    vs4 = -dot(vs, c1)
    r1 = _tangent_point(p1e, r1, p1, a, vs, vs4)
    r2 = _tangent_point(p2e, r2, p2, a, vs, vs4)
    length, n, w1, w2 = _surface_path(r1, r2, a, vs, vs4, factor, False)
    if sign != 0 and n > 1:
        if dot(unit(sub(p1, r1)), unit(sub(w1, r1))) > 0.0 or dot(unit(sub(p2, r2)), unit(sub(w2, r2))) > 0.0:
            length = _surface_path(r1, r2, a, vs, vs4, factor, True)[0]
    return MANDATORY, scale(r1, 1.0 / factor), scale(r2, 1.0 / factor), length / factor

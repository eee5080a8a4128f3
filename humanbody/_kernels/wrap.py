"""Wrapping one straight path segment over a wrap surface, as OpenSim computes it.

Every function takes the segment's end points ``p1``, ``p2`` in the surface's own frame
(3-tuples, m) and returns ``(status, r1, r2, length)``: the status is OpenSim's
(:data:`NO_WRAP`, :data:`INSIDE`, :data:`WRAPPED`, :data:`MANDATORY`), ``r1`` and ``r2`` the
tangent points where the path leaves the straight lines from ``p1`` and ``p2`` for the surface,
and ``length`` the path's length on the surface between them.  A quadrant constraint is
``(axis, sign)``: sign 0 means every side of the surface may carry the path.

Cylinder (axis z, centred): the path leaves each end point along the tangent to the circle
seen in the plane across the axis, the two tangent points are slid along the axis to the plane
through ``p1``, ``p2`` and the apex of the cylinder between them, and the path on the surface
is the helix between them, of length ``sqrt((radius * turn)^2 + axial^2)`` (OpenSim 4.6's
WrapCylinder).  The turn is the signed angle from ``r1`` to ``r2`` about +z; the long way round
OpenSim takes ``2 pi - turn``, which is more than a full turn when the signed angle is
negative, and so does this module, so that the lengths are OpenSim's.  On a path with several
wraps the tangent points are then slid along the axis (:func:`tangent_helix`).

Sphere (centred; OpenSim's WrapSphere): only a segment that cuts the sphere wraps; the path
lies in the plane through the centre, ``p1`` and ``p2``, leaves each point along its tangent to
the great circle in that plane and follows the arc (measured negative when a quadrant sends it
the far way round, as OpenSim measures it).
"""

from __future__ import annotations

import math

import numba as nb

from .vec3 import acos_clipped, add, axpy, cross, dist2, dot, norm, scale, sub, unit

_CACHE = True

NO_WRAP, INSIDE, WRAPPED, MANDATORY = 0, 1, 2, 3
_LINE_EPS = 1e-5
_ZERO3 = (0.0, 0.0, 0.0)


@nb.njit(cache=_CACHE, inline="always")
def _sign(x):
    return 1 if x >= 0.0 else -1


@nb.njit(cache=_CACHE)
def closest_on_lines(p1, p2, p3, p4):
    """Closest points of line p1p2 and line p3p4: ``(ok, near1, s, near2, t)`` with ``s``, ``t`` the
    parameters along p1→p2 and p3→p4 (0 at the first point, 1 at the second); ``ok`` False when parallel.

    Parameters
    ----------
    p1, p2, p3, p4 : tuple of 3 float
        Two points on each line (m).

    Returns
    -------
    tuple
        ``(ok, near1, s, near2, t)``: the closest points (m) and their line parameters.
    """
    d1 = sub(p2, p1)
    m1 = norm(d1)
    d1 = unit(d1)
    d2 = sub(p4, p3)
    m2 = norm(d2)
    d2 = unit(d2)
    c = cross(d1, d2)
    den = dot(c, c)
    if abs(den) <= 2e-13:
        return False, p1, math.nan, p3, math.nan
    w = sub(p3, p1)
    t = dot(cross(d1, c), w) / den     # det[w; d1; c] / |c|^2
    s = dot(cross(d2, c), w) / den     # det[w; d2; c] / |c|^2
    return True, axpy(s, d1, p1), s / m1, axpy(t, d2, p3), t / m2


@nb.njit(cache=_CACHE, inline="always")
def _on_axis(p):
    return (0.0, 0.0, p[2])


@nb.njit(cache=_CACHE)
def _tangents_to_circle(p, radius):
    """The two points of the cylinder (radius, axis z) whose tangent lines across the axis pass
    through ``p``; and ``p``'s distance from the axis."""
    foot = _on_axis(p)
    out = sub(p, foot)
    d = norm(out)
    out = unit(out)
    s = radius / d
    along = radius * s
    mid = axpy(along, out, foot)
    half = math.sqrt(max(0.0, radius * radius - along * along))
    side = cross((0.0, 0.0, 1.0), out)
    return axpy(half, side, mid), axpy(-half, side, mid), d


@nb.njit(cache=_CACHE)
def _choose_constrained(r1a, r1b, r2a, r2b, p11, p22, axis, sign):
    """Tangent points on the allowed side of the cylinder: ``(r1, r2, far_side)``."""
    alpha = acos_clipped(dot(sub(r1a, p11), sub(r2b, p22)) / (norm(sub(r1a, p11)) * norm(sub(r2b, p22))))
    beta = acos_clipped(dot(sub(r1b, p11), sub(r2a, p22)) / (norm(sub(r1b, p11)) * norm(sub(r2a, p22))))
    a_on, b_on = _sign(r1a[axis]) == sign, _sign(r1b[axis]) == sign
    if a_on and b_on:
        if _sign(r2a[axis]) == sign:
            return r1b, r2a, not alpha > beta
        return r1a, r2b, alpha > beta
    if a_on:
        return r1a, r2b, alpha > beta
    if b_on:
        return r1b, r2a, not alpha > beta
    if _sign(r2a[axis]) == sign:
        return r1b, r2a, not alpha > beta
    if _sign(r2b[axis]) == sign:
        return r1a, r2b, alpha > beta
    if alpha > beta:
        return r1a, r2b, True
    return r1b, r2a, True


@nb.njit(cache=_CACHE)
def _choose_free(r1a, r1b, r2a, r2b, p11, p22):
    """Tangent points of an unconstrained cylinder: the pair whose radial directions agree most."""
    u1a, u1b = unit(sub(r1a, p11)), unit(sub(r1b, p11))
    u2a, u2b = unit(sub(r2a, p22)), unit(sub(r2b, p22))
    d1, d2, d3, d4 = dot(u1a, u2a), dot(u1a, u2b), dot(u1b, u2a), dot(u1b, u2b)
    if d1 > d2 and d1 > d3 and d1 > d4:
        return r1a, r2a
    if d2 > d3 and d2 > d4:
        return r1a, r2b
    if d3 > d4:
        return r1b, r2a
    return r1b, r2b


@nb.njit(cache=_CACHE)
def _segment_plane(a, b, normal, d):
    """Where segment a-b meets the plane ``normal . x + d = 0``: ``(ok, point)``."""
    v = sub(b, a)
    den = dot(v, normal)
    if abs(den) < _LINE_EPS:
        return False, a
    t = (-d - dot(normal, a)) / den
    if t < -_LINE_EPS or t > 1.0 + _LINE_EPS:
        return False, a
    return True, axpy(t, v, a)


@nb.njit(cache=_CACHE)
def _slide(r, p_own, p_other, normal, d):
    """Slide tangent point ``r`` along the cylinder's axis direction to the plane (normal, d), if the
    plane meets that line within 10 m and the new point stays on ``p_own``'s side of ``p_other``."""
    ok, rp = _segment_plane(axpy(-10.0, (0.0, 0.0, 1.0), r), axpy(10.0, (0.0, 0.0, 1.0), r), normal, d)
    if not ok:
        return r
    direction = unit(p_other)
    foot = axpy(dot(sub(rp, p_own), direction), direction, p_own)
    if dist2(foot, p_other) < dist2(p_own, p_other):
        return rp
    return r


@nb.njit(cache=_CACHE)
def _apex_plane(p1, p2, r1, r2, p11, p22, d1, d2, radius, far_side):
    """Plane through p1, p2 and the cylinder's apex between them: ``(normal, d)``."""
    mpt = axpy(d1 / (d1 + d2), sub(p2, p1), p1)
    axispt = _on_axis(mpt)
    normal = unit(cross(unit(sub(p1, axispt)), unit(sub(p2, axispt))))
    v1 = unit(cross((0.0, 0.0, 1.0), normal))
    apex1 = axpy(radius, v1, axispt)
    apex2 = axpy(-radius, v1, axispt)
    near1 = dist2(mpt, apex1) < dist2(mpt, apex2)
    apex = apex1 if near1 != far_side else apex2
    n = unit(cross(unit(sub(p1, apex)), unit(sub(p2, apex))))
    return n, -dot(p1, n)


@nb.njit(cache=_CACHE)
def wrap_cylinder(p1, p2, radius, length, axis, sign, single):
    """Wrap segment p1-p2 over the cylinder of ``radius`` and ``length`` along z (OpenSim's WrapCylinder).

    ``single``: the path has this one wrap (the tangent points stay where the apex plane puts
    them); otherwise they are slid along the axis until the straight lines meet the helix
    within 0.1 degree, as OpenSim does for paths with several wraps.

    Parameters
    ----------
    p1, p2 : tuple of 3 float
        The segment's end points in the cylinder's frame (m).
    radius, length : float
        The cylinder's radius and length along z (m).
    axis, sign : int
        The active quadrant: axis 0-2 and side +1/-1 (sign 0: every quadrant).
    single : bool
        The path has this one wrap.

    Returns
    -------
    tuple
        ``(status, r1, r2, arc_length)``: the wrap status (see the module notes), the tangent points in
        the cylinder's frame (m) and the helix's length between them (m).
    """
    r2_ = radius * radius
    if p1[0] ** 2 + p1[1] ** 2 < r2_ or p2[0] ** 2 + p2[1] ** 2 < r2_:
        return INSIDE, _ZERO3, _ZERO3, 0.0
    ok, near12, t12, near00, _t00 = closest_on_lines(p1, p2, (0.0, 0.0, -0.5 * length), (0.0, 0.0, 0.5 * length))
    hits = ok and dist2(near12, near00) < r2_ and t12 > 0.0 and t12 < 1.0
    status = WRAPPED
    if sign == 0:
        if not hits:
            return NO_WRAP, _ZERO3, _ZERO3, 0.0
        status = MANDATORY
    p11, p22 = _on_axis(p1), _on_axis(p2)
    r1a, r1b, d1 = _tangents_to_circle(p1, radius)
    r2a, r2b, d2 = _tangents_to_circle(p2, radius)
    far_side, long_wrap = False, False
    if sign != 0:
        if _sign(p1[axis]) == sign or _sign(p2[axis]) == sign:
            if hits:
                status = MANDATORY
            elif not (_sign(p1[axis]) != _sign(p2[axis]) and _sign(near12[axis]) != sign):
                return NO_WRAP, _ZERO3, _ZERO3, 0.0
        r1, r2, far_side = _choose_constrained(r1a, r1b, r2a, r2b, p11, p22, axis, sign)
        sum_r = add(sub(r1, p11), sub(r2, p22))
        sum_m = add(sub(r1, p1), sub(r2, p2))
        long_wrap = dot(sum_r, sum_m) < 0.0
    else:
        r1, r2 = _choose_free(r1a, r1b, r2a, r2b, p11, p22)
    normal, d = _apex_plane(p1, p2, r1, r2, p11, p22, d1, d2, radius, far_side)
    r1 = _slide(r1, p11, p22, normal, d)
    r2 = _slide(r2, p22, p11, normal, d)
    half = 0.5 * length
    if (r1[2] < -half or r1[2] > half) and (r2[2] < -half or r2[2] > half):
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    if not single:
        r1, r2 = tangent_helix(p1, p2, r1, r2, radius, long_wrap)
    return status, r1, r2, helix_length(r1, r2, radius, long_wrap)


@nb.njit(cache=_CACHE, inline="always")
def _helix_turn(r1, r2, long_wrap):
    """The helix's turn about +z from ``r1`` to ``r2`` (rad) and its rise (m), as OpenSim 4.6 takes them.

    The turn is the signed angle of ``r2`` from ``r1`` about +z (-pi..pi); the long way round it is
    ``2 pi - angle``, which for a negative angle is more than a full turn (OpenSim's figure, kept)."""
    cz = r1[0] * r2[1] - r1[1] * r2[0]
    theta = math.atan2(cz, r1[0] * r2[0] + r1[1] * r2[1])
    if long_wrap:
        theta = 2.0 * math.pi - theta
    return theta, r2[2] - r1[2]


@nb.njit(cache=_CACHE)
def helix_length(r1, r2, radius, long_wrap):
    """Length of the helix on the cylinder (axis z) from ``r1`` to ``r2``, the long way round if asked:
    ``sqrt((radius * turn)^2 + rise^2)`` with OpenSim's turn (:func:`_helix_turn`).

    Parameters
    ----------
    r1, r2 : tuple of 3 float
        The helix's end points on the cylinder (m).
    radius : float
        The cylinder's radius (m).
    long_wrap : bool
        Go the long way round.

    Returns
    -------
    float
        The helix's length (m).
    """
    theta, rise = _helix_turn(r1, r2, long_wrap)
    return math.sqrt((radius * theta) ** 2 + rise * rise)


_TANGENCY = 0.1 * math.pi / 180.0
_STEP = 0.002


@nb.njit(cache=_CACHE, inline="always")
def _helix_point(r, angle, rise):
    """``r`` turned by ``angle`` about +z and raised by ``rise`` (a point of the helix from ``r``)."""
    c, s = math.cos(angle), math.sin(angle)
    return (c * r[0] - s * r[1], s * r[0] + c * r[1], r[2] + rise)


@nb.njit(cache=_CACHE)
def _retangent(p, r, w):
    """Slide tangent point ``r`` along the axis direction when line p-r and the helix's first chord
    r-w leave the axis at angles more than 0.1 degree apart: ``(moved, new r)``."""
    z = (0.0, 0.0, 1.0)
    alpha = acos_clipped(dot(unit(sub(r, p)), z))
    omega = acos_clipped(dot(unit(sub(w, r)), z))
    if not abs(alpha - omega) > _TANGENCY:
        return False, r
    pa = axpy(dot(sub(p, r), z), z, r)
    wa = axpy(dot(sub(w, r), z), z, r)
    _ok, _n1, _s, hit, _t = closest_on_lines(p, w, pa, wa)
    return True, axpy(1.5, sub(hit, r), r)


@nb.njit(cache=_CACHE)
def tangent_helix(p1, p2, r1, r2, radius, long_wrap):
    """Tangent points adjusted until both straight lines meet the helix tangentially (within 0.1
    degree, at most 100 rounds), judged on the helix's first 2-mm chord at each end.

    As OpenSim 4.6 does it: each round takes the helix's turn and rise from the current points;
    the chord ends are ``r1`` turned by ``t`` and ``1 - t`` of the turn (the opposite sense the long
    way round) and raised as much of the rise; ``r1`` moves first, and the chord end judged at
    ``r2`` is taken from the moved ``r1``.  Where the iteration stops depends on that order, by up
    to a millimetre along the axis.

    Parameters
    ----------
    p1, p2 : tuple of 3 float
        The segment's end points in the cylinder's frame (m).
    r1, r2 : tuple of 3 float
        The tangent points to start from (m).
    radius : float
        The cylinder's radius (m).
    long_wrap : bool
        The helix goes the long way round.

    Returns
    -------
    tuple
        ``(r1, r2)``: the adjusted tangent points (m).
    """
    sense = -1.0 if long_wrap else 1.0
    for _ in range(100):
        theta, rise = _helix_turn(r1, r2, long_wrap)
        n = int(math.sqrt((radius * theta) ** 2 + rise * rise) / _STEP)
        if n < 2:
            break
        t = 1.0 / n
        moved1, r1 = _retangent(p1, r1, _helix_point(r1, sense * t * theta, t * rise))
        moved2, r2 = _retangent(p2, r2, _helix_point(r1, sense * (1.0 - t) * theta, (1.0 - t) * rise))
        if not (moved1 or moved2):
            break
    return r1, r2


@nb.njit(cache=_CACHE)
def _sphere_tangents(p, n, radius):
    """The two points of the sphere (centred, ``radius``) in the plane through the centre with normal
    ``n`` whose tangent lines pass through ``p``."""
    dp = norm(p)
    y = scale(p, -1.0 / dp)
    z = cross(n, y)
    a = math.asin(radius / dp)
    reach = dp * math.cos(a)
    ca, sa = math.cos(a), math.sin(a)
    return (axpy(reach, add(scale(y, ca), scale(z, -sa)), p),
            axpy(reach, add(scale(y, ca), scale(z, sa)), p))


@nb.njit(cache=_CACHE)
def _sphere_constrained(p1, p2, r1a, r1b, r2a, r2b, r1, r2, axis, sign):
    """OpenSim's choice of tangent points on a sphere constrained to one side: ``(r1, r2, far_side)``."""
    toward = unit(add(scale(p1, -1.0), scale(p2, -1.0)))
    o1 = r1b
    if dot(unit(r1a), toward) > dot(unit(r1b), toward):
        r1 = r1a
    else:
        r1, o1 = r1b, r1a
    o2 = r2b
    if dot(unit(r2a), toward) > dot(unit(r2b), toward):
        r2 = r2a
    else:
        r2, o2 = r2b, r2a
    if unit(add(sub(r1, p1), sub(r2, p2)))[axis] * sign < 0.0:
        r1, r2 = o1, o2
    return r1, r2, dot(add(r1, r2), add(sub(r1, p1), sub(r2, p2))) < 0.0


@nb.njit(cache=_CACHE)
def wrap_sphere(p1, p2, radius, axis, sign):
    """Wrap segment p1-p2 over the sphere of ``radius`` centred at the origin (OpenSim's WrapSphere).

    The segment wraps only when it cuts the sphere between its ends.  The path lies in the plane
    through the centre, ``p1`` and ``p2``; each end's tangent point is one of the two where a line
    from the end touches the great circle of that plane (tangent length ``sqrt(|p|^2 - radius^2)``),
    the pair whose directions from the centre agree most, or, with a quadrant ``(axis, sign)`` that
    an end lies off, the pair facing the ends, flipped to the allowed side.  The arc between them is
    ``radius * angle``; when the chosen pair sends the path round the far side OpenSim measures it as
    ``-radius * (2 pi - angle)`` (negative), and so does this function.

    Parameters
    ----------
    p1, p2 : tuple of 3 float
        The segment's end points in the sphere's frame (m).
    radius : float
        The sphere's radius (m).
    axis, sign : int
        The active quadrant: axis 0-2 and side +1/-1 (sign 0: every quadrant).

    Returns
    -------
    tuple
        ``(status, r1, r2, arc_length)``: the wrap status (see the module notes), the tangent points in
        the sphere's frame (m) and the arc's length between them (m).
    """
    r_sq = radius * radius
    if dot(p1, p1) < r_sq or dot(p2, p2) < r_sq:
        return INSIDE, _ZERO3, _ZERO3, 0.0
    ri = sub(p1, p2)
    a = dot(ri, ri)
    b = 2.0 * dot(p2, ri)
    disc = b * b - 4.0 * a * (dot(p2, p2) - r_sq)
    if disc < 0.0:
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    l1 = (-b + math.sqrt(disc)) / (2.0 * a)
    l2 = (-b - math.sqrt(disc)) / (2.0 * a)
    if not (0.0 < l1 < 1.0) or not (0.0 < l2 < 1.0):
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    u = unit(ri)
    h = cross(u, unit(p2))
    if norm(h) < 1e-5:         # the line passes through the centre: any plane through it is as good
        h = cross(u, (1.0, 0.0, 0.0)) if abs(u[0]) < 0.9 else cross(u, (0.0, 1.0, 0.0))
    n = unit(h)
    r1a, r1b = _sphere_tangents(p1, n, radius)
    r2a, r2b = _sphere_tangents(p2, n, radius)
    j1, j2 = dot(unit(r1a), unit(r2a)), dot(unit(r1a), unit(r2b))
    j3, j4 = dot(unit(r1b), unit(r2a)), dot(unit(r1b), unit(r2b))
    if j1 > j2 and j1 > j3 and j1 > j4:
        r1, r2 = r1a, r2a
    elif j2 > j3 and j2 > j4:
        r1, r2 = r1a, r2b
    elif j3 > j4:
        r1, r2 = r1b, r2a
    else:
        r1, r2 = r1b, r2b
    status = WRAPPED
    far_side = False
    if sign != 0:
        on1, on2 = _sign(p1[axis]) == sign, _sign(p2[axis]) == sign
        if on1 or on2:
            tt = -dot(scale(p1, -1.0), u)                   # m from p1 towards p2 to the foot of the centre
            foot = axpy(-tt, u, p1)
            if dot(foot, foot) < r_sq and 0.0 < tt < 1.0:
                status = MANDATORY
            elif not (_sign(p1[axis]) != _sign(p2[axis]) and _sign(foot[axis]) != sign):
                return NO_WRAP, _ZERO3, _ZERO3, 0.0
        if not (on1 and on2):
            r1, r2, far_side = _sphere_constrained(p1, p2, r1a, r1b, r2a, r2b, r1, r2, axis, sign)
    angle = acos_clipped(dot(unit(r1), unit(r2)))
    if far_side:
        angle = -(2.0 * math.pi - angle)
    return status, r1, r2, radius * angle

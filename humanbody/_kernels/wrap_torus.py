"""Wrapping one straight path segment over a torus, as OpenSim 4.6's WrapTorus computes it.

:func:`wrap_torus` takes the segment's end points in the torus's frame (centred, its centre circle
of radius ``outer`` in the plane z = 0, its tube of radius ``inner``) and returns
``(status, r1, r2, length)`` as the functions of :mod:`humanbody._kernels.wrap` do.

1. A point ``c`` of the centre circle near the segment's line: along the line ``p(u) = p_a + u n``
   (``n`` the unit direction), OpenSim solves ``2 (p_a . n + u) - 2 outer (2 c4 u + 2 c3) / rho(u) = 0``
   (``rho`` the distance from the z axis, ``c4 = nx^2 + ny^2``, ``c3 = p_a,x nx + p_a,y ny``) from
   ``u = 0``, once from each end.  This is where the distance to the circle of radius ``2 outer``
   is stationary (OpenSim's residual carries a factor 2 that the distance to its own circle does not).
   Of the two line points, the one nearer to the centre circle is taken (with a quadrant, the one on
   the allowed side; neither: no wrap), and ``c`` is the circle point in its direction from the axis.
2. A cylinder of radius ``inner`` and length 10 km is put at ``c``, its axis along the circle's
   tangent there, and the segment is wrapped over it (:func:`humanbody._kernels.wrap.wrap_cylinder`)
   on the side facing the torus's axis (the cylinder's quadrant +x, its x pointing from ``c`` to the axis).
3. OpenSim reports every torus wrap as :data:`~humanbody._kernels.wrap.WRAPPED`: the segment of a
   path that the torus lengthens least takes it.
"""

from __future__ import annotations

import math

import numba as nb

from .vec3 import add, dot, scale, sub, unit
from .wrap import MANDATORY, NO_WRAP, WRAPPED, wrap_cylinder

_CACHE = True
_ZERO3 = (0.0, 0.0, 0.0)
_CYLINDER_LENGTH = 10000.0


@nb.njit(cache=_CACHE, inline="always")
def _residual(u, pa, n, radius):
    c3 = pa[0] * n[0] + pa[1] * n[1]
    c4 = n[0] * n[0] + n[1] * n[1]
    c5 = pa[0] * pa[0] + pa[1] * pa[1]
    rho = math.sqrt(max(0.0, u * u * c4 + 2.0 * c3 * u + c5))
    if rho == 0.0:                     # on the torus's axis: no direction to the circle
        return math.nan, math.nan
    f = 2.0 * dot(pa, n) + 2.0 * u - 2.0 * radius * (2.0 * c4 * u + 2.0 * c3) / rho
    # d/du of f
    drho = (c4 * u + c3) / rho
    df = 2.0 - 2.0 * radius * (2.0 * c4 * rho - (2.0 * c4 * u + 2.0 * c3) * drho) / (rho * rho)
    return f, df


@nb.njit(cache=_CACHE)
def _line_point(pa, pb, radius):
    """The point of line pa→pb where OpenSim's residual (step 1 of the module notes) vanishes, searched
    from ``pa`` with a trust region as its Levenberg-Marquardt solver starts it (0.2 in units of the
    residual), then polished by Newton's method."""
    n = unit(sub(pb, pa))
    u = 0.0
    f, df = _residual(u, pa, n, radius)
    delta = 0.2
    for _ in range(200):
        if not df != 0.0:
            break
        step = -f / df
        if abs(df * step) > delta:
            step = math.copysign(delta / abs(df), step)
        f_new, df_new = _residual(u + step, pa, n, radius)
        if abs(f_new) < abs(f):
            u += step
            f, df = f_new, df_new
            delta = max(delta, 2.0 * abs(df * step))
            if abs(step) <= 1e-15 * max(1.0, abs(u)):
                break
        else:
            delta *= 0.25
            if delta < 1e-300:
                break
    return add(pa, (u * n[0], u * n[1], u * n[2]))


@nb.njit(cache=_CACHE)
def _circle_distance(p, radius):
    return math.sqrt(max(0.0, p[0] * p[0] + p[1] * p[1] + p[2] * p[2] + radius * radius
                         - 2.0 * radius * math.sqrt(p[0] * p[0] + p[1] * p[1])))


@nb.njit(cache=_CACHE)
def wrap_torus(p1, p2, inner, outer, axis, sign, single):
    """Wrap segment p1-p2 over the torus (centre circle of radius ``outer`` in z = 0, tube radius
    ``inner``; OpenSim's WrapTorus).

    Parameters
    ----------
    p1, p2 : tuple of 3 float
        The segment's end points in the torus's frame (m).
    inner, outer : float
        The tube's radius and the centre circle's radius (m).
    axis, sign : int
        The active quadrant: axis 0-2 and side +1/-1 (sign 0: every quadrant).
    single : bool
        The path has this one wrap (passed on to the cylinder).

    Returns
    -------
    tuple
        ``(status, r1, r2, length)``: the wrap status (see the module notes), the tangent points in the
        torus's frame (m) and the length over the surface between them (m).
    """
    a1 = _line_point(p1, p2, outer)
    a2 = _line_point(p2, p1, outer)
    d1, d2 = _circle_distance(a1, outer), _circle_distance(a2, outer)
    first = d1 < d2
    if sign != 0:
        on1 = (1 if a1[axis] >= 0.0 else -1) == sign
        on2 = (1 if a2[axis] >= 0.0 else -1) == sign
        if on1 and on2:
            first = d1 < d2
        elif on1:
            first = True
        elif on2:
            first = False
        else:
            return NO_WRAP, _ZERO3, _ZERO3, 0.0
    a = a1 if first else a2
    mag = math.sqrt(a[0] * a[0] + a[1] * a[1])
    if not mag > 0.0:
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    c = (-a[0] * outer / mag, -a[1] * outer / mag, 0.0)          # minus the circle point
    ex = unit(c)
    ey = (0.0, 0.0, -1.0)
    ez = (-ex[1], ex[0], 0.0)                                    # ex × ey
    shift = _in_frame(ex, ey, ez, c)
    q1 = add(_in_frame(ex, ey, ez, p1), shift)
    q2 = add(_in_frame(ex, ey, ez, p2), shift)
    status, r1, r2, length = wrap_cylinder(q1, q2, inner, _CYLINDER_LENGTH, 0, 1, single)
    if status != WRAPPED and status != MANDATORY:
        return NO_WRAP, _ZERO3, _ZERO3, 0.0
    return WRAPPED, _from_frame(ex, ey, ez, sub(r1, shift)), _from_frame(ex, ey, ez, sub(r2, shift)), length


@nb.njit(cache=_CACHE, inline="always")
def _in_frame(ex, ey, ez, p):
    return (dot(ex, p), dot(ey, p), dot(ez, p))


@nb.njit(cache=_CACHE, inline="always")
def _from_frame(ex, ey, ez, r):
    return add(add(scale(ex, r[0]), scale(ey, r[1])), scale(ez, r[2]))

"""Millard (2012) muscle curves as OpenSim builds them: quintic Bezier corners joined smoothly.

OpenSim's SmoothSegmentedFunctionFactory turns a curve's few parameters into
quintic Bezier segments; each segment is a "corner" from ``(x0, y0)`` with
slope ``dydx0`` to ``(x1, y1)`` with slope ``dydx1``: the two lines meet at
``(xC, yC)``, and the control points are ``P0, M0, M0, M1, M1, P1`` with
``M_i = P_i + c (C - P_i)``, ``c = 0.1 + 0.8 curviness``.  The curves here are
the active force-length curve (five corners) and the force-velocity curve
(four); :func:`humanbody._kernels.muscle_capacity.segmented_curve` evaluates them.
"""

from __future__ import annotations

import numpy as np


def corner(x0: float, y0: float, dydx0: float, x1: float, y1: float, dydx1: float,
           curviness: float) -> tuple[np.ndarray, np.ndarray]:
    """The six x and six y control points of one Bezier corner (OpenSim's calcQuinticBezierCornerControlPoints).

    Parameters
    ----------
    x0, y0 : float
        The corner's start point.
    dydx0 : float
        Slope at the start.
    x1, y1 : float
        The corner's end point.
    dydx1 : float
        Slope at the end.
    curviness : float
        ``c`` in ``M_i = P_i + c (C - P_i)`` (0: sharp, 1: round).

    Returns
    -------
    x, y : numpy.ndarray
        (6,) each: the control points ``P0, M0, M0, M1, M1, P1``.
    """
    if abs(dydx0 - dydx1) > np.sqrt(np.finfo(float).eps):
        xc = (y1 - y0 - x1 * dydx1 + x0 * dydx0) / (dydx0 - dydx1)
    else:
        xc = 0.5 * (x1 + x0)
    yc = (xc - x1) * dydx1 + y1
    x0m, y0m = x0 + curviness * (xc - x0), y0 + curviness * (yc - y0)
    x1m, y1m = x1 + curviness * (xc - x1), y1 + curviness * (yc - y1)
    return np.array([x0, x0m, x0m, x1m, x1m, x1]), np.array([y0, y0m, y0m, y1m, y1m, y1])


def _stack(corners) -> tuple[np.ndarray, np.ndarray]:
    return np.array([c[0] for c in corners]), np.array([c[1] for c in corners])


def millard_active_force_length(x0: float, x1: float, x2: float, x3: float, ylow: float, dydx: float,
                        curviness: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Control points (5, 6) x and y and ends ``(x0, x3, ylow, ylow, 0, 0)`` of the active force-length curve.

    ``x0`` shortest active length, ``x1`` transition to the shallow ascending limb
    (slope ``dydx``), ``x2`` optimal length (1), ``x3`` longest active length,
    ``ylow`` minimum value (OpenSim's createFiberActiveForceLengthCurve).

    Parameters
    ----------
    x0, x1, x2, x3 : float
        Normalised fibre lengths (``l / l0``): shortest active, transition, optimal, longest active.
    ylow : float
        Minimum value of the curve (normalised force).
    dydx : float
        Slope of the shallow ascending limb.
    curviness : float, default 1.0
        The curve's curviness (0-1).

    Returns
    -------
    X, Y : numpy.ndarray
        (5, 6) each: the five corners' control points.
    ends : numpy.ndarray
        (6,) ``(x0, x3, ylow, ylow, 0, 0)``: the curve's domain, values and slopes outside it.
    """
    c = 0.1 + 0.8 * curviness
    delta = 0.05 * x2
    xs = x2 - delta
    y1 = 1.0 - dydx * (xs - x1)
    dydx01 = 1.25 * y1 / (x1 - x0)
    x01, y01 = x0 + 0.5 * (x1 - x0), 0.5 * y1
    x1s, y1s = x1 + 0.5 * (xs - x1), y1 + 0.5 * (1.0 - y1)
    x23 = (x2 + delta) + 0.5 * (x3 - (x2 + delta))
    y23 = 0.5
    dydx23 = -1.0 / ((x3 - delta) - (x2 + delta))
    X, Y = _stack([corner(x0, ylow, 0.0, x01, y01, dydx01, c), corner(x01, y01, dydx01, x1s, y1s, dydx, c),
                   corner(x1s, y1s, dydx, x2, 1.0, 0.0, c), corner(x2, 1.0, 0.0, x23, y23, dydx23, c),
                   corner(x23, y23, dydx23, x3, ylow, 0.0, c)])
    return X, Y, np.array([x0, x3, ylow, ylow, 0.0, 0.0])


def millard_force_velocity(fmax_e: float, dydx_c: float, dydx_near_c: float, dydx_iso: float, dydx_e: float,
                   dydx_near_e: float, curv_c: float, curv_e: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Control points (4, 6) and ends of the force-velocity curve over normalised velocity -1..1
    (OpenSim's createFiberForceVelocityCurve).

    Parameters
    ----------
    fmax_e : float
        Force multiplier at the maximum eccentric velocity.
    dydx_c, dydx_near_c : float
        Slopes at and near the maximum concentric velocity.
    dydx_iso : float
        Slope at zero velocity.
    dydx_e, dydx_near_e : float
        Slopes at and near the maximum eccentric velocity.
    curv_c, curv_e : float
        Curviness of the concentric and eccentric parts (0-1).

    Returns
    -------
    X, Y : numpy.ndarray
        (4, 6) each: the four corners' control points (x normalised velocity, y force multiplier).
    ends : numpy.ndarray
        (6,) ``(-1, 1, 0, fmax_e, dydx_c, dydx_e)``: the domain, the values and slopes at its ends.
    """
    cc, ce = 0.1 + 0.8 * curv_c, 0.1 + 0.8 * curv_e
    y_near_c = 0.5 * dydx_near_c * 0.1 + 0.5 * dydx_c * 0.1
    y_near_e = fmax_e - 0.5 * dydx_near_e * 0.1 - 0.5 * dydx_e * 0.1
    X, Y = _stack([corner(-1.0, 0.0, dydx_c, -0.9, y_near_c, dydx_near_c, cc),
                   corner(-0.9, y_near_c, dydx_near_c, 0.0, 1.0, dydx_iso, cc),
                   corner(0.0, 1.0, dydx_iso, 0.9, y_near_e, dydx_near_e, ce),
                   corner(0.9, y_near_e, dydx_near_e, 1.0, fmax_e, dydx_e, ce)])
    return X, Y, np.array([-1.0, 1.0, 0.0, fmax_e, dydx_c, dydx_e])

"""Numba kernels of a muscle's active force capacity with a rigid tendon, as OpenSim's static optimization takes it.

Array in, array out.  For every frame and muscle, from the muscle-tendon
length ``L`` (m) and lengthening speed ``dL`` (m/s):

- fibre length at constant thickness (OpenSim's MuscleFixedWidthPennationModel):
  ``h = l0 sin(alpha0)``, ``l = sqrt(h^2 + (L - ls)^2)`` clamped below at
  ``l_min``; pennation ``sin(alpha) = h / l``;
- fibre velocity with an inextensible tendon: ``v = dL cos(alpha)``,
  normalised ``vN = v / (l0 vmax)``;
- capacity ``F = Fmax fL(l / l0) fV(vN) cos(alpha)`` (N along the tendon, at
  activation 1), zero when ``l <= l_min``.

The curves are the muscle model's own; each kernel names the model and its
equations.  Units: metres, seconds, newtons.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .cache import drop_stale_kernels

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True


@nb.njit(cache=_CACHE, inline="always")
def fibre_kinematics(L, dL, l0, alpha0, ls, lmin):
    """Rigid-tendon fibre length ``l`` (m), ``cos(alpha)`` and fibre velocity ``v`` (m/s) of one muscle.

    Parameters
    ----------
    L : float
        Muscle-tendon length (m).
    dL : float
        Lengthening speed (m/s).
    l0 : float
        Optimal fibre length (m).
    alpha0 : float
        Pennation angle at the optimal fibre length (rad).
    ls : float
        Tendon slack length (m).
    lmin : float
        Shortest fibre length (m): ``l`` is clamped to it.

    Returns
    -------
    length : float
        Fibre length ``l`` (m).
    cos_alpha : float
        Cosine of the pennation angle.
    v : float
        Fibre velocity ``dL cos(alpha)`` (m/s).
    """
    h = l0 * math.sin(alpha0)
    x = L - ls
    length = math.sqrt(h * h + x * x)
    if length < lmin:
        length = lmin
    s = h / length if length > 0.0 else 0.0
    if s > 1.0:
        s = 1.0
    c = math.sqrt(1.0 - s * s)
    return length, c, dL * c


@nb.njit(cache=_CACHE, inline="always")
def thelen_fv(vN, a, Af, Flen, thresh):
    """Thelen (2003) force-velocity multiplier at normalised fibre velocity ``vN`` and activation ``a``.

    OpenSim's Thelen2003Muscle gives the velocity from the force (Thelen's
    eqs. 6-7, ``k = 0.25 + 0.75 a``, ``F = a fL fV``, ``f = a fL``):
    concentric ``vN = k (F - f) / (f + F / Af)``, eccentric
    ``vN = k (F - f) / b``, ``b = (2 + 2/Af)(f Flen - F) / (Flen - 1)``,
    extended linearly beyond ``F = 0`` and ``F = thresh f Flen``.  Inverted
    here in closed form, per unit ``f``:
    concentric ``fV = (k + vN) / (k - vN / Af)``, eccentric
    ``fV = (k + c Flen vN) / (k + c vN)``, ``c = (2 + 2/Af) / (Flen - 1)``.

    Parameters
    ----------
    vN : float
        Normalised fibre velocity ``v / (l0 vmax)`` (lengthening +).
    a : float
        Activation (0-1).
    Af : float
        Force-velocity shape factor.
    Flen : float
        Maximum normalised lengthening force.
    thresh : float
        ``fv_linear_extrap_threshold``: where the eccentric curve continues linearly.

    Returns
    -------
    float
        The force-velocity multiplier ``fV``.
    """
    k = 0.25 + 0.75 * a
    c = (2.0 + 2.0 / Af) / (Flen - 1.0)
    if vN <= 0.0:
        if vN > -k:
            return (k + vN) / (k - vN / Af)
        slope = k * (1.0 + 1.0 / Af)  # dvN/dfV at fV = 0
        return (vN + k) / slope
    f0 = thresh * Flen  # the last force (per unit f) on Thelen's curve
    v0 = k * (f0 - 1.0) / (c * (Flen - f0))
    if vN < v0:
        return (k + c * Flen * vN) / (k + c * vN)
    b = c * (Flen - f0)
    slope = k / b + k * (f0 - 1.0) * c / (b * b)  # dvN/dfV at f0
    return f0 + (vN - v0) / slope


@nb.njit(cache=_CACHE)
def thelen_capacity(L, dL, fmax, l0, alpha0, ls, vmax, kshape, Af, Flen, thresh, lmin):
    """Active capacity (N) of Thelen2003 muscles at activation 1, every frame.

    Parameters
    ----------
    L, dL : ndarray, shape (F, M), float64
        Muscle-tendon lengths (m) and lengthening speeds (m/s) of the M muscles in every frame.
    fmax, l0, alpha0, ls, vmax, kshape, Af, Flen, thresh, lmin : ndarray, shape (M,), float64
        Per muscle: max isometric force (N), optimal fibre length (m), pennation at
        optimum (rad), tendon slack length (m), max contraction velocity
        (l0/s), active force-length shape ``KshapeActive``, force-velocity
        shape ``Af``, max lengthening force ``Flen``, linear extrapolation
        threshold (OpenSim's ``fv_linear_extrap_threshold``), minimum fibre
        length (m).

    Returns
    -------
    ndarray, shape (F, M), float64
        ``Fmax fL fV cos(alpha)`` (N along the tendon), ``fL = exp(-(l/l0 - 1)^2 / kshape)``, ``fV``
        of :func:`thelen_fv` at activation 1; 0 where the fibre length is at most ``lmin``.
    """
    nf, nm = L.shape
    out = np.zeros((nf, nm))
    for f in range(nf):
        for m in range(nm):
            length, c, v = fibre_kinematics(L[f, m], dL[f, m], l0[m], alpha0[m], ls[m], lmin[m])
            if length <= lmin[m]:
                continue
            x = length / l0[m] - 1.0
            fl = math.exp(-x * x / kshape[m])
            fv = thelen_fv(v / (l0[m] * vmax[m]), 1.0, Af[m], Flen[m], thresh[m])
            out[f, m] = fmax[m] * fl * fv * c
    return out


@nb.njit(cache=_CACHE, inline="always")
def bezier5(u, p):
    """Quintic Bezier ``sum_k C(5,k) u^k (1-u)^(5-k) p_k`` at ``u`` in [0, 1].

    Parameters
    ----------
    u : float
        The curve parameter, 0 to 1.
    p : numpy.ndarray
        (6,) control values.

    Returns
    -------
    float
        The curve's value at ``u``.
    """
    t = 1.0 - u
    return (p[0] * t ** 5 + 5.0 * p[1] * u * t ** 4 + 10.0 * p[2] * u * u * t ** 3 + 10.0 * p[3] * u ** 3 * t * t
            + 5.0 * p[4] * u ** 4 * t + p[5] * u ** 5)


@nb.njit(cache=_CACHE, inline="always")
def segmented_curve(x, X, Y, ends):
    """OpenSim's SmoothSegmentedFunction at ``x``: quintic Bezier segments ``(X[j], Y[j])`` (S, 6) each,
    linear beyond ``ends = (x0, x1, y0, y1, dydx0, dydx1)``.  The segment's ``u`` with ``x(u) = x`` by
    bisection to rounding (``x(u)`` rises monotonically on a corner segment).

    Parameters
    ----------
    x : float
        Where to evaluate.
    X, Y : numpy.ndarray
        (S, 6) each: the segments' x and y control points.
    ends : numpy.ndarray
        (6,) ``(x0, x1, y0, y1, dydx0, dydx1)``: the domain, the values and slopes at its ends.

    Returns
    -------
    float
        The curve's value at ``x``.
    """
    if x <= ends[0]:
        return ends[2] + ends[4] * (x - ends[0])
    if x >= ends[1]:
        return ends[3] + ends[5] * (x - ends[1])
    j = 0
    while j < X.shape[0] - 1 and x > X[j, 5]:
        j += 1
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if bezier5(mid, X[j]) < x:
            lo = mid
        else:
            hi = mid
    return bezier5(0.5 * (lo + hi), Y[j])


@nb.njit(cache=_CACHE)
def millard_capacity(L, dL, fmax, l0, alpha0, ls, vmax, lmin, sinmax, flX, flY, flEnds, fvX, fvY, fvEnds):
    """Active capacity (N) of Millard2012Equilibrium muscles at activation 1, every frame.

    OpenSim's Millard2012EquilibriumMuscle::calcActiveFiberForceAlongTendon
    projects the fibre force with the pennation angle of the *normalised*
    fibre length, ``sin(alpha') = h / (l / l0)`` (at most ``sinmax``), not the
    ``h / l`` its fibre velocity uses; the capacity follows OpenSim.

    Parameters
    ----------
    L, dL : ndarray, shape (F, M), float64
        Muscle-tendon lengths (m) and lengthening speeds (m/s) of the M muscles in every frame.
    fmax, l0, alpha0, ls, vmax, lmin : ndarray, shape (M,), float64
        As :func:`thelen_capacity`: max isometric force (N), optimal fibre length (m), pennation at
        optimum (rad), tendon slack length (m), max contraction velocity (l0/s), minimum fibre length (m).
    sinmax : ndarray, shape (M,), float64
        Sine of each muscle's maximum pennation angle.
    flX, flY : ndarray, shape (M, 5, 6), float64
        The active force-length curve's quintic Bezier control points, x (normalised fibre length) and
        y (multiplier), five segments per muscle (:func:`segmented_curve`).
    flEnds : ndarray, shape (M, 6), float64
        Its ends ``(x0, x1, y0, y1, dydx0, dydx1)``, beyond which it is linear.
    fvX, fvY : ndarray, shape (M, 4, 6), float64
        The force-velocity curve's control points, x (normalised fibre velocity, lengthening +) and y
        (multiplier), four segments per muscle.
    fvEnds : ndarray, shape (M, 6), float64
        Its ends, as ``flEnds``.

    Returns
    -------
    ndarray, shape (F, M), float64
        ``Fmax fL(l/l0) fV(v/(l0 vmax)) cos(alpha')`` (N along the tendon); 0 where the fibre length is
        at most ``lmin`` or the path is shorter than the tendon's slack length (OpenSim: 0).
    """
    nf, nm = L.shape
    out = np.zeros((nf, nm))
    for f in range(nf):
        for m in range(nm):
            length, c, v = fibre_kinematics(L[f, m], dL[f, m], l0[m], alpha0[m], ls[m], lmin[m])
            if length <= lmin[m] or L[f, m] < ls[m]:
                continue
            lN = length / l0[m]
            fl = segmented_curve(lN, flX[m], flY[m], flEnds[m])
            fv = segmented_curve(v / (l0[m] * vmax[m]), fvX[m], fvY[m], fvEnds[m])
            sn = min(l0[m] * math.sin(alpha0[m]) / lN, sinmax[m])
            out[f, m] = fmax[m] * fl * fv * math.sqrt(1.0 - sn * sn)
    return out

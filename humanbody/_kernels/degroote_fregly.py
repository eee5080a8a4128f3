"""Numba kernels of OpenSim's DeGrooteFregly2016Muscle curves and its rigid-tendon active force.

Array in, array out; the constants are OpenSim's (De Groote et al. 2016,
with OpenSim's corrections: ``b11`` so that ``fL(1) = 1``, ``d1`` and ``d4``
so that ``fV(-1) = 0`` and ``fV(0) = 1``, the passive curve through 0 at the
minimum normalised fibre length 0.2).

- active force-length: ``fL(x) = sum_k b1k exp(-(x - b2k)^2 / (2 (b3k + b4k x)^2))``
  at ``x = (lN - 1) / width_scale + 1`` (``active_force_width_scale``);
- force-velocity: ``fV(vN) = d1 ln(y + sqrt(y^2 + 1)) + d4``, ``y = d2 vN + d3``;
- passive force-length: ``fP(lN) = (exp(kPE (lN - 1) / e0) - o) / (exp(kPE) - o)``,
  ``o = exp(kPE (0.2 - 1) / e0)`` (0 at ``lN = 0.2``, 1 at ``lN = 1 + e0``), ``kPE = 4``, ``e0`` the ``passive_fiber_strain_at_one_norm_force``.
"""

from __future__ import annotations

import math

import numba as nb
import numpy as np

from .cache import drop_stale_kernels

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True

B1 = (0.8150671134243542, 0.433004984392647, 0.1)
B2 = (1.055033428970575, 0.716775413397760, 1.0)
B3 = (0.162384573599574, -0.029947116970696, 0.353553390593274)
B4 = (0.063303448465465, 0.200356847296188, 0.0)
D1, D2, D3, D4 = -0.3211346127989808, -8.149, -0.374, 0.8825327733249912
KPE = 4.0
MIN_NORM_FIBER_LENGTH = 0.2


@nb.njit(cache=_CACHE, inline="always")
def active_force_length(lN, width_scale):
    """``fL`` at normalised fibre length ``lN`` (OpenSim's calcActiveForceLengthMultiplier).

    Parameters
    ----------
    lN : float
        Normalised fibre length ``l / l0``.
    width_scale : float
        The muscle's ``active_force_width_scale``.

    Returns
    -------
    float
        The active force-length multiplier (1 at ``lN = 1``).
    """
    x = (lN - 1.0) / width_scale + 1.0
    total = 0.0
    for k in range(3):
        s = B3[k] + B4[k] * x
        total += B1[k] * math.exp(-0.5 * (x - B2[k]) ** 2 / (s * s))
    return total


@nb.njit(cache=_CACHE, inline="always")
def force_velocity(vN):
    """``fV`` at normalised fibre velocity ``vN`` (lengthening +; OpenSim's calcForceVelocityMultiplier).

    Parameters
    ----------
    vN : float
        Normalised fibre velocity ``v / (l0 vmax)`` (-1 at the maximum shortening velocity).

    Returns
    -------
    float
        The force-velocity multiplier (0 at ``vN = -1``, 1 at ``vN = 0``).
    """
    y = D2 * vN + D3
    return D1 * math.log(y + math.sqrt(y * y + 1.0)) + D4


@nb.njit(cache=_CACHE, inline="always")
def passive_force_length(lN, e0):
    """``fP`` at normalised fibre length ``lN`` (OpenSim's calcPassiveForceMultiplier).

    Parameters
    ----------
    lN : float
        Normalised fibre length ``l / l0``.
    e0 : float
        The muscle's ``passive_fiber_strain_at_one_norm_force``.

    Returns
    -------
    float
        The passive force multiplier (0 at ``lN = 0.2``, 1 at ``lN = 1 + e0``).
    """
    offset = math.exp(KPE * (MIN_NORM_FIBER_LENGTH - 1.0) / e0)
    return (math.exp(KPE * (lN - 1.0) / e0) - offset) / (math.exp(KPE) - offset)


@nb.njit(cache=_CACHE)
def curves(lN, vN, width_scale, e0):
    """(N, 3): ``fL``, ``fV``, ``fP`` at each (normalised length, normalised velocity) pair (N,).

    Parameters
    ----------
    lN : numpy.ndarray
        (N,) normalised fibre lengths.
    vN : numpy.ndarray
        (N,) normalised fibre velocities.
    width_scale : float
        ``active_force_width_scale``.
    e0 : float
        ``passive_fiber_strain_at_one_norm_force``.

    Returns
    -------
    numpy.ndarray
        (N, 3) ``fL``, ``fV``, ``fP`` of each pair.
    """
    out = np.empty((lN.shape[0], 3))
    for i in range(lN.shape[0]):
        out[i, 0] = active_force_length(lN[i], width_scale)
        out[i, 1] = force_velocity(vN[i])
        out[i, 2] = passive_force_length(lN[i], e0)
    return out


@nb.njit(cache=_CACHE)
def degroote_capacity(L, dL, fmax, l0, alpha0, ls, vmax, width_scale):
    """Active fibre force (N) of DeGrooteFregly2016 muscles at activation 1 with a rigid tendon, every frame.

    Parameters
    ----------
    L, dL : ndarray, shape (F, M), float64
        Muscle-tendon lengths (m) and lengthening speeds (m/s) of the M muscles in every frame.
    fmax, l0, alpha0, ls, vmax, width_scale : ndarray, shape (M,), float64
        Per muscle: max isometric force (N), optimal fibre length (m), pennation at optimum (rad),
        tendon slack length (m), max contraction velocity (optimal fibre lengths per second, l0/s),
        ``active_force_width_scale`` (dimensionless).

    Returns
    -------
    ndarray, shape (F, M), float64
        ``Fmax fL(l / l0) fV(v / (l0 vmax))`` (N) with ``l = sqrt((l0 sin alpha0)^2 + (L - ls)^2)``,
        ``v = dL cos(alpha)``, ``cos(alpha) = (L - ls) / l`` (1 where ``l = 0``): OpenSim's
        calcInextensibleTendonActiveFiberForce for this muscle, which (unlike Thelen's and
        Millard's) is the fibre's force, not projected on the tendon.
    """
    nf, nm = L.shape
    out = np.zeros((nf, nm))
    for m in range(nm):
        h = l0[m] * math.sin(alpha0[m])
        for f in range(nf):
            x = L[f, m] - ls[m]
            length = math.sqrt(h * h + x * x)
            c = x / length if length > 0.0 else 1.0
            vN = dL[f, m] * c / (l0[m] * vmax[m])
            out[f, m] = fmax[m] * active_force_length(length / l0[m], width_scale[m]) * force_velocity(vN)
    return out

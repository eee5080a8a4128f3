"""Random field theory for smooth one-dimensional statistic fields.

A test statistic computed node by node on curves (t or F) is a sample of a
smooth random field on an interval.  Under the null hypothesis the
probability that its maximum exceeds a height ``u`` is approximated by the
expected Euler characteristic (EC) of the excursion set (Adler & Taylor
2007; Worsley et al. 1996, 2004):

.. math::

    E[\\chi(u)] = \\sum_{d=0}^{1} R_d\\,\\rho_d(u),
    \\qquad P(\\max > u) = 1 - e^{-E[\\chi(u)]}

with the resel counts ``R = (R0, R1)`` of the interval
(:func:`humanbody.stats.smoothness.resels`) and the EC densities
``rho_0`` (the node-wise tail probability) and ``rho_1`` of the t or F
field (Worsley et al. 1996, Table 2).  The Poisson clumping form
``1 - exp(-E[chi])`` treats upcrossings as rare independent events
(Friston et al. 1994, eq. 4 with ``c = 1``, ``k = 0``).

Clusters (Friston et al. 1994): above ``u`` the expected number of
clusters is ``E[chi(u)]`` and the expected extent of one cluster, in
resels, is ``E[n] = R1 rho_0 / (R1 rho_1) = rho_0 / rho_1``; the extent
``n`` of a cluster in a D-dimensional field has

.. math::

    P(n \\ge k) = \\exp(-\\beta k^{2/D}),\\qquad
    \\beta = \\left(\\frac{\\Gamma(D/2 + 1)}{E[n]}\\right)^{2/D}

(``D = 1`` here), and the probability of at least one cluster of extent
``k`` resels or more is ``1 - exp(-E[chi(u)] P(n >= k))``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special  # scipy.special only: scipy.stats and scipy.optimize take seconds to import

#: sqrt(4 ln 2): converts the FWHM of a Gaussian kernel into the field's roughness.
_SQRT_4LN2 = math.sqrt(4.0 * math.log(2.0))


def ec_density_t(u, df: float) -> np.ndarray:
    """EC densities ``(rho_0, rho_1)`` of a Student t field with ``df`` degrees of freedom.

    Worsley et al. (1996), Table 2:

    - ``rho_0(u) = P(T_df > u)``
    - ``rho_1(u) = sqrt(4 ln 2) / (2 pi) * (1 + u^2/df)^(-(df-1)/2)``

    Parameters
    ----------
    u : float or array
        Heights.
    df : float
        Degrees of freedom (> 0).

    Returns
    -------
    ndarray, shape (2,) + shape(u)
        rho_0 and rho_1 at each height.
    """
    u = np.asarray(u, dtype=float)
    rho0 = special.stdtr(df, -u)  # P(T_df > u)
    rho1 = _SQRT_4LN2 / (2.0 * math.pi) * (1.0 + u * u / df) ** (-0.5 * (df - 1.0))
    return np.stack([rho0, rho1])


def ec_density_f(u, df: tuple[float, float]) -> np.ndarray:
    """EC densities ``(rho_0, rho_1)`` of an F field with ``df = (k, v)`` degrees of freedom.

    Worsley et al. (1996), Table 2:

    - ``rho_0(u) = P(F_{k,v} > u)``
    - ``rho_1(u) = sqrt(4 ln 2 / (2 pi)) * Gamma((v+k-1)/2) sqrt(2) / (Gamma(v/2) Gamma(k/2))
      * (k u / v)^((k-1)/2) * (1 + k u / v)^(-(v+k-2)/2)``

    ``rho_1`` is 0 for ``u <= 0``.

    Parameters
    ----------
    u : float or array_like
        Heights.
    df : (float, float)
        Degrees of freedom (k, v) of the numerator and denominator.

    Returns
    -------
    ndarray, shape (2, ...)
        rho_0 and rho_1 at each height (shape (2,) + shape(u)).
    """
    k, v = (float(d) for d in df)
    u = np.asarray(u, dtype=float)
    rho0 = special.fdtrc(k, v, np.maximum(u, 0.0))  # P(F_{k,v} > u)
    x = np.maximum(k * u / v, 0.0)
    log_c = (special.gammaln(0.5 * (v + k - 1.0)) - special.gammaln(0.5 * v) - special.gammaln(0.5 * k)
             + 0.5 * math.log(2.0))
    with np.errstate(divide="ignore"):
        log_rho1 = log_c + 0.5 * (k - 1.0) * np.log(x) - 0.5 * (v + k - 2.0) * np.log1p(x)
    rho1 = _SQRT_4LN2 / math.sqrt(2.0 * math.pi) * np.exp(log_rho1)
    rho1 = np.where(u > 0, rho1, 0.0)
    return np.stack([rho0, rho1])


def ec_density_t2(u, df: tuple[float, float]) -> np.ndarray:
    """EC densities of a Hotelling's T² field with ``df = (p, m)`` (``p`` components, ``m`` error df).

    ``T² > u`` is the event ``F > u (m - p + 1) / (p m)`` of an F field with
    ``(p, m - p + 1)`` degrees of freedom (Hotelling 1931), so the excursion
    sets, and their EC densities, are the F field's at the scaled height.

    Parameters
    ----------
    u : float or array_like
        Heights of the field (the statistic's units).
    df : (float, float)
        (p, m): number of components and error degrees of freedom.

    Returns
    -------
    ndarray, shape (2, ...)
        rho_0 and rho_1 at each height (shape (2,) + shape(u)).
    """
    p, m = (float(d) for d in df)
    u = np.asarray(u, dtype=float)
    return ec_density_f(u * (m - p + 1.0) / (p * m), (p, m - p + 1.0))


def ec_density_x2(u, df: float) -> np.ndarray:
    """EC densities of a chi-square field with ``df`` degrees of freedom (Worsley et al. 1996, Table 2):

    - ``rho_0(u) = P(X²_df > u)``
    - ``rho_1(u) = sqrt(4 ln 2 / (2 pi)) u^((df-1)/2) exp(-u/2) / (2^((df-2)/2) Gamma(df/2))``

    Parameters
    ----------
    u : float or array_like
        Heights of the field (the statistic's units).
    df : float
        Degrees of freedom.

    Returns
    -------
    ndarray, shape (2, ...)
        rho_0 and rho_1 at each height (shape (2,) + shape(u)).
    """
    v = float(df)
    u = np.asarray(u, dtype=float)
    up = np.maximum(u, 0.0)
    rho0 = special.chdtrc(v, up)
    with np.errstate(divide="ignore"):
        log_rho1 = 0.5 * (v - 1.0) * np.log(up) - 0.5 * up - special.gammaln(0.5 * v) - 0.5 * (v - 2.0) * math.log(2.0)
    rho1 = np.where(u > 0, _SQRT_4LN2 / math.sqrt(2.0 * math.pi) * np.exp(log_rho1), 0.0)
    return np.stack([rho0, rho1])


def ec_density(stat: str, u, df) -> np.ndarray:
    """EC densities of a ``"T"``, ``"F"`` or ``"T2"`` field (:func:`ec_density_t`, :func:`ec_density_f`,
    :func:`ec_density_t2`).

    Parameters
    ----------
    stat : {"T", "F", "T2", "X2"}
        The field's statistic: Student t, F, Hotelling's T² or chi-square.
    u : float or array_like
        Heights of the field (the statistic's units).
    df : float or (float, float)
        Degrees of freedom: a float for T and X2, a pair (k, v) for F and (p, m) for T2. For X2 a pair's second value is
        used.

    Returns
    -------
    ndarray, shape (2, ...)
        rho_0 and rho_1 at each height (shape (2,) + shape(u)).
    """
    if stat == "T":
        return ec_density_t(u, df)
    if stat == "F":
        return ec_density_f(u, df)
    if stat == "T2":
        return ec_density_t2(u, df)
    if stat == "X2":
        return ec_density_x2(u, df[1] if isinstance(df, tuple) else df)
    raise ValueError(f"unknown statistic {stat!r} (expected 'T', 'F', 'T2' or 'X2')")


def expected_ec(stat: str, u, df, resel_counts) -> np.ndarray:
    """Expected Euler characteristic ``E[chi(u)] = R0 rho_0(u) + R1 rho_1(u)`` of the excursion set above ``u``.

    Parameters
    ----------
    stat : {"T", "F", "T2", "X2"}
        The field's statistic: Student t, F, Hotelling's T² or chi-square.
    u : float or array_like
        Heights of the field (the statistic's units).
    df : float or (float, float)
        Degrees of freedom: a float for T and X2, a pair (k, v) for F and (p, m) for T2.
    resel_counts : (float, float)
        (R0, R1).

    Returns
    -------
    ndarray
        E[chi(u)], shape of u.
    """
    rho = ec_density(stat, u, df)
    r0, r1 = resel_counts
    return r0 * rho[0] + r1 * rho[1]


def sf_max(stat: str, u, df, resel_counts, nodes: int | None = None) -> np.ndarray:
    """``P(max > u)`` of the field: ``1 - exp(-E[chi(u)])``.

    With ``nodes`` given, the smaller of this and the Bonferroni bound
    ``nodes * rho_0(u)`` is returned: a rough field sampled at few nodes is
    better described by independent nodes than by a continuous field
    (Worsley et al. 2004).

    Parameters
    ----------
    stat : {"T", "F", "T2", "X2"}
        The field's statistic: Student t, F, Hotelling's T² or chi-square.
    u : float or array_like
        Heights of the field (the statistic's units).
    df : float or (float, float)
        Degrees of freedom: a float for T and X2, a pair (k, v) for F and (p, m) for T2.
    resel_counts : (float, float)
        Resel counts (R0, R1) of the 1-D field (see resel_counts).
    nodes : int, optional
        Number of nodes; given, P is bounded by the Bonferroni nodes * rho_0(u).

    Returns
    -------
    ndarray
        In [0, 1].
    """
    p = -np.expm1(-expected_ec(stat, u, df, resel_counts))
    if nodes is not None:
        p = np.minimum(p, nodes * ec_density(stat, u, df)[0])
    return np.clip(p, 0.0, 1.0)


def isf_max(stat: str, alpha: float, df, resel_counts, nodes: int | None = None) -> float:
    """The critical height ``u*``: the root of ``P(max > u*) = alpha`` (:func:`sf_max`).

    Parameters
    ----------
    stat : {"T", "F", "T2", "X2"}
        The field's statistic: Student t, F, Hotelling's T² or chi-square.
    alpha : float
        Significance level, in (0, 1).
    df : float or (float, float)
        Degrees of freedom: a float for T and X2, a pair (k, v) for F and (p, m) for T2.
    resel_counts : (float, float)
        Resel counts (R0, R1) of the 1-D field (see resel_counts).
    nodes : int, optional
        Number of nodes; given, P is bounded by the Bonferroni nodes * rho_0(u).

    Returns
    -------
    float
        The critical height u* (the statistic's units).
    """
    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")

    def excess(u):
        return float(sf_max(stat, u, df, resel_counts, nodes)) - alpha

    lo = 0.0
    hi = 1.0
    while excess(hi) > 0.0:  # P(max > u) decreases with u: bracket the root
        lo, hi = hi, 2.0 * hi
        if hi > 1e8:
            raise ArithmeticError("critical height not bracketed")
    if excess(lo) < 0.0:  # already below alpha at u = 0 (F field with alpha near 1)
        return lo
    return _root(excess, lo, hi)


def _root(f, lo: float, hi: float, tol: float = 1e-12) -> float:
    """Root of a decreasing ``f`` in [lo, hi] (``f(lo) >= 0 >= f(hi)``): regula falsi with the
    Illinois modification (superlinear, and never leaves the bracket)."""
    flo, fhi = f(lo), f(hi)
    side = 0
    for _ in range(200):
        x = hi - fhi * (hi - lo) / (fhi - flo) if fhi != flo else 0.5 * (lo + hi)
        fx = f(x)
        if fx == 0.0 or hi - lo < tol * max(1.0, abs(x)):
            return float(x)
        if fx > 0.0:
            lo, flo = x, fx
            if side == 1:
                fhi *= 0.5
            side = 1
        else:
            hi, fhi = x, fx
            if side == -1:
                flo *= 0.5
            side = -1
    return float(x)


def p_cluster(stat: str, extent_resels: float, u: float, df, resel_counts) -> float:
    """Probability of at least one cluster of at least ``extent_resels`` resels above ``u`` (1-D field).

    Friston et al. (1994), with the Poisson clumping heuristic for ``c = 1``
    cluster::

        E[n]     = rho_0(u) / rho_1(u)                      (expected extent, resels)
        beta     = (Gamma(3/2) / E[n])**2                   (D = 1)
        P(n>=k)  = exp(-beta k**2)
        p        = 1 - exp(-E[chi(u)] P(n >= k))

    Parameters
    ----------
    stat : {"T", "F", "T2", "X2"}
        The field's statistic: Student t, F, Hotelling's T² or chi-square.
    extent_resels : float
        The cluster's extent in resels (its extent in nodes over the FWHM in nodes).
    u : float
        The threshold the cluster is above.
    df : float or (float, float)
        Degrees of freedom: a float for T and X2, a pair (k, v) for F and (p, m) for T2.
    resel_counts : (float, float)
        Resel counts (R0, R1) of the 1-D field (see resel_counts).

    Returns
    -------
    float
        The cluster's probability, in [0, 1].
    """
    rho0, rho1 = (float(r) for r in ec_density(stat, u, df))
    r0, r1 = resel_counts
    ec = r0 * rho0 + r1 * rho1
    if rho1 <= 0.0:
        return float(-math.expm1(-ec))
    mean_extent = rho0 / rho1
    beta = (math.gamma(1.5) / mean_extent) ** 2
    p_extent = math.exp(-beta * float(extent_resels) ** 2)
    return float(min(1.0, -math.expm1(-ec * p_extent)))

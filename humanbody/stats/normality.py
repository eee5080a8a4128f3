"""Normality of the residual curves: the D'Agostino-Pearson K² test at every node, with RFT inference.

The tests of :mod:`.parametric`, :mod:`.hotellings` and :mod:`.glm` assume
Gaussian residuals.  At each node ``q`` the residuals ``r_j(q)`` of the
test's model give the sample skewness and kurtosis, each transformed to an
approximately standard normal ``Z(g1)``, ``Z(g2)`` (D'Agostino, Belanger &
D'Agostino 1990), and

.. math::

    K^2(q) = Z(g_1)^2 + Z(g_2)^2 \\sim \\chi^2_2

under normality.  The K² curve is a chi-square field with 2 degrees of
freedom; its critical height comes from random field theory
(:func:`humanbody.stats.rft.ec_density_x2`) with the residuals' smoothness,
as in spm1d's ``normality`` module.  A supra-threshold cluster says the
residuals are not Gaussian there: the permutation version of the test
(``humanbody.stats.nonparam``) does not need the assumption.  At least 8
curves are needed.

That test (:func:`residuals`, equal to spm1d's) is liberal: on Gaussian
curves it rejects 22-28 % of samples of 10-40 curves at alpha 0.05 (K² is
only asymptotically chi-square and its field is rougher than the residuals).
:func:`rejects`, which ``compare`` uses, calibrates the critical height by
Monte Carlo instead.
"""

from __future__ import annotations

import functools

import numpy as np
from scipy import ndimage

from ..errors import InputError
from .k2_table import K2_CRITICAL
from .parametric import inference
from .result import SPMResult
from .smoothness import estimate_fwhm

ADVICE = "residuals not normal: the permutation test (no normality assumption) is the safer choice"


def k2_field(R) -> np.ndarray:
    """D'Agostino-Pearson K² of each column of ``R`` (curves, nodes), shape (nodes,).

    Parameters
    ----------
    R : array_like, shape (curves, nodes)
        The residual curves (each curve minus its fitted mean), one row per curve. At least 8 curves.

    Returns
    -------
    ndarray, shape (nodes,)
        K² at each node (skewness and kurtosis z scores squared and summed).
    """
    x = np.asarray(R, dtype=float)
    n = float(x.shape[0])
    x2 = x * x
    s1, s2, s3, s4 = x.sum(axis=0), x2.sum(axis=0), (x2 * x).sum(axis=0), (x2 * x2).sum(axis=0)
    SS = s2 - s1 ** 2 / n
    v = SS / (n - 1)
    k3 = (n * s3 - 3 * s1 * s2 + 2 * s1 ** 3 / n) / ((n - 1) * (n - 2))
    g1 = k3 / v ** 1.5
    k4 = ((n + 1) * (n * s4 - 4 * s1 * s3 + 6 * s1 ** 2 * (s2 / n) - 3 * s1 ** 4 / n ** 2)
          / ((n - 1) * (n - 2) * (n - 3))) - 3 * SS ** 2 / ((n - 2) * (n - 3))
    g2 = k4 / v ** 2
    eg1 = (n - 2) * g1 / np.sqrt(n * (n - 1))  # skewness
    # transformed skewness
    A = eg1 * np.sqrt((n + 1) * (n + 3) / (6 * (n - 2)))
    B = 3 * (n ** 2 + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2) * (n + 5) * (n + 7) * (n + 9))
    C = np.sqrt(2 * (B - 1)) - 1
    D = np.sqrt(C)
    E = 1 / np.sqrt(np.log(D))
    F = A / np.sqrt(2 / (C - 1))
    zg1 = E * np.log(F + np.sqrt(F ** 2 + 1))
    # transformed kurtosis
    G = 24 * n * (n - 2) * (n - 3) / ((n + 1) ** 2 * (n + 3) * (n + 5))
    H = (n - 2) * (n - 3) * g2 / ((n + 1) * (n - 1) * np.sqrt(G))
    J = 6 * (n ** 2 - 5 * n + 2) / ((n + 7) * (n + 9)) * np.sqrt(6 * (n + 3) * (n + 5) / (n * (n - 2) * (n - 3)))
    K = 6 + 8 / J * (2 / J + np.sqrt(1 + 4 / J ** 2))
    L = (1 - 2 / K) / (1 + H * np.sqrt(2 / (K - 4)))
    zg2 = (1 - 2 / (9 * K) - np.cbrt(L)) / np.sqrt(2 / (9 * K))
    return zg1 ** 2 + zg2 ** 2


def residuals(R, *, alpha: float = 0.05) -> SPMResult:
    """K² normality test of residual curves ``R`` (curves, nodes): an SPM{X²} with ``df = (1, 2)``.

    Parameters
    ----------
    R : array_like, shape (curves, nodes)
        The residual curves (each curve minus its fitted mean), one row per curve. At least 8 curves.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    R = np.asarray(R, dtype=float)
    if R.ndim != 2:
        raise InputError(f"residuals must be a 2-D array (curves, nodes), got shape {R.shape}")
    if R.shape[0] < 8:
        raise InputError(f"a normality test needs at least 8 curves, got {R.shape[0]}")
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.nan_to_num(k2_field(R), nan=0.0)
    return inference("normality", "X2", z, (1.0, 2.0), R, alpha, False)


#: Curve counts and smoothness (FWHM in node intervals of a 101-node curve) of the tabulated critical heights
K2_SIZES = (8, 10, 12, 15, 20, 30, 40, 60, 100)
K2_FWHM = (2.0, 2.83, 4.0, 5.66, 8.0, 11.3, 16.0, 22.6, 32.0, 45.3, 64.0)


def critical_k2(J: int, fwhm: float, nodes: int = 101) -> float:
    """Critical height of the largest K² at alpha 0.05 for ``J`` Gaussian curves of smoothness ``fwhm``.

    Interpolated (linearly in ``1/J`` and ``log FWHM``) in the Monte Carlo
    table :mod:`.k2_table`; a curve of another number of nodes uses the FWHM
    with the same number of resels on 101 nodes; ``J`` beyond the table takes
    its end (more curves: a lower critical height, so the check is
    conservative there).

    Parameters
    ----------
    J : int
        Number of curves.
    fwhm : float
        Node intervals.
    nodes : int
        Number of nodes of the curves.

    Returns
    -------
    float
        The critical largest K² (alpha 0.05).
    """
    table = np.asarray(K2_CRITICAL)
    f = float(np.clip(np.log(fwhm * 100.0 / max(nodes - 1, 1)), np.log(K2_FWHM[0]), np.log(K2_FWHM[-1])))
    per_size = [np.interp(f, np.log(K2_FWHM), row) for row in table]
    inv = 1.0 / np.asarray(K2_SIZES, dtype=float)
    return float(np.interp(1.0 / J, inv[::-1], np.asarray(per_size)[::-1]))


def rejects(R) -> bool:
    """Calibrated K² check at alpha 0.05: True when the largest K² of the residuals ``R`` (curves, nodes)
    exceeds :func:`critical_k2` for as many Gaussian curves of their smoothness.

    :func:`residuals` (spm1d's test) is liberal: K² is only asymptotically
    chi-square, its tail is heavier for tens of curves, and its field is
    rougher than the residuals whose smoothness sets the RFT threshold (it
    rejects 22-28 % of Gaussian samples of 10-40 curves at alpha 0.05).  The
    critical height here is the 95th percentile of the largest K² of Gaussian
    curves like the residuals (Monte Carlo, tabulated), so Gaussian
    residuals are flagged in about 5 % of the tests.

    Parameters
    ----------
    R : ndarray, shape (curves, nodes)
        The residual curves (each curve minus its fitted mean), one row per curve. At least 8 curves.

    Returns
    -------
    bool
        True when the residuals are not Gaussian at alpha 0.05.
    """
    R = np.asarray(R, dtype=float)
    if R.ndim != 2 or R.shape[0] < 8:
        raise InputError(f"a normality test needs at least 8 curves (curves, nodes), got shape {R.shape}")

    with np.errstate(divide="ignore", invalid="ignore"):
        k2 = np.nan_to_num(k2_field(R), nan=0.0)
    return bool(k2.max() > critical_k2(R.shape[0], estimate_fwhm(R), R.shape[1]))


@functools.lru_cache(maxsize=64)
def _null_maxima(J: int, nodes: int, fwhm: float, draws: int) -> np.ndarray:
    """Largest K² of ``draws`` samples of ``J`` Gaussian curves of ``nodes`` nodes smoothed to ``fwhm``."""
    rng = np.random.default_rng([J, nodes, int(round(fwhm * 100)), draws])
    s = fwhm / np.sqrt(8.0 * np.log(2.0))
    pad = int(4 * s) + 1
    out = np.empty(draws)
    step = max(1, 200000 // (J * (nodes + 2 * pad)))
    for i in range(0, draws, step):
        n = min(step, draws - i)
        y = ndimage.gaussian_filter1d(rng.standard_normal((J, n, nodes + 2 * pad)), s, axis=2,
                                      mode="constant")[:, :, pad:pad + nodes]
        y = y - y.mean(axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[i:i + n] = np.nan_to_num(k2_field(y.reshape(J, -1)), nan=0.0).reshape(n, nodes).max(axis=1)
    return out


def ttest(Y, **kw) -> SPMResult:
    """Normality of the one-sample test's residuals ``Y - mean(Y)``.

    Parameters
    ----------
    Y : ndarray, shape (curves, nodes)
        The curves of the one-sample test.
    **kw
        As :func:`residuals` takes them.

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    Y = np.asarray(Y, dtype=float)
    return residuals(Y - Y.mean(axis=0), **kw)


def ttest_paired(YA, YB, **kw) -> SPMResult:
    """Normality of the paired test's residuals: :func:`ttest` of ``YA - YB``.

    Parameters
    ----------
    YA, YB : array_like, shape (curves, nodes)
        The paired curves (row j of each one subject's two conditions).
    **kw
        As :func:`residuals` takes them.

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    return ttest(np.asarray(YA, dtype=float) - np.asarray(YB, dtype=float), **kw)


def ttest2(YA, YB, **kw) -> SPMResult:
    """Normality of the two-sample residuals (each curve minus its group's mean).

    Parameters
    ----------
    YA, YB : ndarray, shape (curves, nodes)
        The two groups' curves on the same nodes.
    **kw
        As :func:`residuals` takes them.

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    return groups([YA, YB], **kw)


def groups(parts, **kw) -> SPMResult:
    """Normality of the residuals of a one-way design (each curve minus its group's mean).

    Parameters
    ----------
    parts : list of ndarray, shape (curves_i, nodes)
        The groups' curves on the same nodes.
    **kw
        As :func:`residuals` takes them.

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    parts = [np.asarray(g, dtype=float) for g in parts]
    return residuals(np.concatenate([g - g.mean(axis=0) for g in parts]), **kw)


def regress(Y, x, **kw) -> SPMResult:
    """Normality of the regression's residuals.

    Parameters
    ----------
    Y : ndarray, shape (curves, nodes)
        The curves regressed.
    x : array_like, shape (curves,)
        The regressor's value of each curve.
    **kw
        As :func:`residuals` takes them.

    Returns
    -------
    SPMResult
        The K² field (an SPM{X²}, df (1, 2)), its threshold at alpha and its clusters.
    """
    Y = np.asarray(Y, dtype=float)
    X = np.column_stack([np.asarray(x, dtype=float), np.ones(Y.shape[0])])
    return residuals(Y - X @ np.linalg.lstsq(X, Y, rcond=None)[0], **kw)

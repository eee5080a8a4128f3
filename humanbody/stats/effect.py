"""Effect size curves: how large a difference is at each node, independently of the sample size.

======================  ====================================================  ==========================
test                    effect size                                           from the statistic
======================  ====================================================  ==========================
two samples             Cohen's ``d = (mA - mB) / s_p``                       ``t sqrt(1/JA + 1/JB)``
one sample, paired      ``d_z = mean(y) / s``                                 ``t / sqrt(J)``
regression              the correlation ``r``                                 ``t / sqrt(J - 2 + t²)``
ANOVA effect            partial ``eta² = SS_eff / (SS_eff + SS_err)``         ``F k / (F k + v)``
Hotelling's T², 2 s.    Mahalanobis ``D = sqrt((mA-mB)ᵀ W⁻¹ (mA-mB))``         ``sqrt(T² (1/JA + 1/JB))``
Hotelling's T², 1 s.    ``D = sqrt(mᵀ W⁻¹ m)``                                ``sqrt(T² / J)``
======================  ====================================================  ==========================
"""

from __future__ import annotations

import numpy as np


def cohens_d(t, JA: int, JB: int) -> np.ndarray:
    """Cohen's d (pooled SD) of two groups from their two-sample t curve.

    Parameters
    ----------
    t : array_like, shape (nodes,)
        The two-sample t (pooled variance) at each node.
    JA, JB : int
        The groups' numbers of curves.

    Returns
    -------
    ndarray, shape (nodes,)
        d at each node, positive where group A's mean is above B's.
    """
    return np.asarray(t, dtype=float) * np.sqrt(1.0 / JA + 1.0 / JB)


def cohens_dz(t, J: int) -> np.ndarray:
    """Standardised mean (of the differences, for paired curves) from the one-sample t curve.

    Parameters
    ----------
    t : array_like, shape (nodes,)
        The one-sample (or paired) t at each node.
    J : int
        Number of curves.

    Returns
    -------
    ndarray, shape (nodes,)
        d_z = t / sqrt(J) at each node.
    """
    return np.asarray(t, dtype=float) / np.sqrt(J)


def partial_eta2(F, df) -> np.ndarray:
    """Partial eta squared of an ANOVA effect from its F curve and ``df = (k, v)``.

    Parameters
    ----------
    F : ndarray, shape (nodes,)
        The effect's F at each node.
    df : (float, float)
        (k, v): the effect's and the error's degrees of freedom.

    Returns
    -------
    ndarray, shape (nodes,)
        F k / (F k + v), in [0, 1), at each node.
    """
    k, v = df
    F = np.asarray(F, dtype=float)
    return F * k / (F * k + v)


def correlation(t, J: int) -> np.ndarray:
    """Pearson's r from the regression slope's t curve (``J`` curves).

    Parameters
    ----------
    t : ndarray, shape (nodes,)
        The slope's t at each node.
    J : int
        Number of curves (df = J - 2).

    Returns
    -------
    ndarray, shape (nodes,)
        r in (-1, 1), with the sign of the slope, at each node.
    """
    t = np.asarray(t, dtype=float)
    return t / np.sqrt(J - 2 + t * t)


def mahalanobis(T2, JA: int, JB: int | None = None) -> np.ndarray:
    """Mahalanobis distance between two groups' mean vectors (or of one mean from 0 when ``JB`` is None).

    Parameters
    ----------
    T2 : ndarray, shape (nodes,)
        Hotelling's T² field.
    JA : int
        Number of curves of group A (or of the one group).
    JB : int, optional
        Number of curves of group B; None for a one-sample test.

    Returns
    -------
    ndarray, shape (nodes,)
        The distance, in standard deviations (pooled covariance), at each node.
    """
    T2 = np.asarray(T2, dtype=float)
    return np.sqrt(T2 * (1.0 / JA + 1.0 / JB)) if JB is not None else np.sqrt(T2 / JA)

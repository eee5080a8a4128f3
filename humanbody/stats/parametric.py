"""Parametric SPM tests on curves: t tests and one-way ANOVA with random field theory inference.

Curves are rows of an array of shape (curves, nodes): one row per subject
or stride, one column per node (e.g. 101 nodes for 0-100 % of a gait cycle).
Each test computes its statistic node by node, estimates the smoothness of
the residual field (:mod:`.smoothness`), finds the critical height by random
field theory (:mod:`.rft`) and the clusters beyond it (:mod:`.clusters`)
with their probabilities.

======================  ==========================================================  ==================
test                    statistic at each node                                      df
======================  ==========================================================  ==================
:func:`ttest`           ``t = (mean(y) - mu) / (s / sqrt(J))``                      ``J - 1``
:func:`ttest_paired`    :func:`ttest` of ``yA - yB``                                ``J - 1``
:func:`ttest2`          ``t = (mA - mB) / (s_p sqrt(1/JA + 1/JB))``                 ``JA + JB - 2``
``ttest2`` Welch        ``t = (mA - mB) / sqrt(sA^2/JA + sB^2/JB)``                  Satterthwaite
:func:`anova1`          ``F = (SS_between / (k-1)) / (SS_within / (N-k))``          ``(k-1, N-k)``
======================  ==========================================================  ==================
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InputError
from . import rft
from .clusters import Cluster, find_clusters
from .result import SPMResult, check_curves
from .smoothness import field_fwhm, resels


def check_alpha(alpha: float) -> float:
    """``alpha`` as a float in (0, 1) (InputError otherwise).

    Parameters
    ----------
    alpha : float
        The requested significance level.

    Returns
    -------
    float
        The same level, checked to lie in (0, 1).
    """
    alpha = float(alpha)
    if not 0.0 < alpha < 1.0:
        raise InputError(f"alpha must be between 0 and 1, got {alpha}")
    return alpha


def divide_by_variation(num: np.ndarray, den: np.ndarray, what: str) -> np.ndarray:
    """``num / den`` per node; InputError where the curves do not vary (``den == 0``).

    Parameters
    ----------
    num, den : ndarray, shape (nodes,)
        Numerator and denominator of the statistic at each node.
    what : str
        The statistic's name in the message.

    Returns
    -------
    ndarray, shape (nodes,)
        The statistic at each node.
    """
    bad = ~(den > 0.0)
    if bad.any():
        nodes = np.flatnonzero(bad)
        raise InputError(f"the curves do not vary at node {nodes[0]} ({nodes.size} nodes): "
                         f"the {what} statistic is undefined there")
    return num / den


def t_field(Y, mu=0.0) -> np.ndarray:
    """One-sample t at each node: ``(mean(y) - mu) / (s / sqrt(J))``, shape (nodes,).

    Parameters
    ----------
    Y : ndarray, shape (J, nodes)
        J curves, one row each.
    mu : float or ndarray, shape (nodes,)
        The mean curve under the null hypothesis, in the curves' units.

    Returns
    -------
    ndarray, shape (nodes,)
        The t statistic at each node (df = J - 1).
    """
    Y = np.asarray(Y, dtype=float)
    J = Y.shape[0]
    return divide_by_variation(Y.mean(axis=0) - mu, Y.std(axis=0, ddof=1) / np.sqrt(J), "t")


def t2_field(YA, YB, equal_var: bool = True) -> tuple[np.ndarray, float]:
    """Two-sample t at each node and its degrees of freedom.

    Equal variances: pooled ``s_p^2 = ((JA-1) sA^2 + (JB-1) sB^2) / (JA+JB-2)``,
    ``df = JA + JB - 2``.  Welch (``equal_var=False``): ``t = (mA - mB) /
    sqrt(sA^2/JA + sB^2/JB)`` node by node, and one Welch-Satterthwaite
    ``df = (a + b)^2 / (a^2/(JA-1) + b^2/(JB-1))`` for the whole field with
    ``a = mean(sA^2)/JA``, ``b = mean(sB^2)/JB`` (variances averaged over
    the nodes), as random field theory needs a single df.

    Parameters
    ----------
    YA, YB : ndarray, shape (JA, nodes), (JB, nodes)
        The two groups' curves on the same nodes.
    equal_var : bool
        True: pooled variance (Student); False: Welch.

    Returns
    -------
    t : ndarray, shape (nodes,)
        The two-sample t at each node, positive where A's mean is above B's.
    df : float
        Degrees of freedom (one value for the whole field).
    """
    JA, JB = YA.shape[0], YB.shape[0]
    va, vb = YA.var(axis=0, ddof=1), YB.var(axis=0, ddof=1)
    diff = YA.mean(axis=0) - YB.mean(axis=0)
    if equal_var:
        sp2 = ((JA - 1) * va + (JB - 1) * vb) / (JA + JB - 2)
        return divide_by_variation(diff, np.sqrt(sp2 * (1.0 / JA + 1.0 / JB)), "t"), float(JA + JB - 2)
    t = divide_by_variation(diff, np.sqrt(va / JA + vb / JB), "t")
    a, b = va.mean() / JA, vb.mean() / JB
    df = (a + b) ** 2 / (a * a / (JA - 1) + b * b / (JB - 1))
    return t, float(df)


def f_field(groups: list[np.ndarray]) -> tuple[np.ndarray, tuple[float, float]]:
    """One-way ANOVA F at each node and its degrees of freedom ``(k-1, N-k)``.

    ``SS_between = sum_i J_i (m_i - m)^2``, ``SS_within = sum_i sum_j (y_ij - m_i)^2``.

    Parameters
    ----------
    groups : list of ndarray, shape (J_i, nodes)
        The k groups' curves on the same nodes.

    Returns
    -------
    F : ndarray, shape (nodes,)
        (SS_between / (k - 1)) / (SS_within / (N - k)) at each node.
    df : (float, float)
        (k - 1, N - k), N the number of curves.
    """
    k = len(groups)
    N = sum(g.shape[0] for g in groups)
    grand = np.concatenate(groups).mean(axis=0)
    ssb = sum(g.shape[0] * (g.mean(axis=0) - grand) ** 2 for g in groups)
    ssw = sum(((g - g.mean(axis=0)) ** 2).sum(axis=0) for g in groups)
    df = (float(k - 1), float(N - k))
    return divide_by_variation(ssb / df[0], ssw / df[1], "F"), df


def inference(test: str, stat: str, z: np.ndarray, df, residuals: np.ndarray,
              alpha: float, two_tailed: bool) -> SPMResult:
    """Random field theory inference on the field ``z`` (shape (nodes,)).

    The smoothness comes from ``residuals`` (curves, nodes); the threshold
    solves ``P(max > u*) = alpha`` (``alpha/2`` per tail when two-tailed,
    never for an F field) with the Bonferroni bound over the nodes; each
    cluster's probability is :func:`.rft.p_cluster` of its interpolated
    extent, doubled (at most 1) when two-tailed.

    Parameters
    ----------
    test : str
        The test's name in the result.
    stat : {"T", "F", "T2", "X2"}
        The field's statistic.
    z : ndarray, shape (nodes,)
        The observed field.
    df : float or (float, float)
        Degrees of freedom of the statistic (a pair for F and T2).
    residuals : ndarray, shape (curves, nodes) or (curves, nodes, components)
        Each curve minus its fitted mean, from which the smoothness (FWHM) is estimated.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (alpha/2 per tail); False: only t above the threshold. Ignored for other than a
        T field.

    Returns
    -------
    SPMResult
        The field, its critical threshold and its supra-threshold clusters with their p values.
    """
    alpha = check_alpha(alpha)
    two_tailed = bool(two_tailed) and stat == "T"
    nodes = z.size
    fwhm = field_fwhm(residuals)
    if not np.isfinite(fwhm):
        raise InputError("the residuals do not vary along the curve: the field's smoothness is undefined")
    R = resels(nodes, fwhm)
    a = alpha / 2.0 if two_tailed else alpha
    u = rft.isf_max(stat, a, df, R, nodes=nodes)
    found = []
    for sign in ((1, -1) if two_tailed else (1,)):
        for start, end, peak in find_clusters(z, u, sign):
            extent = end - start
            p = rft.p_cluster(stat, extent / fwhm, u, df, R)
            if two_tailed:
                p = min(1.0, 2.0 * p)
            found.append(Cluster(start, end, sign, p, extent, extent / fwhm, peak))
    found.sort(key=lambda c: c.start)
    return SPMResult(test, stat, z, df, fwhm, R, alpha, two_tailed, u, tuple(found))


def ttest(Y, mu=0.0, *, alpha: float = 0.05, two_tailed: bool = True) -> SPMResult:
    """One-sample SPM t test: is the mean curve different from ``mu``?

    Parameters
    ----------
    Y : array, shape (curves, nodes)
        One curve per row (subject or stride).
    mu : float or array (nodes,)
        The curve of the null hypothesis (0 by default).
    alpha : float
        Type I error rate for the whole curve.
    two_tailed : bool
        Test both signs (``alpha/2`` each), or only ``mean > mu``.

    Returns
    -------
    SPMResult
        ``t = (mean(Y) - mu) / (s / sqrt(J))``, ``df = J - 1``.
    """
    Y = check_curves(Y, "Y")
    z = t_field(Y, mu)
    return inference("ttest", "T", z, float(Y.shape[0] - 1), Y - Y.mean(axis=0), alpha, two_tailed)


def ttest_paired(YA, YB, *, alpha: float = 0.05, two_tailed: bool = True) -> SPMResult:
    """Paired SPM t test: the one-sample test of the differences ``YA - YB`` (same rows, same order).

    Parameters
    ----------
    YA, YB : array_like, shape (curves, nodes)
        The paired curves: row j of YA and row j of YB are one subject's (or trial's) two conditions.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (alpha/2 per tail); False: only t above the threshold.

    Returns
    -------
    SPMResult
        The field, its critical threshold and its supra-threshold clusters with their p values.
    """
    YA, YB = check_curves(YA, "YA"), check_curves(YB, "YB")
    if YA.shape != YB.shape:
        raise InputError(f"paired curves must have the same shape, got {YA.shape} and {YB.shape}")
    return replace(ttest(YA - YB, alpha=alpha, two_tailed=two_tailed), test="ttest_paired")


def ttest2(YA, YB, *, equal_var: bool = True, alpha: float = 0.05, two_tailed: bool = True) -> SPMResult:
    """Two-sample SPM t test: are the mean curves of two independent groups different?

    ``t > 0`` where group A's mean is above group B's.  See :func:`t2_field`
    for the statistic and df (pooled variance, or Welch with
    ``equal_var=False``).  The residuals are each curve minus its group mean.

    Parameters
    ----------
    YA, YB : array_like, shape (curves_A, nodes), (curves_B, nodes)
        The two groups' curves on the same nodes.
    equal_var : bool
        True: pooled variance (Student); False: Welch.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (alpha/2 per tail); False: only t above the threshold.

    Returns
    -------
    SPMResult
        The field, its critical threshold and its supra-threshold clusters with their p values.
    """
    YA, YB = check_curves(YA, "YA"), check_curves(YB, "YB")
    same_nodes([YA, YB])
    z, df = t2_field(YA, YB, equal_var)
    residuals = np.concatenate([YA - YA.mean(axis=0), YB - YB.mean(axis=0)])
    return inference("ttest2", "T", z, df, residuals, alpha, two_tailed)


def anova1(Y, groups=None, *, alpha: float = 0.05) -> SPMResult:
    """One-way SPM ANOVA: do the mean curves of ``k >= 2`` groups differ anywhere?

    Parameters
    ----------
    Y : array (curves, nodes), or a sequence of arrays (curves_i, nodes)
        All curves with ``groups`` giving each row's group label, or one
        array per group (then ``groups`` is None).
    groups : array (curves,), optional
        Group label of each row of ``Y``.
    alpha : float
        Type I error rate for the whole curve.

    Returns
    -------
    SPMResult
        The F field (``stat == "F"``, one-tailed), ``df = (k-1, N-k)``.
    """
    parts = split_groups(Y, groups)
    z, df = f_field(parts)
    residuals = np.concatenate([g - g.mean(axis=0) for g in parts])
    return inference("anova1", "F", z, df, residuals, alpha, False)


def split_groups(Y, groups) -> list[np.ndarray]:
    """The groups of a one-way design as a list of checked (curves, nodes) arrays (InputError for fewer than two groups, unequal nodes or no more curves than groups).

    Parameters
    ----------
    Y : array_like or list of array_like
        Curves (curves, nodes) with ``groups``, or one array per group.
    groups : array_like, shape (curves,), or None
        Group label of each row of Y; None when Y is already a list of groups.

    Returns
    -------
    list of ndarray
        One (curves_i, nodes) array per group, in sorted label order (or Y's order).
    """
    if groups is None:
        parts = [check_curves(g, f"group {i}") for i, g in enumerate(Y)]
    else:
        Y = check_curves(Y, "Y")
        labels = np.asarray(groups)
        if labels.shape != (Y.shape[0],):
            raise InputError(f"groups must give one label per curve ({Y.shape[0]}), got shape {labels.shape}")
        parts = [check_curves(Y[labels == g], f"group {g!r}") for g in np.unique(labels)]
    if len(parts) < 2:
        raise InputError(f"a one-way ANOVA needs at least 2 groups, got {len(parts)}")
    same_nodes(parts)
    if sum(g.shape[0] for g in parts) <= len(parts):
        raise InputError("a one-way ANOVA needs more curves than groups")
    return parts


def same_nodes(parts: list[np.ndarray]) -> None:
    """InputError unless every group's curves have the same number of nodes.

    Parameters
    ----------
    parts : list of ndarray, shape (curves_i, nodes)
        The groups' curves.
    """
    sizes = {g.shape[1] for g in parts}
    if len(sizes) > 1:
        raise InputError(f"the groups' curves have different numbers of nodes: {sorted(sizes)}")


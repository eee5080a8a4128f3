"""Non-parametric (permutation) SPM tests: the same tests as :mod:`.parametric` without random field theory.

Under the null hypothesis the group labels (two-sample, ANOVA) or the signs
of the curves (one-sample, paired differences) are exchangeable (Nichols &
Holmes 2002; Pataky et al. 2015).  Each relabelling gives a whole
statistic field; the largest value of each field (``|z|`` when
two-tailed) builds the distribution of the field maximum, and the critical
threshold is its ``100 (1 - alpha)`` percentile.  The observed labelling is
always one of them.  When there are no more distinct labellings than
``iterations`` all of them are used (an exact test), otherwise
``iterations`` random ones.

A cluster's probability is the fraction of relabellings whose largest
cluster metric, with the same threshold, is at least the observed
cluster's: ``"integral"`` (area of the field above the threshold,
trapezoidal between the interpolated endpoints; the default) or
``"extent"`` (interpolated width in node intervals).

The functions take the arguments of their parametric namesakes plus
``iterations`` (10,000), ``seed`` (for the random relabellings) and
``cluster_metric``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import replace

import numpy as np

from ..errors import InputError
from .clusters import Cluster, find_clusters
from .parametric import check_alpha, f_field, same_nodes, split_groups, t2_field, t_field
from .result import SPMResult, check_curves
from .smoothness import field_fwhm, resels

METRICS = ("integral", "extent")


def ttest(Y, mu=0.0, *, alpha: float = 0.05, two_tailed: bool = True, iterations: int = 10000,
          seed=None, cluster_metric: str = "integral") -> SPMResult:
    """Permutation one-sample t test: the signs of the curves ``Y - mu`` are flipped.

    ``2^J`` labellings exist for ``J`` curves.  See :func:`.parametric.ttest`.

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve (e.g. per cycle), one column per node of the common time axis.
    mu : float or array_like, shape (nodes,)
        The mean curve under the null hypothesis, in the curves' units.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (the threshold on |t|); False: only t above the threshold.
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    SPMResult
        The observed field, its permutation threshold and its clusters with their p values.
    """
    Y = check_curves(Y, "Y") - mu
    z = t_field(Y)
    J = Y.shape[0]
    signs = sign_flips(J, iterations, seed, two_tailed)
    m = signs @ Y / J
    ss = np.einsum("jq,jq->q", Y, Y)
    with np.errstate(divide="ignore", invalid="ignore"):
        fields = m / np.sqrt((ss - J * m * m) / (J - 1) / J)
    return permutation_inference("ttest", "T", z, float(J - 1), Y - Y.mean(axis=0), fields,
                      alpha, two_tailed, cluster_metric)


def ttest_paired(YA, YB, *, alpha: float = 0.05, two_tailed: bool = True, iterations: int = 10000,
                 seed=None, cluster_metric: str = "integral") -> SPMResult:
    """Permutation paired t test: :func:`ttest` of ``YA - YB`` (the pairs' order is flipped).

    Parameters
    ----------
    YA, YB : array_like, shape (curves, nodes)
        The paired curves: row j of YA and row j of YB are one subject's (or trial's) two conditions.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (the threshold on |t|); False: only t above the threshold.
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    SPMResult
        The observed field, its permutation threshold and its clusters with their p values.
    """
    YA, YB = check_curves(YA, "YA"), check_curves(YB, "YB")
    if YA.shape != YB.shape:
        raise InputError(f"paired curves must have the same shape, got {YA.shape} and {YB.shape}")

    result = ttest(YA - YB, alpha=alpha, two_tailed=two_tailed, iterations=iterations, seed=seed,
                   cluster_metric=cluster_metric)
    return replace(result, test="ttest_paired")


def ttest2(YA, YB, *, equal_var: bool = True, alpha: float = 0.05, two_tailed: bool = True,
           iterations: int = 10000, seed=None, cluster_metric: str = "integral") -> SPMResult:
    """Permutation two-sample t test: the curves are shared out again between the groups.

    ``C(JA + JB, JA)`` labellings exist.  See :func:`.parametric.ttest2`.

    Parameters
    ----------
    YA, YB : array_like, shape (curves_A, nodes), (curves_B, nodes)
        The two groups' curves (on the same nodes).
    equal_var : bool
        True: pooled variance (Student); False: each group's own variance (Welch).
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of t are tested (the threshold on |t|); False: only t above the threshold.
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    SPMResult
        The observed field, its permutation threshold and its clusters with their p values.
    """
    YA, YB = check_curves(YA, "YA"), check_curves(YB, "YB")
    same_nodes([YA, YB])
    z, df = t2_field(YA, YB, equal_var)
    Y = np.concatenate([YA, YB])
    Y = Y - Y.mean(axis=0)  # t is unchanged by a common shift; sums of squares stay well conditioned
    JA, JB = YA.shape[0], YB.shape[0]
    inA = label_sets([JA, JB], iterations, seed, mirror=two_tailed and JA == JB)[:, :, 0]  # (P, N) 1.0 where the curve is in A
    sA, qA = inA @ Y, inA @ (Y * Y)
    sB, qB = Y.sum(axis=0) - sA, (Y * Y).sum(axis=0) - qA
    mA, mB = sA / JA, sB / JB
    vA, vB = (qA - JA * mA * mA) / (JA - 1), (qB - JB * mB * mB) / (JB - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        if equal_var:
            sp2 = ((JA - 1) * vA + (JB - 1) * vB) / (JA + JB - 2)
            fields = (mA - mB) / np.sqrt(sp2 * (1.0 / JA + 1.0 / JB))
        else:
            fields = (mA - mB) / np.sqrt(vA / JA + vB / JB)
    residuals = np.concatenate([YA - YA.mean(axis=0), YB - YB.mean(axis=0)])
    return permutation_inference("ttest2", "T", z, df, residuals, fields, alpha, two_tailed, cluster_metric)


def anova1(Y, groups=None, *, alpha: float = 0.05, iterations: int = 10000, seed=None,
           cluster_metric: str = "integral") -> SPMResult:
    """Permutation one-way ANOVA: the group labels are permuted.  See :func:`.parametric.anova1`.

    Parameters
    ----------
    Y : array_like or list of array_like
        Curves (curves, nodes) with groups, or one (curves, nodes) array per group.
    groups : array_like, shape (curves,), optional
        Group label of each row of Y (when Y is one array).
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    SPMResult
        The observed field, its permutation threshold and its clusters with their p values.
    """
    parts = split_groups(Y, groups)
    z, df = f_field(parts)
    sizes = [g.shape[0] for g in parts]
    Y = np.concatenate(parts)
    Y = Y - Y.mean(axis=0)
    member = label_sets(sizes, iterations, seed)  # (P, N, k)
    sst = (Y * Y).sum(axis=0)
    ssb = sum((member[:, :, i] @ Y) ** 2 / n for i, n in enumerate(sizes))
    with np.errstate(divide="ignore", invalid="ignore"):
        fields = (ssb / df[0]) / ((sst - ssb) / df[1])
    residuals = np.concatenate([g - g.mean(axis=0) for g in parts])
    return permutation_inference("anova1", "F", z, df, residuals, fields, alpha, False, cluster_metric)


# -- labellings ---------------------------------------------------------------------------------

def _rng(seed):
    return np.random.default_rng(seed)


def check_iterations(iterations) -> int:
    """``iterations`` as an int, at least 2 (InputError otherwise).

    Parameters
    ----------
    iterations : int
        The requested number of labellings.

    Returns
    -------
    int
        The same number, checked.
    """
    iterations = int(iterations)
    if iterations < 2:
        raise InputError(f"iterations must be at least 2, got {iterations}")
    return iterations


def sign_flips(J: int, iterations: int, seed, two_tailed: bool = False) -> np.ndarray:
    """Sign vectors (P, J), the first all +1: every one of the ``2^J`` when ``2^J <= iterations``.

    Two-tailed, flipping every sign only negates the field and leaves
    ``|t|`` unchanged, so the ``2^(J-1)`` labellings with the last sign +1
    are the distinct ones.

    Parameters
    ----------
    J : int
        Number of curves.
    iterations : int
        The most sign vectors drawn (at least 2).
    seed : int or None
        Seed of the random draw (used only when not all vectors are enumerated).
    two_tailed : bool
        Enumerate only the labellings with the last sign +1 (the others give -t).

    Returns
    -------
    ndarray, shape (P, J)
        Rows of +1.0 / -1.0, P = 2^J (or 2^(J-1)) when enumerated, else iterations.
    """
    iterations = check_iterations(iterations)
    bits = J - 1 if two_tailed else J
    if bits < 62 and 2 ** bits <= iterations:
        codes = np.arange(2 ** bits, dtype=np.int64)
        return 1.0 - 2.0 * ((codes[:, None] >> np.arange(J)) & 1)
    signs = _rng(seed).choice([-1.0, 1.0], size=(iterations, J))
    signs[0] = 1.0
    return signs


def label_sets(sizes: list[int], iterations: int, seed, mirror: bool = False) -> np.ndarray:
    """Group memberships (P, N, k) of the N curves, the first the observed one.

    All ``N! / prod(n_i!)`` distinct labellings when there are no more than
    ``iterations`` of them, otherwise ``iterations`` random permutations.
    ``mirror`` (two groups of equal size, two-tailed): swapping the groups
    only negates t, so only the labellings with the first curve in group 0
    (half of them) are distinct.

    Parameters
    ----------
    sizes : list of int
        The groups' numbers of curves.
    iterations : int
        The most labellings (at least 2).
    seed : int or None
        Seed of the random permutations (used only when not all labellings are enumerated).
    mirror : bool
        Keep only the labellings with the first curve in group 0 (two equal groups, two-tailed).

    Returns
    -------
    ndarray, shape (P, N, k)
        1 where curve n is in group i.
    """
    iterations = check_iterations(iterations)
    N, k = sum(sizes), len(sizes)
    observed = np.repeat(np.arange(k), sizes)
    total = math.factorial(N)
    for n in sizes:
        total //= math.factorial(n)
    if mirror:
        total //= 2
    if total <= iterations:
        labels = np.array(list(_multiset_permutations(sizes)), dtype=np.int64)
        if mirror:
            labels = labels[labels[:, 0] == 0]
        # put the observed labelling first
        first = np.flatnonzero((labels == observed).all(axis=1))[0]
        labels[[0, first]] = labels[[first, 0]]
    else:
        rng = _rng(seed)
        labels = rng.permuted(np.broadcast_to(observed, (iterations, N)), axis=1)
        labels[0] = observed
    return (labels[:, :, None] == np.arange(k)).astype(float)


def _multiset_permutations(sizes: list[int]):
    """Every distinct sequence with ``sizes[i]`` copies of label ``i``."""
    N = sum(sizes)
    if len(sizes) == 1:
        yield (0,) * N
        return
    rest = sizes[1:]
    for where in itertools.combinations(range(N), sizes[0]):
        chosen = set(where)
        for tail in _multiset_permutations(rest):
            it = iter(tail)
            yield tuple(0 if i in chosen else next(it) + 1 for i in range(N))


# -- inference ----------------------------------------------------------------------------------

def permutation_inference(test, stat, z, df, residuals, fields, alpha, two_tailed, cluster_metric) -> SPMResult:
    """The permutation test's result: threshold the (1 - alpha) percentile of the fields' maxima, each cluster's p the share of labellings with a larger cluster metric.

    Parameters
    ----------
    test : str
        The test's name written in the result (e.g. "ttest2").
    stat : {"T", "F", "T2"}
        The field's statistic.
    z : ndarray, shape (nodes,)
        The observed field.
    df : float or (float, float)
        Degrees of freedom of the statistic (for the report; the threshold is the permutation one).
    residuals : ndarray, shape (curves, nodes) or (curves, nodes, components)
        For the smoothness reported.
    fields : ndarray, shape (P, nodes)
        The field of every labelling, the observed first.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        Only for a T field.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    SPMResult
        The observed field, its permutation threshold and its clusters with their p values.
    """
    alpha = check_alpha(alpha)
    if cluster_metric not in METRICS:
        raise InputError(f"cluster_metric must be one of {METRICS}, got {cluster_metric!r}")
    two_tailed = bool(two_tailed) and stat == "T"
    fields = np.nan_to_num(fields, nan=0.0, posinf=0.0, neginf=0.0)
    if two_tailed:
        fields = np.abs(fields)
    maxima = fields.max(axis=1)
    u = float(np.percentile(maxima, 100.0 * (1.0 - alpha)))
    largest = max_cluster_metric(fields, u, cluster_metric)
    fwhm = field_fwhm(residuals)
    found = []
    for sign in ((1, -1) if two_tailed else (1,)):
        for start, end, peak in find_clusters(z, u, sign):
            metric = _metric_of(sign * z, u, start, end, cluster_metric)
            p = float(np.mean(largest >= metric - 1e-12 * max(1.0, abs(metric))))
            found.append(Cluster(start, end, sign, p, end - start, (end - start) / fwhm, peak))
    found.sort(key=lambda c: c.start)
    return SPMResult(test, stat, z, df, fwhm, resels(z.size, fwhm), alpha, two_tailed, u,
                     tuple(found), method="permutation", permutations=int(fields.shape[0]))


def _metric_of(z, u, start, end, metric) -> float:
    """Cluster metric of the one cluster of ``z >= u`` between ``start`` and ``end``."""
    if metric == "extent":
        return end - start
    i0, i1 = math.ceil(start - 1e-12), math.floor(end + 1e-12)
    i0, i1 = max(i0, 0), min(i1, z.size - 1)
    h = z[i0:i1 + 1] - u
    area = float(np.sum(0.5 * (h[1:] + h[:-1])))
    area += 0.5 * (i0 - start) * h[0] + 0.5 * (end - i1) * h[-1]
    return area


def max_cluster_metric(fields: np.ndarray, u: float, metric: str) -> np.ndarray:
    """Largest cluster metric above ``u`` in each row of ``fields`` (P, Q); 0 for a row with no cluster.

    Vectorised over rows: the rows are laid end to end with a gap between
    them, every run of ``z >= u`` is found at once, and its interpolated
    endpoints and metric follow from its first and last nodes.

    Parameters
    ----------
    fields : ndarray, shape (P, Q)
        One field per labelling, Q nodes each.
    u : float
        The threshold.
    metric : {"integral", "extent"}
        What ranks a supra-threshold cluster: its integral above the threshold (field units x nodes, trapezoid) or its
        extent (nodes, interpolated at the threshold).

    Returns
    -------
    ndarray, shape (P,)
        The largest cluster's metric of each row (0 when no node reaches u).
    """
    P, Q = fields.shape
    padded = np.full((P, Q + 2), -np.inf)
    padded[:, 1:-1] = fields
    above = (padded >= u).ravel()
    edges = np.diff(above.astype(np.int8))
    first = np.flatnonzero(edges == 1) + 1  # flat index of each run's first node
    last = np.flatnonzero(edges == -1)  # and last node
    out = np.zeros(P)
    if first.size == 0:
        return out
    z = padded.ravel()
    row, col0, col1 = first // (Q + 2), first % (Q + 2) - 1, last % (Q + 2) - 1
    lead = np.where(col0 > 0, (z[first] - u) / np.where(col0 > 0, z[first] - z[first - 1], 1.0), 0.0)
    trail = np.where(col1 < Q - 1, (z[last] - u) / np.where(col1 < Q - 1, z[last] - z[last + 1], 1.0), 0.0)
    if metric == "extent":
        value = (col1 - col0) + lead + trail
    else:
        h = np.where(above, z - u, 0.0)
        csum = np.concatenate([[0.0], np.cumsum(h)])
        inner = csum[last + 1] - csum[first] - 0.5 * (h[first] + h[last])  # trapezoid over the nodes
        value = inner + 0.5 * lead * h[first] + 0.5 * trail * h[last]
    np.maximum.at(out, row, value)
    return out

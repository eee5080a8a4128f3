"""Linear-model SPM tests: regression, two-way and repeated-measures ANOVA, on curves.

Each test fits, at every node at once, the general linear model
``Y = X b + e`` (``Y`` (J, Q) curves, ``X`` (J, p) design matrix) by least
squares.  Factors enter ``X`` with sum-to-zero (effect) coding: a factor of
``L`` levels gives ``L - 1`` columns, +1 for its level, -1 for the last one;
an interaction's columns are the products of its factors' columns.  The sum
of squares of an effect is the increase of the residual sum of squares when
its columns are taken out of the full model,

.. math::

    SS_{effect} = SSE(X_{\\setminus effect}) - SSE(X),\\qquad
    df_{effect} = \\operatorname{rank} X - \\operatorname{rank} X_{\\setminus effect}

(type III sums of squares: with equal cell sizes they equal the classical
ANOVA decomposition and spm1d's; with unequal group sizes they remain the
test of each effect adjusted for all the others, with the right degrees of
freedom, where spm1d refuses the design).  Each effect's field is

.. math::

    F = \\frac{SS_{effect} / df_{effect}}{SS_{error} / df_{error}}

with the error term of the design: the model's residual for between-subject
factors (:func:`anova2`), the effect's interaction with the subjects for
repeated measures (:func:`anova1rm`: ``A`` over ``S×A``; :func:`anova2rm`:
``A`` over ``S×A``, ``B`` over ``S×B``, ``A×B`` over ``S×A×B``).  The
smoothness comes from the model's residuals; when every subject has one
curve per condition the full repeated-measures model fits exactly and, as
spm1d does, the residuals of an approximate model are used: the intercept
and one column per lower term (A, S for :func:`anova1rm`; A, B, S, A×B for
:func:`anova2rm`), 1 where each of the term's factors is off its first level.

:func:`regress` is the model ``y = b0 x + b1``: SPM{t} of the slope,
``t = b0 / sqrt(s² [(XᵀX)⁻¹]_00)`` with ``J - 2`` df, and the correlation
curve ``r = t / sqrt(J - 2 + t²)``.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import combinations

import numpy as np

from ..errors import InputError
from .nonparam import check_iterations, label_sets, permutation_inference
from .parametric import divide_by_variation, inference, ttest2, ttest_paired
from .result import SPMResult, check_curves

# -- design ---------------------------------------------------------------------------------------

def _labels(values, J: int, name: str) -> np.ndarray:
    """Integer codes 0..L-1 of a factor's labels (one per curve)."""
    a = np.asarray(values)
    if a.shape != (J,):
        raise InputError(f"{name} must give one label per curve ({J}), got shape {a.shape}")
    _, codes = np.unique(a, return_inverse=True)
    return codes.reshape(-1)


def effect_columns(codes: np.ndarray) -> np.ndarray:
    """Sum-to-zero coding of a factor: (J, L-1), column i is +1 at level i and -1 at the last level.

    Parameters
    ----------
    codes : ndarray of int, shape (J,)
        Level of every curve, 0 .. L-1.

    Returns
    -------
    ndarray, shape (J, L - 1)
        The factor's design columns (+1, 0, -1).
    """
    L = int(codes.max()) + 1
    X = np.zeros((codes.size, L - 1))
    for i in range(L - 1):
        X[codes == i, i] = 1.0
    X[codes == L - 1] = -1.0
    return X


def interaction_columns(*blocks: np.ndarray) -> np.ndarray:
    """Columns of an interaction: every product of one column of each factor's block.

    Parameters
    ----------
    *blocks : ndarray, shape (J, c_i)
        Each factor's columns.

    Returns
    -------
    ndarray, shape (J, prod c_i)
        The interaction's design columns.
    """
    out = blocks[0]
    for b in blocks[1:]:
        out = (out[:, :, None] * b[:, None, :]).reshape(out.shape[0], -1)
    return out


def _fit(Y: np.ndarray, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
    """Least squares: (residuals (J, Q), SSE (Q,), rank of X)."""
    U = _basis(X)  # QR when X has full column rank; the SVD (slower on these designs) when it has not
    rank = U.shape[1]
    e = Y - U @ (U.T @ Y)
    return e, np.einsum("jq,jq->q", e, e), rank


def _design(terms: dict, names) -> np.ndarray:
    J = next(iter(terms.values())).shape[0]
    return np.column_stack([np.ones(J)] + [terms[n] for n in names])


def _anova(test: str, Y: np.ndarray, terms: dict, tests: list[tuple[str, str]], fwhm_terms, alpha: float,
           perm=None) -> list[SPMResult]:
    """F fields of ``tests`` = [(effect, error term or "Error")] in the model of ``terms`` (name -> columns).

    ``fwhm_terms``: for a saturated model, the terms (each a list of factor
    codes) of spm1d's approximate model for the residuals: one column per
    term, 1 where every factor of the term is off its first level.
    """
    names = list(terms)
    J = Y.shape[0]
    e_full, sse_full, rank_full = _fit(Y, _design(terms, names))
    ss, df = {}, {}
    for name in {n for pair in tests for n in pair if n != "Error"}:
        _, sse, rank = _fit(Y, _design(terms, [n for n in names if n != name]))
        ss[name], df[name] = sse - sse_full, rank_full - rank
    ss["Error"], df["Error"] = sse_full, J - rank_full
    if rank_full == J:  # saturated (one curve per subject and condition): spm1d's approximate residuals
        X = np.column_stack([np.ones(J)] + [np.prod([f != 0 for f in factors], axis=0).astype(float)
                                            for factors in fwhm_terms])
        residuals = _fit(Y, X)[0]
    else:
        residuals = e_full
    out = []
    for effect, error in tests:
        if df[effect] < 1:
            raise InputError(f"{test}: the effect {effect} has no degrees of freedom (one level only?)")
        if df[error] < 1:
            raise InputError(f"{test}: no degrees of freedom left for the error of {effect} (one curve per "
                             "cell: add curves, or use a design with an interaction-free error)")
        z = divide_by_variation(ss[effect] / df[effect], ss[error] / df[error], "F")
        dfs = (float(df[effect]), float(df[error]))
        if perm is None:
            r = inference(test, "F", z, dfs, residuals, alpha, False)
        else:
            fields = _permuted_f(Y, terms, names, effect, error, dfs, perm[0])
            r = permutation_inference(test, "F", z, dfs, residuals, fields, alpha, False, perm[1])

        out.append(replace(r, effect=effect.replace("AB", "AxB")))
    return out


def _basis(X: np.ndarray) -> np.ndarray:
    """Orthonormal basis (J, rank) of the column space of X (QR, or the SVD when X is rank-deficient)."""
    tol = max(X.shape) * np.finfo(float).eps
    U, R = np.linalg.qr(X)
    d = np.abs(np.diag(R))
    if d.min() <= tol * d.max():
        U, sv, _ = np.linalg.svd(X, full_matrices=False)
        U = U[:, : int((sv > tol * sv[0]).sum())]
    return U


def _permuted_f(Y, terms, names, effect, error, dfs, perms: np.ndarray, chunk: int = 256) -> np.ndarray:
    """F fields (P, Q) of ``effect`` over ``error`` for the rows of Y reordered by each row of ``perms`` (P, J).

    ``SS = |(H_1 - H_0) Y|²`` with the hat matrices ``H = U Uᵀ`` of the models
    with and without the term; the error's the same way (or ``|(I - H) Y|²``).
    """
    J = Y.shape[0]
    full = _basis(_design(terms, names))

    def reduced(term):
        return _basis(_design(terms, [n for n in names if n != term]))

    Hf = full @ full.T
    M_eff = Hf - (lambda U: U @ U.T)(reduced(effect))
    M_err = (np.eye(J) - Hf) if error == "Error" else Hf - (lambda U: U @ U.T)(reduced(error))
    out = np.empty((perms.shape[0], Y.shape[1]))
    for i in range(0, perms.shape[0], chunk):
        Yp = Y[perms[i:i + chunk]]  # (p, J, Q)
        a = np.einsum("jk,pkq->pjq", M_eff, Yp)
        b = np.einsum("jk,pkq->pjq", M_err, Yp)
        with np.errstate(divide="ignore", invalid="ignore"):
            out[i:i + chunk] = ((a * a).sum(axis=1) / dfs[0]) / ((b * b).sum(axis=1) / dfs[1])
    return out


def _row_permutations(J: int, iterations: int, seed, blocks=None) -> np.ndarray:
    """(P, J) row orders, the first the identity: free permutations, or within each block (subject)."""
    iterations = check_iterations(iterations)
    rng = np.random.default_rng(seed)
    if blocks is None:
        perms = np.array([rng.permutation(J) for _ in range(iterations)])
    else:
        home = np.argsort(blocks, kind="stable")  # each block's rows, block after block
        perms = np.empty((iterations, J), dtype=np.int64)
        for k in range(iterations):
            perms[k, home] = np.lexsort((rng.random(J), blocks))
    perms[0] = np.arange(J)
    return perms


# -- regression -----------------------------------------------------------------------------------

def regress(Y, x, *, alpha: float = 0.05, two_tailed: bool = True, permutation: bool = False,
            iterations: int = 10000, seed=None, cluster_metric: str = "integral") -> SPMResult:
    """Simple linear regression of the curves on a number per curve (e.g. walking speed).

    Parameters
    ----------
    Y : array (J, Q)
        One curve per row.
    x : array (J,)
        The independent variable of each curve.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    two_tailed : bool
        True: both signs of the slope's t are tested; False: only a positive slope.
    permutation : bool
        Permutation inference (the ``x`` values are shared out again among
        the curves) instead of random field theory.

    Returns
    -------
    SPMResult
        SPM{t} of the slope (``df = J - 2``) with the correlation curve as ``r``.
    """
    Y = check_curves(Y, "Y")
    J = Y.shape[0]
    try:
        x = np.asarray(x, dtype=float)
    except (TypeError, ValueError):
        raise InputError("x: the regressor must be numbers") from None
    if x.shape != (J,):
        raise InputError(f"x must give one number per curve ({J}), got shape {x.shape}")
    if not np.isfinite(x).all():
        raise InputError(f"x: value {int(np.argmax(~np.isfinite(x)))} is missing or not finite")
    if J < 3:
        raise InputError(f"a regression needs at least 3 curves, got {J}")
    if np.ptp(x) == 0:
        raise InputError("x does not vary: the slope is undefined")
    X = np.column_stack([x, np.ones(J)])
    beta, _, _, _ = np.linalg.lstsq(X, Y, rcond=None)
    e = Y - X @ beta
    s2 = np.einsum("jq,jq->q", e, e) / (J - 2)

    z = divide_by_variation(beta[0], np.sqrt(s2 * np.linalg.inv(X.T @ X)[0, 0]), "t")
    r = z / np.sqrt(J - 2 + z * z)
    if not permutation:
        res = inference("regress", "T", z, float(J - 2), e, alpha, two_tailed)
    else:
        iterations = check_iterations(iterations)
        xc = x - x.mean()
        Yc = Y - Y.mean(axis=0)
        perm = label_sets([1] * J, iterations, seed)  # (P, J, J): curve j gets the x of slot k
        xs = np.einsum("pjk,k->pj", perm, xc)
        with np.errstate(divide="ignore", invalid="ignore"):
            rr = (xs @ Yc) / (np.sqrt((xc * xc).sum()) * np.sqrt((Yc * Yc).sum(axis=0)))
            fields = rr * np.sqrt((J - 2) / (1.0 - rr * rr))
        res = permutation_inference("regress", "T", z, float(J - 2), e, fields, alpha, two_tailed, cluster_metric)
    return replace(res, r=r)


# -- ANOVA ----------------------------------------------------------------------------------------

def anova2(Y, A, B, *, alpha: float = 0.05, permutation: bool = False, iterations: int = 10000, seed=None,
           cluster_metric: str = "integral") -> list[SPMResult]:
    """Two-way ANOVA of between-subject factors ``A`` and ``B`` (any group sizes, every cell filled).

    ``permutation=True``: the curves are shared out again among the cells
    (``iterations`` random orders, the observed first), each effect's
    threshold the percentile of its largest F (as spm1d's permutation ANOVA).

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve, one column per node of the common time axis.
    A, B : array_like, shape (curves,)
        Each curve's level of the two factors.
    permutation : bool
        True: permutation inference (the labels shared out again, iterations at most); False: random field theory.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster under permutation: its integral above the threshold or its extent (nodes);
        unused by random field theory.

    Returns
    -------
    list of SPMResult
        The F fields of the main effect A, the main effect B and the
        interaction A×B (``effect`` ``"A"``, ``"B"``, ``"AxB"``), each over
        the model's residual mean square.
    """
    Y = check_curves(Y, "Y")
    J = Y.shape[0]
    a, b = _labels(A, J, "A"), _labels(B, J, "B")
    _need_levels(a, "A")
    _need_levels(b, "B")
    cells = {(i, k) for i, k in zip(a, b, strict=True)}
    if len(cells) < (a.max() + 1) * (b.max() + 1):
        raise InputError(f"anova2: {(a.max() + 1) * (b.max() + 1) - len(cells)} cell(s) of A x B have no curve: "
                         "every combination of levels needs at least one")
    XA, XB = effect_columns(a), effect_columns(b)
    terms = {"A": XA, "B": XB, "AB": interaction_columns(XA, XB)}
    perm = (_row_permutations(J, iterations, seed), cluster_metric) if permutation else None
    return _anova("anova2", Y, terms, [("A", "Error"), ("B", "Error"), ("AB", "Error")], [], alpha, perm)


def anova1rm(Y, A, SUBJ, *, alpha: float = 0.05, permutation: bool = False, iterations: int = 10000, seed=None,
             cluster_metric: str = "integral") -> SPMResult:
    """One-way repeated-measures ANOVA: every subject in every level of ``A`` (as often).

    ``permutation=True``: each subject's curves are shared out again among
    its conditions (what is exchangeable under the null hypothesis).

    The F field of ``A`` over the subject × A interaction, ``df = (a - 1, (a - 1)(n - 1))``
    for ``a`` levels and ``n`` subjects with one curve per condition.

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve, one column per node of the common time axis.
    A : array_like, shape (curves,)
        Each curve's level of the factor (any labels).
    SUBJ : array_like, shape (curves,)
        Each curve's subject.
    permutation : bool
        True: permutation inference (the labels shared out again, iterations at most); False: random field theory.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster under permutation: its integral above the threshold or its extent (nodes);
        unused by random field theory.

    Returns
    -------
    SPMResult
        The F field of A (effect "A").
    """
    Y = check_curves(Y, "Y")
    J = Y.shape[0]
    a, s = _labels(A, J, "A"), _labels(SUBJ, J, "SUBJ")
    _need_levels(a, "A")
    _need_levels(s, "SUBJ")
    _check_repeated([a], s)
    XA, XS = effect_columns(a), effect_columns(s)
    terms = {"A": XA, "S": XS, "SA": interaction_columns(XS, XA)}
    perm = (_row_permutations(J, iterations, seed, s), cluster_metric) if permutation else None
    return _anova("anova1rm", Y, terms, [("A", "SA")], [[a], [s]], alpha, perm)[0]


def anova2rm(Y, A, B, SUBJ, *, alpha: float = 0.05, permutation: bool = False, iterations: int = 10000,
            seed=None, cluster_metric: str = "integral") -> list[SPMResult]:
    """Two-way repeated-measures ANOVA: every subject in every combination of ``A`` and ``B``.

    ``permutation=True``: each subject's curves are shared out again among its conditions.

    Returns the F fields of A (over S×A), B (over S×B) and A×B (over S×A×B).

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve, one column per node of the common time axis.
    A, B : array_like, shape (curves,)
        Each curve's level of the two within-subject factors.
    SUBJ : array_like, shape (curves,)
        Each curve's subject.
    permutation : bool
        True: permutation inference (the labels shared out again, iterations at most); False: random field theory.
    alpha : float
        Significance level (family-wise over the field), in (0, 1).
    iterations : int
        The most labellings used (all of them when there are fewer).
    seed : int, optional
        Seed of the random labellings.
    cluster_metric : {"integral", "extent"}
        What ranks a supra-threshold cluster under permutation: its integral above the threshold or its extent (nodes);
        unused by random field theory.

    Returns
    -------
    list of SPMResult
        The F fields of A, B and AxB, in that order.
    """
    Y = check_curves(Y, "Y")
    J = Y.shape[0]
    a, b, s = _labels(A, J, "A"), _labels(B, J, "B"), _labels(SUBJ, J, "SUBJ")
    _need_levels(a, "A")
    _need_levels(b, "B")
    _need_levels(s, "SUBJ")
    _check_repeated([a, b], s)
    XA, XB, XS = effect_columns(a), effect_columns(b), effect_columns(s)
    terms = {"A": XA, "B": XB, "S": XS, "AB": interaction_columns(XA, XB), "SA": interaction_columns(XS, XA),
             "SB": interaction_columns(XS, XB), "SAB": interaction_columns(XS, XA, XB)}
    perm = (_row_permutations(J, iterations, seed, s), cluster_metric) if permutation else None
    return _anova("anova2rm", Y, terms, [("A", "SA"), ("B", "SB"), ("AB", "SAB")],
                  [[a], [b], [s], [a, b]], alpha, perm)


def _need_levels(codes: np.ndarray, name: str) -> None:
    if codes.max() < 1:
        raise InputError(f"factor {name} has a single level: it needs at least 2")


def _check_repeated(factors: list[np.ndarray], s: np.ndarray) -> None:
    """Every subject has the same number (>= 1) of curves in every condition (combination of levels)."""
    cond = np.zeros(s.size, dtype=np.int64)
    for f in factors:
        cond = cond * (int(f.max()) + 1) + f
    n_cond = int(np.prod([int(f.max()) + 1 for f in factors]))
    counts = np.zeros((int(s.max()) + 1, n_cond), dtype=np.int64)
    np.add.at(counts, (s, cond), 1)
    if (counts != counts.flat[0]).any() or counts.flat[0] < 1:
        subj = int(np.argmax((counts != counts.flat[0]).any(axis=1)))
        raise InputError(f"a repeated-measures design needs every subject in every condition the same number "
                         f"of times (subject #{subj} has {counts[subj].tolist()} curves per condition)")


# -- after an ANOVA -------------------------------------------------------------------------------

def corrected_alpha(alpha: float, m: int, correction: str = "sidak") -> float:
    """The per-test alpha keeping the family-wise error at ``alpha`` over ``m`` tests.

    ``"sidak"``: ``1 - (1 - alpha)^(1/m)``; ``"bonferroni"``: ``alpha / m``; ``"none"``: ``alpha``.

    Parameters
    ----------
    alpha : float
        The family-wise significance level, in (0, 1).
    m : int
        Number of tests.
    correction : {"sidak", "bonferroni", "none"}
        The correction for m tests.

    Returns
    -------
    float
        The alpha of each test.
    """
    if correction not in CORRECTIONS:
        raise InputError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}")
    m = max(int(m), 1)
    if correction == "sidak":
        return float(-np.expm1(np.log1p(-alpha) / m))
    if correction == "bonferroni":
        return alpha / m
    return alpha


CORRECTIONS = ("sidak", "bonferroni", "none")


def posthoc(Y, A, SUBJ=None, *, alpha: float = 0.05, correction: str = "sidak") -> dict:
    """Pairwise t tests between the levels of ``A`` after an ANOVA, each at the corrected alpha.

    Two-sample t tests (:func:`~humanbody.stats.ttest2`), or paired t tests
    on the subjects' mean curves per level when ``SUBJ`` is given (after
    :func:`anova1rm`).  With ``m = L (L - 1) / 2`` pairs each test runs at
    :func:`corrected_alpha` ``(alpha, m, correction)``, so that the
    family-wise error of all the pairs stays at ``alpha``.

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve, one column per node of the common time axis.
    A : array_like, shape (curves,)
        Each curve's level of the factor (any labels).
    SUBJ : array_like, shape (curves,), optional
        Each curve's subject: paired tests on the subjects' mean curves per level; None: two-sample tests.
    alpha : float
        The family-wise significance level of all the pairs, in (0, 1).
    correction : {"sidak", "bonferroni", "none"}
        How each test's alpha is corrected for the number of pairs (corrected_alpha).

    Returns
    -------
    dict (level_i, level_j) -> SPMResult
        One result per pair of levels (in sorted order, level_i before level_j): positive t where level_i's mean is
        above level_j's.
    """
    Y = check_curves(Y, "Y")
    labels = np.asarray(A)
    if labels.shape != (Y.shape[0],):
        raise InputError(f"A must give one label per curve ({Y.shape[0]}), got shape {labels.shape}")
    levels = list(np.unique(labels))
    pairs = list(combinations(levels, 2))
    a = corrected_alpha(alpha, len(pairs), correction)
    out = {}
    for li, lj in pairs:
        if SUBJ is None:
            out[(li, lj)] = ttest2(Y[labels == li], Y[labels == lj], alpha=a)
        else:
            subj = np.asarray(SUBJ)
            common = sorted(set(subj[labels == li]) & set(subj[labels == lj]), key=str)
            mi = np.array([Y[(labels == li) & (subj == s)].mean(axis=0) for s in common])
            mj = np.array([Y[(labels == lj) & (subj == s)].mean(axis=0) for s in common])
            out[(li, lj)] = ttest_paired(mi, mj, alpha=a)
    return out

"""Hotelling's T², regression and the two-way / repeated-measures ANOVAs against spm1d 0.4.

On spm1d's own example data sets (several per test) and on smooth random
curves: the statistic field to 1e-6, the critical threshold within 0.5 %,
the same clusters (endpoints within half a node) and p within 0.005.
Permutation thresholds: equal to spm1d's exhaustive distribution where
spm1d's own permuter is right (two equal groups), and to a brute-force
enumeration (each labelling's field computed from scratch) otherwise.
"""

import itertools
import warnings

import numpy as np
import pytest

spm1d = pytest.importorskip("spm1d")

from _smooth_fields import smooth_curves  # noqa: E402

import humanbody.stats as hs  # noqa: E402
from humanbody.errors import InputError  # noqa: E402

D1, MV = spm1d.data.uv1d, spm1d.data.mv1d


def _quiet(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn()


def assert_agree(ref, mine, p_tol=0.005):
    np.testing.assert_allclose(mine.z, np.asarray(ref.z), rtol=0, atol=1e-6)
    assert mine.fwhm == pytest.approx(ref.fwhm, rel=1e-6)
    ref_df = tuple(float(d) for d in ref.df)
    assert (mine.df == pytest.approx(ref_df[1])) if mine.stat == "T" else (mine.df == pytest.approx(ref_df))
    assert mine.threshold == pytest.approx(ref.zstar, rel=0.005)
    assert len(mine.clusters) == len(ref.clusters)
    for c_ref, c in zip(sorted(ref.clusters, key=lambda c: c.endpoints[0]), mine.clusters, strict=True):
        assert c.start == pytest.approx(c_ref.endpoints[0], abs=0.5)
        assert c.end == pytest.approx(c_ref.endpoints[1], abs=0.5)
        assert c.p == pytest.approx(c_ref.P, abs=p_tol)


def _vector_curves(rng, rows, components=3, sigma=6.0, effect=0.0):
    return np.stack([smooth_curves(rng, rows, sigma=sigma, effect=effect if i == 0 else 0.0)
                     for i in range(components)], axis=2)


# -- Hotelling's T² -------------------------------------------------------------------------------

@pytest.mark.parametrize("dataset", ["Neptune1999kneekin", "Pataky2014cop", "random"])
def test_hotellings_paired(dataset):
    if dataset == "random":
        rng = np.random.default_rng(5)
        YA = _vector_curves(rng, 12)
        YB = YA + _vector_curves(rng, 12, effect=1.5)
    else:
        YA, YB = getattr(MV.hotellings_paired, dataset)().get_data()
    ref = _quiet(lambda: spm1d.stats.hotellings_paired(YA, YB).inference(0.05))
    mine = hs.hotellings_paired(YA, YB)
    assert mine.stat == "T2" and mine.df == (float(YA.shape[2]), float(YA.shape[0] - 1))
    assert_agree(ref, mine)


@pytest.mark.parametrize("seed,rows,sigma,effect", [(0, 10, 6.0, 0.0), (1, 15, 4.0, 1.2), (2, 20, 10.0, 1.0)])
def test_hotellings(seed, rows, sigma, effect):
    Y = _vector_curves(np.random.default_rng(seed), rows, sigma=sigma, effect=effect)
    assert_agree(_quiet(lambda: spm1d.stats.hotellings(Y).inference(0.05)), hs.hotellings(Y))


@pytest.mark.parametrize("dataset", ["Besier2009muscleforces", "random1", "random2"])
def test_hotellings2(dataset):
    if dataset == "Besier2009muscleforces":
        YA, YB = MV.hotellings2.Besier2009muscleforces().get_data()
    else:
        rng = np.random.default_rng(len(dataset) * 7 + int(dataset[-1]))
        YA, YB = _vector_curves(rng, 9, effect=1.8), _vector_curves(rng, 13)
    assert_agree(_quiet(lambda: spm1d.stats.hotellings2(YA, YB).inference(0.05)), hs.hotellings2(YA, YB))


def test_hotellings_clusters_found():
    """The data sets above include significant clusters (the comparison is not only of empty lists)."""
    YA, YB = MV.hotellings2.Besier2009muscleforces().get_data()
    assert [round(c.p, 3) for c in hs.hotellings2(YA, YB).clusters] == [0.012]


def test_one_component_hotellings_is_the_squared_t_test():
    Y = smooth_curves(np.random.default_rng(3), 11, effect=1.5)
    h, t = hs.hotellings(Y[:, :, None]), hs.ttest(Y, two_tailed=True)
    np.testing.assert_allclose(h.z, t.z ** 2, rtol=1e-10)
    # T² > u² <=> |t| > u: the same field, but the two-tailed t test takes alpha/2 in each tail where the
    # T² test takes 1 - exp(-2 E[chi]) = alpha for both: thresholds differ by the Poisson clumping only
    assert h.threshold == pytest.approx(t.threshold ** 2, rel=0.01)


def test_hotellings2_permutation_equals_spm1d_equal_groups():
    rng = np.random.default_rng(11)
    YA, YB = _vector_curves(rng, 6, effect=1.0), _vector_curves(rng, 6)
    perm = _quiet(lambda: spm1d.stats.nonparam.hotellings2(YA, YB)).permuter
    _quiet(lambda: perm.build_pdf(-1))
    mine = hs.hotellings2(YA, YB, permutation=True)
    assert mine.permutations == len(perm.Z) == 924
    assert mine.threshold == pytest.approx(np.percentile(perm.Z, 95), rel=1e-9)


def _brute_threshold(stat, labellings, alpha=0.05):
    return np.percentile([stat(lab).max() for lab in labellings], 100 * (1 - alpha))


def test_hotellings2_permutation_unequal_groups_brute_force():
    rng = np.random.default_rng(12)
    YA, YB = _vector_curves(rng, 5), _vector_curves(rng, 7)
    Y = np.concatenate([YA, YB])
    masks = []
    for idx in itertools.combinations(range(12), 5):
        m = np.zeros(12, bool)
        m[list(idx)] = True
        masks.append(m)
    ref = _brute_threshold(lambda m: hs.hotellings2(Y[m], Y[~m]).z, masks)
    assert hs.hotellings2(YA, YB, permutation=True).threshold == pytest.approx(ref, rel=1e-9)


def test_hotellings_permutation_brute_force():
    Y = _vector_curves(np.random.default_rng(13), 8, effect=0.8)
    signs = [np.array(s) for s in itertools.product([1.0, -1.0], repeat=8)]
    ref = _brute_threshold(lambda s: hs.hotellings(Y * s[:, None, None]).z, signs)
    mine = hs.hotellings(Y, permutation=True)
    assert mine.permutations == 256 and mine.threshold == pytest.approx(ref, rel=1e-9)


# -- regression -----------------------------------------------------------------------------------

def _regress_data(name):
    if name == "random":
        rng = np.random.default_rng(21)
        x = rng.uniform(0.8, 1.8, 14)
        return smooth_curves(rng, 14) + 1.5 * np.outer(x - x.mean(), np.exp(-0.5 * ((np.arange(101) - 40) / 8) ** 2)), x
    return getattr(D1.regress, name)().get_data()


@pytest.mark.parametrize("dataset", ["SimulatedPataky2015c", "SpeedGRF", "random"])
@pytest.mark.parametrize("two_tailed", [True, False])
def test_regress(dataset, two_tailed):
    Y, x = _regress_data(dataset)
    ref = _quiet(lambda: spm1d.stats.regress(Y, x))
    mine = hs.regress(Y, x, two_tailed=two_tailed)
    np.testing.assert_allclose(mine.r, ref.r, atol=1e-9)
    assert_agree(ref.inference(0.05, two_tailed=two_tailed), mine)


def test_regress_r_is_pearson():
    Y, x = _regress_data("random")
    pearson = [np.corrcoef(x, Y[:, q])[0, 1] for q in range(Y.shape[1])]
    np.testing.assert_allclose(hs.regress(Y, x).r, pearson, atol=1e-12)


def test_regress_permutation_brute_force():
    Y, x = _regress_data("random")
    Y, x = Y[:7], x[:7]
    perms = [np.array(p) for p in itertools.permutations(range(7))]
    ref = _brute_threshold(lambda p: np.abs(hs.regress(Y, x[p]).z), perms)
    mine = hs.regress(Y, x, permutation=True)
    assert mine.permutations == 5040 and mine.threshold == pytest.approx(ref, rel=1e-9)


# -- ANOVA ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("dataset", ["SPM1D_ANOVA2_2x2", "SPM1D_ANOVA2_2x3", "SPM1D_ANOVA2_3x3", "SPM1D_ANOVA2_3x4",
                                     "SPM1D_ANOVA2_4x5"])
def test_anova2(dataset):
    Y, A, B = getattr(D1.anova2, dataset)().get_data()
    refs = _quiet(lambda: spm1d.stats.anova2(Y, A, B))
    mine = hs.anova2(Y, A, B)
    assert [m.effect for m in mine] == ["A", "B", "AxB"]
    for ref, m in zip(refs, mine, strict=True):
        assert m.df == pytest.approx(tuple(float(d) for d in ref.df))
        assert_agree(ref.inference(0.05), m)


@pytest.mark.parametrize("dataset", ["SpeedGRFcategoricalRM", "random_single", "random_replicates"])
def test_anova1rm(dataset):
    if dataset == "SpeedGRFcategoricalRM":
        Y, A, S = D1.anova1rm.SpeedGRFcategoricalRM().get_data()
    else:
        rng = np.random.default_rng(31)
        reps = 1 if dataset == "random_single" else 2
        S = np.repeat(np.arange(8), 3 * reps)
        A = np.tile(np.repeat([0, 1, 2], reps), 8)
        Y = smooth_curves(rng, S.size) + smooth_curves(rng, 8)[S] * 1.5 + 0.8 * (A == 2)[:, None]
    ref = _quiet(lambda: spm1d.stats.anova1rm(Y, A, S).inference(0.05))
    assert_agree(ref, hs.anova1rm(Y, A, S))


@pytest.mark.parametrize("dataset", ["SPM1D_ANOVA2RM_2x2", "SPM1D_ANOVA2RM_2x3", "SPM1D_ANOVA2RM_3x3",
                                     "SPM1D_ANOVA2RM_3x5"])
def test_anova2rm(dataset):
    Y, A, B, S = getattr(D1.anova2rm, dataset)().get_data()
    refs = _quiet(lambda: spm1d.stats.anova2rm(Y, A, B, S))
    for ref, m in zip(refs, hs.anova2rm(Y, A, B, S), strict=True):
        assert_agree(ref.inference(0.05), m)


def test_anova_data_sets_have_clusters():
    """Some of the compared effects have clusters (and different ones from each other)."""
    Y, A, B, S = D1.anova2rm.SPM1D_ANOVA2RM_3x3().get_data()
    assert [len(r.clusters) for r in hs.anova2rm(Y, A, B, S)] == [0, 1, 3]


def test_anova2_unbalanced_is_the_glm_type_iii_test():
    """Unequal cell sizes (spm1d refuses them): each effect equals the F of the nested-model comparison at
    every node, computed here with dummy (treatment) coding and an explicit cell-means restriction."""
    Y, A, B = D1.anova2.Besier2009kneeflexion().get_data()
    mine = hs.anova2(Y, A, B)
    cells = sorted(set(zip(A, B, strict=True)))
    assert len({np.sum((A == a) & (B == b)) for a, b in cells}) > 1  # really unbalanced
    # cell means model: the interaction null = the additive model
    M = np.array([[(a_, b_) == c for c in cells] for a_, b_ in zip(A, B, strict=True)], float)
    e_full = Y - M @ np.linalg.lstsq(M, Y, rcond=None)[0]
    ua, ub = np.unique(A), np.unique(B)
    add = np.column_stack([np.ones(len(A))] + [A == a for a in ua[1:]] + [B == b for b in ub[1:]]).astype(float)
    e_add = Y - add @ np.linalg.lstsq(add, Y, rcond=None)[0]
    dfe, dfi = len(A) - len(cells), (ua.size - 1) * (ub.size - 1)
    F = ((e_add ** 2).sum(0) - (e_full ** 2).sum(0)) / dfi / ((e_full ** 2).sum(0) / dfe)
    np.testing.assert_allclose(mine[2].z, F, rtol=1e-9)
    assert mine[2].df == (float(dfi), float(dfe))


def test_rm_designs_refuse_missing_conditions():
    Y = smooth_curves(np.random.default_rng(0), 9)
    with pytest.raises(InputError, match="every subject in every condition"):
        hs.anova1rm(Y[:8], [0, 1, 2] * 2 + [0, 1], [0, 0, 0, 1, 1, 1, 2, 2])


def test_posthoc_runs_each_pair_at_the_corrected_alpha():
    Y, A = D1.anova1.SpeedGRFcategorical().get_data()
    pairs = hs.posthoc(Y, A)
    assert len(pairs) == 3
    a = 1 - 0.95 ** (1 / 3)
    for (li, lj), r in pairs.items():
        assert r.alpha == pytest.approx(a)
        np.testing.assert_allclose(r.z, hs.ttest2(Y[A == li], Y[A == lj]).z)


# -- normality ------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed,rows,skew", [(1, 12, False), (2, 16, False), (3, 20, True), (4, 9, True)])
def test_normality_k2_equals_spm1d(seed, rows, skew):
    Y = smooth_curves(np.random.default_rng(seed), rows, sigma=5.0)
    Y = np.exp(2.0 * Y) if skew else Y
    ref = _quiet(lambda: spm1d.stats.normality.ttest(Y).inference(0.05))
    mine = hs.normality.ttest(Y)
    assert mine.stat == "X2"
    assert_agree(ref, mine)


def test_normality_of_regression_and_anova_residuals_equals_spm1d():
    Y, x = D1.regress.SpeedGRF().get_data()
    assert_agree(_quiet(lambda: spm1d.stats.normality.regress(Y, x).inference(0.05)), hs.normality.regress(Y, x))
    Y, A = D1.anova1.SpeedGRFcategorical().get_data()
    ref = _quiet(lambda: spm1d.stats.normality.anova1(Y, A).inference(0.05))
    assert_agree(ref, hs.normality.groups([Y[A == a] for a in np.unique(A)]))


# -- permutation ANOVAs ---------------------------------------------------------------------------

def test_permutation_anova2_threshold_is_the_percentile_of_refitted_fields():
    """Each labelling's F fields (hat-matrix shortcut) equal a refit of the permuted curves, and each effect's
    threshold is the 95th percentile of their maxima."""
    from humanbody.stats import glm

    Y, A, B = D1.anova2.SPM1D_ANOVA2_2x3().get_data()
    perms = glm._row_permutations(Y.shape[0], 300, 4)
    refit = [hs.anova2(Y[p], A, B) for p in perms]
    mine = hs.anova2(Y, A, B, permutation=True, iterations=300, seed=4)
    for k, r in enumerate(mine):
        assert r.method == "permutation" and r.permutations == 300
        np.testing.assert_allclose(r.z, refit[0][k].z)
        assert r.threshold == pytest.approx(np.percentile([f[k].z.max() for f in refit], 95), rel=1e-9)


@pytest.mark.parametrize("design", ["anova1rm", "anova2rm"])
def test_permutation_rm_shuffles_within_subjects(design):
    from humanbody.stats import glm

    rng = np.random.default_rng(8)
    S = np.repeat(np.arange(8), 4)
    A, B = np.tile([0, 0, 1, 1], 8), np.tile([0, 1, 0, 1], 8)
    Y = smooth_curves(rng, 32) + 2 * smooth_curves(rng, 8)[S]
    perms = glm._row_permutations(32, 200, 3, S)
    assert (S[perms] == S).all() and not (perms == np.arange(32)).all(axis=1)[1:].any()
    if design == "anova1rm":
        C = A * 2 + B
        refit = [[hs.anova1rm(Y[p], C, S)] for p in perms]
        mine = [hs.anova1rm(Y, C, S, permutation=True, iterations=200, seed=3)]
    else:
        refit = [hs.anova2rm(Y[p], A, B, S) for p in perms]
        mine = hs.anova2rm(Y, A, B, S, permutation=True, iterations=200, seed=3)
    for k, r in enumerate(mine):
        assert r.threshold == pytest.approx(np.percentile([f[k].z.max() for f in refit], 95), rel=1e-9)

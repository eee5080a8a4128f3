"""SPM tests against spm1d 0.4 (the reference implementation of Pataky's 1-D SPM).

Targets: the statistic field to 1e-9, the critical threshold within 0.5 %,
the same clusters with endpoints within half a node and p within 0.005;
permutation thresholds equal for exact enumeration and within the Monte
Carlo error for 10,000 random permutations.
"""

import warnings

import numpy as np
import pytest

spm1d = pytest.importorskip("spm1d")

from _smooth_fields import smooth_curves  # noqa: E402

import humanbody.stats as hs  # noqa: E402

CASES = [  # (seed, rows, sigma, effect)
    (0, 8, 8.0, 0.0), (1, 10, 6.0, 2.0), (2, 12, 4.0, 1.6), (3, 15, 10.0, 0.0),
    (4, 20, 5.0, 0.8), (5, 9, 3.0, 2.5), (6, 16, 8.0, -1.5),
]


def _quiet(fn, *args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kw)


def assert_agree(ref, mine, p_tol=0.005):
    np.testing.assert_allclose(mine.z, ref.z, rtol=0, atol=1e-9)
    assert mine.threshold == pytest.approx(ref.zstar, rel=0.005)
    assert len(mine.clusters) == len(ref.clusters)
    for c_ref, c in zip(sorted(ref.clusters, key=lambda c: c.endpoints[0]), mine.clusters, strict=True):
        assert c.start == pytest.approx(c_ref.endpoints[0], abs=0.5)
        assert c.end == pytest.approx(c_ref.endpoints[1], abs=0.5)
        assert c.p == pytest.approx(c_ref.P, abs=p_tol)


@pytest.mark.parametrize("two_tailed", [True, False])
@pytest.mark.parametrize("seed,rows,sigma,effect", CASES)
def test_ttest(seed, rows, sigma, effect, two_tailed):
    Y = smooth_curves(np.random.default_rng(seed), rows, sigma=sigma, effect=effect)
    ref = _quiet(lambda: spm1d.stats.ttest(Y).inference(0.05, two_tailed=two_tailed, interp=True))
    mine = hs.ttest(Y, two_tailed=two_tailed)
    assert mine.fwhm == pytest.approx(ref.fwhm, rel=1e-9)
    assert_agree(ref, mine)


@pytest.mark.parametrize("two_tailed", [True, False])
@pytest.mark.parametrize("seed,rows,sigma,effect", CASES)
def test_ttest_paired(seed, rows, sigma, effect, two_tailed):
    rng = np.random.default_rng(100 + seed)
    YA = smooth_curves(rng, rows, sigma=sigma) * 2.0 + 10.0
    YB = YA - smooth_curves(rng, rows, sigma=sigma, effect=effect)
    ref = _quiet(lambda: spm1d.stats.ttest_paired(YA, YB).inference(0.05, two_tailed=two_tailed))
    assert_agree(ref, hs.ttest_paired(YA, YB, two_tailed=two_tailed))


@pytest.mark.parametrize("two_tailed", [True, False])
@pytest.mark.parametrize("seed,rows,sigma,effect", CASES)
def test_ttest2(seed, rows, sigma, effect, two_tailed):
    rng = np.random.default_rng(200 + seed)
    YA = smooth_curves(rng, rows, sigma=sigma, effect=effect)
    YB = smooth_curves(rng, rows + 3, sigma=sigma)
    ref = _quiet(lambda: spm1d.stats.ttest2(YA, YB, equal_var=True).inference(0.05, two_tailed=two_tailed))
    assert_agree(ref, hs.ttest2(YA, YB, two_tailed=two_tailed))


def test_cases_include_clusters():
    """The cases above are not all null results: several have clusters of either sign."""
    signs = set()
    for seed, rows, sigma, effect in CASES:
        Y = smooth_curves(np.random.default_rng(seed), rows, sigma=sigma, effect=effect)
        signs |= {c.sign for c in hs.ttest(Y).clusters}
    assert signs == {1, -1}


@pytest.mark.parametrize("seed,sizes,effects", [
    (0, (8, 9, 7), (0.0, 1.2, -0.5)), (1, (10, 10, 10, 10), (0.0, 0.0, 0.0, 0.0)),
    (2, (6, 12), (0.0, 1.5)), (3, (12, 12, 12), (0.0, 0.8, 1.6)),
])
def test_anova1(seed, sizes, effects):
    rng = np.random.default_rng(300 + seed)
    Y = np.concatenate([smooth_curves(rng, n, sigma=6.0, effect=e) for n, e in zip(sizes, effects, strict=True)])
    A = np.repeat(np.arange(len(sizes)), sizes)
    ref = _quiet(lambda: spm1d.stats.anova1(Y, A, equal_var=True).inference(0.05))
    assert_agree(ref, hs.anova1(Y, A))


# -- permutation ---------------------------------------------------------------------------------

@pytest.mark.parametrize("two_tailed", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_nonparam_exact_thresholds(seed, two_tailed):
    """Few enough labellings to use all of them: both programs give the same threshold."""
    rng = np.random.default_rng(400 + seed)
    Y = smooth_curves(rng, 8, sigma=5.0, effect=1.0)
    ref = _quiet(lambda: spm1d.stats.nonparam.ttest(Y).inference(0.05, two_tailed=two_tailed, iterations=-1))
    mine = hs.nonparam.ttest(Y, two_tailed=two_tailed)
    np.testing.assert_allclose(mine.z, ref.z, atol=1e-9)
    assert mine.threshold == pytest.approx(ref.zstar, rel=1e-9)
    assert [(round(c.start, 6), round(c.end, 6)) for c in mine.clusters] == \
        sorted((round(c.endpoints[0], 6), round(c.endpoints[1], 6)) for c in ref.clusters)

    YA, YB = smooth_curves(rng, 5, sigma=5.0, effect=1.5), smooth_curves(rng, 5, sigma=5.0)
    ref = _quiet(lambda: spm1d.stats.nonparam.ttest2(YA, YB).inference(0.05, two_tailed=two_tailed, iterations=-1))
    assert hs.nonparam.ttest2(YA, YB, two_tailed=two_tailed).threshold == pytest.approx(ref.zstar, rel=1e-9)

    Y = np.concatenate([smooth_curves(rng, 3, sigma=6.0, effect=e) for e in (0.0, 1.5, -0.5)])
    A = np.repeat([0, 1, 2], 3)
    ref = _quiet(lambda: spm1d.stats.nonparam.anova1(Y, A).inference(0.05, iterations=-1))
    assert hs.nonparam.anova1(Y, A).threshold == pytest.approx(ref.zstar, rel=1e-9)


def _percentile_se(maxima, alpha, iterations):
    """Monte Carlo standard error of the (1-alpha) quantile: sqrt(a(1-a)/n) / density at the quantile."""
    q = np.quantile(maxima, 1 - alpha)
    h = 0.05 * np.std(maxima)
    density = np.mean(np.abs(maxima - q) < h) / (2 * h)
    return np.sqrt(alpha * (1 - alpha) / iterations) / density


@pytest.mark.parametrize("two_tailed", [True, False])
def test_nonparam_random_thresholds_within_monte_carlo_error(two_tailed):
    """20 + 20 curves (C(40, 20) labellings): 10,000 random ones in each program, thresholds within 4 SE."""
    rng = np.random.default_rng(7)
    YA, YB = smooth_curves(rng, 20, sigma=6.0, effect=0.6), smooth_curves(rng, 20, sigma=6.0)
    np.random.seed(11)  # spm1d draws from numpy's global generator
    ref = _quiet(lambda: spm1d.stats.nonparam.ttest2(YA, YB).inference(0.05, two_tailed=two_tailed,
                                                                       iterations=10000))
    mine = hs.nonparam.ttest2(YA, YB, two_tailed=two_tailed, iterations=10000, seed=3)
    assert mine.permutations == 10000
    # the Monte Carlo error of a 95th percentile of 10,000 field maxima, from a second draw of ours
    from humanbody.stats import nonparam

    inA = nonparam.label_sets([20, 20], 10000, 5)[:, :, 0]
    Y = np.concatenate([YA, YB])
    fields = np.stack([hs.parametric.t2_field(Y[m > 0], Y[m == 0])[0] for m in inA[:2000]])
    maxima = (np.abs(fields) if two_tailed else fields).max(axis=1)
    se = _percentile_se(maxima, 0.05, 10000)
    assert abs(mine.threshold - ref.zstar) < 4 * np.sqrt(2) * se

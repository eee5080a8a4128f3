"""SPM statistics without a reference program: per-node statistics against scipy, random field theory
against its own identities and a Monte Carlo simulation, clusters, permutations and bad input."""

import itertools
import math

import numpy as np
import pytest
from _smooth_fields import smooth_curves  # noqa: E402
from scipy import ndimage, stats

import humanbody.stats as hs
from humanbody.errors import InputError
from humanbody.stats import nonparam, rft
from humanbody.stats.clusters import find_clusters
from humanbody.stats.smoothness import estimate_fwhm, resels

SIGMA_TO_FWHM = math.sqrt(8.0 * math.log(2.0))


def test_t_fields_equal_scipy_node_by_node():
    rng = np.random.default_rng(0)
    YA, YB = smooth_curves(rng, 11, effect=1.0), smooth_curves(rng, 14)
    np.testing.assert_allclose(hs.ttest(YA).t, stats.ttest_1samp(YA, 0.0).statistic, rtol=1e-12)
    np.testing.assert_allclose(hs.ttest(YA, mu=0.3).t, stats.ttest_1samp(YA, 0.3).statistic, rtol=1e-12)
    np.testing.assert_allclose(hs.ttest_paired(YA, YA[::-1] * 0.5).t,
                               stats.ttest_rel(YA, YA[::-1] * 0.5).statistic, rtol=1e-12)
    for equal_var in (True, False):
        r = hs.ttest2(YA, YB, equal_var=equal_var)
        np.testing.assert_allclose(r.t, stats.ttest_ind(YA, YB, equal_var=equal_var).statistic, rtol=1e-12)
    groups = [YA, YB, smooth_curves(rng, 6, effect=-1.0)]
    r = hs.anova1(groups)
    np.testing.assert_allclose(r.z, stats.f_oneway(*groups).statistic, rtol=1e-12)
    assert r.df == (2.0, 28.0) and r.stat == "F"
    labels = np.repeat(["a", "b", "c"], [11, 14, 6])
    np.testing.assert_allclose(hs.anova1(np.concatenate(groups), labels).z, r.z, rtol=1e-12)


def test_welch_df_is_satterthwaite_of_the_mean_variances():
    rng = np.random.default_rng(1)
    YA, YB = smooth_curves(rng, 8) * 3.0, smooth_curves(rng, 15)
    a, b = YA.var(axis=0, ddof=1).mean() / 8, YB.var(axis=0, ddof=1).mean() / 15
    assert hs.ttest2(YA, YB, equal_var=False).df == pytest.approx((a + b) ** 2 / (a * a / 7 + b * b / 14))


def test_ec_densities():
    # rho_0 is the node-wise tail probability
    u = np.linspace(0.5, 5.0, 10)
    np.testing.assert_allclose(rft.ec_density_t(u, 9)[0], stats.t.sf(u, 9))
    np.testing.assert_allclose(rft.ec_density_f(u, (2, 20))[0], stats.f.sf(u, 2, 20))
    # Gaussian limit of the t density: rho_1 -> sqrt(4 ln 2) / (2 pi) exp(-u^2 / 2)
    np.testing.assert_allclose(rft.ec_density_t(u, 1e7)[1],
                               math.sqrt(4 * math.log(2)) / (2 * math.pi) * np.exp(-u * u / 2), rtol=1e-4)
    # F(1, v) = t(v)^2: the excursion {F > u^2} is {t > u} plus {t < -u}, so each density doubles
    for v in (5, 12, 40):
        np.testing.assert_allclose(rft.ec_density_f(u * u, (1, v)), 2 * rft.ec_density_t(u, v), rtol=1e-10)
    # rho_1 of F is the derivative structure's density: zero at and below 0
    assert rft.ec_density_f(0.0, (3, 10))[1] == 0.0


def test_threshold_solves_the_upcrossing_equation():
    R = resels(101, 12.0)
    assert R == (1.0, 100 / 12.0)
    for stat, df in (("T", 9.0), ("F", (2.0, 27.0))):
        u = rft.isf_max(stat, 0.05, df, R)
        ec = rft.expected_ec(stat, u, df, R)
        assert 1 - math.exp(-ec) == pytest.approx(0.05, rel=1e-9)
        # a larger field or a rougher one needs a higher threshold
        assert rft.isf_max(stat, 0.05, df, resels(201, 12.0)) > u
        assert rft.isf_max(stat, 0.05, df, resels(101, 6.0)) > u
    # no length: the node-wise (uncorrected) threshold of the Poisson form, P(T > u) = -ln(1 - alpha)
    u1 = rft.isf_max("T", 0.05, 9.0, (1.0, 1e-12))
    assert u1 == pytest.approx(stats.t.isf(-math.log(0.95), 9.0), rel=1e-9)
    # Bonferroni bound for a very rough field sampled at few nodes
    u_b = rft.isf_max("T", 0.05, 9.0, resels(5, 0.2), nodes=5)
    assert u_b == pytest.approx(stats.t.isf(0.05 / 5, 9.0), rel=1e-9)


def test_cluster_p_limits():
    R, df = resels(101, 10.0), 12.0
    u = rft.isf_max("T", 0.05, df, R)
    # a cluster of zero extent is as likely as any upcrossing
    assert rft.p_cluster("T", 0.0, u, df, R) == pytest.approx(float(rft.sf_max("T", u, df, R)), rel=1e-12)
    ps = [rft.p_cluster("T", k, u, df, R) for k in (0.1, 0.3, 0.6, 1.0, 2.0)]
    assert all(a > b for a, b in itertools.pairwise(ps))
    # the expected extent above u in resels: P(n >= E[n]) = exp(-pi/4)
    rho0, rho1 = rft.ec_density_t(u, df)
    ec = rft.expected_ec("T", u, df, R)
    assert rft.p_cluster("T", rho0 / rho1, u, df, R) == pytest.approx(1 - math.exp(-ec * math.exp(-math.pi / 4)))


@pytest.mark.parametrize("sigma", [3.0, 6.0])
def test_fwhm_of_gaussian_smoothed_noise(sigma):
    """Noise smoothed by a Gaussian of SD sigma has FWHM sigma * sqrt(8 ln 2) (within 5 %)."""
    rng = np.random.default_rng(2)
    noise = ndimage.gaussian_filter1d(rng.standard_normal((400, 401)), sigma, axis=1, mode="wrap")
    assert estimate_fwhm(noise) == pytest.approx(sigma * SIGMA_TO_FWHM, rel=0.05)


def test_false_positive_rate_matches_alpha_monte_carlo():
    """2,000 null experiments of 12 smooth curves: P(max t > u*) = 0.05 within 3 binomial SE.

    The threshold is computed from the known smoothness, so the test checks
    the EC densities and the upcrossing equation, not the smoothness estimate.
    """
    rng = np.random.default_rng(3)
    sims, J, Q, sigma = 2000, 12, 101, 5.0
    fwhm = sigma * SIGMA_TO_FWHM
    hits = 0
    for _ in range(4):
        y = ndimage.gaussian_filter1d(rng.standard_normal((sims // 4, J, Q + 60)), sigma, axis=2)[:, :, 30:-30]
        t = y.mean(axis=1) / (y.std(axis=1, ddof=1) / math.sqrt(J))
        u = rft.isf_max("T", 0.05, J - 1, resels(Q, fwhm))
        hits += int((t.max(axis=1) > u).sum())
    rate = hits / sims
    assert abs(rate - 0.05) < 3 * math.sqrt(0.05 * 0.95 / sims)


def test_false_positive_rate_of_the_whole_test():
    """With estimated smoothness and two tails, the family-wise error stays at or below about alpha."""
    rng = np.random.default_rng(4)
    rejections = sum(hs.ttest(smooth_curves(rng, 10, sigma=5.0)).h0reject for _ in range(400))
    assert rejections / 400 < 0.05 + 3 * math.sqrt(0.05 * 0.95 / 400)


def test_cluster_endpoints_interpolate_linearly():
    z = np.array([0.0, 1.0, 3.0, 5.0, 3.0, 1.0, 0.0, -2.0, -4.0, -4.0])
    assert find_clusters(z, 2.0) == [(1.5, 4.5, 5.0)]
    assert find_clusters(z, 3.0, sign=-1) == [(7.5, 9.0, 4.0)]  # open at the end of the field
    assert find_clusters(z, 6.0) == []
    r = hs.ttest(np.vstack([np.linspace(1, 2, 6) + d for d in (0.1, -0.1, 0.2, -0.2)]) - 1.5)
    assert r.t.shape == (6,)


def test_result_clusters_and_significance():
    rng = np.random.default_rng(5)
    Y = smooth_curves(rng, 12, sigma=6.0, effect=2.0)
    r = hs.ttest(Y)
    assert r.two_tailed and r.df == 11.0 and r.fwhm > 5
    assert len(r.clusters) == 1
    c = r.clusters[0]
    assert 30 < c.start < 50 < c.end < 70 and c.sign == 1 and c.p < 0.05
    assert c.extent == pytest.approx(c.end - c.start)
    assert r.significant[int(math.ceil(c.start)):int(c.end) + 1].all()
    assert not r.significant[:int(c.start)].any()
    one = hs.ttest(Y, two_tailed=False)
    assert one.threshold < r.threshold
    assert "threshold" in repr(r)


def _brute_force_sign_flip_threshold(Y, alpha, two_tailed):
    J = Y.shape[0]
    maxima = []
    for code in range(2 ** J):
        s = np.array([1.0 - 2.0 * ((code >> j) & 1) for j in range(J)])
        t = stats.ttest_1samp(s[:, None] * Y, 0.0).statistic
        maxima.append(np.abs(t).max() if two_tailed else t.max())
    return np.percentile(maxima, 100 * (1 - alpha))


@pytest.mark.parametrize("two_tailed", [False, True])
def test_permutation_threshold_is_the_percentile_of_all_sign_flips(two_tailed):
    Y = smooth_curves(np.random.default_rng(6), 7, effect=1.0)
    r = nonparam.ttest(Y, two_tailed=two_tailed)
    assert r.permutations == (64 if two_tailed else 128) and r.method == "permutation"
    if not two_tailed:  # all 128 labellings, each once
        assert r.threshold == pytest.approx(_brute_force_sign_flip_threshold(Y, 0.05, False), rel=1e-12)
    else:  # the 64 distinct |t| fields: each of the 128 occurs twice
        assert r.threshold >= _brute_force_sign_flip_threshold(Y, 0.05, True) - 0.3


def test_permutation_two_sample_and_anova_labellings():
    rng = np.random.default_rng(7)
    YA, YB = smooth_curves(rng, 4, effect=2.0), smooth_curves(rng, 5)
    r = nonparam.ttest2(YA, YB)
    assert r.permutations == math.comb(9, 4)
    maxima = []
    for inA in __import__("itertools").combinations(range(9), 4):
        m = np.zeros(9, bool)
        m[list(inA)] = True
        Y = np.concatenate([YA, YB])
        maxima.append(np.abs(stats.ttest_ind(Y[m], Y[~m]).statistic).max())
    assert r.threshold == pytest.approx(np.percentile(maxima, 95), rel=1e-12)
    groups = [smooth_curves(rng, 3), smooth_curves(rng, 3, effect=2.0), smooth_curves(rng, 2)]
    a = nonparam.anova1(groups)
    assert a.permutations == math.factorial(8) // (6 * 6 * 2)
    np.testing.assert_allclose(a.z, hs.anova1(groups).z)
    big = nonparam.ttest2(smooth_curves(rng, 15), smooth_curves(rng, 15), iterations=2000, seed=1)
    assert big.permutations == 2000
    again = nonparam.ttest2(*[smooth_curves(np.random.default_rng(0), 15)] * 2, iterations=500, seed=9)
    assert again.threshold == nonparam.ttest2(*[smooth_curves(np.random.default_rng(0), 15)] * 2,
                                              iterations=500, seed=9).threshold


def test_permutation_and_rft_thresholds_are_close_for_smooth_fields():
    Y = smooth_curves(np.random.default_rng(8), 12, sigma=8.0)
    p, r = nonparam.ttest(Y, iterations=4096), hs.ttest(Y)
    assert p.threshold == pytest.approx(r.threshold, rel=0.2)


def test_max_cluster_metric_vectorised_equals_one_by_one():
    rng = np.random.default_rng(9)
    fields = ndimage.gaussian_filter1d(rng.standard_normal((50, 101)), 4.0, axis=1) * 6
    u = 1.5
    for metric in nonparam.METRICS:
        fast = nonparam.max_cluster_metric(fields, u, metric)
        slow = [max([nonparam._metric_of(f, u, s, e, metric) for s, e, _ in find_clusters(f, u)], default=0.0)
                for f in fields]
        np.testing.assert_allclose(fast, slow, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("call,message", [
    (lambda: hs.ttest(np.ones((1, 50))), "at least 2 curves"),
    (lambda: hs.ttest(np.ones(50)), "2-D"),
    (lambda: hs.ttest(np.where(np.eye(3, 50) > 0, np.nan, 1.0) + np.arange(3)[:, None]), "NaN"),
    (lambda: hs.ttest2(np.random.rand(4, 50), np.random.rand(4, 51)), "different numbers of nodes"),
    (lambda: hs.ttest_paired(np.random.rand(4, 50), np.random.rand(5, 50)), "same shape"),
    (lambda: hs.ttest(np.ones((4, 50))), "do not vary"),
    (lambda: hs.ttest(np.random.rand(4, 50), alpha=1.5), "alpha"),
    (lambda: hs.anova1([np.random.rand(4, 50)]), "at least 2 groups"),
    (lambda: nonparam.ttest(np.random.rand(4, 50), cluster_metric="height"), "cluster_metric"),
    (lambda: hs.ttest([["a", "b"], ["c", "d"]]), "numbers"),
])
def test_bad_input_is_one_input_error(call, message):
    with pytest.raises(InputError, match=message):
        call()

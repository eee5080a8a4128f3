"""Inference under the null hypothesis: every parametric test's family-wise error rate is alpha.

Each study draws smooth Gaussian curves from one population (no effect),
with a smoothness and sample sizes as in gait: FWHM uniform in 5-20 % of
the cycle (101 nodes), 8-20 curves per group.  Over ``N`` studies the
fraction in which a test rejects the null hypothesis anywhere on the curve
estimates its family-wise error rate (FWER); with ``N = 1000`` its binomial
standard error at 5 % is 0.69 %, and the assertion is that the estimate
lies within 3.3 standard errors (the two-sided 99.9 % interval: 2.7-7.3 %).
Each effect of a two-way ANOVA is its own family.  The seeds are fixed.

Measured (docs/stats.md, "Inference under the null"): every test and
effect between 4.1 % and 6.2 %.  Where RFT is conservative (rough fields of
2-5 nodes FWHM, very smooth fields with few curves) is measured there too.
"""

import numpy as np
import pytest
from scipy import ndimage

import humanbody.stats as hs

Q, N, ALPHA = 101, 1000, 0.05


def _curves(rng, n, fwhm_nodes, components=None):
    """``n`` curves of Gaussian white noise smoothed by a Gaussian kernel of the given FWHM (no wrap-around)."""
    s = fwhm_nodes / np.sqrt(8 * np.log(2))
    pad = int(4 * s) + 1
    shape = (n, Q + 2 * pad) if components is None else (n, Q + 2 * pad, components)
    return ndimage.gaussian_filter1d(rng.standard_normal(shape), s, axis=1, mode="constant")[:, pad:pad + Q]


def _sizes(rng, k=1):
    return rng.integers(8, 21, size=k)


def _two_way(rng, fwhm, rm):
    n = int(rng.integers(4, 6))  # curves per cell (between) or subjects (repeated measures)
    A, B = np.tile([0, 0, 1, 1], 2 * n), np.tile([0, 1, 0, 1], 2 * n)
    if rm:
        S = np.repeat(np.arange(2 * n), 4)
        return hs.anova2rm(_curves(rng, 8 * n, fwhm) + 2 * _curves(rng, 2 * n, fwhm)[S], A, B, S)
    return hs.anova2(_curves(rng, 8 * n, fwhm), A, B)


def _anova1rm(rng, fwhm):
    n = int(_sizes(rng)[0])
    S = np.repeat(np.arange(n), 3)
    return hs.anova1rm(_curves(rng, 3 * n, fwhm) + 2 * _curves(rng, n, fwhm)[S], np.tile([0, 1, 2], n), S)


STUDIES = {
    "ttest": lambda rng, w: hs.ttest(_curves(rng, _sizes(rng)[0], w)),
    "ttest2": lambda rng, w: hs.ttest2(*[_curves(rng, n, w) for n in _sizes(rng, 2)]),
    "anova1": lambda rng, w: hs.anova1([_curves(rng, n, w) for n in _sizes(rng, 3)]),
    "hotellings": lambda rng, w: hs.hotellings(_curves(rng, _sizes(rng)[0], w, 3)),
    "hotellings2": lambda rng, w: hs.hotellings2(*[_curves(rng, n, w, 3) for n in _sizes(rng, 2)]),
    "regress": lambda rng, w: hs.regress(_curves(rng, n := int(_sizes(rng)[0]), w), rng.uniform(0.8, 1.8, n)),
    "anova2": lambda rng, w: _two_way(rng, w, False),
    "anova1rm": _anova1rm,
    "anova2rm": lambda rng, w: _two_way(rng, w, True),
}


def family_wise_error(name, studies=N, seed=0):
    """Fraction of ``studies`` null studies rejected anywhere, per effect: array (effects,)."""
    rng = np.random.default_rng([seed, sum(map(ord, name))])
    hits = None
    for _ in range(studies):
        fwhm = rng.uniform(0.05, 0.20) * (Q - 1)
        res = STUDIES[name](rng, fwhm)
        res = res if isinstance(res, list) else [res]
        row = np.array([r.h0reject for r in res], float)
        hits = row if hits is None else hits + row
    return hits / studies


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STUDIES))
def test_family_wise_error_is_alpha_under_the_null(name):
    se = np.sqrt(ALPHA * (1 - ALPHA) / N)
    for fwer in family_wise_error(name):
        assert abs(fwer - ALPHA) < 3.3 * se, f"{name}: FWER {fwer:.3f} (alpha {ALPHA}, SE {se:.4f})"


def test_a_real_effect_is_found():
    """The same machinery is not blind: a clear effect is rejected in nearly every study."""
    rng = np.random.default_rng(1)
    q = np.arange(Q)
    found = [hs.ttest2(_curves(rng, 12, 10) + 1.5 * np.exp(-0.5 * ((q - 50) / 8) ** 2), _curves(rng, 12, 10)).h0reject
             for _ in range(50)]
    assert np.mean(found) > 0.9


@pytest.mark.slow
def test_normality_check_flags_gaussian_residuals_at_alpha():
    """compare's calibrated K² check flags Gaussian residuals in about 5 % of tests (spm1d's RFT K² test, which
    humanbody.stats.normality.residuals reproduces, in far more: it is liberal)."""
    from humanbody.stats import normality

    rng = np.random.default_rng(5)
    n = 600
    flags, rft = 0, 0
    for _ in range(n):
        R = _curves(rng, int(rng.integers(8, 41)), rng.uniform(0.05, 0.20) * (Q - 1))
        R = R - R.mean(axis=0)
        flags += normality.rejects(R)
        rft += normality.residuals(R).h0reject
    se = np.sqrt(ALPHA * (1 - ALPHA) / n)
    assert abs(flags / n - ALPHA) < 3.3 * se, flags / n
    assert rft / n > 0.15

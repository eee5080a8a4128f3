"""Why permutation cluster p-values differ from spm1d's, shown by reproducing spm1d's exactly.

Both use the same labellings, threshold and clusters.  Ours measures every
cluster, observed or permuted, by one integral: the field above the
threshold, trapezoidal between the interpolated ends.  spm1d 0.4 (observed
behaviour; its code is not used here) measures the observed cluster with
its interpolated ends taken as samples one node apart, the permuted
clusters over their nodes strictly above the threshold without the ends,
and keeps p within [1 / labellings, alpha].  Those three rules, applied to
our labellings, give spm1d's p to the last labelling.
"""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.stats import nonparam

spm1d = pytest.importorskip("spm1d")


def _trapezoid(v: np.ndarray) -> float:
    return float(v[0]) if v.size == 1 else float(np.sum(0.5 * (v[1:] + v[:-1])))


def _largest_node_integral(z: np.ndarray, u: float) -> float:
    """The largest integral of ``z - u`` over a run of nodes strictly above ``u`` (unit spacing, no ends)."""
    best, run = 0.0, []
    for q in list(z) + [-np.inf]:
        if q > u:
            run.append(q - u)
        elif run:
            best, run = max(best, _trapezoid(np.array(run))), []
    return best


def _curves(rng, J, effect):
    from scipy.ndimage import gaussian_filter1d

    bump = effect * np.exp(-0.5 * ((np.arange(101) - 50) / 8) ** 2)
    return gaussian_filter1d(rng.normal(size=(J, 101)), 6, axis=1) * 3 + bump


@pytest.mark.parametrize("seed", range(6))
def test_spm1d_cluster_p_follows_from_its_cluster_measures(seed):
    rng = np.random.default_rng(seed)
    J, alpha = 8, 0.05
    Y = _curves(rng, J, 1.6)
    ours = nonparam.ttest(Y, alpha=alpha, two_tailed=False)
    ref = spm1d.stats.nonparam.ttest(Y, 0.0).inference(alpha, two_tailed=False, iterations=-1)
    assert ours.threshold == pytest.approx(ref.zstar, rel=1e-12)
    assert len(ours.clusters) == len(ref.clusters) >= 1
    signs = nonparam.sign_flips(J, 10000, None, False)  # every one of the 2^J labellings
    m = signs @ Y / J
    fields = m / np.sqrt((np.einsum("jq,jq->q", Y, Y) - J * m * m) / (J - 1) / J)
    largest = np.array([_largest_node_integral(f, ours.threshold) for f in fields])
    for c, r in zip(ours.clusters, ref.clusters, strict=True):
        assert (c.start, c.end) == pytest.approx(tuple(r.endpoints), abs=1e-9)
        i0, i1 = int(np.ceil(c.start)), int(np.floor(c.end))
        ends = ([0.0] if c.start < i0 else [], [0.0] if c.end > i1 else [])
        observed = _trapezoid(np.concatenate([ends[0], ours.t[i0:i1 + 1] - ours.threshold, ends[1]]))
        assert observed == pytest.approx(r.metric_value, rel=1e-9)
        p = min(alpha, max(float(np.mean(largest >= observed)), 1.0 / len(fields)))
        assert p == pytest.approx(r.P, abs=1e-12)
        assert abs(c.p - r.P) <= 3.0 / len(fields) or c.p > alpha  # ours: the same labellings, one measure

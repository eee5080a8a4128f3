"""Agreement of humanbody.stats with spm1d 0.4 on random smooth curves (the figures in docs/stats.md).

For each of N random cases (seeded): Gaussian-smoothed white noise, 101
nodes, 8-20 curves per group, smoothing SD 2-12 nodes, with a bump of 0-2.5
SD in half of them; every parametric test two- and one-tailed
(one-sample, paired, two-sample with equal variances, one-way ANOVA of 3
groups), and the permutation tests with every labelling (one-sample with 8
curves, two-sample 5 + 5, ANOVA 3 x 3).  Prints the largest differences:
statistic field, threshold (relative), cluster endpoints (nodes), cluster
p-values, and how many cases had a different number of clusters.  Needs
``pip install spm1d``.  Run:

    .venv/bin/python docs/scripts/spm1d_agreement.py --cases 200
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
from scipy import ndimage

import humanbody.stats as hs


def curves(rng, rows, sigma, effect):
    y = ndimage.gaussian_filter1d(rng.standard_normal((rows, 101)), sigma, axis=1, mode="wrap")
    y /= y.std()
    return y + effect * np.exp(-0.5 * ((np.arange(101) - rng.uniform(20, 80)) / 10.0) ** 2)


def main(argv=None) -> int:
    import spm1d

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=200)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    worst = {"z": 0.0, "threshold_rel": 0.0, "endpoint_nodes": 0.0, "p": 0.0}
    mismatched, clusters, runs = 0, 0, 0
    perm_worst = 0.0

    def agree(ref, mine):
        nonlocal mismatched, clusters, runs
        runs += 1
        worst["z"] = max(worst["z"], float(np.abs(ref.z - mine.z).max()))
        worst["threshold_rel"] = max(worst["threshold_rel"], abs(mine.threshold / ref.zstar - 1))
        rc = sorted(ref.clusters, key=lambda c: c.endpoints[0])
        if len(rc) != len(mine.clusters):
            mismatched += 1
            return
        clusters += len(rc)
        for a, b in zip(rc, mine.clusters, strict=True):
            worst["endpoint_nodes"] = max(worst["endpoint_nodes"], abs(a.endpoints[0] - b.start),
                                          abs(a.endpoints[1] - b.end))
            worst["p"] = max(worst["p"], abs(a.P - b.p))

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(args.cases):
            J, sigma = int(rng.integers(8, 21)), float(rng.uniform(2, 12))
            effect = float(rng.uniform(0, 2.5)) * (rng.random() < 0.5) * rng.choice([-1, 1])
            YA, YB = curves(rng, J, sigma, effect), curves(rng, J, sigma, 0.0)
            for tails in (True, False):
                agree(spm1d.stats.ttest(YA).inference(0.05, two_tailed=tails), hs.ttest(YA, two_tailed=tails))
                agree(spm1d.stats.ttest_paired(YA, YB).inference(0.05, two_tailed=tails),
                      hs.ttest_paired(YA, YB, two_tailed=tails))
                agree(spm1d.stats.ttest2(YA, YB, equal_var=True).inference(0.05, two_tailed=tails),
                      hs.ttest2(YA, YB, two_tailed=tails))
            Y = np.concatenate([YA, YB, curves(rng, J, sigma, effect / 2)])
            A = np.repeat([0, 1, 2], J)
            agree(spm1d.stats.anova1(Y, A, equal_var=True).inference(0.05), hs.anova1(Y, A))
        for _ in range(max(1, args.cases // 20)):
            sigma = float(rng.uniform(3, 10))
            Y = curves(rng, 8, sigma, 1.5)
            for tails in (True, False):
                ref = spm1d.stats.nonparam.ttest(Y).inference(0.05, two_tailed=tails, iterations=-1)
                perm_worst = max(perm_worst, abs(hs.nonparam.ttest(Y, two_tailed=tails).threshold / ref.zstar - 1))
                YA, YB = curves(rng, 5, sigma, 1.5), curves(rng, 5, sigma, 0)
                ref = spm1d.stats.nonparam.ttest2(YA, YB).inference(0.05, two_tailed=tails, iterations=-1)
                perm_worst = max(perm_worst, abs(hs.nonparam.ttest2(YA, YB, two_tailed=tails).threshold
                                                 / ref.zstar - 1))
            Y = np.concatenate([curves(rng, 3, sigma, e) for e in (0, 1.5, -1)])
            A = np.repeat([0, 1, 2], 3)
            ref = spm1d.stats.nonparam.anova1(Y, A).inference(0.05, iterations=-1)
            perm_worst = max(perm_worst, abs(hs.nonparam.anova1(Y, A).threshold / ref.zstar - 1))
    print(f"{runs} parametric tests on {args.cases} random cases, {clusters} clusters compared")
    print(f"  largest |statistic difference|      {worst['z']:.1e}")
    print(f"  largest relative threshold diff.    {worst['threshold_rel']:.1e}")
    print(f"  largest cluster endpoint diff.      {worst['endpoint_nodes']:.1e} nodes")
    print(f"  largest cluster p difference        {worst['p']:.1e}")
    print(f"  tests with a different cluster count {mismatched}")
    print(f"permutation thresholds (every labelling): largest relative difference {perm_worst:.1e}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

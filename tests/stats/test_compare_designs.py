"""``compare`` across many variables and designs: the correction, which clusters are significant, the
multivariate (per-joint Hotelling's T²) option, two factors, regression, normality and the hints."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _smooth_fields import smooth_curves  # noqa: E402
from _spm_groups import BASE, PERCENT, write_group  # noqa: E402

import humanbody.stats as hs
from humanbody.cli import main
from humanbody.stats.clusters import Cluster
from humanbody.stats.compare import Comparison, compare, joints
from humanbody.stats.groups import Group

ROOT = Path(__file__).resolve().parents[2]
BUMP = 8.0 * np.exp(-0.5 * ((PERCENT - 70.0) / 8.0) ** 2)
JOINT_BASE = dict(BASE, right_hip_adduction_deg=4 * np.sin(2 * PERCENT / 100 * 2 * np.pi),
                  right_hip_internal_rotation_deg=3 * np.sin(PERCENT / 100 * 2 * np.pi))


def _group(name, curves: dict, rows=None) -> Group:
    g = Group(name, name)
    for v, Y in curves.items():
        g.curves[v] = Y
        g.rows[v] = rows or [f"s{i}" for i in range(Y.shape[0])]
        g.units[v] = "deg"
    return g


@pytest.mark.parametrize("correction,expected", [("sidak", 1 - 0.95 ** (1 / 20)), ("bonferroni", 0.05 / 20),
                                                 ("none", 0.05)])
def test_each_test_runs_at_the_corrected_alpha(correction, expected):
    rng = np.random.default_rng(0)
    A = _group("a", {f"v{i}_deg": smooth_curves(rng, 8) for i in range(20)})
    B = _group("b", {f"v{i}_deg": smooth_curves(rng, 8) for i in range(20)})
    c = compare([A, B], correction=correction)
    assert c.alpha_test == pytest.approx(expected) and c.n_tests == 20
    for v, r in c.results.items():
        assert r.threshold == pytest.approx(hs.ttest2(A.curves[v], B.curves[v], alpha=expected).threshold)


def test_sidak_keeps_the_family_wise_error_of_independent_tests():
    """m = 71 independent null tests (as the user's 71 variables): uncorrected, P(any significant) is far above
    alpha; at the Sidak alpha it is alpha (each test's p is uniform here: a one-node z test)."""
    m, a = 71, hs.corrected_alpha(0.05, 71)
    assert 1 - (1 - a) ** m == pytest.approx(0.05, rel=1e-12)
    assert 1 - 0.95 ** m > 0.97


def test_a_cluster_is_significant_only_below_the_corrected_alpha():
    """A cluster that just reaches the threshold (p above alpha: the user's p = 0.0651, and p = 0.05 itself)
    is listed but not significant: not in the significant nodes, not shaded, 0 in clusters.csv."""
    from humanbody.stats.compare import clusters_table_text, spm_table_text

    z = np.zeros(101)
    z[40:43] = [3.0, 3.2, 3.0]
    z[70:80] = 5.0
    res = hs.SPMResult("ttest2", "T", z, 18.0, 10.0, (1.0, 10.0), 0.05, True, 2.9,
                       (Cluster(39.9, 42.1, 1, 0.0651, 2.2, 0.22, 3.2), Cluster(60.0, 61.0, 1, 0.05, 1.0, 0.1, 2.9),
                        Cluster(69.5, 80.5, 1, 0.001, 11.0, 1.1, 5.0)))
    c = Comparison([], "ttest2", 0.05, True, "none", 0.05, results={"x_deg": res})
    assert [k.p for k in c.significant_clusters("x_deg")] == [0.001]
    nodes = c.significant_nodes("x_deg")
    assert nodes[70:80].all() and not nodes[40:43].any()
    table = pd.read_csv(__import__("io").StringIO(clusters_table_text(c)))
    assert table.significant.tolist() == [0, 0, 1]
    spm = pd.read_csv(__import__("io").StringIO(spm_table_text(c)))
    assert spm.significant.sum() == 10


def test_rough_field_cluster_with_p_above_alpha_is_not_significant():
    """On rough curves the Bonferroni bound gives a lower threshold than RFT, so a cluster can reach the
    threshold with an RFT p above alpha (how p = 0.0651 arose); compare does not call it significant."""
    found = None
    for seed in range(200):
        rng = np.random.default_rng(seed)
        YA, YB = smooth_curves(rng, 8, sigma=0.7), smooth_curves(rng, 8, sigma=0.7)
        r = hs.ttest2(YA, YB)
        if any(k.p >= 0.05 for k in r.clusters):
            found = (YA, YB)
            break
    assert found is not None
    c = compare([_group("a", {"x_deg": found[0]}), _group("b", {"x_deg": found[1]})], correction="none")
    assert all(k.p < 0.05 for k in c.significant_clusters("x_deg"))
    assert any(k.p >= 0.05 for k in c.results["x_deg"].clusters)


def test_joints_group_the_angles():
    vs = ["right_hip_flexion_deg", "right_hip_adduction_deg", "right_hip_internal_rotation_deg",
          "right_knee_flexion_deg", "pelvis_tilt_deg", "pelvis_obliquity_deg", "right_knee_flexion_moment_Nm_per_kg"]
    assert joints(vs) == {"right_hip": vs[:3], "pelvis": vs[4:6]}


def test_multivariate_tests_each_joint_once(tmp_path, capsys):
    a = write_group(tmp_path / "a", 9, seed=1, base=JOINT_BASE)
    b = write_group(tmp_path / "b", 10, seed=2, base=JOINT_BASE, effect={"right_hip_flexion_deg": BUMP})
    out = tmp_path / "mv"
    assert main(["compare", str(a), str(b), "--out", str(out), "--side", "right", "--multivariate"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert "hip_angles" in set(spm.variable) and "hip_flexion_deg" not in set(spm.variable)
    g = [hs.groups.read_report(f, side="right") for f in (a, b)]
    names = ["hip_flexion_deg", "hip_adduction_deg", "hip_internal_rotation_deg"]
    m = spm.variable.nunique()  # tests: the hip joint plus the single variables
    expected = hs.hotellings2(np.stack([g[0].curves[v] for v in names], 2), np.stack([g[1].curves[v] for v in names], 2),
                              alpha=1 - 0.95 ** (1 / m))
    hip = spm[spm.variable == "hip_angles"]
    np.testing.assert_allclose(hip.t, expected.z, rtol=1e-5)
    assert hip.threshold.iloc[0] == pytest.approx(expected.threshold, rel=1e-5)
    assert hip.significant.any()
    assert "Hotelling" in (out / "index.html").read_text()
    assert (out / "hip_angles.svg").is_file()
    err = capsys.readouterr().err
    assert "hotellings2" in err and f"over {m} test(s)" in err


def test_multivariate_needs_two_groups(tmp_path, capsys):
    gs = [write_group(tmp_path / n, 4, seed=i) for i, n in enumerate("abc")]
    assert main(["compare", *map(str, gs), "--out", str(tmp_path / "o"), "--multivariate", "-q"]) == 2
    assert "exactly 2 groups" in capsys.readouterr().err


def test_two_factors_and_regression_in_compare():
    rng = np.random.default_rng(4)
    cells = [("slow", "pre"), ("slow", "post"), ("fast", "pre"), ("fast", "post")]
    groups = [_group(f"{a} / {b}", {"knee_deg": smooth_curves(rng, 5 + i, effect=2.0 * (a == "fast"))},
                     rows=[f"{a}{b}{j}" for j in range(5 + i)]) for i, (a, b) in enumerate(cells)]
    c = compare(groups, factors=("speed", "time", cells))
    assert c.test == "anova2" and list(c.results) == ["knee_deg [speed]", "knee_deg [time]", "knee_deg [speed x time]"]
    assert c.alpha_test == pytest.approx(1 - 0.95 ** (1 / 3))
    Y = np.concatenate([g.curves["knee_deg"] for g in groups])
    A = np.concatenate([[a] * g.curves["knee_deg"].shape[0] for g, (a, _) in zip(groups, cells, strict=True)])
    B = np.concatenate([[b] * g.curves["knee_deg"].shape[0] for g, (_, b) in zip(groups, cells, strict=True)])
    ref = hs.anova2(Y, A, B, alpha=c.alpha_test)  # unequal cells: 5, 6, 7, 8 curves
    for r, m in zip(ref, c.results.values(), strict=True):
        np.testing.assert_allclose(m.z, r.z)
    assert c.significant_clusters("knee_deg [speed]")
    x = rng.uniform(0.9, 1.6, 12)
    g = _group("all", {"knee_deg": smooth_curves(rng, 12) + 6.0 * np.outer(x - x.mean(), BUMP / 8.0)},
               rows=[f"s{i}" for i in range(12)])
    c = compare([g], regressor=("speed", {f"s{i}": x[i] for i in range(12)}))
    assert c.test == "regress" and c.significant_clusters("knee_deg")
    np.testing.assert_allclose(c.effect_sizes["knee_deg"], hs.regress(g.curves["knee_deg"], x).r)


def test_normality_check_advises_the_permutation_test(tmp_path, capsys):
    rng = np.random.default_rng(2)
    skewed = np.exp(2.5 * smooth_curves(rng, 12))  # log-normal residuals
    c = compare([_group("a", {"x_deg": skewed}), _group("b", {"x_deg": np.exp(2.5 * smooth_curves(rng, 12))})])
    assert c.normality["x_deg"] is True
    normal = compare([_group("a", {"x_deg": smooth_curves(rng, 12)}), _group("b", {"x_deg": smooth_curves(rng, 12)})])
    assert normal.normality["x_deg"] is False
    assert hs.normality.ttest2(c.groups[0].curves["x_deg"], c.groups[1].curves["x_deg"]).h0reject


def test_different_variables_hint(tmp_path, capsys):
    a = write_group(tmp_path / "a", 3, seed=1)
    b = write_group(tmp_path / "b", 3, seed=2, base={k: v for k, v in BASE.items() if not k.endswith("_per_kg")})
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "o"), "-q"]) == 2
    err = capsys.readouterr().err
    assert "different variables" in err and "--variables '*_deg'" in err and err.count("\n") == 1
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "o"), "-q", "--variables", "*_deg"]) == 0


def test_design_usage_errors(tmp_path, capsys):
    m = tmp_path / "m.csv"
    m.write_text("trial,mass,height,group,speed\nx.csv,70,1.7,a,fast\n")
    for argv, message in [
        (["--manifest", str(m), "--regress", "speed", "--by", "group"], "without --by"),
        (["--manifest", str(m), "--by", "group", "speed", "mass"], "one column"),
        (["--regress", "speed", str(tmp_path), str(tmp_path)], "--regress needs --manifest"),
        (["--manifest", str(m), "--regress", "nope"], "no column 'nope'"),
    ]:
        assert main(["compare", *argv, "--out", str(tmp_path / "o"), "-q"]) == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


@pytest.mark.slow
def test_manifest_two_factors_and_regression(tmp_path):
    """Two factors and a regression from manifest columns, through the report pipeline (sample data)."""
    data = ROOT / "data"
    manifest = tmp_path / "m.csv"
    rows = ["trial,static,mass,height,group,shoe,speed,subject_id"]
    for i, (group, shoe) in enumerate([("a", "x"), ("a", "y"), ("b", "x"), ("b", "y")]):
        rows.append(f"{data / 'sample_walk.csv'},,75,1.75,{group},{shoe},{1.0 + 0.1 * i},p{i}")
        rows.append(f"{data / 'sample_walk_markers.trc'},{data / 'sample_static.trc'},75,1.75,{group},{shoe},"
                    f"{1.2 - 0.1 * i},q{i}")
    manifest.write_text("\n".join(rows) + "\n")
    out = tmp_path / "two"
    assert main(["compare", "--manifest", str(manifest), "--by", "group", "shoe", "--out", str(out), "--side", "right",
                 "--variables", "knee_flexion_deg", "-q", "-j", "1"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert set(spm.variable) == {"knee_flexion_deg [group]", "knee_flexion_deg [shoe]",
                                 "knee_flexion_deg [group x shoe]"}
    np.testing.assert_allclose(spm.t, 0.0, atol=1e-6)  # the same two trials in every cell
    out = tmp_path / "reg"
    assert main(["compare", "--manifest", str(manifest), "--regress", "speed", "--out", str(out), "--side", "right",
                 "--variables", "knee_flexion_deg", "-q", "-j", "1"]) == 0
    assert "linear regression" in (out / "index.html").read_text()
    out = tmp_path / "reg_strides"
    assert main(["compare", "--manifest", str(manifest), "--regress", "speed", "--out", str(out), "--side", "right",
                 "--variables", "knee_flexion_deg", "--unit", "stride", "-q", "-j", "1"]) == 0
    assert set(pd.read_csv(out / "spm.csv").variable) == {"knee_flexion_deg"}  # every stride has its trial's speed


def test_anova_with_clusters_gets_post_hoc_pairs(tmp_path, capsys):
    a = write_group(tmp_path / "a", 8, seed=1)
    b = write_group(tmp_path / "b", 8, seed=2)
    c = write_group(tmp_path / "c", 8, seed=3, effect={"right_knee_flexion_deg": BUMP})
    out = tmp_path / "o"
    assert main(["compare", str(a), str(b), str(c), "--out", str(out), "--side", "right", "--figures", "none"]) == 0
    err = capsys.readouterr().err
    assert "post-hoc a vs c:" in err and "post-hoc b vs c:" in err and "post-hoc a vs b: no significant cluster" in err
    g = [hs.groups.read_report(f, side="right") for f in (a, b, c)]
    m = pd.read_csv(out / "spm.csv").variable.nunique()
    pair_alpha = 1 - (1 - (1 - 0.95 ** (1 / m))) ** (1 / 3)
    ref = hs.ttest2(g[0].curves["knee_flexion_deg"], g[2].curves["knee_flexion_deg"], alpha=pair_alpha)
    assert ref.clusters and f"{ref.clusters[0].percent(101)[0]:.1f}-" in err
    assert "post-hoc a vs c" in (out / "index.html").read_text()


def test_paired_multivariate_is_the_paired_hotellings_test():
    rng = np.random.default_rng(6)
    names = ["hip_flexion_deg", "hip_adduction_deg", "hip_internal_rotation_deg", "knee_flexion_moment_Nm_per_kg"]
    pre = {v: smooth_curves(rng, 10) for v in names}
    post = {v: pre[v] + 0.5 * smooth_curves(rng, 10) + (4.0 * BUMP / 8 if v == "hip_flexion_deg" else 0) for v in names}
    order = list(range(10))[::-1]  # the same subjects, listed in another order
    A = _group("pre", pre)
    B = _group("post", {v: Y[order] for v, Y in post.items()}, rows=[f"s{i}" for i in order])
    c = compare([A, B], paired=True, multivariate=True)
    assert c.test == "hotellings_paired" and list(c.results) == ["hip_angles", "knee_flexion_moment_Nm_per_kg"]
    V = [np.stack([d[v] for v in names[:3]], axis=2) for d in (pre, post)]
    ref = hs.hotellings_paired(V[0], V[1], alpha=c.alpha_test)
    np.testing.assert_allclose(c.results["hip_angles"].z, ref.z)
    assert c.significant_clusters("hip_angles")


def test_posthoc_with_subjects_pairs_the_subject_means():
    rng = np.random.default_rng(9)
    S = np.repeat(np.arange(9), 6)  # two curves per subject and condition
    C = np.tile(np.repeat(["a", "b", "c"], 2), 9)
    Y = smooth_curves(rng, 54)
    pairs = hs.posthoc(Y, C, S, correction="bonferroni")
    mean = {lev: np.array([Y[(C == lev) & (S == s)].mean(axis=0) for s in range(9)]) for lev in "abc"}
    for (li, lj), r in pairs.items():
        assert r.alpha == pytest.approx(0.05 / 3)
        np.testing.assert_allclose(r.z, hs.ttest_paired(mean[li], mean[lj]).z)

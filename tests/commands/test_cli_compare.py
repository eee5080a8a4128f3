"""``humanbody compare``: SPM comparison of report folders, end to end through the command line."""

import shutil
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _spm_groups import BASE, PERCENT, read_strides, strides_path, write_group, write_strides  # noqa: E402

import humanbody.stats as hs
from humanbody.cli import main

ROOT = Path(__file__).resolve().parents[2]
BUMP = 8.0 * np.exp(-0.5 * ((PERCENT - 70.0) / 8.0) ** 2)


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    root = tmp_path_factory.mktemp("study")
    a = write_group(root / "control", 10, seed=1)
    b = write_group(root / "contracture", 11, seed=2, effect={"right_knee_flexion_deg": BUMP})
    return a, b


def _subject_means(folder, variable):
    """Each subject's mean right-stride curve, read with pandas (independently of humanbody.stats.groups)."""
    rows = []
    for f in sorted(Path(folder).rglob("*_strides.*")):
        t = read_strides(f)
        t = t[t.side == "right"]
        rows.append(t[variable].to_numpy().reshape(-1, 101).mean(axis=0))
    return np.array(rows)


def test_two_groups(study, tmp_path, capsys):
    a, b = study
    out = tmp_path / "cmp"
    assert main(["compare", str(a), str(b), "--out", str(out), "--side", "right"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert list(spm.columns) == ["variable", "percent", "t", "threshold", "significant", "effect_size"]
    knee = spm[spm.variable == "knee_flexion_deg"]
    assert len(knee) == 101 and knee.percent.iloc[-1] == 100
    YA, YB = _subject_means(a, "right_knee_flexion_deg"), _subject_means(b, "right_knee_flexion_deg")
    sidak = 1 - 0.95 ** (1 / 6)  # 6 variables, Sidak by default
    expected = hs.ttest2(YA, YB, alpha=sidak)
    np.testing.assert_allclose(knee.t, expected.t, rtol=1e-5, atol=1e-5)  # 6 significant digits in the CSV
    assert knee.threshold.iloc[0] == pytest.approx(expected.threshold, rel=1e-5)
    assert (knee.significant == (np.abs(knee.t) >= knee.threshold)).all()
    sp = np.sqrt(((len(YA) - 1) * YA.var(0, ddof=1) + (len(YB) - 1) * YB.var(0, ddof=1)) / (len(YA) + len(YB) - 2))
    np.testing.assert_allclose(knee.effect_size, (YA.mean(0) - YB.mean(0)) / sp, rtol=1e-4, atol=1e-5)  # Cohen's d
    clusters = pd.read_csv(out / "clusters.csv")
    assert list(clusters.columns) == ["variable", "start_pct", "end_pct", "p", "significant"]
    k = clusters[clusters.variable == "knee_flexion_deg"]
    assert len(k) == 1 and 50 < k.start_pct.iloc[0] < 70 < k.end_pct.iloc[0] < 90 and k.p.iloc[0] < 0.01
    assert k.start_pct.iloc[0] == pytest.approx(expected.clusters[0].start, abs=0.01)
    assert set(spm.variable) == {"pelvis_tilt_deg", "hip_flexion_deg", "knee_flexion_deg",
                                 "ankle_dorsiflexion_deg", "knee_flexion_moment_Nm_per_kg", "knee_power_W_per_kg"}
    page = (out / "index.html").read_text()
    for var in set(spm.variable):
        svg = out / f"{var}.svg"
        ET.parse(svg)  # well-formed XML
        assert f"src='{var}.svg'" in page
    assert "p &lt; 0.001" in (out / "knee_flexion_deg.svg").read_text() or "p = " in (
        out / "knee_flexion_deg.svg").read_text()
    err = capsys.readouterr().err
    assert "knee_flexion_deg" in err and "Šidák correction over 6 test(s)" in err
    assert "Šidák correction over 6 test(s)" in page


def test_side_both_stride_unit_and_variables(study, tmp_path):
    a, b = study
    out = tmp_path / "both"
    assert main(["compare", str(a), str(b), "--out", str(out), "--unit", "stride", "--figures", "none",
                 "--variables", "*knee_flexion_deg", "-q"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert set(spm.variable) == {"right_knee_flexion_deg", "left_knee_flexion_deg"}
    assert not list(out.glob("*.svg"))
    # per stride: 10 subjects x 4 right strides against 11 x 4
    g = hs.groups.read_report(a, side="right", unit="stride")
    assert g.curves["knee_flexion_deg"].shape == (40, 101)
    g = hs.groups.read_report(a, side="pooled", unit="stride")
    assert g.curves["knee_flexion_deg"].shape == (80, 101) and g.curves["pelvis_tilt_deg"].shape == (40, 101)


def test_pooled_subject_curve_is_the_mean_of_both_sides(study):
    a, _ = study
    g = hs.groups.read_report(a, side="pooled")
    rows = []
    for f in sorted(Path(a).rglob("*_strides.*")):
        t = read_strides(f)
        r = t[t.side == "right"]["right_knee_flexion_deg"].to_numpy().reshape(-1, 101)
        lft = t[t.side == "left"]["left_knee_flexion_deg"].to_numpy().reshape(-1, 101)
        rows.append(np.concatenate([r, lft]).mean(axis=0))
    np.testing.assert_allclose(g.curves["knee_flexion_deg"], np.array(rows), rtol=1e-9)
    assert g.curves["knee_flexion_deg"].shape == (10, 101)


def test_cycles_tables_alone_give_the_same_subject_curves(study, tmp_path):
    """A report folder without per-stride tables: the cycles table's means, weighted by strides."""
    a, _ = study
    copy = tmp_path / "old"
    shutil.copytree(a, copy)
    for f in copy.rglob("*_strides.*"):
        f.unlink()
    old, new = hs.groups.read_report(copy, side="right"), hs.groups.read_report(a, side="right")
    for var in new.variables:
        np.testing.assert_allclose(old.curves[var], new.curves[var], rtol=1e-6, atol=1e-6)
    with pytest.raises(hs.groups.InputError, match="per-stride"):
        hs.groups.read_report(copy, unit="stride")


def test_paired_and_anova(tmp_path):
    pre = write_group(tmp_path / "pre", 8, seed=3)
    post = write_group(tmp_path / "post", 8, seed=3, effect={"right_hip_flexion_deg": BUMP})
    out = tmp_path / "paired"
    assert main(["compare", str(pre), str(post), "--out", str(out), "--paired", "--side", "right", "-q",
                 "--figures", "none"]) == 0
    hip = pd.read_csv(out / "spm.csv").query("variable == 'hip_flexion_deg'")
    # same subjects and noise seed: post - pre is exactly the bump plus stride noise
    assert hip.t.min() < -5
    third = write_group(tmp_path / "third", 7, seed=4, effect={"right_hip_flexion_deg": -BUMP})
    out = tmp_path / "anova"
    assert main(["compare", str(pre), str(post), str(third), "--out", str(out), "--side", "right", "-q"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert (spm.t >= 0).all()  # F field
    assert "one-way ANOVA" in (out / "index.html").read_text()
    other = write_group(tmp_path / "others", 8, seed=5, prefix="x")
    assert main(["compare", str(pre), str(other), "--out", str(tmp_path / "bad"), "--paired", "-q"]) == 2


def _bad_groups(tmp_path):
    good = write_group(tmp_path / "good", 4, seed=1)
    write_group(tmp_path / "one", 1, seed=2)
    write_group(tmp_path / "fewer", 4, seed=3, base={k: v for k, v in BASE.items() if "power" not in k})
    short = write_group(tmp_path / "short", 3, seed=4)
    for f in short.rglob("*_strides.*"):  # a 51-point cycle
        t = read_strides(f)
        write_strides(t[t.percent % 2 == 0], f)
    nan = write_group(tmp_path / "nan", 3, seed=5, fmt="csv")  # empty cells in a CSV
    f = sorted(nan.rglob("*_strides.csv"))[0]
    t = pd.read_csv(f)
    t.loc[t.side == "right", "right_knee_flexion_deg"] = np.nan  # no usable right stride for the knee
    t.to_csv(f, index=False)
    (tmp_path / "empty").mkdir()
    return good


@pytest.mark.parametrize("other,message", [
    ("missing", "no such folder"),
    ("one", "at least 2"),
    ("fewer", "different variables"),
    ("short", "different lengths"),
    ("nan", "missing values"),
    ("empty", "no trial files"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, capsys, other, message):
    good = _bad_groups(tmp_path)
    status = main(["compare", str(good), str(tmp_path / other), "--out", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


def test_usage_errors(tmp_path, capsys):
    good = write_group(tmp_path / "g", 3, seed=1)
    for argv, message in [
        (["compare", str(good), "--out", str(tmp_path / "o")], "at least 2 groups"),
        (["compare", "--manifest", str(tmp_path / "m.csv"), "--out", str(tmp_path / "o")], "--by"),
        (["compare", "--manifest", str(tmp_path / "m.csv"), "--by", "group", "--out", str(tmp_path / "o")],
         "manifest file not found"),
    ]:
        assert main(argv) == 2
        assert message in capsys.readouterr().err


@pytest.mark.slow
def test_manifest_groups_run_the_report_first(tmp_path):
    """Trials named in a manifest, grouped by a column: reported, then compared (sample data)."""
    data = ROOT / "data"
    manifest = tmp_path / "m.csv"
    rows = ["trial,static,mass,height,group,subject_id"]
    for group in ("a", "b"):
        rows.append(f"{data / 'sample_walk.csv'},,75,1.75,{group},one")
        rows.append(f"{data / 'sample_walk_markers.trc'},{data / 'sample_static.trc'},75,1.75,{group},two")
    manifest.write_text("\n".join(rows) + "\n")
    out = tmp_path / "out"
    assert main(["compare", "--manifest", str(manifest), "--by", "group", "--out", str(out), "--side", "right",
                 "--variables", "knee_flexion_deg", "hip_flexion_deg", "-q", "-j", "1"]) == 0
    spm = pd.read_csv(out / "spm.csv")
    assert set(spm.variable) == {"knee_flexion_deg", "hip_flexion_deg"}
    np.testing.assert_allclose(spm.t, 0.0, atol=1e-6)  # the same two trials in both groups
    assert (out / "reports" / "a" / "summary.csv").is_file()
    assert list((out / "reports" / "a").rglob("*_strides.parquet"))  # what the report writes
    assert pd.read_csv(out / "clusters.csv").empty


def test_trials_of_one_subject_are_pooled_by_strides(tmp_path):
    from _spm_groups import write_trial

    rng = np.random.default_rng(0)
    folder = tmp_path / "g"
    write_trial(folder, "s1_walk1", {k: v + 1.0 for k, v in BASE.items()}, 2, rng)
    write_trial(folder, "s1_walk2", {k: v - 1.0 for k, v in BASE.items()}, 6, rng)
    write_trial(folder, "s2_walk1", BASE, 3, rng)
    f = strides_path(folder, "s2_walk1")  # no usable right knee stride in s2's trial
    t = read_strides(f)
    t.loc[t.side == "right", "right_knee_flexion_deg"] = np.nan
    write_strides(t, f)
    write_trial(folder, "s2_walk2", BASE, 3, rng)
    g = hs.groups.read_report(folder, side="right",
                              subjects={"s1_walk1": "s1", "s1_walk2": "s1", "s2_walk1": "s2", "s2_walk2": "s2"})
    assert g.rows["knee_flexion_deg"] == ["s1", "s2"]
    strides = {k: read_strides(strides_path(folder, k)).query("side == 'right'")["right_knee_flexion_deg"]
               .to_numpy().reshape(-1, 101) for k in ("s1_walk1", "s1_walk2", "s2_walk2")}
    np.testing.assert_allclose(g.curves["knee_flexion_deg"][0],
                               np.concatenate([strides["s1_walk1"], strides["s1_walk2"]]).mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(g.curves["knee_flexion_deg"][1], strides["s2_walk2"].mean(axis=0), rtol=1e-12)


def test_a_trial_without_kinetics_needs_variables(tmp_path, capsys):
    from _spm_groups import write_trial

    a = write_group(tmp_path / "a", 3, seed=1)
    write_trial(a, "no_plates", {k: v for k, v in BASE.items() if not k.endswith("_per_kg")}, 3,
                np.random.default_rng(1))
    b = write_group(tmp_path / "b", 3, seed=2)
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "o"), "-q"]) == 2
    assert "--variables" in capsys.readouterr().err
    assert main(["compare", str(a), str(b), "--out", str(tmp_path / "o"), "-q", "--variables", "*_deg"]) == 0


def test_one_tailed_png_figures(study, tmp_path):
    a, b = study
    out = tmp_path / "png"
    assert main(["compare", str(b), str(a), "--out", str(out), "--side", "right", "--one-tailed",
                 "--figures", "png", "--alpha", "0.01", "-q", "--variables", "knee_*"]) == 0
    png = (out / "knee_flexion_deg.png").read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    spm = pd.read_csv(out / "spm.csv").query("variable == 'knee_flexion_deg'")
    # contracture minus control, one tail at alpha 0.01: a positive cluster only
    assert spm.significant.any() and (spm[spm.significant == 1].t > 0).all()
    assert "knee_flexion_deg.png" in (out / "index.html").read_text()


@pytest.mark.slow
def test_trial_folders_are_reported_first(tmp_path):
    """Folders of trials (the sample walk as coordinates and as markers with its static trial)."""
    data = ROOT / "data"
    for group in ("a", "b"):
        d = tmp_path / "trials" / group
        d.mkdir(parents=True)
        for name in ("sample_walk.csv", "sample_walk_markers.trc", "sample_static.trc"):
            shutil.copy(data / name, d / name)
    out = tmp_path / "out"
    assert main(["compare", str(tmp_path / "trials" / "a"), str(tmp_path / "trials" / "b"), "--out", str(out),
                 "--side", "left", "--variables", "knee_flexion_deg", "-q", "-j", "1",
                 "--mass", "75", "--height", "1.75"]) == 0
    assert sorted(p.name for p in (out / "reports").iterdir()) == ["a", "b"]
    assert len(list((out / "reports" / "a").rglob("*_strides.parquet"))) == 2
    spm = pd.read_csv(out / "spm.csv")
    assert set(spm.variable) == {"knee_flexion_deg"}
    np.testing.assert_allclose(spm.t, 0.0, atol=1e-6)

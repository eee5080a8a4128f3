"""Batch report: inputs, manifest, good and bad trials, reruns, exit status."""

import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.report import ReportOptions, cache, discover, read_manifest, run_batch
from humanbody.report.batch import summary_columns

DATA = WALK
have_data = needs_shared


def _reads_grf() -> bool:
    """Whether humanbody.io reads the OpenSim GRF .mot (the force events need it)."""
    from humanbody.io import read_trial

    try:
        return read_trial(DATA / "subject01_walk1_grf.mot").attrs.get("kind") == "forces"
    except InputError:
        return False


def _touch(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


# ------------------------------------------------------------------ inputs (no computation)
def test_discover_folder_static_grf_and_outputs(tmp_path):
    d = tmp_path / "subj"
    walk = _touch(d / "walk1.trc", "x")
    _touch(d / "walk2.c3d", "x")
    static = _touch(d / "subj_Static.trc", "x")
    grf = _touch(d / "walk1_grf.mot", "x")
    for name in ("walk1_results.csv", "summary.csv", "notes.txt", "walk1_cycles.csv"):
        _touch(d / name, "x")
    tasks = discover([d])
    assert [Path(t.trial).name for t in tasks] == ["walk1.trc", "walk2.c3d"]
    t1, t2 = tasks
    assert t1.static == str(static) and t1.grf == str(grf) and t1.key == "walk1"
    assert t2.static == str(static) and t2.grf is None
    assert any("found by name" in n for n in t1.notes)
    # an explicit --static wins; --grf with several trials is an error
    assert discover([walk], static=str(d / "other.trc"))[0].static == str(d / "other.trc")
    with pytest.raises(InputError, match="several trials"):
        discover([d], grf=str(grf))
    with pytest.raises(InputError, match="no such file"):
        discover([tmp_path / "missing.trc"])


def test_a_standing_trial_is_a_static(tmp_path):
    """Qualisys and BTS name their calibration trial "standing": it is paired, and not reported as a trial."""
    d = tmp_path / "lab"
    _touch(d / "Walking_Hybrid_1_1.c3d", "x")
    standing = _touch(d / "Standing_Hybrid_1.c3d", "x")
    tasks = discover([d])
    assert [Path(t.trial).name for t in tasks] == ["Walking_Hybrid_1_1.c3d"]
    assert tasks[0].static == str(standing)


def test_a_static_sharing_no_marker_with_the_trial_is_not_paired(tmp_path):
    """A keypoint trial beside a marker static (data/ holds both): the static is left out with a note, so the
    keypoint trial calibrates itself instead of failing on the static's markers."""
    def trc(path, names):
        head = ("PathFileType\t4\t(X/Y/Z)\tx.trc\nDataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\n"
                "100\t100\t1\t2\tm\nFrame#\tTime\t" + "\t\t\t".join(names) + "\n")
        return _touch(path, head)

    d = tmp_path / "lab"
    static = trc(d / "sample_static.trc", ["R.ASIS", "L.ASIS"])
    markers = trc(d / "walk_markers.trc", ["R.ASIS", "L.ASIS"])
    keypoints = trc(d / "walk_keypoints.trc", ["RHip", "LHip"])
    by_name = {Path(t.trial).name: t for t in discover([d])}
    assert by_name[markers.name].static == str(static)
    assert by_name[keypoints.name].static is None
    (note,) = by_name[keypoints.name].notes
    assert note.startswith("no static trial paired: sample_static.trc shares at most 0 of the trial's 2 marker names")
    assert "--static" in note


def test_a_static_of_another_lab_is_not_paired(tmp_path):
    """A folder of several labs' C3D files: a walk is paired only with a static holding at least half its marker
    names (subject prefixes and case aside), else with none, said in one line."""
    from _io_samples import positions, write_c3d

    d = tmp_path / "labs"
    d.mkdir()
    pig = ["LASI", "RASI", "SACR", "LKNE", "RKNE", "LANK", "RANK"]
    write_c3d(d / "a_Static.c3d", positions(5, 8), ["ROFF"] + pig, rate=100.0)
    write_c3d(d / "b_Static.c3d", positions(5, 6), ["L_ASIS", "R_ASIS", "SACRUM", "L_KNEE", "R_KNEE", "RANK"],
              rate=100.0)
    write_c3d(d / "walk_a.c3d", positions(5, 7), [f"S1:{n}" for n in pig], rate=100.0)
    write_c3d(d / "walk_b.c3d", positions(5, 5), ["l_asis", "r_asis", "sacrum", "l_knee", "r_knee"], rate=100.0)
    write_c3d(d / "walk_c.c3d", positions(5, 4), ["RASI", "LASI", "C7", "T10"], rate=100.0)
    by_name = {Path(t.trial).name: t for t in discover([d])}
    assert by_name["walk_a.c3d"].static == str(d / "a_Static.c3d")
    assert by_name["walk_b.c3d"].static == str(d / "b_Static.c3d")  # the second candidate, the first another lab's
    assert by_name["walk_c.c3d"].static == str(d / "a_Static.c3d")  # 2 of 4: half the smaller file's names
    walk_d = d / "walk_d.c3d"
    write_c3d(walk_d, positions(5, 6), ["RASI", "C7", "T10", "CLAV", "STRN", "RBAK"], rate=100.0)
    (task,) = discover([walk_d])
    assert task.static is None
    (note,) = task.notes
    assert note == ("no static trial paired: a_Static.c3d, b_Static.c3d share at most 1 of the trial's 6 marker "
                    "names (another lab or subject); the trial calibrates itself, or give its standing trial with "
                    "--static")


def test_report_on_one_c3d_org_file_pairs_only_its_own_static():
    """C3D.org's folder holds one file named static (The MotionMonitor's): its walk is paired with it, another
    lab's walk given alone is not."""
    from _shared import SHARED_DATA

    org = SHARED_DATA / "real" / "c3d" / "c3d_org"
    walk, other = org / "sample_00_Innovative_Sports_Training_Gait_with_EMG.c3d", org / "sample_03_gait-raw.c3d"
    if not walk.is_file():
        pytest.skip("needs the shared C3D files")
    (task,) = discover([walk])
    assert task.static == str(org / "sample_00_Innovative_Sports_Training_Static_Pose.c3d")
    (task,) = discover([other])
    assert task.static is None and task.notes[0].startswith("no static trial paired: ")


def test_duplicate_stems_get_unique_keys(tmp_path):
    a = _touch(tmp_path / "s1" / "walk.trc", "x")
    b = _touch(tmp_path / "s2" / "walk.trc", "x")
    assert [t.key for t in discover([a, b])] == ["s1_walk", "s2_walk"]


def test_manifest_resolves_relative_paths(tmp_path):
    _touch(tmp_path / "data" / "a.trc", "x")
    _touch(tmp_path / "data" / "a_static.trc", "x")
    m = _touch(tmp_path / "m.csv", "trial,static,mass,height,treadmill_speed\n"
                                     "data/a.trc,data/a_static.trc,70,1.75,1.2\n"
                                     f"{tmp_path / 'data' / 'b.trc'},,,,\n")
    t1, t2 = read_manifest(m)
    assert t1.trial == str(tmp_path / "data" / "a.trc") and t1.static == str(tmp_path / "data" / "a_static.trc")
    assert (t1.mass, t1.height, t1.treadmill_speed) == (70.0, 1.75, 1.2)
    assert t2.trial == str(tmp_path / "data" / "b.trc") and t2.mass is None
    # b has no static of its own name, but the folder's static is found by name
    assert t2.static == str(tmp_path / "data" / "a_static.trc")


@pytest.mark.parametrize("text, match", [
    ("static,mass\nx,1\n", "no 'trial' column"),
    ("trial,weight\na.trc,1\n", "unknown column"),
    ("trial,mass\na.trc,heavy\n", "line 2: mass 'heavy' is not a number"),
    ("trial,height\na.trc,-1\n", "must be positive"),
    ("", "cannot read the manifest"),
])
def test_manifest_errors(tmp_path, text, match):
    with pytest.raises(InputError, match=match):
        read_manifest(_touch(tmp_path / "m.csv", text))


def test_cli_nothing_usable_is_status_2(tmp_path, capsys):
    assert main(["report", str(tmp_path / "nope.trc"), "--out", str(tmp_path / "out")]) == 2
    assert "no such file" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert main(["report", str(tmp_path / "empty"), "--out", str(tmp_path / "out")]) == 2
    assert main(["report", "--out", str(tmp_path / "out")]) == 2


def test_bad_trials_only_are_failed_rows(tmp_path):
    """Bad files never raise out of the batch; status 1 and one line each in summary.csv."""
    d = tmp_path / "in"
    _touch(d / "empty.trc", "")
    _touch(d / "garbage.trc", "this is not\x00 a motion file\n1,2,3\n")
    out = tmp_path / "out"
    assert main(["report", str(d), "--out", str(out), "--jobs", "1", "-q"]) == 1
    s = pd.read_csv(out / "summary.csv")
    assert list(s.columns[:len(summary_columns())]) == summary_columns()
    assert list(s["status"]) == ["failed", "failed"]
    for name, err in zip(s["key"], s["error"], strict=True):
        assert name in err and "\n" not in err
    assert (out / "index.html").read_text().count("failed") >= 2


# ------------------------------------------------------------------ real trial
@pytest.fixture(scope="module")
def batch_dir(tmp_path_factory, shared_data):
    d = tmp_path_factory.mktemp("trials")
    for name in ("subject01_walk1.trc", "subject01_static.trc", "subject01_walk1_grf.mot"):
        shutil.copy(DATA / name, d / name)
    _touch(d / "empty.trc", "")
    _touch(d / "garbage.trc", "PathFileType\t4\t(X/Y/Z)\tgarbage.trc\nnonsense\n")
    return d


@pytest.fixture(scope="module")
def report_run(batch_dir, tmp_path_factory):
    """One CLI run over the folder (a good trial with static and GRF, an empty and a garbage file)."""
    out = tmp_path_factory.mktemp("report")
    status = main(["report", str(batch_dir), "--out", str(out), "--mass", "72.6", "--height", "1.8",
                   "--jobs", "1", "-q"])
    return status, out


@have_data
def test_batch_good_and_bad(report_run):
    status, out = report_run
    assert status == 1
    s = pd.read_csv(out / "summary.csv").set_index("key")
    assert s.loc["subject01_walk1", "status"] == "ok"
    page = (out / "subject01_walk1" / "subject01_walk1.html").read_text()
    if _reads_grf():
        assert s.loc["subject01_walk1", "events_source"] == "force"
    else:  # the GRF reader is missing: the kinematic events still make the report, and it says why
        assert s.loc["subject01_walk1", "events_source"] == "kinematic"
        assert "force events skipped" in page
    assert s.loc["subject01_walk1", "stride_time_s"] == pytest.approx(1.22, abs=0.05)
    assert bool(s.loc["subject01_walk1", "treadmill"])
    for bad in ("empty", "garbage"):
        assert s.loc[bad, "status"] == "failed"
        assert f"{bad}.trc" in s.loc[bad, "error"]
    folder = out / "subject01_walk1"
    for suffix in ("_results.csv", "_cycles.csv", "_events.csv", "_spatiotemporal.csv", ".html"):
        assert (folder / f"subject01_walk1{suffix}").is_file(), suffix
    assert not list(folder.glob("*.png")) and not list(folder.glob("*.svg"))  # SVG figures live in the page
    ev = pd.read_csv(folder / "subject01_walk1_events.csv")
    assert list(ev.columns) == ["time", "frame", "side", "event", "source"]
    assert set(ev["source"]) == ({"kinematic", "force"} if _reads_grf() else {"kinematic"})
    cyc = pd.read_csv(folder / "subject01_walk1_cycles.csv")
    assert list(cyc.columns) == ["side", "variable", "unit", "percent", "mean", "sd", "n_strides"]
    assert cyc.groupby(["side", "variable"]).size().eq(101).all()
    assert {"right_lower_leg_beta", "body_com_z", "right_foot_force_z"} <= set(cyc["variable"])
    assert cyc[cyc["variable"] == "body_com_z"]["mean"].std() > 0.005  # the mass centre bobs
    # angles, Movement Analysis Profile, kinetics, mechanics, events: inlined SVG, no images
    assert page.count("<svg ") == 5 and "data:image" not in page and "<img" not in page
    assert page.count("normative mean ± 1 SD") == 2  # the angle and kinetics figures carry the bands
    assert "Gait Profile Score" in page
    assert s.loc["subject01_walk1", "normative"] == "Schwartz2008 Free"
    # Schwartz's norms are Plug-in Gait's, this walk's markers are not: one line names both (page and log)
    said = ("normative data Schwartz2008 were measured with Plug-in Gait's markers and model, this trial with "
            "marker set ")
    import html

    text = html.unescape(page)
    assert text.count(said + "gait2392") == 2 and "<p class=note>" + said in text  # under the GPS, in the messages
    assert 2 < s.loc["subject01_walk1", "gait_profile_score_deg"] < 20
    assert "kinetics: residual force at the pelvis" in page
    assert s.loc["subject01_walk1", "right_peak_ankle_plantarflexion_moment_Nm_per_kg"] == pytest.approx(1.5, abs=0.4)
    assert {"right_knee_flexion_moment_Nm_per_kg", "left_ankle_power_W_per_kg"} <= set(cyc["variable"])
    assert "subject01_walk1/subject01_walk1.html" in (out / "index.html").read_text()


@have_data
def test_rerun_skips_unchanged_and_force_recomputes(batch_dir, report_run):
    _, out = report_run
    tasks = discover([batch_dir])
    opts = ReportOptions(mass=72.6, height=1.8)  # what the CLI run used
    summary = (out / "summary.csv").read_bytes()
    results = out / "subject01_walk1" / "subject01_walk1_results.csv"
    mtime = results.stat().st_mtime_ns
    again = run_batch(tasks, out, opts, jobs=1, progress=False)
    assert again.skipped == ["subject01_walk1"]
    assert again.computed == ["empty", "garbage"]  # failed trials are always tried again
    assert again.exit_status == 1
    assert (out / "summary.csv").read_bytes() == summary
    assert results.stat().st_mtime_ns == mtime
    # another option or changed bytes change the hash
    good = [t for t in tasks if t.key == "subject01_walk1"]
    h = cache.trial_hash(good[0], opts.as_dict())
    assert cache.trial_hash(good[0], ReportOptions(mass=72.6, height=1.8, treadmill_speed=1.0).as_dict()) != h
    assert cache.trial_hash(replace(good[0], grf=None), opts.as_dict()) != h
    forced = run_batch(good, out, opts, jobs=1, progress=False, force=True)
    assert forced.computed == ["subject01_walk1"] and forced.exit_status == 0
    assert results.stat().st_mtime_ns != mtime


@have_data
def test_gait_profile_score_recomputed_from_the_cycles_table(report_run):
    """summary.csv's GPS equals an independent computation from the written cycles table and the built-in CSV."""
    import numpy as np

    _, out = report_run
    s = pd.read_csv(out / "summary.csv").set_index("key").loc["subject01_walk1"]
    cyc = pd.read_csv(out / "subject01_walk1" / "subject01_walk1_cycles.csv")
    norm_file = Path(__file__).resolve().parents[2] / "humanbody" / "data" / "normative" / "schwartz2008.csv"
    norm = pd.read_csv(norm_file)
    norm = norm[norm["condition"] == "Free"]
    names = ["pelvis_tilt_deg", "pelvis_obliquity_deg", "pelvis_rotation_deg", "hip_flexion_deg",
             "hip_adduction_deg", "hip_internal_rotation_deg", "knee_flexion_deg", "ankle_dorsiflexion_deg",
             "foot_progression_deg"]
    gvs = {}
    for side in ("right", "left"):
        for v in names:
            col = v if v.startswith("pelvis") else f"{side}_{v}"
            ours = cyc[(cyc["side"] == side) & (cyc["variable"] == col)].set_index("percent")["mean"]
            if side == "left" and v in ("pelvis_obliquity_deg", "pelvis_rotation_deg"):
                ours = -ours
            ref = norm[norm["variable"] == v].set_index("percent")["mean"]
            d = ours.loc[ref.index].to_numpy() - ref.to_numpy()  # the normative percents are whole numbers
            gvs[(side, v)] = float(np.sqrt(np.mean(d ** 2)))
            assert s[f"{side}_gvs_{v}"] == pytest.approx(gvs[(side, v)], rel=1e-8)
    for side in ("right", "left"):
        assert s[f"{side}_gait_profile_score_deg"] == pytest.approx(
            np.sqrt(np.mean([gvs[(side, v)] ** 2 for v in names])), rel=1e-8)
    assert s["gait_profile_score_deg"] == pytest.approx(np.sqrt(np.mean(np.square(list(gvs.values())))), rel=1e-8)


@have_data
def test_normative_moments_and_powers_have_our_signs(report_run):
    """The converted Plug-in Gait moments and powers follow the shared walk's own curves (same sign of the peaks)."""
    import numpy as np

    from humanbody.gait.normative import load_normative

    if not _reads_grf():
        pytest.skip("no force plates read")
    _, out = report_run
    cyc = pd.read_csv(out / "subject01_walk1" / "subject01_walk1_cycles.csv")
    free = load_normative(":Free").conditions["Free"]
    for v in ("hip_flexion_moment_Nm_per_kg", "knee_flexion_moment_Nm_per_kg", "ankle_dorsiflexion_moment_Nm_per_kg",
              "hip_adduction_moment_Nm_per_kg", "knee_adduction_moment_Nm_per_kg", "hip_power_W_per_kg",
              "ankle_power_W_per_kg"):
        ref = free[free["variable"] == v].set_index("percent")["mean"]
        for side in ("right", "left"):
            ours = cyc[(cyc["side"] == side) & (cyc["variable"] == f"{side}_{v}")].set_index("percent")["mean"]
            r = np.corrcoef(ours.loc[ref.index], ref)[0, 1]
            assert r > 0.7, (v, side, r)
            assert np.sign(ours.loc[ref.abs().idxmax()]) == np.sign(ref.loc[ref.abs().idxmax()]), (v, side)


@have_data
def test_png_figures_option(batch_dir, tmp_path):
    """--plots png: matplotlib PNG files with the bands, embedded in the page (the MAP too)."""
    from humanbody.report import TrialTask, process_trial

    task = TrialTask(trial=str(batch_dir / "subject01_walk1.trc"), key="w",
                     static=str(batch_dir / "subject01_static.trc"), grf=str(batch_dir / "subject01_walk1_grf.mot"))
    out = process_trial(task, ReportOptions(mass=72.6, height=1.8, plots="png", normative=":Slow"))
    assert out.ok, out.row
    names = {Path(p).name for p in out.files}
    expect = {"subject01_walk1_angles.png", "subject01_walk1_gps.png", "subject01_walk1_mechanics.png",
              "subject01_walk1_events.png"} | ({"subject01_walk1_kinetics.png"} if _reads_grf() else set())
    assert expect <= names
    page = out.files["w/subject01_walk1.html"].decode()
    assert page.count("data:image/png;base64,") == len(expect) and "<svg" not in page
    assert out.row["normative"] == "Schwartz2008 Slow" and "condition Slow (given)" in page
    none = process_trial(task, ReportOptions(mass=72.6, height=1.8, plots="none", normative="none"))
    assert "gait_profile_score_deg" not in none.row and "Gait Profile Score" not in \
        none.files["w/subject01_walk1.html"].decode()


def test_a_side_without_any_kinetic_stride_is_explained():
    """Kinetics computed, but every stride of a side had an unknown load somewhere in stance (both feet on
    one plate): one line says why that side's kinetic curves and peaks are empty; a side with one is quiet."""
    from humanbody.gait.cycles import curve_index
    from humanbody.report.trial import _kinetic_stride_notes

    def rows(side, variable, n):
        return pd.DataFrame({"side": side, "variable": variable, "unit": "", "percent": np.arange(3.0),
                             "mean": np.nan if n == 0 else 1.0, "sd": np.nan, "n_strides": n})

    cycles = pd.concat([rows("right", "right_knee_flexion_moment_Nm_per_kg", 0),
                        rows("right", "right_knee_flexion_deg", 3),
                        rows("left", "left_knee_flexion_moment_Nm_per_kg", 2)], ignore_index=True)
    params = pd.DataFrame({"n_strides": [3.0, 3.0, 6.0]}, index=["right", "left", "overall"])
    notes = _kinetic_stride_notes(cycles, params, curve_index(cycles))
    assert len(notes) == 1 and "right side's 3 stride(s)" in notes[0] and "both feet on one plate" in notes[0]
    left = cycles[cycles["side"] == "left"]
    assert _kinetic_stride_notes(left, params, curve_index(left)) == []

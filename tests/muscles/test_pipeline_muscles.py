"""Muscles in the pipeline: ``analyze --model MODEL.osim --forces --muscles`` and ``report --model MODEL.osim --muscles``
on the shared walk, the gait summaries of :mod:`humanbody.muscles.gait`, and the refusals."""

from __future__ import annotations

import csv
import re
import shutil

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main
from humanbody.muscles.gait import G, contact_peaks, members, on_spans
from tests._shared import require_shared

WALK = "gait2392_walk"
MODEL = "opensim_models/gait2392/subject01_simbody.osim"
SETUP = "opensim_models/gait2392/subject01_Setup_IK.xml"


def test_on_spans_are_the_runs_above_the_threshold():
    pct = np.linspace(0.0, 100.0, 101)
    mean = np.where((pct >= 10) & (pct <= 30), 0.5, 0.02) + np.where((pct >= 60) & (pct <= 62), 0.2, 0.0)
    assert on_spans(pct, mean) == [(10.0, 30.0), (60.0, 62.0)]  # 0.2 > max(0.05, 0.2 * 0.5)
    assert on_spans(pct, np.full(101, 0.03)) == []  # below the floor everywhere
    assert on_spans(pct, np.full(101, np.nan)) == []


def test_contact_peaks_keep_to_each_sides_strides():
    t = np.linspace(0.0, 2.0, 201)
    table = pd.DataFrame({"time": t, "right_hip_contact_force_bw": 1.0 + t, "left_hip_contact_force_bw": 3.0 - t})
    peaks = contact_peaks(table, {"right": [0.5, 1.5], "left": [0.2, 1.0, 1.8]})
    assert peaks["right_peak_hip_contact_force_bw"] == pytest.approx(2.5)
    assert peaks["left_peak_hip_contact_force_bw"] == pytest.approx(2.8)
    assert np.isnan(peaks["right_peak_knee_contact_force_bw"])  # no knee column
    assert contact_peaks(table)["right_peak_hip_contact_force_bw"] == pytest.approx(3.0)  # every frame
    assert np.isnan(contact_peaks(table, {"right": [1.0]})["right_peak_hip_contact_force_bw"])  # no stride


def test_groups_take_both_models_names():
    muscles = ("glut_max1_r", "glut_max2_r", "glmax1_l", "vas_int_r", "vasmed_l", "soleus_r", "tib_post_r")
    assert members(muscles, ("glut_max", "glmax"), "r") == [0, 1]
    assert members(muscles, ("glut_max", "glmax"), "l") == [2]
    assert members(muscles, ("vas_int", "vasmed"), "l") == [4]
    assert members(muscles, ("tib_ant", "tibant"), "r") == []


@pytest.fixture(scope="module")
def analyzed(tmp_path_factory):
    shared = require_shared()
    out = tmp_path_factory.mktemp("analyze")
    walk = shared / WALK
    status = main(["analyze", str(walk / "subject01_walk1.trc"), "--model", str(shared / MODEL),
                   "--forces", str(walk / "subject01_walk1_grf.xml"), "--muscles", "--out", str(out), "-q"])
    assert status == 0
    return shared, out


@pytest.mark.slow
def test_analyze_muscles_writes_the_three_tables_beside_ik_and_id(analyzed):
    _, out = analyzed
    stem = out / "subject01_walk1"
    for suffix in ("_ik.mot", "_id.sto", "_activations.csv", "_muscle_forces.csv", "_joint_reactions.csv"):
        assert (out / f"subject01_walk1{suffix}").is_file(), suffix
    act = pd.read_csv(f"{stem}_activations.csv")
    forces = pd.read_csv(f"{stem}_muscle_forces.csv")
    assert list(act.columns) == list(forces.columns) and act.columns[0] == "time"
    assert act.columns[1] == "glut_med1_r" and act.columns[-1] == "lumbar_rotation_reserve"  # weak reserves
    muscles = [c for c in act.columns[1:] if not c.endswith("_reserve")]
    assert len(muscles) == 92 and len(act) == 151
    a = act[muscles].to_numpy()
    assert a.min() >= 0.01 - 1e-9 and a.max() <= 1.0 + 1e-9  # gait2392's bounds
    jr = pd.read_csv(f"{stem}_joint_reactions.csv")
    assert "hip_r_on_femur_r_in_femur_r_fx" in jr.columns and "knee_l_on_tibia_l_in_tibia_l_fz" in jr.columns


@pytest.mark.slow
def test_analyze_muscles_equals_the_muscles_command_on_its_own_coordinates(analyzed, tmp_path):
    """The same optimum by the two routes: in memory after IK, and ``humanbody muscles`` on the written IK
    (its degrees printed to 8 significant digits: 1e-7 rad), the same 6 Hz filter and weak reserves."""
    from humanbody.muscles import write_reserves
    from humanbody.osim import read_osim

    shared, out = analyzed
    reserves = tmp_path / "reserves.xml"
    write_reserves(reserves, read_osim(shared / MODEL).coordinate_names)
    status = main(["muscles", str(out / "subject01_walk1_ik.mot"), "--model", str(shared / MODEL),
                   "--forces", str(shared / WALK / "subject01_walk1_grf.xml"), "--reserves", str(reserves),
                   "--cutoff", "6", "--joint-reactions", "hip_r", "--out", str(tmp_path), "-q"])
    assert status == 0
    ours = pd.read_csv(out / "subject01_walk1_activations.csv")
    cli = pd.read_csv(tmp_path / "subject01_walk1_activations.csv")
    muscles = [c for c in ours.columns[1:] if not c.endswith("_reserve")]
    assert np.abs(ours[muscles].to_numpy() - cli[muscles].to_numpy()).max() < 1e-3


@pytest.mark.parametrize("argv, says", [
    (["--muscles"], "--forces"),
    (["--muscles", "--forces", "F.xml", "--model", "model.json"], "MODEL.osim"),
])
def test_analyze_muscles_refusals_are_one_line(tmp_path, capsys, argv, says):
    shared = require_shared()
    args = ["analyze", str(shared / WALK / "subject01_walk1.trc"), "--out", str(tmp_path)]
    if "--model" not in argv:
        args += ["--model", str(shared / MODEL)]
    status = main(args + argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and says in err[0]


@pytest.mark.parametrize("argv, says", [
    (["--model", MODEL], "--muscles"),
    (["--muscles"], "MODEL.osim"),
    (["--muscles", "--model", "opensim_models/gait2392/none.osim"], "no such file"),
    (["--ik-setup", SETUP], "--ik-setup needs --muscles"),
    (["--muscles", "--model", MODEL, "--ik-setup", MODEL], "no IKTaskSet"),
])
def test_report_muscles_refusals_are_one_line(tmp_path, capsys, argv, says):
    shared = require_shared()
    argv = [str(shared / a) if a.endswith((".osim", ".xml")) else a for a in argv]
    status = main(["report", str(shared / WALK / "subject01_walk1.trc"), "--out", str(tmp_path)] + argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and says in err[0]


@pytest.mark.slow
def test_report_muscles_adds_the_figure_files_and_peak_columns(tmp_path):
    """One walk through the report: its muscle files, the figure on its page, and the summary's peak hip and
    knee contact forces equal to the written reactions' largest magnitude within the side's strides over
    the model's weight."""
    from humanbody.osim import read_osim

    shared = require_shared()
    study = tmp_path / "study"
    study.mkdir()
    for name in ("subject01_walk1.trc", "subject01_walk1_grf.mot", "subject01_walk1_grf.xml", "subject01_static.trc"):
        shutil.copy(shared / WALK / name, study / name)
    out = tmp_path / "report"
    status = main(["report", str(study), "--model", str(shared / MODEL), "--muscles", "--ik-setup",
                   str(shared / SETUP), "--out", str(out), "-q", "--jobs", "1"])
    assert status == 0
    trial = out / "subject01_walk1"
    for suffix in ("_activations.csv", "_muscle_forces.csv", "_joint_reactions.csv"):
        assert (trial / f"subject01_walk1{suffix}").is_file()
    page = (trial / "subject01_walk1.html").read_text()
    assert "muscle activations (static optimization) and joint contact force" in page
    assert "gluteus maximus" in page and "knee contact force" in page and 'height="3"' in page  # on/off bars
    row = next(csv.DictReader(open(out / "summary.csv")))
    weight = sum(b.mass for b in read_osim(shared / MODEL).bodies) * G
    jr = pd.read_csv(trial / "subject01_walk1_joint_reactions.csv")
    events = pd.read_csv(trial / "subject01_walk1_events.csv")
    for side, s in (("right", "r"), ("left", "l")):
        strikes = events[(events["side"] == side) & (events["event"] == "foot_strike")]["time"].to_numpy()
        inside = (jr["time"] >= strikes.min()) & (jr["time"] <= strikes.max())
        for key, joint, child in (("hip", f"hip_{s}", f"femur_{s}"), ("knee", f"knee_{s}", f"tibia_{s}")):
            f = jr[[f"{joint}_on_{child}_in_{child}_f{a}" for a in "xyz"]].to_numpy()[inside.to_numpy()]
            want = np.linalg.norm(f, axis=1).max() / weight
            got = float(row[f"{side}_peak_{key}_contact_force_bw"])
            assert got == pytest.approx(want, rel=1e-6), (side, key)
            assert 1.5 < got < 10.0
    assert re.search(r"muscles: subject01_simbody.osim, inverse kinematics \(weights of subject01_Setup_IK.xml\) "
                     r"RMS marker error", page)


def test_a_trial_the_muscles_cannot_carry_is_marked_in_the_log(tmp_path, capsys):
    """No reserves: nothing carries the pelvis' six generalised forces, which no muscle spans; the frames
    are written (the closest the bounds allow) and said to be unmet, in one line."""
    shared = require_shared()
    walk = shared / WALK
    status = main(["muscles", str(walk / "reference" / "opensim_ik.mot"), "--model", str(shared / MODEL),
                   "--forces", str(walk / "subject01_walk1_grf.xml"), "--start", "0.6", "--end", "0.8",
                   "--joint-reactions", "none", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 0
    unmet = [line for line in err.splitlines() if "cannot reproduce the generalised forces" in line]
    assert len(unmet) == 1 and "frames (0.600-0.800 s)" in unmet[0]
    assert (tmp_path / "opensim_activations.csv").is_file()


def test_report_cache_sees_the_model_and_reserves_contents(tmp_path):
    """A resumed report recomputes a trial when its OpenSim model, its reserves, its IK setup or its loads' XML
    change."""
    from humanbody.report import cache
    from humanbody.report.inputs import TrialTask
    from humanbody.report.trial import ReportOptions

    files = {name: tmp_path / name for name in ("walk.trc", "walk_grf.mot", "walk_grf.xml", "m.osim", "r.xml",
                                                "ik.xml")}
    for path in files.values():
        path.write_text("a")
    task = TrialTask(trial=str(files["walk.trc"]), grf=str(files["walk_grf.mot"]))
    opts = ReportOptions(muscles=str(files["m.osim"]), reserves=str(files["r.xml"]),
                         ik_setup=str(files["ik.xml"])).as_dict()
    before = cache.trial_hash(task, opts)
    for name in ("m.osim", "r.xml", "ik.xml", "walk_grf.xml"):
        files[name].write_text(files[name].read_text() + "b")
        after = cache.trial_hash(task, opts)
        assert after != before, name
        before = after


def test_report_says_which_weights_its_inverse_kinematics_used():
    """``report --model --muscles`` without ``--ik-setup``: its muscles line says every marker weighs 1 and
    names the option (the line itself: see the test above, with a setup)."""
    from humanbody.report.muscles import _weights

    assert _weights(None) == "every marker weight 1: --ik-setup for OpenSim's"
    assert _weights("/data/subject01_Setup_IK.xml") == "weights of subject01_Setup_IK.xml"

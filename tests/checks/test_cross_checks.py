"""Inputs cross-checked and outputs judged (issue 47): each check on a real pair that must pass and a wrong one
that must be refused or flagged.

* a stated mass weighed on the plates (humanbody.checks.mass.stated_mass): the shared walk with 72.6 kg passes,
  with 500 kg and 60 kg is refused;
* a force file's timing against the feet (humanbody.checks.force_timing): the shared walk's own plates pass, the
  same file shifted by half a stride (0.6 s, its rows rolled) is refused;
* the outputs (humanbody.checks.outputs): the shared walk gives no finding; its kinetics per kg of a wrong mass
  (30 kg, the mass check skipped) are flagged in the log, model.json and the report's status;
* video keypoint statics (humanbody.checks.static_fit): the sample keypoint walk's own static with 4 cm jitter
  and shoulders 10 cm wider passes, a static of a subject 20 cm shorter is refused;
* an orientation trial's held pelvis is not a treadmill (humanbody.gait.spatiotemporal): the sample IMU walk
  through `report` is not one.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.checks.mass import MAX_MASS_DIFFERENCE, stated_mass
from humanbody.checks.outputs import (
    EVENT_LAG_S,
    MAX_ANGLE_RATE,
    MOMENT_LIMITS,
    OutputWatch,
    angle_findings,
    carried_findings,
    event_findings,
    stance_findings,
)
from humanbody.commands.analyze import CHECK_NOTES, screen_lines
from humanbody.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared" / "data" / "gait2392_walk"
needs_shared = pytest.mark.skipif(not (SHARED / "subject01_walk1.trc").exists(), reason="shared data absent")
WALK = [SHARED / "subject01_walk1.trc", "--static", SHARED / "subject01_static.trc"]
G = 9.81


def _cli(*args, cwd=ROOT):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "humanbody", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=900)


def _refusal(proc, *words) -> str:
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "compiling the numerical kernels" not in ln]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def shifted_grf(path: Path, seconds: float = 0.6) -> Path:
    """The shared walk's force file with its data rows rolled by ``seconds`` (its time column kept): the forces
    half a stride late, on the trial's clock."""
    lines = (SHARED / "subject01_walk1_grf.mot").read_text().splitlines()
    end = next(i for i, ln in enumerate(lines) if ln.strip().lower() == "endheader")
    rows = [ln.split("\t") for ln in lines[end + 2:] if ln.strip()]
    t = np.array([float(r[0]) for r in rows])
    n = int(round(seconds / float(np.median(np.diff(t)))))
    data = [r[1:] for r in rows]
    data = data[-n:] + data[:-n]
    path.write_text("\n".join(lines[:end + 2] + ["\t".join([r[0], *d]) for r, d in zip(rows, data, strict=True)])
                    + "\n")
    return path


# ------------------------------------------------------------------ a stated mass on the plates
def _one_plate(m=70.0, frames=100, rate=100.0):
    """The right foot on a plate, the left swinging: the whole weight on it, F = m (g + a_z)."""
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    right, left = model.names.index("right_foot"), model.names.index("left_foot")
    t = np.arange(frames) / rate
    az = 1.5 * np.sin(2 * np.pi * 1.7 * t)
    force = np.zeros((frames, 1, 3))
    force[:, 0, 2] = m * (G + az)
    com_vel = np.zeros((frames, len(model.names), 3))
    com_vel[:, left, 0] = 2.5
    loads = SimpleNamespace(force=force, body=np.full((frames, 1), right), shared=None)
    results = SimpleNamespace(com_vel=com_vel, body_com_acc=np.column_stack([0 * t, 0 * t, az]))
    return loads, results, model, t


def test_a_stated_mass_is_weighed_on_the_plates():
    loads, results, model, t = _one_plate()
    line = stated_mass(75.0, "--mass", loads, results, model, t, "walk.mot")
    assert line == ("check mass: 75 kg (--mass) against 70.0 kg weighed by walk.mot over 100 frames (1.0 s) with "
                    "the whole weight on them (+7.1 %, at most 15 %)")
    for wrong in (70.0 * (1 + MAX_MASS_DIFFERENCE) + 0.5, 500.0, 50.0):
        with pytest.raises(InputError) as err:
            stated_mass(wrong, "--mass", loads, results, model, t, "walk.mot")
        text = str(err.value.on_command_line())
        assert f"{wrong:g} kg (--mass) against 70.0 kg" in text and "--skip-check mass" in text and "--mass KG" in text
    assert stated_mass(500.0, "--mass", loads, results, model, t, "walk.mot", skip=True).endswith(
        "(--skip-check mass)")
    # too few whole-weight frames: said, not judged
    short = _one_plate(frames=30)
    assert "not weighed on the plates of walk.mot: 0.30 s" in stated_mass(500.0, "--mass", *short, "walk.mot")


@needs_shared
def test_shared_walk_mass_500_refused_its_own_mass_passes(tmp_path):
    grf = SHARED / "subject01_walk1_grf.mot"
    proc = _cli("analyze", *WALK, "--forces", grf, "--mass", 500, "--out", tmp_path)
    _refusal(proc, "subject01_walk1_grf.mot: the stated mass does not match the plates",
             "500 kg (--mass) against 72.7 kg weighed by subject01_walk1_grf.mot", "--skip-check mass")
    assert not list(tmp_path.glob("*_results.csv"))
    proc = _cli("analyze", *WALK, "--forces", grf, "--mass", 60, "--out", tmp_path)
    _refusal(proc, "60 kg (--mass) against 72.7 kg", "(-17.5 %, at most 15 %)")


# ------------------------------------------------------------------ the force file's timing
@needs_shared
def test_force_file_half_a_stride_late_is_refused_its_own_passes(tmp_path):
    good = hb.analyze_trial(SHARED / "subject01_walk1.trc", static=SHARED / "subject01_static.trc",
                            forces=SHARED / "subject01_walk1_grf.mot", mass=72.6)
    line = next(m for m in good.messages if m.startswith("check force-clock"))
    assert "centre of pressure 4.1 cm from the nearest sole (median of 198 loaded frames, at most 10 cm)" in line
    assert "force onsets 0.02 s from the feet's kinematic strikes (median of 4, at most 0.15 s)" in line
    late = shifted_grf(tmp_path / "late.mot")
    proc = _cli("analyze", *WALK, "--forces", late, "--mass", 72.6, "--out", tmp_path)
    text = _refusal(proc, "late.mot: not this trial's forces in time", "--skip-check force-clock")
    # the check of the time range and of a foot within 20 cm passes the shifted file: the new figures refuse it
    assert "the centres of pressure lie 17 cm from the nearest sole" in text
    assert not list(tmp_path.glob("*_results.csv"))


# ------------------------------------------------------------------ the outputs
def test_output_watch_flags_a_moment_no_body_makes():
    columns = ["time", "right_ankle_dorsiflexion_moment_Nm_per_kg", "right_hip_power_W_per_kg", "other"]
    watch = OutputWatch(columns)
    t = np.arange(10) / 100.0
    block = np.zeros((10, 4))
    block[:, 1] = np.linspace(0, 1.6, 10)  # a walking plantarflexor peak
    block[:, 3] = 1e6  # not judged
    watch.see(block[:5], 0)
    watch.see(block[5:], 5)
    assert watch.findings(t) == []
    block[7, 1] = -(MOMENT_LIMITS["ankle"] + 1.3)
    block[2, 2] = np.nan
    watch.see(block[5:], 5)
    assert watch.findings(t) == ["check outputs: right_ankle_dorsiflexion_moment_Nm_per_kg reaches 3.80 N·m/kg at "
                                 "0.070 s (a body in gait: at most 2.5 N·m/kg)"]


def test_angle_jumps_ranges_and_carried_segments():
    t = np.arange(100) / 200.0
    knee = 30 + 30 * np.sin(2 * np.pi * t)  # 190 deg/s at most: a walking knee
    angles = pd.DataFrame({"right_knee_flexion_deg": knee, "pelvis_rotation_deg": 179.0 + 0 * t})
    angles.loc[51:, "pelvis_rotation_deg"] = -179.0  # wraps at +-180: not a jump
    assert angle_findings(angles, t) == []
    angles.loc[80, "right_knee_flexion_deg"] += 67.0  # a 67-degree jump in one frame, and back
    found = angle_findings(angles, t)
    assert len(found) == 1 and found[0].startswith("check outputs: right_knee_flexion_deg jumps 67.8 deg between "
                                                   "0.400 and 0.405 s")
    assert f"at most {MAX_ANGLE_RATE:g} deg/s" in found[0]
    angles["right_knee_flexion_deg"] = knee + 100  # 160 deg of flexion
    assert "right_knee_flexion_deg reaches 160.0 deg" in angle_findings(angles, t)[0]
    status = pd.DataFrame({"time": t, "right_foot": "fit", "left_foot": "fit"})
    status.loc[10:13, "right_foot"] = "fallback"  # 4 frames: a gap bridged
    assert carried_findings(status, t) == []
    status.loc[50:79, "left_foot"] = "fallback"  # 30 frames, 0.15 s
    assert carried_findings(status, t) == ["check outputs: left_foot carried from its parent for 30 frames (0.15 s "
                                           "from 0.250 s; at most 0.1 s): its motion there is its parent's"]
    params = pd.DataFrame({"stance_pct": [61.0, 82.0, 71.0]}, index=["right", "left", "overall"])
    assert stance_findings(params) == ["check outputs: left stance 82 % of the stride (a body walking or running: 20-75 %)"]


def _events(strike_lag: float, off_lag: float, stray: float | None = None):
    """Kinematic events of a steady walk (1.1 s strides, 62 % stance, left half a stride later) and the file's:
    the right strikes ``strike_lag`` s and offs ``off_lag`` s from the markers', a ``stray`` file strike (s) with
    no kinematic twin; the left's the markers' + 0.03 s."""
    rows = []
    for k in range(4):
        for side, t0 in (("right", 0.1), ("left", 0.65)):
            fs, fo = t0 + 1.1 * k, t0 + 1.1 * k + 0.682
            lag = (strike_lag, off_lag) if side == "right" else (0.03, 0.03)
            rows += [(fs, side, "foot_strike", "kinematic"), (fo, side, "foot_off", "kinematic"),
                     (fs + lag[0], side, "foot_strike", "file"), (fo + lag[1], side, "foot_off", "file")]
    if stray is not None:
        rows.append((stray, "right", "foot_strike", "file"))
    events = pd.DataFrame(rows, columns=["time", "side", "event", "source"]).sort_values("time", kind="stable")
    return events.reset_index(drop=True), events[events["source"] == "file"].reset_index(drop=True)


def test_file_events_off_the_feet_are_flagged_once():
    """A side cut at the file's events whose strikes (or offs) lie, in the median, more than EVENT_LAG_S from the
    markers' is said in one line naming the side, the lags and --events kinematic; agreeing events (0.03 s, as the
    shared Vicon files'), a stray file event with no kinematic twin, or strides cut at the markers' are not."""
    events, used = _events(0.09, -0.05, stray=4.9)
    said = event_findings(events, used)
    assert said == [f"check outputs: the file's gait events are not where the feet are (more than {EVENT_LAG_S:g} s "
                    "from the markers'): right foot strikes 0.09 s after the markers' (median of 4), foot offs 0.05 s "
                    "before the markers' (median of 4); the strides are cut at the file's events, --events kinematic "
                    "cuts them at the markers'"]
    assert event_findings(*_events(0.0, -0.09))[0].count("foot offs 0.09 s before") == 1  # offs alone suffice
    assert event_findings(*_events(0.03, -0.05, stray=2.5)) == []  # agreeing; the stray 0.7 s from any strike
    assert event_findings(events, events[events["source"] == "kinematic"]) == []  # --events kinematic: silent
    assert event_findings(events, used[used["side"] == "left"]) == []  # the right cut elsewhere


def test_a_stance_off_a_walk_s_at_the_file_events_is_said_naming_the_markers_events():
    """Lags under EVENT_LAG_S, but the file's events make the right stance 53.8 % where the markers' make 62 %:
    said (the stance both ways, --events kinematic); a stance out of range both ways (a pathological gait) is not;
    analyze's line says what report does."""
    events, used = _events(0.06, -0.03)
    stances = {"right": (53.8, 62.0), "left": (62.0, 62.0)}
    (said,) = event_findings(events, used, stances)
    assert said == ("check outputs: the file's gait events are not where the feet are: right foot strikes 0.06 s "
                    "after the markers' (median of 4), foot offs 0.03 s before the markers' (median of 4), stance "
                    "53.8 % (62.0 % at the markers' events; a walk: 55-68 %); the strides are cut at the file's "
                    "events, --events kinematic cuts them at the markers'")
    assert event_findings(events, used, {"right": (53.8, 52.9)}) == []
    assert event_findings(events, used, {"right": (60.0, 62.0)}) == []
    (said,) = event_findings(events, used, stances, command="analyze")
    assert said.endswith("`humanbody report` cuts the strides at the file's events, with --events kinematic at the "
                         "markers'")


@needs_shared
def test_shared_walk_outputs_pass_and_a_wrong_mass_is_flagged(tmp_path):
    grf = SHARED / "subject01_walk1_grf.mot"
    proc = _cli("analyze", *WALK, "--forces", grf, "--mass", 72.6, "--out", tmp_path / "good")
    assert proc.returncode == 0 and "check outputs" not in proc.stdout + proc.stderr, proc.stderr
    assert "warnings" not in json.loads((tmp_path / "good" / "subject01_walk1_model.json").read_text())
    # 30 kg said, the mass check skipped: every moment per kg 2.4 times too large
    proc = _cli("analyze", *WALK, "--forces", grf, "--mass", 30, "--skip-check", "mass", "--out", tmp_path / "bad")
    assert proc.returncode == 0, proc.stderr
    said = [ln for ln in (proc.stdout + proc.stderr).splitlines() if ln.startswith("check outputs:")]
    model = json.loads((tmp_path / "bad" / "subject01_walk1_model.json").read_text())
    warned = model["warnings"]
    assert any(w.startswith("check outputs: right_ankle_dorsiflexion_moment_Nm_per_kg reaches 4.") for w in warned)
    assert said == screen_lines(warned, CHECK_NOTES)  # the screen: one line per kind of note
    assert any("right_ankle_dorsiflexion_moment_Nm_per_kg" in ln for ln in said)
    log = (tmp_path / "bad" / "subject01_walk1_log.txt").read_text()
    assert all(w in log for w in warned)  # the log: every note


@needs_shared
def test_report_marks_a_flagged_trial_ok_with_warnings(tmp_path):
    grf = SHARED / "subject01_walk1_grf.mot"
    proc = _cli("report", *WALK, "--forces", grf, "--mass", 30, "--skip-check", "mass", "--out", tmp_path)
    assert proc.returncode == 0, proc.stderr
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert summary["status"].tolist() == ["ok with warnings"]
    page = next(tmp_path.rglob("subject01_walk1.html")).read_text()
    assert "ok with warnings</span>" in page and "right_ankle_dorsiflexion_moment_Nm_per_kg reaches 4." in page
    assert "1 of 1 trials ok" in (tmp_path / "index.html").read_text()
    assert "failed" not in proc.stderr  # flagged, not failed: no "humanbody report: failed: " with no error
    # whose norms: the built-in children's set, named with the speed condition and the source
    assert "population: typically developing children (Schwartz, Rozumalski and Trost 2008" in page
    assert "the subject (1.77 m) is of adult size" in page and "speed: condition Free from the walking speed" in page


def test_population_note_names_whose_norms():
    from humanbody.gait.normative import BUILTIN_POPULATION, load_normative, population_note

    builtin = load_normative(None)
    assert builtin.population == BUILTIN_POPULATION
    assert population_note(builtin, 1.2) == f"normative population: {BUILTIN_POPULATION}"
    assert "of adult size" in population_note(builtin, 1.77)


# ------------------------------------------------------------------ video keypoint statics
def _keypoints_module():
    spec = importlib.util.spec_from_file_location("make_sample_keypoints", DATA / "make_sample_keypoints.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def keypoint_static(path: Path, height=1.75, jitter=0.04, shoulders=0.05, frames=60, seed=3) -> Path:
    """A standing keypoint static of the sample keypoint subject's model at ``height`` (m): each keypoint
    jittered by ``jitter`` (m, per coordinate and frame), each shoulder ``shoulders`` (m) further out."""
    from humanbody.model.body import coordinate_columns

    mk = _keypoints_module()
    model = hb.BodyModel.default(mass=75.0, height=height)
    cols = coordinate_columns(model)
    coords = pd.DataFrame(np.zeros((frames, len(cols) + 1)), columns=["time", *cols])
    coords["time"] = np.arange(frames) / 60.0
    coords["lower_torso_z"] = float(model.meta["reference_pose"]["lower_torso_height"])
    t, kp = mk.keypoints_of(model, coords)
    rng = np.random.default_rng(seed)
    kp = {k: v + rng.normal(0.0, jitter, v.shape) for k, v in kp.items()}
    for name, y in (("RShoulder", -1.0), ("LShoulder", 1.0)):
        kp[name] = kp[name] + np.array([0.0, y * shoulders, 0.0])
    mk._markers_module().write_trc(path, t, kp, 60.0)
    return path


def test_keypoint_static_of_the_subject_passes_another_subjects_is_refused(tmp_path):
    walk = DATA / "sample_walk_keypoints.trc"
    own = keypoint_static(tmp_path / "own.trc")
    analysis = hb.analyze_trial(walk, static=own, mass=75)
    line = next(m for m in analysis.messages if "check static" in m)
    assert "own.trc fits the trial's subject (median marker residual at most 40 mm; segment keypoint distances " \
           "scaled within 0.8 % of the trial's, at most 10 %)" in line
    # the marker sets' rule (median |difference| at most 8 %) would refuse it: jitter moves single distances
    from humanbody.checks.static_fit import segment_dimensions

    assert segment_dimensions(analysis.calibration, analysis.markers)["difference_pct"].abs().median() > 8.0
    other = keypoint_static(tmp_path / "short.trc", height=1.55, jitter=0.02, shoulders=0.0)
    with pytest.raises(InputError, match="short.trc.*does not fit this trial's subject"):
        hb.analyze_trial(walk, static=other, mass=75)


# ------------------------------------------------------------------ treadmill
def test_a_held_pelvis_is_not_a_treadmill():
    from humanbody.gait import kinematic_events, spatiotemporal
    from humanbody.gait.synthetic import walking_markers

    m = walking_markers(treadmill=True)  # the pelvis in place: a treadmill, or an IMU trial without positions
    ev = kinematic_events(m)
    assert spatiotemporal(ev, m).attrs["treadmill"]
    held = spatiotemporal(ev, m, held_pelvis=True)
    assert not held.attrs["treadmill"] and np.isnan(held.attrs["belt_speed_m_per_s"])
    assert "not a treadmill walk" in held.attrs["note"]
    assert held.loc["overall", "speed_m_per_s"] == pytest.approx(1.3 / 1.1, rel=0.02)  # from the stance feet


def test_the_sample_imu_walk_is_not_a_treadmill_walk(tmp_path):
    """The sample IMU walk (orientations only, its pelvis held in place) through `report`: not a treadmill walk
    (no belt speed), its speed and stride length from the stance feet, within 6 % of the walk it was made from
    (1.30 m/s, 1.43 m: its body's segment lengths come from the default height, not the walking subject's)."""
    out = tmp_path / "report"
    run = subprocess.run([sys.executable, "-m", "humanbody", "report", str(DATA / "sample_walk_imu.sto"), "--static",
                          str(DATA / "sample_static_imu.sto"), "--out", str(out), "-q"], capture_output=True,
                         text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "", "MPLBACKEND": "Agg"},
                         timeout=900)
    assert run.returncode == 0, run.stderr
    row = pd.read_csv(out / "summary.csv").iloc[0]
    assert not bool(row["treadmill"]) and np.isnan(row["belt_speed_m_per_s"])
    assert row["speed_m_per_s"] == pytest.approx(1.30, rel=0.06)
    assert row["stride_length_m"] == pytest.approx(1.43, rel=0.06)
    assert "not a treadmill walk" in (out / "sample_walk_imu" / "sample_walk_imu.html").read_text(encoding="utf-8")

"""The plausibility checks (humanbody/checks/): each symptom of a silent wrong number reproduced and refused
in one line (exit 2) naming the option that overrides it, and the shared walk and the samples still pass."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.checks import CHECKS, check_names
from humanbody.checks.imu_still import check_still_window
from humanbody.checks.mass import BMI_RANGE, check_bmi, plates_mass
from humanbody.errors import InputError
from humanbody.mechanics.body_mass import mass_from_loads, scaled_model

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared" / "data" / "gait2392_walk"
G = 9.81


def _cli(*args, cwd=ROOT):
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    return subprocess.run([sys.executable, "-m", "humanbody", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=900)


def _one_line_refusal(proc, *words):
    assert proc.returncode == 2, proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "compiling the numerical kernels" not in ln]
    assert len(lines) == 1, proc.stderr
    assert "Traceback" not in proc.stderr
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


# ------------------------------------------------------------------ mass from the plates
def _walkway(m=70.0, air_frames=50, partial_frames=50, off_frames=100, rate=100.0):
    """A stance on one plate: the right foot on it throughout; the left foot first in the air (the whole weight
    on the plate, F = m (g + a_z)), then standing still beside the plate (a stair step: the plate carries only
    part of the weight), then both feet off the plates, standing still."""
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    right, left = model.names.index("right_foot"), model.names.index("left_foot")
    F = air_frames + partial_frames + off_frames
    t = np.arange(F) / rate
    az = 1.5 * np.sin(2 * np.pi * 1.7 * t)  # the mass centre's vertical acceleration, m/s^2
    force = np.zeros((F, 1, 3))
    body = np.full((F, 1), -1)
    on = slice(0, air_frames + partial_frames)
    force[on, 0, 2] = m * (G + az[on])
    force[air_frames:air_frames + partial_frames, 0, 2] *= 0.5  # the other foot carries half
    body[on, 0] = right
    com_vel = np.zeros((F, len(model.names), 3))
    com_vel[:air_frames, left, 0] = 2.5  # swinging
    acc = np.zeros((F, 3))
    acc[:, 2] = az
    loads = SimpleNamespace(force=force, body=body, shared=None)
    results = SimpleNamespace(com_vel=com_vel, body_com_acc=acc)
    return loads, results, model, t


def test_mass_only_over_frames_with_the_whole_weight_on_the_plates():
    loads, results, model, t = _walkway()
    m, spread, n, seconds = mass_from_loads(loads, results, model, t)
    assert n == 50 and seconds == pytest.approx(0.5)
    assert m == pytest.approx(70.0, rel=1e-12)  # eq. (2) is exact where the whole weight is measured
    # what a mean over every loaded frame gives (the partial stance included): a lighter subject
    naive = loads.force[:100, 0, 2].mean() / G
    assert naive < 55
    mass, lines = plates_mass(loads, results, model, t, "walkway.mot")
    assert mass == pytest.approx(70.0) and lines[0].startswith("mass 70.0 kg from walkway.mot")
    assert "50 frames (0.5 s) with the whole weight on the plates" in lines[0]
    assert lines[1].startswith("check mass: body mass index 22.9 at 1.75 m")
    # scaled: every segment's mass and inertia by the same factor, the geometry kept
    scaled = scaled_model(model, mass)
    assert scaled.total_mass == pytest.approx(70.0)
    np.testing.assert_allclose(scaled.inertia, model.inertia * 70.0 / 75.0)
    np.testing.assert_array_equal(scaled.joint_offset, model.joint_offset)


def test_too_few_whole_weight_frames_refuse_asking_for_the_mass():
    loads, results, model, t = _walkway(air_frames=30)  # 0.3 s with the other foot in the air
    with pytest.raises(InputError) as err:
        plates_mass(loads, results, model, t, "stairs.c3d")
    text = str(err.value.on_command_line())  # what the command line says; Python callers read `mass`
    assert "only 30 frame(s) (0.30 s) carry the whole weight" in text and "--mass KG" in text
    assert "--skip-check mass" in text and "\n" not in text
    assert "give `mass` KG" in str(err.value) and "`skip_checks` mass" in str(err.value)
    mass, lines = plates_mass(loads, results, model, t, "stairs.c3d", skip=True)
    assert mass is None and "75 kg assumed" in lines[0]


def test_body_mass_index_outside_13_60_is_refused():
    """The 3.6 kg adult: refused at any adult height; the range's ends pass."""
    lo, hi = BMI_RANGE
    with pytest.raises(InputError, match=r"mass 3\.6 kg from the plates gives a body mass index of 1\.2"):
        check_bmi(3.6, 1.75, "from the plates", skip=False)
    assert "body mass index 13.0" in check_bmi(lo * 1.75 ** 2, 1.75, "", skip=False)
    assert "body mass index 60.0" in check_bmi(hi * 1.75 ** 2, 1.75, "", skip=False)
    assert "--skip-check mass" in check_bmi(3.6, 1.75, "", skip=True)


def test_check_names_are_validated():
    assert check_names(["mass,static", "force-clock"]) == ("mass", "static", "force-clock")
    assert set(CHECKS) == {"mass", "static", "imu-still", "force-clock", "unmeasured"}
    with pytest.raises(InputError, match="no such check"):
        hb.AnalysisOptions(skip_checks=("height",))
    proc = _cli("analyze", DATA / "sample_walk.csv", "--skip-check", "nothing", "--out", "unused")
    _one_line_refusal(proc, "--skip-check 'nothing': no such check")


# ------------------------------------------------------------------ IMU calibration posture
def test_imu_walk_without_standing_is_refused_and_a_standing_start_is_found_and_named(tmp_path):
    proc = _cli("analyze", DATA / "sample_walk_imu.sto", "--out", tmp_path)
    _one_line_refusal(proc, "sample_walk_imu.sto", "no still window", "--static", "--skip-check imu-still")
    assert not list(tmp_path.glob("*_results.csv"))
    # the same walk after 0.6 s of standing in the reference posture (the sample static, held)
    from humanbody.io import read_trial

    walk, still = read_trial(DATA / "sample_walk_imu.sto"), read_trial(DATA / "sample_static_imu.sto")
    dt = float(np.median(np.diff(walk["time"])))
    held = pd.concat([still.iloc[[0]]] * 60, ignore_index=True)
    held["time"] = np.arange(60) * dt
    moved = walk.copy()
    moved["time"] = moved["time"] - moved["time"].iloc[0] + 60 * dt
    trial = pd.concat([held, moved], ignore_index=True)
    trial.attrs = dict(walk.attrs)
    posture, line = check_still_window(trial, list(walk.attrs["segment_of"].values()), "walk.sto")
    assert line.startswith("check imu-still: calibration posture = the still window 0.00-0.50 s of the trial")
    assert len(posture) == 51


# ------------------------------------------------------------------ axes
def test_y_up_file_forced_z_up_says_the_axes_look_wrong(tmp_path):
    proc = _cli("analyze", DATA / "sample_walk_markers.trc", "--axes", "x,y,z", "--mass", 75, "--out", tmp_path)
    line = _one_line_refusal(proc, "axes look wrong", "--axes")
    assert "give metres" not in line and "height" not in line.split(":")[1]


# ------------------------------------------------------------------ the shared walk
needs_shared = pytest.mark.skipif(not (SHARED / "subject01_walk1.trc").exists(), reason="shared data absent")


@needs_shared
def test_shared_walk_mass_from_its_plates_matches_opensims_subject():
    """No --mass: the treadmill's two belts carry the whole weight; OpenSim's Gait2392 subject01 is 72.6 kg."""
    analysis = hb.analyze_trial(SHARED / "subject01_walk1.trc", static=SHARED / "subject01_static.trc",
                                forces=SHARED / "subject01_walk1_grf.mot")
    line = next(m for m in analysis.messages if m.startswith("mass "))
    assert analysis.model.total_mass == pytest.approx(72.6, abs=0.5), line
    assert any(m.startswith("check mass: body mass index") for m in analysis.messages)
    assert any(m.startswith("tracking: median RMS marker residual 3.1 mm") and m.endswith(
        "; check static: subject01_static.trc fits the trial's subject (median marker residual at most 15 mm; "
        "segment marker distances within 0.7 % of the trial's, at most 8 %)")
        for m in analysis.messages)
    clock = next(m for m in analysis.messages if m.startswith("check force-clock"))
    assert "(100 % of its frames)" in clock and "a foot at the centre of pressure in 100 %" in clock
    # the Python API's tables with a time column: angles (deg), moments (N m/kg) and powers (W/kg)
    moments, angles = analysis.moments, analysis.angles
    assert list(moments.columns[:1]) == ["time"] and list(angles.columns[:1]) == ["time"]
    np.testing.assert_array_equal(moments["time"], analysis.coords["time"])
    assert {"right_knee_flexion_moment_Nm_per_kg", "left_ankle_power_W_per_kg"} <= set(moments.columns)
    assert not any(c.endswith("_N") or "_joint_moment_" in c for c in moments.columns)
    # the same numbers as the kinetics table's (per kg of the mass estimated from the plates)
    kin = analysis.kinetics
    np.testing.assert_allclose(moments["right_knee_flexion_moment_Nm_per_kg"],
                               kin["right_knee_flexion_moment_Nm_per_kg"])


@needs_shared
def test_another_subjects_static_is_refused_naming_it(tmp_path):
    proc = _cli("analyze", SHARED / "subject01_walk1.trc", "--static", DATA / "sample_static.trc", "--mass", 72.6,
                "--out", tmp_path)
    _one_line_refusal(proc, "sample_static.trc: does not fit this trial's subject", "median marker residual of 30.",
                      "--skip-check static")
    assert not list(tmp_path.glob("*_results.csv"))


@needs_shared
def test_force_file_on_half_time_is_refused(tmp_path):
    lines = (SHARED / "subject01_walk1_grf.mot").read_text().splitlines()
    end = next(i for i, ln in enumerate(lines) if ln.strip().lower() == "endheader")
    rows = [ln.split("\t") for ln in lines[end + 2:] if ln.strip()]
    for r in rows:
        r[0] = repr(float(r[0]) / 2)
    (tmp_path / "half.mot").write_text("\n".join(lines[:end + 2] + ["\t".join(r) for r in rows]) + "\n")
    proc = _cli("analyze", SHARED / "subject01_walk1.trc", "--static", SHARED / "subject01_static.trc",
                "--mass", 72.6, "--forces", tmp_path / "half.mot", "--out", tmp_path)
    _one_line_refusal(proc, "half.mot: not on the trial's clock", "covers only 50 % of the trial",
                      "--skip-check force-clock")
    assert not list(tmp_path.glob("*_results.csv"))


# ------------------------------------------------------------------ height without head markers
def test_drafted_set_without_head_markers_estimates_the_height_from_the_acromia_and_hips(tmp_path):
    """The sample static and walk without their head markers: markerset init drafts a set whose height comes
    from the acromia and the hip centres (0.818 and 0.530 of the standing height, Drillis and Contini), said
    in one line; the sample subject is 1.75 m tall (data/make_sample_markers.py)."""
    from humanbody.io import read_trial

    for stem in ("sample_static", "sample_walk_markers"):
        trial = read_trial(DATA / f"{stem}.trc")
        head = [c for c in trial.columns if c.rsplit("_", 1)[0] in ("R.Temple", "L.Temple", "Top.Head")]
        trial.drop(columns=head).to_csv(tmp_path / f"{stem}.csv", index=False)
    proc = _cli("markerset", "init", tmp_path / "sample_static.csv", "--out", tmp_path / "set.toml")
    assert proc.returncode == 0, proc.stderr
    assert "height_landmarks = { mid_acromion = 0.818, mid_hip = 0.53 }" in (tmp_path / "set.toml").read_text()
    assert " --height M" not in proc.stdout + proc.stderr
    analysis = hb.analyze_trial(tmp_path / "sample_walk_markers.csv", static=tmp_path / "sample_static.csv",
                                markerset=tmp_path / "set.toml", mass=75)
    line = next(m for m in analysis.messages if "height estimated from markers" in m)
    assert "no head markers: mean of mid_acromion at 0.818 (1.84 m), mid_hip at 0.53 (1.73 m) of the height" in line
    height = float(line.split("markers: ")[1].split(" m")[0])
    assert height == pytest.approx(1.75, rel=0.03)


def test_plate_assignment_is_one_line_for_all_plates():
    """29 plates (a messy lab's C3D): one assignment line, the loads named and the plates no foot reached counted."""
    from humanbody.checks.plates import assignment_line

    near = "loads: {} -> nearest foot within 20 cm of the centre of pressure (right_foot {}, left_foot {} frames)"
    notes = ["loads: FP1, ... from walk.c3d at 1000 Hz; zero below 20 N vertical"]
    notes += [near.format(f"FP{i}", 0, 0) for i in range(1, 28)]
    notes += [near.format("FP28", 99, 0), near.format("FP29", 3, 50) + "; both feet on it in 4 frame(s): those feet's "
              "kinetics NaN there", "loads: G -> right_foot (named)", "loads: unused plate(s): FP1 (never loaded)"]
    out = assignment_line(notes)
    assert len(out) == 3 and out[0] == notes[0] and out[2] == notes[-1]
    assert out[1] == ("loads: G -> right_foot (named); nearest foot within 20 cm of the centre of pressure, frames: "
                      "FP28 (right_foot 99), FP29 (right_foot 3, left_foot 50, both feet on it in 4 frame(s), "
                      "kinetics NaN); 27 plate(s) never reached by a foot")

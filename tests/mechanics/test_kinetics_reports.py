"""Kinetics in reports: a synthetic treadmill run with one plate under both feet (flights between steps), the
body mass from the plates, one option set (--forces everywhere), force files found beside the trials."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.cli import main

RATE, STRIDE, CONTACT, MASS = 200.0, 0.70, 0.24, 68.0  # Hz, s, s (a 34 % duty factor: flights), kg


def _running_coords(duration=4.2):
    """Treadmill running, generalized coordinates: pelvis in place with a small bounce, legs swinging
    (hip flexion, a deep knee flexion in swing); the right foot strikes at 0.1 s + k STRIDE, the left
    half a stride later."""
    model = hb.BodyModel.default(mass=MASS, height=1.75)
    t = np.arange(0.0, duration, 1.0 / RATE)
    coords = pd.DataFrame(0.0, index=range(len(t)), columns=["time", *hb.coordinate_columns(model)])
    coords["time"] = t
    hip_h = model.meta["reference_pose"]["lower_torso_height"]
    coords["lower_torso_z"] = hip_h - 0.03 + 0.02 * np.cos(4 * np.pi * (t - 0.1 - CONTACT / 2) / STRIDE)
    for side, t0 in (("right", 0.1), ("left", 0.1 + STRIDE / 2)):
        ph = np.mod(t - t0, STRIDE) / STRIDE  # 0 at strike
        hip = np.radians(25.0) * np.cos(2 * np.pi * ph)  # flexed at strike, extended at toe-off
        swing = np.clip((ph - CONTACT / STRIDE) / (1 - CONTACT / STRIDE), 0, 1)
        knee = np.radians(20.0) + np.radians(85.0) * np.sin(np.pi * swing) ** 2
        coords[f"{side}_upper_leg_alpha"] = -hip  # a negative angle about y flexes the hip
        coords[f"{side}_lower_leg_alpha"] = knee
    return model, coords


def _belt_loads(model, coords, rate=1000.0):
    """One plate under both feet: a half-sine vertical force under the stance foot's sole, zero in flight;
    its impulse over a stride is the body's weight times the stride time."""
    from humanbody.mechanics.foot_contact import _sole

    res = hb.compute(model, coords)
    t = np.arange(coords["time"].iloc[0], coords["time"].iloc[-1], 1.0 / rate)
    fz = np.zeros_like(t)
    point = np.zeros((len(t), 3))
    peak = MASS * 9.81 * np.pi * STRIDE / (4 * CONTACT)
    for side, t0 in (("right", 0.1), ("left", 0.1 + STRIDE / 2)):
        k = model.names.index(f"{side}_foot")
        heel, toe = _sole(res, model, k)
        mid = 0.5 * (heel + toe)
        tau = np.mod(t - t0, STRIDE)
        on = (tau < CONTACT) & (t >= t0)
        fz[on] = peak * np.sin(np.pi * tau[on] / CONTACT)
        for a in range(3):
            point[on, a] = np.interp(t[on], coords["time"], mid[:, a])
    return pd.DataFrame({"time": t, "belt_force_x": 0.0, "belt_force_y": 0.0, "belt_force_z": fz,
                         "belt_point_x": point[:, 0], "belt_point_y": point[:, 1], "belt_point_z": point[:, 2]})


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("run")
    model, coords = _running_coords()
    coords.to_csv(folder / "run.csv", index=False)
    _belt_loads(model, coords).to_csv(folder / "run_forces.csv", index=False)
    return folder


def test_treadmill_run_one_plate_under_both_feet_gives_complete_kinetics(run_folder, tmp_path):
    """Folder mode finds run_forces.csv; the single belt plate is given to each foot in turn (flights
    between steps); every kinetic curve has strides on both sides and the summary has every kinetic peak;
    no --mass: the mass comes from the plates, said in one line."""
    out = tmp_path / "report"
    status = main(["report", str(run_folder), "--out", str(out), "--plots", "none", "-q", "--jobs", "1"])
    assert status == 0
    summary = pd.read_csv(out / "summary.csv")
    row = summary.iloc[0]
    assert row["status"] == "ok", row.get("error")
    for side in ("right", "left"):
        for peak in ("peak_knee_extension_moment_Nm_per_kg", "peak_ankle_plantarflexion_moment_Nm_per_kg",
                     "peak_grf_z_N_per_kg", "peak_hip_flexion_moment_Nm_per_kg"):
            assert np.isfinite(row[f"{side}_{peak}"]), (side, peak)
        grf_peak = MASS * 9.81 * np.pi * STRIDE / (4 * CONTACT) / MASS
        assert row[f"{side}_peak_grf_z_N_per_kg"] == pytest.approx(grf_peak, rel=0.05)
    cycles = pd.read_csv(out / "run" / "run_cycles.csv")
    knee = cycles[cycles["variable"].str.endswith("knee_flexion_moment_Nm_per_kg")]
    assert set(knee["side"]) == {"right", "left"} and (knee["n_strides"] >= 3).all()
    # the events come from the load given to each foot, timed at the force file's own 1 kHz samples
    events = pd.read_csv(out / "run" / "run_events.csv")
    for side, t0 in (("right", 0.1), ("left", 0.1 + STRIDE / 2)):
        strikes = events[(events["source"] == "force") & (events["side"] == side)
                         & (events["event"] == "foot_strike")]["time"].to_numpy()
        offs = events[(events["source"] == "force") & (events["side"] == side)
                      & (events["event"] == "foot_off")]["time"].to_numpy()
        assert len(strikes) >= 4 and len(offs) >= 4
        np.testing.assert_allclose((strikes - t0) / STRIDE, np.round((strikes - t0) / STRIDE), atol=0.002 / STRIDE)
        np.testing.assert_allclose((offs - t0 - CONTACT) / STRIDE, np.round((offs - t0 - CONTACT) / STRIDE),
                                   atol=0.002 / STRIDE)
    page = (out / "run" / "run.html").read_text()
    assert "force events from the loads on each foot" in page
    # the mass from the plates (no --mass): sum F_z / sum (g + a_z) over the frames with the whole weight on the
    # belt (flights included), the edge frames left out (their accelerations are the differentiator's
    # estimates); the synthetic kinematics do not match the forces' vertical impulse within a stride, so the
    # estimate depends on which part of the last stride the window ends in: within 4 % of the synthetic subject's
    import re

    said = re.search(r"mass ([0-9.]+) kg from run_forces\.csv", page)
    assert said and float(said.group(1)) == pytest.approx(MASS, rel=0.04)


def test_no_plates_no_mass_says_75_kg(run_folder):
    analysis = hb.analyze_trial(run_folder / "run.csv")
    assert any("no --mass and no force plates: 75 kg assumed" in m for m in analysis.messages)


def test_one_option_set_and_bad_mass(run_folder, tmp_path, capsys):
    """--forces on analyze, report and view (old --grf an alias on each); report --mass 0 exits 2."""
    status = main(["report", str(run_folder / "run.csv"), "--out", str(tmp_path / "r"), "--mass", "0"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "--mass must be a positive number" in err[0]
    import argparse

    from humanbody.cli import build_parser

    parser = build_parser()
    for cmd in (["report", "x", "--out", "o"], ["view", "x"], ["analyze", "x", "--out", "o"]):
        a = parser.parse_args(cmd + ["--forces", "f.mot"])
        b = parser.parse_args(cmd + ["--grf", "f.mot"])
        assert (getattr(a, "grf", None) or a.forces) == "f.mot" == (getattr(b, "grf", None) or b.forces)
    assert isinstance(parser, argparse.ArgumentParser)


def test_folder_mode_finds_force_files_and_skips_unreadable_exports(tmp_path):
    from humanbody.report.inputs import discover

    (tmp_path / "walk.trc").write_text("x")
    (tmp_path / "grf_walk.mot").write_text("x")
    (tmp_path / "walk_model_outputs.csv").write_text("Model Outputs\n100\n,,RHipAngles\nFrame,Sub Frame,X\n1,0,3.2\n")
    skipped = []
    tasks = discover([tmp_path], skipped=skipped)
    assert [t.trial for t in tasks] == [str(tmp_path / "walk.trc")]
    assert tasks[0].grf == str(tmp_path / "grf_walk.mot")
    assert len(skipped) == 1 and "walk_model_outputs.csv" in skipped[0] and "not a trial" in skipped[0]


def test_a_stride_enters_the_kinetic_curves_only_when_its_stance_was_measured(tmp_path):
    """The right foot steps on the plate once (its other stances are off the plates): its kinetic curves keep
    the one stride whose stance was measured, its angle curves keep every stride; the left side, always on
    the plate, keeps every stride in both."""
    model, coords = _running_coords()
    table = _belt_loads(model, coords)
    t = table["time"].to_numpy()
    tau = np.mod(t - 0.1, STRIDE)
    right_on = (tau < CONTACT) & (t >= 0.1)
    keep = ~right_on | ((t > 0.1 + 2 * STRIDE - 0.01) & (t < 0.1 + 2 * STRIDE + CONTACT + 0.01))
    for c in table.columns[1:]:
        table.loc[~keep, c] = 0.0
    coords.to_csv(tmp_path / "run.csv", index=False)
    table.to_csv(tmp_path / "run_forces.csv", index=False)
    out = tmp_path / "report"
    assert main(["report", str(tmp_path / "run.csv"), "--out", str(out), "--plots", "none", "-q", "--jobs", "1",
                 "--mass", str(MASS)]) == 0
    cycles = pd.read_csv(out / "run" / "run_cycles.csv")

    def strides(side, variable):
        return int(cycles[(cycles["side"] == side) & (cycles["variable"] == f"{side}_{variable}")]["n_strides"].max())

    assert strides("right", "knee_flexion_moment_Nm_per_kg") == 1
    assert strides("right", "hip_flexion_deg") >= 4
    assert strides("left", "knee_flexion_moment_Nm_per_kg") >= 4

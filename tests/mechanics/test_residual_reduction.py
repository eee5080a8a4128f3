"""Residual reduction (docs/kinetics.md "Residual reduction"): a synthetic trial whose mass distribution is known
and whose ground reactions are exact (the residual goes to zero and the true parameters come back), a perturbed
trunk mass centre recovered within 1 cm, the criteria reported, and the honest limits."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.cli import main
from humanbody.mechanics.kinematics import compute_motion, prepare_motion
from humanbody.mechanics.loads import FrameLoads
from humanbody.mechanics.mass_fit import TRUNK, fit_data, fit_mass_distribution, fitted_model, parameter_residual
from humanbody.mechanics.reduction import reduce_residuals
from humanbody.mechanics.residuals import external_loads, root_residual
from humanbody.mechanics.root_tracking import RootChange, apply_root_change

RATE, DURATION, MASS = 100.0, 2.0, 70.0


def _walkish(model, seed=3):
    """Coordinates with exact rates: the pelvis translating and swaying, every joint swinging (sinusoids)."""
    rng = np.random.default_rng(seed)
    t = np.arange(0.0, DURATION, 1.0 / RATE)
    cols = hb.coordinate_columns(model)
    data = {"time": t}
    rates = {}
    for j, name in enumerate(cols):
        amp = 0.05 if j < 3 else rng.uniform(0.1, 0.4)
        w = rng.uniform(2.0, 9.0)
        ph = rng.uniform(0, 2 * np.pi)
        base = (1.0 if name == "lower_torso_z" else 0.0) + (0.8 * t if name == "lower_torso_x" else 0.0)
        data[name] = base + amp * np.sin(w * t + ph)
        rates[name + "_dot"] = (0.8 if name == "lower_torso_x" else 0.0) + amp * w * np.cos(w * t + ph)
        rates[name + "_ddot"] = -amp * w * w * np.sin(w * t + ph)
    data.update({c + "_dot": rates[c + "_dot"] for c in cols})
    data.update({c + "_ddot": rates[c + "_ddot"] for c in cols})
    return pd.DataFrame(data)


def _exact_loads(model, motion):
    """Two loads (one per foot, half each) whose sum is the exact ground reaction of ``model`` doing ``motion``."""
    res = compute_motion(model, motion)
    zero = external_loads(FrameLoads(["none"], np.zeros((motion.n_frames, 1, 3)), np.zeros((motion.n_frames, 1, 3)),
                                     np.full((motion.n_frames, 1, 3), np.nan)))
    f, m = root_residual(model, res, zero)  # what ground must supply: E = f, M_O = m + O_1 x E
    E = f
    M = m + np.cross(res.joint[:, 0], E)
    F = motion.n_frames
    feet = [model.names.index("right_foot"), model.names.index("left_foot")]
    return FrameLoads(["r", "l"], np.repeat(0.5 * E[:, None], 2, axis=1), np.repeat(0.5 * M[:, None], 2, axis=1),
                      np.full((F, 2, 3), np.nan), body=np.tile(np.array(feet), (F, 1)))


@pytest.fixture(scope="module")
def synthetic():
    truth = hb.BodyModel.default(mass=MASS, height=1.75)
    coords = _walkish(truth)
    motion = prepare_motion(truth, coords)
    return truth, coords, motion, _exact_loads(truth, motion)


def _perturbed(truth, scale, offset):
    """The model the analysis starts from: ``truth`` with masses divided by ``scale`` and the trunk off by ``-offset``."""
    return fitted_model(truth, 1.0 / np.asarray(scale), -np.asarray(offset))


def test_closed_form_residual_equals_the_kernel_for_any_masses_and_trunk_offset(synthetic):
    truth, _, motion, loads = synthetic
    rng = np.random.default_rng(0)
    scale, offset = rng.uniform(0.8, 1.2, truth.n_bodies), rng.normal(0, 0.03, 3)
    res = compute_motion(truth, motion)
    ext = external_loads(loads)
    data = fit_data(truth, res, ext, np.ones(motion.n_frames, bool), 1000.0, 1000.0)
    f, m = parameter_residual(truth, data, scale, offset)
    other = fitted_model(truth, scale, offset)
    f2, m2 = root_residual(other, compute_motion(other, motion), ext)
    assert np.abs(f - f2).max() < 1e-9 and np.abs(m - m2).max() < 1e-9


def test_exact_ground_reactions_leave_no_residual(synthetic):
    truth, _, motion, loads = synthetic
    f, m = root_residual(truth, compute_motion(truth, motion), external_loads(loads))
    assert np.abs(f).max() < 1e-8 and np.abs(m).max() < 1e-8


def test_true_mass_distribution_and_trunk_mass_centre_come_back(synthetic):
    truth, _, motion, loads = synthetic
    scale = np.ones(truth.n_bodies)
    for name, s in (("middle_torso", 1.12), ("upper_torso", 0.9), ("right_upper_leg", 1.08), ("left_lower_leg", 0.93)):
        scale[truth.names.index(name)] = s
    offset = np.array([0.025, -0.015, 0.03])
    start = _perturbed(truth, scale, offset)
    res = compute_motion(start, motion)
    ext = external_loads(loads)
    f0, _ = root_residual(start, res, ext)
    assert np.linalg.norm(f0, axis=1).max() > 5.0  # the perturbation matters
    fit = fit_mass_distribution(start, [fit_data(start, res, ext, np.ones(motion.n_frames, bool), ext.peak_force,
                                                 ext.peak_force)])
    np.testing.assert_allclose(fit.model.mass, truth.mass, rtol=0.01)
    assert np.linalg.norm(fit.offset - offset) < 0.002
    f1, m1 = root_residual(fit.model, compute_motion(fit.model, motion), ext)
    assert np.linalg.norm(f1, axis=1).max() < 0.01 * np.linalg.norm(f0, axis=1).max()


def test_a_perturbed_trunk_mass_centre_is_recovered_within_1_cm_and_the_residual_goes_to_zero(synthetic):
    truth, _, motion, loads = synthetic
    offset = np.array([-0.04, 0.02, 0.05])
    start = _perturbed(truth, np.ones(truth.n_bodies), offset)
    red = reduce_residuals(start, motion, loads)
    assert red.applied
    assert np.linalg.norm(np.array(red.record["trunk_com_offset_m"]) - offset) < 0.01
    trunk = [truth.names.index(s) for s in TRUNK]
    assert np.abs(red.model.com_offset[trunk] - truth.com_offset[trunk]).max() < 0.01
    after = red.record["after"]
    assert after["force_peak"] < 1.0 and after["moment_peak"] < 1.0  # N, N m: from tens of them
    assert red.record["before"]["moment_peak"] > 10.0
    assert all(c["met"] for c in red.record["criteria"].values())


def test_unreachable_criteria_keep_the_default_results_and_say_why(synthetic):
    """Half the ground reaction missing (one foot's plate not recorded): no mass distribution nor a pelvis
    within 2 cm can explain it; one line says why and the model and motion stay the default ones."""
    truth, _, motion, loads = synthetic
    lost = FrameLoads(loads.names, loads.force.copy(), loads.moment_o.copy(), loads.cop, body=loads.body.copy())
    lost.force[:, 1] = 0.0
    lost.moment_o[:, 1] = 0.0
    red = reduce_residuals(truth, motion, lost)
    assert not red.applied and red.model is truth and red.motion is motion
    assert [line for line in red.lines if "default results kept" in line]
    assert red.record["applied"] is False and "reason" in red.record


def test_a_trunk_without_markers_is_not_fitted(synthetic):
    truth, _, motion, loads = synthetic
    red = reduce_residuals(truth, motion, loads, trunk_tracked=0.2)
    assert not red.applied and red.model is truth
    assert any("cannot see it" in line and "default results kept" in line for line in red.lines)


def test_root_change_moves_the_body_rigidly_and_keeps_every_joint_angle(synthetic):
    """A root translation and rotation: every body point moves as p' = O_1 + u + E (p - O_1); relative angles kept."""
    truth, _, motion, _ = synthetic
    F = motion.n_frames
    t = motion.time
    u = np.stack([0.01 * np.sin(3 * t), 0.005 * t, np.zeros(F)], axis=1)
    th = np.stack([np.zeros(F), 0.01 * np.cos(2 * t), 0.02 * np.ones(F)], axis=1)
    from scipy.spatial.transform import Rotation

    for local in (False, True):
        base = motion
        if local:  # the marker trials' form: the root's angular velocity in ground axes
            from humanbody.mechanics.kinematics import Motion

            coords = pd.DataFrame({"time": t, **dict(zip(hb.coordinate_columns(truth), motion.q.T, strict=True))})
            base = prepare_motion(truth, coords, rates="differentiate")
            assert isinstance(base, Motion) and base.local_rates
        change = RootChange(u, np.zeros_like(u), np.zeros_like(u), th, np.zeros_like(th), np.zeros_like(th))
        moved = apply_root_change(truth, base, change)
        np.testing.assert_array_equal(moved.q[:, 6:], base.q[:, 6:])
        r0, r1 = compute_motion(truth, base), compute_motion(truth, moved)
        E = Rotation.from_rotvec(th).as_matrix()
        O1 = r0.joint[:, 0]
        want = O1[:, None] + u[:, None] + np.einsum("fij,fkj->fki", E, r0.com - O1[:, None])
        if local:
            np.testing.assert_allclose(r1.com, want, atol=1e-9)
        else:  # theta as increments of the root's angles: a rigid motion, not this rotation
            assert np.abs(r1.com - r0.com).max() > 0.01
            rel = np.einsum("fij,fkj->fki", np.transpose(r1.R[:, 0], (0, 2, 1)), r1.com - r1.joint[:, :1])
            rel0 = np.einsum("fij,fkj->fki", np.transpose(r0.R[:, 0], (0, 2, 1)), r0.com - r0.joint[:, :1])
            np.testing.assert_allclose(rel, rel0, atol=1e-9)


@pytest.fixture(scope="module")
def trial_folder(tmp_path_factory, synthetic):
    """The synthetic trial as files: exact coordinates, the exact loads as a loads table, a perturbed model."""
    truth, coords, motion, loads = synthetic
    folder = tmp_path_factory.mktemp("reduce")
    coords.to_csv(folder / "trial.csv", index=False)
    table = {"time": motion.time}
    for j, name in enumerate(("r", "l")):
        E, M = loads.force[:, j], loads.moment_o[:, j]
        p = np.zeros_like(E)
        p[:, :2] = motion.q[:, :2]  # under the pelvis, on the floor
        Mp = M - np.cross(p, E)
        for a, axis in enumerate("xyz"):
            table[f"{name}_force_{axis}"] = E[:, a]
            table[f"{name}_point_{axis}"] = p[:, a]
            table[f"{name}_moment_{axis}"] = Mp[:, a]
    pd.DataFrame(table).to_csv(folder / "trial_forces.csv", index=False)
    scale = np.ones(truth.n_bodies)
    scale[truth.names.index("upper_torso")] = 1.1
    _perturbed(truth, scale, [0.02, 0.0, -0.03]).save(folder / "start.json")
    return folder


def _run(folder, out, *extra):
    return main(["analyze", str(folder / "trial.csv"), "--model", str(folder / "start.json"), "--forces",
                 str(folder / "trial_forces.csv"), "--forces-cutoff", "0", "--load", "r=right_foot", "--load",
                 "l=left_foot", "--out", str(out), *extra])


def test_analyze_reduce_residuals_reports_every_criterion_and_writes_the_fitted_model(trial_folder, tmp_path, capsys,
                                                                                     synthetic):
    truth = synthetic[0]
    assert _run(trial_folder, tmp_path / "red", "--reduce-residuals") == 0
    out = capsys.readouterr().err
    lines = [line for line in out.splitlines() if line.startswith("residual reduction: ")]
    for what in ("Hicks et al. 2015 <= 5 %: met", "Hicks et al. 2015 <= 1 %: met", "peak <= 25 N: met",
                 "RMS <= 15 N: met", "peak <= 75 N m: met", "total within 2 %: met", "<= 2 cm RMS: met",
                 "<= 2 deg RMS: met", "applied in"):
        assert sum(what in line for line in lines) == 1, what
    model = json.loads((tmp_path / "red" / "trial_model.json").read_text())
    record = model["residual_reduction"]
    assert record["applied"] and all(c["met"] for c in record["criteria"].values())
    assert record["before"]["force_peak"] > 10.0 and record["after"]["force_peak"] < 0.5
    masses = np.array([s["mass"] for s in model["segments"]])
    np.testing.assert_allclose(masses, truth.mass, rtol=2e-3)
    log = (tmp_path / "red" / "trial_log.txt").read_text()
    assert "Hicks et al. 2015 <= 5 %: met" in log
    results = pd.read_csv(tmp_path / "red" / "trial_results.csv")
    f = np.linalg.norm(results[[f"lower_torso_joint_force_{a}" for a in "xyz"]].to_numpy(), axis=1)
    assert f.max() < 0.5


def test_without_the_option_nothing_changes_and_without_plates_one_line_says_so(trial_folder, tmp_path, capsys):
    assert _run(trial_folder, tmp_path / "plain") == 0
    assert "residual reduction" not in capsys.readouterr().err
    model = json.loads((tmp_path / "plain" / "trial_model.json").read_text())
    assert "residual_reduction" not in model
    assert main(["analyze", str(trial_folder / "trial.csv"), "--model", str(trial_folder / "start.json"),
                 "--reduce-residuals", "--out", str(tmp_path / "none")]) == 0
    assert "residual reduction: not done: the trial has no force plates" in capsys.readouterr().err


def test_the_shared_walk_meets_the_criteria_with_the_tracking_kept(shared_data):
    """The OpenSim walk with its plates: peak residual force 179 N (20 % of the peak GRF) by default; reduced,
    at most 5 % with hip, knee and ankle flexion within 2 deg RMS of the default and markers within 2 cm RMS."""
    walk = shared_data / "gait2392_walk"
    opts = hb.AnalysisOptions(static=str(walk / "subject01_static.trc"), mass=72.6,
                              forces=str(walk / "subject01_walk1_grf.mot"))
    plain = hb.analyze_trial(walk / "subject01_walk1.trc", opts)
    red = hb.analyze_trial(walk / "subject01_walk1.trc", opts, reduce_residuals=True)
    record = red.model.residual_reduction
    assert record["applied"]
    grf = np.linalg.norm(np.nansum(red.loads.force, axis=1), axis=1).max()
    peaks = []
    for a in (plain, red):
        k = a.kinetics
        peaks.append(np.nanmax(np.linalg.norm(k[[f"lower_torso_joint_force_{x}" for x in "xyz"]].to_numpy(), axis=1)))
    assert peaks[0] > 0.15 * grf and peaks[1] <= 0.05 * grf
    assert record["marker_change_rms_m"] <= 0.02 and record["marker_change_max_m"] <= 0.04
    for joint in ("hip_flexion", "knee_flexion", "ankle_dorsiflexion"):
        for side in ("right", "left"):
            col = [c for c in plain.clinical.columns if c.startswith(f"{side}_{joint}")][0]
            diff = red.clinical[col].to_numpy() - plain.clinical[col].to_numpy()
            assert np.sqrt(np.nanmean(diff ** 2)) <= 2.0, col
    assert red.markers is not None  # the API keeps the markers, as without the option


def test_report_reduce_residuals_shows_the_criteria_and_the_residual_per_stride(shared_data, tmp_path):
    walk = shared_data / "gait2392_walk"
    assert main(["report", str(walk / "subject01_walk1.trc"), "--mass", "72.6", "--out", str(tmp_path / "rep"),
                 "--plots", "none", "-q", "--reduce-residuals"]) == 0
    page = (tmp_path / "rep" / "subject01_walk1" / "subject01_walk1.html").read_text()
    assert "Hicks et al. 2015 &lt;= 5 %: met" in page
    for side in ("right", "left"):
        assert f"kinetics: pelvis residual per {side} stride" in page


def test_view_takes_the_same_option():
    import argparse

    from humanbody.commands.view import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    assert parser.parse_args(["view", "walk.trc", "--reduce-residuals"]).reduce_residuals


def test_frames_without_a_pose_constrain_nothing_and_stay_empty(synthetic):
    truth, _, motion, loads = synthetic
    from dataclasses import replace

    gap = replace(motion, q=motion.q.copy(), qd=motion.qd.copy(), qdd=motion.qdd.copy())
    for arr in (gap.q, gap.qd, gap.qdd):
        arr[60:66] = np.nan
    start = _perturbed(truth, np.ones(truth.n_bodies), [0.02, 0.0, 0.02])
    red = reduce_residuals(start, gap, loads)
    assert red.applied and red.record["frames_measured"] == motion.n_frames - 6
    assert np.isnan(red.motion.q[60:66]).all() and np.isfinite(red.motion.q[:60]).all()
    assert red.record["after"]["force_peak"] < 1.0


def test_a_foot_standing_beside_the_plates_is_found_and_flight_is_measured():
    """Right foot: loaded for 0.5 s, then 0.5 s unloaded at its stance height (beside the plates), then lifted
    (with the left foot up: a flight, measured); left foot: 10 cm above its stance height but for a touch."""
    from types import SimpleNamespace

    from humanbody.mechanics.residuals import measured_frames

    model = hb.BodyModel.default()
    F = 150
    t = np.arange(F) / 100.0
    joint = np.zeros((F, model.n_bodies, 3))
    r, l = model.names.index("right_foot"), model.names.index("left_foot")
    joint[:, r, 2] = np.where(t < 1.0, 0.08, 0.2)
    joint[:, l, 2] = 0.18  # 10 cm above its stance height
    body = np.full((F, 2), -1)
    body[t < 0.5, 0] = r
    body[(t >= 0.5) & (t < 0.52), 1] = l  # a touch of the left foot: its level is its own
    joint[(t >= 0.5) & (t < 0.52), l, 2] = 0.08
    ok, lines = measured_frames(model, SimpleNamespace(joint=joint, time=t), SimpleNamespace(body=body))
    assert not ok[(t >= 0.5) & (t < 1.0)].any() and ok[t < 0.5].all() and ok[t >= 1.0].all()
    assert lines == ["50 of 150 frames have a foot on the ground off the plates (right foot 50 frames): no residual "
                     "constraint there"]


def test_one_mass_distribution_for_all_of_a_subjects_trials(synthetic):
    """Two trials of one subject (different motions, exact loads): one fit over both gives the true masses and
    trunk mass centre, and each trial reduced with it has no residual left."""
    from types import SimpleNamespace

    from humanbody.mechanics.reduction import fit_subject

    truth = synthetic[0]
    scale = np.ones(truth.n_bodies)
    scale[truth.names.index("upper_torso")] = 1.1
    scale[truth.names.index("left_upper_leg")] = 0.92
    offset = np.array([0.03, 0.01, -0.02])
    start = _perturbed(truth, scale, offset)
    trials = []
    for seed in (5, 6):
        motion = prepare_motion(truth, _walkish(truth, seed))
        loads = _exact_loads(truth, motion)
        trials.append(SimpleNamespace(model=start, motion=motion, loads=loads, results=compute_motion(start, motion),
                                      source=f"trial{seed}"))
    fit = fit_subject(trials)
    assert fit.trials == 2
    np.testing.assert_allclose(fitted_model(start, fit.scale, fit.offset).mass, truth.mass, rtol=0.01)
    assert np.linalg.norm(fit.offset - offset) < 0.005
    for trial in trials:
        red = reduce_residuals(start, trial.motion, trial.loads, trial.results, fit=fit)
        assert red.applied and red.record["mass_fit_trials"] == 2
        assert any("fitted once over 2 trial(s)" in line for line in red.lines)
        assert red.record["after"]["force_peak"] < 1.0


def test_too_few_judged_frames_are_not_reduced(synthetic):
    truth, _, motion, loads = synthetic
    from dataclasses import replace

    gap = replace(motion, q=motion.q.copy())
    gap.q[:120] = np.nan
    red = reduce_residuals(truth, gap, loads)
    assert not red.applied and red.motion is gap
    assert red.lines[-1].startswith("residual reduction: not done: only 80 of 200 frames have a pose and every "
                                    "contact measured")

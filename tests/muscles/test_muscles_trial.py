"""The whole chain on the shared walk against OpenSim (gait2392 subject01, the Joint Reaction tutorial's setup),
and the ``humanbody muscles`` command: its files and its refusals."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main
from tests._shared import require_shared
from tests.muscles import _opensim_reference as osr

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def ref():
    shared = require_shared()
    pytest.importorskip("opensim")
    out = osr.reference(shared)
    out["states"] = osr.states(shared)
    return out


@pytest.fixture(scope="module")
def ours(ref):
    from humanbody.muscles.trial import Setup, run_coordinates_file

    setup = Setup.load(ref["model"])
    return setup, run_coordinates_file(setup, ref["ik"], ref["loads"], ref["reserves"], 2.0, 1, osr.CUTOFF_HZ, None,
                      (osr.START, osr.END))


def test_same_frames_and_geometry_as_opensim(ref, ours):
    setup, r = ours
    st = ref["states"]
    assert len(r.time) == len(st["time"])
    np.testing.assert_allclose(r.lengths, st["L"], atol=1e-5)
    np.testing.assert_allclose(r.moment_arms, st["R"], atol=1e-5)


def test_generalized_forces_are_the_ones_opensims_optimum_reproduces(ref, ours):
    """tau_OS = A x_OS (OpenSim's optimum meets its constraints): ours within 2 % of each coordinate's range."""
    setup, r = ours
    st = ref["states"]
    names = list(setup.muscles.names)
    F = ref["forces"][names].to_numpy()
    tau = np.einsum("fm,fmc->fc", F, st["R"])
    for k, j in enumerate(r.reserves.coordinates):
        tau[:, j] += ref["forces"][r.reserves.names[k]].to_numpy()
    span = np.ptp(tau, axis=0) + 1.0
    assert np.all(np.abs(r.tau - tau).max(axis=0) <= 0.02 * span), np.abs(r.tau - tau).max(axis=0) / span


def test_activations_within_the_issue_targets(ref, ours):
    setup, r = ours
    names = list(setup.muscles.names)
    a_os = ref["activations"][names].to_numpy()
    rms = np.sqrt(np.mean((r.optimum.controls[:, :len(names)] - a_os) ** 2, axis=0))
    assert np.median(rms) < 0.01 and rms.max() < 0.025, (np.median(rms), rms.max())


def test_hip_reaction_on_femur_within_two_percent_of_its_peak(ref, ours):
    setup, r = ours
    cols = [f"hip_r_on_femur_r_in_femur_r_f{a}" for a in "xyz"]
    got = pd.DataFrame(r.reactions, columns=r.reaction_names)[cols].to_numpy()
    want = ref["reactions"][cols].to_numpy()
    peak = np.linalg.norm(want, axis=1).max()
    assert np.linalg.norm(got - want, axis=1).max() < 0.02 * peak


def test_command_writes_opensim_named_files(ref, tmp_path, capsys):
    status = main(["muscles", str(ref["ik"]), "--model", str(ref["model"]), "--forces", str(ref["loads"]),
                   "--reserves", str(ref["reserves"]), "--cutoff", "6", "--start", "0.5", "--end", "1.0",
                   "--joint-reactions", "hip_r,knee_r", "--out", str(tmp_path)])
    assert status == 0
    stem = tmp_path / "opensim"
    act = pd.read_csv(f"{stem}_activations.csv")
    assert list(act.columns[:2]) == ["time", "glut_med1_r"] and act.columns[-1] == "lumbar_rotation_reserve"
    jr = pd.read_csv(f"{stem}_joint_reactions.csv")
    assert jr.columns[1] == "hip_r_on_femur_r_in_femur_r_fx" and jr.shape[1] == 1 + 18
    assert (tmp_path / "opensim_muscle_forces.csv").is_file()
    err = capsys.readouterr().err
    assert "residuals carry what no muscle spans" in err


@pytest.mark.parametrize("case", ["reserve_coordinate", "load_body"])
def test_bad_input_is_one_line_exit_2(ref, tmp_path, capsys, case):
    forces, reserves = ref["loads"], ref["reserves"]
    if case == "reserve_coordinate":
        reserves = tmp_path / "bad_reserves.xml"
        reserves.write_text(ref["reserves"].read_text().replace("<coordinate>knee_angle_r<", "<coordinate>knee_r<"))
    else:
        forces = tmp_path / "bad_loads.xml"
        forces.write_text(ref["loads"].read_text().replace("calcn_r", "foot_r"))
        (tmp_path / ref["grf"].name).write_bytes(ref["grf"].read_bytes())
    status = main(["muscles", str(ref["ik"]), "--model", str(ref["model"]), "--forces", str(forces),
                   "--reserves", str(reserves), "--end", "0.6", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert ("knee_r" in err[0]) if case == "reserve_coordinate" else ("foot_r" in err[0])


def test_a_trial_the_muscles_cannot_carry_is_said_in_the_log(ref, tmp_path, capsys):
    """Without reserves no frame can be met (no muscle spans the pelvis's six coordinates): the command writes the
    closest optimum and says so in one line; with muscles a tenth as strong the weak reserves carry the joints,
    and the log names each reserve leaned on. Neither is a refusal (exit 0): a finding, not a silent number."""
    argv = ["muscles", str(ref["ik"]), "--forces", str(ref["loads"]), "--cutoff", "6", "--start", "0.5",
            "--end", "0.7", "--joint-reactions", "none"]
    assert main(argv + ["--model", str(ref["model"]), "--out", str(tmp_path / "none")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    unmet = [line for line in err if "cannot reproduce the generalised forces" in line]
    assert len(unmet) == 1 and "in 13 frames (0.500-0.700 s)" in unmet[0] and "add or strengthen reserves" in unmet[0]
    assert (tmp_path / "none" / "opensim_activations.csv").is_file()
    text = ref["model"].read_text()
    weak = tmp_path / "weak.osim"
    weak.write_text(__import__("re").sub(r"<max_isometric_force>\s*([0-9.eE+-]+)\s*</max_isometric_force>",
                                         lambda m: f"<max_isometric_force>{float(m.group(1)) / 10}"
                                                   "</max_isometric_force>", text))
    assert main(argv + ["--model", str(weak), "--reserves", str(ref["reserves"]), "--out", str(tmp_path / "weak")]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    leaned = [line for line in err if line.startswith("reserve ") and "carried more than 10% of" in line]
    assert any(line.startswith("reserve knee_angle_r_reserve carried more than 10% of knee_angle_r's moment")
               for line in leaned), err
    assert not any("cannot reproduce" in line for line in err)

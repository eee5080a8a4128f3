"""``humanbody simulate``: a spec with springs, torques and foot contacts -> a trial that ``analyze`` reads;
its joint moments (with the contact forces as the external loads) are the simulation's own torques."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _cli import run_main

import humanbody as hb
from humanbody.cli import main
from humanbody.mechanics.dynamics import generalized_forces

ROOT = Path(__file__).resolve().parents[2]

SPEC = """
duration = 0.4
rate_hz = 200
name = "drop"

[model]
mass = 70.0
height = 1.70

[initial]
lower_torso_z = 0.99
right_upper_leg_alpha = 10.0
right_lower_leg_alpha = -15.0

[springs]
stiffness = 150.0
damping = 5.0
[springs.right_lower_leg]
stiffness = [300.0, 200.0, 300.0]

[torques]
left_lower_leg_alpha = { offset = -2.0, sine = { amplitude = 10.0, frequency_hz = 3.0 } }
right_upper_leg_alpha = { step = { time = 0.2, before = 0.0, after = 6.0 } }

[[contacts]]
name = "right_heel"
body = "right_foot"
point = [-0.03, 0.0, -0.075]
stiffness = 8.0e4
damping = 800.0
tangential_stiffness = 2.0e4
tangential_damping = 400.0

[[contacts]]
name = "left_heel"
body = "left_foot"
point = [-0.03, 0.0, -0.075]
stiffness = 8.0e4
damping = 800.0
tangential_stiffness = 2.0e4
tangential_damping = 400.0

[solver]
rtol = 1e-9
atol = 1e-10
"""


def _run(*args):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "humanbody", *args], capture_output=True, text=True, env=env)


@pytest.mark.slow
def test_simulate_then_analyze_returns_the_torques(tmp_path):
    spec = tmp_path / "drop.toml"
    spec.write_text(SPEC)
    out = tmp_path / "out"
    assert main(["simulate", str(spec), "--out", str(out), "-q"]) == 0
    coords = pd.read_csv(out / "drop_coordinates.csv")
    contacts = pd.read_csv(out / "drop_contacts.csv")
    assert contacts["right_heel_force_z"].max() > 100.0  # the feet land and carry weight
    res_dir = tmp_path / "res"
    r = _run("analyze", str(out / "drop_coordinates.csv"), "--out", str(res_dir), "--model",
             str(out / "drop_model.json"), "--forces", str(out / "drop_contacts.csv"), "--load",
             "right_heel=right_foot", "--load", "left_heel=left_foot", "--forces-cutoff", "0",
             "--force-threshold", "0", "-q")
    assert r.returncode == 0, r.stderr
    res = pd.read_csv(res_dir / "drop_coordinates_results.csv")
    model = hb.load_model(out / "drop_model.json")
    names = model.names
    jf = np.stack([res[[f"{n}_joint_force_{a}" for a in "xyz"]].to_numpy() for n in names], axis=1)
    jm = np.stack([res[[f"{n}_joint_moment_{a}" for a in "xyz"]].to_numpy() for n in names], axis=1)
    cols = hb.coordinate_columns(model)
    tau = generalized_forces(model, coords[cols].to_numpy(), jf, jm)
    want = pd.read_csv(out / "drop_torques.csv")[[c + "_tau" for c in cols]].to_numpy()
    scale = np.abs(want).max()
    np.testing.assert_allclose(tau, want, atol=2e-6 * scale)  # the root's residual is zero: no force missing
    assert np.abs(want[:, cols.index("left_lower_leg_alpha")]).max() > 5.0


@pytest.mark.parametrize("text, message", [
    ("rate_hz = 100", "no duration"),
    ("duration = -1", "duration must be positive"),
    ("duration = 1\n[initial]\nknee = 3", "'knee' is not a coordinate"),
    ("duration = 1\n[torques]\nright_lower_leg_alpha = 'x'", "must be a number"),
    ("duration = 1\n[torques]\nright_lower_leg_alpha = { square = 1 }", "unknown key 'square'"),
    ("duration = 1\n[[contacts]]\nbody = 'tail'", "body must be a segment"),
    ("duration = 1\nspeed = 3", "unknown key 'speed'"),
    ("duration = ", "not valid TOML"),
])
def test_bad_spec_is_one_line_and_exit_2(tmp_path, text, message):
    spec = tmp_path / "bad.toml"
    spec.write_text(text)
    run = _run if message == "no duration" else run_main  # one in a real process, the others in this one
    r = run("simulate", str(spec), "--out", str(tmp_path / "o"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and str(spec) in lines[0] and message in lines[0], r.stderr


def test_missing_spec(tmp_path):
    r = _run("simulate", str(tmp_path / "none.toml"), "--out", str(tmp_path / "o"))
    assert r.returncode == 2 and "cannot read" in r.stderr and r.stderr.count("\n") == 1

"""Residual reduction on a run (docs/kinetics.md "Residual reduction"): a synthetic treadmill-free run with
flight phases whose true residuals are zero, perturbed as a lab's run is (marker noise on every coordinate,
a wrong mass distribution and trunk mass centre, noisy centres of pressure), analysed with the default
options: ``--reduce-residuals`` must meet Hicks et al.'s peak residual force (at most 5 % of the peak ground
reaction) with the body moved at most 2 cm RMS, in at most five times the default analysis' time.

The run: six steps of 0.36 s (0.22 s stance, 0.14 s flight) at 3.5 m/s, 200 Hz.  Every joint and the pelvis's
orientation move in C2 bumps inside the stances and stand still in flight, so the body's angular momentum in
flight is zero; the pelvis height follows a ballistic parabola in flight (z'' = -g) and is pushed up in stance
with a 25 ms impact, so the exact ground reaction (what the model doing the motion needs) is zero in flight:
peak about 2.8 body weights."""

from __future__ import annotations

import json
import time

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.cli import main
from humanbody.mechanics.kinematics import compute_motion, prepare_motion
from humanbody.mechanics.root_tracking import POINT_MAX, POINT_RMS, point_motion, track_root
from tests.mechanics.test_residual_reduction import _exact_loads, _perturbed

RATE, STEP, STANCE, STEPS, G, SPEED, MASS = 200.0, 0.36, 0.22, 6, 9.81, 3.5, 70.0


def _bump(s):
    """sin^3(pi s) on [0, 1] and its first two derivatives in s: zero with them at both ends (C2)."""
    inside = (s > 0) & (s < 1)
    a = np.pi * np.clip(s, 0, 1)
    b = np.where(inside, np.sin(a) ** 3, 0.0)
    bd = np.where(inside, 3 * np.sin(a) ** 2 * np.cos(a) * np.pi, 0.0)
    bdd = np.where(inside, (6 * np.sin(a) * np.cos(a) ** 2 - 3 * np.sin(a) ** 3) * np.pi ** 2, 0.0)
    return b, bd, bdd


def _pelvis_height(t):
    """z, z', z'' (m, m/s, m/s^2) of the pelvis: -g in flight, pushed up in stance (sin^2 and a 25 ms impact)
    so that each stance turns the landing velocity -v0 into the take-off velocity v0; integrated on a grid 200
    times finer than the frames."""
    n = 200
    fine = np.arange(0.0, t[-1] + 0.5 / (RATE * n), 1.0 / (RATE * n))
    v0 = G * (STEP - STANCE) / 2
    zdd = np.full(fine.size, -G)
    for k in range(STEPS):
        s = (fine - k * STEP) / STANCE
        inside = (s >= 0) & (s < 1)
        impact = np.where(inside & (s * STANCE < 0.025), np.sin(np.pi * s * STANCE / 0.025) ** 2, 0.0)
        shape = np.where(inside, np.sin(np.pi * s) ** 2, 0.0) + impact
        zdd += (2 * v0 + G * STANCE) / np.trapezoid(shape[inside], fine[inside]) * shape
    zd = -v0 + np.concatenate([[0.0], np.cumsum((zdd[1:] + zdd[:-1]) / 2)]) / (RATE * n)
    z = np.concatenate([[0.0], np.cumsum((zd[1:] + zd[:-1]) / 2)]) / (RATE * n)
    i = np.round(t * RATE * n).astype(int)
    return z[i], zd[i], zdd[i]


def running(model, seed=1):
    """The run's coordinates with exact rates and the stance side of every frame (0 right, 1 left, -1 flight)."""
    rng = np.random.default_rng(seed)
    cols = hb.coordinate_columns(model)
    t = np.arange(0.0, STEPS * STEP, 1.0 / RATE)
    F = t.size
    q, qd, qdd = ({c: np.zeros(F) for c in cols} for _ in range(3))
    side = np.full(F, -1)
    for k in range(STEPS):
        b, bd, bdd = _bump((t - k * STEP) / STANCE)
        side[(t >= k * STEP) & (t < k * STEP + STANCE)] = k % 2
        for c in cols[3:]:
            leg = "leg" in c or "foot" in c
            amp = rng.uniform(0.2, 0.45) * (1.0 if ("right" in c) == (k % 2 == 0) else -0.6) if leg \
                else rng.uniform(0.03, 0.1)
            amp *= 1.0 if c.endswith("_alpha") else 0.3
            q[c] += amp * b
            qd[c] += amp * bd / STANCE
            qdd[c] += amp * bdd / STANCE ** 2
    z, zd, zdd = _pelvis_height(t)
    q["lower_torso_z"], qd["lower_torso_z"], qdd["lower_torso_z"] = 0.95 + z, zd, zdd
    q["lower_torso_x"], qd["lower_torso_x"] = SPEED * t, np.full(F, SPEED)
    data = {"time": t, **q, **{c + "_dot": qd[c] for c in cols}, **{c + "_ddot": qdd[c] for c in cols}}
    return pd.DataFrame(data), side


@pytest.fixture(scope="module")
def run():
    truth = hb.BodyModel.default(mass=MASS, height=1.75)
    coords, side = running(truth)
    motion = prepare_motion(truth, coords)
    return truth, coords, side, motion, _exact_loads(truth, motion)


def test_the_run_has_flight_phases_and_no_true_residual(run):
    truth, coords, side, motion, loads = run
    E = loads.force.sum(axis=1)
    weight = MASS * G
    assert (side < 0).mean() > 0.35 and np.linalg.norm(E[side < 0], axis=1).max() < 1e-9 * weight
    assert 2.3 < np.linalg.norm(E, axis=1).max() / weight < 3.5


@pytest.fixture(scope="module")
def run_files(run, tmp_path_factory):
    """The run as a lab records it: coordinates with 2 mm and 0.5 deg noise (rates left to the library), the
    ground reaction of each stance foot at a centre of pressure with 5 mm noise, the model's masses off by
    6-10 % on four segments and the trunk's mass centre by 36 mm."""
    truth, coords, side, motion, loads = run
    rng = np.random.default_rng(2)
    folder = tmp_path_factory.mktemp("run")
    cols = hb.coordinate_columns(truth)
    noisy = coords[["time"] + cols].copy()
    noisy[cols[:3]] += rng.normal(0, 0.002, (len(noisy), 3))
    noisy[cols[3:]] += rng.normal(0, np.radians(0.5), (len(noisy), len(cols) - 3))
    noisy.to_csv(folder / "run.csv", index=False)
    res = compute_motion(truth, motion)
    E, M = loads.force.sum(axis=1), loads.moment_o.sum(axis=1)
    table = {"time": motion.time}
    for j, (name, foot) in enumerate((("r", "right_foot"), ("l", "left_foot"))):
        on = (side == j)[:, None]
        Ej, Mj = np.where(on, E, 0.0), np.where(on, M, 0.0)
        p = np.zeros_like(Ej)
        p[:, :2] = res.joint[:, truth.names.index(foot), :2]
        Mp = Mj - np.cross(p, Ej)  # the moment about the true centre of pressure; the point written is noisy
        p += np.where(on, rng.normal(0, 0.005, p.shape) * [1.0, 1.0, 0.0], 0.0)
        for a, axis in enumerate("xyz"):
            table[f"{name}_force_{axis}"], table[f"{name}_point_{axis}"] = Ej[:, a], p[:, a]
            table[f"{name}_moment_{axis}"] = Mp[:, a]
    pd.DataFrame(table).to_csv(folder / "run_forces.csv", index=False)
    scale = np.ones(truth.n_bodies)
    for name, s in (("middle_torso", 1.1), ("upper_torso", 0.9), ("right_upper_leg", 1.06), ("left_lower_leg", 0.94)):
        scale[truth.names.index(name)] = s
    _perturbed(truth, scale, [0.02, 0.0, -0.03]).save(folder / "start.json")
    return folder


def _analyze(folder, out, *extra):
    start = time.perf_counter()
    status = main(["analyze", str(folder / "run.csv"), "--model", str(folder / "start.json"), "--forces",
                   str(folder / "run_forces.csv"), "--load", "r=right_foot", "--load", "l=left_foot", "--out",
                   str(out), "-q", *extra])
    assert status == 0
    return time.perf_counter() - start


def test_a_perturbed_run_meets_both_criteria(run_files, tmp_path):
    """Measured: peak residual force 40 % of the peak ground reaction before, 1.5 % after, the body moved
    11.0 mm RMS (34.9 mm at most).  Its time against the default analysis' (3.2x) is benchmarks/bench_reduce.py's
    figure, not a test's."""
    _analyze(run_files, tmp_path / "red", "--reduce-residuals")
    rec = json.loads((tmp_path / "red" / "run_model.json").read_text())["residual_reduction"]
    peak = rec["peak_external_force_N"]
    assert rec["before"]["force_peak"] / peak > 0.3  # the perturbations matter
    assert rec["applied"], rec.get("reason")
    assert rec["after"]["force_peak"] / peak <= 0.05 and rec["marker_change_rms_m"] <= 0.02


def test_the_body_stays_within_the_limits_whatever_the_later_steps_do(run, monkeypatch):
    """The penalty is chosen on the first linearisation; the step about its solution (a chord Gauss-Newton
    step) may move the body further on a run, whose residual is far from linear in the root's pose (flight,
    impacts): the penalty is then raised until the final change keeps the limits.  Checked for limits from
    2 mm to 15 mm RMS on the unperturbed run with smoothed rates (this run's second steps stay within them;
    the guard is for runs whose do not, as the held-out treadmill run's moved the markers 24.7 mm)."""
    from humanbody.mechanics import root_tracking
    from humanbody.mechanics.residuals import external_loads

    truth, coords, _, _, loads = run
    cols = hb.coordinate_columns(truth)
    motion = prepare_motion(truth, coords[["time"] + cols])  # the library's rates: the flight is smoothed
    res = compute_motion(truth, motion)
    ext = external_loads(loads)
    pts = np.concatenate([res.joint, res.com], axis=1)
    for limit in (0.002, 0.004, 0.008, POINT_RMS):
        monkeypatch.setattr(root_tracking, "POINT_RMS", limit)
        tracked = track_root(truth, motion, ext, np.ones(motion.n_frames, bool), ext.peak_force, ext.peak_force, pts)
        d = point_motion(pts, motion.q[:, :3], tracked.change)
        assert np.sqrt(np.mean(d ** 2)) <= limit * (1 + 1e-9) and d.max() <= POINT_MAX, limit


def test_a_criterion_it_cannot_meet_is_named_in_one_line(run_files, tmp_path):
    """The run with the vertical force of its third stance half again too large (a load no body motion within
    2 cm explains): the reduction keeps the markers within 2 cm, so the residual force is the criterion it cannot
    meet; one log line names it and why, the default results are kept (model.json: applied false, the reason)."""
    forces = pd.read_csv(run_files / "run_forces.csv")
    stance = (forces["time"] >= 2 * STEP) & (forces["time"] < 2 * STEP + STANCE)
    forces.loc[stance, "r_force_z"] *= 1.5
    folder = tmp_path / "in"
    folder.mkdir()
    forces.to_csv(folder / "run_forces.csv", index=False)
    for name in ("run.csv", "start.json"):
        (folder / name).write_bytes((run_files / name).read_bytes())
    _analyze(folder, tmp_path / "out", "--reduce-residuals")
    rec = json.loads((tmp_path / "out" / "run_model.json").read_text())["residual_reduction"]
    assert not rec["applied"]
    assert rec["criteria"]["marker_rms"]["met"] and not rec["criteria"]["hicks_force"]["met"], rec["criteria"]
    log = (tmp_path / "out" / "run_log.txt").read_text().splitlines()
    lines = [line for line in log if "residual reduction: not applied" in line]
    assert len(lines) == 1, log
    assert "peak residual force stays at" in lines[0] and "markers within 2 cm" in lines[0], lines[0]
    assert "default results kept" in lines[0], lines[0]

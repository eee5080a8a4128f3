"""Static optimization against OpenSim's own, on the shared walk (gait2392 subject01, the Joint Reaction tutorial's setup).

OpenSim's AnalyzeTool runs once per machine (tests/muscles/_opensim_reference.py,
cached by the inputs' hash).  These tests take OpenSim's per-frame states
(lengths, lengthening speeds, moment arms) so that they test the muscle
capacity and the optimization themselves; the generalised forces are the
ones OpenSim's optimum reproduces.
"""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.muscles import read_reserves, solve
from humanbody.muscles.capacity import capacity, read_muscles
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
def muscles(ref):
    return read_muscles(ref["model"], tuple(str(n) for n in ref["states"]["muscles"]))


def test_capacity_equals_opensims(ref, muscles):
    """Thelen2003Muscle with a rigid tendon: every muscle, every frame, as OpenSim computes it."""
    st = ref["states"]
    ours = capacity(muscles, st["L"], st["dL"])
    np.testing.assert_allclose(ours, st["capacity"], rtol=1e-6, atol=1e-6)


def opensim_problem(ref, muscles):
    st = ref["states"]
    coords = [str(c) for c in st["coordinates"]]
    reserves = read_reserves(ref["reserves"], coords)
    forces = ref["forces"]
    act = ref["activations"]
    nm = len(muscles.names)
    F_os = forces[list(muscles.names)].to_numpy()
    R_os = forces[list(reserves.names)].to_numpy()
    tau = np.einsum("fm,fmc->fc", F_os, st["R"])
    for k, j in enumerate(reserves.coordinates):
        tau[:, j] += R_os[:, k]
    x_os = np.concatenate([act[list(muscles.names)].to_numpy(), act[list(reserves.names)].to_numpy()], axis=1)
    return reserves, tau, x_os, nm


def test_activations_equal_opensims(ref, muscles):
    """Same states, same generalised forces: OpenSim's optimum to its optimizer's tolerance."""
    st = ref["states"]
    reserves, tau, x_os, nm = opensim_problem(ref, muscles)
    opt = solve(st["capacity"], st["R"], tau, reserves, muscles.min_control, muscles.max_control, exponent=2.0)
    assert np.all(opt.iterations >= 0)
    rms = np.sqrt(np.mean((opt.controls[:, :nm] - x_os[:, :nm]) ** 2, axis=0))
    assert np.median(rms) < 0.01 and rms.max() < 0.025, (np.median(rms), rms.max())
    # ours is the optimum: never costlier than OpenSim's point, which meets the same constraints
    cost_ours = np.sum(opt.controls ** 2, axis=1)
    cost_os = np.sum(x_os ** 2, axis=1)
    assert np.all(cost_ours <= cost_os * (1 + 1e-6))


def test_forces_are_activation_times_capacity(ref, muscles):
    """OpenSim's muscle force column is a F (no passive part): the problem our optimum solves."""
    st = ref["states"]
    F = ref["forces"][list(muscles.names)].to_numpy()
    a = ref["activations"][list(muscles.names)].to_numpy()
    np.testing.assert_allclose(F, a * st["capacity"], rtol=1e-5, atol=1e-4)


def test_millard_capacity_equals_opensims():
    """Rajagopal 2016's Millard2012Equilibrium muscles at random poses and speeds: OpenSim's SO capacity."""
    shared = require_shared()
    pytest.importorskip("opensim")
    st = osr.rajagopal_states(shared)
    muscles = read_muscles(st["model"], tuple(str(n) for n in st["muscles"]))
    assert set(muscles.kinds) == {"Millard2012EquilibriumMuscle"}
    ours = capacity(muscles, st["L"], st["dL"])
    np.testing.assert_allclose(ours, st["capacity"], rtol=1e-9, atol=1e-8)


def test_coordinates_filtered_and_differentiated_as_opensim(ref):
    """Pad, third-order Butterworth both ways, natural quintic spline: OpenSim's q and u.

    OpenSim resamples the file's 8-digit times onto an even grid 7e-7 s early;
    the tolerances are that shift times the walk's speeds and accelerations."""
    from humanbody.muscles.coordinates import opensim_kinematics

    ik = osr.read_sto(ref["ik"])
    st = ref["states"]
    cols = [str(c) for c in st["coordinates"]]
    q = ik[cols].to_numpy().copy()
    rot = [not c.endswith(("_tx", "_ty", "_tz")) for c in cols]
    q[:, rot] = np.deg2rad(q[:, rot])
    Q, U, _ = opensim_kinematics(ik["time"].to_numpy(), q, osr.CUTOFF_HZ)
    t = ik["time"].to_numpy()
    sel = (t > osr.START - 1e-3) & (t < osr.END + 1e-3)
    np.testing.assert_allclose(Q[sel], st["q"], atol=2e-5)
    np.testing.assert_allclose(U[sel], st["u"], atol=3e-4)

"""Body poses, muscle lengths and moment arms of OpenSim models on the core, against OpenSim 4.6 and finite
differences."""

from __future__ import annotations

import numpy as np
import pytest
from _osim_cases import CASES

from humanbody.errors import InputError
from humanbody.muscles import MuscleGeometry, read_model_coordinates
from tests.muscles.test_paths_opensim import TWO_WRAPS

pytest.importorskip("opensim")
CASE_NAMES = ["gait2392_walk", "gait2392_generic_poses", "rajagopal_poses"]


@pytest.fixture(scope="module")
def results():
    return {}


def _run(name, results):
    if name not in results:
        case = CASES[name]
        ref = case.reference()
        geometry = MuscleGeometry.of(case.model)
        results[name] = (case, ref, geometry, geometry.compute(ref["q"]))
    return results[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", CASE_NAMES)
def test_bodies_where_opensim_puts_them(shared_data, name, results):
    case, ref, geometry, paths = _run(name, results)
    data, R, O = geometry._poses(ref["q"])
    assert np.abs(R - ref["R"]).max() < 1e-9 and np.abs(O - ref["p"]).max() < 1e-9      # rad, m
    assert np.allclose(paths.q, ref["q"], atol=1e-12, rtol=0)                          # couplers satisfied


@pytest.mark.slow
@pytest.mark.parametrize("name", CASE_NAMES)
def test_lengths_and_moment_arms_equal_opensims(shared_data, name, results):
    case, ref, geometry, paths = _run(name, results)
    assert np.abs(paths.lengths - ref["lengths"]).max() < 1e-12         # m, every muscle
    theirs = ref["moment_arms"]
    mask = ~np.isnan(theirs)
    assert mask.sum() > 1000
    assert np.abs(paths.moment_arms - np.nan_to_num(theirs))[mask].max() < 1e-12     # m, every muscle


@pytest.mark.slow
def test_rates_are_the_lengths_derivatives(shared_data, results):
    """Moment arms are -dL/dq and velocities dL/dt (central differences, the couplers following) on paths
    without wrapping; over a cylinder OpenSim's tangent points are not exactly the shortest path's, so its
    moment arm (tension carried by the straight segments), which ours equals, differs from -dL/dq by < 1 mm.
    The gastrocnemii over two cylinders are left out: OpenSim's stale tangent points (muscle_paths' notes),
    which ours follow, put their moment arms up to 15 mm off the derivative of their lengths."""
    case, ref, geometry, _ = _run("rajagopal_poses", results)
    free = np.array([not m.wraps for m in case.model.muscles])
    one = np.array([m not in TWO_WRAPS for m in case.model.muscle_names])
    assert 20 < free.sum() < len(free)
    q = ref["q"][:5]
    h = 1e-6
    paths = geometry.compute(q, qd=np.ones_like(q) * 0.3)
    moved = geometry.compute(q)
    for c in (case.model.coordinate_names.index("knee_angle_r"), case.model.coordinate_names.index("hip_flexion_l")):
        dq = np.zeros_like(q)
        dq[:, c] = h
        fd = (geometry.lengths(q + dq) - geometry.lengths(q - dq)) / (2 * h)
        err = np.abs(moved.moment_arms[:, :, c] + fd)
        assert err[:, free].max() < 1e-6 and err[:, one].max() < 1e-3
    step = np.ones_like(q) * 0.3 * h
    fd = (geometry.lengths(q + step) - geometry.lengths(q - step)) / (2 * h)
    err = np.abs(paths.velocities - fd)
    assert err[:, free].max() < 1e-6 and err[:, one].max() < 1e-3


def test_coordinates_file_checked(shared_data, tmp_path):
    model = CASES["gait2392_walk"].model
    time, q = read_model_coordinates(shared_data / "gait2392_walk" / "reference" / "opensim_ik.mot", model)
    assert q.shape == (len(time), 23) and abs(q[0, model.coordinate_names.index("pelvis_ty")] - 1.0332) < 1e-3
    bad = tmp_path / "bad.mot"
    bad.write_text("Coordinates\nversion=1\ninDegrees=yes\nendheader\ntime\tknee_angle_r\n0\t10\n0.01\t11\n")
    with pytest.raises(InputError, match="has no column for the model's coordinates pelvis_tilt"):
        read_model_coordinates(bad, model)

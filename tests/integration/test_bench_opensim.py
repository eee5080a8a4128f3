"""The OpenSim side-by-side benchmark: trial tiling and the OpenSim model of our subject.

The tiling tests need neither OpenSim nor the shared data; the model tests
skip without ``opensim`` (the ``bench`` extra) or the shared walk.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from _shared import WALK

ROOT = Path(__file__).resolve().parents[2]
DATA = WALK
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_long_trial as blt  # noqa: E402
import bench_opensim_ik as boi  # noqa: E402


def _periodic_walk(n=150, period=61, markers=4):
    t = np.arange(n)[:, None, None]
    phase = np.arange(markers * 3).reshape(1, markers, 3)
    return np.sin(2 * np.pi * t / period + phase) + 0.001 * t  # slow drift: not exactly periodic


def test_best_cycle_finds_the_period():
    a, p, rms = blt.best_cycle(_periodic_walk())
    assert p in (61, 122)
    assert rms < 0.2


def test_tiled_cycle_joins_without_a_jump():
    P = _periodic_walk()
    a, p, _ = blt.best_cycle(P)
    T = blt.tile_cycle(P, a, p, 1000)
    assert T.shape == (1000,) + P.shape[1:]
    steps = np.abs(np.diff(T, axis=0)).max(axis=(1, 2))
    inside = steps[: p - 1].max()
    assert steps[p - 1] <= 1.5 * inside  # the seam step is an ordinary step
    np.testing.assert_allclose(T[p:2 * p], T[:p])  # exact repetition, no accumulated drift


def test_trc_written_reads_back(tmp_path):
    from humanbody.io import markers_array, read_trial

    P = 1000.0 * _periodic_walk(n=20)
    path = tmp_path / "w.trc"
    blt.write_trc(path, ["A", "B", "C", "D"], 60.0, P)
    df = read_trial(path)
    names, Q = markers_array(df)
    assert list(names) == ["A", "B", "C", "D"]
    np.testing.assert_allclose(1000.0 * Q, P, atol=1e-4)
    assert df.attrs["rate_hz"] == pytest.approx(60.0)


def test_opensim_rounds_merge_into_best_and_median():
    a = {"frames": 151, "ik_seconds_runs": [0.5, 0.6, 0.7], "tool_seconds": 0.9, "peak_rss_mb": 500, "dof": 23,
         "process_seconds_runs": [1.0, 1.2]}
    b = {"frames": 151, "ik_seconds_runs": [0.4, 0.8, 0.9], "tool_seconds": 0.8, "peak_rss_mb": 510, "dof": 23,
         "process_seconds_runs": [1.1, 1.4]}
    m = blt._merge_ik([a, b])
    assert m["ik_seconds_runs"] == [0.4, 0.5, 0.6, 0.7, 0.8, 0.9] and m["rounds"] == 2
    assert m["ik_frames_per_s"] == pytest.approx(151 / 0.4, abs=0.1)
    assert m["ik_frames_per_s_median"] == pytest.approx(151 / 0.65, abs=0.1)
    assert m["tool_frames_per_s"] == pytest.approx(151 / 0.8, abs=0.1) and m["peak_rss_mb"] == 510
    assert m["process_seconds_runs"] == [1.0, 1.1, 1.2, 1.4]
    assert m["process_frames_per_s"] == pytest.approx(151.0, abs=0.1)
    assert m["process_frames_per_s_median"] == pytest.approx(151 / 1.15, abs=0.1)
    assert blt._merge_ik([{"skipped": "no opensim"}]) == {"skipped": "no opensim"}


def _chain_offset(model, seg):
    """O_k - O_1 (m) in the reference pose: the joint offsets xi summed down the chain."""
    k = model.names.index(seg) + 1
    out = np.zeros(3)
    while k > 1:
        out += model.joint_offset[k - 1]
        k = model.parents[k - 1]
    return out


@pytest.fixture(scope="module")
def subject(shared_data):
    pytest.importorskip("opensim")
    return boi.calibrated_subject(DATA / "subject01_walk1.trc", DATA / "subject01_static.trc")


@pytest.mark.parametrize("tree, dof, bodies", [("gait2392", 23, 12), ("humanbody", 54, 17)])
def test_model_topology_and_mass(subject, tree, dof, bodies):
    import opensim as osim

    build = boi.build_gait2392_tree if tree == "gait2392" else boi.build_humanbody_tree
    model, n = build(osim, subject.model, subject.calibration)
    model.initSystem()
    assert n == dof == model.getCoordinateSet().getSize()
    assert model.getBodySet().getSize() == bodies
    assert model.getMarkerSet().getSize() == 41
    total = sum(b.getMass() for b in model.getBodySet())
    extra = 4 * boi._NOMINAL_MASS if tree == "gait2392" else 0.0
    assert total == pytest.approx(subject.model.total_mass + extra, rel=1e-9)


def test_default_pose_puts_leg_markers_where_calibration_saw_them(subject):
    """Pelvis at its standing pose, joints at 0: markers at O_k + R_k local of the same pose."""
    import opensim as osim

    from humanbody.lab.axes import parse_axes

    cal = subject.calibration
    model, _ = boi.build_humanbody_tree(osim, subject.model, cal)
    state = model.initSystem()
    R0, O0 = boi._pose(cal, "lower_torso")
    M = parse_axes("opensim")
    for marker in model.getMarkerSet():
        seg = next(s for s, v in cal.local.items() if marker.getName() in v)
        if seg.endswith("arm"):
            continue  # shoulders at 0 in the default pose, abducted in the static trial
        loc = marker.getLocationInGround(state)
        got = M @ np.array([loc.get(i) for i in range(3)])
        # the default pose of our 17-segment tree is the reference pose (all joints 0)
        want = O0 + R0 @ (_chain_offset(subject.model, seg) + np.asarray(cal.local[seg][marker.getName()]))
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_whole_ik_process_runs_the_setup_file(subject, tmp_path):
    """The ``process`` timing runs OpenSim's IK from the setup file it writes, on every frame."""
    import opensim as osim

    model, _ = boi.build_gait2392_tree(osim, subject.model, subject.calibration)
    model_file = tmp_path / "m.osim"
    model.printToXML(str(model_file))
    secs = boi.run_process(osim, osim.Model(model), model_file, DATA / "subject01_walk1.trc", tmp_path, repeat=1)
    assert len(secs) == 1 and secs[0] > 0
    mot = boi._read_mot(tmp_path / "opensim_ik_process.mot")
    assert len(mot) == 151

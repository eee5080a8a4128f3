"""humanbody.trial: the Trial object, its round trip to the readers' DataFrame, markers and plates under one mapping."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

import humanbody
from humanbody.lab.axes import to_ground
from humanbody.trial import Trial, load_trial

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


@pytest.mark.parametrize("name", ["sample_walk_markers.trc", "sample_walk.csv", "sample_walk_imu.sto"])
def test_round_trip_equals_the_top_level_reader(name):
    """Trial.read(path).to_frame() is humanbody.read_trial(path): values, columns, index and attrs."""
    frame = humanbody.read_trial(DATA / name)
    trial = humanbody.Trial.read(DATA / name)
    assert isinstance(frame, pd.DataFrame) and "time" in frame.columns  # the documented top-level contract
    again = trial.to_frame()
    pd.testing.assert_frame_equal(again, frame, check_exact=True)
    assert again.attrs == frame.attrs
    np.testing.assert_array_equal(trial.time, frame["time"].to_numpy())
    assert trial.kind == frame.attrs["kind"] and trial.n_frames == len(frame)
    np.testing.assert_array_equal(trial.values, frame.drop(columns="time").to_numpy(dtype=float)
                                  if trial.kind != "markers" else trial.table[:, 1:])
    assert humanbody.trial.load_trial is load_trial  # the module is an attribute of the package


def test_marker_trial_is_in_ground_axes_as_to_ground_gives_it():
    path = DATA / "sample_walk_markers.trc"
    frame = humanbody.read_trial(path)
    ground, mapping = to_ground(frame)
    trial = load_trial(path)
    assert trial.axes.spec == mapping.spec == "x,-z,y"  # a Y-up lab
    pd.testing.assert_frame_equal(trial.to_frame("ground"), ground, check_exact=True)
    assert trial.to_frame("ground").attrs == ground.attrs
    M = len(trial.marker_names)
    assert trial.markers.shape == (len(frame), M, 3)
    assert np.shares_memory(trial.markers, trial.table)  # arrays inside: a view, no copy
    lab = frame[[f"{n}_{a}" for n in trial.marker_names for a in "xyz"]].to_numpy().reshape(-1, M, 3)
    np.testing.assert_array_equal(trial.markers, lab @ mapping.matrix.T)
    assert trial.log[-1].startswith("axes: lab -> ground axes 'x,-z,y'")


def _write_grf(path: Path, time, force_lab, point_lab):
    """An OpenSim ground-reaction file (one plate, ``ground_force_``) in the lab's own axes."""
    cols = ["time"] + [f"ground_force_v{a}" for a in "xyz"] + [f"ground_force_p{a}" for a in "xyz"] \
        + [f"ground_torque_{a}" for a in "xyz"]
    rows = np.column_stack([time, force_lab, point_lab, np.zeros_like(force_lab)])
    head = f"grf.mot\nversion=1\nnRows={len(rows)}\nnColumns={len(cols)}\ninDegrees=yes\nendheader\n"
    body = "\n".join("\t".join(repr(float(v)) for v in r) for r in rows)
    path.write_text(head + "\t".join(cols) + "\n" + body + "\n")


def test_markers_and_plates_share_one_mapping_in_a_y_up_lab(tmp_path):
    """A plate whose point is a marker's lab position lands on that marker in ground axes, under any mapping.

    The force is vertical in the lab (lab +y, body weight): in ground axes it
    is +Z.  The mapping given, "-x,z,y" (the subject walking toward lab -x), is
    not what the plates alone would give ("x,-z,y" from their vertical axis),
    so the plate point equals the marker only when both use the markers' mapping.
    """
    path = DATA / "sample_walk_markers.trc"
    frame = humanbody.read_trial(path)
    name = frame.attrs["markers"][0]
    lab = frame[[f"{name}_{a}" for a in "xyz"]].to_numpy()
    force = np.tile([0.0, 700.0, 0.0], (len(frame), 1))
    grf = tmp_path / "walk_grf.mot"
    _write_grf(grf, frame["time"].to_numpy(), force, lab)
    for axes in ("auto", "-x,z,y"):
        trial = Trial.read(path, forces=grf, axes=axes)
        k = trial.marker_names.index(name)
        np.testing.assert_array_equal(trial.forces.point[:, 0], trial.markers[:, k])
        np.testing.assert_array_equal(trial.forces.force[:, 0], np.tile([0.0, 0.0, 700.0], (len(frame), 1)))
        assert trial.plates and trial.plates[0].normal[2] == pytest.approx(1.0)
    from humanbody.io.loads import read_loads

    alone = read_loads(grf)  # the plates' own vertical axis: the other forward
    assert not np.allclose(alone.point[:, 0], trial.forces.point[:, 0])



def test_one_name_one_return_type(tmp_path):
    """read_* give DataFrames in lab axes, load_* the analysis' objects in ground axes; no old alias in trial.

    The force file is vertical along lab +y: its DataFrame keeps the lab
    column, its LoadTable (the plates' own vertical axis) has the force on +Z.
    """
    from humanbody.io import read_forces
    from humanbody.io.loads import LoadTable
    from humanbody.trial import load_forces

    path = DATA / "sample_walk_markers.trc"
    assert isinstance(humanbody.read_trial(path), pd.DataFrame)
    assert isinstance(humanbody.io.read_trial(path), pd.DataFrame)
    assert isinstance(load_trial(path), Trial) and isinstance(Trial.read(path), Trial)
    time = np.linspace(0.0, 0.1, 11)
    force = np.tile([0.0, 700.0, 0.0], (len(time), 1))
    grf = tmp_path / "walk_grf.mot"
    _write_grf(grf, time, force, np.zeros_like(force))
    frame = read_forces(grf)
    assert isinstance(frame, pd.DataFrame)
    np.testing.assert_array_equal(frame["ground_force_vy"].to_numpy(), force[:, 1])
    table = load_forces(grf)
    assert isinstance(table, LoadTable)
    np.testing.assert_array_equal(table.force[:, 0], np.tile([0.0, 0.0, 700.0], (len(time), 1)))
    for name in ("read_trial", "read_forces"):  # one meaning per name: the DataFrame readers live in humanbody.io
        assert getattr(humanbody.trial, name, None) in (None, getattr(humanbody.io, name))  # used there, not redefined
        assert name not in humanbody.trial.__all__


def test_read_trial_is_the_one_dataframe_reader():
    """CONVENTIONS.md ("Python API") names ``humanbody.read_trial(path)`` -> a DataFrame: one function under one
    name, defined in io/ and called by that name everywhere (no second name for it)."""
    import warnings
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "data" / "sample_walk.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame = humanbody.read_trial(path)
    assert "time" in frame.columns and frame.attrs["kind"] == "coordinates"
    assert isinstance(Trial.read(path), Trial)
    import humanbody.io as io

    assert humanbody.read_trial is io.read_trial
    assert not hasattr(io, "read_frame") and "read_frame" not in dir(humanbody) and "read_frame" not in io.__all__
    package = Path(humanbody.__file__).parent
    defined = [p for p in package.rglob("*.py") if "def read_trial(" in p.read_text(encoding="utf-8")]
    assert [p.relative_to(package).as_posix() for p in defined] == ["io/__init__.py"]


@needs_shared
def test_shared_walk_plates_under_the_markers_mapping():
    """The gait2392 walk (Y-up TRC and GRF): each plate's centre of pressure lies under a foot while loaded."""
    trial = Trial.read(WALK / "subject01_walk1.trc", forces=WALK / "subject01_walk1_grf.mot")
    assert trial.axes.spec == "x,-z,y"
    loaded = trial.forces.force[..., 2] > 200.0  # N, well into stance
    assert loaded.any(axis=0).all()
    heels = [trial.marker_names.index(n) for n in trial.marker_names if "heel" in n.lower()]
    assert heels
    for j in range(trial.forces.force.shape[1]):
        t = trial.forces.time[loaded[:, j]]
        i = np.clip(np.searchsorted(trial.time, t), 0, trial.n_frames - 1)
        cop = trial.forces.point[loaded[:, j], j]
        d = np.min([np.linalg.norm(trial.markers[i, h, :2] - cop[:, :2], axis=1) for h in heels], axis=0)
        assert np.nanmedian(d) < 0.25  # m: the loaded plate's point is near a heel, in the same ground axes


def test_force_path_computes_each_frame_once(tmp_path, monkeypatch):
    """analyze with forces + write: the kinematics kernel runs once over every frame, not twice."""
    from humanbody.analysis import analyze_trial
    from humanbody.mechanics import kinematics
    from humanbody.trial_output import write_results

    path = DATA / "sample_walk_markers.trc"
    frame = humanbody.read_trial(path)
    name = [n for n in frame.attrs["markers"] if "heel" in n.lower() and n.lower().startswith("r")][0]
    force = np.tile([0.0, 700.0, 0.0], (len(frame), 1))
    grf = tmp_path / "walk_grf.mot"
    _write_grf(grf, frame["time"].to_numpy(), force, frame[[f"{name}_{a}" for a in "xyz"]].to_numpy())
    counted = []
    real = kinematics.run_tree

    def counting(model, time, *args, **kwargs):
        counted.append(len(time))
        return real(model, time, *args, **kwargs)

    analysis = analyze_trial(path, static=DATA / "sample_static.trc", forces=grf, mass=75.0, height=1.75)
    monkeypatch.setattr(kinematics, "run_tree", counting)
    assert analysis.loads is not None and analysis.held_results is not None  # the loads stage computed them
    write_results(analysis, tmp_path / "out", chunk_frames=100)
    assert counted == []  # the write stage took the held kinematics: no frame computed again
    table = pd.read_csv(tmp_path / "out" / "sample_walk_markers_results.csv")
    assert len(table) == analysis.n_frames and "right_grf_z_N_per_kg" in table.columns

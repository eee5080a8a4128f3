"""Inverse kinematics and inverse dynamics on Rajagopal 2016 against OpenSim 4.6 live.

No real trial on Rajagopal's markers is shared, so the trial is made: a smooth motion of every
coordinate a marker depends on, around its default, and the model's markers placed by OpenSim
itself at those coordinates (couplers assembled by OpenSim), written as an OpenSim TRC.  OpenSim's
InverseKinematicsTool (equal weights) and ours solve it; OpenSim's InverseDynamicsTool and ours
take the known coordinates with a zero external load.
"""

from __future__ import annotations

import numpy as np
import pytest
from _osim_ik_reference import id_reference, ik_reference

from humanbody.core import forward_kinematics, marker_jacobian
from humanbody.io import read_opensim
from humanbody.io.opensim_writer import write_external_loads, write_storage, write_trc
from humanbody.muscles.geometry import read_model_coordinates
from humanbody.osim import read_osim
from humanbody.osim.build import build_core_model
from humanbody.osim.id import generalized_force_names, read_external_loads, solve_id
from humanbody.osim.ik import read_ik_setup, solve_ik

pytest.importorskip("opensim")
RATE = 50.0
FRAMES = 26
TOL_DEG, TOL_M = 0.5, 0.002     # OpenSim's IK is 0.31 deg (pro_sup_l) and 0.72 mm off the known


def _motion(cm) -> np.ndarray:
    """Known coordinates (F, nq; OpenSim's order, rad and m): each moved coordinate a sine of its own
    frequency and phase around its default, within its range; the others at their defaults."""
    t = np.arange(FRAMES) / RATE
    rng = np.random.default_rng(7)
    q = np.zeros((FRAMES, len(cm.osim.coordinates)))
    probe = np.zeros((1, cm.model.nq))
    moved = np.abs(marker_jacobian(cm.model, forward_kinematics(cm.model, probe + 0.1))).max(axis=(0, 1, 2)) > 0
    for i, c in enumerate(cm.osim.coordinates):
        lo, hi = c.range
        amp = 0.01 if c.motion_type == "translational" else 0.2
        wave = amp * np.sin(2 * np.pi * rng.uniform(0.5, 1.5) * t + rng.uniform(0, 2 * np.pi))
        free = not c.locked and moved[cm.q_index[i]]
        q[:, i] = np.clip(c.default + wave, lo, hi) if free else c.default
    return q


def _opensim_markers(model_path, names, q, coordinates) -> tuple[np.ndarray, np.ndarray]:
    """OpenSim's assembled coordinates and the markers ``names`` in ground (F, M, 3; m) at ``q``."""
    import opensim as osim  # lazy: test-only reference

    model = osim.Model(str(model_path))
    state = model.initSystem()
    coords = [model.getCoordinateSet().get(n) for n in coordinates]
    markers = [model.getMarkerSet().get(n) for n in names]
    xyz = np.zeros((len(q), len(names), 3))
    out = np.zeros_like(q)
    for f in range(len(q)):
        for c, v in zip(coords, q[f], strict=True):
            c.setValue(state, float(v), False)
        model.assemble(state)
        model.realizePosition(state)
        out[f] = [c.getValue(state) for c in coords]
        for m, mk in enumerate(markers):
            p = mk.getLocationInGround(state)
            xyz[f, m] = (p.get(0), p.get(1), p.get(2))
    return out, xyz


def _setup(path, names) -> None:
    tasks = "".join(f"<IKMarkerTask name=\"{n}\"><apply>true</apply><weight>1</weight></IKMarkerTask>" for n in names)
    path.write_text("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<OpenSimDocument Version=\"40000\">"
                    "<InverseKinematicsTool name=\"ik\"><accuracy>1e-08</accuracy>"
                    f"<IKTaskSet name=\"tasks\"><objects>{tasks}</objects></IKTaskSet>"
                    "</InverseKinematicsTool></OpenSimDocument>\n")


@pytest.fixture(scope="module")
def trial(shared_data, tmp_path_factory):
    model_path = shared_data / "opensim_models" / "rajagopal2016" / "Rajagopal2016.osim"
    cm = build_core_model(read_osim(model_path))
    names = [m.name for m in cm.model.markers]
    q, xyz = _opensim_markers(model_path, names, _motion(cm), cm.osim.coordinate_names)
    folder = tmp_path_factory.mktemp("rajagopal")
    time = np.arange(FRAMES) / RATE
    trc = folder / "made.trc"
    write_trc(trc, names, xyz * 1000.0, time, RATE, unit="mm")
    setup = folder / "setup.xml"
    _setup(setup, names)
    return model_path, cm, names, time, q, xyz, trc, setup, folder


@pytest.mark.slow
def test_ik_equals_opensims(trial):
    """Ours recovers the known coordinates (1e-6 rad, 1e-6 m) and is within 0.5 degree and 2 mm of OpenSim's
    IK of the same markers at every frame: the difference is OpenSim's, whose solution is as far off the
    known coordinates (0.31 degree on the forearm's pronation, 0.72 mm)."""
    model_path, cm, names, time, q, xyz, trc, setup, _ = trial
    ours = solve_ik(cm, names, xyz, read_ik_setup(setup))
    assert np.abs(ours.q - q).max() < 1e-6
    assert np.nanmax(ours.max_error) < 1e-7
    _, theirs = read_model_coordinates(ik_reference(model_path, setup, trc), cm.osim)
    rot = np.array([c.motion_type == "rotational" for c in cm.osim.coordinates])
    err = np.abs(ours.q - theirs).max(axis=0)
    assert np.rad2deg(err[rot]).max() < TOL_DEG and err[~rot].max(initial=0.0) < TOL_M


@pytest.mark.slow
def test_id_equals_opensims(trial):
    """The known coordinates, a zero load on the right calcaneus: every generalized force within 1 % of its
    peak (1 N m or N at least) of OpenSim's InverseDynamicsTool (both differentiate the coordinates by splines),
    the coordinates a coupler drives left out (ours carries their force in the coordinate that drives them)."""
    model_path, cm, _, time, q, _, _, _, folder = trial
    coords = folder / "coords.mot"
    degrees = np.array([c.motion_type == "rotational" for c in cm.osim.coordinates])
    write_storage(coords, "Coordinates", cm.osim.coordinate_names, time, np.where(degrees, np.rad2deg(q), q),
                  in_degrees=True)
    columns = [f"ground_force_{k}" for k in ("vx", "vy", "vz", "px", "py", "pz")] + \
              [f"ground_torque_{k}" for k in ("x", "y", "z")]
    write_storage(folder / "zero.mot", "loads", columns, time, np.zeros((len(time), 9)), in_degrees=False)
    loads = folder / "loads.xml"
    write_external_loads(loads, str(folder / "zero.mot"), {"right": "calcn_r"})
    ref = read_opensim(id_reference(model_path, coords, loads, float(time[0]), float(time[-1])))
    forces, datafile = read_external_loads(loads)
    tau = solve_id(cm, time, q, forces, read_opensim(datafile))
    names = generalized_force_names(cm)
    n = len(ref)
    inner = slice(3, n - 3)         # both fit splines; their ends differ
    assert set(ref.columns) - {"time"} == set(names)
    dependent = {c.dependent for c in cm.osim.couplers}
    for i, name in enumerate(names):
        if cm.osim.coordinates[i].name in dependent:
            continue                # OpenSim reports the coupled coordinate's own force (0.05 N here); ours is 0
        theirs = ref[name].to_numpy()[inner]
        peak = max(np.abs(theirs).max(), 1.0)
        assert np.abs(tau[inner, i] - theirs).max() < 0.01 * peak, name


@pytest.mark.slow
def test_ik_coordinate_from_file_equals_opensims(trial):
    """An IKCoordinateTask ``from_file`` (weight 0.01) pulls knee_angle_r towards a coordinate file that holds it
    0.2 rad off the markers' pose: ours is within 0.5 degree and 2 mm of OpenSim's IK with the same setup, and
    the task moves the knee off the known pose as much in both."""
    model_path, cm, names, time, q, xyz, trc, _, folder = trial
    degrees = np.array([c.motion_type == "rotational" for c in cm.osim.coordinates])
    knee = cm.osim.coordinate_names.index("knee_angle_r")
    shifted = q.copy()
    shifted[:, knee] += 0.2
    coords = folder / "pull.mot"
    write_storage(coords, "Coordinates", cm.osim.coordinate_names, time,
                  np.where(degrees, np.rad2deg(shifted), shifted), in_degrees=True)
    setup = folder / "pull.xml"
    tasks = "".join(f"<IKMarkerTask name=\"{n}\"><apply>true</apply><weight>1</weight></IKMarkerTask>" for n in names)
    tasks += ("<IKCoordinateTask name=\"knee_angle_r\"><apply>true</apply><weight>0.01</weight>"
              "<value_type>from_file</value_type></IKCoordinateTask>")
    setup.write_text("<?xml version=\"1.0\" encoding=\"UTF-8\" ?>\n<OpenSimDocument Version=\"40000\">"
                     "<InverseKinematicsTool name=\"ik\"><accuracy>1e-08</accuracy>"
                     f"<IKTaskSet name=\"tasks\"><objects>{tasks}</objects></IKTaskSet>"
                     "<coordinate_file>pull.mot</coordinate_file>"
                     "</InverseKinematicsTool></OpenSimDocument>\n")
    ours = solve_ik(cm, names, xyz, read_ik_setup(setup), time=time)
    _, theirs = read_model_coordinates(ik_reference(model_path, setup, trc), cm.osim)
    pulled = ours.q[:, knee] - q[:, knee]
    assert pulled.min() > 0.01 and pulled.max() < 0.19                  # the task pulls, the markers hold back
    assert np.abs(pulled - (theirs[:, knee] - q[:, knee])).max() < np.deg2rad(TOL_DEG)
    rot = np.array([c.motion_type == "rotational" for c in cm.osim.coordinates])
    err = np.abs(ours.q - theirs).max(axis=0)
    assert np.rad2deg(err[rot]).max() < TOL_DEG and err[~rot].max(initial=0.0) < TOL_M

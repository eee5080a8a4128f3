"""Inverse kinematics on an OpenSim model: against OpenSim's InverseKinematicsTool on the shared walk,
an exact recovery of known coordinates, and bad input in one line."""

from __future__ import annotations

import numpy as np
import pytest
from _osim_ik_reference import ik_reference

from humanbody.cli import main
from humanbody.core import forward_kinematics, marker_jacobian, marker_positions
from humanbody.errors import InputError
from humanbody.muscles.geometry import read_model_coordinates
from humanbody.osim import read_osim
from humanbody.osim.build import build_core_model
from humanbody.osim.ik import read_ik_setup, solve_ik


def _files(shared_data):
    models = shared_data / "opensim_models" / "gait2392"
    return (models / "subject01_simbody.osim", models / "subject01_Setup_IK.xml",
            shared_data / "gait2392_walk" / "subject01_walk1.trc")


def test_setup_weights(shared_data):
    _, setup, _ = _files(shared_data)
    tasks = read_ik_setup(setup)
    assert tasks.markers["R.ASIS"] == 10 and tasks.markers["Top.Head"] == 0.1
    assert tasks.coordinates["subtalar_angle_r"] == (1000.0, None)


def test_recovers_known_coordinates(shared_data):
    """Markers placed by the model at known coordinates give those coordinates back (equal weights)."""
    # the coordinates no marker depends on stay at their defaults (0 here)
    osim_path, _, _ = _files(shared_data)
    cm = build_core_model(read_osim(osim_path))
    rng = np.random.default_rng(3)
    q = np.zeros((4, cm.model.nq))
    for i, c in enumerate(cm.osim.coordinates):
        j = cm.q_index[i]
        lo, hi = c.range
        q[:, j] = c.default if c.locked else np.clip(c.default + 0.15 * rng.standard_normal(4), lo, hi)
    moved = np.abs(marker_jacobian(cm.model, forward_kinematics(cm.model, q))).max(axis=(0, 1, 2)) > 0
    q[:, ~moved] = 0.0  # no marker on the body it moves (mtp): IK keeps its default, 0
    data = forward_kinematics(cm.model, q)
    x = marker_positions(cm.model, data)
    names = [m.name for m in cm.model.markers]
    res = solve_ik(cm, names, x)
    assert np.abs(res.q - cm.from_core(data.q)).max() < 1e-7
    assert np.nanmax(res.max_error) < 1e-9


@pytest.mark.slow
def test_walk_equals_opensims_ik(shared_data, tmp_path, capsys):
    """Every rotation within 0.5° RMS and every translation within 2 mm RMS of OpenSim's IK (the CLI)."""
    pytest.importorskip("opensim")
    osim_path, setup, trc = _files(shared_data)
    ref = ik_reference(osim_path, setup, trc)
    capsys.readouterr()
    code = main(["analyze", str(trc), "--model", str(osim_path), "--ik-setup", str(setup), "--out", str(tmp_path)])
    assert code == 0
    # no standing trial: the usual results cannot be made, and one line says why
    why = [line for line in capsys.readouterr().err.splitlines() if line.startswith("no body-model results")]
    assert len(why) == 1 and "give it with --static" in why[0]
    model = read_osim(osim_path)
    t_ours, ours = read_model_coordinates(tmp_path / "subject01_walk1_ik.mot", model)
    t_ref, theirs = read_model_coordinates(ref, model)
    assert np.allclose(t_ours, t_ref, atol=1e-3)  # OpenSim copies the TRC's Time column (ms); we count frames at its rate
    rms = np.sqrt(np.mean((ours - theirs) ** 2, axis=0))
    for c, r in zip(model.coordinates, rms, strict=True):
        if c.name.startswith("pelvis_t"):
            assert r < 0.002, (c.name, r)
        else:
            assert np.rad2deg(r) < 0.5, (c.name, np.rad2deg(r))


@pytest.mark.slow
def test_usual_results_beside_the_opensim_tables(shared_data, tmp_path):
    """With a standing trial, ``--model MODEL.osim`` also writes the results ``analyze`` writes without it,
    byte for byte."""
    osim_path, setup, trc = _files(shared_data)
    usual = ["analyze", str(trc), "--static", str(shared_data / "gait2392_walk" / "subject01_static.trc"), "-q"]
    assert main([*usual, "--model", str(osim_path), "--ik-setup", str(setup), "--out", str(tmp_path / "osim")]) == 0
    assert main([*usual, "--out", str(tmp_path / "plain")]) == 0
    stem = "subject01_walk1"
    assert (tmp_path / "osim" / f"{stem}_ik.mot").exists()
    for name in (f"{stem}_results.csv", f"{stem}_residuals.csv"):
        assert (tmp_path / "osim" / name).read_bytes() == (tmp_path / "plain" / name).read_bytes(), name


def test_no_marker_in_common_one_line(shared_data, tmp_path, capsys):
    osim_path, _, trc = _files(shared_data)
    other = shared_data / "opensim_models" / "rajagopal2016" / "Rajagopal2016.osim"
    bad = tmp_path / "bad.trc"
    text = trc.read_text().splitlines()
    text[3] = text[3].replace("R.ASIS", "Foo1").replace("L.ASIS", "Foo2")
    names = text[3].split("\t")
    text[3] = "\t".join(f"X{i}" if n not in ("Frame#", "Time", "") else n for i, n in enumerate(names))
    bad.write_text("\n".join(text) + "\n")
    capsys.readouterr()
    assert main(["analyze", str(bad), "--model", str(osim_path), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "has no marker names in common with the model" in err and "bad.trc" in err
    assert other.exists()


def test_equal_weights_are_said(shared_data, tmp_path, capsys):
    """Without ``--ik-setup`` every shared marker weighs 1: one line says so and names the option (with it,
    no such line)."""
    osim_path, setup, trc = _files(shared_data)
    short = tmp_path / "short.trc"
    lines = trc.read_text().splitlines()[:16]  # the header and 10 frames
    lines[2] = lines[2].replace("151", "10")  # NumFrames, OrigNumFrames
    short.write_text("\n".join(lines) + "\n")
    say = "every marker the trial shares with the model weighs 1 (--ik-setup SETUP.xml"
    capsys.readouterr()
    assert main(["analyze", str(short), "--model", str(osim_path), "--out", str(tmp_path / "equal")]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert sum(say in line for line in lines) == 1
    assert main(["analyze", str(short), "--model", str(osim_path), "--ik-setup", str(setup),
                 "--out", str(tmp_path / "setup")]) == 0
    assert not any(say in line for line in capsys.readouterr().err.splitlines())


def test_from_file_needs_a_coordinate_file(tmp_path):
    """A ``from_file`` coordinate task without the setup's ``coordinate_file`` is refused in one line; with
    it, the file is named relative to the setup's folder, as OpenSim resolves it."""
    task = ("<IKCoordinateTask name=\"knee_angle_r\"><weight>5</weight><value_type>from_file</value_type>"
            "</IKCoordinateTask>")
    setup = tmp_path / "setup.xml"
    setup.write_text(f"<OpenSimDocument><InverseKinematicsTool><IKTaskSet><objects>{task}</objects></IKTaskSet>"
                     "</InverseKinematicsTool></OpenSimDocument>")
    with pytest.raises(InputError, match="from_file, but the setup names no coordinate_file"):
        read_ik_setup(setup)
    setup.write_text(setup.read_text().replace("</IKTaskSet>", "</IKTaskSet><coordinate_file>q.mot</coordinate_file>"))
    tasks = read_ik_setup(setup)
    assert tasks.from_file == {"knee_angle_r"} and tasks.coordinates["knee_angle_r"] == (5.0, None)
    assert tasks.coordinate_file == str(tmp_path / "q.mot")

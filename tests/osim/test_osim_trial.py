"""The OpenSim analysis of a trial as a library call (:mod:`humanbody.analysis.osim_trial`): a frozen value whose
numbers are the OpenSim steps' own on its coordinates, written as the command writes them."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from humanbody.analysis.osim_trial import analyze_osim_trial, external_loads_xml, write_osim_results
from humanbody.errors import InputError
from humanbody.io import read_opensim
from humanbody.muscles.geometry import read_model_coordinates
from humanbody.osim import read_osim
from humanbody.osim.build import build_core_model
from humanbody.osim.id import generalized_force_names, read_external_loads, solve_id


def test_the_walk_on_gait2392_as_a_value_and_its_files(shared_data, tmp_path):
    model_path = shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    trc = shared_data / "gait2392_walk" / "subject01_walk1.trc"
    loads = shared_data / "gait2392_walk" / "subject01_walk1_grf.xml"
    analysis = analyze_osim_trial(model_path, trc, forces=loads)
    with pytest.raises(dataclasses.FrozenInstanceError):
        analysis.time = None  # type: ignore[misc]
    assert analysis.stem == "subject01_walk1" and analysis.ik.q.shape == (151, 23)
    # the weights are said (no IK setup), then the fit's marker error
    assert "weighs 1" in analysis.messages[-2] and analysis.messages[-1].startswith("inverse kinematics: ")
    # the generalized forces are OpenSim's inverse dynamics of the analysis' own coordinates, in OpenSim's names
    cm = build_core_model(read_osim(model_path))
    forces, datafile = read_external_loads(loads)
    tau = solve_id(cm, analysis.time, analysis.ik.q, forces, read_opensim(datafile), path=datafile)
    np.testing.assert_array_equal(analysis.generalized_forces, tau)
    lines = write_osim_results(analysis, tmp_path / "out")
    assert lines == [f"wrote inverse kinematics: {tmp_path / 'out' / 'subject01_walk1_ik.mot'}",
                     f"wrote inverse dynamics: {tmp_path / 'out' / 'subject01_walk1_id.sto'}"]
    # the .mot holds the rotations in degrees, as OpenSim writes them: read back in radians, the IK's coordinates
    _, q = read_model_coordinates(tmp_path / "out" / "subject01_walk1_ik.mot", read_osim(model_path))
    np.testing.assert_allclose(q, analysis.ik.q, rtol=1e-6, atol=1e-7)
    knee = [c.name for c in cm.osim.coordinates].index("knee_angle_r")
    np.testing.assert_allclose(analysis.coordinates[:, knee], np.rad2deg(analysis.ik.q[:, knee]))
    sto = read_opensim(tmp_path / "out" / "subject01_walk1_id.sto")
    assert list(sto.columns[1:]) == list(generalized_force_names(cm))


def test_refusals_come_before_anything_is_read(shared_data, tmp_path):
    """``muscles`` without loads, and a forces table without its ExternalLoads XML, are refused in one line before
    the model or the trial is read (neither exists here)."""
    with pytest.raises(InputError, match="muscles needs `forces`"):
        analyze_osim_trial(tmp_path / "none.osim", tmp_path / "none.trc", muscles=True)
    table = tmp_path / "forces.mot"
    table.write_text("no matter")
    with pytest.raises(InputError, match="ExternalLoads XML"):
        analyze_osim_trial(tmp_path / "none.osim", tmp_path / "none.trc", forces=table)
    xml = table.with_suffix(".xml")
    xml.write_text("<OpenSimDocument/>")
    assert external_loads_xml(table) == xml and external_loads_xml(xml) == xml

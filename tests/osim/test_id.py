"""Inverse dynamics on an OpenSim model against OpenSim's InverseDynamicsTool on the same coordinates and loads."""

from __future__ import annotations

import numpy as np
import pytest
from _osim_ik_reference import id_reference

from humanbody.cli import main
from humanbody.io import read_opensim
from humanbody.muscles.geometry import read_model_coordinates
from humanbody.osim import read_osim
from humanbody.osim.build import build_core_model
from humanbody.osim.id import generalized_force_names, read_external_loads, solve_id


@pytest.mark.slow
def test_walk_equals_opensims_id(shared_data):
    """OpenSim's IK of the walk and its ground reactions: every generalized force within 1 % of its peak."""
    pytest.importorskip("opensim")
    model_path = shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    ik = shared_data / "gait2392_walk" / "reference" / "opensim_ik.mot"
    loads = shared_data / "gait2392_walk" / "subject01_walk1_grf.xml"
    ref = read_opensim(id_reference(model_path, ik, loads, 0.5, 2.5))   # the loads end at 2.5 s
    cm = build_core_model(read_osim(model_path))
    time, q = read_model_coordinates(ik, cm.osim)
    forces, datafile = read_external_loads(loads)
    tau = solve_id(cm, time, q, forces, read_opensim(datafile))
    n = len(ref)
    assert np.allclose(time[:n], ref["time"].to_numpy(), atol=1e-6)
    names = generalized_force_names(cm)
    assert sorted(names) == sorted(c for c in ref.columns if c != "time")  # OpenSim orders them by its tree
    for i, name in enumerate(names):
        theirs = ref[name].to_numpy()
        peak = max(np.abs(theirs).max(), 1.0)  # mtp moments are ~0.3 N m: 1 % of 1 N m
        assert np.abs(tau[:n, i] - theirs).max() < 0.01 * peak, name


def test_cli_writes_id(shared_data, tmp_path, capsys):
    """``analyze --model MODEL.osim --forces LOADS.xml`` writes <trial>_id.sto in OpenSim's names; a forces table
    without its XML is refused in one line."""
    model_path = shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    trc = shared_data / "gait2392_walk" / "subject01_walk1.trc"
    loads = shared_data / "gait2392_walk" / "subject01_walk1_grf.xml"
    assert main(["analyze", str(trc), "--model", str(model_path), "--forces", str(loads), "--out", str(tmp_path)]) == 0
    sto = read_opensim(tmp_path / "subject01_walk1_id.sto")
    assert len(sto) == 151 and "knee_angle_r_moment" in sto and "pelvis_ty_force" in sto
    assert np.isfinite(sto.to_numpy()).all()
    lonely = tmp_path / "forces.mot"
    lonely.write_text((shared_data / "gait2392_walk" / "subject01_walk1_grf.mot").read_text())
    capsys.readouterr()
    assert main(["analyze", str(trc), "--model", str(model_path), "--forces", str(lonely), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "ExternalLoads XML" in err
    _, q = read_model_coordinates(tmp_path / "subject01_walk1_ik.mot", read_osim(model_path))
    assert q.shape == (151, 23)

"""The pipeline's inverse kinematics feeds static optimization what OpenSim's would: ``analyze TRIAL --model
MODEL.osim --ik-setup SETUP.xml --forces LOADS.xml --muscles`` on the shared walk against OpenSim 4.6's own IK
of the same markers with the same setup (run live, cached), and the hip and knee contact peaks the same chain
gives on OpenSim's coordinates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main
from humanbody.io.opensim_writer import write_storage
from humanbody.muscles import write_reserves
from humanbody.muscles.gait import G
from humanbody.muscles.geometry import read_model_coordinates
from humanbody.osim import read_osim
from tests._osim_ik_reference import ik_reference
from tests._shared import require_shared

WALK = "gait2392_walk"
MODEL = "opensim_models/gait2392/subject01_simbody.osim"
SETUP = "opensim_models/gait2392/subject01_Setup_IK.xml"
CONTACTS = (("hip_r", "femur_r"), ("hip_l", "femur_l"), ("knee_r", "tibia_r"), ("knee_l", "tibia_l"))


def _peaks(path, weight: float) -> np.ndarray:
    """The largest contact force (BW) of each of :data:`CONTACTS` from 0.5 s on (the filter's start-up before)."""
    jr = pd.read_csv(path)
    jr = jr[jr["time"] >= 0.5]
    return np.array([np.linalg.norm(jr[[f"{j}_on_{b}_in_{b}_f{a}" for a in "xyz"]].to_numpy(), axis=1).max()
                     for j, b in CONTACTS]) / weight


@pytest.mark.slow
def test_pipeline_ik_and_contact_peaks_equal_opensims(tmp_path):
    """Coordinates within the OpenSim-models target (0.5° RMS, 2 mm RMS) of OpenSim's IK, and the hip and knee
    contact peaks within 1 % of what the same static optimization gives on OpenSim's IK."""
    pytest.importorskip("opensim")
    shared = require_shared()
    trc, xml = shared / WALK / "subject01_walk1.trc", shared / WALK / "subject01_walk1_grf.xml"
    model = read_osim(shared / MODEL)
    ref = ik_reference(shared / MODEL, shared / SETUP, trc)
    ours_dir = tmp_path / "ours"
    assert main(["analyze", str(trc), "--model", str(shared / MODEL), "--ik-setup", str(shared / SETUP),
                 "--forces", str(xml), "--muscles", "--out", str(ours_dir), "-q"]) == 0
    t_ours, ours = read_model_coordinates(ours_dir / "subject01_walk1_ik.mot", model)
    t_ref, theirs = read_model_coordinates(ref, model)
    rms = np.sqrt(np.mean((ours - theirs) ** 2, axis=0))
    for c, r in zip(model.coordinates, rms, strict=True):
        assert (r < 0.002) if c.motion_type == "translational" else (np.rad2deg(r) < 0.5), (c.name, r)
    # OpenSim copies the TRC's Time column, rounded to the millisecond (0.017, 0.033, ...): jitter its
    # accelerations would carry; the frames are 1/60 s apart, as the pipeline counts them
    assert np.abs(t_ref - t_ours).max() < 1e-3
    uniform = tmp_path / "opensim_ik_60hz.mot"
    rotational = np.array([c.motion_type == "rotational" for c in model.coordinates])
    write_storage(uniform, "Coordinates", model.coordinate_names, t_ours,
                  np.where(rotational, np.rad2deg(theirs), theirs), in_degrees=True)
    reserves = write_reserves(tmp_path / "reserves.xml", model.coordinate_names)  # what --muscles defaults to
    assert main(["muscles", str(uniform), "--model", str(shared / MODEL), "--forces", str(xml), "--reserves",
                 reserves, "--cutoff", "6", "--joint-reactions", "hip_r,hip_l,knee_r,knee_l",
                 "--out", str(tmp_path / "theirs"), "-q"]) == 0
    weight = sum(b.mass for b in model.bodies) * G
    got = _peaks(ours_dir / "subject01_walk1_joint_reactions.csv", weight)
    want = _peaks(tmp_path / "theirs" / "opensim_ik_60hz_joint_reactions.csv", weight)
    assert np.all(np.abs(got - want) < 0.01 * want), (got, want)
    assert np.all((got > 3.0) & (got < 6.0)), got  # a walk's hip and knee: 3-6 body weights

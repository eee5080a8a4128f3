"""OpenSense (OpenSim's IMU placer and IMU inverse kinematics) on the same synthetic orientation file.

A small OpenSim model is written here: pelvis free in ground, hips with three
rotations in OpenSim's order (flexion about Z, adduction about X, rotation
about Y; gait2392's joint definition), knees as hinges (flexion only).  Its
frames are parallel to ground in the default pose, which is the reference
posture the synthetic trial starts in.  OpenSense calibrates on the first
row and solves IK; its hip and knee angles must follow ours: centred RMS
difference within 5 degrees and correlation at least 0.95.  The knee hinge
cannot follow the trial's small knee ab/adduction and axial rotation, so the
two agree closely but not exactly.
"""

from __future__ import annotations

import _imu_samples as S
import numpy as np
import pytest

from humanbody import BodyModel, read_trial
from humanbody.imu import orientations_to_coordinates
from humanbody.mechanics.clinical import clinical_angles

osim = pytest.importorskip("opensim")

LEGS = ("lower_torso", "right_upper_leg", "right_lower_leg", "left_upper_leg", "left_lower_leg")
_UNIT = ((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0))


def _custom_joint(name, parent, location, child, coords):
    """A CustomJoint rotating about ``coords`` = [(name, axis), ...] in order, no translation."""
    st = osim.SpatialTransform()
    axes = [a for _, a in coords]
    axes += [u for u in _UNIT if all(abs(np.dot(u, a)) < 0.5 for a in axes)][: 3 - len(axes)]
    for i in range(3):
        ta = st.updTransformAxis(i)
        ta.setAxis(osim.Vec3(*axes[i]))
        if i < len(coords):
            ta.setCoordinateNames(osim.ArrayStr(coords[i][0], 1))
            ta.set_function(osim.LinearFunction())
        else:
            ta.set_function(osim.Constant(0))
    for i, u in zip(range(3, 6), _UNIT, strict=True):
        ta = st.updTransformAxis(i)
        ta.setAxis(osim.Vec3(*u))
        ta.set_function(osim.Constant(0))
    return osim.CustomJoint(name, parent, osim.Vec3(*location), osim.Vec3(0), child, osim.Vec3(0), osim.Vec3(0), st)


def _legs_model(path):
    m = osim.Model()
    m.setName("legs")
    pelvis = osim.Body("pelvis", 10.0, osim.Vec3(0), osim.Inertia(0.1, 0.1, 0.1))
    m.addBody(pelvis)
    m.addJoint(osim.FreeJoint("ground_pelvis", m.getGround(), osim.Vec3(0), osim.Vec3(0), pelvis, osim.Vec3(0),
                              osim.Vec3(0)))
    for s, z in (("r", 1.0), ("l", -1.0)):
        femur = osim.Body(f"femur_{s}", 8.0, osim.Vec3(0, -0.2, 0), osim.Inertia(0.1, 0.1, 0.1))
        tibia = osim.Body(f"tibia_{s}", 4.0, osim.Vec3(0, -0.2, 0), osim.Inertia(0.05, 0.05, 0.05))
        m.addBody(femur)
        m.addBody(tibia)
        # OpenSim's Z points right: adduction and internal rotation of the left leg turn the other way
        m.addJoint(_custom_joint(f"hip_{s}", pelvis, (0, 0, 0.08 * z), femur,
                                 [(f"hip_flexion_{s}", (0, 0, 1)), (f"hip_adduction_{s}", (z, 0, 0)),
                                  (f"hip_rotation_{s}", (0, z, 0))]))
        m.addJoint(_custom_joint(f"knee_{s}", femur, (0, -0.43, 0), tibia, [(f"knee_angle_{s}", (0, 0, -1))]))
    m.finalizeConnections()
    for c in m.getCoordinateSet():
        c.setRangeMin(-10.0)
        c.setRangeMax(10.0)
    m.printToXML(str(path))


def opensense_ik(folder, sto, t):
    """OpenSense on ``sto`` (times ``t``) with the legs model written into ``folder``: IMUPlacer's calibration,
    then IMUInverseKinematicsTool over the whole trial -> its coordinates (inDegrees=yes: read in rad)."""
    _legs_model(folder / "legs.osim")
    placer = osim.IMUPlacer()
    placer.set_model_file(str(folder / "legs.osim"))
    placer.set_orientation_file_for_calibration(str(sto))
    placer.set_sensor_to_opensim_rotations(osim.Vec3(0, 0, 0))
    placer.run(False)
    placer.getCalibratedModel().printToXML(str(folder / "legs_calibrated.osim"))
    ik = osim.IMUInverseKinematicsTool()
    ik.set_model_file(str(folder / "legs_calibrated.osim"))
    ik.set_orientations_file(str(sto))
    ik.set_sensor_to_opensim_rotations(osim.Vec3(0, 0, 0))
    ik.set_results_directory(str(folder / "ik"))
    ik.set_time_range(0, float(t[0]))
    ik.set_time_range(1, float(t[-1]))
    ik.run(False)
    return read_trial(folder / "ik" / "ik_legs.mot")


def test_opensense_ik_agrees(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # OpenSim writes opensim.log into the working folder
    sto = tmp_path / "legs.sto"
    t, root, q, _ = S.opensense_trial(sto, labels={k: S.OPENSIM_LABELS[k] for k in LEGS})
    theirs = opensense_ik(tmp_path, sto, t)

    model = BodyModel.default(mass=75.0, height=1.8)
    coords, _ = orientations_to_coordinates(read_trial(sto), model, heading="none")  # the subject faced +X
    ours = clinical_angles(model, coords)
    assert len(theirs) == len(ours)
    for col, name in (("hip_flexion_{s}", "{side}_hip_flexion_deg"), ("hip_adduction_{s}", "{side}_hip_adduction_deg"),
                      ("knee_angle_{s}", "{side}_knee_flexion_deg")):
        for s, side in (("r", "right"), ("l", "left")):
            x = np.degrees(theirs[col.format(s=s)].to_numpy())
            y = ours[name.format(side=side)].to_numpy()
            d = (x - x.mean()) - (y - y.mean())
            rms, r = np.sqrt(np.mean(d ** 2)), np.corrcoef(x, y)[0, 1]
            assert rms < 5.0 and r >= 0.95, (col.format(s=s), rms, r)
    # the range compared is the whole range: right knee to 150 degrees, right hip to 120
    assert np.degrees(theirs["knee_angle_r"]).max() > 145
    assert np.degrees(theirs["hip_flexion_r"]).max() > 115

"""Reading .osim models: the shared models (OpenSim 4 format), an OpenSim 3 model, bad input."""

from __future__ import annotations

import re

import numpy as np
import pytest

from humanbody.cli import main
from humanbody.core import functions as fn
from humanbody.errors import InputError
from humanbody.osim import read_osim

OSIM3 = """<?xml version="1.0" encoding="UTF-8"?>
<OpenSimDocument Version="30000">
<Model name="two">
  <gravity>0 -9.81 0</gravity>
  <BodySet><objects>
    <Body name="ground"><mass>0</mass><Joint/></Body>
    <Body name="thigh">
      <mass>8</mass><mass_center>0 -0.2 0</mass_center>
      <inertia_xx>0.1</inertia_xx><inertia_yy>0.02</inertia_yy><inertia_zz>0.1</inertia_zz>
      <inertia_xy>0</inertia_xy><inertia_xz>0</inertia_xz><inertia_yz>0</inertia_yz>
      <Joint><CustomJoint name="hip">
        <parent_body>ground</parent_body>
        <location_in_parent>0 1 0</location_in_parent><orientation_in_parent>0 0 0</orientation_in_parent>
        <location>0 0 0</location><orientation>0 0 0</orientation>
        <CoordinateSet><objects>
          <Coordinate name="hip_flexion"><motion_type>rotational</motion_type><default_value>0.1</default_value>
            <range>-1 2</range><clamped>true</clamped><locked>false</locked></Coordinate>
        </objects></CoordinateSet>
        <SpatialTransform>
          <TransformAxis name="rotation1"><coordinates>hip_flexion</coordinates><axis>0 0 1</axis>
            <function><LinearFunction><coefficients>1 0</coefficients></LinearFunction></function></TransformAxis>
          <TransformAxis name="translation1"><coordinates>hip_flexion</coordinates><axis>1 0 0</axis>
            <function><SimmSpline><x>-1 0 1 2</x><y>0 0.01 0.0 -0.01</y></SimmSpline></function></TransformAxis>
        </SpatialTransform>
      </CustomJoint></Joint>
    </Body>
  </objects></BodySet>
  <ForceSet><objects>
    <Thelen2003Muscle name="m1">
      <GeometryPath><PathPointSet><objects>
        <PathPoint name="a"><location>0.1 1.1 0</location><body>ground</body></PathPoint>
        <ConditionalPathPoint name="b"><location>0.05 -0.1 0</location><body>thigh</body>
          <coordinate>hip_flexion</coordinate><range>0 1</range></ConditionalPathPoint>
        <MovingPathPoint name="c"><body>thigh</body><x_coordinate>hip_flexion</x_coordinate>
          <x_location><LinearFunction><coefficients>0.01 0.02</coefficients></LinearFunction></x_location>
          <location>0 -0.3 0</location></MovingPathPoint>
      </objects></PathPointSet></GeometryPath>
      <max_isometric_force>1000</max_isometric_force><optimal_fiber_length>0.1</optimal_fiber_length>
      <tendon_slack_length>0.2</tendon_slack_length><pennation_angle_at_optimal>0.1</pennation_angle_at_optimal>
      <max_contraction_velocity>10</max_contraction_velocity>
    </Thelen2003Muscle>
    <CoordinateActuator name="reserve"/>
  </objects></ForceSet>
  <MarkerSet><objects><Marker name="KNE"><body>thigh</body><location>0 -0.4 0.05</location></Marker></objects></MarkerSet>
</Model>
</OpenSimDocument>
"""


def test_shared_models_read_whole(shared_data):
    d = shared_data / "opensim_models"
    scaled = read_osim(d / "gait2392" / "subject01_simbody.osim")
    assert (len(scaled.bodies), len(scaled.joints), len(scaled.coordinates)) == (13, 12, 23)
    assert (len(scaled.muscles), len(scaled.markers)) == (92, 39)
    assert scaled.notes == ()
    knee = next(j for j in scaled.joints if j.name == "knee_r")
    assert knee.kind == "custom" and knee.parent == "femur_r" and knee.child == "tibia_r"
    assert isinstance(knee.transform[3].function, fn.Multiplier)       # the scaled knee's translation
    # OpenSim's motion types: the scaled pelvis translations are multiplier functions, so "coupled"
    assert scaled.coordinate("pelvis_tx").motion_type == "coupled"
    assert scaled.coordinate("knee_angle_r").motion_type == "rotational"
    rect = next(m for m in scaled.muscles if m.name == "rect_fem_r")
    assert [p.kind for p in rect.points][-1] == "moving"
    raj = read_osim(d / "rajagopal2016" / "Rajagopal2016.osim")
    assert (len(raj.muscles), len(raj.wrap_objects), len(raj.couplers)) == (80, 40, 2)
    assert {j.kind for j in raj.joints} == {"custom", "pin", "universal"}
    assert raj.notes == ("not supported, left out: 17 force CoordinateActuator",)
    assert raj.muscles[0].kind == "Millard2012EquilibriumMuscle"
    wraps = [w for m in raj.muscles for w in m.wraps]
    assert len(wraps) == 46 and all(w.method == "hybrid" for w in wraps)


def test_opensim3_format(tmp_path):
    f = tmp_path / "two.osim"
    f.write_text(OSIM3)
    m = read_osim(f)
    assert m.version == 30000 and m.body_names == ("ground", "thigh")
    hip = m.joints[0]
    assert hip.parent_frame.translation == (0.0, 1.0, 0.0) and hip.child == "thigh"
    assert isinstance(hip.transform[0].function, fn.Linear) and isinstance(hip.transform[3].function, fn.SimmSpline)
    assert isinstance(hip.transform[1].function, fn.Constant)           # axes the file leaves out
    c = m.coordinates[0]
    assert (c.default, c.range, c.clamped, c.motion_type) == (0.1, (-1.0, 2.0), True, "rotational")
    mus = m.muscles[0]
    assert [p.kind for p in mus.points] == ["fixed", "conditional", "moving"]
    assert mus.points[1].range == (0.0, 1.0) and mus.points[2].moving_coordinates[0] == "hip_flexion"
    assert mus.points[2].functions[1].value == -0.3                # y: the location's
    assert (mus.max_isometric_force, mus.tendon_slack_length) == (1000.0, 0.2)
    assert np.allclose(m.bodies[1].inertia, (0.1, 0.02, 0.1, 0, 0, 0))
    assert m.markers[0].body == "thigh"
    assert m.notes == ("not supported, left out: 1 force CoordinateActuator",)


@pytest.mark.parametrize("text, message", [
    ("this is not xml <", "not an XML file"),
    ("<OpenSimDocument Version='40000'><Nothing/></OpenSimDocument>", "is not an OpenSim model"),
    (OSIM3.replace("CustomJoint", "EllipsoidJoint"), r"joint type EllipsoidJoint \(hip\) is not supported"),
    (OSIM3.replace("SimmSpline", "GCVSpline"), "function type GCVSpline"),
    (OSIM3.replace("<body>thigh</body><location>0 -0.4", "<body>shank</body><location>0 -0.4"),
     "marker KNE is on 'shank', which is not a body"),
])
def test_bad_models_name_the_problem(tmp_path, text, message):
    f = tmp_path / "bad.osim"
    f.write_text(text)
    with pytest.raises(InputError, match=message) as e:
        read_osim(f)
    assert str(e.value).startswith(str(f)) and "\n" not in str(e.value)


@pytest.mark.parametrize("text, message", [
    ("this is not xml <", "not an XML file"),
    (OSIM3.replace("CustomJoint", "EllipsoidJoint"), r"joint type EllipsoidJoint \(hip\) is not supported"),
    (OSIM3.replace("SimmSpline", "GCVSpline"), "function type GCVSpline"),
])
@pytest.mark.parametrize("command", ["muscles", "analyze"])
def test_bad_models_exit_2_in_one_line(shared_data, tmp_path, capsys, text, message, command):
    f = tmp_path / "bad.osim"
    f.write_text(text)
    trial = shared_data / "gait2392_walk" / ("reference/opensim_ik.mot" if command == "muscles" else "subject01_walk1.trc")
    capsys.readouterr()
    assert main([command, str(trial), "--model", str(f), "--out", str(tmp_path / "out")]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and str(f) in err
    assert re.search(message, err)


def test_unsupported_parts_named_by_every_command(tmp_path, capsys):
    """A model with a force and a component that are not read: ``muscles`` and ``view`` name each in one
    line, never a silent skip; every wrap surface kind is computed (here an ellipsoid and a torus off the
    path, so the length stays that of the straight line)."""
    from humanbody.io.opensim_writer import write_storage
    from humanbody.muscles import MuscleGeometry

    from ._synthetic import model_xml

    surfaces = [("WrapEllipsoid", "egg", (0.1, 0.05, 0.0), (0, 0, 0), "all", {"dimensions": (0.03, 0.02, 0.02)}),
                ("WrapTorus", "ring", (0.1, 0.0, 0.2), (0, 0, 0), "all", {"inner_radius": 0.01, "outer_radius": 0.02})]
    text = model_xml(surfaces, [("m1", (0.0, 0.01, 0.0), (0.0, 0.01, 0.0), ["egg", "ring"])])
    text = text.replace("</Model>", "<components><Blankevoort1991Ligament name=\"lig\"/></components></Model>")
    text = text.replace("</objects></ForceSet>",
                        "<CoordinateActuator name=\"act\"><coordinate>rx</coordinate></CoordinateActuator></objects></ForceSet>")
    model_path = tmp_path / "odd.osim"
    model_path.write_text(text)
    names = ["rx", "ry", "rz", "tx", "ty", "tz"]
    q = np.zeros((3, 6))
    mot = tmp_path / "q.mot"
    write_storage(mot, "Coordinates", names, np.arange(3) * 0.01, q, in_degrees=True)
    expected = ["not supported, left out: 1 component Blankevoort1991Ligament",
                "not supported, left out: 1 force CoordinateActuator"]
    assert MuscleGeometry.of(read_osim(model_path)).notes == tuple(expected)
    assert main(["muscles", str(mot), "--model", str(model_path), "--out", str(tmp_path / "out")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("not supported")] == expected
    lengths = np.loadtxt(tmp_path / "out" / "q_muscle_lengths.csv", delimiter=",", skiprows=1)
    assert np.allclose(lengths[:, 1], 0.2)          # the straight line from ground to the body
    pytest.importorskip("pyvista")
    assert main(["view", str(mot), "--model", str(model_path), "--screenshot", str(tmp_path / "v.png")]) == 0
    err = capsys.readouterr().err.splitlines()
    assert [line for line in err if line.startswith("not supported")] == expected

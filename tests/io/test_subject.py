"""Subject measurements: Vicon .vsk and TOML subject files, --subject, --mass winning, bad files."""

import math

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.io.subject import SUBJECT_FIELDS, Subject, read_subject

VSK = """<?xml version="1.0" encoding="UTF-8" standalone="no" ?>
<KinematicModel VERSION="1.0" MODEL="PlugInGait">
  <Parameters>
    <Parameter NAME="Bodymass" VALUE="72.6" PRIOR="0"/>
    <Parameter NAME="Height" VALUE="1803" PRIOR="0"/>
    <Parameter NAME="InterAsisDistance" VALUE="0" PRIOR="0"/>
    <Parameter NAME="LeftLegLength" VALUE="905" PRIOR="0"/>
    <Parameter NAME="RightLegLength" VALUE="{right_leg}" PRIOR="0"/>
    <Parameter NAME="LeftKneeWidth" VALUE="104.5"/>
    <Parameter NAME="RightKneeWidth" VALUE="103"/>
    <Parameter NAME="LeftAnkleWidth" VALUE="72"/>
    <Parameter NAME="RightAnkleWidth" VALUE="71.5"/>
    <Parameter NAME="LeftTibialTorsion" VALUE="-12.5"/>
    <Parameter NAME="RightSoleDelta" VALUE="0"/>
    <Parameter NAME="LeftFemurLength" PRIOR="0"/>
    <StaticParameter NAME="MarkerDiameter" VALUE="14"/>
  </Parameters>
  <MarkerSet><Markers><Marker NAME="LASI" STATUS="required"/></Markers></MarkerSet>
</KinematicModel>
"""

TOML = """# subject S01, SI units
mass = 68.0
height = 1.72
right_leg_length = 0.90
left_leg_length = 0.905
right_knee_width = 0.104
left_knee_width = 0.105
right_ankle_width = 0.071
left_ankle_width = 0.072
right_tibial_torsion_deg = 15.0
left_tibial_torsion = 0.2
marker_diameter = 0.014
"""


def _vsk(tmp_path, right_leg="900", name="s.vsk"):
    p = tmp_path / name
    p.write_text(VSK.format(right_leg=right_leg))
    return p


def test_vsk_values_in_si(tmp_path):
    s = read_subject(_vsk(tmp_path))
    assert s.mass == 72.6 and s.height == pytest.approx(1.803)
    assert s.left_leg_length == pytest.approx(0.905) and s.right_leg_length == pytest.approx(0.900)
    assert s.side("knee_width", "left") == pytest.approx(0.1045)
    assert s.right_ankle_width == pytest.approx(0.0715)
    assert s.left_tibial_torsion == pytest.approx(math.radians(-12.5))
    assert s.marker_diameter == pytest.approx(0.014)
    assert s.inter_asis_distance is None  # Nexus's 0 = "not measured"
    assert s.right_sole_delta == 0.0  # a sole delta of 0 is a value
    assert s.left_asis_trochanter_distance is None and s.source.endswith("s.vsk")


def test_toml_values_and_degrees(tmp_path):
    p = tmp_path / "s01.toml"
    p.write_text(TOML)
    s = read_subject(p)
    assert s.mass == 68.0 and s.right_knee_width == 0.104
    assert s.right_tibial_torsion == pytest.approx(math.radians(15.0)) and s.left_tibial_torsion == 0.2
    assert set(s.measured()) <= set(SUBJECT_FIELDS)
    assert s.with_values(mass=80.0, height=None).mass == 80.0 and s.with_values(height=None).height == 1.72


@pytest.mark.parametrize("name,text,words", [
    ("bad.vsk", "<KinematicModel><Parameters><Parameter NAME='Bodymass' VALUE='72'></KinematicModel>",
     "malformed XML"),
    ("nan.vsk", VSK.format(right_leg="abc"), "RightLegLength = 'abc' is not a number"),
    ("neg.vsk", VSK.format(right_leg="-900"), "RightLegLength must be positive"),
    ("none.vsk", "<KinematicModel><Markers/></KinematicModel>", "no Parameter elements"),
    ("bad.toml", "mass = = 3", "malformed TOML"),
    ("word.toml", "mass = 'heavy'", "mass = 'heavy' is not a number"),
    ("typo.toml", "mas = 70", "unknown measurement 'mas'"),
    ("empty.toml", "", "empty"),
    ("twice.toml", "right_tibial_torsion = 0.1\nright_tibial_torsion_deg = 5", "given twice"),
])
def test_bad_subject_files_one_line(tmp_path, name, text, words):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(InputError) as err:
        read_subject(p)
    msg = str(err.value)
    assert words in msg and name in msg and "\n" not in msg


def test_missing_required_measurement_is_named(tmp_path):
    p = tmp_path / "s.toml"
    p.write_text("mass = 70\n")
    with pytest.raises(InputError, match="no right_knee_width .RightKneeWidth in a .vsk."):
        read_subject(p, required=("mass", "right_knee_width"))
    with pytest.raises(InputError, match="subject file not found"):
        read_subject(tmp_path / "absent.vsk")


@pytest.fixture
def coords_trial(tmp_path):
    model = hb.BodyModel.default()
    t = np.linspace(0, 1, 101)
    cols = hb.coordinate_columns(model)
    df = pd.DataFrame({"time": t, **{c: 0.1 * np.sin(2 * np.pi * t + i) for i, c in enumerate(cols)}})
    path = tmp_path / "walk.csv"
    df.to_csv(path, index=False)
    return path


def test_cli_subject_gives_mass_and_options_win(coords_trial, tmp_path, capsys):
    p = tmp_path / "s01.toml"
    p.write_text(TOML)
    out = tmp_path / "o"
    assert main(["analyze", str(coords_trial), "--subject", str(p), "--out", str(out), "-q"]) == 0
    assert hb.load_model(out / "walk_model.json").total_mass == pytest.approx(68.0)
    assert main(["analyze", str(coords_trial), "--subject", str(p), "--mass", "90", "--out", str(out), "-q"]) == 0
    assert hb.load_model(out / "walk_model.json").total_mass == pytest.approx(90.0)
    # the same angles with either zero for a coordinates trial (no calibration)
    a = pd.read_csv(out / "walk_results.csv")
    assert main(["analyze", str(coords_trial), "--subject", str(p), "--mass", "90", "--out", str(out), "-q",
                 "--angle-zero", "static"]) == 0
    b = pd.read_csv(out / "walk_results.csv")
    pd.testing.assert_frame_equal(a, b)
    (tmp_path / "bad.vsk").write_text("<KinematicModel>")
    capsys.readouterr()
    assert main(["analyze", str(coords_trial), "--subject", str(tmp_path / "bad.vsk"), "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "bad.vsk" in err and "Traceback" not in err


def test_manifest_subject_column(tmp_path):
    from humanbody.report.inputs import read_manifest

    (tmp_path / "walk.trc").write_text("x")
    (tmp_path / "s.vsk").write_text(VSK.format(right_leg="900"))
    (tmp_path / "m.csv").write_text("trial,subject\nwalk.trc,s.vsk\n")
    (task,) = read_manifest(tmp_path / "m.csv")
    assert task.subject == str(tmp_path / "s.vsk")


def test_subject_dataclass_defaults():
    s = Subject(mass=70.0)
    assert s.measured() == {"mass": 70.0}
    with pytest.raises(InputError, match="left_leg_length"):
        s.require("mass", "left_leg_length")

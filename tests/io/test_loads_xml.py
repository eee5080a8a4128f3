"""An OpenSim ExternalLoads ``.xml`` given as the force file: its ``<datafile>`` with its bodies.

The XML is read exactly as the ``.mot`` it names when that ``.mot`` is given
and the XML found beside it; bad XML, no data file or a missing one is one
line naming the XML and exit status 2 on the command line.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

import humanbody as hb
from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.io.loads import read_loads

DATA = Path(__file__).resolve().parents[2] / "data"

_XML = """<?xml version="1.0" encoding="UTF-8"?>
<OpenSimDocument Version="40000">
  <ExternalLoads name="loads">
    <objects>
      <ExternalForce name="one">
        <applied_to_body> calcn_l </applied_to_body>
        <force_identifier> ground_force_v </force_identifier>
      </ExternalForce>
      <ExternalForce name="two">
        <applied_to_body>tibia_r</applied_to_body>
        <force_identifier>1_ground_force_v</force_identifier>
      </ExternalForce>
    </objects>
    <datafile> {datafile} </datafile>
  </ExternalLoads>
</OpenSimDocument>
"""


def _write_mot(path: Path) -> None:
    """Two plates, Y up (OpenSim's lab), 100 Hz: plate 1 carries 700 N, plate 2 300 N."""
    t = np.arange(0.0, 1.0, 0.01)
    cols = {"time": t}
    for p, fy, x in (("", 700.0, 0.2), ("1_", 300.0, 0.8)):
        cols.update({f"{p}ground_force_vx": 10 + 0 * t, f"{p}ground_force_vy": fy + 0 * t,
                     f"{p}ground_force_vz": -5 + 0 * t, f"{p}ground_force_px": x + 0 * t,
                     f"{p}ground_force_py": 0 * t, f"{p}ground_force_pz": 0.1 + 0 * t})
    for p in ("", "1_"):
        cols.update({f"{p}ground_torque_{a}": (2.0 if a == "y" else 0.0) + 0 * t for a in "xyz"})
    table = pd.DataFrame(cols)
    head = f"grf\nversion=1\nnRows={len(t)}\nnColumns={table.shape[1]}\ninDegrees=no\nendheader\n"
    path.write_text(head + table.to_csv(sep="\t", index=False))


def test_xml_given_reads_its_datafile_with_its_bodies(tmp_path, monkeypatch):
    (tmp_path / "plates").mkdir()
    mot = tmp_path / "plates" / "trial_grf.mot"
    _write_mot(mot)
    xml = tmp_path / "setup.xml"  # another folder and stem than the data: not found beside the .mot
    xml.write_text(_XML.format(datafile="plates/trial_grf.mot"))
    monkeypatch.chdir(tmp_path / "plates")  # the data file is relative to the XML, not to the working folder
    lt = read_loads(xml)
    assert lt.names == ["ground_force", "1_ground_force"]
    assert lt.segments == ["left_foot", "right_lower_leg"]  # the XML's bodies, not a default by side
    assert lt.source == str(mot) and lt.notes[0] == "loads: bodies from setup.xml"
    # ground axes: OpenSim's Y up becomes Z up, X forward stays; the vertical force is the plate's
    np.testing.assert_allclose(lt.force[:, 0, 2], 700.0)
    np.testing.assert_allclose(lt.force[:, 1, 2], 300.0)
    np.testing.assert_allclose(lt.force[:, 0, 0], 10.0)
    np.testing.assert_allclose(np.abs(lt.moment[:, 0, 2]), 2.0)
    # the same as the .mot given with that XML beside it
    (tmp_path / "plates" / "trial_grf.xml").write_text(xml.read_text())
    beside = read_loads(mot)
    assert beside.segments == lt.segments and beside.source == lt.source
    for name in ("time", "force", "point", "moment"):
        np.testing.assert_array_equal(getattr(beside, name), getattr(lt, name))


@pytest.mark.parametrize(("text", "words"), [
    ("<OpenSimDocument><ExternalLoads>", "cannot read the ExternalLoads file"),
    ("<OpenSimDocument><Model/></OpenSimDocument>", "is not an OpenSim ExternalLoads file"),
    (_XML.replace("<datafile> {datafile} </datafile>", ""), "names no data file"),
    (_XML.format(datafile=""), "names no data file"),
    (_XML.format(datafile="gone_grf.mot"), "data file 'gone_grf.mot' not found"),
    (_XML.format(datafile="loads.xml"), "is not an OpenSim .mot or .sto file"),
])
def test_bad_xml_is_one_line_naming_it(tmp_path, text, words):
    xml = tmp_path / "loads.xml"
    xml.write_text(text.replace("{datafile}", "x.mot") if "{datafile}" in text else text)
    with pytest.raises(InputError, match=words) as err:
        read_loads(xml)
    assert err.value.path == str(xml) and "\n" not in str(err.value)


def test_cli_bad_xml_is_status_2_and_one_line(tmp_path, capsys):
    xml = tmp_path / "walk_loads.xml"
    xml.write_text(_XML.format(datafile="missing_grf.mot"))
    status = main(["analyze", str(DATA / "sample_walk_markers.trc"), "--static", str(DATA / "sample_static.trc"),
                   "--forces", str(xml), "--out", str(tmp_path / "out"), "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert str(xml) in err[0] and "missing_grf.mot" in err[0] and "Traceback" not in err[0]


@needs_shared
def test_walk_xml_gives_the_same_analysis_as_its_mot():
    by_mot = read_loads(WALK / "subject01_walk1_grf.mot")
    by_xml = read_loads(WALK / "subject01_walk1_grf.xml")
    assert by_xml.segments == by_mot.segments == ["right_foot", "left_foot"]
    assert by_xml.source == by_mot.source and by_xml.notes == by_mot.notes
    for name in ("time", "force", "point", "moment"):
        np.testing.assert_array_equal(getattr(by_xml, name), getattr(by_mot, name))
    kw = {"static": WALK / "subject01_static.trc", "mass": 72.6, "height": 1.8}
    a = hb.analyze_trial(WALK / "subject01_walk1.trc", forces=WALK / "subject01_walk1_grf.xml", **kw)
    b = hb.analyze_trial(WALK / "subject01_walk1.trc", forces=WALK / "subject01_walk1_grf.mot", **kw)
    pd.testing.assert_frame_equal(a.kinetics, b.kinetics)

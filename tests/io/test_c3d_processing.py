"""A processed C3D's PROCESSING group as the subject's measurements; a Workstation .mp file; which source wins."""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pytest

from humanbody.analysis.log import Logbook
from humanbody.analysis.run import _processing_subject
from humanbody.analysis.stages import subject
from humanbody.io.c3d_processing import read_processing
from humanbody.io.subject import read_subject
from humanbody.options import AnalysisOptions

ezc3d = pytest.importorskip("ezc3d")


def _c3d_with_processing(path, values: dict | None) -> str:
    """A 3-frame C3D with one marker and (``values``) a PROCESSING group of float parameters."""
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c["parameters"]["POINT"]["LABELS"]["value"] = ("LASI",)
    c["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    c["data"]["points"] = np.ones((4, 1, 3))
    for name, v in (values or {}).items():
        c.add_parameter("PROCESSING", name, [float(v)])
    c.write(str(path))
    return str(path)


def test_processing_values_in_si_and_signed_zeros_kept(tmp_path):
    """Lengths mm -> m, mass kg, angles rad as written; a width of 0 is not measured, a torsion of 0 is a value."""
    path = _c3d_with_processing(tmp_path / "t.c3d", {
        "Bodymass": 70.0, "Height": 1750.0, "LLegLength": 900.0, "RKneeWidth": 0.0, "LKneeWidth": 101.0,
        "LTibialTorsion": 0.0, "RTibialTorsion": -0.2, "LAnkleAbAdd": 0.1, "RStaticPlantFlex": 0.25,
        "HeadOffset": 0.0, "Unrelated": 5.0})
    s = read_processing(path)
    assert s.mass == pytest.approx(70.0) and s.height == pytest.approx(1.75)
    assert s.left_leg_length == pytest.approx(0.9) and s.left_knee_width == pytest.approx(0.101)
    assert s.right_knee_width is None
    assert s.left_tibial_torsion == 0.0 and s.head_offset == 0.0
    assert s.right_tibial_torsion == pytest.approx(-0.2) and s.left_ankle_abduction == pytest.approx(0.1)
    assert s.right_static_plantar_flexion == pytest.approx(0.25)
    assert s.source.endswith("t.c3d (PROCESSING)")


def test_no_processing_group_or_not_a_c3d_gives_none(tmp_path):
    assert read_processing(_c3d_with_processing(tmp_path / "t.c3d", None)) is None
    other = tmp_path / "x.c3d"
    other.write_text("not a c3d file")
    assert read_processing(other) is None


def test_workstation_mp_file(tmp_path):
    """A Vicon Workstation .mp: $Name = value lines with the .vsk's names and units (mm, deg; the static
    offsets in rad); a signed 0 is a value, a width of 0 is not measured."""
    p = tmp_path / "subject.mp"
    p.write_text("{* Vicon parameters *}\n$Bodymass = 61\n$Height = 1650\n$LeftLegLength = 860\n"
                 "$RightKneeWidth = 0\n$LeftTibialTorsion = -19\n$RightTibialTorsion = -26\n"
                 "$RightAnkleAbAdd = 0\n$LeftStaticPlantFlex = 0.11\n")
    s = read_subject(p)
    assert s.mass == 61.0 and s.height == pytest.approx(1.65) and s.left_leg_length == pytest.approx(0.86)
    assert s.right_knee_width is None
    assert s.left_tibial_torsion == pytest.approx(math.radians(-19.0))
    assert s.right_tibial_torsion == pytest.approx(math.radians(-26.0))
    assert s.right_ankle_abduction == 0.0 and s.left_static_plantar_flexion == pytest.approx(0.11)


def test_precedence_options_then_subject_file_then_processing(tmp_path):
    """--mass/--height win over PROCESSING (the log line says so); a file that is not a C3D has none (a subject
    file winning over PROCESSING: tests/integration/test_vicon_outputs.py)."""
    path = _c3d_with_processing(tmp_path / "t.c3d", {"Bodymass": 70.0, "Height": 1750.0})
    trial = SimpleNamespace(forces=None)
    log = Logbook()
    proc = _processing_subject(path, AnalysisOptions(mass=80.0), log)
    assert proc is not None and proc.mass == 70.0
    assert len(log.messages) == 1 and "PROCESSING group" in log.messages[0] and "--mass given win" in log.messages[0]
    subj = subject(trial, AnalysisOptions(mass=80.0), Logbook(), proc)
    assert subj.mass == 80.0 and subj.height == pytest.approx(1.75)
    assert _processing_subject(str(tmp_path / "walk.trc"), AnalysisOptions(), Logbook()) is None

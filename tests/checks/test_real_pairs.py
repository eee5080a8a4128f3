"""Both errors of the input checks on real recordings that nobody on the project made (../shared/data/real):
each check with a real pair that must pass and a wrong one made from it that must be refused
(docs/checks.md, "Both errors of each check")."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import numpy as np
import pytest
from _shared import ROOT, SHARED_DATA

import humanbody as hb
from humanbody.checks.force_clock import check_force_clock
from humanbody.checks.force_timing import check_force_timing
from humanbody.checks.imu_still import check_still_window
from humanbody.checks.static_fit import check_static_fit
from humanbody.errors import InputError

IMU = SHARED_DATA / "real" / "imu"
C3D = SHARED_DATA / "real" / "c3d" / "c3d_org"
CALIBRATIONS = [IMU / f"MT_012005D6_009-quaternions_calibration_trial_Facing_{side}.sto" for side in ("X", "negX")]
WALK26, STAND26 = C3D / "sample_26_Walking_Hybrid_1_1.c3d", C3D / "sample_26_Standing_Hybrid_1.c3d"


def _labels(df) -> list[str]:
    return sorted({c.rsplit("_q", 1)[0] for c in df.columns if c.endswith("_qw")})


# ------------------------------------------------------------------ imu-still: OpenSense's own recordings
@pytest.mark.parametrize("path", CALIBRATIONS, ids=["Facing_X", "Facing_negX"])
def test_opensense_calibration_trials_have_a_still_window(path):
    """OpenSense's calibration trials (Xsens MTw, the subject standing): a still window is found."""
    if not path.is_file():
        pytest.skip("needs the shared OpenSense recordings")
    from humanbody.io import read_trial

    df = read_trial(path)
    _, line = check_still_window(df, _labels(df), path.name)
    assert line.startswith("check imu-still: calibration posture = the still window ")


def test_real_imu_walk_stands_first_and_the_same_walk_cut_to_its_walking_is_refused():
    """The Xsens export of OpenSense's walk stands still for its first 5 s (fastest sensor 2-4 deg/s), then walks
    (115-400 deg/s): with its standing it passes; from 5 s on (a walk from its first frame) it is refused."""
    mt = IMU / "xsens_mt_txt"
    if not mt.is_dir():
        pytest.skip("needs the shared Xsens MT text export")
    from humanbody.io import read_trial

    df = read_trial(mt)
    labels = _labels(df)
    _, line = check_still_window(df, labels, "walk")
    assert "the still window 0.00-0.50 s of the trial" in line
    walking = df[df["time"] >= 5.0].reset_index(drop=True)
    walking.attrs = dict(df.attrs)
    with pytest.raises(InputError, match="no still window"):
        check_still_window(walking, labels, "walk")


# ------------------------------------------------------------------ a vendor's walk: Qualisys (C3D.org sample 26)
@pytest.fixture(scope="module")
def qualisys(tmp_path_factory):
    if not WALK26.is_file():
        pytest.skip("needs the shared C3D.org samples")
    folder = tmp_path_factory.mktemp("q26")
    drafted = folder / "q26.toml"
    run = subprocess.run([sys.executable, "-m", "humanbody", "markerset", "init", str(STAND26), "--out", str(drafted)],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""},
                         timeout=900)
    assert run.returncode == 0, run.stderr
    analysis = hb.analyze_trial(WALK26, static=STAND26, markerset=drafted)
    return analysis, drafted


def test_qualisys_walk_with_its_standing_trial_and_plates_passes(qualisys):
    analysis, _ = qualisys
    static = next(m for m in analysis.messages if m.startswith("tracking: median RMS marker residual"))
    assert "check static: sample_26_Standing_Hybrid_1.c3d fits the trial's subject" in static
    assert "median RMS marker residual 3.3 mm" in static and "within 1.7 % of the trial's" in static
    clock = next(m for m in analysis.messages if m.startswith("check force-clock"))
    assert "(100 % of its frames)" in clock and "centre of pressure 4.1 cm from the nearest sole" in clock


def test_qualisys_plates_half_a_stride_late_are_refused(qualisys):
    """The walk's own plate loads rolled by half a stride (0.55 s), times kept: no foot under the force."""
    analysis, _ = qualisys
    loads, time = analysis.loads, analysis.motion.time
    shift = int(round(0.55 / float(np.median(np.diff(time)))))
    late = dataclasses.replace(loads, force=np.roll(loads.force, shift, axis=0), cop=np.roll(loads.cop, shift, axis=0),
                               body=np.roll(loads.body, shift, axis=0), moment_o=np.roll(loads.moment_o, shift, axis=0))
    if loads.raw_fz is not None:
        raw_shift = int(round(0.55 / float(np.median(np.diff(loads.raw_time)))))
        late = dataclasses.replace(late, raw_fz=np.roll(loads.raw_fz, raw_shift, axis=0))
    table = analysis.load_table
    with pytest.raises(InputError, match="the trial's own force plates do not match its feet: no foot is where "
                                         "the force is in 82 % of the loaded frames"):
        check_force_clock(table, late, analysis.results, analysis.model, time, trial=analysis.source)
    with pytest.raises(InputError, match="not this trial's forces in time"):
        check_force_timing(table, late, analysis.results, analysis.model, time)


def test_qualisys_walk_of_a_larger_body_is_refused_with_this_standing_trial(qualisys):
    """The walk's markers 15 % farther apart (a body 15 % larger) against this standing trial's calibration: its
    real tracking residual passes (3.3 mm), the segments' dimensions do not (15 %, at most 8 %)."""
    analysis, _ = qualisys
    markers = analysis.markers
    assert check_static_fit(STAND26.name, analysis.tracking, calibration=analysis.calibration,
                            markers=markers).startswith("check static: sample_26_Standing_Hybrid_1.c3d fits")
    larger = markers.copy()
    cols = [c for c in markers.columns if c != "time"]
    larger[cols] = markers[cols] * 1.15
    with pytest.raises(InputError, match="does not fit this trial's subject"):
        check_static_fit(STAND26.name, analysis.tracking, calibration=analysis.calibration, markers=larger)

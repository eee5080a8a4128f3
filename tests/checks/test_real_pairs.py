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
def _drafted(folder, walk, stand):
    """The walk analysed with its standing trial and the marker set `markerset init` drafts from that trial."""
    if not walk.is_file():
        pytest.skip("needs the shared C3D.org samples")
    drafted = folder / f"{stand.stem}.toml"
    run = subprocess.run([sys.executable, "-m", "humanbody", "markerset", "init", str(stand), "--out", str(drafted)],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""},
                         timeout=900)
    assert run.returncode == 0, run.stderr
    return hb.analyze_trial(walk, static=stand, markerset=drafted), drafted


def _late(loads, seconds: float, time):
    """The plate loads rolled ``seconds`` later on the same clock (times kept): another moment's forces."""
    shift = int(round(seconds / float(np.median(np.diff(time)))))
    late = dataclasses.replace(loads, force=np.roll(loads.force, shift, axis=0), cop=np.roll(loads.cop, shift, axis=0),
                               body=np.roll(loads.body, shift, axis=0), moment_o=np.roll(loads.moment_o, shift, axis=0))
    if loads.raw_fz is not None:
        raw_shift = int(round(seconds / float(np.median(np.diff(loads.raw_time)))))
        late = dataclasses.replace(late, raw_fz=np.roll(loads.raw_fz, raw_shift, axis=0))
    return late


def _larger(markers, factor: float = 1.15):
    """The trial's markers ``factor`` farther apart: a body ``factor`` times larger."""
    larger = markers.copy()
    cols = [c for c in markers.columns if c != "time"]
    larger[cols] = markers[cols] * factor
    return larger


@pytest.fixture(scope="module")
def qualisys(tmp_path_factory):
    return _drafted(tmp_path_factory.mktemp("q26"), WALK26, STAND26)


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
    late = _late(loads, 0.55, time)
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
    with pytest.raises(InputError, match="does not fit this trial's subject"):
        check_static_fit(STAND26.name, analysis.tracking, calibration=analysis.calibration, markers=_larger(markers))


# ------------------------------------------------------------------ BTS (C3D.org sample 28) and The MotionMonitor (sample 00)
BTS = (C3D / "sample_28_dynamic.c3d", C3D / "sample_28_standing.c3d")
MOTION_MONITOR = (C3D / "sample_00_Innovative_Sports_Training_Gait_with_EMG.c3d",
                  C3D / "sample_00_Innovative_Sports_Training_Static_Pose.c3d")


@pytest.fixture(scope="module")
def bts(tmp_path_factory):
    return _drafted(tmp_path_factory.mktemp("bts28"), *BTS)[0]


@pytest.fixture(scope="module")
def motion_monitor(tmp_path_factory):
    return _drafted(tmp_path_factory.mktemp("mm00"), *MOTION_MONITOR)[0]


@pytest.mark.parametrize(("vendor", "residual", "dimensions"), [("bts", 5.7, 0.9), ("motion_monitor", 3.3, 1.3)])
def test_vendor_walk_with_its_standing_trial_passes_and_bodies_10_percent_off_are_refused(request, vendor, residual,
                                                                                         dimensions):
    """BTS's walk (Davis/Helen Hayes markers, repeated labels told apart) and The MotionMonitor's (IST) with the
    standing trials recorded with them: the static check passes; the walk's markers on a body 10 % larger or smaller
    (the real tracking residual kept) differ from the standing trial's dimensions by about 10 % and are refused."""
    analysis = request.getfixturevalue(vendor)
    stand = (BTS if vendor == "bts" else MOTION_MONITOR)[1]
    line = next(m for m in analysis.messages if m.startswith("tracking: median RMS marker residual"))
    assert f"median RMS marker residual {residual} mm" in line and f"within {dimensions} % of the trial's" in line
    assert f"check static: {stand.name} fits the trial's subject" in line
    for factor in (1.1, 0.9):
        with pytest.raises(InputError, match=r"does not fit this trial's subject: the distances between the markers "
                                             r"of its segments differ from the trial's by (9\.[89]|10\.[0-3]) %"):
            check_static_fit(stand.name, analysis.tracking, calibration=analysis.calibration,
                             markers=_larger(analysis.markers, factor))


def test_motion_monitor_walk_with_the_plates_in_its_file_passes(motion_monitor):
    """Its plate rests at 23 N (not zeroed): the loads and the centre of pressure zeroed, 6.0 cm from a sole (6.2 with
    the centre of the loads as read)."""
    clock = next(m for m in motion_monitor.messages if m.startswith("check force-clock"))
    assert "(100 % of its frames); a foot at the centre of pressure in 100 % of 82 loaded frames" in clock
    assert "centre of pressure 6.0 cm from the nearest sole" in clock and "0.03 s from the feet's kinematic" in clock


def test_motion_monitor_plates_half_a_stride_late_are_refused(motion_monitor):
    """The MotionMonitor walk's own plate loads 0.55 s late (about half a stride), times kept."""
    analysis = motion_monitor
    late = _late(analysis.loads, 0.55, analysis.motion.time)
    with pytest.raises(InputError, match="do not match its feet: no foot is where the force is in 79 % of the loaded"):
        check_force_clock(analysis.load_table, late, analysis.results, analysis.model, analysis.motion.time,
                          trial=analysis.source)
    with pytest.raises(InputError, match="not this trial's forces in time: the centres of pressure lie 6[45] cm"):
        check_force_timing(analysis.load_table, late, analysis.results, analysis.model, analysis.motion.time)


# ------------------------------------------------------------------ video keypoints: Pose2Sim's demo (tests/data/pose2sim)
POSE2SIM = ROOT / "tests" / "data" / "pose2sim"
BALANCING = POSE2SIM / "S00_P00_T01_BalancingTrial_every3rd.trc"


def test_pose2sim_trial_with_its_own_static_passes():
    """Pose2Sim's balancing trial with the standing static recorded with it: 27.9 mm of residual (keypoints sit
    where each frame's detector puts the joint), shoulders 18 % narrower and thighs 13 % longer than in the static,
    yet the skeleton's scale within 3.3 %: analysed."""
    analysis = hb.analyze_trial(BALANCING, static=POSE2SIM / "S00_P00_T00_StaticTrial.trc")
    line = next(m for m in analysis.messages if "check static" in m)
    assert "median RMS marker residual 27.9 mm" in line
    assert ("S00_P00_T00_StaticTrial.trc fits the trial's subject (median marker residual at most 40 mm; segment "
            "keypoint distances scaled within 3.3 % of the trial's, at most 10 %)") in line


@pytest.mark.parametrize(("static", "why"), [
    ("S00_P01_T01_StaticTrialParticipant2.trc", r"residual of 127\.[6-9] mm .* skeleton is 38\.7 % smaller"),
    ("scaled", r"skeleton is 12\.2 % larger than the trial's"),
])
def test_pose2sim_trial_with_another_subjects_static_is_refused(tmp_path, static, why):
    """The demo's second participant's static (a smaller person), and the trial made 15 % smaller against its
    own static: refused."""
    trial, own = BALANCING, POSE2SIM / "S00_P00_T00_StaticTrial.trc"
    if static == "scaled":
        lines = BALANCING.read_text().splitlines()
        rows = (line.split("\t") for line in lines[5:])
        trial = tmp_path / "smaller.trc"
        trial.write_text("\n".join(lines[:5] + ["\t".join(r[:2] + [f"{float(v) * 0.85:.4f}" for v in r[2:]])
                                                for r in rows]) + "\n")
    with pytest.raises(InputError, match=f"does not fit this trial's subject: .*{why}"):
        hb.analyze_trial(trial, static=own if static == "scaled" else POSE2SIM / static)

"""Every walk among C3D.org's sample files, analysed first try as a new user runs it
(``humanbody analyze WALK [--static STANDING]``, nothing else given): the marker set it finds or drafts, the
events, the clinical angles and the kinetics within a body's ranges, or one line naming what is missing and what
to do.  The table in docs/formats.md ("C3D.org's sample files") gives the same figures.  Skipped when the shared
data are absent."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from _shared import SHARED_DATA

from humanbody.analysis import analyze_trial
from humanbody.checks.outputs import event_findings
from humanbody.commands.analyze import CHECK_NOTES, screen_lines
from humanbody.errors import InputError
from humanbody.gait.selection import trial_events
from humanbody.gait.spatiotemporal import spatiotemporal

pytestmark = pytest.mark.slow

ORG = SHARED_DATA / "real" / "c3d" / "c3d_org"

#: walk -> (standing trial or None, marker set: a built-in name or "drafted")
RUNS = {
    "sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01": (None, "plug_in_gait_lower"),
    "sample_03_gait-raw": (None, "plug_in_gait_lower"),
    "sample_23_Vicon_analysis": (None, "plug_in_gait_lower"),
    "sample_00_Innovative_Sports_Training_Gait_with_EMG": ("sample_00_Innovative_Sports_Training_Static_Pose",
                                                           "plug_in_gait_lower"),
    "sample_26_Walking_Hybrid_1_1": ("sample_26_Standing_Hybrid_1", "drafted"),
    "sample_28_dynamic": ("sample_28_standing", "drafted"),
    "sample_00_Codamotion_codamotion_gaitwands_20150204": (None, "drafted"),
    "sample_00_Motion_Analysis_Corporation_Walk1": (None, "plug_in_gait_lower"),
    "sample_30_marche281": (None, "drafted"),
}
#: walks whose file has no force-plate samples, and what the first screen says of it (nothing: Biogesta's
#: SUBJECT group gives the mass, so no plate is looked for)
NO_PLATES = {"sample_28_dynamic": "no force plates", "sample_30_marche281": None}
#: walks whose numbers are a body's: stance 55-68 %, knee flexion peaks 50-75 deg, moments within the checks'
#: limits (hip, ankle 2.5, knee 2 N·m/kg) and no output check said anything on them
PLAUSIBLE = ("sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01", "sample_03_gait-raw",
             "sample_00_Innovative_Sports_Training_Gait_with_EMG", "sample_00_Codamotion_codamotion_gaitwands_20150204",
             "sample_26_Walking_Hybrid_1_1", "sample_00_Motion_Analysis_Corporation_Walk1", "sample_23_Vicon_analysis")
_CACHE: dict = {}


def _path(name: str) -> str:
    path = ORG / f"{name}.c3d"
    if not path.is_file():
        pytest.skip(f"needs the shared C3D files ({path.name})")
    return str(path)


def _run(walk: str):
    if walk not in _CACHE:
        static = RUNS[walk][0]
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # no library warning on a first try either
            an = analyze_trial(_path(walk), static=None if static is None else _path(static))
        _events, used, points, feet, pelvis, _ = trial_events(an)
        _CACHE[walk] = (an, spatiotemporal(used, points, feet=feet, pelvis=pelvis))
    return _CACHE[walk]


def _written(walk: str):
    """(clinical angles, kinetics or None, the line on what was left empty) as the results table holds them:
    the values the recording does not measure left empty (:mod:`humanbody.checks.unmeasured`)."""
    from humanbody.checks.unmeasured import analysis_masks

    key = ("written", walk)
    if key not in _CACHE:
        an, _ = _run(walk)
        clinical = an.clinical.copy()
        kinetics = None if an.kinetics is None else an.kinetics.copy()
        masks, line = analysis_masks(an, list(clinical.columns) + list([] if kinetics is None else kinetics.columns))
        for column, frames in masks.items():
            table = clinical if column in clinical.columns else kinetics
            table.loc[frames, column] = np.nan
        _CACHE[key] = (clinical, kinetics, line)
    return _CACHE[key]


@pytest.mark.parametrize("walk", list(RUNS))
def test_walk_is_analysed_first_try(walk):
    """Marker set (built-in or drafted, said in one line), events of both feet, angles in most frames; kinetics
    from the trial's own plates where the file has plates with samples, the plates at the feet."""
    an, params = _run(walk)
    want = RUNS[walk][1]
    drafted = [m for m in an.messages if m.startswith("marker set: no built-in set matches, drafted")]
    if want == "drafted":
        assert len(drafted) == 1 and "humanbody markerset init" in drafted[0]
    else:
        assert not drafted and an.calibration.markerset.name == want
    assert params.loc["right", "n_strides"] >= 1 and params.loc["left", "n_strides"] >= 1
    for side in ("right", "left"):
        knee = an.clinical[f"{side}_knee_flexion_deg"].to_numpy()
        assert np.isfinite(knee).mean() > 0.6
    clock = [m for m in an.messages if m.startswith("check force-clock:")]
    if walk in NO_PLATES:  # BTS: FORCE_PLATFORM:USED 1 but no analog sample; Biogesta: no plate
        assert an.kinetics is None and not clock
        assert NO_PLATES[walk] is None or any(NO_PLATES[walk] in m for m in an.messages)
    else:
        assert an.kinetics is not None and len(clock) == 1
        share = float(clock[0].split("a foot at the centre of pressure in ")[1].split(" %")[0])
        assert share >= 97.0


@pytest.mark.parametrize("walk", PLAUSIBLE)
def test_walk_gives_a_body_s_numbers(walk):
    """Stance 55-68 % of the stride, knee flexion peaks of a walk, moments within the output checks' limits."""
    an, params = _run(walk)
    assert 55.0 <= params.loc["overall", "stance_pct"] <= 68.0
    assert 0.9 <= params.loc["overall", "speed_m_per_s"] <= 1.7
    status = an.tracking.status
    kin = an.kinetics
    measured = dict.fromkeys(("hip", "knee", "ankle"), 0)
    for side in ("right", "left"):
        # where the leg's segments are fitted to their own markers, not carried from their parents (Codamotion's
        # leave the cameras' view at 5.7 s, Vicon_analysis's right foot its last 0.13 s): the output checks
        # name the others
        tracked = np.ones(len(status), dtype=bool)
        for segment in (f"{side}_upper_leg", f"{side}_lower_leg", f"{side}_foot"):
            tracked &= (status[segment] != "fallback").to_numpy()
        knee = an.clinical[f"{side}_knee_flexion_deg"].to_numpy()
        assert tracked.mean() > 0.5 and 50.0 <= np.nanmax(knee[tracked]) <= 75.0
        for joint, limit in (("hip", 2.5), ("knee", 2.0), ("ankle", 2.5)):
            cols = [c for c in kin.columns if c.startswith(f"{side}_{joint}_") and c.endswith("_moment_Nm_per_kg")]
            moments = np.abs(kin[cols].to_numpy()[tracked])
            measured[joint] += int(np.isfinite(moments).any())  # a foot no plate measured has none
            assert cols and not (moments > limit).any(), (side, joint)
    assert min(measured.values()) >= 1
    # nothing said but, at most, a segment carried from its parent where its markers are lost (gait-raw's toe in
    # its last 0.3 s, Qualisys's right shank with one marker in its first 0.12 s, Codamotion's legs leaving the view)
    assert [w for w in an.log.warnings if "carried from its parent" not in w] == []


def test_walks_without_heel_markers_say_what_plug_in_gait_uses_instead():
    """gait-raw has no heel samples, Vicon_analysis no heel markers: Plug-in Gait's foot from ankle and toe."""
    for walk in ("sample_03_gait-raw", "sample_23_Vicon_analysis"):
        an, _ = _run(walk)
        said = [m for m in an.messages if m.startswith("marker set 'plug_in_gait_lower' without ")]
        assert len(said) == 1 and "heel under the ankle centre" in said[0]


def test_vicon_analysis_s_frames_without_pelvis_markers_have_no_pose():
    """Vicon_analysis's pelvis has its sacrum alone until 1.88 s (no marker before 0.95 s): those frames have no
    pose (whole-body inverse kinematics placed the pelvis by the legs there: hip moments of 60 N·m/kg); the feet
    carried where their markers end are flagged, in a few lines."""
    an, params = _run("sample_23_Vicon_analysis")
    time = an.results.time
    pelvis = an.tracking.status["lower_torso"].to_numpy()
    assert (pelvis[time < 1.85] == "missing").all() and (pelvis[(time > 1.9) & (time < 5.0)] == "fit").all()
    assert np.isnan(an.clinical["right_hip_flexion_deg"].to_numpy()[time < 1.85]).all()
    assert an.log.warnings and all("carried from its parent" in w for w in an.log.warnings)
    assert len(screen_lines(an.log.warnings, CHECK_NOTES)) <= CHECK_NOTES  # one line per kind of note


def test_every_walk_s_first_screen_is_at_most_25_lines():
    """The notes before the results are written, the output checks' after, the 4 files written, the compile note."""
    for walk in RUNS:
        an, _ = _run(walk)
        first = [r for r in an.log.at("message") if r.message not in an.log.warnings]
        lines = len(screen_lines(first)) + len(screen_lines(an.log.warnings, CHECK_NOTES)) + 4 + 1
        assert lines <= 25, (walk, lines)


def test_the_qualisys_walk_s_screen_on_the_command_line(tmp_path):
    """At most 25 lines; the shanks' hidden markers fitted with their knee and ankle (said in one line): the
    right shank and foot carried to 1.52 s, their joints' angles and the leg's kinetics left empty there (the
    knee's power of 5.5 W/kg after their return), in one line naming --skip-check unmeasured that also names
    the carried segments."""
    import subprocess
    import sys

    walk, static = _path("sample_26_Walking_Hybrid_1_1"), _path("sample_26_Standing_Hybrid_1")
    proc = subprocess.run([sys.executable, "-m", "humanbody", "analyze", walk, "--static", static, "--out",
                           str(tmp_path)], capture_output=True, text=True, check=True)
    lines = proc.stderr.splitlines()
    assert len(lines) <= 25, lines
    assert sum(ln.startswith("check outputs:") for ln in lines) <= 3
    said = next(ln for ln in lines if ln.startswith("check outputs: not measured, left empty"))
    assert "right_lower_leg 1.404-1.521 s" in said and "right_foot 1.404-1.521 s" in said
    assert "left_lower_leg 1." not in said and "--skip-check unmeasured" in said
    assert not any(ln.startswith("check outputs: segments carried") for ln in lines)  # said in that line
    assert not any("right_knee_power_W_per_kg" in ln for ln in lines)
    assert sum(ln.startswith("tracking: frames with too few markers fitted with the segment's joint centres")
               for ln in lines) == 1


def test_walk1_s_wands_in_front_are_measured_against_the_pelvis():
    """Motion Analysis's thigh and shank markers (RTHI, RSHA) are in front of the segments, not lateral as Plug-in
    Gait's: their offsets measured against the pelvis's left-right axis (one line), the knee's flexion axis
    follows, and the plates' centres of pressure lie under the soles (12 cm from them with lateral wands)."""
    an, _ = _run("sample_00_Motion_Analysis_Corporation_Walk1")
    said = [m for m in an.messages if m.startswith("calibration: wands not to the side of their segments")]
    assert len(said) == 1 and all(f"{w} in front" in said[0] for w in ("RTHI", "RTIB", "LTHI", "LTIB"))
    for side in ("right", "left"):
        assert -90.0 < np.degrees(an.calibration.parameters[f"{side}_thigh_rotation"]) < -45.0
    clock = next(m for m in an.messages if m.startswith("check force-clock:"))
    assert float(clock.split(" cm from the nearest sole")[0].rsplit(" ", 1)[1]) < 5.0
    for side in ("right", "left"):  # the ankle's rotation a foot's, not the wand's 70 degrees
        assert np.nanmax(np.abs(an.clinical[f"{side}_ankle_internal_rotation_deg"])) < 25.0


def _figures(walk: str) -> dict:
    """What the table in docs/formats.md gives of a walk: stance (%, both feet's strides) and each side's, speed
    (m/s), the knee's peak flexion (deg) and the largest |hip, knee, ankle flexion moment| (N·m/kg) of either
    side, the last two as the results table holds them (:func:`_written`) where the leg's segments are fitted to
    their own markers."""
    an, params = _run(walk)
    clinical, kinetics, _ = _written(walk)
    status = an.tracking.status
    out = {"stance": params.loc["overall", "stance_pct"], "speed": params.loc["overall", "speed_m_per_s"],
           "right": params.loc["right", "stance_pct"], "left": params.loc["left", "stance_pct"]}
    knees, moments = [], {"hip": [], "knee": [], "ankle": []}
    for side in ("right", "left"):
        tracked = np.ones(len(status), dtype=bool)
        for segment in (f"{side}_upper_leg", f"{side}_lower_leg", f"{side}_foot"):
            tracked &= (status[segment] != "fallback").to_numpy()
        knees.append(np.nanmax(clinical[f"{side}_knee_flexion_deg"].to_numpy()[tracked]))
        for joint in moments if kinetics is not None else ():
            axis = "dorsiflexion" if joint == "ankle" else "flexion"
            v = np.abs(kinetics[f"{side}_{joint}_{axis}_moment_Nm_per_kg"].to_numpy()[tracked])
            if np.isfinite(v).any():
                moments[joint].append(np.nanmax(v))
    out["knee"] = max(knees)
    if an.kinetics is not None:
        out["moments"] = tuple(max(moments[j]) for j in ("hip", "knee", "ankle"))
    return out


#: The table's first column -> the walk it names.
TABLE_ROWS = {"Vicon Nexus 2.9": "sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01",
              "Vicon `gait-raw`": "sample_03_gait-raw",
              "The MotionMonitor": "sample_00_Innovative_Sports_Training_Gait_with_EMG",
              "Vicon `Vicon_analysis`": "sample_23_Vicon_analysis", "Qualisys": "sample_26_Walking_Hybrid_1_1",
              "BTS": "sample_28_dynamic", "Codamotion": "sample_00_Codamotion_codamotion_gaitwands_20150204",
              "Motion Analysis": "sample_00_Motion_Analysis_Corporation_Walk1", "Biogesta": "sample_30_marche281"}


def _table_rows() -> dict:
    text = (Path(__file__).resolve().parents[2] / "docs" / "formats.md").read_text(encoding="utf-8")
    rows = {}
    for line in text.split("### C3D.org's sample files", 1)[1].splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3:
            key = next((k for k in TABLE_ROWS if cells[0].startswith(k)), None)
            if key is not None:
                rows[TABLE_ROWS[key]] = (cells[1], cells[2])
    assert set(rows) == set(TABLE_ROWS.values()), sorted(set(TABLE_ROWS.values()) - set(rows))
    return rows


@pytest.mark.parametrize("walk", list(TABLE_ROWS.values()))
def test_the_walks_table_in_docs_is_what_the_code_gives(walk):
    """docs/formats.md's row of each walk: its stance, speed, knee and moments are today's, to their last digit."""
    first, gives = _table_rows()[walk]
    got = _figures(walk)
    assert first.startswith("analysed")
    number = r"(-?\d+(?:\.\d+)?)"
    stance = float(re.search(rf"stance {number} %", gives).group(1))
    speed = float(re.search(rf"{number} m/s", gives).group(1))
    knee = float(re.search(rf"knee {number}°", gives).group(1))
    assert abs(stance - got["stance"]) <= 0.051 and abs(speed - got["speed"]) <= 0.0051, (walk, got)
    assert abs(knee - got["knee"]) <= 0.51, (walk, got)
    for side in ("right", "left"):
        said = re.search(rf"{side} {number} %", gives)
        if said:
            assert abs(float(said.group(1)) - got[side]) <= 0.051, (walk, side, got)
    said = re.search(rf"moments {number} / {number} / {number}", gives)
    assert (said is None) == ("moments" not in got), (walk, got)
    if said:
        np.testing.assert_allclose([float(x) for x in said.groups()], got["moments"], atol=0.0051, err_msg=walk)


#: walks slower than 0.8 m/s, whose stance lengthens past a walk's 68 %: the highest each side reaches
SLOW = {"sample_30_marche281": 70.0}


@pytest.mark.parametrize("walk", [w for w in RUNS if "CGM24" not in w])
def test_each_side_s_stance_is_a_walk_s(walk):
    """Stance 55-68 % of each side's strides (the Nexus file's right side, cut at its own events, is 52.5 %: said in
    one line naming --events kinematic, test_analyze_checks_a_file_s_events_too); Biogesta's walk, at 0.76 m/s and
    86 steps a minute, 66.3 % left and 69.9 % right."""
    got = _figures(walk)
    top = SLOW.get(walk, 68.0)
    assert 55.0 <= got["right"] <= top and 55.0 <= got["left"] <= top, got
    if walk in SLOW:
        assert got["speed"] < 0.8 and 55.0 <= got["stance"] <= top, got


def test_biogesta_s_walk_is_drafted_with_a_pelvis_of_its_trochanters():
    """Biogesta's walk has no pelvis and no malleolus marker: the draft builds the pelvis from the trochanters
    (GTD, GTG) and C7, the ankles from the heels (TLND, TLNG), says both as CHECKs in the log, and gives a walk's
    knees (peaks 50-75 deg), ankles (dorsiflexion within -15..30 deg) and hips (flexion within -15..45 deg, measured
    from the trunk's line); the height and mass are the file's SUBJECT group's."""
    an, params = _run("sample_30_marche281")
    checks = [r.message for r in an.log.at("detail") if "CHECK no pelvis marker: the pelvis from the trochanters" in r.message]
    assert len(checks) == 1
    assert an.calibration.height == pytest.approx(1.74) and an.model.total_mass == pytest.approx(69.0)
    for side in ("right", "left"):
        knee = an.clinical[f"{side}_knee_flexion_deg"].to_numpy()
        ankle = an.clinical[f"{side}_ankle_dorsiflexion_deg"].to_numpy()
        hip = an.clinical[f"{side}_hip_flexion_deg"].to_numpy()
        assert 50.0 <= np.nanmax(knee) <= 75.0 and -10.0 <= np.nanmin(knee) <= 15.0
        assert -15.0 <= np.nanmin(ankle) and np.nanmax(ankle) <= 30.0
        assert -15.0 <= np.nanmin(hip) and np.nanmax(hip) <= 45.0 and np.nanmax(hip) - np.nanmin(hip) > 20.0
    assert an.log.warnings == ()


def test_a_walk_whose_joint_markers_are_in_its_standing_trial_only_points_to_it():
    """The Qualisys walk without its standing trial (as ``report`` finds it: the standing trial's name has no
    "static"): its knee markers are in the standing trial only, so the draft from the walk's own frames fails; the
    one line says so and names --static, not a marker-set file."""
    with pytest.raises(InputError, match=r"drafting a set for them failed: has no right knee marker .*cannot place "
                                         r"the right knee centre \(drafted from the walk's own frames: a marker "
                                         r"taken off after the standing trial is in that trial, which analyze and "
                                         r"report take with `static`, markerset init as its STATIC\)$") as err:
        analyze_trial(_path("sample_26_Walking_Hybrid_1_1"))
    text = str(err.value)
    assert "\n" not in text and "give the force file" not in text and "give metres" not in text
    assert "--static" in str(err.value.on_command_line())


def test_file_events_off_the_feet_are_said_on_the_nexus_file():
    """The Nexus 2.9 file's right foot strikes lie 0.08 s (median of 5) after the markers' and its offs 0.05 s
    before: its 52.5 % right stance is said in one output-check line naming --events kinematic; Vicon_analysis's
    events (strikes 0.04-0.05 s after the markers', offs 0.01 s before) agree and are not."""
    an, _ = _run("sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01")
    events, used, *_ = trial_events(an)
    said = event_findings(events, used)
    assert len(said) == 1 and "right foot strikes 0.08 s after the markers' (median of 5)" in said[0]
    assert "left" not in said[0] and "--events kinematic" in said[0]
    kin_events, kin_used, *_ = trial_events(an, source="kinematic")
    assert event_findings(kin_events, kin_used) == []
    an, _ = _run("sample_23_Vicon_analysis")
    events, used, *_ = trial_events(an)
    assert (used["source"] == "file").any() and event_findings(events, used) == []


@pytest.mark.parametrize("walk,said", [("sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01", True),
                                       ("sample_23_Vicon_analysis", False),
                                       ("sample_00_Motion_Analysis_Corporation_Walk1", False)])
def test_analyze_checks_a_file_s_events_too(walk, said):
    """analyze cuts no strides, but says the Nexus file's right events in one line: its 52.5 % stance, the markers'
    64.4 %, and --events kinematic; the walks whose events agree with the feet (Walk1's read from Cortex's codes)
    are silent."""
    from humanbody.checks.file_events import file_event_findings

    an, _ = _run(walk)
    lines = file_event_findings(an)
    assert len(lines) == int(said)
    if said:
        assert "right foot strikes 0.08 s after" in lines[0] and "stance 52.5 % (64.4 % at the markers' events" in \
            lines[0] and "--events kinematic" in lines[0] and "left" not in lines[0]


_WALK_FILES = set(RUNS) | {"sample_30_marche281"}
_OTHER_FILES = ([p for p in sorted(ORG.glob("*.c3d")) if p.stem not in _WALK_FILES]
                + sorted((ORG.parent).glob("*.c3d"))) if ORG.is_dir() else []


@pytest.mark.parametrize("path", _OTHER_FILES, ids=[p.stem for p in _OTHER_FILES])
def test_every_other_shared_file_analysed_or_refused_within_a_screen(path, tmp_path):
    """``humanbody analyze FILE`` on every other shared C3D file (C3D.org's and the ezc3d corpus): analysed within
    25 lines, or refused in one line (exit status 2) naming the file; never a traceback or a library warning."""
    from _cli import run_main

    proc = run_main("analyze", str(path), "--out", str(tmp_path))
    lines = proc.stderr.splitlines()
    assert "Traceback" not in proc.stderr and "Warning" not in proc.stderr, proc.stderr[-2000:]
    assert proc.returncode in (0, 2) and len(lines) <= 25, lines
    if proc.returncode == 2:
        assert len(lines) == 1 and path.name in lines[0], lines
    if path.stem == "sample_11_evart":  # plates ezc3d cannot extract: the markers analysed without kinetics, said
        assert proc.returncode == 0
        assert any(ln.startswith("loads: the trial's own force platforms not read (") and ln.endswith(
            "no kinetics; give the forces with --forces FILE") for ln in lines), lines


#: The three numbers no body makes that the walks once printed, each where the recording does not measure it:
#: walk -> (column, frames (s) where it was, its limits in a walk, the segment or foot the line names).
UNMEASURED = {
    # the left shank's markers leave the cameras' view while its foot's stay: the ankle against a shank carried
    # from the thigh (84 deg at 5.82 s)
    "sample_00_Codamotion_codamotion_gaitwands_20150204": ("left_ankle_dorsiflexion_deg", (5.8, 6.3), 30.0,
                                                           "left_lower_leg 5.810-6.290 s"),
    # the right foot keeps two markers and the shank one until 1.52 s: both carried, then back 56 deg away; the
    # differentiator spreads the jump (knee power 5.5 W/kg at 1.56 s)
    "sample_26_Walking_Hybrid_1_1": ("right_knee_power_W_per_kg", (1.40, 1.60), 2.5, "right_lower_leg 1.404-1.521 s"),
    # the right foot strikes the floor past the last plate at 5.60 s and loses its markers at 5.65 s (hip moment
    # 7.6 N·m/kg in the last frame)
    "sample_23_Vicon_analysis": ("right_hip_flexion_moment_Nm_per_kg", (5.6, 5.8), 1.5, "right_foot 5.650-5.775 s"),
}


@pytest.mark.parametrize("walk", list(UNMEASURED))
def test_what_the_recording_does_not_measure_is_left_empty_and_said(walk):
    """Each cause pinned on its file: the value is empty where it was, the line names the segment, its times and
    --skip-check unmeasured, and what is left is a walk's (ankle within 30 deg; knee power at most 2.5 W/kg; hip
    moment at most 1.5 N·m/kg)."""
    an, _ = _run(walk)
    clinical, kinetics, line = _written(walk)
    column, (t0, t1), limit, named = UNMEASURED[walk]
    table = clinical if column in clinical.columns else kinetics
    values = table[column].to_numpy()
    raw = (an.clinical if column in an.clinical.columns else an.kinetics)[column].to_numpy()
    time = an.results.time
    where = (time >= t0) & (time <= t1)
    assert np.nanmax(np.abs(raw[where])) > limit  # as computed: what the output checks flagged
    assert np.nanmax(np.abs(values)) <= limit, np.nanmax(np.abs(values))
    assert line.startswith("check outputs: not measured, left empty (--skip-check unmeasured") and named in line


def test_codamotion_s_push_off_on_a_plate_not_zeroed_is_a_walk_s():
    """Plate 3 rests at -71 N: its centre of pressure from the zeroed loads keeps the right push-off's ankle power
    under the output checks' 7 W/kg (10.6 from the loads as read), every loaded frame at a foot."""
    an, _ = _run("sample_00_Codamotion_codamotion_gaitwands_20150204")
    _, kinetics, _ = _written("sample_00_Codamotion_codamotion_gaitwands_20150204")
    assert np.nanmax(np.abs(kinetics["right_ankle_power_W_per_kg"].to_numpy())) < 7.0
    clock = next(m for m in an.messages if m.startswith("check force-clock:"))
    assert "a foot at the centre of pressure in 100 %" in clock

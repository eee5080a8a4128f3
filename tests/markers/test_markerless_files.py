"""Markerless trials in the exact layouts Pose2Sim and OpenCap write.

The files are made here: the model's own motion (the sample walk's
coordinates through forward kinematics, as in test_keypoints.py) seen as the
keypoints each tool names, written with each tool's TRC layout.  What is
taken from the tools is only the marker names (and their order) and the
header format, facts of their output files:

* Pose2Sim's triangulation (``make_trc``, ``pose-3d/*.trc``): line 1
  ``PathFileType<TAB>4<TAB>(X/Y/Z)<TAB>file.trc``; line 3 with the integer
  frame rate and ``m``; line 4 ``Frame#<TAB>Time<TAB>RHip<TAB><TAB><TAB>...``
  ending in three tabs; line 5 ``<TAB><TAB>X1<TAB>Y1<TAB>Z1 ...`` ending in a
  tab; no blank line; rows from pandas (``Frame#`` = the video frame, which
  need not start at 0 or 1; Time = frame / rate; full float precision; a
  keypoint not triangulated is an empty field, or exactly 0, 0, 0 when its
  large gaps were filled with zeros).  Axes: Y up, the horizontal axes
  wherever the calibration put them.  Keypoints in the order of its
  skeleton tree (skeletons.py), only those with an id: BODY_25B 21,
  HALPE_26 22 (with ``Hip``), COCO_17 13 (no eyes, ears, neck or feet).
* The OpenCap/Pose2Sim marker augmenter (``utilsDataman.TRCFile.write``:
  OpenCap's ``PostAugmentation`` files, Pose2Sim's ``*_LSTM.trc``): line 1
  ``PathFileType  4<TAB>(X/Y/Z) <folder>`` (two spaces), rates as ``60.0``,
  a blank line 6, frames numbered from 1, times and coordinates with 7
  decimals (the input's times kept), missing values written ``nan``; the
  43 ``*_study`` markers appended after the input's keypoints.
* OpenCap's video keypoints (``utils.numpy2TRC``, ``PreAugmentation``): the
  same header, every data row ending in a tab, 5 decimals; the 20 OpenPose
  BODY_25 keypoints without the face, ``midHip`` among them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody import InputError
from humanbody.analysis import analyze_trial
from humanbody.io.trc import read_trc
from humanbody.markers.markerset import detect_markerset
from tests.markers.test_keypoints import DATA, KP, MK, opencap_layout

FRAMES = 160

BODY25B = ["RHip", "RKnee", "RAnkle", "RBigToe", "RSmallToe", "RHeel", "LHip", "LKnee", "LAnkle", "LBigToe",
           "LSmallToe", "LHeel", "Neck", "Head", "Nose", "RShoulder", "RElbow", "RWrist", "LShoulder", "LElbow",
           "LWrist"]
HALPE26 = ["Hip"] + BODY25B
COCO17 = ["RHip", "RKnee", "RAnkle", "LHip", "LKnee", "LAnkle", "Nose", "RShoulder", "RElbow", "RWrist",
          "LShoulder", "LElbow", "LWrist"]
BODY25 = ["CHip"] + BODY25B[:12] + ["Neck", "Nose"] + BODY25B[15:]  # Pose2Sim BODY_25
STUDY = ["r.ASIS_study", "L.ASIS_study", "r.PSIS_study", "L.PSIS_study", "r_knee_study", "r_mknee_study",
         "r_ankle_study", "r_mankle_study", "r_toe_study", "r_5meta_study", "r_calc_study", "L_knee_study",
         "L_mknee_study", "L_ankle_study", "L_mankle_study", "L_toe_study", "L_calc_study", "L_5meta_study",
         "r_shoulder_study", "L_shoulder_study", "C7_study", "r_thigh1_study", "r_thigh2_study", "r_thigh3_study",
         "L_thigh1_study", "L_thigh2_study", "L_thigh3_study", "r_sh1_study", "r_sh2_study", "r_sh3_study",
         "L_sh1_study", "L_sh2_study", "L_sh3_study", "RHJC_study", "LHJC_study", "r_lelbow_study",
         "r_melbow_study", "r_lwrist_study", "r_mwrist_study", "L_lelbow_study", "L_melbow_study",
         "L_lwrist_study", "L_mwrist_study"]
OPENCAP20 = ["Neck", "RShoulder", "RElbow", "RWrist", "LShoulder", "LElbow", "LWrist", "midHip", "RHip", "RKnee",
             "RAnkle", "LHip", "LKnee", "LAnkle", "LBigToe", "LSmallToe", "LHeel", "RBigToe", "RSmallToe", "RHeel"]
COCO133_BODY = COCO17[:3] + ["RBigToe", "RSmallToe", "RHeel"] + COCO17[3:6] + ["LBigToe", "LSmallToe", "LHeel",
                                                                               "REye", "LEye", "REar", "LEar"] \
    + COCO17[6:] + ["RThumb", "RIndex", "RPinky", "LThumb", "LIndex", "LPinky"]


# ----------------------------------------------------------------- writers
def write_pose2sim(path, names, P, rate, first_frame=0):
    """Pose2Sim's triangulation layout; P (frames, markers, 3) in the lab's Y-up axes (m), NaN -> empty field."""
    n = P.shape[0]
    frames = np.arange(first_frame, first_frame + n)
    head = [f"PathFileType\t4\t(X/Y/Z)\t{Path(path).name}",
            "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
            "\t".join(map(str, [rate, rate, n, len(names), "m", rate, frames[0], n])),
            "Frame#\tTime\t" + "\t\t\t".join(names) + "\t\t\t",
            "\t\t" + "\t".join(f"X{i + 1}\tY{i + 1}\tZ{i + 1}" for i in range(len(names))) + "\t"]
    rows = ["\t".join([str(f), repr(float(f / rate))] + ["" if np.isnan(v) else repr(float(v)) for v in P[i].ravel()])
            for i, f in enumerate(frames)]
    Path(path).write_text("\n".join(head + rows) + "\n")


def write_augmenter(path, names, P, time, rate):
    """The augmenter's layout (OpenCap PostAugmentation, Pose2Sim *_LSTM.trc); NaN -> ``nan``."""
    n = P.shape[0]
    lines = [f"PathFileType  4\t(X/Y/Z) {Path(path).parent}",
             "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
             f"{rate:.1f}\t{rate:.1f}\t{n:d}\t{len(names):d}\tm\t{rate:.1f}\t1\t{n:d}",
             "Frame#\tTime\t" + "".join(f"{m}\t\t\t" for m in names),
             "\t\t" + "".join(f"X{i}\tY{i}\tZ{i}\t" for i in range(1, len(names) + 1)), ""]
    for f in range(n):
        lines.append(f"{f + 1:d}\t{time[f]:.7f}" + "".join(f"\t{x:.7f}\t{y:.7f}\t{z:.7f}" for x, y, z in P[f]))
    Path(path).write_text("\n".join(lines) + "\n")


def write_opencap_keypoints(path, names, P, rate):
    """OpenCap's video-keypoint layout (PreAugmentation): rows end with a tab, 5 decimals."""
    n = P.shape[0]
    text = ["PathFileType  4\t(X/Y/Z) /data\n",
            "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames\n",
            f"{rate:.1f}\t{rate:.1f}\t{n:d}\t{len(names):d}\tm\t{rate:.1f}\t1\t{n:d}\n",
            "Frame#\tTime\t" + "".join(f"{m}\t\t\t" for m in names),
            "\n\t\t" + "".join(f"X{i}\tY{i}\tZ{i}\t" for i in range(1, len(names) + 1)) + "\n\n"]
    for f in range(n):
        text.append(f"{f + 1}\t{f / rate:.8f}\t" + "".join("{:.5f}\t{:.5f}\t{:.5f}\t".format(*p)
                                                                     for p in P[f]) + "\n")
    Path(path).write_text("".join(text))


def y_up(P, heading_deg=0.0):
    """Ground (X forward, Y left, Z up) -> a Y-up lab whose forward axis is turned by ``heading_deg`` about the
    vertical: lab (x, y, z) = (X', Z, -Y') of the turned ground axes (right-handed, as OpenSim's)."""
    a = np.radians(heading_deg)
    Rz = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    Q = P @ Rz.T
    return np.stack([Q[..., 0], Q[..., 2], -Q[..., 1]], axis=-1)


# ----------------------------------------------------------------- motion
@pytest.fixture(scope="module")
def walk():
    """Truth coordinates and every name's ground positions (m): the keypoint layout of
    data/make_sample_keypoints.py, OpenCap's *_study markers, OpenPose BODY_25's neck (shoulders' midpoint)
    and mid-hip."""
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    coords = pd.read_csv(DATA / "sample_walk.csv").iloc[:FRAMES].reset_index(drop=True)
    res = hb.compute(model, coords)
    pts = MK.move_markers(KP.keypoint_layout(model, extra=True), res.R, res.joint, model)
    pts.update(MK.move_markers(opencap_layout(model), res.R, res.joint, model))
    pts["midHip"] = pts["CHip"] = 0.5 * (pts["RHip"] + pts["LHip"])
    pts["BNeck"] = 0.5 * (pts["RShoulder"] + pts["LShoulder"])  # OpenPose BODY_25 "Neck"
    return coords, pts


def _positions(pts, names, rename=None, noise=0.003, seed=7):
    rename = rename or {}
    P = np.stack([pts[rename.get(m, m)] for m in names], axis=1)
    return P + np.random.default_rng(seed).normal(0.0, noise, P.shape)


def _rms(an, coords, seg):
    err = np.degrees(an.coords[f"{seg}_alpha"].to_numpy() - coords[f"{seg}_alpha"].to_numpy())
    return float(np.sqrt(np.nanmean(err**2)))


# ----------------------------------------------------------------- the reader
def test_reader_takes_each_writers_layout_verbatim(tmp_path):
    """Trailing tabs, a missing or present blank line 6, frame numbers from 17, Time not starting at 0,
    empty fields and ``nan`` tokens: every value lands where the writer put it, in metres."""
    P = np.arange(5 * 3 * 3, dtype=float).reshape(5, 3, 3) / 10.0 + 0.05
    P[2, 1] = np.nan
    P[3, 0] = [3.2e-06, -1e-05, 1.5e-07]  # pandas writes these as 3.2e-06 ...
    names = ["RHip", "r.ASIS_study", "midHip"]
    cases = {
        "pose2sim.trc": lambda p: write_pose2sim(p, names, P, 60, first_frame=17),
        "lstm.trc": lambda p: write_augmenter(p, names, P, (np.arange(5) + 1) / 60.0, 60.0),
        "opencap.trc": lambda p: write_opencap_keypoints(p, names, P, 60.0),
    }
    for fname, write in cases.items():
        path = tmp_path / fname
        write(path)
        crlf = tmp_path / f"crlf_{fname}"  # the same tools on Windows write CR LF line ends
        crlf.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
        for p in (path, crlf):
            df = read_trc(p)
            assert df.attrs["markers"] == names, p.name
            got = np.stack([df[[f"{m}_{a}" for a in "xyz"]].to_numpy() for m in names], axis=1)
            tol = 6e-6 if fname == "opencap.trc" else 6e-8  # 5 decimals
            np.testing.assert_allclose(got, P, atol=tol, err_msg=p.name)  # NaN where the writer left the value out
            assert np.diff(df["time"].to_numpy()) == pytest.approx(1 / 60.0, abs=1e-6)
    first = read_trc(tmp_path / "pose2sim.trc")["time"].iloc[0]
    assert first == pytest.approx(17 / 60.0)


# ----------------------------------------------------------------- detection
@pytest.mark.parametrize("names, expected", [
    (BODY25B, "body25b"),                        # Pose2Sim BODY_25B
    (HALPE26, "halpe26"),                        # Pose2Sim HALPE_26
    (COCO17, "coco17"),                          # Pose2Sim COCO_17: 13 names
    (COCO133_BODY, "coco17"),                    # Pose2Sim COCO_133 (body and feet part): COCO names found
    (BODY25, "body25"),                          # Pose2Sim BODY_25 (CHip)
    (OPENCAP20, "body25"),                       # OpenCap PreAugmentation
    (OPENCAP20 + STUDY, "opencap"),              # OpenCap PostAugmentation
    (BODY25B + STUDY, "opencap"),                # Pose2Sim *_LSTM.trc of a BODY_25B trial
    (HALPE26 + STUDY, "opencap"),                # Pose2Sim *_LSTM.trc of a HALPE_26 trial
    (BODY25B + ["Hip"] + STUDY, "opencap"),      # newer Pose2Sim: "Hip" added before augmenting
    (BODY25B + ["Hip"], "halpe26"),              # the BODY_25B input Pose2Sim rewrites with "Hip"
    (COCO17 + ["Hip", "Neck"], "coco17"),        # a COCO_17 input rewritten with "Hip" and "Neck" (no feet to augment)
])
def test_real_name_lists_pick_their_set(names, expected):
    assert detect_markerset(names).name == expected


# ----------------------------------------------------------------- whole trials
def _pose2sim(kind, heading):
    names = {"body25b": BODY25B, "halpe26": HALPE26, "coco17": COCO17}[kind]
    rename = {"Neck": "HNeck"} if kind == "halpe26" else None
    return lambda path, pts: write_pose2sim(path, names, y_up(_positions(pts, names, rename), heading), 60,
                                            first_frame=37)


def _lstm(path, pts):
    names = BODY25B + STUDY
    write_augmenter(path, names, y_up(_positions(pts, names), 30.0), (np.arange(FRAMES) + 1) / 60.0, 60.0)


def _opencap_post(path, pts):
    names = OPENCAP20 + STUDY
    P = y_up(_positions(pts, names, {"Neck": "BNeck"}))
    P[..., 1] -= np.nanmin(P[:, len(OPENCAP20):, 1]) - 0.01  # OpenCap's vertical offset: lowest marker at 0.01 m
    write_augmenter(path, names, P, np.arange(FRAMES) / 60.0, 60.0)


def _opencap_pre(path, pts):
    write_opencap_keypoints(path, OPENCAP20, y_up(_positions(pts, OPENCAP20, {"Neck": "BNeck"}), -120.0), 60.0)


TRIALS = {
    "pose2sim_body25b": (_pose2sim("body25b", 30.0), "body25b"),
    "pose2sim_halpe26": (_pose2sim("halpe26", -60.0), "halpe26"),
    "pose2sim_coco17": (_pose2sim("coco17", 90.0), "coco17"),
    "pose2sim_lstm": (_lstm, "opencap"),
    "opencap_post": (_opencap_post, "opencap"),
    "opencap_pre": (_opencap_pre, "body25"),
}


@pytest.mark.parametrize("trial", list(TRIALS))
def test_tool_files_analyse_without_a_static_trial(walk, trial, tmp_path):
    """Each layout, recognised by its names, tracked without a static trial, facing any horizontal direction.

    Sagittal angles against the motion that made the file (3 mm noise): hips, knees and ankles within 2 deg
    RMS (COCO_17 has no foot keypoints: its ankles are not compared), elbows within 3 deg.  Measured
    (160 frames): hips 0.36-0.89 deg, knees 0.22-0.46, ankles 0.36-0.45, elbows 0.51-0.71 from keypoints
    and 1.6-1.9 from OpenCap's *_study markers.
    """
    coords, pts = walk
    write, expected = TRIALS[trial]
    path = tmp_path / f"{trial}.trc"
    write(path, pts)
    an = analyze_trial(path, mass=75.0, height=1.75)
    assert an.calibration.markerset.name == expected
    text = "\n".join(an.messages)
    assert "no static trial" in text and "whole-body inverse kinematics" in text
    legs = ["right_upper_leg", "right_lower_leg", "left_upper_leg", "left_lower_leg"]
    if expected != "coco17":
        legs += ["right_foot", "left_foot"]
    errs = {seg: _rms(an, coords, seg) for seg in legs}
    assert max(errs.values()) < 2.0, errs
    arms = {seg: _rms(an, coords, seg) for seg in ("right_lower_arm", "left_lower_arm")}
    assert max(arms.values()) < 3.0, arms


def test_cli_analyze_of_a_pose2sim_file(walk, tmp_path, capsys):
    from humanbody.cli import main

    coords, pts = walk
    path = tmp_path / "S00_P00_T01_walk_0-159.trc"
    _pose2sim("body25b", 0.0)(path, pts)
    out = tmp_path / "out"
    assert main(["analyze", str(path), "--height", "1.75", "--mass", "75", "--out", str(out)]) == 0
    table = pd.read_csv(out / "S00_P00_T01_walk_0-159_results.csv")
    knee = table["right_knee_flexion_deg"].to_numpy()
    assert 45.0 < np.nanmax(knee) < 80.0 and np.nanmin(knee) < 15.0  # a walk's knee: swing peak, extended stance
    assert "body25b" in capsys.readouterr().err


# ----------------------------------------------------------------- missing keypoints
def test_missing_keypoints_are_left_out_per_frame(walk, tmp_path):
    """Pose2Sim's empty fields and zero-filled gaps, the augmenter's ``nan``: short gaps filled, long ones
    and frames with no keypoint at all left missing and reported; the rest of the trial still tracked."""
    coords, pts = walk
    P = _positions(pts, BODY25B)
    P[40:46, BODY25B.index("RKnee")] = np.nan        # 6 frames: filled
    P[90:130, BODY25B.index("LWrist")] = np.nan      # 40 frames: left missing
    P[::7, BODY25B.index("Nose")] = np.nan           # scattered
    P[:3] = np.nan                                   # the first frames: nothing triangulated
    L = y_up(P, 20.0)
    L[60:70, BODY25B.index("RHeel")] = 0.0           # fill_large_gaps_with = 'zeros'
    empty = tmp_path / "gaps_empty.trc"
    write_pose2sim(empty, BODY25B, L, 60)
    lines = empty.read_text().splitlines()
    assert lines[6].startswith("1\t") and lines[6].split("\t")[2] == ""  # frame 1: empty fields
    an = analyze_trial(empty, mass=75.0, height=1.75)
    text = "\n".join(an.messages)
    assert "(0, 0, 0) set to NaN" in text and "filled" in text and "left missing" in text, text
    knee = an.coords["right_lower_leg_alpha"].to_numpy()
    assert np.isnan(knee[:3]).all() and np.isfinite(knee[3:]).all()
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot", "left_lower_leg"):
        assert _rms(an, coords, seg) < 2.0, seg

    names = BODY25B + STUDY
    Q = _positions(pts, names)
    Q[:2] = np.nan
    Q[50:53, names.index("r_knee_study")] = np.nan
    lstm = tmp_path / "walk_LSTM.trc"
    write_augmenter(lstm, names, y_up(Q), (np.arange(FRAMES) + 1) / 60.0, 60.0)
    assert "\tnan\tnan\tnan" in lstm.read_text()
    an = analyze_trial(lstm, mass=75.0, height=1.75)
    assert np.isnan(an.coords["right_lower_leg_alpha"].to_numpy()[:2]).all()
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot"):
        assert _rms(an, coords, seg) < 2.0, seg


def test_a_keypoint_never_triangulated_counts_as_missing(walk, tmp_path):
    """A column that is empty throughout is a missing keypoint: listed when the others still determine
    every segment, else one clear error naming it."""
    coords, pts = walk
    P = _positions(pts, HALPE26, {"Neck": "HNeck"})
    P[:, HALPE26.index("Hip")] = np.nan  # HALPE_26's pelvis centre, not needed to track
    path = tmp_path / "no_hip.trc"
    write_pose2sim(path, HALPE26, y_up(P), 60)
    an = analyze_trial(path, mass=75.0, height=1.75, markerset="halpe26")
    text = "\n".join(an.messages)
    assert "without a valid sample, left out: Hip" in text and "required marker(s) missing (Hip)" in text
    assert _rms(an, coords, "right_lower_leg") < 2.0

    P = _positions(pts, BODY25B)
    P[:, BODY25B.index("LSmallToe")] = np.nan  # the foot's y then follows the shank (docs/markerless.md)
    path = tmp_path / "no_small_toe.trc"
    write_pose2sim(path, BODY25B, y_up(P), 60)
    an = analyze_trial(path, mass=75.0, height=1.75)
    assert "left out: LSmallToe" in "\n".join(an.messages)
    assert _rms(an, coords, "left_foot") < 2.0 and _rms(an, coords, "left_lower_leg") < 2.0

    P = _positions(pts, COCO17)
    P[:, COCO17.index("Nose")] = np.nan
    path = tmp_path / "no_nose.trc"
    write_pose2sim(path, COCO17, y_up(P), 60)
    with pytest.raises(InputError, match="'Nose' of marker set 'coco17' is missing"):
        analyze_trial(path, mass=75.0, height=1.75)

"""Markerless trials: the built-in keypoint sets, no static trial, whole-body IK.

Synthetic keypoint trials are the sample walk's exact motion (data/sample_walk.csv,
default model 75 kg, 1.75 m) seen as the keypoints each set names (the
layout of data/make_sample_keypoints.py: joint centres, heels, toes, head
landmarks; OpenCap's augmented *_study markers placed here on the same
model), with 3 mm noise.  Each must be recognised by its names, tracked by
whole-body inverse kinematics without a static trial, and give the
sagittal angles back.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.analysis import analyze_trial
from humanbody.markers.markerset import detect_markerset, load_markerset

DATA = Path(__file__).resolve().parents[2] / "data"
FRAMES = 200  # two strides of the sample walk


def _module(name):
    spec = importlib.util.spec_from_file_location(name, DATA / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


KP = _module("make_sample_keypoints")
MK = _module("make_sample_markers")


def opencap_layout(model) -> dict:
    """OpenCap's *_study markers on the default model: name -> (segment, position relative to O_k)."""
    idx = {n: k for k, n in enumerate(model.names)}
    H = float(model.meta["subject"]["height"])
    foot = float(model.segment_meta[idx["right_foot"]]["length"])
    O = MK.reference_origins(model)
    sh = O[idx["right_upper_arm"]] - O[idx["upper_torso"]]
    acr_up = 0.17 * 2 * abs(sh[1])  # the set's shoulder rule: 17 % of the bi-acromial distance below
    out = {"RHJC_study": ("right_upper_leg", np.zeros(3)), "LHJC_study": ("left_upper_leg", np.zeros(3)),
           "C7_study": ("upper_torso", sh * [0, 0, 1] + [-0.08, 0.0, 0.04])}
    for side, s, y in (("right", "r", -1.0), ("left", "L", 1.0)):
        out[f"{s}.ASIS_study"] = ("lower_torso", np.array([0.06, y * 0.12, 0.09]))
        out[f"{s}.PSIS_study"] = ("lower_torso", np.array([-0.12, y * 0.045, 0.09]))  # ASIS-PSIS plane level
        out[f"{s}_knee_study"] = (f"{side}_lower_leg", np.array([0.0, y * 0.05, 0.0]))
        out[f"{s}_mknee_study"] = (f"{side}_lower_leg", np.array([0.0, -y * 0.05, 0.0]))
        out[f"{s}_ankle_study"] = (f"{side}_foot", np.array([0.0, y * 0.035, 0.0]))
        out[f"{s}_mankle_study"] = (f"{side}_foot", np.array([0.0, -y * 0.035, 0.0]))
        out[f"{s}_calc_study"] = (f"{side}_foot", np.array([-0.05, 0.0, -0.05]))
        out[f"{s}_toe_study"] = (f"{side}_foot", np.array([foot - 0.06, -y * 0.01, -0.05]))
        out[f"{s}_5meta_study"] = (f"{side}_foot", np.array([0.6 * foot - 0.05, y * 0.04, -0.05]))
        for i, (x, yy, z) in enumerate(((0.06, 0.02, -0.15), (0.05, 0.07, -0.25), (0.0, 0.08, -0.2)), 1):
            out[f"{s}_thigh{i}_study"] = (f"{side}_upper_leg", np.array([x, y * yy, z]))
            out[f"{s}_sh{i}_study"] = (f"{side}_lower_leg", np.array([x, y * yy, z]))
        out[f"{s}_shoulder_study"] = (f"{side}_upper_arm", np.array([0.0, 0.0, acr_up]))
        out[f"{s}_lelbow_study"] = (f"{side}_lower_arm", np.array([0.0, y * 0.035, 0.0]))
        out[f"{s}_melbow_study"] = (f"{side}_lower_arm", np.array([0.0, -y * 0.035, 0.0]))
        out[f"{s}_lwrist_study"] = (f"{side}_hand", np.array([0.0, y * 0.03, 0.0]))
        out[f"{s}_mwrist_study"] = (f"{side}_hand", np.array([0.0, -y * 0.03, 0.0]))
    del H
    return out


@pytest.fixture(scope="module")
def walk():
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    coords = pd.read_csv(DATA / "sample_walk.csv").iloc[:FRAMES].reset_index(drop=True)
    res = hb.compute(model, coords)
    t = coords["time"].to_numpy()
    kp = MK.move_markers(KP.keypoint_layout(model, extra=True), res.R, res.joint, model)
    oc = MK.move_markers(opencap_layout(model), res.R, res.joint, model)
    return model, coords, t, kp, oc


def _trial(kind, kp, oc):
    legs = [f"{s}{j}" for s in "RL" for j in ("Hip", "Knee", "Ankle")]
    arms = [f"{s}{j}" for s in "RL" for j in ("Shoulder", "Elbow", "Wrist")]
    feet = [f"{s}{j}" for s in "RL" for j in ("BigToe", "SmallToe", "Heel")]
    if kind == "body25b":
        return {m: kp[m] for m in legs + arms + feet + ["Neck", "Head", "Nose"]}
    if kind == "halpe26":
        return {**{m: kp[m] for m in legs + arms + feet + ["Hip", "Head", "Nose"]}, "Neck": kp["HNeck"]}
    if kind == "coco17":
        return {m: kp[m] for m in legs + arms + ["Nose", "LEye", "REye", "LEar", "REar"]}
    return dict(oc)


SAGITTAL = {"coco17": ("right_upper_leg", "right_lower_leg", "left_upper_leg", "left_lower_leg")}


@pytest.mark.parametrize("kind", ["body25b", "halpe26", "coco17", "opencap"])
def test_keypoint_trials_are_recognised_and_tracked(walk, kind, tmp_path):
    """Detected by their names, tracked without a static trial; sagittal angles within 2 deg RMS.

    Measured (3 mm noise, 200 frames): hips 0.35-0.84 deg, knees 0.29-0.37 deg, ankles 0.29-0.37 deg
    (COCO 17 has no foot keypoints: its ankles keep their median pose and are not compared).
    """
    model, coords, t, kp, oc = walk
    pts = _trial(kind, kp, oc)
    rng = np.random.default_rng(3)
    noisy = {m: v + rng.normal(0, 0.003, v.shape) for m, v in pts.items()}
    path = tmp_path / f"{kind}.trc"
    MK.write_trc(path, t, noisy, 100.0)
    assert detect_markerset(list(pts)).name == kind
    an = analyze_trial(path, mass=75.0, height=1.75)
    text = "\n".join(an.messages)
    assert "whole-body inverse kinematics" in text and "keypoint set" in text, text
    assert "no static trial" in text
    assert an.calibration.markerset.name == kind
    segs = SAGITTAL.get(kind, ("right_upper_leg", "right_lower_leg", "right_foot",
                               "left_upper_leg", "left_lower_leg", "left_foot"))
    for seg in segs:
        err = np.degrees(an.coords[f"{seg}_alpha"].to_numpy() - coords[f"{seg}_alpha"].to_numpy())
        rms = float(np.sqrt(np.mean(err**2)))
        assert rms < 2.0, (kind, seg, rms)
    # segment lengths from the trial itself: the shank's calibrated length is the model's knee-ankle distance
    k = model.names.index("right_lower_leg")
    assert an.model.segment_meta[k]["length"] == pytest.approx(
        np.linalg.norm(model.joint_offset[model.names.index("right_foot")]), abs=0.01)


def test_keypoint_sets_load_and_name_their_pulls():
    from humanbody import InputError
    from humanbody.markers.global_ik import choose_method

    for name in ("body25b", "halpe26", "coco17", "opencap"):
        ms = load_markerset(name)
        assert ms.keypoints
        assert choose_method(ms, ms.required, "auto") == ("global", f"auto: {name!r} is a keypoint set")
        with pytest.raises(InputError, match="keypoint set.*`ik` global") as err:
            choose_method(ms, ms.required, "segments")
        assert "use --ik global" in str(err.value.on_command_line())
    assert "right_lower_leg" in load_markerset("body25b").ik["hinge"]


def test_sample_keypoint_file_is_small_and_tracked(tmp_path):
    path = DATA / "sample_walk_keypoints.trc"
    assert path.stat().st_size < 500_000
    an = analyze_trial(path, mass=75.0, height=1.75)
    assert an.calibration.markerset.name == "body25b"
    truth = pd.read_csv(DATA / "sample_walk.csv")
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot"):
        err = np.degrees(an.coords[f"{seg}_alpha"].to_numpy() - truth[f"{seg}_alpha"].to_numpy())
        assert np.sqrt(np.mean(err**2)) < 1.0, seg


def test_frames_before_the_subject_is_seen_give_empty_rows_without_warnings(walk, tmp_path):
    """A trial whose first frames hold no keypoint at all (the subject not yet in view).

    No --height: the height is estimated from the frames that have keypoints, without a
    numpy warning on the empty ones; those frames have no pose (empty rows), and the log
    says so instead of calling them carried from the parent.
    """
    import warnings

    model, coords, t, kp, oc = walk
    pts = {m: v.copy() for m, v in _trial("body25b", kp, oc).items()}
    for v in pts.values():
        v[:20] = np.nan
    path = tmp_path / "late_start.trc"
    MK.write_trc(path, t, pts, 100.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        an = analyze_trial(path, mass=75.0)
    text = "\n".join(an.messages)
    assert np.isnan(an.coords["right_lower_leg_alpha"].to_numpy()[:20]).all()
    assert np.isfinite(an.coords["right_lower_leg_alpha"].to_numpy()[25:]).all()
    assert "tracking: 20 frame(s) with no pose" in text, text
    assert "pose carried from the parent" not in text, text


@pytest.mark.parametrize("name, segment", [("RHeel", "right_foot"), ("Nose", "head")])
def test_a_keypoint_never_seen_that_a_frame_needs_is_named_with_its_segment(walk, tmp_path, name, segment):
    """One line naming the keypoint and the segment whose axes need it; no advice to give a static."""
    from humanbody import InputError

    model, coords, t, kp, oc = walk
    pts = {m: v.copy() for m, v in _trial("body25b", kp, oc).items()}
    pts[name][:] = np.nan
    path = tmp_path / "never_seen.trc"
    MK.write_trc(path, t, pts, 100.0)
    with pytest.raises(InputError) as err:
        analyze_trial(path, mass=75.0, height=1.75)
    text = str(err.value)
    assert f"keypoint {name!r}" in text and f"segment {segment!r}" in text, text
    assert "--static" not in text and "needed for marker " not in text, text

"""Whole-body inverse kinematics leaves the frames in which the pelvis (the root) keeps fewer than two of its
markers without a pose, as segment fits leave a root without markers (humanbody.markers.global_ik._drop_rootless):
the legs alone would place it anywhere along their chains (Vicon's analysis sample on C3D.org: hip moments of
60 N·m/kg where its pelvis markers are missing)."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.markers.calibration import calibrate
from humanbody.markers.global_ik import ROOT_MARKERS, track_global
from tests.markers.test_full_range import RATE, K, _angles, _model, full_range_angles, move
from tests.markers.test_tracking import frame_df, static_markers

PELVIS = ("R.ASIS", "L.ASIS", "V.Sacral")
LEGS = [K[s] for s in ("right_upper_leg", "right_lower_leg", "right_foot", "left_upper_leg")]


@pytest.fixture(scope="module")
def setup():
    model = _model()
    st = static_markers()
    cal = calibrate(frame_df({k: v + np.zeros((5, 3)) for k, v in st.items()}, np.arange(5) / 60),
                    "gait2392", mass=70.0, base_model=model)
    t = np.arange(int(2 * RATE)) / RATE
    ang, *_ = full_range_angles(t)
    root = np.c_[0.3 * t, 0.05 * np.sin(t), 0.95 - 0.1 * (1 - np.cos(2 * np.pi * t / t[-1]))]
    return cal, t, ang, move(st, ang, root, model.sequences)


def test_frames_with_one_pelvis_marker_have_no_pose_those_with_two_keep_theirs(setup):
    cal, t, ang, markers = setup
    assert all(m in markers for m in PELVIS) and ROOT_MARKERS == 2
    gappy = {m: v.copy() for m, v in markers.items()}
    for m in PELVIS[:2]:  # the sacrum alone in frames 20-39
        gappy[m][20:40] = np.nan
    gappy["R.ASIS"][60:80] = np.nan  # two left in frames 60-79
    tr = track_global(frame_df(gappy, t), cal, required=[])
    status = tr.status["lower_torso"].to_numpy()
    assert (status[20:40] == "missing").all() and (status[np.r_[:20, 40:len(t)]] == "fit").all()
    assert tr.coords.iloc[20:40, 1:].isna().all().all() and np.isnan(tr.R[20:40]).all()
    assert (tr.status["right_upper_leg"].to_numpy()[20:40] == "missing").all()
    keep = np.r_[:20, 40:len(t)]
    err = np.degrees(np.abs(_angles(tr.coords) - ang))[keep][:, LEGS]
    assert err.max() < 2e-3  # noise-free: the frames with two pelvis markers and the legs' exact

"""Plug-in Gait's progression frame: one horizontal lab axis per trial (CONVENTIONS "Plug-in Gait").

The axis closest to the pelvis's travel from the first to the last frame when it travels more than 0.8 m,
else the axis closest to the pelvis's facing in its first frame (Nexus; pyCGM2's
PelvisProgressionFrameProcedure).  Every angle referred to the progression (pelvis, thorax, head, foot
progression) is measured from it on the Plug-in Gait sets; the other sets keep the travel over a second.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.mechanics.clinical import LAB_AXIS_TRAVEL, clinical_angles, lab_axis_heading
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.model.conventions import Conventions

MODEL = hb.BodyModel.default()
PIG = MODEL.replace(conventions=Conventions(progression_frame="lab_axis", clinical_progression=("thorax", "head")))
AXES = {"+X": 0.0, "+Y": 90.0, "-X": 180.0, "-Y": -90.0}


def _walk(direction_deg: float, drift_deg: float, F: int = 400, speed: float = 1.2):
    """Coordinates of a subject walking for F/100 s along ``direction_deg + drift_deg`` (a walkway not square
    with the lab), the pelvis facing the way it walks and swinging +-5 deg about it; thorax, head and feet
    in line with the pelvis.  Returns the coordinates and the pelvis's yaw relative to the walk (deg)."""
    t = np.arange(F) / 100.0
    path = np.radians(direction_deg + drift_deg)
    swing = 5.0 * np.sin(2 * np.pi * t)
    cols = coordinate_columns(MODEL)
    data = {"time": t, **{c: np.zeros(F) for c in cols}}
    data["lower_torso_x"] = speed * t * np.cos(path) + 0.02 * np.sin(2 * np.pi * t) * -np.sin(path)
    data["lower_torso_y"] = speed * t * np.sin(path) + 0.02 * np.sin(2 * np.pi * t) * np.cos(path)
    data["lower_torso_z"] = np.full(F, 0.95)
    data["lower_torso_alpha"] = path + np.radians(swing)
    return pd.DataFrame(data), swing


@pytest.mark.parametrize("axis", list(AXES))
@pytest.mark.parametrize("drift", [0.0, 12.0, -30.0])
def test_the_lab_axis_closest_to_the_travel(axis, drift):
    """Walking along any lab axis, square or up to 30 deg off it, with a sway: that axis, in the travel's sense."""
    c, _ = _walk(AXES[axis], drift)
    facing = c["lower_torso_alpha"].to_numpy()
    got = lab_axis_heading(c[["lower_torso_x", "lower_torso_y"]].to_numpy(), facing)
    assert np.degrees(got) == pytest.approx(AXES[axis], abs=1e-12)


@pytest.mark.parametrize("facing_deg, want", [(3.0, 0.0), (-20.0, 0.0), (60.0, 90.0), (100.0, 90.0),
                                              (-170.0, 180.0), (170.0, 180.0), (-120.0, -90.0), (-50.0, -90.0)])
def test_standing_still_takes_the_pelvis_s_facing(facing_deg, want):
    """A standing trial (travel under 0.8 m, here a 0.3 m sway) faces any way: the lab axis closest to the
    pelvis's facing in its first frame, even if it then turns (a later facing does not count)."""
    F = 300
    t = np.arange(F) / 100.0
    xy = np.c_[0.3 * np.sin(t), 0.1 * np.cos(t)]
    facing = np.radians(facing_deg) + np.radians(80.0) * (t / t[-1])  # turns 80 deg after the first frame
    assert np.degrees(lab_axis_heading(xy, facing)) == pytest.approx(want, abs=1e-12)
    assert lab_axis_heading(xy) == 0.0  # no facing: +X
    assert LAB_AXIS_TRAVEL == 0.8


def test_missing_frames_at_the_ends_are_skipped():
    """The first and last *measured* frames decide (NaN at the ends: a marker not yet seen)."""
    c, _ = _walk(-90.0, 5.0)
    xy = c[["lower_torso_x", "lower_torso_y"]].to_numpy().copy()
    xy[:30] = np.nan
    xy[-30:] = np.nan
    assert np.degrees(lab_axis_heading(xy)) == pytest.approx(-90.0)


@pytest.mark.parametrize("axis", list(AXES))
def test_every_progression_angle_on_the_lab_axis(axis):
    """Walking along a lab axis on a walkway turned 6 deg from it: on the Plug-in Gait sets the pelvis
    rotation, the thorax's and head's rotations relative to the progression and the foot progression read
    the pelvis's yaw from that lab axis (6 deg + the swing), exact; pelvis tilt and obliquity stay zero.  The
    other sets' progression follows the travel, so there they read the swing alone (within the window's
    lag): the test tells the two rules apart."""
    c, swing = _walk(AXES[axis], 6.0)
    cl = clinical_angles(PIG, c)
    want = 6.0 + swing
    for col in ("pelvis_rotation_deg", "thorax_progression_rotation_deg", "head_rotation_deg"):
        np.testing.assert_allclose(cl[col], want, atol=1e-9, err_msg=col)
    np.testing.assert_allclose(cl["right_foot_progression_deg"], want, atol=1e-9)  # turned left: right toes in
    np.testing.assert_allclose(cl["left_foot_progression_deg"], -want, atol=1e-9)
    for col in ("pelvis_tilt_deg", "pelvis_obliquity_deg", "thorax_tilt_deg", "head_obliquity_deg"):
        np.testing.assert_allclose(cl[col], 0.0, atol=1e-9, err_msg=col)
    other = clinical_angles(MODEL, c)
    mid = slice(100, -100)  # the one-second window inside the trial
    np.testing.assert_allclose(other["pelvis_rotation_deg"][mid], swing[mid], atol=0.6)


def test_standing_facing_minus_y_reads_its_own_turn():
    """Standing still facing -Y (turned 20 deg to the left of it): the pelvis rotation reads +20 on the
    Plug-in Gait sets; the other sets measure a standing trial from ground +X (here 70 deg off)."""
    F = 200
    cols = coordinate_columns(MODEL)
    c = pd.DataFrame({"time": np.arange(F) / 100.0, **{k: np.zeros(F) for k in cols}})
    c["lower_torso_z"] = 0.95
    c["lower_torso_alpha"] = np.radians(-90.0 + 20.0)
    np.testing.assert_allclose(clinical_angles(PIG, c)["pelvis_rotation_deg"], 20.0, atol=1e-9)
    np.testing.assert_allclose(clinical_angles(MODEL, c)["pelvis_rotation_deg"], -70.0, atol=1e-9)


def test_joint_angles_do_not_depend_on_the_progression_rule():
    """Keep what agrees with Nexus: the hip, knee, ankle, spine, neck, shoulder, elbow and wrist angles (relative
    to a segment, not to the progression) are the same numbers under either progression rule."""
    rng = np.random.default_rng(37)
    c, _ = _walk(-90.0, 6.0, F=200)
    for col in coordinate_columns(MODEL)[3:]:
        if not col.startswith("lower_torso"):
            c[col] = np.radians(rng.uniform(-25, 25)) + np.radians(10) * np.sin(np.arange(200) / 17.0 + rng.uniform(0, 6))
    pig, other = clinical_angles(PIG, c), clinical_angles(MODEL, c)
    joint_cols = [col for col in other.columns if not col.startswith(("pelvis_", "thorax_tilt", "thorax_obliquity",
                                                                       "thorax_progression", "head_"))
                  and "foot_progression" not in col]
    assert len(joint_cols) >= 30
    pd.testing.assert_frame_equal(pig[joint_cols], other[joint_cols], check_exact=True)
    assert np.abs(pig["pelvis_rotation_deg"] - other["pelvis_rotation_deg"]).max() > 3.0

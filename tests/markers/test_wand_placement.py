"""Plug-in Gait's wands in front of their segments, not to their sides (Motion Analysis's Walk1 on C3D.org:
RTHI, RSHA in front of the thigh and shank): without a knee alignment device or a subject file, the rotation
offsets are measured against the pelvis's left-right axis (humanbody.markers.calibration._wand_offsets,
humanbody.markers.plug_in_gait_rotation.wand_offset_from_pelvis), so the knee and ankle centres are those of the
lateral wands; wands near the side are left at the set's offsets."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.markers.calibration import calibrate
from humanbody.markers.plug_in_gait_rotation import rotation_offset, wand_offset_from_pelvis
from humanbody.rotations import bryant_to_matrix
from tests.markers.test_markerset import PIG_STATIC
from tests.markers.test_tracking import base_model, frame_df

LOWER = {k: v for k, v in PIG_STATIC.items()
         if k[1:] in ("ASI", "PSI", "THI", "KNE", "TIB", "ANK", "HEE", "TOE")}


def _knees_along_the_pelvis():
    """LOWER with the thigh and knee markers straight lateral of the hip centre, the shank and ankle markers of
    the knee centre: the knee's and ankle's flexion axes along the pelvis's left-right axis (the function's
    assumption; Davis's hip moves with the leg length, so a few rounds)."""
    markers = dict(LOWER)
    for _ in range(4):
        cal = _calibrate(markers)
        for s, side in (("R", "right"), ("L", "left")):
            for wand, centre in (("THI", "hip"), ("KNE", "hip"), ("TIB", "knee"), ("ANK", "knee")):
                x = cal.points[f"{side}_{centre}"][0]
                markers[f"{s}{wand}"] = (x, *markers[f"{s}{wand}"][1:])
    return markers


def _calibrate(markers, n=5):
    return calibrate(frame_df({k: np.array(v) + np.zeros((n, 3)) for k, v in markers.items()}, np.arange(n) / 100),
                     "plug_in_gait_lower", mass=70.0, height=1.80, mode="dynamic", base_model=base_model())


def _turned(markers, wand, proximal, distal, deg):
    """``wand`` turned by ``deg`` about the axis distal -> proximal (right-handed, up), about that axis."""
    a = np.asarray(proximal) - np.asarray(distal)
    a = a / np.linalg.norm(a)
    w = np.asarray(markers[wand]) - np.asarray(distal)
    t = np.radians(deg)
    rotated = w * np.cos(t) + np.cross(a, w) * np.sin(t) + a * (a @ w) * (1 - np.cos(t))
    return {**markers, wand: tuple(np.asarray(distal) + rotated)}


def test_the_offset_against_the_pelvis_is_plug_in_gait_s_at_the_centre_it_places():
    """A wand in the plane of the pelvis's left-right axis reads 0; turned forwards by 60 deg it reads -60 on
    both sides (Plug-in Gait's sign); the reading does not depend on the lab's axes."""
    hip, knee_marker = np.array([0.0, -0.13, 0.9]), np.array([0.0, -0.13, 0.5])  # the thigh straight up
    rasi, lasi = np.array([0.1, -0.12, 1.0]), np.array([0.1, 0.12, 1.0])
    centre = knee_marker + [0.0, 0.06, 0.0]  # 6 cm medial along the pelvis's axis
    wand = centre + 2.5 * (knee_marker - centre) + 0.5 * (hip - centre)  # in the plane of the knee's axis
    assert abs(wand_offset_from_pelvis(wand, hip, knee_marker, rasi, lasi, 0.06, "right")) < 1e-12
    turned = _turned({"W": wand}, "W", hip, centre, 60.0)["W"]
    got = wand_offset_from_pelvis(turned, hip, knee_marker, rasi, lasi, 0.06, "right")
    assert got == pytest.approx(np.radians(-60.0), abs=1e-9)
    mirror = np.array([1.0, -1.0, 1.0])
    left = wand_offset_from_pelvis(turned * mirror, hip * mirror, knee_marker * mirror, lasi * mirror,
                                   rasi * mirror, 0.06, "left")
    assert left == pytest.approx(got, abs=1e-12)
    Q = bryant_to_matrix([0.3, -0.2, 1.1])
    again = wand_offset_from_pelvis(Q @ turned, Q @ hip, Q @ knee_marker, Q @ rasi, Q @ lasi, 0.06, "right")
    assert again == pytest.approx(got, abs=1e-12)
    # it is rotation_offset's at the centre delta medial of the marker along the pelvis's axis
    assert rotation_offset(turned, hip, knee_marker, centre, "right") == pytest.approx(got, abs=1e-12)


def test_wands_in_front_give_the_lateral_wands_centres():
    """Wands turned 90 deg (thighs) and 80 deg (shanks) forwards about their segments: offsets measured within
    1.5 deg of those turns, the knee and ankle centres within 1.5 mm of the lateral wands' (the centre the
    pelvis's axis gives is normal to the marker-to-hip line, the chord's to the centre-to-hip line)."""
    start = _knees_along_the_pelvis()
    lateral = _calibrate(start)
    assert not [n for n in lateral.notes if n.startswith("wands not to the side")]
    front = dict(start)
    for s, sign in (("R", 1.0), ("L", -1.0)):  # forwards: +90 deg about up on the right, -90 on the left
        side = "right" if s == "R" else "left"
        front = _turned(front, f"{s}THI", lateral.points[f"{side}_hip"], lateral.points[f"{side}_knee"], sign * 90)
        front = _turned(front, f"{s}TIB", lateral.points[f"{side}_knee"], lateral.points[f"{side}_ankle"], sign * 80)
    cal = _calibrate(front)
    said = [n for n in cal.notes if n.startswith("wands not to the side")]
    assert len(said) == 1 and "RTHI in front (right_thigh_rotation " in said[0], said
    for side in ("right", "left"):
        assert np.degrees(cal.parameters[f"{side}_thigh_rotation"]) == pytest.approx(-90.0, abs=1.5)
        assert np.degrees(cal.parameters[f"{side}_shank_rotation"]) == pytest.approx(-80.0, abs=1.5)
    for point in ("right_knee", "left_knee", "right_ankle", "left_ankle"):
        np.testing.assert_allclose(cal.points[point], lateral.points[point], atol=1.5e-3)
    for seg in ("right_upper_leg", "right_lower_leg", "left_foot"):
        np.testing.assert_allclose(cal.frames[seg], lateral.frames[seg], atol=0.03)


def test_one_wand_turned_a_little_keeps_the_set_s_offsets():
    """A lateral wand 20 deg off (a hip's rotation, a wand's placement) is Plug-in Gait's case: no offset is
    measured, the centre is where the set's offset (0) puts it."""
    lateral = _calibrate(LOWER)
    turned = _turned(LOWER, "RTHI", lateral.points["right_hip"], lateral.points["right_knee"], 20)
    cal = _calibrate(turned)
    assert not [n for n in cal.notes if n.startswith("wands not to the side")]
    assert cal.parameters["right_thigh_rotation"] == 0.0
    assert np.linalg.norm(cal.points["right_knee"] - lateral.points["right_knee"]) > 0.01

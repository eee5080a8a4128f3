"""Marker-set files: parsing, name matching, detection, regressions, Plug-in Gait."""

import numpy as np
import pandas as pd
import pytest

from humanbody import InputError
from humanbody.markers.calibration import calibrate
from humanbody.markers.joint_centres import hip_bell1990, hip_davis1991, hip_harrington2007, triad
from humanbody.markers.markerset import (
    builtin_markersets,
    detect_markerset,
    load_markerset,
    match_markers,
    resolve_markerset,
)
from humanbody.markers.tracking import track
from humanbody.model.segments import SEGMENT_NAMES
from humanbody.rotations import bryant_to_matrix
from tests.markers.test_tracking import base_model, frame_df, static_markers


def test_builtin_sets_describe_all_segments():
    assert {"gait2392", "plugin_gait", "plug_in_gait"} <= set(builtin_markersets())
    for name in builtin_markersets():
        ms = load_markerset(name)
        assert tuple(ms.segments) == SEGMENT_NAMES
        assert ms.required and set(ms.required) <= set(ms.markers)


def test_matching_ignores_case_punctuation_prefix_and_uses_aliases():
    ms = load_markerset("gait2392")
    found = match_markers(ms, ["subject01:r_asis", "L ASIS", "SACR", "r.knee.lat"])
    assert found == {"R.ASIS": "subject01:r_asis", "L.ASIS": "L ASIS", "V.Sacral": "SACR",
                     "R.Knee.Lat": "r.knee.lat"}


@pytest.mark.parametrize("affix", [("Pat01_", ""), ("", "_1"), ("S1:Lab-", ".2")])
def test_a_labs_prefix_or_suffix_on_every_name_is_dropped(affix):
    """Before: 'markers match no built-in marker set' for Plug-in Gait names as 'S1:RASI_1' or 'Pat01_RASI'."""
    from humanbody.markers.markerset import shared_affixes

    head, tail = affix
    names = [f"{head}{n}{tail}" for n in PIG_STATIC]
    bare_head = head.rsplit(":", 1)[-1]
    assert shared_affixes(names) == (bare_head, tail)
    ms = detect_markerset(names)
    assert ms.name == "plug_in_gait"
    found = match_markers(ms, names)
    assert found["RASI"] == f"{head}RASI{tail}" and found["LTOE"] == f"{head}LTOE{tail}"
    assert shared_affixes(list(PIG_STATIC)) == ("", "")
    assert shared_affixes(["R.ASIS", "L.ASIS", "R.Knee.Lat"]) == ("", "")


def test_detection_picks_the_covering_set():
    assert detect_markerset(list(static_markers())).name == "gait2392"
    assert detect_markerset(list(PIG_STATIC)).name == "plug_in_gait"  # the faithful set first (sorted names)
    with pytest.raises(InputError, match="trial.trc.*closest is"):
        detect_markerset(["A", "B", "C"], "trial.trc")


def test_bad_names_and_files(tmp_path):
    with pytest.raises(InputError, match="unknown marker set 'nosuchset'"):
        load_markerset("nosuchset")
    bad = tmp_path / "bad.toml"
    bad.write_text("name = [unclosed\n")
    with pytest.raises(InputError, match="bad.toml.*not valid TOML"):
        load_markerset(bad)
    part = tmp_path / "part.toml"
    part.write_text('name = "part"\n[segments.lower_torso]\norigin = "x"\n')
    with pytest.raises(InputError, match="part.toml.*does not describe segment 'middle_torso'"):
        load_markerset(part)
    text = load_markerset("gait2392").source
    broken = tmp_path / "broken.toml"
    broken.write_text(open(text).read().replace('rule = "slerp"', 'rule = "magic"', 1))
    with pytest.raises(InputError, match="broken.toml.*unknown rule 'magic'"):
        load_markerset(broken)
    with pytest.raises(InputError, match="required marker 'RTOE'"):
        resolve_markerset("plugin_gait", [m for m in PIG_STATIC if m != "RTOE"], "t.c3d")


def test_triad_is_right_handed_and_keeps_primary():
    rng = np.random.default_rng(1)
    p, s = rng.normal(size=(20, 3)), rng.normal(size=(20, 3))
    for prim, sec in (("x", "y"), ("y", "x"), ("z", "x"), ("x", "z"), ("y", "z"), ("z", "y")):
        R = triad(prim, p, sec, s)
        np.testing.assert_allclose(R @ R.transpose(0, 2, 1), np.broadcast_to(np.eye(3), R.shape), atol=1e-12)
        np.testing.assert_allclose(np.linalg.det(R), 1.0, atol=1e-12)
        i = "xyz".index(prim)
        np.testing.assert_allclose(R[:, :, i], p / np.linalg.norm(p, axis=1, keepdims=True), atol=1e-12)
        assert (np.einsum("fi,fi->f", R[:, :, "xyz".index(sec)], s) > 0).all()


def test_hip_regressions_against_hand_values():
    r, l, sac = np.array([0.0, -0.125, 1.0]), np.array([0.0, 0.125, 1.0]), np.array([-0.16, 0.0, 1.0])
    # Harrington 2007, PW = 250 mm, PD = 160 mm (mm): x -48.3, z -85.9, lateral 89.8
    np.testing.assert_allclose(hip_harrington2007(r, l, sac, "right"), [-0.0483, -0.0898, 1 - 0.0859], atol=1e-9)
    np.testing.assert_allclose(hip_harrington2007(r, l, sac, "left"), [-0.0483, 0.0898, 1 - 0.0859], atol=1e-9)
    # Bell 1990: 19 % PW posterior, 30 % inferior, 14 % lateral of mid-ASIS
    np.testing.assert_allclose(hip_bell1990(r, l, sac, "left"), [-0.0475, 0.035, 0.925], atol=1e-12)
    # Davis 1991, LL = 0.9 m, r = 7 mm: C = 88.2, d = 67.36
    c, d = 0.115 * 900 - 15.3, 0.1288 * 900 - 48.56
    th, be = np.radians(28.4), np.radians(18)
    want = np.array([-(d + 7) * np.cos(be) + c * np.cos(th) * np.sin(be), -(125 - c * np.sin(th)),
                     -(d + 7) * np.sin(be) - c * np.cos(th) * np.cos(be)]) / 1000 + [0, 0, 1]
    np.testing.assert_allclose(hip_davis1991(r, l, sac, "right", 0.9, 0.007), want, atol=1e-12)
    # rotating the markers rotates the result (frame-invariant)
    Q = bryant_to_matrix([0.3, -0.2, 1.1])
    got = hip_harrington2007(Q @ r, Q @ l, Q @ sac, "right")
    np.testing.assert_allclose(got, Q @ hip_harrington2007(r, l, sac, "right"), atol=1e-12)


# --------------------------------------------------------------- Plug-in Gait
PIG_STATIC = {
    "RASI": (0.10, -0.12, 1.00), "LASI": (0.10, 0.12, 1.00), "RPSI": (-0.06, -0.05, 1.02), "LPSI": (-0.06, 0.05, 1.02),
    "C7": (-0.05, 0.0, 1.50), "T10": (-0.07, 0.0, 1.25), "CLAV": (0.10, 0.0, 1.45), "STRN": (0.12, 0.0, 1.28),
    "RBAK": (-0.08, -0.10, 1.35),
    "RFHD": (0.15, -0.06, 1.70), "LFHD": (0.15, 0.06, 1.70), "RBHD": (-0.03, -0.06, 1.71), "LBHD": (-0.03, 0.06, 1.71),
}
for _s, _y in (("R", -1.0), ("L", 1.0)):
    PIG_STATIC.update({
        f"{_s}THI": (0.06, _y * 0.15, 0.75), f"{_s}KNE": (0.05, _y * 0.14, 0.50), f"{_s}TIB": (0.06, _y * 0.13, 0.30),
        f"{_s}ANK": (0.04, _y * 0.12, 0.08), f"{_s}HEE": (-0.02, _y * 0.10, 0.04), f"{_s}TOE": (0.20, _y * 0.10, 0.03),
        f"{_s}SHO": (0.02, _y * 0.19, 1.50), f"{_s}UPA": (0.05, _y * 0.22, 1.30), f"{_s}ELB": (0.02, _y * 0.23, 1.15),
        f"{_s}FRA": (0.07, _y * 0.22, 1.00), f"{_s}WRA": (0.04, _y * 0.22, 0.85), f"{_s}WRB": (-0.01, _y * 0.22, 0.85),
        f"{_s}FIN": (0.02, _y * 0.22, 0.75),
    })


def _pig_static(n=4):
    return frame_df({k: np.array(v) + np.zeros((n, 3)) for k, v in PIG_STATIC.items()}, np.arange(n) / 100)


def test_plugin_gait_calibration_geometry():
    cal = calibrate(_pig_static(), "plugin_gait", mass=70.0, height=1.80, base_model=base_model())
    assert cal.markerset.name == "plugin_gait"
    rh, lh = cal.points["right_hip"], cal.points["left_hip"]
    assert 0.14 < lh[1] - rh[1] < 0.22  # inter-hip distance of an adult
    assert rh[2] < 1.0 and rh[0] < 0.10  # below and behind the ASIS
    # knee centre medial of the knee marker by knee_offset along the pelvis y axis
    np.testing.assert_allclose(cal.points["right_knee"], np.array(PIG_STATIC["RKNE"]) + [0, 0.0595, 0], atol=1e-12)
    for seg in SEGMENT_NAMES:  # near-upright static: every frame within 25 degrees of ground
        ang = np.degrees(np.abs(cal.static_angles[seg]))
        assert np.isfinite(ang).all() and ang.max() < 25, (seg, ang)


def test_plugin_gait_tracks_a_rigid_body_motion():
    """Moving the static as one rigid body: relative angles stay the static ones."""
    cal = calibrate(_pig_static(), "plugin_gait", mass=70.0, height=1.80, base_model=base_model())
    t = np.linspace(0, 1, 30)
    Q = bryant_to_matrix(np.c_[0.2 * t, -0.3 * t, 2.0 * t])
    shift = np.c_[t, 0.1 * t, 0 * t]
    moved = {k: np.einsum("fij,j->fi", Q, np.array(v)) + shift for k, v in PIG_STATIC.items() if k != "RBAK"}
    tr = track(frame_df(moved, t), cal)
    for k, seg in enumerate(SEGMENT_NAMES):
        got = tr.coords[[f"{seg}_alpha", f"{seg}_beta", f"{seg}_gamma"]].to_numpy()
        if k:
            np.testing.assert_allclose(got, np.broadcast_to(cal.static_angles[seg], got.shape), atol=1e-9)
    R1 = np.einsum("fij,jk->fik", Q, cal.frames["lower_torso"])
    np.testing.assert_allclose(tr.R[:, 0], R1, atol=1e-9)
    assert np.nanmax(tr.residuals.iloc[:, 1:].to_numpy()) < 1e-9
    # without RUPA the right upper arm keeps its elbow marker and its shoulder joint: the elbow centre where the
    # forearm's markers put it completes the fit (joined_children), so the arm is still fitted, exactly
    fewer = {k: v for k, v in moved.items() if k not in ("RUPA",)}
    tr2 = track(frame_df(fewer, t), cal)
    assert (tr2.status["right_upper_arm"] == "fit").all()
    assert (tr2.status["left_upper_arm"] == "fit").all()
    got = tr2.coords[["right_upper_arm_alpha", "right_upper_arm_beta", "right_upper_arm_gamma"]].to_numpy()
    np.testing.assert_allclose(got, np.broadcast_to(cal.static_angles["right_upper_arm"], got.shape), atol=1e-9)
    pd.testing.assert_series_equal(tr2.coords["right_upper_leg_beta"], tr.coords["right_upper_leg_beta"])

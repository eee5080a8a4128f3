"""The sample marker trials in data/ (made by data/make_sample_markers.py).

The files are the sample walk (data/sample_walk.csv, generalized coordinates
of the default model) seen through the gait2392 marker set; the whole marker
pipeline must give the walk's leg angles back.  References: the coordinates
the markers were made from, and the marker-set rules (Harrington hip
regression, epicondyle/malleolus midpoints) evaluated on the noise-free layout.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.analysis import analyze_trial
from humanbody.markers.calibration import calibrate

DATA = Path(__file__).resolve().parents[2] / "data"
STATIC, WALK, COORDS = DATA / "sample_static.trc", DATA / "sample_walk_markers.trc", DATA / "sample_walk.csv"
LEGS = [f"{side}_{seg}" for side in ("right", "left") for seg in ("upper_leg", "lower_leg", "foot")]
REGENERATE = "regenerate with: python data/make_sample.py && python data/make_sample_markers.py"


def _load_script():
    spec = importlib.util.spec_from_file_location("make_sample_markers", DATA / "make_sample_markers.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


msm = _load_script()


@pytest.fixture(scope="module")
def model():
    return hb.BodyModel.default(mass=75.0, height=1.75)


@pytest.fixture(scope="module")
def analysis():
    return analyze_trial(WALK, static=STATIC, mass=75.0, height=1.75)


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(COORDS)


def _frame(time, markers, source="sample_static.trc"):
    cols = {"time": np.asarray(time, dtype=float)}
    for name, p in markers.items():
        for i, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = p[:, i]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source=source, markers=list(markers))
    return df


def _rms_deg(a, b):
    return float(np.degrees(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2))))


# ------------------------------------------------------------- the files
def test_committed_files_are_small_and_match_a_regeneration(tmp_path):
    static, walk = msm.build(COORDS, tmp_path)
    for committed, fresh in ((STATIC, static), (WALK, walk)):
        assert committed.stat().st_size < 1_000_000
        old, new = committed.read_text().splitlines(), fresh.read_text().splitlines()
        assert old[:6] == new[:6], f"{committed.name}: header differs; {REGENERATE}"
        assert len(old) == len(new)
        a = hb.read_trial(committed)
        b = hb.read_trial(fresh)
        assert list(a.columns) == list(b.columns)
        np.testing.assert_array_equal(np.isnan(a.to_numpy()), np.isnan(b.to_numpy()))
        # same seed, same model: equal to the written precision (1 um)
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=2e-6, equal_nan=True,
                                   err_msg=f"{committed.name}: {REGENERATE}")


def test_trc_layout_as_opensim_writes_it():
    lines = STATIC.read_text().splitlines()
    assert lines[0].split("\t") == ["PathFileType", "4", "(X/Y/Z)", "sample_static.trc"]
    head = dict(zip(lines[1].split("\t"), (f.strip() for f in lines[2].split("\t")), strict=True))
    assert head["DataRate"] == "100.00" and head["Units"] == "mm"
    assert int(head["NumFrames"]) == 100 and int(head["NumMarkers"]) == 49
    names = lines[3].split("\t")
    assert names[:3] == ["Frame#", "Time", "R.ASIS"] and names[3:5] == ["", ""]
    assert lines[4].split("\t")[:5] == ["", "", "X1", "Y1", "Z1"] and lines[5] == ""
    assert lines[6].startswith("1\t0.000000\t")


def test_walk_has_the_gaps_and_zero_code_it_was_made_with():
    df = hb.read_trial(WALK)
    assert df.attrs["rate_hz"] == pytest.approx(100.0) and len(df) == 441
    assert not set(msm.STATIC_ONLY) & set(df.attrs["markers"])
    assert len(df.attrs["markers"]) == 41
    missing = {m: np.flatnonzero(df[f"{m}_x"].isna()).tolist() for m in df.attrs["markers"]}
    expected = {m: list(range(s, s + n)) for m, s, n in msm.GAPS}
    expected[msm.ZERO_CODED[0]] = [msm.ZERO_CODED[1]]  # (0, 0, 0) read as missing
    assert {m: f for m, f in missing.items() if f} == expected
    text = WALK.read_text().splitlines()[6 + msm.ZERO_CODED[1]].split("\t")
    col = 2 + 3 * df.attrs["markers"].index(msm.ZERO_CODED[0])
    assert text[col : col + 3] == ["0.000", "0.000", "0.000"]


def test_static_is_the_reference_pose_in_opensim_lab_axes(model):
    df = hb.read_trial(STATIC)
    layout = msm.marker_layout(model)
    _, exact = msm.static_trial(model, layout)
    for name in ("R.ASIS", "Top.Head", "L.Toe.Tip"):
        lab = df[[f"{name}_{a}" for a in "xyz"]].to_numpy()
        ground = np.c_[lab[:, 0], -lab[:, 2], lab[:, 1]]  # lab (X, Y, Z) = ground (x, z, -y)
        assert np.abs(ground - exact[name]).max() < 0.003  # 0.5 mm noise, < 6 sd
        assert np.std(ground - exact[name]) == pytest.approx(msm.NOISE_SD, rel=0.3)
    assert df["Top.Head_y"].median() == pytest.approx(1.75 + msm.MARKER_LIFT, abs=1e-3)


# ------------------------------------------------------------- the layout
def test_layout_gives_the_model_joint_centres_and_zero_static_angles(model):
    """Noise-free static: the set's rules give back the model's leg geometry."""
    layout = msm.marker_layout(model)
    t, st = msm.static_trial(model, layout, seconds=0.05)
    cal = calibrate(_frame(t, st), "gait2392", mass=75.0)
    z1 = model.meta["reference_pose"]["lower_torso_height"]
    O = msm.reference_origins(model) + [0.0, 0.0, z1]
    idx = model.names.index
    for point, seg in (("right_hip", "right_upper_leg"), ("left_hip", "left_upper_leg"),
                       ("right_knee", "right_lower_leg"), ("left_ankle", "left_foot")):
        np.testing.assert_allclose(cal.points[point], O[idx(seg)], atol=1e-12, err_msg=point)
    np.testing.assert_allclose(cal.origins["lower_torso"], O[0], atol=1e-12)
    for seg in LEGS + ["lower_torso", "upper_torso", "head", "right_upper_arm", "left_lower_arm"]:
        np.testing.assert_allclose(cal.static_angles[seg], 0.0, atol=1e-12, err_msg=seg)
    # joint offsets of legs and arms are the model's; the set's trunk points
    # (fixed fractions of mid-hip -> mid-acromion) are not the model's
    for seg in LEGS + ["right_lower_arm", "left_hand"]:
        np.testing.assert_allclose(cal.model.joint_offset[idx(seg)], model.joint_offset[idx(seg)], atol=1e-12, err_msg=seg)
    assert abs(cal.model.joint_offset[idx("upper_torso"), 2] - model.joint_offset[idx("upper_torso"), 2]) < 0.03
    assert cal.lengths["right_foot"] == pytest.approx(model.segment_meta[idx("right_foot")]["length"])
    # height estimate (head-top minus lowest foot marker) is the model's height
    cal_h = calibrate(_frame(t, st), "gait2392", mass=75.0, height=None)
    assert cal_h.height == pytest.approx(1.75, abs=1e-12)


def test_markers_ride_rigidly_on_their_segments(model, reference):
    layout = msm.marker_layout(model)
    _, walk = msm.walk_trial(model, layout, reference.iloc[::40].reset_index(drop=True))
    for a, b in (("R.Thigh.Upper", "R.Knee.Lat"), ("L.Heel", "L.Toe.Tip"), ("R.ASIS", "V.Sacral")):
        d = np.linalg.norm(walk[a] - walk[b], axis=1)
        assert np.ptp(d) < 1e-12
        assert d[0] == pytest.approx(np.linalg.norm(layout[a][1] - layout[b][1]))


# ------------------------------------------------------------- the pipeline
def test_pipeline_detects_opensim_axes_and_the_gait2392_set(analysis):
    assert analysis.markers.attrs["axes"] == "x,-z,y"
    assert analysis.calibration.markerset.name == "gait2392"
    assert analysis.calibration.height == pytest.approx(1.75)
    assert np.nanmedian(analysis.residuals.drop(columns="time").to_numpy()) < 0.001
    text = "\n".join(analysis.messages)
    assert "1 marker samples at exactly (0, 0, 0)" in text
    assert f"{len(msm.GAPS) + 1} filled (by spline)" in text  # the gaps and the zero-coded sample, counted
    details = "\n".join(analysis.details)
    assert details.count("by spline") == len(msm.GAPS) + 1


def test_tracked_leg_angles_match_the_sample_walk(analysis, reference):
    """Hip, knee, ankle flexion (alpha) within 1 deg RMS (measured ~0.15 deg)."""
    assert np.allclose(analysis.coords["time"], reference["time"])
    for seg in LEGS:
        for ang in ("alpha", "beta", "gamma"):
            col = f"{seg}_{ang}"
            rms = _rms_deg(analysis.coords[col], reference[col])
            assert rms < 1.0, (col, rms)
    # and the flexion range itself is there (knee ~60 deg in swing)
    assert np.degrees(analysis.coords["right_lower_leg_alpha"].max()) > 55
    root = analysis.coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]].to_numpy()
    err = root - reference[["lower_torso_x", "lower_torso_y", "lower_torso_z"]].to_numpy()
    assert np.sqrt(np.mean(err**2)) < 0.002  # mid-hip from the Harrington hips, m


def test_cli_analyze_runs_on_the_sample(tmp_path, capsys):
    from humanbody.cli import main

    status = main(["analyze", str(WALK), "--static", str(STATIC), "--mass", "75", "--height", "1.75",
                   "--out", str(tmp_path), "-q"])
    assert status == 0
    table = pd.read_csv(tmp_path / "sample_walk_markers_results.csv")
    assert len(table) == 441 and "right_lower_leg_com_z" in table.columns
    assert np.isfinite(table["body_com_z"]).all()


def test_sample_walk_has_the_phases_of_normal_walking():
    """A gait lab's kinematic events (Zeni et al. 2008: heel furthest ahead of the pelvis, toe furthest behind)
    on the sample marker walk give the phases of normal walking (Perry and Burnfield 2010: stance about 60 %,
    double support about 20 % of the stride), not the 70 % / 39 % the earlier sample showed."""
    from humanbody.gait.events import events_of, kinematic_events
    from humanbody.gait.spatiotemporal import strides
    from humanbody.lab.axes import to_ground

    ground, _ = to_ground(hb.read_trial(WALK))
    events = kinematic_events(ground)
    phases = strides(events)
    stance, double = phases["stance_pct"].median(), phases["double_support_pct"].median()
    assert 58 <= stance <= 63 and 17 <= double <= 25, (stance, double)
    # the right foot strikes at the start of the synthetic cycle (phase 0 of make_sample.py, stride 1.1 s)
    strikes = events_of(events, "right", "foot_strike")
    np.testing.assert_allclose(np.mod(strikes + 0.02, 1.1) - 0.02, 0.0, atol=0.02)

"""SCoRE functional joint centre (humanbody.markers.functional_joint) on motions whose centre is known exactly."""


import numpy as np
import pandas as pd
import pytest
from scipy.spatial.transform import Rotation

from humanbody.errors import InputError
from humanbody.markers.functional_joint import (
    MIN_SECOND_RANGE_DEG,
    functional_hip_centre,
    score_centre,
)
from humanbody.markers.rigid import fit_rigid

C_P = np.array([-0.07, -0.09, -0.08])  # centre in the pelvis frame (m)
C_T = np.array([0.01, 0.005, 0.21])  # the same point in the thigh frame (m)


def _motion(F=200, planes=(0.6, 0.35, 0.3), seed=0):
    """Pelvis wandering in ground, thigh turning about C_P with the given amplitudes (rad) about x, y, z."""
    rng = np.random.default_rng(seed)
    t = np.linspace(0.0, 2 * np.pi, F)
    R_p = Rotation.from_rotvec(0.1 * np.stack([np.sin(t), np.cos(2 * t), np.sin(3 * t)], axis=1)).as_matrix()
    d_p = np.stack([0.8 * t, 0.02 * np.sin(2 * t), 0.95 + 0.02 * np.cos(2 * t)], axis=1) + rng.normal(0, 1e-3, (F, 3))
    rel = Rotation.from_rotvec(np.stack([planes[0] * np.sin(t), planes[1] * np.sin(2 * t + 0.4),
                                         planes[2] * np.cos(t + 0.3)], axis=1)).as_matrix()
    R_t = R_p @ rel
    centre = np.einsum("fij,j->fi", R_p, C_P) + d_p
    d_t = centre - np.einsum("fij,j->fi", R_t, C_T)
    return R_p, d_p, R_t, d_t, centre


def test_exact_centre_without_noise():
    R_p, d_p, R_t, d_t, centre = _motion()
    c = score_centre(R_p, d_p, R_t, d_t)
    np.testing.assert_allclose(c.proximal, C_P, atol=1e-9)
    np.testing.assert_allclose(c.distal, C_T, atol=1e-9)
    np.testing.assert_allclose(c.ground, centre, atol=1e-9)
    assert c.rms < 1e-9 and c.frames == 200 and c.conditioning > 0.05


def test_centre_from_noisy_marker_clusters():
    """Poses fitted to 3-4 markers with 1 mm noise: the centre within a few mm (Ehrig et al. 2006, Fig. 4)."""
    R_p, d_p, R_t, d_t, _ = _motion(F=400)
    rng = np.random.default_rng(1)
    local_p = np.array([[0.02, 0.13, 0.03], [0.02, -0.13, 0.03], [-0.17, 0.0, 0.04]])
    local_t = np.array([[0.06, 0.02, 0.15], [0.07, 0.03, 0.05], [-0.02, 0.07, 0.1], [0.05, 0.06, -0.05]])
    fitted = []
    for R, d, local in ((R_p, d_p, local_p), (R_t, d_t, local_t)):
        q = np.einsum("fij,mj->fmi", R, local) + d[:, None] + rng.normal(0, 1e-3, (len(d), len(local), 3))
        Rf, of, *_ = fit_rigid(local, q)
        fitted += [Rf, of]
    c = score_centre(*fitted)
    assert np.linalg.norm(c.proximal - C_P) < 0.004
    assert 5e-4 < c.rms < 4e-3


def _noisy_centre(planes, noise, F=150, seed=1):
    """SCoRE centre error (m, pelvis frame) from three-marker clusters with ``noise`` m of random error."""
    R_p, d_p, R_t, d_t, _ = _motion(F=F, planes=planes)
    rng = np.random.default_rng(seed)
    local_p = np.array([[0.02, 0.13, 0.03], [0.02, -0.13, 0.03], [-0.17, 0.0, 0.04]])
    local_t = np.array([[0.06, 0.02, 0.15], [0.07, 0.03, 0.05], [-0.02, 0.07, 0.1]])
    fitted = []
    for R, d, local in ((R_p, d_p, local_p), (R_t, d_t, local_t)):
        q = np.einsum("fij,mj->fmi", R, local) + d[:, None] + rng.normal(0, noise, (F, 3, 3))
        Rf, of, *_ = fit_rigid(local, q)
        fitted += [Rf, of]
    return score_centre(*fitted).proximal - C_P


def test_walking_range_leaves_the_lateral_coordinate_loose():
    """docs/kinetics.md: hip ranges of walking (about x, y, z: +-6, +-20, +-5 deg), 5 mm marker error -> the
    centre's lateral coordinate 20-29 mm off; a calibration range (+-34, +-20, +-17 deg) -> a few mm."""
    walk = _noisy_centre((0.1, 0.35, 0.08), 5e-3)
    calibration = _noisy_centre((0.6, 0.35, 0.3), 5e-3)
    assert abs(walk[1]) > 0.015 and abs(walk[1]) > 3 * abs(walk[[0, 2]]).max()
    assert np.linalg.norm(calibration) < 0.005


def test_single_axis_motion_is_flagged():
    """Motion about one axis leaves the centre undetermined along it: conditioning near zero."""
    R_p, d_p, R_t, d_t, _ = _motion(planes=(0.0, 0.6, 0.0))
    c = score_centre(R_p, d_p, R_t, d_t)
    assert c.conditioning < 1e-6
    assert c.rms < 1e-9  # every point of the axis fits


def test_nan_frames_skipped_and_too_few_frames():
    R_p, d_p, R_t, d_t, _ = _motion()
    R_p[::3] = np.nan
    c = score_centre(R_p, d_p, R_t, d_t)
    np.testing.assert_allclose(c.proximal, C_P, atol=1e-9)
    assert c.frames == 200 - len(range(0, 200, 3))
    with pytest.raises(ValueError, match="at least two frames"):
        score_centre(R_p[:1], d_p[:1], R_t[:1], d_t[:1])


def _trial(planes, F=200):
    """A marker DataFrame: ASIS and sacral markers on the pelvis, three thigh markers, hip at C_P from mid-ASIS."""
    R_p, d_p, R_t, d_t, _ = _motion(F=F, planes=planes)
    pelvis = {"R.ASIS": (0.0, -0.13, 0.0), "L.ASIS": (0.0, 0.13, 0.0), "V.Sacral": (-0.17, 0.0, 0.0)}
    thigh = {"T1": (0.06, 0.02, 0.15), "T2": (0.07, 0.03, 0.05), "T3": (-0.02, 0.07, 0.1)}
    cols = {"time": np.arange(F) / 100.0}
    for markers, R, d in ((pelvis, R_p, d_p), (thigh, R_t, d_t)):
        for name, local in markers.items():
            xyz = np.einsum("fij,j->fi", R, local) + d
            for a, k in zip("xyz", range(3), strict=True):
                cols[f"{name}_{a}"] = xyz[:, k]
    return pd.DataFrame(cols)


def test_functional_hip_centre_from_a_trial():
    """Pelvis frame origin at mid-ASIS, x forward, y left, z up: the offset is C_P itself."""
    off, centre, spread = functional_hip_centre(_trial((0.6, 0.35, 0.3)), "left", ["T1", "T2", "T3"])
    np.testing.assert_allclose(off, C_P, atol=1e-9)
    assert spread[1] > MIN_SECOND_RANGE_DEG and centre.rms < 1e-9


def test_functional_hip_centre_refuses_a_walking_range():
    with pytest.raises(InputError, match="left hip turns .* outside its main plane"):
        functional_hip_centre(_trial((0.1, 0.35, 0.08)), "left", ["T1", "T2", "T3"])
    with pytest.raises(InputError, match="marker 'T9' not in the trial"):
        functional_hip_centre(_trial((0.6, 0.35, 0.3)), "left", ["T1", "T2", "T9"])


def test_shared_walk_is_refused(shared_data):
    """docs/kinetics.md: the shared walk turns each hip 3-4 deg RMS outside its flexion plane."""
    path = shared_data / "gait2392_walk" / "subject01_walk1.trc"
    from humanbody.io.trc import read_trc

    m = read_trc(path)
    for side, s in (("right", "R"), ("left", "L")):
        thigh = [f"{s}.Thigh.Upper", f"{s}.Thigh.Front", f"{s}.Thigh.Rear"]
        with pytest.raises(InputError, match="outside its main plane"):
            functional_hip_centre(m, side, thigh)
        _, _, spread = functional_hip_centre(m, side, thigh, min_second_range_deg=0.0)
        assert 2.5 < spread[1] < 4.5 and spread[0] > 10.0


def test_with_hip_centres_matches_the_offset_rule(tmp_path):
    """The in-memory set gives the hips the marker-set offset rule gives (OpenSim's model's hips, as the
    kinetics test writes them to a TOML copy), and leaves every other point alone."""
    from _opensim_subject01 import hip_offsets, markerset_with_opensim_hips

    from humanbody.markers.functional_joint import with_hip_centres
    from humanbody.markers.markerset import load_markerset

    base = load_markerset("gait2392")
    ours = with_hip_centres(base, hip_offsets())
    toml = load_markerset(markerset_with_opensim_hips(tmp_path / "m.toml"))
    for side in ("right", "left"):
        (a,), (b,) = ours.points[f"{side}_hip"], toml.points[f"{side}_hip"]
        assert a["from"] == b["from"] and a["frame"] == b["frame"]
        np.testing.assert_allclose(a["offset"], b["offset"], atol=1e-6)
    assert {k: v for k, v in ours.points.items() if not k.endswith("_hip")} == \
        {k: v for k, v in base.points.items() if not k.endswith("_hip")}
    with pytest.raises(InputError, match="three finite numbers"):
        with_hip_centres(base, {"right": [0.0, np.nan, 0.0]})


def _gait2392_trial(planes):
    """_trial's markers under gait2392's names, both thighs moving alike."""
    t = _trial(planes)
    for s in ("R", "L"):
        for i, n in ((1, "Upper"), (2, "Front"), (3, "Rear")):
            for a in "xyz":
                t[f"{s}.Thigh.{n}_{a}"] = t[f"T{i}_{a}"]
    return t


def test_functional_hips_of_a_marker_set():
    from humanbody.markers.functional_joint import functional_hips

    mset, lines = functional_hips("gait2392", _gait2392_trial((0.6, 0.35, 0.3)))
    for side in ("right", "left"):
        (rule,) = mset.points[f"{side}_hip"]
        np.testing.assert_allclose(rule["offset"], C_P, atol=1e-9)
    assert all("functional (SCoRE" in line for line in lines)
    mset, lines = functional_hips("gait2392", _gait2392_trial((0.1, 0.35, 0.08)))
    assert mset.points["right_hip"][0]["regression"] == "harrington2007"
    assert all("harrington2007 regression" in line and "outside its main plane" in line for line in lines)
    with pytest.raises(InputError, match="lacks the right thigh marker"):
        functional_hips("gait2392", _gait2392_trial((0.6, 0.35, 0.3)).drop(columns=["R.Thigh.Rear_x"]))


def test_analyze_hip_trial_falls_back_to_the_regression_and_says_so(tmp_path, capsys, shared_data):
    """`humanbody analyze --hip-trial`: the shared walk as hip trial has too little range, so the
    Harrington hips stay (same results as without it) and the log says why; a bad hip trial -> exit 2."""
    from humanbody.cli import main

    WALK = shared_data / "gait2392_walk"
    base = [str(WALK / "subject01_walk1.trc"), "--static", str(WALK / "subject01_static.trc"), "--mass", "72.6",
            "--height", "1.8", "-q"]
    assert main(["analyze", *base, "--out", str(tmp_path / "a")]) == 0
    assert main(["analyze", *base, "--out", str(tmp_path / "b"), "--hip-trial", str(WALK / "subject01_walk1.trc")]) == 0
    log = (tmp_path / "b" / "subject01_walk1_log.txt").read_text()
    assert "right hip centre: harrington2007 regression (the hip trial turns it 3.4 deg RMS" in log
    assert "left hip centre: harrington2007 regression" in log
    a = pd.read_csv(tmp_path / "a" / "subject01_walk1_results.csv")
    b = pd.read_csv(tmp_path / "b" / "subject01_walk1_results.csv")
    pd.testing.assert_frame_equal(a, b)
    bad = tmp_path / "bad.trc"
    bad.write_text("not a trc\n")
    capsys.readouterr()
    assert main(["analyze", *base, "--out", str(tmp_path / "c"), "--hip-trial", str(bad)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(bad) in err[0]


@pytest.mark.parametrize("command", ["report", "compare", "view"])
def test_hip_trial_is_a_marker_option_of_every_analysing_command(command):
    """report, compare and view share analyze's marker options, --hip-trial included."""
    from humanbody.cli import build_parser

    args = build_parser().parse_args([command, "trial.trc", "--hip-trial", "hips.trc", "--out", "o"]
                                     if command != "view" else [command, "trial.trc", "--hip-trial", "hips.trc"])
    assert args.hip_trial == "hips.trc"


def test_report_passes_the_hip_trial_to_the_analysis(monkeypatch, tmp_path):
    import humanbody.analysis.run
    from humanbody.report.inputs import TrialTask
    from humanbody.report.trial import ReportOptions, process_trial

    seen = {}

    def fake(path, options=None, **kw):
        seen.update(kw, options=options)
        raise InputError("stop here")

    monkeypatch.setattr(humanbody.analysis.run, "analyze_trial", fake)
    outcome = process_trial(TrialTask(trial=str(tmp_path / "t.trc"), key="t"),
                            ReportOptions(hip_trial="hips.trc"))
    assert seen["options"].hip_trial == "hips.trc" and outcome.row["status"] == "failed"

"""Orientation (IMU) trials: readers, calibration, generalized coordinates, clinical angles, CLI.

The trials are written here from a known motion (tests/_imu_samples.py,
forward model by scipy) with arbitrary sensor mountings; reading,
calibrating and decomposing them must give the motion back.  Xsens'
``jointAngle`` (ZXY Euler in ISB axes) is the outside reference for the
clinical hip and knee angles.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import _imu_samples as S
import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from humanbody import BodyModel, read_trial
from humanbody.errors import InputError
from humanbody.imu import orientations_to_coordinates
from humanbody.mechanics.clinical import clinical_angles
from humanbody.model.segments import SEGMENT_NAMES


@pytest.fixture(scope="module")
def model():
    return BodyModel.default(mass=75.0, height=1.8)


def _angles(coords, name):
    return coords[[f"{name}_alpha", f"{name}_beta", f"{name}_gamma"]].to_numpy()


def _expected_root(q, psi0):
    r = q["lower_torso"].copy()
    r[:, 0] -= psi0  # the ground is turned so that the subject faces +X in the calibration posture
    return r


# ----------------------------------------------------------------------------- OpenSense
def test_opensense_known_motion_recovered(tmp_path, model):
    p = tmp_path / "trial.sto"
    t, root, q, _ = S.opensense_trial(p)
    df = read_trial(p)
    assert df.attrs["kind"] == "orientations" and df.attrs["format"] == "opensense-sto"
    assert df.attrs["rate_hz"] == pytest.approx(100.0)
    coords, notes = orientations_to_coordinates(df, model, heading="none", knee="free")  # the subject faced +X
    np.testing.assert_allclose(coords["time"], t, atol=1e-12)
    for name in SEGMENT_NAMES:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    # range actually covered: hip 120, knee 150, shoulder 170 degrees
    assert np.degrees(np.abs(q["right_upper_leg"][:, 0]).max()) == pytest.approx(120, abs=13)
    assert np.degrees(q["right_lower_leg"][:, 0].max()) == pytest.approx(150)
    assert np.degrees(np.abs(q["right_upper_arm"][:, 0]).max()) == pytest.approx(170)
    assert any("no positions" in n for n in notes)


def test_opensense_heading_from_pelvis_sensor(tmp_path, model):
    p = tmp_path / "turned.sto"
    psi0 = np.radians(-115.0)
    t, root, q, _ = S.opensense_trial(p, psi0=psi0, heading="-z", seed=11)
    df = read_trial(p)
    coords, notes = orientations_to_coordinates(df, model, heading="-z", knee="free")
    np.testing.assert_allclose(_angles(coords, "lower_torso"), _expected_root(q, psi0), atol=1e-9)
    for name in SEGMENT_NAMES[1:]:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    assert any("heading -115.0 deg" in n for n in notes)
    # taken to face +X, the joints' axes are wrong
    bad, _ = orientations_to_coordinates(df, model, heading="none", knee="free")
    assert np.abs(_angles(bad, "right_upper_leg") - q["right_upper_leg"]).max() > np.radians(5)
    # without --imu-heading the knees' flexion axis points to the pelvis sensor's -z: the same angles
    auto, notes = orientations_to_coordinates(df, model, knee="free")
    assert any("heading from the data: the pelvis sensor's -z axis" in n for n in notes)
    np.testing.assert_allclose(auto.to_numpy(), coords.to_numpy(), atol=1e-9)


def test_clinical_angles_equal_truth(tmp_path, model):
    p = tmp_path / "trial.sto"
    t, root, q, _ = S.opensense_trial(p)
    coords, _ = orientations_to_coordinates(read_trial(p), model, heading="none", knee="free")
    truth = coords.copy()
    for name in SEGMENT_NAMES:
        truth[[f"{name}_alpha", f"{name}_beta", f"{name}_gamma"]] = q[name]
    got, want = clinical_angles(model, coords), clinical_angles(model, truth)
    np.testing.assert_allclose(got.to_numpy(), want.to_numpy(), atol=1e-7, equal_nan=True)
    assert got["right_knee_flexion_deg"].max() == pytest.approx(150.0, abs=1e-7)
    assert got["right_hip_flexion_deg"].max() > 119.0


def test_missing_segments_held_in_reference_posture(tmp_path, model):
    labels = {k: v for k, v in S.OPENSIM_LABELS.items() if k not in ("middle_torso", "neck", "left_hand")}
    p = tmp_path / "fewer.sto"
    t, root, q, R = S.opensense_trial(p, labels=labels)
    coords, notes = orientations_to_coordinates(read_trial(p), model, heading="none", knee="free")
    assert any("no sensor for middle_torso, left_hand, neck" in n for n in notes)
    np.testing.assert_allclose(_angles(coords, "middle_torso"), 0.0, atol=1e-12)
    np.testing.assert_allclose(_angles(coords, "left_hand"), 0.0, atol=1e-12)
    # the thorax angle (lumbar and thoracic composed) is still the truth's
    truth = coords.copy()
    for name in SEGMENT_NAMES:
        truth[[f"{name}_alpha", f"{name}_beta", f"{name}_gamma"]] = q[name]
    got, want = clinical_angles(model, coords), clinical_angles(model, truth)
    for c in ("thorax_flexion_deg", "thorax_lateral_flexion_deg", "thorax_rotation_deg", "neck_flexion_deg",
              "right_knee_flexion_deg"):
        np.testing.assert_allclose(got[c], want[c], atol=1e-7, err_msg=c)


def test_static_file_calibrates(tmp_path, model):
    trial, static = tmp_path / "walk.sto", tmp_path / "walk_static.sto"
    t, root, q, _ = S.opensense_trial(trial, still=0.0)  # moves from the first frame
    S.opensense_trial(static, duration=1.0, still=2.0)  # same sensors, standing still
    posture = read_trial(static)
    coords, notes = orientations_to_coordinates(read_trial(trial), model, static=posture, heading="none", knee="free")
    for name in SEGMENT_NAMES:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    assert any("walk_static.sto: 50 frames" in n for n in notes)


def test_world_axes_option(tmp_path, model):
    """A Z-up world (as IMU vendors write it) is read with --axes x,y,z."""
    p = tmp_path / "zup.sto"
    t, root, q = S.truth()
    R = S.absolute(q)
    M = S.mountings(3)
    sensors = {lab: S.quat_wxyz(np.einsum("fij,kj->fik", R[seg], M[seg])) for seg, lab in S.OPENSIM_LABELS.items()}
    S.write_sto(p, t, sensors)
    coords, notes = orientations_to_coordinates(read_trial(p), model, axes="x,y,z", heading="none", knee="free")
    for name in SEGMENT_NAMES:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    assert not any("check the axes" in n for n in notes)
    _, notes = orientations_to_coordinates(read_trial(p), model, heading="none", knee="free")  # taken as Y up: knee flexion
    # about the long axis (these random mountings give the posture no vertical: the format's Y up stays)
    assert any("check the axes: the right knee" in n and "--axes x,y,z" in n for n in notes)


# ----------------------------------------------------------------------------- MVNX
def test_mvnx_known_motion_and_positions(tmp_path, model):
    p = tmp_path / "trial.mvnx"
    psi0 = 0.3
    t, root, q, R, _ = S.mvnx_trial(p, psi0=psi0)
    df = read_trial(p)
    assert df.attrs["format"] == "mvnx" and df.attrs["anatomical"] and df.attrs["positions"]
    assert set(df.attrs["unused"]) == {"L5", "T12", "RightShoulder", "LeftShoulder", "RightToe", "LeftToe"}
    coords, notes = orientations_to_coordinates(df, model)
    np.testing.assert_allclose(coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]], root, atol=1e-12)
    for name in SEGMENT_NAMES:  # MVN's frames are used as they are: the heading stays in the root angle
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)


def test_mvnx_joint_angles_agree_with_clinical(tmp_path, model):
    """Xsens jointAngle (ZXY Euler of the child in the parent, ISB axes X forward, Y up, Z right):
    hip flexion = z, right hip adduction = x, right hip internal rotation = y, knee flexion = -z."""
    p = tmp_path / "trial.mvnx"
    S.mvnx_trial(p)
    df = read_trial(p)
    ja = df.attrs["joint_angles"]
    assert set(ja) == {name for name, _, _ in S.XSENS_JOINTS}
    coords, _ = orientations_to_coordinates(df, model)
    cl = clinical_angles(model, coords)
    for side in ("Right", "Left"):
        s = side.lower()
        np.testing.assert_allclose(cl[f"{s}_hip_flexion_deg"], ja[f"j{side}Hip"][:, 2], atol=1e-6)
        np.testing.assert_allclose(cl[f"{s}_knee_flexion_deg"], -ja[f"j{side}Knee"][:, 2], atol=1e-6)
    np.testing.assert_allclose(cl["right_hip_adduction_deg"], ja["jRightHip"][:, 0], atol=1e-6)
    np.testing.assert_allclose(cl["right_hip_internal_rotation_deg"], ja["jRightHip"][:, 1], atol=1e-6)
    np.testing.assert_allclose(cl["left_hip_adduction_deg"], -ja["jLeftHip"][:, 0], atol=1e-6)
    assert cl["right_knee_flexion_deg"].max() == pytest.approx(150.0, abs=1e-6)


def test_mvnx_without_namespace_or_positions(tmp_path, model):
    p = tmp_path / "plain.mvnx"
    t, root, q = S.truth(duration=1.0)
    R = S.absolute(q)
    quats = {s: S.quat_wxyz(R[S.XSENS_AS[s]]) for s in S.XSENS}
    S.write_mvnx(p, t, quats, None, None, namespace=False, extra_frames=False)
    df = read_trial(p)
    assert not df.attrs["positions"] and df.attrs["joint_angles"] == {}
    coords, notes = orientations_to_coordinates(df, model)
    assert np.allclose(coords["lower_torso_z"], 0.962, atol=0.01)


# ----------------------------------------------------------------------------- bad input
STO_HEAD = "DataRate=100\nDataType=Quaternion\nversion=3\nOpenSimVersion=4.5\nendheader\n"


def _sto(tmp_path, body, name="bad.sto"):
    p = tmp_path / name
    p.write_text(STO_HEAD + body)
    return p


@pytest.mark.parametrize("body, message", [
    ("time\tpelvis_imu\tfemur_r_imu\n0\t1,0,0,0\t1,0,0,0\n0.01\t1,0,0,0\t1,0,0,0\n", None),
    ("time\tfemur_r_imu\ttibia_r_imu\n0\t1,0,0,0\t1,0,0,0\n0.01\t1,0,0,0\t1,0,0,0\n", "no 'pelvis_imu' sensor"),
    ("time\tpelvis_imu\n0\t1,0,0,0\n0.01\t0.5,0,0,0\n", "has norm 0.5"),
    ("time\tpelvis_imu\n0\t1,0,0,0\n0.01\tnan,0,0,0\n", "non-finite quaternion at line 8"),
    ("time\tpelvis_imu\n0\t1,0,0,0\n0.01\t1,a,0,0\n", "non-numeric quaternion '1,a,0,0' at line 8"),
    ("time\tpelvis_imu\n0\t1,0,0,0\n0.01\t1,0,0\n", "truncated at line 8"),
    ("time\tpelvis_imu\tfemur_r_imu\n0\t1,0,0,0\t1,0,0,0\n0.01\t1,0,0,0\n", "truncated at line 8"),
    ("time\tpelvis_imu\n0\t1,0,0,0\n0.02\t1,0,0,0\n0.01\t1,0,0,0\n", "increasing"),
    ("time\tpelvis_imu\n", "no data rows"),
    ("time\tpelvis_imu\n0\t1,0,0,0\nx\t1,0,0,0\n", "non-numeric time 'x' at line 8"),
])
def test_opensense_bad_input(tmp_path, body, message):
    p = _sto(tmp_path, body)
    if message is None:
        assert read_trial(p).attrs["kind"] == "orientations"
        return
    with pytest.raises(InputError, match=message) as err:
        read_trial(p)
    assert str(p) in str(err.value) and "\n" not in str(err.value)


def test_empty_files(tmp_path):
    for name in ("empty.sto", "empty.mvnx"):
        p = tmp_path / name
        p.write_text("")
        with pytest.raises(InputError, match="empty"):
            read_trial(p)


def _mvnx_text(tmp_path, **kw):
    p = tmp_path / "ok.mvnx"
    t, root, q = S.truth(duration=0.1)
    R = S.absolute(q)
    quats = {s: S.quat_wxyz(R[S.XSENS_AS[s]]) for s in S.XSENS}
    S.write_mvnx(p, t, quats, {s: root for s in S.XSENS}, None, **kw)
    return p.read_text()


@pytest.mark.parametrize("change, message", [
    (lambda s: s[: len(s) // 2], "malformed or truncated XML"),
    (lambda s: s.replace('label="Pelvis"', 'label="Hips"'), "no 'Pelvis' segment"),
    (lambda s: s.replace('type="normal"><orientation>', 'type="normal"><orientation>1 ', 1),
     "has 93 values, expected 92"),
    (lambda s: s.replace('type="normal"><orientation>', 'type="normal"><orientation>x', 1), "non-numeric orientation"),
    (lambda s: s.replace('time="10"', 'time="0"'), "increasing"),
    (lambda s: s.replace("<segments>", "<segments></segments><x>").replace("</segments>\n<frames", "</x>\n<frames"),
     "no <segments>|before the <segments>"),
])
def test_mvnx_bad_input(tmp_path, change, message):
    text = _mvnx_text(tmp_path)
    p = tmp_path / "bad.mvnx"
    p.write_text(change(text))
    with pytest.raises(InputError, match=message) as err:
        read_trial(p)
    assert str(p) in str(err.value)


def test_mvnx_nan_and_non_unit(tmp_path):
    text = _mvnx_text(tmp_path)
    first = text.index('type="normal"><orientation>') + len('type="normal"><orientation>')
    end = text.index(" ", first)
    for value, message in (("nan", "non-finite quaternion at frame 1 for 'Pelvis'"), ("0.7", "norm 0.7")):
        p = tmp_path / "bad.mvnx"
        p.write_text(text[:first] + value + text[end:])
        with pytest.raises(InputError, match=message):
            read_trial(p)


def test_heading_axis_errors(tmp_path, model):
    p = tmp_path / "trial.sto"
    S.opensense_trial(p, heading="-z")
    df = read_trial(p)
    with pytest.raises(InputError, match="expected a pelvis-sensor axis"):
        orientations_to_coordinates(df, model, heading="w")
    # a pelvis sensor aligned with OpenSim's ground: its y axis is vertical, its x axis forward
    still = _sto(tmp_path, "time\tpelvis_imu\n0\t1,0,0,0\n0.01\t1,0,0,0\n")
    df = read_trial(still)
    with pytest.raises(InputError, match="within 30 degrees of vertical"):
        orientations_to_coordinates(df, model, heading="y")
    coords, notes = orientations_to_coordinates(df, model, heading="x")
    assert any("heading 0.0 deg" in n for n in notes)
    coords, notes = orientations_to_coordinates(df, model, heading="z")  # OpenSim's z: our -y, to the right
    assert any("heading -90.0 deg" in n for n in notes)


# ----------------------------------------------------------------------------- command line
def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "humanbody", *args], capture_output=True, text=True, cwd=cwd)


def test_cli_analyze_sto_and_mvnx(tmp_path):
    import pandas as pd

    sto, mvnx = tmp_path / "walk.sto", tmp_path / "walk.mvnx"
    S.opensense_trial(sto, duration=2.0)
    S.mvnx_trial(mvnx, duration=2.0)
    for trial in (sto, mvnx):
        out = tmp_path / f"out_{trial.suffix[1:]}"
        r = _cli("analyze", str(trial), "--height", "1.8", "--mass", "75", "--out", str(out))
        assert r.returncode == 0, r.stderr
        assert "orientations" in r.stderr
        res = pd.read_csv(out / "walk_results.csv")
        assert {"right_knee_flexion_deg", "right_hip_flexion_deg", "right_lower_leg_com_acc_x"} <= set(res.columns)
        assert res["right_knee_flexion_deg"].max() > 140


def test_cli_bad_orientation_file_exit_2(tmp_path):
    p = _sto(tmp_path, "time\tpelvis_imu\n0\t1,0,0,0\n0.01\t0.5,0,0,0\n")
    r = _cli("analyze", str(p), "--out", str(tmp_path / "out"))
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "norm 0.5" in lines[0] and "Traceback" not in r.stderr


# ----------------------------------------------------------------------------- the sample in data/
def test_sample_imu_walk_gives_the_sample_walk(tmp_path):
    """data/sample_walk_imu.sto (made by data/make_sample_imu.py from data/sample_walk.csv) analysed with its
    static file and the pelvis sensor's -z heading returns the walk's clinical angles."""
    import importlib.util
    from pathlib import Path

    import pandas as pd

    from humanbody.analysis import analyze_trial

    data = Path(__file__).resolve().parents[2] / "data"
    walk, static = data / "sample_walk_imu.sto", data / "sample_static_imu.sto"
    assert walk.stat().st_size < 500_000 and static.stat().st_size < 500_000
    spec = importlib.util.spec_from_file_location("make_sample_imu", data / "make_sample_imu.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.main(["--out-dir", str(tmp_path)])
    for f in (walk, static):  # the files are what the script writes (to the last printed digit)
        a, b = read_trial(tmp_path / f.name), read_trial(f)
        assert list(a.columns) == list(b.columns), "regenerate with: python data/make_sample_imu.py"
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=2e-9,
                                   err_msg="regenerate with: python data/make_sample_imu.py")
    analysis = analyze_trial(walk, static=static, imu_heading="-z", mass=75.0, height=1.75)
    ref_model = BodyModel.default(mass=75.0, height=1.75)
    ref = clinical_angles(ref_model, pd.read_csv(data / "sample_walk.csv"))
    got = analysis.clinical
    for side in ("right", "left"):
        for c in ("hip_flexion", "hip_adduction", "hip_internal_rotation", "knee_flexion", "ankle_dorsiflexion",
                  "shoulder_flexion", "elbow_flexion"):
            col = f"{side}_{c}_deg"
            np.testing.assert_allclose(got[col], ref[col], atol=1e-5, err_msg=col)
    assert any("no sensor for middle_torso, neck" in m for m in analysis.messages)


def test_mvnx_static_recalibrates(tmp_path, model):
    """Segment frames that MVN placed askew (a fixed offset per segment) are put right by a static MVNX file
    in the reference posture."""
    t, root, q = S.truth(duration=2.0, still=0.0)
    R = S.absolute(q)
    M = S.mountings(5)
    trial, static = tmp_path / "walk.mvnx", tmp_path / "walk_static.mvnx"
    askew = {s: S.quat_wxyz(np.einsum("fij,kj->fik", R[S.XSENS_AS[s]], M[S.XSENS_AS[s]])) for s in S.XSENS}
    S.write_mvnx(trial, t, askew, {s: root for s in S.XSENS}, None)
    ts, _, qs = S.truth(duration=0.5, still=1.0)
    Rs = S.absolute(qs)
    S.write_mvnx(static, ts, {s: S.quat_wxyz(np.einsum("fij,kj->fik", Rs[S.XSENS_AS[s]], M[S.XSENS_AS[s]]))
                              for s in S.XSENS}, None, None)
    coords, notes = orientations_to_coordinates(read_trial(trial), model, static=read_trial(static), heading="none", knee="free")
    for name in SEGMENT_NAMES:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    plain, _ = orientations_to_coordinates(read_trial(trial), model)  # MVN's askew frames as they are
    assert np.abs(_angles(plain, "right_lower_leg") - q["right_lower_leg"]).max() > 0.1


def test_mvnx_time_from_frame_rate(tmp_path):
    text = _mvnx_text(tmp_path)
    import re

    p = tmp_path / "notime.mvnx"
    p.write_text(re.sub(r' time="\d+"', "", text))
    df = read_trial(p)
    assert df.attrs["rate_hz"] == pytest.approx(100.0)
    assert "frame index" in df.attrs["conversions"][0]


def test_static_must_be_an_orientation_file(tmp_path):
    from humanbody.analysis import analyze_trial

    trial = tmp_path / "walk.sto"
    S.opensense_trial(trial, duration=1.0)
    csv = tmp_path / "static.csv"
    csv.write_text("time,a_x,a_y,a_z\n0,1,2,3\n0.01,1,2,3\n")
    with pytest.raises(InputError, match="must be an orientation file"):
        analyze_trial(trial, static=csv)


def test_report_discovers_orientation_trials(tmp_path):
    """A folder's .mvnx files and OpenSense .sto tables are trials, each with a static file of its own kind;
    other OpenSim .sto tables are not trials."""
    from humanbody.report.inputs import discover

    S.opensense_trial(tmp_path / "walk.sto", duration=1.0)
    S.opensense_trial(tmp_path / "a_static.sto", duration=0.5)
    S.mvnx_trial(tmp_path / "run.mvnx", duration=1.0)
    (tmp_path / "b_static.trc").write_text("PathFileType\t4\t(X/Y/Z)\tb_static.trc\n")
    (tmp_path / "moments.sto").write_text("ID\nendheader\ntime\thip_flexion_r_moment\n0\t1\n0.01\t2\n")
    tasks = {Path(t.trial).name: t for t in discover([tmp_path])}
    assert set(tasks) == {"walk.sto", "run.mvnx"}
    assert Path(tasks["walk.sto"].static).name == "a_static.sto"
    assert tasks["run.mvnx"].static is None  # no .mvnx static beside it: MVN's own calibration


def test_arm_abducted_overhead_through_the_singular_set(tmp_path, model):
    """Shoulder abduction to 170 deg crosses the yxz sequence's singular set (abduction 90 deg): the
    coordinates may take the equivalent angles beyond it, but every frame's rotation is the truth's and
    the angles move continuously."""
    from humanbody.rotations import euler_to_matrix

    t = np.arange(300) / S.RATE
    u = 0.5 * (1 - np.cos(np.pi * np.clip((t - 0.6) / 2.0, 0.0, 1.0)))
    q = {n: np.zeros((len(t), 3)) for n in SEGMENT_NAMES}
    q["lower_torso"][:, 0] = 0.2 * u
    q["left_upper_arm"][:] = np.column_stack([np.radians(10) * u, np.radians(-170) * u, np.radians(20) * u])
    q["right_upper_arm"][:] = np.column_stack([0 * u, np.radians(175) * u, 0 * u])  # exactly through it
    R = S.absolute(q)
    M = S.mountings(9)
    sensors = {lab: S.quat_wxyz(np.einsum("ji,fjk,lk->fil", S.A_OPENSIM, R[seg], M[seg]))
               for seg, lab in S.OPENSIM_LABELS.items()}
    p = tmp_path / "overhead.sto"
    S.write_sto(p, t, sensors)
    coords, _ = orientations_to_coordinates(read_trial(p), model)
    for seg in ("left_upper_arm", "right_upper_arm"):
        k = SEGMENT_NAMES.index(seg)
        a = _angles(coords, seg)
        S_rel = euler_to_matrix(a, model.sequences[k])
        want = np.einsum("fji,fjk->fik", R["upper_torso"], R[seg])
        np.testing.assert_allclose(S_rel, want, atol=1e-9, err_msg=seg)
        assert np.abs(np.diff(a, axis=0)).max() < np.radians(5), seg
    cl = clinical_angles(model, coords)
    assert np.abs(np.diff(cl[["left_shoulder_flexion_deg", "left_shoulder_adduction_deg"]].to_numpy(),
                          axis=0)).max() < 5


def test_one_row_calibration_file(tmp_path, model):
    """OpenSense calibration files hold one row; it serves as --static, not as a trial."""
    from humanbody.analysis import analyze_trial

    trial, static = tmp_path / "walk.sto", tmp_path / "cal.sto"
    t, root, q, _ = S.opensense_trial(trial, still=0.0)
    S.opensense_trial(static, duration=0.01, still=1.0)
    posture = read_trial(static)
    assert len(posture) == 1 and posture.attrs["rate_hz"] is None
    coords, notes = orientations_to_coordinates(read_trial(trial), model, static=posture, heading="none", knee="free")
    for name in SEGMENT_NAMES:
        np.testing.assert_allclose(_angles(coords, name), q[name], atol=1e-9, err_msg=name)
    assert any("cal.sto: 1 frame (0 s)" in n for n in notes)
    with pytest.raises(InputError, match="has one frame: a calibration posture"):
        analyze_trial(static)


def test_wrong_vertical_is_flagged_with_hinge_knees(tmp_path, model):
    """The hinge fit cannot show a knee turning about the shank's long axis, so the check reads the knees from
    their own sensors first: a Z-up world taken as Y up is still flagged."""
    p = tmp_path / "zup.sto"
    t, root, q = S.truth()
    R = S.absolute(q)
    M = S.mountings(3)
    sensors = {lab: S.quat_wxyz(np.einsum("fij,kj->fik", R[seg], M[seg])) for seg, lab in S.OPENSIM_LABELS.items()}
    S.write_sto(p, t, sensors)
    _, notes = orientations_to_coordinates(read_trial(p), model, axes="opensim", heading="none")
    assert any("check the axes: the right knee" in n for n in notes)
    _, notes = orientations_to_coordinates(read_trial(p), model, axes="x,y,z", heading="none")
    assert not any("check the axes" in n for n in notes)


# ----------------------------------------------------------------------------- two calibration postures
_LEG_SENSORS = ("lower_torso", "right_upper_leg", "right_lower_leg", "left_upper_leg", "left_lower_leg")


def _posture_pair(tmp_path):
    """A hinge-kneed subject (knees flex only; pelvis sensor's z forward) and two standing trials of it: A as
    the reference posture, B leaned 2 deg forward from the ankles with every leg sensor's heading in the
    world moved by its own magnetic error (shanks 20 and -22 deg, thighs 8 and -12 deg, the pelvis 13 deg),
    as between OpenSense's two standing trials of the shared walk."""
    t, root, q = S.truth(still=0.6)
    for side in ("right", "left"):
        q[f"{side}_lower_leg"][:, 1:] = 0.0
    R = S.absolute(q)
    M = S.mountings(5, "z")
    labels = {seg: S.OPENSIM_LABELS[seg] for seg in _LEG_SENSORS}
    S.write_sto(tmp_path / "trial.sto", t, {lab: S.quat_wxyz(np.einsum("ji,fjk,lk->fil", S.A_OPENSIM, R[seg], M[seg]))
                                            for seg, lab in labels.items()})
    lean = Rotation.from_euler("y", np.radians(2.0)).as_matrix()
    error = dict(zip(_LEG_SENSORS, np.radians([13.0, 8.0, 20.0, -12.0, -22.0]), strict=True))
    ts = np.arange(50) / S.RATE
    for name, B in (("A", False), ("B", True)):
        cells = {}
        for seg, lab in labels.items():
            G = (Rotation.from_euler("z", error[seg]).as_matrix() @ lean if B else np.eye(3)) @ M[seg].T
            cells[lab] = np.tile(S.quat_wxyz((S.A_OPENSIM.T @ G)[None])[0], (len(ts), 1))
        S.write_sto(tmp_path / f"static_{name}.sto", ts, cells)
    return q


def test_a_lean_between_calibration_postures_reads_less_in_opensims_pelvis_tilt(tmp_path, model):
    """The same synthetic subject (standing trial B leaned 2 deg forward) in a trial in which it stands as in A
    and turns once about the vertical: every calibration that takes the standing trial for the model's default pose (ours,
    OpenSense's IMUPlacer) passes the lean into the pelvis as a constant offset about its own lateral axis.
    The clinical pelvis tilt, taken after the heading, moves by it exactly (2.0 deg in every frame); OpenSim's
    pelvis_tilt, taken about the ground's lateral axis before the heading, splits it with pelvis_list by the
    heading: 1.4 deg RMS each (2 / sqrt 2) over a full turn.  So the pelvis figures of the two tools differ by
    convention, not by how much the standing posture moves them."""
    _posture_pair(tmp_path)
    static = read_trial(tmp_path / "static_A.sto")  # the trial: standing as in A while turning once
    df = static.iloc[np.zeros(400, dtype=int)].reset_index(drop=True)
    df["time"] = np.arange(len(df)) / S.RATE
    psi = 2.0 * np.pi * np.arange(len(df)) / len(df)  # about the vertical (OpenSim's world: Y up)
    turn = Rotation.from_rotvec(psi[:, None] * np.array([0.0, 1.0, 0.0]))
    for lab in {c.rsplit("_q", 1)[0] for c in df.columns if c.endswith("_qw")}:
        cols = [f"{lab}_q{c}" for c in "wxyz"]
        q = (turn * Rotation.from_quat(df[cols].to_numpy()[:, [1, 2, 3, 0]])).as_quat()
        df[cols] = q[:, [3, 0, 1, 2]]
    clinical, opensim = {}, {}
    for name in ("A", "B"):
        coords = orientations_to_coordinates(df, model, static=read_trial(tmp_path / f"static_{name}.sto"),
                                             heading="z")[0]
        clinical[name] = clinical_angles(model, coords)["pelvis_tilt_deg"].to_numpy()
        opensim[name] = S.opensim_pelvis_angles(coords)
    np.testing.assert_allclose(np.abs(clinical["B"] - clinical["A"]), 2.0, atol=0.05)
    d = np.sqrt(np.mean((opensim["B"] - opensim["A"]) ** 2, axis=0))
    np.testing.assert_allclose(d[:2], 2.0 / np.sqrt(2.0), atol=0.1)


def test_two_calibration_postures_give_the_same_joint_angles(tmp_path, model, monkeypatch):
    """The cause of the sensitivity to the standing trial: a posture fixes each sensor's inclination, but its
    turn about the segment's long axis comes from the sensor's heading in the world, which magnetometers give
    sensor by sensor.  Hinge knees about the posture's axes (as before) or each sensor read alone
    (--imu-knee free) turn the moved shank and thigh headings into knee flexion and hip rotation (3-5 deg
    RMS between the postures); with hinge knees whose flexion axis is the one the trial shows (the default:
    humanbody.imu.knee_hinge.align_knee_axes) the knees' flexion is the truth in both postures and the hips
    move less than 1 deg RMS (what moves them is the 2 deg lean, seen by every sensor as its own tilt); the
    lean itself stays in the pelvis tilt: no orientation of a standing subject tells a lean from a tilted
    sensor."""
    from humanbody.imu import knee_hinge

    q = _posture_pair(tmp_path)
    df = read_trial(tmp_path / "trial.sto")
    statics = {name: read_trial(tmp_path / f"static_{name}.sto") for name in ("A", "B")}
    res = {}
    for name, static in statics.items():
        for knee in ("hinge", "free"):
            coords, notes = orientations_to_coordinates(df, model, static=static, heading="z", knee=knee)
            res[name, knee] = clinical_angles(model, coords)
        assert sum("knee's flexion axis from the trial" in n for n in notes) == 0
    with monkeypatch.context() as m:  # the hinge about the posture's axes
        m.setattr(knee_hinge, "align_knee_axes", lambda R: [])
        for name, static in statics.items():
            res[name, "posture axes"] = clinical_angles(model, orientations_to_coordinates(
                df, model, static=static, heading="z")[0])
    for name in ("A", "B"):
        for side in ("right", "left"):
            true = np.degrees(q[f"{side}_lower_leg"][:, 0])
            assert np.abs(res[name, "hinge"][f"{side}_knee_flexion_deg"] - true).max() < 1e-6, (name, side)
    cols = ("right_hip_flexion_deg", "right_hip_adduction_deg", "right_hip_internal_rotation_deg",
            "left_hip_flexion_deg", "left_hip_adduction_deg", "left_hip_internal_rotation_deg",
            "right_knee_flexion_deg", "left_knee_flexion_deg")

    def moved(how):
        return {c: float(np.sqrt(np.mean((res["A", how][c] - res["B", how][c]) ** 2))) for c in cols}

    hinge, before, free = moved("hinge"), moved("posture axes"), moved("free")
    assert max(hinge.values()) < 1.0, hinge
    assert max(before.values()) > 3.0 and max(free.values()) > 3.0, (before, free)
    d = res["B", "hinge"]["pelvis_tilt_deg"] - res["A", "hinge"]["pelvis_tilt_deg"]
    np.testing.assert_allclose(np.abs(d), 2.0, atol=0.05)

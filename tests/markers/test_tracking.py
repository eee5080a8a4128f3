"""Calibration and tracking on a synthetic subject with a known motion.

The static pose is designed so that every rule of the gait2392 marker set
gives a frame parallel to ground (all static angles zero); the motion is made
by forward kinematics written here (bryant_to_matrix, joint offsets of the
designed joint centres), markers ride on the segments, and tracking must give
the angles back.
"""

import numpy as np
import pandas as pd
import pytest

from humanbody import BodyModel, InputError
from humanbody.markers.calibration import calibrate
from humanbody.markers.tracking import fit_rigid, markers_to_coordinates, track
from humanbody.model.segments import PARENTS, SEGMENT_NAMES
from humanbody.rotations import CARDAN, SEQUENCES, bryant_to_matrix

# ----------------------------------------------------------- designed subject
ASIS_X, ASIS_Z, HALF_PW, PD = 0.10, 1.00, 0.12, 0.18
# Harrington et al. 2007 (mm, PW = 240, PD = 180): posterior 0.24 PD + 9.9,
# inferior 0.30 PW + 10.9, lateral 0.33 PW + 7.3.
HIP = np.array([ASIS_X - (0.24 * 180 + 9.9) / 1000, 0.33 * 240e-3 + 7.3e-3, ASIS_Z - (0.30 * 240 + 10.9) / 1000])
HX, HY, HZ = HIP
KNEE_Z, ANKLE_Z, ACR_Z, ACR_Y, TOP_Z = 0.50, 0.08, 1.45, 0.18, 1.75
SHOULDER_Z = ACR_Z - 0.17 * 2 * ACR_Y  # Rab et al. 2002: 17 % of bi-acromial distance
ELBOW_Z, WRIST_Z = 1.10, 0.85


def _side(s):
    return -1.0 if s == "R" else 1.0  # y of the subject's right side is negative


def static_markers() -> dict:
    m = {"R.ASIS": (ASIS_X, -HALF_PW, ASIS_Z), "L.ASIS": (ASIS_X, HALF_PW, ASIS_Z),
         "V.Sacral": (ASIS_X - PD, 0.0, ASIS_Z),
         "Sternum": (HX + 0.10, 0.0, 1.30), "R.Acromium": (HX, -ACR_Y, ACR_Z), "L.Acromium": (HX, ACR_Y, ACR_Z),
         "Top.Head": (HX, 0.0, TOP_Z), "R.Temple": (HX + 0.06, -0.07, 1.62), "L.Temple": (HX + 0.06, 0.07, 1.62)}
    for s in "RL":
        y = _side(s) * HY
        lat = _side(s)  # lateral direction (sign of y)
        m.update({
            f"{s}.Thigh.Upper": (HX + 0.02, y + lat * 0.06, 0.77), f"{s}.Thigh.Front": (HX + 0.07, y + lat * 0.01, 0.67),
            f"{s}.Thigh.Rear": (HX - 0.02, y + lat * 0.07, 0.60),
            f"{s}.Knee.Lat": (HX, y + lat * 0.05, KNEE_Z), f"{s}.Knee.Med": (HX, y - lat * 0.05, KNEE_Z),
            f"{s}.Shank.Upper": (HX + 0.03, y + lat * 0.05, 0.40), f"{s}.Shank.Front": (HX + 0.06, y, 0.30),
            f"{s}.Shank.Rear": (HX - 0.04, y + lat * 0.04, 0.25),
            f"{s}.Ankle.Lat": (HX, y + lat * 0.035, ANKLE_Z), f"{s}.Ankle.Med": (HX, y - lat * 0.035, ANKLE_Z),
            f"{s}.Heel": (HX - 0.07, y, 0.04), f"{s}.Midfoot.Sup": (HX + 0.05, y, 0.07),
            f"{s}.Midfoot.Lat": (HX + 0.05, y + lat * 0.04, 0.03), f"{s}.Toe.Tip": (HX + 0.17, y, 0.03),
            f"{s}.Toe.Lat": (HX + 0.13, y + lat * 0.04, 0.025), f"{s}.Toe.Med": (HX + 0.14, y - lat * 0.03, 0.03),
            f"{s}.Bicep": (HX + 0.04, lat * ACR_Y, 1.25), f"{s}.Elbow": (HX, lat * ACR_Y, ELBOW_Z),
            f"{s}.Wrist.Med": (HX - 0.025, lat * ACR_Y, WRIST_Z), f"{s}.Wrist.Lat": (HX + 0.025, lat * ACR_Y, WRIST_Z),
        })
    return {k: np.array(v, dtype=float) for k, v in m.items()}


def origins() -> dict:
    """Designed O_k in the static pose (all frames parallel to ground)."""
    mid_hip = np.array([HX, 0.0, HZ])
    mid_acr = np.array([HX, 0.0, ACR_Z])
    o = {"lower_torso": mid_hip, "middle_torso": mid_hip + 0.274 * (mid_acr - mid_hip),
         "upper_torso": mid_hip + 0.679 * (mid_acr - mid_hip), "neck": mid_acr,
         "head": np.array([HX, 0.0, 0.5 * (ACR_Z + TOP_Z)])}
    for side, s in (("right", "R"), ("left", "L")):
        y = _side(s)
        o[f"{side}_upper_leg"] = np.array([HX, y * HY, HZ])
        o[f"{side}_lower_leg"] = np.array([HX, y * HY, KNEE_Z])
        o[f"{side}_foot"] = np.array([HX, y * HY, ANKLE_Z])
        o[f"{side}_upper_arm"] = np.array([HX, y * ACR_Y, SHOULDER_Z])
        o[f"{side}_lower_arm"] = np.array([HX, y * ACR_Y, ELBOW_Z])
        o[f"{side}_hand"] = np.array([HX, y * ACR_Y, WRIST_Z])
    return o


CLUSTERS = {
    "lower_torso": ["R.ASIS", "L.ASIS", "V.Sacral"], "upper_torso": ["Sternum", "R.Acromium", "L.Acromium"],
    "head": ["R.Temple", "L.Temple", "Top.Head"],
}
for _side_name, _s in (("right", "R"), ("left", "L")):
    CLUSTERS[f"{_side_name}_upper_leg"] = [f"{_s}.Thigh.{p}" for p in ("Upper", "Front", "Rear")] + [
        f"{_s}.Knee.Lat", f"{_s}.Knee.Med"]
    CLUSTERS[f"{_side_name}_lower_leg"] = [f"{_s}.Shank.{p}" for p in ("Upper", "Front", "Rear")] + [
        f"{_s}.Ankle.Lat", f"{_s}.Ankle.Med"]
    CLUSTERS[f"{_side_name}_foot"] = [f"{_s}.{p}" for p in (
        "Heel", "Midfoot.Sup", "Midfoot.Lat", "Toe.Tip", "Toe.Lat", "Toe.Med")]
    CLUSTERS[f"{_side_name}_upper_arm"] = [f"{_s}.Bicep", f"{_s}.Elbow"]
    CLUSTERS[f"{_side_name}_lower_arm"] = [f"{_s}.Wrist.Med", f"{_s}.Wrist.Lat"]


def base_model() -> BodyModel:
    """A plain 17-segment model (masses, inertias); geometry comes from calibration."""
    n = 17
    mass = np.linspace(1.0, 9.0, n)
    return BodyModel(names=SEGMENT_NAMES, parents=PARENTS, joint_offset=np.zeros((n, 3)),
                     com_offset=np.tile([0.0, 0.0, -0.1], (n, 1)), mass=mass,
                     inertia=np.array([np.diag([0.05, 0.05, 0.02]) * m for m in mass]), name="test")


def frame_df(pos: dict, time) -> pd.DataFrame:
    cols = {"time": np.asarray(time, dtype=float)}
    for name, p in pos.items():
        p = np.atleast_2d(p)
        for i, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = p[:, i]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="synthetic.trc", markers=list(pos))
    return df


def true_angles(t, rng) -> np.ndarray:
    """Smooth angles (frames, 17, 3) obeying the set's rules (slerp, rigid hands)."""
    n = len(t)
    amp = rng.uniform(0.1, 0.5, (17, 3))
    freq = rng.uniform(0.3, 1.2, (17, 3))
    phase = rng.uniform(0, 2 * np.pi, (17, 3))
    ang = amp * np.sin(2 * np.pi * freq * t[:, None, None] + phase)
    ang[:, 0, 2] = 1.3 * np.pi * t  # root heading turns by more than pi: unwrap check
    ang[:, 2] = ang[:, 1]  # upper torso rel. middle = middle rel. lower (slerp at 1/2)
    ang[:, 7] = ang[:, 6]  # head rel. neck = neck rel. upper torso
    ang[:, 5] = ang[:, 10] = 0.0  # hands rigid with forearms
    assert n == len(ang)
    return ang


def move(static: dict, ang, root) -> dict:
    """Markers of the designed subject moved by angles (frames, 17, 3) and root O_1 (frames, 3)."""
    o = origins()
    S = bryant_to_matrix(ang)
    R = np.empty_like(S)
    O = np.empty(ang.shape[:2] + (3,))
    for k, seg in enumerate(SEGMENT_NAMES):
        L = PARENTS[k]
        if L == 0:
            R[:, k], O[:, k] = S[:, k], root
        else:
            xi = o[seg] - o[SEGMENT_NAMES[L - 1]]
            R[:, k] = R[:, L - 1] @ S[:, k]
            O[:, k] = O[:, L - 1] + R[:, L - 1] @ xi
    out = {}
    for seg, names in CLUSTERS.items():
        k = SEGMENT_NAMES.index(seg)
        for m in names:
            out[m] = O[:, k] + R[:, k] @ (static[m] - o[seg])
    return out


@pytest.fixture(scope="module")
def calibration():
    st = static_markers()
    frames = {k: v + np.zeros((5, 3)) for k, v in st.items()}
    return calibrate(frame_df(frames, np.arange(5) / 60), "gait2392", mass=70.0, base_model=base_model())


@pytest.fixture(scope="module")
def motion():
    rng = np.random.default_rng(7)
    t = np.arange(240) / 120.0
    ang = true_angles(t, rng)
    root = np.c_[0.8 * t, 0.1 * np.sin(t), 0.95 + 0.02 * np.sin(6 * t)]
    pos = move(static_markers(), ang, root)
    dyn = {k: v for k, v in pos.items() if ".Knee." not in k and ".Ankle." not in k}  # like the walk
    return t, ang, root, dyn


def _angles(coords):
    return np.stack([coords[[f"{s}_alpha", f"{s}_beta", f"{s}_gamma"]].to_numpy() for s in SEGMENT_NAMES], axis=1)


# ------------------------------------------------------------------- tests
def test_static_frames_parallel_to_ground(calibration):
    for seg in SEGMENT_NAMES:
        np.testing.assert_allclose(calibration.frames[seg], np.eye(3), atol=1e-12, err_msg=seg)
        np.testing.assert_allclose(calibration.static_angles[seg], 0.0, atol=1e-12)


def test_joint_centres_and_offsets(calibration):
    o = origins()
    np.testing.assert_allclose(calibration.points["right_hip"], [HX, -HY, HZ], atol=1e-12)
    np.testing.assert_allclose(calibration.points["left_knee"], [HX, HY, KNEE_Z], atol=1e-12)
    for k, seg in enumerate(SEGMENT_NAMES):
        np.testing.assert_allclose(calibration.origins[seg], o[seg], atol=1e-12, err_msg=seg)
        if PARENTS[k]:
            np.testing.assert_allclose(calibration.model.joint_offset[k], o[seg] - o[SEGMENT_NAMES[PARENTS[k] - 1]],
                                       atol=1e-12, err_msg=seg)
    assert calibration.lengths["right_lower_leg"] == pytest.approx(KNEE_Z - ANKLE_Z)
    assert calibration.height == pytest.approx(TOP_Z - 0.025)  # lowest foot marker: Toe.Lat at 25 mm


def test_model_scaling_keeps_com_fraction(calibration):
    base = base_model()
    k = SEGMENT_NAMES.index("right_lower_leg")
    # base has no lengths: masses kept, joint offsets calibrated
    np.testing.assert_allclose(calibration.model.mass, base.mass)
    assert calibration.model.segment_meta[k]["length"] == pytest.approx(KNEE_Z - ANKLE_Z)


def test_round_trip_noise_free(calibration, motion):
    t, ang, root, dyn = motion
    tr = track(frame_df(dyn, t), calibration)
    got = _angles(tr.coords)
    true = ang.copy()
    np.testing.assert_allclose(got, true, atol=1e-9)
    np.testing.assert_allclose(tr.coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]], root, atol=1e-9)
    assert np.nanmax(tr.residuals.iloc[:, 1:].to_numpy()) < 1e-9
    assert set(np.unique(tr.status["right_upper_leg"])) == {"fit"}
    assert set(np.unique(tr.status["middle_torso"])) == {"slerp"}
    assert set(np.unique(tr.status["left_hand"])) == {"rigid"}
    assert np.abs(np.diff(got[:, 0, 2])).max() < 0.1  # unwrapped heading, spans > pi
    assert got[-1, 0, 2] - got[0, 0, 2] > np.pi


def test_round_trip_with_noise_and_gaps(calibration, motion):
    t, ang, root, dyn = motion
    rng = np.random.default_rng(3)
    noisy = {k: v + rng.normal(0, 0.001, v.shape) for k, v in dyn.items()}
    noisy["R.Heel"][50:80] = np.nan  # foot keeps 5 markers
    noisy["L.Thigh.Front"][100:110] = np.nan  # thigh keeps 2 markers + hip centre
    noisy["R.Thigh.Front"][150:160] = np.nan
    noisy["R.Thigh.Rear"][150:160] = np.nan  # thigh left with 1 marker: + hip + knee (from the shank): joined
    for m in ("R.Thigh.Upper", "R.Thigh.Front", "R.Thigh.Rear"):
        noisy[m][170:180] = np.nan  # no thigh marker: hip and knee alone are a line: fallback
    tr = track(frame_df(noisy, t), calibration)
    err = np.degrees(_angles(tr.coords) - ang)
    st = tr.status["right_upper_leg"].to_numpy()
    assert (st[170:180] == "fallback").all() and (st[:170] == "fit").all()
    assert tr.joined["right_upper_leg"] == 10
    # fallback: the static relative orientation (zero here)
    np.testing.assert_allclose(tr.coords["right_upper_leg_beta"].to_numpy()[170:180], 0.0, atol=1e-12)
    ok = np.ones(len(t), bool)
    ok[170:180] = False
    rms = np.sqrt(np.nanmean(err[ok] ** 2, axis=0))  # (17, 3) deg
    legs = [SEGMENT_NAMES.index(s) for s in SEGMENT_NAMES if "leg" in s or "foot" in s] + [0]
    assert rms[legs].max() < 1.5, rms[legs]  # 1 mm noise on 6-10 cm clusters
    assert rms.max() < 3.0, rms
    assert 0.0005 < np.nanmedian(tr.residuals["right_foot"]) < 0.0015


def test_fit_rigid_matches_rotation_and_flags_degenerate():
    rng = np.random.default_rng(0)
    p = rng.normal(0, 0.1, (5, 3))
    R = bryant_to_matrix(rng.uniform(-1, 1, (4, 3)))
    o = rng.normal(0, 1, (4, 3))
    q = np.einsum("fij,mj->fmi", R, p) + o[:, None]
    q[1, :3] = np.nan  # frame 1: two points only
    Rf, of, rms, count, ok = fit_rigid(p, q)
    assert ok.tolist() == [True, False, True, True]
    np.testing.assert_allclose(Rf[ok], R[ok], atol=1e-12)
    np.testing.assert_allclose(of[ok], o[ok], atol=1e-12)
    line = np.outer(np.linspace(0, 0.3, 4), [1.0, 0.0, 0.0])  # collinear cluster
    assert not fit_rigid(line, line[None] + 0.0)[4][0]


def test_missing_required_marker_names_marker_and_file(calibration, motion):
    t, ang, root, dyn = motion
    d = {k: v for k, v in dyn.items() if k != "L.Shank.Rear"}
    with pytest.raises(InputError, match=r"synthetic.trc.*L\.Shank\.Rear"):
        track(frame_df(d, t), calibration)
    d = dict(dyn)
    d["V.Sacral"] = np.full_like(d["V.Sacral"], np.nan)  # present but never valid
    with pytest.raises(InputError, match="V.Sacral"):
        track(frame_df(d, t), calibration)


def test_missing_static_marker_for_a_joint_centre():
    st = {k: v for k, v in static_markers().items() if k != "R.Knee.Med"}
    with pytest.raises(InputError, match=r"R\.Knee\.Med.*right_knee"):
        calibrate(frame_df(st, [0.0]), "gait2392", base_model=base_model())


def test_markers_to_coordinates_with_static(calibration, motion):
    t, ang, root, dyn = motion
    st = frame_df({k: v + np.zeros((3, 3)) for k, v in static_markers().items()}, np.arange(3) / 60)
    coords, cal, tr = markers_to_coordinates(frame_df(dyn, t), static=st, mass=70.0, base_model=base_model())
    assert cal.markerset.name == "gait2392" and coords.attrs["kind"] == "coordinates"
    np.testing.assert_allclose(_angles(coords), ang, atol=1e-9)


def test_fused_rigid_fit_equals_the_general_weighted_path():
    """The one-pass kernel (0/1 weights) and the general NumPy path give the same fit."""
    rng = np.random.default_rng(3)
    F, m = 500, 5
    p = rng.normal(0, 0.08, (m, 3))
    R = bryant_to_matrix(rng.uniform(-2, 2, (F, 3)))
    o = rng.normal(0, 1, (F, 3))
    q = np.einsum("fij,mj->fmi", R, p) + o[:, None] + rng.normal(0, 0.002, (F, m, 3))
    q[rng.random((F, m)) < 0.25] = np.nan  # some frames keep fewer than three points
    fused = fit_rigid(p, q)
    general = fit_rigid(p, q, weights=np.ones((F, m)))
    assert fused[4].tolist() == general[4].tolist() and 0 < fused[4].sum() < F
    np.testing.assert_array_equal(fused[3], general[3])
    for a, b in zip(fused[:3], general[:3], strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
    ok = fused[4]
    assert np.nanmax(np.abs(np.einsum("fji,fjk->fik", fused[0][ok], R[ok]) - np.eye(3))) < 0.2


def test_tracking_in_chunks_equals_one_pass(calibration, motion):
    """Frames are tracked chunk by chunk; the chunk size changes nothing (unwrapping runs over the whole trial)."""
    t, ang, root, dyn = motion
    d = dict(dyn)
    first = next(iter(d))
    d[first] = d[first].copy()
    d[first][5:9] = np.nan  # a gap across a chunk boundary
    df = frame_df(d, t)
    one = track(df, calibration, chunk_frames=len(df))
    for chunk in (7, 50):
        part = track(df, calibration, chunk_frames=chunk, keep_frames=False)
        pd.testing.assert_frame_equal(part.coords, one.coords, check_exact=True)
        pd.testing.assert_frame_equal(part.residuals, one.residuals, check_exact=True)
        pd.testing.assert_frame_equal(part.status, one.status)
        assert part.R is None and one.R.shape == (len(df), 17, 3, 3)


@pytest.mark.parametrize("seqs", [("xyz",) * 17, ("zxy",) + ("yxz",) * 16, SEQUENCES + SEQUENCES[:5]])
def test_relative_angles_kernel_equals_matrix_to_euler(seqs):
    from humanbody._kernels.angles import relative_angles
    from humanbody.rotations import euler_to_matrix, matrix_to_euler, sequence_axes

    rng = np.random.default_rng(6)
    F = 400
    R = bryant_to_matrix(rng.uniform(-3, 3, (F, 17, 3)))
    mid = np.pi / 2 if seqs[3] in CARDAN else 0.0
    R[:20, 3] = R[:20, 2] @ euler_to_matrix(np.array([0.3, mid, 0.2]), seqs[3])  # singular relative pose
    R[25, 5, 1, 1] = np.nan
    parent = np.array([L - 1 for L in PARENTS], dtype=np.int64)
    out = np.empty((F, 17, 3))
    relative_angles(R, parent, np.array([sequence_axes(s) for s in seqs]), 1e-9, out)
    S = np.matmul(R[:, np.maximum(parent, 0)].transpose(0, 1, 3, 2), R)
    S[:, 0] = R[:, 0]
    want = np.full((F, 17, 3), np.nan)
    finite = np.isfinite(S).all(axis=(2, 3))
    for k, seq in enumerate(seqs):
        want[finite[:, k], k] = matrix_to_euler(S[finite[:, k], k], seq)
    np.testing.assert_allclose(out, want, rtol=0, atol=1e-12)
    assert np.isnan(out[25, 5]).all()
    np.testing.assert_allclose(out[:20, 3, 2], 0.0)


def test_unwrap_kernel_equals_numpy_unwrap():
    """Bit for bit numpy.unwrap on columns without NaN (steps of exactly +-pi included); with NaN,
    the finite samples are unwrapped as one series and the NaN stay."""
    from humanbody._kernels.angles import unwrap_columns

    rng = np.random.default_rng(8)
    x = np.cumsum(rng.normal(0.0, 1.5, (3000, 9)), axis=0)
    x = (x + np.pi) % (2 * np.pi) - np.pi
    x[rng.random(x.shape) < 0.01] = np.pi
    x[rng.random(x.shape) < 0.01] = -np.pi
    x[100, 3], x[101, 3] = -np.pi, np.pi  # a step of exactly 2 pi
    got = x.copy()
    unwrap_columns(got)
    np.testing.assert_array_equal(got, np.unwrap(x, axis=0))
    y = x.copy()
    y[rng.random(y.shape) < 0.05] = np.nan
    y[:40, 0] = np.nan  # a column starting with a gap
    y[:, 1] = np.nan  # a column with no sample
    got = y.copy()
    unwrap_columns(got)
    for c in range(y.shape[1]):
        ok = np.isfinite(y[:, c])
        want = y[:, c].copy()
        if ok.any():
            want[ok] = np.unwrap(y[ok, c])
        np.testing.assert_array_equal(got[:, c], want)
    assert np.isnan(got[:, 1]).all()


def test_slerp_frames_equals_the_rotation_vector_form():
    from scipy.spatial.transform import Rotation

    from humanbody.markers.rules import slerp_frames

    Ra = Rotation.random(300, random_state=3).as_matrix()
    Rb = Rotation.random(300, random_state=4).as_matrix()
    Rb[:3] = Ra[:3]  # no relative rotation
    Rb[3] = Ra[3] @ Rotation.from_rotvec([np.pi - 1e-9, 0, 0]).as_matrix()  # nearly a half turn
    Ra[5, 0, 0] = np.nan
    for f in (0.0, 0.3, 0.5, 1.0):
        got = slerp_frames(Ra, Rb, f)
        rel = np.einsum("fji,fjk->fik", Ra, Rb)
        ok = np.isfinite(Ra).all(axis=(1, 2))
        want = np.full_like(Ra, np.nan)
        want[ok] = Ra[ok] @ Rotation.from_rotvec(f * Rotation.from_matrix(rel[ok]).as_rotvec()).as_matrix()
        np.testing.assert_allclose(got, want, atol=1e-9)
        assert np.isnan(got[5]).all()


def test_tracking_ignores_other_columns_and_names_text_markers(calibration, motion):
    t, ang, root, dyn = motion
    df = frame_df(dyn, t)
    plain = track(df, calibration)
    extra = df.assign(note="walk", frame=np.arange(len(df)))
    pd.testing.assert_frame_equal(track(extra, calibration).coords, plain.coords)
    bad = df.copy()
    first = next(iter(dyn))
    bad[f"{first}_x"] = "n/a"
    with pytest.raises(InputError, match="not numeric"):
        track(bad, calibration)


def test_carried_points_equal_the_numpy_expression_bit_for_bit():
    """O + R x every frame, on strided views as tracking passes them (a segment of a chunk buffer)."""
    from humanbody._kernels.marker_layout import carried_points

    rng = np.random.default_rng(5)
    R = rng.normal(size=(300, 17, 3, 3))[:, 6]
    O = rng.normal(size=(300, 17, 3))[:, 6]
    O[7] = np.nan  # NaN in, NaN out
    x = np.array([0.02, -0.31, 0.11])
    out = np.empty((300, 3))
    carried_points(R, O, x, out)
    want = O + (R[:, :, 0] * x[0] + R[:, :, 1] * x[1] + R[:, :, 2] * x[2])
    np.testing.assert_array_equal(out, want)
    assert np.isnan(out[7]).all()


def test_nanmedian_helper_equals_numpy():
    from humanbody.signal.nan import nanmedian

    rng = np.random.default_rng(9)
    for shape, axis in (((300, 3), 0), ((1000, 41), 0), ((7,), None), ((5, 4), None)):
        a = rng.normal(size=shape) * 1e3
        for with_nan in (False, True):
            if with_nan:
                a.flat[rng.integers(0, a.size, 3)] = np.nan
            np.testing.assert_array_equal(nanmedian(a, axis=axis), np.nanmedian(a, axis=axis))
            np.testing.assert_array_equal(nanmedian(a, axis=axis, keepdims=True),
                                          np.nanmedian(a, axis=axis, keepdims=True))


def test_head_markers_lost_fall_back_through_the_interpolated_neck(calibration, motion):
    """The head's parent (neck) is interpolated between the thorax and the head: when the head markers
    are gone, the head keeps its calibrated pose relative to the thorax and the neck is halfway."""
    t, ang, root, dyn = motion
    lost = {k: v.copy() for k, v in dyn.items()}
    for m in ("R.Temple", "L.Temple", "Top.Head"):
        lost[m][30:40] = np.nan
    tr = track(frame_df(lost, t), calibration)
    st = tr.status["head"].to_numpy()
    assert (st[30:40] == "fallback").all() and (st[:30] == "fit").all()
    k_head, k_neck, k_up = (SEGMENT_NAMES.index(s) for s in ("head", "neck", "upper_torso"))
    # static relative pose of head to thorax is the identity (designed subject): head frame = thorax frame
    np.testing.assert_allclose(tr.R[30:40, k_head], tr.R[30:40, k_up], atol=1e-12)
    np.testing.assert_allclose(tr.R[30:40, k_neck], tr.R[30:40, k_up], atol=1e-12)
    xi = calibration.model.joint_offset[k_head]
    np.testing.assert_allclose(tr.origins[30:40, k_head],
                               tr.origins[30:40, k_neck] + np.einsum("fij,j->fi", tr.R[30:40, k_neck], xi), atol=1e-12)
    np.testing.assert_allclose(_angles(tr.coords)[:30], ang[:30], atol=1e-9)  # other frames untouched

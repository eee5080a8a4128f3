"""Whole-body inverse kinematics (markers/global_ik.py, markers/_ik_kernels.py).

Checked against: the model's own forward kinematics (the designed subject of
test_tracking moved through the whole range of test_full_range: knee 150 deg,
hip 120 deg, arm overhead), finite differences of the cost for the analytic
Jacobian, segment tracking on the same noisy data, and the command line.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from _shared import needs_shared

from humanbody import InputError
from humanbody.markers.calibration import calibrate
from humanbody.markers.global_ik import choose_method, ik_problem, track_global
from humanbody.markers.markerset import load_markerset, undetermined_segments
from humanbody.markers.tracking import track
from humanbody.model.segments import SEGMENT_NAMES
from humanbody.rotations import euler_to_matrix
from tests.markers.test_full_range import K, _angles, _model, full_range_walk
from tests.markers.test_tracking import frame_df, static_markers

LEGS = [K[s] for s in SEGMENT_NAMES if "leg" in s or "foot" in s] + [K["lower_torso"]]
SPARSE = ("R.Shank.Rear", "L.Shank.Rear", "R.Thigh.Rear", "L.Thigh.Rear")


@pytest.fixture(scope="module")
def setup():
    cal, t, (ang, *_), root, markers = full_range_walk(5.0)
    return cal, t, ang, root, markers


def _noisy(markers, sd, seed=11):
    rng = np.random.default_rng(seed)
    return {m: v + rng.normal(0, sd, v.shape) for m, v in markers.items()}


def test_noise_free_whole_range_comes_back(setup):
    cal, t, ang, root, markers = setup
    tr = track_global(frame_df(markers, t), cal)
    assert tr.method == "global"
    got = _angles(tr.coords)
    err = np.degrees(np.abs(got - ang))
    others = [k for k in range(17) if k != K["left_upper_arm"]]
    assert err[:, others].max() < 2e-3, err[:, others].max()
    # the arm abducted through 90 deg: the rotation is exact, only its angle split is ill-conditioned there
    S_got = euler_to_matrix(got[:, K["left_upper_arm"]], "yxz")
    np.testing.assert_allclose(S_got, euler_to_matrix(ang[:, K["left_upper_arm"]], "yxz"), atol=1e-4)
    np.testing.assert_allclose(tr.coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]], root, atol=1e-6)
    assert np.nanmax(tr.marker_residuals.drop(columns="time").to_numpy()) < 1e-5
    assert np.degrees(got[:, K["right_lower_leg"], 0]).max() > 149.9  # knee 150 deg is ordinary


def test_two_millimetre_noise_beats_segment_fits(setup):
    """2 mm noise on 6-10 cm clusters: the joints held together halve the leg errors' spread.

    Measured: global sagittal leg RMS <= 0.74 deg, every leg angle <= 1.8 deg
    (segment fits: 1.13 and 2.07 deg).
    """
    cal, t, ang, root, markers = setup
    noisy = frame_df(_noisy(markers, 0.002), t)
    out = {}
    for name, fn in (("global", track_global), ("segments", track)):
        err = np.degrees(_angles(fn(noisy, cal).coords) - ang)[:, LEGS]
        out[name] = np.sqrt(np.mean(err**2, axis=0))  # (legs, 3) deg
    g, s = out["global"], out["segments"]
    assert g[:, 0].max() < 0.9, g
    assert g.max() < 2.0, g
    assert g.mean() < 0.8 * s.mean(), (g.mean(), s.mean())


def test_sparse_segment_fits_recover_noise_free_angles(setup):
    """One marker less on every thigh and shank (two left on each): the segment fits joined by their joint centres
    (each shank by the knee its thigh carries and the ankle its foot puts, each thigh by the hip and the knee from
    its shank's markers and the ankle, the pelvis by those hips) recover noise-free angles exactly, and under
    2 mm marker noise they stay within 1.4 times whole-body inverse kinematics' error (which fits all markers at once)."""
    from humanbody.markers.tracking import joined_children

    cal, t, ang, root, markers = setup
    ms = cal.markerset
    sparse = {m: v for m, v in markers.items() if m not in SPARSE}
    assert joined_children(ms, "right_lower_leg", set(sparse)) == ("right_foot",)
    assert joined_children(ms, "left_upper_leg", set(sparse)) == ("left_lower_leg",)
    assert joined_children(ms, "right_foot", set(sparse)) is None  # six markers: not sparse
    req = [m for m in ms.required if m in sparse]
    tr = track(frame_df(sparse, t), cal, required=req)
    err = np.degrees(np.abs(_angles(tr.coords) - ang))[:, LEGS]
    assert err.max() < 1e-6, err.max()
    assert (tr.status[["right_lower_leg", "left_upper_leg"]] == "fit").all().all()
    noisy = {m: v for m, v in _noisy(markers, 0.002).items() if m not in SPARSE}
    seg = np.degrees(_angles(track(frame_df(noisy, t), cal, required=req).coords) - ang)[:, LEGS]
    glob = np.degrees(_angles(track_global(frame_df(noisy, t), cal, required=req).coords) - ang)[:, LEGS]
    rs, rg = np.sqrt(np.mean(seg**2, axis=0)), np.sqrt(np.mean(glob**2, axis=0))
    # measured: flexion 0.98 against 0.76 deg, largest 2.7 against 2.0 deg (axial rotations)
    assert rs[:, 0].max() < 1.4 * rg[:, 0].max() and rs.max() < 1.4 * rg.max(), (rs, rg)


def test_a_sparse_shank_under_a_full_thigh_recovers_noise_free_angles(setup):
    """Only the shanks' rear markers missing (thighs whole): each shank's knee is placed where the trial puts it
    between the full thigh and the shank's markers with its ankle (sparse_pairs), which on the model's own
    noise-free markers is the model's knee exactly, so every leg angle comes back exactly."""
    from humanbody.markers.tracking import sparse_pairs, trial_markers

    cal, t, ang, root, markers = setup
    drop = ("R.Shank.Rear", "L.Shank.Rear")
    sparse = {m: v for m, v in markers.items() if m not in drop}
    req = [m for m in cal.markerset.required if m in sparse]
    trial = frame_df(sparse, t)
    pairs = sparse_pairs(cal, *trial_markers(trial, cal.markerset, req))
    for seg in ("right_lower_leg", "left_lower_leg"):  # the knee (a joint of the shank with its parent)
        a, b = pairs[seg]
        np.testing.assert_allclose(a, cal.model.joint_offset[SEGMENT_NAMES.index(seg)], atol=1e-9)
        np.testing.assert_allclose(b, 0.0, atol=1e-9)
    tr = track(trial, cal, required=req)
    err = np.degrees(np.abs(_angles(tr.coords) - ang))[:, LEGS]
    assert err.max() < 1e-6, err.max()


def test_one_marker_less_per_leg_segment(setup):
    cal, t, ang, root, markers = setup
    sparse = {m: v for m, v in _noisy(markers, 0.002).items() if m not in SPARSE}
    ms = cal.markerset
    method, why = choose_method(ms, sparse, "auto")  # the shanks' joints complete them: segment fits
    assert method == "segments" and "right_lower_leg (2 + 2 joints)" in why, why
    assert choose_method(ms, markers, "auto")[0] == "segments"
    assert undetermined_segments(ms, sparse) == []
    req = [m for m in ms.required if m in sparse]
    err = np.degrees(_angles(track_global(frame_df(sparse, t), cal, required=req).coords) - ang)[:, LEGS]
    rms = np.sqrt(np.mean(err**2, axis=0))
    assert rms[:, 0].max() < 0.9 and rms.max() < 2.5, rms  # measured 0.86 and 2.25 deg
    # a shank with no marker left cannot be determined
    lost = {m: v for m, v in sparse.items() if not m.startswith("R.Shank")}
    assert undetermined_segments(ms, lost) == [("right_lower_leg", 2)]
    with pytest.raises(InputError, match="right_lower_leg"):
        track_global(frame_df(lost, t), cal, required=[])


def test_markers_missing_in_some_frames_are_left_out(setup):
    cal, t, ang, root, markers = setup
    gappy = {m: v.copy() for m, v in markers.items()}
    gappy["R.Heel"][50:80] = np.nan
    gappy["R.Shank.Front"][100:140] = np.nan
    tr = track_global(frame_df(gappy, t), cal)
    err = np.degrees(np.abs(_angles(tr.coords) - ang))[:, LEGS]
    assert err.max() < 2e-3
    res = tr.marker_residuals
    assert res["R.Heel"][50:80].isna().all() and res["R.Heel"][:50].notna().all()
    assert (tr.markers_used["right_lower_leg"][100:140] == 2).all()
    assert set(np.unique(tr.status["right_lower_leg"])) == {"fit"}


def test_analytic_gradient_and_gauss_newton_matrix_match_finite_differences():
    """g = J^T W r and H = J^T W J of the kernel against central differences of the cost.

    Increments are ground-frame rotation vectors at each joint (the kernel's
    ``_apply_step``); the neutral and hinge pulls are on, with S0 != I.
    """
    from humanbody._kernels import ik as kk

    rng = np.random.default_rng(5)
    n = 17
    parent = np.array([-1, 0, 1, 2, 3, 4, 2, 6, 2, 8, 9, 0, 11, 12, 0, 14, 15], dtype=np.int64)
    xi = rng.normal(0, 0.2, (n, 3))
    xi[0] = 0
    S0 = euler_to_matrix(rng.uniform(-0.3, 0.3, (n, 3)), "xyz")
    S = euler_to_matrix(rng.uniform(-1.0, 1.0, (n, 3)), "yxz")
    p = rng.normal(0, 1, 3)
    M = 40
    seg_of = rng.integers(0, n, M).astype(np.int64)
    local = rng.normal(0, 0.1, (M, 3))
    q = rng.normal(0, 1.0, (M, 3))
    q[3] = np.nan  # a missing marker is left out
    weight = rng.uniform(0.5, 2.0, M)
    lam = rng.uniform(0, 0.05, n)
    axis = np.zeros((n, 3))
    axis[:, 1] = 1.0
    hinge = np.where(np.arange(n) % 3 == 0, 0.03, 0.0)
    R, O = np.empty((n, 3, 3)), np.empty((n, 3))
    res = np.empty(M)

    def cost(step):
        Sn, pn = np.empty_like(S), np.empty(3)
        kk._forward(S, p, parent, xi, R, O)
        kk._apply_step(S, p, R, parent, base, step, Sn, pn, np.empty((3, 3)))
        Rn, On = np.empty_like(R), np.empty_like(O)
        kk._forward(Sn, pn, parent, xi, Rn, On)
        return kk._cost(Rn, On, Sn, q, weight, seg_of, local, S0, lam, axis, hinge, res)

    D = 3 + 3 * n
    base, first = kk.tree_order(parent)
    kk._forward(S, p, parent, xi, R, O)
    H, g = np.zeros((D, D)), np.empty(D)
    kk._normal_equations(R, O, S, q, weight, seg_of, local, parent, S0, lam, axis, hinge, base, first, H, g,
                         np.empty(n, dtype=np.int64), np.empty((n, 3)), np.empty((5, 3, 3)))
    H = np.tril(H) + np.tril(H, -1).T  # the kernel fills the lower triangle
    h = 1e-6
    fd = np.array([(cost(h * e) - cost(-h * e)) / (2 * h) for e in np.eye(D)])
    np.testing.assert_allclose(2 * g, fd, rtol=1e-6, atol=1e-8 * np.abs(fd).max())  # C = sum r^2: dC = 2 J^T r
    # H is the Gauss-Newton part: the exact Hessian minus the residual-curvature terms, so compare
    # on a zero-residual problem (q = the model's own marker positions, S0 = S)
    P = np.array([O[s] + R[s] @ c for s, c in zip(seg_of, local, strict=True)])
    q[:] = P
    S0[:] = S
    kk._normal_equations(R, O, S, q, weight, seg_of, local, parent, S0, lam, axis, hinge, base, first, H, g,
                         np.empty(n, dtype=np.int64), np.empty((n, 3)), np.empty((5, 3, 3)))
    H = np.tril(H) + np.tril(H, -1).T
    hess = np.empty((D, D))
    c0 = cost(np.zeros(D))
    h = 1e-4
    for i in range(D):
        for j in range(i, D):
            ei, ej = np.eye(D)[i] * h, np.eye(D)[j] * h
            hess[i, j] = hess[j, i] = (cost(ei + ej) - cost(ei - ej) - cost(ej - ei) + cost(-ei - ej)) / (4 * h * h)
    assert abs(c0) < 1e-20
    np.testing.assert_allclose(2 * H, hess, atol=2e-5 * np.abs(hess).max())
    # H lies in the envelope of the tree order, and the envelope Cholesky solves it as numpy does
    cols = np.arange(D)
    assert not np.any(np.tril(H)[cols[None, :] < first[:, None]])
    A = H + 1e-3 * np.eye(D)
    b = rng.normal(size=D)
    x = np.empty(D)
    assert kk._cholesky_solve(A.copy(), b, x, first)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-9, atol=1e-12)


def test_marker_set_weights_and_pulls_are_read(tmp_path):
    ms = load_markerset("gait2392")
    assert ms.weights["Sternum"] == 0.01 and "R.ASIS" not in ms.weights
    assert ms.ik["hinge"] == ["right_lower_leg", "left_lower_leg"]
    bad = tmp_path / "bad.toml"
    bad.write_text(open(ms.source).read().replace('"Sternum" = 0.01', '"Sternum" = -1', 1))
    with pytest.raises(InputError, match="bad.toml.*weight of marker 'Sternum'"):
        load_markerset(bad)
    with pytest.raises(InputError, match="^ik must be") as err:  # the Python caller is told the parameter
        choose_method(ms, [], "magic")
    assert str(err.value.on_command_line()).startswith("--ik must be auto")  # the command line, its flag


def test_problem_arrays_follow_the_calibration(setup):
    cal = setup[0]
    prob = ik_problem(cal)
    assert len(prob.names) == len(prob.seg_of) == len(prob.local) == len(prob.weight)
    k = prob.names.index("R.Heel")
    assert SEGMENT_NAMES[prob.seg_of[k]] == "right_foot"
    np.testing.assert_allclose(prob.local[k], cal.local["right_foot"]["R.Heel"])
    assert prob.lam[0] == 0.0 and (prob.lam[1:] > 0).all()
    assert prob.hinge[K["right_lower_leg"]] > 0 and prob.hinge[K["right_upper_leg"]] == 0


def test_command_line_global_and_auto(tmp_path):
    """``analyze --ik global`` on the sample walk; ``auto`` picks segment fits for the full set."""
    from pathlib import Path

    from humanbody.cli import main

    data = Path(__file__).resolve().parents[2] / "data"
    for ik in ("global", "auto"):
        out = tmp_path / ik
        log = tmp_path / f"{ik}.txt"
        import contextlib
        import io

        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                           "--out", str(out), "--ik", ik])
        assert status == 0
        log.write_text(err.getvalue())
        text = err.getvalue()
        if ik == "global":
            assert "tracking: whole-body inverse kinematics (--ik global)" in text
        else:
            assert "tracking: segment fits (auto: every tracked segment has three or more points)" in text


# --------------------------------------------------------------- shared walk
from tests.markers.test_opensim_agreement import DATA, _read_ground, same_time  # noqa: E402

walk_data = needs_shared


@pytest.fixture(scope="module")
def walk():
    import pandas as pd

    trial = _read_ground(DATA / "subject01_walk1.trc")
    cal = calibrate(_read_ground(DATA / "subject01_static.trc"), "gait2392", mass=72.6)
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    return trial, cal, ik, track_global(trial, cal)


@walk_data
@pytest.mark.parametrize("s,side", [("r", "right"), ("l", "left")])
def test_walk_sagittal_angles_follow_opensim_ik(walk, s, side):
    """Hip and knee flexion against OpenSim's IK over the 121 frames at the same time (measured r: hips
    0.994 / 0.997, knees 0.997 / 0.997; the segment fits' hips 0.989 / 0.993, knees 0.994 / 0.997)."""
    trial, cal, ik, tr = walk
    frames, part = same_time(tr.coords, ik)
    for ours, theirs, least in (("upper_leg", "hip_flexion", 0.99), ("lower_leg", "knee_angle", 0.99)):
        a = -np.degrees(tr.coords[f"{side}_{ours}_alpha"].to_numpy()[frames])
        r = np.corrcoef(a, part[f"{theirs}_{s}"].to_numpy())[0, 1]
        assert r >= least, (ours, r)
    # knee out-of-plane angles stay near their median: no crosstalk swings
    for q in ("beta", "gamma"):
        x = np.degrees(tr.coords[f"{side}_lower_leg_{q}"].to_numpy())
        assert np.abs(x - np.median(x)).max() < 10.0, q


@walk_data
def test_walk_without_one_marker_per_leg_segment(walk):
    """The clinical angles barely move when each thigh and shank loses a marker (<= 2 deg sagittal, 4 deg other)."""
    from humanbody.mechanics.clinical import clinical_angles

    trial, cal, ik, tr = walk
    sparse = trial.drop(columns=[f"{m}_{a}" for m in SPARSE for a in "xyz"])
    sparse.attrs = dict(trial.attrs, markers=[m for m in trial.attrs["markers"] if m not in SPARSE])
    req = [m for m in cal.markerset.required if m not in SPARSE]
    assert choose_method(cal.markerset, req, "auto")[0] == "segments"
    tr2 = track_global(sparse, cal, required=req)
    full, part = clinical_angles(cal.model, tr.coords, cal), clinical_angles(cal.model, tr2.coords, cal)
    cols = [c for c in full.columns if c.endswith("_deg") and "wrist" not in c]
    rms = {c: float(np.sqrt(np.mean((full[c] - part[c]) ** 2))) for c in cols}
    sagittal = [c for c in cols if "flexion" in c or "dorsiflexion" in c or "tilt" in c]
    assert max(rms[c] for c in sagittal) < 2.0, rms
    assert max(rms.values()) < 4.0, rms


def test_command_line_tolerates_missing_required_markers(tmp_path):
    """The sample walk without one shank marker per leg: tracked globally, the missing markers in the log."""
    import contextlib
    import importlib.util
    import io
    from pathlib import Path

    from humanbody.cli import main
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground

    data = Path(__file__).resolve().parents[2] / "data"
    spec = importlib.util.spec_from_file_location("msm", data / "make_sample_markers.py")
    msm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(msm)
    ground, _ = to_ground(read_trial(data / "sample_walk_markers.trc"))
    drop = ("R.Shank.Rear", "L.Shank.Rear")
    names = [m for m in ground.attrs["markers"] if m not in drop]
    pts = {m: ground[[f"{m}_x", f"{m}_y", f"{m}_z"]].to_numpy() for m in names}
    trc = tmp_path / "sparse.trc"
    msm.write_trc(trc, ground["time"].to_numpy(), pts, 100.0)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["analyze", str(trc), "--static", str(data / "sample_static.trc"), "--out", str(tmp_path / "o")])
    text = err.getvalue()
    assert status == 0, text
    assert "2 required marker(s) missing (R.Shank.Rear, L.Shank.Rear)" in text
    assert "segment fits (auto; fewer than three markers on right_lower_leg (2 + 2 joints)" in text, text
    # a shank with no marker left is refused, naming the segment
    pts = {m: v for m, v in pts.items() if not m.startswith("R.Shank")}
    msm.write_trc(trc, ground["time"].to_numpy(), pts, 100.0)
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["analyze", str(trc), "--static", str(data / "sample_static.trc"), "--out", str(tmp_path / "o")])
    assert status == 2
    assert "right_lower_leg" in err.getvalue() and err.getvalue().count("\n") == 1


# --------------------------------------------------------------- joint limits
def test_limits_within_range_change_nothing(setup):
    """The full-range motion lies inside the physiological table: limits on, the results are the same."""
    cal, t, ang, root, markers = setup
    from humanbody.markers.global_ik import PHYSIOLOGICAL_LIMITS, joint_limits

    lo, hi = joint_limits("physiological")
    deg = np.degrees(ang)
    for k in range(1, 17):  # the motion is inside every limit with a margin
        assert (deg[:, k] > np.degrees(lo[k]) + 1).all() and (deg[:, k] < np.degrees(hi[k]) - 1).all()
    assert set(PHYSIOLOGICAL_LIMITS) >= {"right_lower_leg", "left_upper_leg", "right_foot", "left_lower_arm"}
    for noisy in (markers, _noisy(markers, 0.002)):
        trial = frame_df(noisy, t)
        free = track_global(trial, cal, keep_frames=False)
        held = track_global(trial, cal, keep_frames=False, limits="physiological")
        np.testing.assert_allclose(held.coords.to_numpy(), free.coords.to_numpy(), rtol=0, atol=1e-9)


def test_a_joint_pushed_beyond_its_limit_stops_on_it(setup):
    """Knee flexion limited to 60 deg on a trial reaching 150: held on 60; frames inside the limits unchanged."""
    cal, t, ang, root, markers = setup
    kr = K["right_lower_leg"]
    # the knee's other two angles held near their true 0: one angle limited alone can be dodged through the
    # others (at 60 deg of flexion a shank reaches its markers through (alpha + 180, 180 - beta, gamma + 180)),
    # and with them free the best pose within the limits need not have flexion on its limit
    limits = {"right_lower_leg": {"alpha": [-10.0, 60.0], "beta": [-0.5, 0.5], "gamma": [-0.5, 0.5]},
              "left_foot": {"alpha": [-30.0, 30.0], "beta": [-10.0, 10.0], "gamma": [-5.0, 5.0]}}
    tr = track_global(frame_df(markers, t), cal, limits=limits)
    got = np.degrees(_angles(tr.coords))
    true = np.degrees(ang)
    lf = K["left_foot"]
    for k, j, lim in ((kr, 0, 60.0), (lf, 0, 30.0), (lf, 1, 10.0)):
        assert (np.abs(true[:, k, j]) > lim).sum() > 50
        assert np.abs(got[:, k, j]).max() <= lim + 1e-9  # never beyond
    over = true[:, kr, 0] > 60.0
    err = np.abs(got[over, kr, 0] - 60.0)  # on the limit where the markers push beyond it
    assert err.max() < 0.01, err.max()
    # frames well inside the limits come back as without limits (to the solver's tolerance)
    inside = (true[:, kr, 0] < 55.0) & (np.abs(true[:, lf, 0]) < 25.0) & (np.abs(true[:, lf, 1]) < 8.0)
    # (compared as rotations: after frames on a limit, continuity may pick the equivalent angle branch)
    seqs = cal.model.sequences
    for k in range(17):
        np.testing.assert_allclose(euler_to_matrix(np.radians(got[inside, k]), seqs[k]),
                                   euler_to_matrix(np.radians(true[inside, k]), seqs[k]), atol=5e-5)


def test_limit_tables_are_checked(tmp_path):
    from humanbody.markers.global_ik import joint_limits

    lo, hi = joint_limits(None)
    assert np.isinf(lo).all() and np.isinf(hi).all()
    lo, hi = joint_limits({"right_lower_leg": {"alpha": [0, float("nan")]}})
    assert lo[K["right_lower_leg"], 0] == 0.0 and np.isinf(hi[K["right_lower_leg"], 0])
    for bad, match in (("loose", "physiological"), ({"lower_torso": {"alpha": [0, 1]}}, "not a segment"),
                       ({"right_knee": {"alpha": [0, 1]}}, "not a segment"),
                       ({"right_lower_leg": {"delta": [0, 1]}}, "alpha, beta or gamma"),
                       ({"right_lower_leg": {"alpha": [10, 0]}}, "above upper"),
                       ({"right_lower_leg": {"alpha": "wide"}}, "lower, upper")):
        with pytest.raises(InputError, match=match):
            joint_limits(bad, "set")
    # a marker set asks for them in its [ik] section
    ms = load_markerset("gait2392")
    toml = tmp_path / "limited.toml"
    toml.write_text(open(ms.source).read().replace("[ik]\n", '[ik]\nlimits = "physiological"\n', 1))
    st = static_markers()
    cal = calibrate(frame_df({k: v + np.zeros((5, 3)) for k, v in st.items()}, np.arange(5) / 60), str(toml),
                    mass=70.0, base_model=_model())
    prob = ik_problem(cal)
    assert np.isfinite(prob.hi[K["right_lower_leg"]]).all() and np.isinf(prob.hi[0]).all()


def test_joint_limits_from_the_command_line(tmp_path, monkeypatch):
    """``analyze --joint-limits physiological``: the sample walk stays inside the ranges, so nothing moves;
    with a table that it leaves, the option reaches the fit."""
    import contextlib
    import io
    from pathlib import Path

    import pandas as pd

    from humanbody.cli import main

    data = Path(__file__).resolve().parents[2] / "data"
    tables = {}
    for limits in ("off", "physiological"):
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            status = main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                           "--out", str(tmp_path / limits), "--ik", "global", "--joint-limits", limits])
        assert status == 0, err.getvalue()
        tables[limits] = pd.read_csv(next((tmp_path / limits).glob("*_results.csv")))
    cols = [c for c in tables["off"].columns if c.endswith(("_alpha", "_beta", "_gamma"))]
    assert cols
    np.testing.assert_allclose(tables["physiological"][cols], tables["off"][cols], rtol=0, atol=1e-9)
    import humanbody.markers.global_ik as gik

    knee = np.degrees(tables["off"]["right_lower_leg_alpha"])
    assert knee.max() > 40.0
    monkeypatch.setattr(gik, "PHYSIOLOGICAL_LIMITS", {"right_lower_leg": {"alpha": (-10.0, 30.0), "beta": (-45, 45),
                                                                          "gamma": (-45, 45)}})
    with contextlib.redirect_stderr(io.StringIO()):
        assert main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                     "--out", str(tmp_path / "tight"), "--ik", "global", "--joint-limits", "physiological"]) == 0
    tight = pd.read_csv(next((tmp_path / "tight").glob("*_results.csv")))
    assert np.degrees(tight["right_lower_leg_alpha"]).max() <= 30.0 + 1e-6


def test_limit_penalty_gradient_matches_finite_differences():
    """The joint-limit term's g = J^T r and Gauss-Newton block against central differences of its cost.

    Random relative rotations in the model's sequences (root zxy, the others yxz) with limits that half the
    angles violate; increments are the kernel's ground-frame rotation vectors at each joint.
    """
    from humanbody._kernels import ik as kk
    from humanbody.model.segments import DEFAULT_SEQUENCES

    rng = np.random.default_rng(8)
    n = 17
    parent = np.array([-1, 0, 1, 2, 3, 4, 2, 6, 2, 8, 9, 0, 11, 12, 0, 14, 15], dtype=np.int64)
    seq = np.array([["xyz".index(c) for c in s] for s in DEFAULT_SEQUENCES], dtype=np.int64)
    ang = rng.uniform(-1.0, 1.0, (n, 3))
    ang[:, 1] = rng.uniform(-0.8, 0.8, n)  # away from the singular set
    S = np.stack([euler_to_matrix(ang[k], DEFAULT_SEQUENCES[k]) for k in range(n)])
    lo = ang - rng.uniform(-0.3, 0.3, (n, 3))  # about half the angles below their lower or above their upper limit
    hi = lo + rng.uniform(0.0, 0.2, (n, 3))
    lo[0], hi[0] = -np.inf, np.inf
    wl = 7.0
    limited = np.ones(n, dtype=np.bool_)
    limited[0] = False
    xi = rng.normal(0, 0.2, (n, 3))
    p = np.zeros(3)
    R, O = np.empty((n, 3, 3)), np.empty((n, 3))
    kk._forward(S, p, parent, xi, R, O)
    base, first = kk.tree_order(parent)
    D = 3 + 3 * n
    rows = np.empty((4, 3))

    def cost(step):
        Sn, pn = np.empty_like(S), np.empty(3)
        kk._apply_step(S, p, R, parent, base, step, Sn, pn, np.empty((3, 3)))
        return kk._limit_cost(Sn, seq, lo, hi, wl, limited, rows)

    # the angles the kernel reads back are the ones we built
    for k in range(1, n):
        assert abs(kk._limit_rows(S, k, seq, rows)) > kk._LIMIT_DET
        np.testing.assert_allclose(rows[0], ang[k], atol=1e-12)
    H, g = np.zeros((D, D)), np.zeros(D)
    kk._limit_terms(S, R, parent, seq, lo, hi, wl, limited, base, H, g, rows)
    assert cost(np.zeros(D)) > 0 and np.abs(g).max() > 0
    h = 1e-6
    fd = np.array([(cost(h * e) - cost(-h * e)) / (2 * h) for e in np.eye(D)])
    np.testing.assert_allclose(2 * g, fd, rtol=1e-6, atol=1e-7 * np.abs(fd).max())
    # Gauss-Newton block: wl J^T J over the violated angles, each row J = dtheta/ddelta checked against
    # central differences of the angle itself
    J = np.zeros((0, D))
    for k in range(1, n):
        kk._limit_rows(S, k, seq, rows)
        at = rows.copy()
        for j in range(3):
            if kk._violation(at[0, j], lo[k, j], hi[k, j]) != 0.0:
                Rl = R[parent[k]]
                row = np.zeros(D)
                row[base[k]:base[k] + 3] = Rl @ at[1 + j]
                e = np.zeros(D)
                e[base[k]:base[k] + 3] = rng.normal(size=3)
                e *= 1e-7 / np.abs(e).max()
                Sp, Sm, pp = np.empty_like(S), np.empty_like(S), np.empty(3)
                kk._apply_step(S, p, R, parent, base, e, Sp, pp, np.empty((3, 3)))
                kk._apply_step(S, p, R, parent, base, -e, Sm, pp, np.empty((3, 3)))
                ap = kk._limit_rows(Sp, k, seq, rows) and rows[0, j].copy()
                am = kk._limit_rows(Sm, k, seq, rows) and rows[0, j].copy()
                np.testing.assert_allclose((ap - am) / 2, row @ e, rtol=1e-4, atol=1e-15)
                J = np.vstack([J, row])
    np.testing.assert_allclose(H, wl * J.T @ J, atol=1e-9 * np.abs(H).max())


def test_forced_segment_fits_refuse_segments_with_fewer_than_three_points(setup):
    """--ik segments on a trial where a segment keeps fewer than three points even with its joints (one shank
    marker, a foot of two markers that cannot place the ankle): its pose would be its parent's, the knee angle
    frozen, so it is refused naming it, not run.  Two markers per shank are completed by the knee and the
    ankle: segment fits."""
    cal, t, ang, root, markers = setup
    keep_foot = ("R.Heel", "R.Toe.Tip")
    sparse = {m: v for m, v in markers.items() if m not in SPARSE and m not in ("R.Shank.Front",)
              and not (m.startswith("R.") and m[2:6] in ("Toe.", "Midf", "Heel") and m not in keep_foot)}
    ms = cal.markerset
    with pytest.raises(InputError, match=r"^ik segments.*right_lower_leg \(1\).*`ik` global") as err:
        choose_method(ms, sparse, "segments")
    assert re.match(r"--ik segments.*right_lower_leg \(1\).*--ik global", str(err.value.on_command_line()))
    assert choose_method(ms, sparse, "auto")[0] == "global"
    assert undetermined_segments(ms, sparse) == []
    assert choose_method(ms, markers, "segments") == ("segments", "--ik segments")
    two = {m: v for m, v in markers.items() if m not in SPARSE}
    assert choose_method(ms, two, "segments")[0] == "segments"
    assert choose_method(ms, sparse, "global") == ("global", "--ik global")

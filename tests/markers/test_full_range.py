"""The whole physiological range through the marker pipeline, with the default
(flexion-first) rotation sequences.

Synthetic marker trials are made from a designed subject (the marker layout of
test_tracking) moved through deep knee flexion (0-150 deg), hip flexion from
-20 to 120 deg with 20 deg of adduction and rotation, ankles +-40 deg, arms
raised overhead and a shoulder swept through its singular set.  Tracking must
give back the angles (noise-free: to rounding; 1 mm noise: within 1.5 deg
RMS), never jump, report the frames near a singular set, and the mechanics
computed from the tracked angles must stay continuous and close to those of
the exact motion.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.markers.calibration import calibrate
from humanbody.markers.tracking import track
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.model.segments import DEFAULT_SEQUENCES, PARENTS, SEGMENT_NAMES
from humanbody.rotations import euler_to_matrix
from tests.markers.test_tracking import CLUSTERS, base_model, frame_df, origins, static_markers

RATE = 120.0
K = {s: SEGMENT_NAMES.index(s) for s in SEGMENT_NAMES}


def _model():
    return base_model().replace(sequences=DEFAULT_SEQUENCES)


def full_range_angles(t):
    """Angles (F, 17, 3), rates and accelerations (rad, rad/s, rad/s^2) in the default sequences.

    Every angle is ``c + a sin(w t + p)``, so the rates are exact.
    """
    spec = np.zeros((17, 3, 4))  # c, a, w, p (deg, deg, rad/s, rad)
    T = t[-1] - t[0]
    w1 = 2 * np.pi / T  # one slow cycle over the trial
    for side, p in (("right", 0.0), ("left", np.pi)):
        sgn = 1.0 if side == "right" else -1.0
        spec[K[f"{side}_lower_leg"], 0] = (75.0, -75.0, w1, p + np.pi / 2)      # knee flexion 0..150
        spec[K[f"{side}_upper_leg"], 0] = (-50.0, 70.0, w1, p)                  # hip flexion -20..120
        spec[K[f"{side}_upper_leg"], 1] = (0.0, sgn * 20.0, 2 * w1, p)          # adduction +-20
        spec[K[f"{side}_upper_leg"], 2] = (0.0, sgn * 20.0, 3 * w1, p + 1.0)    # rotation +-20
        spec[K[f"{side}_foot"], 0] = (0.0, 40.0, 2 * w1, p)                     # ankle +-40
        spec[K[f"{side}_foot"], 1] = (0.0, 15.0, 3 * w1, p)
        spec[K[f"{side}_lower_arm"], 0] = (-70.0, 60.0, w1, p)                  # elbow flexion 10..130
    spec[K["right_upper_arm"], 0] = (-85.0, 85.0, w1, np.pi / 2)                # shoulder flexion 0..170 (overhead)
    spec[K["right_upper_arm"], 1] = (0.0, 10.0, 2 * w1, 0.0)
    spec[K["left_upper_arm"], 0] = (0.0, 15.0, 3 * w1, 0.0)
    spec[K["left_upper_arm"], 1] = (50.0, 52.0, w1, -np.pi / 2)                 # abduction -2..102: through 90
    spec[K["left_upper_arm"], 2] = (0.0, 20.0, 2 * w1, 0.3)
    spec[K["lower_torso"], 0] = (0.0, 30.0, w1, 0.0)                            # heading
    spec[K["lower_torso"], 1] = (0.0, 8.0, 2 * w1, 0.0)                         # obliquity
    spec[K["lower_torso"], 2] = (10.0, 25.0, w1, 0.5)                           # tilt (squat)
    spec[K["middle_torso"], 0] = (10.0, 10.0, w1, 0.0)
    spec[K["middle_torso"], 2] = (0.0, 8.0, 2 * w1, 0.0)
    spec[K["neck"], 0] = (-5.0, 10.0, 2 * w1, 0.0)
    c, a, w, p = (np.radians(spec[..., 0]), np.radians(spec[..., 1]), spec[..., 2], spec[..., 3])
    arg = w * t[:, None, None] + p
    ang, rate, acc = c + a * np.sin(arg), a * w * np.cos(arg), -a * w * w * np.sin(arg)
    for x in (ang, rate, acc):  # the marker set's rules: slerped middle torso and head, rigid hands
        x[:, K["upper_torso"]] = x[:, K["middle_torso"]]
        x[:, K["head"]] = x[:, K["neck"]]
        x[:, K["left_hand"]] = x[:, K["right_hand"]] = 0.0
    return ang, rate, acc


def move(static, ang, root, seqs):
    """Markers of the designed subject moved by angles in each segment's sequence."""
    o = origins()
    R = np.empty(ang.shape[:2] + (3, 3))
    O = np.empty(ang.shape[:2] + (3,))
    for k, seg in enumerate(SEGMENT_NAMES):
        S = euler_to_matrix(ang[:, k], seqs[k])
        L = PARENTS[k]
        if L == 0:
            R[:, k], O[:, k] = S, root
        else:
            R[:, k] = R[:, L - 1] @ S
            O[:, k] = O[:, L - 1] + R[:, L - 1] @ (o[seg] - o[SEGMENT_NAMES[L - 1]])
    out = {}
    for seg, names in CLUSTERS.items():
        k = K[seg]
        for m in names:
            out[m] = O[:, k] + R[:, k] @ (static[m] - o[seg])
    return {m: v for m, v in out.items() if ".Knee." not in m and ".Ankle." not in m}


def full_range_walk(seconds: float, drop: float = 0.25):
    """The full-range motion the tracking tests share: the static markers' calibration (gait2392 set, 70 kg),
    ``seconds`` of :func:`full_range_angles` at :data:`RATE`, the root travelling 0.3 m/s, swaying 5 cm and
    crouching ``drop`` m mid-trial (m), and the markers that motion carries.

    Returns
    -------
    cal, t (s), (angles, rates, accelerations) of :func:`full_range_angles`, root (F, 3) m, markers {name: (F, 3)}
    """
    model = _model()
    st = static_markers()
    cal = calibrate(frame_df({k: v + np.zeros((5, 3)) for k, v in st.items()}, np.arange(5) / 60),
                    "gait2392", mass=70.0, base_model=model)
    t = np.arange(int(seconds * RATE)) / RATE
    angles = full_range_angles(t)
    root = np.c_[0.3 * t, 0.05 * np.sin(t), 0.95 - drop * (1 - np.cos(2 * np.pi * t / t[-1]))]
    return cal, t, angles, root, move(st, angles[0], root, model.sequences)


@pytest.fixture(scope="module")
def setup():
    cal, t, (ang, rate, acc), root, markers = full_range_walk(5.0)
    return cal, t, ang, rate, acc, root, markers


def _angles(coords):
    return np.stack([coords[[f"{s}_alpha", f"{s}_beta", f"{s}_gamma"]].to_numpy() for s in SEGMENT_NAMES], axis=1)


def test_the_motion_spans_the_physiological_range(setup):
    cal, t, ang, *_ = setup
    deg = np.degrees(ang)
    assert deg[:, K["right_lower_leg"], 0].max() > 149.9                      # knee flexion 150
    assert -deg[:, K["right_upper_leg"], 0].max() < -19.9 and -deg[:, K["right_upper_leg"], 0].min() > 119.9
    assert -deg[:, K["right_upper_arm"], 0].min() > 169.9                     # arm overhead
    assert deg[:, K["left_upper_arm"], 1].max() > 100                         # abduction through 90


def test_noise_free_angles_come_back_to_rounding(setup):
    cal, t, ang, rate, acc, root, markers = setup
    tr = track(frame_df(markers, t), cal)
    got = _angles(tr.coords)
    near = tr.near_singular["left_upper_arm"]
    far = np.ones(len(t), bool)
    far[near] = False
    err = np.degrees(np.abs(got - ang))
    assert err[:, [k for k in range(17) if k != K["left_upper_arm"]]].max() < 1e-6
    # the arm abducted beyond 90 deg keeps its angles: the middle angle leaves [-90, 90] rather than
    # the first and third jumping by 180 deg
    assert err[far, K["left_upper_arm"]].max() < 1e-6
    assert np.degrees(got[:, K["left_upper_arm"], 1]).max() > 100
    # near the singular set the split of first and third angles is ill-conditioned; the rotation is exact
    S_got = euler_to_matrix(got[:, K["left_upper_arm"]], "yxz")
    S_true = euler_to_matrix(ang[:, K["left_upper_arm"]], "yxz")
    np.testing.assert_allclose(S_got, S_true, atol=1e-9)
    assert np.degrees(np.abs(np.diff(got[:, K["left_upper_arm"]], axis=0))).max() < 5.0
    np.testing.assert_allclose(tr.coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]], root, atol=1e-9)


def test_frames_near_a_singular_set_are_reported(setup):
    cal, t, ang, rate, acc, root, markers = setup
    tr = track(frame_df(markers, t), cal)
    assert set(tr.near_singular) == {"left_upper_arm"}
    true_near = np.abs(np.degrees(ang[:, K["left_upper_arm"], 1]) - 90.0) < 10.0
    np.testing.assert_array_equal(tr.near_singular["left_upper_arm"], true_near)
    (line,) = tr.singular_lines()
    assert line.startswith("left_upper_arm: within 10 deg of the singular set") and f"{true_near.sum()} frame" in line


def test_one_millimetre_noise(setup):
    cal, t, ang, rate, acc, root, markers = setup
    rng = np.random.default_rng(11)
    noisy = {m: v + rng.normal(0, 0.001, v.shape) for m, v in markers.items()}
    got = _angles(track(frame_df(noisy, t), cal).coords)
    err = np.degrees(got - ang)
    legs = [K[s] for s in SEGMENT_NAMES if "leg" in s or "foot" in s] + [K["lower_torso"]]
    rms = np.sqrt(np.mean(err[:, legs] ** 2, axis=0))
    assert rms.max() < 1.5, rms
    # out-of-plane angles never jump or fold: no frame is far from the truth (1 mm noise on
    # 6-10 cm clusters moves single frames by a few degrees)
    assert np.abs(err[:, legs]).max() < 8.0, np.abs(err[:, legs]).max()
    arm = np.abs(err[:, K["right_upper_arm"]])
    assert arm.max() < 8.0, arm.max()


def test_mechanics_of_the_tracked_motion_stay_continuous_and_close(setup):
    """Angular velocities and accelerations from the tracked (noise-free) angles, differentiated
    through Euler parameters, against the exact motion: close everywhere, the singular passage included."""
    cal, t, ang, rate, acc, root, markers = setup
    coords = track(frame_df(markers, t), cal).coords
    model = cal.model
    res = hb.compute(model, coords)
    cols = coordinate_columns(model)
    data = {"time": t}
    for i, c in enumerate(cols):
        k, j = (i - 3) // 3, (i - 3) % 3
        if i < 3:
            v = root[:, i]
            data[c], data[c + "_dot"], data[c + "_ddot"] = v, np.gradient(v, t), np.gradient(np.gradient(v, t), t)
        else:
            data[c], data[c + "_dot"], data[c + "_ddot"] = ang[:, k, j], rate[:, k, j], acc[:, k, j]
    ref = hb.compute(model, pd.DataFrame(data))
    inner = slice(30, -30)  # the differentiation's end effects
    for name, tol in (("omega", 0.01), ("alpha", 0.05)):
        got, want = getattr(res, name)[inner], getattr(ref, name)[inner]
        scale = np.abs(want).max()
        assert np.abs(got - want).max() < tol * scale, (name, np.abs(got - want).max(), scale)
        assert np.isfinite(got).all()

"""Joint angles tracked from the shared gait2392 walk against OpenSim IK.

OpenSim's inverse kinematics (reference/opensim_ik.mot, degrees) fits the
gait2392 model with joint constraints; we fit each segment on its own, so
the curves differ by offsets (different anatomical frames) and by a little
skin-motion noise.  Compared over the frames the two files share on one clock
(0.5-2.5 s, 121 frames; ``same_time``): Pearson r and the RMS difference
after removing each curve's mean ("centred RMS").

Mapping (the default model's flexion-first sequence y-x-z of the child
relative to the parent; alpha is the rotation about the parent's y axis =
medio-lateral, positive left): hip_flexion = -alpha(upper_leg), knee_angle
(OpenSim: negative in flexion) = -alpha(lower_leg), ankle_angle
(dorsiflexion positive) = -alpha(foot).
"""


import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

DATA = WALK

pytestmark = needs_shared

# OpenSim column -> (our column, sign)
MAPPING = {
    "hip_flexion_{s}": ("{side}_upper_leg_alpha", -1.0),
    "knee_angle_{s}": ("{side}_lower_leg_alpha", -1.0),
    "ankle_angle_{s}": ("{side}_foot_alpha", -1.0),
}


def _read_ground(path):
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground

    df, _ = to_ground(read_trial(path), "x,-z,y")  # TRC: X forward, Y up, Z right
    return df


def _base_model():
    try:
        from humanbody.model.body import default_model  # noqa: F401
        return None  # calibrate uses it
    except ImportError:
        from tests.markers.test_tracking import base_model

        return base_model()


@pytest.fixture(scope="module")
def tracked():
    from humanbody.markers.tracking import markers_to_coordinates

    walk = _read_ground(DATA / "subject01_walk1.trc")
    static = _read_ground(DATA / "subject01_static.trc")
    coords, cal, tr = markers_to_coordinates(walk, static=static, mass=72.6, base_model=_base_model())
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    return coords, cal, tr, ik


RATE = 60.0  # Hz, the walk's and the IK file's sampling rate
MIN_OVERLAP = 60  # frames (1 s, most of a stride): the shortest overlap a candidate shift may leave


def overlap(coords, ik, shift: float = 0.0):
    """Our frames and OpenSim's IK rows that share a time, with IK time = our time + ``shift`` (s).

    Returns ``(frames, part)``: ``frames`` (n,) the indices of our rows inside the IK file's time
    range, ``part`` the IK rows at those times (n rows, index 0..n-1), matched to the nearest IK
    sample (within half a sample: the TRC writes its times to 1 ms).
    """
    t = coords["time"].to_numpy() + shift
    ti = ik["time"].to_numpy()
    dt = float(np.median(np.diff(ti)))
    i = np.rint((t - ti[0]) / dt).astype(int)
    ok = (i >= 0) & (i < len(ti))
    ok[ok] = np.abs(ti[i[ok]] - t[ok]) < 0.5 * dt
    return np.flatnonzero(ok), ik.iloc[i[ok]].reset_index(drop=True)


def same_time(coords, ik):
    """Our frames and OpenSim's IK rows at the same time: the two files share one clock.

    The TRC runs 0-2.5 s and the IK file 0.5-4.0 s, so they overlap over 0.5-2.5 s (121 frames).
    Same clock, no shift: among all shifts that leave at least ``MIN_OVERLAP`` frames of overlap,
    shift 0 best superposes our root O_1 on OpenSim's pelvis translation (5.8 mm RMS after removing
    means, against 16.7 mm one stride later, IK time = ours + 1.233 s, the best shift with a full
    151-frame overlap: treadmill gait is nearly periodic) and gives the highest hip and knee flexion
    r (``test_time_alignment``); the ground reactions are on the TRC's time base, and OpenSim's
    inverse dynamics, on that base too, agrees with ours best without a shift (docs/kinetics.md).
    Returns ``overlap(coords, ik, 0.0)``.
    """
    return overlap(coords, ik, 0.0)


def candidate_shifts(coords, ik):
    """Shifts (s, whole samples) for which IK time = our time + shift leaves >= ``MIN_OVERLAP`` frames."""
    n, m = len(coords), len(ik)
    first = round((ik["time"].iloc[0] - coords["time"].iloc[0]) * RATE)  # IK row 0 at our frame `first` when shift 0
    ks = range(first - (n - MIN_OVERLAP), first + m - MIN_OVERLAP + 1)
    return [k / RATE for k in ks if len(overlap(coords, ik, k / RATE)[0]) >= MIN_OVERLAP]


def pelvis_mismatch(coords, ik, shift: float = 0.0) -> float:
    """RMS distance (m) of our root O_1 from OpenSim's pelvis translation over the overlap, means removed."""
    frames, part = overlap(coords, ik, shift)
    ours = coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]].to_numpy()[frames]
    theirs = np.c_[part.pelvis_tx, -part.pelvis_tz, part.pelvis_ty]  # OpenSim ground -> ours
    d = ours - theirs
    d -= d.mean(axis=0)
    return float(np.sqrt((d**2).sum(axis=1).mean()))


def flexion_r(coords, ik, shift: float = 0.0) -> float:
    """Mean Pearson r of hip and knee flexion (both sides) with OpenSim's IK over the overlap."""
    frames, part = overlap(coords, ik, shift)
    rs = []
    for s, side in (("r", "right"), ("l", "left")):
        for col in ("hip_flexion_{s}", "knee_angle_{s}"):
            ours, sign = MAPPING[col]
            a = sign * coords[ours.format(side=side)].to_numpy()[frames]
            rs.append(np.corrcoef(a, part[col.format(s=s)].to_numpy())[0, 1])
    return float(np.mean(rs))


def compare(coords, ik):
    """Pearson r and centred RMS (deg) per OpenSim column, over the frames at the same time."""
    out = {}
    frames, part = same_time(coords, ik)
    for s, side in (("r", "right"), ("l", "left")):
        for col, (ours, sign) in MAPPING.items():
            a = sign * np.degrees(coords[ours.format(side=side)].to_numpy()[frames])
            b = part[col.format(s=s)].to_numpy()
            r = np.corrcoef(a, b)[0, 1]
            rms = np.sqrt(np.mean(((a - a.mean()) - (b - b.mean())) ** 2))
            out[col.format(s=s)] = (r, rms)
    return out


def test_same_time_overlap(tracked):
    """The two files overlap over 0.5-2.5 s: 121 frames, each matched to the IK row of its own time."""
    coords, cal, tr, ik = tracked
    frames, part = same_time(coords, ik)
    assert len(frames) == 121 and frames[0] == 30 and frames[-1] == 150
    np.testing.assert_allclose(part["time"].to_numpy(), coords["time"].to_numpy()[frames], atol=1e-3)


def test_time_alignment(tracked):
    """Shift 0 is the best match among every shift leaving >= 60 frames of overlap, by the pelvis path
    (5.8 mm; 16.7 mm at the full-overlap alias one stride later, IK time = ours + 1.233 s) and by hip and
    knee flexion r."""
    coords, cal, tr, ik = tracked
    shifts = candidate_shifts(coords, ik)
    assert min(shifts) < -0.5 and max(shifts) > 1.5 and 0.0 in shifts
    cost = [pelvis_mismatch(coords, ik, s) for s in shifts]
    assert shifts[int(np.argmin(cost))] == 0.0
    assert pelvis_mismatch(coords, ik, 0.0) < 0.007
    alias = pelvis_mismatch(coords, ik, 74 / RATE)  # the full-overlap best, one stride later
    assert alias > 2 * pelvis_mismatch(coords, ik, 0.0) and alias == min(
        c for s, c in zip(shifts, cost, strict=True) if len(overlap(coords, ik, s)[0]) == len(coords))
    rs = [flexion_r(coords, ik, s) for s in shifts]
    assert shifts[int(np.argmax(rs))] == 0.0


@pytest.mark.parametrize("s", ["r", "l"])
def test_sagittal_angles_agree_with_opensim(tracked, s):
    """Over the 121 frames at the same time (measured r: hips 0.989 / 0.993, knees 0.994 / 0.997,
    ankles 0.948 / 0.894; centred RMS 1.9-2.8 deg)."""
    coords, cal, tr, ik = tracked
    res = compare(coords, ik)
    for joint in ("hip_flexion", "knee_angle"):
        r, rms = res[f"{joint}_{s}"]
        assert r >= 0.98 and rms <= 3.5, (joint, s, r, rms)
    r, rms = res[f"ankle_angle_{s}"]
    assert r >= 0.85 and rms <= 3.5, (s, r, rms)


def test_tracking_quality_on_walk(tracked):
    coords, cal, tr, ik = tracked
    assert cal.markerset.name == "gait2392"
    assert 1.70 < cal.height < 1.85
    assert np.isfinite(coords.drop(columns="time").to_numpy()).all()
    for seg in ("right_lower_leg", "left_lower_leg", "right_foot", "left_foot"):
        assert np.median(tr.residuals[seg]) < 0.005, seg
    # the pelvis residual includes the two hip centres its thighs see (child_joints): skin motion of
    # the thigh clusters adds to it
    assert np.median(tr.residuals["lower_torso"]) < 0.010
    # static pose: legs nearly straight, knee and hip flexion within 10 degrees
    for seg in ("right_upper_leg", "left_upper_leg", "right_lower_leg", "left_lower_leg"):
        assert abs(np.degrees(cal.static_angles[seg][0])) < 10, seg

"""Joint angles tracked from the shared gait2392 walk against OpenSim IK.

OpenSim's inverse kinematics (reference/opensim_ik.mot, degrees) fits the
gait2392 model with joint constraints; we fit each segment on its own, so
the curves differ by offsets (different anatomical frames) and by a little
skin-motion noise.  Compared: Pearson r and the RMS difference after
removing each curve's mean ("centred RMS").

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
    from humanbody.markers.axes import to_ground

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


def align(coords, ik) -> int:
    """Row of the IK file matching our first frame, from the pelvis path alone.

    The shared TRC was re-timed to start at 0 while the IK file starts at
    0.5 s of a longer recording, so times cannot be matched directly; the
    shift (whole frames, same 60 Hz) is the one that best superposes our
    root position O_1 on OpenSim's pelvis translation after removing means.
    """
    ours = coords[["lower_torso_x", "lower_torso_y", "lower_torso_z"]].to_numpy()
    theirs = np.c_[ik.pelvis_tx, -ik.pelvis_tz, ik.pelvis_ty]  # OpenSim ground -> ours
    n = len(ours)
    cost = []
    for s in range(len(theirs) - n + 1):
        d = ours - theirs[s : s + n]
        d -= d.mean(axis=0)
        cost.append(np.sqrt((d**2).sum(axis=1).mean()))
    return int(np.argmin(cost))


def compare(coords, ik, shift):
    out = {}
    part = ik.iloc[shift : shift + len(coords)]
    for s, side in (("r", "right"), ("l", "left")):
        for col, (ours, sign) in MAPPING.items():
            a = sign * np.degrees(coords[ours.format(side=side)].to_numpy())
            b = part[col.format(s=s)].to_numpy()
            r = np.corrcoef(a, b)[0, 1]
            rms = np.sqrt(np.mean(((a - a.mean()) - (b - b.mean())) ** 2))
            out[col.format(s=s)] = (r, rms)
    return out


def test_time_alignment(tracked):
    coords, cal, tr, ik = tracked
    shift = align(coords, ik)
    assert ik.time.iloc[shift] == pytest.approx(1.2333, abs=0.02)


@pytest.mark.parametrize("s", ["r", "l"])
def test_sagittal_angles_agree_with_opensim(tracked, s):
    coords, cal, tr, ik = tracked
    res = compare(coords, ik, align(coords, ik))
    for joint in ("hip_flexion", "knee_angle"):
        r, rms = res[f"{joint}_{s}"]
        assert r >= 0.95 and rms <= 5.0, (joint, s, r, rms)
    r, rms = res[f"ankle_angle_{s}"]
    assert abs(r) >= 0.8, (s, r, rms)


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

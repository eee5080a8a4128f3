"""Elbows from OpenCap's markers: a synthetic arm seen through OpenCap's layout.

OpenCap's augmented markers put two points on each elbow (lateral and medial epicondyle, riding the humerus) and
two on each wrist (radial and ulnar styloid).  The forearm here moves as a real one: the ulna hinges at the elbow
about the epicondyle axis with a carrying angle (5 deg on the right, 20 deg on the left: asymmetric), and the
radius pronates and supinates about the line from the elbow to the ulnar styloid, so the radial styloid (and the
midpoint of the two wrist markers) orbits that line while the ulnar styloid stays on the ulna.  The shoulder
markers ride the thorax, as in OpenCap's model.

The built-in ``opencap`` set takes the forearm's long axis from the elbow centre to the ulnar styloid (the
pronation axis) and its y axis from the styloids: flexion and pronation are then the forearm's own rotations and
elbow flexion comes back exactly (measured: r 1.0000, 0.04 deg RMS about the mean on both sides).  With the axis
through the midpoint of the wrist markers, pronation tilted the fitted forearm: r 0.969 right and 0.972 left,
2.6-2.7 deg RMS about the mean on elbows flexing 15-45 deg.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.analysis import analyze_trial
from tests.markers.test_keypoints import DATA, MK, opencap_layout

FRAMES = 400
CARRY = {"right": 5.0, "left": 20.0}  # degrees of valgus


def _rotation(axis, angle):
    """Rotation matrices (F, 3, 3) about the fixed ``axis`` by the angles (F,) rad (Rodrigues)."""
    n = np.asarray(axis, dtype=float) / np.linalg.norm(axis)
    K = np.array([[0.0, -n[2], n[1]], [n[2], 0.0, -n[0]], [-n[1], n[0], 0.0]])
    return np.eye(3) + np.sin(angle)[:, None, None] * K + (1 - np.cos(angle))[:, None, None] * (K @ K)


@pytest.fixture(scope="module")
def arm_trial(tmp_path_factory):
    """The sample walk with elbows flexing 15-45 deg and forearms turning +-35 deg: (coords, pronation, file)."""
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    walk = pd.read_csv(DATA / "sample_walk.csv")
    coords = pd.concat([walk] * (FRAMES // len(walk) + 1), ignore_index=True).iloc[:FRAMES].copy()
    t = np.arange(FRAMES) / 100.0
    coords["time"] = t
    pronation = {}
    for side, phase in (("right", 0.0), ("left", 1.3)):
        coords[f"{side}_lower_arm_alpha"] = -np.radians(30 + 15 * np.sin(2 * np.pi * t / 1.1 + phase))
        coords[f"{side}_lower_arm_beta"] = np.radians(CARRY[side]) * (1.0 if side == "left" else -1.0)
        coords[f"{side}_lower_arm_gamma"] = 0.0  # the ulna does not turn: the radius does
        pronation[side] = np.radians(35 * np.sin(2 * np.pi * t / 1.7 + phase))
    res = hb.compute(model, coords)
    layout = opencap_layout(model)
    origins = MK.reference_origins(model)
    thorax = model.names.index("upper_torso")
    for side, s in (("right", "r"), ("left", "L")):
        _, local = layout[f"{s}_shoulder_study"]
        layout[f"{s}_shoulder_study"] = ("upper_torso", origins[model.names.index(f"{side}_upper_arm")]
                                         - origins[thorax] + local)
    pts = MK.move_markers(layout, res.R, res.joint, model)
    for side, s, y in (("right", "r", -1.0), ("left", "L", 1.0)):
        ku, kf = model.names.index(f"{side}_upper_arm"), model.names.index(f"{side}_lower_arm")
        elbow = np.asarray(model.joint_offset[kf], dtype=float)
        length = float(np.linalg.norm(model.joint_offset[model.names.index(f"{side}_hand")]))
        for name, dy in ((f"{s}_lelbow_study", y * 0.035), (f"{s}_melbow_study", -y * 0.035)):
            pts[name] = res.joint[:, ku] + res.R[:, ku] @ (elbow + [0.0, dy, 0.0])  # epicondyles on the humerus
        ulnar, radial = np.array([0.0, -y * 0.03, -length]), np.array([0.0, y * 0.03, -length])
        pts[f"{s}_mwrist_study"] = res.joint[:, kf] + res.R[:, kf] @ ulnar
        turned = _rotation(ulnar, pronation[side]) @ radial
        pts[f"{s}_lwrist_study"] = res.joint[:, kf] + np.einsum("fij,fj->fi", res.R[:, kf], turned)
    path = tmp_path_factory.mktemp("opencap") / "arm.trc"
    MK.write_trc(path, t, pts, 100.0)
    return coords, pronation, path


def test_elbow_flexion_with_asymmetric_carrying_angles_and_pronation(arm_trial):
    coords, pronation, path = arm_trial
    an = analyze_trial(path, mass=75.0, height=1.75)
    assert an.calibration.markerset.name == "opencap"
    for side in ("right", "left"):
        got = an.clinical[f"{side}_elbow_flexion_deg"].to_numpy()
        true = -np.degrees(coords[f"{side}_lower_arm_alpha"].to_numpy())
        assert np.corrcoef(got, true)[0, 1] > 0.999, side
        assert np.std(got - true) < 0.2, (side, np.std(got - true))
        # the forearm's turn about its long axis (z, elbow up from the styloid) is the radius's turn about the
        # elbow-to-styloid vector (down the forearm): gamma = -pronation, measured about the trial's median
        turn = np.degrees(an.coords[f"{side}_lower_arm_gamma"].to_numpy())
        assert np.std(turn + np.degrees(pronation[side])) < 0.5, side  # measured 0.24 deg
    # the carrying angles stay where they are: in the elbow's ab/adduction, not in its flexion
    beta = {s: np.degrees(an.coords[f"{s}_lower_arm_beta"].to_numpy()) for s in ("right", "left")}
    assert max(np.std(b) for b in beta.values()) < 0.2, beta

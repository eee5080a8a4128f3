"""Whole-body IK within 0.5 deg when the markers determine the angles: gait2392 plus rigid marker plates.

tests/markers/test_ik_accuracy.py runs the same synthetic motions through the same pipeline with the
gait2392 layout alone, and the arms' axial rotations come out near 2 deg RMS: the upper arm's rests on
one marker (R.Bicep) 28-43 mm from the humerus axis, which :mod:`humanbody.markers.precision` shows is
the best any fit can do with 2 mm of noise (docs/tracking.md section 4).  Here the marker set is gait2392
plus a rigid plate of four markers on each upper arm, forearm and shank (the angles the precision module
puts above 0.45 deg: shoulder and elbow rotation, and without the knee hinge pull knee and ankle rotation),
the plates in the style of lab clusters (the CAST protocol's rigid plates, Cappozzo et al. 1995, Clin
Biomech 10:171): markers at the corners of a rectangle on the segment's lateral side, the plate's centre
``d`` from the segment's long axis:

=============== ============ ========================= =================================== ===========
segment          d (mm)       corners (mm)              centre along the segment (mm)       weight
=============== ============ ========================= =================================== ===========
upper arm        70           +-40 (ant.) x +-50 (long)  140 below the shoulder centre         0.01
forearm          60           +-35 (ant.) x +-40 (long)  150 below the elbow centre            0.01
shank            70           +-40 (ant.) x +-50 (long)  270 below the knee centre             1
=============== ============ ========================= =================================== ===========

so every plate marker lies 69-81 mm from its segment's axis.  The arm plates weigh 0.01 like the set's
other arm markers (they must not pull the trunk and legs), the shank plates 1 like its shank clusters.
The set has no knee hinge pull (``[ik] hinge`` of gait2392): the shank plates determine the knee's axial
rotation, so the pull would only bias it.  The static trial is the shared static's per-marker medians plus
the plate markers where its calibration puts the segment frames; the motions are made by the forward
kinematics of that static's calibration with the extended set, 2 mm of white noise per coordinate at
100 Hz, and run through ``analyze_trial(..., ik="global")`` with its defaults (the 6 Hz filter), the run
with the cut-off chosen by residual analysis (``cutoff_hz="auto"``: at 6 Hz the running ankle loses
about 1 deg to the filter, docs/conditioning.md).  Measured (RMS over the trial, degrees; the largest
angle of each group in brackets):

MEASURED_TABLE
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared
from ik_motions import MOTIONS, forward, motion

from humanbody.io import read_trial
from humanbody.markers.axes import to_ground
from humanbody.markers.calibration import calibrate
from humanbody.markers.precision import predict_precision
from humanbody.model.segments import SEGMENT_NAMES

ROOT = Path(__file__).resolve().parents[2]
pytestmark = needs_shared
RATE = 100.0
GAIT2392 = ROOT / "humanbody" / "data" / "markersets" / "gait2392.toml"
#: segment -> (marker prefix, lateral sign of the segment's y axis, plate centre's distance from the long
#: axis d, half width along x (anterior), half length along z, plate centre's z), all m, segment frame
PLATES = {
    "right_upper_arm": ("R.UpperArm", -1.0, 0.070, 0.040, 0.050, -0.140),
    "left_upper_arm": ("L.UpperArm", 1.0, 0.070, 0.040, 0.050, -0.140),
    "right_lower_arm": ("R.Forearm", -1.0, 0.060, 0.035, 0.040, -0.150),
    "left_lower_arm": ("L.Forearm", 1.0, 0.060, 0.035, 0.040, -0.150),
    "right_upper_leg": ("R.ThighPlate", -1.0, 0.090, 0.040, 0.050, -0.140),
    "left_upper_leg": ("L.ThighPlate", 1.0, 0.090, 0.040, 0.050, -0.140),
    "right_lower_leg": ("R.ShankPlate", -1.0, 0.070, 0.040, 0.050, -0.270),
    "left_lower_leg": ("L.ShankPlate", 1.0, 0.070, 0.040, 0.050, -0.270),
}
#: single markers (m, segment frame): Plug-in Gait's C7, T10 and CLAV on the thorax (the set's Sternum is
#: its STRN), the Oxford foot model's lateral calcaneus and sustentaculum tali markers on each foot
SINGLES = {
    "upper_torso": {"C7": (-0.06, 0.0, 0.22), "T10": (-0.10, 0.0, 0.0), "CLAV": (0.06, 0.0, 0.16)},
    "right_foot": {"R.Calc.Lat": (-0.05, -0.04, -0.06), "R.Calc.Med": (-0.04, 0.03, -0.05)},
    "left_foot": {"L.Calc.Lat": (-0.05, 0.04, -0.06), "L.Calc.Med": (-0.04, -0.03, -0.05)},
}
#: whole-body IK weights of the added markers: the set's own for their segments (trunk and arms 0.01)
LIGHT = ("upper_torso", "right_upper_arm", "left_upper_arm", "right_lower_arm", "left_lower_arm")


def added_markers() -> dict[str, dict[str, np.ndarray]]:
    """segment -> {marker -> position (3,) m in the segment frame} of every marker added to gait2392.

    A plate's four markers sit at the corners of a rectangle on the segment's lateral side.
    """
    out = {seg: {m: np.array(c) for m, c in markers.items()} for seg, markers in SINGLES.items()}
    for seg, (prefix, lateral, d, w, h, z) in PLATES.items():
        corners = ((1, 1), (-1, 1), (-1, -1), (1, -1))
        out[seg] = {f"{prefix}.{i + 1}": np.array([a * w, lateral * d, z + b * h]) for i, (a, b) in enumerate(corners)}
    return out


def cluster_markerset() -> str:
    """gait2392.toml with the added markers in its segments' marker lists, their weights, no ``[ik]`` hinge."""
    text = GAIT2392.read_text(encoding="utf-8")
    added = added_markers()
    for seg, markers in added.items():
        names = ", ".join(f'"{m}"' for m in markers)
        text, n = re.subn(rf'(\[segments\.{seg}\]\n(?:[^\n]*\n)*?markers = \[[^\]]*)\]', rf'\1, {names}]', text,
                          count=1)
        assert n == 1, seg
    weights = "".join(f'"{m}" = 0.01\n' for seg in LIGHT for m in added[seg])
    text, n = re.subn(r'(\[weights\]\n)', rf'\1{weights}', text)
    assert n == 1
    text, n = re.subn(r'\[ik\]\nhinge = [^\n]*\nhinge_weight = [^\n]*\n', '', text)
    assert n == 1
    return text.replace('name = "gait2392"', 'name = "gait2392_plates"')


@pytest.fixture(scope="module")
def subject(tmp_path_factory):
    """(calibration, marker-set path, static path, trial marker names) of the gait2392 + plates subject."""
    sys.path.insert(0, str(ROOT / "data"))
    from make_sample_markers import write_trc

    tmp = tmp_path_factory.mktemp("clusters")
    markerset = tmp / "gait2392_plates.toml"
    markerset.write_text(cluster_markerset(), encoding="utf-8")
    real, _ = to_ground(read_trial(WALK / "subject01_static.trc"))
    cal0 = calibrate(real, "gait2392", mass=72.6, height=1.8)
    names = [c[:-2] for c in real.columns if c.endswith("_x")]
    static = {m: np.nanmedian(real[[f"{m}_x", f"{m}_y", f"{m}_z"]].to_numpy(), axis=0) for m in names}
    for seg, markers in added_markers().items():
        for m, c in markers.items():
            static[m] = cal0.origins[seg] + cal0.frames[seg] @ c
    n = 60
    path = tmp / "static_plates.trc"
    write_trc(path, np.arange(n) / 60.0, {m: np.tile(v, (n, 1)) for m, v in static.items()}, 60.0)
    st, _ = to_ground(read_trial(path))
    cal = calibrate(st, markerset, mass=72.6, height=1.8)
    walk = list(read_trial(WALK / "subject01_walk1.trc").attrs["markers"])
    return cal, markerset, path, walk + [m for markers in added_markers().values() for m in markers]


def _truth(ang, root, t):
    return pd.DataFrame({"time": t, "lower_torso_x": root[:, 0], "lower_torso_y": root[:, 1],
                         "lower_torso_z": root[:, 2],
                         **{f"{s}_{q}": ang[:, k, j] for k, s in enumerate(SEGMENT_NAMES)
                            for j, q in enumerate(("alpha", "beta", "gamma"))}})


def _rms_by_group(cal, analysis, ang, root, t):
    """As test_ik_accuracy.py: the largest RMS error (deg) of (legs+pelvis sagittal, legs+pelvis all, arms
    sagittal, arms all) over the clinical angles but wrist, neck, thorax and progression; and every RMS.

    Unlike there, the fit's pelvis angles are taken relative to the true direction of progression: the
    heading is the pelvis's horizontal travel over 1 s, ground +X below 0.15 m/s, and the squat's pelvis
    moves back and forth at about that speed, so near the trial's ends a noisy path can be read as
    travelling backwards (heading 180 deg) where the true one is not, which turns the pelvis rotation by
    180 deg in those frames whatever the fit.  The root's horizontal position changes no other angle.
    """
    from humanbody.mechanics.clinical import clinical_angles

    ct = clinical_angles(cal.model, _truth(ang, root, t), cal)
    fit = analysis.coords.copy()
    fit["lower_torso_x"], fit["lower_torso_y"] = root[:, 0], root[:, 1]
    cg = clinical_angles(analysis.calibration.model, fit, analysis.calibration)
    cols = [c for c in ct.columns if c.endswith("_deg") and not any(w in c for w in ("wrist", "neck", "thorax",
                                                                                       "progression"))]
    e = (cg[cols] - ct[cols]).to_numpy()
    rms = dict(zip(cols, np.sqrt(np.mean(((e + 180.0) % 360.0 - 180.0) ** 2, axis=0))))
    legs = [c for c in cols if any(w in c for w in ("hip", "knee", "ankle", "pelvis"))]
    arms = [c for c in cols if c not in legs]
    sag = [c for c in cols if "flexion" in c or "tilt" in c]
    groups = ([c for c in legs if c in sag], legs, [c for c in arms if c in sag], arms)
    return tuple(max(g, key=rms.get) for g in groups), rms


@pytest.mark.slow
@pytest.mark.parametrize("kind", MOTIONS)
def test_two_millimetre_noise_with_marker_plates(subject, kind, tmp_path):
    sys.path.insert(0, str(ROOT / "data"))
    from make_sample_markers import write_trc

    from humanbody.pipeline import analyze_trial
    from humanbody.signal.residual import residual_cutoff

    cal, markerset, static, names = subject
    assert not cal.markerset.ik.get("hinge")
    t = np.arange(int(6 * RATE)) / RATE
    ang, root = motion(kind, t)
    mk, _, _ = forward(cal, ang, root)
    assert set(names) <= set(mk)
    rng = np.random.default_rng(1)
    noisy = {m: v + rng.normal(0.0, 0.002, v.shape) for m, v in mk.items() if m in names}
    trc = tmp_path / f"{kind}.trc"
    write_trc(trc, t, noisy, RATE)
    options = {"static": static, "markerset": markerset, "mass": 72.6, "height": 1.8, "ik": "global"}
    if kind == "run":  # the cut-off of Winter's residual analysis, which the pipeline reports
        cut = residual_cutoff(np.hstack(list(noisy.values())), RATE).cutoff_hz
        an = analyze_trial(trc, cutoff_hz="auto", **options)
        assert any("residual analysis" in line and f"-3 dB at {cut:g} Hz" in line for line in an.details)
    else:
        cut = 6.0
        an = analyze_trial(trc, **options)
    worst, rms = _rms_by_group(cal, an, ang, root, t)
    print(kind, cut, [(c, round(rms[c], 3)) for c in worst])
    print(sorted(((round(v, 2), c) for c, v in rms.items()), reverse=True)[:8])
    # the precision module's prediction for this set along the true motion, at the same cut-off
    truth = _truth(ang, root, t)
    pred = predict_precision(cal, truth, 0.002, cutoff_hz=cut).summary["rms"]
    cols = [f"{s}_{a}_gamma" for s in ("right", "left") for a in ("upper_arm", "lower_arm")]
    d = an.coords[cols].to_numpy() - truth[cols].to_numpy()
    meas = np.degrees(np.sqrt(np.mean(((d + np.pi) % (2 * np.pi) - np.pi) ** 2, axis=0)))
    ratio = meas / pred[cols].to_numpy()
    print(dict(zip(cols, zip(np.round(pred[cols].to_numpy(), 3), np.round(meas, 3), np.round(ratio, 2)))))
    assert all(rms[c] <= 0.5 for c in worst), (kind, {c: round(rms[c], 2) for c in worst})
    assert np.all((ratio > 0.75) & (ratio < 1.25)), dict(zip(cols, ratio.round(2)))

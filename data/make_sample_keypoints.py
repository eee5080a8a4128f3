#!/usr/bin/env python3
"""Make the sample video-keypoint trial ``data/sample_walk_keypoints.trc``.

    python data/make_sample_keypoints.py [--coords data/sample_walk.csv] [--out-dir data] [--seed 25]

The walk of ``data/sample_walk.csv`` (17-segment default model, 75 kg,
1.75 m) seen as OpenPose BODY_25B keypoints with the names Pose2Sim writes
(``RHip``, ``RKnee``, ``RAnkle``, ``RBigToe``, ``RSmallToe``, ``RHeel``,
``Neck``, ``Head``, ``Nose``, ``RShoulder``, ``RElbow``, ``RWrist`` and the
left side), so ``humanbody analyze`` can run the markerless pipeline (no
static trial, whole-body inverse kinematics) on data the project made::

    humanbody analyze data/sample_walk_keypoints.trc --mass 75 --height 1.75 --out results/

Where the keypoints are (:func:`keypoint_layout`): joint keypoints are the
model's joint centres O_k (hip, knee, ankle, shoulder, elbow, wrist; BODY_25B's
"Neck" is the upper neck, the head's origin); heel and toes lie 20 mm above
the sole, the big toe medial and the small toe lateral of the foot's long
axis; "Head" is the vertex and "Nose" 0.10 m in front of the upper neck.
The other sets' names (HALPE_26's "Hip" and lower "Neck", COCO's eyes and
ears) are in :data:`EXTRA` for tests.  Noise: 3 mm Gaussian per coordinate
(fixed seed), as triangulated video keypoints of a good multi-camera setup.
TRC in millimetres, OpenSim lab axes (X forward, Y up, Z right).  A made-up
subject, not a recording.
"""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
NAME = "sample_walk_keypoints.trc"
#: Keypoint noise, standard deviation per coordinate (m).
NOISE_SD = 0.003
#: Height of heel and toe keypoints above the sole (m).
LIFT = 0.02

#: Keypoints of the other built-in sets: name -> (segment, position in the reference pose relative to
#: the segment origin, as a function of the head's vertical extent h).
EXTRA = {
    "Hip": ("lower_torso", lambda h: (0.0, 0.0, 0.0)),           # HALPE_26 pelvis centre
    "HNeck": ("neck", lambda h: (0.0, 0.0, 0.0)),                 # HALPE_26 "Neck": base of the neck
    "LEye": ("head", lambda h: (0.08, 0.032, 0.55 * h)),
    "REye": ("head", lambda h: (0.08, -0.032, 0.55 * h)),
    "LEar": ("head", lambda h: (0.0, 0.075, 0.45 * h)),
    "REar": ("head", lambda h: (0.0, -0.075, 0.45 * h)),
}


def _markers_module():
    spec = importlib.util.spec_from_file_location("make_sample_markers", HERE / "make_sample_markers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def keypoint_layout(model, extra: bool = False) -> dict[str, tuple[str, np.ndarray]]:
    """BODY_25B keypoints on the model: name -> (segment, position relative to O_k in its frame, m).

    ``extra`` adds :data:`EXTRA` (HALPE_26 and COCO names; HALPE's neck as ``HNeck``).
    """
    from humanbody.anthropometry import ANKLE_HEIGHT, HEEL_BEHIND_ANKLE

    H = float(model.meta["subject"]["height"])
    idx = {n: k for k, n in enumerate(model.names)}
    O = _markers_module().reference_origins(model)
    z1 = float(model.meta["reference_pose"]["lower_torso_height"])
    head_h = H - (z1 + O[idx["head"], 2])  # upper neck to vertex
    foot = float(model.segment_meta[idx["right_foot"]]["length"])
    ha, heel = ANKLE_HEIGHT * H, HEEL_BEHIND_ANKLE * H
    out = {}
    for side, S, y in (("right", "R", -1.0), ("left", "L", 1.0)):
        out[f"{S}Hip"] = (f"{side}_upper_leg", np.zeros(3))
        out[f"{S}Knee"] = (f"{side}_lower_leg", np.zeros(3))
        out[f"{S}Ankle"] = (f"{side}_foot", np.zeros(3))
        out[f"{S}BigToe"] = (f"{side}_foot", np.array([foot - heel, -y * 0.025, LIFT - ha]))
        out[f"{S}SmallToe"] = (f"{side}_foot", np.array([0.8 * foot - heel, y * 0.035, LIFT - ha]))
        out[f"{S}Heel"] = (f"{side}_foot", np.array([-heel, 0.0, LIFT - ha]))
        out[f"{S}Shoulder"] = (f"{side}_upper_arm", np.zeros(3))
        out[f"{S}Elbow"] = (f"{side}_lower_arm", np.zeros(3))
        out[f"{S}Wrist"] = (f"{side}_hand", np.zeros(3))
    out["Neck"] = ("head", np.zeros(3))
    out["Head"] = ("head", np.array([0.0, 0.0, head_h]))
    out["Nose"] = ("head", np.array([0.10, 0.0, 0.45 * head_h]))
    if extra:
        out.update({k: (seg, np.array(f(head_h), dtype=float)) for k, (seg, f) in EXTRA.items()})
    return out


def keypoints_of(model, coords: pd.DataFrame, extra: bool = False) -> tuple[np.ndarray, dict]:
    """Time (s) and noise-free keypoint positions (m, ground) of a coordinates trial."""
    import humanbody as hb

    res = hb.compute(model, coords)
    mod = _markers_module()
    return coords["time"].to_numpy(dtype=float), mod.move_markers(keypoint_layout(model, extra), res.R,
                                                                  res.joint, model)


def build(coords_path=HERE / "sample_walk.csv", out_dir=HERE, seed: int = 25) -> Path:
    """Write the keypoint TRC file; returns its path."""
    import humanbody as hb

    model = hb.BodyModel.default(mass=75.0, height=1.75)
    coords = pd.read_csv(coords_path)
    rate = float(round(1.0 / float(np.median(np.diff(coords["time"].to_numpy()))), 6))
    t, kp = keypoints_of(model, coords)
    rng = np.random.default_rng(seed)
    kp = {k: v + rng.normal(0.0, NOISE_SD, v.shape) for k, v in kp.items()}
    path = Path(out_dir) / NAME
    _markers_module().write_trc(path, t, kp, rate)
    return path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", default=str(HERE / "sample_walk.csv"), help="generalized-coordinates trial")
    ap.add_argument("--out-dir", default=str(HERE), help="folder for the TRC file")
    ap.add_argument("--seed", type=int, default=25, help="seed of the noise")
    args = ap.parse_args(argv)
    p = build(args.coords, args.out_dir, args.seed)
    print(f"wrote {p} ({p.stat().st_size / 1024:.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Make the sample marker trials ``data/sample_static.trc`` and ``data/sample_walk_markers.trc``.

    python data/make_sample_markers.py [--coords data/sample_walk.csv] [--out-dir data] [--seed 2392]

Run ``python data/make_sample.py`` first: the walk is the motion of
``data/sample_walk.csv`` (17-segment default model, 75 kg, 1.75 m) seen
through the markers of the built-in ``gait2392`` set (the OpenSim example
subject's full-body set), so ``humanbody analyze`` can run the whole marker
pipeline on data the project made itself::

    humanbody analyze data/sample_walk_markers.trc --static data/sample_static.trc \\
        --mass 75 --height 1.75 --out results/

How the markers are placed (:func:`marker_layout`): every marker is a point
fixed in one segment's frame of the default model, given relative to the
segment origin O_k (its proximal joint) in the upright reference pose, where
every frame is parallel to ground.  Positions come from the model's joint
offsets and segment lengths, and they are chosen so that the set's own rules
(``humanbody/data/markersets/gait2392.toml``) give back the model's joint
centres and frames:

* pelvis: the ASIS/sacral triangle is sized by inverting the Harrington et
  al. (2007) hip regression the set uses (lateral 0.33 PW + 7.3 mm must equal
  the model's hip half-width; pelvis depth PD = 0.7 PW), so the regression
  puts the hip centres on the model's hips and mid-hip on O_1;
* thigh and shank: three-marker clusters on the skin; knee and ankle
  epicondyle/malleolus pairs (static only, as in the real trial) straddle the
  model's knee and ankle centres;
* foot: heel and toe tip on the long axis (their distance is the model's foot
  length), midfoot and toe markers on the dorsum and sides;
* trunk, arms, head: acromion markers 17 % of the bi-acromial distance above
  the shoulder centres (Rab et al. 2002, the set's rule), the single elbow
  marker on the elbow centre (the set takes it as the centre), wrist markers
  either side of the wrist centre, sternum in front of the thorax, temples and
  a head-top marker 20 mm above the vertex (marker on a cap); heel, toe tip and
  the side foot markers 20 mm above the sole.

So with no noise the static calibration reproduces the model's hip, knee and
ankle centres, every static angle is zero and tracking the walk returns the
sample's leg angles; the trunk points of the set (lumbar/thoracic at fixed
fractions of mid-hip -> mid-acromion) differ from the model's by a few cm.

The static trial is 1 s of standing in the reference pose (all angles zero,
arms hanging, feet on the floor).  The walk moves each marker with its
segment: ``p(t) = O_k(t) + R_0k(t) · local`` with ``R`` and ``joint`` from
:func:`humanbody.compute`.  Then, with a fixed seed: 0.5 mm Gaussian noise on
every coordinate, a few short gaps (empty fields, as capture software writes
them) and one frame of one marker coded as (0, 0, 0).  Files are OpenSim TRC
in millimetres in OpenSim lab axes (X forward, Y up, Z right: lab = (x, z, -y)
of ground), at the rate of the coordinates (100 Hz).  This is a made-up
subject, not a recording.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

HERE = Path(__file__).resolve().parent
STATIC_NAME = "sample_static.trc"
WALK_NAME = "sample_walk_markers.trc"

#: Markers that are only in the static trial (as in the shared gait2392 trial).
STATIC_ONLY = ("R.Knee.Lat", "R.Knee.Med", "L.Knee.Lat", "L.Knee.Med",
               "R.Ankle.Lat", "R.Ankle.Med", "L.Ankle.Lat", "L.Ankle.Med")

#: Marker noise, standard deviation per coordinate (m).
NOISE_SD = 0.0005
#: Height of the head-top marker above the vertex, and of the lowest foot
#: markers above the sole (m): equal, so the set's height estimate
#: (head-top minus lowest foot marker) gives the model's height.
MARKER_LIFT = 0.02
#: Pelvis depth PD (mid-ASIS to sacral marker) as a fraction of PW.
PD_OVER_PW = 0.7
#: Gaps in the walk: (marker, first frame, number of frames); all shorter
#: than the pipeline's default longest filled gap (0.1 s).
GAPS = (("R.Heel", 120, 6), ("L.Thigh.Front", 200, 5), ("Sternum", 300, 8), ("R.Wrist.Lat", 60, 4))
#: One sample written as 0, 0, 0 (the "not seen" code of capture systems).
ZERO_CODED = ("L.Toe.Tip", 250)
#: Lab axes of OpenSim TRC files: lab (X, Y, Z) = ground (x, z, -y).
GROUND_TO_LAB = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])


def reference_origins(model) -> np.ndarray:
    """Segment origins O_k in the reference pose, relative to O_1 (m), shape (n, 3).

    All frames are parallel to ground, so O_k = O_L(k) + xi_k.
    """
    O = np.zeros((len(model.names), 3))
    for k, parent in enumerate(model.parents):
        if parent:
            O[k] = O[parent - 1] + model.joint_offset[k]
    return O


def marker_layout(model) -> dict[str, tuple[str, np.ndarray]]:
    """The gait2392 markers on the model: name -> (segment, position in its frame).

    Parameters
    ----------
    model : BodyModel
        The 17-segment default model (``meta["subject"]["height"]`` is used
        for the ankle height and heel position of the anthropometry module).

    Returns
    -------
    dict
        Marker name -> (segment name, ndarray (3,)): the marker relative to
        the segment origin O_k in the segment frame (m; x forward, y left,
        z up in the reference pose).  Insertion order is the order of the
        shared trial's columns.
    """
    from humanbody.model.anthropometry import ANKLE_HEIGHT, HEEL_BEHIND_ANKLE

    idx = {name: k for k, name in enumerate(model.names)}
    O = reference_origins(model)
    length = {name: float(model.segment_meta[k]["length"]) for name, k in idx.items()}
    height = float(model.meta["subject"]["height"])
    ref = {}  # marker -> (segment, position in the reference pose relative to O_1)

    def put(name, seg, local):
        ref[name] = (seg, O[idx[seg]] + np.asarray(local, dtype=float))

    # pelvis: invert Harrington et al. (2007) so the hip centres land on the model's hips
    hip = O[idx["left_upper_leg"]]
    pw = (1000.0 * hip[1] - 7.3) / 0.33 / 1000.0  # lateral = 0.33 PW + 7.3 mm
    pd_ = PD_OVER_PW * pw
    mid_asis = np.array([0.24 * pd_ + 0.0099, 0.0, 0.30 * pw + 0.0109])  # from mid-hip (= O_1)
    put("R.ASIS", "lower_torso", mid_asis + [0.0, -pw / 2, 0.0])
    put("L.ASIS", "lower_torso", mid_asis + [0.0, pw / 2, 0.0])
    put("V.Sacral", "lower_torso", mid_asis - [pd_, 0.0, 0.0])

    Lt, Ls = length["right_upper_leg"], length["right_lower_leg"]
    knee_half, ankle_half = 0.12 * Lt, 0.08 * Ls  # epicondyle and malleolus half-widths
    ha, heel = ANKLE_HEIGHT * height, HEEL_BEHIND_ANKLE * height
    Lf = length["right_foot"]
    lift = MARKER_LIFT - ha  # z of the lowest foot markers relative to the ankle
    for s, side in (("R", "right"), ("L", "left")):
        lat = -1.0 if s == "R" else 1.0  # lateral is -y on the right, +y on the left
        thigh, shank, foot = f"{side}_upper_leg", f"{side}_lower_leg", f"{side}_foot"
        put(f"{s}.Thigh.Upper", thigh, [0.0, lat * 0.075, -0.30 * Lt])
        put(f"{s}.Thigh.Front", thigh, [0.07, lat * 0.02, -0.50 * Lt])
        put(f"{s}.Thigh.Rear", thigh, [-0.03, lat * 0.06, -0.70 * Lt])
        put(f"{s}.Knee.Lat", thigh, [0.0, lat * knee_half, -Lt])
        put(f"{s}.Knee.Med", thigh, [0.0, -lat * knee_half, -Lt])
        put(f"{s}.Shank.Upper", shank, [0.01, lat * 0.055, -0.25 * Ls])
        put(f"{s}.Shank.Front", shank, [0.05, 0.0, -0.45 * Ls])
        put(f"{s}.Shank.Rear", shank, [-0.03, lat * 0.045, -0.65 * Ls])
        put(f"{s}.Ankle.Lat", shank, [0.0, lat * ankle_half, -Ls])
        put(f"{s}.Ankle.Med", shank, [0.0, -lat * ankle_half, -Ls])
        put(f"{s}.Heel", foot, [-heel, 0.0, lift])
        put(f"{s}.Midfoot.Sup", foot, [-heel + 0.45 * Lf, 0.0, lift + 0.045])
        put(f"{s}.Midfoot.Lat", foot, [-heel + 0.45 * Lf, lat * 0.04, lift])
        put(f"{s}.Toe.Tip", foot, [-heel + Lf, 0.0, lift])
        put(f"{s}.Toe.Lat", foot, [-heel + 0.8 * Lf, lat * 0.04, lift])
        put(f"{s}.Toe.Med", foot, [-heel + 0.8 * Lf, -lat * 0.035, lift])

    # thorax: acromia 17 % of the bi-acromial distance above the shoulder centres
    sh = O[idx["left_upper_arm"]] - O[idx["upper_torso"]]
    Lu = length["upper_torso"]
    put("Sternum", "upper_torso", [0.45 * Lu, 0.0, 0.3 * Lu])
    put("R.Acromium", "upper_torso", [sh[0], -sh[1], sh[2] + 0.17 * 2 * sh[1]])
    put("L.Acromium", "upper_torso", [sh[0], sh[1], sh[2] + 0.17 * 2 * sh[1]])
    La, Lw = length["right_upper_arm"], length["right_lower_arm"]
    for s, side in (("R", "right"), ("L", "left")):
        put(f"{s}.Bicep", f"{side}_upper_arm", [0.045, 0.0, -0.5 * La])
        put(f"{s}.Elbow", f"{side}_upper_arm", [0.0, 0.0, -La])  # the set takes it as the elbow centre
        put(f"{s}.Wrist.Med", f"{side}_lower_arm", [-0.025, 0.0, -Lw])  # ulnar styloid, palms facing in
        put(f"{s}.Wrist.Lat", f"{side}_lower_arm", [0.025, 0.0, -Lw])  # radial styloid
    Lh = length["head"]
    put("R.Temple", "head", [0.07, -0.065, 0.6 * Lh])
    put("L.Temple", "head", [0.07, 0.065, 0.6 * Lh])
    put("Top.Head", "head", [0.0, 0.0, Lh + MARKER_LIFT])

    order = _SHARED_ORDER + [m for m in ref if m not in _SHARED_ORDER]
    return {m: (ref[m][0], ref[m][1] - O[idx[ref[m][0]]]) for m in order if m in ref}


#: Column order of the shared gait2392 static trial.
_SHARED_ORDER = (
    "R.ASIS L.ASIS V.Sacral R.Thigh.Upper R.Thigh.Front R.Thigh.Rear L.Thigh.Upper L.Thigh.Front "
    "L.Thigh.Rear R.Knee.Lat R.Knee.Med L.Knee.Lat L.Knee.Med R.Shank.Upper R.Shank.Front R.Shank.Rear "
    "L.Shank.Upper L.Shank.Front L.Shank.Rear R.Ankle.Lat R.Ankle.Med L.Ankle.Lat L.Ankle.Med R.Heel "
    "R.Midfoot.Sup R.Midfoot.Lat R.Toe.Tip L.Heel L.Midfoot.Sup L.Midfoot.Lat L.Toe.Tip Sternum "
    "R.Acromium L.Acromium R.Bicep L.Bicep R.Elbow L.Elbow R.Wrist.Med R.Wrist.Lat L.Wrist.Med "
    "L.Wrist.Lat R.Toe.Lat R.Toe.Med L.Toe.Lat L.Toe.Med R.Temple L.Temple Top.Head"
).split()


def move_markers(layout, R, joint, model) -> dict[str, np.ndarray]:
    """Ground positions of the markers moved with their segments.

    Parameters
    ----------
    layout : dict
        :func:`marker_layout` output.
    R : ndarray, shape (frames, n, 3, 3)
        Absolute transformation matrices S_0k (ground <- body).
    joint : ndarray, shape (frames, n, 3)
        Segment origins O_k in ground (m).
    model : BodyModel
        Gives the segment indices.

    Returns
    -------
    dict of str -> ndarray (frames, 3)
        ``O_k + R_0k · local`` per marker (m, ground axes).
    """
    out = {}
    for name, (seg, local) in layout.items():
        k = model.names.index(seg)
        out[name] = joint[:, k] + R[:, k] @ local
    return out


def static_trial(model, layout, seconds: float = 1.0, rate: float = 100.0) -> tuple[np.ndarray, dict]:
    """Standing in the reference pose: time (s) and marker positions (m, ground).

    O_1 stands at ``model.meta["reference_pose"]["lower_torso_height"]``
    above the origin (soles on the floor), every angle zero.
    """
    n = int(round(seconds * rate))
    t = np.arange(n) / rate
    z1 = float(model.meta["reference_pose"]["lower_torso_height"])
    O = reference_origins(model) + [0.0, 0.0, z1]
    R = np.broadcast_to(np.eye(3), (n, len(model.names), 3, 3))
    return t, move_markers(layout, R, np.broadcast_to(O, (n,) + O.shape), model)


def walk_trial(model, layout, coords: pd.DataFrame) -> tuple[np.ndarray, dict]:
    """The motion of a generalized-coordinates trial seen through the markers.

    Returns time (s) and noise-free marker positions (m, ground), from
    ``humanbody.compute(model, coords)`` (its ``R`` and ``joint``).
    """
    import humanbody as hb

    res = hb.compute(model, coords)
    return coords["time"].to_numpy(dtype=float), move_markers(layout, res.R, res.joint, model)


def corrupt(markers: dict, rng: np.random.Generator, gaps=GAPS, zero=ZERO_CODED) -> dict:
    """Add Gaussian noise (:data:`NOISE_SD`), NaN gaps and one (0, 0, 0) sample.

    Returns new arrays; gaps and the zero-coded sample are applied after the
    noise so they are exact.
    """
    out = {k: v + rng.normal(0.0, NOISE_SD, v.shape) for k, v in markers.items()}
    for name, start, length in gaps:
        out[name][start : start + length] = np.nan
    if zero is not None:
        out[zero[0]][zero[1]] = 0.0
    return out


def write_trc(path, time, markers: dict, rate: float) -> None:
    """Write ground-axes marker positions (m) as an OpenSim TRC file (mm, lab axes).

    The 5-line header of OpenSim's files (``PathFileType``, the
    ``DataRate ...`` keys and values, marker names each heading three columns,
    ``X1 Y1 Z1 ...`` labels), a blank line, then one tab-separated row per
    frame: ``Frame#``, ``Time``, coordinates with a trailing tab.  NaN is
    written as an empty field; exact zeros stay zeros.
    """
    path = Path(path)
    names = list(markers)
    n = len(time)
    P = np.stack([markers[m] for m in names], axis=1) @ GROUND_TO_LAB.T * 1000.0  # (frames, m, 3) mm
    head = [
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate:.2f}\t{rate:.2f}\t{n:10d}\t{len(names)}\tmm\t{rate:.2f}\t1\t{n:10d}",
        "Frame#\tTime\t" + "".join(f"{m}\t\t\t" for m in names),
        "\t\t" + "".join(f"X{i}\tY{i}\tZ{i}\t" for i in range(1, len(names) + 1)),
        "",
    ]
    rows = []
    for f in range(n):
        vals = "".join("\t" if np.isnan(v) else f"{v:.3f}\t" for v in P[f].ravel())
        rows.append(f"{f + 1}\t{time[f]:.6f}\t{vals}")
    path.write_text("\n".join(head + rows) + "\n")


def build(coords_path=HERE / "sample_walk.csv", out_dir=HERE, seed: int = 2392) -> tuple[Path, Path]:
    """Write the static and walking TRC files; returns their paths.

    The model is the default one for the subject in the coordinates' source
    (75 kg, 1.75 m, as ``data/make_sample.py`` uses); the seed fixes noise.
    """
    import humanbody as hb

    model = hb.BodyModel.default(mass=75.0, height=1.75)
    layout = marker_layout(model)
    coords = pd.read_csv(coords_path)
    rate = 1.0 / float(np.median(np.diff(coords["time"].to_numpy())))
    rate = float(round(rate, 6))
    rng = np.random.default_rng(seed)
    out_dir = Path(out_dir)
    t, st = static_trial(model, layout, rate=rate)
    static_path = out_dir / STATIC_NAME
    write_trc(static_path, t, corrupt(st, rng, gaps=(), zero=None), rate)
    t, walk = walk_trial(model, layout, coords)
    walk = {k: v for k, v in walk.items() if k not in STATIC_ONLY}
    walk_path = out_dir / WALK_NAME
    write_trc(walk_path, t, corrupt(walk, rng), rate)
    return static_path, walk_path


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", default=str(HERE / "sample_walk.csv"), help="generalized-coordinates trial")
    ap.add_argument("--out-dir", default=str(HERE), help="folder for the two TRC files")
    ap.add_argument("--seed", type=int, default=2392, help="seed of the noise")
    args = ap.parse_args(argv)
    for p in build(args.coords, args.out_dir, args.seed):
        print(f"wrote {p} ({p.stat().st_size / 1024:.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

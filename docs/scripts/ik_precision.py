"""Table of docs/tracking.md "How precise can the angles be?": predicted vs measured noise of whole-body IK.

A synthetic walk (tests/ik_motions.py, the model's own forward kinematics
with the gait2392 marker layout of the shared static trial,
../shared/data/gait2392_walk) is written as a TRC file twice, without noise
and with white noise of ``--noise-mm`` per coordinate, and both go through
``analyze_trial(..., ik="global")`` with the 6 Hz low-pass.  The measured
noise-induced error of each coordinate is the RMS over the frames of the
noisy fit minus the noise-free fit (so the filter's and the pulls' own
bias does not count); the prediction is
:func:`humanbody.tools.precision.predict_precision` along the noise-free
fit.  The last column is that bias: the noise-free fit's RMS error against
the true angles.  ``--what-if`` adds the arms' prediction with a 6 cm
three-marker cluster on each upper arm and forearm.  Run:

    .venv/bin/python docs/scripts/ik_precision.py [--seconds 20] [--noise-mm 2] [--cutoff 6] [--seeds 1] [--what-if]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "data")]

#: (label, model coordinate): the clinical meaning of each row (signs do not change a standard deviation)
ROWS = [("pelvis tilt", "lower_torso_gamma"), ("pelvis obliquity", "lower_torso_beta"),
        ("pelvis rotation", "lower_torso_alpha"),
        ("hip flexion", "right_upper_leg_alpha"), ("hip adduction", "right_upper_leg_beta"),
        ("hip rotation", "right_upper_leg_gamma"),
        ("knee flexion", "right_lower_leg_alpha"), ("knee adduction", "right_lower_leg_beta"),
        ("knee rotation", "right_lower_leg_gamma"),
        ("ankle dorsiflexion", "right_foot_alpha"), ("foot inversion", "right_foot_beta"),
        ("foot rotation", "right_foot_gamma"),
        ("shoulder flexion", "right_upper_arm_alpha"), ("shoulder adduction", "right_upper_arm_beta"),
        ("shoulder rotation", "right_upper_arm_gamma"),
        ("elbow flexion", "right_lower_arm_alpha"), ("elbow (beta)", "right_lower_arm_beta"),
        ("elbow rotation", "right_lower_arm_gamma")]


def run(seconds: float = 20.0, noise_mm: float = 2.0, cutoff: float | None = 6.0, seeds: int = 1,
        rate: float = 100.0, motion_kind: str = "walk"):
    """Predicted and measured RMS (deg; m for the root) per model coordinate.

    Returns the table (columns predicted, measured, ratio), the :class:`~humanbody.tools.precision.Precision`
    and the noise-free :class:`~humanbody.analysis.Analysis`.
    """
    from ik_motions import forward, motion
    from make_sample_markers import write_trc

    from humanbody.analysis import analyze_trial
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground
    from humanbody.markers.calibration import calibrate
    from humanbody.tools.precision import ik_coordinate_names, predict_precision

    static = DATA / "subject01_static.trc"
    st, _ = to_ground(read_trial(static))
    names = read_trial(DATA / "subject01_walk1.trc").attrs["markers"]
    cal = calibrate(st, "gait2392", mass=72.6, height=1.8)
    t = np.arange(int(seconds * rate)) / rate
    ang, root = motion(motion_kind, t)
    mk, _, _ = forward(cal, ang, root)
    mk = {m: v for m, v in mk.items() if m in names}
    cols = ik_coordinate_names(cal.model)
    sq = np.zeros(len(cols))
    with tempfile.TemporaryDirectory() as tmp:
        def fit(markers, name):
            path = Path(tmp) / name
            write_trc(path, t, markers, rate)
            return analyze_trial(path, static=static, mass=72.6, height=1.8, ik="global", cutoff_hz=cutoff)

        clean = fit(mk, "clean.trc")
        for seed in range(seeds):
            rng = np.random.default_rng(seed + 1)
            noisy = fit({m: v + rng.normal(0.0, noise_mm / 1000, v.shape) for m, v in mk.items()}, "noisy.trc")
            d = noisy.coords[cols].to_numpy() - clean.coords[cols].to_numpy()
            d[:, 3:] = np.degrees((d[:, 3:] + np.pi) % (2 * np.pi) - np.pi)
            sq += np.mean(d ** 2, axis=0)
    pred = predict_precision(clean.calibration, clean.coords, noise_mm / 1000, cutoff_hz=cutoff)
    out = pd.DataFrame({"predicted": pred.summary["rms"], "measured": np.sqrt(sq / seeds)}, index=cols)
    out["ratio"] = out["measured"] / out["predicted"]
    truth = np.c_[root, ang.reshape(len(t), -1)]
    b = clean.coords[cols].to_numpy() - truth
    b[:, 3:] = np.degrees((b[:, 3:] + np.pi) % (2 * np.pi) - np.pi)
    out["noise_free"] = np.sqrt(np.mean(b ** 2, axis=0))  # the filter's and the pulls' bias, no noise
    return out, pred, clean


def with_arm_clusters(prob, radius: float = 0.06):
    """A copy of the IK problem with a three-marker cluster on each upper arm and forearm (what-if).

    The markers sit ``radius`` from the segment's long axis (its z axis), 120 deg apart, halfway
    down the segment, weight 0.01 like the set's other arm markers.
    """
    import copy

    from humanbody.model.segments import SEGMENT_NAMES

    out = copy.copy(prob)
    names, seg_of, local, weight = list(prob.names), list(prob.seg_of), list(prob.local), list(prob.weight)
    for seg in ("right_upper_arm", "left_upper_arm", "right_lower_arm", "left_lower_arm"):
        k = SEGMENT_NAMES.index(seg)
        z = np.mean([c[2] for c, s in zip(prob.local, prob.seg_of, strict=True) if s == k])
        for i in range(3):
            phi = 2 * np.pi * i / 3
            names.append(f"{seg}.cluster{i}")
            seg_of.append(k)
            local.append(np.array([radius * np.cos(phi), radius * np.sin(phi), z]))
            weight.append(0.01)
    out.names, out.seg_of = names, np.array(seg_of, dtype=np.int64)
    out.local, out.weight = np.array(local), np.array(weight)
    return out


def what_if(calibration, coords, noise_mm: float = 2.0, cutoff: float | None = 6.0) -> pd.DataFrame:
    """RMS predicted error (deg) of the arms' angles: the gait2392 arm markers vs 6 cm arm clusters."""
    from humanbody.markers.global_ik import ik_problem
    from humanbody.tools.precision import coordinate_covariance, filter_gain, ik_coordinate_names

    cols = ik_coordinate_names(calibration.model)
    q = coords[cols].to_numpy()
    theta, p = q[:, 3:].reshape(len(q), -1, 3), q[:, :3]
    t = coords["time"].to_numpy()
    gain = filter_gain(len(q), 1.0 / np.median(np.diff(t)), cutoff)
    out = {}
    for label, prob in (("gait2392", ik_problem(calibration)), ("with arm clusters", None)):
        prob = prob or with_arm_clusters(ik_problem(calibration))
        var = np.diagonal(coordinate_covariance(prob, theta, p, calibration.model.sequences, noise_mm / 1000),
                          axis1=1, axis2=2) * gain[:, None]
        out[label] = np.degrees(np.sqrt(np.mean(var, axis=0)))
    table = pd.DataFrame(out, index=cols)
    return table.loc[[c for c in cols if "_arm_" in c]]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--noise-mm", type=float, default=2.0)
    ap.add_argument("--cutoff", type=float, default=6.0, help="Hz; 0: no filter")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--motion", default="walk")
    ap.add_argument("--what-if", action="store_true", help="also the arms with 6 cm marker clusters")
    a = ap.parse_args(argv)
    table, pred, clean = run(a.seconds, a.noise_mm, a.cutoff or None, a.seeds, motion_kind=a.motion)
    filt = f"cut-off {a.cutoff:g} Hz (mean filter variance factor {pred.gain:.4f})" if a.cutoff else "no filter"
    print(f"{a.motion}, {a.seconds:g} s at 100 Hz, {a.noise_mm:g} mm noise, {filt}; RMS over frames, degrees")
    print(f"{'':22s} {'coordinate':26s} {'predicted':>9s} {'measured':>9s} {'ratio':>6s} {'noise-free':>10s}")
    for label, c in ROWS:
        r = table.loc[c]
        print(f"{label:22s} {c:26s} {r.predicted:9.2f} {r.measured:9.2f} {r.ratio:6.2f} {r.noise_free:10.2f}")
    seen = table[table["predicted"] > 0.05].iloc[3:]
    print(f"all {len(seen)} angles the markers see: measured / predicted {seen.ratio.min():.2f} .. "
          f"{seen.ratio.max():.2f} (median {seen.ratio.median():.2f}); root position "
          f"{table.ratio.iloc[:3].min():.2f} .. {table.ratio.iloc[:3].max():.2f}")
    if a.what_if:
        print("\nwhat if: a 3-marker cluster 6 cm off the long axis of each upper arm and forearm (predicted, deg)")
        print(what_if(clean.calibration, clean.coords, a.noise_mm, a.cutoff or None).round(2).to_string())


if __name__ == "__main__":
    main()

"""Table of docs/tracking.md "How precise can the angles be?": predicted vs measured noise of whole-body IK.

A synthetic walk (tests/ik_motions.py, the model's own forward kinematics
with the gait2392 marker layout of the shared static trial,
../shared/data/gait2392_walk) is written as a TRC file twice, without noise
and with white noise of ``--noise-mm`` per coordinate, and both go through
``analyze_trial(..., ik="global")`` with the 6 Hz low-pass.  The measured
noise-induced error of each coordinate is the RMS over the frames of the
noisy fit minus the noise-free fit (so the filter's and the pulls' own
bias does not count); the prediction is
:func:`humanbody.markers.precision.predict_precision` along the noise-free
fit.  Run:

    .venv/bin/python docs/scripts/ik_precision.py [--seconds 20] [--noise-mm 2] [--cutoff 6] [--seeds 1]
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
    """Predicted and measured RMS (deg; m for the root) per model coordinate, as a DataFrame."""
    from ik_motions import forward, motion
    from make_sample_markers import write_trc

    from humanbody.io import read_trial
    from humanbody.markers.axes import to_ground
    from humanbody.markers.calibration import calibrate
    from humanbody.markers.precision import coordinate_columns, predict_precision
    from humanbody.pipeline import analyze_trial

    static = DATA / "subject01_static.trc"
    st, _ = to_ground(read_trial(static))
    names = read_trial(DATA / "subject01_walk1.trc").attrs["markers"]
    cal = calibrate(st, "gait2392", mass=72.6, height=1.8)
    t = np.arange(int(seconds * rate)) / rate
    ang, root = motion(motion_kind, t)
    mk, _, _ = forward(cal, ang, root)
    mk = {m: v for m, v in mk.items() if m in names}
    cols = coordinate_columns()
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
    return out, pred


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--noise-mm", type=float, default=2.0)
    ap.add_argument("--cutoff", type=float, default=6.0, help="Hz; 0: no filter")
    ap.add_argument("--seeds", type=int, default=1)
    ap.add_argument("--motion", default="walk")
    a = ap.parse_args(argv)
    table, pred = run(a.seconds, a.noise_mm, a.cutoff or None, a.seeds, motion_kind=a.motion)
    print(f"{a.motion}, {a.seconds:g} s at 100 Hz, {a.noise_mm:g} mm noise, cut-off {a.cutoff:g} Hz "
          f"(mean filter variance factor {pred.gain:.4f}); RMS over frames, degrees")
    print(f"{'':22s} {'coordinate':26s} {'predicted':>9s} {'measured':>9s} {'ratio':>6s}")
    for label, c in ROWS:
        r = table.loc[c]
        print(f"{label:22s} {c:26s} {r.predicted:9.2f} {r.measured:9.2f} {r.ratio:6.2f}")


if __name__ == "__main__":
    main()

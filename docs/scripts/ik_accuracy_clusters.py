"""Table of docs/tracking.md "When the markers determine the angles": whole-body IK with marker clusters.

The gait2392 set plus a four-marker plate on each upper arm, forearm, thigh
and shank, C7/T10/CLAV on the thorax and two calcaneus markers per foot,
without the knee hinge pull (tests/markers/test_ik_accuracy_clusters.py
builds the set, the synthetic static trial and the trials).  The synthetic
walk, run, squat and arms overhead of tests/ik_motions.py, 6 s at 100 Hz
with 2 mm of white noise, go through ``analyze_trial(..., ik="global")``
(the run with ``cutoff_hz="auto"``); printed are the RMS errors of the
clinical angles (the largest of each group, degrees) and the arms' axial
rotations against :func:`humanbody.tools.precision.predict_precision`.
Needs the shared data (../shared/data/gait2392_walk).  Run:

    .venv/bin/python docs/scripts/ik_accuracy_clusters.py [--seeds 1]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "markers"), str(ROOT / "data")]

GROUPS = ("legs+pelvis sagittal", "legs+pelvis, all", "arms sagittal", "arms, all")


def _label(column: str) -> str:
    return column.removesuffix("_deg").replace("right_", "").replace("left_", "").replace("_", " ")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=1, help="noise draws per motion (seeds 1..N)")
    a = ap.parse_args(argv)
    from ik_motions import MOTIONS
    from test_ik_accuracy_clusters import arm_rotations, make_subject, rms_by_group, run_motion

    with tempfile.TemporaryDirectory() as tmp:
        subject = make_subject(Path(tmp))
        cal = subject[0]
        print(f"RMS error of the clinical angles, degrees (largest of each group; {a.seeds} noise draw(s))")
        print(f"{'motion':22s}" + "".join(f"{g:>34s}" for g in GROUPS))
        ratios = []
        for kind in MOTIONS:
            rows = []
            for seed in range(1, a.seeds + 1):
                an, cut, ang, root, t = run_motion(subject, kind, Path(tmp), seed)
                worst, rms = rms_by_group(cal, an, ang, root, t)
                rows.append([(rms[c], c) for c in worst])
                arms, _ = arm_rotations(cal, an, ang, root, t, cut)
                ratios.append((kind, seed, cut, arms))
            name = f"{kind} ({cut:g} Hz)" if kind == "run" else kind
            cells = [max(r[g] for r in rows) for g in range(4)]
            print(f"{name:22s}" + "".join(f"{v:8.2f} ({_label(c)})".rjust(34) for v, c in cells))
        print("\narms' axial rotations (model coordinates), measured vs predicted RMS, degrees")
        for kind, seed, cut, arms in ratios:
            r = arms["measured"] / arms["predicted"]
            print(f"{kind:14s} seed {seed}  {cut:g} Hz  predicted {arms.predicted.min():.2f}-{arms.predicted.max():.2f}"
                  f"  measured {arms.measured.min():.2f}-{arms.measured.max():.2f}  ratio {r.min():.2f}-{r.max():.2f}")
        allr = np.concatenate([(x["measured"] / x["predicted"]).to_numpy() for *_, x in ratios])
        print(f"all: measured / predicted {allr.min():.2f} .. {allr.max():.2f} (median {np.median(allr):.2f})")


if __name__ == "__main__":
    main()

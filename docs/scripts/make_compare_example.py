"""The compare tutorial (docs/stats.md): two synthetic groups from the sample walk, reported and compared.

Group ``control``: eight subjects, each the sample walk (data/sample_walk.csv)
with its own constant offsets of hip, knee and ankle flexion (SD 3, 2 and
2 deg) and a smooth subject-specific change of the knee curve over the
stride (amplitude up to 4 deg, random phase).  Group ``contracture``: eight
more subjects made the same way whose right knee cannot extend beyond 15 deg
of flexion (a knee flexion contracture): ``k' = k + s ln(1 + exp((15 deg - k)/s))``,
a smooth ``max(k, 15 deg)`` with ``s = 3 deg``.  The rates are left to the
report's differentiation.

Then ``humanbody report`` on each folder, ``humanbody compare`` of the two
report folders (right side), and the knee flexion figure as PNG for the
docs (docs/img/compare_knee_flexion.png).  Run:

    .venv/bin/python docs/scripts/make_compare_example.py [--work DIR]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data" / "sample_walk.csv"
FIGURE = ROOT / "docs" / "img" / "compare_knee_flexion.png"
DEG = np.pi / 180.0
STRIDE_TIME = 1.1  # s, the sample walk's


def subject(walk: pd.DataFrame, rng, contracture: bool) -> pd.DataFrame:
    """One subject's trial: generalized coordinates only (rad), perturbed as the module docstring says."""
    coords = walk[[c for c in walk.columns if not c.endswith(("_dot", "_ddot"))]].copy()
    t = coords["time"].to_numpy()
    phase = 2 * np.pi * t / STRIDE_TIME
    for side in ("right", "left"):
        hip, knee, ankle = rng.normal(0.0, (3.0, 2.0, 2.0)) * DEG
        coords[f"{side}_upper_leg_alpha"] -= hip  # hip flexion is a negative rotation
        wobble = rng.uniform(0.0, 4.0) * DEG * np.sin(phase + rng.uniform(0, 2 * np.pi))
        coords[f"{side}_lower_leg_alpha"] += knee + wobble
        coords[f"{side}_foot_alpha"] -= ankle
    if contracture:
        k = coords["right_lower_leg_alpha"].to_numpy()
        s, floor = 3.0 * DEG, 15.0 * DEG
        coords["right_lower_leg_alpha"] = k + s * np.logaddexp(0.0, (floor - k) / s)
    return coords


def run(cmd):
    print("$", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([sys.executable, "-m", "humanbody", *map(str, cmd)], check=True, cwd=ROOT)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", help="folder for the trials, reports and comparison (default: temporary)")
    ap.add_argument("--subjects", type=int, default=8)
    args = ap.parse_args(argv)
    walk = pd.read_csv(SAMPLE)
    rng = np.random.default_rng(2029)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(args.work or tmp)
        for group, prefix in (("control", "ctrl"), ("contracture", "kfc")):
            folder = work / "trials" / group
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(args.subjects):
                name = f"{prefix}{i + 1:02d}.csv"
                subject(walk, rng, group == "contracture").to_csv(folder / name, index=False, float_format="%.9g")
            run(["report", folder, "--out", work / "reports" / group, "--plots", "none", "-q"])
        out = work / "compare"
        run(["compare", work / "reports" / "control", work / "reports" / "contracture", "--out", out,
             "--side", "right", "--variables", "hip_flexion_deg", "knee_flexion_deg", "ankle_dorsiflexion_deg"])
        print((out / "clusters.csv").read_text())

        from humanbody.stats import ttest2
        from humanbody.stats.figure import spm_figure
        from humanbody.stats.groups import read_report

        groups = [read_report(work / "reports" / g, side="right", variables=["knee_flexion_deg"])
                  for g in ("control", "contracture")]
        curves = [g.curves["knee_flexion_deg"] for g in groups]
        result = ttest2(*curves)
        png = spm_figure("right knee flexion: control vs contracture", "deg", np.linspace(0, 100, 101),
                         [(g.name, c) for g, c in zip(groups, curves, strict=True)], result, fmt="png", dpi=100)
        FIGURE.write_bytes(png)
        print(result)
        print(f"wrote {FIGURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

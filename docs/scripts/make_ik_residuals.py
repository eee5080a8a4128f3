"""Figure docs/img/ik_residuals.png: marker residuals of segment fits and of whole-body IK.

Tracks the shared gait2392 walk (../shared/data/gait2392_walk) with its
static trial both ways (``track``: each segment alone; ``track_global``:
whole-body inverse kinematics, joints held together) and plots, per leg
segment, the median over frames of the RMS marker residual, and over time
the pelvis and right-leg residuals of both methods.  Falls back to the
project's sample walk (data/sample_walk_markers.trc) when the shared data
are absent.  Run: ``.venv/bin/python docs/scripts/make_ik_residuals.py``.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from humanbody.io import read_trial
from humanbody.lab.axes import to_ground
from humanbody.markers.calibration import calibrate
from humanbody.markers.global_ik import track_global
from humanbody.markers.tracking import track

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
OUT = ROOT / "docs" / "img" / "ik_residuals.png"
SEGS = ["lower_torso", "right_upper_leg", "right_lower_leg", "right_foot",
        "left_upper_leg", "left_lower_leg", "left_foot"]


def main():
    if (DATA / "subject01_walk1.trc").exists():
        walk, mapping = to_ground(read_trial(DATA / "subject01_walk1.trc"), "x,-z,y")
        static, _ = to_ground(read_trial(DATA / "subject01_static.trc"), "x,-z,y")
        mass, title = 72.6, "shared gait2392 walk"
    else:
        walk, mapping = to_ground(read_trial(ROOT / "data" / "sample_walk_markers.trc"))
        static, _ = to_ground(read_trial(ROOT / "data" / "sample_static.trc"), mapping.spec)
        mass, title = 75.0, "sample walk"
    cal = calibrate(static, "gait2392", mass=mass)
    seg, glob = track(walk, cal), track_global(walk, cal)
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    x = np.arange(len(SEGS))
    for off, tr, label in ((-0.2, seg, "segments (each alone)"), (0.2, glob, "global (joints held)")):
        med = [1000 * np.nanmedian(tr.residuals[s]) for s in SEGS]
        a.bar(x + off, med, width=0.4, label=label)
    a.set_xticks(x, [s.replace("_", "\n") for s in SEGS], fontsize=8)
    a.set_ylabel("median RMS marker residual (mm)")
    a.set_title(f"{title}: residual per segment")
    a.legend(fontsize=8)
    t = walk["time"].to_numpy()
    for tr, style, label in ((seg, "-", "segments"), (glob, "--", "global")):
        for s, colour in (("lower_torso", "C0"), ("right_upper_leg", "C1"), ("right_lower_leg", "C2")):
            b.plot(t, 1000 * tr.residuals[s].to_numpy(), style, color=colour, lw=1.2, label=f"{s} ({label})")
    b.set_xlabel("time (s)")
    b.set_ylabel("RMS marker residual (mm)")
    b.set_title("over the trial")
    b.legend(fontsize=7, ncol=2)
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")
    for s in SEGS:
        print(f"{s}: segments {1000 * np.nanmedian(seg.residuals[s]):.1f} mm, "
              f"global {1000 * np.nanmedian(glob.residuals[s]):.1f} mm")


if __name__ == "__main__":
    main()

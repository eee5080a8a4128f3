"""Figure docs/img/ikcompare.png: our hip, knee and ankle angles vs OpenSim IK.

Reads the shared gait2392 walk and static (../shared/data/gait2392_walk),
tracks it with the built-in gait2392 marker set and plots both sides against
reference/opensim_ik.mot on the same clock (the 121 frames of 0.5-2.5 s that
both files cover).  Each curve is shown minus its mean (the joint frames
differ by constant offsets).  Run: ``.venv/bin/python docs/scripts/make_ikcompare.py``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from humanbody.io import read_trial  # noqa: E402
from humanbody.lab.axes import to_ground  # noqa: E402
from humanbody.markers.tracking import markers_to_coordinates  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from tests.markers.test_opensim_agreement import DATA, same_time  # noqa: E402

OUT = ROOT / "docs" / "img" / "ikcompare.png"
JOINTS = [("hip_flexion", "upper_leg", "hip flexion"), ("knee_angle", "lower_leg", "knee (OpenSim sign: flexion < 0)"),
          ("ankle_angle", "foot", "ankle dorsiflexion")]


def main():
    walk, _ = to_ground(read_trial(DATA / "subject01_walk1.trc"), "x,-z,y")
    static, _ = to_ground(read_trial(DATA / "subject01_static.trc"), "x,-z,y")
    try:
        coords, cal, tr = markers_to_coordinates(walk, static=static, mass=72.6)
    except ImportError:  # anthropometry not installed: masses do not affect angles
        from tests.markers.test_tracking import base_model

        coords, cal, tr = markers_to_coordinates(walk, static=static, mass=72.6, base_model=base_model())
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    frames, part = same_time(coords, ik)
    t = coords.time.to_numpy()[frames]
    fig, axes = plt.subplots(3, 2, figsize=(10, 8), sharex=True)
    for j, (col, seg, label) in enumerate(JOINTS):
        for i, (s, side) in enumerate((("r", "right"), ("l", "left"))):
            ax = axes[j, i]
            ours = -np.degrees(coords[f"{side}_{seg}_alpha"].to_numpy()[frames])
            ref = part[f"{col}_{s}"].to_numpy()
            r = np.corrcoef(ours, ref)[0, 1]
            rms = np.sqrt(np.mean(((ours - ours.mean()) - (ref - ref.mean())) ** 2))
            ax.plot(t, ref - ref.mean(), "k-", lw=2, label="OpenSim IK")
            ax.plot(t, ours - ours.mean(), "C3--", lw=1.5, label="humanbody (-alpha)")
            ax.set_title(f"{side} {label}\nr = {r:.3f}, centred RMS = {rms:.1f} deg", fontsize=9)
            ax.set_ylabel("deg (mean removed)")
            ax.grid(alpha=0.3)
    axes[-1, 0].set_xlabel("time in walk1.trc (s)")
    axes[-1, 1].set_xlabel("time in walk1.trc (s)")
    axes[0, 0].legend(fontsize=8)
    fig.suptitle(f"subject01_walk1: segment tracking vs OpenSim IK (same clock, {len(frames)} frames)")
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

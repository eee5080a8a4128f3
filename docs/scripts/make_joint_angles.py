"""Figure docs/img/joint_angles.png: the shared walk's clinical joint angles beside OpenSim IK.

Reads the shared gait2392 walk and static (../shared/data/gait2392_walk),
tracks it with the built-in gait2392 marker set, computes the clinical angles
(:mod:`humanbody.mechanics.clinical`) and plots them over time with OpenSim's inverse
kinematics (reference/opensim_ik.mot, on the same clock: the 121 frames of
0.5-2.5 s that both files cover; each curve minus its mean: the two models'
joint frames differ by constant offsets), and prints the table of
docs/joint_angles.md: r, the mean offset (ours minus OpenSim's), the RMS
difference and the centred RMS difference of each angle.
Run: ``.venv/bin/python docs/scripts/make_joint_angles.py``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from humanbody.markers.tracking import markers_to_coordinates  # noqa: E402
from humanbody.mechanics.clinical import clinical_angles  # noqa: E402
from tests.markers.test_opensim_agreement import DATA, _read_ground, same_time  # noqa: E402

OUT = ROOT / "docs" / "img" / "joint_angles.png"
PANELS = [  # (ours, OpenSim column, OpenSim sign, title)
    ("hip_flexion_deg", "hip_flexion", 1, "hip flexion"),
    ("hip_adduction_deg", "hip_adduction", 1, "hip adduction"),
    ("knee_flexion_deg", "knee_angle", -1, "knee flexion"),
    ("ankle_dorsiflexion_deg", "ankle_angle", 1, "ankle dorsiflexion"),
]


def main():
    coords, cal, _ = markers_to_coordinates(_read_ground(DATA / "subject01_walk1.trc"),
                                            static=_read_ground(DATA / "subject01_static.trc"), mass=72.6)
    clin = clinical_angles(cal.model, coords, cal)
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    frames, part = same_time(coords, ik)
    clin = clin.iloc[frames]
    t = coords["time"].to_numpy()[frames]
    fig, axes = plt.subplots(2, 4, figsize=(13, 5.6), sharex=True)
    for row, (s, side, colour) in enumerate((("r", "right", "#c0392b"), ("l", "left", "#2471a3"))):
        for col, (ours, theirs, sign, title) in enumerate(PANELS):
            ax = axes[row, col]
            a = clin[f"{side}_{ours}"].to_numpy()
            b = sign * part[f"{theirs}_{s}"].to_numpy()
            r = np.corrcoef(a, b)[0, 1]
            ax.plot(t, a - a.mean(), color=colour, lw=1.8, label="humanbody")
            ax.plot(t, b - b.mean(), color="0.3", lw=1.2, ls="--", label="OpenSim IK")
            ax.set_title(f"{side} {title} (r = {r:.2f})", fontsize=9)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("deg (minus mean)")
            if row == 1:
                ax.set_xlabel("time (s)")
    print("| angle | side | r | mean offset (deg) | RMS (deg) | centred RMS (deg) |")
    print("|---|---|---|---|---|---|")
    for ours, theirs, sign, title in PANELS:
        for s, side in (("r", "right"), ("l", "left")):
            d = clin[f"{side}_{ours}"].to_numpy() - sign * part[f"{theirs}_{s}"].to_numpy()
            r = np.corrcoef(clin[f"{side}_{ours}"].to_numpy(), sign * part[f"{theirs}_{s}"].to_numpy())[0, 1]
            print(f"| {title} | {side} | {r:.3f} | {d.mean():+.1f} | {np.sqrt(np.mean(d ** 2)):.1f} "
                  f"| {np.sqrt(np.mean((d - d.mean()) ** 2)):.1f} |")
    axes[0, 0].legend(fontsize=8, frameon=False)
    fig.suptitle("subject01_walk1: clinical joint angles against OpenSim's inverse kinematics", fontsize=11)
    fig.tight_layout()
    fig.savefig(OUT, dpi=90)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

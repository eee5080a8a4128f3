"""Figure docs/img/relative_head.png: the head's acceleration in the trunk's axes on the shared walk.

Analyses the shared gait2392 walk, then plots the acceleration of the head's
frame origin (the upper neck joint) relative to the upper torso, in upper-torso
axes, beside the head's acceleration in ground; both in m/s^2.
Run: ``.venv/bin/python docs/scripts/make_relative.py``.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import humanbody as hb  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
OUT = ROOT / "docs" / "img" / "relative_head.png"


def main():
    a = hb.analyze_trial(DATA / "subject01_walk1.trc", static=DATA / "subject01_static.trc", mass=72.6)
    res = a.results
    rel = res.relative("head.com", to="upper_torso")          # in upper-torso axes
    ground = res.relative("head.com", to="ground")
    t = res.time
    fig, axes = plt.subplots(1, 2, figsize=(11, 3.6), sharey=True)
    for ax, st, title in ((axes[0], ground, "head mass centre, ground axes"),
                          (axes[1], rel, "head mass centre relative to the upper torso, its axes")):
        for j, (name, c) in enumerate((("x forward", "#c0392b"), ("y left", "#27ae60"), ("z up", "#2471a3"))):
            ax.plot(t, st.acceleration[:, j], color=c, label=name)
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("acceleration (m/s²)")
    axes[0].legend(fontsize=8, frameon=False)
    peak = np.abs(rel.acceleration).max()
    fig.suptitle(f"subject01_walk1: what the trunk feels of the head (peak {peak:.1f} m/s²) against the head's "
                 "motion in the lab", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT, dpi=90)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

"""Figure docs/img/angle_zero.png: the shared walk's clinical angles with the anatomical and the static zero.

Reads the shared gait2392 walk and static (../shared/data/gait2392_walk),
tracks it with the built-in gait2392 marker set and plots pelvis tilt, hip,
knee and ankle flexion of the right side over time, once with the default
anatomical zero (angles between the anatomical segment frames) and once with
``zero="static"`` (the standing calibration pose subtracted).  Prints each
curve's mean.  Run: ``.venv/bin/python docs/scripts/make_angle_zero.py``.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]
from humanbody.markers.tracking import markers_to_coordinates  # noqa: E402
from humanbody.mechanics.clinical import clinical_angles  # noqa: E402
from tests.markers.test_opensim_agreement import DATA, _read_ground  # noqa: E402

OUT = ROOT / "docs" / "img" / "angle_zero.png"
PANELS = [("pelvis_tilt_deg", "pelvis tilt"), ("right_hip_flexion_deg", "right hip flexion"),
          ("right_knee_flexion_deg", "right knee flexion"), ("right_ankle_dorsiflexion_deg", "right ankle dorsiflexion")]


def main():
    coords, cal, _ = markers_to_coordinates(_read_ground(DATA / "subject01_walk1.trc"),
                                            static=_read_ground(DATA / "subject01_static.trc"), mass=72.6)
    anatomical = clinical_angles(cal.model, coords, cal)
    static = clinical_angles(cal.model, coords, cal, zero="static")
    t = coords["time"].to_numpy()
    fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), sharex=True)
    for ax, (col, title) in zip(axes, PANELS, strict=True):
        a, s = anatomical[col], static[col]
        ax.plot(t, a, color="#c0392b", lw=1.8, label="anatomical (default)")
        ax.plot(t, s, color="0.35", lw=1.2, ls="--", label="--angle-zero static")
        ax.axhline(0.0, color="0.7", lw=0.6)
        ax.set_title(f"{title}\nmean {a.mean():+.1f} / {s.mean():+.1f} deg", fontsize=9)
        ax.set_xlabel("time (s)")
        ax.grid(alpha=0.3)
        print(f"{col}: anatomical mean {a.mean():+.1f} deg, static mean {s.mean():+.1f} deg")
    axes[0].set_ylabel("deg")
    axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle("subject01_walk1: clinical angles with the anatomical and the static zero", fontsize=11)
    fig.tight_layout()
    fig.savefig(OUT, dpi=90)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

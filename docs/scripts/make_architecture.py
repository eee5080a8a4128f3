"""Draw docs/img/architecture.png: humanbody's packages in floors, and the path of a trial through them.

Run from the repository root:  python docs/scripts/make_architecture.py
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "img" / "architecture.png"

#: Floors of packages, top (the face) to bottom (plain arrays); a package imports only from floors below it.
FLOORS = [
    ("face", ["cli.py · commands/", "report/", "viewer/", "apps/"]),
    ("stages", ["analysis/ (analyze_trial)", "options.py · trial.py", "trial_output.py · export.py", "checks/"]),
    ("domain", ["tools/", "gait/", "mechanics/", "simulation/", "imu/", "markers/", "io/", "stats/"]),
    ("foundations", ["core/", "lab/", "model/", "rotations/", "signal/", "errors.py"]),
    ("kernels", ["_kernels/ (numba, arrays in, arrays out)"]),
]

#: The path of a marker trial through `humanbody analyze`: stage, function, package.
STAGES = [
    ("read", "trial.load_trial -> io.loads.read_loads", "trial.py"),
    ("condition", "markers.conditioning.condition", "markers/"),
    ("calibrate", "markers.calibration.calibrate", "markers/"),
    ("track", "markers.tracking.track", "markers/"),
    ("rates", "mechanics.kinematics.prepare_motion", "mechanics/"),
    ("mechanics", "mechanics.kinematics.compute_motion", "mechanics/"),
    ("loads", "mechanics.foot_contact.assign_loads", "mechanics/"),
    ("kinetics", "mechanics.kinetics.kinetic_block", "mechanics/"),
    ("clinical", "mechanics.clinical.clinical_angles", "mechanics/"),
    ("write", "trial_output.write_results", "trial_output.py"),
]

COLOURS = {"face": "#dbe9f6", "stages": "#fde6c8", "domain": "#d9f0d3", "foundations": "#eadcf0", "kernels": "#eeeeee"}


def main() -> None:
    fig, ax = plt.subplots(figsize=(14, 7.2))
    ax.set_xlim(0, 14)
    ax.set_ylim(0, 7.2)
    ax.axis("off")
    centres = {}
    width = 7.6
    for i, (floor, packages) in enumerate(FLOORS):
        y = 6.3 - i * 1.35
        ax.text(0.1, y + 0.35, floor, fontsize=10, style="italic", color="#555555", va="center")
        w = (width - 0.2 * (len(packages) - 1)) / len(packages)
        for j, name in enumerate(packages):
            x = 1.3 + j * (w + 0.2)
            ax.add_patch(FancyBboxPatch((x, y), w, 0.7, boxstyle="round,pad=0.02,rounding_size=0.08",
                                        fc=COLOURS[floor], ec="#444444", lw=1))
            ax.text(x + w / 2, y + 0.35, name, ha="center", va="center", fontsize=9.5 if len(name) < 22 else 8)
            for part in name.split(" (")[0].split(" · "):
                centres[part] = (x + w / 2, y + 0.35)
        if i:
            ax.annotate("", xy=(0.55, y + 0.72), xytext=(0.55, y + 1.32),
                        arrowprops=dict(arrowstyle="->", color="#777777"))
    ax.text(0.62, 6.3 - 0.68, "imports\npoint down", fontsize=8, color="#777777", va="center")

    # the trial's path, right column, and a link from each stage to its package
    ax.text(11.4, 7.0, "a marker trial: the stages of analyze_trial", ha="center", fontsize=10.5,
            weight="bold")
    for k, (stage, func, package) in enumerate(STAGES):
        y = 6.5 - k * 0.66
        ax.add_patch(FancyBboxPatch((9.1, y - 0.24), 4.7, 0.48, boxstyle="round,pad=0.02,rounding_size=0.08",
                                    fc="#fff8e1", ec="#b07b00", lw=1))
        ax.text(9.2, y, f"{k + 1:2d} {stage}", va="center", fontsize=9.5, weight="bold")
        ax.text(13.7, y, func, va="center", ha="right", fontsize=8, family="monospace")
        if k:
            ax.annotate("", xy=(11.4, y + 0.24), xytext=(11.4, y + 0.42),
                        arrowprops=dict(arrowstyle="-|>", color="#b07b00", lw=1))
        px, py = centres[package if package in centres else package.split(".")[0]]
        ax.add_patch(FancyArrowPatch((9.1, y), (px + 0.3, py + 0.1), arrowstyle="-", color="#b07b00",
                                     lw=0.6, alpha=0.45, connectionstyle="arc3,rad=0.08"))
    fig.tight_layout()
    OUT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(OUT, dpi=110)
    print(OUT)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Figures of docs/tutorial.md, from the shared walking trial.

    .venv/bin/python docs/scripts/make_tutorial_figures.py [--shared ../shared/data]

Writes docs/img/tutorial_angles.png, tutorial_com.png, tutorial_inertia.png and
tutorial_power.png.  Needs the shared recording beside the repository.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from humanbody.analysis import analyze_trial  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
IMG = ROOT / "docs" / "img"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=str(ROOT.parent / "shared" / "data"))
    args = ap.parse_args(argv)
    walk = Path(args.shared) / "gait2392_walk"
    a = analyze_trial(walk / "subject01_walk1.trc", static=walk / "subject01_static.trc", mass=72.6)
    res, coords, model = a.results, a.coords, a.model
    t = res.time
    IMG.mkdir(parents=True, exist_ok=True)

    # 1. sagittal joint angles (flexion = -alpha for hip and ankle, +alpha for knee: flexion-first sequence yxz)
    fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    for ax, (seg, sign, label) in zip(axes, [("upper_leg", -1, "hip flexion"),
                                             ("lower_leg", 1, "knee flexion"),
                                             ("foot", -1, "ankle dorsiflexion")], strict=True):
        for side, style in (("right", "-"), ("left", "--")):
            ax.plot(t, sign * np.degrees(coords[f"{side}_{seg}_alpha"]), style, label=side)
        ax.set_ylabel(f"{label} (deg)")
        ax.grid(alpha=0.3)
    axes[0].legend()
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("subject01_walk1: sagittal joint angles\n(first angle alpha of the flexion-first sequence, each body relative to its parent)",
                 fontsize="medium")
    fig.tight_layout()
    fig.savefig(IMG / "tutorial_angles.png", dpi=110)
    plt.close(fig)

    # 2. whole-body mass centre
    fig, axes = plt.subplots(3, 1, figsize=(7, 7), sharex=True)
    for i, ax in enumerate(axes):
        ax.plot(t, res.body_com[:, i] - (res.body_com[:, i].mean() if i < 2 else 0), label="position (m)")
        ax.plot(t, res.body_com_vel[:, i], label="velocity (m/s)")
        ax.set_ylabel("XYZ"[i] + (" (mean removed)" if i < 2 else ""))
        ax.grid(alpha=0.3)
    axes[0].legend(loc="upper right", fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("whole-body mass centre (eq. 9.19): X forward, Y left, Z up")
    fig.tight_layout()
    fig.savefig(IMG / "tutorial_com.png", dpi=110)
    plt.close(fig)

    # 3. inertia forces and torques of the legs
    fig, axes = plt.subplots(2, 1, figsize=(7, 6), sharex=True)
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot"):
        k = model.segment(seg)
        axes[0].plot(t, res.force[:, k, 0], label=seg)
        axes[1].plot(t, res.torque[:, k, 1], label=seg)
    axes[0].set_ylabel("F*_x (N), forward")
    axes[1].set_ylabel("T*_y (N m), about left axis")
    for ax in axes:
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    axes[-1].set_xlabel("time (s)")
    fig.suptitle("inertia forces F* = -m a_G and torques\nT* = -I.alpha - omega x I.omega (10.1, 10.2)", fontsize="medium")
    fig.tight_layout()
    fig.savefig(IMG / "tutorial_inertia.png", dpi=110)
    plt.close(fig)

    # 4. power balance on real data
    ke = res.kinetic_energy()
    dke = np.gradient(ke, t)
    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.plot(t, dke, label="d(KE)/dt, finite differences")
    ax.plot(t, -res.inertia_power(), "--", label="-sum(F*.v_G + T*.omega)")
    ax.set_xlabel("time (s)")
    ax.set_ylabel("W")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    ax.set_title("power balance of the inertia forces, subject01_walk1")
    fig.tight_layout()
    fig.savefig(IMG / "tutorial_power.png", dpi=110)
    plt.close(fig)
    print(f"wrote 4 figures to {IMG}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Figure docs/img/residual_reduction.png: the shared walk's pelvis residual before and after ``--reduce-residuals``.

Analyses the shared gait2392 walk with its force plates twice, by default and
with residual reduction, and plots the magnitude of the residual force (N)
and moment (N m) at the pelvis over the trial with the Hicks et al. 2015
limits (5 % of the peak ground reaction; 1 % of the mass centre's height times
it), the knee flexion angle of both runs (every joint angle is kept) and how
far the markers move.  Run: ``.venv/bin/python docs/scripts/make_residual_reduction.py``.
"""

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import humanbody as hb  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
OUT = ROOT / "docs" / "img" / "residual_reduction.png"


def _root(analysis, what):
    k = analysis.kinetics
    return np.linalg.norm(k[[f"lower_torso_joint_{what}_{a}" for a in "xyz"]].to_numpy(), axis=1)


def main():
    opts = hb.AnalysisOptions(static=str(DATA / "subject01_static.trc"), mass=72.6,
                              forces=str(DATA / "subject01_walk1_grf.mot"))
    plain = hb.analyze_trial(DATA / "subject01_walk1.trc", opts)
    red = hb.analyze_trial(DATA / "subject01_walk1.trc", opts, reduce_residuals=True)
    rec = red.model.residual_reduction
    t = plain.coords["time"].to_numpy()
    grf = rec["peak_external_force_N"]
    fig, axes = plt.subplots(1, 3, figsize=(12, 3.4))
    for ax, what, unit, limit in ((axes[0], "force", "N", 0.05 * grf),
                                  (axes[1], "moment", "N m", 0.01 * rec["com_height_m"] * grf)):
        ax.plot(t, _root(plain, what), color="0.55", label="default")
        ax.plot(t, _root(red, what), color="C3", label="--reduce-residuals")
        ax.axhline(limit, color="k", ls="--", lw=0.8, label="Hicks et al. 2015 limit")
        ax.set_xlabel("time (s)")
        ax.set_ylabel(f"residual {what} at the pelvis ({unit})")
        ax.legend(frameon=False, fontsize=8)
    col = "right_knee_flexion_deg"
    axes[2].plot(t, plain.clinical[col], color="0.55", lw=3, label="default")
    axes[2].plot(t, red.clinical[col], color="C3", lw=1, label="--reduce-residuals")
    axes[2].set_xlabel("time (s)")
    axes[2].set_ylabel("right knee flexion (deg)")
    axes[2].set_title(f"markers moved {100 * rec['marker_change_rms_m']:.1f} cm RMS, "
                      f"pelvis turned {rec['pelvis_rotation_rms_deg']:.1f} deg RMS", fontsize=9)
    axes[2].legend(frameon=False, fontsize=8)
    before, after = rec["before"]["force_peak"], rec["after"]["force_peak"]
    fig.suptitle(f"shared walk: peak residual force {before:.0f} N ({100 * before / grf:.1f} % of the peak ground "
                 f"reaction) -> {after:.0f} N ({100 * after / grf:.1f} %)", fontsize=10)
    fig.tight_layout()
    fig.savefig(OUT, dpi=110)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

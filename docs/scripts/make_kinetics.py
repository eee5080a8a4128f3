"""Figure docs/img/kinetics_opensim.png: the shared walk's joint moments beside OpenSim's inverse dynamics.

Analyses the shared gait2392 walk with its force plates (subject01_walk1_grf.mot
and its ExternalLoads XML) and plots the sagittal hip, knee and ankle moments
and the hip adduction moment (N m) with OpenSim's
reference/opensim_inverse_dynamics.sto; the force file and the trial share
their time base.  A second humanbody curve uses the inputs of OpenSim's own
model of the subject: its hip joint centres (the walk re-tracked with them)
and its thigh, shank and foot parameters (tests/_opensim_subject01.py).
Prints, for the default run, each moment's mean offset (ours minus
OpenSim's) and RMS difference in N·m/kg inside OpenSim's filter transients
(the table of docs/kinetics.md).
Run: ``.venv/bin/python docs/scripts/make_kinetics.py``.
"""

import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import humanbody as hb  # noqa: E402
from humanbody.mechanics.kinematics import compute_motion  # noqa: E402
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _opensim_subject01 import markerset_with_opensim_hips, with_opensim_legs  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
OUT = ROOT / "docs" / "img" / "kinetics_opensim.png"
PANELS = [("hip_flexion_moment_Nm_per_kg", "hip_flexion_{s}_moment", 1, "hip flexion moment"),
          ("hip_adduction_moment_Nm_per_kg", "hip_adduction_{s}_moment", 1, "hip adduction moment"),
          ("knee_flexion_moment_Nm_per_kg", "knee_angle_{s}_moment", -1, "knee flexion moment"),
          ("ankle_dorsiflexion_moment_Nm_per_kg", "ankle_angle_{s}_moment", 1, "ankle dorsiflexion moment")]


def main():
    mass = 72.6
    kw = dict(static=DATA / "subject01_static.trc", mass=mass, height=1.8, forces=DATA / "subject01_walk1_grf.mot")
    analysis = hb.analyze_trial(DATA / "subject01_walk1.trc", **kw)
    kin = analysis.kinetics
    t = analysis.coords["time"].to_numpy()
    with tempfile.TemporaryDirectory() as tmp:  # OpenSim's hip centres and leg parameters
        mset = markerset_with_opensim_hips(Path(tmp) / "gait2392_opensim_hips.toml")
        same = hb.analyze_trial(DATA / "subject01_walk1.trc", markerset=mset, **kw)
    model = with_opensim_legs(same.model)
    kin_same = pd.DataFrame(kinetic_block(model, compute_motion(model, same.motion), same.loads) * model.total_mass,
                            columns=kinetic_columns(model))
    t_same = same.coords["time"].to_numpy()
    sto = pd.read_csv(DATA / "reference" / "opensim_inverse_dynamics.sto", sep=r"\s+", skiprows=6)
    fig, axes = plt.subplots(2, 4, figsize=(13, 6.0), sharex=True)
    for row, (s, side, colour) in enumerate((("r", "right", "#c0392b"), ("l", "left", "#2471a3"))):
        for col, (ours, theirs, sign, title) in enumerate(PANELS):
            ax = axes[row, col]
            a = kin[f"{side}_{ours}"].to_numpy() * mass
            b = sign * sto[theirs.format(s=s)].to_numpy()
            c = kin_same[f"{side}_{ours}"].to_numpy()
            inner = sto.iloc[6:-6]
            r = np.corrcoef(np.interp(inner["time"], t, a), sign * inner[theirs.format(s=s)])[0, 1]
            r_same = np.corrcoef(np.interp(inner["time"], t_same, c), sign * inner[theirs.format(s=s)])[0, 1]
            d = (np.interp(inner["time"], t, a) - sign * inner[theirs.format(s=s)].to_numpy()) / mass
            print(f"{side} {title}: r {r:.3f}, mean offset {d.mean():+.3f} N m/kg, RMS {np.sqrt(np.mean(d ** 2)):.3f} N m/kg")
            ax.plot(t, a, color=colour, lw=1.8, label="humanbody")
            ax.plot(t_same, c, color=colour, lw=1.2, alpha=0.55, label="humanbody, OpenSim's hips and legs")
            ax.plot(sto["time"], b, color="0.3", lw=1.2, ls="--", label="OpenSim ID")
            ax.set_title(f"{side} {title}\n(r = {r:.2f}; same inputs {r_same:.2f})", fontsize=8.5)
            ax.set_xlim(0.3, 1.7)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("N m (internal)")
            if row == 1:
                ax.set_xlabel("time (s)")
    axes[0, 0].legend(fontsize=8, frameon=False)
    fig.suptitle("subject01_walk1: joint moments against OpenSim's inverse dynamics", fontsize=11)
    fig.tight_layout()
    fig.savefig(OUT, dpi=90)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()

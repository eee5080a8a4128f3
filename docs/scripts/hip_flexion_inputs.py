"""Table of docs/kinetics.md "What drives the hip flexion moment's difference": one input at a time.

Analyses the shared gait2392 walk (``../shared/data/gait2392_walk`` beside the
repository) with its force plates, ``--mass 72.6 --height 1.8``, by default
and with one input changed: the loads' or the markers' low-pass cut-off, the
hip-centre regression (Bell 1990, Davis 1991), the pelvis fitted to its own
markers only, OpenSim's hip centres, OpenSim's leg parameters
(tests/_opensim_subject01.py).  Prints, for each, Pearson's r of the hip
flexion, knee flexion, hip adduction and ankle moments against OpenSim's
inverse dynamics (right / left), OpenSim's filter transients (first and last
0.1 s) left out.
Run: ``.venv/bin/python docs/scripts/hip_flexion_inputs.py`` (a few minutes).
"""

import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.kinematics import compute_motion
from humanbody.kinetics import kinetic_block, kinetic_columns

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _opensim_subject01 import markerset_with_opensim_hips, with_opensim_legs  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
SET = ROOT / "humanbody" / "data" / "markersets" / "gait2392.toml"
MOMENTS = (("hip_flexion_moment_Nm_per_kg", "hip_flexion_{s}_moment", 1.0),
           ("knee_flexion_moment_Nm_per_kg", "knee_angle_{s}_moment", -1.0),
           ("hip_adduction_moment_Nm_per_kg", "hip_adduction_{s}_moment", 1.0),
           ("ankle_dorsiflexion_moment_Nm_per_kg", "ankle_angle_{s}_moment", 1.0))


def correlations(analysis, sto) -> list[str]:
    t = sto["time"].to_numpy()
    out = []
    for ours, theirs, sign in MOMENTS:
        rs = []
        for s, side in (("r", "right"), ("l", "left")):
            x = np.interp(t, analysis.coords["time"].to_numpy(), analysis.kinetics[f"{side}_{ours}"].to_numpy())
            rs.append(np.corrcoef(x, sign * sto[theirs.format(s=s)].to_numpy())[0, 1])
        out.append(f"{rs[0]:.3f} / {rs[1]:.3f}")
    return out


def with_legs(analysis):
    model = with_opensim_legs(analysis.model)
    block = kinetic_block(model, compute_motion(model, analysis.motion), analysis.loads)
    return types.SimpleNamespace(kinetics=pd.DataFrame(block, columns=kinetic_columns(model)), coords=analysis.coords)


def marker_set(tmp: Path, name: str, edit) -> Path:
    path = tmp / f"gait2392_{name}.toml"
    path.write_text(edit(SET.read_text()).replace('name = "gait2392"', f'name = "gait2392_{name}"', 1))
    return path


def davis(text: str) -> str:
    for side, s in (("right", "R"), ("left", "L")):
        old = (f'[points.{side}_hip]\nregression = "harrington2007"\nside = "{side}"\n'
               'asis = ["R.ASIS", "L.ASIS"]\nsacrum = ["V.Sacral"]\n')
        text = text.replace(old, old.replace("harrington2007", "davis1991")
                            + f'leg_length = [["{s}.ASIS", "{s}.Knee.Med", "{s}.Ankle.Med"]]\n')
    return text


def main() -> None:
    sto = pd.read_csv(DATA / "reference" / "opensim_inverse_dynamics.sto", sep=r"\s+", skiprows=6).iloc[6:-6]
    common = dict(static=DATA / "subject01_static.trc", mass=72.6, height=1.8, forces=DATA / "subject01_walk1_grf.mot")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        runs = {
            "defaults": {},
            "loads not filtered": dict(forces_cutoff_hz=0),
            "loads at 15 Hz": dict(forces_cutoff_hz=15),
            "markers and loads at 8 Hz": dict(cutoff_hz=8),
            "pelvis from its markers only": dict(markerset=marker_set(
                tmp, "pelvis", lambda t: t.replace('child_joints = ["right_upper_leg", "left_upper_leg"]\n', "", 1))),
            "Bell 1990 hips": dict(markerset=marker_set(
                tmp, "bell", lambda t: t.replace('regression = "harrington2007"', 'regression = "bell1990"'))),
            "Davis 1991 hips": dict(markerset=marker_set(tmp, "davis", davis)),
            "OpenSim's hips": dict(markerset=markerset_with_opensim_hips(tmp / "gait2392_opensim_hips.toml")),
        }
        print("| humanbody run with | hip flexion | knee flexion | hip adduction | ankle |")
        for name, options in runs.items():
            a = hb.analyze_trial(DATA / "subject01_walk1.trc", **common, **options)
            print(f"| {name} | " + " | ".join(correlations(a, sto)) + " |", flush=True)
            if name == "defaults":
                print("| OpenSim's legs | " + " | ".join(correlations(with_legs(a), sto)) + " |", flush=True)
            if name == "OpenSim's hips":
                print("| OpenSim's hips and legs | " + " | ".join(correlations(with_legs(a), sto)) + " |", flush=True)


if __name__ == "__main__":
    main()

"""Table of docs/kinetics.md "Where do the walk's own markers put the hip centres?".

Moves both hip centres of the gait2392 marker set forward and backward from
Harrington's regression (Harrington et al. 2007, the default), along the
pelvis's forward axis, in steps, up to where OpenSim's scaled Gait2392 model
has them (35 mm further back), and for each place measures on the shared
walk (``../shared/data/gait2392_walk``, ``--mass 72.6 --height 1.8``):

- how well the markers fit the model with the joints held together: the RMS
  distance between every pelvis and leg marker and its model position after
  whole-body inverse kinematics (:func:`humanbody.markers.global_ik.track_global`,
  the raw markers as read), the quantity the fit minimises;
- the hip adduction angle against OpenSim's inverse kinematics of the walk
  (Pearson's r, right / left, whole-body IK, the frames both cover: the same
  clock, 0.5-2.5 s);
- the hip flexion moment against OpenSim's inverse dynamics (r, right /
  left, the default analysis with the force plates; OpenSim's first and last
  0.1 s left out, as in the tests).

Run: ``.venv/bin/python docs/scripts/hip_centre_residuals.py`` (about a minute).
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.io import read_trial
from humanbody.lab.axes import to_ground
from humanbody.markers.calibration import calibrate
from humanbody.markers.global_ik import track_global
from humanbody.markers.joint_centres import hip_harrington2007, pelvis_frame
from humanbody.mechanics.clinical import clinical_angles

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _opensim_subject01 import hip_offsets  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
SET = ROOT / "humanbody" / "data" / "markersets" / "gait2392.toml"
LEG_MARKERS = ("Thigh", "Shank", "ASIS", "Sacral", "Heel", "Toe", "Midfoot")


def ground(path):
    return to_ground(read_trial(path))[0]


def harrington_offsets(static) -> dict[str, np.ndarray]:
    """Harrington's hip centres minus mid-ASIS (m) in the marker set's pelvis frame, from the static's median markers."""
    med = {m: np.array([np.nanmedian(static[f"{m}_{a}"]) for a in "xyz"]) for m in ("R.ASIS", "L.ASIS", "V.Sacral")}
    R, mid, _, _ = pelvis_frame(med["R.ASIS"], med["L.ASIS"], med["V.Sacral"])
    R, mid = np.asarray(R).reshape(3, 3), np.asarray(mid).reshape(3)
    return {side: R.T @ (np.asarray(hip_harrington2007(med["R.ASIS"], med["L.ASIS"], med["V.Sacral"], side))
                         .reshape(3) - mid) for side in ("right", "left")}


def moved_set(tmp: Path, offsets: dict[str, np.ndarray], forward_mm: float) -> Path:
    """A copy of the gait2392 set with each hip centre an offset from mid-ASIS, moved forward by ``forward_mm``."""
    text = SET.read_text().replace('name = "gait2392"', f'name = "gait2392_hips_{forward_mm:+.0f}"', 1)
    for side, off in offsets.items():
        old = (f'[points.{side}_hip]\nregression = "harrington2007"\nside = "{side}"\n'
               'asis = ["R.ASIS", "L.ASIS"]\nsacrum = ["V.Sacral"]\n')
        assert old in text, f"gait2392.toml's {side}_hip rule changed"
        o = off + np.array([forward_mm / 1000.0, 0.0, 0.0])
        text = text.replace(old, f'[points.{side}_hip]\nfrom = "mid_asis"\noffset = [{o[0]:.6f}, {o[1]:.6f}, '
                                 f'{o[2]:.6f}]\nframe = "lower_torso"\n')
    path = tmp / f"hips_{forward_mm:+.0f}.toml"
    path.write_text(text)
    return path


def main() -> None:
    static, walk = ground(DATA / "subject01_static.trc"), ground(DATA / "subject01_walk1.trc")
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    sto = pd.read_csv(DATA / "reference" / "opensim_inverse_dynamics.sto", sep=r"\s+", skiprows=6).iloc[6:-6]
    harrington = harrington_offsets(static)
    opensim_dx = 1000.0 * np.mean([hip_offsets()[s][0] - harrington[s][0] for s in ("right", "left")])
    print(f"Harrington's hip centres (mm from mid-ASIS: forward, left, up): "
          f"{np.round(1000 * harrington['right'], 1)}, {np.round(1000 * harrington['left'], 1)}; "
          f"OpenSim's model {opensim_dx:+.0f} mm forward of them")
    print("| hip centres moved forward (mm) | marker residual, legs and pelvis (mm RMS) "
          "| hip adduction angle r (global IK) | hip flexion moment r |")
    print("|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for dx in (20.0, 10.0, 0.0, -10.0, -20.0, round(opensim_dx)):
            mset = moved_set(Path(tmp), harrington, dx)
            cal = calibrate(static, str(mset), mass=72.6)
            tr = track_global(walk, cal)
            res = tr.marker_residuals
            cols = [c for c in res.columns if any(k in c for k in LEG_MARKERS)]
            rms = 1000.0 * np.sqrt(np.nanmean(res[cols].to_numpy() ** 2))
            angles = clinical_angles(cal.model, tr.coords, cal)
            t = tr.coords["time"].to_numpy()
            both = ik[(ik.time >= t[0] - 1e-6) & (ik.time <= t[-1] + 1e-6)]
            rows = np.searchsorted(t, both.time.to_numpy() - 1e-6)
            r_add = [np.corrcoef(angles[f"{side}_hip_adduction_deg"].to_numpy()[rows],
                                 both[f"hip_adduction_{s}"].to_numpy())[0, 1] for s, side in (("r", "right"), ("l", "left"))]
            an = hb.analyze_trial(DATA / "subject01_walk1.trc", static=DATA / "subject01_static.trc", mass=72.6,
                                  height=1.8, forces=DATA / "subject01_walk1_grf.mot", markerset=str(mset))
            ts = sto["time"].to_numpy()
            r_mom = [np.corrcoef(np.interp(ts, an.coords["time"].to_numpy(),
                                           an.kinetics[f"{side}_hip_flexion_moment_Nm_per_kg"].to_numpy()),
                                 sto[f"hip_flexion_{s}_moment"].to_numpy())[0, 1] for s, side in (("r", "right"), ("l", "left"))]
            label = f"{dx:+.0f}" + (" (Harrington)" if dx == 0 else " (OpenSim's model)" if dx == round(opensim_dx) else "")
            print(f"| {label} | {rms:.2f} | {r_add[0]:.3f} / {r_add[1]:.3f} | {r_mom[0]:.3f} / {r_mom[1]:.3f} |",
                  flush=True)


if __name__ == "__main__":
    main()

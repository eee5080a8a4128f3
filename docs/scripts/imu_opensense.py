"""Table of docs/imu.md: our hip and knee angles against OpenSense's on the same synthetic .sto.

Writes the synthetic trial of tests/_imu_samples.py (hip flexion to 120 deg,
knee to 150 deg, arms overhead, axial rotations; arbitrary sensor mountings)
with the leg and pelvis sensors only, builds the small OpenSim model of
tests/imu/test_imu_opensense.py (free pelvis, 3-rotation hips, hinge knees),
runs OpenSense's IMUPlacer and IMUInverseKinematicsTool and prints, per
angle, the mean offset (ours minus OpenSense's), the RMS and the centred
RMS difference, the largest difference and the correlation.  Needs ``pip install opensim``.
Run: ``.venv/bin/python docs/scripts/imu_opensense.py``.
"""

import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "tests" / "imu"))

import _imu_samples as S  # noqa: E402
import opensim as osim  # noqa: E402
from test_imu_opensense import LEGS, opensense_ik  # noqa: E402

from humanbody import BodyModel, read_trial  # noqa: E402
from humanbody.imu import orientations_to_coordinates  # noqa: E402
from humanbody.mechanics.clinical import clinical_angles  # noqa: E402


def main():
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        sto = tmp / "legs.sto"
        t, _, _, _ = S.opensense_trial(sto, labels={k: S.OPENSIM_LABELS[k] for k in LEGS})
        osim.Logger.setLevelString("error")
        theirs = opensense_ik(tmp, sto, t)
        model = BodyModel.default(mass=75.0, height=1.8)
        coords, _ = orientations_to_coordinates(read_trial(sto), model, heading="none", knee="free")
        ours = clinical_angles(model, coords)
    print("| angle | OpenSense coordinate | range (deg) | mean offset (deg) | RMS (deg) | centred RMS (deg) "
          "| largest (deg) | r |")
    print("|---|---|---|---|---|---|---|---|")
    for s, side in (("r", "right"), ("l", "left")):
        for col, name in ((f"hip_flexion_{s}", f"{side}_hip_flexion_deg"),
                          (f"hip_adduction_{s}", f"{side}_hip_adduction_deg"),
                          (f"hip_rotation_{s}", f"{side}_hip_internal_rotation_deg"),
                          (f"knee_angle_{s}", f"{side}_knee_flexion_deg")):
            x, y = np.degrees(theirs[col].to_numpy()), ours[name].to_numpy()
            d = (x - x.mean()) - (y - y.mean())
            print(f"| {name} | {col} | {y.min():.0f} to {y.max():.0f} | {np.mean(y - x):+.2f} "
                  f"| {np.sqrt(np.mean((y - x) ** 2)):.2f} | {np.sqrt(np.mean(d ** 2)):.2f} "
                  f"| {np.abs(x - y).max():.2f} | {np.corrcoef(x, y)[0, 1]:.4f} |")


if __name__ == "__main__":
    main()

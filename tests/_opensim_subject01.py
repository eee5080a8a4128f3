"""OpenSim's own model of the shared walk's subject, for like-for-like comparisons with its inverse dynamics.

OpenSim's results for the shared walk come from its Gait2392 model scaled to
the subject (``subject01_simbody_adjusted.osim`` in opensim-org/opensim-models,
Models/Gait2392_Simbody; Delp et al. 1990, Anderson and Pandy 1999, CC BY
3.0).  Two of that model's inputs differ from humanbody's defaults and
dominate the hip flexion moment: where the hip joint centres sit relative to
the pelvis markers (humanbody: Harrington's regression) and the leg segments'
masses and inertias (humanbody: de Leva 1996).  The numbers below are the
model's, as written in the file (m, kg, kg m^2; OpenSim body axes x forward,
y up, z right; inertias about the mass centre):

- pelvis markers R.ASIS, L.ASIS, V.Sacral and the hip joint centres, in the
  pelvis frame;
- femur and tibia: mass, mass centre below the proximal joint, principal
  inertias about the antero-posterior, long and medio-lateral axes;
- talus, calcaneus and toes: total mass (the foot's).

:func:`hip_offsets` re-expresses the hip centres from the mid-ASIS point in
the pelvis frame humanbody's gait2392 marker set builds from the same three
markers; :func:`markerset_with_opensim_hips` writes a copy of that marker
set with them; :func:`with_opensim_legs` puts the leg parameters in a
calibrated model.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

MARKERS = {"R.ASIS": (0.0232386, 0.0359303, 0.130326), "L.ASIS": (0.0290409, 0.0276997, -0.131773),
           "V.Sacral": (-0.172322, 0.0400191, 0.00588038)}
HIP_RIGHT = (-0.0724376, -0.0677245, 0.0855522)  # hip_l mirrors z
FEMUR = {"mass": 8.98403823, "com_below": 0.195031, "inertia": (0.129331, 0.0339024, 0.136382)}  # Ixx, Iyy (long), Izz
TIBIA = {"mass": 3.5810009, "com_below": 0.184557, "inertia": (0.0486804, 0.00492599, 0.0493565)}
FOOT_MASS = 0.09658802 + 1.20735027 + 0.20920965  # talus + calcn + toes

_MARKERSET = Path(__file__).resolve().parents[1] / "humanbody" / "data" / "markersets" / "gait2392.toml"


def hip_offsets() -> dict[str, np.ndarray]:
    """Each hip centre minus mid-ASIS (m) in humanbody's pelvis frame of the gait2392 set.

    That frame: y from the right to the left ASIS, x from the sacral marker
    to mid-ASIS made normal to y, z = x × y (docs/markersets.md).
    """
    ra, la, vs = (np.array(MARKERS[m]) for m in ("R.ASIS", "L.ASIS", "V.Sacral"))
    y = (la - ra) / np.linalg.norm(la - ra)
    mid = 0.5 * (ra + la)
    x = mid - vs
    x -= (x @ y) * y
    x /= np.linalg.norm(x)
    axes = np.stack([x, y, np.cross(x, y)])
    right = np.array(HIP_RIGHT)
    return {"right": axes @ (right - mid), "left": axes @ (right * (1, 1, -1) - mid)}


def markerset_with_opensim_hips(path: Path) -> Path:
    """Write the gait2392 marker set with the hip centres placed as OpenSim's model places them."""
    text = _MARKERSET.read_text()
    for side, off in hip_offsets().items():
        old = (f'[points.{side}_hip]\nregression = "harrington2007"\nside = "{side}"\n'
               'asis = ["R.ASIS", "L.ASIS"]\nsacrum = ["V.Sacral"]\n')
        assert old in text, f"gait2392.toml's {side}_hip rule changed"
        text = text.replace(old, f'[points.{side}_hip]\nfrom = "mid_asis"\noffset = [{off[0]:.6f}, {off[1]:.6f}, '
                                 f'{off[2]:.6f}]\nframe = "lower_torso"\n')
    text = text.replace('name = "gait2392"', 'name = "gait2392_opensim_hips"', 1)
    path.write_text(text)
    return path


def with_opensim_legs(model):
    """``model`` with the thighs, shanks and feet of OpenSim's model (mass, mass centre, inertia; feet: mass).

    OpenSim's femur and tibia axes (x forward, y up, z right) map to a
    humanbody leg segment's (x forward, y left, z up): inertia diagonal
    (Ixx, Izz, Iyy), mass centre ``(0, 0, -com_below)``.
    """
    mass = np.array(model.mass, dtype=float)
    com = np.array(model.com_offset, dtype=float)
    inertia = np.array(model.inertia, dtype=float)
    for side in ("right", "left"):
        for seg, p in (("upper_leg", FEMUR), ("lower_leg", TIBIA)):
            k = model.segment(f"{side}_{seg}")
            ixx, iyy, izz = p["inertia"]
            mass[k], com[k], inertia[k] = p["mass"], (0.0, 0.0, -p["com_below"]), np.diag([ixx, izz, iyy])
        mass[model.segment(f"{side}_foot")] = FOOT_MASS
    return model.replace(mass=mass, com_offset=com, inertia=inertia)

"""Table of docs/kinetics.md "Hip centre methods and the flexion axis": hip flexion moment against OpenSim.

Analyses the shared gait2392 walk (``../shared/data/gait2392_walk``) with its
force plates, ``--mass 72.6 --height 1.8``, with the hip centres placed by

- Harrington et al. (2007) from the markers as they are (the default);
- Harrington with the pelvis depth of the bones rather than of the skin
  markers (Harrington's landmarks were located on MRI): the soft tissue over
  the ASIS (9.7 mm) and the PSIS (19.6 mm) measured on CT by Mantovani et
  al. (2016, Gait Posture 44:48) plus a 7 mm marker radius at each end taken
  off the marker-measured depth;
- SCoRE (Ehrig et al. 2006, :mod:`humanbody.markers.functional_joint`) from
  the walk itself: the pelvis frame of its three markers and each thigh's
  three-marker cluster; in full, and with its lateral coordinate held at
  Harrington's (walking turns the hip mostly about one axis);

and, with the default hip centres, the hip flexion moment taken about three
axes: the pelvis's lateral axis (the default, which is the axis of OpenSim's
hip_flexion coordinate, the first rotation of its CustomJoint), the floating
axis of the joint coordinate system, and the thigh's lateral axis.  Prints
the centres (mm from mid-ASIS in the pelvis frame: forward, left, up) and
Pearson's r of the hip flexion, knee flexion, hip adduction and ankle
moments against OpenSim's inverse dynamics (right / left), OpenSim's filter
transients (first and last 0.1 s) left out.
Run: ``.venv/bin/python docs/scripts/hip_centre_options.py`` (under a minute).
"""

import sys
import tempfile
import types
from pathlib import Path

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.io.trc import read_trc
from humanbody.markers.functional_joint import score_centre
from humanbody.markers.joint_centres import hip_harrington2007, pelvis_frame
from humanbody.markers.rigid import fit_rigid
from humanbody.mechanics.kinematics import compute_motion
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "docs" / "scripts"))
sys.path.insert(0, str(ROOT / "tests"))
from _opensim_subject01 import hip_offsets  # noqa: E402
from hip_flexion_inputs import SET, correlations  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
SKIN = (0.0097 + 0.007) + (0.0196 + 0.007)  # m: soft tissue + marker radius, ASIS end + PSIS end


def markers(path):
    m = read_trc(path)
    return lambda n: m[[f"{n}_x", f"{n}_y", f"{n}_z"]].to_numpy()


def in_pelvis(R, o, p):
    return np.nanmean(np.einsum("fji,fj->fi", R, p - o), axis=0)


def centres(P) -> dict[str, dict[str, np.ndarray]]:
    """Hip centres (m, pelvis frame from mid-ASIS) of each method, per side."""
    ra, la, vs = P("R.ASIS"), P("L.ASIS"), P("V.Sacral")
    R, o, *_ = pelvis_frame(ra, la, vs)
    out = {}
    for side, s in (("right", "R"), ("left", "L")):
        har = in_pelvis(R, o, hip_harrington2007(ra, la, vs, side))
        bone = har + np.array([0.24 * SKIN, 0.0, 0.0])  # x = -0.24 PD - 9.9 mm with PD less SKIN
        q = np.stack([P(f"{s}.Thigh.Upper"), P(f"{s}.Thigh.Front"), P(f"{s}.Thigh.Rear")], axis=1)
        Rt, ot, *_ = fit_rigid(q[0], q)
        full = score_centre(R, o, Rt, ot)
        # lateral coordinate held at Harrington's: the same least squares in the other five unknowns
        A = np.concatenate([R, -Rt], axis=2)
        b = (ot - o) - A[:, :, 1] * har[1]
        x, *_ = np.linalg.lstsq(np.delete(A, 1, axis=2).reshape(-1, 5), b.reshape(-1), rcond=None)
        planar = np.array([x[0], har[1], x[1]])
        out[side] = {"harrington": har, "harrington_bone": bone, "score": full.proximal, "score_planar": planar,
                     "opensim": hip_offsets()[side]}
        print(f"{side}: SCoRE rms {1000 * full.rms:.1f} mm, conditioning {full.conditioning:.3f}", flush=True)
    return out


def offset_set(tmp: Path, name: str, offsets: dict[str, np.ndarray]) -> Path:
    text = SET.read_text()
    for side, off in offsets.items():
        old = (f'[points.{side}_hip]\nregression = "harrington2007"\nside = "{side}"\n'
               'asis = ["R.ASIS", "L.ASIS"]\nsacrum = ["V.Sacral"]\n')
        text = text.replace(old, f'[points.{side}_hip]\nfrom = "mid_asis"\noffset = [{off[0]:.6f}, {off[1]:.6f}, '
                                 f'{off[2]:.6f}]\nframe = "lower_torso"\n')
    path = tmp / f"gait2392_{name}.toml"
    path.write_text(text.replace('name = "gait2392"', f'name = "gait2392_{name}"', 1))
    return path


def projected(a, axis: str) -> pd.Series:
    """Each hip's flexion moment (N m/kg) about the floating or the thigh's lateral axis, with our sign."""
    res = compute_motion(a.model, a.motion)
    k = pd.DataFrame(kinetic_block(a.model, res, a.loads), columns=kinetic_columns(a.model))
    pelvis = a.model.names.index("lower_torso")
    out = a.kinetics.copy()
    for side in ("right", "left"):
        t = a.model.names.index(f"{side}_upper_leg")
        M = k[[f"{side}_upper_leg_joint_moment_{c}" for c in "xyz"]].to_numpy()
        if axis == "thigh":
            e = res.R[:, t, :, 1]
        else:
            e = np.cross(res.R[:, t, :, 2], res.R[:, pelvis, :, 0])  # lateral, normal to thigh long and pelvis forward
            e /= np.linalg.norm(e, axis=1, keepdims=True)
        ref = np.einsum("fi,fi->f", M, res.R[:, pelvis, :, 1]) / a.model.total_mass
        sign = np.sign(np.nansum(ref * a.kinetics[f"{side}_hip_flexion_moment_Nm_per_kg"].to_numpy()))
        out[f"{side}_hip_flexion_moment_Nm_per_kg"] = sign * np.einsum("fi,fi->f", M, e) / a.model.total_mass
    return out


def main() -> None:
    sto = pd.read_csv(DATA / "reference" / "opensim_inverse_dynamics.sto", sep=r"\s+", skiprows=6).iloc[6:-6]
    common = dict(static=DATA / "subject01_static.trc", mass=72.6, height=1.8, forces=DATA / "subject01_walk1_grf.mot")
    c = centres(markers(DATA / "subject01_walk1.trc"))
    print("| hip centres | right (forward, left, up; mm) | left | hip flexion | knee flexion | hip adduction | ankle |")
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("harrington", "harrington_bone", "score", "score_planar", "opensim"):
            off = {side: c[side][name] for side in ("right", "left")}
            kw = {} if name == "harrington" else dict(markerset=offset_set(Path(tmp), name, off))
            a = hb.analyze_trial(DATA / "subject01_walk1.trc", **common, **kw)
            pos = [" ".join(f"{1000 * v:.0f}" for v in off[s]) for s in ("right", "left")]
            print(f"| {name} | {pos[0]} | {pos[1]} | " + " | ".join(correlations(a, sto)) + " |", flush=True)
            if name == "harrington":
                for axis in ("floating", "thigh"):
                    b = types.SimpleNamespace(kinetics=projected(a, axis), coords=a.coords)
                    print(f"| harrington, flexion about the {axis} axis | | | "
                          + " | ".join(correlations(b, sto)) + " |", flush=True)


if __name__ == "__main__":
    main()

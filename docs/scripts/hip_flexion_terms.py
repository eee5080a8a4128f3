"""Tables of docs/kinetics.md "Where the hip flexion moment differs": the difference from OpenSim term by term.

Analyses the shared gait2392 walk (``../shared/data/gait2392_walk`` beside the
repository) with its force plates, ``--mass 72.6 --height 1.8``, by default
and with the hip centres and leg parameters of OpenSim's model of the subject
(tests/_opensim_subject01.py).  Splits each hip flexion moment into its terms
(:func:`humanbody.mechanics.kinetics.moment_contributions` on the pelvis's
lateral axis: the ground reaction's lever arm and free moment, the weight,
``m a`` and ``I alpha`` terms of thigh, shank and foot) and compares with
OpenSim's inverse dynamics (reference/opensim_inverse_dynamics.sto; its
first and last 0.1 s left out, as in tests/mechanics/test_kinetics.py) by phase
(stance: the foot loaded), then checks the comparison itself: a time shift,
the flexion axis of OpenSim's own pelvis frame, the window.
Run: ``.venv/bin/python docs/scripts/hip_flexion_terms.py`` (two to three minutes).
"""

import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.io import read_trial
from humanbody.lab.axes import to_ground
from humanbody.markers.rigid import fit_rigid
from humanbody.mechanics.kinematics import compute_motion, prepare_motion
from humanbody.mechanics.kinetics import kinetic_block, kinetic_columns, moment_contributions
from humanbody.signal.differentiate import Differentiation
from humanbody.signal.filters import butterworth_sos

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from _opensim_subject01 import MARKERS, markerset_with_opensim_hips, with_opensim_legs  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
SIDES = (("r", "right"), ("l", "left"))
GROUPS = {  # table rows: term -> keys of moment_contributions (segment names filled in per side)
    "ground reaction, lever arm (r x F)": ["loads: force"],
    "ground reaction, free moment": ["loads: free moment"],
    "weight of thigh, shank and foot": ["{s}_upper_leg weight", "{s}_lower_leg weight", "{s}_foot weight"],
    "thigh m a": ["{s}_upper_leg inertia force"],
    "shank m a": ["{s}_lower_leg inertia force"],
    "foot m a": ["{s}_foot inertia force"],
    "I alpha + w x I w, three segments": ["{s}_upper_leg inertia torque", "{s}_lower_leg inertia torque",
                                          "{s}_foot inertia torque"],
}


def hip_terms(model, results, loads, side: str) -> dict[str, np.ndarray]:
    """Each term group of the hip flexion moment (N m, internal, flexor positive) at the motion's frames."""
    c = moment_contributions(model, results, loads, f"{side}_upper_leg")
    axis = -results.R[:, model.names.index("lower_torso"), :, 1]  # flexion positive (CLINICAL_ANGLES sign -1)
    return {g: sum(np.einsum("fi,fi->f", c[k.format(s=side)], axis) for k in keys) for g, keys in GROUPS.items()}


def stance(loads, model, side: str) -> np.ndarray:
    foot = model.names.index(f"{side}_foot")
    return ((loads.body == foot) & (np.linalg.norm(loads.force, axis=2) > 0)).any(axis=1)


def rms(x) -> float:
    return float(np.sqrt(np.mean(np.square(x)))) if len(x) else float("nan")


def opensim_axis(analysis) -> np.ndarray:
    """OpenSim's pelvis z axis (its hip_flexion axis) in ground, per frame, as our left axis.

    The model's three pelvis markers (tests/_opensim_subject01.py) fitted to
    the walk's, low-passed as the markers are (6 Hz).
    """
    from scipy.signal import sosfiltfilt

    walk, _ = to_ground(read_trial(DATA / "subject01_walk1.trc"), "x,-z,y")
    meas = np.stack([walk[[f"{m}_{c}" for c in "xyz"]].to_numpy() for m in MARKERS], axis=1) / 1000.0
    meas = sosfiltfilt(butterworth_sos(6.0, 60.0, 4, "walk"), meas, axis=0)
    local = np.array([(p[0], -p[2], p[1]) for p in MARKERS.values()])  # OpenSim x fwd, y up, z right -> ours
    return fit_rigid(local, meas)[0][:, :, 1]


def planar_swing_moment(a, side: str, ik: pd.DataFrame | None = None, swap: tuple = (0, 1, 2),
                        angles: bool = False):
    """Hip flexion moment (N m) of the leg as three planar segments without ground contact.

    Sagittal (x forward, z up) angles of thigh, shank and foot: humanbody's
    (from the segments' axes), or, for the segments listed in ``swap``,
    OpenSim's (pelvis_tilt + hip_flexion, + knee_angle, + ankle_angle from
    ``ik``, low-passed at 6 Hz as its inverse dynamics does, offset to
    humanbody's mean angle).  Both with humanbody's hip path, segment lengths
    and parameters, rates by central differences:
    ``M = sum_j m_j (G_j - O) x (a_j - g) + I_j phi_j''``; with ``angles``, the
    three angle series (rad) instead.
    """
    from scipy.signal import sosfiltfilt

    m, r, t = a.model, a.results, a.coords["time"].to_numpy()
    k = [m.names.index(f"{side}_{seg}") for seg in ("upper_leg", "lower_leg", "foot")]
    ang = lambda v: np.unwrap(np.arctan2(v[:, 2], v[:, 0]))  # noqa: E731
    phi = [ang(-r.R[:, k[0], :, 2]), ang(-r.R[:, k[1], :, 2]), ang(r.R[:, k[2], :, 0])]
    if ik is not None:
        sos = butterworth_sos(6.0, 60.0, 4, "ik")
        f = lambda c: np.interp(t, ik["time"], sosfiltfilt(sos, np.radians(ik[c].to_numpy())))  # noqa: E731
        s = side[0]
        theirs = [-np.pi / 2 + f("pelvis_tilt") + f(f"hip_flexion_{s}")]
        theirs.append(theirs[0] + f(f"knee_angle_{s}"))
        theirs.append(theirs[1] + np.pi / 2 + f(f"ankle_angle_{s}"))
        for j in swap:
            phi[j] = theirs[j] + np.mean(phi[j] - theirs[j])
    O = r.joint[:, k[0]][:, [0, 2]]
    lengths = [np.median(np.linalg.norm(r.joint[:, k[j + 1]] - r.joint[:, k[j]], axis=1)) for j in (0, 1)]
    u = lambda p: np.stack([np.cos(p), np.sin(p)], axis=-1)  # noqa: E731
    knee = O + lengths[0] * u(phi[0])
    ankle = knee + lengths[1] * u(phi[1])
    foot = m.com_offset[k[2]]
    G = [O - m.com_offset[k[0]][2] * u(phi[0]), knee - m.com_offset[k[1]][2] * u(phi[1]),
         ankle + foot[0] * u(phi[2]) + foot[2] * u(phi[2] + np.pi / 2)]
    d2 = lambda x: np.gradient(np.gradient(x, t, axis=0), t, axis=0)  # noqa: E731
    g = np.array([0.0, -9.81])
    if angles:
        return phi
    total = np.zeros(len(t))
    for j in range(3):
        arm, acc = G[j] - O, d2(G[j]) - g
        total += m.mass[k[j]] * (arm[:, 0] * acc[:, 1] - arm[:, 1] * acc[:, 0]) + m.inertia[k[j]][0, 0] * d2(phi[j])
    return total


def phase_rms(a, side, s, sto) -> str:
    """r, and the difference from OpenSim (N m RMS) in stance, terminal swing (0.15 s before strike), other swing."""
    ts, t = sto["time"].to_numpy(), a.coords["time"].to_numpy()
    x = np.interp(ts, t, 72.6 * a.kinetics[f"{side}_hip_flexion_moment_Nm_per_kg"].to_numpy())
    y = sto[f"hip_flexion_{s}_moment"].to_numpy()
    st = np.interp(ts, t, stance(a.loads, a.model, side).astype(float)) > 0.5
    late = np.zeros_like(st)
    for i in np.flatnonzero(np.r_[False, st[1:] & ~st[:-1]]):
        late |= (ts >= ts[i] - 0.15) & (ts < ts[i])
    d = x - y
    return (f"{np.corrcoef(x, y)[0, 1]:.3f} | {rms(d[st]):.1f} | {rms(d[late]):.1f} | {rms(d[~st & ~late]):.1f}")


def main() -> None:
    full = pd.read_csv(DATA / "reference" / "opensim_inverse_dynamics.sto", sep=r"\s+", skiprows=6)
    sto = full.iloc[6:-6]
    ts = sto["time"].to_numpy()
    common = dict(static=DATA / "subject01_static.trc", mass=72.6, height=1.8, forces=DATA / "subject01_walk1_grf.mot")
    a = hb.analyze_trial(DATA / "subject01_walk1.trc", **common)
    t = a.coords["time"].to_numpy()
    tmp = tempfile.TemporaryDirectory()
    opensim_hips = markerset_with_opensim_hips(Path(tmp.name) / "gait2392_opensim_hips.toml")
    b = hb.analyze_trial(DATA / "subject01_walk1.trc", **common, markerset=opensim_hips)
    legs = with_opensim_legs(b.model)
    res_b = compute_motion(legs, b.motion)

    def at(x, tt=t):
        return np.interp(ts, tt, x)

    tb = b.coords["time"].to_numpy()
    print("## the hip flexion moment's terms by phase (N m RMS; stance: the foot loaded)\n")
    print("| term | right stance | right swing | left stance | left swing |")
    rows, summary, swaps = {}, {}, {}
    for s, side in SIDES:
        y = sto[f"hip_flexion_{s}_moment"].to_numpy()
        ours = hip_terms(a.model, a.results, a.loads, side)
        theirs = hip_terms(legs, res_b, b.loads, side)
        st = at(stance(a.loads, a.model, side).astype(float)) > 0.5
        x = at(sum(ours.values()))
        assert np.allclose(sum(ours.values()), 72.6 * a.kinetics[f"{side}_hip_flexion_moment_Nm_per_kg"])
        for g in GROUPS:
            v = at(ours[g])
            rows.setdefault(g, []).extend([rms(v[st]), rms(v[~st])])
        d = x - y
        rows.setdefault("**humanbody − OpenSim**", []).extend([rms(d[st]), rms(d[~st])])
        xb = np.interp(ts, tb, sum(theirs.values()))
        rows.setdefault("humanbody with OpenSim's hip centres and legs − OpenSim", []).extend(
            [rms((xb - y)[st]), rms((xb - y)[~st])])
        strike = np.r_[False, st[1:] & ~st[:-1]]  # first loaded sample of each stance
        late = np.zeros_like(st)
        for i in np.flatnonzero(strike):
            late |= (ts >= ts[i] - 0.15) & (ts < ts[i])
        rows.setdefault("… of which the last 0.15 s before foot strike", []).extend(
            [float("nan"), rms((xb - y)[late])])
        rows.setdefault("… and the rest of swing", []).extend([float("nan"), rms((xb - y)[~st & ~late])])
        r = lambda z, y=y: np.corrcoef(z, y)[0, 1]  # noqa: E731
        summary[side] = [r(x), r(np.where(st, y, x)), r(np.where(st, x, y))]
        lever = np.interp(ts, tb, theirs["ground reaction, lever arm (r x F)"])
        inertia = sum(np.interp(ts, tb, theirs[g]) for g in GROUPS if "m a" in g or "alpha" in g)
        weight = np.interp(ts, tb, theirs["weight of thigh, shank and foot"])
        own_inertia = sum(at(ours[g]) for g in GROUPS if "m a" in g or "alpha" in g)
        shift = at(ours["ground reaction, lever arm (r x F)"]) - lever
        print(f"{side}: lever-arm term, default minus about OpenSim's hip centres, stance: "
              f"{rms(shift[st]):.1f} N m RMS, mean {shift[st].mean():+.1f} N m")
        swaps[side] = [r(x), r(x - at(ours["ground reaction, lever arm (r x F)"]) + lever),
                       r(x - own_inertia + inertia), r(x - at(ours["weight of thigh, shank and foot"]) + weight), r(xb)]
    for g, v in rows.items():
        print(f"| {g} | " + " | ".join("" if np.isnan(z) else f"{z:.1f}" for z in v) + " |")
    print("\n## r against OpenSim (right / left)\n")
    print(f"| default | {summary['right'][0]:.3f} / {summary['left'][0]:.3f} |")
    print(f"| default, OpenSim's values in stance | {summary['right'][1]:.3f} / {summary['left'][1]:.3f} |")
    print(f"| default, OpenSim's values in swing | {summary['right'][2]:.3f} / {summary['left'][2]:.3f} |")
    names = ["default", "lever-arm term about OpenSim's hip centres", "m a and I alpha terms of OpenSim's legs",
             "weight terms of OpenSim's legs", "all three (OpenSim's hip centres and legs)"]
    for i, n in enumerate(names[1:], 1):
        print(f"| {n} | {swaps['right'][i]:.3f} / {swaps['left'][i]:.3f} |")

    print("\n## checks of the comparison\n")
    shifts = np.arange(-12, 13) / 240.0  # quarter frames, up to three frames
    moms = (("hip_flexion_moment_Nm_per_kg", "hip_flexion_{s}_moment", 1.0),
            ("knee_flexion_moment_Nm_per_kg", "knee_angle_{s}_moment", -1.0),
            ("ankle_dorsiflexion_moment_Nm_per_kg", "ankle_angle_{s}_moment", 1.0))
    for s, side in SIDES:
        best = []
        for ours, theirs, sign in moms:
            y = sign * sto[theirs.format(s=s)].to_numpy()
            rs = [np.corrcoef(np.interp(ts + d, t, a.kinetics[f"{side}_{ours}"].to_numpy()), y)[0, 1] for d in shifts]
            best.append(f"{ours.split('_')[0]} {1000 * shifts[int(np.argmax(rs))]:+.0f} ms")
        print(f"time shift of humanbody that maximises r, {side}: " + ", ".join(best))
    u_os = opensim_axis(a)
    u_hb = a.results.R[:, a.model.names.index("lower_torso"), :, 1]
    angle = np.degrees(np.arccos(np.clip(np.einsum("fi,fi->f", u_os, u_hb), -1.0, 1.0)))
    for s, side in SIDES:
        c = moment_contributions(a.model, a.results, a.loads, f"{side}_upper_leg")
        M = sum(c.values())
        y = sto[f"hip_flexion_{s}_moment"].to_numpy()
        print(f"flexion axis of OpenSim's pelvis ({np.median(angle):.1f}° median from ours), {side}: "
              f"r {np.corrcoef(at(-np.einsum('fi,fi->f', M, u_os)), y)[0, 1]:.3f}")
    ik = pd.read_csv(DATA / "reference" / "opensim_ik.mot", sep=r"\s+", skiprows=10)
    ik = ik[(ik["time"] >= t[0]) & (ik["time"] <= t[-1])]
    for s, side in SIDES:  # OpenSim's knee angle is negative in flexion, as -alpha of the shank
        rs = [np.corrcoef(-np.interp(ik["time"], t, a.coords[f"{side}_{seg}_alpha"]), ik[f"{col}_{s}"])[0, 1]
              for seg, col in (("upper_leg", "hip_flexion"), ("lower_leg", "knee_angle"))]
        print(f"OpenSim's IK on the trial's time base, {side}: hip flexion r {rs[0]:.3f}, knee r {rs[1]:.3f}")
    print("\n| left swing (0.80–1.25 s), planar leg | OpenSim's hip flexion moment at 1.20 s | RMS from OpenSim's |")
    left = (t >= 0.8) & (t <= 1.25)
    y = np.interp(t[left], sto["time"], sto["hip_flexion_l_moment"])
    print(f"| OpenSim's inverse dynamics | {np.interp(1.2, sto['time'], sto['hip_flexion_l_moment']):.1f} | |")
    print(f"| humanbody, 3-D | {72.6 * np.interp(1.2, t, a.kinetics['left_hip_flexion_moment_Nm_per_kg']):.1f} | "
          f"{rms(72.6 * a.kinetics['left_hip_flexion_moment_Nm_per_kg'].to_numpy()[left] - y):.1f} |")
    for name, kw in (("humanbody's segment angles", {}), ("OpenSim's thigh angle", dict(ik=ik, swap=(0,))),
                     ("OpenSim's shank angle", dict(ik=ik, swap=(1,))), ("OpenSim's foot angle", dict(ik=ik, swap=(2,))),
                     ("OpenSim's three angles", dict(ik=ik))):
        mom = planar_swing_moment(a, "left", **kw)
        print(f"| planar, {name} | {np.interp(1.2, t, mom):.1f} | {rms(mom[left] - y):.1f} |")
    ours_thigh = planar_swing_moment(a, "left", angles=True)[0][left]
    d = ours_thigh - planar_swing_moment(a, "left", ik=ik, angles=True)[0][left]
    print(f"thigh angles, humanbody - OpenSim, left swing: {np.degrees(rms(d - d.mean())):.1f} deg RMS")
    g = hb.analyze_trial(DATA / "subject01_walk1.trc", **common, ik="global")
    print("\n| tracking | side | r | stance | terminal swing | other swing |")
    gh = hb.analyze_trial(DATA / "subject01_walk1.trc", **common, ik="global", markerset=opensim_hips)
    tmp.cleanup()
    for name, an in (("segment fits (default)", a), ("whole-body inverse kinematics (--ik global)", g),
                     ("--ik global, OpenSim's hip centres", gh)):
        for s, side in SIDES:
            print(f"| {name} | {side} | {phase_rms(an, side, s, sto)} |")
    cells = []
    for ours, theirs, sign in (("knee_flexion_moment_Nm_per_kg", "knee_angle_{s}_moment", -1.0),
                               ("hip_adduction_moment_Nm_per_kg", "hip_adduction_{s}_moment", 1.0),
                               ("ankle_dorsiflexion_moment_Nm_per_kg", "ankle_angle_{s}_moment", 1.0)):
        rs = [np.corrcoef(np.interp(ts, g.coords["time"], g.kinetics[f"{side}_{ours}"]),
                          sign * sto[theirs.format(s=s)])[0, 1] for s, side in SIDES]
        cells.append(f"{rs[0]:.3f} / {rs[1]:.3f}")
    print("| --ik global: knee flexion, hip adduction, ankle r (right / left) | " + " | ".join(cells) + " |")
    print("\n| rates of the coordinates | hip flexion r (right / left) | hip adduction r |")
    for d in (Differentiation(), Differentiation("savgol", 8.0), Differentiation("savgol", 10.0),
              Differentiation("butterworth", 6.0), Differentiation("spline", 6.0), Differentiation("gradient")):
        res = compute_motion(a.model, prepare_motion(a.model, a.coords, differentiation=d))
        k = pd.DataFrame(kinetic_block(a.model, res, a.loads), columns=kinetic_columns(a.model))
        rs = [np.corrcoef(np.interp(ts, t, k[f"{side}_hip_{m}_moment_Nm_per_kg"]), sto[f"hip_{m}_{s}_moment"])[0, 1]
              for m in ("flexion", "adduction") for s, side in SIDES]
        print(f"| {d.describe(60.0)} | {rs[0]:.3f} / {rs[1]:.3f} | {rs[2]:.3f} / {rs[3]:.3f} |")
    print("\n| OpenSim's rows left out at each end | window (s) | hip flexion r (right / left) |")
    for trim in (0, 3, 6, 9, 12):
        part = full.iloc[trim:len(full) - trim]
        tt = part["time"].to_numpy()
        rs = [np.corrcoef(np.interp(tt, t, a.kinetics[f"{side}_hip_flexion_moment_Nm_per_kg"].to_numpy()),
                          part[f"hip_flexion_{s}_moment"].to_numpy())[0, 1] for s, side in SIDES]
        print(f"| {trim} ({trim / 60:.2f} s) | {tt[0]:.2f}–{tt[-1]:.2f} | {rs[0]:.3f} / {rs[1]:.3f} |")


if __name__ == "__main__":
    main()

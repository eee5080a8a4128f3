#!/usr/bin/env python3
"""OpenSim inverse kinematics on the shared walk, with a model of the same subject.

    .venv/bin/python benchmarks/bench_opensim_ik.py [--tree gait2392|humanbody] [--osim FILE]
                                                    [--trc WALK] [--static STATIC] [--keep DIR]

No Gait2392 ``.osim`` file ships with the ``opensim`` package, so the model
is built here with the OpenSim Python API from the subject ``humanbody``
calibrates (``analyze_trial(walk, static=static, mass=72.6, height=1.8)``):

* ``--tree gait2392`` (default): Gait2392's topology, 23 degrees of freedom.
  pelvis = ``lower_torso`` (free joint, 6); femur = upper leg (ball hip, 3);
  tibia = lower leg (pin knee about the thigh's lateral axis, 1); a talus
  (pin ankle about the shank's lateral axis, 1); calcn = foot (pin subtalar
  about the forward axis, 1); toes (pin mtp at the metatarsal heads, 1,
  carrying ``Toe.Tip``); torso = every segment above the lumbar joint merged
  rigidly (ball lumbar, 3), as Gait2392's HAT: trunk, neck and head in their
  static-trial posture, arms hanging (shoulders at 0; the static trial holds
  them abducted), elbows and wrists as in the static trial.
* ``--tree humanbody``: our 17-segment tree, free root + 16 ball joints
  (54 degrees of freedom), joint offsets xi_k and body frames exactly ours.
* ``--osim FILE``: a user's own model (e.g. ``gait2392_simbody.osim``) with
  its own markers; the builder is skipped.

Body frames are our segment frames, so every marker sits at the position the
static calibration found for it in its segment frame (a marker of a merged
segment is carried into the merged body's frame through the HAT posture).
Masses, centres of mass and inertias (about the centre of mass) are ours;
merged bodies combine theirs by the parallel-axis theorem.  The two bodies
our model lacks (talus, toes) get 1 g each: inverse kinematics does not use
mass.  Ball joints use OpenSim's body-fixed X-Y-Z angles, which are our
Bryant angles; pins turn about the parent's y (lateral: knee, ankle, mtp) or
x (forward: subtalar) axis.  The default pose is the reference pose (every
joint 0, frames parallel) with the pelvis where the static trial stood; the
ground frame of the free joint maps our axes (X forward, Y left, Z up) into
the TRC's lab axes (OpenSim's Y up), so OpenSim reads the TRC as it is.

Three timings over all frames of the trial, accuracy 1e-5, every marker
weight 1 unless ``--hat-weight`` (model building not timed):

* ``ik``: OpenSim's ``InverseKinematicsSolver`` with a ``MarkersReference``
  (what the tool runs inside): ``assemble`` at the first frame, then
  ``track`` frame by frame;
* ``tool``: ``InverseKinematicsTool.run()`` with the same model and task
  set: reads the TRC, solves, reports errors and writes the ``.mot``;
* ``process`` (``--process N``, 3 by default): the whole IK process as a
  user runs it from a setup file, a new Python process each time (import
  opensim, load the ``.osim``, the tool's run), timed from start to exit
  like ``humanbody analyze``.  On the 151-frame walk this is the figure the
  Scale issue quotes ("roughly 170 frames/s"); start-up is most of it.

Sanity checks: RMS marker error per frame (mean and largest over frames),
and the correlation of hip and knee flexion with OpenSim's own Gait2392
result ``reference/opensim_ik.mot`` at the same times (the two files share
one clock and overlap over 0.5-2.5 s).  Prints one JSON line.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "gait2392_walk"

#: Our segments merged into Gait2392's torso (HAT), in the frame of the first.
_HAT = ("middle_torso", "upper_torso", "left_upper_arm", "left_lower_arm", "left_hand", "neck",
        "head", "right_upper_arm", "right_lower_arm", "right_hand")
_SIDES = {"r": "right", "l": "left"}
_NOMINAL_MASS = 0.001  # kg, talus and toes (IK does not use mass)


# ------------------------------------------------------------------ subject
def calibrated_subject(walk: Path, static: Path):
    """Our analysis of the walk (calibrated model, marker positions in segment frames)."""
    from humanbody.analysis import analyze_trial

    return analyze_trial(walk, static=static, mass=72.6, height=1.8, axes="opensim")


def _row(model, seg: str) -> int:
    """Row (0-based) of segment ``seg`` in the model's arrays."""
    return model.names.index(seg)


def _pose(cal, seg):
    """Standing-pose frame (3, 3) and origin (3,) of segment ``seg`` in ground (m)."""
    return np.asarray(cal.frames[seg], float), np.asarray(cal.origins[seg], float)


def _hat_pose(model, cal) -> tuple[dict, dict]:
    """Frames (3, 3) and origins (3,) (m) of every segment in the pose the HAT is merged in.

    Relative to ``lower_torso`` (identity frame at 0): each joint keeps its
    relative orientation S_L(k)k of the static trial, except the shoulders,
    which are set to 0 (arms hanging: the static trial holds them abducted
    about 85 deg, not as in walking).  R_k = R_L(k) S_k, O_k = O_L(k) + R_L(k) xi_k.
    """
    frames, origins = {model.names[0]: np.eye(3)}, {model.names[0]: np.zeros(3)}
    for k in range(1, len(model.names)):
        seg, parent = model.names[k], model.names[model.parents[k] - 1]
        S = np.eye(3) if seg.endswith("upper_arm") else np.asarray(cal.relative[seg], float)
        frames[seg] = frames[parent] @ S
        origins[seg] = origins[parent] + frames[parent] @ model.joint_offset[k]
    return frames, origins


def _merged(model, cal, segs):
    """Mass (kg), centre of mass (3,) and inertia about it (3, 3) of rigidly merged segments.

    In the frame of ``segs[0]``, the segments held in :func:`_hat_pose`: each
    centre of mass O_k + R_k r_k and inertia R_k I_k R_k^T (about G_k) is
    carried into that frame and combined by the parallel-axis theorem
    I = sum R I_k R^T + m_k (|d|^2 E - d d^T), d = G_k - G.
    """
    frames, origins = _hat_pose(model, cal)
    R0, O0 = frames[segs[0]], origins[segs[0]]
    rows = [_row(model, s) for s in segs]
    ms = model.mass[rows]
    cs, Is = [], []
    for s, k in zip(segs, rows, strict=True):
        Rk = R0.T @ frames[s]
        cs.append(R0.T @ (origins[s] + frames[s] @ model.com_offset[k] - O0))
        Is.append(Rk @ model.inertia[k] @ Rk.T)
    cs = np.array(cs)
    m = ms.sum()
    c = (ms[:, None] * cs).sum(axis=0) / m
    inertia = np.zeros((3, 3))
    for mk, ck, Ik in zip(ms, cs, Is, strict=True):
        d = ck - c
        inertia += Ik + mk * (d @ d * np.eye(3) - np.outer(d, d))
    return m, c, inertia


def _marker_in(model, cal, marker_seg, marker, body_seg):
    """Position (m) of ``marker`` (calibrated in ``marker_seg``'s frame) in ``body_seg``'s frame.

    Different segments are related through :func:`_hat_pose`.
    """
    local = np.asarray(cal.local[marker_seg][marker], float)
    if marker_seg == body_seg:
        return local
    frames, origins = _hat_pose(model, cal)
    Rb, Ob = frames[body_seg], origins[body_seg]
    return Rb.T @ (origins[marker_seg] + frames[marker_seg] @ local - Ob)


# ------------------------------------------------------------------ builder
def _vec3(osim, v):
    return osim.Vec3(*(float(x) for x in v))


def _bryant(R):
    from humanbody.rotations import matrix_to_bryant

    return np.asarray(matrix_to_bryant(np.asarray(R, float)), float)


def _rx(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = np.cos(a), np.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


#: Orientations (in the body frame) of a pin joint frame whose z axis is the body's y or x axis.
_PIN_Y, _PIN_X = _rx(-np.pi / 2), _ry(np.pi / 2)


class _Builder:
    """Adds bodies, joints and markers of one model; records the default pose."""

    def __init__(self, osim, name):
        self.osim = osim
        self.model = osim.Model()
        self.model.setName(name)
        self.bodies = {"ground": self.model.getGround()}
        self.defaults: dict[str, float] = {}
        self.n_markers = 0

    def body(self, name, mass, com, inertia):
        o = self.osim
        I = np.asarray(inertia, float)
        b = o.Body(name, float(mass), _vec3(o, com),
                   o.Inertia(I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]))
        self.model.addBody(b)
        self.bodies[name] = b
        return b

    def joint(self, kind, name, parent, child, loc, parent_rot=None, child_rot=None, defaults=()):
        o = self.osim
        parent_rot = np.eye(3) if parent_rot is None else parent_rot
        child_rot = np.eye(3) if child_rot is None else child_rot
        cls = {"free": o.FreeJoint, "ball": o.BallJoint, "pin": o.PinJoint}[kind]
        j = cls(name, self.bodies[parent], _vec3(o, loc), _vec3(o, _bryant(parent_rot)),
                self.bodies[child], o.Vec3(0, 0, 0), _vec3(o, _bryant(child_rot)))
        self.model.addJoint(j)
        n = j.numCoordinates()
        for i, v in zip(range(n), list(defaults) + [0.0] * n, strict=False):  # the defaults, padded with zeros
            self.defaults[j.get_coordinates(i).getName()] = float(v)
        return j

    def marker(self, name, body, loc):
        self.model.addMarker(self.osim.Marker(name, self.bodies[body], _vec3(self.osim, loc)))
        self.n_markers += 1

    def finish(self):
        self.model.finalizeConnections()
        for c in self.model.getCoordinateSet():
            c.setDefaultValue(self.defaults.get(c.getName(), 0.0))
        return self.model


def _root(b, model, cal):
    """Pelvis (lower_torso) body on a free joint whose ground frame maps our axes into the lab's."""
    from humanbody.lab.axes import parse_axes

    k = _row(model, "lower_torso")
    b.body("lower_torso", model.mass[k], model.com_offset[k], model.inertia[k])
    lab_from_ground = parse_axes("opensim").T
    R, O = _pose(cal, "lower_torso")
    b.joint("free", "ground_lower_torso", "ground", "lower_torso", (0, 0, 0),
            parent_rot=lab_from_ground, defaults=list(_bryant(R)) + list(O))


def _markers_on(b, model, cal, owner):
    """Every calibrated marker on the body named by ``owner[segment]``."""
    for seg, markers in cal.local.items():
        for name in markers:
            body = owner(seg, name)
            b.marker(name, body[0], _marker_in(model, cal, seg, name, body[1]))


def build_humanbody_tree(osim, model, cal):
    """Our 17-segment tree: free root + 16 ball joints (54 dof); returns (Model, dof)."""
    b = _Builder(osim, "humanbody17")
    _root(b, model, cal)
    for k in range(1, model.n_bodies):
        seg, parent = model.names[k], model.names[model.parents[k] - 1]
        b.body(seg, model.mass[k], model.com_offset[k], model.inertia[k])
        b.joint("ball", f"{parent}_{seg}", parent, seg, model.joint_offset[k])
    _markers_on(b, model, cal, lambda seg, name: (seg, seg))
    return b.finish(), 6 + 3 * (model.n_bodies - 1)


def _mtp_point(cal, side):
    """Metatarsal heads (mid Toe.Lat/Toe.Med) in the foot frame, m; Gait2392's mtp joint."""
    local = cal.local[f"{side}_foot"]
    tag = side[0].upper()
    return 0.5 * (np.asarray(local[f"{tag}.Toe.Lat"], float) + np.asarray(local[f"{tag}.Toe.Med"], float))


def build_gait2392_tree(osim, model, cal):
    """Gait2392's topology on our segments (23 dof); returns (Model, dof)."""
    b = _Builder(osim, "humanbody_gait2392")
    _root(b, model, cal)
    m, c, inertia = _merged(model, cal, _HAT)
    b.body("torso", m, c, inertia)
    b.joint("ball", "lumbar", "lower_torso", "torso", model.joint_offset[_row(model, "middle_torso")])
    for s, side in _SIDES.items():
        thigh, shank, foot = (f"{side}_{w}" for w in ("upper_leg", "lower_leg", "foot"))
        for seg, _parent in ((thigh, "lower_torso"), (shank, thigh)):
            k = _row(model, seg)
            b.body(seg, model.mass[k], model.com_offset[k], model.inertia[k])
        b.joint("ball", f"hip_{s}", "lower_torso", thigh, model.joint_offset[_row(model, thigh)])
        # knee: pin about the thigh's lateral axis; angle 0 = the standing pose
        b.joint("pin", f"knee_{s}", thigh, shank, model.joint_offset[_row(model, shank)],
                parent_rot=_PIN_Y, child_rot=_PIN_Y)
        # ankle (talus) about the shank's lateral axis, subtalar about the forward axis
        b.body(f"talus_{s}", _NOMINAL_MASS, (0, 0, 0), _NOMINAL_MASS * 1e-4 * np.eye(3))
        b.joint("pin", f"ankle_{s}", shank, f"talus_{s}", model.joint_offset[_row(model, foot)],
                parent_rot=_PIN_Y, child_rot=_PIN_Y)
        k = _row(model, foot)
        b.body(foot, model.mass[k], model.com_offset[k], model.inertia[k])
        b.joint("pin", f"subtalar_{s}", f"talus_{s}", foot, (0, 0, 0),
                parent_rot=_PIN_X, child_rot=_PIN_X)
        b.body(f"toes_{s}", _NOMINAL_MASS, (0, 0, 0), _NOMINAL_MASS * 1e-4 * np.eye(3))
        b.joint("pin", f"mtp_{s}", foot, f"toes_{s}", _mtp_point(cal, side),
                parent_rot=_PIN_Y, child_rot=_PIN_Y)

    def owner(seg, name):
        if seg in _HAT:
            return ("torso", "middle_torso")
        if name.endswith(".Toe.Tip"):
            return ("toes_" + name[0].lower(), seg)
        return (seg, seg)

    def marker_loc(seg, name, body):
        return _marker_in(model, cal, seg, name, body[1])

    for seg, markers in cal.local.items():
        for name in markers:
            body = owner(seg, name)
            loc = marker_loc(seg, name, body)
            if body[0].startswith("toes_"):
                loc = loc - _mtp_point(cal, seg.split("_")[0])  # toes origin = mtp joint, frame parallel to the foot's
            b.marker(name, body[0], loc)
    return b.finish(), 23


# ------------------------------------------------------------------ solving
def _weights(osim, names, weights=None):
    w = osim.SetMarkerWeights()
    for n in names:
        w.cloneAndAppend(osim.MarkerWeight(n, float((weights or {}).get(n, 1.0))))
    return w


def _trc_markers(path: Path) -> list[str]:
    with open(path) as f:
        lines = [next(f) for _ in range(4)]
    return [t for t in lines[3].rstrip("\n").split("\t")[2:] if t.strip()]


def solve(osim, model, trc: Path, accuracy: float = 1e-5, weights=None):
    """Inverse kinematics of every TRC frame with the solver API; timing and errors.

    Returns dict: seconds (assemble + track, all frames), frames, coordinate
    values ``q`` (frames, n_coords) in the model's internal units (rad, m),
    coordinate ``names``, marker ``errors`` (frames, markers; m) and
    ``marker_names`` in the solver's order, ``time`` (frames,) the trial's times (s).
    """
    names = [n for n in _trc_markers(trc) if model.getMarkerSet().contains(n)]
    ref = osim.MarkersReference(str(trc), _weights(osim, names, weights))
    solver = osim.InverseKinematicsSolver(model, ref, osim.SimTKArrayCoordinateReference())
    solver.setAccuracy(accuracy)
    state = model.initSystem()
    times = list(ref.getMarkerTable().getIndependentColumn())
    coords = model.getCoordinateSet()
    q = np.empty((len(times), coords.getSize()))
    errors = np.empty((len(times), len(names)))
    seconds = 0.0
    for i, t in enumerate(times):
        state.setTime(t)
        t0 = time.perf_counter()
        if i == 0:
            solver.assemble(state)
        else:
            solver.track(state)
        seconds += time.perf_counter() - t0
        err = osim.SimTKArrayDouble()
        solver.computeCurrentMarkerErrors(err)
        if i == 0:
            errors = errors[:, : err.size()]
            marker_names = [solver.getMarkerNameForIndex(j) for j in range(err.size())]
        errors[i] = [err.getElt(j) for j in range(err.size())]
        q[i] = [coords.get(j).getValue(state) for j in range(coords.getSize())]
    return {"seconds": seconds, "frames": len(times), "time": np.asarray(times, float), "q": q,
            "names": [coords.get(j).getName() for j in range(coords.getSize())],
            "errors": errors, "marker_names": marker_names}


def _ik_tool(osim, model, trc: Path, folder: Path, accuracy: float, weights, mot: Path):
    """An ``InverseKinematicsTool`` over all frames of ``trc``, every marker of the model a task."""
    names = [n for n in _trc_markers(trc) if model.getMarkerSet().contains(n)]
    tool = osim.InverseKinematicsTool()
    tool.setModel(model)
    tool.setMarkerDataFileName(str(trc))
    tasks = tool.upd_IKTaskSet()
    for n in names:
        task = osim.IKMarkerTask()
        task.setName(n)
        task.setApply(True)
        task.setWeight(float((weights or {}).get(n, 1.0)))
        tasks.cloneAndAppend(task)
    ref = osim.MarkersReference(str(trc), _weights(osim, names[:1]))
    lo, hi = ref.getValidTimeRange().get(0), ref.getValidTimeRange().get(1)
    tool.setStartTime(lo)
    tool.setEndTime(hi)
    tool.set_accuracy(accuracy)
    tool.setResultsDir(str(folder))
    tool.setOutputMotionFileName(str(mot))
    return tool


def run_tool(osim, model, trc: Path, folder: Path, accuracy: float = 1e-5, weights=None):
    """``InverseKinematicsTool.run()`` on all frames; returns (seconds, .mot path)."""
    mot = folder / "opensim_ik.mot"
    tool = _ik_tool(osim, model, trc, folder, accuracy, weights, mot)
    t0 = time.perf_counter()
    ok = tool.run()
    seconds = time.perf_counter() - t0
    if not ok:
        raise RuntimeError("InverseKinematicsTool.run() failed")
    return seconds, mot


_RUN_SETUP = "import sys, opensim; sys.exit(0 if opensim.InverseKinematicsTool(sys.argv[1]).run() else 1)"


def run_process(osim, model, model_file: Path, trc: Path, folder: Path, accuracy: float = 1e-5,
                weights=None, repeat: int = 3) -> list[float]:
    """Wall seconds of whole OpenSim IK processes, as a user runs the tool on a setup file.

    The tool's setup (this model file, this trial, the same tasks and
    accuracy) is written to ``ik_setup.xml``; each run is a new Python
    process that imports opensim, loads the model, reads the TRC, solves
    every frame and writes the ``.mot`` (what ``opensim-cmd run-tool`` does),
    timed from start to exit, the way the benchmarks time ``humanbody
    analyze``.  OpenSim's log stays at its default level (to the folder's
    ``opensim.log`` and a discarded stdout).
    """
    import subprocess

    tool = _ik_tool(osim, model, trc, folder, accuracy, weights, folder / "opensim_ik_process.mot")
    tool.set_model_file(str(model_file))
    setup = folder / "ik_setup.xml"
    tool.printToXML(str(setup))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    seconds = []
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _RUN_SETUP, str(setup)], cwd=folder, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        seconds.append(time.perf_counter() - t0)
        if proc.returncode:
            raise RuntimeError(f"OpenSim IK process failed: {proc.stderr.strip()[-500:]}")
    return seconds


# ------------------------------------------------------------------ sanity
def _read_mot(path: Path):
    import pandas as pd

    with open(path) as f:
        skip = next(i for i, line in enumerate(f) if line.strip().lower() == "endheader") + 1
    return pd.read_csv(path, sep=r"\s+", skiprows=skip)


def _flexion(res, tree):
    """Hip and knee flexion (deg, positive = flexion) per side from our solution."""
    q = dict(zip(res["names"], np.degrees(res["q"].T), strict=True))
    out = {}
    for s, side in _SIDES.items():
        if tree == "osim":
            out[f"hip_flexion_{s}"] = q.get(f"hip_flexion_{s}")
            knee = q.get(f"knee_angle_{s}")
            out[f"knee_flexion_{s}"] = None if knee is None else -knee
        elif tree == "gait2392":
            out[f"hip_flexion_{s}"] = -q[f"hip_{s}_coord_1"]   # minus rotation about the lateral (y) axis
            out[f"knee_flexion_{s}"] = q[f"knee_{s}_coord_0"]  # pin about +y: shank back = flexion
        else:
            out[f"hip_flexion_{s}"] = -q[f"lower_torso_{side}_upper_leg_coord_1"]
            out[f"knee_flexion_{s}"] = q[f"{side}_upper_leg_{side}_lower_leg_coord_1"]
    return out


def compare_reference(res, tree, model, reference: Path) -> dict:
    """Correlation of hip/knee flexion with OpenSim's Gait2392 result at the same times.

    The trial and the reference share one clock (the shared walk's TRC runs 0-2.5 s, the reference
    0.5-4.0 s; the overlap, 121 frames, is compared): each of our frames is matched to the reference
    row at its time (nearest sample, within half a sample).  Fewer than 60 common frames: no figures.
    """
    if not reference.is_file():
        return {}
    ik = _read_mot(reference)
    ti = ik["time"].to_numpy()
    dt = float(np.median(np.diff(ti)))
    i = np.rint((res["time"] - ti[0]) / dt).astype(int)
    ok = (i >= 0) & (i < len(ti))
    ok[ok] = np.abs(ti[i[ok]] - res["time"][ok]) < 0.5 * dt
    if ok.sum() < 60:
        return {}
    part = ik.iloc[i[ok]]
    out = {"reference_frames": int(ok.sum())}
    for key, ours in _flexion(res, tree).items():
        col = key.replace("knee_flexion", "knee_angle")
        if ours is None or col not in part:
            continue
        theirs = part[col].to_numpy() * (-1.0 if key.startswith("knee") else 1.0)
        out[f"r_{key}"] = round(float(np.corrcoef(ours[ok], theirs)[0, 1]), 3)
    return out


def _error_summary(res, lower=None) -> dict:
    """RMS marker error per frame (mm): mean and largest over frames, all markers and pelvis + legs."""
    e = 1e3 * res["errors"]
    rms = np.sqrt(np.mean(e**2, axis=1))
    out = {"rms_marker_error_mm_mean": round(float(rms.mean()), 2),
           "rms_marker_error_mm_max": round(float(rms.max()), 2)}
    if lower:
        cols = [j for j, n in enumerate(res["marker_names"]) if n in lower]
        legs = np.sqrt(np.mean(e[:, cols] ** 2, axis=1))
        out["rms_error_pelvis_legs_mm_mean"] = round(float(legs.mean()), 2)
        out["pelvis_legs_markers"] = len(cols)
    return out


# ------------------------------------------------------------------ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tree", choices=("gait2392", "humanbody"), default="gait2392",
                    help="topology of the model built from our calibrated subject")
    ap.add_argument("--osim", help="use this .osim model (with its own markers) instead of building one")
    ap.add_argument("--trc", default=str(DATA / "subject01_walk1.trc"), help="marker trial (TRC)")
    ap.add_argument("--static", default=str(DATA / "subject01_static.trc"), help="standing trial (TRC)")
    ap.add_argument("--reference", default=str(DATA / "reference" / "opensim_ik.mot"),
                    help="OpenSim IK result to correlate hip/knee flexion with")
    ap.add_argument("--accuracy", type=float, default=1e-5)
    ap.add_argument("--hat-weight", type=float, default=1.0,
                    help="weight of the trunk, head and arm markers (1, like every other marker, by default)")
    ap.add_argument("--no-tool", action="store_true", help="time the solver only, not InverseKinematicsTool")
    ap.add_argument("--repeat", type=int, default=5, help="solver runs; the best is reported (default 5)")
    ap.add_argument("--process", type=int, default=3, metavar="N",
                    help="also time N whole IK processes run from a setup file (0: skip; default 3)")
    ap.add_argument("--keep", help="folder for the .osim model and the tool's .mot (temporary otherwise)")
    args = ap.parse_args(argv)
    trc, static, reference = (Path(p).resolve() for p in (args.trc, args.static, args.reference))
    osim_file = Path(args.osim).resolve() if args.osim else None
    folder = Path(args.keep).resolve() if args.keep else Path(tempfile.mkdtemp(prefix="hb_osim_"))
    folder.mkdir(parents=True, exist_ok=True)
    os.chdir(folder)  # opensim writes opensim.log into the working folder on import
    try:
        import opensim as osim
    except ImportError:
        print(json.dumps({"skipped": "opensim is not importable (pip install opensim)"}))
        return 3
    if not trc.is_file():
        print(f"bench_opensim_ik: marker trial not found: {trc}", file=sys.stderr)
        return 2
    osim.Logger.removeFileSink()
    osim.Logger.setLevelString("Warn")

    t0 = time.perf_counter()
    if args.osim:
        tree, model = "osim", osim.Model(str(osim_file))
        model.initSystem()
        dof = model.getCoordinateSet().getSize()
        ours, lower = None, None
    else:
        tree = args.tree
        analysis = calibrated_subject(trc, static)
        ours = analysis.model
        lower = {n for seg, names in analysis.calibration.local.items() if seg not in _HAT for n in names}
        build = build_gait2392_tree if tree == "gait2392" else build_humanbody_tree
        model, dof = build(osim, ours, analysis.calibration)
        model.printToXML(str(folder / f"{model.getName()}.osim"))
    built = time.perf_counter() - t0

    weights = {}
    if args.hat_weight != 1.0 and not args.osim:
        weights = {n: args.hat_weight for seg, names in analysis.calibration.local.items()
                   if seg in _HAT for n in names}
    runs = [solve(osim, model, trc, args.accuracy, weights) for _ in range(max(1, args.repeat))]
    res = runs[0]
    secs = sorted(r["seconds"] for r in runs)
    rec = {
        "program": "opensim", "version": osim.__version__, "tree": tree, "dof": dof,
        "frames": res["frames"],
        "ik_seconds": round(secs[0], 3),  # the best run: the figure most favourable to OpenSim
        "ik_seconds_runs": [round(x, 3) for x in secs],
        "ik_frames_per_s": round(res["frames"] / secs[0], 1),
        "ik_frames_per_s_median": round(res["frames"] / float(np.median(secs)), 1),
    }
    if not args.no_tool:
        secs, mot = run_tool(osim, osim.Model(model), trc, folder, args.accuracy, weights)
        rec["tool_seconds"] = round(secs, 3)
        rec["tool_frames_per_s"] = round(res["frames"] / secs, 1)
    if args.process:
        model_file = osim_file or folder / f"{model.getName()}.osim"
        secs = sorted(run_process(osim, osim.Model(model), model_file, trc, folder, args.accuracy, weights,
                                  args.process))
        rec["process_seconds"] = round(secs[0], 3)
        rec["process_seconds_runs"] = [round(x, 3) for x in secs]
        rec["process_frames_per_s"] = round(res["frames"] / secs[0], 1)
        rec["process_frames_per_s_median"] = round(res["frames"] / float(np.median(secs)), 1)
    rec.update({
        "markers": len(res["marker_names"]),
        **_error_summary(res, lower),
        "accuracy": args.accuracy, "hat_weight": args.hat_weight,
        "build_seconds": round(built, 2),
    })
    rec.update(compare_reference(res, tree, ours, reference))
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

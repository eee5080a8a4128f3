"""OpenSim's own static optimization and joint reactions of the shared walk: the reference, run once and cached.

The setup is the Joint Reaction tutorial's (OpenSim's gait2392 subject01, the
shared walk's subject): the scaled gait2392 model, OpenSim's IK of the walk,
the walk's ExternalLoads, activation exponent 2, muscle physiology on, the
model's muscles plus weak reserves (a CoordinateActuator of optimal force
1 N·m on every joint coordinate) and residuals (CoordinateActuators of optimal
force 1 on the six pelvis coordinates), the coordinates low-pass filtered at
``CUTOFF_HZ`` (AnalyzeTool's ``lowpass_cutoff_frequency_for_coordinates``).

OpenSim runs twice, as its tutorial does: an AnalyzeTool with a
StaticOptimization (timed), then one with a JointReaction reading the
optimization's forces (``forces_file``).  The results are cached under the
system's temporary folder, keyed by a hash of the input files and of the
settings, so a test session pays for OpenSim once per machine.  The opensim
package is a test reference only; this module is imported by tests alone.

Run as a script to build (or show) the cache: ``python tests/muscles/_opensim_reference.py``.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[2]
CUTOFF_HZ = 6.0  # lowpass_cutoff_frequency_for_coordinates (Hz), set explicitly
EXPONENT = 2.0
START, END = 0.5, 2.5  # s: where OpenSim's IK (0.5-4 s) and the walk's loads (0-2.5 s) overlap
RESERVE_FORCE = 1.0  # N·m (N for pelvis translations): the tutorial's weak reserves
VERSION = "1"  # bump when the setup below changes


def _paths(shared: Path) -> dict[str, Path]:
    walk = shared / "gait2392_walk"
    return {"model": shared / "opensim_models" / "gait2392" / "subject01_simbody.osim",
            "ik": walk / "reference" / "opensim_ik.mot",
            "loads": walk / "subject01_walk1_grf.xml",
            "grf": walk / "subject01_walk1_grf.mot"}


def coordinate_names(model_path: Path) -> list[str]:
    """The model's coordinates in file order (read with the opensim package)."""
    import opensim as osim

    model = osim.Model(str(model_path))
    cs = model.getCoordinateSet()
    return [cs.get(i).getName() for i in range(cs.getSize())]


def reserves_xml(coordinates: list[str], optimal_force: float = RESERVE_FORCE) -> str:
    """An OpenSim actuators file: one CoordinateActuator per coordinate, controls unbounded.

    Named ``<coordinate>_reserve`` (``<coordinate>_residual`` on the pelvis).
    """
    rows = []
    for c in coordinates:
        kind = "residual" if c.startswith("pelvis_") else "reserve"
        rows.append(f"""      <CoordinateActuator name="{c}_{kind}">
        <min_control>-Inf</min_control>
        <max_control>Inf</max_control>
        <coordinate>{c}</coordinate>
        <optimal_force>{optimal_force}</optimal_force>
      </CoordinateActuator>""")
    body = "\n".join(rows)
    return f"""<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000">
  <ForceSet name="reserves">
    <objects>
{body}
    </objects>
    <groups />
  </ForceSet>
</OpenSimDocument>
"""


def cache_key(shared: Path) -> str:
    h = hashlib.sha256()
    for p in _paths(shared).values():
        h.update(p.read_bytes())
    h.update(json.dumps([VERSION, CUTOFF_HZ, EXPONENT, START, END, RESERVE_FORCE]).encode())
    return h.hexdigest()[:16]


def cache_dir(shared: Path) -> Path:
    return Path(tempfile.gettempdir()) / "humanbody_opensim_so" / cache_key(shared)


def _tool(name: str, paths: dict[str, Path], reserves: Path, out: Path):
    import opensim as osim

    tool = osim.AnalyzeTool()
    tool.setName(name)
    tool.setModelFilename(str(paths["model"]))
    tool.setReplaceForceSet(False)
    files = osim.ArrayStr()
    files.append(str(reserves))
    tool.setForceSetFiles(files)
    tool.setCoordinatesFileName(str(paths["ik"]))
    tool.setLowpassCutoffFrequency(CUTOFF_HZ)
    tool.setExternalLoadsFileName(str(paths["loads"]))
    tool.setInitialTime(START)
    tool.setFinalTime(END)
    tool.setStartTime(START)
    tool.setResultsDir(str(out))
    return tool


def _run_setup(tool, setup: Path) -> float:
    """Print the tool's setup file and run it as OpenSim's ``opensim-cmd run-tool`` would; seconds taken."""
    import opensim as osim

    tool.printToXML(str(setup))
    t0 = time.perf_counter()
    osim.AnalyzeTool(str(setup)).run()
    return time.perf_counter() - t0


def build(shared: Path, out: Path) -> dict:
    """Run OpenSim's static optimization then its joint reactions into ``out``; returns the timings."""
    import opensim as osim

    osim.Logger.setLevelString("warn")
    out.mkdir(parents=True, exist_ok=True)
    paths = _paths(shared)
    reserves = out / "reserves.xml"
    reserves.write_text(reserves_xml(coordinate_names(paths["model"])))

    so_tool = _tool("so", paths, reserves, out)
    so = osim.StaticOptimization()
    so.setName("StaticOptimization")
    so.setStartTime(START)
    so.setEndTime(END)
    so.setUseModelForceSet(True)
    so.setActivationExponent(EXPONENT)
    so.setUseMusclePhysiology(True)
    so_tool.getAnalysisSet().cloneAndAppend(so)
    seconds = _run_setup(so_tool, out / "setup_so.xml")

    jr_tool = _tool("jr", paths, reserves, out)
    jr = osim.JointReaction()
    jr.setName("JointReaction")
    jr.setStartTime(START)
    jr.setEndTime(END)
    jr.setForcesFileName(str(out / "so_StaticOptimization_force.sto"))
    names = osim.ArrayStr()
    names.append("all")
    jr.setJointNames(names)
    on = osim.ArrayStr()
    on.append("child")
    jr.setOnBody(on)
    frame = osim.ArrayStr()
    frame.append("child")
    jr.setInFrame(frame)
    jr_tool.getAnalysisSet().cloneAndAppend(jr)
    seconds_jr = _run_setup(jr_tool, out / "setup_jr.xml")
    timing = {"so_seconds": seconds, "jr_seconds": seconds_jr}
    (out / "timing.json").write_text(json.dumps(timing))
    return timing


def build_states(shared: Path, out: Path) -> None:
    """OpenSim's processed kinematics (a Kinematics analysis, same filter) and, per frame, every muscle's
    length, lengthening speed, moment arms and SO capacity (``calcInextensibleTendonActiveFiberForce(s, 1)``),
    written to ``states.npz``."""
    import opensim as osim

    osim.Logger.setLevelString("warn")
    paths = _paths(shared)
    tool = _tool("kin", paths, out / "reserves.xml", out)
    kin = osim.Kinematics()
    kin.setName("Kinematics")
    kin.setInDegrees(False)
    tool.getAnalysisSet().cloneAndAppend(kin)
    _run_setup(tool, out / "setup_kin.xml")
    q = read_sto(out / "kin_Kinematics_q.sto")
    u = read_sto(out / "kin_Kinematics_u.sto")
    model = osim.Model(str(paths["model"]))
    state = model.initSystem()
    coords = model.getCoordinateSet()
    cnames = [coords.get(i).getName() for i in range(coords.getSize())]
    muscles = model.getMuscles()
    mnames = [muscles.get(i).getName() for i in range(muscles.getSize())]
    nf, nm, nc = len(q), len(mnames), len(cnames)
    L, dL, cap = np.zeros((nf, nm)), np.zeros((nf, nm)), np.zeros((nf, nm))
    R = np.zeros((nf, nm, nc))
    for f in range(nf):
        state.setTime(float(q["time"].iloc[f]))
        for j, c in enumerate(cnames):
            coords.get(j).setValue(state, float(q[c].iloc[f]), False)
            coords.get(j).setSpeedValue(state, float(u[c].iloc[f]))
        model.realizeVelocity(state)
        for i in range(nm):
            m = muscles.get(i)
            L[f, i] = m.getLength(state)
            dL[f, i] = m.getLengtheningSpeed(state)
            cap[f, i] = m.calcInextensibleTendonActiveFiberForce(state, 1.0)
            for j in range(nc):
                R[f, i, j] = m.computeMomentArm(state, coords.get(j))
    np.savez(out / "states.npz", time=q["time"].to_numpy(), q=q[cnames].to_numpy(), u=u[cnames].to_numpy(),
             L=L, dL=dL, R=R, capacity=cap, muscles=np.array(mnames), coordinates=np.array(cnames))


def states(shared: Path) -> dict:
    """The cached per-frame states of :func:`build_states` (built on first use)."""
    out = cache_dir(shared)
    reference(shared)
    if not (out / "states.npz").exists():
        build_states(shared, out)
    with np.load(out / "states.npz") as data:
        return {k: data[k] for k in data.files}


def rajagopal_states(shared: Path, frames: int = 12, seed: int = 7) -> dict:
    """Rajagopal 2016 (Millard muscles) at random poses and speeds within the coordinates' ranges:
    every muscle's length, lengthening speed and OpenSim's SO capacity, cached like :func:`reference`."""
    import opensim as osim

    path = shared / "opensim_models" / "rajagopal2016" / "Rajagopal2016.osim"
    key = hashlib.sha256(path.read_bytes() + f"{frames} {seed} {VERSION}".encode()).hexdigest()[:16]
    out = Path(tempfile.gettempdir()) / "humanbody_opensim_so" / f"rajagopal_{key}.npz"
    if not out.exists():
        osim.Logger.setLevelString("warn")
        model = osim.Model(str(path))
        state = model.initSystem()
        coords, muscles = model.getCoordinateSet(), model.getMuscles()
        rng = np.random.default_rng(seed)
        nm = muscles.getSize()
        L, dL, cap = np.zeros((frames, nm)), np.zeros((frames, nm)), np.zeros((frames, nm))
        for f in range(frames):
            for j in range(coords.getSize()):
                c = coords.get(j)
                if c.getLocked(state) or c.isConstrained(state):
                    continue
                lo, hi = c.getRangeMin(), c.getRangeMax()
                c.setValue(state, float(rng.uniform(lo, hi)) if hi - lo < 10 else 0.0, False)
                c.setSpeedValue(state, float(rng.normal(0.0, 2.0)))
            model.assemble(state)
            model.realizeVelocity(state)
            for i in range(nm):
                m = muscles.get(i)
                L[f, i], dL[f, i] = m.getLength(state), m.getLengtheningSpeed(state)
                cap[f, i] = m.calcInextensibleTendonActiveFiberForce(state, 1.0)
        names = np.array([muscles.get(i).getName() for i in range(nm)])
        np.savez(out, L=L, dL=dL, capacity=cap, muscles=names)
    with np.load(out) as data:
        return {k: data[k] for k in data.files} | {"model": path}


def read_sto(path: Path) -> pd.DataFrame:
    """An OpenSim .sto/.mot table (header up to ``endheader``)."""
    lines = path.read_text().splitlines()
    skip = next(i for i, line in enumerate(lines) if line.strip() == "endheader") + 1
    return pd.read_csv(path, sep=r"\s+", skiprows=skip)


def reference(shared: Path) -> dict:
    """The cached reference: activations, forces, joint reactions (DataFrames), timing, folder."""
    out = cache_dir(shared)
    if not (out / "timing.json").exists():
        build(shared, out)
    return {"activations": read_sto(out / "so_StaticOptimization_activation.sto"),
            "forces": read_sto(out / "so_StaticOptimization_force.sto"),
            "reactions": read_sto(out / "jr_JointReaction_ReactionLoads.sto"),
            "timing": json.loads((out / "timing.json").read_text()),
            "dir": out, "reserves": out / "reserves.xml", **_paths(shared)}


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(ROOT / "tests"))
    from _shared import require_shared

    ref = reference(require_shared())
    st = states(require_shared())
    print(st["L"].shape, float(np.abs(st["R"]).max()))
    print(ref["dir"], ref["timing"], ref["activations"].shape, np.round(ref["activations"].iloc[:, 1:].max().max(), 3))

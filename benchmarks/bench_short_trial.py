#!/usr/bin/env python3
"""A short trial, whole process: ``humanbody analyze`` beside OpenSim's whole IK process.

    .venv/bin/python benchmarks/bench_short_trial.py [--rounds 7] [--kinetics] [--json FILE]

The trial is the shared 151-frame walk (``subject01_walk1.trc``, 60 Hz, 2.5 s)
with its static trial, subject 72.6 kg, 1.8 m.  One round runs, each as a new
process timed from start to exit, alternating so all sample the same minutes
of the machine:

* ``humanbody analyze WALK --static STATIC --mass 72.6 --height 1.8 --out DIR -q``
  (reads both trials, calibrates, tracks the 17 segments, computes every
  quantity, writes the results CSV, the model and the residuals); with
  ``--kinetics`` also ``--forces subject01_walk1_grf.mot`` (joint forces,
  moments and powers from the force plates);
* OpenSim's whole inverse-kinematics process as a user runs it from a setup
  file: a new Python process that imports opensim, loads the ``.osim`` model,
  runs ``InverseKinematicsTool`` (reads the TRC, solves every frame, writes the
  ``.mot``).  The model is the Gait2392-topology model of the same subject
  that ``bench_opensim_ik.py`` builds (23 degrees of freedom), built once
  before timing;
* the floor of any process built on the same libraries: a new Python that
  imports numpy, pandas and numba and calls one small kernel from numba's
  on-disk cache (numba's first kernel also loads scipy.linalg, for BLAS):
  less than any ``humanbody`` command needs before it reads the trial.

Numba's kernel cache is warm for humanbody and the floor (as on a user's
machine after the first run), and Python's bytecode cache is on for all.
Prints one JSON line with every run, the medians and the ratio of the medians
(OpenSim / humanbody: how many times faster humanbody is; OpenSim / floor:
the most any program on these libraries could reach).  Needs ``pip install
opensim``; without it only humanbody and the floor are timed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
DATA = HERE.parents[1] / "shared" / "data" / "gait2392_walk"


#: The floor: libraries every humanbody command loads, and one kernel from numba's cache.
_FLOOR = """import numpy, pandas, numba


@numba.njit(cache=True)
def _one(x):
    return x + 1.0


_one(1.0)
"""


def _humanbody_cmd(trc: Path, static: Path, out: Path, forces: Path | None = None) -> list[str]:
    exe = Path(sys.executable).with_name("humanbody")
    head = [str(exe)] if exe.exists() else [sys.executable, "-m", "humanbody"]
    return head + ["analyze", str(trc), "--static", str(static), "--mass", "72.6", "--height", "1.8",
                   "--out", str(out), "-q"] + (["--forces", str(forces)] if forces else [])


def _timed(cmd, cwd, env) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    seconds = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"bench_short_trial: {' '.join(map(str, cmd[:3]))} failed: {proc.stderr.strip()[-400:]}")
    return seconds


def _opensim_setup(trc: Path, static: Path, folder: Path):
    """Build the subject's Gait2392-topology model and the IK setup file; the command that runs it."""
    sys.path.insert(0, str(HERE))
    import bench_opensim_ik as b  # noqa: E402
    import opensim as osim

    osim.Logger.removeFileSink()
    osim.Logger.setLevelString("Warn")
    analysis = b.calibrated_subject(trc, static)
    model, _ = b.build_gait2392_tree(osim, analysis.model, analysis.calibration)
    model_file = folder / f"{model.getName()}.osim"
    model.printToXML(str(model_file))
    tool = b._ik_tool(osim, osim.Model(model), trc, folder, 1e-5, {}, folder / "opensim_ik.mot")
    tool.set_model_file(str(model_file))
    setup = folder / "ik_setup.xml"
    tool.printToXML(str(setup))
    return [sys.executable, "-c", b._RUN_SETUP, str(setup)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trc", default=str(DATA / "subject01_walk1.trc"))
    ap.add_argument("--static", default=str(DATA / "subject01_static.trc"))
    ap.add_argument("--rounds", type=int, default=7, help="alternating rounds (default 7)")
    ap.add_argument("--kinetics", action="store_true",
                    help="humanbody also computes kinetics from the trial's force plates (--forces)")
    ap.add_argument("--json", help="also write the record to this file")
    args = ap.parse_args(argv)
    trc, static = Path(args.trc).resolve(), Path(args.static).resolve()
    if not trc.is_file():
        print(f"bench_short_trial: trial not found: {trc}", file=sys.stderr)
        return 2
    folder = Path(tempfile.mkdtemp(prefix="hb_short_"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    try:
        try:
            osim_cmd = _opensim_setup(trc, static, folder)
        except ImportError:
            osim_cmd = None
        forces = trc.with_name(trc.stem + "_grf.mot") if args.kinetics else None
        if forces is not None and not forces.is_file():
            print(f"bench_short_trial: force file not found: {forces}", file=sys.stderr)
            return 2
        hb_cmd = _humanbody_cmd(trc, static, folder / "hb", forces)
        (folder / "floor.py").write_text(_FLOOR)
        floor_cmd = [sys.executable, str(folder / "floor.py")]
        _timed(hb_cmd, folder, env)  # numba's cache and the bytecode cache warm, as after a first run
        _timed(floor_cmd, folder, env)
        if osim_cmd:
            _timed(osim_cmd, folder, env)
        hb, os_, fl = [], [], []
        load = os.getloadavg()[0]
        for _ in range(max(1, args.rounds)):
            hb.append(_timed(hb_cmd, folder, env))
            if osim_cmd:
                os_.append(_timed(osim_cmd, folder, env))
            fl.append(_timed(floor_cmd, folder, env))
        rec = {"bench": "short_trial", "trial": trc.name, "frames": 151, "kinetics": forces is not None,
               "rounds": len(hb), "humanbody_s": [round(x, 3) for x in hb],
               "humanbody_median_s": round(float(np.median(hb)), 3),
               "floor_s": [round(x, 3) for x in fl], "floor_median_s": round(float(np.median(fl)), 3),
               "loadavg_before": round(load, 2)}
        if os_:
            rec.update(opensim_s=[round(x, 3) for x in os_], opensim_median_s=round(float(np.median(os_)), 3),
                       ratio_of_medians=round(float(np.median(os_) / np.median(hb)), 2),
                       ratio_of_best=round(min(os_) / min(hb), 2),
                       floor_ratio_of_medians=round(float(np.median(os_) / np.median(fl)), 2))
        line = json.dumps(rec)
        print(line)
        if args.json:
            Path(args.json).write_text(line + "\n")
        return 0
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python3
"""Whole-body inverse kinematics on a long trial: solver frames/s and the whole ``analyze --ik global`` process.

    .venv/bin/python benchmarks/bench_global_ik.py [--frames 100000] [--source shared|sample]
                                                   [--json FILE] [--keep DIR]

The trial is the shared ``subject01_walk1.trc`` tiled to ``--frames`` frames
exactly as ``bench_long_trial.py`` tiles it (41 markers, 60 Hz), with the
shared static trial; ``--source sample`` uses the sample motion through the
sample marker layout instead.  Two measurements:

a. **solver**: in this process, the conditioned trial in ground axes and the
   static calibration prepared first (not timed), then
   :func:`humanbody.markers.global_ik.track_global` on every frame (segment
   fits as seeds, the Levenberg-Marquardt kernel, angles, residuals), after
   one untimed call on 200 frames that loads the compiled kernels; frames/s
   and the mean number of iterations per frame.
b. **whole process**: ``python -m humanbody analyze WALK --static STATIC --ik
   global`` in a child process, start to the results CSV written; wall time
   and the child's peak RSS (measured as ``bench_long_trial.py`` does).

c. **OpenSim IK** on the shared 151-frame walk with a model of the same
   subject (``bench_opensim_ik.py`` as ``bench_long_trial.py`` runs it; left
   out with ``--no-opensim`` or when ``opensim`` is not importable): its
   solver's frames/s and its whole process's, in the same run, and the
   ratios ``x_opensim_solver`` (a over OpenSim's solver),
   ``x_opensim_process`` (b over OpenSim's whole process on the 151-frame
   walk, where its start-up weighs) and ``x_opensim_solver_rate`` (b over
   OpenSim's solver rate, the most its whole process could reach on a long
   trial: the conservative ratio).  The host's load
   average is recorded at the start and the end (a shared host slows both).
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

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

import bench_long_trial as blt  # noqa: E402  (beside this script)

#: OpenSim IK on the same subject (docs/performance.md, bench_long_trial.py): solver alone, frames/s
#: (used only when OpenSim is not run here).
OPENSIM_SOLVER_FPS = (411.0, 597.0)


def solver(walk: Path, static: Path, mass: float, height: float) -> dict:
    """Frames/s of :func:`track_global` on the conditioned long trial (preparation not timed)."""
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground
    from humanbody.markers.calibration import calibrate
    from humanbody.markers.conditioning import condition
    from humanbody.markers.global_ik import track_global

    trial, mapping = to_ground(read_trial(walk))
    markers, _ = condition(trial)
    st, _ = to_ground(read_trial(static), axes=mapping.spec)
    cal = calibrate(st, "gait2392", mass=mass, height=height)
    track_global(markers.iloc[:200].copy(), cal, keep_frames=False)  # load the compiled kernels
    t0 = time.perf_counter()
    tr = track_global(markers, cal, keep_frames=False)
    wall = time.perf_counter() - t0
    n = len(markers)
    iters = getattr(tr, "iterations", np.zeros(1))
    return {"frames": n, "wall_s": round(wall, 2), "frames_per_s": round(n / wall),
            "mean_iterations": round(float(np.mean(iters)), 2),
            "median_residual_mm": round(float(np.nanmedian(tr.residuals.drop(columns="time").to_numpy())) * 1000, 1)}


def whole_process(walk: Path, static: Path, out: Path, folder: Path, mass: float, height: float) -> dict:
    cmd = [sys.executable, "-m", "humanbody", "analyze", str(walk), "--static", str(static), "--ik", "global",
           "--mass", str(mass), "--height", str(height), "--out", str(out), "-q"]
    r = blt.run_child(cmd, folder, "analyze_global")
    if r["rc"]:
        raise RuntimeError(f"humanbody analyze --ik global failed: {r['stderr'].strip()[-2000:]}")
    return {"wall_s": round(r["wall_s"], 2), "peak_rss_mb": round(r["peak_rss_mb"])}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--source", choices=("shared", "sample"), default="shared")
    ap.add_argument("--json", help="write the record here")
    ap.add_argument("--keep", help="keep the generated files in this folder")
    ap.add_argument("--no-opensim", action="store_true", help="leave out the OpenSim IK measurement")
    args = ap.parse_args(argv)
    os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in [os.environ.get("PYTHONPATH")] if p])
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench_global_ik_"))
    folder.mkdir(parents=True, exist_ok=True)
    source = args.source if args.source == "sample" or (blt.DATA / "subject01_walk1.trc").exists() else "sample"
    if source == "shared":
        walk, static, notes = blt.make_shared_trial(folder, args.frames)
        mass, height = 72.6, 1.8
    else:
        walk, static, notes = blt.make_sample_trial(folder, args.frames)
        mass, height = 75.0, 1.75
    rec = {"trial": notes, "frames": args.frames, "load_average_start": round(os.getloadavg()[0], 2),
           "cpus": os.cpu_count()}
    if not args.no_opensim and source == "shared":
        rec["opensim"] = blt.opensim_ik(folder)
    rec["solver"] = solver(walk, static, mass, height)
    rec["process"] = whole_process(walk, static, folder / "out", folder, mass, height)
    rec["process"]["frames_per_s"] = round(args.frames / rec["process"]["wall_s"])
    rec["load_average_end"] = round(os.getloadavg()[0], 2)
    fps = rec["solver"]["frames_per_s"]
    osim = rec.get("opensim", {})
    if "ik_frames_per_s" in osim:
        rec["solver"]["x_opensim_solver"] = round(fps / osim["ik_frames_per_s"], 1)
        # OpenSim's whole process on a long trial cannot beat its solver's per-frame rate: the conservative ratio
        rec["process"]["x_opensim_solver_rate"] = round(rec["process"]["frames_per_s"] / osim["ik_frames_per_s"], 1)
        if osim.get("process_frames_per_s"):
            rec["process"]["x_opensim_process"] = round(rec["process"]["frames_per_s"]
                                                        / osim["process_frames_per_s"], 1)
    else:  # the range measured by bench_long_trial.py (docs/performance.md)
        rec["solver"]["x_opensim_solver_published"] = [round(fps / o, 1) for o in OPENSIM_SOLVER_FPS]
    print(json.dumps(rec, indent=2))
    if args.json:
        Path(args.json).write_text(json.dumps(rec, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

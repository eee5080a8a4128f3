#!/usr/bin/env python3
"""Muscle lengths and moment arms of gait2392 scaled over the shared walk: ``humanbody muscles`` against OpenSim.

    .venv/bin/python benchmarks/bench_muscles.py [--repeat 50] [--opensim-frames 30] [--out FILE.json]

* OpenSim (the ``opensim`` 4.6 package, in this process): for ``--opensim-frames`` frames of
  OpenSim's own IK of the walk (``gait2392_walk/reference/opensim_ik.mot``), set the
  coordinates, then every muscle's ``getLength`` and ``computeMomentArm`` (a) about each
  coordinate it crosses (the 262 moment arms the command writes) and (b) about every
  coordinate (92 x 23, the issue's figure): seconds per frame, CPU (``process_time``) and
  wall clock.  Model loading and ``initSystem`` are not counted.
* humanbody: the whole ``humanbody muscles`` process, a new Python process from start to
  exit (imports, reading the model and the coordinates, kernels from numba's disk cache, the
  two CSV files written), on the walk repeated ``--repeat`` times (a long trial); seconds per
  frame, CPU (the child's user + system time) and wall clock.  One warm-up run first fills
  numba's cache.

The ratios are OpenSim's seconds per frame over the command's, CPU to CPU and wall to wall.
Prints one JSON line; ``--out`` also writes it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"


def _long_walk(ik: Path, repeat: int, out: Path) -> int:
    """The walk's IK repeated ``repeat`` times, time continuing; returns the frame count."""
    lines = ik.read_text().splitlines()
    end = next(i for i, ln in enumerate(lines) if ln.strip().lower() == "endheader")
    head, columns, rows = lines[:end + 1], lines[end + 1], [ln for ln in lines[end + 2:] if ln.strip()]
    data = np.array([[float(v) for v in r.split()] for r in rows])
    dt = data[1, 0] - data[0, 0]
    span = data[-1, 0] - data[0, 0] + dt
    blocks = [data + np.r_[k * span, np.zeros(data.shape[1] - 1)] for k in range(repeat)]
    table = np.vstack(blocks)
    head = [f"nRows={len(table)}" if h.lower().startswith("nrows") else h for h in head]
    body = "\n".join("\t".join(f"{v:.8f}" for v in row) for row in table)
    out.write_text("\n".join(head + [columns, body]) + "\n")
    return len(table)


def opensim_seconds(model_path: Path, ik: Path, frames: int, every_pair: bool) -> dict:
    import opensim as osim  # lazy: the reference program

    sys.path.insert(0, str(ROOT))
    from humanbody.muscles import MuscleGeometry, read_model_coordinates
    from humanbody.osim import read_osim

    ours = read_osim(model_path)
    _, q = read_model_coordinates(ik, ours)
    crossed = MuscleGeometry.of(ours).crossed
    model = osim.Model(str(model_path))
    state = model.initSystem()
    coords = [model.getCoordinateSet().get(n) for n in ours.coordinate_names]
    muscles = [model.getMuscles().get(n) for n in ours.muscle_names]
    pairs = [(mu, model.getCoordinateSet().get(c)) for mu, n in zip(muscles, ours.muscle_names, strict=True)
             for c in (ours.coordinate_names if every_pair else crossed[n])]
    cpu = wall = 0.0
    for f in range(frames):
        for c, v in zip(coords, q[f], strict=True):
            c.setValue(state, float(v), False)
        c0, w0 = time.process_time(), time.perf_counter()
        model.realizePosition(state)
        for mu in muscles:
            mu.getLength(state)
        for mu, c in pairs:
            mu.computeMomentArm(state, c)
        cpu += time.process_time() - c0
        wall += time.perf_counter() - w0
    return {"frames": frames, "moment_arms_per_frame": len(pairs), "cpu_s_per_frame": cpu / frames,
            "wall_s_per_frame": wall / frames}


def command_seconds(model_path: Path, coords: Path, frames: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "humanbody", "muscles", str(coords), "--model", str(model_path), "--out"]
    with tempfile.TemporaryDirectory() as out:
        subprocess.run(cmd + [out, "-q"], check=True, env=env)                 # warm numba's cache
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = time.perf_counter()
        subprocess.run(cmd + [out, "-q"], check=True, env=env)
        wall = time.perf_counter() - w0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"frames": frames, "process_cpu_s": cpu, "process_wall_s": wall, "cpu_s_per_frame": cpu / frames,
            "wall_s_per_frame": wall / frames}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=50, help="walk repetitions for the long trial (default 50)")
    p.add_argument("--opensim-frames", type=int, default=30, help="frames OpenSim computes (default 30)")
    p.add_argument("--out", help="write the JSON line to this file too")
    args = p.parse_args()
    model = SHARED / "opensim_models" / "gait2392" / "subject01_simbody.osim"
    ik = SHARED / "gait2392_walk" / "reference" / "opensim_ik.mot"
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        long = Path(tmp) / "walk_repeated_ik.mot"
        frames = _long_walk(ik, args.repeat, long)
        ours = command_seconds(model, long, frames)
    crossed = opensim_seconds(model, ik, args.opensim_frames, every_pair=False)
    every = opensim_seconds(model, ik, max(3, args.opensim_frames // 3), every_pair=True)
    record = {"benchmark": "muscles", "model": "gait2392 scaled (subject01_simbody.osim), 92 muscles",
              "date": time.strftime("%Y-%m-%d"), "machine": platform.node(), "cpus": os.cpu_count(),
              "load_average_before": load, "opensim_crossed": crossed, "opensim_every_pair": every,
              "humanbody_muscles_process": ours}
    for name, theirs in (("crossed", crossed), ("every_pair", every)):
        record[f"speedup_cpu_{name}"] = theirs["cpu_s_per_frame"] / ours["cpu_s_per_frame"]
        record[f"speedup_wall_{name}"] = theirs["wall_s_per_frame"] / ours["wall_s_per_frame"]
    line = json.dumps(record)
    print(line)
    if args.out:
        Path(args.out).write_text(line + "\n")


if __name__ == "__main__":
    main()

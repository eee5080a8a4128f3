#!/usr/bin/env python3
"""Whole-process throughput and peak memory of ``humanbody analyze`` on a long marker trial.

    .venv/bin/python benchmarks/bench_long_trial.py [--frames 100000] [--keep DIR]

Makes a walk of ``--frames`` frames at 100 Hz from the sample motion
(data/make_sample.py, as many strides as needed) seen through the sample
marker layout (data/make_sample_markers.py, 0.5 mm noise), writes it as a
TRC with its standing trial, then runs ``humanbody analyze`` on it in a
child process and reports wall time, frames/s and the child's peak resident
memory (``resource.getrusage(RUSAGE_CHILDREN)``).  The issue "Scale" asks for
a 100,000-frame, 41-marker trial in at most 2 GB, and for at least 100x the
frames/s of OpenSim's inverse kinematics (~170 frames/s on the shared walk).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "data"))


def make_trial(folder: Path, frames: int, rate: float = 100.0) -> tuple[Path, Path]:
    import make_sample
    import make_sample_markers as msm

    import humanbody as hb

    stride_time = 1.1
    strides = int(np.ceil(frames / rate / stride_time)) + 1
    coords = make_sample.build(strides=strides, rate=rate).iloc[:frames].reset_index(drop=True)
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    layout = msm.marker_layout(model)
    t, markers = msm.walk_trial(model, layout, coords)
    rng = np.random.default_rng(1)
    markers = {k: v + rng.normal(0.0, 0.0005, v.shape) for k, v in markers.items()}
    walk, static = folder / "long_walk.trc", folder / "long_static.trc"
    msm.write_trc(walk, t, markers, rate)
    ts, ms = msm.static_trial(model, layout)
    msm.write_trc(static, ts, ms, rate)
    return walk, static


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--keep", help="folder to keep the generated trial and the results in")
    args = ap.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hb_long_"))
    folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    walk, static = make_trial(folder, args.frames)
    made = time.perf_counter() - t0
    exe = str(Path(sys.executable).with_name("humanbody"))
    cmd = [exe, "analyze", str(walk), "--static", str(static), "--mass", "75", "--height", "1.75",
           "--out", str(folder / "out"), "-q"]
    subprocess.run(cmd[:2] + ["--help"], capture_output=True)  # not measured: warm the file cache
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        print(proc.stderr, file=sys.stderr)
        return proc.returncode
    peak_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0
    rec = {
        "frames": args.frames,
        "markers": 49,
        "make_trial_s": round(made, 2),
        "analyze_wall_s": round(wall, 2),
        "frames_per_s": round(args.frames / wall),
        "peak_rss_mb": round(peak_mb),
        "x_opensim_ik_170fps": round(args.frames / wall / 170.0, 1),
        "results_bytes": (folder / "out" / "long_walk_results.csv").stat().st_size,
    }
    print(json.dumps(rec, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

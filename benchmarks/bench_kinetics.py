#!/usr/bin/env python3
"""Cost of the kinetics beside the kinematics: ``compute`` alone and ``compute`` + joint loads.

    .venv/bin/python benchmarks/bench_kinetics.py [--frames 100000] [--repeat 5]

Both on the same smooth motion with exact rates (the benchmark model of
bench_compute.py with the default rotation sequences), the kinetics with a
load on each foot in every frame (joint forces, moments, powers, clinical
moments and GRF columns).  With loads, ``humanbody analyze`` computes each
chunk's kinematics and kinetics in one pass
(:func:`humanbody.mechanics.kinetics.compute_with_kinetics`); the two-pass form
(``compute_motion``, then :func:`humanbody.mechanics.kinetics.kinetic_block` on its
results, as ``Analysis.kinetics`` does) is timed beside it.  Best of
``--repeat`` runs each, interleaved, ``--chunk`` frames at a time as
``humanbody analyze`` writes its results; prints one JSON line with
frames/s and the ratios to ``compute`` alone.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("HUMANBODY_BENCH_SEQUENCES", "default")

import bench_compute as bc  # noqa: E402

import humanbody as hb  # noqa: E402
from humanbody.mechanics.kinetics import compute_with_kinetics, kinetic_block  # noqa: E402
from humanbody.mechanics.loads import FrameLoads  # noqa: E402


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=float, default=1e5)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--chunk", type=int, default=8192,
                    help="frames computed at a time, as humanbody analyze writes its results (default 8192; 0: all)")
    args = ap.parse_args(argv)
    F = int(args.frames)
    base = bc.bench_model()
    model = hb.BodyModel.default().replace(mass=base.mass, inertia=base.inertia, com_offset=base.com_offset, joint_offset=base.joint_offset,
                                           gravity=base.gravity)
    t, q, qd, qdd = bc.motion(model, F)
    coords = bc.coords_frame(model, t, q, qd, qdd)
    res = hb.compute(model, coords)
    feet = [model.names.index("right_foot"), model.names.index("left_foot")]
    rng = np.random.default_rng(1)
    force = rng.normal(0, 200, (F, 2, 3))
    force[..., 2] = 700.0
    point = np.stack([res.joint[:, k] for k in feet], axis=1)
    loads = FrameLoads(["a", "b"], force, np.cross(point, force), point, body=np.tile(feet, (F, 1)))
    from humanbody.mechanics.kinematics import compute_motion, prepare_motion

    motion = prepare_motion(model, coords)
    chunk = args.chunk or F
    kin_s, both_s, two_s = [], [], []
    for _ in range(max(1, args.repeat)):
        work = None
        t0 = time.perf_counter()
        for a in range(0, F, chunk):  # the kinematics alone, chunk by chunk
            b = min(F, a + chunk)
            work = compute_motion(model, motion, a, b, out=work if work is not None and work.n_frames == b - a else None)
        t1 = time.perf_counter()
        work = block = None
        for a in range(0, F, chunk):  # kinematics and kinetics of each chunk in one pass
            b = min(F, a + chunk)
            work, block = compute_with_kinetics(model, motion, loads, a, b, block=block,
                                                out=work if work is not None and work.n_frames == b - a else None)
        t2 = time.perf_counter()
        work = block = None
        for a in range(0, F, chunk):  # the kinematics, then the kinetics of the same chunk
            b = min(F, a + chunk)
            work = compute_motion(model, motion, a, b, out=work if work is not None and work.n_frames == b - a else None)
            block = kinetic_block(model, work, loads, a, out=block)
        t3 = time.perf_counter()
        kin_s.append(t1 - t0)
        both_s.append(t2 - t1)
        two_s.append(t3 - t2)
    rec = {"bench": "kinetics", "frames": F, "chunk": chunk, "compute_s": round(min(kin_s), 4),
           "compute_and_kinetics_s": round(min(both_s), 4), "two_pass_s": round(min(two_s), 4),
           "compute_frames_per_s": round(F / min(kin_s)), "with_kinetics_frames_per_s": round(F / min(both_s)),
           "ratio": round(min(both_s) / min(kin_s), 2), "two_pass_ratio": round(min(two_s) / min(kin_s), 2),
           "loadavg": round(os.getloadavg()[0], 2)}
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

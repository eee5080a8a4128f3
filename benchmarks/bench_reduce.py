#!/usr/bin/env python3
"""Cost of ``--reduce-residuals``: ``humanbody analyze`` on the shared walk with and without it.

    .venv/bin/python benchmarks/bench_reduce.py [--repeat 3]

Runs the command as a user does (a new process each time, numba's disk
cache warm: one untimed run of each first), interleaved, best of
``--repeat``; then, in one process, the reduction alone
(:func:`humanbody.mechanics.reduction.reduce_residuals`) on the analysed walk.
Prints one JSON line: wall times, their ratio, the reduction's own time, and
the peak residual force before and after as % of the peak ground reaction.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WALK = ROOT.parent / "shared" / "data" / "gait2392_walk"


def _command(out: str, reduce: bool) -> list[str]:
    cmd = [sys.executable, "-m", "humanbody", "analyze", str(WALK / "subject01_walk1.trc"), "--static",
           str(WALK / "subject01_static.trc"), "--mass", "72.6", "--forces", str(WALK / "subject01_walk1_grf.mot"),
           "--out", out]
    return cmd + (["--reduce-residuals"] if reduce else [])


def _wall(cmd) -> float:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    start = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args(argv)
    if not WALK.is_dir():
        print(f"needs the shared walk in {WALK}", file=sys.stderr)
        return 2
    times: dict[str, list[float]] = {"default": [], "reduce": []}
    with tempfile.TemporaryDirectory() as tmp:
        for reduce in (False, True):  # compile and cache every kernel first
            _wall(_command(tmp, reduce))
        for _ in range(args.repeat):
            for reduce in (False, True):
                times["reduce" if reduce else "default"].append(_wall(_command(tmp, reduce)))
    sys.path.insert(0, str(ROOT))
    import humanbody as hb
    from humanbody.mechanics.reduction import reduce_residuals

    a = hb.analyze_trial(WALK / "subject01_walk1.trc", static=str(WALK / "subject01_static.trc"), mass=72.6,
                         forces=str(WALK / "subject01_walk1_grf.mot"))
    best = float("inf")
    for _ in range(args.repeat):
        start = time.perf_counter()
        red = reduce_residuals(a.model, a.motion, a.loads, a.results)
        best = min(best, time.perf_counter() - start)
    rec = red.record
    grf = rec["peak_external_force_N"]
    d, r = min(times["default"]), min(times["reduce"])
    print(json.dumps({"bench": "reduce_residuals", "trial": "gait2392_walk (151 frames, 60 Hz)",
                      "analyze_default_s": round(d, 2), "analyze_reduce_s": round(r, 2), "ratio": round(r / d, 2),
                      "reduction_alone_s": round(best, 3), "frames": rec["frames"],
                      "peak_residual_force_before_pct_grf": round(100 * rec["before"]["force_peak"] / grf, 2),
                      "peak_residual_force_after_pct_grf": round(100 * rec["after"]["force_peak"] / grf, 2),
                      "peak_residual_moment_before_Nm": round(rec["before"]["moment_peak"], 1),
                      "peak_residual_moment_after_Nm": round(rec["after"]["moment_peak"], 1),
                      "marker_change_rms_cm": round(100 * rec["marker_change_rms_m"], 2),
                      "loadavg": round(os.getloadavg()[0], 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""``compute`` of two checkouts side by side, and Pinocchio, alternating in one run.

    python benchmarks/bench_compute_ab.py --before /tmp/old-checkout [--rounds 3] [--frames 100000]
        [--json benchmarks/results/compute-ab.json]

Each round runs, each in its own process (``bench_compute.py``), with the
checkout's own code first on ``PYTHONPATH``: ``humanbody-reuse`` (``compute``
into a reused workspace) and ``humanbody-kernel`` (the tree kernel alone)
of this checkout and of ``--before``, each with one thread
(``NUMBA_NUM_THREADS=1``) and with all local cores, and Pinocchio's ``rnea`` +
``centerOfMass`` frame by frame from Python (one thread).  Prints one JSON line
per measurement, then a summary: CPU microseconds per frame (what contention
changes least; one thread each is the per-CPU-second comparison) and wall
microseconds per frame, best and median over the rounds, and each against
Pinocchio.  Both checkouts' kernels should be compiled (cached) first: the first
round warms them.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def one(root: Path, impl: str, frames: int, threads: int | None) -> dict:
    """One ``bench_compute.py`` measurement with ``root``'s code, as a JSON record (``error`` on failure)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    if threads:
        env["NUMBA_NUM_THREADS"] = str(threads)
    done = subprocess.run([sys.executable, str(root / "benchmarks" / "bench_compute.py"), impl, str(frames)],
                          capture_output=True, text=True, env=env, cwd=root)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        return {"error": (done.stderr.strip().splitlines() or ["no output"])[-1]}
    return json.loads(lines[-1])


def versions() -> dict:
    """Python and library versions of this interpreter."""
    import numba
    import numpy
    import pandas
    out = {"python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__,
           "numba": numba.__version__}
    try:
        import pinocchio
        out["pinocchio"] = pinocchio.__version__
    except ImportError:
        out["pinocchio"] = None
    return out


def summary(records: list[dict]) -> dict:
    """Best and median CPU and wall microseconds per frame of each measurement, and the ratios to Pinocchio."""
    groups: dict[str, list[dict]] = {}
    for r in records:
        if "error" not in r:
            groups.setdefault(r["label"], []).append(r)
    out = {}
    for label, rs in groups.items():
        cpu = [r["cpu_seconds"] / r["frames"] * 1e6 for r in rs]
        wall = [r["seconds"] / r["frames"] * 1e6 for r in rs]
        out[label] = {"cpu_us_per_frame": {"best": min(cpu), "median": statistics.median(cpu), "all": cpu},
                      "wall_us_per_frame": {"best": min(wall), "median": statistics.median(wall), "all": wall}}
    pin = out.get("pinocchio")
    if pin:
        for s in out.values():
            s["x_pinocchio_per_cpu_second"] = {k: pin["cpu_us_per_frame"][k] / s["cpu_us_per_frame"][k]
                                               for k in ("best", "median")}
            s["x_pinocchio_wall"] = {k: pin["wall_us_per_frame"][k] / s["wall_us_per_frame"][k]
                                     for k in ("best", "median")}
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, required=True, help="the other checkout (its own benchmarks/ is run)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--pinocchio-frames", type=int, default=20_000)
    ap.add_argument("--json", type=Path)
    a = ap.parse_args(argv)
    here = HERE.parent
    cores = os.cpu_count() or 1
    plan = [(f"{side}-{impl}-{t}thread", root, impl, t)
            for impl in ("humanbody-reuse", "humanbody-kernel")
            for t in (1, cores)
            for side, root in (("after", here), ("before", a.before.resolve()))]
    records = []
    for rnd in range(a.rounds):
        for label, root, impl, threads in plan + [("pinocchio", here, "pinocchio", 1)]:
            frames = a.pinocchio_frames if impl == "pinocchio" else a.frames
            rec = one(root, impl, frames, threads)
            rec.update(label=label, round=rnd, checkout=str(root))
            print(json.dumps(rec), flush=True)
            records.append(rec)
    result = {"bench": "compute-ab", "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "machine": f"{cores} cores, {platform.machine()}", **versions(),
              "command": " ".join(["benchmarks/bench_compute_ab.py", *(argv or sys.argv[1:])]),
              "summary": summary(records), "records": records}
    print(json.dumps(result["summary"], indent=1))
    if a.json:
        a.json.write_text(json.dumps(result, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

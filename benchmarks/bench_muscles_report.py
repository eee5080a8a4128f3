"""Time ``humanbody report DIR --model MODEL.osim --muscles`` on a study of copies of the shared walk.

The study: ``--n`` copies (default 20) of the shared walk (gait2392 subject01:
its markers, ground reactions and ExternalLoads XML, each copy's XML naming
its own table) and its static trial, in a temporary folder; the report runs
in a fresh process with ``--jobs`` workers (default 2), the numba cache warm
(a first run compiles the kernels: run twice), with ``--ik-setup SETUP.xml``
(the model's IK setup, as the docs' example). Prints the wall time, the
trials per second and the CPU seconds of the whole process tree.

``--compare ROOT`` also runs another copy of the project (a checkout of an
earlier commit) on the same study, the two alternating ``--repeat`` times,
so that a loaded machine weighs on both alike; ``--json FILE`` saves the
figures.

    .venv/bin/python benchmarks/bench_muscles_report.py --n 20 --jobs 2
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parents[1] / "shared" / "data"
WALK = DATA / "gait2392_walk"
MODEL = DATA / "opensim_models" / "gait2392" / "subject01_simbody.osim"
SETUP = DATA / "opensim_models" / "gait2392" / "subject01_Setup_IK.xml"


def make_study(folder: Path, n: int) -> None:
    """``n`` copies of the walk (``walk_01.trc``, ``walk_01_grf.mot``, ``walk_01_grf.xml``) and the static trial."""
    shutil.copy(WALK / "subject01_static.trc", folder / "subject01_static.trc")
    xml = (WALK / "subject01_walk1_grf.xml").read_text()
    for i in range(1, n + 1):
        stem = f"walk_{i:02d}"
        shutil.copy(WALK / "subject01_walk1.trc", folder / f"{stem}.trc")
        shutil.copy(WALK / "subject01_walk1_grf.mot", folder / f"{stem}_grf.mot")
        (folder / f"{stem}_grf.xml").write_text(xml.replace("subject01_walk1_grf.mot", f"{stem}_grf.mot"))


def run_report(root: Path, study: Path, out: Path, jobs: int, setup: bool) -> dict:
    """One fresh ``humanbody report`` process of the project at ``root``: wall and CPU seconds (process tree)."""
    shutil.rmtree(out, ignore_errors=True)
    env = dict(os.environ, PYTHONPATH=str(root))
    cmd = [sys.executable, "-m", "humanbody", "report", str(study), "--model", str(MODEL), "--muscles",
           "--out", str(out), "--jobs", str(jobs), "--quiet"] + (["--ik-setup", str(SETUP)] if setup else [])
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=root)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"root": str(root), "wall_s": wall, "cpu_s": cpu, "load_average": os.getloadavg()[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="copies of the walk (default 20)")
    ap.add_argument("--jobs", type=int, default=2, help="report workers (default 2)")
    ap.add_argument("--compare", metavar="ROOT", help="another copy of the project to time on the same study")
    ap.add_argument("--repeat", type=int, default=1, help="runs of each (default 1)")
    ap.add_argument("--json", metavar="FILE", help="save the figures")
    args = ap.parse_args()
    roots = [ROOT] + ([Path(args.compare).resolve()] if args.compare else [])
    runs = []
    with tempfile.TemporaryDirectory() as tmp:
        study, out = Path(tmp) / "study", Path(tmp) / "report"
        study.mkdir()
        make_study(study, args.n)
        for _ in range(args.repeat):
            for root in roots:
                setup = "--ik-setup" in (root / "humanbody" / "commands" / "report.py").read_text()
                run = run_report(root, study, out, args.jobs, setup)
                runs.append(run)
                wall, cpu = run["wall_s"], run["cpu_s"]
                print(f"{root}: {args.n} trials, {args.jobs} workers: {wall:.1f} s wall ({args.n / wall:.2f} "
                      f"trials/s), {cpu:.1f} CPU-s ({cpu / args.n:.2f} CPU-s per trial, {args.n / cpu * 2:.2f} "
                      f"trials/s on two free cores); load average {run['load_average']:.1f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"benchmark": "muscles_report", "trials": args.n, "jobs": args.jobs,
                                               "cpus": os.cpu_count(), "runs": runs}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

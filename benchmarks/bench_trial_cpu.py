"""CPU time of one study trial: ``analyze_trial`` on the shared walk, again and again in one process.

What a report worker pays per trial once it has started: the shared walk
(151 frames, 41 markers) with its static trial (calibrated once, then taken
from the calibration cache as a study's trials of one subject do) and its
force plates, the results, clinical angles and kinetics computed, on one
numba thread (as each worker runs when the workers fill the cores).  CPU
seconds, which another program on the machine changes far less than wall
time; one JSON line with the environment.

    .venv/bin/python benchmarks/bench_trial_cpu.py --n 20
    .venv/bin/python benchmarks/bench_trial_cpu.py --n 20 --profile     # cProfile, the 30 largest
    .venv/bin/python benchmarks/bench_trial_cpu.py --n 20 --report none  # a report worker's whole trial

``--report none|svg|png`` times what a ``humanbody report`` worker does per
trial instead (``humanbody.report.trial.process_trial``: the analysis, then
the gait events, spatiotemporal parameters, cycles, tables, normative
scores, figures and the trial's page, all in memory), on the shared walk
with its static and force plates, as a study's trials of one subject run.

Run it from two checkouts in turn (``PYTHONPATH=<checkout>``) to compare them under the same load.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numba
import numpy
import pandas
import scipy

import humanbody
from humanbody.analysis import analyze_trial
from humanbody.options import AnalysisOptions

ROOT = Path(__file__).resolve().parents[1]
WALK = ROOT.parent / "shared" / "data" / "gait2392_walk"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20, help="trials timed (after two untimed ones)")
    ap.add_argument("--walk", default=str(WALK), help="folder of subject01_walk1.trc, its static and forces")
    ap.add_argument("--profile", action="store_true", help="print cProfile's 30 largest (cumulative)")
    ap.add_argument("--report", choices=("none", "svg", "png"),
                    help="time a report worker's whole trial (process_trial) with these figures")
    a = ap.parse_args(argv)

    numba.set_num_threads(1)
    walk = Path(a.walk)
    opts = AnalysisOptions(static=walk / "subject01_static.trc", forces=walk / "subject01_walk1_grf.mot")
    cache: dict = {}

    def one():
        analysis = analyze_trial(walk / "subject01_walk1.trc", opts, calibration_cache=cache)
        return analysis.results, analysis.clinical, analysis.kinetics

    if a.report:
        from humanbody.report import ReportOptions, TrialTask  # lazy: only with --report
        from humanbody.report.trial import process_trial  # lazy: only with --report

        task = TrialTask(str(walk / "subject01_walk1.trc"), key="walk", static=str(opts.static),
                         grf=str(opts.forces), mass=72.6, height=1.8)
        ropts = ReportOptions(plots=a.report)

        def one():  # noqa: F811  the report's trial instead of the analysis alone
            outcome = process_trial(task, ropts)
            if not outcome.row["status"].startswith("ok"):
                raise SystemExit(f"the trial failed: {outcome.row['error']}")
            return outcome

    one()
    one()  # kernels loaded, the static calibrated
    prof = None
    if a.profile:
        import cProfile  # lazy: only with --profile

        prof = cProfile.Profile()
        prof.enable()
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(a.n):
        one()
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    if prof is not None:
        import pstats  # lazy: only with --profile

        prof.disable()
        pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(30)
    print(json.dumps({
        "bench": "trial_cpu" if not a.report else f"report_trial_cpu_{a.report}", "trials": a.n, "cpu_s_per_trial": round(cpu / a.n, 4),
        "wall_s_per_trial": round(wall / a.n, 4), "loadavg_after": round(os.getloadavg()[0], 2),
        "humanbody": str(Path(humanbody.__file__).parent.parent), "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "python": platform.python_version(), "numpy": numpy.__version__, "pandas": pandas.__version__,
        "numba": numba.__version__, "scipy": scipy.__version__, "cpus": os.cpu_count(),
        "cpu": platform.processor() or platform.machine(), "profiled": a.profile,
    }))
    return 0


if __name__ == "__main__":
    sys.exit(main())

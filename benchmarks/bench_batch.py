"""Batch report throughput: a study of N perturbed walks through ``run_batch`` on all local cores.

Generates the study with ``make_study.py`` (or reuses ``--study DIR`` when it
already holds N trials), runs :func:`humanbody.report.run_batch` in this
process - which is then the driver, so its memory is the driver's - and
reports wall time, trials per second, the CPU time of the driver and its
worker processes (what the study costs whatever else runs on the machine;
on an idle machine the wall time approaches it divided by the cores), the
driver's peak resident memory
(growth over its size before the batch, Linux ``VmHWM`` reset through
``/proc/self/clear_refs``) and whether every trial succeeded.

    .venv/bin/python benchmarks/bench_batch.py --n 1000 --plots none
    .venv/bin/python benchmarks/bench_batch.py --n 40 --plots svg none --rounds 2 --json /tmp/batch.json

With several ``--plots`` modes the same study runs in each mode in turn
(``--rounds`` times, alternating, so that both see the same load on a shared
machine); one JSON line per run, then each mode's best and median
trials/s and the ratio of the figures' throughput to the first mode's.

The report folder is a temporary folder removed afterwards unless ``--out``
is given (1000 trials write about 4 GB: the results and cycles tables are
1.9 and 2.2 MB per trial).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))


def _status_kb(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark of this process (Linux >= 4.0)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _run(tasks, out, plots, jobs, n, run_batch, ReportOptions) -> dict:
    """One batch run of the study in one figure mode; its record."""
    load = os.getloadavg()[0]
    rss0 = _status_kb("VmRSS")
    peak_ok = _reset_peak()
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    result = run_batch(tasks, out, ReportOptions(plots=plots), jobs=jobs, force=True, progress=True)
    wall = time.perf_counter() - t0
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_all = sum(y.ru_utime + y.ru_stime - x.ru_utime - x.ru_stime for x, y in ((cpu0, cpu1), (kids0, kids1)))
    peak = _status_kb("VmHWM") if peak_ok else cpu1.ru_maxrss
    n_ok = sum(r["status"] == "ok" for r in result.rows)
    out_mb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
    return {
        "bench": "batch", "trials": n, "forces": tasks[0].grf is not None, "ok": n_ok, "failed": n - n_ok,
        "jobs": jobs, "plots": plots,
        "wall_s": round(wall, 2), "trials_per_s": round(n / wall, 3),
        "s_per_trial_per_worker": round(wall * jobs / n, 3),
        "driver_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 2),
        # the driver and its forked workers (a fork server's workers are not its children and are
        # left out): what the study costs whatever else the machine runs, unlike wall_s
        "cpu_s": round(cpu_all, 2), "cpu_s_per_trial": round(cpu_all / n, 3),
        "driver_rss_before_mb": round(rss0 / 1024, 1) if rss0 else None,
        "driver_peak_rss_mb": round(peak / 1024, 1) if peak else None,
        "output_mb": round(out_mb, 1), "loadavg_before": round(load, 2),
        "python": platform.python_version(), "cpus": os.cpu_count(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="trials (default 1000)")
    ap.add_argument("--study", help="study folder (generated there when it lacks the trials; default: temporary)")
    ap.add_argument("--out", help="report folder to keep (default: temporary, removed)")
    ap.add_argument("--jobs", type=int, help="local workers (default: all cores)")
    ap.add_argument("--plots", choices=("svg", "png", "none"), nargs="+", default=["none"],
                    help="figure modes to run (several: alternating, same study)")
    ap.add_argument("--rounds", type=int, default=1, help="runs of each mode (alternating)")
    ap.add_argument("--no-forces", dest="forces", action="store_false",
                    help="a study without force plates (no kinetics; by default each copy has its ground reactions)")
    ap.add_argument("--json", help="also write the records to this file (one JSON line per run)")
    a = ap.parse_args(argv)

    from make_study import make_study

    from humanbody.report import ReportOptions, default_jobs, read_manifest, run_batch

    scratch = Path(tempfile.mkdtemp(prefix="humanbody-bench-batch-"))
    try:
        study = Path(a.study) if a.study else scratch / "study"
        manifest = study / "manifest.csv"
        fresh = manifest.is_file() and sum(1 for _ in open(manifest)) - 1 == a.n
        if fresh and a.forces != ("grf" in open(manifest).readline()):
            fresh = False  # a study with(out) force plates when the other was asked for
        if not fresh:
            t = time.perf_counter()
            make_study(study, a.n, forces=a.forces)
            print(f"study of {a.n} trials written to {study} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        out = Path(a.out) if a.out else scratch / "report"
        tasks = read_manifest(manifest)
        jobs = a.jobs or default_jobs()
        records = []
        for _ in range(a.rounds):
            for plots in a.plots:
                records.append(_run(tasks, out, plots, jobs, a.n, run_batch, ReportOptions))
                print(json.dumps(records[-1]))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # --study and --out outside it are kept
    if a.json:
        Path(a.json).write_text("".join(json.dumps(r) + "\n" for r in records))
    import statistics

    first = None
    for plots in a.plots:
        rates = [r["trials_per_s"] for r in records if r["plots"] == plots]
        cpu = [r["cpu_s_per_trial"] for r in records if r["plots"] == plots]
        med = statistics.median(rates)
        first = first or med
        print(f"{a.n} trials on {jobs} worker(s), plots {plots}: {max(rates):.2f} trials/s best, {med:.2f} median "
              f"({len(rates)} run(s)), {statistics.median(cpu):.3f} CPU-s per trial"
              + ("" if plots == a.plots[0] else f"; {med / first:.2f}x the {a.plots[0]} throughput"),
              file=sys.stderr)
    return 0 if all(r["ok"] == a.n for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())

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
    .venv/bin/python benchmarks/bench_batch.py --n 40 --plots png --json /tmp/batch.json

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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=1000, help="trials (default 1000)")
    ap.add_argument("--study", help="study folder (generated there when it lacks the trials; default: temporary)")
    ap.add_argument("--out", help="report folder to keep (default: temporary, removed)")
    ap.add_argument("--jobs", type=int, help="local workers (default: all cores)")
    ap.add_argument("--plots", choices=("png", "none"), default="none")
    ap.add_argument("--json", help="also write the record to this file")
    a = ap.parse_args(argv)

    from make_study import make_study

    from humanbody.report import ReportOptions, default_jobs, read_manifest, run_batch

    scratch = Path(tempfile.mkdtemp(prefix="humanbody-bench-batch-"))
    try:
        study = Path(a.study) if a.study else scratch / "study"
        manifest = study / "manifest.csv"
        if not (manifest.is_file() and sum(1 for _ in open(manifest)) - 1 == a.n):
            t = time.perf_counter()
            make_study(study, a.n)
            print(f"study of {a.n} trials written to {study} in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        out = Path(a.out) if a.out else scratch / "report"
        tasks = read_manifest(manifest)
        jobs = a.jobs or default_jobs()
        load = os.getloadavg()[0]
        rss0 = _status_kb("VmRSS")
        peak_ok = _reset_peak()
        cpu0 = resource.getrusage(resource.RUSAGE_SELF)
        kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        result = run_batch(tasks, out, ReportOptions(plots=a.plots), jobs=jobs, force=True, progress=True)
        wall = time.perf_counter() - t0
        cpu1 = resource.getrusage(resource.RUSAGE_SELF)
        kids1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu_all = sum(y.ru_utime + y.ru_stime - x.ru_utime - x.ru_stime for x, y in ((cpu0, cpu1), (kids0, kids1)))
        peak = _status_kb("VmHWM") if peak_ok else cpu1.ru_maxrss
        n_ok = sum(r["status"] == "ok" for r in result.rows)
        out_mb = sum(p.stat().st_size for p in out.rglob("*") if p.is_file()) / 1e6
        record = {
            "bench": "batch", "trials": a.n, "ok": n_ok, "failed": a.n - n_ok, "jobs": jobs, "plots": a.plots,
            "wall_s": round(wall, 2), "trials_per_s": round(a.n / wall, 3),
            "s_per_trial_per_worker": round(wall * jobs / a.n, 3),
            "driver_cpu_s": round(cpu1.ru_utime + cpu1.ru_stime - cpu0.ru_utime - cpu0.ru_stime, 2),
            # the driver and its forked workers (a fork server's workers are not its children and are
            # left out): what the study costs whatever else the machine runs, unlike wall_s
            "cpu_s": round(cpu_all, 2), "cpu_s_per_trial": round(cpu_all / a.n, 3),
            "driver_rss_before_mb": round(rss0 / 1024, 1) if rss0 else None,
            "driver_peak_rss_mb": round(peak / 1024, 1) if peak else None,
            "output_mb": round(out_mb, 1), "loadavg_before": round(load, 2),
            "python": platform.python_version(), "cpus": os.cpu_count(),
        }
    finally:
        shutil.rmtree(scratch, ignore_errors=True)  # --study and --out outside it are kept
    line = json.dumps(record)
    print(line)
    if a.json:
        Path(a.json).write_text(line + "\n")
    print(f"{a.n} trials ({n_ok} ok) on {jobs} worker(s), plots {a.plots}: {wall:.1f} s, "
          f"{a.n / wall:.2f} trials/s, driver peak RSS {record['driver_peak_rss_mb']} MB "
          f"(before the batch {record['driver_rss_before_mb']} MB)", file=sys.stderr)
    return 0 if n_ok == a.n else 1


if __name__ == "__main__":
    sys.exit(main())

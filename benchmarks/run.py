"""Run every benchmark of ``humanbody.compute``, one process per measurement.

    python benchmarks/run.py                       # sizes 1e3 1e4 1e5 1e6, one pass
    python benchmarks/run.py --repeat 3            # three passes, best and median kept
    python benchmarks/run.py --sizes 1e3 1e4 --numpy-max 1e4

Measurements (each in its own subprocess, so the peak resident memory it
reports is its own, and no measurement inherits warm caches or mapped pages
from another):

- ``humanbody``        ``compute(model, df)`` into new result arrays, inertia
  force and torque included (the kernel writes them with the kinematics);
- ``humanbody-reuse``  the same with ``out=previous`` (workspace reused): the
  like-for-like comparison with Pinocchio reusing its ``Data``;
- ``humanbody-all``    new arrays, then ``inertia`` (R I R^T, derived on first
  read) read as well (everything a user can read is materialised);
- ``humanbody-1thread``  as ``humanbody`` with ``NUMBA_NUM_THREADS=1``
  (per-core comparison with Pinocchio, which runs on one core);
- ``numpy``            the plain NumPy implementation of the same equations
  (``tests/_huston_reference.py``), up to ``--numpy-max`` frames;
- ``pinocchio``        Pinocchio's ``rnea`` + ``centerOfMass`` (acceleration
  level) called frame by frame from Python on the same tree;
- ``bandwidth``        the machine's memory-write bandwidth (numba parallel fill
  of fresh and of already-mapped memory).

Writes ``benchmarks/results/compute.json`` (every record, machine and load
information) and ``benchmarks/results/compute.md`` (the table).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

HUMANBODY = ("humanbody", "humanbody-reuse", "humanbody-all")


def _one(script: str, args: list[str], env_extra: dict | None = None, timeout: float = 1800) -> dict:
    env = dict(os.environ)
    env.update(env_extra or {})
    cmd = [sys.executable, str(HERE / script), *args]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout, cwd=HERE.parent)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s", "cmd": " ".join(args)}
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        tail = (done.stderr.strip().splitlines() or [f"exit status {done.returncode}"])[-1]
        return {"error": tail, "cmd": " ".join(args)}
    return json.loads(lines[-1])


def _machine() -> dict:
    info = {"python": platform.python_version(), "platform": platform.platform(), "cpus": os.cpu_count()}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                info["cpu"] = line.split(":", 1)[1].strip()
                break
        mem = Path("/proc/meminfo").read_text().splitlines()[0].split()
        info["memory_gb"] = round(int(mem[1]) / 2**20, 1)
    except OSError:
        pass
    versions = subprocess.run(
        [sys.executable, "-c",
         "import numpy, numba, pandas, json\n"
         "try:\n import pinocchio; pv = pinocchio.__version__\nexcept ImportError: pv = None\n"
         "print(json.dumps({'numpy': numpy.__version__, 'numba': numba.__version__, "
         "'pandas': pandas.__version__, 'pinocchio': pv, 'numba_threads': numba.get_num_threads(), "
         "'threading_layer_default': numba.config.THREADING_LAYER}))"],
        capture_output=True, text=True,
    )
    if versions.returncode == 0:
        info.update(json.loads(versions.stdout))
    return info


def measure(sizes: list[int], numpy_max: int, bandwidth_mib: int, say) -> list[dict]:
    """One pass over every measurement; returns the records."""
    records = []

    def add(rec):
        records.append(rec)
        if "error" in rec:
            say(f"  {rec.get('cmd')}: FAILED ({rec['error']})")
        elif rec["impl"] == "bandwidth":
            say(f"  bandwidth: fresh {rec['fresh_gb_s']:.1f} GB/s, warm {rec['warm_gb_s']:.1f} GB/s")
        else:
            say(f"  {rec['impl']:<18} {rec['frames']:>8} frames  {rec['frames_per_s']:>12,.0f} frames/s"
                f"  peak {rec['peak_rss_mb']:>7.0f} MB  (load {rec['load_before']:.2f})")

    add(_one("bench_bandwidth.py", [str(bandwidth_mib)]))
    for frames in sizes:
        for impl in HUMANBODY:
            add(_one("bench_compute.py", [impl, str(frames)]))
        if frames <= numpy_max:
            add(_one("bench_compute.py", ["numpy", str(frames)]))
        add(_one("bench_compute.py", ["pinocchio", str(frames)]))
    per_core = min(max(sizes), 100_000)
    rec = _one("bench_compute.py", ["humanbody", str(per_core)], {"NUMBA_NUM_THREADS": "1"})
    if "error" not in rec:
        rec["impl"] = "humanbody-1thread"
    add(rec)
    add(_one("bench_bandwidth.py", [str(bandwidth_mib)]))
    return records


def _median(values):
    v = sorted(values)
    return v[len(v) // 2] if len(v) % 2 else 0.5 * (v[len(v) // 2 - 1] + v[len(v) // 2])


def summarise(records: list[dict]) -> dict:
    """Best and median frames/s per (impl, frames), ratios and bandwidth fractions."""
    ok = [r for r in records if "error" not in r]
    bw = [r for r in ok if r["impl"] == "bandwidth"]
    fresh_bw = max((r["fresh_gb_s"] for r in bw), default=float("nan"))
    warm_bw = max((r["warm_gb_s"] for r in bw), default=float("nan"))
    groups: dict[tuple, list[dict]] = {}
    for r in ok:
        if r["impl"] != "bandwidth":
            groups.setdefault((r["impl"], r["frames"]), []).append(r)
    rows = {}
    for (impl, frames), rs in groups.items():
        fps = [r["frames_per_s"] for r in rs]
        best = max(rs, key=lambda r: r["frames_per_s"])
        per_cpu = [r["frames"] / r["cpu_seconds"] for r in rs if r.get("cpu_seconds")]
        row = {"impl": impl, "frames": frames, "best_frames_per_s": max(fps),
               "best_frames_per_cpu_s": max(per_cpu) if per_cpu else None,
               "median_frames_per_s": _median(fps), "runs": len(fps),
               "first_call_frames_per_s": _median([r.get("first_call_frames_per_s", float("nan")) for r in rs]),
               "peak_rss_mb": max(r["peak_rss_mb"] for r in rs),
               "cpu_per_wall": best["cpu_seconds"] / best["seconds"] if best.get("cpu_seconds") else None,
               "output_bytes_per_frame": best.get("output_bytes_per_frame")}
        if impl.startswith("humanbody"):
            ref_bw = warm_bw if impl == "humanbody-reuse" else fresh_bw
            row["write_gb_s"] = row["best_frames_per_s"] * row["output_bytes_per_frame"] / 1e9
            row["bandwidth_fraction"] = row["write_gb_s"] / ref_bw
            row["bandwidth_reference"] = "warm" if impl == "humanbody-reuse" else "fresh"
        rows[(impl, frames)] = row
    pin_fps = [row["best_frames_per_s"] for (impl, _), row in rows.items() if impl == "pinocchio"]
    pin_ref = _median(pin_fps) if pin_fps else float("nan")
    pin_cpu = [row["best_frames_per_cpu_s"] for (impl, _), row in rows.items() if impl == "pinocchio"]
    pin_cpu_ref = _median(pin_cpu) if pin_cpu else float("nan")
    for (impl, frames), row in rows.items():
        if impl.startswith("humanbody"):
            pin = rows.get(("pinocchio", frames), {}).get("best_frames_per_s", pin_ref)
            row["vs_pinocchio"] = row["best_frames_per_s"] / pin
            pin_c = rows.get(("pinocchio", frames), {}).get("best_frames_per_cpu_s", pin_cpu_ref)
            row["vs_pinocchio_per_cpu_s"] = row["best_frames_per_cpu_s"] / pin_c if row["best_frames_per_cpu_s"] else None
            npy = rows.get(("numpy", frames))
            row["vs_numpy"] = row["best_frames_per_s"] / npy["best_frames_per_s"] if npy else None
    return {"fresh_write_gb_s": fresh_bw, "warm_write_gb_s": warm_bw, "pinocchio_frames_per_s": pin_ref,
            "rows": sorted(rows.values(), key=lambda r: (r["frames"], r["impl"]))}


def _fmt(x, spec):
    return "–" if x is None else format(x, spec)


def table(summary: dict) -> str:
    lines = [
        "| frames | implementation | frames/s (best) | frames/s (median) | first call (median) | runs | peak RSS MB "
        "| x Pinocchio | x NumPy | frames per CPU-s | x Pinocchio per CPU-s | output GB/s | of write bandwidth |",
        "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in summary["rows"]:
        frac = r.get("bandwidth_fraction")
        frac_s = "–" if frac is None else f"{100 * frac:.0f} % ({r['bandwidth_reference']})"
        lines.append(
            f"| {r['frames']:,} | {r['impl']} | {r['best_frames_per_s']:,.0f} | {r['median_frames_per_s']:,.0f} "
            f"| {_fmt(r.get('first_call_frames_per_s'), ',.0f')} "
            f"| {r['runs']} | {r['peak_rss_mb']:,.0f} | {_fmt(r.get('vs_pinocchio'), '.1f')} "
            f"| {_fmt(r.get('vs_numpy'), '.0f')} | {_fmt(r.get('best_frames_per_cpu_s'), ',.0f')} "
            f"| {_fmt(r.get('vs_pinocchio_per_cpu_s'), '.1f')} | {_fmt(r.get('write_gb_s'), '.2f')} | {frac_s} |"
        )
    lines.append("")
    lines.append(f"Memory-write bandwidth (numba parallel fill, best): fresh pages "
                 f"{summary['fresh_write_gb_s']:.1f} GB/s, already-mapped pages {summary['warm_write_gb_s']:.1f} GB/s.")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", nargs="+", type=float, default=[1e3, 1e4, 1e5, 1e6])
    ap.add_argument("--numpy-max", type=float, default=1e5, help="largest size for the NumPy reference")
    ap.add_argument("--repeat", type=int, default=1, help="passes over all measurements")
    ap.add_argument("--bandwidth-mib", type=int, default=1024)
    ap.add_argument("--out", type=Path, default=RESULTS)
    ap.add_argument("--table", type=Path, metavar="JSON", help="only print the table of an earlier compute.json")
    args = ap.parse_args(argv)
    sizes = [int(s) for s in args.sizes]
    if args.table:
        print(table(summarise(json.loads(args.table.read_text())["records"])))
        return 0

    def say(msg):
        print(msg, flush=True)

    started = time.strftime("%Y-%m-%d %H:%M:%S")
    machine = _machine()
    say(f"machine: {machine.get('cpu', '?')}, {machine.get('cpus')} CPUs; load {os.getloadavg()}")
    records = []
    for i in range(args.repeat):
        say(f"pass {i + 1}/{args.repeat}")
        records += measure(sizes, int(args.numpy_max), args.bandwidth_mib, say)
    summary = summarise(records)
    text = table(summary)
    say("")
    say(text)
    args.out.mkdir(parents=True, exist_ok=True)
    report = {"started": started, "finished": time.strftime("%Y-%m-%d %H:%M:%S"), "machine": machine,
              "load_after": os.getloadavg(), "summary": summary, "records": records}
    (args.out / "compute.json").write_text(json.dumps(report, indent=1) + "\n")
    md = [
        "# compute() benchmark",
        "",
        f"Run {started} – {report['finished']} by `benchmarks/run.py` on {machine.get('cpu', '?')} "
        f"({machine.get('cpus')} CPUs, {machine.get('memory_gb', '?')} GB); numpy {machine.get('numpy')}, "
        f"numba {machine.get('numba')} ({machine.get('numba_threads')} threads), pinocchio {machine.get('pinocchio')}. "
        f"{args.repeat} pass(es); load average before each measurement is in compute.json.",
        "",
        text,
        "",
        "See docs/performance.md for what each row measures.",
        "",
    ]
    (args.out / "compute.md").write_text("\n".join(md))
    say(f"\nwrote {args.out / 'compute.md'} and compute.json")
    return 0 if all("error" not in r for r in records) else 1


if __name__ == "__main__":
    sys.exit(main())

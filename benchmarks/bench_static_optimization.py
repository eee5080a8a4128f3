#!/usr/bin/env python3
"""Static optimization of the shared walk: OpenSim's AnalyzeTool against ``humanbody muscles``, timed in one run.

    .venv/bin/python benchmarks/bench_static_optimization.py [--repeat N] [--frames-scale K] [--baseline DIR]

The setup is the Joint Reaction tutorial's (tests/muscles/_opensim_reference.py):
OpenSim's scaled gait2392 subject01, its IK of the walk (0.5-2.5 s, 121
frames), the walk's ExternalLoads, a 6 Hz coordinate filter, activation
exponent 2, muscle physiology on, weak reserves on every coordinate.

Timed, each as a user runs it (a new process, start-up included):

* ``opensim``: ``opensim-cmd``'s equivalent, AnalyzeTool(setup).run() with the
  StaticOptimization alone, in a fresh Python process importing opensim;
* ``humanbody``: ``python -m humanbody muscles IK --model M --forces XML
  --reserves R --cutoff 6 --joint-reactions none --out DIR -q``;
* ``humanbody+jr``: the same with every joint's reactions.

Each process is timed by its wall clock and by its CPU time (user + system of
the process and its children): on a machine shared with other work the wall
clock mostly measures the wait for a core, the CPU time what the process
costs.  The per-frame figure divides each process's time by its frames.
Every process runs with Python's bytecode cache on (``PYTHONDONTWRITEBYTECODE`` unset), as a user's
would: a process compiling humanbody's modules from source each time pays ~0.2 CPU-s more.
``--baseline DIR`` also times another humanbody source tree (e.g. ``git archive`` of an earlier commit)
the same way, its runs alternating with this tree's.
The tools' runs alternate (OpenSim, humanbody, the baseline, humanbody with reactions; ``--repeat`` times) and
the best of each is kept.  Prints one line per tool and the ratios; ``--json FILE`` saves them.  ``--frames-scale K`` (K > 1) also times
``humanbody muscles`` on a long trial: the walk's 120 frames of
0.5-2.5 s and their loads repeated K times end to end (the same setup;
OpenSim's per-frame time, which does not fall with the trial's length, is
the 121-frame run's).
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.muscles import _opensim_reference as osr  # noqa: E402

SHARED = Path(os.environ.get("HUMANBODY_SHARED_DATA", ROOT.parent / "shared" / "data"))


def _timed(cmd: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one process run to its end, in the folder of its ``PYTHONPATH``
    (``python -m humanbody`` imports the package of its working folder first)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, env=env, cwd=env["PYTHONPATH"], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def _line(name: str, t: tuple[float, float], frames: int, what: str) -> str:
    return (f"{name:14s} CPU {t[0]:8.2f} s {1000 * t[0] / frames:8.1f} ms/frame   wall {t[1]:8.2f} s  "
            f"({frames} frames{what})")


def _write_so_setup(paths: dict, reserves: Path, out: Path, setup: Path) -> None:
    """OpenSim's AnalyzeTool setup with the StaticOptimization alone (not timed)."""
    import opensim as osim

    osim.Logger.setLevelString("warn")
    tool = osr._tool("so", paths, reserves, out)
    so = osim.StaticOptimization()
    so.setStartTime(osr.START)
    so.setEndTime(osr.END)
    so.setUseModelForceSet(True)
    so.setActivationExponent(osr.EXPONENT)
    so.setUseMusclePhysiology(True)
    tool.getAnalysisSet().cloneAndAppend(so)
    tool.printToXML(str(setup))


def _tile(path: Path, out: Path, copies: int, lo: float, hi: float, period: float) -> None:
    """An OpenSim .mot/.sto with its rows of time in [lo, hi) repeated ``copies`` times, ``period`` s apart."""
    lines = path.read_text().splitlines()
    end = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader")
    rows = [line.split() for line in lines[end + 2:] if line.strip()]
    keep = [r for r in rows if lo - 1e-9 <= float(r[0]) < hi - 1e-9]
    body = ["\t".join([f"{float(r[0]) + c * period:.8f}", *r[1:]]) for c in range(copies) for r in keep]
    head = [f"nRows={len(body)}" if line.strip().startswith("nRows=") else line for line in lines[:end + 2]]
    out.write_text("\n".join(head + body) + "\n")


def _long_trial(paths: dict, out: Path, copies: int) -> tuple[Path, Path, int]:
    """The walk's coordinates and loads repeated ``copies`` times: (coordinates, ExternalLoads XML, frames)."""
    period = 2.0  # 0.5-2.5 s: 120 frames at 60 Hz, 1200 rows of loads at 600 Hz
    ik, grf = out / "long_ik.mot", out / "long_grf.mot"
    _tile(paths["ik"], ik, copies, 0.5, 0.5 + period, period)
    _tile(paths["grf"], grf, copies, 0.5, 0.5 + period, period)
    xml = out / "long_grf.xml"
    xml.write_text(paths["loads"].read_text().replace(paths["grf"].name, grf.name))
    return ik, xml, 120 * copies


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=1, help="runs of each tool (the best is kept)")
    ap.add_argument("--frames-scale", type=int, default=1, metavar="K",
                    help="also time humanbody on the walk repeated K times (a long trial)")
    ap.add_argument("--baseline", metavar="DIR", help="also time the humanbody source tree in DIR (alternating)")
    ap.add_argument("--json", metavar="FILE", help="save the figures")
    args = ap.parse_args(argv)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as a user's process: modules from their bytecode cache
    base_env = dict(env, PYTHONPATH=str(Path(args.baseline).resolve())) if args.baseline else None
    load = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        paths = osr._paths(SHARED)
        reserves = out / "reserves.xml"
        reserves.write_text(osr.reserves_xml(osr.coordinate_names(paths["model"])))
        so_setup = out / "setup_so.xml"
        _write_so_setup(paths, reserves, out, so_setup)
        run_so = [sys.executable, "-c", "import opensim as osim; osim.Logger.setLevelString('error'); "
                  f"osim.AnalyzeTool({str(so_setup)!r}).run()"]
        ours = [sys.executable, "-m", "humanbody", "muscles", str(paths["ik"]), "--model", str(paths["model"]),
                "--forces", str(paths["loads"]), "--reserves", str(reserves), "--cutoff", str(osr.CUTOFF_HZ),
                "--start", str(osr.START), "--end", str(osr.END), "--out", str(out / "hb"), "-q"]
        so_only = ours + ["--joint-reactions", "none"]
        for e in (env, base_env) if base_env else (env,):
            _timed(so_only, e)  # numba's cache warm, as after the first run
        _timed(ours, env)
        frames_os = frames_hb = 121
        runs: dict[str, list] = {"opensim": [], "hb": [], "base": [], "jr": []}
        for _ in range(args.repeat):  # alternating, so that a changing load weighs on each alike
            runs["opensim"].append(_timed(run_so, env))
            runs["hb"].append(_timed(so_only, env))
            if base_env:
                runs["base"].append(_timed(so_only, base_env))
            runs["jr"].append(_timed(ours, env))
        t_os, t_hb, t_jr = min(runs["opensim"]), min(runs["hb"]), min(runs["jr"])
        t_base = min(runs["base"]) if base_env else None
        t_long, t_long_base, frames_long = None, None, 0
        if args.frames_scale > 1:
            ik, xml, frames_long = _long_trial(paths, out, args.frames_scale)
            long = [sys.executable, "-m", "humanbody", "muscles", str(ik), "--model", str(paths["model"]),
                    "--forces", str(xml), "--reserves", str(reserves), "--cutoff", str(osr.CUTOFF_HZ),
                    "--joint-reactions", "none", "--out", str(out / "long"), "-q"]
            if base_env:
                _timed(long, base_env)
            _timed(long, env)
            long_runs: dict[str, list] = {"hb": [], "base": []}
            for _ in range(args.repeat):
                long_runs["hb"].append(_timed(long, env))
                if base_env:
                    long_runs["base"].append(_timed(long, base_env))
            t_long = min(long_runs["hb"])
            t_long_base = min(long_runs["base"]) if base_env else None
    print(_line("opensim", t_os, frames_os, ""))
    print(_line("humanbody", t_hb, frames_hb, ", SO"))
    print(_line("humanbody+jr", t_jr, frames_hb, ", SO + reactions"))
    print(f"ratio (whole process, OpenSim / humanbody SO): CPU {t_os[0] / t_hb[0]:.1f}x, wall {t_os[1] / t_hb[1]:.1f}x")
    if t_base is not None:
        print(_line("baseline", t_base, frames_hb, f", SO, {args.baseline}"))
        print(f"ratio (whole process, OpenSim / baseline SO): CPU {t_os[0] / t_base[0]:.1f}x")
    figures = {"benchmark": "static_optimization", "cpus": os.cpu_count(), "load_average_before": load,
               "load_average_after": os.getloadavg()[0], "frames": frames_os,
               "opensim": {"cpu_s": t_os[0], "wall_s": t_os[1]}, "humanbody_so": {"cpu_s": t_hb[0], "wall_s": t_hb[1]},
               "humanbody_so_jr": {"cpu_s": t_jr[0], "wall_s": t_jr[1]},
               "ratio_cpu": t_os[0] / t_hb[0], "ratio_wall": t_os[1] / t_hb[1],
               "runs_cpu_s": {k: [r[0] for r in v] for k, v in runs.items() if v},
               "runs_wall_s": {k: [r[1] for r in v] for k, v in runs.items() if v}}
    if t_base is not None:
        figures["baseline"] = {"tree": args.baseline, "cpu_s": t_base[0], "wall_s": t_base[1],
                               "ratio_cpu": t_os[0] / t_base[0]}
    if t_long is not None:
        print(_line("humanbody long", t_long, frames_long, ", SO"))
        per = t_os[0] / frames_os / (t_long[0] / frames_long)
        print(f"ratio per frame on the long trial (OpenSim's 121-frame run / humanbody's): CPU {per:.1f}x")
        figures["humanbody_long"] = {"frames": frames_long, "cpu_s": t_long[0], "wall_s": t_long[1],
                                     "ratio_cpu_per_frame": per,
                                     "runs_cpu_s": {k: [r[0] for r in v] for k, v in long_runs.items() if v}}
        if t_long_base is not None:
            per_base = t_os[0] / frames_os / (t_long_base[0] / frames_long)
            print(_line("baseline long", t_long_base, frames_long, ", SO"))
            print(f"ratio per frame on the long trial, baseline: CPU {per_base:.1f}x")
            figures["baseline_long"] = {"cpu_s": t_long_base[0], "wall_s": t_long_base[1],
                                        "ratio_cpu_per_frame": per_base}
    print(f"load average {os.getloadavg()[0]:.1f}")
    figures["python"] = sys.version.split()[0]
    figures["machine"] = f"{platform.machine()} {platform.processor() or ''}".strip()
    figures["date"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

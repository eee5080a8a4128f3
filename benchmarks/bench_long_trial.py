#!/usr/bin/env python3
"""Whole-process throughput of ``humanbody analyze`` beside OpenSim IK, on the same subject.

    .venv/bin/python benchmarks/bench_long_trial.py [--frames 100000] [--source shared|sample]
                                                    [--repeat 3] [--trees gait2392 humanbody]
                                                    [--json FILE] [--keep DIR] [--no-opensim]

The issue "Scale" asks for a marker trial -> results CSV at least 100x the
frames/s of OpenSim's inverse kinematics on the same subject.  One run
measures, each in its own child process:

a. **OpenSim IK** on the shared 151-frame walk (``bench_opensim_ik.py``,
   all 41 markers weight 1, accuracy 1e-5) with a model of the subject
   ``humanbody`` calibrates, for each of ``--trees``: ``gait2392`` (Gait2392's
   topology, 23 degrees of freedom: rigid trunk-head-arms, hinge knees) and
   ``humanbody`` (the same 17-segment, 54-dof tree ``humanbody`` computes,
   the like-for-like model).  Three figures: the solver alone, best of five
   runs (the steady-state rate, most favourable to OpenSim); the
   ``InverseKinematicsTool.run()`` call; and the whole IK process run from a
   setup file, start to exit, three times (``process``: how the issue's
   "roughly 170 frames/s" was measured, and how (b) is timed; on 151 frames
   start-up is most of it).  Skipped, with a note, when
   ``opensim`` is not importable (``pip install opensim``, the ``bench``
   extra).
b. **humanbody analyze, long trial**: the shared ``subject01_walk1.trc``
   tiled to ``--frames`` frames at its 60 Hz (41 markers, mm, lab axes as
   in the file), analysed with the shared static trial; wall time from
   process start to the results CSV written (a new file in an empty folder),
   and the child's peak RSS; ``--repeat`` runs, the best and the median
   reported (OpenSim's figure is also its best run).

(a) and (b) run in ``--repeat`` rounds (OpenSim's models, then one long
analyze), so both programs sample the same minutes of a shared machine;
OpenSim's best and median are over all its timed runs of all rounds.
c. **humanbody analyze, the original 151 frames**: the small-trial figure,
   interpreter start-up and imports included (after one unmeasured run that
   warms the file cache and numba's on-disk cache of compiled kernels).

How the walk is tiled.  The treadmill walk holds about two strides.  The
period P (frames) and the start frame a are chosen where the marker cloud
repeats best: the smallest RMS distance, over all markers and three
consecutive frames (position and velocity), between frames a..a+2 and
a+P..a+P+2.  The cycle X[a:a+P] is repeated; to make each seam exactly
continuous, every marker's small remaining mismatch d = X[a+P] - X[a] is
removed linearly across the cycle (X[a+j] - (j/P) d), so frame P of one
copy equals frame 0 of the next.  That keeps a treadmill walk on the spot
(no accumulated drift of the forward coordinate) and keeps the forward
direction, which playing the trial back and forth in time would reverse.

``--source sample`` keeps the previous trial: the sample motion seen
through the sample marker layout (49 markers, 100 Hz, 0.5 mm noise).

Peak memory is each command's own ``ru_maxrss``, read by a small Python
process that starts it (see ``_PEAK``: a direct child of this benchmark would
inherit its high-water mark), so the three figures do not mix.  The record is printed and written to ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "gait2392_walk"
MASS, HEIGHT = 72.6, 1.8


# ------------------------------------------------------------------ trials
def best_cycle(P: np.ndarray, min_period: int = 40) -> tuple[int, int, float]:
    """Start frame a, period p and seam mismatch (RMS, input units) of the best-repeating cycle.

    Parameters
    ----------
    P : ndarray (frames, markers, 3)
        Marker positions, no NaN.
    min_period : int
        Shortest period tried (frames); the longest leaves three frames.

    Returns
    -------
    a, p : int
    rms : float
        RMS over markers and the three compared frames of X[a+p+i] - X[a+i].
    """
    n = len(P)
    best = (0, 0, np.inf)
    for p in range(min_period, n - 2):
        for a in range(0, n - p - 2):
            d = P[a + p : a + p + 3] - P[a : a + 3]
            rms = float(np.sqrt(np.mean(d**2)))
            if rms < best[2]:
                best = (a, p, rms)
    return best


def tile_cycle(P: np.ndarray, a: int, p: int, frames: int) -> np.ndarray:
    """``frames`` frames repeating the cycle P[a:a+p], made exactly periodic.

    Each marker's mismatch d = P[a+p] - P[a] is removed linearly over the
    cycle (frame j shifted by -(j/p) d), so the copies join continuously.
    """
    j = np.arange(p)[:, None, None]
    cycle = P[a : a + p] - (j / p) * (P[a + p] - P[a])[None]
    reps = -(-frames // p)
    return np.tile(cycle, (reps, 1, 1))[:frames]


def write_trc(path: Path, names: list, rate: float, P_mm: np.ndarray) -> None:
    """OpenSim TRC (mm, the input's lab axes): the 5-line header, a blank line, one row per frame."""
    n = len(P_mm)
    head = "\n".join([
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate:.2f}\t{rate:.2f}\t{n}\t{len(names)}\tmm\t{rate:.2f}\t1\t{n}",
        "Frame#\tTime\t" + "\t\t\t".join(names),
        "\t\t" + "\t".join(f"X{i}\tY{i}\tZ{i}" for i in range(1, len(names) + 1)),
        "",
    ])
    table = np.column_stack([np.arange(1, n + 1), np.arange(n) / rate, P_mm.reshape(n, -1)])
    fmt = ["%d", "%.6f"] + ["%.5f"] * (table.shape[1] - 2)
    with open(path, "w") as f:
        f.write(head + "\n")
        np.savetxt(f, table, fmt=fmt, delimiter="\t")


def make_shared_trial(folder: Path, frames: int) -> tuple[Path, Path, dict]:
    """The shared walk tiled to ``frames`` frames; returns (walk, static, notes)."""
    from humanbody.io import markers_array, read_trial

    df = read_trial(DATA / "subject01_walk1.trc")
    names, P = markers_array(df)
    rate = float(df.attrs["rate_hz"])
    a, p, rms = best_cycle(P)
    walk = folder / "long_walk.trc"
    write_trc(walk, list(names), rate, 1000.0 * tile_cycle(P, a, p, frames))
    notes = {"source": "shared", "rate_hz": rate, "markers": len(names), "cycle_start_frame": a,
             "cycle_frames": p, "seam_mismatch_mm": round(1000.0 * rms, 2)}
    return walk, DATA / "subject01_static.trc", notes


def make_sample_trial(folder: Path, frames: int, rate: float = 100.0) -> tuple[Path, Path, dict]:
    """The sample motion through the sample marker layout (49 markers, 0.5 mm noise)."""
    sys.path.insert(0, str(ROOT / "data"))
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
    return walk, static, {"source": "sample", "rate_hz": rate, "markers": len(markers)}


# ------------------------------------------------------------------ children
#: Runs a command and prints its peak RSS.  A process forked from this
#: benchmark (which holds the generated trial) starts with this process's
#: high-water mark, and Linux keeps it through exec, so ``wait4`` on a direct
#: child would report at least our own size; a small Python in between
#: forks the measured command from a small address space.
_PEAK = ("import resource, subprocess, sys; rc = subprocess.call(sys.argv[1:]); "
         "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr); sys.exit(rc)")


#: Children run with Python's bytecode cache on, as on a user's machine: a
#: sandbox that sets PYTHONDONTWRITEBYTECODE would have every run compile the
#: package's modules again (0.1-0.3 s of start-up).
_CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_child(cmd: list, folder: Path, tag: str) -> dict:
    """Run ``cmd``; wall time (s), exit status, peak RSS of the command alone (MB), stdout text."""
    out, err = folder / f"{tag}.stdout", folder / f"{tag}.stderr"
    with open(out, "w") as fo, open(err, "w") as fe:
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-c", _PEAK, *cmd], stdout=fo, stderr=fe, env=_CHILD_ENV)
        wall = time.perf_counter() - t0
    lines = err.read_text().splitlines()
    peak_kb = float(lines[-1]) if lines and lines[-1].strip().isdigit() else float("nan")
    return {"wall_s": wall, "rc": proc.returncode, "peak_rss_mb": peak_kb / 1024.0,
            "stdout": out.read_text(), "stderr": "\n".join(lines[:-1])}


def analyze(walk: Path, static: Path, out: Path, folder: Path, tag: str, mass, height) -> dict:
    exe = str(Path(sys.executable).with_name("humanbody"))
    cmd = [exe, "analyze", str(walk), "--static", str(static), "--mass", str(mass),
           "--height", str(height), "--out", str(out), "-q"]
    r = run_child(cmd, folder, tag)
    if r["rc"]:
        raise RuntimeError(f"humanbody analyze failed ({tag}): {r['stderr'].strip()[-2000:]}")
    csv = out / f"{walk.stem}_results.csv"
    return {"wall_s": round(r["wall_s"], 2), "peak_rss_mb": round(r["peak_rss_mb"]),
            "results_bytes": csv.stat().st_size if csv.exists() else None}


def opensim_ik(folder: Path, tree: str = "gait2392") -> dict:
    cmd = [sys.executable, str(Path(__file__).with_name("bench_opensim_ik.py")),
           "--tree", tree, "--keep", str(folder / f"opensim_{tree}")]
    r = run_child(cmd, folder, f"opensim_{tree}")
    lines = [line for line in r["stdout"].splitlines() if line.startswith("{")]
    if r["rc"] == 3:
        return {"skipped": "opensim is not importable here (pip install opensim); no OpenSim figure"}
    if r["rc"] or not lines:
        raise RuntimeError(f"bench_opensim_ik failed: {r['stderr'].strip()[-2000:]}")
    rec = json.loads(lines[-1])
    rec["process_wall_s"] = round(r["wall_s"], 2)
    rec["peak_rss_mb"] = round(r["peak_rss_mb"])
    return rec


# ------------------------------------------------------------------ main
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000, help="frames of the long trial")
    ap.add_argument("--source", choices=("shared", "sample"), default="shared",
                    help="long trial from the shared walk (same subject as OpenSim) or the sample layout")
    ap.add_argument("--no-opensim", action="store_true", help="leave out the OpenSim IK measurement")
    ap.add_argument("--trees", nargs="+", choices=("gait2392", "humanbody"), default=["gait2392", "humanbody"],
                    help="OpenSim model topologies to measure (default both)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="rounds of OpenSim IK and humanbody analyze on the long trial, interleaved; "
                         "best and median reported (default 3)")
    ap.add_argument("--json", help="write the record here too")
    ap.add_argument("--keep", help="folder to keep the generated trial and the results in")
    args = ap.parse_args(argv)
    if args.source == "shared" and not (DATA / "subject01_walk1.trc").is_file():
        print(f"bench_long_trial: shared data not found in {DATA}; use --source sample", file=sys.stderr)
        return 2
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="hb_long_"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        return _measure(args, folder)
    finally:
        if not args.keep:  # the trial and its results take GBs
            shutil.rmtree(folder, ignore_errors=True)


def _merge_ik(recs: list) -> dict:
    """One OpenSim record from several rounds: solver best and median over all its timed runs, tool best."""
    recs = [r for r in recs if isinstance(r, dict)]
    timed = [r for r in recs if "ik_seconds_runs" in r]
    if not timed:
        return recs[0] if recs else {"skipped": "no OpenSim record"}
    out = dict(timed[0])
    frames = out["frames"]
    secs = sorted(x for r in timed for x in r["ik_seconds_runs"])
    out.update(ik_seconds=secs[0], ik_seconds_runs=secs, rounds=len(timed),
               ik_frames_per_s=round(frames / secs[0], 1),
               ik_frames_per_s_median=round(frames / float(np.median(secs)), 1))
    tools = [r["tool_seconds"] for r in timed if r.get("tool_seconds")]
    if tools:
        out.update(tool_seconds=min(tools), tool_frames_per_s=round(frames / min(tools), 1))
    procs = sorted(x for r in timed for x in r.get("process_seconds_runs", []))
    if procs:
        out.update(process_seconds=procs[0], process_seconds_runs=procs,
                   process_frames_per_s=round(frames / procs[0], 1),
                   process_frames_per_s_median=round(frames / float(np.median(procs)), 1))
    out["peak_rss_mb"] = max(r.get("peak_rss_mb", 0) for r in timed)
    return out


def _measure(args, folder: Path) -> int:
    rec: dict = {"date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(),
                 "load_avg_before": round(os.getloadavg()[0], 2)}

    t0 = time.perf_counter()
    make = make_shared_trial if args.source == "shared" else make_sample_trial
    walk, static, notes = make(folder, args.frames)
    notes["make_trial_s"] = round(time.perf_counter() - t0, 2)
    mass, height = (MASS, HEIGHT) if args.source == "shared" else (75.0, 1.75)

    # Rounds: OpenSim (each model), then humanbody on the long trial, --repeat times, so both
    # programs sample the same minutes of a shared host.  Before the first long run, one
    # unmeasured analyze of the short walk warms the file cache and, after a code change, fills
    # numba's on-disk cache (a one-time compile, not start-up); then (c) once.
    ik_rounds: dict = {tree: [] for tree in ([] if args.no_opensim else args.trees)}
    runs, small = [], None
    for i in range(max(1, args.repeat)):
        for tree in ik_rounds:
            ik_rounds[tree].append(opensim_ik(folder, tree))
        if i == 0 and DATA.is_dir():
            analyze(DATA / "subject01_walk1.trc", DATA / "subject01_static.trc", folder / "warm",
                    folder, "warm", MASS, HEIGHT)
            small = analyze(DATA / "subject01_walk1.trc", DATA / "subject01_static.trc", folder / "out151",
                            folder, "analyze151", MASS, HEIGHT)
        runs.append(analyze(walk, static, folder / f"out{i}", folder, f"analyze_long{i}", mass, height))
        shutil.rmtree(folder / f"out{i}", ignore_errors=True)  # its GBs of CSV, before the next run
    rec["opensim"] = ({"skipped": "--no-opensim"} if args.no_opensim
                      else {tree: _merge_ik(recs) for tree, recs in ik_rounds.items()})
    walls = sorted(r["wall_s"] for r in runs)
    long = min(runs, key=lambda r: r["wall_s"])
    long.update(frames=args.frames, frames_per_s=round(args.frames / walls[0]),
                frames_per_s_median=round(args.frames / float(np.median(walls))), wall_s_runs=walls,
                peak_rss_mb=max(r["peak_rss_mb"] for r in runs), **notes)
    rec["humanbody_long"] = long
    if small:
        small.update(frames=151, frames_per_s=round(151 / small["wall_s"], 1))
        rec["humanbody_151"] = small

    ratios = {}
    for tree, ik in rec["opensim"].items():
        if not isinstance(ik, dict) or "ik_frames_per_s" not in ik:
            continue
        for who, fps, fps_median in (("solver", ik["ik_frames_per_s"], ik.get("ik_frames_per_s_median")),
                                     ("tool", ik.get("tool_frames_per_s"), None),
                                     ("process", ik.get("process_frames_per_s"),
                                      ik.get("process_frames_per_s_median"))):
            if not fps:
                continue
            key = f"opensim_{tree}_ik_{who}"
            ratios[f"humanbody_long_over_{key}"] = round(long["frames_per_s"] / fps, 1)
            if fps_median:  # median against median
                ratios[f"humanbody_long_median_over_{key}_median"] = round(
                    long["frames_per_s_median"] / fps_median, 1)
            if small:
                ratios[f"humanbody_151_over_{key}"] = round(small["frames_per_s"] / fps, 2)
    if ratios:
        rec["ratios"] = ratios
    text = json.dumps(rec, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

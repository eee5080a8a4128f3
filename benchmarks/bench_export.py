#!/usr/bin/env python3
"""What ``--export`` costs beside ``humanbody analyze`` on a long trial.

    .venv/bin/python benchmarks/bench_export.py [--frames 100000] [--c3d-frames 65000] [--repeat 3] [--json FILE]

The shared walk tiled to ``--frames`` frames (``bench_long_trial.make_shared_trial``:
41 markers, 60 Hz, mm) is analysed ``--repeat`` times in this process
(``analyze_trial`` with the shared static trial, keeping the trial as read
as ``humanbody analyze --export`` does; the best time is kept); then,
``--repeat`` times each, into fresh folders:

* ``write``: :func:`humanbody.trial_output.write_results`, the results CSV,
  model, log and residuals (what ``analyze`` writes);
* ``write + opensim``: the same with ``export=("opensim",)``;
* ``write + c3d``: the same with ``export=("c3d",)`` on a second trial of
  ``--c3d-frames`` frames, since a C3D file holds at most 65,535 frames.

The cost of an export is the time spent in
:func:`humanbody.export.write_exports` (best of the runs; collecting
its columns while the table is written adds a copy of about 100 columns),
as a fraction of the whole analysis (``analyze_trial`` + ``write``, each
the best of its runs) of the same trial: on a shared machine a single
timing of either moves by tens of percent.  Prints one JSON record.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))


def measure(frames: int, export: tuple, repeat: int, folder: Path) -> dict:
    import bench_long_trial as blt
    from bench_io import best  # lazy: as bench_long_trial (benchmarks/ on sys.path); best of `repeat` timings

    from humanbody.analysis import analyze_trial
    from humanbody.trial_output import write_results

    walk, static, _ = blt.make_shared_trial(folder, frames)
    analysis, analyze_s = None, float("inf")
    for _ in range(repeat):
        analysis = None  # the previous analysis freed first, as in a process of its own
        t0 = time.perf_counter()
        analysis = analyze_trial(walk, static=static, mass=blt.MASS, height=blt.HEIGHT, keep_markers=False,
                                 keep_raw=True)  # as `humanbody analyze --export` runs it
        analyze_s = min(analyze_s, time.perf_counter() - t0)
    from humanbody import export as ex

    spent, orig = [], ex.write_exports

    def timed(*a, **k):  # the export's own time, inside write_results
        t0 = time.perf_counter()
        out = orig(*a, **k)
        spent.append(time.perf_counter() - t0)
        return out

    runs = iter(range(10**6))
    plain = best(lambda: write_results(analysis, folder / f"plain{next(runs)}"), repeat)
    ex.write_exports = timed
    try:
        with_export = best(lambda: write_results(analysis, folder / f"export{next(runs)}", export=export), repeat)
    finally:
        ex.write_exports = orig
    whole = analyze_s + plain
    cost = min(spent)
    return {"frames": frames, "export": ",".join(export), "analyze_trial_s": round(analyze_s, 2),
            "write_s": round(plain, 2), "write_with_export_s": round(with_export, 2),
            "export_s": round(cost, 2), "export_fraction_of_analyze": round(cost / whole, 3)}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--frames", type=int, default=100000)
    p.add_argument("--c3d-frames", type=int, default=65000)
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--json", metavar="FILE")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="hb-bench-export-") as tmp:
        tmp = Path(tmp)
        (tmp / "a").mkdir()
        (tmp / "b").mkdir()
        record = {"opensim": measure(args.frames, ("opensim",), args.repeat, tmp / "a"),
                  "c3d": measure(args.c3d_frames, ("c3d",), args.repeat, tmp / "b")}
    text = json.dumps(record)
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

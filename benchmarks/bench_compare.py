"""Speed of ``humanbody compare``: two groups of report folders, every variable tested and drawn.

Writes two synthetic report folders (``--subjects`` one-trial subjects
each, ``--strides`` strides per side, the per-stride and cycles tables
``humanbody report`` writes) with the 12 right-side clinical curves below
(and their left twins), an 8-degree knee-flexion difference in late swing
in the second group, then times the whole command in a fresh process
(``python -m humanbody compare A B --out DIR --side right``: start-up,
imports, reading, 12 SPM t tests, 12 SVG figures, the tables and the page)
and the same work in this process, stage by stage.  Prints one JSON line:
wall and CPU seconds of the command (CPU: what contention changes least),
the in-process stages, the load average.

    .venv/bin/python benchmarks/bench_compare.py
    .venv/bin/python benchmarks/bench_compare.py --subjects 20 --repeat 5 --json benchmarks/results/compare.json
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from _spm_groups import PERCENT, PHASE, write_group  # noqa: E402

#: 12 clinical curves per side (right and left), a few harmonics each
CURVES = {
    "pelvis_tilt_deg": 10 + 2 * np.sin(2 * PHASE),
    "pelvis_obliquity_deg": 4 * np.sin(PHASE),
    "pelvis_rotation_deg": 5 * np.cos(PHASE),
}
for side, shift in (("right", 0.0), ("left", np.pi)):
    CURVES.update({
        f"{side}_hip_flexion_deg": 15 + 22 * np.cos(PHASE + shift),
        f"{side}_hip_adduction_deg": 4 * np.sin(2 * PHASE + shift),
        f"{side}_hip_internal_rotation_deg": 3 * np.sin(PHASE + shift),
        f"{side}_knee_flexion_deg": 25 - 20 * np.cos(PHASE + shift) - 10 * np.sin(2 * PHASE + shift),
        f"{side}_ankle_dorsiflexion_deg": 3 * np.sin(PHASE + shift) + 8 * np.sin(2 * PHASE + shift),
        f"{side}_hip_flexion_moment_Nm_per_kg": 0.6 * np.cos(PHASE + shift),
        f"{side}_knee_flexion_moment_Nm_per_kg": 0.3 * np.sin(2 * PHASE + shift),
        f"{side}_ankle_dorsiflexion_moment_Nm_per_kg": 0.8 * np.sin(PHASE + shift) ** 2,
        f"{side}_knee_power_W_per_kg": 0.5 * np.sin(3 * PHASE + shift),
    })


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--subjects", type=int, default=20)
    ap.add_argument("--strides", type=int, default=5, help="strides per side per trial")
    ap.add_argument("--repeat", type=int, default=3, help="command runs; the best and the median are kept")
    ap.add_argument("--json", help="also write the record to this file")
    ap.add_argument("--keep", help="write the study and the output here (default: a temporary folder)")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(args.keep or tmp)
        bump = {"right_knee_flexion_deg": 8.0 * np.exp(-0.5 * ((PERCENT - 75.0) / 8.0) ** 2)}
        a = write_group(root / "control", args.subjects, 1, base=CURVES, strides_per_side=args.strides)
        b = write_group(root / "contracture", args.subjects, 2, effect=bump, base=CURVES,
                        strides_per_side=args.strides)
        out = root / "compare"
        cmd = [sys.executable, "-m", "humanbody", "compare", str(a), str(b), "--out", str(out),
               "--side", "right", "-q"]
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        walls, cpus = [], []
        for _ in range(args.repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, env=env)
            walls.append(time.perf_counter() - t0)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
        figures = sorted(p.name for p in out.glob("*.svg"))

        sys.path.insert(0, str(ROOT))
        t0 = time.perf_counter()
        from humanbody.stats.compare import compare, write_comparison
        from humanbody.stats.groups import read_report
        t1 = time.perf_counter()
        groups = [read_report(a, side="right"), read_report(b, side="right")]
        t2 = time.perf_counter()
        comparison = compare(groups)
        t3 = time.perf_counter()
        write_comparison(comparison, root / "compare_in_process")
        t4 = time.perf_counter()

    record = {
        "benchmark": "compare", "subjects_per_group": args.subjects, "strides_per_side": args.strides,
        "variables": len(comparison.results), "figures": len(figures),
        "significant": sorted(v for v, r in comparison.results.items() if r.clusters),
        "command_wall_s_best": round(min(walls), 3), "command_wall_s_median": round(float(np.median(walls)), 3),
        "command_cpu_s_best": round(min(cpus), 3),
        "in_process_s": {"import": round(t1 - t0, 3), "read": round(t2 - t1, 3), "tests": round(t3 - t2, 3),
                         "write_tables_figures_page": round(t4 - t3, 3)},
        "loadavg_1min": os.getloadavg()[0], "cpus": os.cpu_count(),
        "date": time.strftime("%Y-%m-%d"),
    }
    line = json.dumps(record)
    print(line)
    if args.json:
        Path(args.json).write_text(line + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

"""Reading long marker trials and writing long results tables, against the baselines.

Two measurements, one process, one run:

- ``read``: a TRC of ``--frames`` frames and the 41 markers of
  ``data/sample_walk_markers.trc`` (its frames tiled, time continued at the
  file's rate), read by ``humanbody.read_trial`` with the fast path and
  with the careful path only (``_validate.FAST_MIN_BYTES`` out of reach);
  the frames are compared for equality.
- ``write``: a results-like table of ``--rows`` rows and 625 columns
  (time, then numbers of mixed magnitudes and signs, 1 % NaN) written by
  ``humanbody.writers.write_table`` (numba printer, 10 digits) and by
  Arrow's CSV writer (``digits=None``), also streamed by ``CsvWriter`` in
  blocks of 10,000 rows.

    .venv/bin/python benchmarks/bench_io.py                 # 100,000 frames, 20,000 rows
    .venv/bin/python benchmarks/bench_io.py --rows 100000   # the full results table

Prints a small table and one JSON line.  Every time is the best of
``--repeat`` runs after a warm-up call (numba's cache loaded).  The load
average before the run is printed: the machine should be idle.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample_walk_markers.trc"


def make_trc(path: Path, frames: int) -> Path:
    """Tile the sample trial's data rows to ``frames`` frames with continuous frame numbers and time."""
    lines = SAMPLE.read_text().splitlines()
    header = lines[:5]
    body = [line.split("\t") for line in lines[5:] if line.strip()]
    rate = float(header[2].split("\t")[0])
    fields = header[2].split("\t")
    fields[2] = str(frames)  # NumFrames
    if len(fields) > 7:
        fields[7] = str(frames)  # OrigNumFrames
    header[2] = "\t".join(fields)
    out = header + [""]
    for i in range(frames):
        row = list(body[i % len(body)])
        row[0] = str(i + 1)
        row[1] = f"{i / rate:.6f}"
        out.append("\t".join(row))
    path.write_text("\n".join(out) + "\n")
    return path


def results_like(rows: int, cols: int = 625, seed: int = 0) -> pd.DataFrame:
    """A table shaped like a results file: time, then values of mixed magnitude (1 % NaN)."""
    rng = np.random.default_rng(seed)
    scale = 10.0 ** rng.uniform(-3, 3, cols)  # per column: angles, positions, forces ...
    data = rng.standard_normal((rows, cols)) * scale
    data[rng.random((rows, cols)) < 0.01] = np.nan
    data[:, 0] = np.arange(rows) / 100.0
    return pd.DataFrame(data, columns=["time"] + [f"col{j}" for j in range(1, cols)])


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, default=100_000, help="frames of the TRC to read")
    ap.add_argument("--rows", type=int, default=20_000, help="rows of the 625-column table to write")
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-careful", action="store_true", help="skip the careful-path reader baseline")
    args = ap.parse_args(argv)

    from humanbody.io import _validate, read_trial
    from humanbody.writers import CsvWriter, write_table

    load = os.getloadavg()[0]
    rec = {"impl": "io", "load_before": load, "frames": args.frames, "rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        trc = make_trc(tmp / "long.trc", args.frames)
        rec["trc_mb"] = trc.stat().st_size / 1e6
        read_trial(SAMPLE)  # warm: numba cache, imports
        df = read_trial(trc)
        rec["read_fast_s"] = best(lambda: read_trial(trc), args.repeat)
        if not args.no_careful:
            limit = _validate.FAST_MIN_BYTES
            _validate.FAST_MIN_BYTES = 10**15
            try:
                careful = read_trial(trc)
                rec["read_careful_s"] = best(lambda: read_trial(trc), 1)
            finally:
                _validate.FAST_MIN_BYTES = limit
            pd.testing.assert_frame_equal(df, careful, check_exact=True)
            rec["read_speedup"] = rec["read_careful_s"] / rec["read_fast_s"]
        rec["read_frames_per_s"] = args.frames / rec["read_fast_s"]

        table = results_like(args.rows)
        n_values = table.size
        write_table(table.iloc[:2000], tmp / "warm")  # load the numba cache
        rec["write_fast_s"] = best(lambda: write_table(table, tmp / "fast"), args.repeat)
        rec["write_arrow_s"] = best(lambda: write_table(table, tmp / "arrow", digits=None), args.repeat)
        matrix = table.to_numpy()

        def stream():
            with CsvWriter(tmp / "stream.csv", table.columns) as w:
                for r0 in range(0, len(matrix), 10_000):
                    w.write(matrix[r0:r0 + 10_000])

        rec["write_stream_s"] = best(stream, args.repeat)
        assert (tmp / "stream.csv").read_bytes() == (tmp / "fast.csv").read_bytes()
        rec["csv_mb"] = (tmp / "fast.csv").stat().st_size / 1e6
        rec["write_ns_per_value_fast"] = rec["write_fast_s"] / n_values * 1e9
        rec["write_ns_per_value_arrow"] = rec["write_arrow_s"] / n_values * 1e9
        rec["write_speedup_vs_arrow"] = rec["write_arrow_s"] / rec["write_fast_s"]
        rec["write_rows_per_s"] = args.rows / rec["write_fast_s"]
    rec["load_after"] = os.getloadavg()[0]

    print(f"load average before {load:.2f}, after {rec['load_after']:.2f}")
    print(f"read  TRC {args.frames} frames x 41 markers ({rec['trc_mb']:.0f} MB): "
          f"fast {rec['read_fast_s']:.3f} s ({rec['read_frames_per_s']:,.0f} frames/s)"
          + (f", careful {rec['read_careful_s']:.3f} s, x{rec['read_speedup']:.1f}" if "read_careful_s" in rec else ""))
    print(f"write CSV {args.rows} rows x 625 ({rec['csv_mb']:.0f} MB): numba {rec['write_fast_s']:.3f} s "
          f"({rec['write_ns_per_value_fast']:.1f} ns/value), Arrow {rec['write_arrow_s']:.3f} s "
          f"({rec['write_ns_per_value_arrow']:.1f} ns/value), x{rec['write_speedup_vs_arrow']:.1f}; "
          f"streamed {rec['write_stream_s']:.3f} s")
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())

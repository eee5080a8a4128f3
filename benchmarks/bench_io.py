"""Reading long marker trials and writing long results tables, against the baselines.

Three measurements, one process, one run:

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

- ``results``: a realistic results block, ``--results-rows`` rows (default
  100,000) x 625 columns: the results table of ``humanbody.compute`` on
  ``data/sample_walk.csv`` (441 frames) tiled, time continued.  The print
  kernel alone on 8,192 rows (ns per number, wall clock, 1 and 2 threads)
  and the whole file streamed through ``CsvWriter`` 8,192 rows at a time
  (as ``humanbody analyze`` writes it), at 7 and 10 digits; 2,000 rows
  of each file are compared with Python's ``%g``.

    .venv/bin/python benchmarks/bench_io.py                 # all three
    .venv/bin/python benchmarks/bench_io.py --only results  # the results block only
    .venv/bin/python benchmarks/bench_io.py --rows 100000   # the full synthetic table

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
COORDS = ROOT / "data" / "sample_walk.csv"


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


def results_block(rows: int) -> tuple[list[str], np.ndarray]:
    """Column names and a (rows, 625) results matrix: the sample walk's results tiled, time continued."""
    import humanbody

    model = humanbody.BodyModel.default()
    res = humanbody.compute(model, humanbody.read_trial(COORDS))
    one = res.to_matrix()
    reps = -(-rows // one.shape[0])
    block = np.tile(one, (reps, 1))[:rows]
    dt = float(one[1, 0] - one[0, 0])
    block[:, 0] = np.arange(rows) * dt
    return list(res.to_dataframe().columns), np.ascontiguousarray(block)


def bench_results(rows: int, repeat: int, tmp: Path, rec: dict) -> None:
    """Kernel ns/number at 7 and 10 digits on 1 and 2 threads, and whole-file streamed writes."""
    import numba

    from humanbody.writers import CsvWriter, _format_chunks

    columns, block = results_block(rows)
    chunk = block[:8192]
    threads = numba.get_num_threads()
    for digits in (7, 10):
        scratch = [None]
        _format_chunks(chunk, digits, scratch=scratch)  # warm: numba cache
        for n in sorted({1, min(2, threads)}):
            numba.set_num_threads(n)
            try:
                t = best(lambda: _format_chunks(chunk, digits, scratch=scratch), max(repeat, 3))
            finally:
                numba.set_num_threads(threads)
            rec[f"kernel_ns_per_number_d{digits}_t{n}"] = t / chunk.size * 1e9
        path = tmp / f"results_d{digits}.csv"

        def stream():
            with CsvWriter(path, columns, digits=digits) as w:
                for r0 in range(0, rows, 8192):
                    w.write(block[r0:r0 + 8192])

        t = best(stream, repeat)
        rec[f"file_s_d{digits}"] = t
        rec[f"file_mb_d{digits}"] = path.stat().st_size / 1e6
        rec[f"file_ns_per_number_d{digits}"] = t / block.size * 1e9
        with open(path, "rb") as fh:
            fh.readline()
            head = [fh.readline().decode() for _ in range(min(rows, 2000))]
        f = f"%.{digits}g"
        ref = [",".join("" if x != x else f % x for x in row) + "\n" for row in block[:len(head)].tolist()]
        assert head == ref, f"{digits} digits: file differs from %g"
        path.unlink()


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
    ap.add_argument("--results-rows", type=int, default=100_000, help="rows of the realistic results block")
    ap.add_argument("--only", choices=("read", "write", "results"), action="append",
                    help="run only these measurements (repeatable; default all)")
    args = ap.parse_args(argv)
    only = set(args.only or ("read", "write", "results"))

    from humanbody.io import _validate, read_trial
    from humanbody.writers import CsvWriter, write_table

    load = os.getloadavg()[0]
    rec = {"impl": "io", "load_before": load, "frames": args.frames, "rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if "read" in only:
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
            trc.unlink()

        if "write" in only:
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
            for name in ("fast.csv", "arrow.csv", "stream.csv"):
                (tmp / name).unlink()

        if "results" in only:
            rec["results_rows"] = args.results_rows
            bench_results(args.results_rows, args.repeat, tmp, rec)
    rec["load_after"] = os.getloadavg()[0]

    print(f"load average before {load:.2f}, after {rec['load_after']:.2f}")
    if "read" in only:
        print(f"read  TRC {args.frames} frames x 41 markers ({rec['trc_mb']:.0f} MB): "
              f"fast {rec['read_fast_s']:.3f} s ({rec['read_frames_per_s']:,.0f} frames/s)"
              + (f", careful {rec['read_careful_s']:.3f} s, x{rec['read_speedup']:.1f}"
                 if "read_careful_s" in rec else ""))
    if "write" in only:
        print(f"write CSV {args.rows} rows x 625 ({rec['csv_mb']:.0f} MB): numba {rec['write_fast_s']:.3f} s "
              f"({rec['write_ns_per_value_fast']:.1f} ns/value), Arrow {rec['write_arrow_s']:.3f} s "
              f"({rec['write_ns_per_value_arrow']:.1f} ns/value), x{rec['write_speedup_vs_arrow']:.1f}; "
              f"streamed {rec['write_stream_s']:.3f} s")
    if "results" in only:
        for digits in (7, 10):
            kern = ", ".join(f"{n} thread{'s' if n > 1 else ''} {rec[key]:.1f}"
                             for n in (1, 2) if (key := f"kernel_ns_per_number_d{digits}_t{n}") in rec)
            print(f"results {args.results_rows} x 625, {digits} digits: kernel ns/number {kern}; "
                  f"file {rec[f'file_s_d{digits}']:.2f} s ({rec[f'file_mb_d{digits}']:.0f} MB, "
                  f"{rec[f'file_ns_per_number_d{digits}']:.1f} ns/number)")
    print(json.dumps(rec))
    return 0


if __name__ == "__main__":
    sys.exit(main())

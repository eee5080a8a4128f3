"""Reading long marker trials and writing long results tables, against the baselines.

Three measurements, one process, one run:

- ``read``: a TRC of ``--frames`` frames and the 41 markers of
  ``data/sample_walk_markers.trc`` (its frames tiled, time continued at the
  file's rate) and the same numbers as a plain CSV (``Frame,time,<m>_X``
  ...), read by ``humanbody.read_trial``: in this process with the fast
  path and with the careful path only (``_fastread.FAST_MIN_BYTES`` out of
  reach; the frames are compared for equality), and ``--fresh`` times each
  in a new process (imports done and numba started first, as in
  ``humanbody analyze``) for the wall time of one read and the rise of the
  peak resident memory during it (Linux: the peak is reset through
  ``/proc/self/clear_refs`` just before, then ``VmHWM`` - ``VmRSS``).  With
  ``--baseline-src DIR`` (a ``humanbody`` package of another revision, e.g.
  ``git archive <rev> humanbody | tar -x -C DIR``) the fresh-process runs
  alternate between that code and this one.
- ``write``: a results-like table of ``--rows`` rows and 625 columns
  (time, then numbers of mixed magnitudes and signs, 1 % NaN) written by
  ``humanbody.io.writers.write_table`` (numba printer, 10 digits) and by
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
    .venv/bin/python benchmarks/bench_io.py --only read --baseline-src /tmp/base  # reading, old vs new

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


def make_csv(trc: Path, path: Path) -> Path:
    """The data rows of a TRC as a plain marker CSV: ``Frame,time,<marker>_X,...`` then the same numbers."""
    with open(trc) as fh:
        head = [fh.readline() for _ in range(6)]
        names = [n for n in head[3].rstrip("\n").split("\t")[2:] if n]
        with open(path, "w") as out:
            out.write("Frame,time," + ",".join(f"{n}_{a}" for n in names for a in "XYZ") + "\n")
            while chunk := fh.read(1 << 24):
                out.write(chunk.replace("\t", ","))
    return path


_FRESH = r"""
import json, os, sys, time
import numba
import humanbody
from humanbody.io import read_trial


def status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key)) / 1024


read_trial(sys.argv[2])  # imports and the careful path warm
numba.njit(lambda x: x + 1)(1)  # numba started, as the later kernels of an analysis would
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # peak RSS (VmHWM) reset to the current RSS
rss = status("VmRSS")
options = {"format": sys.argv[3]} if sys.argv[3] != "-" else {}
t0 = time.perf_counter()
df = read_trial(sys.argv[1], **options)
t = time.perf_counter() - t0
print(json.dumps({"s": t, "rise_mb": status("VmHWM") - rss, "table_mb": df.to_numpy().nbytes / 2**20,
                  "src": os.path.dirname(os.path.dirname(humanbody.__file__))}))
"""


def fresh_read(path: Path, fmt: str | None, src: str | None = None) -> dict:
    """One ``read_trial`` in a new process: wall time (s) and peak RSS rise (MB); ``src`` on PYTHONPATH."""
    import subprocess

    env = dict(os.environ)
    if src:
        env["PYTHONPATH"] = src + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    out = subprocess.run([sys.executable, "-c", _FRESH, str(path), str(SAMPLE), fmt or "-"], env=env,
                         cwd=path.parent, check=True, capture_output=True, text=True).stdout
    rec = json.loads(out.strip().splitlines()[-1])
    if src:
        assert os.path.samefile(rec["src"], src), f"baseline not imported from {src}"
    return rec


def bench_read(tmp: Path, frames: int, repeat: int, fresh: int, careful: bool, base: str | None,
               rec: dict) -> None:
    """In-process and fresh-process reading of the long TRC and CSV (see the module docstring)."""
    from humanbody.io import _fastread, read_trial

    trc = make_trc(tmp / "long.trc", frames)
    csv_path = make_csv(trc, tmp / "long.csv")
    rec["trc_mb"] = trc.stat().st_size / 1e6
    rec["read_csv_mb"] = csv_path.stat().st_size / 1e6
    read_trial(SAMPLE)  # warm: imports
    for name, path in (("trc", trc), ("csv", csv_path)):
        df = read_trial(path)
        rec[f"read_{name}_fast_s"] = best(lambda path=path: read_trial(path), repeat)
        if careful:
            limit = _fastread.FAST_MIN_BYTES
            _fastread.FAST_MIN_BYTES = 10**15
            try:
                slow = read_trial(path)
                rec[f"read_{name}_careful_s"] = best(lambda path=path: read_trial(path), 1)
            finally:
                _fastread.FAST_MIN_BYTES = limit
            pd.testing.assert_frame_equal(df, slow, check_exact=True)
            assert df.attrs == slow.attrs
        del df
    cases = [("trc", trc, None), ("csv", csv_path, None), ("csv_format", csv_path, "csv")]
    for name, path, fmt in cases:
        for tag, _src in [("new", None)] + ([("base", base)] if base else []):
            rec[f"fresh_{name}_{tag}"] = []
        for _ in range(fresh):  # alternate the two codes: both see the same load
            for tag, src in [("new", None)] + ([("base", base)] if base else []):
                rec[f"fresh_{name}_{tag}"].append(fresh_read(path, fmt, src))


def _fresh_line(rec: dict, name: str, tag: str) -> str:
    runs = rec.get(f"fresh_{name}_{tag}") or []
    if not runs:
        return ""
    s = sorted(r["s"] for r in runs)
    rise = sorted(r["rise_mb"] for r in runs)
    return (f"{tag} {s[0]:.2f} s best / {s[len(s) // 2]:.2f} s median of {len(s)}, "
            f"peak RSS +{rise[len(rise) // 2]:.0f} MB")


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

    from humanbody.io.writers import CsvWriter, format_chunks

    columns, block = results_block(rows)
    chunk = block[:8192]
    threads = numba.get_num_threads()
    for digits in (7, 10):
        scratch = [None]
        format_chunks(chunk, digits, scratch=scratch)  # warm: numba cache
        for n in sorted({1, min(2, threads)}):
            numba.set_num_threads(n)
            try:
                t = best(lambda digits=digits, scratch=scratch: format_chunks(chunk, digits, scratch=scratch), max(repeat, 3))
            finally:
                numba.set_num_threads(threads)
            rec[f"kernel_ns_per_number_d{digits}_t{n}"] = t / chunk.size * 1e9
        path = tmp / f"results_d{digits}.csv"

        def stream(path=path, digits=digits):
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
    ap.add_argument("--fresh", type=int, default=3, help="fresh-process reads of each file (0: none)")
    ap.add_argument("--baseline-src", help="directory holding the humanbody package to compare reading with")
    ap.add_argument("--results-rows", type=int, default=100_000, help="rows of the realistic results block")
    ap.add_argument("--only", choices=("read", "write", "results"), action="append",
                    help="run only these measurements (repeatable; default all)")
    args = ap.parse_args(argv)
    only = set(args.only or ("read", "write", "results"))

    from humanbody.io.writers import CsvWriter, write_table

    load = os.getloadavg()[0]
    rec = {"impl": "io", "load_before": load, "frames": args.frames, "rows": args.rows}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        if "read" in only:
            bench_read(tmp, args.frames, args.repeat, args.fresh, not args.no_careful, args.baseline_src, rec)

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
        for name, label in (("trc", "TRC"), ("csv", "CSV")):
            mb = rec["trc_mb"] if name == "trc" else rec["read_csv_mb"]
            line = (f"read  {label} {args.frames} frames x 41 markers ({mb:.0f} MB), "
                    f"in process: fast {rec[f'read_{name}_fast_s']:.3f} s")
            if f"read_{name}_careful_s" in rec:
                line += f", careful {rec[f'read_{name}_careful_s']:.3f} s"
            print(line)
        for name, label in (("trc", "TRC"), ("csv", "CSV"), ("csv_format", "CSV, format='csv'")):
            for tag in ("new", "base"):
                if text := _fresh_line(rec, name, tag):
                    print(f"      {label} in a fresh process: {text}")
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

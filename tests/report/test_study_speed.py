"""What makes a study of many trials fast must not change a byte of its outputs.

* the report's CSV text of mixed tables (text and numbers) comes from the
  project's number printer instead of pandas: the same bytes as pandas';
* a batch calibrates a subject's static trial once (by the file's content):
  every output equals that of trials analysed one by one, and an edited
  static trial is calibrated anew.
"""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

from humanbody.analysis import analyze_trial
from humanbody.io.writers import table_csv_bytes

DATA = WALK
ROOT = Path(__file__).resolve().parents[2] / "data"


def _pandas_csv(table, digits):
    buf = io.StringIO()
    table.to_csv(buf, index=False, float_format=f"%.{digits}g", lineterminator="\n")
    return buf.getvalue().encode("utf-8")


@pytest.mark.parametrize("digits", [4, 8, 10, 15])
def test_mixed_table_text_equals_pandas(digits):
    rng = np.random.default_rng(digits)
    n = 500
    x = rng.normal(0, 1, n) * 10.0 ** rng.integers(-12, 12, n)
    x[::37] = np.nan
    x[5], x[6], x[7] = -0.0, 0.0, 1e300
    words = np.array(["right", "left", 'say "hi"', "a,b", "line\nbreak", "ünï", ""], dtype=object)
    text = pd.array(words[rng.integers(0, len(words), n)], dtype="string")
    text[3] = pd.NA
    obj = words[rng.integers(0, len(words), n)].astype(object)
    obj[4] = None
    table = pd.DataFrame({
        "side": text, "value": x, "frame": rng.integers(-5000, 5000, n), "note": obj,
        "y,quoted": rng.uniform(-1, 1, n), "flag_count": rng.integers(0, 3, n).astype(np.int32),
    })
    assert table_csv_bytes(table, digits) == _pandas_csv(table, digits)
    assert table_csv_bytes(table.iloc[:0], digits) == _pandas_csv(table.iloc[:0], digits)


def test_tables_pandas_must_print_go_through_pandas():
    table = pd.DataFrame({"when": pd.date_range("2026-01-01", periods=3), "ok": [True, False, True],
                          "big": [10**12, 1, 2], "x": [0.1, 0.2, 0.3]})
    assert table_csv_bytes(table, 6) == _pandas_csv(table, 6)


@needs_shared
def test_calibration_cache_gives_identical_outputs_and_sees_edits(tmp_path):
    walk, static = tmp_path / "walk.trc", tmp_path / "static.trc"
    shutil.copy(DATA / "subject01_walk1.trc", walk)
    shutil.copy(DATA / "subject01_static.trc", static)
    cache = {}
    alone = analyze_trial(walk, static=static, mass=72.6, height=1.8)
    first = analyze_trial(walk, static=static, mass=72.6, height=1.8, calibration_cache=cache)
    again = analyze_trial(walk, static=static, mass=72.6, height=1.8, calibration_cache=cache)
    assert len(cache) == 1 and again.calibration is first.calibration  # reused
    for a in (first, again):
        pd.testing.assert_frame_equal(a.coords, alone.coords, check_exact=True)
        np.testing.assert_array_equal(a.results.to_matrix(), alone.results.to_matrix())
        assert a.messages == alone.messages
    other = analyze_trial(walk, static=static, mass=80.0, height=1.8, calibration_cache=cache)
    assert len(cache) == 2 and other.model.total_mass == pytest.approx(80.0)
    # an edited static trial (first marker moved by 1 cm in one frame: different content) is calibrated anew
    lines = static.read_text().splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.split("\t")[0].strip() == "1")
    cells = lines[row].split("\t")
    cells[2] = f"{float(cells[2]) + 10.0:.5f}"
    lines[row] = "\t".join(cells)
    static.write_text("".join(lines))
    edited = analyze_trial(walk, static=static, mass=72.6, height=1.8, calibration_cache=cache)
    fresh = analyze_trial(walk, static=static, mass=72.6, height=1.8)
    assert len(cache) == 3 and edited.calibration is not first.calibration
    pd.testing.assert_frame_equal(edited.coords, fresh.coords, check_exact=True)


@needs_shared
def test_batch_outputs_equal_one_trial_runs(tmp_path):
    """Three copies of one subject's walk through the report (calibration shared in the worker)
    against each trial reported alone in a fresh calibration cache: every file byte-identical."""
    from humanbody.report import trial as report_trial
    from humanbody.report.batch import run_batch
    from humanbody.report.inputs import assign_keys, discover

    study = tmp_path / "study"
    study.mkdir()
    shutil.copy(DATA / "subject01_static.trc", study / "subject01_static.trc")
    for i in range(3):
        shutil.copy(DATA / "subject01_walk1.trc", study / f"walk_{i}.trc")
    options = report_trial.ReportOptions(mass=72.6, height=1.8, plots="none")
    report_trial._CALIBRATIONS.clear()
    tasks = assign_keys(discover([study]))
    assert len(tasks) == 3
    run_batch(tasks, tmp_path / "together", options, jobs=1, progress=False)
    assert len(report_trial._CALIBRATIONS) == 1  # one calibration served the three trials
    for i in range(3):
        report_trial._CALIBRATIONS.clear()
        alone = [t for t in tasks if t.key == f"walk_{i}"]
        run_batch(alone, tmp_path / f"alone_{i}", options, jobs=1, progress=False)
        for f in sorted((tmp_path / f"alone_{i}" / f"walk_{i}").iterdir()):
            assert (tmp_path / "together" / f"walk_{i}" / f.name).read_bytes() == f.read_bytes(), f.name


def _cli(*args, cwd=None):
    """Run ``python -m humanbody ARGS`` in a new process (this checkout first on the path)."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]), MPLBACKEND="Agg")
    proc = subprocess.run([sys.executable, "-m", "humanbody", *map(str, args)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


@pytest.mark.slow
@needs_shared
def test_report_workers_equal_analyze_processes_and_see_static_edits(tmp_path):
    """``humanbody report`` on two worker processes (forked from the command, one calibration per
    worker, one thread each) against ``humanbody analyze`` of each trial in its own process: the
    results, model and residuals files byte-identical.  The trials are perturbed copies of the walk
    (rigid motion, noise, gaps, frame rates 54-66 Hz).  After the static trial is edited, the same
    command recomputes every trial (without --force) and equals new one-trial runs with the edit."""
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
    from make_study import make_study

    study = tmp_path / "study"
    manifest = make_study(study, 3, forces=False)  # kinematics only: compared with plain analyze runs
    trials = sorted(study.glob("walk_*.trc"))
    static = study / "subject01_static.trc"
    assert len(trials) == 3

    def check(report_dir, alone_dir):
        for trc in trials:
            _cli("analyze", trc, "--static", static, "--mass", "72.6", "--height", "1.8",
                 "--out", alone_dir / trc.stem, "-q")
            for kind in ("results.csv", "model.json", "residuals.csv"):
                mine = (report_dir / trc.stem / f"{trc.stem}_{kind}").read_bytes()
                alone = (alone_dir / trc.stem / f"{trc.stem}_{kind}").read_bytes()
                assert mine == alone, (trc.name, kind)

    report = tmp_path / "report"
    _cli("report", "--manifest", manifest, "--out", report, "--plots", "none", "--jobs", "2", "-q")
    check(report, tmp_path / "alone")
    before = (report / trials[0].stem / f"{trials[0].stem}_results.csv").read_bytes()

    lines = static.read_text().splitlines(keepends=True)
    first = next(i for i, line in enumerate(lines) if line.split("\t")[0].strip() == "1")
    for row in range(first, len(lines)):  # the first marker moved 1 cm along x in every frame
        cells = lines[row].split("\t")
        if len(cells) > 2 and cells[2].strip():
            cells[2] = f"{float(cells[2]) + 10.0:.5f}"
            lines[row] = "\t".join(cells)
    static.write_text("".join(lines))
    _cli("report", "--manifest", manifest, "--out", report, "--plots", "none", "--jobs", "2", "-q")
    assert (report / trials[0].stem / f"{trials[0].stem}_results.csv").read_bytes() != before
    check(report, tmp_path / "alone_edited")


def test_workers_are_forked_only_when_it_is_safe():
    """A report process that has run no parallel kernel forks its workers (its progress bar starts
    no thread); a process whose numba threading layer runs uses the fork server (a forked child
    of an OpenMP process would abort)."""
    import multiprocessing as mp
    import os
    import subprocess
    import sys

    if "fork" not in mp.get_all_start_methods():
        pytest.skip("no fork on this platform")
    code = ("import io, humanbody.report.batch as b, humanbody.report.runners as r\n"
            "bar = b._Progress(3, 0, True, file=io.StringIO())\n"
            "print(r._pool_context().get_start_method())\n"
            "import numpy as np, numba\n"
            "@numba.njit(parallel=True)\n"
            "def twice(x):\n"
            "    for i in numba.prange(x.shape[0]):\n"
            "        x[i] *= 2.0\n"
            "twice(np.ones(8))\n"
            "print(r._pool_context().get_start_method())\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True).stdout
    assert out.split() == ["fork", "forkserver"]

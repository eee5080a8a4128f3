"""Batch report robustness: resume after Ctrl-C or a killed run, a local worker dying, the state table,
the folder lock and the progress bar."""

import io
import multiprocessing
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pandas as pd
import pytest
from _shared import WALK, needs_shared

from humanbody.errors import InputError
from humanbody.report import BatchInterrupted, ReportOptions, cache, discover, run_batch
from humanbody.report.batch import _Progress
from tests.report._slow_trials import slow_trials

DATA = WALK
have_data = needs_shared
OPTIONS = ["--mass", "72.6", "--height", "1.8", "--plots", "none"]


def _study(folder: Path, n: int) -> Path:
    """``n`` copies of the shared walk (same bytes, so same results) and the static trial."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(DATA / "subject01_static.trc", folder / "subject01_static.trc")
    for i in range(n):
        shutil.copy(DATA / "subject01_walk1.trc", folder / f"walk_{i}.trc")
    return folder


def _recorded_keys(out: Path, exclude=()) -> list:
    """Trials recorded in the folder's state so far (those in ``exclude`` left out)."""
    return sorted(set(cache.load_state(out)) - set(exclude))


def _descendants(pid: int) -> list:
    """Process ids below ``pid`` in the process tree (Linux /proc; empty elsewhere)."""
    parent = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent[int(stat.parent.name)] = int(stat.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
    found, frontier = [], {pid}
    while frontier:
        frontier = {p for p, pp in parent.items() if pp in frontier}
        found += sorted(frontier)
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


#: Starts ``humanbody`` with Python's Ctrl-C handler installed: a test run started in the background
#: by a non-interactive shell inherits SIGINT ignored (POSIX), and Python then keeps it ignored.
_WITH_CTRL_C = ("import runpy, signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
                "sys.argv = ['humanbody'] + sys.argv[1:]; runpy.run_module('humanbody', run_name='__main__')")


def _start(src: Path, out: Path, jobs: int, delay: float) -> subprocess.Popen:
    env = slow_trials(out.parent / f"slow_{delay:g}", delay)  # every trial waits: the batch is caught running
    return subprocess.Popen([sys.executable, "-c", _WITH_CTRL_C, "report", str(src), "--out", str(out),
                             "--jobs", str(jobs), *OPTIONS], env=env, stderr=subprocess.PIPE, text=True)


def _wait_for(out: Path, n: int, proc: subprocess.Popen, timeout: float = 60.0, exclude=()) -> list:
    t0 = time.monotonic()
    while len(keys := _recorded_keys(out, exclude)) < n:
        assert proc.poll() is None, f"the batch ended early: {proc.stderr.read()}"
        assert time.monotonic() - t0 < timeout, "no trial finished in time"
        time.sleep(0.05)
    return keys


@pytest.mark.slow
@have_data
def test_interrupt_then_kill_then_resume(tmp_path):
    """Ctrl-C stops cleanly (status 130, one line, workers gone); a SIGKILLed run loses only what was
    running; the rerun computes only the rest and leaves finished outputs untouched."""
    src, out = _study(tmp_path / "in", 6), tmp_path / "out"

    # 1. Ctrl-C on a run with two local workers, after two trials finished
    proc = _start(src, out, jobs=2, delay=1.5)  # wide enough that the remaining trials cannot finish before the signal
    _wait_for(out, 2, proc)
    workers = _descendants(proc.pid)
    assert len(workers) >= 2 or not Path("/proc").is_dir()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    lines = [line for line in err.splitlines() if line.startswith("humanbody report:")]
    assert len(lines) == 1 and "interrupted (SIGINT)" in lines[0] and "run the same command again" in lines[0]
    assert "Traceback" not in err
    time.sleep(0.2)
    assert not [p for p in workers if _alive(p)], "worker processes left running"
    state = cache.load_state(out)
    first = sorted(k for k, v in state.items() if v["row"]["status"] == "ok")
    assert len(first) >= 2
    summary = pd.read_csv(out / "summary.csv")
    assert len(summary) == 6 and set(summary["status"]) <= {"ok", "pending"}
    assert sorted(summary.loc[summary["status"] == "ok", "key"]) == first
    mtimes = {p: p.stat().st_mtime_ns for k in first for p in (out / k).iterdir()}

    # 2. a run killed outright (no chance to clean up) after one more trial
    proc = _start(src, out, jobs=1, delay=1.0)
    second = _wait_for(out, 1, proc, exclude=first)
    proc.kill()
    proc.communicate(timeout=30)
    assert set(second).isdisjoint(first)
    assert set(cache.load_state(out)) >= set(first) | set(second)  # every finished trial's record kept

    # 3. the rerun completes only what is missing
    done = sorted(set(first) | set(second))
    for p in (out / second[0]).iterdir():
        mtimes[p] = p.stat().st_mtime_ns
    result = run_batch(discover([src]), out, ReportOptions(mass=72.6, height=1.8, plots="none"), jobs=1,
                       progress=False)
    assert sorted(result.skipped) == done
    assert sorted(result.computed) == sorted(set(f"walk_{i}" for i in range(6)) - set(done))
    assert result.exit_status == 0
    assert {p: p.stat().st_mtime_ns for p in mtimes} == mtimes  # finished outputs not rewritten
    summary = pd.read_csv(out / "summary.csv")
    assert list(summary["status"]) == ["ok"] * 6
    assert summary["stride_time_s"].nunique() == 1  # identical inputs, identical results
    assert len(cache.load_state(out)) == 6
    # --plots none: no figures, and the pages embed none
    assert not list(out.rglob("*.png"))
    assert "data:image" not in (out / "walk_0" / "walk_0.html").read_text()
    assert "<svg" not in (out / "walk_0" / "walk_0.html").read_text()


@have_data
def test_local_worker_death_is_retried(tmp_path, monkeypatch):
    """A local worker process killed while it runs a trial: the pool is rebuilt and every trial done."""
    src, out = _study(tmp_path / "in", 4), tmp_path / "out"
    slow_trials(tmp_path / "slow", 0.6, monkeypatch=monkeypatch)
    box = {}
    runner = threading.Thread(target=lambda: box.setdefault(
        "result", run_batch(discover([src]), out, ReportOptions(mass=72.6, height=1.8, plots="none"), jobs=2,
                            progress=False)))
    before = {p.pid for p in multiprocessing.active_children()}
    runner.start()
    t0 = time.monotonic()
    while len(workers := [p for p in multiprocessing.active_children() if p.pid not in before]) < 2:
        assert time.monotonic() - t0 < 20, "the local workers did not start"
        time.sleep(0.02)
    time.sleep(0.2)  # every worker is inside its first trial's 0.6 s delay
    victim = workers[0]
    os.kill(victim.pid, signal.SIGKILL)
    runner.join(60)
    assert not runner.is_alive()
    victim.join(5)
    assert victim.exitcode == -signal.SIGKILL
    result = box["result"]
    assert [r["status"] for r in result.rows] == ["ok"] * 4, [r.get("error") for r in result.rows]
    tables = {(out / f"walk_{i}" / f"walk_{i}_results.csv").read_bytes() for i in range(4)}
    assert len(tables) == 1


@have_data
def test_sigterm_in_process_raises_batch_interrupted(tmp_path, monkeypatch):
    """SIGTERM stops an in-process batch like Ctrl-C: BatchInterrupted (status 143), finished trials kept."""
    src, out = _study(tmp_path / "in", 3), tmp_path / "out"
    slow_trials(tmp_path / "slow", 0.5, monkeypatch=monkeypatch)
    before = signal.getsignal(signal.SIGTERM)
    tasks = discover([src])
    opts = ReportOptions(mass=72.6, height=1.8, plots="none")

    def stop_after_first():
        while not _recorded_keys(out):
            time.sleep(0.02)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=stop_after_first, daemon=True).start()
    with pytest.raises(BatchInterrupted) as info:
        run_batch(tasks, out, opts, jobs=1, progress=False)
    stop = info.value
    assert stop.signum == signal.SIGTERM and stop.exit_status == 143
    assert stop.finished >= 1 and stop.finished + stop.remaining == 3
    assert signal.getsignal(signal.SIGTERM) is before  # the handler is put back
    summary = pd.read_csv(out / "summary.csv")
    assert (summary["status"] == "pending").sum() == stop.remaining
    monkeypatch.undo()  # trials at full speed again
    again = run_batch(tasks, out, opts, jobs=1, progress=False)
    assert len(again.skipped) == stop.finished and again.exit_status == 0


# ------------------------------------------------------------------ no computation
def test_state_records_replace_and_survive_a_killed_writer(tmp_path):
    entry = {"hash": "h1", "row": {"key": "a", "status": "ok", "x": float("nan")}, "files": ["a/a.csv"]}
    with cache.Journal(tmp_path) as j:
        j.record("a", entry)
        j.record("b", {"hash": "h2", "row": {"key": "b", "status": "failed"}, "files": []})
        j.record("a", dict(entry, hash="h3"))
    state = cache.load_state(tmp_path)
    assert sorted(state) == ["a", "b"]
    assert state["a"] == {"hash": "h3", "row": {"key": "a", "status": "ok", "x": None}, "files": ["a/a.csv"]}
    # a process killed in the middle of a record: the record is absent, the others intact
    code = ("import os, sys, json; from humanbody.report import cache\n"
            "j = cache.Journal(sys.argv[1])\n"
            "j._db.execute('BEGIN')\n"
            "j._db.execute('INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?)', ('c', cache._FORMAT, 'h4', '[]', '{}'))\n"
            "os._exit(9)\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    assert subprocess.run([sys.executable, "-c", code, str(tmp_path)], env=env).returncode == 9
    assert cache.load_state(tmp_path) == state
    with cache.Journal(tmp_path) as j:
        j.keep_only(["b", "z"])
    assert sorted(cache.load_state(tmp_path)) == ["b"]
    # a damaged state file counts as empty, and the next run starts it afresh
    (tmp_path / cache.STATE_FILE).write_bytes(b"not a database" * 100)
    assert cache.load_state(tmp_path) == {}
    with cache.Journal(tmp_path) as j:
        j.record("a", entry)
    assert sorted(cache.load_state(tmp_path)) == ["a"]


def test_shared_static_hashed_once(tmp_path, monkeypatch):
    static = tmp_path / "static.trc"
    static.write_text("s")
    trials = []
    for i in range(3):
        (tmp_path / f"t{i}.trc").write_text(str(i))
        trials.append(discover([tmp_path / f"t{i}.trc"], static=str(static))[0])
    calls = []
    real = cache._file_digest
    monkeypatch.setattr(cache, "_file_digest", lambda p: calls.append(Path(p).name) or real(p))
    memo = {}
    hashes = [cache.trial_hash(t, {}, memo) for t in trials]
    assert calls.count("static.trc") == 1 and len(set(hashes)) == 3
    assert hashes[0] == cache.trial_hash(trials[0], {})  # the memo does not change the hash


def test_folder_in_use_is_input_error(tmp_path):
    (tmp_path / "garbage.trc").write_text("not a trial\n")
    out = tmp_path / "out"
    out.mkdir()
    with cache.folder_lock(out):
        with pytest.raises(InputError, match="another humanbody report"):
            run_batch(discover([tmp_path / "garbage.trc"]), out, progress=False)
    assert run_batch(discover([tmp_path / "garbage.trc"]), out, progress=False).exit_status == 1


def test_bad_plots_option():
    with pytest.raises(InputError, match="plots must be one of"):
        ReportOptions(plots="gif")


def test_progress_bar_counts_and_eta():
    buf = io.StringIO()
    bar = _Progress(total=5, skipped=3, enabled=True, file=buf)
    for ok in (True, True, False):
        time.sleep(0.01)
        bar.done(ok)
    bar.bar.refresh()
    text = buf.getvalue().split("\r")[-1]
    bar.close()
    assert "3/5" in text and "ok=2" in text and "failed=1" in text and "skipped=3" in text
    assert re.search(r"\[\d\d:\d\d<\d\d:\d\d", text), text  # elapsed < remaining (ETA)
    quiet = io.StringIO()
    off = _Progress(total=2, skipped=0, enabled=False, file=quiet)
    off.done(True)
    off.close()
    assert quiet.getvalue() == "" and off.counts == {"ok": 1, "failed": 0, "skipped": 0} and off.bar is None

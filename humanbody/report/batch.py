"""Run a batch of trials; resume; write the summary.

:func:`run_batch` hashes every task's inputs, skips trials whose hash did
not change since the last run (unless ``force``), runs the others through
:func:`humanbody.report.trial.process_trial` - on local cores or on an
existing Dask distributed cluster (:mod:`humanbody.report.runners`) - and,
as each trial completes, writes its files and records it in the
state (:mod:`humanbody.report.cache`).  ``summary.csv`` and
``index.html`` are rebuilt from the state at the end.  The same function
computes every trial in both modes, so the outputs are identical.

Robustness:

* **Interruption** (Ctrl-C, SIGTERM, or the process killed): every trial
  finished so far is on disk and in the state; rerunning the same command
  computes only the rest.  On SIGINT/SIGTERM pending work is cancelled, the
  local worker processes are stopped, the summary is
  written with ``pending`` rows, and :class:`BatchInterrupted` is raised.
* **A worker dies**: the trials are tried again (see
  :mod:`humanbody.report.runners`).
* **Memory**: a trial's files are written and dropped as soon as it
  completes, so the driver holds only the summary rows.
"""

from __future__ import annotations

import contextlib
import csv
import math
import signal
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

from ..atomic import atomic_path, atomic_write_text
from ..errors import InputError
from ..gait import KINETIC_PEAKS, PARAMETERS, PEAKS
from ..gait.gps import gps_columns
from ..io.writers import REPORT_CSV_DIGITS
from . import cache, html
from .outcome import OK_STATUSES, TrialOutcome
from .runners import DASK_RESUBMITS, DASK_RETRIES, LOCAL_ATTEMPTS, default_jobs, run_dask, run_local
from .trial import ReportOptions, prepare_workers, process_trial, write_outcome_files

__all__ = ["BatchResult", "BatchInterrupted", "run_batch", "summary_columns", "default_jobs",
           "SUMMARY_FILE", "INDEX_FILE", "LOCAL_ATTEMPTS", "DASK_RETRIES", "DASK_RESUBMITS"]

SUMMARY_FILE = "summary.csv"
INDEX_FILE = "index.html"


def summary_columns() -> list[str]:
    """Columns of summary.csv, in order.

    Returns
    -------
    list of str
        The trial's key and status columns, then the summary's values (units in their names).
    """
    params = list(PARAMETERS)
    return (["trial", "key", "status", "error", "events_source", "treadmill", "belt_speed_m_per_s"] + params
            + [f"{side}_{p}" for side in ("right", "left") for p in params]
            + [f"{side}_{p}" for side in ("right", "left") for p in PEAKS]
            + [f"{side}_{p}" for side in ("right", "left") for p in KINETIC_PEAKS]
            + ["normative"] + gps_columns())


@dataclass
class BatchResult:
    """Rows of the summary (input order) and what happened."""

    rows: list
    computed: list = field(default_factory=list)
    skipped: list = field(default_factory=list)
    summary_path: str = ""
    index_path: str = ""

    @property
    def n_failed(self) -> int:
        return sum(r.get("status") not in OK_STATUSES for r in self.rows)

    @property
    def exit_status(self) -> int:
        """0 when every trial is ok, 1 when some failed."""
        return 1 if self.n_failed else 0


class BatchInterrupted(KeyboardInterrupt):
    """The batch was stopped by SIGINT or SIGTERM; finished trials are kept.

    Attributes
    ----------
    signum : int
        The signal (``signal.SIGINT`` for Ctrl-C).
    finished : int
        Trials completed by this run before it stopped.
    remaining : int
        Trials still to compute (the next run does them).
    out_dir : str
        The report folder.
    """

    def __init__(self, signum: int, finished: int, remaining: int, out_dir: str):
        super().__init__(f"interrupted by {signal.Signals(signum).name}")
        self.signum, self.finished, self.remaining, self.out_dir = signum, finished, remaining, out_dir

    @property
    def exit_status(self) -> int:
        """128 + signal number (130 for Ctrl-C), as a shell reports it."""
        return 128 + int(self.signum)


class _Terminated(KeyboardInterrupt):
    """SIGTERM, delivered like Ctrl-C so that both stop the batch the same way."""

    signum = signal.SIGTERM


@contextlib.contextmanager
def _sigterm_as_interrupt():
    """Within the block, SIGTERM raises :class:`_Terminated` (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        raise _Terminated()

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)



class _Progress:
    """tqdm bar over the trials to compute, with ok / failed / skipped counts and the ETA.

    Without a bar to show (``enabled`` false: stderr is not a terminal, or
    ``--quiet``) only the counts are kept and tqdm is not imported (about
    0.05 CPU-s of the driver's start-up, before its workers fork).

    Parameters
    ----------
    total : int
        Trials this run computes.
    skipped : int
        Trials left as they were (inputs unchanged since the last run).
    enabled : bool
        Show the bar.
    file : file object, optional
        Where the bar is drawn (default: ``sys.stderr``).
    """

    def __init__(self, total: int, skipped: int, enabled: bool, file=None):
        self.counts = {"ok": 0, "failed": 0, "skipped": skipped}
        self.bar = None
        if not enabled:
            return
        from tqdm import tqdm  # lazy: only when the bar is shown

        class _Bar(tqdm):
            monitor_interval = 0  # no monitor thread: the driver stays one thread, so it can fork its workers

        self.bar = _Bar(total=total, unit="trial", desc="report", file=file if file is not None else sys.stderr,
                        dynamic_ncols=True, smoothing=0.05)
        self.bar.set_postfix(self.counts, refresh=False)

    def done(self, ok: bool) -> None:
        """Count one finished trial and move the bar.

        Parameters
        ----------
        ok : bool
            The trial succeeded (with or without warnings).
        """
        self.counts["ok" if ok else "failed"] += 1
        if self.bar is not None:
            self.bar.set_postfix(self.counts, refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        """Close the bar (its last state stays on the terminal)."""
        if self.bar is not None:
            self.bar.close()


# ------------------------------------------------------------------ summary and index
def _cell(value):
    """One summary value as text: NaN/None empty, floats with :data:`~humanbody.io.writers.REPORT_CSV_DIGITS`
    significant digits."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{REPORT_CSV_DIGITS}g}" if math.isfinite(value) else ""
    return value


def _write_summary(rows: list, out: Path) -> str:
    """Write summary.csv row by row (known columns first, then any others in order of appearance)."""
    cols = summary_columns()
    known = set(cols)
    for row in rows:
        for c in row:
            if c not in known:
                known.add(c)
                cols.append(c)
    path = out / SUMMARY_FILE
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            writer.writerow(cols)
            for row in rows:
                writer.writerow([_cell(row.get(c)) for c in cols])
    return str(path)


def _pending_row(task) -> dict:
    return {"trial": task.trial, "key": task.key, "status": "pending",
            "error": "not computed: the batch was interrupted; run the command again to finish"}


def _remove_stale(out: Path, old: dict | None, new_files: list) -> None:
    """Delete files of a previous run of this trial that the new run did not write (e.g. figures)."""
    for rel in set((old or {}).get("files", [])) - set(new_files):
        with contextlib.suppress(OSError):
            (out / rel).unlink()


def run_batch(
    tasks: list,
    out_dir,
    options: ReportOptions | None = None,
    *,
    jobs: int | None = None,
    scheduler: str | None = None,
    force: bool = False,
    progress: bool = True,
    log=None,
) -> BatchResult:
    """Process ``tasks`` into ``out_dir`` and write summary.csv and index.html.

    Parameters
    ----------
    tasks : list of TrialTask
        The trials, in the order of the summary (:func:`humanbody.report.read_manifest`, ...).
    out_dir : str or Path
        Report folder (created).
    options : ReportOptions
        What every trial computes and writes (default: ``ReportOptions()``).
    jobs : int, optional
        Local worker processes (default: all cores, :func:`default_jobs`).
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``); the trials
        then run on its workers, which must be able to read the input paths.
    force : bool
        Recompute trials whose inputs did not change.
    progress : bool
        A tqdm bar on stderr (only when it is a terminal).
    log : callable, optional
        Receives one-line messages (str).

    Returns
    -------
    BatchResult
        The summary rows (input order), the trials computed and skipped, the paths of summary.csv and
        index.html; ``exit_status`` 1 when a trial failed.

    Raises
    ------
    BatchInterrupted
        On SIGINT (Ctrl-C) or SIGTERM, after the finished trials were saved
        and the summary written; running the same batch again completes it.
    InputError
        No tasks, an unusable report folder, another run holding the folder,
        an unreachable scheduler.
    """
    if not tasks:
        raise InputError("no trials to process")
    options = options or ReportOptions()
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the report folder ({err.strerror or err})", out) from None
    with cache.folder_lock(out):
        return _run_locked(tasks, out, options, jobs, scheduler, force, progress, log or (lambda msg: None))


def _run_locked(tasks, out: Path, options, jobs, scheduler, force, progress, log) -> BatchResult:
    state = cache.load_state(out)
    opts = options.as_dict()
    memo: dict = {}
    hashes = {t.key: cache.trial_hash(t, opts, memo) for t in tasks}
    todo, skipped = [], []
    for task in tasks:
        old = state.get(task.key)
        if (not force and old and old.get("hash") == hashes[task.key] and old["row"].get("status") in OK_STATUSES
                and all((out / f).is_file() for f in old["files"])):
            skipped.append(task.key)
        else:
            todo.append(task)
    if skipped:
        log(f"{len(skipped)} trial(s) unchanged since the last run, skipped (use --force to recompute)")
    bar = _Progress(len(todo), len(skipped), progress and sys.stderr.isatty())
    finished: dict = {}  # key -> new state entry, for the trials this run completed
    journal = cache.Journal(out)

    def on_done(task, outcome: TrialOutcome) -> None:
        files = write_outcome_files(outcome, out) if outcome.ok else []
        _remove_stale(out, state.get(task.key), files)
        entry = {"hash": hashes[task.key], "row": cache.clean_row(outcome.row), "files": files}
        # after the files, so that a recorded trial is complete on disk; a record is one transaction
        finished[task.key] = entry
        journal.record(task.key, entry)
        if not outcome.ok:
            log(f"failed: {outcome.row.get('error')}")
        bar.done(outcome.ok)

    signum = None
    try:
        with _sigterm_as_interrupt():
            if scheduler:
                run_dask(todo, options, scheduler, on_done, process_trial)
            else:
                run_local(todo, options, jobs or default_jobs(), on_done, process_trial, prepare_workers)
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
    finally:
        bar.close()
        journal.keep_only(hashes)
        journal.close()
        state.update(finished)
    unfinished = {t.key for t in todo} - set(finished)
    rows = [_pending_row(t) if t.key in unfinished else state[t.key]["row"] for t in tasks]
    summary = _write_summary(rows, out)
    pages = {}
    for t in tasks:
        if t.key not in unfinished:
            page = next((f for f in state[t.key]["files"] if f.endswith(".html")), None)
            if page:
                pages[t.key] = page
    index = out / INDEX_FILE
    atomic_write_text(index, html.index_page(rows, pages))
    if signum is not None:
        raise BatchInterrupted(signum, len(finished), len(unfinished), str(out))
    return BatchResult(rows, [t.key for t in todo], skipped, summary, str(index))

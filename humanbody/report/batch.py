"""Run a batch of trials locally (process pool) or on a Dask cluster; resume; write the summary.

:func:`run_batch` hashes every task's inputs, skips trials whose hash did
not change since the last run (unless ``force``), runs the others through
:func:`humanbody.report.trial.process_trial` - on local cores
(``concurrent.futures.ProcessPoolExecutor``) or on an existing Dask
distributed cluster (``Client.submit`` / ``as_completed``) - and, as each
trial completes, writes its files and appends its record to the state
journal (:mod:`humanbody.report.cache`).  ``summary.csv`` and
``index.html`` are rebuilt from the state at the end.  The same function
computes every trial in both modes, so the outputs are identical.

Robustness:

* **Interruption** (Ctrl-C, SIGTERM, or the process killed): every trial
  finished so far is on disk and in the journal; rerunning the same command
  computes only the rest.  On SIGINT/SIGTERM pending work is cancelled, the
  local worker processes are stopped, the state is compacted, the summary is
  written with ``pending`` rows, and :class:`BatchInterrupted` is raised.
* **A worker dies**: locally, the pool is rebuilt and the trials that were in
  flight are tried again (:data:`LOCAL_ATTEMPTS` times at most).  On Dask, the
  scheduler reruns a task whose worker died; a task lost anyway
  (``KilledWorker``, ``CommClosedError``, cancelled) is submitted again
  (:data:`DASK_RESUBMITS` times), and a task that raised is retried
  (``retries=`` :data:`DASK_RETRIES`).
* **Memory**: at most ``2 * jobs`` trials are in flight locally; a trial's
  files are written and dropped as soon as it completes, so the driver holds
  only the summary rows.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import csv
import math
import os
import signal
import sys
import threading
import uuid
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from pathlib import Path

from .._atomic import atomic_path, atomic_write_text
from ..errors import InputError
from ..gait import KINETIC_PEAKS, PARAMETERS, PEAKS
from . import cache, html
from .trial import ReportOptions, TrialOutcome, process_trial, write_outcome_files

__all__ = ["BatchResult", "BatchInterrupted", "run_batch", "summary_columns", "default_jobs",
           "SUMMARY_FILE", "INDEX_FILE", "LOCAL_ATTEMPTS", "DASK_RETRIES", "DASK_RESUBMITS"]

SUMMARY_FILE = "summary.csv"
INDEX_FILE = "index.html"

#: Local runs: how many times a trial is tried when its worker process dies under it.
LOCAL_ATTEMPTS = 3
#: Dask: ``retries=`` of ``Client.submit`` (a task that raised is run again).
DASK_RETRIES = 2
#: Dask: how many times a task lost with its workers (KilledWorker, CommClosedError) is submitted again.
DASK_RESUBMITS = 1


def summary_columns() -> list[str]:
    """Columns of summary.csv, in order."""
    params = list(PARAMETERS)
    return (["trial", "key", "status", "error", "events_source", "treadmill", "belt_speed_m_per_s"] + params
            + [f"{side}_{p}" for side in ("right", "left") for p in params]
            + [f"{side}_{p}" for side in ("right", "left") for p in PEAKS]
            + [f"{side}_{p}" for side in ("right", "left") for p in KINETIC_PEAKS])


def default_jobs() -> int:
    """Local worker processes by default: the cores this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


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
        return sum(r.get("status") != "ok" for r in self.rows)

    @property
    def exit_status(self) -> int:
        """0 when every trial is ok, 1 when some failed."""
        return 1 if self.n_failed else 0


class BatchInterrupted(KeyboardInterrupt):
    """The batch was stopped by SIGINT or SIGTERM; finished trials are kept.

    Attributes
    ----------
    signum : int        the signal (``signal.SIGINT`` for Ctrl-C)
    finished : int      trials completed by this run before it stopped
    remaining : int     trials still to compute (the next run does them)
    out_dir : str       the report folder
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


def _failed(task, error: str) -> TrialOutcome:
    row = {"trial": task.trial, "key": task.key, "status": "failed", "error": " ".join(str(error).split())}
    return TrialOutcome(task.key, row, {}, [row["error"]])


class _Progress:
    """tqdm bar over the trials to compute, with ok / failed / skipped counts and the ETA."""

    def __init__(self, total: int, skipped: int, enabled: bool, file=None):
        from tqdm import tqdm

        class _Bar(tqdm):
            monitor_interval = 0  # no monitor thread: the driver stays one thread, so it can fork its workers

        self.counts = {"ok": 0, "failed": 0, "skipped": skipped}
        self.bar = _Bar(total=total, unit="trial", desc="report", disable=not enabled,
                        file=file if file is not None else sys.stderr, dynamic_ncols=True, smoothing=0.05)
        self.bar.set_postfix(self.counts, refresh=False)

    def done(self, ok: bool) -> None:
        self.counts["ok" if ok else "failed"] += 1
        self.bar.set_postfix(self.counts, refresh=False)
        self.bar.update(1)

    def close(self) -> None:
        self.bar.close()


# ------------------------------------------------------------------ local process pool
def _worker_init(threads: int = 1) -> None:
    """Local workers ignore Ctrl-C: the driver alone decides to stop, then stops them.

    A worker's idle OpenMP threads sleep instead of spinning (unless the
    user chose a policy): two workers on two cores would otherwise take each
    other's core between parallel kernels.  Set here, before the worker
    runs its first kernel (which starts OpenMP).  A worker's parallel
    kernels run on ``threads`` threads (the cores divided among the
    workers, :func:`worker_threads`): the workers already keep every core
    busy, and a parallel region on a few hundred frames would otherwise
    wait at its end for a thread whose core another worker holds.
    """
    import os

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the driver's handler
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import numba

    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def worker_threads(jobs: int) -> int:
    """Numba threads of each of ``jobs`` local workers: the cores shared among them (at least 1)."""
    return max(1, default_jobs() // max(1, int(jobs)))


def _pool_context():
    """Start method of the local workers: fork when it is safe, else a fork server (spawn where there is none).

    A forked worker starts at once with what the driver has imported
    (pandas, scipy, numba: most of a new process's start-up), and the
    workers import the rest in parallel.  Plain ``fork`` is unsafe once the
    driver has run a parallel numba kernel (GNU OpenMP aborts a forked
    child) or runs other threads, which happens when the batch is started
    from a Python session that computed something (:func:`_fork_safe`).
    The fork server is then a clean process that has imported the trial
    code once (``set_forkserver_preload``), so workers start without import
    cost.
    """
    import multiprocessing as mp

    methods = mp.get_all_start_methods()
    if "fork" in methods and _fork_safe():
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(["humanbody.pipeline", "humanbody.report.trial"])
        return ctx
    return mp.get_context("spawn")  # pragma: no cover - Windows


def _fork_safe() -> bool:
    """Whether this process can fork workers: one thread, and numba's threading layer not started."""
    if threading.active_count() != 1:
        return False
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    return parallel is None or getattr(parallel, "_is_initialized", True) is False


def _stop_pool(pool) -> None:
    """Cancel what has not started and end the worker processes now."""
    pool.shutdown(wait=False, cancel_futures=True)
    terminate = getattr(pool, "terminate_workers", None)  # Python >= 3.14
    if terminate is not None:
        terminate()
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for p in procs:
        with contextlib.suppress(Exception):
            p.terminate()
    for p in procs:
        with contextlib.suppress(Exception):
            p.join(5)


def _collect(done, inflight: dict, lost: list, on_done) -> None:
    """Hand the completed futures' outcomes to ``on_done``; tasks whose worker died go to ``lost``."""
    for fut in done:
        task = inflight.pop(fut)
        try:
            outcome = fut.result()
        except BrokenProcessPool:  # a worker process died (crash, out of memory, killed)
            lost.append(task)
            continue
        except Exception as err:  # noqa: BLE001 - e.g. the outcome could not be sent back
            outcome = _failed(task, f"worker failed: {type(err).__name__}: {err}")
        on_done(task, outcome)


def _run_local(tasks, options, jobs: int, on_done) -> None:
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(task, process_trial(task, options))
        return
    queue, attempts = deque(tasks), {}
    window = 2 * jobs  # trials in flight: enough to keep every worker busy, few results waiting
    pool, inflight = None, {}
    try:
        while queue or inflight:
            if pool is None:
                workers = min(jobs, len(queue))
                pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context(),
                                              initializer=_worker_init, initargs=(worker_threads(workers),))
            broken = False
            while queue and len(inflight) < window and not broken:
                task = queue.popleft()
                try:
                    inflight[pool.submit(process_trial, task, options)] = task
                except BrokenProcessPool:
                    queue.appendleft(task)
                    broken = True
            lost = []
            done, _ = cf.wait(list(inflight), return_when=cf.FIRST_COMPLETED)
            _collect(done, inflight, lost, on_done)
            if not (lost or broken):
                continue
            # the pool is unusable: collect the rest of what was in flight, then start a new pool
            _collect(cf.wait(list(inflight)).done, inflight, lost, on_done)
            pool.shutdown(wait=True)
            pool = None
            for task in reversed(lost):
                attempts[task.key] = attempts.get(task.key, 0) + 1
                if attempts[task.key] >= LOCAL_ATTEMPTS:
                    on_done(task, _failed(task, f"{task.trial}: its worker process died {attempts[task.key]} "
                                                "times (a crash or out of memory)"))
                else:
                    queue.appendleft(task)
    except BaseException:
        if pool is not None:
            _stop_pool(pool)
            pool = None
        raise
    finally:
        if pool is not None:
            pool.shutdown(wait=True)


# ------------------------------------------------------------------ Dask distributed
def _run_dask(tasks, options, address: str, on_done) -> None:
    try:
        from distributed import Client, KilledWorker, as_completed
        from distributed.comm.core import CommClosedError
    except ImportError:
        raise InputError("--scheduler needs dask.distributed: pip install 'humanbody[cluster]'") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot connect to the Dask scheduler at {address} ({err})") from None
    lost_errors = (KilledWorker, CommClosedError, asyncio.CancelledError, cf.CancelledError)
    with client:
        meta = {}  # future key -> (task, submissions so far)
        queue = as_completed()

        def submit(task, n: int) -> None:
            fut = client.submit(process_trial, task, options, pure=False, retries=DASK_RETRIES,
                                key=f"humanbody-report-{task.key}-{uuid.uuid4().hex[:8]}")
            meta[fut.key] = (task, n)
            queue.add(fut)

        try:
            for task in tasks:
                submit(task, 0)
            for fut in queue:
                task, n = meta.pop(fut.key)
                try:
                    outcome = fut.result()
                except lost_errors as err:
                    if n < DASK_RESUBMITS:
                        submit(task, n + 1)
                        continue
                    outcome = _failed(task, f"{task.trial}: cluster task lost {n + 1} times "
                                            f"({type(err).__name__}: {err})")
                except Exception as err:  # noqa: BLE001 - the task raised on every retry
                    outcome = _failed(task, f"cluster task failed: {type(err).__name__}: {err}")
                finally:
                    fut.release()
                on_done(task, outcome)
        except BaseException:
            with contextlib.suppress(Exception):
                client.cancel(list(queue.futures), force=True)
            raise


# ------------------------------------------------------------------ summary and index
def _cell(value):
    """One summary value as text: NaN/None empty, floats with 10 significant digits."""
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.10g}" if math.isfinite(value) else ""
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
    out_dir : str or Path   report folder (created)
    options : ReportOptions
    jobs : int, optional    local worker processes (default: all cores, :func:`default_jobs`)
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``); the trials
        then run on its workers, which must be able to read the input paths.
    force : bool            recompute trials whose inputs did not change
    progress : bool         tqdm bar on stderr (only when it is a terminal)
    log : callable, optional  receives one-line messages

    Returns
    -------
    BatchResult  (``exit_status`` 1 when a trial failed)

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
        if (not force and old and old.get("hash") == hashes[task.key] and old["row"].get("status") == "ok"
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
        # after the files, so that a recorded trial is complete on disk; the dict store is one step that
        # an interrupt cannot split, and whatever it holds is saved on the way out
        finished[task.key] = entry
        journal.record(task.key, entry)
        if not outcome.ok:
            log(f"failed: {outcome.row.get('error')}")
        bar.done(outcome.ok)

    signum = None
    try:
        with _sigterm_as_interrupt():
            if scheduler:
                _run_dask(todo, options, scheduler, on_done)
            else:
                _run_local(todo, options, jobs or default_jobs(), on_done)
    except KeyboardInterrupt as err:
        signum = getattr(err, "signum", signal.SIGINT)
    finally:
        bar.close()
        journal.close()
        state.update(finished)
        cache.save_state(out, {k: v for k, v in state.items() if k in hashes})
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

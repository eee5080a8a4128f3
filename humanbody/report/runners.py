"""Where a batch's trials run: a local process pool or a Dask distributed cluster.

:func:`run_local` runs a trial function (:func:`humanbody.report.trial.process_trial`) on local
cores (``concurrent.futures.ProcessPoolExecutor``), :func:`run_dask` on an
existing Dask distributed cluster (``Client.submit`` / ``as_completed``).
Both hand each trial's outcome to ``on_done(task, outcome)`` in the calling
process as the trial completes, so the coordinating process alone writes the
files and the state (:func:`humanbody.report.batch.run_batch`).

* **A worker dies**: locally, the pool is rebuilt and the trials that were in
  flight are tried again (:data:`LOCAL_ATTEMPTS` times at most).  On Dask, the
  scheduler reruns a task whose worker died; a task lost anyway
  (``KilledWorker``, ``CommClosedError``, cancelled) is submitted again
  (:data:`DASK_RESUBMITS` times), and a task that raised is retried
  (``retries=`` :data:`DASK_RETRIES`).
* **Memory**: at most ``2 * jobs`` trials are in flight locally.
"""

from __future__ import annotations

import asyncio
import concurrent.futures as cf
import contextlib
import importlib
import multiprocessing as mp
import os
import signal
import sys
import threading
import uuid
from collections import deque
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from ..errors import InputError
from .outcome import TrialOutcome

__all__ = ["run_local", "run_dask", "default_jobs", "worker_threads", "LOCAL_ATTEMPTS", "DASK_RETRIES",
           "DASK_RESUBMITS"]

#: Local runs: how many times a trial is tried when its worker process dies under it.
LOCAL_ATTEMPTS = 3
#: Dask: ``retries=`` of ``Client.submit`` (a task that raised is run again).
DASK_RETRIES = 2
#: Dask: how many times a task lost with its workers (KilledWorker, CommClosedError) is submitted again.
DASK_RESUBMITS = 1


def default_jobs() -> int:
    """Local worker processes by default: the cores this process may run on.

    Returns
    -------
    int
        The number of CPUs this process may run on (at least 1).
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _failed(task, error: str) -> TrialOutcome:
    row = {"trial": task.trial, "key": task.key, "status": "failed", "error": " ".join(str(error).split())}
    return TrialOutcome(task.key, row, {}, [row["error"]])


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
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the driver's handler
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    import numba  # lazy: in the worker, after OMP_WAIT_POLICY is set

    numba.set_num_threads(max(1, min(int(threads), numba.config.NUMBA_NUM_THREADS)))


def worker_threads(jobs: int) -> int:
    """Numba threads of each of ``jobs`` local workers: the cores shared among them (at least 1).

    Parameters
    ----------
    jobs : int
        Local worker processes.

    Returns
    -------
    int
        Threads each worker's parallel kernels run on.
    """
    return max(1, default_jobs() // max(1, int(jobs)))


#: What a worker's trials import (the trial code and SciPy's signal package, which the marker filter and the
#: event detection use; scipy.signal alone costs 1.5-2 CPU-s to import; the results' writer and Parquet,
#: imported on a trial's first use): imported once by a fork server, or by this process before it forks its
#: workers, so that no worker pays for it (:func:`_preload`).
WORKER_MODULES = ("humanbody.analysis.run", "humanbody.report.trial", "scipy.signal", "humanbody.trial_output",
                  "humanbody._kernels.fir", "humanbody.tools.draft", "pyarrow.parquet")


def _preload(ctx, prepare=None, options=None) -> None:
    """Import :data:`WORKER_MODULES` here before ``fork`` workers start: they inherit them, already imported,
    instead of each importing them again (about 1.5 CPU-s per worker, and its memory shared, not copied);
    then ``prepare(options)``, which loads here what every trial would load once per worker
    (:func:`humanbody.report.trial.prepare_workers`)."""
    if ctx.get_start_method() == "fork":
        for name in WORKER_MODULES:
            importlib.import_module(name)
        if prepare is not None:
            prepare(options)


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
    methods = mp.get_all_start_methods()
    if "fork" in methods and _fork_safe():
        return mp.get_context("fork")
    if "forkserver" in methods:
        ctx = mp.get_context("forkserver")
        ctx.set_forkserver_preload(list(WORKER_MODULES))
        return ctx
    return mp.get_context("spawn")  # pragma: no cover - Windows


def _fork_safe() -> bool:
    """Whether this process can fork workers: one thread, and numba's threading layer not started.

    ``numba.threading_layer()`` raises ValueError while no layer has been
    started (a started OpenMP or TBB layer does not survive a fork).
    """
    if threading.active_count() != 1:
        return False
    numba = sys.modules.get("numba")
    if numba is None:
        return True
    try:
        numba.threading_layer()
    except ValueError:
        return True
    return False


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


def run_local(tasks, options, jobs: int, on_done, process, prepare=None) -> None:
    """Run ``process(task, options)`` for every task on ``jobs`` local worker processes.

    ``process`` is a module-level function returning a :class:`TrialOutcome`
    (:func:`humanbody.report.trial.process_trial`); ``on_done(task, outcome)``
    is called in this process as each trial completes.

    Parameters
    ----------
    tasks : list of TrialTask
        The trials to compute.
    options : ReportOptions
        Passed to ``process`` with each task.
    jobs : int
        Worker processes (1, or a single task: the trials run in this process).
    on_done : callable
        ``on_done(task, outcome)``, called here as each trial completes.
    process : callable
        ``process(task, options) -> TrialOutcome``, a module-level function (it is pickled for the workers).
    prepare : callable, optional
        ``prepare(options)``, called here before forked workers start, so that they inherit what it loads
        (:func:`humanbody.report.trial.prepare_workers`); it must leave this process safe to fork.
    """
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(task, process(task, options))
        return
    queue = deque(tasks)
    attempts: dict[str, int] = {}
    window = 2 * jobs  # trials in flight: enough to keep every worker busy, few results waiting
    pool: cf.ProcessPoolExecutor | None = None
    inflight: dict[cf.Future, Any] = {}
    try:
        while queue or inflight:
            if pool is None:
                workers = min(jobs, len(queue))
                ctx = _pool_context()
                _preload(ctx, prepare, options)
                pool = cf.ProcessPoolExecutor(max_workers=workers, mp_context=ctx,
                                              initializer=_worker_init, initargs=(worker_threads(workers),))
            broken = False
            while queue and len(inflight) < window and not broken:
                task = queue.popleft()
                try:
                    inflight[pool.submit(process, task, options)] = task
                except BrokenProcessPool:
                    queue.appendleft(task)
                    broken = True
            lost: list[Any] = []
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
def run_dask(tasks, options, address: str, on_done, process) -> None:
    """Run ``process(task, options)`` for every task on the Dask cluster at ``address`` (as :func:`run_local`).

    Parameters
    ----------
    tasks : list of TrialTask
        The trials to compute (their input paths readable by the cluster's workers).
    options : ReportOptions
        Passed to ``process`` with each task.
    address : str
        The scheduler's address, e.g. ``tcp://host:8786``.
    on_done : callable
        ``on_done(task, outcome)``, called here as each trial completes.
    process : callable
        ``process(task, options) -> TrialOutcome``, a module-level function.
    """
    try:
        from distributed import Client, KilledWorker, as_completed
        from distributed.comm.core import CommClosedError
    except ImportError:
        raise InputError("scheduler needs dask.distributed: pip install 'humanbody[cluster]'",
                         option="scheduler") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot connect to the Dask scheduler at {address} ({err})") from None
    lost_errors = (KilledWorker, CommClosedError, asyncio.CancelledError, cf.CancelledError)
    with client:
        meta = {}  # future key -> (task, submissions so far)
        queue = as_completed()

        def submit(task, n: int) -> None:
            fut = client.submit(process, task, options, pure=False, retries=DASK_RETRIES,
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

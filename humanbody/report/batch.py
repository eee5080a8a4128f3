"""Run a batch of trials locally (process pool) or on a Dask cluster; write the summary.

:func:`run_batch` hashes every task's inputs, skips trials whose hash did
not change since the last run (unless ``force``), runs the others through
:func:`humanbody.report.trial.process_trial` - on local cores
(``concurrent.futures.ProcessPoolExecutor``) or on an existing Dask
distributed cluster (``Client.submit`` / ``as_completed``) - writes each
trial's files as it completes, then ``summary.csv``, ``index.html`` and the
hash state.  The same function computes every trial in both modes, so the
outputs are identical.
"""

from __future__ import annotations

import os
import sys
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures import as_completed as futures_completed
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._atomic import atomic_path, atomic_write_text
from ..errors import InputError
from ..gait import PARAMETERS
from . import cache, html
from .trial import ReportOptions, TrialOutcome, process_trial, write_outcome_files

__all__ = ["BatchResult", "run_batch", "summary_columns", "SUMMARY_FILE", "INDEX_FILE"]

SUMMARY_FILE = "summary.csv"
INDEX_FILE = "index.html"


def summary_columns() -> list[str]:
    """Columns of summary.csv, in order."""
    params = list(PARAMETERS)
    return (["trial", "key", "status", "error", "events_source", "treadmill", "belt_speed_m_per_s"] + params
            + [f"{side}_{p}" for side in ("right", "left") for p in params])


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


def _failed(task, error: str) -> TrialOutcome:
    row = {"trial": task.trial, "key": task.key, "status": "failed", "error": " ".join(str(error).split())}
    return TrialOutcome(task.key, row, {}, [row["error"]])


def _bar(total: int, enabled: bool):
    from tqdm import tqdm

    return tqdm(total=total, unit="trial", desc="report", disable=not (enabled and sys.stderr.isatty()),
                file=sys.stderr)


def _run_local(tasks, options, jobs: int, on_done) -> None:
    if jobs <= 1 or len(tasks) <= 1:
        for task in tasks:
            on_done(task, process_trial(task, options))
        return
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(process_trial, task, options): task for task in tasks}
        for fut in futures_completed(futures):
            task = futures[fut]
            try:
                outcome = fut.result()
            except Exception as err:  # noqa: BLE001 - e.g. a worker process died
                outcome = _failed(task, f"worker failed: {type(err).__name__}: {err}")
            on_done(task, outcome)


def _run_dask(tasks, options, address: str, on_done) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise InputError("--scheduler needs dask.distributed: pip install 'humanbody[cluster]'") from None
    try:
        client = Client(address, timeout="10s")
    except (OSError, TimeoutError, ValueError) as err:
        raise InputError(f"cannot connect to the Dask scheduler at {address} ({err})") from None
    with client:
        futures = {}
        for task in tasks:
            fut = client.submit(process_trial, task, options, pure=False, key=f"humanbody-report-{task.key}")
            futures[fut] = task
        for fut in as_completed(list(futures)):
            task = futures[fut]
            try:
                outcome = fut.result()
            except Exception as err:  # noqa: BLE001 - worker lost, cancelled, ...
                outcome = _failed(task, f"cluster task failed: {type(err).__name__}: {err}")
            on_done(task, outcome)


def _write_summary(rows: list, out: Path) -> str:
    cols = summary_columns()
    table = pd.DataFrame(rows)
    for c in cols:
        if c not in table.columns:
            table[c] = pd.NA
    table = table[cols + [c for c in table.columns if c not in cols]]
    path = out / SUMMARY_FILE
    with atomic_path(path) as tmp:
        table.to_csv(tmp, index=False, float_format="%.10g", lineterminator="\n")
    return str(path)


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
    jobs : int, optional    local worker processes (default: all cores)
    scheduler : str, optional
        Address of a running Dask scheduler (``tcp://host:8786``); the trials
        then run on its workers, which must be able to read the input paths.
    force : bool            recompute trials whose inputs did not change
    progress : bool         tqdm bar on stderr (only when it is a terminal)
    log : callable, optional  receives one-line messages

    Returns
    -------
    BatchResult  (``exit_status`` 1 when a trial failed)
    """
    if not tasks:
        raise InputError("no trials to process")
    options = options or ReportOptions()
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the report folder ({err.strerror or err})", out) from None
    log = log or (lambda msg: None)
    state = cache.load_state(out)
    opts = options.as_dict()
    hashes = {t.key: cache.trial_hash(t, opts) for t in tasks}
    outcomes: dict[str, dict] = {}
    todo, skipped = [], []
    for task in tasks:
        old = state.get(task.key)
        if (not force and old and old.get("hash") == hashes[task.key] and old.get("row", {}).get("status") == "ok"
                and all((out / f).is_file() for f in old.get("files", []))):
            outcomes[task.key] = {"row": dict(old["row"]), "files": list(old["files"])}
            skipped.append(task.key)
        else:
            todo.append(task)
    if skipped:
        log(f"{len(skipped)} trial(s) unchanged since the last run, skipped (use --force to recompute)")
    bar = _bar(len(todo), progress)

    def on_done(task, outcome: TrialOutcome) -> None:
        files = write_outcome_files(outcome, out) if outcome.ok else []
        outcomes[task.key] = {"row": outcome.row, "files": files}
        if outcome.ok:
            state[task.key] = {"hash": hashes[task.key], "row": outcome.row, "files": files}
        else:
            state.pop(task.key, None)
            log(f"failed: {outcome.row.get('error')}")
        bar.update(1)

    try:
        if scheduler:
            _run_dask(todo, options, scheduler, on_done)
        else:
            _run_local(todo, options, jobs or os.cpu_count() or 1, on_done)
    finally:
        bar.close()
        cache.save_state(out, {k: v for k, v in state.items() if k in hashes})
    rows = [outcomes[t.key]["row"] for t in tasks]
    summary = _write_summary(rows, out)
    pages = {}
    for t in tasks:
        page = next((f for f in outcomes[t.key]["files"] if f.endswith(".html")), None)
        if page:
            pages[t.key] = page
    index = out / INDEX_FILE
    atomic_write_text(index, html.index_page(rows, pages))
    return BatchResult(rows, [t.key for t in todo], skipped, summary, str(index))

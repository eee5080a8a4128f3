"""The files of one analysed trial: the results table in chunks, the model, the log, the residuals.

:func:`write_results` computes the results table of an
:class:`humanbody.pipeline.Analysis` a chunk of frames at a time and writes
it as CSV or Parquet, with the model used (JSON), the log and, for marker
trials, the tracking residuals, each file atomically
(:mod:`humanbody.atomic`).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .atomic import atomic_path, atomic_write_text, open_temp
from .checks.outputs import OutputWatch
from .errors import InputError
from .io.writers import CSV_DIGITS, FORMATS, CsvWriter, write_table
from .mechanics.kinematics import compute_motion
from .mechanics.kinetics import compute_with_kinetics, kinetic_block, kinetic_columns
from .mechanics.moment_frames import NEXUS_FRAME, distal_inputs, distal_moments, moment_frame, trial_heading
from .mechanics.relative import frame_state, relative_block, relative_columns
from .mechanics.results import Results, result_columns
from .model.body import coordinate_columns
from .options import AnalysisOptions

if TYPE_CHECKING:  # the pipeline imports nothing of this module; a type only
    from .pipeline import Analysis

__all__ = ["write", "write_results", "CHUNK_FRAMES"]

#: Frames computed and written at a time by :func:`write_results` (about
#: 40 MB of results per chunk for the 17-segment model).
CHUNK_FRAMES = 8192


def write(analysis: Analysis, out_dir, options: AnalysisOptions | None = None, **kwargs) -> dict[str, str]:
    """Stage "write" of :func:`humanbody.pipeline.analyze_trial`: the results table (mechanics,
    clinical angles, kinetics), model, log, residuals and exports of one analysed trial.

    :func:`write_results` with the export formats and OpenSim feet of
    ``options``; ``kwargs`` are its other arguments (``fmt``, ``digits``,
    ``progress``, ``relative``, ``events``).
    """
    if options is None:
        options = AnalysisOptions()
    return write_results(analysis, out_dir, export=options.export, opensim_feet=options.opensim_feet, **kwargs)


def write_results(analysis: Analysis, out_dir, fmt: str = "csv", chunk_frames: int = CHUNK_FRAMES,
                  digits: int | None = None, progress: bool = False, relative=(), export=(),
                  events=None, opensim_feet=None) -> dict[str, str]:
    """Write the results table (and the model used) into ``out_dir`` atomically.

    Files: ``<stem>_results.csv`` (docs/conventions.md results layout; or
    ``.parquet``), ``<stem>_model.json``, ``<stem>_log.txt`` and
    ``<stem>_residuals.csv`` when markers were tracked.  The table is
    computed and written ``chunk_frames`` frames at a time into one reused
    workspace, so a trial of any length needs memory for one chunk of
    results only; the rows are those of the whole-trial computation (see
    :func:`humanbody.mechanics.kinematics.compute_motion`).  CSV numbers have
    ``digits`` significant digits (default
    :data:`humanbody.io.writers.CSV_DIGITS`).  ``progress`` shows a bar over
    the frames of a long trial (on a terminal only).  ``relative`` lists
    ``(what, to)`` frame pairs whose relative motion is added as
    ``<what>_rel_<to>_<quantity>_<axis>`` columns (:mod:`humanbody.mechanics.relative`).
    ``export`` names formats for other programs ("c3d", "opensim";
    :mod:`humanbody.export`), written after the results from the
    columns they need, collected as the table is written; ``events`` (a
    gait events table) and ``opensim_feet`` (right, left OpenSim bodies)
    go with them.  An export that cannot be written is an InputError
    raised after the results table, model and log are written; the log,
    written once at the end, holds what the exports said.
    Returns a mapping from kind to path.
    """
    digits = CSV_DIGITS if digits is None else digits
    if fmt not in FORMATS:
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create output folder ({err.strerror or err})", out) from None
    columns, blocks = _table(analysis, chunk_frames, relative)
    path = out / f"{analysis.stem}_results.{fmt}"
    paths = {"results": str(path)}
    exports = _ExportColumns(analysis, columns) if export else None
    if exports is not None:
        blocks = _collecting(blocks, exports.take, exports.values)
    watch = OutputWatch(columns)
    _write_table(path, fmt, columns, _watched(blocks, watch), digits,
                 progress and analysis.n_frames > 4 * chunk_frames, analysis.n_frames)
    model_path = out / f"{analysis.stem}_model.json"
    _with_warnings(analysis, watch).save(model_path)
    paths["model"] = str(model_path)
    log_path = out / f"{analysis.stem}_log.txt"
    paths["log"] = str(log_path)
    try:
        if analysis.residuals is not None:
            paths["residuals"] = write_table(analysis.residuals, out / f"{analysis.stem}_residuals", fmt="csv",
                                             digits=digits)
        if exports is not None:
            paths.update(exports.write(out, export, events=events, feet=opensim_feet))
    finally:  # what the exports had to say joins the log, written once whatever they did
        _write_log(analysis, log_path)
    return paths


def _table(analysis: Analysis, chunk_frames: int, relative=()) -> tuple[list[str], Iterator[np.ndarray]]:
    """The results table's columns and its rows, chunk by chunk: ``(columns, blocks)``.

    The mechanics (:func:`humanbody.mechanics.results.result_columns`), the
    clinical angles, the kinetics when the trial has loads, and the relative
    motions of the ``relative`` frame pairs (an unknown frame is an
    InputError here, before anything is written).
    """
    model, motion = analysis.model, analysis.motion
    clinical = analysis.clinical
    columns = result_columns(model.names, coordinate_columns(model)) + list(clinical.columns)
    compute, kinetic = _chunk_source(analysis)
    more = []
    if kinetic is not None:
        columns += kinetic[0]
        more.append(kinetic[1])
    if relative:
        probe = analysis.results if motion.n_frames <= chunk_frames else compute_motion(model, motion, 0, 1)
        for what, to in relative:
            for name in (what, to):
                frame_state(probe, name)
            columns += relative_columns(what, to)
        more.append(lambda res, start: np.concatenate([relative_block(res, w, t) for w, t in relative], axis=1))
    return columns, _result_blocks(model, motion, chunk_frames, clinical.to_numpy(dtype=np.float64), more, compute)


def _watched(blocks, watch: OutputWatch):
    """Pass ``blocks`` on, each seen by ``watch`` (:mod:`humanbody.checks.outputs`) first."""
    start = 0
    for block in blocks:
        watch.see(block, start)
        start += len(block)
        yield block


def _with_warnings(analysis: Analysis, watch: OutputWatch):
    """The model to save: ``analysis.model`` with the output checks' findings (:mod:`humanbody.checks.outputs`:
    the tracking's, already in ``analysis.log.warnings``, and the table's, seen by ``watch``) as its
    ``warnings``, each also a log line (once) and kept in ``analysis.log.warnings``; and the frames whose rates
    are estimates (:mod:`humanbody.checks.edges`, ``analysis.log.edges``) as its ``edges``."""
    found = list(dict.fromkeys(list(analysis.log.warnings) + watch.findings(analysis.motion.time)))
    analysis.log.warnings = found
    analysis.log.messages += [line for line in found if line not in analysis.log.messages]
    more = ({"warnings": found} if found else {}) | ({"edges": analysis.log.edges} if analysis.log.edges else {})
    if not more:
        return analysis.model
    return analysis.model.replace(meta={**dict(analysis.model.meta or {}), **more})


def _write_table(path: Path, fmt: str, columns: list, blocks, digits: int, progress: bool, frames: int) -> None:
    """The results table's ``blocks`` as CSV (``digits`` significant digits) or Parquet, atomically."""
    bar = _frame_bar(progress, frames, path.name)
    if bar is not None:
        blocks = _counted(blocks, bar)
    try:
        if fmt == "csv":
            with CsvWriter(path, columns, digits=digits) as writer:
                for block in blocks:
                    writer.write(block)
        else:
            _write_parquet(path, columns, blocks)
    finally:
        if bar is not None:
            bar.close()


class _ExportColumns:
    """The results columns the exports need (:func:`humanbody.export.export_columns`), collected as the table
    is written, and the exports written from them (:func:`humanbody.export.write_exports`).

    With loads and a moment frame other than Plug-in Gait's, the C3D export
    holds the distal-frame moments (:func:`humanbody.mechanics.moment_frames.distal_moments`)
    whatever the results' frame; the other formats the results' own.
    """

    def __init__(self, analysis: Analysis, columns: list):
        from .export import export_columns  # lazy: 130-190 ms of imports (gait/, C3D and OpenSim writers): exports only

        model = analysis.model
        self.analysis = analysis
        self.want = export_columns(model, columns)
        self.nexus = analysis.loads is not None and moment_frame(model) != NEXUS_FRAME
        if self.nexus:
            self.want += [c for c in distal_inputs(model) if c in columns and c not in self.want]
        self.take = np.array([columns.index(c) for c in self.want], dtype=np.int64)
        self.values = np.empty((analysis.n_frames, len(self.take)))

    def write(self, out: Path, export, events=None, feet=None) -> dict[str, str]:
        """Write the ``export`` formats into ``out`` (once the table is written); kind -> path."""
        from .export import DEFAULT_FEET, write_exports  # lazy: imported with export_columns above

        analysis, model = self.analysis, self.analysis.model
        cols = {c: self.values[:, j] for j, c in enumerate(self.want)}
        runs = [(tuple(export), cols)]
        if self.nexus:
            runs = [(tuple(f for f in export if f != "c3d"), cols),
                    (tuple(f for f in export if f == "c3d"), {**cols, **distal_moments(model, cols)})]
        paths: dict[str, str] = {}
        for formats, values in runs:
            if formats:
                paths.update(write_exports(analysis, out, formats, values, analysis.motion.time, events=events,
                                           feet=feet or DEFAULT_FEET))
        return paths


def _heading(model, motion, memo: dict):
    """The trial's progression axis for a chunk's moments in the ``global`` frame (once per trial), else None."""
    if moment_frame(model) != "global":
        return None
    if "heading" not in memo:
        memo["heading"] = trial_heading(model, motion.q)
    return memo["heading"]


def _write_log(analysis: Analysis, path: Path) -> str:
    """The analysis's messages, then its details, as ``<stem>_log.txt`` (atomically); the path."""
    atomic_write_text(path, "\n".join(list(analysis.messages) + ["", "details:"] + list(analysis.details)) + "\n")
    return str(path)


def _chunk_source(analysis: Analysis):
    """How the rows of frames ``start:stop`` are computed: ``(compute, kinetic)``.

    ``compute(start, stop, reuse)`` gives the Results of those frames: the
    kinematics a stage already computed for every frame (the loads'
    assignment, a short trial's relative-motion check; looked up when the
    first chunk is computed), else computed into ``reuse``.  With external
    loads, ``kinetic`` is ``(columns, block)``: the kinetic columns and
    ``block(res, start)``, the kinetics of the frames last computed (one
    buffer for every chunk; computed in the same pass as the kinematics when
    none were held); else None.
    """
    model, motion, loads = analysis.model, analysis.motion, analysis.loads
    buffer: dict = {}

    def compute(start, stop, reuse):
        held = analysis.held_results
        if held is None and loads is None:
            return compute_motion(model, motion, start, stop, out=reuse)
        if held is None:
            res, buffer["out"] = compute_with_kinetics(model, motion, loads, start, stop, out=reuse,
                                                       block=buffer.get("out"))
            return res
        res = _frames(held, start, stop)
        if loads is not None:  # the held kinematics, their kinetics
            buffer["out"] = kinetic_block(model, res, loads, start, out=buffer.get("out"),
                                          heading=_heading(model, motion, buffer))
        return res

    if loads is None:
        return compute, None
    return compute, (kinetic_columns(model), lambda res, start: buffer["out"])


def _frames(results, start: int, stop: int):
    """Frames ``start:stop`` of ``results`` as a Results of views (no copy; ``inertia`` derived on use)."""
    if start == 0 and stop == results.n_frames:
        return results
    sl = slice(start, stop)
    per_frame = {name: getattr(results, name)[sl] for name in (
        "time", "R", "omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc", "force", "torque",
        "body_com", "body_com_vel", "body_com_acc", "coordinates")}
    return Results(names=results.names, coordinate_names=results.coordinate_names, mass=results.mass,
                   segment_inertia=results.segment_inertia, rates=results.rates, **per_frame)


def _collecting(blocks, take, store):
    """Pass ``blocks`` on, copying their columns ``take`` into the rows of ``store`` they cover."""
    start = 0
    for block in blocks:
        store[start:start + len(block)] = block[:, take]
        start += len(block)
        yield block


def _result_blocks(model, motion, chunk_frames: int, extra=None, more=(), compute=None):
    """Results-table rows of consecutive frame ranges, each (frames, columns) float64.

    ``extra`` (frames, e) holds columns appended to every row (the clinical
    angles); each ``more(results, start)`` returns further columns of a chunk
    from its results (the kinetics, relative motions).  ``compute(start,
    stop, workspace)`` replaces :func:`~humanbody.mechanics.kinematics.compute_motion`
    (the kinetics computed in the same pass).
    """
    if chunk_frames < 1:
        raise ValueError("chunk_frames must be at least 1")
    workspace = rows = block = None
    F = motion.n_frames
    for start in range(0, F, chunk_frames):
        stop = min(F, start + chunk_frames)
        reuse: Results | None = workspace if workspace is not None and workspace.n_frames == stop - start else None
        workspace = (compute_motion(model, motion, start, stop, out=reuse) if compute is None
                     else compute(start, stop, reuse))
        rows = workspace.to_matrix(out=rows)  # the consumer is done with the previous block
        parts = [] if extra is None or extra.shape[1] == 0 else [extra[start:stop]]
        parts += [fn(workspace, start) for fn in more]
        if not parts:
            yield rows
            continue
        width = rows.shape[1] + sum(p.shape[1] for p in parts)
        if block is None or block.shape != (rows.shape[0], width):
            block = np.empty((rows.shape[0], width))
        block[:, :rows.shape[1]] = rows
        c = rows.shape[1]
        for p in parts:
            block[:, c:c + p.shape[1]] = p
            c += p.shape[1]
        yield block


def _frame_bar(enabled: bool, total: int, label: str):
    """A tqdm bar over frames on a terminal, else None."""
    if not enabled or not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # an optional dependency

    return tqdm(total=total, desc=f"writing {label}", unit="frame", unit_scale=True, leave=False)


def _counted(blocks, bar):
    for block in blocks:
        yield block
        bar.update(len(block))


def _write_parquet(path, columns, blocks) -> None:
    import pyarrow as pa  # an optional dependency
    import pyarrow.parquet as pq

    schema = pa.schema([(c, pa.float64()) for c in columns])
    with atomic_path(path) as tmp, open_temp(tmp) as fh:
        with pq.ParquetWriter(fh, schema) as writer:
            for block in blocks:
                writer.write_table(pa.Table.from_arrays([pa.array(block[:, j]) for j in range(block.shape[1])],
                                                        schema=schema))

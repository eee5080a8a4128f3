"""The files of one analysed trial: the results table in chunks, the model, the log, the residuals.

:func:`write_results` computes the results table of an
:class:`humanbody.analysis.Analysis` a chunk of frames at a time and writes
it as CSV or Parquet, with the model used (JSON), the log and, for marker
trials, the tracking residuals, each file atomically
(:mod:`humanbody.atomic`).
"""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .analysis.log import Record, records
from .atomic import atomic_write_text
from .checks.outputs import OutputWatch
from .checks.unmeasured import analysis_masks
from .errors import InputError
from .io.writers import CSV_DIGITS, FORMATS, blocks_bytes, table_bytes, write_blocks, write_table
from .mechanics.kinematics import compute_motion
from .mechanics.kinetics import compute_with_kinetics, kinetic_block, kinetic_columns
from .mechanics.moment_frames import NEXUS_FRAME, distal_inputs, distal_moments, moment_frame, trial_heading
from .mechanics.relative import frame_state, relative_block, relative_columns
from .mechanics.results import Results, result_columns
from .model.body import coordinate_columns
from .options import AnalysisOptions

if TYPE_CHECKING:  # the analysis imports nothing of this module; a type only
    from .analysis.values import Analysis

__all__ = ["write", "write_results", "results_bytes", "CHUNK_FRAMES"]

#: Frames computed and written at a time by :func:`write_results` (about
#: 40 MB of results per chunk for the 17-segment model).
CHUNK_FRAMES = 8192


def write(analysis: Analysis, out_dir, options: AnalysisOptions | None = None, **kwargs) -> dict[str, str]:
    """Stage "write" of :func:`humanbody.analysis.analyze_trial`: the results table (mechanics,
    clinical angles, kinetics), model, log, residuals and exports of one analysed trial.

    Parameters
    ----------
    analysis : Analysis
        The analysed trial.
    out_dir : str or os.PathLike
        The output folder (created when missing).
    options : AnalysisOptions, optional
        Whose export formats and OpenSim feet to write; default: the analysis' own (``analysis.options``).
    **kwargs
        The other arguments of :func:`write_results` (``fmt``, ``digits``, ``progress``, ``relative``, ``events``).

    Returns
    -------
    dict
        Kind ("results", "model", "log", "residuals", exports) -> path.
    """
    if options is None:
        options = analysis.options
    return write_results(analysis, out_dir, export=options.export, opensim_feet=options.opensim_feet, **kwargs)


def write_results(analysis: Analysis, out_dir, fmt: str = "csv", chunk_frames: int = CHUNK_FRAMES,
                  digits: int | None = None, progress: bool = False, relative=(), export=None,
                  events=None, opensim_feet=None, said: list[Record] | None = None) -> dict[str, str]:
    """Write the results table, the model used, the log, the residuals and the exports into ``out_dir``.

    ``<stem>_results.csv`` (docs/conventions.md; or ``.parquet``), ``<stem>_model.json``, ``<stem>_log.txt``,
    ``<stem>_residuals.csv`` (marker trials), each atomically.  The table is computed and written
    ``chunk_frames`` frames at a time into one reused workspace (memory for one chunk only; the rows of the
    whole-trial computation, :func:`humanbody.mechanics.kinematics.compute_motion`).  ``relative`` adds
    ``<what>_rel_<to>_<quantity>_<axis>`` columns (:mod:`humanbody.mechanics.relative`).  The exports
    (:mod:`humanbody.export`) are written after the table from the columns they need, collected as it is
    written; one that cannot be written is an InputError raised after the other files, and the log,
    written once at the end, holds what the exports said.  The Analysis is a value: the records the write
    and export stages add (the table's output checks, the exports' notes) are in the log file, and in
    ``said`` when given (``analysis.with_records(said)`` is the analysis as written).

    Parameters
    ----------
    analysis : Analysis
        The analysed trial.
    out_dir : str or os.PathLike
        Output folder (created when missing).
    fmt : {"csv", "parquet"}
        The results table's format.
    chunk_frames : int
        Frames computed and written at a time.
    digits : int, optional
        CSV significant digits (1-15; default :data:`humanbody.io.writers.CSV_DIGITS`).
    progress : bool
        A bar over the frames of a long trial (on a terminal).
    relative : sequence of (str, str)
        Frame pairs ``(what, to)`` whose relative motion is added.
    export : sequence of str, optional
        Export formats ("c3d", "opensim"); default: ``analysis.options.export`` (``()``: none).
    events : DataFrame, optional
        Gait events for the C3D export.
    opensim_feet : (str, str), optional
        OpenSim bodies of the right and left foot loads; default: the options'.
    said : list of Record, optional
        Filled in place with the records the write and export stages add to the log (also when an export
        fails).

    Returns
    -------
    dict
        Kind ("results", "model", "log", "residuals", "c3d", "opensim_*") -> path.
    """
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create output folder ({err.strerror or err})", out) from None
    return _outputs(analysis, _Folder(out, progress and analysis.n_frames > 4 * chunk_frames, analysis.n_frames),
                    fmt, chunk_frames, digits, relative, export, events, opensim_feet, said)


def results_bytes(analysis: Analysis, fmt: str = "csv", chunk_frames: int = CHUNK_FRAMES, digits: int | None = None,
                  relative=(), export=None, events=None, opensim_feet=None, files: dict | None = None,
                  said: list[Record] | None = None, unloaded: dict | None = None) -> dict[str, bytes]:
    """The files :func:`write_results` writes, in memory: file name -> bytes (the batch report's).

    The same bytes as :func:`write_results` writes (the table, model, log and
    residuals computed and formatted by the same code); exports, which
    their writers write only to files, are written into a temporary folder
    and read back (``opensim/...`` for the OpenSim export's folder).  The
    arguments are :func:`write_results`'s; an export that cannot be written
    is an InputError raised after the other files are made (the log holds
    what the exports said): give ``files`` (a dict, filled in place) to keep them.


    Returns
    -------
    dict
        File name relative to the output folder -> its bytes, in the order written.

    Parameters
    ----------
    analysis : Analysis
        The analysed trial.
    fmt, chunk_frames, digits, relative, export, events, opensim_feet
        As :func:`write_results`.
    files : dict, optional
        Filled in place and returned (default: a new dict).
    said : list of Record, optional
        Filled in place with the records the write and export stages add to the log (:func:`write_results`).
    unloaded : dict of str to ndarray of bool, shape (F,), optional
        Side -> the frames of its stances off the plates (:func:`humanbody.gait.selection.unloaded_stance`),
        whose kinetics are left empty; None: found from the trial's own gait events.
    """
    sink = _Memory(files)
    _outputs(analysis, sink, fmt, chunk_frames, digits, relative, export, events, opensim_feet, said, unloaded)
    return sink.files


def _outputs(analysis: Analysis, sink, fmt: str, chunk_frames: int, digits: int | None, relative, export, events,
             opensim_feet, said: list | None = None, unloaded: dict | None = None) -> dict[str, str]:
    """The files of one analysed trial, made through ``sink`` (:class:`_Folder` or :class:`_Memory`): kind ->
    name; the log last, whatever the exports did (the records the writers added also into ``said``).  The
    values the recording does not measure are left empty (:mod:`humanbody.checks.unmeasured`; ``unloaded``:
    side -> its stances off the plates, bool (F,), when the caller has them, else found from the trial's
    events)."""
    digits = CSV_DIGITS if digits is None else digits
    export = analysis.options.export if export is None else export
    opensim_feet = analysis.options.opensim_feet if opensim_feet is None else opensim_feet
    if fmt not in FORMATS:
        raise InputError(f"unknown output format {fmt!r}; choose csv or parquet")
    if fmt == "parquet":
        import pyarrow  # noqa: F401  (before the first file: a missing package leaves no half-written folder)
    columns, blocks = _table(analysis, chunk_frames, relative)
    masks, unmeasured = analysis_masks(analysis, columns, unloaded)
    if masks:
        blocks = _masked(blocks, columns, masks)
    paths = {}
    exports = _ExportColumns(analysis, columns) if export else None
    if exports is not None:
        blocks = _collecting(blocks, exports.take, exports.values)
    watch = OutputWatch(columns)
    paths["results"] = sink.table(f"{analysis.stem}_results.{fmt}", columns, _watched(blocks, watch), fmt, digits)
    model, added = _with_warnings(analysis, ([unmeasured] if unmeasured else []) + watch.findings(analysis.motion.time))
    paths["model"] = sink.text(f"{analysis.stem}_model.json", model.to_json())
    log_name = f"{analysis.stem}_log.txt"
    paths["log"] = sink.name(log_name)
    notes: list[str] = []
    try:
        if analysis.residuals is not None:
            paths["residuals"] = sink.frame(f"{analysis.stem}_residuals.csv", analysis.residuals, digits)
        if exports is not None:
            paths.update(sink.folder(lambda out: exports.write(out, export, events=events, feet=opensim_feet,
                                                                notes=notes)))
    finally:  # what the exports had to say joins the log, written once whatever they did
        added += records("message", "export", *notes)
        if said is not None:
            said += added
        sink.text(log_name, analysis.log.added(added).text())
    return paths


class _Folder:
    """Files written into the folder ``out``, each atomically (:mod:`humanbody.atomic`); ``progress``: a bar
    over the results table's ``frames``."""

    def __init__(self, out: Path, progress: bool = False, frames: int = 0):
        self.out, self.progress, self.frames = out, progress, frames

    def name(self, name: str) -> str:
        return str(self.out / name)

    def table(self, name: str, columns: list, blocks, fmt: str, digits: int) -> str:
        bar = _frame_bar(self.progress, self.frames, name)
        try:
            return write_blocks(self.out / name, columns, blocks if bar is None else _counted(blocks, bar), fmt,
                                digits)
        finally:
            if bar is not None:
                bar.close()

    def frame(self, name: str, table, digits: int) -> str:
        return write_table(table, self.out / name.removesuffix(".csv"), fmt="csv", digits=digits)

    def text(self, name: str, text: str) -> str:
        atomic_write_text(self.out / name, text)
        return self.name(name)

    def folder(self, write) -> dict[str, str]:
        return write(self.out)


class _Memory:
    """The same files as bytes in ``files`` (name -> bytes); a folder's files (the exports') written into a
    temporary folder and read back."""

    def __init__(self, files: dict | None = None):
        self.files: dict[str, bytes] = {} if files is None else files

    def name(self, name: str) -> str:
        return name

    def table(self, name: str, columns: list, blocks, fmt: str, digits: int) -> str:
        self.files[name] = blocks_bytes(columns, blocks, fmt, digits)
        return name

    def frame(self, name: str, table, digits: int) -> str:
        self.files[name] = table_bytes(table, "csv", digits)
        return name

    def text(self, name: str, text: str) -> str:
        self.files[name] = text.encode("utf-8")
        return name

    def folder(self, write) -> dict[str, str]:
        with tempfile.TemporaryDirectory(prefix="humanbody-") as tmp:
            try:
                paths = write(Path(tmp))
            finally:
                for path in sorted(Path(tmp).rglob("*")):
                    if path.is_file() and not path.name.startswith("."):
                        self.files[path.relative_to(tmp).as_posix()] = path.read_bytes()
        return {kind: Path(p).relative_to(tmp).as_posix() for kind, p in paths.items()}


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


def _masked(blocks, columns: list, masks: dict):
    """Pass ``blocks`` on with the frames of ``masks`` (column -> bool (F,), :mod:`humanbody.checks.unmeasured`)
    set to NaN in their columns (the table's ``columns``): values the recording does not measure.

    Parameters
    ----------
    blocks : iterator of ndarray, shape (B, columns)
        The table's rows, chunk by chunk (consecutive frames from the first).
    columns : list of str
        The table's columns.
    masks : dict of str to ndarray of bool, shape (F,)
        Column -> the frames to leave empty.

    Yields
    ------
    ndarray, shape (B, columns)
        Each block, masked in place.
    """
    index = {c: j for j, c in enumerate(columns)}
    items = [(index[c], m) for c, m in masks.items() if c in index]
    start = 0
    for block in blocks:
        stop = start + len(block)
        for j, m in items:
            block[m[start:stop], j] = np.nan
        start = stop
        yield block


def _watched(blocks, watch: OutputWatch):
    """Pass ``blocks`` on, each seen by ``watch`` (:mod:`humanbody.checks.outputs`) first."""
    start = 0
    for block in blocks:
        watch.see(block, start)
        start += len(block)
        yield block


def _with_warnings(analysis: Analysis, table_findings: list) -> tuple:
    """The model to save and the write stage's records: ``analysis.model`` with the output checks' findings
    (:mod:`humanbody.checks.outputs`: the tracking's, already the log's warnings, and the results table's,
    ``table_findings``) as its ``warnings`` and the frames whose rates are estimates
    (:mod:`humanbody.checks.edges`, ``analysis.edges``) as its ``edges``; the records add the table's findings
    to the log's warnings (stage "write"), and each finding once to its messages."""
    log = analysis.log
    added = records("warning", "write", *[line for line in table_findings if line not in log.warnings])
    log = log.added(added)
    found, said = log.warnings, set(log.messages)
    added += records("message", "write", *[line for line in found if line not in said])
    edges = analysis.edges
    more = ({"warnings": list(found)} if found else {}) | ({"edges": edges} if edges else {})
    if not more:
        return analysis.model, added
    return analysis.model.replace(meta={**dict(analysis.model.meta or {}), **more}), added


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

    def write(self, out: Path, export, events=None, feet=None, notes: list | None = None) -> dict[str, str]:
        """Write the ``export`` formats into ``out`` (once the table is written); kind -> path.

        Parameters
        ----------
        out : pathlib.Path
            The output folder.
        export : sequence of str
            The formats ("c3d", "opensim").
        events : DataFrame, optional
            Gait events for the C3D export (default: found from the kinematics).
        feet : (str, str), optional
            OpenSim bodies of the right and left foot loads (default: :data:`humanbody.export.DEFAULT_FEET`).
        notes : list of str, optional
            Filled in place with the writers' lines for the log (stage "export").

        Returns
        -------
        dict
            Kind -> path of each file written.
        """
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
                                           feet=feet or DEFAULT_FEET, notes=notes))
        return paths


def _heading(model, motion, memo: dict):
    """The trial's progression axis for a chunk's moments in the ``global`` frame (once per trial), else None."""
    if moment_frame(model) != "global":
        return None
    if "heading" not in memo:
        memo["heading"] = trial_heading(model, motion.q)
    return memo["heading"]


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

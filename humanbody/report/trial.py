"""One trial of a batch report: analyse, find gait events, write every table and figure.

:func:`process_trial` is what runs on a local worker process or a Dask
worker.  It never raises: a bad trial comes back as a failed outcome with a
one-line error.  It writes nothing in the report folder itself; it returns
the files as bytes and the caller writes them (atomically), so Dask workers
need to read the inputs but not to share the output folder.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path, PurePosixPath
from typing import Any

import numpy as np
import pandas as pd

from ..atomic import atomic_path, open_temp
from ..checks.outputs import event_findings, stance_findings
from ..checks.unmeasured import analysis_masks
from ..errors import InputError
from ..gait import angle_peaks, events_of, flatten, kinetic_peaks, spatiotemporal
from ..gait.cycles import normalized_curves, stride_table
from ..gait.gps import GPS_VARIABLES, gait_profile_score, gait_variable_scores
from ..gait.normative import leg_length_from_height, load_normative, marker_set_note, population_note
from ..gait.selection import (
    EVENT_SOURCES,
    events_source,
    file_event_stances,
    pseudo_markers,
    trial_events,
    unloaded_stance,
)
from ..io.writers import REPORT_CSV_DIGITS, table_bytes
from ..model.anthropometry import DEFAULT_HEIGHT
from ..options import AnalysisOptions
from . import html, svg
from .outcome import TrialOutcome
from .panels import ANGLE_PANELS, KINETIC_PANELS, MECHANICS_PANELS, cycle_panels, event_traces, foot_off_percent

__all__ = ["ReportOptions", "TrialOutcome", "process_trial", "prepare_workers", "trial_options", "pseudo_markers", "trial_events",
           "EVENT_SOURCES"]

CSV_DIGITS = REPORT_CSV_DIGITS  # humanbody.io.writers: the report's tables, named once

#: Plot choices of :class:`ReportOptions` (``--plots``).
PLOT_CHOICES = ("svg", "png", "none")


@dataclass(frozen=True, init=False)
class ReportOptions:
    """Options shared by every trial of a batch: the analysis options and the report's own.

    ``analysis`` holds the :class:`humanbody.options.AnalysisOptions` (one
    name and meaning each; given whole, or field by field as keywords:
    ``ReportOptions(mass=72.6, plots="none")``); each trial's task
    overrides ``static``, ``mass``, ``height``, ``subject`` and gives the
    force file (:func:`trial_options`).  The report's own:

    Attributes
    ----------
    analysis : AnalysisOptions      the options of every trial's analysis
    treadmill_speed : float or None belt speed (m/s)
    plots : str                     "svg" (figures written as SVG, inlined in the trial's page),
                                    "png" (matplotlib PNG files, embedded in the page; much slower) or
                                    "none" (no figures)
    kinetics : bool                 joint moments and powers from the trials' force files
    normative : str or None         normative data ``FILE[:CONDITION]`` (:func:`humanbody.gait.normative.load_normative`);
                                    None: the built-in Schwartz 2008 set; "none": no bands and no GPS
    events : str                    which gait events cut the strides (``--events``, :data:`EVENT_SOURCES`):
                                    "auto" (per side the file's own, else the force plates', else the
                                    kinematic ones), "file", "force" or "kinematic" (:func:`trial_events`)
    muscles : str or None           an OpenSim model with muscles (.osim): each trial's inverse kinematics,
                                    static optimization and hip and knee reactions on it
                                    (:mod:`humanbody.report.muscles`)
    reserves : str or None          with ``muscles``: the reserves' OpenSim actuators file (None: weak
                                    reserves on every coordinate)
    ik_setup : str or None          with ``muscles``: an OpenSim IK setup whose marker and coordinate tasks
                                    weigh the inverse kinematics (None: every shared marker, weight 1)
    """

    analysis: AnalysisOptions
    treadmill_speed: float | None = None
    plots: str = "svg"
    kinetics: bool = True
    normative: str | None = None
    events: str = "auto"
    muscles: str | None = None
    reserves: str | None = None
    ik_setup: str | None = None

    def __init__(self, analysis: AnalysisOptions | None = None, *, treadmill_speed: float | None = None,
                 plots: str = "svg", kinetics: bool = True, normative: str | None = None, events: str = "auto",
                 muscles: str | None = None, reserves: str | None = None, ik_setup: str | None = None,
                 **analysis_values):
        base = AnalysisOptions() if analysis is None else analysis
        if not isinstance(base, AnalysisOptions):
            raise TypeError(f"analysis must be an AnalysisOptions, not {type(base).__name__}")
        values = {"analysis": base.replace(**analysis_values) if analysis_values else base,
                  "treadmill_speed": treadmill_speed, "plots": plots, "kinetics": kinetics,
                  "normative": normative, "events": events, "muscles": muscles, "reserves": reserves,
                  "ik_setup": ik_setup}
        for name, value in values.items():
            object.__setattr__(self, name, value)
        self.__post_init__()

    def __post_init__(self):
        if self.plots not in PLOT_CHOICES:
            raise InputError(f"plots must be one of {', '.join(PLOT_CHOICES)}, got {self.plots!r}")
        if self.events not in EVENT_SOURCES:
            raise InputError(f"events must be one of {', '.join(EVENT_SOURCES)}, got {self.events!r}")

    def as_dict(self) -> dict:
        """The options as a plain dict (field name -> value).

        Returns
        -------
        dict
            Field name -> value (nested dataclasses as dicts).
        """
        return asdict(self)


def trial_options(task, options: ReportOptions) -> AnalysisOptions:
    """The analysis options of one trial of a batch: ``options`` with the task's (manifest row's) values.

    The task gives the static trial, the force file (used for the
    kinetics unless ``options.kinetics`` is False) and, when its row has
    them, the subject's mass, height and measurements file.

    Parameters
    ----------
    task : TrialTask
        One row of the study (trial, static, force file, subject).
    options : ReportOptions
        The report's options (``analysis``: what every trial shares).

    Returns
    -------
    AnalysisOptions
        The trial's analysis options.
    """
    base = options.analysis
    return base.replace(
        static=task.static,
        mass=task.mass if task.mass is not None else base.mass,
        height=task.height if task.height is not None else base.height,
        subject=task.subject if task.subject is not None else base.subject,
        forces=task.grf if options.kinetics else None,
    )


def _one_line(err: BaseException) -> str:
    if isinstance(err, InputError):
        text = str(err.on_command_line())
    else:
        text = f"{type(err).__name__}: {err}"
    return " ".join(text.split()) or type(err).__name__


def _kinetic_stride_notes(cycles: pd.DataFrame, params: pd.DataFrame, curves: dict) -> list:
    """One line per side whose strides all lack a known load somewhere in stance: why its kinetic curves and
    peaks are empty (both feet on one plate in double support, or a foot beside the plates).  ``curves``: the
    rows of each (side, variable) of ``cycles`` (:func:`humanbody.gait.cycles.normalized_curves`)."""
    out = []
    counts = cycles["n_strides"].to_numpy()
    for side in ("right", "left"):
        strides = params.loc[side, "n_strides"] if side in params.index and "n_strides" in params else 0
        moments = [r for (s, v), r in curves.items() if s == side and v.endswith("_moment_Nm_per_kg")]
        rows = np.concatenate(moments) if moments else np.empty(0, dtype=np.int64)
        if len(rows) and strides and not (counts[rows] > 0).any():
            out.append(f"kinetics: none of the {side} side's {int(strides)} stride(s) had its load known through "
                       "the whole stance (both feet on one plate, or the foot beside the plates), so its kinetic "
                       "curves and peaks are left empty")
    return out


def _residual_line(kinetics: pd.DataFrame, model) -> str:
    """Data quality of the kinetics: the residual force and moment at the root (what the loads leave unbalanced)."""
    root = model.names[0]
    weight = float(model.total_mass) * float(np.linalg.norm(model.gravity))
    f = np.linalg.norm(kinetics[[f"{root}_joint_force_{a}" for a in "xyz"]].to_numpy(), axis=1)
    m = np.linalg.norm(kinetics[[f"{root}_joint_moment_{a}" for a in "xyz"]].to_numpy(), axis=1)
    if not np.isfinite(f).any():
        return "kinetics: residual at the pelvis not known (a foot stood on no measured plate)"
    return (f"kinetics: residual force at the pelvis median {np.nanmedian(f):.0f} N "
            f"({100 * np.nanmedian(f) / weight:.0f} % of body weight), residual moment median "
            f"{np.nanmedian(m):.0f} N m (what the measured loads leave unbalanced: marker, model and "
            "force-plate errors, loads not measured)")


def _residual_stride_lines(kinetics: pd.DataFrame, analysis, events: pd.DataFrame) -> list:
    """The pelvis residual stride by stride, one line per side: each stride's peak residual force (N and % of the
    trial's peak ground reaction) and peak residual moment (N m); strides with unknown loads left out."""
    root = analysis.model.names[0]
    f = np.linalg.norm(kinetics[[f"{root}_joint_force_{a}" for a in "xyz"]].to_numpy(), axis=1)
    m = np.linalg.norm(kinetics[[f"{root}_joint_moment_{a}" for a in "xyz"]].to_numpy(), axis=1)
    grf = float(np.nanmax(np.linalg.norm(np.nansum(analysis.loads.force, axis=1), axis=1), initial=0.0))
    time = np.asarray(analysis.motion.time, dtype=float)
    out = []
    for side in ("right", "left"):
        strikes = events_of(events, side, "foot_strike")
        parts = []
        for i, (t0, t1) in enumerate(zip(strikes[:-1], strikes[1:], strict=True), start=1):
            inside = (time >= t0) & (time <= t1)
            if inside.any() and np.isfinite(f[inside]).all() and grf > 0:
                peak = float(f[inside].max())
                parts.append(f"{i}: {peak:.0f} N ({100 * peak / grf:.1f} %), {float(m[inside].max()):.0f} N m")
        if parts:
            out.append(f"kinetics: pelvis residual per {side} stride (peak force, % of the peak ground reaction; "
                       "peak moment): " + "; ".join(parts))
    return out


def _csv_bytes(table: pd.DataFrame) -> bytes:
    """The table as CSV, numbers with CSV_DIGITS significant digits (:func:`humanbody.io.writers.table_bytes`)."""
    return table_bytes(table, "csv", CSV_DIGITS)


def _analysis_files(analysis, export=(), events=None, opensim_feet=None, unloaded=None) -> tuple[dict, list, Any]:
    """The pipeline's own outputs (results table, model, log, residuals; exports, under their folder) as bytes
    by file name (:func:`humanbody.trial_output.results_bytes`, in memory), notes (an export that cannot be
    written costs the export, not the trial) and the analysis as written (its log with the writers' records).

    Parameters
    ----------
    analysis : humanbody.analysis.Analysis
        The analysed trial.
    export : tuple of str
        Formats for other programs ("c3d", "opensim").
    events : pandas.DataFrame, optional
        Gait events written into the exports (time s, side, event).
    opensim_feet : tuple of str, optional
        OpenSim bodies (right, left) the foot loads are applied to.
    unloaded : dict of str to ndarray of bool, shape (F,), optional
        Side -> its stances off the plates, left empty in the results table.

    Returns
    -------
    (dict of str to bytes, list of str, humanbody.analysis.Analysis)
        File name -> bytes, the notes on exports not written, and the analysis with the writers' records.
    """
    from ..trial_output import results_bytes  # lazy: the analysis' modules, see _process

    files: dict[str, bytes] = {}
    notes: list[str] = []
    said: list = []  # the records the writers add to the log
    try:
        results_bytes(analysis, export=export, events=events, opensim_feet=opensim_feet, files=files, said=said,
                      unloaded=unloaded)
    except InputError as err:
        if not export:
            raise
        notes.append(f"export not written: {_one_line(err)}")
    return (dict(sorted(files.items(), key=lambda item: PurePosixPath(item[0]).parts)), notes,
            analysis.with_records(said))


#: Static calibrations made in this process, by static-trial content and subject
#: (:func:`humanbody.analysis.analyze_trial`'s ``calibration_cache``): the trials of one
#: subject in a batch share one calibration.
_CALIBRATIONS: dict = {}


def process_trial(task, options: ReportOptions) -> TrialOutcome:
    """Analyse one trial and produce its report files; never raises.

    Parameters
    ----------
    task : TrialTask
        One row of the study (trial, static, force file, subject).
    options : ReportOptions
        What the trial computes and writes.

    Returns
    -------
    TrialOutcome
        The summary row (row["status"] "ok" or "failed", and error), the files' bytes and the steps' messages.
    """
    base = {"trial": task.trial, "key": task.key, "status": "failed", "error": ""}
    try:
        return _process(task, options, base)
    except Exception as err:  # noqa: BLE001 - a bad trial must not stop the batch
        row = dict(base, error=_one_line(err))
        return TrialOutcome(task.key, row, {}, [row["error"]])


def _process(task, options: ReportOptions, base: dict) -> TrialOutcome:
    from ..analysis.run import analyze_trial  # lazy: 350-500 ms a resumed report never needs

    opts = trial_options(task, options)
    run: dict[str, Any] = dict(progress=False, calibration_cache=_CALIBRATIONS)
    kinetics_note = []
    try:
        analysis = analyze_trial(task.trial, opts, **run)
    except InputError as err:  # a bad force file costs the kinetics, not the trial
        if opts.forces is None:
            raise
        analysis = analyze_trial(task.trial, opts.replace(forces=None), **run)
        kinetics_note.append(f"kinetics skipped: {_one_line(err)}")
    messages = list(task.notes) + list(analysis.messages) + kinetics_note
    stem = Path(task.trial).stem
    events, used, points, feet, pelvis, ev_msgs = trial_events(analysis, task.grf, options.analysis.force_threshold,
                                                               options.events)
    messages += ev_msgs
    speed = task.treadmill_speed if task.treadmill_speed is not None else options.treadmill_speed
    held = analysis.trial.kind == "orientations"  # no positions: the pelvis held in place (not a treadmill)
    params = spatiotemporal(used, points, feet=feet, pelvis=pelvis, treadmill_speed=speed, held_pelvis=held)
    if "note" in params.attrs:
        messages.append(params.attrs["note"])
    kinetics = analysis.kinetics
    unloaded = unloaded_stance(analysis, used) if kinetics is not None else {}
    if kinetics is not None:  # a side's kinetics while its foot stands off the plates are not known
        for side, gap in unloaded.items():
            if gap.any():
                cols = [c for c in kinetics.columns.tolist() if c.startswith(f"{side}_")]
                kinetics.loc[gap, cols] = np.nan
    table = pd.concat([analysis.results.to_dataframe(), analysis.clinical]
                      + ([kinetics] if kinetics is not None else []), axis=1)
    masks = analysis_masks(analysis, table.columns, unloaded)[0]  # its line joins the log with the results
    for column, frames in masks.items():  # a segment carried from its parent: its joints are not measured
        table.loc[frames, column] = np.nan
    cycles, curves = normalized_curves(table, used)
    if kinetics is not None:
        messages.append(_residual_line(kinetics, analysis.model))
        messages += _residual_stride_lines(kinetics, analysis, used)
        messages += _kinetic_stride_notes(cycles, params, curves)

    exported = used[used["source"] != "file"] if (used["source"] == "file").any() else used  # the C3D has them
    produced, export_notes, analysis = _analysis_files(analysis, options.analysis.export, exported,
                                                       options.analysis.opensim_feet, unloaded)
    messages += export_notes
    warnings = (list(analysis.log.warnings) + stance_findings(params)  # output checks
                + event_findings(events, used, file_event_stances(events, used)))
    messages += [w for w in warnings if w not in messages]
    files = {f"{task.key}/{name}": data for name, data in produced.items()}
    files[f"{task.key}/{stem}_events.csv"] = _csv_bytes(events)
    files[f"{task.key}/{stem}_spatiotemporal.csv"] = _csv_bytes(params.reset_index())
    files[f"{task.key}/{stem}_cycles.csv"] = _csv_bytes(cycles)
    files[f"{task.key}/{stem}_strides.parquet"] = table_bytes(stride_table(table, used), "parquet")  # read by compare
    row = dict(base, status="ok with warnings" if warnings else "ok", events_source=events_source(used))
    row.update(flatten(params))
    row.update(angle_peaks(cycles, params, curves))
    row.update(kinetic_peaks(cycles, params, curves))
    normative, gps = _normative_scores(options, task, analysis, row, cycles, messages, curves)
    figures = _figures(options.plots, stem, cycles, params, normative, gps, kinetics is not None,
                       points, events, feet, pelvis, curves)
    if options.muscles:
        _add_muscles(task, options, used, foot_off_percent(params), stem, files, row, figures, messages)
    for name, fig in figures.items():
        if isinstance(fig, bytes):  # PNG files; SVG figures live in the page only
            files[f"{task.key}/{name}"] = fig
    page = html.trial_page(task, row, params, events, figures, messages,
                           links=[Path(p).name for p in files if p.endswith((".csv", ".json"))],
                           gps=gps, warnings=warnings, edges=analysis.edges)
    files[f"{task.key}/{stem}.html"] = page.encode("utf-8")
    return TrialOutcome(task.key, row, files, messages)


def _add_muscles(task, options: ReportOptions, used, foot_off: dict, stem: str, files: dict, row: dict,
                 figures: dict, messages: list) -> None:
    """``--muscles``: the trial's muscle files, summary columns, figure and log lines
    (:func:`humanbody.report.muscles.muscle_part`); a failure costs the muscles, not the trial."""
    from .muscles import muscle_part  # lazy: the OpenSim model's kernels, only with --muscles

    try:
        part = muscle_part(task, str(options.muscles), options.reserves, used, foot_off, options.plots, stem,
                           options.ik_setup)
    except InputError as err:
        messages.append(f"muscles skipped: {_one_line(err)}")
        return
    files.update({f"{task.key}/{name}": data for name, data in part.files.items()})
    row.update(part.row)
    figures.update(part.figures)
    messages += part.messages


def prepare_workers(options: ReportOptions) -> None:
    """Load what every worker's first trial would load, here, before the workers are forked (they inherit it).

    The normative set of ``options.normative`` (:func:`normative_set`), the
    built-in marker sets when each trial's set is detected among them
    (parsed once per process, :func:`humanbody.markers.markerset.load_markerset`)
    and the kernels that run on one thread
    (:func:`humanbody._kernels.warm.load_serial`, with numba's start-up):
    about 0.4 CPU-s a worker would each pay again.  Nothing here starts a
    thread, so the process stays safe to fork.  A normative file that cannot
    be read is left to the trials, which report it.

    Parameters
    ----------
    options : ReportOptions
        The report's options (``normative``, ``analysis.markerset``).
    """
    from .._kernels import warm  # lazy: numba's type names, only in a process that forks workers
    from ..markers.markerset import builtin_markersets, load_markerset  # lazy: as above

    try:
        normative_set(options.normative)
    except Exception:  # noqa: BLE001 - each trial meets it again and says it in its own row
        pass
    if options.analysis.markerset is None:  # each trial's set is detected among the built-in ones
        for name in builtin_markersets():
            try:
                load_markerset(name)  # parsed once per process (its TOML: ~0.05 CPU-s a worker for all)
            except Exception:  # noqa: BLE001 - a trial that needs it reports it
                pass
    warm.load_serial()


#: Normative sets read in this process, by ``--normative`` value (a worker reads its set once).
_NORMATIVE_SETS: dict = {}


def normative_set(spec: str | None):
    """The normative set of ``--normative`` (None: built-in; "none": no normative data), read once per process.

    Parameters
    ----------
    spec : str or None
        ``--normative``: ``FILE[:CONDITION]``, "none", or None for the built-in set.

    Returns
    -------
    NormativeSet or None
        The set, None for "none".
    """
    if spec is not None and spec.strip().lower() == "none":
        return None
    key = spec or ""
    if key not in _NORMATIVE_SETS:
        _NORMATIVE_SETS[key] = load_normative(spec)
    return _NORMATIVE_SETS[key]


def _normative_scores(options: ReportOptions, task, analysis, row: dict, cycles, messages: list, curves=None):
    """Choose the normative condition, add the GPS columns to ``row``; return (table or None, gps dict or None)."""
    nset = normative_set(options.normative)
    if nset is None:
        return None, None
    height = next((h for h in (task.height, options.analysis.height, getattr(analysis.calibration, "height", None))
                   if h is not None), DEFAULT_HEIGHT)
    speed = row.get("speed_m_per_s")
    speed = float(speed) if speed is not None and np.isfinite(speed) else None
    cond, _, note = nset.select(speed, leg_length_from_height(height))
    table = nset.curves(cond)  # the condition's curves, made once per worker
    scores = gait_variable_scores(cycles, table, curves)
    summary = gait_profile_score(scores)
    row["normative"] = f"{nset.name} {cond}"
    row.update(summary)
    messages.append(f"normative data {nset.name} ({nset.source}), {note}; Gait Profile Score "
                    f"{summary['gait_profile_score_deg']:.1f} deg (right "
                    f"{summary['right_gait_profile_score_deg']:.1f}, left {summary['left_gait_profile_score_deg']:.1f})")
    markers = marker_set_note(nset, ((getattr(analysis.model, "meta", None) or {}).get("calibration") or {})
                              .get("markerset"))
    if markers:
        messages.append(markers)
    who = population_note(nset, height)
    messages.append(who)
    return table, {"scores": scores, "summary": summary, "name": f"{nset.name} {cond}", "note": markers,
                   "population": who.removeprefix("normative population: "), "condition": note,
                   "source": nset.source}


def _figures(plots: str, stem: str, cycles, params, normative, gps, with_kinetics: bool, points, events,
             feet, pelvis, curves=None) -> dict:
    """The trial's figures, name -> SVG text (``svg``) or PNG bytes (``png``); {} for ``none``."""
    if plots == "none":
        return {}
    foot_off = foot_off_percent(params)
    labels = [v.removesuffix("_deg").replace("_", " ").replace("internal rotation", "rotation")
              .replace("dorsiflexion", "dorsiflex.").replace("foot progression", "foot prog.")
              for v in GPS_VARIABLES]
    gps_title = (f"{stem}: Movement Analysis Profile (GVS, deg) against {gps['name']}".strip(": ")
                 if gps else "")
    gps_values = ({"overall": gps["summary"]["gait_profile_score_deg"],
                   "right": gps["summary"]["right_gait_profile_score_deg"],
                   "left": gps["summary"]["left_gait_profile_score_deg"]} if gps else {})
    if plots == "png":
        from . import plots as png  # lazy: matplotlib, imported only when PNG figures are drawn

        figs: dict[str, str | bytes] = {f"{stem}_angles.png": png.angles_figure(cycles, title=stem, normative=normative, foot_off=foot_off)}
        if gps:
            figs[f"{stem}_gps.png"] = png.map_figure(gps["scores"], GPS_VARIABLES, labels, gps_values, gps_title)
        if with_kinetics:
            figs[f"{stem}_kinetics.png"] = png.kinetics_figure(cycles, title=stem, normative=normative,
                                                               foot_off=foot_off)
        figs[f"{stem}_mechanics.png"] = png.mechanics_figure(cycles, title=stem, foot_off=foot_off)
        figs[f"{stem}_events.png"] = png.events_figure(points, events, feet=feet, pelvis=pelvis, title=stem)
        return figs
    figs = {f"{stem}_angles.svg": svg.grid_svg(cycle_panels(cycles, ANGLE_PANELS, normative, foot_off, curves),
                                               f"{stem}: joint angles over the stride".strip(": "))}
    if gps:
        figs[f"{stem}_gps.svg"] = svg.map_svg(gps["scores"], GPS_VARIABLES, labels, gps_values, gps_title)
    if with_kinetics:
        figs[f"{stem}_kinetics.svg"] = svg.grid_svg(cycle_panels(cycles, KINETIC_PANELS, normative, foot_off, curves),
                                                    f"{stem}: kinetics over the stride".strip(": "))
    figs[f"{stem}_mechanics.svg"] = svg.grid_svg(cycle_panels(cycles, MECHANICS_PANELS, None, foot_off, curves),
                                                 f"{stem}: mass centre and inertia loads".strip(": "))
    series, marks = event_traces(points, events, feet, pelvis)
    square = ", square: file" if any(m[4] == "file" for m in marks) else ""
    figs[f"{stem}_events.svg"] = svg.events_svg(
        series, marks, f"{stem}: gait events (filled: foot strike, open: foot off; triangle: kinematic, "
                       f"circle: force{square})".strip(": "))
    return figs


def write_outcome_files(outcome: TrialOutcome, out_dir) -> list[str]:
    """Write the outcome's files under ``out_dir`` atomically; return their relative paths.

    Parameters
    ----------
    outcome : TrialOutcome
        A trial's outcome (its files as bytes, by path relative to the report folder).
    out_dir : str or os.PathLike
        The report folder.

    Returns
    -------
    list of str
        The paths written, relative to ``out_dir``.
    """
    written = []
    for rel, data in sorted(outcome.files.items()):
        target = Path(out_dir) / rel
        with atomic_path(target) as tmp, open_temp(tmp) as fh:  # not truncated: no flush on close
            fh.write(data)
        written.append(rel)
    return written

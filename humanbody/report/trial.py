"""One trial of a batch report: analyse, find gait events, write every table and figure.

:func:`process_trial` is what runs on a local worker process or a Dask
worker.  It never raises: a bad trial comes back as a failed outcome with a
one-line error.  It writes nothing in the report folder itself; it returns
the files as bytes and the caller writes them (atomically), so Dask workers
need to read the inputs but not to share the output folder.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["ReportOptions", "TrialOutcome", "process_trial", "pseudo_markers", "trial_events"]

CSV_DIGITS = 10

#: Plot choices of :class:`ReportOptions` (``--plots``).
PLOT_CHOICES = ("png", "none")

#: For tests only: seconds every trial sleeps before it starts, so that a test
#: can interrupt a batch or kill a worker while a trial is running.
TEST_DELAY_ENV = "HUMANBODY_TEST_TRIAL_DELAY"


@dataclass(frozen=True)
class ReportOptions:
    """Options shared by every trial of a batch (per-trial values in the task override them).

    Attributes
    ----------
    mass, height : float or None    subject (kg, m)
    sex : str                       anthropometric table
    model : str or None             model file instead of the scaled default
    markerset : str or None         marker set name or file
    axes : str                      lab -> ground axes ("auto" or a spec)
    cutoff_hz : float or None       marker low-pass cut-off
    max_gap : float                 longest gap filled (s)
    fill : str                      gap filling: spline, rigid or linear
    diff_method, diff_cutoff_hz :   differentiation of coordinates
    treadmill_speed : float or None belt speed (m/s)
    force_threshold : float         vertical force of foot contact (N)
    plots : str                     "png" (three figures per trial, embedded in its page) or
                                    "none" (no figures: about half the time per trial)
    export : tuple of str           formats for other programs ("c3d", "opensim"; humanbody.io.export)
    opensim_feet : tuple or None    OpenSim bodies of the right and left foot loads
    """

    mass: float | None = None
    height: float | None = None
    sex: str = "male"
    model: str | None = None
    markerset: str | None = None
    axes: str = "auto"
    cutoff_hz: float | None = 6.0
    max_gap: float = 0.1
    fill: str = "spline"
    diff_method: str | None = None
    diff_cutoff_hz: float = 6.0
    treadmill_speed: float | None = None
    force_threshold: float = 20.0
    plots: str = "png"
    kinetics: bool = True
    export: tuple = ()
    opensim_feet: tuple | None = None

    def __post_init__(self):
        if self.plots not in PLOT_CHOICES:
            raise InputError(f"plots must be one of {', '.join(PLOT_CHOICES)}, got {self.plots!r}")

    def as_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


@dataclass
class TrialOutcome:
    """What one trial produced.

    ``row`` is its summary row; ``files`` maps a path relative to the report
    folder to the file's bytes; ``messages`` are the steps' messages.
    """

    key: str
    row: dict
    files: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.row.get("status") == "ok"


def _one_line(err: BaseException) -> str:
    if isinstance(err, InputError):
        text = str(err)
    else:
        text = f"{type(err).__name__}: {err}"
    return " ".join(text.split()) or type(err).__name__


def pseudo_markers(results, time) -> pd.DataFrame:
    """Foot and pelvis points from the model, in the marker layout (ground axes, m).

    For trials without markers (generalized coordinates): the ankle joint
    (origin of each foot segment) stands for the heel, the foot's mass
    centre for the toe, and the lower-torso origin for the pelvis.  Events
    from these points are an approximation of the marker-based ones.
    """
    cols = {"time": np.asarray(time, dtype=float)}
    points = {
        "right_ankle": results.joint[:, results.segment("right_foot")],
        "right_foot_com": results.com[:, results.segment("right_foot")],
        "left_ankle": results.joint[:, results.segment("left_foot")],
        "left_foot_com": results.com[:, results.segment("left_foot")],
        "pelvis": results.joint[:, results.segment("lower_torso")],
    }
    for name, p in points.items():
        for j, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = p[:, j]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="model points", markers=list(points))
    return df


PSEUDO_FEET = {"right": ("right_ankle", "right_foot_com"), "left": ("left_ankle", "left_foot_com")}


def trial_events(analysis, grf_path=None, force_threshold: float = 20.0):
    """Gait events of an analysed trial and the points they came from.

    Returns
    -------
    events : DataFrame   kinematic events, plus force events when ``grf_path`` is given
    used : DataFrame     the events that define strides (force events when
                         available, else kinematic)
    points : DataFrame   marker table the kinematic events came from
    feet, pelvis :       marker names used
    messages : list of str
    """
    from ..gait import force_events, kinematic_events
    from ..gait.events import foot_markers

    messages = []
    time = analysis.results.time
    points, feet, pelvis = analysis.markers, None, None
    if points is not None:
        try:
            foot_markers(points)
        except InputError as err:
            messages.append(f"gait events from model points: {err.message}")
            points = None
    if points is None:
        points, feet, pelvis = pseudo_markers(analysis.results, time), PSEUDO_FEET, ["pelvis"]
    kin = kinematic_events(points, feet=feet, pelvis=pelvis)
    methods = kin.attrs.get("method", {})
    messages.append("kinematic events (Zeni et al. 2008, " + ", ".join(f"{s}: {m}" for s, m in methods.items())
                    + f"): {len(kin)}")
    used = kin
    events = kin
    if grf_path is not None:
        from ..io import read_trial

        try:
            forces = read_trial(grf_path)
            fe = force_events(forces, threshold=force_threshold, frame_times=time)
        except InputError as err:  # the kinematic events still make a report
            messages.append(f"force events skipped: {err}")
            return events, used, points, feet, pelvis, messages
        messages.append(f"force events ({force_threshold:g} N threshold on "
                        + ", ".join(f"{s}: {c}" for s, c in fe.attrs["plates"].items()) + f"): {len(fe)}")
        events = pd.concat([kin, fe], ignore_index=True).sort_values(["time", "source"], kind="stable")
        events = events.reset_index(drop=True)
        if len(fe):
            used = fe
    return events, used, points, feet, pelvis, messages


def _residual_line(kinetics: pd.DataFrame, model) -> str:
    """Data quality of the kinetics: the residual force and moment at the root (what the loads leave unbalanced)."""
    root = model.names[0]
    weight = float(model.total_mass) * float(np.linalg.norm(model.gravity))
    f = np.linalg.norm(kinetics[[f"{root}_joint_force_{a}" for a in "xyz"]].to_numpy(), axis=1)
    m = np.linalg.norm(kinetics[[f"{root}_joint_moment_{a}" for a in "xyz"]].to_numpy(), axis=1)
    return (f"kinetics: residual force at the pelvis median {np.nanmedian(f):.0f} N "
            f"({100 * np.nanmedian(f) / weight:.0f} % of body weight), residual moment median "
            f"{np.nanmedian(m):.0f} N m (what the measured loads leave unbalanced: marker, model and "
            "force-plate errors, loads not measured)")


def _csv_bytes(table: pd.DataFrame) -> bytes:
    """The table as CSV text, numbers with CSV_DIGITS significant digits (:func:`humanbody.writers.table_csv_bytes`)."""
    from ..writers import table_csv_bytes

    return table_csv_bytes(table, CSV_DIGITS)


def _analysis_files(analysis, stem: str, export=(), events=None, opensim_feet=None) -> tuple[dict, list]:
    """The pipeline's own outputs (results table, model, residuals; exports, under their folder) as bytes,
    and notes: an export that cannot be written costs the export, not the trial."""
    from ..trial_output import write_results

    files, notes = {}, []
    with tempfile.TemporaryDirectory(prefix="humanbody-report-") as tmp:
        try:
            write_results(analysis, tmp, export=export, events=events, opensim_feet=opensim_feet)
        except InputError as err:
            if not export:
                raise
            notes.append(f"export not written: {_one_line(err)}")
        for path in sorted(Path(tmp).rglob("*")):
            if path.is_file() and not path.name.startswith("."):
                files[path.relative_to(tmp).as_posix()] = path.read_bytes()
    return files, notes


#: Static calibrations made in this process, by static-trial content and subject
#: (:func:`humanbody.pipeline.analyze_trial`'s ``calibration_cache``): the trials of one
#: subject in a batch share one calibration.
_CALIBRATIONS: dict = {}


def process_trial(task, options: ReportOptions) -> TrialOutcome:
    """Analyse one trial and produce its report files; never raises.

    Parameters
    ----------
    task : TrialTask
    options : ReportOptions

    Returns
    -------
    TrialOutcome  with ``row["status"]`` "ok" or "failed" (and ``error``).
    """
    base = {"trial": task.trial, "key": task.key, "status": "failed", "error": ""}
    delay = os.environ.get(TEST_DELAY_ENV)
    if delay:
        time.sleep(float(delay))
    try:
        return _process(task, options, base)
    except Exception as err:  # noqa: BLE001 - a bad trial must not stop the batch
        row = dict(base, error=_one_line(err))
        return TrialOutcome(task.key, row, {}, [row["error"]])


def _process(task, options: ReportOptions, base: dict) -> TrialOutcome:
    from ..differentiate import Differentiation
    from ..gait import angle_peaks, flatten, kinetic_peaks, normalize_cycles, spatiotemporal
    from ..pipeline import analyze_trial
    from . import html

    # --diff-cutoff applies with or without --diff (the method defaults to the library's, savgol)
    diff = Differentiation(method=options.diff_method or "savgol", cutoff_hz=options.diff_cutoff_hz)
    settings = dict(
        static=task.static, markerset=options.markerset, model=options.model,
        mass=task.mass if task.mass is not None else options.mass,
        height=task.height if task.height is not None else options.height,
        sex=options.sex, axes=options.axes, cutoff_hz=options.cutoff_hz, max_gap=options.max_gap,
        fill=options.fill,
        differentiation=diff, progress=False, calibration_cache=_CALIBRATIONS, keep_raw=bool(options.export),
    )
    kinetics_note = []
    if options.kinetics and task.grf is not None:
        try:
            analysis = analyze_trial(task.trial, forces=task.grf, force_threshold=options.force_threshold,
                                     **settings)
        except InputError as err:  # a bad force file costs the kinetics, not the trial
            analysis = analyze_trial(task.trial, **settings)
            kinetics_note.append(f"kinetics skipped: {_one_line(err)}")
    else:
        analysis = analyze_trial(task.trial, **settings)
    messages = list(task.notes) + list(analysis.messages) + kinetics_note
    stem = Path(task.trial).stem
    events, used, points, feet, pelvis, ev_msgs = trial_events(analysis, task.grf, options.force_threshold)
    messages += ev_msgs
    speed = task.treadmill_speed if task.treadmill_speed is not None else options.treadmill_speed
    params = spatiotemporal(used, points, feet=feet, pelvis=pelvis, treadmill_speed=speed)
    if "note" in params.attrs:
        messages.append(params.attrs["note"])
    kinetics = analysis.kinetics
    table = pd.concat([analysis.results.to_dataframe(), analysis.clinical]
                      + ([kinetics] if kinetics is not None else []), axis=1)
    cycles = normalize_cycles(table, used)
    if kinetics is not None:
        messages.append(_residual_line(kinetics, analysis.model))

    produced, export_notes = _analysis_files(analysis, stem, options.export, used, options.opensim_feet)
    messages += export_notes
    files = {f"{task.key}/{name}": data for name, data in produced.items()}
    files[f"{task.key}/{stem}_events.csv"] = _csv_bytes(events)
    files[f"{task.key}/{stem}_spatiotemporal.csv"] = _csv_bytes(params.reset_index())
    files[f"{task.key}/{stem}_cycles.csv"] = _csv_bytes(cycles)
    figures = {}
    if options.plots == "png":
        from . import plots  # matplotlib: imported only when figures are drawn

        figures = {
            f"{stem}_angles.png": plots.angles_figure(cycles, title=stem),
            **({f"{stem}_kinetics.png": plots.kinetics_figure(cycles, title=stem)} if kinetics is not None else {}),
            f"{stem}_mechanics.png": plots.mechanics_figure(cycles, title=stem),
            f"{stem}_events.png": plots.events_figure(points, events, feet=feet, pelvis=pelvis, title=stem),
        }
    for name, png in figures.items():
        files[f"{task.key}/{name}"] = png
    row = dict(base, status="ok", events_source=str(used["source"].iloc[0]) if len(used) else "none")
    row.update(flatten(params))
    row.update(angle_peaks(cycles, params))
    row.update(kinetic_peaks(cycles, params))
    page = html.trial_page(task, row, params, events, figures, messages,
                           links=[Path(p).name for p in files if p.endswith((".csv", ".json"))])
    files[f"{task.key}/{stem}.html"] = page.encode("utf-8")
    return TrialOutcome(task.key, row, files, messages)


def write_outcome_files(outcome: TrialOutcome, out_dir) -> list[str]:
    """Write the outcome's files under ``out_dir`` atomically; return their relative paths."""
    from .._atomic import atomic_path

    written = []
    for rel, data in sorted(outcome.files.items()):
        target = Path(out_dir) / rel
        with atomic_path(target) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(data)
        written.append(rel)
    return written

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
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from ..gait.events import PSEUDO_FEET
from ..options import AnalysisOptions
from .outcome import TrialOutcome

__all__ = ["ReportOptions", "TrialOutcome", "process_trial", "trial_options", "pseudo_markers", "trial_events",
           "EVENT_SOURCES"]

CSV_DIGITS = 10

#: Plot choices of :class:`ReportOptions` (``--plots``).
PLOT_CHOICES = ("svg", "png", "none")

#: For tests only: seconds every trial sleeps before it starts, so that a test
#: can interrupt a batch or kill a worker while a trial is running.
TEST_DELAY_ENV = "HUMANBODY_TEST_TRIAL_DELAY"


@dataclass(frozen=True)
class ReportOptions(AnalysisOptions):
    """Options shared by every trial of a batch: the analysis options and the report's own.

    The analysis options are :class:`humanbody.options.AnalysisOptions`'
    (one name and meaning each); each trial's task overrides ``static``,
    ``mass``, ``height``, ``subject`` and gives the force file
    (:func:`trial_options`).  The report's own:

    Attributes
    ----------
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
    """

    treadmill_speed: float | None = None
    plots: str = "svg"
    kinetics: bool = True
    normative: str | None = None
    events: str = "auto"

    def __post_init__(self):
        super().__post_init__()
        if self.plots not in PLOT_CHOICES:
            raise InputError(f"plots must be one of {', '.join(PLOT_CHOICES)}, got {self.plots!r}")
        if self.events not in EVENT_SOURCES:
            raise InputError(f"events must be one of {', '.join(EVENT_SOURCES)}, got {self.events!r}")

    def as_dict(self) -> dict:
        from dataclasses import asdict

        return asdict(self)


def trial_options(task, options: ReportOptions) -> AnalysisOptions:
    """The analysis options of one trial of a batch: ``options`` with the task's (manifest row's) values.

    The task gives the static trial, the force file (used for the
    kinetics unless ``options.kinetics`` is False) and, when its row has
    them, the subject's mass, height and measurements file.
    """
    return options.analysis_only().replace(
        static=task.static,
        mass=task.mass if task.mass is not None else options.mass,
        height=task.height if task.height is not None else options.height,
        subject=task.subject if task.subject is not None else options.subject,
        forces=task.grf if options.kinetics else None,
    )


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




def trial_events(analysis, grf_path=None, force_threshold: float = 20.0, source: str = "auto"):
    """Gait events of an analysed trial and the points they came from.

    Parameters
    ----------
    analysis : Analysis         its ``events`` are the trial file's own (a C3D ``EVENT`` group), if any
    grf_path : str, optional    the trial's force file
    force_threshold : float     N, vertical force of foot contact
    source : str                which events cut the strides, per side (:data:`EVENT_SOURCES`):
                                "auto": the file's events when the side has at least two foot strikes
                                in them, else the force-plate events, else the kinematic ones;
                                "file", "force", "kinematic": that source only, a side without it
                                falling back as "auto" does without it (said in ``messages``)

    Returns
    -------
    events : DataFrame   kinematic events, plus force events when ``grf_path`` is given, plus the file's
    used : DataFrame     the events that define strides
    points : DataFrame   marker table the kinematic events came from
    feet, pelvis :       marker names used
    messages : list of str
    """
    if source not in EVENT_SOURCES:
        raise InputError(f"--events must be one of {', '.join(EVENT_SOURCES)}, not {source!r}")
    events, used, points, feet, pelvis, messages = _detected_events(analysis, grf_path, force_threshold)
    own = getattr(analysis, "events", None)
    if source == "auto" and (own is None or not len(own)):
        return events, used, points, feet, pelvis, messages
    events, used = _choose_events(events, used, own, source, messages)
    return events, used, points, feet, pelvis, messages


#: Choices of ``--events`` (:class:`ReportOptions` ``events``): which events cut the strides.
EVENT_SOURCES = ("auto", "file", "force", "kinematic")

_SOURCE_NAMES = {"file": "the file (its EVENT group)", "force": "the force plates",
                 "kinematic": "the markers (kinematic, Zeni et al. 2008)"}


def _sorted(table: pd.DataFrame, by) -> pd.DataFrame:
    return table.sort_values(by, kind="stable").reset_index(drop=True)


def _choose_events(events, used, own, source: str, messages: list):
    """The events table with the file's events added, and the events that cut each side's strides.

    ``used`` is what the force and kinematic events alone give (force events where the plates give them);
    the file's events replace a side's when it has at least two foot strikes in them ("auto", "file").
    """
    sides = ("right", "left")
    if own is None:
        own = events.iloc[:0]
    if len(own):
        events = _sorted(pd.concat([events, own], ignore_index=True), ["time", "source"])
    if source == "kinematic":
        used = events[events["source"] == "kinematic"].reset_index(drop=True)
    strikes = {s: int(((own["side"] == s) & (own["event"] == "foot_strike")).sum()) for s in sides}
    from_file = [s for s in sides if strikes[s] >= 2] if source in ("auto", "file") else []
    if from_file:
        used = _sorted(pd.concat([own[own["side"].isin(from_file)], used[~used["side"].isin(from_file)]],
                                 ignore_index=True), ["time", "side"])
    if len(own) and source in ("force", "kinematic"):
        messages.append(f"--events {source}: the file's {len(own)} gait events not used")
    parts = []
    for side in sides:
        mine = used[used["side"] == side]
        got = list(dict.fromkeys(mine["source"]))
        if source != "auto" and source not in got:
            why = (f"the file has {strikes[side]} foot strike(s) on it (2 needed)" if source == "file"
                   else f"no {source} events on it")
            messages.append(f"--events {source}: {side} side: {why}; its strides are cut at the "
                            f"{' and '.join(got) or 'no'} events")
        what = " and ".join(_SOURCE_NAMES.get(g, g) for g in got) or "nowhere (no events)"
        n_fs = int((mine["event"] == "foot_strike").sum())
        n_fo = int((mine["event"] == "foot_off").sum())
        parts.append(f"{side} from {what}: {n_fs} foot strikes, {n_fo} foot offs")
    messages.append("gait events cutting the strides: " + "; ".join(parts))
    return events, used


def events_source(used: pd.DataFrame) -> str:
    """``events_source`` of the summary: the source of the events that cut the strides; ``"right file,
    left kinematic"`` when the sides' differ and the file's are among them."""
    if not len(used):
        return "none"
    first = str(used["source"].iloc[0])
    if not (used["source"] == "file").any():
        return first
    per_side = {s: "+".join(dict.fromkeys(used.loc[used["side"] == s, "source"])) or "none"
                for s in ("right", "left")}
    if len(set(per_side.values())) == 1:
        return per_side["right"]
    return ", ".join(f"{s} {v}" for s, v in per_side.items())


def _detected_events(analysis, grf_path, force_threshold: float):
    """Kinematic and force events (:func:`trial_events` without the file's): ``(events, used, points,
    feet, pelvis, messages)``, ``used`` the force events where the plates give them, else kinematic."""
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
    loads = getattr(analysis, "loads", None)
    per_foot_file = False  # an OpenSim file with a plate per foot: its own samples time the events best
    if grf_path is not None and str(grf_path).lower().endswith((".mot", ".sto")):
        from ..io.forceplates import SIDE_PREFIXES

        try:
            with open(grf_path, encoding="utf-8", errors="replace") as fh:
                head = fh.read(65536)
            per_foot_file = all(f"{p}vy" in head for p in SIDE_PREFIXES.values())
        except OSError:
            per_foot_file = False
    if loads is not None and loads.body is not None and not per_foot_file:
        fe = _load_events(analysis, force_threshold)
        sides = [s for s in ("right", "left") if (fe["side"] == s).any()]
        messages.append(f"force events from the loads on each foot ({force_threshold:g} N threshold): {len(fe)}")
        events = pd.concat([kin, fe], ignore_index=True).sort_values(["time", "source"], kind="stable")
        events = events.reset_index(drop=True)
        strikes = {s: ((fe["side"] == s) & (fe["event"] == "foot_strike")).sum() for s in ("right", "left")}
        if all(strikes[s] >= 2 for s in ("right", "left")):
            used = fe
        elif sides:  # a side off the plates keeps its kinematic events
            used = pd.concat([fe[fe["side"].isin([s for s in sides if strikes[s] >= 2])],
                              kin[~kin["side"].isin([s for s in sides if strikes[s] >= 2])]], ignore_index=True)
            used = used.sort_values(["time", "side"], kind="stable").reset_index(drop=True)
        return events, used, points, feet, pelvis, messages
    if grf_path is not None:
        try:
            forces = _forces_as_read(analysis, grf_path)
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


def _forces_as_read(analysis, grf_path) -> pd.DataFrame:
    """The force file's plates as :func:`humanbody.gait.force_events` reads them: ``time`` and per plate
    ``<plate>_vx/_vy/_vz`` (N, the file's lab axes).

    The loads the analysis read from that file (the file's own samples) turned back from ground to lab
    axes by the trial's mapping (a signed permutation: the file's numbers exactly) when it has them,
    else the file read again.
    """
    table = getattr(analysis, "load_table", None)
    matrix = getattr(getattr(analysis, "axes", None), "matrix", None)
    if table is None or matrix is None or os.fspath(table.source) != os.fspath(grf_path):
        from ..io import read_trial

        return read_trial(grf_path)
    lab = table.force @ np.asarray(matrix, dtype=float)  # ground = matrix @ lab
    columns = {"time": table.time}
    for j, name in enumerate(table.names):
        for i, a in enumerate("xyz"):
            columns[f"{name}_v{a}"] = lab[:, j, i]
    frame = pd.DataFrame(columns)
    frame.attrs.update(kind="forces", source=os.fspath(grf_path))
    return frame


def _foot_load(analysis) -> dict:
    """Vertical load (N) on each foot per frame from the assigned loads; a plate two feet share counts for both."""
    loads, model = analysis.loads, analysis.model
    out = {}
    for side in ("right", "left"):
        name = f"{side}_foot"
        if name not in model.names:
            continue
        k = model.names.index(name)
        on = loads.body == k
        if loads.shared is not None:
            on = on | (loads.shared == k).any(axis=2)
        out[side] = np.where(on, loads.force[..., 2], 0.0).sum(axis=1)
    return out


def _raw_foot_load(analysis) -> tuple[np.ndarray, dict] | None:
    """Each foot's vertical load at the force file's own samples (not filtered): every sample takes the
    assignment of the nearest frame.  None when the loads do not carry their samples."""
    loads, model = analysis.loads, analysis.model
    if getattr(loads, "raw_time", None) is None or loads.raw_fz is None:
        return None
    time = analysis.results.time
    t = loads.raw_time
    inside = (t >= time[0]) & (t <= time[-1])
    t, fz = t[inside], loads.raw_fz[inside]
    i = np.clip(np.searchsorted(time, t), 1, len(time) - 1)
    nearest = np.where(np.abs(t - time[i - 1]) <= np.abs(time[i] - t), i - 1, i)
    out = {}
    for side in ("right", "left"):
        name = f"{side}_foot"
        if name not in model.names:
            continue
        k = model.names.index(name)
        on = loads.body[nearest] == k
        if loads.shared is not None:
            on = on | (loads.shared[nearest] == k).any(axis=2)
        # a sample just before the first loaded frame of a contact: its nearest frame is not yet loaded
        out[side] = np.where(on | (loads.body[nearest] == -1) & _near_foot(loads, nearest, k), fz, 0.0).sum(axis=1)
    return t, out


def _near_foot(loads, nearest, k) -> np.ndarray:
    """Samples whose load is unassigned at the nearest frame but assigned to foot ``k`` one frame on or back."""
    F = loads.body.shape[0]
    after = loads.body[np.minimum(nearest + 1, F - 1)] == k
    before = loads.body[np.maximum(nearest - 1, 0)] == k
    return after | before


def _load_events(analysis, threshold: float) -> pd.DataFrame:
    """Foot strikes and offs where each foot's assigned vertical load crosses ``threshold``
    (one plate under both feet, a treadmill: the assignment tells the feet apart), at the force
    file's own samples when the loads carry them."""
    from ..gait import force_events

    time = analysis.results.time
    raw = _raw_foot_load(analysis)
    t, per_foot = raw if raw is not None else (time, _foot_load(analysis))
    cols = {"time": t}
    for side, fz in per_foot.items():
        cols[f"{side}_vx"], cols[f"{side}_vy"], cols[f"{side}_vz"] = 0.0 * fz, 0.0 * fz, fz
    table = pd.DataFrame(cols)
    sides = {s: f"{s}_" for s in ("right", "left") if f"{s}_vz" in table.columns}
    return force_events(table, threshold=threshold, plates=sides, vertical="z", frame_times=time,
                        min_duration=0.03)


#: Fraction of a stance's frames that must carry a load on the foot for the stance to count as measured
#: (kinematic events time a stance less exactly than the plate does; a stance off the plates carries none).
MEASURED_STANCE = 0.5


def unloaded_stance(analysis, events) -> dict:
    """Per side, the frames (bool, F) of the stances that were not measured: between a strike and the next off
    of the events that define strides, fewer than :data:`MEASURED_STANCE` of the frames carry a load on the
    foot (the foot stood off the plates).  The side's kinetics there are not known."""
    from ..gait import events_of

    time = analysis.results.time
    dt = float(np.median(np.diff(time))) if len(time) > 1 else 0.0
    out = {}
    for side, fz in _foot_load(analysis).items():
        gap = np.zeros(len(time), dtype=bool)
        offs = events_of(events, side, "foot_off")
        for t0 in events_of(events, side, "foot_strike"):
            later = offs[offs > t0]
            t1 = later[0] if len(later) else time[-1]
            stance = (time >= t0) & (time <= t1)
            if stance.any() and np.mean(fz[stance] > 0.0) < MEASURED_STANCE:
                # from two frames after the strike: the stride that ends at this strike keeps its last point
                gap |= stance & (time > t0 + 2.0 * dt)
        out[side] = gap
    return out


def _kinetic_stride_notes(cycles: pd.DataFrame, params: pd.DataFrame) -> list:
    """One line per side whose strides all lack a known load somewhere in stance: why its kinetic curves and
    peaks are empty (both feet on one plate in double support, or a foot beside the plates)."""
    out = []
    for side in ("right", "left"):
        strides = params.loc[side, "n_strides"] if side in params.index and "n_strides" in params else 0
        rows = cycles[(cycles["side"] == side) & cycles["variable"].str.endswith("_moment_Nm_per_kg")]
        if len(rows) and strides and not (rows["n_strides"] > 0).any():
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


def _csv_bytes(table: pd.DataFrame) -> bytes:
    """The table as CSV text, numbers with CSV_DIGITS significant digits (:func:`humanbody.io.writers.table_csv_bytes`)."""
    from ..io.writers import table_csv_bytes

    return table_csv_bytes(table, CSV_DIGITS)


#: Arrow schemas (with pandas' metadata) of the tables :func:`_parquet_bytes` wrote, by column names and
#: dtypes: the trials of a batch share them, and pandas' conversion takes most of the writing time.
_PARQUET_SCHEMAS: dict = {}


def _parquet_bytes(table: pd.DataFrame) -> bytes:
    """The table as Parquet (every bit; a tenth of the CSV's formatting time for a table read by programs).

    The file of ``pyarrow.Table.from_pandas(table, preserve_index=False)``: the first table of a layout
    is converted by pandas' route, the next ones of the same column names and dtypes column by column
    into the schema (and pandas metadata) of the first.
    """
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    dtypes = table.dtypes.tolist()
    # a layout whose Arrow types the dtypes alone decide (not object columns: their values do)
    fixed = len(table) > 0 and isinstance(table.index, pd.RangeIndex) and all(
        dt.kind in "fiu" if isinstance(dt, np.dtype) else isinstance(dt, pd.StringDtype) for dt in dtypes)
    key = (tuple(map(str, table.columns)), tuple(map(str, dtypes)))
    schema = _PARQUET_SCHEMAS.get(key) if fixed else None
    if schema is None:
        arrow = pa.Table.from_pandas(table, preserve_index=False)
        if fixed and len(_PARQUET_SCHEMAS) < 8:
            _PARQUET_SCHEMAS[key] = arrow.schema
    else:
        columns = []
        for i, fld in enumerate(schema):
            col = table.iloc[:, i]
            values = col.to_numpy() if isinstance(col.dtype, np.dtype) else col.array
            columns.append(pa.array(values, type=fld.type, from_pandas=True))  # NaN -> null, as pandas does
        arrow = pa.Table.from_arrays(columns, schema=schema)
    buf = io.BytesIO()
    pq.write_table(arrow, buf)
    return buf.getvalue()


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
    from ..gait import angle_peaks, flatten, kinetic_peaks, normalize_cycles, spatiotemporal
    from ..gait.cycles import stride_table
    from ..pipeline import analyze_trial
    from . import html

    opts = trial_options(task, options)
    run = dict(progress=False, calibration_cache=_CALIBRATIONS)
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
    events, used, points, feet, pelvis, ev_msgs = trial_events(analysis, task.grf, options.force_threshold,
                                                               options.events)
    messages += ev_msgs
    speed = task.treadmill_speed if task.treadmill_speed is not None else options.treadmill_speed
    params = spatiotemporal(used, points, feet=feet, pelvis=pelvis, treadmill_speed=speed)
    if "note" in params.attrs:
        messages.append(params.attrs["note"])
    kinetics = analysis.kinetics
    if kinetics is not None:  # a side's kinetics while its foot stands off the plates are not known
        for side, gap in unloaded_stance(analysis, used).items():
            if gap.any():
                cols = [c for c in kinetics.columns if c.startswith(f"{side}_")]
                kinetics.loc[gap, cols] = np.nan
    table = pd.concat([analysis.results.to_dataframe(), analysis.clinical]
                      + ([kinetics] if kinetics is not None else []), axis=1)
    cycles = normalize_cycles(table, used)
    if kinetics is not None:
        messages.append(_residual_line(kinetics, analysis.model))
        messages += _kinetic_stride_notes(cycles, params)

    exported = used[used["source"] != "file"] if (used["source"] == "file").any() else used  # the C3D has them
    produced, export_notes = _analysis_files(analysis, stem, options.export, exported, options.opensim_feet)
    messages += export_notes
    files = {f"{task.key}/{name}": data for name, data in produced.items()}
    files[f"{task.key}/{stem}_events.csv"] = _csv_bytes(events)
    files[f"{task.key}/{stem}_spatiotemporal.csv"] = _csv_bytes(params.reset_index())
    files[f"{task.key}/{stem}_cycles.csv"] = _csv_bytes(cycles)
    files[f"{task.key}/{stem}_strides.parquet"] = _parquet_bytes(stride_table(table, used))  # read by compare
    row = dict(base, status="ok", events_source=events_source(used))
    row.update(flatten(params))
    row.update(angle_peaks(cycles, params))
    row.update(kinetic_peaks(cycles, params))
    normative, gps = _normative_scores(options, task, analysis, row, cycles, messages)
    figures = _figures(options.plots, stem, cycles, params, normative, gps, kinetics is not None,
                       points, events, feet, pelvis)
    for name, fig in figures.items():
        if isinstance(fig, bytes):  # PNG files; SVG figures live in the page only
            files[f"{task.key}/{name}"] = fig
    page = html.trial_page(task, row, params, events, figures, messages,
                           links=[Path(p).name for p in files if p.endswith((".csv", ".json"))],
                           gps=gps)
    files[f"{task.key}/{stem}.html"] = page.encode("utf-8")
    return TrialOutcome(task.key, row, files, messages)


#: Normative sets read in this process, by ``--normative`` value (a worker reads its set once).
_NORMATIVE_SETS: dict = {}


def normative_set(spec: str | None):
    """The normative set of ``--normative`` (None: built-in; "none": no normative data), read once per process."""
    if spec is not None and spec.strip().lower() == "none":
        return None
    from ..gait.normative import load_normative

    key = spec or ""
    if key not in _NORMATIVE_SETS:
        _NORMATIVE_SETS[key] = load_normative(spec)
    return _NORMATIVE_SETS[key]


def _normative_scores(options: ReportOptions, task, analysis, row: dict, cycles, messages: list):
    """Choose the normative condition, add the GPS columns to ``row``; return (table or None, gps dict or None)."""
    from ..gait.gps import gait_profile_score, gait_variable_scores
    from ..gait.normative import leg_length_from_height
    from ..pipeline import DEFAULT_HEIGHT

    nset = normative_set(options.normative)
    if nset is None:
        return None, None
    height = next((h for h in (task.height, options.height, getattr(analysis.calibration, "height", None))
                   if h is not None), DEFAULT_HEIGHT)
    speed = row.get("speed_m_per_s")
    speed = float(speed) if speed is not None and np.isfinite(speed) else None
    cond, table, note = nset.select(speed, leg_length_from_height(height))
    scores = gait_variable_scores(cycles, table)
    summary = gait_profile_score(scores)
    row["normative"] = f"{nset.name} {cond}"
    row.update(summary)
    messages.append(f"normative data {nset.name} ({nset.source}), {note}; Gait Profile Score "
                    f"{summary['gait_profile_score_deg']:.1f} deg (right "
                    f"{summary['right_gait_profile_score_deg']:.1f}, left {summary['left_gait_profile_score_deg']:.1f})")
    return table, {"scores": scores, "summary": summary, "name": f"{nset.name} {cond}"}


def _figures(plots: str, stem: str, cycles, params, normative, gps, with_kinetics: bool, points, events,
             feet, pelvis) -> dict:
    """The trial's figures, name -> SVG text (``svg``) or PNG bytes (``png``); {} for ``none``."""
    if plots == "none":
        return {}
    from ..gait.gps import GPS_VARIABLES
    from .panels import ANGLE_PANELS, KINETIC_PANELS, MECHANICS_PANELS, cycle_panels, event_traces, foot_off_percent

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
        from . import plots as png  # matplotlib: imported only when PNG figures are drawn

        figs = {f"{stem}_angles.png": png.angles_figure(cycles, title=stem, normative=normative, foot_off=foot_off)}
        if gps:
            figs[f"{stem}_gps.png"] = png.map_figure(gps["scores"], GPS_VARIABLES, labels, gps_values, gps_title)
        if with_kinetics:
            figs[f"{stem}_kinetics.png"] = png.kinetics_figure(cycles, title=stem, normative=normative,
                                                               foot_off=foot_off)
        figs[f"{stem}_mechanics.png"] = png.mechanics_figure(cycles, title=stem, foot_off=foot_off)
        figs[f"{stem}_events.png"] = png.events_figure(points, events, feet=feet, pelvis=pelvis, title=stem)
        return figs
    from . import svg

    figs = {f"{stem}_angles.svg": svg.grid_svg(cycle_panels(cycles, ANGLE_PANELS, normative, foot_off),
                                               f"{stem}: joint angles over the stride".strip(": "))}
    if gps:
        figs[f"{stem}_gps.svg"] = svg.map_svg(gps["scores"], GPS_VARIABLES, labels, gps_values, gps_title)
    if with_kinetics:
        figs[f"{stem}_kinetics.svg"] = svg.grid_svg(cycle_panels(cycles, KINETIC_PANELS, normative, foot_off),
                                                    f"{stem}: kinetics over the stride".strip(": "))
    figs[f"{stem}_mechanics.svg"] = svg.grid_svg(cycle_panels(cycles, MECHANICS_PANELS, None, foot_off),
                                                 f"{stem}: mass centre and inertia loads".strip(": "))
    series, marks = event_traces(points, events, feet, pelvis)
    square = ", square: file" if any(m[4] == "file" for m in marks) else ""
    figs[f"{stem}_events.svg"] = svg.events_svg(
        series, marks, f"{stem}: gait events (filled: foot strike, open: foot off; triangle: kinematic, "
                       f"circle: force{square})".strip(": "))
    return figs


def write_outcome_files(outcome: TrialOutcome, out_dir) -> list[str]:
    """Write the outcome's files under ``out_dir`` atomically; return their relative paths."""
    from ..atomic import atomic_path

    written = []
    for rel, data in sorted(outcome.files.items()):
        target = Path(out_dir) / rel
        with atomic_path(target) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(data)
        written.append(rel)
    return written

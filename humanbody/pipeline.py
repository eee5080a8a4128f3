"""One trial from file to mechanics: :func:`analyze_trial`, a short chain of named stages.

:func:`analyze_trial` is what ``humanbody analyze``, the batch report and
the viewer run for one trial file, with one
:class:`~humanbody.options.AnalysisOptions`.  Its stages are functions of
values: each takes the values the stages before it gave (a
:class:`~humanbody.trial.Trial`, a :class:`TrialSubject`, a :class:`Conditioned`
trial, a calibration, ...) with the options, gives its own, and appends what
it did to the :class:`Log`:

=============  ======================================================================
read           :func:`read` -> :class:`~humanbody.trial.Trial`: markers in ground axes
               (:func:`humanbody.lab.axes.to_ground`) and the force plates under
               the same mapping (:meth:`humanbody.trial.Trial.read`)
subject        :func:`subject` -> :class:`TrialSubject` (mass, height, sex, subject file), and
               :func:`subject_model`: the given or scaled model (None: the calibration scales it)
condition      :func:`condition` -> :class:`Conditioned`: marker set, gap filling, low-pass
               filter (:func:`humanbody.markers.conditioning.condition`), functional hips
calibrate      :func:`calibrate_model`: the subject's model from the static trial
               (:func:`humanbody.markers.calibration.calibrate`)
track          :func:`track`: generalized coordinates from the markers (segment fits
               or whole-body IK), or :func:`orientations` for IMU trials
rates          :func:`rates` -> :class:`~humanbody.mechanics.kinematics.Motion`: first and second
               derivatives (:func:`humanbody.mechanics.kinematics.prepare_motion`)
mechanics      :func:`mechanics` -> :class:`Analysis`, holding the Trial; its
               :class:`~humanbody.mechanics.results.Results` computed on first use
loads          :func:`apply_loads`: external loads conditioned and given to segments
               (:func:`humanbody.mechanics.loads.condition_loads`, :func:`~humanbody.mechanics.foot_contact.assign_loads`)
kinetics       :attr:`Analysis.kinetics` (:func:`humanbody.mechanics.kinetics.kinetic_block`)
clinical       :attr:`Analysis.clinical` (:func:`humanbody.mechanics.clinical.clinical_angles`)
write          :func:`humanbody.trial_output.write`: the mechanics and kinetics computed
               frame range by range
=============  ======================================================================

Every stage reports what it did in ``Analysis.messages`` (conversions, the
axes mapping, filled gaps, the marker set, how rates were obtained).
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .checks.edges import edge_line, edge_note
from .checks.force_clock import check_force_clock
from .checks.force_timing import check_force_timing
from .checks.imu_still import check_still_window
from .checks.mass import plates_mass, stated_mass
from .checks.outputs import carried_findings
from .checks.plates import assignment_line
from .checks.static_fit import check_static_fit
from .errors import EDGES, IGNORED, INPUT, LOADS, METHOD, NOTE, ROUTINE, SETUP, InputError, Note, priority_of
from .imu.calibration import parse_heading
from .imu.coordinates import orientations_to_coordinates
from .io.c3d_processing import read_processing
from .io.subject import Subject as SubjectFile
from .lab.axes import parse_axes

# Imported on use, each where its branch runs: the force plates' modules (io.forceplates, mechanics.loads,
# mechanics.foot_contact), the subject file's reader (io.subject.read_subject) and the residual reduction
# (mechanics.reduction): 45-55 ms of imports (CPU, measured after the rest of this module's) that a trial
# without plates, subject file or --reduce-residuals never needs.
from .markers.calibration import Calibration
from .markers.calibration import calibrate as calibrate_markers
from .markers.conditioning import condition as condition_markers
from .markers.functional_joint import functional_hips
from .markers.gaps import FILL_METHODS
from .markers.global_ik import LIMIT_TABLES, choose_method, joint_limits, track_global
from .markers.markerset import (
    MarkerSet,
    detect_markerset,
    match_markers,
    resolve_markerset,
    undetermined_segments,
)
from .markers.plausibility import check_lengths
from .markers.tracking import STATUS, Tracking
from .markers.tracking import track as track_segments
from .mechanics.body_mass import scaled_model
from .mechanics.clinical import ANGLE_ZEROS, clinical_angles
from .mechanics.kinematics import Motion, compute_motion, prepare_motion, spaced_rates
from .mechanics.kinetics import kinetic_block, kinetic_columns
from .mechanics.moment_frames import MOMENT_FRAMES, moment_frame, moment_frame_note, with_moment_frame
from .mechanics.results import Results
from .model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS, check_sex, validate_subject
from .model.body import BodyModel, load_model
from .model.segments import SEGMENT_NAMES
from .options import EXPORT_FORMATS, IK_METHODS, MARKERSET_CUTOFF, AnalysisOptions, parse_export, parse_feet
from .signal import CUTOFF_HZ
from .signal.differentiate import Differentiation
from .trial import Trial, load_forces

if TYPE_CHECKING:  # imported on use (see above)
    from .mechanics.loads import FrameLoads

__all__ = ["Analysis", "AnalysisOptions", "Conditioned", "LEVELS", "STAGES", "Log", "Record", "TrialSubject", "analyze_trial",
           "checked", "DEFAULT_MASS", "DEFAULT_HEIGHT", "read", "subject", "subject_model", "condition", "calibrate_model",
           "track", "orientations", "rates", "mechanics", "apply_loads", "weigh", "reduce"]


#: The levels of a :class:`Record`: ``message`` for the user (a screenful; printed by ``humanbody analyze``),
#: ``detail`` for ``--verbose`` and the log file (per marker, per gap), ``warning`` an output check's finding
#: (:mod:`humanbody.checks.outputs`; the write stage adds each to the user's lines once).
LEVELS = ("message", "detail", "warning")

#: The stages a :class:`Record` comes from, in the order :func:`analyze_trial` runs them (the module's table):
#: "calibrate" is :func:`calibrate_model`, "loads" :func:`apply_loads`, "mass" :func:`weigh`, "reduce"
#: :func:`reduce`; "write" and "export" are the writer's (:func:`humanbody.trial_output.write_results`).
STAGES = ("read", "subject", "condition", "calibrate", "track", "rates", "loads", "mass", "reduce", "write", "export")


@dataclass(frozen=True)
class Record:
    """One thing a stage said: its ``level`` (:data:`LEVELS`), the ``stage`` that said it (:data:`STAGES`), the ``message``
    (one line, as printed and written to ``<trial>_log.txt``) and its ``priority`` on the first screen of
    ``humanbody analyze`` (:class:`humanbody.errors.Note`: the lowest are left to the log file first; ``NOTE``,
    the default, never)."""

    level: str
    stage: str
    message: str
    priority: int = NOTE


class Log:
    """What the stages of one analysis say, in order: a list of :class:`Record` (level, stage, message).

    ``messages`` (the ``message`` lines: the screenful ``humanbody analyze`` prints and the log file starts with),
    ``details`` (``--verbose`` and the log file) and ``warnings`` (the output checks' findings) are read from
    the records.  The one thing the stages share: each adds its records with :meth:`add`, never edits one.
    """

    def __init__(self, records=()) -> None:
        self.records: list[Record] = list(records)
        #: the frames at the trial's ends whose rates are estimates (:func:`humanbody.checks.edges.edge_note`),
        #: set by the stage "rates"; None when every frame's rates have data on both sides
        self.edges: dict | None = None

    def add(self, level: str, stage: str, *lines: str, priority: int = NOTE) -> None:
        """Add one record per line of ``lines``, each at ``level`` from ``stage``.

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.
        stage : str
            The stage that speaks, one of :data:`STAGES`.
        *lines : str
            One record each, in order; a :class:`humanbody.errors.Note` brings its own priority.
        priority : int
            The records' priority on the first screen (a Note's own wins): ``NOTE``, the default, is never
            left off; lower ones (``humanbody.errors.FILTERING`` ... ``EDGES``) go to the log file alone first.
        """
        if level not in LEVELS:
            raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
        if stage not in STAGES:
            raise ValueError(f"log stage must be one of {', '.join(STAGES)}, not {stage!r}")
        self.records += [Record(level, stage, str(line), priority_of(line, priority)) for line in lines]

    def message(self, stage: str, *lines: str, priority: int = NOTE) -> None:
        """Lines for the user (:meth:`add` at level ``message``, at ``priority`` on the first screen).

        Parameters
        ----------
        stage : str
        *lines : str
        priority : int
        """
        self.add("message", stage, *lines, priority=priority)

    def detail(self, stage: str, *lines: str) -> None:
        """Lines for ``--verbose`` and the log file (:meth:`add` at level ``detail``).

        Parameters
        ----------
        stage : str
        *lines : str
        """
        self.add("detail", stage, *lines)

    def warning(self, stage: str, *lines: str) -> None:
        """Output checks' findings (:meth:`add` at level ``warning``).

        Parameters
        ----------
        stage : str
        *lines : str
        """
        self.add("warning", stage, *lines)

    def at(self, level: str) -> tuple[Record, ...]:
        """The records at ``level``, in order (``humanbody analyze`` screens them by their priority).

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.

        Returns
        -------
        tuple of Record
        """
        return tuple(r for r in self.records if r.level == level)

    def lines(self, level: str) -> tuple[str, ...]:
        """The messages of the records at ``level``, in order (a tuple: add lines with :meth:`add`).

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.

        Returns
        -------
        tuple of str
        """
        return tuple(r.message for r in self.records if r.level == level)

    @property
    def messages(self) -> tuple[str, ...]:
        """The lines for the user (level ``message``), in order; read only (:meth:`message` adds one)."""
        return self.lines("message")

    @property
    def details(self) -> tuple[str, ...]:
        """The lines for ``--verbose`` and the log file (level ``detail``), in order; read only (:meth:`detail`)."""
        return self.lines("detail")

    @property
    def warnings(self) -> tuple[str, ...]:
        """The output checks' findings (level ``warning``), each once, in order; read only (:meth:`warning`)."""
        return tuple(dict.fromkeys(self.lines("warning")))

    def text(self) -> str:
        """The log file's text: the messages, a blank line, ``details:`` and the details, one per line.

        Returns
        -------
        str
        """
        return "\n".join((*self.messages, "", "details:", *self.details)) + "\n"


@dataclass(frozen=True)
class TrialSubject:
    """The subject of one trial, as the options, the subject file and the plates give it.

    Attributes
    ----------
    mass : float or None          kg: ``options.mass``, else the subject file's; None: not known
    height : float or None        m: ``options.height``, else the subject file's
    sex : str                     "male" or "female" (the anthropometric table)
    file : io.subject.Subject or None   the subject file's measurements (:func:`humanbody.io.subject.read_subject`)
    mass_from_plates : bool       no mass given: the loads stage estimates it from the plates
    """

    mass: float | None = None
    height: float | None = None
    sex: str = "male"
    file: SubjectFile | None = None
    mass_from_plates: bool = False

    @property
    def calibration_mass(self) -> float:
        """The mass a calibration scales the model to (kg): the subject's, else :data:`DEFAULT_MASS`."""
        return DEFAULT_MASS if self.mass is None else float(self.mass)


@dataclass(frozen=True)
class Conditioned:
    """A marker trial after the stage "condition": the markers the set uses, gaps filled, filtered.

    Attributes
    ----------
    trial : Trial                 the conditioned trial (ground axes; forces, events and log of the trial as read)
    markerset : MarkerSet         the trial's marker set (with functional hip centres from a hip trial)
    found : dict                  the set's marker names -> the trial's
    required : list of str        the set's required markers the trial has
    cutoff_hz : float or None     the marker filter's cut-off actually used (Hz; the one chosen under
                                  ``"auto"``); None: not filtered
    """

    trial: Trial
    markerset: MarkerSet
    found: dict
    required: list
    cutoff_hz: float | None

    @cached_property
    def markers(self) -> pd.DataFrame:
        """The conditioned markers as a table in ground axes (a view of ``trial``'s array, no copy), made once:
        the calibration, the tracking and the Analysis share it."""
        return self.trial.to_frame("ground")


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything known about one analysed trial: a value (frozen); a stage that changes it gives a new one.

    Attributes
    ----------
    trial : Trial                      the trial as analysed (:class:`humanbody.trial.Trial`): a marker
                                       trial's conditioned markers in ground axes (only its time base once
                                       the markers are let go, ``keep_markers=False``), with its force plates,
                                       events, axes mapping and the reader's attrs
    coords : DataFrame                 generalized coordinates (layout of docs/conventions.md, rad)
    model : BodyModel                  the model used (calibrated when a static trial was given)
    motion : Motion                    coordinates with their rates, ready for the kernel
    options : AnalysisOptions          the options it was made with; :func:`humanbody.trial_output.write_results`
                                       writes the exports they name (``export``, ``opensim_feet``)
    markers : DataFrame or None        marker trajectories in ground axes after conditioning
    calibration : Calibration or None  static calibration (marker trials)
    tracking : Tracking or None        tracking result with residuals (marker trials)
    log : Log                          what each stage said (:class:`Record`: level, stage, message)
    loads : FrameLoads or None         external loads on the frames, assigned to segments (--forces)
    raw : DataFrame or None            the marker trial as read (lab axes), kept when asked (for export)
    computed : Results or None         the mechanics of every frame when a stage computed them already (the
                                       loads' assignment); else :attr:`results` computes them on first use

    Read from the trial: ``source`` (the trial file), ``axes`` (its lab -> ground
    mapping), ``events`` (gait events the file carries, :attr:`humanbody.trial.Trial.events`;
    None when it has none, the report then finds them), ``load_table`` (the loads as
    read, ground axes, the file's own rate).
    """

    trial: Trial
    coords: pd.DataFrame
    model: BodyModel
    motion: Motion
    options: AnalysisOptions = field(default_factory=AnalysisOptions)
    markers: pd.DataFrame | None = None
    calibration: Calibration | None = None
    tracking: Tracking | None = None
    log: Log = field(default_factory=Log)
    loads: FrameLoads | None = None
    raw: pd.DataFrame | None = None
    computed: Results | None = field(default=None, repr=False)

    def replace(self, **changes) -> Analysis:
        """A new Analysis with ``changes`` (field name -> value).  Its mechanics and clinical angles are
        computed anew on first use, unless ``computed`` is given, when ``model``, ``motion`` or ``coords``
        change; else the ones computed already are kept.

        Parameters
        ----------
        **changes
            Field name -> value.

        Returns
        -------
        Analysis
        """
        if "computed" not in changes:
            changes["computed"] = None if {"model", "motion", "coords"} & set(changes) else self.held_results
        out = replace(self, **changes)
        if "clinical" in self.__dict__ and not {"model", "coords", "calibration", "options"} & set(changes):
            out.__dict__["clinical"] = self.__dict__["clinical"]
        return out

    @property
    def angle_zero(self) -> str:
        """Zero of the clinical angles: ``options.angle_zero``, "anatomical" (default) or "static"."""
        return self.options.angle_zero

    @property
    def source(self) -> str:
        """The trial file."""
        return self.trial.source

    @property
    def axes(self):
        """The lab -> ground :class:`~humanbody.lab.axes.AxesMapping` of a marker trial, else None."""
        return self.trial.axes

    @property
    def events(self) -> pd.DataFrame | None:
        """Gait events the trial file carries (a C3D file's ``EVENT`` group, ``source`` "file"); None without."""
        return self.trial.events

    @property
    def load_table(self):
        """The loads as read (:class:`~humanbody.io.loads.LoadTable`, ground axes, the file's own rate), or None."""
        return self.trial.forces

    @property
    def messages(self) -> tuple[str, ...]:
        """What each stage did, for the user (the log's ``messages``, read only; the write stage and exports add to
        the log)."""
        return self.log.messages

    @property
    def details(self) -> tuple[str, ...]:
        """Per-marker and per-gap details (``--verbose``, and the log file; read only)."""
        return self.log.details

    @property
    def kinetics(self) -> pd.DataFrame | None:
        """The kinetic columns (docs/conventions.md) as a table, when external loads were given; else None."""
        if self.loads is None:
            return None
        return pd.DataFrame(kinetic_block(self.model, self.results, self.loads),
                            columns=kinetic_columns(self.model))

    @cached_property
    def clinical(self) -> pd.DataFrame:
        """Clinical joint angles (degrees, one row per frame; :func:`humanbody.mechanics.clinical.clinical_angles`).

        Zero as ``angle_zero`` says: between the anatomical segment frames
        (default), or in the calibration pose (``"static"``; the upper limbs
        in the reference posture).  Computed on first access, then kept.
        """
        return clinical_angles(self.model, self.coords, self.calibration, zero=self.angle_zero)

    @property
    def angles(self) -> pd.DataFrame:
        """``time`` (s) and the clinical joint angles (deg), one row per frame (:attr:`clinical` with its time)."""
        out = self.clinical.copy()
        out.insert(0, "time", self.coords["time"].to_numpy())
        return out

    @property
    def moments(self) -> pd.DataFrame | None:
        """``time`` (s), the clinical joint moments (N·m/kg) and powers (W/kg), one row per frame; None without
        external loads (``forces``)."""
        kin = self.kinetics
        if kin is None:
            return None
        cols = [c for c in kin.columns if c.endswith(("_moment_Nm_per_kg", "_power_W_per_kg"))]
        out = kin[cols].copy()
        out.insert(0, "time", self.coords["time"].to_numpy())
        return out

    @cached_property
    def results(self) -> Results:
        """The mechanics of every frame (``computed``, else computed on first access, then kept).

        A long trial written by :func:`humanbody.trial_output.write_results` never needs them all at
        once: it is evaluated range by range from ``motion``.
        """
        if self.computed is not None:
            return self.computed
        return compute_motion(self.model, self.motion)

    @property
    def held_results(self) -> Results | None:
        """The mechanics of every frame when they were computed already (by a stage, or :attr:`results`), else
        None: :func:`humanbody.trial_output.write_results` then computes them range by range."""
        return self.__dict__.get("results", self.computed)

    @property
    def n_frames(self) -> int:
        return self.motion.n_frames

    @property
    def stem(self) -> str:
        """File stem used for output names."""
        return Path(self.source).stem

    @property
    def residuals(self) -> pd.DataFrame | None:
        """Per-frame tracking residuals (m) by segment, when markers were tracked."""
        return None if self.tracking is None else self.tracking.residuals


def analyze_trial(path, options: AnalysisOptions | None = None, *, progress: bool = False,
                  keep_markers: bool = True, calibration_cache: dict | None = None, keep_raw: bool | None = None,
                  **overrides: Any) -> Analysis:
    """Analyse one trial file (markers, generalized coordinates or orientations).

    A chain of the stages, functions of this module taking and giving values
    (the module's docstring lists them); :func:`humanbody.trial_output.write` writes the files.

    Parameters
    ----------
    path : str or Path
        Trial file: marker TRC/C3D/CSV/TSV, a generalized-coordinates CSV or
        an orientation trial (OpenSense ``.sto``, Xsens ``.mvnx``).
    options : AnalysisOptions, optional
        Every analysis choice (:class:`humanbody.options.AnalysisOptions`);
        default: ``AnalysisOptions()``.
    progress : bool
        Show a progress bar over the stages (long trials, on a terminal).
    keep_markers : bool
        Keep the conditioned markers (``Analysis.markers``, ``Analysis.trial``;
        the viewer draws them); ``humanbody analyze`` lets them go once the
        segments are tracked, 24 bytes per marker and frame less to hold while
        the results are written (kept when the trial carries gait events).
    calibration_cache : dict, optional
        Calibrations already made, reused when the same static trial (by
        content: a SHA-256 of the file's bytes) is calibrated again with the
        same axes, marker set and subject (a batch of one subject's trials).
        Filled as a side effect; the results are exactly those of a new calibration.
    keep_raw : bool, optional
        Keep the marker trial as read in ``Analysis.raw`` (an export writes
        it again instead of reading the file twice); default: when
        ``options.export`` names a format.
    **overrides
        Any :class:`~humanbody.options.AnalysisOptions` field by name
        (``static=``, ``mass=``, ``forces=``, ...), applied over ``options``:
        ``analyze_trial("walk.trc", static="static.trc", mass=72.6)``.
        An unknown name is a TypeError.

    Returns
    -------
    Analysis
    """
    path, log = os.fspath(path), Log()
    opts = checked(options_with(options, overrides), path)
    steps = _Progress(progress, path)
    file = _subject_file(opts.subject, log)
    trial = read(path, opts, log)
    if file is None and trial.kind == "markers":
        file = _processing_subject(path, opts, log)
    steps.advance("read")
    subj = subject(trial, opts, log, file)
    model = subject_model(subj, opts, log)
    cutoff_hz = _loads_cutoff(opts.cutoff_hz)  # a marker trial's: the one its markers were filtered at
    calibration = tracking = markers = raw = None
    if trial.kind == "markers":  # humanbody.trial.load_trial takes no other kind
        raw = trial.to_frame() if (bool(opts.export) if keep_raw is None else keep_raw) else None
        conditioned = condition(trial, opts, log, height=subj.height)
        del trial  # the trial as read is let go here: the conditioned markers live on in `conditioned`
        steps.advance("condition")
        calibration = calibrate_model(conditioned, opts.static, subj, opts, log, calibration_cache)
        tracking = track(conditioned, calibration, opts, log)
        trial, markers = _kept(conditioned, keep_markers or (opts.reduce_residuals and conditioned.trial.forces
                                                             is not None))
        model = calibration.model if opts.model is None else model  # the given model file wins
        coords, cutoff_hz = tracking.coords, conditioned.cutoff_hz
        del conditioned  # the markers, unless kept
    else:
        model = _default_model(model, opts, log)
        coords = trial.to_frame() if trial.kind == "coordinates" else orientations(trial, model, opts, log)
        steps.advance("condition")
    steps.advance("track")
    model = _in_moment_frame(model, opts, log, plates=trial.forces is not None)
    motion = rates(model, coords, opts, log, path)
    if tracking is not None:
        log.detail("track", *[f"tracking: {line}" for line in tracking.summary()])
    analysis = mechanics(trial, model, coords, motion, opts, log, markers=markers, calibration=calibration,
                         tracking=tracking, raw=raw)
    if trial.forces is not None:
        analysis = weigh(apply_loads(analysis, opts, log, cutoff_hz), subj, opts, log)
    if opts.reduce_residuals:
        analysis = reduce(analysis, log, keep_markers)
    steps.advance("compute")
    steps.close()
    return analysis


def options_with(options: AnalysisOptions | None, overrides: dict) -> AnalysisOptions:
    """``options`` (default ``AnalysisOptions()``) with the keyword ``overrides`` applied.

    Parameters
    ----------
    options : AnalysisOptions or None
        The options (None: ``AnalysisOptions()``).
    overrides : dict
        Option name -> value.

    Returns
    -------
    AnalysisOptions
        A new options value (``options`` itself without overrides).
    """
    opts = AnalysisOptions() if options is None else options
    if not isinstance(opts, AnalysisOptions):
        raise TypeError(f"options must be an AnalysisOptions, not {type(opts).__name__}")
    return opts.replace(**overrides) if overrides else opts


def checked(opts: AnalysisOptions, path: str | None = None) -> AnalysisOptions:
    """``opts``, once every option holds a value the analysis can take; else the InputError naming the
    option, raised before anything is read (``path``: the trial file, named as the stage using the option
    names it).  The one place the options' values are checked: the stages take them as given.

    ``mass`` and ``height`` (positive, plausible: :func:`humanbody.model.anthropometry.validate_subject`),
    ``sex`` (male, female), ``axes`` ("auto" or a spec, :func:`humanbody.lab.axes.parse_axes`),
    ``cutoff_hz`` (Hz, 0 or None: no filter; "auto", "set"), ``max_gap`` (s, not negative), ``fill``
    (:data:`humanbody.markers.gaps.FILL_METHODS`), ``ik`` (auto, segments, global), ``joint_limits``
    (off, physiological, anatomical or a table: :func:`humanbody.markers.global_ik.joint_limits`),
    ``imu_heading`` (:func:`humanbody.imu.calibration.parse_heading`), ``imu_knee`` (hinge, free),
    ``angle_zero`` (:data:`humanbody.mechanics.clinical.ANGLE_ZEROS`), ``moment_frame``
    (:data:`humanbody.mechanics.moment_frames.MOMENT_FRAMES`), ``load_segments`` (segments of the model:
    the given one's, else the body's; a model file's are checked as it is read, :func:`subject_model`),
    ``force_threshold`` (N, not negative), ``forces_cutoff_hz`` (Hz, 0: no filter; None), ``export``
    (:data:`humanbody.options.EXPORT_FORMATS`) and ``opensim_feet`` (two body names).  ``skip_checks`` and
    ``differentiation`` are checked as the options are made (:class:`~humanbody.options.AnalysisOptions`);
    the files (``static``, ``forces``, ...) as they are read.

    Parameters
    ----------
    opts : AnalysisOptions
        The options of one analysis.
    path : str, optional
        The trial file, named first in the errors that name it (``ik``, ``fill``, ``max_gap``).

    Returns
    -------
    AnalysisOptions
        ``opts`` itself.
    """
    for what, value in (("mass", opts.mass), ("height", opts.height)):
        if value is not None:
            try:
                validate_subject(**{"mass": DEFAULT_MASS, "height": DEFAULT_HEIGHT, what: value})
            except InputError as err:
                raise InputError(err.message, option=what) from None
    check_sex(opts.sex)
    if not (isinstance(opts.axes, str) and opts.axes.strip().lower() == "auto"):
        try:
            parse_axes(opts.axes)
        except InputError as err:
            raise InputError(err.message if err.message.startswith("axes") else f"axes {opts.axes!r}: {err.message}",
                             option="axes") from None
    if not _cutoff_ok(opts.cutoff_hz, ("auto", MARKERSET_CUTOFF)):
        raise InputError(f"cutoff_hz must be a cut-off in Hz (0 or None: no filter), \"auto\" or "
                         f"\"{MARKERSET_CUTOFF}\", not {opts.cutoff_hz!r}", option="cutoff_hz")
    if opts.max_gap is None or not np.isfinite(opts.max_gap) or opts.max_gap < 0:
        raise InputError(f"max_gap must be a non-negative number of seconds, got {opts.max_gap!r}", path)
    if opts.fill not in FILL_METHODS:
        raise InputError(f"unknown fill method {opts.fill!r}; use one of {', '.join(FILL_METHODS)}", path)
    if opts.ik not in IK_METHODS:
        raise InputError(f"ik must be auto, segments or global, not {opts.ik!r}", path, option="ik")
    _check_joint_limits(opts.joint_limits)
    parse_heading(opts.imu_heading)
    if opts.imu_knee not in ("hinge", "free"):
        raise InputError(f"imu_knee {opts.imu_knee!r}: expected hinge or free", option="imu_knee")
    if opts.angle_zero not in ANGLE_ZEROS:
        raise InputError(f"angle_zero must be one of {', '.join(ANGLE_ZEROS)}, not {opts.angle_zero!r}",
                         option="angle_zero")
    if opts.moment_frame is not None and opts.moment_frame not in MOMENT_FRAMES:
        raise InputError(f"moment_frame must be one of {', '.join(MOMENT_FRAMES)}, not {opts.moment_frame!r}",
                         option="moment_frame")
    if isinstance(opts.model, BodyModel) or opts.model is None:
        check_load_segments(opts, opts.model.names if isinstance(opts.model, BodyModel) else SEGMENT_NAMES)
    if not _number_ok(opts.force_threshold, low=0.0):
        raise InputError(f"force_threshold must be a force in N, 0 or above, not {opts.force_threshold!r}",
                         option="force_threshold")
    if not _cutoff_ok(opts.forces_cutoff_hz, ()):
        raise InputError(f"forces_cutoff_hz must be a cut-off in Hz (0: no filter) or None (the markers' cut-off), "
                         f"not {opts.forces_cutoff_hz!r}", option="forces_cutoff_hz")
    if any(not isinstance(f, str) or f not in EXPORT_FORMATS for f in opts.export):
        parse_export(",".join(map(str, opts.export)))  # the command line's error for the first unknown format
    if opts.opensim_feet is not None:
        feet = opts.opensim_feet
        parse_feet(",".join(map(str, feet)) if not isinstance(feet, str) else feet)
    return opts


def check_load_segments(opts: AnalysisOptions, names) -> None:
    """Refuse a ``load_segments`` assignment to a segment the model lacks (one line naming its segments).

    Parameters
    ----------
    opts : AnalysisOptions
        ``load_segments``: (load name, segment) pairs.
    names : sequence of str
        The model's segment names.

    Raises
    ------
    InputError
        Naming the option, the assignment and the model's segments.
    """
    for name, seg in opts.load_segments:
        if seg not in names:
            raise InputError(f"load_segments {name}={seg}: no segment {seg!r} in the model "
                             f"(segments: {', '.join(names)})", option="load_segments")


def _number_ok(value, low: float) -> bool:
    """Whether ``value`` is a real number (not a bool), finite and at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return bool(np.isfinite(value) and value >= low)


def _cutoff_ok(value, words: tuple) -> bool:
    """Whether ``value`` is None, one of ``words`` or a cut-off in Hz, 0 (no filter) or above (the Nyquist bound
    needs the trial's rate: the filter checks it)."""
    if value is None or (isinstance(value, str) and value in words):
        return True
    return _number_ok(value, low=0.0)


def _check_joint_limits(limits) -> None:
    """Refuse ``joint_limits`` other than None, "off", a built-in table's name or a table of bounds."""
    if limits is None or (isinstance(limits, str) and limits in ("off", *LIMIT_TABLES)):
        return
    if isinstance(limits, str) or not hasattr(limits, "items"):
        raise InputError(f"joint_limits must be off, {', '.join(LIMIT_TABLES)} or a table of bounds, not {limits!r}",
                         option="joint_limits")
    joint_limits(limits, "joint_limits")  # a table: its segments and bounds


def _kept(conditioned: Conditioned, keep: bool) -> tuple[Trial, pd.DataFrame | None]:
    """The trial the Analysis holds and its markers' table: the conditioned trial, or (``keep`` false) its time
    base only and no markers, 24 bytes per marker and frame less to hold while the results are written.  A trial
    carrying gait events of its own (a C3D's ``EVENT`` group) keeps them: the markers' events judge the file's."""
    if keep or conditioned.trial.events is not None:
        return conditioned.trial, conditioned.markers
    return conditioned.trial.time_base(), None


def _in_moment_frame(model: BodyModel | None, opts: AnalysisOptions, log: Log, plates: bool) -> BodyModel:
    """``model`` naming the frame of its clinical moments (``options.moment_frame``, else the model's own;
    model.json says it) when asked or when the trial has force plates (then said in the log)."""
    assert model is not None
    if opts.moment_frame is not None or plates:
        model = with_moment_frame(model, opts.moment_frame or moment_frame(model))
        if plates:
            log.message("rates", moment_frame_note(model), priority=SETUP)
    return model


def weigh(analysis: Analysis, subj: TrialSubject, opts: AnalysisOptions, log: Log) -> Analysis:
    """Stage "mass", after "loads": the force plates' clock checked, and the subject weighed on them.

    The clock (:func:`humanbody.checks.force_clock.check_force_clock`,
    :func:`humanbody.checks.force_timing.check_force_timing`) in one line; then
    the mass from the plates when none was given (:func:`humanbody.checks.mass.plates_mass`:
    the model's masses and inertias scaled to it), or a stated mass weighed
    on them (:func:`humanbody.checks.mass.stated_mass`).

    Parameters
    ----------
    analysis : Analysis
        An analysis with its loads (stage "loads").
    subj : TrialSubject
        The subject (stage "subject"): ``mass_from_plates``, ``mass``.
    opts : AnalysisOptions
        ``load_segments``, ``skip_checks``, ``mass``, ``model``.
    log : Log
        The analysis' log (the lines are added to it).

    Returns
    -------
    Analysis
        ``analysis``, or a new one with the model scaled to the plates' mass.
    """
    table, given, skip = analysis.load_table, {name for name, _ in opts.load_segments}, "force-clock" in opts.skip_checks
    line = check_force_clock(table, analysis.loads, analysis.results, analysis.model, analysis.motion.time,
                             skip=skip, given=list(given), trial=analysis.source)
    judged = [name not in given and seg in (None, "right_foot", "left_foot")
              for name, seg in zip(table.names, table.segments or [None] * len(table.names), strict=True)]
    log.message("mass", f"{line}; " + check_force_timing(table, analysis.loads, analysis.results, analysis.model,
                                                      analysis.motion.time, skip=skip, judged=judged,
                                                      trial=analysis.source))
    if subj.mass_from_plates:
        m, lines = plates_mass(analysis.loads, analysis.results, analysis.model, analysis.motion.time,
                               table.source, skip="mass" in opts.skip_checks, edges=_edge_count(log))
        log.message("mass", lines[0])  # the mass weighed (or assumed), then its body mass index checked
        log.message("mass", *lines[1:], priority=ROUTINE)
        if m is not None:  # the inertial quantities follow the new masses: computed anew
            analysis = analysis.replace(model=scaled_model(analysis.model, m))
    elif subj.mass is not None and opts.model is None:
        where = "--mass" if opts.mass is not None else "the subject file"
        log.message("mass", stated_mass(float(subj.mass), where, analysis.loads, analysis.results, analysis.model,
                                     analysis.motion.time, table.source, skip="mass" in opts.skip_checks,
                                     edges=_edge_count(log)), priority=ROUTINE)
    return analysis


def reduce(analysis: Analysis, log: Log, keep_markers: bool = True, fit=None) -> Analysis:
    """Stage "reduce" (``--reduce-residuals``, after "mass"): the residual reduction of docs/kinetics.md.

    :func:`humanbody.mechanics.reduction.reduce_residuals` on the analysis'
    model, motion and loads (the conditioned markers' displacement limited and
    reported); when its criteria are met, the new Analysis has the fitted model
    (masses, trunk mass centre), the tracked root's motion and coordinates,
    else the same ones; its model's ``residual_reduction`` holds the
    record either way (model.json).

    Parameters
    ----------
    analysis : Analysis
        An analysis with its loads (stage "loads").
    log : Log
        The analysis' log (one line per criterion is added).
    keep_markers : bool
        Keep the conditioned markers in the new Analysis; else its trial is
        the time base only.
    fit : MassFit, optional
        One mass distribution for all of a subject's trials
        (:func:`humanbody.mechanics.reduction.fit_subject`); default: fitted on this trial.

    Returns
    -------
    Analysis
        A new Analysis, reduced or not; ``analysis`` itself when it has no loads (said so).
    """
    if analysis.loads is None:
        log.message("reduce", "residual reduction: not done: the trial has no force plates (--forces)")
        return analysis
    from .mechanics.reduction import jsonable as record_json  # lazy: imported on use (see the imports)
    from .mechanics.reduction import reduce_residuals, reduced_coords, trunk_share  # lazy: as above

    red = reduce_residuals(analysis.model, analysis.motion, analysis.loads, analysis.results,
                           _marker_points(analysis.markers), trunk_share(analysis.tracking), fit)
    log.message("reduce", *red.lines)
    changes: dict[str, Any] = {}
    if red.applied:
        changes.update(coords=reduced_coords(analysis.coords, red), motion=red.motion)
    model = red.model if red.applied else analysis.model
    changes["model"] = model.replace(residual_reduction=record_json(red.record))
    if not keep_markers:
        changes.update(markers=None, trial=analysis.trial.time_base())
    if not red.applied:  # the model's masses and the motion are those the kinematics were computed with
        changes["computed"] = analysis.held_results
    return analysis.replace(**changes)


def _marker_points(markers: pd.DataFrame | None) -> np.ndarray | None:
    """The conditioned markers' positions, (frames, markers, 3) m, from their table; None without one."""
    if markers is None:
        return None
    cols = [c for c in markers.columns if c.endswith("_x") and c[:-2] + "_z" in markers.columns]
    if not cols:
        return None
    return np.stack([markers[[c, c[:-2] + "_y", c[:-2] + "_z"]].to_numpy(dtype=float) for c in cols], axis=1)


# ------------------------------------------------------------------ stages
def read(path: str, options: AnalysisOptions, log: Log) -> Trial:
    """Stage "read": the :class:`~humanbody.trial.Trial` (markers in ground axes) and its force plates.

    The plates are ``options.forces``, or a C3D marker trial's own force
    platforms when it has some (``options.use_platforms``); they are read
    under the markers' lab -> ground mapping (:meth:`humanbody.trial.Trial.read`).

    Parameters
    ----------
    path : str
        The trial file.
    options : AnalysisOptions
        The analysis' options: ``axes``, ``imu_map``, ``forces``, ``load_map``, ``use_platforms``.
    log : Log
        The analysis' log (this stage's lines are added to it).

    Returns
    -------
    Trial
        The trial in ground axes, with its force plates (``forces``) when it has some.
    """
    forces = options.forces
    trial = Trial.read(path, axes=options.axes, imu_map=options.imu_map)
    if trial.source != path:  # the trial file as the caller named it (output names, messages)
        trial = replace(trial, source=path)
    # the axes line is printed with the marker steps (after the subject lines), where it has always been
    log.message("read", *[line for line in trial.log if not line.startswith("axes: ")])
    if forces is None and path.lower().endswith(".c3d") and trial.kind == "markers" and options.use_platforms:
        from .io.forceplates import c3d_has_platforms  # lazy: imported on use (see the imports)

        if c3d_has_platforms(path):
            try:  # a C3D trial's own force platforms; ones ezc3d cannot extract leave the markers usable
                trial = replace(trial, forces=_plates(path, trial.axes, options))
            except InputError as err:
                if options.load_map:  # the user assigned these plates: their kinetics were asked for
                    raise
                log.message("read", f"loads: the trial's own force platforms not read ({err.message}): no "
                            "kinetics; give the forces with --forces FILE", priority=LOADS)
                return trial
            log.message("read", "loads: the trial's own force platforms", priority=SETUP)
            return trial
    if forces is not None:
        trial = replace(trial, forces=_plates(forces, trial.axes if trial.kind == "markers" else None, options))
    return trial


def _plates(source, axes, options: AnalysisOptions):
    """The loads of ``source`` under ``axes`` (:func:`humanbody.trial.load_forces`) with ``options.load_segments``
    given to them; a load the file lacks is refused naming the option by its name here, ``load_segments``."""
    try:
        return load_forces(source, axes, options.load_map)
    except InputError as err:
        if err.option != "loads" or not err.message.startswith("loads "):
            raise
        raise InputError("load_segments" + err.message[len("loads"):], err.path, option="load_segments") from None


def subject(trial: Trial, options: AnalysisOptions, log: Log, file: SubjectFile | None = None) -> TrialSubject:
    """Stage "subject": the subject's mass, height and sex from ``options``, else the subject ``file``.

    Without a mass (nor a model), the mass is the plates', estimated after
    the loads stage over the frames with the whole weight on them
    (:func:`humanbody.checks.mass.plates_mass`); without plates either,
    :data:`DEFAULT_MASS` is assumed (said so).

    Parameters
    ----------
    trial : Trial
        The trial (stage "read"): whether it has force plates.
    options : AnalysisOptions
        The analysis' options: ``mass``, ``height``, ``sex``, ``model``.
    log : Log
        The analysis' log (this stage's lines are added to it).
    file : io.subject.Subject, optional
        The subject file's measurements (or a C3D's ``PROCESSING`` group).

    Returns
    -------
    TrialSubject
    """
    mass, height = options.mass, options.height
    if file is not None:
        mass = file.mass if mass is None else mass
        height = file.height if height is None else height
    from_plates = mass is None and options.model is None and trial.forces is not None
    if mass is None and options.model is None and trial.forces is None:
        log.message("subject", f"no --mass and no force plates: {DEFAULT_MASS:g} kg assumed")
    return TrialSubject(mass=mass, height=height, sex=options.sex, file=file, mass_from_plates=from_plates)


def subject_model(subj: TrialSubject, options: AnalysisOptions, log: Log) -> BodyModel | None:
    """The model of ``options.model``, or the default one scaled to the subject's mass and height.

    None when neither mass nor height is known: a marker trial's
    calibration then scales the model.

    Parameters
    ----------
    subj : TrialSubject
    options : AnalysisOptions
        The analysis' options: ``model``.
    log : Log
        The analysis' log (this stage's lines are added to it).

    Returns
    -------
    BodyModel or None
    """
    model = options.model
    if model is not None:
        if isinstance(model, BodyModel):
            return model
        log.message("subject", f"model: {model}")
        loaded = load_model(model)
        check_load_segments(options, loaded.names)  # the options' one check that needs the file (:func:`checked`)
        return loaded
    if subj.mass is None and subj.height is None:
        return None
    return BodyModel.default(mass=subj.calibration_mass,
                             height=DEFAULT_HEIGHT if subj.height is None else float(subj.height), sex=subj.sex)


def _default_model(model: BodyModel | None, options: AnalysisOptions, log: Log) -> BodyModel:
    """The model of a trial without markers: the subject's, else the default one (said so)."""
    if model is None:
        model = BodyModel.default(mass=DEFAULT_MASS, height=DEFAULT_HEIGHT, sex=options.sex)
        log.message("subject", f"no --model or --height: using the default model for {DEFAULT_HEIGHT:g} m")
    return model


def orientations(trial: Trial, model: BodyModel, options: AnalysisOptions, log: Log) -> pd.DataFrame:
    """Stage "track" of an orientation (IMU) trial: sensor orientations -> generalized coordinates.

    :func:`humanbody.imu.orientations_to_coordinates`, calibrated on
    ``options.static`` (an orientation file in the calibration posture,
    read by :meth:`humanbody.trial.Trial.read`) or the trial's first still
    window (:func:`humanbody.checks.imu_still.check_still_window`; refused
    when it has none).

    Parameters
    ----------
    trial : Trial
        An orientation trial (stage "read").
    model : BodyModel
        The subject's model.
    options : AnalysisOptions
        The analysis' options: ``static``, ``imu_map``, ``axes``, ``imu_heading``, ``imu_knee``, ``skip_checks``.
    log : Log
        The analysis' log (this stage's lines are added to it).

    Returns
    -------
    DataFrame
        Generalized coordinates (rad, m), one row per frame.
    """
    if trial.n_frames < 2:
        raise InputError("has one frame: a calibration posture (give it as `static`), not a trial", trial.source)
    posture = None
    if options.static is not None:
        static = Trial.read(options.static, axes="x,y,z", imu_map=options.imu_map)  # a marker file: refused below
        if static.kind != "orientations":
            raise InputError("static trial of an orientation trial must be an orientation file", options.static)
        posture = static.to_frame()
    frame = trial.to_frame()
    if posture is None and not frame.attrs.get("anatomical"):  # calibrated on a still window of the trial
        posture, line = check_still_window(frame, list(frame.attrs["segment_of"].values()), trial.source,
                                           skip="imu-still" in options.skip_checks)
        log.message("track", line)
    coords, notes = orientations_to_coordinates(frame, model, static=posture, axes=options.axes,
                                                heading=options.imu_heading, knee=options.imu_knee)
    log.message("track", *[f"orientations: {line}" for line in notes if not line.startswith("mapping:")])
    log.detail("track", *[f"orientations: {line}" for line in notes if line.startswith("mapping:")])
    return coords


def condition(trial: Trial, options: AnalysisOptions, log: Log, height: float | None = None) -> Conditioned:
    """Stage "condition" of a marker trial: marker set, unused markers out, gaps filled, low-pass filtered.

    The marker set is resolved (:func:`humanbody.markers.markerset.resolve_markerset`; when none is given and
    no built-in set matches the names, one is drafted from the static trial, else from the trial itself:
    :func:`drafted_markerset`, ``height`` the subject's standing height in m if known),
    a hip calibration trial gives functional hip centres
    (:func:`humanbody.markers.functional_joint.functional_hips`, the hip trial
    read by :meth:`humanbody.trial.Trial.read` under the trial's axes mapping), the
    markers the set does not use are left out and the rest conditioned
    (:func:`humanbody.markers.conditioning.condition`).

    Parameters
    ----------
    trial : Trial
        A marker trial (stage "read"), ground axes.
    options : AnalysisOptions
        The analysis' options: ``markerset``, ``hip_trial``, ``max_gap``, ``cutoff_hz``, ``fill``.
    log : Log
        The analysis' log (this stage's lines are added to it).

    Returns
    -------
    Conditioned
    """
    path, messages = trial.source, []  # the user's lines, added to the log in their order
    ground = trial.to_frame("ground")
    messages.append(f"axes: {trial.axes.describe()}")
    names = ground.attrs.get("markers") or [c[:-2] for c in ground.columns if c.endswith("_x")]
    spec: str | MarkerSet | None = options.markerset
    if spec is None:
        spec = drafted_markerset(names, ground, trial, options, log, height)
    mset, found = resolve_markerset(spec, names, path, required=())
    found = _with_samples(ground, found, messages)
    required = _present_required(mset, found, path, messages)
    log.message("condition", *messages)
    messages, details = [], []
    if options.hip_trial is not None:
        mset = _with_functional_hips(mset, options.hip_trial, trial.axes, log)
    clusters = {seg: [found[m] for m in spec.markers if m in found]
                for seg, spec in mset.segments.items() if spec.rule == "cluster"}
    used = set(found.values())
    unused = [m for m in names if m not in used]
    if unused:  # markers the set does not use (unlabeled ones included): counted, never filled or filtered
        ground = ground.drop(columns=[f"{m}_{a}" for m in unused for a in "xyz" if f"{m}_{a}" in ground.columns])
        ground.attrs["markers"] = [m for m in names if m in used]
        unlabeled = sum(1 for m in unused if m.startswith("*") or m.lower().startswith("unlabeled"))
        messages.append(Note(f"ignored {len(unused)} marker(s) the marker set {mset.name!r} does not use"
                             + (f" ({unlabeled} unlabeled)" if unlabeled else ""), IGNORED))
        details = [f"ignored markers: {', '.join(unused)}"]
    markers, report = condition_markers(ground, max_gap=options.max_gap, cutoff_hz=marker_cutoff(options.cutoff_hz, mset),
                                        fill=options.fill, segments={k: v for k, v in clusters.items() if len(v) >= 3})
    del ground
    log.message("condition", *messages, *report.summary_lines())
    log.detail("condition", *details, *[f"conditioning: {line}" for line in report.lines()])
    out = replace(Trial.from_frame(markers, axes=trial.axes, lab_attrs=trial.attrs), source=trial.source,
                  forces=trial.forces, log=trial.log, events=trial.events)
    return Conditioned(trial=out, markerset=mset, found=found, required=required,
                       cutoff_hz=None if report.filter is None else report.filter.cutoff_hz)


def drafted_markerset(names, ground: pd.DataFrame, trial: Trial, options: AnalysisOptions, log: Log,
                      height: float | None = None) -> MarkerSet:
    """The built-in set that matches ``names`` (:func:`~humanbody.markers.markerset.detect_markerset`), else a
    set drafted for them (:func:`humanbody.tools.draft.draft_markerset`) from ``options.static`` (read under the
    trial's axes) or, without one, from the trial's stillest standing second (``ground``: the trial in ground
    axes, m), with the standing ``height`` (m) when known, else the height the draft estimates and says.

    Parameters
    ----------
    names : sequence of str
        The trial's marker names.
    ground : pandas.DataFrame
    trial : Trial
    options : AnalysisOptions
    log : Log
        Takes the draft's lines.
    height : float, optional, m

    Returns
    -------
    MarkerSet

    Raises
    ------
    InputError
        Neither a built-in set matches nor can one be drafted: one line naming the closest set and why the
        draft failed, and ``humanbody markerset init`` / ``--markerset`` as the way on.
    """
    from .tools.draft import draft_markerset  # lazy: the drafting rules, only for a lab's own names

    try:
        return detect_markerset(names, trial.source)
    except InputError as err:
        closest = err.message.split(";")[0]
    source = options.static if options.static is not None else trial.source
    try:
        if options.static is not None:
            static = Trial.read(options.static, axes=trial.axes.spec)
            if static.kind != "markers":
                raise InputError("static trial must hold marker trajectories", options.static)
            frame = static.to_frame("ground")
        else:
            frame = ground
        frame.attrs.setdefault("source", os.fspath(source))
        draft = draft_markerset(frame, height=height)
    except InputError as err:
        where = "" if options.static is None else f" (from {os.path.basename(os.fspath(options.static))})"
        # the way on: none when the reason names an option (`height`, `axes`, `markerset`); markerset init with a
        # standing trial when the walk had no standing pose; else a set written for these markers (init would
        # fail the same way on them)
        raise InputError(f"{closest}; drafting a set for them{where} failed: {err.message}" + (
            "" if "`" in err.message else
            "; draft one with humanbody markerset init STATIC --out FILE (or name a set with `markerset`)"
            if "give a standing (static) trial" in err.message else
            "; write a marker set for these markers (.toml, docs/markersets.md) and give its path with `markerset`"),
            trial.source) from None
    assert draft.markerset is not None  # a draft holds its set as loaded
    used = sum(1 for m in draft.markers if m.used)
    log.message("condition", f"marker set: no built-in set matches, drafted {draft.markerset.name!r} from "
                f"{os.path.basename(os.fspath(source))} ({used} of {len(draft.markers)} markers"
                + (f", standing height {height:.2f} m" if height is not None else "")
                + "); to check and keep it: humanbody markerset init")
    if draft.window:
        log.detail("condition", f"marker set draft: {draft.window}")
    log.detail("condition", *[f"marker set draft: {line}" for line in draft.rules + [f"CHECK {c}" for c in draft.checks]])
    return draft.markerset


def _loads_cutoff(cutoff_hz: float | str | None) -> float | None:
    """The loads' cut-off (Hz) of a trial without markers: ``cutoff_hz`` given, ``CUTOFF_HZ`` for the default
    ``"set"``, none for ``"auto"`` (nothing to choose it from)."""
    if isinstance(cutoff_hz, str):
        return CUTOFF_HZ if cutoff_hz == MARKERSET_CUTOFF else None
    return cutoff_hz


def marker_cutoff(cutoff_hz: float | str | None, mset: MarkerSet) -> float | str | None:
    """The marker filter's cut-off for ``mset`` (Hz; None: no filter): ``cutoff_hz`` as given, or for
    ``"set"`` (the default) the set's ``parameters["marker_cutoff_hz"]`` (0: none; the Plug-in Gait sets,
    whose model computes from the markers as stored) else ``CUTOFF_HZ``.

    Parameters
    ----------
    cutoff_hz : float, str or None
        ``options.cutoff_hz``: Hz, "auto", "set" or None.
    mset : MarkerSet

    Returns
    -------
    float, str or None
        The cut-off (Hz), "auto", or None (no filter).
    """
    if cutoff_hz != MARKERSET_CUTOFF:
        return cutoff_hz
    own = mset.parameters.get("marker_cutoff_hz")
    if own is None:
        return CUTOFF_HZ
    return float(own) or None


def _with_functional_hips(mset: MarkerSet, hip_trial, axes, log: Log) -> MarkerSet:
    """``mset`` with the functional hip centres of ``hip_trial`` (:func:`humanbody.markers.functional_joint.functional_hips`).

    The hip trial is read like the trial (:meth:`humanbody.trial.Trial.read`, under its lab -> ground
    ``axes``) and given in its lab axes (``to_frame()``, the reader's table to the last bit: the mapping
    is a signed permutation).  The SCoRE offsets live in the pelvis frame, which a rotation of the lab
    does not change: in ground axes they agree to 1e-15 m, but not to the last bit, and the results
    (8 significant digits) would then differ in their last digit from those the lab axes always gave.
    """
    try:
        hips = Trial.read(hip_trial, axes=axes.spec)
        if hips.kind != "markers":
            raise InputError("hip calibration trial must hold marker trajectories", hip_trial)
        mset, lines = functional_hips(mset, hips.to_frame())
    except InputError as err:
        raise err.with_path(hip_trial) from None
    log.message("condition", *lines)
    return mset


def calibrate_model(conditioned: Conditioned, static: Trial | str | os.PathLike | None, subj: TrialSubject,
              options: AnalysisOptions, log: Log, cache: dict | None = None) -> Calibration:
    """Stage "calibrate": the subject's model from the static trial (cached by content) or from the trial itself.

    :func:`humanbody.markers.calibration.calibrate` on the ``static`` trial
    (a :class:`~humanbody.trial.Trial` read under the trial's axes mapping,
    or its file: read by :meth:`humanbody.trial.Trial.read` under that
    mapping unless ``cache`` holds its calibration already, by content) or,
    without one, on the conditioned markers (``mode="dynamic"``).

    Parameters
    ----------
    conditioned : Conditioned
        The conditioned trial (stage "condition").
    static : Trial, str, os.PathLike or None
        The static trial, or its file; None: calibrated on the trial itself.
    subj : TrialSubject
        Mass, height, sex and measurements the calibration scales to.
    options : AnalysisOptions
        The analysis' options (not read: the arguments carry what it needs).
    log : Log
        The analysis' log (this stage's lines are added to it).
    cache : dict, optional
        Calibrations already made, by static-trial content and subject.

    Returns
    -------
    Calibration
    """
    mset, required = conditioned.markerset, conditioned.required
    if static is None:
        return calibrate_markers(conditioned.markers, mset, mass=subj.calibration_mass, height=subj.height,
                                 sex=subj.sex, mode="dynamic", required=required, subject=subj.file)
    # a required marker the trial lacks is not asked of the static trial either (sparse sets)
    calibration, static_frames = _static_calibration(
        static, conditioned.trial.axes.spec, mset, subj, cache,
        required=None if len(required) == len(mset.required) else required)
    name = static.source if isinstance(static, Trial) else os.fspath(static)
    log.message("calibrate", f"static trial {name}: {static_frames} frames, same axes mapping", priority=INPUT)
    return calibration


def track(conditioned: Conditioned, calibration: Calibration, options: AnalysisOptions, log: Log):
    """Stage "track": the generalized coordinates of every frame from the markers (a tracking result).

    Segment fits (:func:`humanbody.markers.tracking.track`) or whole-body
    inverse kinematics (:func:`humanbody.markers.global_ik.track_global`) as
    ``options.ik`` and :func:`humanbody.markers.global_ik.choose_method` say.

    Parameters
    ----------
    conditioned : Conditioned
        The conditioned trial (stage "condition").
    calibration : Calibration
        The subject's calibration (stage "calibrate").
    options : AnalysisOptions
        The analysis' options: ``ik``, ``joint_limits``, ``static``, ``skip_checks``.
    log : Log
        The analysis' log (this stage's lines are added to it).

    Returns
    -------
    Tracking
        The tracking result: ``coords`` (rad, m), per-segment ``residuals`` (m) and ``status``.
    """
    markers, mset, required = conditioned.markers, conditioned.markerset, conditioned.required
    where = markers.columns.get_indexer([f"{col}_x" for col in conditioned.found.values()])
    values = markers.to_numpy(dtype=float, copy=False)  # one float block: a view
    seen = (where >= 0) & ~np.isnan(values[:, np.maximum(where, 0)]).all(axis=0)
    present = [m for m, ok in zip(conditioned.found, seen, strict=True) if ok]
    try:
        method, why = choose_method(mset, present, options.ik)
    except InputError as err:  # a forced --ik this trial cannot take: name the trial
        raise err.with_path(conditioned.trial.source) from None
    log.message("track", f"tracking: {'whole-body inverse kinematics' if method == 'global' else 'segment fits'}"
                      f" ({why})", priority=METHOD)
    limits = options.joint_limits
    log.message("track", *_limits_lines(method, limits, mset))
    if method == "global":
        tracking = (track_global(markers, calibration, keep_frames=False, required=required) if limits is None
                    else track_global(markers, calibration, keep_frames=False, required=required, limits=limits))
    else:
        tracking = track_segments(markers, calibration, keep_frames=False, required=required)
    fit = None if options.static is None else _static_fit(options, tracking, calibration=calibration, markers=markers)
    warnings: list[str] = []
    log.message("track", *_tracking_lines(calibration, tracking, warnings, fit))
    log.warning("track", *warnings)
    return tracking


def _limits_lines(method: str, limits, mset: MarkerSet) -> list[str]:
    """What the tracking says about joint limits (``--joint-limits``, the marker set's ``[ik] limits``)."""
    set_limits = mset.ik.get("limits")
    if method == "global" and limits not in (None, "off"):
        return [f"tracking: joint limits: {limits} (--joint-limits)"]
    if method == "global" and limits is None and set_limits not in (None, False, "off"):
        what = set_limits if isinstance(set_limits, str) else "a table"
        return [f"tracking: joint limits: {what} (marker set {mset.name!r} [ik] limits"
                + ("; keypoint sets: knees and elbows within 5 deg of straight)" if mset.keypoints else ")")]
    if method != "global" and limits not in (None, "off"):
        return [f"tracking: --joint-limits {limits} not used: joint limits act in whole-body "
                "inverse kinematics only (--ik global)"]
    return []


def _static_fit(options: AnalysisOptions, tracking, calibration=None, markers=None) -> str | None:
    """The static trial's fit check (:func:`humanbody.checks.static_fit.check_static_fit`: the marker residual and
    the segments' marker distances), said on the residual's line (:func:`_tracking_lines`); a skipped check
    (``--skip-check static``) is not computed, and its line says so."""
    if "static" in options.skip_checks:
        return f"check static: {os.path.basename(os.fspath(options.static or ''))} not checked (--skip-check static)"
    return check_static_fit(options.static, tracking, calibration=calibration, markers=markers)


def rates(model: BodyModel, coords: pd.DataFrame, options: AnalysisOptions, log: Log, source: str = "") -> Motion:
    """Stage "rates": the coordinates with their first and second time derivatives (given, or differentiated).

    :func:`humanbody.mechanics.kinematics.prepare_motion` with ``options.differentiation``; when that is the
    default (``--diff`` not naming another) and the model's marker set names its own method
    (``conventions.rates``: the Plug-in Gait sets' central differences, "gradient", as Nexus differences its
    segment axes for the joint powers), the set's; the feet's angular velocities over ``conventions.foot_rate_frames``
    frames each side when the set names it (:func:`~humanbody.mechanics.kinematics.spaced_rates`).  The frames at the ends whose rates are estimates are
    noted on the log (``log.edges``, :func:`humanbody.checks.edges.edge_note`).

    Parameters
    ----------
    model : BodyModel
    coords : DataFrame
        Generalized coordinates (rad, m), one row per frame.
    options : AnalysisOptions
        The analysis' options: ``differentiation``.
    log : Log
        The analysis' log (this stage's lines are added to it).
    source : str
        The trial file (the coordinates' ``attrs["source"]`` when they name none).

    Returns
    -------
    Motion
    """
    if source:
        coords.attrs.setdefault("source", source)
    diff, own = options.differentiation, model.conventions.rates
    if own and diff == Differentiation() and own != diff.method:
        diff = Differentiation(method=own)
    motion = prepare_motion(model, coords, differentiation=diff)
    feet = model.conventions.foot_rate_frames
    if feet and diff.method == "gradient":  # Plug-in Gait's ankle power: the feet differenced wider
        motion = spaced_rates(model, motion, {f"{side}_foot": feet for side in ("right", "left")})
    log.message("rates", f"rates: {motion.how}" + (" (the marker set's)" if diff is not options.differentiation
                                                   else ""), priority=ROUTINE)
    log.edges = edge_note(diff, motion.time, motion.local_rates)
    if log.edges:
        log.message("rates", edge_line(log.edges), priority=EDGES)
    return motion


def mechanics(trial: Trial, model: BodyModel, coords: pd.DataFrame, motion: Motion, options: AnalysisOptions,
              log: Log, **parts) -> Analysis:
    """Stage "mechanics": the :class:`Analysis` of ``trial``; its :attr:`~Analysis.results` are computed on first use.

    :func:`humanbody.trial_output.write` evaluates them frame range by
    range (with the kinetics in the same pass), so a long trial is never held whole.

    Parameters
    ----------
    trial : Trial
        The trial as analysed (conditioned markers, or the time base only).
    model : BodyModel
    coords : DataFrame
        Generalized coordinates (rad, m).
    motion : Motion
        The coordinates with their rates (stage "rates").
    options : AnalysisOptions
        The analysis' options: kept by the Analysis (its exports, its angles' zero).
    log : Log
        The analysis' log (this stage's lines are added to it).
    **parts
        The other fields of :class:`Analysis` (``markers``, ``calibration``, ``tracking``, ``raw``).

    Returns
    -------
    Analysis
    """
    return Analysis(trial=trial, coords=coords, model=model, motion=motion, options=options, log=log, **parts)


def apply_loads(analysis: Analysis, options: AnalysisOptions, log: Log, cutoff_hz: float | None = None) -> Analysis:
    """Stage "loads": the trial's loads on the motion's frames, each given to a segment: a new Analysis.

    :func:`humanbody.mechanics.loads.condition_loads` (threshold, low-pass
    at ``options.forces_cutoff_hz``, else ``cutoff_hz``, the markers' cut-off;
    resampled to the frames, as the mean over each frame when the model's set says so:
    ``conventions.load_resampling == "frame_mean"``, the Plug-in Gait sets) and :func:`humanbody.mechanics.foot_contact.assign_loads`
    (named segment, else the nearest foot).  The assignment needs the feet's
    poses in every frame: the kinematics computed here are kept
    (``computed``) and the writer reuses them, so every frame's
    kinematics are computed once.

    Parameters
    ----------
    analysis : Analysis
        The analysis of stage "mechanics", with the trial's plates (``load_table``).
    options : AnalysisOptions
        ``load_segments``, ``forces_cutoff_hz``, ``force_threshold``.
    log : Log
        The analysis' log (the plates' assignment is added).
    cutoff_hz : float, optional
        The markers' cut-off (Hz), the loads' when ``options.forces_cutoff_hz`` is None.

    Returns
    -------
    Analysis
        ``analysis`` with its ``loads`` (a :class:`~humanbody.mechanics.loads.FrameLoads`) and the
        kinematics of every frame.
    """
    from .mechanics.foot_contact import assign_loads  # lazy: imported on use (see the imports)
    from .mechanics.loads import condition_loads  # lazy: as above

    model, table = analysis.model, analysis.load_table  # load_segments names its segments (:func:`checked`)
    cut = cutoff_hz if options.forces_cutoff_hz is None else options.forces_cutoff_hz
    frame_mean = model.conventions.load_resampling == "frame_mean"  # Plug-in Gait's
    frame_loads = condition_loads(table, analysis.motion.time, cutoff_hz=cut or None,
                                  threshold=options.force_threshold, frame_mean=frame_mean)
    assigned = assign_loads(frame_loads, table.segments, model, analysis.results)
    log.message("loads", *assignment_line(table.notes + assigned.notes))
    return analysis.replace(loads=assigned, computed=analysis.results)


# ------------------------------------------------------------------ helpers
def _with_samples(ground: pd.DataFrame, found: dict, messages) -> dict:
    """``found`` without the markers whose columns hold no valid sample (listed in ``messages``).

    Video-keypoint writers keep a column for every keypoint of their
    skeleton, empty (or NaN) when it was never triangulated; such a marker
    counts as missing, like one the file does not name.
    """
    names = list(found.values())
    where = ground.columns.get_indexer([f"{col}_{a}" for col in names for a in "xyz"]).reshape(-1, 3)
    values = ground.to_numpy(dtype=float, copy=False)  # the trial's one float block: a view
    empty = [col for col, w in zip(names, where, strict=True)
             if (w >= 0).all() and not np.isfinite(values[:, w]).all(axis=1).any()]
    if empty:
        messages.append(f"{len(empty)} marker(s) without a valid sample, left out: {', '.join(empty)}")
    return {k: v for k, v in found.items() if v not in empty}


def _present_required(mset, found, path, messages) -> list:
    """The set's required markers the trial has; the missing ones listed in ``messages``.

    Missing required markers are not fatal while the markers present still
    determine every tracked segment through its joints
    (:func:`humanbody.markers.markerset.undetermined_segments`).
    """
    missing = [m for m in mset.required if m not in found]
    if missing:
        lost = undetermined_segments(mset, found)
        if lost:
            seg, pts = lost[0]
            raise InputError(f"required marker {missing[0]!r} of marker set {mset.name!r} is missing and "
                             f"segment {seg!r} keeps {pts} point(s): too few to determine it through its "
                             "joints", path)
        notes = mset.parameters.get("missing_markers_note") or {}
        if all(m in notes for m in missing):  # the set says what it uses instead (Plug-in Gait without heels)
            said = "; ".join(dict.fromkeys(str(notes[m]) for m in missing))
            messages.append(f"marker set {mset.name!r} without {', '.join(missing)}: {said}")
        else:
            messages.append(f"marker set {mset.name!r}: {len(missing)} required marker(s) missing "
                            f"({', '.join(missing)}); every tracked segment is still determined through its joints")
    return [m for m in mset.required if m in found]


def _edge_count(log: Log) -> int:
    """Frames at each end whose rates are the edges' estimates (:mod:`humanbody.checks.edges`); 0 when none."""
    return int(log.edges["frames"]) if log.edges else 0


def _subject_file(subject, log: Log) -> SubjectFile | None:
    """The :class:`~humanbody.io.subject.Subject` of ``subject`` (a path or one already read), or None."""
    if subject is None:
        return None
    from .io.subject import read_subject  # lazy: imported on use (see the imports)

    subj = subject if isinstance(subject, SubjectFile) else read_subject(subject)
    given = subj.measured()
    log.message("subject", f"subject {subj.source or 'measurements'}: {len(given)} measurement(s)"
                        + (f", mass {subj.mass:g} kg" if subj.mass is not None else "")
                        + (f", height {subj.height:.3f} m" if subj.height is not None else ""))
    return subj


def _processing_subject(path: str, opts: AnalysisOptions, log: Log) -> SubjectFile | None:
    """The subject measurements of a C3D trial's own ``PROCESSING`` group (Nexus writes them into every trial it
    processes: :func:`humanbody.io.c3d_processing.read_processing`) when no subject file is given; one log line
    says so and which of them ``--mass``/``--height`` replace.  None for any other file, or without the group."""
    if not path.lower().endswith(".c3d"):
        return None
    subj = read_processing(path)
    if subj is None:
        return None
    given = [o for o, v in (("--mass", opts.mass), ("--height", opts.height)) if v is not None]
    group = "SUBJECT group" if str(subj.source).endswith("(SUBJECT)") else "PROCESSING group (Vicon's subject parameters"
    log.message(
        "subject", f"subject measurements: {len(subj.measured())} from the C3D file's {group}"
        + ("; " if group.endswith("parameters") else " (") + "no --subject given)"
        + (f", mass {subj.mass:g} kg" if subj.mass is not None else "")
        + (f", height {subj.height:.3f} m" if subj.height is not None else "")
        + (f"; {' and '.join(given)} given win" if given else ""))
    return subj


def _static_calibration(static, axes_spec, mset: MarkerSet, subj: TrialSubject, cache: dict | None, required=None):
    """Read, orient and calibrate a static trial; ``(calibration, frames)``, from ``cache`` when it holds it.

    ``static``: a file, or a :class:`~humanbody.trial.Trial` already read
    under the ``axes_spec`` mapping (not cached).  ``required``: the markers
    the static trial must hold (default: the set's ``required``; the
    pipeline passes those the motion trial has).

    The cache key is the SHA-256 of the file's bytes with everything else
    the calibration depends on (axes mapping, marker set, mass, height,
    sex, subject file), so an edited static trial is calibrated anew.
    """
    mass, height = subj.calibration_mass, subj.height
    key = None
    if isinstance(static, Trial) and getattr(static.axes, "spec", None) != axes_spec:
        raise InputError(f"static trial read under the lab -> ground axes {getattr(static.axes, 'spec', None)!r}, "
                         f"not the trial's {axes_spec!r}: read it with axes={axes_spec!r}", static.source)
    if cache is not None and not isinstance(static, Trial):
        try:
            with open(static, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            digest = None  # Trial.read below says what is wrong with the file
        if digest is not None:
            key = (digest, axes_spec, repr(mset), float(mass), None if height is None else float(height), subj.sex,
                   repr(subj.file), None if required is None else tuple(required))
            if key in cache:
                return cache[key]
    static_trial = static if isinstance(static, Trial) else Trial.read(static, axes=axes_spec)
    name = static_trial.source if isinstance(static, Trial) else static
    if static_trial.kind != "markers":
        raise InputError("static trial must hold marker trajectories", name)
    static_ground = static_trial.to_frame("ground")
    _check_static_markerset(static_ground, mset, name)
    value = (calibrate_markers(static_ground, mset, mass=mass, height=height, sex=subj.sex, subject=subj.file,
                               required=required), static_trial.n_frames)
    if key is not None and cache is not None:
        if len(cache) >= 16:  # a batch holds a few subjects at a time
            cache.pop(next(iter(cache)))
        cache[key] = value
    return value


def _check_static_markerset(static_trial, mset, static) -> None:
    """Refuse, in one line naming both sets, a static trial holding another marker set's markers.

    A static trial with fewer than half of the trial's set's required markers is taken as one
    from another set (a marker-cluster static given to a keypoint trial, say); fewer missing
    ones are left to :func:`calibrate_model`, which names the first.
    """
    names = static_trial.attrs.get("markers") or [c[:-2] for c in static_trial.columns if c.endswith("_x")]
    found = match_markers(mset, names)
    if sum(m in found for m in mset.required) * 2 >= len(mset.required):
        return
    try:
        other = f" (they match marker set {detect_markerset(names).name!r})"
    except InputError:
        other = ""
    hint = "; a keypoint trial needs no static: leave `static` out" if mset.keypoints else ""
    raise InputError(f"its markers are not those of the trial's marker set {mset.name!r}{other}: give a "
                     f"`static` trial with the same markers{hint}", static)


def _tracking_lines(calibration, tracking, warnings: list | None = None, fit: str | None = None) -> list[str]:
    """A few lines on the marker set, the calibration and the fit quality; segments carried from their parent
    too long (:func:`humanbody.checks.outputs.carried_findings`) added to ``warnings``.  ``fit``, the static
    trial's fit check (:func:`_static_fit`), ends the residual's line (the residual says what was checked),
    else the lines."""
    lines = [
        f"marker set {calibration.markerset.name!r}; calibrated from the {calibration.mode} trial "
        f"{calibration.source}; subject height {calibration.height:.3f} m"
    ]
    lines += [Note(f"calibration: {note}", priority_of(note)) for note in calibration.notes]
    warn, bad = check_lengths(calibration.model, float(calibration.height))
    lines += [f"calibration: CHECK the marker set: {w}" for w in warn + bad]
    res = tracking.residuals.drop(columns="time")
    if res.shape[1]:
        med = res.median() * 1000.0
        worst = med.idxmax()
        lines.append(
            f"tracking: median RMS marker residual {np.nanmedian(res.to_numpy()) * 1000:.1f} mm "
            f"(largest: {worst} {med[worst]:.1f} mm)" + (f"; {fit}" if fit else "")
        )
        fit = None
    joined = tracking.joined
    if joined:
        lines.append("tracking: frames with too few markers fitted with the segment's joint centres joined: "
                     + ", ".join(f"{k} {v}" for k, v in joined.items()))
    counts = tracking.status_counts  # from the categories' codes: no label compared
    odd = {seg: int(n[STATUS.index("fallback")]) for seg, n in counts.items() if n[STATUS.index("fallback")]}
    if odd:
        lines.append("tracking: frames without enough markers (pose carried from the parent): "
                     + ", ".join(f"{k} {v}" for k, v in odd.items()))
        if warnings is not None:
            warnings += carried_findings(tracking.status[list(odd)], tracking.status["time"].to_numpy())
    # frames where a segment has no pose at all (no markers and no parent to carry it): empty rows
    gone = {seg: int(n[STATUS.index("missing")]) for seg, n in counts.items() if n[STATUS.index("missing")]}
    if gone and len(gone) == len(counts) and len(set(gone.values())) == 1:
        lines.append(f"tracking: {next(iter(gone.values()))} frame(s) with no pose (no markers to fit; "
                     "their rows are empty)")
    elif gone:
        lines.append("tracking: frames with no pose (rows empty): "
                     + ", ".join(f"{k} {v}" for k, v in gone.items()))
    lines += [f"tracking: {line}" for line in tracking.singular_lines()]
    lines += [f"tracking: {line}" for line in tracking.limit_notes]
    return lines + ([fit] if fit else [])


class _Progress:
    """A tqdm bar over the analysis stages; silent unless asked and on a terminal."""

    STAGES = ("read", "condition", "track", "compute")

    def __init__(self, enabled: bool, label: str):
        self.bar = None
        if enabled:
            from tqdm import tqdm  # an optional dependency

            if sys.stderr.isatty():
                self.bar = tqdm(total=len(self.STAGES), desc=Path(label).name, unit="step", leave=False)

    def advance(self, stage: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(stage)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

"""One trial from file to mechanics: :func:`analyze_trial`, a short chain of named stages.

:func:`analyze_trial` is what ``humanbody analyze``, the batch report and
the viewer run for one trial file, with one
:class:`~humanbody.options.AnalysisOptions`.  Its stages, each a function
here taking and giving Trials, Models and Results:

=============  ======================================================================
read           :func:`read`: the :class:`~humanbody.trial.Trial` (markers in ground
               axes, :func:`humanbody.markers.axes.to_ground`) and its force plates
               under the same mapping (:func:`humanbody.trial.load_trial`)
subject        :func:`subject_model`: the given or scaled model (mass from the plates)
condition      :func:`condition`: marker set, gap filling, low-pass filter
               (:func:`humanbody.markers.conditioning.condition`)
calibrate      :func:`calibrate`: the subject's model from the static trial
               (:func:`humanbody.markers.calibration.calibrate`)
track          :func:`track`: generalized coordinates from the markers (segment fits
               or whole-body IK), or :func:`orientations` for IMU trials
rates          :func:`rates`: first and second derivatives (:func:`humanbody.mechanics.kinematics.prepare_motion`)
mechanics      :func:`mechanics`: the :class:`Analysis`, its :class:`~humanbody.mechanics.results.Results`
               computed on first use
loads          :func:`loads`: external loads conditioned and given to segments
               (:func:`humanbody.mechanics.loads.condition_loads`, :func:`~humanbody.mechanics.foot_contact.assign_loads`)
kinetics       :attr:`Analysis.kinetics` (:func:`humanbody.mechanics.kinetics.kinetic_block`)
clinical       :attr:`Analysis.clinical` (:func:`humanbody.mechanics.clinical.clinical_angles`)
write          :func:`write`: :func:`humanbody.trial_output.write_results`, the mechanics and
               kinetics computed frame range by range
=============  ======================================================================

Every stage reports what it did in ``Analysis.messages`` (conversions, the
axes mapping, filled gaps, the marker set, how rates were obtained).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError
from .mechanics.kinematics import Motion, compute_motion, prepare_motion
from .mechanics.results import Results
from .model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from .model.body import BodyModel, load_model
from .options import AnalysisOptions
from .trial import Trial, load_forces, load_trial

__all__ = ["Analysis", "AnalysisOptions", "analyze_trial", "DEFAULT_MASS", "DEFAULT_HEIGHT", "read",
           "subject_model", "condition", "calibrate", "track", "orientations", "rates", "mechanics", "loads"]



@dataclass(eq=False)
class Analysis:
    """Everything known about one analysed trial.

    Attributes
    ----------
    source : str                       the trial file
    coords : DataFrame                 generalized coordinates (layout of docs/conventions.md, rad)
    model : BodyModel                  the model used (calibrated when a static trial was given)
    motion : Motion                    coordinates with their rates, ready for the kernel
    results : Results                  the mechanics (computed on first access)
    markers : DataFrame or None        marker trajectories in ground axes after conditioning
    calibration : object or None       static calibration (marker trials)
    loads : FrameLoads or None         external loads on the frames, assigned to segments (--forces)
    angle_zero : str                   zero of the clinical angles: "anatomical" (default) or "static"
    load_table : LoadTable or None     the loads as read (ground axes, the file's own rate), for export
    raw : DataFrame or None            the marker trial as read (lab axes), kept when asked (for export)
    axes : AxesMapping or None         the lab -> ground axes of a marker trial
    events : DataFrame or None         gait events the trial file carries (a C3D file's ``EVENT`` group;
                                       :attr:`humanbody.trial.Trial.events`, ``source`` "file"), for marker
                                       trials; None when the file has none (the report then finds them)
    tracking : object or None          tracking result with residuals (marker trials)
    messages : list of str             what each step did, for the user (a screenful)
    details : list of str              per-marker and per-gap details (``--verbose``, and the log file)
    """

    source: str
    coords: pd.DataFrame
    model: BodyModel
    motion: Motion
    markers: pd.DataFrame | None = None
    calibration: Any = None
    tracking: Any = None
    messages: list = field(default_factory=list)
    details: list = field(default_factory=list)
    loads: Any = None
    angle_zero: str = "anatomical"
    load_table: Any = None
    axes: Any = None
    raw: Any = None
    events: pd.DataFrame | None = None
    _results: Results | None = field(default=None, repr=False)
    _clinical: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def kinetics(self) -> pd.DataFrame | None:
        """The kinetic columns (docs/conventions.md) as a table, when external loads were given; else None."""
        if self.loads is None:
            return None
        from .mechanics.kinetics import kinetic_block, kinetic_columns

        return pd.DataFrame(kinetic_block(self.model, self.results, self.loads),
                            columns=kinetic_columns(self.model))

    @property
    def clinical(self) -> pd.DataFrame:
        """Clinical joint angles (degrees, one row per frame; :func:`humanbody.mechanics.clinical.clinical_angles`).

        Zero as ``angle_zero`` says: between the anatomical segment frames
        (default), or in the calibration pose (``"static"``; the upper limbs
        in the reference posture).  Computed on first access, then kept.
        """
        if self._clinical is None:
            from .mechanics.clinical import clinical_angles

            self._clinical = clinical_angles(self.model, self.coords, self.calibration, zero=self.angle_zero)
        return self._clinical

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

    @property
    def results(self) -> Results:
        """The mechanics of every frame (computed on first access, then kept).

        A long trial written by :func:`write_results` never needs them all at
        once: it is evaluated range by range from ``motion``.
        """
        if self._results is None:
            self._results = compute_motion(self.model, self.motion)
        return self._results

    @property
    def held_results(self) -> Results | None:
        """The mechanics of every frame when a stage has computed them already (the loads' assignment), else
        None: :func:`humanbody.trial_output.write_results` then computes them range by range."""
        return self._results

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
        return getattr(self.tracking, "residuals", None)


def _subject_model(model, mass, height, sex, messages) -> BodyModel | None:
    if model is not None:
        if isinstance(model, BodyModel):
            return model
        messages.append(f"model: {model}")
        return load_model(model)
    if mass is None and height is None:
        return None
    m = DEFAULT_MASS if mass is None else float(mass)
    h = DEFAULT_HEIGHT if height is None else float(height)
    return BodyModel.default(mass=m, height=h, sex=sex)


def analyze_trial(path, options: AnalysisOptions | None = None, *, progress: bool = False,
                  keep_markers: bool = True, calibration_cache: dict | None = None, keep_raw: bool | None = None,
                  **overrides: Any) -> Analysis:
    """Analyse one trial file (markers, generalized coordinates or orientations).

    The stages, each a function of this module: :func:`read` (the
    :class:`~humanbody.trial.Trial` and its force plates under one axes
    mapping), :func:`subject_model`, :func:`condition`, :func:`calibrate`,
    :func:`track` (or :func:`orientations` for IMU trials), :func:`rates`,
    :func:`mechanics`, :func:`loads`; the kinetics and clinical angles are
    :attr:`Analysis.kinetics` and :attr:`Analysis.clinical`, and :func:`humanbody.trial_output.write`
    writes the files, the mechanics and kinetics computed frame range by
    range.

    Parameters
    ----------
    path : str or Path
        Trial file: marker TRC/C3D/CSV/TSV, a generalized-coordinates CSV or
        an orientation trial (OpenSense ``.sto``, Xsens ``.mvnx``).
    options : AnalysisOptions, optional
        Every analysis choice (:class:`humanbody.options.AnalysisOptions`:
        static trial, marker set, subject, axes, filters, tracking, rates,
        external loads, ...); default: ``AnalysisOptions()``.
    progress : bool
        Show a progress bar over the stages (long trials, on a terminal).
    keep_markers : bool
        Keep the conditioned marker table in ``Analysis.markers`` (the viewer
        draws it); ``humanbody analyze`` lets it go once the segments are
        tracked, 24 bytes per marker and frame less to hold while the
        results are written.
    calibration_cache : dict, optional
        Calibrations already made, reused when the same static trial (by
        content: a SHA-256 of the file's bytes) is calibrated again with the
        same axes, marker set and subject (what a batch of one subject's
        trials does).  Filled as a side effect; the results are exactly
        those of a new calibration.
    keep_raw : bool, optional
        Keep the marker trial as read in ``Analysis.raw`` (an export writes
        it again instead of reading the file twice); default: when
        ``options.export`` names a format.
    **overrides
        Any :class:`~humanbody.options.AnalysisOptions` field by name
        (``static=``, ``mass=``, ``forces=``, ``load_segments={"plate1": "right_foot"}``,
        ...), applied over ``options``: ``analyze_trial("walk.trc",
        static="static.trc", mass=72.6)`` works as it always did.
        An unknown name is a TypeError.
    """
    opts = options_with(options, overrides)
    from .mechanics.clinical import ANGLE_ZEROS

    if opts.angle_zero not in ANGLE_ZEROS:
        raise InputError(f"angle_zero must be one of {', '.join(ANGLE_ZEROS)}, not {opts.angle_zero!r}",
                         option="angle_zero")
    if opts.moment_frame is not None:
        from .mechanics.moment_frames import MOMENT_FRAMES

        if opts.moment_frame not in MOMENT_FRAMES:
            raise InputError(f"moment_frame must be one of {', '.join(MOMENT_FRAMES)}, not {opts.moment_frame!r}",
                             option="moment_frame")
    path = os.fspath(path)
    run = _Run(path, opts, calibration_cache)
    run.subj = _subject_file(opts.subject, run.messages)
    if run.subj is not None:
        run.mass = run.subj.mass if opts.mass is None else opts.mass
        run.height = run.subj.height if opts.height is None else opts.height
    steps = _Progress(progress, path)
    trial = read(path, run)
    steps.advance("read")
    model = subject_model(trial, run)
    plates, mapping, events = trial.forces, trial.axes, trial.events
    calibration = tracking = markers = raw = None
    if trial.kind in ("coordinates", "orientations"):
        model = _default_model(model, run)
        coords = trial.to_frame() if trial.kind == "coordinates" else orientations(trial, model, run)
        steps.advance("condition")
        steps.advance("track")
    else:  # markers (humanbody.trial.load_trial takes no other kind)
        raw = trial.to_frame() if (bool(opts.export) if keep_raw is None else keep_raw) else None
        trial, mset, found, required = condition(trial, run)  # the trial as read is let go here
        markers = trial.to_frame("ground")
        del trial  # the conditioned markers live in `markers` as long as they are needed
        steps.advance("condition")
        calibration = calibrate(markers, mset, required, run)
        tracking = track(markers, calibration, mset, found, required, run)
        coords = tracking.coords
        if not keep_markers and not (opts.reduce_residuals and plates is not None):  # the reduction limits them
            markers = None
        if model is None or opts.model is None:  # the given model file wins over the calibrated one
            model = calibration.model if opts.model is None else model
        steps.advance("track")
    assert model is not None
    if opts.moment_frame is not None or plates is not None:  # the frame of the clinical moments, and the log's line
        from .mechanics.moment_frames import moment_frame, moment_frame_note, with_moment_frame

        model = with_moment_frame(model, opts.moment_frame or moment_frame(model))  # model.json names it
        if plates is not None:
            run.messages.append(moment_frame_note(model))
    motion = rates(model, coords, run)
    if tracking is not None:
        run.details += [f"tracking: {line}" for line in tracking.summary()]
    analysis = mechanics(model, coords, motion, run, markers=markers, calibration=calibration,
                         tracking=tracking, axes=mapping, raw=raw, events=events)
    if plates is not None:
        analysis.loads, analysis.load_table = loads(analysis, plates, run)
        from .checks.force_clock import check_force_clock

        run.messages.append(check_force_clock(plates, analysis.loads, analysis.results, analysis.model,
                                              analysis.motion.time, skip="force-clock" in opts.skip_checks,
                                              given=[name for name, _ in opts.load_segments]))
        if run.mass_from_plates:
            _plates_mass(analysis, run)
        if opts.reduce_residuals:  # docs/kinetics.md "Residual reduction"
            from .mechanics.reduction import reduce_analysis

            reduce_analysis(analysis, markers)
            analysis.markers = markers if keep_markers else None
    elif opts.reduce_residuals:
        run.messages.append("residual reduction: not done: the trial has no force plates (--forces)")
    steps.advance("compute")
    steps.close()
    return analysis


def options_with(options: AnalysisOptions | None, overrides: dict) -> AnalysisOptions:
    """``options`` (default ``AnalysisOptions()``) with the keyword ``overrides`` applied."""
    opts = AnalysisOptions() if options is None else options
    if not isinstance(opts, AnalysisOptions):
        raise TypeError(f"options must be an AnalysisOptions, not {type(opts).__name__}")
    return opts.replace(**overrides) if overrides else opts


@dataclass(eq=False)
class _Run:
    """What the stages of one :func:`analyze_trial` share: the options, the subject and the log."""

    path: str
    options: AnalysisOptions
    calibration_cache: dict | None = None
    messages: list = field(default_factory=list)
    details: list = field(default_factory=list)
    subj: Any = None
    axes: Any = None
    mass: float | None = None
    height: float | None = None
    cutoff_hz: float | None = None
    mass_from_plates: bool = False

    def __post_init__(self):
        self.mass, self.height = self.options.mass, self.options.height
        cut = self.options.cutoff_hz
        self.cutoff_hz = None if isinstance(cut, str) else cut


# ------------------------------------------------------------------ stages
def read(path: str, run: _Run) -> Trial:
    """Stage "read": the :class:`~humanbody.trial.Trial` (markers in ground axes) and its force plates.

    The plates are ``options.forces``, or a C3D marker trial's own force
    platforms when it has some (``options.use_platforms``); they are read
    under the markers' lab -> ground mapping (:func:`humanbody.trial.load_trial`).
    """
    opts = run.options
    forces = opts.forces
    trial = load_trial(path, axes=opts.axes, imu_map=opts.imu_map)
    run.axes = trial.axes
    # the axes line is printed with the marker steps (after the subject lines), where it has always been
    run.messages += [line for line in trial.log if not line.startswith("axes: ")]
    if forces is None and path.lower().endswith(".c3d") and trial.kind == "markers" and opts.use_platforms:
        from .io.forceplates import c3d_has_platforms

        if c3d_has_platforms(path):
            forces = path  # a C3D trial's own force platforms
            run.messages.append("loads: the trial's own force platforms")
    if forces is not None:
        trial.forces = load_forces(forces, trial.axes if trial.kind == "markers" else None, opts.load_map)
    return trial


def subject_model(trial: Trial, run: _Run) -> BodyModel | None:
    """Stage "subject": the model of ``options.model``, or the default one scaled to the subject's mass and height.

    Without a mass (nor a model), the mass is the plates', estimated after
    the loads stage over the frames with the whole weight on them
    (:func:`humanbody.checks.mass.plates_mass`).
    None when neither mass nor height is known: a marker trial's
    calibration then scales the model.
    """
    opts = run.options
    if run.mass is None and opts.model is None:
        if trial.forces is None:
            run.messages.append(f"no --mass and no force plates: {DEFAULT_MASS:g} kg assumed")
        else:  # estimated once the feet are tracked (:func:`_plates_mass`)
            run.mass_from_plates = True
    return _subject_model(opts.model, run.mass, run.height, opts.sex, run.messages)


def _default_model(model: BodyModel | None, run: _Run) -> BodyModel:
    """The model of a trial without markers: the subject's, else the default one (said so)."""
    if model is None:
        model = BodyModel.default(mass=DEFAULT_MASS, height=DEFAULT_HEIGHT, sex=run.options.sex)
        run.messages.append(f"no --model or --height: using the default model for {DEFAULT_HEIGHT:g} m")
    return model


def orientations(trial: Trial, model: BodyModel, run: _Run) -> pd.DataFrame:
    """Stage "track" of an orientation (IMU) trial: sensor orientations -> generalized coordinates.

    :func:`humanbody.imu.orientations_to_coordinates`, calibrated on
    ``options.static`` (an orientation file in the calibration posture) or
    the trial's first still window (:func:`humanbody.checks.imu_still.check_still_window`;
    refused when it has none).
    """
    from .imu import orientations_to_coordinates

    opts = run.options
    if trial.n_frames < 2:
        raise InputError("has one frame: a calibration posture (give it as `static`), not a trial", run.path)
    posture = None
    if opts.static is not None:
        static = load_trial(opts.static, axes="x,y,z", imu_map=opts.imu_map)  # lab axes as they are: a marker file is refused below
        if static.kind != "orientations":
            raise InputError("static trial of an orientation trial must be an orientation file", opts.static)
        posture = static.to_frame()
    frame = trial.to_frame()
    if posture is None and not frame.attrs.get("anatomical"):  # calibrated on a still window of the trial
        from .checks.imu_still import check_still_window

        posture, line = check_still_window(frame, list(frame.attrs["segment_of"].values()), run.path,
                                           skip="imu-still" in opts.skip_checks)
        run.messages.append(line)
    coords, notes = orientations_to_coordinates(frame, model, static=posture, axes=opts.axes,
                                                heading=opts.imu_heading, knee=opts.imu_knee)
    run.messages += [f"orientations: {line}" for line in notes if not line.startswith("mapping:")]
    run.details += [f"orientations: {line}" for line in notes if line.startswith("mapping:")]
    return coords


def condition(trial: Trial, run: _Run):
    """Stage "condition" of a marker trial: marker set, unused markers out, gaps filled, low-pass filtered.

    Returns ``(conditioned Trial, marker set, found, required)``: ``found``
    maps the set's marker names to the trial's, ``required`` lists the set's
    required markers the trial has (:func:`humanbody.markers.conditioning.condition`,
    :func:`humanbody.markers.markerset.resolve_markerset`; a hip calibration
    trial gives functional hip centres, :func:`humanbody.markers.functional_joint.functional_hips`).
    """
    from .io import read_trial as read_frame
    from .markers.conditioning import condition as condition_markers
    from .markers.markerset import resolve_markerset
    opts, messages, path = run.options, run.messages, run.path
    ground = trial.to_frame("ground")
    messages.append(f"axes: {trial.axes.describe()}")
    names = ground.attrs.get("markers") or [c[:-2] for c in ground.columns if c.endswith("_x")]
    mset, found = resolve_markerset(opts.markerset, names, path, required=())
    found = _with_samples(ground, found, messages)
    required = _present_required(mset, found, path, messages)
    if opts.hip_trial is not None:
        from .markers.functional_joint import functional_hips

        try:
            mset, lines = functional_hips(mset, read_frame(opts.hip_trial))
        except InputError as err:
            raise err.with_path(opts.hip_trial) from None
        messages += lines
    clusters = {
        seg: [found[m] for m in spec.markers if m in found]
        for seg, spec in mset.segments.items()
        if spec.rule == "cluster"
    }
    used = set(found.values())
    unused = [m for m in names if m not in used]
    if unused:  # markers the set does not use (unlabeled ones included): counted, never filled or filtered
        ground = ground.drop(columns=[f"{m}_{a}" for m in unused for a in "xyz" if f"{m}_{a}" in ground.columns])
        ground.attrs["markers"] = [m for m in names if m in used]
        unlabeled = sum(1 for m in unused if m.startswith("*") or m.lower().startswith("unlabeled"))
        messages.append(f"ignored {len(unused)} marker(s) the marker set {mset.name!r} does not use"
                        + (f" ({unlabeled} unlabeled)" if unlabeled else ""))
        run.details.append(f"ignored markers: {', '.join(unused)}")
    markers, report = condition_markers(ground, max_gap=opts.max_gap, cutoff_hz=opts.cutoff_hz, fill=opts.fill,
                                        segments={k: v for k, v in clusters.items() if len(v) >= 3})
    del ground
    run.cutoff_hz = None if report.filter is None else report.filter.cutoff_hz  # the one chosen under "auto"
    messages += list(report.summary_lines())
    run.details += [f"conditioning: {line}" for line in report.lines()]
    out = Trial.from_frame(markers, axes=trial.axes, lab_attrs=trial.attrs)
    out.forces, out.log, out.events = trial.forces, trial.log, trial.events
    return out, mset, found, required


def calibrate(markers: pd.DataFrame, mset, required: list, run: _Run):
    """Stage "calibrate": the subject's model from the static trial (cached by content) or from the trial itself.

    :func:`humanbody.markers.calibration.calibrate` on ``options.static``
    (read under the trial's axes mapping) or, without one, on the
    conditioned markers (``mode="dynamic"``).
    """
    from .markers.calibration import calibrate as calibrate_markers

    opts = run.options
    subject_mass = DEFAULT_MASS if run.mass is None else float(run.mass)
    if opts.static is not None:
        # a required marker the trial lacks is not asked of the static trial either (sparse sets)
        calibration, static_frames = _static_calibration(
            opts.static, run.axes.spec, mset, subject_mass, run.height, opts.sex, run.calibration_cache,
            run.subj, required=None if len(required) == len(mset.required) else required)
        run.messages.append(f"static trial {os.fspath(opts.static)}: {static_frames} frames, same axes mapping")
        return calibration
    return calibrate_markers(markers, mset, mass=subject_mass, height=run.height, sex=opts.sex, mode="dynamic",
                             required=required, subject=run.subj)


def track(markers: pd.DataFrame, calibration, mset, found: dict, required: list, run: _Run):
    """Stage "track": the generalized coordinates of every frame from the markers.

    Segment fits (:func:`humanbody.markers.tracking.track`) or whole-body
    inverse kinematics (:func:`humanbody.markers.global_ik.track_global`) as
    ``options.ik`` and :func:`humanbody.markers.global_ik.choose_method` say.
    """
    from .markers.global_ik import choose_method, track_global
    from .markers.tracking import track as track_segments

    where = markers.columns.get_indexer([f"{col}_x" for col in found.values()])
    values = markers.to_numpy(dtype=float, copy=False)  # one float block: a view
    seen = (where >= 0) & ~np.isnan(values[:, np.maximum(where, 0)]).all(axis=0)
    present = [m for m, ok in zip(found, seen, strict=True) if ok]
    try:
        method, why = choose_method(mset, present, run.options.ik)
    except InputError as err:  # a forced --ik this trial cannot take: name the trial
        raise err.with_path(run.path) from None
    run.messages.append(f"tracking: {'whole-body inverse kinematics' if method == 'global' else 'segment fits'}"
                        f" ({why})")
    limits = run.options.joint_limits
    set_limits = mset.ik.get("limits")
    if method == "global" and limits not in (None, "off"):
        run.messages.append(f"tracking: joint limits: {limits} (--joint-limits)")
    elif method == "global" and limits is None and set_limits not in (None, False, "off"):
        what = set_limits if isinstance(set_limits, str) else "a table"
        run.messages.append(f"tracking: joint limits: {what} (marker set {mset.name!r} [ik] limits"
                            + ("; keypoint sets: knees and elbows within 5 deg of straight)" if mset.keypoints else ")"))
    elif method != "global" and limits not in (None, "off"):
        run.messages.append(f"tracking: --joint-limits {limits} not used: joint limits act in whole-body "
                            "inverse kinematics only (--ik global)")
    if method == "global":
        tracking = (track_global(markers, calibration, keep_frames=False, required=required) if limits is None
                    else track_global(markers, calibration, keep_frames=False, required=required, limits=limits))
    else:
        tracking = track_segments(markers, calibration, keep_frames=False, required=required)
    run.messages += _tracking_lines(calibration, tracking)
    if run.options.static is not None:
        from .checks.static_fit import check_static_fit

        line = check_static_fit(run.options.static, tracking, skip="static" in run.options.skip_checks,
                                calibration=calibration, markers=markers)
        said = [k for k, m in enumerate(run.messages) if m.startswith("tracking: median RMS marker residual")]
        if line and said:  # the residual's own line says what was checked
            run.messages[said[-1]] += f"; {line}"
        elif line:
            run.messages.append(line)
    return tracking


def rates(model: BodyModel, coords: pd.DataFrame, run: _Run) -> Motion:
    """Stage "rates": the coordinates with their first and second time derivatives (given, or differentiated).

    :func:`humanbody.mechanics.kinematics.prepare_motion` with ``options.differentiation``.
    """
    coords.attrs.setdefault("source", run.path)
    motion = prepare_motion(model, coords, differentiation=run.options.differentiation)
    run.messages.append(f"rates: {motion.how}")
    return motion


def mechanics(model: BodyModel, coords: pd.DataFrame, motion: Motion, run: _Run, **parts) -> Analysis:
    """Stage "mechanics": the :class:`Analysis`; its :attr:`~Analysis.results` are computed on first use.

    :func:`write` evaluates them frame range by range (with the kinetics
    in the same pass), so a long trial is never held whole.
    """
    return Analysis(source=run.path, coords=coords, model=model, motion=motion, messages=run.messages,
                    details=run.details, angle_zero=run.options.angle_zero, **parts)


def loads(analysis: Analysis, table, run: _Run):
    """Stage "loads": the external loads on the motion's frames, each given to a segment; ``(FrameLoads, table)``.

    :func:`humanbody.mechanics.loads.condition_loads` (threshold, low-pass
    at ``options.forces_cutoff_hz`` or the markers' cut-off, resampled to
    the frames) and :func:`humanbody.mechanics.foot_contact.assign_loads` (named
    segment, else the nearest foot).  The assignment needs the feet's
    poses in every frame: the kinematics computed here are kept
    (``analysis.results``) and :func:`write` reuses them, so every frame's
    kinematics are computed once.
    """
    from .mechanics.foot_contact import assign_loads
    from .mechanics.loads import condition_loads

    opts, model = run.options, analysis.model
    for name, seg in opts.load_segments:
        if seg not in model.names:
            raise InputError(f"load_segments {name}={seg}: no segment {seg!r} in the model "
                             f"(segments: {', '.join(model.names)})", option="load_segments")
    cut = run.cutoff_hz if opts.forces_cutoff_hz is None else opts.forces_cutoff_hz
    frame_loads = condition_loads(table, analysis.motion.time, cutoff_hz=cut or None,
                                  threshold=opts.force_threshold)
    assigned = assign_loads(frame_loads, table.segments, model, analysis.results)
    from .checks.plates import assignment_line

    run.messages += assignment_line(table.notes + frame_loads.notes)
    return assigned, table


def _with_samples(ground: pd.DataFrame, found: dict, messages) -> dict:
    """``found`` without the markers whose columns hold no valid sample (listed in ``messages``).

    Video-keypoint writers keep a column for every keypoint of their
    skeleton, empty (or NaN) when it was never triangulated; such a marker
    counts as missing, like one the file does not name.
    """
    empty = []
    for col in found.values():
        cols = [f"{col}_{a}" for a in "xyz"]
        if all(c in ground.columns for c in cols) and not np.isfinite(ground[cols].to_numpy()).all(axis=1).any():
            empty.append(col)
    if empty:
        messages.append(f"{len(empty)} marker(s) without a valid sample, left out: {', '.join(empty)}")
    return {k: v for k, v in found.items() if v not in empty}


def _present_required(mset, found, path, messages) -> list:
    """The set's required markers the trial has; the missing ones listed in ``messages``.

    Missing required markers are not fatal while the markers present still
    determine every tracked segment through its joints
    (:func:`humanbody.markers.markerset.undetermined_segments`).
    """
    from .markers.markerset import undetermined_segments

    missing = [m for m in mset.required if m not in found]
    if missing:
        lost = undetermined_segments(mset, found)
        if lost:
            seg, pts = lost[0]
            raise InputError(f"required marker {missing[0]!r} of marker set {mset.name!r} is missing and "
                             f"segment {seg!r} keeps {pts} point(s): too few to determine it through its "
                             "joints", path)
        messages.append(f"marker set {mset.name!r}: {len(missing)} required marker(s) missing "
                        f"({', '.join(missing)}); every tracked segment is still determined through its joints")
    return [m for m in mset.required if m in found]


def _plates_mass(analysis: Analysis, run: _Run) -> None:
    """The subject's mass from the plates over the frames with the whole weight on them
    (:func:`humanbody.checks.mass.plates_mass`); the model's masses and inertias scaled to it."""
    from .checks.mass import plates_mass
    from .mechanics.body_mass import scaled_model

    m, lines = plates_mass(analysis.loads, analysis.results, analysis.model, analysis.motion.time,
                           analysis.load_table.source, skip="mass" in run.options.skip_checks)
    run.messages += lines
    if m is not None:
        analysis.model = scaled_model(analysis.model, m)
        analysis._results = None  # the inertial quantities follow the new masses


def _subject_file(subject, messages):
    """The :class:`~humanbody.io.subject.Subject` of ``subject`` (a path or one already read), or None."""
    if subject is None:
        return None
    from .io.subject import Subject, read_subject

    subj = subject if isinstance(subject, Subject) else read_subject(subject)
    given = subj.measured()
    messages.append(f"subject {subj.source or 'measurements'}: {len(given)} measurement(s)"
                    + (f", mass {subj.mass:g} kg" if subj.mass is not None else "")
                    + (f", height {subj.height:.3f} m" if subj.height is not None else ""))
    return subj


def _static_calibration(static, axes_spec, mset, mass, height, sex, cache, subject=None, required=None):
    """Read, orient and calibrate a static trial; ``(calibration, frames)``, from ``cache`` when it holds it.

    ``required``: the markers the static trial must hold (default: the set's
    ``required``; the pipeline passes those the motion trial has).

    The cache key is the SHA-256 of the file's bytes with everything else
    the calibration depends on (axes mapping, marker set, mass, height,
    sex), so an edited static trial is calibrated anew.
    """
    import hashlib

    from .markers.calibration import calibrate

    key = None
    if cache is not None:
        try:
            with open(static, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            digest = None  # Trial.read below says what is wrong with the file
        if digest is not None:
            key = (digest, axes_spec, repr(mset), float(mass), None if height is None else float(height), sex,
                   repr(subject), None if required is None else tuple(required))
            if key in cache:
                return cache[key]
    static_trial = Trial.read(static, axes=axes_spec)
    if static_trial.kind != "markers":
        raise InputError("static trial must hold marker trajectories", static)
    static_ground = static_trial.to_frame("ground")
    _check_static_markerset(static_ground, mset, static)
    value = (calibrate(static_ground, mset, mass=mass, height=height, sex=sex, subject=subject, required=required),
             static_trial.n_frames)
    if key is not None:
        if len(cache) >= 16:  # a batch holds a few subjects at a time
            cache.pop(next(iter(cache)))
        cache[key] = value
    return value


def _check_static_markerset(static_trial, mset, static) -> None:
    """Refuse, in one line naming both sets, a static trial holding another marker set's markers.

    A static trial with fewer than half of the trial's set's required markers is taken as one
    from another set (a marker-cluster static given to a keypoint trial, say); fewer missing
    ones are left to :func:`calibrate`, which names the first.
    """
    from .markers.markerset import detect_markerset, match_markers

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


def _tracking_lines(calibration, tracking) -> list[str]:
    """A few lines on the marker set, the calibration and the fit quality."""
    import numpy as np

    lines = [
        f"marker set {calibration.markerset.name!r}; calibrated from the {calibration.mode} trial "
        f"{calibration.source}; subject height {calibration.height:.3f} m"
    ]
    lines += [f"calibration: {note}" for note in calibration.notes]
    from .markers.plausibility import check_lengths

    warn, bad = check_lengths(calibration.model, float(calibration.height))
    lines += [f"calibration: CHECK the marker set: {w}" for w in warn + bad]
    res = tracking.residuals.drop(columns="time")
    if res.shape[1]:
        med = res.median() * 1000.0
        worst = med.idxmax()
        lines.append(
            f"tracking: median RMS marker residual {np.nanmedian(res.to_numpy()) * 1000:.1f} mm "
            f"(largest: {worst} {med[worst]:.1f} mm)"
        )
    status = tracking.status.drop(columns="time")
    counts = status.isin(["fallback"]).sum()  # one pass over the table, not one per segment
    odd = {seg: int(counts[seg]) for seg in status.columns}
    odd = {k: v for k, v in odd.items() if v}
    if odd:
        lines.append("tracking: frames without enough markers (pose carried from the parent): "
                     + ", ".join(f"{k} {v}" for k, v in odd.items()))
    # frames where a segment has no pose at all (no markers and no parent to carry it): empty rows
    gone = status.isin(["missing"]).sum()
    gone = {seg: int(gone[seg]) for seg in status.columns if gone[seg]}
    if gone and len(gone) == status.shape[1] and len(set(gone.values())) == 1:
        lines.append(f"tracking: {next(iter(gone.values()))} frame(s) with no pose (no markers to fit; "
                     "their rows are empty)")
    elif gone:
        lines.append("tracking: frames with no pose (rows empty): "
                     + ", ".join(f"{k} {v}" for k, v in gone.items()))
    lines += [f"tracking: {line}" for line in tracking.singular_lines()]
    lines += [f"tracking: {line}" for line in getattr(tracking, "limit_notes", ())]
    return lines


class _Progress:
    """A tqdm bar over the analysis stages; silent unless asked and on a terminal."""

    STAGES = ("read", "condition", "track", "compute")

    def __init__(self, enabled: bool, label: str):
        self.bar = None
        if enabled:
            import sys

            from tqdm import tqdm

            if sys.stderr.isatty():
                self.bar = tqdm(total=len(self.STAGES), desc=Path(label).name, unit="step", leave=False)

    def advance(self, stage: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(stage)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

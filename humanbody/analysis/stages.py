"""The stages around the markers': "read", "subject", "track" of an orientation trial, "rates", "mechanics"."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd

from ..checks.edges import edge_line, edge_note
from ..checks.imu_still import check_still_window
from ..errors import EDGES, LOADS, ROUTINE, SETUP, InputError
from ..imu.coordinates import orientations_to_coordinates
from ..io.subject import Subject as SubjectFile

# Imported on use, each where its branch runs (see the functions): the force plates' reader (io.forceplates) and
# the subject file's (io.subject.read_subject), imports a trial without plates or subject file never needs.
from ..mechanics.kinematics import Motion, prepare_motion, spaced_rates
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel, load_model
from ..options import AnalysisOptions
from ..signal.differentiate import Differentiation
from ..trial import Trial, load_forces
from .log import Logbook
from .option_checks import check_load_segments
from .values import Analysis, TrialSubject


def read(path: str, options: AnalysisOptions, log: Logbook) -> Trial:
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
    log : Logbook
        What the stages before said; this stage's lines are added to it.

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
        from ..io.forceplates import c3d_has_platforms  # lazy: imported on use (see the module's imports)

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


def subject(trial: Trial, options: AnalysisOptions, log: Logbook, file: SubjectFile | None = None) -> TrialSubject:
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
    log : Logbook
        What the stages before said; this stage's lines are added to it.
    file : io.subject.Subject, optional
        The subject file's measurements (or a C3D's ``PROCESSING`` group).

    Returns
    -------
    TrialSubject
        The subject's mass (kg), height (m) and sex, each with where it came from (option, subject file,
        or None when the plates or the calibration are to estimate it).
    """
    mass, height = options.mass, options.height
    if file is not None:
        mass = file.mass if mass is None else mass
        height = file.height if height is None else height
    from_plates = mass is None and options.model is None and trial.forces is not None
    if mass is None and options.model is None and trial.forces is None:
        log.message("subject", f"no --mass and no force plates: {DEFAULT_MASS:g} kg assumed")
    return TrialSubject(mass=mass, height=height, sex=options.sex, file=file, mass_from_plates=from_plates)


def subject_model(subj: TrialSubject, options: AnalysisOptions, log: Logbook) -> BodyModel | None:
    """The model of ``options.model``, or the default one scaled to the subject's mass and height.

    None when neither mass nor height is known: a marker trial's
    calibration then scales the model.

    Parameters
    ----------
    subj : TrialSubject
        The subject (stage "subject"): mass (kg), height (m) and sex the default model is scaled to.
    options : AnalysisOptions
        The analysis' options: ``model``.
    log : Logbook
        What the stages before said; this stage's lines are added to it.

    Returns
    -------
    BodyModel or None
        The model to analyse with; None when neither mass nor height is known (the calibration scales it).
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


def orientations(trial: Trial, model: BodyModel, options: AnalysisOptions, log: Logbook) -> pd.DataFrame:
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
    log : Logbook
        What the stages before said; this stage's lines are added to it.

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


def rates(model: BodyModel, coords: pd.DataFrame, options: AnalysisOptions, log: Logbook, source: str = "") -> Motion:
    """Stage "rates": the coordinates with their first and second time derivatives (given, or differentiated).

    :func:`humanbody.mechanics.kinematics.prepare_motion` with ``options.differentiation``; when that is the
    default (``--diff`` not naming another) and the model's marker set names its own method
    (``conventions.rates``: the Plug-in Gait sets' central differences, "gradient", as Nexus differences its
    segment axes for the joint powers), the set's; the feet's angular velocities over ``conventions.foot_rate_frames``
    frames each side when the set names it (:func:`~humanbody.mechanics.kinematics.spaced_rates`).  The frames at the ends whose rates are estimates are
    said in the log (:func:`rate_edges`, the Analysis' ``edges``).

    Parameters
    ----------
    model : BodyModel
        The subject's model (calibrated or scaled): its segments, masses and the conventions of its marker set.
    coords : DataFrame
        Generalized coordinates (rad, m), one row per frame.
    options : AnalysisOptions
        The analysis' options: ``differentiation``.
    log : Logbook
        What the stages before said; this stage's lines are added to it.
    source : str
        The trial file (the coordinates' ``attrs["source"]`` when they name none).

    Returns
    -------
    Motion
        Time (s), the coordinates ``q`` (root origin in m, angles in rad) and their rates ``qd``, ``qdd``
        (as angle rates or parent-frame angular velocity components, :class:`~humanbody.mechanics.kinematics.Motion`).
    """
    if source:
        coords.attrs.setdefault("source", source)
    diff = differentiation(model, options)
    motion = prepare_motion(model, coords, differentiation=diff)
    feet = model.conventions.foot_rate_frames
    if feet and diff.method == "gradient":  # Plug-in Gait's ankle power: the feet differenced wider
        motion = spaced_rates(model, motion, {f"{side}_foot": feet for side in ("right", "left")})
    log.message("rates", f"rates: {motion.how}" + (" (the marker set's)" if diff is not options.differentiation
                                                   else ""), priority=ROUTINE)
    edges = rate_edges(model, motion, options)
    if edges:
        log.message("rates", edge_line(edges), priority=EDGES)
    return motion


def differentiation(model: BodyModel, options: AnalysisOptions) -> Differentiation:
    """How the stage "rates" differentiates: ``options.differentiation``, or, when that is the default and the
    model's marker set names its own method (``conventions.rates``), the set's.

    Parameters
    ----------
    model : BodyModel
        The subject's model; ``conventions.rates`` names its marker set's method (or is empty).
    options : AnalysisOptions
        The analysis' options: ``differentiation`` (``--diff``).

    Returns
    -------
    Differentiation
        ``options.differentiation`` itself, or a new one naming the set's method.
    """
    diff, own = options.differentiation, model.conventions.rates
    if own and diff == Differentiation() and own != diff.method:
        return Differentiation(method=own)
    return diff


def rate_edges(model: BodyModel, motion: Motion, options: AnalysisOptions) -> dict | None:
    """The frames at the trial's ends whose rates are estimates (:func:`humanbody.checks.edges.edge_note`), as the
    stage "rates" differentiated ``motion``: the :class:`~humanbody.analysis.values.Analysis`'s ``edges``.

    Parameters
    ----------
    model : BodyModel
        The subject's model (its marker set's rates, :func:`differentiation`).
    motion : Motion
        The coordinates with their rates (stage "rates"): ``time`` (s) and whether the rates were differentiated.
    options : AnalysisOptions
        The analysis' options: ``differentiation``.

    Returns
    -------
    dict or None
        ``frames`` marked at each end with their times (s); None when every frame's rates have data on both
        sides (or the rates were given).
    """
    return edge_note(differentiation(model, options), motion.time, motion.local_rates)


def mechanics(trial: Trial, model: BodyModel, coords: pd.DataFrame, motion: Motion, options: AnalysisOptions,
              log: Logbook, **parts) -> Analysis:
    """Stage "mechanics": the :class:`Analysis` of ``trial``; its :attr:`~Analysis.results` are computed on first use.

    :func:`humanbody.trial_output.write` evaluates them frame range by
    range (with the kinetics in the same pass), so a long trial is never held whole.

    Parameters
    ----------
    trial : Trial
        The trial as analysed (conditioned markers, or the time base only).
    model : BodyModel
        The subject's model (calibrated or scaled): its segments, masses and the conventions of its marker set.
    coords : DataFrame
        Generalized coordinates (rad, m).
    motion : Motion
        The coordinates with their rates (stage "rates").
    options : AnalysisOptions
        The analysis' options: kept by the Analysis (its exports, its angles' zero).
    log : Logbook
        What the stages before said: the Analysis keeps it as its :class:`~humanbody.analysis.log.Log`.
    **parts
        The other fields of :class:`Analysis` (``markers``, ``calibration``, ``tracking``, ``raw``, ``edges``).

    Returns
    -------
    Analysis
        The trial's analysis before loads: its results computed on first use.
    """
    return Analysis(trial=trial, coords=coords, model=model, motion=motion, options=options, log=log.log, **parts)



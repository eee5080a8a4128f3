"""Stages "loads" and "mass": the force plates' loads given to segments (:func:`apply_loads`) and the subject weighed on them (:func:`weigh`)."""

from __future__ import annotations

from ..checks.force_clock import check_force_clock
from ..checks.force_timing import check_force_timing
from ..checks.mass import plates_mass, stated_mass
from ..checks.plates import assignment_line
from ..errors import ROUTINE

# Imported on use (see the functions): the force plates' modules (mechanics.loads, mechanics.foot_contact), imports
# a trial without plates never needs.
from ..mechanics.body_mass import scaled_model
from ..options import AnalysisOptions
from .log import records
from .values import Analysis, TrialSubject


def apply_loads(analysis: Analysis, options: AnalysisOptions, cutoff_hz: float | None = None) -> Analysis:
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
        The analysis' options: ``load_segments``, ``forces_cutoff_hz`` (Hz), ``force_threshold`` (N).
    cutoff_hz : float, optional
        The markers' cut-off (Hz), the loads' when ``options.forces_cutoff_hz`` is None.

    Returns
    -------
    Analysis
        ``analysis`` with its ``loads`` (a :class:`~humanbody.mechanics.loads.FrameLoads`), the
        kinematics of every frame and the plates' assignment in its log.
    """
    from ..mechanics.foot_contact import assign_loads  # lazy: imported on use (see the module's imports)
    from ..mechanics.loads import condition_loads  # lazy: as above

    model, table = analysis.model, analysis.load_table  # load_segments names its segments (:func:`checked`)
    cut = cutoff_hz if options.forces_cutoff_hz is None else options.forces_cutoff_hz
    frame_mean = model.conventions.load_resampling == "frame_mean"  # Plug-in Gait's
    frame_loads = condition_loads(table, analysis.motion.time, cutoff_hz=cut or None,
                                  threshold=options.force_threshold, frame_mean=frame_mean)
    assigned = assign_loads(frame_loads, table.segments, model, analysis.results)
    said = records("message", "loads", *assignment_line(table.notes + assigned.notes))
    return analysis.replace(loads=assigned, computed=analysis.results, log=analysis.log.added(said))


def weigh(analysis: Analysis, subj: TrialSubject, opts: AnalysisOptions) -> Analysis:
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
        The analysis' options: ``load_segments``, ``skip_checks``, ``mass`` (kg), ``model``.

    Returns
    -------
    Analysis
        A new Analysis with the checks' lines in its log, its model scaled to the plates' mass when weighed.
    """
    table, given, skip = analysis.load_table, {name for name, _ in opts.load_segments}, "force-clock" in opts.skip_checks
    edges = int(analysis.edges["frames"]) if analysis.edges else 0  # frames at each end with estimated rates
    line = check_force_clock(table, analysis.loads, analysis.results, analysis.model, analysis.motion.time,
                             skip=skip, given=list(given), trial=analysis.source)
    judged = [name not in given and seg in (None, "right_foot", "left_foot")
              for name, seg in zip(table.names, table.segments or [None] * len(table.names), strict=True)]
    said = records("message", "mass", f"{line}; " + check_force_timing(
        table, analysis.loads, analysis.results, analysis.model, analysis.motion.time, skip=skip, judged=judged,
        trial=analysis.source))
    model = analysis.model
    if subj.mass_from_plates:
        m, lines = plates_mass(analysis.loads, analysis.results, analysis.model, analysis.motion.time,
                               table.source, skip="mass" in opts.skip_checks, edges=edges)
        said += records("message", "mass", lines[0])  # the mass weighed (or assumed), then its body mass index
        said += records("message", "mass", *lines[1:], priority=ROUTINE)
        if m is not None:  # the inertial quantities follow the new masses: computed anew
            model = scaled_model(analysis.model, m)
    elif subj.mass is not None and opts.model is None:
        where = "--mass" if opts.mass is not None else "the subject file"
        said += records("message", "mass", stated_mass(
            float(subj.mass), where, analysis.loads, analysis.results, analysis.model, analysis.motion.time,
            table.source, skip="mass" in opts.skip_checks, edges=edges), priority=ROUTINE)
    if model is not analysis.model:
        return analysis.replace(model=model, log=analysis.log.added(said))
    return analysis.with_records(said)

"""One trial from file to mechanics: :func:`analyze_trial`, a short chain of named stages, and its value, :class:`Analysis`.

:func:`analyze_trial` (:mod:`~humanbody.analysis.run`) is what ``humanbody analyze``, the batch report and the
viewer run for one trial file, with one :class:`~humanbody.options.AnalysisOptions`, checked once, up front
(:func:`~humanbody.analysis.option_checks.checked`).  Its stages are functions of values: each takes the values
the stages before it gave (a :class:`~humanbody.trial.Trial`, a :class:`TrialSubject`, a :class:`Conditioned`
trial, a calibration, ...) with the options and gives its own; until the :class:`Analysis` exists they say what
they did in a :class:`~humanbody.analysis.log.Logbook`, after it each returns a new Analysis whose
:class:`~humanbody.analysis.log.Log` (a tuple of records) holds its lines:

=============  ======================================================================
read           :func:`~humanbody.analysis.stages.read` -> :class:`~humanbody.trial.Trial`: markers in ground
               axes (:func:`humanbody.lab.axes.to_ground`) and the force plates under the same mapping
subject        :func:`~humanbody.analysis.stages.subject` -> :class:`TrialSubject` (mass, height, sex, subject
               file), and :func:`~humanbody.analysis.stages.subject_model`: the given or scaled model
condition      :func:`~humanbody.analysis.conditioning.condition` -> :class:`Conditioned`: marker set (drafted
               when none matches), gap filling, low-pass filter, functional hips
calibrate      :func:`~humanbody.analysis.static.calibrate_model`: the subject's model from the static trial
               (:func:`humanbody.markers.calibration.calibrate`; a batch's static trials cached by content)
track          :func:`~humanbody.analysis.tracking.track`: generalized coordinates from the markers (segment
               fits or whole-body IK), or :func:`~humanbody.analysis.stages.orientations` for IMU trials
rates          :func:`~humanbody.analysis.stages.rates` -> :class:`~humanbody.mechanics.kinematics.Motion`:
               first and second derivatives; the frames whose rates are estimates (``Analysis.edges``)
mechanics      :func:`~humanbody.analysis.stages.mechanics` -> :class:`Analysis`, holding the Trial; its
               :class:`~humanbody.mechanics.results.Results` computed on first use
loads          :func:`~humanbody.analysis.plates.apply_loads`: external loads conditioned and given to segments
mass           :func:`~humanbody.analysis.plates.weigh`: the plates' clock checked, the subject weighed on them
reduce         :func:`~humanbody.analysis.reduction.reduce` (``--reduce-residuals``): the residual reduction
kinetics       :attr:`Analysis.kinetics` (:func:`humanbody.mechanics.kinetics.kinetic_block`, computed once)
clinical       :attr:`Analysis.clinical` (:func:`humanbody.mechanics.clinical.clinical_angles`)
write          :func:`humanbody.trial_output.write`: the mechanics and kinetics computed frame range by range
=============  ======================================================================

A marker trial on an OpenSim model (``humanbody analyze TRIAL --model MODEL.osim``) is
:func:`~humanbody.analysis.osim_trial.analyze_osim_trial` -> :class:`~humanbody.analysis.osim_trial.OsimAnalysis`
(inverse kinematics, inverse dynamics, static optimization and joint reactions), written by
:func:`~humanbody.analysis.osim_trial.write_osim_results`.

The names below are this package's face, each imported from its module on first use.
"""

from __future__ import annotations

import importlib

#: Public name -> the module of this package that defines it.
_EXPORTS = {
    "analyze_trial": ".run",
    "Analysis": ".values", "TrialSubject": ".values", "Conditioned": ".values",
    "Log": ".log", "Logbook": ".log", "Record": ".log", "LEVELS": ".log", "STAGES": ".log", "records": ".log",
    "checked": ".option_checks", "options_with": ".option_checks",
    "read": ".stages", "subject": ".stages", "subject_model": ".stages", "orientations": ".stages",
    "rates": ".stages", "mechanics": ".stages",
    "condition": ".conditioning", "marker_cutoff": ".conditioning",
    "calibrate_model": ".static", "track": ".tracking",
    "apply_loads": ".plates", "weigh": ".plates", "reduce": ".reduction",
    "analyze_osim_trial": ".osim_trial", "OsimAnalysis": ".osim_trial", "write_osim_results": ".osim_trial",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'humanbody.analysis' has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_EXPORTS))

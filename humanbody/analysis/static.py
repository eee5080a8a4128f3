"""Stage "calibrate": the subject's model from the static trial, with the batch's cache of static calibrations."""

from __future__ import annotations

import hashlib
import os

from ..errors import INPUT, InputError
from ..markers.calibration import Calibration
from ..markers.calibration import calibrate as calibrate_markers
from ..markers.markerset import (
    MarkerSet,
    detect_markerset,
    match_markers,
)
from ..options import AnalysisOptions
from ..trial import Trial
from .log import Logbook
from .values import Conditioned, TrialSubject


def calibrate_model(conditioned: Conditioned, static: Trial | str | os.PathLike | None, subj: TrialSubject,
              options: AnalysisOptions, log: Logbook, cache: dict | None = None) -> Calibration:
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
    log : Logbook
        What the stages before said; this stage's lines are added to it.
    cache : dict, optional
        Calibrations already made, by static-trial content and subject.

    Returns
    -------
    Calibration
        The marker set, the subject's 17-segment model (joint offsets and mass centres from the calibration),
        each tracking marker's place in its segment (m) and the segments' frames in the calibration pose.
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

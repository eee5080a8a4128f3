"""One trial from file to mechanics: :func:`analyze_trial`, the chain of the stages, with its progress bar."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from ..errors import SETUP
from ..io.c3d_processing import read_processing
from ..io.subject import Subject as SubjectFile
from ..mechanics.moment_frames import moment_frame, moment_frame_note, with_moment_frame
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel
from ..options import MARKERSET_CUTOFF, AnalysisOptions
from ..signal import CUTOFF_HZ
from ..trial import Trial
from .conditioning import condition
from .log import Logbook
from .option_checks import checked, options_with
from .plates import apply_loads, weigh
from .reduction import reduce
from .stages import (
    mechanics,
    orientations,
    rate_edges,
    rates,
    read,
    subject,
    subject_model,
)
from .static import calibrate_model
from .tracking import track
from .values import Analysis, Conditioned


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
        The trial's analysis (a frozen value): its trial, model, coordinates, motion, loads, options and log;
        mechanics, clinical angles and kinetics computed on first use.
    """
    path, log = os.fspath(path), Logbook()
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
                         tracking=tracking, raw=raw, edges=rate_edges(model, motion, opts))
    if trial.forces is not None:
        analysis = weigh(apply_loads(analysis, opts, cutoff_hz), subj, opts)
    if opts.reduce_residuals:
        analysis = reduce(analysis, keep_markers)
    steps.advance("compute")
    steps.close()
    return analysis


def _default_model(model: BodyModel | None, options: AnalysisOptions, log: Logbook) -> BodyModel:
    """The model of a trial without markers: the subject's, else the default one (said so)."""
    if model is None:
        model = BodyModel.default(mass=DEFAULT_MASS, height=DEFAULT_HEIGHT, sex=options.sex)
        log.message("subject", f"no --model or --height: using the default model for {DEFAULT_HEIGHT:g} m")
    return model

def _loads_cutoff(cutoff_hz: float | str | None) -> float | None:
    """The loads' cut-off (Hz) of a trial without markers: ``cutoff_hz`` given, ``CUTOFF_HZ`` for the default
    ``"set"``, none for ``"auto"`` (nothing to choose it from)."""
    if isinstance(cutoff_hz, str):
        return CUTOFF_HZ if cutoff_hz == MARKERSET_CUTOFF else None
    return cutoff_hz

def _subject_file(subject, log: Logbook) -> SubjectFile | None:
    """The :class:`~humanbody.io.subject.Subject` of ``subject`` (a path or one already read), or None."""
    if subject is None:
        return None
    from ..io.subject import read_subject  # lazy: imported on use (see the module's imports)

    subj = subject if isinstance(subject, SubjectFile) else read_subject(subject)
    given = subj.measured()
    log.message("subject", f"subject {subj.source or 'measurements'}: {len(given)} measurement(s)"
                        + (f", mass {subj.mass:g} kg" if subj.mass is not None else "")
                        + (f", height {subj.height:.3f} m" if subj.height is not None else ""))
    return subj

def _processing_subject(path: str, opts: AnalysisOptions, log: Logbook) -> SubjectFile | None:
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

def _kept(conditioned: Conditioned, keep: bool) -> tuple[Trial, pd.DataFrame | None]:
    """The trial the Analysis holds and its markers' table: the conditioned trial, or (``keep`` false) its time
    base only and no markers, 24 bytes per marker and frame less to hold while the results are written.  A trial
    carrying gait events of its own (a C3D's ``EVENT`` group) keeps them: the markers' events judge the file's."""
    if keep or conditioned.trial.events is not None:
        return conditioned.trial, conditioned.markers
    return conditioned.trial.time_base(), None

def _in_moment_frame(model: BodyModel | None, opts: AnalysisOptions, log: Logbook, plates: bool) -> BodyModel:
    """``model`` naming the frame of its clinical moments (``options.moment_frame``, else the model's own;
    model.json says it) when asked or when the trial has force plates (then said in the log)."""
    assert model is not None
    if opts.moment_frame is not None or plates:
        model = with_moment_frame(model, opts.moment_frame or moment_frame(model))
        if plates:
            log.message("rates", moment_frame_note(model), priority=SETUP)
    return model


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

"""Stage "track" of a marker trial: segment fits or whole-body IK, and the lines that say how well they fit."""

from __future__ import annotations

import os

import numpy as np

from ..checks.outputs import carried_findings
from ..checks.static_fit import check_static_fit
from ..errors import METHOD, InputError, Note, priority_of
from ..markers.calibration import Calibration
from ..markers.global_ik import choose_method, track_global
from ..markers.markerset import MarkerSet
from ..markers.plausibility import check_lengths
from ..markers.tracking import STATUS
from ..markers.tracking import track as track_segments
from ..options import AnalysisOptions
from .log import Logbook
from .values import Conditioned


def track(conditioned: Conditioned, calibration: Calibration, options: AnalysisOptions, log: Logbook):
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
    log : Logbook
        What the stages before said; this stage's lines are added to it.

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

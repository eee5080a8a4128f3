"""Residual reduction (``--reduce-residuals``): dynamically consistent kinematics and kinetics of a trial with plates.

Two steps, stated as one problem in docs/kinetics.md "Residual reduction":

1. the mass distribution and the trunk's mass centre
   (:func:`humanbody.mechanics.mass_fit.fit_mass_distribution`), the motion fixed;
2. the root's trajectory (:func:`humanbody.mechanics.root_tracking.track_root`),
   the fitted model fixed, every joint angle kept.

:func:`reduce_residuals` runs both on a model, a motion and its loads and
measures the result against :data:`humanbody.mechanics.residuals.CRITERIA`;
:func:`humanbody.analysis.reduce` is the pipeline's stage: a new
:class:`~humanbody.analysis.Analysis` with the reduced model, coordinates
(:func:`reduced_coords`) and motion when the criteria can be met, and
otherwise the default ones, saying why in one line.
"""

from __future__ import annotations

import time as _time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ..errors import InputError
from ..model.body import coordinate_columns
from .kinematics import compute_motion
from .mass_fit import MassFit, fit_data, fit_mass_distribution, fitted_model
from .residuals import CRITERIA, com_height, external_loads, measured_frames, residual_summary, root_residual
from .root_tracking import point_motion, track_root

if TYPE_CHECKING:
    from ..model.body import BodyModel
    from .kinematics import Motion
    from .root_tracking import RootChange

__all__ = ["Reduction", "reduce_residuals", "reduced_coords", "trunk_share", "jsonable", "fit_subject", "TRUNK_TRACKED", "MEASURED_SHARE", "MASS_CHANGE"]

#: Share of frames with every contact measured below which the residual cannot be judged.
MEASURED_SHARE = 0.5
#: Share of frames the trunk segments must be tracked by their own markers.
TRUNK_TRACKED = 0.5
#: Bound on the change of the total mass (fraction) kept by this module.
MASS_CHANGE = 0.02
#: Prefix of every log line.
PREFIX = "residual reduction: "


@dataclass(eq=False)
class Reduction:
    """What :func:`reduce_residuals` found.

    ``applied`` says whether the reduced model and motion should replace the
    default ones; ``lines`` are the log lines (one per criterion);
    ``record`` is the same as numbers, for model.json.
    """

    applied: bool
    model: BodyModel
    motion: Motion
    lines: list = field(default_factory=list)
    record: dict = field(default_factory=dict)
    change: RootChange | None = None


def _verdict(value: float, limit: float) -> str:
    return "met" if np.isfinite(value) and value <= limit else "NOT met"


def reduce_residuals(model, motion, loads, results=None, points=None, trunk_tracked: float = 1.0,
                     fit=None) -> Reduction:
    """Reduce the root residual of one trial (module docstring).

    Parameters
    ----------
    model : BodyModel
        The body model.
    motion : Motion
        The tracked motion with its rates.
    loads : FrameLoads
        Conditioned, assigned loads on the motion's frames.
    results : Results, optional
        The kinematics of ``motion`` (computed when not given).
    points : ndarray, shape (F, P, 3), m, optional
        Body points whose displacement is limited and reported (the conditioned markers), ground axes; default
        the joint and mass centres.
    trunk_tracked : float
        Share of frames (0 to 1) the trunk segments were fitted to their own markers.
    fit : MassFit, optional
        A mass distribution fitted already (:func:`fit_subject`: once over all of a subject's trials); default:
        fitted on this trial.

    Returns
    -------
    Reduction
        Whether the reduced model and motion replace the default ones, the log lines and the record for
        model.json; the input model and motion when not applied.
    """
    start = _time.perf_counter()
    res = compute_motion(model, motion) if results is None else results
    ext = external_loads(loads)
    mask, lines = measured_frames(model, res, loads)
    F = motion.n_frames
    lines = [PREFIX + line for line in lines]
    Fpk = ext.peak_force
    h = com_height(res, loads)
    f0, m0 = root_residual(model, res, ext)
    mask &= np.isfinite(f0).all(axis=1) & np.isfinite(m0).all(axis=1)  # frames without a pose constrain nothing
    before = residual_summary(f0, m0, mask)
    record: dict = {"frames": F, "frames_measured": int(mask.sum()), "peak_external_force_N": Fpk,
                    "com_height_m": h, "before": before}
    why = _not_judged(mask, F, Fpk, trunk_tracked)
    if why is not None:
        record.update(applied=False, reason=why)
        return Reduction(False, model, motion, lines + [PREFIX + f"not done: {why}; default results kept"], record)

    if fit is None:
        fit = fit_mass_distribution(model, [fit_data(model, res, ext, mask, Fpk, h * Fpk)])
    else:
        lines.append(PREFIX + f"mass distribution fitted once over {fit_trials(fit)} trial(s) of the subject")
        fit = MassFit(fit.scale, fit.offset, fitted_model(model, fit.scale, fit.offset), fit.rms_before, fit.rms_after,
                      fit_trials(fit))
    pts = np.concatenate([res.joint, res.com], axis=1) if points is None else np.asarray(points, dtype=float)
    tracked = track_root(fit.model, motion, ext, mask, Fpk, h * Fpk, pts)
    res2 = compute_motion(fit.model, tracked.motion)
    f1, m1 = root_residual(fit.model, res2, ext)
    after = residual_summary(f1, m1, mask)
    marker_rms, marker_max, angle_rms = _change_sizes(pts, motion, tracked.change)
    seconds = _time.perf_counter() - start
    crit, judged = _judgement(model, fit, before, after, Fpk, h, marker_rms, marker_max, angle_rms)
    lines += judged
    record.update(after=after, criteria=crit, mass_before_kg=float(model.total_mass),
                  mass_after_kg=float(fit.model.total_mass),
                  segment_mass_scale=dict(zip(model.names, map(float, fit.scale), strict=True)),
                  trunk_com_offset_m=[float(v) for v in fit.offset], marker_change_rms_m=marker_rms,
                  marker_change_max_m=marker_max, pelvis_rotation_rms_deg=angle_rms, seconds=seconds,
                  penalty=tracked.beta, mass_fit_trials=fit_trials(fit))
    hicks_force = after["force_peak"] / Fpk
    if hicks_force > 0.05:
        why = (f"the peak residual force stays at {100 * hicks_force:.1f} % of the peak external force with the "
               "markers within 2 cm (loads or markers beyond what the mass distribution and a pelvis within "
               "2 cm can explain)")
        record.update(applied=False, reason=why)
        return Reduction(False, model, motion, lines + [PREFIX + f"not applied: {why}; default results kept"], record,
                         tracked.change)
    record.update(applied=True)
    lines.append(PREFIX + f"applied in {seconds:.1f} s ({int(mask.sum())} of {F} frames constrained)")
    return Reduction(True, fit.model, tracked.motion, lines, record, tracked.change)


def _not_judged(mask: np.ndarray, F: int, Fpk: float, trunk_tracked: float) -> str | None:
    """Why the residual of a trial cannot be reduced (too few measured frames, no load, the trunk not seen),
    or None."""
    if mask.sum() < MEASURED_SHARE * F or Fpk <= 0.0:
        return (f"only {int(mask.sum())} of {F} frames have a pose and every contact measured (a foot stands off "
                "the plates): the residual cannot be judged")
    if trunk_tracked < TRUNK_TRACKED:
        return (f"the trunk is fitted to its own markers in {100 * trunk_tracked:.0f} % of the frames (the marker "
                "set cannot see it): its mass centre cannot be fitted")
    return None


def _change_sizes(pts: np.ndarray, motion, change) -> tuple[float, float, float]:
    """How far the reduction moved the body: the points' displacement RMS and largest (m) and the pelvis's
    turn RMS (deg)."""
    moved = point_motion(pts, np.asarray(motion.q[:, :3], dtype=float), change)
    moved = moved[np.isfinite(moved)]
    marker_rms = float(np.sqrt(np.mean(moved ** 2))) if moved.size else 0.0
    marker_max = float(moved.max()) if moved.size else 0.0
    turn = np.degrees(np.linalg.norm(change.th, axis=1))
    return marker_rms, marker_max, float(np.sqrt(np.mean(turn ** 2)))


def _judgement(model, fit, before: dict, after: dict, Fpk: float, h: float, marker_rms: float, marker_max: float,
               angle_rms: float) -> tuple[dict, list]:
    """The reduction against every criterion (``CRITERIA`` and the total mass bound): the criteria as numbers
    (value, limit, what, source, met) and the log lines, before -> after."""
    mass0, mass1 = float(model.total_mass), float(fit.model.total_mass)
    seg = (fit.model.mass - model.mass) / model.mass
    worst = int(np.argmax(np.abs(seg)))
    offset_mm = 1000.0 * fit.offset
    hicks_f = (before["force_peak"] / Fpk, after["force_peak"] / Fpk)
    hicks_m = (before["moment_peak"] / (h * Fpk), after["moment_peak"] / (h * Fpk))
    values = {"hicks_force": hicks_f[1], "hicks_moment": hicks_m[1], "opensim_force_peak": after["force_peak"],
              "opensim_force_rms": after["force_rms"], "opensim_moment_peak": after["moment_peak"],
              "marker_rms": marker_rms, "marker_max": marker_max, "angles_rms": angle_rms}
    crit = {k: {"value": v, "limit": CRITERIA[k][0], "what": CRITERIA[k][1], "source": CRITERIA[k][2],
                "met": bool(np.isfinite(v) and v <= CRITERIA[k][0])} for k, v in values.items()}
    mass_change = abs(mass1 - mass0) / mass0
    crit["mass_total"] = {"value": mass_change, "limit": MASS_CHANGE, "what": "total mass changed <= 2 %",
                          "source": "this program's bound", "met": bool(mass_change <= MASS_CHANGE)}
    lines = [
        PREFIX + f"peak residual force {before['force_peak']:.0f} N ({100 * hicks_f[0]:.1f} % of the peak external "
        f"force {Fpk:.0f} N) -> {after['force_peak']:.1f} N ({100 * hicks_f[1]:.1f} %); Hicks et al. 2015 <= 5 %: "
        + _verdict(hicks_f[1], 0.05),
        PREFIX + f"peak residual moment {before['moment_peak']:.0f} N m ({100 * hicks_m[0]:.1f} % of COM height "
        f"{h:.2f} m x peak external force) -> {after['moment_peak']:.1f} N m ({100 * hicks_m[1]:.2f} %); Hicks et al. "
        "2015 <= 1 %: " + _verdict(hicks_m[1], 0.01),
        PREFIX + f"residual force peak {before['force_peak']:.0f} -> {after['force_peak']:.1f} N, RMS "
        f"{before['force_rms']:.0f} -> {after['force_rms']:.1f} N (magnitudes); OpenSim best practice peak <= 25 N: "
        f"{_verdict(after['force_peak'], 25.0)}, RMS <= 15 N: {_verdict(after['force_rms'], 15.0)}",
        PREFIX + f"residual moment peak {before['moment_peak']:.0f} -> {after['moment_peak']:.1f} N m, RMS "
        f"{before['moment_rms']:.0f} -> {after['moment_rms']:.1f} N m; OpenSim best practice peak <= 75 N m: "
        + _verdict(after["moment_peak"], 75.0),
        PREFIX + f"mass {mass0:.2f} -> {mass1:.2f} kg ({100 * (mass1 - mass0) / mass0:+.1f} %; largest segment "
        f"change {model.names[worst]} {100 * seg[worst]:+.1f} %); total within 2 %: {_verdict(mass_change, MASS_CHANGE)}"
        f"; trunk mass centre moved {np.linalg.norm(offset_mm):.0f} mm (x {offset_mm[0]:+.0f}, y {offset_mm[1]:+.0f}, "
        f"z {offset_mm[2]:+.0f} mm, trunk axes)",
        PREFIX + f"markers moved {100 * marker_rms:.1f} cm RMS, {100 * marker_max:.1f} cm at most (the whole body "
        f"with the pelvis); OpenSim best practice <= 2 cm RMS: {_verdict(marker_rms, 0.02)}, <= 4 cm: "
        + _verdict(marker_max, 0.04),
        PREFIX + f"pelvis turned {angle_rms:.2f} deg RMS, every other joint angle as tracked; OpenSim best practice "
        f"<= 2 deg RMS: {_verdict(angle_rms, 2.0)}",
    ]
    return crit, lines


def fit_trials(fit) -> int:
    """Number of trials a :class:`~humanbody.mechanics.mass_fit.MassFit` was fitted over (1 unless :func:`fit_subject`).

    Parameters
    ----------
    fit : MassFit
        A fitted mass distribution.

    Returns
    -------
    int
        The number of trials.
    """
    return int(getattr(fit, "trials", 1))


def fit_subject(analyses) -> MassFit:
    """One mass distribution and trunk mass centre for all of a subject's analysed trials with loads.

    Each trial's frames with every contact measured enter one least squares
    (:func:`humanbody.mechanics.mass_fit.fit_mass_distribution` over their
    :func:`~humanbody.mechanics.mass_fit.fit_data`, each normalised by its own
    peak external force and mass-centre height); the trials must share one
    model (the subject's calibration).  Give the result to
    :func:`humanbody.analysis.reduce` (``fit=``) for every trial: they all use one model.

    Parameters
    ----------
    analyses : iterable of Analysis
        The subject's analysed trials (those without loads are left out).

    Returns
    -------
    MassFit
        The fitted segment mass scales and trunk mass-centre offset, with ``trials``.
    """
    analyses = [a for a in analyses if a.loads is not None]
    if not analyses:
        raise InputError("no trial of the subject has force plates: no mass distribution to fit")
    model = analyses[0].model
    datasets = []
    for a in analyses:
        if a.model.names != model.names or not np.allclose(a.model.mass, model.mass):
            raise InputError("the trials of one subject fitted together must share one model (one calibration)",
                             a.source)
        res, ext = a.results, external_loads(a.loads)
        mask, _ = measured_frames(model, res, a.loads)
        f0, m0 = root_residual(model, res, ext)
        mask &= np.isfinite(f0).all(axis=1) & np.isfinite(m0).all(axis=1)
        if mask.any():
            Fpk = ext.peak_force
            datasets.append(fit_data(model, res, ext, mask, Fpk, com_height(res, a.loads) * Fpk))
    fit = fit_mass_distribution(model, datasets)
    fit.trials = len(datasets)
    return fit


def trunk_share(tracking) -> float:
    """Share of frames the thorax (``upper_torso``) was fitted to its own markers (1 without segment tracking).

    The middle torso is interpolated between pelvis and thorax by most marker sets; a set without thorax
    markers carries the trunk's pose from the pelvis, and the trunk's mass centre cannot be fitted.

    Parameters
    ----------
    tracking : Tracking or None
        A tracking result with a ``status`` table (segment fits), or anything else.

    Returns
    -------
    float
        0 to 1.
    """
    status = getattr(tracking, "status", None)
    if status is None or "upper_torso" not in status.columns:
        return 1.0
    return float(status["upper_torso"].isin(["fit", "rigid"]).mean())


def reduced_coords(coords: pd.DataFrame, red: Reduction) -> pd.DataFrame:
    """A copy of the coordinates table ``coords`` with the root's six columns (and their ``_dot``/``_ddot``
    rates, when the table has them in the motion's convention) taken from the reduced motion ``red.motion``.

    Parameters
    ----------
    coords : DataFrame
        Generalized coordinates (docs/conventions.md layout; rad, m), one row per frame.
    red : Reduction
        An applied reduction (:func:`reduce_residuals`).

    Returns
    -------
    DataFrame
        The new table, with ``coords``'s attrs.
    """
    out = coords.copy()
    names = coordinate_columns(red.model)[:6]
    out[names] = red.motion.q[:, :6]
    for suffix, arr in (("_dot", red.motion.qd), ("_ddot", red.motion.qdd)):
        if all(n + suffix in out.columns for n in names) and not red.motion.local_rates:
            out[[n + suffix for n in names]] = arr[:, :6]
    out.attrs = dict(coords.attrs)
    return out


def jsonable(value):
    """``value`` with numpy numbers as Python ones and NaN as None (JSON).

    Parameters
    ----------
    value : object
        Numbers, lists, tuples and dicts of them.

    Returns
    -------
    object
        The same structure, JSON-serialisable.
    """
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, (np.floating, float)):
        return float(value) if np.isfinite(value) else None
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, np.bool_):
        return bool(value)
    return value

"""Is a force file this trial's, in time?  Where the feet are under the force, and when they strike.

:mod:`humanbody.checks.force_clock` checks the file's time range and that a
foot is near each centre of pressure (within the 20 cm that gives a load to a
foot).  A force file shifted by half a stride passes that: on a treadmill or
a walkway the other foot strikes about where and when this one did, and in
the shared walk shifted by 0.6 s a foot is within 20 cm of the centre of
pressure in 98 % of the loaded frames.  Two figures tell it apart:

* the distance from each loaded centre of pressure to the nearest foot's
  sole line (heel to toe, :func:`humanbody.mechanics.foot_contact.sole_points`),
  median over the loaded frames: a centre of pressure lies under the stance
  foot (the shared walk: 3.8 and 4.5 cm for its two plates), the swing foot or
  the other belt's foot of a shifted file is a step's width or length away
  (16 and 18 cm); refused above :data:`MAX_COP_DISTANCE`;
* the force onsets of the loads given to a foot (by name or nearest) against
  that foot's kinematic strikes (the foot most forward of the pelvis along the
  feet's direction, Zeni et al. 2008): median of the nearest strike's lag;
  the shared walk 0.02 s (one to two frames at 60 Hz), a file whose right plate
  is shifted to the left foot's stance 0.6 s.  It is said in the line, and refused above
  :data:`MAX_ONSET_LAG` only together with a centre of pressure beyond
  :data:`MAX_COP_DISTANCE`: kinematic strikes from the foot's lead alone are
  a frame or two off in steady walking, but whole steps off where the feet
  share a plate, on a treadmill run or on a single walkway plate, so the lag
  alone refused files that were right.

A file is refused under the check ``force-clock`` (``--skip-check force-clock``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from . import refusal
from .force_clock import sole_distance

__all__ = ["MAX_COP_DISTANCE", "MAX_ONSET_LAG", "cop_distance", "onset_lags", "check_force_timing"]

#: Largest median distance (m) from the loaded centres of pressure to the nearest foot's sole line.
MAX_COP_DISTANCE = 0.10
#: Largest median lag (s) between a foot's force onsets and its nearest kinematic foot strike.
MAX_ONSET_LAG = 0.15
#: Half-width (s) of the window in which a kinematic foot strike is the foot's most forward position.
_STRIKE_WINDOW_S = 0.25


def _feet(model) -> list[int]:
    return [model.names.index(s) for s in ("right_foot", "left_foot") if s in model.names]


def cop_distance(loads, results, model, judged=None) -> tuple[float, int]:
    """(median distance (m), loaded frames): each judged load's centre of pressure to the nearest foot's sole.

    ``judged``: (L,) bool, the loads to judge (default all).  NaN with no loaded frame near a finite foot.

    Parameters
    ----------
    loads : FrameLoads
        The assigned loads per frame (their centres of pressure, m, ground axes).
    results : Results
        The trial's kinematics (the feet's poses).
    model : BodyModel
        The body model.
    judged : array_like of bool, shape (L,), optional
        The loads to judge (default all).

    Returns
    -------
    distance : float, m
        The median distance, NaN with no loaded frame near a finite foot.
    loaded : int
        The loaded frames counted.
    """
    feet = _feet(model)
    loaded = loads.force[..., 2] > 0
    if judged is not None:
        loaded &= np.asarray(judged, dtype=bool)[None, :]
    if not feet or not loaded.any():
        return float("nan"), int(loaded.sum())
    near = []
    for j in np.flatnonzero(loaded.any(axis=0)):
        d = np.stack([sole_distance(loads.cop[:, j], results, model, k) for k in feet], axis=1)
        d = np.where(np.isfinite(d), d, np.inf).min(axis=1)[loaded[:, j]]
        near.append(d[np.isfinite(d)])
    d = np.concatenate(near)
    return (float(np.median(d)) if len(d) else float("nan")), int(loaded.sum())


def _strikes(rel: np.ndarray, time: np.ndarray) -> np.ndarray:
    """Frame indices of the maxima of ``rel`` (F,), each the largest within +-:data:`_STRIKE_WINDOW_S`."""
    dt = float(np.median(np.diff(time))) if len(time) > 1 else 0.0
    w = max(1, int(round(_STRIKE_WINDOW_S / dt))) if dt > 0 else 1
    if len(rel) < 2 * w + 1 or not np.isfinite(rel).any():
        return np.zeros(0, dtype=int)
    x = np.where(np.isfinite(rel), rel, -np.inf)
    peak = sliding_window_view(np.pad(x, w, constant_values=-np.inf), 2 * w + 1).max(axis=1)
    i = np.flatnonzero((x == peak) & np.isfinite(x) & (x > np.nanmedian(rel)))
    return i[(i > 0) & (i < len(x) - 1)]  # a maximum at an end is not a strike


def onset_lags(loads, results, model, time) -> np.ndarray:
    """Lags (s) of each foot's force onsets after its nearest kinematic strike (Zeni et al. 2008), (N,).

    A foot's force onset is a frame where a load given to it (``loads.body``) is loaded and none was
    in the frame before; its strikes are the maxima of the foot's position ahead of the pelvis along
    the feet's mean horizontal forward axis.

    Parameters
    ----------
    loads : FrameLoads
        Assigned loads (``body``).
    results : Results
        The trial's kinematics (the feet's and pelvis's positions).
    model : BodyModel
        The body model.
    time : array_like, shape (F,), s
        The frames' times.

    Returns
    -------
    ndarray, shape (N,), s
        One lag per force onset with a strike; empty without feet or onsets.
    """
    t = np.asarray(time, dtype=float)
    feet = _feet(model)
    if not feet:
        return np.zeros(0)
    P, R = np.asarray(results.joint), np.asarray(results.R)
    forward = np.nansum([np.nanmean(R[:, k, :, 0], axis=0) for k in feet], axis=0)
    forward[2] = 0.0
    if not np.linalg.norm(forward) > 1e-6:
        return np.zeros(0)
    forward /= np.linalg.norm(forward)
    body, loaded = np.asarray(loads.body), loads.force[..., 2] > 0
    lags = []
    for k in feet:
        on = ((body == k) & loaded).any(axis=1)
        onsets = np.flatnonzero(on[1:] & ~on[:-1]) + 1
        strikes = _strikes((P[:, k] - P[:, 0]) @ forward, t)
        if len(onsets) and len(strikes):
            gap = t[onsets][:, None] - t[strikes][None, :]
            lags.append(gap[np.arange(len(onsets)), np.abs(gap).argmin(axis=1)])
    return np.concatenate(lags) if lags else np.zeros(0)


def check_force_timing(table, loads, results, model, time, *, skip: bool = False, judged=None, trial=None) -> str:
    """The part of the force-clock line on where and when the feet meet the force; refused as the module says.
    ``trial``: the trial file; when the forces are its own plates, the refusal points at the plates, not at a
    force file the user never gave.

    Parameters
    ----------
    table : LoadTable
        The measured loads as read (the force file).
    loads : FrameLoads
        The assigned loads per frame.
    results : Results
        The trial's kinematics.
    model : BodyModel
        The body model.
    time : array_like, shape (F,), s
        The frames' times.
    skip : bool
        Say what fails instead of refusing.
    judged : array_like of bool, shape (L,), optional
        The loads to judge (default all).
    trial : str or os.PathLike, optional
        The trial file; when the forces are its own plates, the refusal points at the plates.

    Returns
    -------
    str
        The line's part on the centres of pressure and the onset lags.

    Raises
    ------
    InputError
        When the centres of pressure are not under a foot or the onsets are late (without ``skip``).
    """
    dist, n = cop_distance(loads, results, model, judged)
    lags = onset_lags(loads, results, model, time)
    lag = float(np.median(np.abs(lags))) if len(lags) else float("nan")
    said = (f"centre of pressure {100 * dist:.1f} cm from the nearest sole (median of {n} loaded frames, at most "
            f"{100 * MAX_COP_DISTANCE:g} cm)" if np.isfinite(dist) else "no loaded frame near a foot")
    said += (f"; force onsets {lag:.2f} s from the feet's kinematic strikes (median of {len(lags)}, at most "
             f"{MAX_ONSET_LAG:g} s)" if np.isfinite(lag) else "")
    bad = []
    if np.isfinite(dist) and dist > MAX_COP_DISTANCE:
        bad.append(f"the centres of pressure lie {100 * dist:.0f} cm from the nearest sole, not under a foot")
    if bad and np.isfinite(lag) and len(lags) >= 2 and lag > MAX_ONSET_LAG:
        bad.append(f"the forces start {lag:.2f} s away from the feet's strikes")
    if bad and not skip:
        name = Path(table.source).name if table.source else "the force file"
        own = trial is not None and table.source and Path(str(table.source)) == Path(str(trial))
        what = "the trial's own force plates are not under its feet" if own else "not this trial's forces in time"
        instead = ("check the plates' corners and origin in the file" if own
                   else "give the force file of this trial")
        raise refusal("force-clock", f"{what}: {' and '.join(bad)} ({name}: {said})",
                      table.source or None, instead=instead)
    return said + (" (--skip-check force-clock)" if bad else "")

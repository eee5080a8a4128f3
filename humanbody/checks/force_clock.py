"""Is a force file on the marker trial's clock?  Overlap, and stance against where the feet are.

A force file recorded on another clock (its time column scaled, shifted,
or from another trial) still overlaps the trial somewhere, and its loads
would be applied to feet that were elsewhere at that time.  Two figures,
over the trial's frames:

* overlap: the share of the frames inside the file's time range;
* stance agreement: the share of the loaded frames (vertical force above the
  threshold) of the loads standing for the ground under the feet (given to no
  segment or to a foot by the file; not those given with ``--load``) in which
  some foot's sole (heel to toe, the ankle height below the ankle:
  :func:`humanbody.mechanics.foot_contact.sole_points`) lies within
  :data:`~humanbody.mechanics.foot_contact.ASSIGN_DISTANCE` of the load's centre of
  pressure, in 3-D (a foot standing where the force is, at the time it is).

The file is refused when the stance agreement is below :data:`MIN_AGREEMENT`
over at least :data:`MIN_LOADED` loaded frames, or when under
:data:`MIN_OVERLAP` of the trial overlaps it (--skip-check force-clock).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..mechanics.foot_contact import ASSIGN_DISTANCE, sole_points
from . import refusal

__all__ = ["MIN_AGREEMENT", "MIN_OVERLAP", "MIN_LOADED", "stance_agreement", "check_force_clock"]

#: Smallest share of loaded frames with a foot at the centre of pressure.
MIN_AGREEMENT = 0.8
#: Smallest share of the trial's frames inside the force file's time range.
MIN_OVERLAP = 0.6
#: Fewest loaded frames for the stance agreement to be judged.
MIN_LOADED = 10


def sole_distance(cop, results, model, k: int) -> np.ndarray:
    """(F,) distance (m) from points ``cop`` (F, 3) to foot ``k``'s sole line, heel to toe.

    Parameters
    ----------
    cop : ndarray, shape (F, 3), m
        Centres of pressure, ground axes.
    results : Results
        The trial's kinematics (the feet's poses, ground axes).
    model : BodyModel
        The body model (its feet's soles).
    k : int
        The foot's segment index.

    Returns
    -------
    ndarray, shape (F,), m
        Distance to the heel-to-toe segment of the sole; NaN where the foot has no pose.
    """
    heel, toe = sole_points(model, k)
    O, R = np.asarray(results.joint)[:, k], np.asarray(results.R)[:, k]
    a, b = O + R @ heel, O + R @ toe
    ab = b - a
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(np.einsum("fi,fi->f", cop - a, ab) / np.einsum("fi,fi->f", ab, ab), 0.0, 1.0)
    return np.linalg.norm(cop - (a + s[:, None] * ab), axis=1)


def stance_agreement(loads, results, model, inside, judged=None) -> tuple[float, int]:
    """(share, loaded frames): loaded frames within the file's range with a foot's sole at the centre of pressure.

    ``judged``: (L,) bool, the loads to judge (default all).

    Parameters
    ----------
    loads : FrameLoads
        The conditioned loads (vertical force, centre of pressure).
    results : Results
        The kinematics of the same frames (the feet).
    model : BodyModel
        The body model (its feet's soles).
    inside : array_like of bool, shape (F,)
        The frames within the force file's time range.
    judged : array_like of bool, shape (L,), optional
        The loads to judge (default all).

    Returns
    -------
    share : float
        In [0, 1]; NaN without a foot or a loaded frame.
    loaded : int
        The loaded frames counted.
    """
    feet = [model.names.index(s) for s in ("right_foot", "left_foot") if s in model.names]
    loaded = (loads.force[..., 2] > 0) & np.asarray(inside)[:, None]
    if judged is not None:
        loaded &= np.asarray(judged, dtype=bool)[None, :]
    if not feet or not loaded.any():
        return float("nan"), int(loaded.sum())
    near = np.zeros(loaded.shape, dtype=bool)
    for j in range(loaded.shape[1]):
        d = np.stack([sole_distance(loads.cop[:, j], results, model, k) for k in feet], axis=1)
        near[:, j] = np.nanmin(np.where(np.isfinite(d), d, np.inf), axis=1) <= ASSIGN_DISTANCE
    return float((near & loaded).sum() / loaded.sum()), int(loaded.sum())


def check_force_clock(table, loads, results, model, time, *, skip: bool = False, given=(), trial=None) -> str:
    """One line on the force file's clock against the trial; refused when it does not match (see the module).

    The stance agreement judges the loads that stand for the ground under the feet: those the file gives
    to no segment or to a foot; ``given`` names loads the user gave to a segment (``--load``), which may
    act anywhere and are not judged.  ``trial``: the trial's file; when the loads are its own plates, the
    refusal says so (there is no other force file to give).

    Parameters
    ----------
    table : LoadTable
        The force file's loads (times, names, segments, source).
    loads : FrameLoads
        The same loads on the trial's frames.
    results : Results
        The trial's kinematics (the feet's poses, ground axes).
    model : BodyModel
        The body model (its feet's soles).
    time : array_like, shape (F,), s
        The trial's frame times.
    skip : bool
        ``--skip-check force-clock``: say what fails instead of refusing.
    given : collection of str
        Loads the user gave to a segment.
    trial : str or os.PathLike, optional
        The trial's file (named in the refusal when the loads are its own plates).

    Returns
    -------
    str
        The ``check force-clock:`` line.

    Raises
    ------
    InputError
        When the file covers too little of the trial or the feet are not where the force is (without ``skip``).
    """
    t = np.asarray(time, dtype=float)
    lo, hi = float(table.time[0]), float(table.time[-1])
    inside = (t >= lo - 1e-9) & (t <= hi + 1e-9)
    overlap = float(inside.mean())
    segs = list(table.segments or [None] * len(table.names))
    judged = [name not in set(given) and seg in (None, "right_foot", "left_foot")
              for name, seg in zip(table.names, segs, strict=True)]
    share, n = stance_agreement(loads, results, model, inside, judged)
    name = Path(table.source).name if table.source else "the force file"
    said = (f"{name} covers {lo:g}-{hi:g} s at {table.rate_hz:.0f} Hz, the trial {t[0]:g}-{t[-1]:g} s "
            f"({100 * overlap:.0f} % of its frames)")
    stance = (f"a foot at the centre of pressure in {100 * share:.0f} % of {n} loaded frames"
              if np.isfinite(share) else "no loaded frame to time against the feet")
    bad = []
    if overlap < MIN_OVERLAP:
        bad.append(f"it covers only {100 * overlap:.0f} % of the trial")
    if np.isfinite(share) and n >= MIN_LOADED and share < MIN_AGREEMENT:
        bad.append(f"no foot is where the force is in {100 * (1 - share):.0f} % of the loaded frames")
    own = trial is not None and table.source and Path(str(table.source)) == Path(str(trial))
    if bad and not skip:
        what = "the trial's own force plates do not match its feet" if own else "not on the trial's clock"
        instead = ("check the plates' corners and origin in the file" if own
                   else "give the force file of this trial")
        raise refusal("force-clock", f"{what}: {' and '.join(bad)} ({said}; {stance})",
                      table.source or None, instead=instead)
    return f"check force-clock: {said}; {stance}" + (" (--skip-check force-clock)" if bad else "")

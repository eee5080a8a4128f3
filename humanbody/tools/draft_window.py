"""The stillest standing second of a motion trial: a static pose for the drafter when a lab gives only walks.

Many walks begin or end with the subject standing.  Each window of
:data:`WINDOW_S` seconds (stepped by a tenth of it) is scored by how far its
markers move: per marker the distance between its 5th and 95th percentile
positions over the window, the median over the markers (m).  The window with
the smallest score is the standing pose when that score is below
:data:`STILL_M` and the window holds most of the trial's markers
(:data:`PRESENT_FRACTION`).  A trial walked from its first frame to its
last has none: it is drafted from its most upright frame (the markers closest
together horizontally, the legs passing each other), and the line says so.

In that frame one leg is in mid-stance and the other in mid-swing: the pelvis
has shifted over the stance foot, whose markers sit a few centimetres from
the body's midline, on either side of it, while the swing foot is out to
its side.  Which side a marker is on is then read from the whole walk
(:func:`lateral_offsets`: each marker's median offset across the pelvis over
every frame), not from that one frame.
"""

from __future__ import annotations

import warnings

import numpy as np

from ..errors import InputError
from ..lab.vocabulary import read_name

__all__ = ["PRESENT_FRACTION", "STILL_M", "WINDOW_S", "lateral_offsets", "standing_window"]

#: Length of the standing window (s).
WINDOW_S = 1.0
#: Largest median marker excursion (m) of a still window: quiet standing sways a few millimetres, a step moves
#: markers by decimetres.
STILL_M = 0.03
#: Fraction of the trial's markers (those with a sample anywhere) a window must hold in most of its frames.
PRESENT_FRACTION = 0.8


def _window_scores(P: np.ndarray, starts: np.ndarray, w: int) -> tuple[np.ndarray, np.ndarray]:
    """Median marker excursion (m) and fraction of markers present of each window [s, s + w) of P (F, M, 3)."""
    seen = np.isfinite(P).all(axis=2).any(axis=0)
    score = np.full(len(starts), np.inf)
    present = np.zeros(len(starts))
    for i, s in enumerate(starts):
        W = P[s:s + w][:, seen]
        ok = np.isfinite(W).all(axis=2)
        enough = ok.mean(axis=0) >= 0.9
        present[i] = enough.mean() if enough.size else 0.0
        if not enough.any():
            continue
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            lo, hi = np.nanpercentile(W[:, enough], [5, 95], axis=0)
        score[i] = float(np.median(np.linalg.norm(hi - lo, axis=1)))
    return score, present


def _upright_frame(P: np.ndarray) -> int | None:
    """The frame (holding :data:`PRESENT_FRACTION` of the markers) whose markers lie closest together horizontally.

    Horizontal spread: the median over markers of their horizontal distance
    from the frame's median marker (ground z is vertical); a walking
    subject is most compact, closest to standing, when the legs and arms
    pass each other.
    """
    seen = np.isfinite(P).all(axis=2).any(axis=0)
    Q = P[:, seen]
    ok = np.isfinite(Q).all(axis=2)
    full = ok.mean(axis=1) >= PRESENT_FRACTION
    if not full.any():
        return None
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        mid = np.nanmedian(Q[..., :2], axis=1, keepdims=True)
        spread = np.nanmedian(np.linalg.norm(Q[..., :2] - mid, axis=2), axis=1)
    spread[~full] = np.inf
    return int(np.argmin(spread))


def lateral_offsets(trial, names) -> dict[str, float] | None:
    """Each marker's median offset (m, + to the subject's left) across the pelvis over the whole trial.

    In every frame the pelvis centre c is the mean of the mid-ASIS and the
    mid-back (sacrum or PSIS markers) points, its heading h the horizontal
    unit vector back -> front, and the subject's left l = z x h.  A marker at
    p is offset (p - c) . l; the median over the frames where the marker and
    the pelvis are seen.  Over a walk, a foot's markers are on their own side
    of the pelvis in most frames, whatever one frame shows.

    Parameters
    ----------
    trial : pandas.DataFrame
        The marker trial (m, ground axes).
    names : list of str
        Its markers.

    Returns
    -------
    dict of str to float, or None
        m per marker; None when the trial has no two ASIS and a sacrum or PSIS
        marker (names read by :func:`humanbody.lab.vocabulary.read_name`).
    """
    role = {n: read_name(n).role for n in names}
    asis = [n for n in names if role[n] == "asis"]
    back = [n for n in names if role[n] in ("psis", "sacrum")]
    if len(asis) < 2 or not back:
        return None

    def xyz(n):
        return trial[[f"{n}_{a}" for a in "xyz"]].to_numpy(dtype=float)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # frames with no pelvis marker stay NaN
        front = np.nanmean(np.stack([xyz(n) for n in asis]), axis=0)
        rear = np.nanmean(np.stack([xyz(n) for n in back]), axis=0)
    centre = 0.5 * (front + rear)
    heading = front[:, :2] - rear[:, :2]
    heading /= np.linalg.norm(heading, axis=1, keepdims=True)
    left = np.c_[-heading[:, 1], heading[:, 0]]  # z x h
    out = {}
    for n in names:
        d = np.einsum("fi,fi->f", xyz(n)[:, :2] - centre[:, :2], left)
        d = d[np.isfinite(d)]
        if d.size:
            out[n] = float(np.median(d))
    return out


def standing_window(trial, names, source: str | None = None) -> tuple[np.ndarray, str]:
    """Rows of the stillest standing window of a motion trial, and one line saying which frames.

    Parameters
    ----------
    trial : pandas.DataFrame
        Marker trial in ground axes (m) with a ``time`` column.
    names : sequence of str
        Its markers.
    source : str, optional
        The file, named in the error.

    Returns
    -------
    rows : ndarray of int, shape (n,)
        The window's frames (0-based).
    line : str
        E.g. ``"standing window: frames 1-100 (0.00-0.99 s), markers move 4 mm (median)"``.

    Raises
    ------
    InputError
        No window and no frame holds most of the trial's markers (one line).
    """
    P = np.stack([trial[[f"{n}_{a}" for a in "xyz"]].to_numpy(dtype=float) for n in names], axis=1)
    t = trial["time"].to_numpy(dtype=float) if "time" in trial else np.arange(len(trial), dtype=float)
    F = len(P)
    dt = np.median(np.diff(t)) if F > 1 else np.nan
    w = int(round(WINDOW_S / dt)) if np.isfinite(dt) and dt > 0 else F
    w = max(2, min(w, F))
    starts = np.unique(np.r_[np.arange(0, F - w + 1, max(1, w // 10)), F - w])
    score, present = _window_scores(P, starts, w)
    usable = present >= PRESENT_FRACTION
    if not usable.any() or not np.isfinite(score[usable]).any():
        raise InputError(f"is not a standing trial and no {WINDOW_S:g} s window holds most of its markers: "
                         "no standing pose to draft from; give a standing (static) trial", source)
    best = int(np.flatnonzero(usable)[np.argmin(score[usable])])
    s = int(starts[best])
    moved = score[best]
    where = f"frames {s + 1}-{s + w} ({t[s]:.2f}-{t[s + w - 1]:.2f} s)"
    if moved > STILL_M:  # walked throughout: the most upright frame (legs passing each other)
        f = _upright_frame(P)
        if f is None:
            raise InputError(f"is not a standing trial: no still {WINDOW_S:g} s window (the stillest, {where}, "
                             f"moves {1000 * moved:.0f} mm) and no frame holds most of its markers; give a "
                             "standing (static) trial", source)
        return np.array([f]), (f"no still standing window (the stillest {WINDOW_S:g} s, {where}, moves "
                               f"{1000 * moved:.0f} mm, median marker): drafted from frame {f + 1} ({t[f]:.2f} s), "
                               "the most upright (markers closest together horizontally: legs passing each other); "
                               "check the draft")
    return np.arange(s, s + w), f"standing window: {where}, the stillest {WINDOW_S:g} s of the trial " \
                                f"(markers move {1000 * moved:.0f} mm, median)"

"""The frames at a trial's ends whose rates the data do not fully support, marked.

A smoothing differentiator estimates a frame's velocity and acceleration from
the frames around it: the Savitzky-Golay filter (the default) from ``h``
frames on either side (half its window: 9 frames, 0.15 s, at 60 Hz and
6 Hz).  The first and last ``h`` frames have fewer than ``h`` frames of data
on one side; their rates come from the signal extended beyond the end by its
odd reflection (:func:`humanbody.signal.differentiate._edge_fit`), which keeps
the end's value and slope and takes its curvature as zero.  Their velocities
are close (within about 15 % of the trial's peak rate on a push-off starting
0.1 s into a walk; tests/signal/test_differentiate.py), their accelerations
biased towards zero at the end frame: estimates, not measurements, and so
marked: one log line, ``edges`` in ``<stem>_model.json`` and a line on a
report's trial page.  Angles and positions need no rate and are not marked.

The Butterworth and spline differentiators act on the whole trial; their
marked frames are those of the Savitzky-Golay filter of the same cut-off
(the smoothing's span).  Rates given in the trial file are not marked.
"""

from __future__ import annotations

import numpy as np

from ..signal.differentiate import savgol_window

__all__ = ["edge_frames", "edge_note", "edge_line"]


def edge_frames(differentiation, rate_hz: float, n_frames: int) -> int:
    """Frames at each end of an ``n_frames`` trial sampled at ``rate_hz`` whose rates lack data on one side.

    Parameters
    ----------
    differentiation : humanbody.Differentiation
        How the rates are differentiated (method and cut-off frequency).
    rate_hz : float
        Sampling rate (Hz).
    n_frames : int
        Number of frames of the trial.

    Returns
    -------
    int
        ``h``, half the Savitzky-Golay window at ``differentiation.cutoff_hz`` (central differences: 1), at most
        half the trial.
    """
    if differentiation.method == "gradient":
        h = 1
    else:
        h = savgol_window(differentiation.cutoff_hz, rate_hz, max(differentiation.polyorder, 2)) // 2
    return int(min(h, n_frames // 2))


def edge_note(differentiation, time, differentiated: bool) -> dict | None:
    """What ``edges`` in model.json says: the marked frames at each end, or None (rates given, or no frames).

    Parameters
    ----------
    differentiation : Differentiation
        How the rates were obtained (its reach at each end).
    time : array_like, shape (F,), s
        The frames' times.
    differentiated : bool
        The rates were differentiated here.

    Returns
    -------
    dict or None
        ``frames`` (at each end), ``start`` and ``end`` (s: the first and the last marked span, [from, to]) and
        ``why`` (one sentence); None when ``differentiated`` is False (the trial gave its rates) or the trial is
        too short.
    """
    t = np.asarray(time, dtype=float)
    if not differentiated or t.shape[0] < 3:
        return None
    rate = (t.shape[0] - 1) / (t[-1] - t[0])
    h = edge_frames(differentiation, rate, t.shape[0])
    if h < 1:
        return None
    return {"frames": h, "start": [float(t[0]), float(t[h - 1])], "end": [float(t[-h]), float(t[-1])],
            "why": "rates (velocities, accelerations, and the moments and powers made from them) of frames "
                   "with less than the smoothing's half window of data on one side, estimated from the signal "
                   "reflected about the trial's end"}


def edge_line(note: dict | None) -> str:
    """The log line of :func:`edge_note` (empty when there is nothing to mark).

    Parameters
    ----------
    note : dict or None
        :func:`edge_note`'s dict.

    Returns
    -------
    str
        The line, or "" when there is nothing to mark.
    """
    if not note:
        return ""
    (a0, a1), (b0, b1) = note["start"], note["end"]
    return (f"edges: rates of the first and last {note['frames']} frames ({a0:.3f}-{a1:.3f} s and {b0:.3f}-{b1:.3f} s) "
            "are estimates from the signal reflected about the trial's ends (less than the smoothing's half "
            "window of data on one side); marked in model.json (edges)")

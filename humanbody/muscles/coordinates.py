"""Coordinates, speeds and accelerations from a coordinates file, as OpenSim's AnalyzeTool makes them.

OpenSim's static optimization reads the coordinates (an IK ``.mot``), and
with ``lowpass_cutoff_frequency_for_coordinates`` set:

1. pads each column with ``n // 2`` points at each end, reflected and
   negated about the end value (``2 x_0 - x_k``: value and slope kept);
2. filters it with a third-order Butterworth low-pass, forward then backward
   (Signal::LowpassIIR: bilinear transform with the cut-off pre-warped,
   ``w = tan(pi fc T)``; the first four outputs of each pass copy its input);
3. fits a quintic spline through the padded, filtered samples (GCVSplineSet
   of degree 5 with no smoothing: the natural interpolating spline, third and
   fourth derivatives zero at the ends, :mod:`humanbody.osim.quintic`) and
   takes the speeds as its derivative at the samples; the accelerations are the derivative of the
   same kind of spline through the speeds.

Without a cut-off the spline runs through the samples themselves, unpadded.
:func:`opensim_kinematics` reproduces these steps (OpenSim's filtered
coordinates to 3e-8 rad, its speeds to 5e-7 of their range on the shared walk).
"""

from __future__ import annotations

import numpy as np

from .._kernels.iir import iir3_pass
from ..osim.quintic import natural_quintic_slopes


def reflect_pad(x: np.ndarray, n: int) -> np.ndarray:
    """``n`` points before and after (axis 0), ``2 x[0] - x[k]`` and ``2 x[-1] - x[-1-k]`` (Signal::Pad).

    Parameters
    ----------
    x : numpy.ndarray
        (F, ...) samples along axis 0.
    n : int
        Points to add at each end (at most ``F - 1``); 0 or less: ``x`` unchanged.

    Returns
    -------
    numpy.ndarray
        (F + 2 n, ...) the padded samples (``x`` itself when ``n <= 0``).
    """
    if n <= 0:
        return x
    n = min(n, len(x) - 1)
    return np.concatenate([2.0 * x[0] - x[n:0:-1], x, 2.0 * x[-1] - x[-2:-n - 2:-1]])


def butterworth3(x: np.ndarray, dt: float, cutoff_hz: float) -> np.ndarray:
    """OpenSim's Signal::LowpassIIR on every column of ``x`` (F, C): third-order Butterworth, forward and back.

    Parameters
    ----------
    x : numpy.ndarray
        (F, C) evenly sampled signals (any further axes are flattened into columns).
    dt : float
        Sampling interval (s).
    cutoff_hz : float
        Cut-off frequency (Hz), limited to ``0.49 / dt``.

    Returns
    -------
    numpy.ndarray
        The filtered signals, shaped like ``x``.
    """
    fc = min(cutoff_hz, 0.49 / dt)
    w = np.tan(np.pi * fc * dt)
    w2, w3 = w * w, w ** 3
    den = (w + 1.0) * (w2 + w + 1.0)
    a = np.array([w3, 3 * w3, 3 * w3, w3]) / den
    b = np.array([1.0, (3 * w3 + 2 * w2 - 2 * w - 3) / den, (3 * w3 - 2 * w2 - 2 * w + 3) / den,
                  (w - 1) * (w2 - w + 1) / den])
    forward = iir3_pass(np.ascontiguousarray(np.asarray(x, dtype=float).reshape(len(x), -1)), a, b)
    return iir3_pass(np.ascontiguousarray(forward[::-1]), a, b)[::-1].reshape(np.shape(x))


def opensim_kinematics(time: np.ndarray, q: np.ndarray, cutoff_hz: float | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinates, speeds and accelerations at the samples, as OpenSim's AnalyzeTool derives them.

    Parameters
    ----------
    time : numpy.ndarray
        (F,) s, evenly sampled.
    q : numpy.ndarray
        (F, C) coordinates (rad, m).
    cutoff_hz : float, optional
        The low-pass cut-off (Hz), or None for no filtering.

    Returns
    -------
    q, qd, qdd : numpy.ndarray
        (F, C) each: the (filtered) coordinates (rad, m), their speeds (per s) and accelerations (per s^2).
    """
    time = np.asarray(time, float)
    q = np.asarray(q, float)
    dt = float(np.median(np.diff(time)))
    n = len(time) // 2 if cutoff_hz is not None and cutoff_hz >= 0 else 0
    x = reflect_pad(q, n)
    t = np.concatenate([time[0] - dt * np.arange(n, 0, -1), time, time[-1] + dt * np.arange(1, n + 1)])
    if n:
        x = butterworth3(x, dt, float(cutoff_hz))  # type: ignore[arg-type]
    speeds = natural_quintic_slopes(t, x)
    inner = slice(n, n + len(time))
    return x[inner], speeds[inner], natural_quintic_slopes(t, speeds)[inner]

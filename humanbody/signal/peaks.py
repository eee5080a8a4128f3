"""Peaks of a sampled signal: local maxima kept by height, distance and prominence.

The rules of ``scipy.signal.find_peaks`` for the keywords used here, in its
order: local maxima (a flat top at its middle sample), then those at least
``height`` high, then the highest of any peaks closer than ``distance``
samples (from the highest down), then those whose prominence within a
window of ``wlen`` samples is at least ``prominence``.
"""

from __future__ import annotations

import math

import numpy as np

from .._kernels.peaks import keep_apart, local_maxima, prominences


def find_peaks(x, height: float | None = None, distance: float | None = None,
               prominence: float | None = None, wlen: float | None = None) -> np.ndarray:
    """Indices of the peaks of ``x`` (F,) that pass every condition given.

    Parameters
    ----------
    x : (F,) float
    height : float, optional
        Lowest value of a peak.
    distance : float, optional
        Smallest distance between peaks (samples, >= 1; rounded up).
    prominence : float, optional
        Smallest prominence: height above the higher of the lowest points on
        each side before the signal rises above the peak (or the window ends).
    wlen : float, optional
        Window of the prominence (samples, > 1, rounded up to an odd count);
        None: the whole signal.

    Returns
    -------
    (P,) intp
        Increasing sample indices.
    """
    x = np.asarray(x, dtype=np.float64, order="C")
    if x.ndim != 1:
        raise ValueError(f"find_peaks needs a 1-D signal, got shape {x.shape}")
    if distance is not None and distance < 1:
        raise ValueError("`distance` must be greater or equal to 1")
    peaks = local_maxima(x)
    if height is not None:
        peaks = peaks[height <= x[peaks]]
    if distance is not None:
        peaks = peaks[keep_apart(peaks, np.argsort(x[peaks]).astype(np.intp), math.ceil(distance))]
    if prominence is not None:
        if wlen is None:
            w = -1
        elif wlen > 1:
            w = math.ceil(wlen)
        else:
            raise ValueError(f"`wlen` must be larger than 1, was {wlen}")
        peaks = peaks[prominence <= prominences(x, peaks, w)]
    return peaks

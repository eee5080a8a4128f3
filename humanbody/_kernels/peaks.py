"""Numba kernels of peak finding in a sampled signal (arrays in, arrays out).

Used by :func:`humanbody.signal.peaks.find_peaks`: local maxima (flat tops
included), selection by distance in order of height, and topographic
prominence within a window.  Cached on disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE)
def local_maxima(x):
    """Indices of the local maxima of ``x`` (F,): samples above their left neighbour and above the
    first different sample to their right.

    A flat top (equal samples) counts once, at its middle sample (the lower
    one of two middles); the first and last samples are never maxima.

    Returns
    -------
    (M,) intp
    """
    out = np.empty(x.shape[0] // 2, dtype=np.intp)
    m = 0
    i = 1
    i_max = x.shape[0] - 1
    while i < i_max:
        if x[i - 1] < x[i]:
            ahead = i + 1
            while ahead < i_max and x[ahead] == x[i]:
                ahead += 1
            if x[ahead] < x[i]:
                out[m] = (i + ahead - 1) // 2
                m += 1
                i = ahead
        i += 1
    return out[:m]


@nb.njit(cache=_CACHE)
def keep_apart(peaks, by_height, distance):
    """Which peaks remain when, from the highest down, each kept peak removes the others closer than ``distance``.

    Parameters
    ----------
    peaks : (M,) intp
        Sample indices, increasing.
    by_height : (M,) intp
        Positions into ``peaks``, lowest to highest (an argsort of the heights).
    distance : int
        Smallest number of samples between two kept peaks.

    Returns
    -------
    (M,) bool
    """
    M = peaks.shape[0]
    keep = np.ones(M, dtype=np.bool_)
    for r in range(M - 1, -1, -1):
        j = by_height[r]
        if not keep[j]:
            continue
        k = j - 1
        while 0 <= k and peaks[j] - peaks[k] < distance:
            keep[k] = False
            k -= 1
        k = j + 1
        while k < M and peaks[k] - peaks[j] < distance:
            keep[k] = False
            k += 1
    return keep


@nb.njit(cache=_CACHE)
def prominences(x, peaks, wlen):
    """Topographic prominence of each peak: its height above the higher of its two bases.

    Each base is the lowest sample between the peak and the first sample
    higher than the peak on that side (or the end of the window of ``wlen``
    samples centred on the peak, rounded up to odd; ``wlen < 2``: the whole
    signal).

    Returns
    -------
    (M,) float64
    """
    out = np.empty(peaks.shape[0])
    last = x.shape[0] - 1
    for n in range(peaks.shape[0]):
        peak = peaks[n]
        lo = 0
        hi = last
        if wlen >= 2:
            lo = max(peak - wlen // 2, 0)
            hi = min(peak + wlen // 2, last)
        top = x[peak]
        left = top
        i = peak
        while lo <= i and x[i] <= top:
            if x[i] < left:
                left = x[i]
            i -= 1
        right = top
        i = peak
        while i <= hi and x[i] <= top:
            if x[i] < right:
                right = x[i]
            i += 1
        out[n] = top - max(left, right)
    return out

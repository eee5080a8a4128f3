"""Numba row-range passes over a finished marker table (arrays in, arrays out).

:func:`clean_markers` marks missing samples and converts units in place;
:func:`cloud_extents` measures the marker cloud per frame (unit detection).
Both release the GIL: the readers run row ranges on threads
(:func:`humanbody.io._fastread.in_threads`).  Kernels are cached on disk.
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE, nogil=True)
def clean_markers(table, scale, r0, r1, missing, absurd, limit):
    """Missing marker samples to NaN and coordinates to metres, rows r0:r1, in place.

    ``table`` (frames, 1 + 3 * markers) holds time then x, y, z of each
    marker.  A sample exactly at (0, 0, 0), with any NaN coordinate, or with
    a coordinate that is infinite or beyond ``limit`` in magnitude (file
    units: no marker is that far) becomes (NaN, NaN, NaN); then, when
    ``scale`` != 1, every coordinate is multiplied by it (the same
    operations, so the same bits, as doing it with numpy array by array).
    Adds the missing samples of each marker to ``missing`` (markers,), the
    infinite or absurd ones to ``absurd[0]``, and returns the number of
    (0, 0, 0) samples.  The GIL is released: the caller runs row ranges on
    several threads.

    Parameters
    ----------
    table : ndarray, shape (frames, 1 + 3 markers), float64
        Time (s, column 0, not touched), then x, y, z of each marker in file units; rows r0:r1 are
        rewritten in place (missing samples NaN, coordinates in metres).
    scale : float
        Metres per file unit (1.0 leaves the values unscaled, 0.001 for millimetres).
    r0, r1 : int
        The rows handled, ``r0 <= i < r1`` (0-based).
    missing : ndarray of int64, shape (markers,)
        Incremented in place: each marker's samples made missing in these rows (zero, NaN, infinite
        or absurd).
    absurd : ndarray of int64, shape (1,)
        ``absurd[0]`` incremented in place by the samples with an infinite coordinate or one beyond
        ``limit``.
    limit : float
        Largest plausible coordinate magnitude, in file units (before ``scale``).

    Returns
    -------
    int
        The number of samples in rows r0:r1 exactly at (0, 0, 0) (counted in ``missing`` too).
    """
    m = (table.shape[1] - 1) // 3
    zeros = 0
    for i in range(r0, r1):
        for k in range(m):
            c = 1 + 3 * k
            x = table[i, c]
            y = table[i, c + 1]
            z = table[i, c + 2]
            gone = False
            if x == 0.0 and y == 0.0 and z == 0.0:
                zeros += 1
                gone = True
            elif x != x or y != y or z != z:
                gone = True
            elif not (abs(x) <= limit and abs(y) <= limit and abs(z) <= limit):
                absurd[0] += 1
                gone = True
            if gone:
                missing[k] += 1
                x = np.nan
                y = np.nan
                z = np.nan
            if scale != 1.0:
                x *= scale
                y *= scale
                z *= scale
            table[i, c] = x
            table[i, c + 1] = y
            table[i, c + 2] = z
    return zeros


@nb.njit(cache=_CACHE, nogil=True)
def cloud_extents(xyz, r0, r1, count, ext):
    """Per frame r0:r1: usable samples and the largest coordinate extent across them.

    ``xyz`` (frames, markers, 3); a sample is usable when its coordinates
    are finite and not all zero.  ``count[i]`` receives the usable samples
    of frame i; ``ext[i]``, for a frame with at least two, max over x, y, z
    of (largest - smallest coordinate), else 0.  The GIL is released.

    Parameters
    ----------
    xyz : ndarray, shape (frames, markers, 3), float64
        Marker positions in file units (read only).
    r0, r1 : int
        The frames handled, ``r0 <= i < r1`` (0-based).
    count : ndarray of int64, shape (frames,)
        Written for frames r0:r1: the number of usable samples of each frame.
    ext : ndarray, shape (frames,), float64
        Written for frames r0:r1: the largest coordinate extent (file units), 0 with fewer than two
        usable samples.
    """
    for i in range(r0, r1):
        c = 0
        lo0 = lo1 = lo2 = np.inf
        hi0 = hi1 = hi2 = -np.inf
        for k in range(xyz.shape[1]):
            x = xyz[i, k, 0]
            y = xyz[i, k, 1]
            z = xyz[i, k, 2]
            if not (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)):
                continue
            if x == 0.0 and y == 0.0 and z == 0.0:
                continue
            c += 1
            lo0 = min(lo0, x)
            hi0 = max(hi0, x)
            lo1 = min(lo1, y)
            hi1 = max(hi1, y)
            lo2 = min(lo2, z)
            hi2 = max(hi2, z)
        count[i] = c
        ext[i] = max(hi0 - lo0, max(hi1 - lo1, hi2 - lo2)) if c >= 2 else 0.0

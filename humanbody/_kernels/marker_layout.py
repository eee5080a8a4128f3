"""Numba kernels that move marker coordinates between layouts (arrays in, arrays out).

Copies into the (frames, markers, 3) block, lab-to-ground axis permutations
and points carried by tracked segment frames.  Compiled once and cached on
disk (``cache=True``).
"""

from __future__ import annotations

import numba as nb
import numpy as np

_CACHE = True


@nb.njit(cache=_CACHE, parallel=True)
def carried_points(R, O, x, out):
    """``out[f] = O[f] + R[f] x`` every frame: a point fixed in a moving frame, in ground (m).

    The same sums in the same order as the NumPy expression
    ``O + (R[:, :, 0] * x0 + R[:, :, 1] * x1 + R[:, :, 2] * x2)`` (no
    contraction into fused multiply-adds), so the result is bit for bit that.

    Parameters
    ----------
    R : ndarray, shape (F, 3, 3), float64
        Orientation of the moving frame in each frame: its columns are the frame's axes in ground
        (any strides).
    O : ndarray, shape (F, 3), float64
        The moving frame's origin in ground (m; any strides).
    x : ndarray, shape (3,), float64
        The point's coordinates in the moving frame (m).
    out : ndarray, shape (F, 3), float64
        Written: the point in ground every frame (m); NaN wherever R or O is.
    """
    x0, x1, x2 = x[0], x[1], x[2]
    for f in nb.prange(R.shape[0]):
        for i in range(3):
            out[f, i] = O[f, i] + ((R[f, i, 0] * x0 + R[f, i, 1] * x1) + R[f, i, 2] * x2)


@nb.njit(cache=_CACHE, parallel=True)
def copy_positions(src, out):
    """``out[f, j] = src[f, 3j:3j+3]``, a sample set to NaN when any coordinate is NaN or all are 0.

    Parameters
    ----------
    src : ndarray, shape (F, 3 m), float64
        Marker coordinates, x, y, z of marker 0, then of marker 1, ... (any strides; units kept).
    out : ndarray, shape (F, m, 3), float64
        Written: the same coordinates per marker, (NaN, NaN, NaN) for a missing sample.
    """
    F, m = out.shape[0], out.shape[1]
    for f in nb.prange(F):
        for j in range(m):
            x, y, z = src[f, 3 * j], src[f, 3 * j + 1], src[f, 3 * j + 2]
            if np.isnan(x) or np.isnan(y) or np.isnan(z) or (x == 0.0 and y == 0.0 and z == 0.0):
                x = y = z = np.nan
            out[f, j, 0], out[f, j, 1], out[f, j, 2] = x, y, z


@nb.njit(cache=_CACHE, parallel=True)
def permute_axes(src, first, perm, sign, out):
    """Marker table in other axes by a signed permutation: one pass, parallel over frames.

    ``out[f, :first] = src[f, :first]`` (time and other leading columns),
    then for every marker j (columns ``first + 3j .. first + 3j + 2``)
    ``out[f, first + 3j + i] = sign[i] * src[f, first + 3j + perm[i]]``:
    each ground component is a lab component with its sign, so a missing
    (NaN) component stays missing and nothing is rounded.

    Parameters
    ----------
    src : ndarray, shape (F, first + 3 m), float64
        The marker table in lab axes: ``first`` leading columns, then x, y, z of each marker (any
        strides; units kept).
    first : int
        Number of leading columns (time...) copied as they are.
    perm : ndarray, shape (3,), int64
        For each ground axis i, the 0-based lab axis (0 = x, 1 = y, 2 = z) it is read from.
    sign : ndarray, shape (3,), float64
        +1.0 or -1.0 for each ground axis: the sign applied to its lab component.
    out : ndarray, shape (F, first + 3 m), float64
        Written, every column: the table in ground axes.  Must not alias ``src``.
    """
    F, C = src.shape[0], src.shape[1]
    m = (C - first) // 3
    p0, p1, p2 = perm[0], perm[1], perm[2]
    s0, s1, s2 = sign[0], sign[1], sign[2]
    for f in nb.prange(F):
        for c in range(first):
            out[f, c] = src[f, c]
        for j in range(m):
            c = first + 3 * j
            out[f, c] = s0 * src[f, c + p0]
            out[f, c + 1] = s1 * src[f, c + p1]
            out[f, c + 2] = s2 * src[f, c + p2]

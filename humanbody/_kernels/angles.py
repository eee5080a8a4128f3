"""Numba kernels of segment orientations along a trial: relative angles, their continuity, interpolation.

Array in, array out, nothing about names or tables; compiled once and cached
on disk (``cache=True``).  The rotation algebra is the shared inline helpers
of :mod:`humanbody._kernels.rot`.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .rot import (
    NAN33,
    elementary,
    finite33,
    load33,
    mul33,
    quaternion_matrix,
    sequence_angles,
    sequence_matrix,
    shepperd,
    store33,
    tmul33,
)

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
#: Frames per call of the serial functions that the parallel kernels' loops call.  The body of a
#: parallel loop is a call, not the inlined rotation algebra: numba's parallel passes over that algebra
#: cost a first run several CPU-s per kernel; the call's index is int64 (the loop's own is typed otherwise,
#: which would compile the function twice).
_BLOCK = 256


@nb.njit(cache=_CACHE, parallel=True)
def relative_angles(R, parent, seq, tol, out):
    """Angles of every segment relative to its parent in its rotation sequence, every frame.

    ``S = R_L^T R_k`` (``S = R_k`` for the root, ``parent[k] < 0``), then the
    inverse of the sequence's matrix exactly as
    :func:`humanbody.rotations.matrix_to_euler` (:func:`humanbody._kernels.rot.sequence_angles`).
    NaN where S is not finite.

    Parameters
    ----------
    R : ndarray, shape (F, n, 3, 3), float64
        Absolute orientation ``R_0k`` of every segment k in every frame: its columns are the segment's
        axes in the lab frame.  Non-finite entries give NaN angles for that segment and frame.
    parent : ndarray, shape (n,), int64
        0-based index of each segment's parent in ``R``'s axis 1; negative (-1) for a root.
    seq : ndarray, shape (n, 3), int64
        Axes of each segment's rotation sequence, first to third (0 = x, 1 = y, 2 = z); first == third
        is an Euler sequence, otherwise Cardan.
    tol : float
        Singular-set threshold: below it ``|sin|`` (Euler) or ``|cos|`` (Cardan) of the middle angle
        puts the frame on the singular set, where the third angle is 0 (as
        :func:`humanbody.rotations.matrix_to_euler`); the callers pass 1e-9.
    out : ndarray, shape (F, n, 3), float64
        Written: first, middle and third angle (alpha, beta, gamma) of each segment relative to its
        parent (rad); NaN where ``S`` is not finite.
    """
    F = R.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        _relative_rows(np.int64(b) * _BLOCK, min(F, (np.int64(b) + 1) * _BLOCK), R, parent, seq, tol, out)


@nb.njit(cache=_CACHE, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def _relative_rows(f0, f1, R, parent, seq, tol, out):
    """Frames ``f0:f1`` of :func:`relative_angles` (a serial function of its own: see :data:`_BLOCK`)."""
    n = R.shape[1]
    for f in range(f0, f1):
        for k in range(n):
            L = parent[k]
            rk = (R[f, k, 0, 0], R[f, k, 0, 1], R[f, k, 0, 2], R[f, k, 1, 0], R[f, k, 1, 1], R[f, k, 1, 2],
                  R[f, k, 2, 0], R[f, k, 2, 1], R[f, k, 2, 2])
            if L < 0:
                s = rk
            else:  # S = R_L^T R_k
                s = tmul33((R[f, L, 0, 0], R[f, L, 0, 1], R[f, L, 0, 2], R[f, L, 1, 0], R[f, L, 1, 1],
                            R[f, L, 1, 2], R[f, L, 2, 0], R[f, L, 2, 1], R[f, L, 2, 2]), rk)
            if not finite33(s):
                out[f, k, 0] = out[f, k, 1] = out[f, k, 2] = np.nan
                continue
            a, b, g = sequence_angles(seq[k, 0], seq[k, 1], seq[k, 2], s, tol)
            out[f, k, 0], out[f, k, 1], out[f, k, 2] = a, b, g


@nb.njit(cache=_CACHE, inline="always")
def _wrapped(d):
    """``d`` reduced to (-pi, pi]."""
    return d - 2.0 * np.pi * np.floor((d + np.pi) / (2.0 * np.pi))


@nb.njit(cache=_CACHE, parallel=True)
def continuous_angles(angles, seq, tol):
    """Make every body's angles continuous along time where its rotation is, in place.

    Two things break the continuity of angles read frame by frame
    (:func:`relative_angles`) when a rotation passes near or through the
    singular set of its sequence, though the rotation itself moves smoothly:

    - on the singular set only the sum or difference of the first and third
      angles is defined and the third is read as 0.  On such frames
      (``|sin|`` or ``|cos|`` of the middle angle below ``tol``, third angle
      exactly 0) the third angle is carried on from the previous frame and the
      first takes up the rest: ``first - s * third``, with ``s`` the component
      along the first axis of the third axis after the middle rotation.
    - the middle angle is read in [-pi/2, pi/2] (Cardan) or [0, pi] (Euler);
      a rotation that goes beyond needs the equivalent angles
      ``(first + pi, sign(middle) pi - middle, third + pi)`` (Cardan) or
      ``(first + pi, -middle, third + pi)`` (Euler).  Each frame takes
      whichever of the two equivalent triples is nearer the previous frame's
      (sum of absolute differences, first and third modulo 2 pi).

    Every frame's rotation is unchanged.  First and third angles are left in
    (-pi, pi] + pi; unwrap them afterwards.  NaN frames are skipped.

    Parameters
    ----------
    angles : ndarray, shape (F, n, 3), float64
        First, middle and third angle of every body in every frame (rad), as :func:`relative_angles`
        writes them; changed in place.  Frames with a non-finite angle are left alone and skipped.
    seq : ndarray, shape (n, 3), int64
        Axes of each body's rotation sequence (0 = x, 1 = y, 2 = z; first == third is Euler).
    tol : float
        The singular-set threshold :func:`relative_angles` was given (on ``|sin|`` or ``|cos|`` of the
        middle angle).
    """
    F, n = angles.shape[0], angles.shape[1]
    for k in nb.prange(n):
        i, j, i3 = seq[k, 0], seq[k, 1], seq[k, 2]
        euler = i == i3
        pa = pb = pg = np.nan
        for f in range(F):
            a, b, g = angles[f, k, 0], angles[f, k, 1], angles[f, k, 2]
            if not (np.isfinite(a) and np.isfinite(b) and np.isfinite(g)):
                continue
            if np.isfinite(pg):
                factor = np.sin(b) if euler else np.cos(b)
                if abs(factor) < tol and g == 0.0:  # singular: carry the third angle on
                    m = elementary(j, np.sin(b), np.cos(b))
                    a -= m[3 * i + i3] * pg
                    g = pg
                if euler:
                    b2 = -b
                else:
                    b2 = (np.pi if b >= 0.0 else -np.pi) - b
                a2, g2 = a + np.pi, g + np.pi
                d1 = abs(_wrapped(a - pa)) + abs(b - pb) + abs(_wrapped(g - pg))
                d2 = abs(_wrapped(a2 - pa)) + abs(b2 - pb) + abs(_wrapped(g2 - pg))
                if d2 < d1:
                    a, b, g = a2, b2, g2
            angles[f, k, 0], angles[f, k, 1], angles[f, k, 2] = a, b, g
            pa, pb, pg = a, b, g


@nb.njit(cache=_CACHE, parallel=True)
def slerp_rotations(Ra, Rb, fraction, out):
    """``out = Ra exp(f log(Ra^T Rb))``: a fraction ``f`` of the way from Ra to Rb, every frame.

    The relative rotation ``Ra^T Rb`` as a unit quaternion with w >= 0
    (angle theta in [0, pi]); its angle is scaled by f about the same axis,
    ``(v sin(f theta/2) / sin(theta/2), cos(f theta/2))``, with the ratio
    taken as f when ``|v| <= 1e-12``.  NaN in either input gives NaN.

    Parameters
    ----------
    Ra, Rb : ndarray, shape (F, 3, 3), float64
        The rotation matrices to interpolate between, one pair per frame (fraction 0 gives Ra,
        1 gives Rb).
    fraction : float
        The fraction ``f`` of the relative rotation's angle (dimensionless; 0 to 1 interpolates,
        outside extrapolates about the same axis).
    out : ndarray, shape (F, 3, 3), float64
        Written: the interpolated rotation matrix of each frame (NaN where Ra or Rb is not finite).
    """
    F = Ra.shape[0]
    for t in nb.prange(F):
        a = load33(Ra, t)
        b = load33(Rb, t)
        if not (finite33(a) and finite33(b)):
            store33(out, t, NAN33)
            continue
        rel = tmul33(a, b)  # Ra^T Rb
        x, y, z, w = shepperd(rel)
        s = np.sqrt(x * x + y * y + z * z)
        half = np.arctan2(s, w)
        ratio = np.sin(fraction * half) / s if s > 1e-12 else fraction
        x, y, z, w = x * ratio, y * ratio, z * ratio, np.cos(fraction * half)
        nrm = np.sqrt(x * x + y * y + z * z + w * w)
        x, y, z, w = x / nrm, y / nrm, z / nrm, w / nrm
        store33(out, t, mul33(a, quaternion_matrix(x, y, z, w)))  # out = Ra step


@nb.njit(cache=_CACHE)
def _unwrap_step(d):
    """Correction numpy.unwrap makes for a step d with |d| >= pi: ``m - d``, m = mod(d + pi, 2 pi) - pi.

    ``mod`` as NumPy computes it for a positive divisor (fmod, then the
    result moved into [0, 2 pi)); m = pi, not -pi, for d > 0.
    """
    m = np.fmod(d + np.pi, 2.0 * np.pi)
    if m < 0.0:
        m += 2.0 * np.pi
    elif m == 0.0:
        m = 0.0
    m -= np.pi
    if m == -np.pi and d > 0.0:
        m = np.pi
    return m - d


@nb.njit(cache=_CACHE)
def unwrap_columns(x):
    """Unwrap angles along axis 0, in place, column by column, over the finite samples only.

    The steps of :func:`numpy.unwrap` (period 2 pi) between consecutive
    finite samples of a column: no correction when ``|d| < pi``, else
    :func:`_unwrap_step`; corrections summed in order, so the result equals
    ``numpy.unwrap`` bit for bit on a column without NaN.  NaN and infinite
    samples are skipped and stay as they are.  Tiles of 512 rows are
    visited column by column with each column's state carried over, so the
    table is read from cache, not walked down whole columns.

    Parameters
    ----------
    x : ndarray, shape (F, C), float64
        Angles (rad) with frames along axis 0 and C independent columns; each column is unwrapped in
        place (its first finite sample is kept, later finite samples shifted by multiples of 2 pi).
    """
    F, C = x.shape[0], x.shape[1]
    prevs = np.zeros(C)
    totals = np.zeros(C)
    starts = np.zeros(C, dtype=np.bool_)
    for i0 in range(0, F, 512):
        i1 = min(F, i0 + 512)
        for c in range(C):
            prev, total, started = prevs[c], totals[c], starts[c]
            for i in range(i0, i1):
                v = x[i, c]
                if not np.isfinite(v):
                    continue
                if started:
                    d = v - prev
                    if not abs(d) < np.pi:
                        total += _unwrap_step(d)
                    x[i, c] = v + total
                started = True
                prev = v
            prevs[c], totals[c], starts[c] = prev, total, started


@nb.njit(cache=_CACHE, parallel=True)
def joint_rotation_angles(angles, seq, chains, yaw, use_yaw, out_seq, tol, out):
    """Angles of composed joint rotations, every frame: the clinical angles' decomposition.

    For joint i, ``S = Yaw(-yaw)? R_c0 R_c1 ...`` with ``R_c`` the matrix of
    body c's angles in its sequence (``chains[i]``, -1 ends the chain; the
    yaw factor only where ``use_yaw[i]``: a rotation about the vertical by
    minus the frame's heading), then its angles in the sequence
    ``out_seq[i]`` (:func:`humanbody._kernels.rot.sequence_angles`).  NaN in, NaN out.

    Parameters
    ----------
    angles : ndarray, shape (F, n, 3), float64
        First, middle and third angle of every body in every frame (rad), in the body's sequence ``seq``.
    seq : ndarray, shape (n, 3), int64
        Axes of each body's rotation sequence (0 = x, 1 = y, 2 = z).
    chains : ndarray, shape (J, C), int64
        For each joint, the 0-based indices of the bodies whose rotations are composed, left to right;
        a -1 ends the chain early.
    yaw : ndarray, shape (F,), float64
        The heading of every frame (rad, about the vertical z axis); used only for joints with
        ``use_yaw``.
    use_yaw : ndarray, shape (J,), bool
        Whether joint i's product starts with ``Rz(-yaw)`` (the rotation removing the heading).
    out_seq : ndarray, shape (J, 3), int64
        Axes of the sequence each joint's composed rotation is read in (0 = x, 1 = y, 2 = z).
    tol : float
        Singular-set threshold on ``|sin|`` or ``|cos|`` of the middle angle (as :func:`relative_angles`).
    out : ndarray, shape (F, J, 3), float64
        Written: first, middle and third angle of each joint's rotation (rad); NaN where the
        product is not finite.
    """
    F = angles.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        _joint_rows(np.int64(b) * _BLOCK, min(F, (np.int64(b) + 1) * _BLOCK),
                    angles, seq, chains, yaw, use_yaw, out_seq, tol, out)


@nb.njit(cache=_CACHE, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def _joint_rows(f0, f1, angles, seq, chains, yaw, use_yaw, out_seq, tol, out):
    """Frames ``f0:f1`` of :func:`joint_rotation_angles` (a serial function of its own: see :data:`_BLOCK`)."""
    J, C = chains.shape[0], chains.shape[1]
    for f in range(f0, f1):
        for i in range(J):
            if use_yaw[i]:
                cy, sy = np.cos(yaw[f]), np.sin(yaw[f])
                S = (cy, sy, 0.0, -sy, cy, 0.0, 0.0, 0.0, 1.0)
            else:
                S = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)
            for c in range(C):
                k = chains[i, c]
                if k < 0:
                    break
                a, b, g = angles[f, k, 0], angles[f, k, 1], angles[f, k, 2]
                M, _ = sequence_matrix(seq[k, 0], seq[k, 1], seq[k, 2], np.sin(a), np.cos(a), np.sin(b),
                                       np.cos(b), np.sin(g), np.cos(g))
                S = mul33(S, M)
            if not finite33(S):
                out[f, i, 0] = out[f, i, 1] = out[f, i, 2] = np.nan
                continue
            x, y, z = sequence_angles(out_seq[i, 0], out_seq[i, 1], out_seq[i, 2], S, tol)
            out[f, i, 0], out[f, i, 1], out[f, i, 2] = x, y, z

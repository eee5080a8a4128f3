"""The least-squares rigid fit of point clusters, every frame at once (Horn's quaternion method).

Finds the rotation R (proper orthogonal) and origin o minimising
``sum_i w_i |R p_i + o - q_i|^2`` (Söderkvist & Wedin 1993, J Biomech
26:1473-1477).  With centroids p̄, q̄ and the cross-covariance
``H = sum w (p - p̄)(q - q̄)^T``, R is the rotation of the unit quaternion
that is the eigenvector of the largest eigenvalue of Horn's symmetric 4x4
matrix N(H) (Horn 1987, J Opt Soc Am A 4:629): the same optimum as the SVD
form ``R = V diag(1, 1, det(V U^T)) U^T`` of ``H = U S V^T``, with det R = +1
built in.  The kernels (:mod:`humanbody._kernels.marker_fit`) find the
eigenvector in closed form; the rare frames where the two largest
eigenvalues are too close for that are solved here by
``numpy.linalg.eigh``, all in one batched call.
"""

from __future__ import annotations

import numpy as np

from .._kernels.marker_fit import finish_fits, rigid_fit
from .._kernels.marker_fit import horn_rotations as _horn_kernel
from ..rotations.quaternions import quaternion_to_matrix

__all__ = ["MIN_SPREAD", "fit_rigid", "horn_quaternions", "horn_rotations"]


def horn_matrices(H) -> np.ndarray:
    """Horn's symmetric 4x4 matrices N of cross-covariances ``H = sum w a b^T``, shape (..., 4, 4).

    Rows and columns in the order (w, x, y, z) of the quaternion; the
    quaternion maximising ``sum w b . (R a)`` is the eigenvector of N's
    largest eigenvalue.

    Parameters
    ----------
    H : ndarray, shape (..., 3, 3)
        Weighted cross-covariances sum w a b^T of centred point pairs (m^2).

    Returns
    -------
    ndarray, shape (..., 4, 4)
        Horn's matrices N.
    """
    H = np.asarray(H, dtype=float)
    sxx, sxy, sxz = H[..., 0, 0], H[..., 0, 1], H[..., 0, 2]
    syx, syy, syz = H[..., 1, 0], H[..., 1, 1], H[..., 1, 2]
    szx, szy, szz = H[..., 2, 0], H[..., 2, 1], H[..., 2, 2]
    N = np.empty(H.shape[:-2] + (4, 4))
    N[..., 0, 0] = sxx + syy + szz
    N[..., 0, 1] = N[..., 1, 0] = syz - szy
    N[..., 0, 2] = N[..., 2, 0] = szx - sxz
    N[..., 0, 3] = N[..., 3, 0] = sxy - syx
    N[..., 1, 1] = sxx - syy - szz
    N[..., 1, 2] = N[..., 2, 1] = sxy + syx
    N[..., 1, 3] = N[..., 3, 1] = szx + sxz
    N[..., 2, 2] = -sxx + syy - szz
    N[..., 2, 3] = N[..., 3, 2] = syz + szy
    N[..., 3, 3] = -sxx - syy + szz
    return N


def horn_quaternions(H) -> np.ndarray:
    """Horn's quaternions of cross-covariances H (k, 3, 3) by ``numpy.linalg.eigh``, shape (k, 4).

    Euler parameters ``(eps1, eps2, eps3, eps4)``, scalar last, of the
    eigenvector of the largest eigenvalue of :func:`horn_matrices`; the
    identity where H is zero (no rotation is preferred).  One batched call
    for all frames.

    Parameters
    ----------
    H : ndarray, shape (k, 3, 3)
        Weighted cross-covariances sum w a b^T of centred point pairs (m^2).

    Returns
    -------
    ndarray, shape (k, 4)
        Unit Euler parameters of the best rotations, scalar last.
    """
    N = horn_matrices(H)
    _, vectors = np.linalg.eigh(N)
    wxyz = vectors[..., :, -1]  # eigenvalues ascending: the last column
    q = np.concatenate([wxyz[..., 1:], wxyz[..., :1]], axis=-1)
    q[~np.any(N != 0.0, axis=(-2, -1))] = (0.0, 0.0, 0.0, 1.0)
    return q


def horn_rotations(H) -> np.ndarray:
    """Proper rotations R minimising ``sum w |R a - b|^2`` from ``H = sum w a b^T``, shape (F, 3, 3).

    The closed form of the kernel (:func:`humanbody._kernels.marker_fit.horn_rotations`)
    on every frame, :func:`horn_quaternions` on the frames it flags.  NaN
    where H is not finite.

    Parameters
    ----------
    H : ndarray, shape (F, 3, 3)
        Weighted cross-covariances sum w a b^T of centred point pairs (m^2), one per frame.

    Returns
    -------
    ndarray, shape (F, 3, 3)
        The rotations R (b = R a), NaN where H is not finite.
    """
    H = np.ascontiguousarray(H, dtype=float)
    R = np.empty_like(H)
    flagged = np.empty(H.shape[0], dtype=np.bool_)
    _horn_kernel(H, R, flagged)
    frames = np.flatnonzero(flagged)
    if frames.size:
        R[frames] = quaternion_to_matrix(horn_quaternions(H[frames]))
    return R


#: A cluster is usable in a frame when the spread of its local points normal
#: to their best line exceeds this (m, RMS over the points).
MIN_SPREAD = 0.002


def _spread(p, w, dp, safe):
    """Second largest principal spread (m) of the points used in each frame.

    It depends only on the local points and which of them are used, so
    frames sharing a pattern of used points (nearly all frames share the
    full pattern) are computed once.
    """
    m = w.shape[1]
    if p.strides[0] == 0 and m <= 62 and np.all((w == 0) | (w == 1)):  # one local point set, 0/1 weights
        keys = (w > 0).astype(np.int64) @ (np.int64(1) << np.arange(m, dtype=np.int64))
        codes, inverse = np.unique(keys, return_inverse=True)
        out = np.empty(len(codes))
        for i, code in enumerate(codes):
            used = (int(code) >> np.arange(m)) & 1 == 1
            pts = p[0][used]
            if len(pts) == 0:
                out[i] = 0.0
                continue
            c = pts - pts.mean(axis=0)
            out[i] = np.sqrt(max(np.linalg.eigvalsh(c.T @ c / len(pts))[1], 0.0))
        return out[inverse.ravel()]
    C = np.matmul((dp * w[..., None]).transpose(0, 2, 1), dp) / safe[..., None]
    return np.sqrt(np.clip(np.linalg.eigvalsh(C)[:, 1], 0.0, None))


def fit_rigid(local, measured, weights=None):
    """Least-squares rigid transformation, vectorised over frames.

    Finds R (proper orthogonal) and o minimising
    ``sum_i w_i |R p_i + o - q_i|^2`` (Söderkvist & Wedin 1993); the
    rotation is computed from the weighted cross-covariance by Horn's
    quaternion method (:func:`horn_rotations`), which
    reaches the same optimum with det R = +1.

    Parameters
    ----------
    local : array_like, shape (m, 3) or (frames, m, 3)
        Points in the segment frame (m).
    measured : array_like, shape (frames, m, 3)
        Measured ground positions; NaN entries are ignored.
    weights : array_like, shape (frames, m), optional
        Non-negative weights (default 1 for every finite point).

    Returns
    -------
    R : ndarray, shape (frames, 3, 3)
        Segment axes in ground components (ground = R local + origin).
    origin : ndarray, shape (frames, 3)
        The segment frame's origin in ground (m).
    rms : ndarray, shape (frames,)
        RMS distance between fitted and measured points (m).
    count : ndarray of int, shape (frames,)
        Points used.
    ok : ndarray of bool, shape (frames,)
        At least three points whose local spread normal to a line exceeds
        :data:`MIN_SPREAD`; R, origin and rms are NaN where False.
    """
    q = np.asarray(measured, dtype=float)
    if weights is None and np.ndim(local) == 2 and q.ndim == 3 and 0 < q.shape[1] <= 62:
        return _fit_rigid_fused(np.ascontiguousarray(local, dtype=float), q)
    p = np.broadcast_to(np.asarray(local, dtype=float), q.shape)
    w = np.isfinite(q).all(axis=-1) & np.isfinite(p).all(axis=-1)
    if weights is not None:
        w = w * np.asarray(weights, dtype=float)
    w = w.astype(float)
    q0 = np.where(w[..., None] > 0, q, 0.0)
    p0 = np.where(w[..., None] > 0, p, 0.0)
    wsum = w.sum(axis=1)
    safe = np.where(wsum > 0, wsum, 1.0)[:, None]
    pc = np.einsum("fm,fmi->fi", w, p0) / safe
    qc = np.einsum("fm,fmi->fi", w, q0) / safe
    dp = (p0 - pc[:, None]) * (w[..., None] > 0)
    dq = (q0 - qc[:, None]) * (w[..., None] > 0)
    wdp = dp * w[..., None]
    H = np.matmul(wdp.transpose(0, 2, 1), dq)  # sum_m w_m dp_m dq_m^T
    R = horn_rotations(H)  # the least-squares rotation (same optimum as the SVD form)
    origin = qc - np.matmul(R, pc[..., None])[..., 0]
    count = (w > 0).sum(axis=1)
    spread = _spread(p, w, dp, safe)
    ok = (count >= 3) & (spread > MIN_SPREAD)
    fitted = np.matmul(p, R.transpose(0, 2, 1)) + origin[:, None]
    err2 = np.where(w > 0, np.sum((fitted - np.where(w[..., None] > 0, q, 0.0)) ** 2, axis=-1), 0.0)
    rms = np.sqrt(err2.sum(axis=1) / np.maximum(count, 1))
    R[~ok] = np.nan
    origin[~ok] = np.nan
    rms = np.where(ok, rms, np.nan)
    return R, origin, rms, count, ok


def _fit_rigid_fused(local: np.ndarray, q: np.ndarray):
    """:func:`fit_rigid` for one local point set and 0/1 weights, by one kernel pass.

    :func:`humanbody._kernels.marker_fit.rigid_fit` forms centroids,
    cross-covariance, Horn's rotation and the residual frame by frame; the
    spread test depends only on which points were used, so it is evaluated
    once per distinct pattern of used points.
    """
    F, m = q.shape[0], q.shape[1]
    if local.shape != (m, 3):
        raise ValueError(f"local points have shape {local.shape}, measured points {q.shape}")
    src = np.ascontiguousarray(q).reshape(F, 3 * m)
    return fit_columns(local, src, np.arange(0, 3 * m, 3, dtype=np.int64), np.empty((0, 3)))


def fit_columns(local, src, cols, extra, R=None, origin=None):
    """Rigid fit of ``local`` to points read from columns of ``src`` (and ``extra``); see :func:`fit_rigid`.

    ``R`` (F, 3, 3) and ``origin`` (F, 3), when given, are written in place (any strides).  The kernel sees
    one layout from every caller (a read-only view of ``src``, C-ordered outputs copied out at the end), so a
    first run compiles it once, not once per layout (9-13 CPU-s each).

    Parameters
    ----------
    local : ndarray, shape (m, 3), m
        Points in the segment frame; the last is the extra point's when ``extra`` is used.
    src : ndarray, shape (F, C), m
        The marker table, NaN where missing.
    cols : ndarray of int64
        First column of each measured point in ``src``, -1 if absent.
    extra : ndarray, shape (F, 3) or (0, 3), m
        One more point per frame (a joint centre carried by the parent), or nothing.
    R : ndarray, shape (F, 3, 3), optional
        Output array for R, written in place.
    origin : ndarray, shape (F, 3), optional
        Output array for the origin, written in place.

    Returns
    -------
    R : ndarray, shape (F, 3, 3)
        Segment axes in ground components (NaN where not ok).
    origin : ndarray, shape (F, 3), m
        The segment frame's origin in ground.
    rms : ndarray, shape (F,), m
        RMS distance between fitted and measured points.
    count : ndarray of int, shape (F,)
        Points used.
    ok : ndarray of bool, shape (F,)
        As in :func:`fit_rigid`.
    """
    F, m = src.shape[0], local.shape[0]
    given = (R, origin)
    src = src.view()
    src.flags.writeable = False
    R, origin = np.empty((F, 3, 3)), np.empty((F, 3))
    rms = np.empty(F)
    count = np.empty(F, dtype=np.int64)
    pattern = np.empty(F, dtype=np.int64)
    H = np.empty((F, 3, 3))  # written only where flagged: its pages are mostly never touched
    flagged = np.empty(F, dtype=np.bool_)
    rigid_fit(local, src, cols, extra, R, origin, rms, count, pattern, H, flagged)
    frames = np.flatnonzero(flagged)
    if frames.size:  # rare: the closed form is ill-posed there
        R[frames] = quaternion_to_matrix(horn_quaternions(H[frames]))
        finish_fits(local, src, cols, extra, frames, R, origin, rms)
    if m <= 16:  # few points: the distinct patterns from a table over every possible one, no sort
        codes = np.flatnonzero(np.bincount(pattern, minlength=1 << m))
        where = np.zeros(1 << m, np.int64)
        where[codes] = np.arange(len(codes))
        inverse = where[pattern]
    else:
        codes, inverse = np.unique(pattern, return_inverse=True)
    spread = np.empty(len(codes))
    for i, code in enumerate(codes):
        pts = local[(int(code) >> np.arange(m)) & 1 == 1]
        if len(pts) == 0:
            spread[i] = 0.0
            continue
        c = pts - pts.mean(axis=0)
        spread[i] = np.sqrt(max(np.linalg.eigvalsh(c.T @ c / len(pts))[1], 0.0))
    ok = (count >= 3) & (spread[inverse.ravel()] > MIN_SPREAD)
    bad = ~ok
    if bad.any():
        R[bad] = np.nan
        origin[bad] = np.nan
        rms[bad] = np.nan
    if given[0] is not None:
        given[0][...] = R
        R = given[0]
    if given[1] is not None:
        given[1][...] = origin
        origin = given[1]
    return R, origin, rms, count, ok

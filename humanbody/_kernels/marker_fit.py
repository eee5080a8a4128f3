"""Numba kernels of the rigid fit of marker clusters, frame by frame (Horn's quaternion method).

Array in, array out, nothing about names or tables; compiled once and cached
on disk (``cache=True``).  :func:`humanbody.markers.rigid.fit_rigid` is the
documented entry point.  The kernels solve Horn's eigenproblem in closed
form (:func:`_fast_quaternion`); the rare frames where that is ill-conditioned
are flagged and solved afterwards by ``numpy.linalg.eigh`` in one batch
(:func:`humanbody.markers.rigid.horn_quaternions`).
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .rot import NAN33, finite33, load33, quaternion_matrix, store33

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
#: Frames per parallel work item (the 4x4 scratch matrix is allocated once per block).
_BLOCK = 256


@nb.njit(cache=_CACHE)
def _det3(a, b, c, d, e, f, g, h, i):
    return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)


@nb.njit(cache=_CACHE)
def _others(r):
    if r == 0:
        return 1, 2, 3
    if r == 1:
        return 0, 2, 3
    if r == 2:
        return 0, 1, 3
    return 0, 1, 2


@nb.njit(cache=_CACHE)
def _minor(M, r, c):
    """Determinant of the 3x3 matrix left when row r and column c of the 4x4 M are removed."""
    r0, r1, r2 = _others(r)
    c0, c1, c2 = _others(c)
    return _det3(M[r0, c0], M[r0, c1], M[r0, c2], M[r1, c0], M[r1, c1], M[r1, c2],
                 M[r2, c0], M[r2, c1], M[r2, c2])


@nb.njit(cache=_CACHE)
def _fast_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, lam0, N):
    """Horn's quaternion by Newton's method on the characteristic polynomial; ``ok`` False when ill-posed.

    The unit quaternion (w, x, y, z) of the rotation best mapping a-points
    onto b-points, ``s_ij = sum w a_i b_j`` over centred point pairs, is the
    eigenvector of the largest eigenvalue of Horn's symmetric 4x4 matrix N
    (Horn 1987, J Opt Soc Am A 4:629).  N is traceless, so
    ``det(N - l I) = l^4 + c2 l^2 + c1 l + c0`` with ``c2 = -2 |S|_F^2``,
    ``c1 = -8 det S`` and ``c0 = det N`` (Theobald 2005, Acta Cryst A61:478,
    "QCP").  Newton's iteration started at an upper bound ``lam0`` of the
    largest eigenvalue descends monotonically onto it; the eigenvector is
    then the largest column of the adjugate of ``N - l I`` (rank one at an
    eigenvalue).  Its error grows as the gap to the next eigenvalue closes,
    so when that column is shorter than ``0.05 lam0^3`` (the gap is then
    below ~1/80 of ``lam0``) it returns ``ok`` False and the caller solves
    the frame by a symmetric eigensolver.  ``N`` is (4, 4) scratch.

    Returns
    -------
    w, x, y, z : float
    ok : bool
    """
    n00 = sxx + syy + szz
    n01 = syz - szy
    n02 = szx - sxz
    n03 = sxy - syx
    n11 = sxx - syy - szz
    n12 = sxy + syx
    n13 = szx + sxz
    n22 = -sxx + syy - szz
    n23 = syz + szy
    n33 = -sxx - syy + szz
    s2 = (sxx * sxx + sxy * sxy + sxz * sxz + syx * syx + syy * syy + syz * syz
          + szx * szx + szy * szy + szz * szz)
    c2 = -2.0 * s2
    c1 = -8.0 * _det3(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz)
    c0 = (n00 * _det3(n11, n12, n13, n12, n22, n23, n13, n23, n33)
          - n01 * _det3(n01, n12, n13, n02, n22, n23, n03, n23, n33)
          + n02 * _det3(n01, n11, n13, n02, n12, n23, n03, n13, n33)
          - n03 * _det3(n01, n11, n12, n02, n12, n22, n03, n13, n23))
    lam = lam0
    if lam > 0.0:
        for _it in range(60):
            l2 = lam * lam
            p = (l2 + c2) * l2 + c1 * lam + c0
            dp = 4.0 * l2 * lam + 2.0 * c2 * lam + c1
            if dp == 0.0:
                break
            step = p / dp
            lam -= step
            if abs(step) <= 1e-15 * lam0:
                break
    N[0, 0], N[1, 1], N[2, 2], N[3, 3] = n00 - lam, n11 - lam, n22 - lam, n33 - lam
    N[0, 1] = N[1, 0] = n01
    N[0, 2] = N[2, 0] = n02
    N[0, 3] = N[3, 0] = n03
    N[1, 2] = N[2, 1] = n12
    N[1, 3] = N[3, 1] = n13
    N[2, 3] = N[3, 2] = n23
    best = -1.0
    w = x = y = z = 0.0
    for j in range(4):  # column j of adj(N - lam I): (-1)^(i+j) times the minor without row j, column i
        v0 = _minor(N, j, 0)
        v1 = -_minor(N, j, 1)
        v2 = _minor(N, j, 2)
        v3 = -_minor(N, j, 3)
        if j % 2 == 1:
            v0, v1, v2, v3 = -v0, -v1, -v2, -v3
        nrm = v0 * v0 + v1 * v1 + v2 * v2 + v3 * v3
        if nrm > best:
            best, w, x, y, z = nrm, v0, v1, v2, v3
    scale = lam0 * lam0 * lam0
    if not (best > (0.05 * scale) ** 2) or not np.isfinite(best):
        return 0.0, 0.0, 0.0, 0.0, False
    nrm = np.sqrt(best)
    return w / nrm, x / nrm, y / nrm, z / nrm, True


@nb.njit(cache=_CACHE)
def _store_rotation(w, x, y, z, R, f):
    """``R[f]`` = the matrix of the unit quaternion (scalar w, vector x, y, z)."""
    store33(R, f, quaternion_matrix(x, y, z, w))


@nb.njit(cache=_CACHE, parallel=True)
def horn_rotations(H, R, flagged):
    """Proper rotations R minimising ``sum w |R a - b|^2`` from ``H = sum w a b^T``, every frame.

    The same optimum as the SVD solution of Söderkvist & Wedin (1993), with
    det R = +1 built in (Horn 1987); the quaternion by :func:`_fast_quaternion`.

    Parameters
    ----------
    H : ndarray, shape (F, 3, 3), float64
        Each frame's weighted cross-covariance ``sum w a b^T`` of the centred point pairs (a in the
        segment frame, b measured; m^2 for points in m).
    R : ndarray, shape (F, 3, 3), float64
        Written: the proper rotation of each frame (segment to ground, ``b ~ R a``); NaN where H is not
        finite; not written where flagged.
    flagged : ndarray, shape (F,), bool
        Written every frame: True where the closed form is ill-posed (the caller solves those frames
        from H).
    """
    F = H.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        N = np.empty((4, 4))
        for f in range(b * _BLOCK, min(F, (b + 1) * _BLOCK)):
            flagged[f] = False
            h = load33(H, f)
            if not finite33(h):
                store33(R, f, NAN33)
                continue
            frob = 0.0
            for v in h:
                frob += v * v
            w, x, y, z, ok = _fast_quaternion(h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8],
                                              2.0 * np.sqrt(frob), N)  # |N|_F = 2 |H|_F bounds its eigenvalues
            if ok:
                _store_rotation(w, x, y, z, R, f)
            else:
                flagged[f] = True


@nb.njit(cache=_CACHE, inline="always")
def _point(src, cols, extra, f, i):
    """Measured point i of frame f: columns ``cols[i]``..+2 of ``src``, the extra point, or NaN."""
    if i < cols.shape[0]:
        c = cols[i]
        if c < 0:
            return np.nan, np.nan, np.nan
        return src[f, c], src[f, c + 1], src[f, c + 2]
    return extra[f, 0], extra[f, 1], extra[f, 2]


@nb.njit(cache=_CACHE, inline="always")
def _centroids(local, src, cols, extra, f):
    """Points usable in frame f (local and measured all finite): count, bit pattern, both centroids."""
    n = 0
    bits = 0
    pcx = pcy = pcz = qcx = qcy = qcz = 0.0
    for i in range(local.shape[0]):
        x, y, z = _point(src, cols, extra, f, i)
        if (np.isfinite(x) and np.isfinite(y) and np.isfinite(z)
                and np.isfinite(local[i, 0]) and np.isfinite(local[i, 1]) and np.isfinite(local[i, 2])):
            n += 1
            bits |= np.int64(1) << i
            pcx += local[i, 0]
            pcy += local[i, 1]
            pcz += local[i, 2]
            qcx += x
            qcy += y
            qcz += z
    if n > 0:
        pcx /= n
        pcy /= n
        pcz /= n
        qcx /= n
        qcy /= n
        qcz /= n
    return n, bits, pcx, pcy, pcz, qcx, qcy, qcz


@nb.njit(cache=_CACHE, inline="always")
def _origin_and_rms(local, src, cols, extra, f, n, bits, pcx, pcy, pcz, qcx, qcy, qcz, R, origin, rms):
    """Given R[f]: origin ``o = q̄ - R p̄`` and RMS distance ``sqrt(sum |R p + o - q|^2 / n)``, written."""
    ox = qcx - (R[f, 0, 0] * pcx + R[f, 0, 1] * pcy + R[f, 0, 2] * pcz)
    oy = qcy - (R[f, 1, 0] * pcx + R[f, 1, 1] * pcy + R[f, 1, 2] * pcz)
    oz = qcz - (R[f, 2, 0] * pcx + R[f, 2, 1] * pcy + R[f, 2, 2] * pcz)
    origin[f, 0], origin[f, 1], origin[f, 2] = ox, oy, oz
    err = 0.0
    for i in range(local.shape[0]):
        if (bits >> i) & 1:
            x, y, z = _point(src, cols, extra, f, i)
            lx, ly, lz = local[i, 0], local[i, 1], local[i, 2]
            dx = R[f, 0, 0] * lx + R[f, 0, 1] * ly + R[f, 0, 2] * lz + ox - x
            dy = R[f, 1, 0] * lx + R[f, 1, 1] * ly + R[f, 1, 2] * lz + oy - y
            dz = R[f, 2, 0] * lx + R[f, 2, 1] * ly + R[f, 2, 2] * lz + oz - z
            err += dx * dx + dy * dy + dz * dz
    rms[f] = np.sqrt(err / n)


@nb.njit(cache=_CACHE, parallel=True)
def rigid_fit(local, src, cols, extra, R, origin, rms, count, pattern, H, flagged):
    """Least-squares rigid fit of one cluster of local points to every frame's measurements.

    Per frame, with the points whose local and measured coordinates are all
    finite (weight 1, others 0): centroids p̄ and q̄, cross-covariance
    ``H = sum (p - p̄)(q - q̄)^T``, R by Horn's quaternion method
    (:func:`_fast_quaternion`), origin
    ``o = q̄ - R p̄`` and the RMS distance ``sqrt(sum |R p + o - q|^2 / n)``
    (Söderkvist & Wedin 1993).  The measured points are read where they
    are: marker i from columns ``cols[i]``, ``cols[i] + 1``, ``cols[i] + 2``
    of the marker table ``src`` (-1: not measured), and, when ``extra`` has
    a row per frame, one more point from it (a joint centre carried by the
    parent segment).  A frame where the closed form is ill-posed is flagged,
    its H stored, and R, origin and rms left for :func:`finish_fits`.

    Parameters
    ----------
    local : ndarray, shape (m, 3), float64
        The points in the segment frame (m), m <= 62; the last is the extra point's when ``extra`` is
        used.  A point with a non-finite coordinate is never used.
    src : ndarray, shape (F, C), float64
        The marker table (m), NaN where missing; only the columns ``cols`` names are read.
    cols : ndarray, shape (m,) or (m - 1,), int64
        0-based column in ``src`` of the x coordinate of each measured point (y, z follow); -1 when
        the point is not measured.  One shorter than ``local`` when ``extra`` is used.
    extra : ndarray, shape (F, 3) or (0, 3), float64
        The extra point measured in ground every frame (m), or no rows for none.
    R : ndarray, shape (F, 3, 3), float64
        Written: the rotation of each frame (segment to ground); NaN where no point is usable; not
        written on flagged frames.
    origin : ndarray, shape (F, 3), float64
        Written: origin of the segment frame in ground (m); NaN where no point is usable; not written
        on flagged frames.
    rms : ndarray, shape (F,), float64
        Written: RMS distance between the fitted and measured points (m); NaN where no point is usable;
        not written on flagged frames.
    count : ndarray, shape (F,), int64
        Written every frame: the number of points used.
    pattern : ndarray, shape (F,), int64
        Written every frame: bit i set when point i (row i of ``local``) was used.
    H : ndarray, shape (F, 3, 3), float64
        Written on flagged frames only: the cross-covariance ``sum (p - p̄)(q - q̄)^T`` (m^2).
    flagged : ndarray, shape (F,), bool
        Written every frame: True where R is to be solved from H (then :func:`finish_fits`).
    """
    F = R.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        _fit_block(np.int64(b), local, src, cols, extra, R, origin, rms, count, pattern, H, flagged)


@nb.njit(cache=_CACHE, error_model="numpy")  # numpy's, as numba's parallel loop bodies
def _fit_block(b, local, src, cols, extra, R, origin, rms, count, pattern, H, flagged):
    """Frames of block ``b`` of :func:`rigid_fit`.

    A serial function of its own, called from the parallel loop with an
    int64 index (the loop's own is typed otherwise, which would compile it
    twice): numba's parallel passes then see one call, not the inlined fit
    (several CPU-s of a first run's compilation).
    """
    F, m = R.shape[0], local.shape[0]
    N = np.empty((4, 4))
    for f in range(b * _BLOCK, min(F, (b + 1) * _BLOCK)):
        flagged[f] = False
        n, bits, pcx, pcy, pcz, qcx, qcy, qcz = _centroids(local, src, cols, extra, f)
        count[f] = n
        pattern[f] = bits
        if n == 0:
            for i in range(3):
                origin[f, i] = np.nan
                for j in range(3):
                    R[f, i, j] = np.nan
            rms[f] = np.nan
            continue
        sxx = sxy = sxz = syx = syy = syz = szx = szy = szz = 0.0
        ga = gb = 0.0
        for i in range(m):
            if (bits >> i) & 1:
                x, y, z = _point(src, cols, extra, f, i)
                ax, ay, az = local[i, 0] - pcx, local[i, 1] - pcy, local[i, 2] - pcz
                bx, by, bz = x - qcx, y - qcy, z - qcz
                sxx += ax * bx
                sxy += ax * by
                sxz += ax * bz
                syx += ay * bx
                syy += ay * by
                syz += ay * bz
                szx += az * bx
                szy += az * by
                szz += az * bz
                ga += ax * ax + ay * ay + az * az
                gb += bx * bx + by * by + bz * bz
        # Cauchy-Schwarz: the largest eigenvalue, max_R sum b.(R a), is at most (Ga + Gb) / 2
        w, x, y, z, ok = _fast_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, 0.5 * (ga + gb), N)
        if not ok:
            store33(H, f, (sxx, sxy, sxz, syx, syy, syz, szx, szy, szz))
            flagged[f] = True
            continue
        _store_rotation(w, x, y, z, R, f)
        _origin_and_rms(local, src, cols, extra, f, n, bits, pcx, pcy, pcz, qcx, qcy, qcz, R, origin, rms)


@nb.njit(cache=_CACHE)
def finish_fits(local, src, cols, extra, frames, R, origin, rms):
    """Origin and RMS residual of the listed frames of :func:`rigid_fit`, once their R is known.

    Parameters as :func:`rigid_fit`; ``frames`` (k,) int64 lists the
    frames whose ``R`` the caller has written (the flagged ones).

    Parameters
    ----------
    local, src, cols, extra : numpy.ndarray
        As :func:`rigid_fit`.
    frames : numpy.ndarray
        (k,) int64, the frames to finish.
    R : numpy.ndarray
        (F, 3, 3) rotations (segment to ground), read at ``frames``.
    origin : numpy.ndarray
        (F, 3) written at ``frames``: origin of the segment frame (m).
    rms : numpy.ndarray
        (F,) written at ``frames``: RMS residual (m).
    """
    for f in frames:
        n, bits, pcx, pcy, pcz, qcx, qcy, qcz = _centroids(local, src, cols, extra, f)
        _origin_and_rms(local, src, cols, extra, f, n, bits, pcx, pcy, pcz, qcx, qcy, qcz, R, origin, rms)

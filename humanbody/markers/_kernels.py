"""Numba kernels of marker tracking: rigid fits of marker clusters, frame by frame.

Array in, array out, nothing about names or tables; compiled once and cached
on disk (``cache=True``).  :func:`humanbody.markers.tracking.fit_rigid` is
the documented entry point.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .._jit import drop_stale_kernels
from .._rot import canonical_quaternion, elementary, finite33, mul33, sequence_angles, sequence_matrix, tmul33

drop_stale_kernels()  # before any kernel is loaded from the cache

_CACHE = True
#: Frames per parallel work item (the 4x4 scratch matrices are allocated once per block).
_BLOCK = 256


@nb.njit(cache=_CACHE)
def _horn_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, N, V):
    """Unit quaternion (w, x, y, z) of the rotation best mapping a-points onto b-points.

    ``s_ij = sum w a_i b_j`` over centred point pairs.  The quaternion is
    the eigenvector of the largest eigenvalue of Horn's symmetric 4x4
    matrix (Horn 1987, J Opt Soc Am A 4:629, eq. for N), found by cyclic
    Jacobi rotations to machine precision.  ``N`` and ``V`` are (4, 4)
    scratch arrays.
    """
    N[0, 0] = sxx + syy + szz
    N[0, 1] = N[1, 0] = syz - szy
    N[0, 2] = N[2, 0] = szx - sxz
    N[0, 3] = N[3, 0] = sxy - syx
    N[1, 1] = sxx - syy - szz
    N[1, 2] = N[2, 1] = sxy + syx
    N[1, 3] = N[3, 1] = szx + sxz
    N[2, 2] = -sxx + syy - szz
    N[2, 3] = N[3, 2] = syz + szy
    N[3, 3] = -sxx - syy + szz
    scale = 0.0
    for i in range(4):
        for j in range(4):
            V[i, j] = 1.0 if i == j else 0.0
            scale = max(scale, abs(N[i, j]))
    if scale == 0.0:
        scale = 1.0
    for _sweep in range(50):
        off = 0.0
        for i in range(4):
            for j in range(i + 1, 4):
                off = max(off, abs(N[i, j]))
        if off <= 1e-17 * scale:
            break
        for p in range(3):
            for q in range(p + 1, 4):
                apq = N[p, q]
                if abs(apq) <= 1e-300:
                    continue
                theta = (N[q, q] - N[p, p]) / (2.0 * apq)
                t = (1.0 if theta >= 0 else -1.0) / (abs(theta) + np.sqrt(theta * theta + 1.0))
                c = 1.0 / np.sqrt(t * t + 1.0)
                s = t * c
                for k in range(4):  # N <- J^T N J, columns then rows
                    akp, akq = N[k, p], N[k, q]
                    N[k, p] = c * akp - s * akq
                    N[k, q] = s * akp + c * akq
                for k in range(4):
                    apk, aqk = N[p, k], N[q, k]
                    N[p, k] = c * apk - s * aqk
                    N[q, k] = s * apk + c * aqk
                for k in range(4):
                    vkp, vkq = V[k, p], V[k, q]
                    V[k, p] = c * vkp - s * vkq
                    V[k, q] = s * vkp + c * vkq
    best = 0
    for i in range(1, 4):
        if N[i, i] > N[best, best]:
            best = i
    w, x, y, z = V[0, best], V[1, best], V[2, best], V[3, best]
    nrm = np.sqrt(w * w + x * x + y * y + z * z)
    return w / nrm, x / nrm, y / nrm, z / nrm


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
def _fast_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, lam0, N, V):
    """The quaternion of :func:`_horn_quaternion`, by Newton's method on the characteristic polynomial.

    Horn's matrix N is traceless, so ``det(N - l I) = l^4 + c2 l^2 + c1 l + c0``
    with ``c2 = -2 |S|_F^2``, ``c1 = -8 det S`` and ``c0 = det N`` (Theobald
    2005, Acta Cryst A61:478, "QCP").  Newton's iteration started at an upper
    bound ``lam0`` of the largest eigenvalue descends monotonically onto it;
    the eigenvector is then the largest column of the adjugate of
    ``N - l I`` (rank one at an eigenvalue).  Its error grows as the gap to
    the next eigenvalue closes, so when that column is shorter than
    ``0.05 lam0^3`` (the gap is then below ~1/80 of ``lam0``) the Jacobi
    method of :func:`_horn_quaternion` decides instead: the quaternion then
    agrees with Jacobi's to ~2e-13 on every frame of 400,000 random
    clusters, ~10x faster.
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
        return _horn_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, N, V)
    nrm = np.sqrt(best)
    return w / nrm, x / nrm, y / nrm, z / nrm


@nb.njit(cache=_CACHE, inline="always")
def _quaternion_matrix(w, x, y, z):
    """The rotation matrix of a unit quaternion (scalar w, vector x, y, z), Huston eq. 8.176, row by row."""
    return (w * w + x * x - y * y - z * z, 2.0 * (x * y - w * z), 2.0 * (x * z + w * y),
            2.0 * (x * y + w * z), w * w - x * x + y * y - z * z, 2.0 * (y * z - w * x),
            2.0 * (x * z - w * y), 2.0 * (y * z + w * x), w * w - x * x - y * y + z * z)


@nb.njit(cache=_CACHE, inline="always")
def _transpose_times(a00, a01, a02, a10, a11, a12, a20, a21, a22,
                     b00, b01, b02, b10, b11, b12, b20, b21, b22):
    """A^T B of two 3x3 matrices given row by row, row by row: (A^T B)_ij = sum_m A_mi B_mj."""
    return (a00 * b00 + a10 * b10 + a20 * b20, a00 * b01 + a10 * b11 + a20 * b21,
            a00 * b02 + a10 * b12 + a20 * b22,
            a01 * b00 + a11 * b10 + a21 * b20, a01 * b01 + a11 * b11 + a21 * b21,
            a01 * b02 + a11 * b12 + a21 * b22,
            a02 * b00 + a12 * b10 + a22 * b20, a02 * b01 + a12 * b11 + a22 * b21,
            a02 * b02 + a12 * b12 + a22 * b22)


@nb.njit(cache=_CACHE)
def _store_rotation(w, x, y, z, R, f):
    (R[f, 0, 0], R[f, 0, 1], R[f, 0, 2], R[f, 1, 0], R[f, 1, 1], R[f, 1, 2],
     R[f, 2, 0], R[f, 2, 1], R[f, 2, 2]) = _quaternion_matrix(w, x, y, z)


@nb.njit(cache=_CACHE, inline="always")
def _finite3x3(A, f):
    """Whether every entry of the 3x3 matrix ``A[f]`` is finite."""
    for i in range(3):
        for j in range(3):
            if not np.isfinite(A[f, i, j]):
                return False
    return True


@nb.njit(cache=_CACHE, inline="always")
def _nan3x3(A, f):
    """``A[f] = NaN`` (a 3x3 matrix)."""
    for i in range(3):
        for j in range(3):
            A[f, i, j] = np.nan


@nb.njit(cache=_CACHE, parallel=True)
def horn_rotations(H, R):
    """Proper rotations R minimising ``sum w |R a - b|^2`` from ``H = sum w a b^T``, every frame.

    The same optimum as the SVD solution of Söderkvist & Wedin (1993), with
    det R = +1 built in (Horn 1987); the quaternion by :func:`_fast_quaternion`.

    Parameters
    ----------
    H : (F, 3, 3) float64    cross-covariance of centred point pairs
    R : (F, 3, 3) float64    written; NaN where H is not finite
    """
    F = H.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        N = np.empty((4, 4))
        V = np.empty((4, 4))
        for f in range(b * _BLOCK, min(F, (b + 1) * _BLOCK)):
            if not _finite3x3(H, f):
                _nan3x3(R, f)
                continue
            frob = 0.0
            for i in range(3):
                for j in range(3):
                    frob += H[f, i, j] * H[f, i, j]
            w, x, y, z = _fast_quaternion(H[f, 0, 0], H[f, 0, 1], H[f, 0, 2], H[f, 1, 0], H[f, 1, 1],
                                          H[f, 1, 2], H[f, 2, 0], H[f, 2, 1], H[f, 2, 2],
                                          2.0 * np.sqrt(frob), N, V)  # |N|_F = 2 |H|_F bounds its eigenvalues
            _store_rotation(w, x, y, z, R, f)


@nb.njit(cache=_CACHE, inline="always")
def _point(src, cols, extra, f, i):
    """Measured point i of frame f: columns ``cols[i]``..+2 of ``src``, the extra point, or NaN."""
    if i < cols.shape[0]:
        c = cols[i]
        if c < 0:
            return np.nan, np.nan, np.nan
        return src[f, c], src[f, c + 1], src[f, c + 2]
    return extra[f, 0], extra[f, 1], extra[f, 2]


@nb.njit(cache=_CACHE, parallel=True)
def rigid_fit(local, src, cols, extra, R, origin, rms, count, pattern):
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
    parent segment).

    Parameters
    ----------
    local : (m, 3) float64      points in the segment frame (m), m <= 62; the
                                last is the extra point's when ``extra`` is used
    src : (F, C) float64        marker table (m), NaN where missing
    cols : (m or m - 1,) int64  first column of each measured point, -1 if absent
    extra : (F, 3) or (0, 3)    the extra point, or nothing
    R : (F, 3, 3)               written: rotation (NaN where no point is usable)
    origin : (F, 3)             written: origin of the segment frame (m)
    rms : (F,)                  written: RMS residual (m)
    count : (F,) int64          written: points used
    pattern : (F,) int64        written: bit i set when point i was used
    """
    F, m = R.shape[0], local.shape[0]
    for b in nb.prange((F + _BLOCK - 1) // _BLOCK):
        N = np.empty((4, 4))
        V = np.empty((4, 4))
        for f in range(b * _BLOCK, min(F, (b + 1) * _BLOCK)):
            n = 0
            bits = 0
            pcx = pcy = pcz = qcx = qcy = qcz = 0.0
            for i in range(m):
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
            count[f] = n
            pattern[f] = bits
            if n == 0:
                for i in range(3):
                    origin[f, i] = np.nan
                    for j in range(3):
                        R[f, i, j] = np.nan
                rms[f] = np.nan
                continue
            pcx /= n
            pcy /= n
            pcz /= n
            qcx /= n
            qcy /= n
            qcz /= n
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
            w, x, y, z = _fast_quaternion(sxx, sxy, sxz, syx, syy, syz, szx, szy, szz, 0.5 * (ga + gb), N, V)
            _store_rotation(w, x, y, z, R, f)
            ox = qcx - (R[f, 0, 0] * pcx + R[f, 0, 1] * pcy + R[f, 0, 2] * pcz)
            oy = qcy - (R[f, 1, 0] * pcx + R[f, 1, 1] * pcy + R[f, 1, 2] * pcz)
            oz = qcz - (R[f, 2, 0] * pcx + R[f, 2, 1] * pcy + R[f, 2, 2] * pcz)
            origin[f, 0], origin[f, 1], origin[f, 2] = ox, oy, oz
            err = 0.0
            for i in range(m):
                if (bits >> i) & 1:
                    x, y, z = _point(src, cols, extra, f, i)
                    lx, ly, lz = local[i, 0], local[i, 1], local[i, 2]
                    dx = R[f, 0, 0] * lx + R[f, 0, 1] * ly + R[f, 0, 2] * lz + ox - x
                    dy = R[f, 1, 0] * lx + R[f, 1, 1] * ly + R[f, 1, 2] * lz + oy - y
                    dz = R[f, 2, 0] * lx + R[f, 2, 1] * ly + R[f, 2, 2] * lz + oz - z
                    err += dx * dx + dy * dy + dz * dz
            rms[f] = np.sqrt(err / n)


@nb.njit(cache=_CACHE, parallel=True)
def relative_angles(R, parent, seq, tol, out):
    """Angles of every segment relative to its parent in its rotation sequence, every frame.

    ``S = R_L^T R_k`` (``S = R_1`` for the root, ``parent[k] < 0``), then the
    inverse of the sequence's matrix exactly as
    :func:`humanbody.rotations.matrix_to_euler` (:func:`humanbody._rot.sequence_angles`).
    NaN where S is not finite.

    Parameters
    ----------
    R : (F, n, 3, 3) float64     absolute frames R_0k
    parent : (n,) int64          index of each segment's parent, -1 for the root
    seq : (n, 3) int64           axes of each segment's sequence (0 = x, 1 = y, 2 = z)
    tol : float                  singular-set threshold (see matrix_to_euler)
    out : (F, n, 3) float64      written: alpha, beta, gamma (rad)
    """
    F, n = R.shape[0], R.shape[1]
    for f in nb.prange(F):
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
    angles : (F, n, 3) float64   first, middle, third angle of every body (rad), changed in place
    seq : (n, 3) int64           axes of each body's sequence
    tol : float                  singular-set threshold of :func:`relative_angles`
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


@nb.njit(cache=_CACHE, inline="always")
def _shepperd(s00, s01, s02, s10, s11, s12, s20, s21, s22):
    """Unit quaternion (x, y, z, w) of a rotation matrix, Shepperd's method as
    :func:`humanbody.rotations.matrix_to_quaternion` (largest diagonal of K =
    4 q q^T picks the column; w >= 0, ties broken by x, y, z)."""
    d0 = 1.0 + s00 - s11 - s22
    d1 = 1.0 - s00 + s11 - s22
    d2 = 1.0 - s00 - s11 + s22
    d3 = 1.0 + s00 + s11 + s22
    k01, k02, k12 = s01 + s10, s02 + s20, s12 + s21
    k03, k13, k23 = s21 - s12, s02 - s20, s10 - s01
    if d0 >= d1 and d0 >= d2 and d0 >= d3:
        x, y, z, w = d0, k01, k02, k03
    elif d1 >= d2 and d1 >= d3:
        x, y, z, w = k01, d1, k12, k13
    elif d2 >= d3:
        x, y, z, w = k02, k12, d2, k23
    else:
        x, y, z, w = k03, k13, k23, d3
    nrm = np.sqrt(x * x + y * y + z * z + w * w)
    return canonical_quaternion(x / nrm, y / nrm, z / nrm, w / nrm)


@nb.njit(cache=_CACHE, parallel=True)
def slerp_rotations(Ra, Rb, fraction, out):
    """``out = Ra exp(f log(Ra^T Rb))``: a fraction ``f`` of the way from Ra to Rb, every frame.

    The relative rotation ``Ra^T Rb`` as a unit quaternion with w >= 0
    (angle theta in [0, pi]); its angle is scaled by f about the same axis,
    ``(v sin(f theta/2) / sin(theta/2), cos(f theta/2))``, with the ratio
    taken as f when ``|v| <= 1e-12``.  NaN in either input gives NaN.

    Parameters
    ----------
    Ra, Rb : (F, 3, 3) float64
    fraction : float
    out : (F, 3, 3) float64      written
    """
    F = Ra.shape[0]
    for t in nb.prange(F):
        if not (_finite3x3(Ra, t) and _finite3x3(Rb, t)):
            _nan3x3(out, t)
            continue
        a00, a01, a02 = Ra[t, 0, 0], Ra[t, 0, 1], Ra[t, 0, 2]
        a10, a11, a12 = Ra[t, 1, 0], Ra[t, 1, 1], Ra[t, 1, 2]
        a20, a21, a22 = Ra[t, 2, 0], Ra[t, 2, 1], Ra[t, 2, 2]
        b00, b01, b02 = Rb[t, 0, 0], Rb[t, 0, 1], Rb[t, 0, 2]
        b10, b11, b12 = Rb[t, 1, 0], Rb[t, 1, 1], Rb[t, 1, 2]
        b20, b21, b22 = Rb[t, 2, 0], Rb[t, 2, 1], Rb[t, 2, 2]
        s00, s01, s02, s10, s11, s12, s20, s21, s22 = _transpose_times(  # Ra^T Rb
            a00, a01, a02, a10, a11, a12, a20, a21, a22, b00, b01, b02, b10, b11, b12, b20, b21, b22)
        x, y, z, w = _shepperd(s00, s01, s02, s10, s11, s12, s20, s21, s22)
        s = np.sqrt(x * x + y * y + z * z)
        half = np.arctan2(s, w)
        ratio = np.sin(fraction * half) / s if s > 1e-12 else fraction
        x, y, z, w = x * ratio, y * ratio, z * ratio, np.cos(fraction * half)
        nrm = np.sqrt(x * x + y * y + z * z + w * w)
        x, y, z, w = x / nrm, y / nrm, z / nrm, w / nrm
        c00, c01, c02, c10, c11, c12, c20, c21, c22 = _quaternion_matrix(w, x, y, z)  # the step; out = Ra step
        out[t, 0, 0] = a00 * c00 + a01 * c10 + a02 * c20
        out[t, 0, 1] = a00 * c01 + a01 * c11 + a02 * c21
        out[t, 0, 2] = a00 * c02 + a01 * c12 + a02 * c22
        out[t, 1, 0] = a10 * c00 + a11 * c10 + a12 * c20
        out[t, 1, 1] = a10 * c01 + a11 * c11 + a12 * c21
        out[t, 1, 2] = a10 * c02 + a11 * c12 + a12 * c22
        out[t, 2, 0] = a20 * c00 + a21 * c10 + a22 * c20
        out[t, 2, 1] = a20 * c01 + a21 * c11 + a22 * c21
        out[t, 2, 2] = a20 * c02 + a21 * c12 + a22 * c22


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
    x : (F, C) float64     modified in place
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
def carried_points(R, O, x, out):
    """``out[f] = O[f] + R[f] x`` every frame: a point fixed in a moving frame, in ground (m).

    The same sums in the same order as the NumPy expression
    ``O + (R[:, :, 0] * x0 + R[:, :, 1] * x1 + R[:, :, 2] * x2)`` (no
    contraction into fused multiply-adds), so the result is bit for bit that.

    Parameters
    ----------
    R : (F, 3, 3) float64   frames (any strides)
    O : (F, 3) float64      origins (any strides)
    x : (3,) float64        the point in the frame
    out : (F, 3) float64    written
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
    src : (F, 3m) float64      marker columns x, y, z per marker (any strides)
    out : (F, m, 3) float64    written
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
    src : (F, first + 3m) float64   lab table (any strides)
    first : int                     leading columns copied as they are
    perm : (3,) int64               lab axis of each ground axis
    sign : (3,) float64             +1.0 or -1.0
    out : (F, first + 3m) float64   written
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


@nb.njit(cache=_CACHE, parallel=True)
def joint_rotation_angles(angles, seq, chains, yaw, use_yaw, out_seq, tol, out):
    """Angles of composed joint rotations, every frame: the clinical angles' decomposition.

    For joint i, ``S = Yaw(-yaw)? R_c0 R_c1 ...`` with ``R_c`` the matrix of
    body c's angles in its sequence (``chains[i]``, -1 ends the chain; the
    yaw factor only where ``use_yaw[i]``: a rotation about the vertical by
    minus the frame's heading), then its angles in the sequence
    ``out_seq[i]`` (:func:`humanbody._rot.sequence_angles`).  NaN in, NaN out.

    Parameters
    ----------
    angles : (F, n, 3) rad;  seq : (n, 3) int64;  chains : (J, C) int64;  yaw : (F,) rad
    use_yaw : (J,) bool;  out_seq : (J, 3) int64;  tol : float;  out : (F, J, 3) written (rad)
    """
    F, J, C = angles.shape[0], chains.shape[0], chains.shape[1]
    for f in nb.prange(F):
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

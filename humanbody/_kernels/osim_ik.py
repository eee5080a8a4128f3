"""Numba kernel of inverse kinematics on an OpenSim model (:mod:`humanbody.osim.ik`): a whole trial in one call.

Per frame, Levenberg–Marquardt on the weighted residuals of the markers seen in that frame and of the
coordinate tasks (see :func:`humanbody.osim.ik.solve_ik` for the objective), each evaluation one pass of
the core's kinematics kernels (:mod:`.joint_tree`: couplers, axis functions, the tree, point Jacobians with
the couplers' chain rule) on a single pose, warm-started from the previous frame's solution.
"""

from __future__ import annotations

import numba as nb
import numpy as np

from .cache import drop_stale_kernels
from .cholesky import cholesky_solve
from .joint_tree import _point_jacobian_frame, _tree_frame, axis_values, couple_coordinates

drop_stale_kernels()

_CACHE = True


@nb.njit(cache=_CACHE)
def _pose(q, tree, fun, cpl, work):
    """Markers (M, 3) m and their Jacobian (M, 3, nq), couplers folded, at one pose ``q`` (nq,); also the
    coupled coordinates (nq,).  ``tree``, ``fun``, ``cpl``: the model's arrays; ``work``: scratch arrays."""
    parents, astart, akind, aaxis, pR, pp, cR, cp, acoord, afun, body, offset = tree
    fcode, fstart, fsize, finner, fcoef = fun
    cdep, cfun, cind = cpl
    q1, qd, qdd, cslope, val, slope, rate, accel, R, origin, omega, vel, alpha, acc, jR, jo, ao, av, x, J = work
    q1[0, :] = q
    couple_coordinates(q1, qd, qdd, cdep, cfun, cind, fcode, fstart, fsize, finner, fcoef, cslope)
    axis_values(q1, qd, qdd, afun, acoord, fcode, fstart, fsize, finner, fcoef, val, slope, rate, accel)
    _tree_frame(0, parents, astart, akind, aaxis, pR, pp, cR, cp, val, rate, accel,
                R, origin, omega, vel, alpha, acc, jR, jo, ao, av)
    for m in range(body.shape[0]):
        b = body[m]
        for i in range(3):
            x[0, m, i] = origin[0, b, i] + (R[0, b, i, 0] * offset[m, 0] + R[0, b, i, 1] * offset[m, 1]
                                            + R[0, b, i, 2] * offset[m, 2])
    _point_jacobian_frame(0, parents, astart, akind, acoord, ao, av, slope, body, x, J)
    for k in range(cdep.shape[0] - 1, -1, -1):
        d, i = cdep[k], cind[k]
        for m in range(J.shape[1]):
            for a in range(3):
                J[0, m, a, i] += cslope[0, k] * J[0, m, a, d]
                J[0, m, a, d] = 0.0


@nb.njit(cache=_CACHE)
def _residual(q, target, sw, seen, free, cidx, csw, cval, tree, fun, cpl, work, r, A):
    """Weighted residuals ``r`` and their Jacobian's free columns ``A`` at ``q``; returns the cost ``r·r``.
    Rows: 3 per seen marker, then one per coordinate task; unseen markers' rows are 0."""
    _pose(q, tree, fun, cpl, work)
    x, J = work[18], work[19]
    cost = 0.0
    for m in range(target.shape[0]):
        for a in range(3):
            row = 3 * m + a
            if seen[m]:
                r[row] = sw[m] * (x[0, m, a] - target[m, a])
                for j in range(free.shape[0]):
                    A[row, j] = sw[m] * J[0, m, a, free[j]]
            else:
                r[row] = 0.0
                for j in range(free.shape[0]):
                    A[row, j] = 0.0
            cost += r[row] * r[row]
    n0 = 3 * target.shape[0]
    for t in range(cidx.shape[0]):
        r[n0 + t] = csw[t] * (q[cidx[t]] - cval[t])
        for j in range(free.shape[0]):
            A[n0 + t, j] = csw[t] if free[j] == cidx[t] else 0.0
        cost += r[n0 + t] * r[n0 + t]
    return cost


@nb.njit(cache=_CACHE)
def _work(nq, nb_, na, nm, ncpl):
    """Scratch arrays of one pose (see :func:`_pose`)."""
    return (np.zeros((1, nq)), np.zeros((1, nq)), np.zeros((1, nq)), np.zeros((1, ncpl)),
            np.zeros((1, na)), np.zeros((1, na)), np.zeros((1, na)), np.zeros((1, na)),
            np.zeros((1, nb_, 3, 3)), np.zeros((1, nb_, 3)), np.zeros((1, nb_, 3)), np.zeros((1, nb_, 3)),
            np.zeros((1, nb_, 3)), np.zeros((1, nb_, 3)), np.zeros((1, nb_, 3, 3)), np.zeros((1, nb_, 3)),
            np.zeros((1, na, 3)), np.zeros((1, na, 3)), np.zeros((1, nm, 3)), np.zeros((1, nm, 3, nq)))


@nb.njit(cache=_CACHE)
def _lm_frame(q, target, sw, seen, free, cidx, csw, cval, lo, hi, iterations, tree, fun, cpl, work):
    """Levenberg–Marquardt from ``q`` (nq,, written) for one frame:
    ``(AᵀA + λ diag(AᵀA)) Δ = -Aᵀr``, the step clipped to the bounds, λ halved on success (floor 1e-9),
    times 10 on failure (stop above 1e8); stop when the cost falls by less than 1e-14 of itself or no
    coordinate moves by 1e-10."""
    n, nf = 3 * target.shape[0] + cidx.shape[0], free.shape[0]
    r, A, r2, A2 = np.empty(n), np.empty((n, nf)), np.empty(n), np.empty((n, nf))
    H, g, step, trial = np.empty((nf, nf)), np.empty(nf), np.empty(nf), q.copy()
    cost = _residual(q, target, sw, seen, free, cidx, csw, cval, tree, fun, cpl, work, r, A)
    lam = 1e-3
    for _ in range(iterations):
        for i in range(nf):
            g[i] = 0.0
            for k in range(n):
                g[i] -= A[k, i] * r[k]
            for j in range(i + 1):
                s = 0.0
                for k in range(n):
                    s += A[k, i] * A[k, j]
                H[i, j] = s
                H[j, i] = s
        for i in range(nf):
            H[i, i] += lam * (H[i, i] + 1e-12)
        if cholesky_solve(H, g, step, 0.0):  # H is rebuilt each iteration: factored in place
            moved = 0.0
            for i in range(nf):
                c = free[i]
                trial[c] = min(max(q[c] + step[i], lo[c]), hi[c])
                moved = max(moved, abs(trial[c] - q[c]))
            cost2 = _residual(trial, target, sw, seen, free, cidx, csw, cval, tree, fun, cpl, work, r2, A2)
            if cost2 <= cost:
                done = cost - cost2 <= 1e-14 * max(cost, 1e-30) or moved < 1e-10
                q[:] = trial
                r, r2, A, A2 = r2, r, A2, A
                cost, lam = cost2, max(lam * 0.5, 1e-9)
                if done:
                    break
                continue
        lam *= 10.0
        if lam > 1e8:
            break


@nb.njit(cache=_CACHE)
def ik_trial(q0, targets, w, free, cidx, csw, cval, lo, hi, iterations, tree, fun, cpl, out, rms, mx):
    """Inverse kinematics of every frame, each from the previous frame's solution (the first from ``q0``).

    Parameters
    ----------
    q0 : ndarray, shape (nq,), float64
        Start pose of the first frame: every coordinate of the model (rad for rotational, m for
        translational ones); read only.
    targets : ndarray, shape (F, M, 3), float64
        The experimental markers in ground (m) every frame; a marker with a non-finite coordinate is
        unseen in that frame.
    w : ndarray, shape (M,), float64
        Each marker's weight (>= 0, dimensionless); its residual is scaled by ``sqrt(w)``.
    free : ndarray, shape (nf,), int64
        0-based indices in ``q`` of the coordinates the solver moves; the others keep ``q0``'s values
        (or their couplers').
    cidx : ndarray, shape (T,), int64
        0-based index in ``q`` of each coordinate task's coordinate.
    csw : ndarray, shape (T,), float64
        Square root of each coordinate task's weight; each frame it is multiplied by the square root
        of that frame's summed weights of the seen markers (OpenSim's marker goal is a weighted mean).
    cval : ndarray, shape (F, T), float64
        Each task's target value every frame (rad or m, as its coordinate).
    lo, hi : ndarray, shape (nq,), float64
        Lower and upper bound of each coordinate (rad or m; ±inf where unclamped); every step of a free
        coordinate is clipped into them.
    iterations : int
        Most Levenberg–Marquardt iterations per frame.
    tree : tuple of ndarray
        The core model's tree and markers: ``(parents, astart, akind, aaxis, pR, pp, cR, cp, acoord,
        afun, body, offset)``: the first ten as :mod:`.joint_tree`'s kernels take them, ``body`` (M,)
        int64 the 0-based body of each marker and ``offset`` (M, 3) its position in that body's frame (m).
    fun : tuple of ndarray
        The model's functions ``(fcode, fstart, fsize, finner, fcoef)`` (axis and coupler functions, as
        :func:`.joint_tree.axis_values` takes them).
    cpl : tuple of ndarray
        The couplers ``(cdep, cfun, cind)``: dependent coordinate, function and independent coordinate of
        each (as :func:`.joint_tree.couple_coordinates` takes them).
    out : ndarray, shape (F, nq), float64
        Written: the solved coordinates of every frame (rad, m), couplers applied.
    rms, mx : ndarray, shape (F,), float64
        Written: RMS and largest distance between the model's and the experimental seen markers (m);
        NaN in a frame with none seen (its pose is then the previous frame's).
    """
    F, M, nq = targets.shape[0], targets.shape[1], q0.shape[0]
    nb_ = tree[0].shape[0]
    na = tree[2].shape[0]
    work = _work(nq, nb_, na, M, cpl[0].shape[0])
    q = q0.copy()
    sw = np.sqrt(w)
    seen = np.zeros(M, dtype=np.bool_)
    target = np.zeros((M, 3))
    csw_f = np.empty_like(csw)
    for f in range(F):
        nseen = 0
        wseen = 0.0
        for m in range(M):
            seen[m] = np.isfinite(targets[f, m, 0]) and np.isfinite(targets[f, m, 1]) and np.isfinite(targets[f, m, 2])
            for a in range(3):
                target[m, a] = targets[f, m, a] if seen[m] else 0.0
            nseen += seen[m]
            wseen += w[m] if seen[m] else 0.0
        rms[f], mx[f] = np.nan, np.nan
        for t in range(csw.shape[0]):       # OpenSim's marker goal is the weighted mean, sum(w r^2) / sum(w)
            csw_f[t] = csw[t] * np.sqrt(wseen)
        if nseen:
            _lm_frame(q, target, sw, seen, free, cidx, csw_f, cval[f], lo, hi, iterations, tree, fun, cpl, work)
        _pose(q, tree, fun, cpl, work)
        x = work[18]
        if nseen:
            s, big = 0.0, 0.0
            for m in range(M):
                if seen[m]:
                    d = np.sqrt((x[0, m, 0] - target[m, 0]) ** 2 + (x[0, m, 1] - target[m, 1]) ** 2
                                + (x[0, m, 2] - target[m, 2]) ** 2)
                    s += d * d
                    big = max(big, d)
            rms[f], mx[f] = np.sqrt(s / nseen), big
        out[f, :] = work[0][0]

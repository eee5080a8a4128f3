"""How precise can the angles be?  The linearised precision of whole-body IK for a marker set.

Whole-body inverse kinematics (:mod:`humanbody.markers.global_ik`) finds,
in every frame, the generalized coordinates q (root position p, each
body's rotation relative to its parent) that minimise

    C(q) = (r(q)^T W r(q) + pulls(q)) ,    r(q) = x(q) - y,

with x(q) the model's marker positions (3M), y the measured ones, W the
marker weights (each repeated over x, y, z) and the neutral and hinge pulls
of the marker set.  Near the solution a small marker error e moves the
solution by the linear map

    dq = (J^T W J + P)^-1 J^T W e ,           J = dx/dq (3M x D),

with P the Gauss-Newton matrix of the pulls (the kernel's: ``2 lam_k I +
h_k (I - v v^T)`` per body, v its hinge axis).  For white noise of standard
deviation sigma per coordinate, Cov(e) = sigma^2 I, so

    Cov(q) = sigma^2 (J^T W J + P)^-1 J^T W^2 J (J^T W J + P)^-1       (1)

(the "sandwich" covariance of a weighted least-squares estimate; with W = I
and P = 0 it is the Cramér-Rao bound sigma^2 (J^T J)^-1 of unbiased
estimators, which the least-squares fit attains to first order: the
Gauss-Markov theorem).  Directions the markers do not see (a hand without
markers, the split of a trunk turn between two joints without markers
between them) are decided by the pulls and get no noise at all.

J is analytic, as in the solver (:mod:`humanbody._kernels.ik`): with the
rotation increments delta_k of body k in ground components, a marker at P
carried by body k moves by ``delta_k x (P - O_k)`` (column block
``-[P - O_k]x``), and by the root translation directly (block I).  The
model's coordinates are the angles theta_k of each body's rotation
sequence ``S_k = R_i(alpha) R_j(beta) R_k(gamma)`` relative to its parent:
``delta_k = R_L B_k dtheta_k`` with ``B_k = [e_i, R_i(alpha) e_j, S_k e_k]``
(the sequence's joint axes in the parent's components) and R_L the
parent's frame, so ``Cov(theta_k) = T_k Cov(delta_k) T_k^T`` with
``T_k = B_k^-1 R_L^T`` (infinite at the sequence's singular set, where the
angle split is undefined: NaN there).

Filtering.  The pipeline low-passes the markers with a zero-phase
Butterworth filter (:func:`humanbody.markers.conditioning.lowpass`) before
the fit.  The filter is linear, y_i = sum_j H_ij e_j, so the filtered noise
of frame i has variance ``g_i sigma^2`` with ``g_i = sum_j H_ij^2`` (the sum
of the squared impulse response, ``sum_k h_k^2`` inside the trial,
larger within a few cut-off periods of its ends where the filter pads by
odd extension); the coordinates of frame i then have covariance
``g_i Cov_i(q)``.  :func:`filter_gain` computes g with the project's own
filter function.  The noise stays uncorrelated between markers and
coordinates, so (1) holds frame by frame with sigma^2 -> g_i sigma^2.

Only the noise is counted: skin motion, soft tissue and a misplaced
calibration are errors the fit cannot average out and that this bound does
not describe; joint limits (zero inside the limits) are left out.

Functions
---------
predict_precision      per-frame standard deviations and their RMS along a trial (the entry point)
coordinate_covariance  Cov(q) of (1) per frame, in the model's coordinates
ik_marker_jacobian     J, analytic (rotation vectors or angles) or central finite differences
filter_gain            g_i of the zero-phase low-pass
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from ..core import Data, Model, forward_kinematics, marker_jacobian, marker_positions
from ..core.joints import ROTATION, Cardan, Free
from ..core.model import Marker
from ..errors import InputError
from ..markers.calibration import Calibration
from ..markers.conditioning import lowpass_array
from ..markers.global_ik import IKProblem, ik_problem
from ..markers.tracking import trial_markers
from ..model.body import BodyModel
from ..signal import CUTOFF_HZ

__all__ = ["Precision", "coordinate_covariance", "filter_gain", "ik_coordinate_names", "ik_marker_jacobian",
           "ik_marker_positions", "predict_precision"]

#: Frames per batch of :func:`coordinate_covariance` (its Jacobians are frames x 3M x 54 doubles).
_CHUNK = 256
#: Trials up to this many frames get the filter's exact per-frame gain; longer ones its two ends from a
#: run this long (the impulse response has died out well within half of it) and the interior value between.
_GAIN_EXACT = 3000


def ik_coordinate_names(model: BodyModel | Model) -> list[str]:
    """Names of the D coordinates, in the order of every array here (the coords table's, without time).

    Parameters
    ----------
    model : BodyModel or humanbody.core.Model
        The body model (a calibration's ``model``: its core model's coordinates,
        :func:`humanbody.core.from_body_model`) or a core model.

    Returns
    -------
    list of str
        The root's position, then each body's angles, as the core model numbers them.
    """
    core = model if isinstance(model, Model) else model.core
    return list(core.coordinate_names)


# ------------------------------------------------------------------ kinematics of the tree (the core's)
def _core_model(prob: IKProblem, seqs) -> Model:
    """The tree of ``prob`` with its markers as a core model: a free root, a Cardan joint of each body's
    sequence at xi_k in its parent (:mod:`humanbody.core`); masses play no part here."""
    n = len(prob.parent)
    joints = tuple(Free(seqs[0]) if k == 0 else Cardan(seqs[k]) for k in range(n))
    xi = np.array(prob.xi, dtype=float)
    xi[0] = 0.0
    eye, zero = np.broadcast_to(np.eye(3), (n, 3, 3)), np.zeros((n, 3))
    markers = tuple(Marker(name, int(s), tuple(c)) for name, s, c in zip(prob.names, prob.seg_of, prob.local,
                                                                         strict=True))
    return Model(tuple(f"body{k}" for k in range(n)), prob.parent, joints, eye, xi, eye, zero, np.ones(n), zero,
                 np.broadcast_to(np.eye(3), (n, 3, 3)), markers=markers)


def _pose(prob: IKProblem, theta, p) -> tuple[np.ndarray, np.ndarray]:
    """The angles (F, n, 3) rad and root positions (F, 3) m of one pose or many, as arrays."""
    theta = np.asarray(theta, dtype=float).reshape(-1, len(prob.parent), 3)
    return theta, np.asarray(p, dtype=float).reshape(-1, 3)


def _kinematics(model: Model, theta: np.ndarray, p: np.ndarray) -> Data:
    """The core's kinematics pass at q = (root position, every body's angles): frames, origins, joint axes."""
    return forward_kinematics(model, np.concatenate([p, theta.reshape(theta.shape[0], -1)], axis=1))


def ik_marker_positions(prob: IKProblem, theta: np.ndarray, p: np.ndarray, seqs) -> np.ndarray:
    """Model marker positions x(q) in ground, by the core's kinematics pass.

    Parameters
    ----------
    prob : IKProblem
        The calibrated markers and tree (:func:`humanbody.markers.global_ik.ik_problem`).
    theta : (F, n, 3) or (n, 3) array_like
        Angles of each body relative to its parent (rad).
    p : (F, 3) or (3,) array_like
        Root position (m).
    seqs : sequence of str
        Each body's rotation sequence (``model.sequences``).

    Returns
    -------
    (F, M, 3) ndarray
        m, in the order of ``prob.names``.
    """
    theta, p = _pose(prob, theta, p)
    model = _core_model(prob, seqs)
    return marker_positions(model, _kinematics(model, theta, p))


def _rotation_axes(model: Model, data: Data) -> np.ndarray:
    """M_k = R_L B_k (F, n, 3, 3): each body's three rotation axes in ground components (columns, before each
    acts), so that the rotation increment delta_k = M_k dtheta_k; the core's joint axes (``data.axis_vector``)."""
    c = model.compiled
    cols = [[a for a in range(int(c.astart[k]), int(c.astart[k + 1])) if int(c.akind[a]) == ROTATION]
            for k in range(model.nbodies)]
    return np.swapaxes(data.axis_vector[:, np.array(cols)], -1, -2)


def _skew(v: np.ndarray) -> np.ndarray:
    """[v]x (..., 3, 3)."""
    z = np.zeros(v.shape[:-1])
    return np.stack([np.stack([z, -v[..., 2], v[..., 1]], -1), np.stack([v[..., 2], z, -v[..., 0]], -1),
                     np.stack([-v[..., 1], v[..., 0], z], -1)], -2)


def _ancestors(parent) -> list[list[int]]:
    out = []
    for k in range(len(parent)):
        chain, j = [], k
        while j >= 0:
            chain.append(j)
            j = parent[j]
        out.append(chain)
    return out


def _jacobian_delta(prob: IKProblem, data: Data) -> np.ndarray:
    """Analytic J (F, M, 3, D) w.r.t. the root position and the rotation vectors delta_k (ground components),
    the solver's unknowns, at the core's pose ``data``: block ``-[P - O_k]x`` for each body k carrying P."""
    F, M = data.frames, len(prob.seg_of)
    O = data.origin
    P = data.points(prob.seg_of, prob.local)
    J = np.zeros((F, M, 3, 3 + 3 * len(prob.parent)))
    J[:, :, :, :3] = np.eye(3)
    chains = _ancestors(prob.parent)
    for m, s in enumerate(prob.seg_of):
        for k in chains[s]:
            J[:, m, :, 3 + 3 * k:6 + 3 * k] = -_skew(P[:, m] - O[:, k])
    return J


def ik_marker_jacobian(prob: IKProblem, theta, p, seqs, wrt: str = "angles", method: str = "analytic",
                    step: float = 1e-6) -> np.ndarray:
    """J = dx/dq of the model's markers, shape (F, 3M, D): rows marker-major (x, y, z), columns :func:`ik_coordinate_names`.

    Parameters
    ----------
    prob : IKProblem
        The calibrated markers and tree (:func:`humanbody.markers.global_ik.ik_problem`).
    theta : (F, n, 3) or (n, 3)
        Angles of each body relative to its parent (rad)
    p : (F, 3) or (3,)
        Root position (m)
    seqs : sequence of str
        Each body's rotation sequence (``model.sequences``)
    wrt : {"angles", "rotation_vectors"}
        Columns of the bodies: the sequence angles (rad), or the rotation
        increments delta_k in ground components the solver uses.
    method : {"analytic", "fd"}
        The tree's analytic Jacobian, or central differences of
        :func:`ik_marker_positions` with ``step`` (angles only).
    step : float
        The finite differences' step (m, rad).

    Returns
    -------
    (F, 3M, D) ndarray
        m per coordinate unit.
    """
    theta, p = _pose(prob, theta, p)
    F, M, D = len(theta), len(prob.seg_of), 3 + 3 * len(prob.parent)
    if method == "fd":
        if wrt != "angles":
            raise ValueError("finite differences are taken with respect to the angles")
        Jf = np.empty((F, M, 3, D))
        for d in range(D):
            for sgn in (1.0, -1.0):
                th, pp = theta.copy(), p.copy()
                if d < 3:
                    pp[:, d] += sgn * step
                else:
                    th.reshape(F, -1)[:, d - 3] += sgn * step
                x = ik_marker_positions(prob, th, pp, seqs)
                Jf[..., d] = x if sgn > 0 else (Jf[..., d] - x) / (2 * step)
        return Jf.reshape(F, 3 * M, D)
    if method != "analytic" or wrt not in ("angles", "rotation_vectors"):
        raise ValueError(f"method {method!r} / wrt {wrt!r}")
    model = _core_model(prob, seqs)
    data = _kinematics(model, theta, p)
    if wrt == "angles":
        return marker_jacobian(model, data).reshape(F, 3 * M, D)
    return _jacobian_delta(prob, data).reshape(F, 3 * M, D)


def _pull_matrix(prob: IKProblem, R: np.ndarray) -> np.ndarray:
    """Gauss-Newton matrix of the neutral and hinge pulls (F, D, D) in the rotation-vector unknowns (ground
    components): ``2 lam_k I + h_k (I - v v^T)`` per body, v = R_k a_k its hinge axis in ground."""
    F, D = R.shape[0], 3 + 3 * len(prob.parent)
    Pm = np.zeros((F, D, D))
    for k in range(len(prob.parent)):
        if prob.lam[k] <= 0.0 and prob.hinge[k] <= 0.0:
            continue
        Hu = np.broadcast_to(2.0 * prob.lam[k] * np.eye(3), (F, 3, 3)).copy()
        if prob.hinge[k] > 0.0:
            v = R[:, k] @ prob.axis[k]
            Hu += prob.hinge[k] * (np.eye(3) - v[:, :, None] * v[:, None, :])
        Pm[:, 3 + 3 * k:6 + 3 * k, 3 + 3 * k:6 + 3 * k] = Hu
    return Pm


# ------------------------------------------------------------------ covariance
def coordinate_covariance(prob: IKProblem, theta, p, seqs, sigma: float = 1.0, present=None,
                          pulls: bool = True, weights: bool = True) -> np.ndarray:
    """Cov(q) of equation (1) in every frame, shape (F, D, D): m^2, rad^2 (columns :func:`ik_coordinate_names`).

    Parameters
    ----------
    prob : IKProblem
        The calibrated markers and tree (:func:`humanbody.markers.global_ik.ik_problem`).
    theta, p, seqs
        The pose (:func:`ik_marker_jacobian`).
    sigma : float
        Standard deviation of the marker noise per coordinate (m).
    present : (F, M) bool, optional
        Markers measured in each frame (default: all); the others are left
        out of that frame's fit, as the solver does.
    pulls : bool
        Include the marker set's neutral and hinge pulls (P of (1)); False:
        P = 0, the Cramér-Rao bound when W = I.
    weights : bool
        Use the marker set's weights (W of (1)); False: W = I.

    Returns
    -------
    (F, D, D) ndarray
        NaN for the angles of a body within 1e-9 of its sequence's
        singular set (det B_k), where the angles are not defined, and for
        every coordinate of a frame whose markers and pulls leave some
        direction free (no marker at all; ``pulls=False`` with a body
        that has no markers, such as gait2392's hands).
    """
    theta, p = _pose(prob, theta, p)
    F, M, D = len(theta), len(prob.seg_of), 3 + 3 * len(prob.parent)
    present = np.ones((F, M), dtype=bool) if present is None else np.asarray(present, dtype=bool)
    w = prob.weight if weights else np.ones(M)
    model = _core_model(prob, seqs)
    out = np.empty((F, D, D))
    for a in range(0, F, _CHUNK):
        b = min(F, a + _CHUNK)
        data = _kinematics(model, theta[a:b], p[a:b])
        J = _jacobian_delta(prob, data).reshape(b - a, 3 * M, D)
        wr = np.repeat(np.where(present[a:b], w, 0.0), 3, axis=1)           # (f, 3M)
        JtW = np.swapaxes(J * wr[:, :, None], 1, 2)                          # (f, D, 3M)
        A = JtW @ J
        if pulls:
            A += _pull_matrix(prob, data.R)
        # Jacobi scaling: the pulls are ~1e-10 of the markers' terms
        d = np.sqrt(np.maximum(np.diagonal(A, axis1=1, axis2=2), 1e-300))
        As = A / d[:, :, None] / d[:, None, :]
        rhs = JtW / d[:, :, None]
        try:
            X = np.linalg.solve(As, rhs) / d[:, :, None]                     # (J^T W J + P)^-1 J^T W
        except np.linalg.LinAlgError:  # some frame leaves a direction free: that frame is NaN
            X = np.full_like(rhs, np.nan)
            for i in range(b - a):
                try:
                    X[i] = np.linalg.solve(As[i], rhs[i]) / d[i, :, None]
                except np.linalg.LinAlgError:
                    pass
        cov = sigma ** 2 * (X @ np.swapaxes(X, 1, 2))
        Mk = _rotation_axes(model, data)                                     # R_L B_k, det = det B_k
        ok = np.abs(np.linalg.det(Mk)) > 1e-9
        Mk = np.where(ok[..., None, None], Mk, np.eye(3))
        T = np.zeros((b - a, D, D))
        T[:, :3, :3] = np.eye(3)
        for k in range(len(prob.parent)):
            T[:, 3 + 3 * k:6 + 3 * k, 3 + 3 * k:6 + 3 * k] = np.linalg.inv(Mk[:, k])
        c = T @ cov @ np.swapaxes(T, 1, 2)
        bad = np.repeat(np.concatenate([np.zeros((b - a, 1), bool), ~ok], axis=1), 3, axis=1)
        out[a:b] = np.where(bad[:, :, None] | bad[:, None, :], np.nan, c)
    return out


# ------------------------------------------------------------------ filter
def filter_gain(n_frames: int, rate_hz: float, cutoff_hz: float | None = CUTOFF_HZ, order: int = 4) -> np.ndarray:
    """Variance factor g_i = sum_j H_ij^2 of the pipeline's zero-phase low-pass in each frame, shape (n_frames,).

    H is the linear map of :func:`humanbody.markers.conditioning.lowpass`
    (Butterworth of ``order`` run forwards and backwards, -3 dB at
    ``cutoff_hz``, odd-extension padding) on one run of ``n_frames``
    samples, obtained by filtering unit impulses with that very function; white noise
    of variance sigma^2 leaves it with variance ``g_i sigma^2`` in frame i.
    Inside the trial g is ``sum_k h_k^2`` of the impulse response (about
    0.11 for 6 Hz at 100 Hz); near the ends, where the padding reflects the
    first and last samples, it is larger.  ``cutoff_hz=None``: no filter, g = 1.
    A run of at most the filter's padding length is left unfiltered by the
    pipeline, so g = 1 there too.

    Parameters
    ----------
    n_frames : int
        Frames of the run (>= 1).
    rate_hz : float
        Sampling rate (Hz).
    cutoff_hz : float or None
        The low-pass's cut-off (Hz); None: no filter.
    order : int
        Order of the complete zero-phase filter.

    Returns
    -------
    (n_frames,) ndarray
        g_i, dimensionless.
    """
    n = int(n_frames)
    if n < 1:
        raise InputError("filter_gain: no frames")
    if cutoff_hz is None:
        return np.ones(n)
    m = min(n, _GAIN_EXACT)
    cols = -(-m // 3)
    P = np.zeros((m, cols, 3))
    P.reshape(m, -1)[np.arange(m), np.arange(m)] = 1.0            # impulse j in column j
    lowpass_array(P, [f"e{j}" for j in range(cols)], np.arange(m) / rate_hz, rate_hz, cutoff_hz, order, None)
    g_m = (P.reshape(m, -1)[:, :m] ** 2).sum(axis=1)
    if m == n:
        return g_m
    g = np.full(n, g_m[m // 2])
    h = m // 2
    g[:h], g[n - (m - h):] = g_m[:h], g_m[h:]
    return g


# ------------------------------------------------------------------ along a trial
@dataclass(frozen=True)
class Precision:
    """What :func:`predict_precision` found.

    Attributes
    ----------
    std : pandas.DataFrame
        ``time`` and, per coordinate (:func:`ik_coordinate_names`), the
        predicted standard deviation of its noise-induced error in each
        frame: m for ``lower_torso_x/y/z``, degrees for the angles.
    summary : pandas.DataFrame
        One row per coordinate (index): ``rms`` (RMS of ``std`` over the
        frames, the expected RMS error over the trial), ``max`` (largest
        frame), ``unit`` ("m" or "deg").
    noise_m : float
        sigma, the white marker noise per coordinate (m).
    cutoff_hz : float or None
        Low-pass cut-off assumed (None: no filter).
    gain : float
        Mean filter variance factor g over the frames (1: no filter).
    markers : list of str
        The markers counted (canonical names).
    """

    std: pd.DataFrame
    summary: pd.DataFrame
    noise_m: float
    cutoff_hz: float | None
    gain: float
    markers: list = field(default_factory=list)


def _rate_of(t: np.ndarray, needed: bool, source) -> float:
    """The sampling rate (Hz) of the times ``t`` (s): 1 / median step; 1 when they do not increase and the
    rate is not ``needed`` (no low-pass)."""
    dt = np.diff(t)
    if len(dt) == 0 or not np.all(dt > 0):
        if needed:
            raise InputError("time must increase to know the sampling rate of the low-pass", source)
        return 1.0
    return 1.0 / float(np.median(dt))


def _present(prob, calibration: Calibration, markers: pd.DataFrame | None, F: int) -> np.ndarray:
    """Which of the problem's markers the trial ``markers`` has in each frame (F, m); all without a trial."""
    present = np.ones((F, len(prob.names)), dtype=bool)
    if markers is not None:
        if len(markers) != F:
            raise InputError(f"marker trial has {len(markers)} frames, the coordinates {F}",
                             markers.attrs.get("source"))
        values, where = trial_markers(markers, calibration.markerset, required=[])
        for j, m in enumerate(prob.names):
            present[:, j] = np.isfinite(values[:, where[m]]).all(axis=-1) if m in where else False
    return present


def _variances(prob, seqs, q: np.ndarray, ok: np.ndarray, present: np.ndarray, noise_m: float,
               progress: bool) -> np.ndarray:
    """Equation (1)'s variance of every coordinate in every frame (F, D; m^2 and rad^2), before the low-pass,
    a chunk of frames at a time (the full covariances are 23 kB a frame); frames not ``ok`` at the zero pose."""
    F = len(q)
    theta = np.where(ok[:, None], q[:, 3:], 0.0).reshape(F, len(prob.parent), 3)
    p = np.where(ok[:, None], q[:, :3], 0.0)
    var = np.empty((F, q.shape[1]))
    bar = None
    if progress and F > 4 * _CHUNK:
        if sys.stderr.isatty():
            from tqdm import tqdm

            bar = tqdm(total=F, desc="precision", unit="frame", leave=False)
    for a in range(0, F, _CHUNK):
        b = min(F, a + _CHUNK)
        cov = coordinate_covariance(prob, theta[a:b], p[a:b], seqs, noise_m, present[a:b])
        var[a:b] = np.diagonal(cov, axis1=1, axis2=2)
        if bar is not None:
            bar.update(b - a)
    if bar is not None:
        bar.close()
    return var


def _summary(std: np.ndarray, cols: list) -> pd.DataFrame:
    """RMS and largest standard deviation of every coordinate over the frames that have it (NaN: none)."""
    seen = np.isfinite(std)
    n_seen = seen.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # a coordinate NaN in every frame: NaN
        rms = np.sqrt(np.where(seen, std, 0.0).__pow__(2).sum(axis=0) / n_seen)
    mx = np.where(n_seen > 0, np.where(seen, std, -np.inf).max(axis=0), np.nan)
    return pd.DataFrame({"rms": rms, "max": mx, "unit": ["m"] * 3 + ["deg"] * (len(cols) - 3)}, index=cols)


def predict_precision(calibration: Calibration, coords: pd.DataFrame, noise_m: float = 0.002,
                      cutoff_hz: float | None = CUTOFF_HZ, order: int = 4, markers: pd.DataFrame | None = None,
                      rate_hz: float | None = None, progress: bool = False) -> Precision:
    """Predicted noise-induced error of every coordinate along a trial, for whole-body IK.

    Equation (1) of the module docstring in every frame of ``coords``, times
    the low-pass's variance factor (:func:`filter_gain`).

    Parameters
    ----------
    calibration : Calibration
        Calibrated marker set (its markers, weights, pulls and model).
    coords : pandas.DataFrame
        Generalized coordinates along the trial (``time``,
        ``lower_torso_x/y/z`` in m, ``<segment>_alpha/_beta/_gamma`` in rad):
        a tracking's ``coords`` (either method) or a designed motion.
    noise_m : float
        Standard deviation sigma of the white noise on every marker
        coordinate (m), > 0.
    cutoff_hz : float or None
        The pipeline's marker low-pass (default 6 Hz, ``--cutoff``); None
        when the markers are not filtered.
    order : int
        Order of the complete zero-phase filter (4).
    markers : pandas.DataFrame, optional
        The marker trial (ground axes), same frames as ``coords``: markers
        absent from it, or missing in a frame, are left out (as the solver
        does).  Default: every calibrated marker in every frame.
    rate_hz : float, optional
        Sampling rate; default from ``coords["time"]``.
    progress : bool
        Show a progress bar on a terminal (long trials: about 1.5 ms a frame).

    Returns
    -------
    Precision
        The per-frame standard deviations of every coordinate and their summary.
    """
    if not (np.isfinite(noise_m) and noise_m > 0):
        raise InputError(f"marker noise must be a positive number of metres, not {noise_m!r}")
    cols = ik_coordinate_names(calibration.model)
    missing = [c for c in ["time"] + cols if c not in coords.columns]
    if missing:
        raise InputError(f"coordinates table lacks column(s) {', '.join(missing[:4])}",
                         coords.attrs.get("source"))
    prob = ik_problem(calibration)
    F = len(coords)
    if F == 0:
        raise InputError("coordinates table has no frames", coords.attrs.get("source"))
    t = coords["time"].to_numpy(dtype=float)
    if rate_hz is None:
        rate_hz = _rate_of(t, cutoff_hz is not None, coords.attrs.get("source"))
    present = _present(prob, calibration, markers, F)
    q = coords[cols].to_numpy(dtype=float)
    ok = np.isfinite(q).all(axis=1) & present.any(axis=1)
    var = _variances(prob, calibration.model.sequences, q, ok, present, noise_m, progress)
    gain = filter_gain(F, rate_hz, cutoff_hz, order)
    var *= gain[:, None]
    var[~ok] = np.nan
    std = np.sqrt(np.maximum(var, 0.0))
    std[:, 3:] = np.degrees(std[:, 3:])
    table = pd.DataFrame(std, columns=cols)
    table.insert(0, "time", t)
    summary = _summary(std, cols)
    used = [m for j, m in enumerate(prob.names) if present[:, j].any()]
    return Precision(std=table, summary=summary, noise_m=float(noise_m), cutoff_hz=cutoff_hz,
                     gain=float(gain.mean()), markers=used)

"""Whole-body inverse kinematics: all markers, one fit per frame, joints held together.

For every frame the generalized coordinates q (root position and the
rotation S_k of every body relative to its parent) minimise

    C(q) = sum_m w_m |O_s(m)(q) + R_s(m)(q) c_m - q_m|^2
         + sum_k lam_k |S_k - S0_k|_F^2 + sum_k h_k |(S_k - S0_k) a_k|^2

where c_m is marker m's calibrated position in the frame of its segment
s(m), q_m its measured position, w_m its weight (``[weights]`` of the
marker set, default 1), S0_k the calibrated (neutral) relative orientation
and O_k = O_L(k) + R_L(k) xi_k: the model's joints never come apart, as in
OpenSim's inverse kinematics (Lu T.-W., O'Connor J.J. (1999) Bone position
estimation from skin marker co-ordinates using global optimisation with
joint constraints. J Biomech 32:129-134).  The neutral pull (weight
``lam``, default 1e-10 m^2: a radian costs as much as 0.01 mm of marker error) only decides
what the markers leave free: the split of a turn between two joints with no
markers between them (lumbar and thoracic, lower and upper neck), a hand
without markers, the axial rotation of a limb seen as two joint centres.
The hinge pull (``[ik] hinge``, weight ``hinge_weight``) keeps the flexion
axis of the named joints (knees and elbows of keypoint sets) where the
calibration put it, so a thigh's axial rotation follows the plane of the
knee's flexion.  Joint limits (``[ik] limits``, :func:`joint_limits`;
``anatomical`` for the keypoint sets, off for the other built-in sets unless
asked for) add ``w_L sum (theta - clip(theta, lo, hi))^2`` over each body's
angles relative to its parent (the model's coordinates), zero inside the
limits.  Keypoints are joint centres: a knee flexed about its axis and one
extended about the opposite axis (the thigh turned half a turn) fit them
equally, and the limits rule the second out.  A frame that the markers fit
only beyond the limits (on a limit with a residual above
:data:`LIMIT_RESIDUAL_RATIO` times the trial's median: a mislabelled point)
is held on them, solved again from its own seed (a chained start could stay
wedged there) and named in the log (:func:`limit_lines`); a joint whose
three angles are bounded within its sequence's principal ranges takes each
frame's own angles, so such a frame never moves the later ones by a turn.

The minimisation is Levenberg-Marquardt with the analytic Jacobian of the
tree (:mod:`humanbody._kernels.ik`), rotation-vector increments on
each body's relative rotation matrix (no Cardan singularity inside the
solver), started in every frame from the segment fits
(:func:`humanbody.markers.tracking.track`), or for keypoint sets from the
anatomical frames the set's rules build in that frame, where the kernel
starts afresh (the first frame of each parallel block); the other frames
start from the previous frames' solutions.  The relative rotations become the angles of each segment's
rotation sequence at the end, made continuous and unwrapped exactly as
segment tracking does.
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
import pandas as pd

from .._kernels.angles import relative_angles
from ..errors import InputError
from ..model.body import sequence_axes_array
from ..model.segments import SEGMENT_NAMES
from .calibration import Calibration
from .markerset import MarkerSet, undetermined_segments
from .rules import Geometry, MarkerUnavailable
from .tracking import (
    STATUS,
    STATUS_DTYPE,
    TABLE_COLUMNS,
    Tracking,
    finish_coordinates,
    joined_children,
    track,
    trial_markers,
)

__all__ = ["ANATOMICAL_LIMITS", "HINGE_WEIGHT", "LIMIT_TABLES", "LIMIT_WEIGHT", "NEUTRAL_WEIGHT",
           "PHYSIOLOGICAL_LIMITS", "IKProblem", "choose_method", "ik_problem", "joint_limits", "limit_lines",
           "track_global"]

#: Default neutral-pull weight lam_k (m^2), every segment but the root.
NEUTRAL_WEIGHT = 1e-10
#: Default hinge-pull weight h_k (m^2) of the segments named in ``[ik] hinge``.
HINGE_WEIGHT = 1e-3
#: Weight of the joint-limit penalty (m^2/rad^2): 0.1 deg beyond a limit costs as much as 55 mm of one marker's error.
LIMIT_WEIGHT = 1e3
#: ``limits = "physiological"``: wide ranges of motion of the lower limbs and elbows (degrees) in the
#: model's coordinates (``<segment>_alpha/_beta/_gamma``, the angles of each body relative to its parent
#: between anatomical frames, docs/conventions.md).  Sign conventions: knee flexion is +alpha of the
#: lower leg, hip flexion -alpha of the thigh, ankle dorsiflexion -alpha of the foot, elbow flexion -alpha
#: of the forearm; beta is adduction on the right and abduction on the left, gamma internal rotation on
#: the right and external on the left.  Beyond the ranges reported for healthy adults (hip flexion 120-140,
#: knee 140-160, ankle plantarflexion 40-60 deg) by a margin, so that only impossible poses are clamped.
PHYSIOLOGICAL_LIMITS: dict[str, dict[str, tuple[float, float]]] = {}
for _side, _s in (("right", 1.0), ("left", -1.0)):
    PHYSIOLOGICAL_LIMITS[f"{_side}_upper_leg"] = {
        "alpha": (-150.0, 45.0),                                        # flexion 150 .. extension 45
        "beta": (-70.0, 50.0) if _s > 0 else (-50.0, 70.0),              # abduction 70 .. adduction 50
        "gamma": (-70.0, 70.0)}
    PHYSIOLOGICAL_LIMITS[f"{_side}_lower_leg"] = {
        "alpha": (-20.0, 165.0),                                        # hyperextension 20 .. flexion 165
        "beta": (-30.0, 30.0), "gamma": (-50.0, 50.0)}
    PHYSIOLOGICAL_LIMITS[f"{_side}_foot"] = {
        "alpha": (-50.0, 70.0),                                         # dorsiflexion 50 .. plantarflexion 70
        "beta": (-50.0, 50.0), "gamma": (-50.0, 50.0)}
    PHYSIOLOGICAL_LIMITS[f"{_side}_lower_arm"] = {
        "alpha": (-165.0, 20.0)}                                        # flexion 165 .. hyperextension 20
#: ``limits = "anatomical"`` (the default of the built-in keypoint sets): the ranges of motion of healthy adults
#: with a small margin, in the same coordinates and signs as :data:`PHYSIOLOGICAL_LIMITS`.  Video keypoints are
#: joint centres: a knee flexed about its axis and one extended about the opposite axis (the thigh turned half
#: a turn about its length) fit them equally, so the knees and elbows may not hyperextend beyond 5 deg and the
#: hips' rotations stay far from half a turn.  Every angle of the legs and forearms is bounded inside its
#: sequence's principal range, which also makes each of these joints' angles unique (no continuity branch).
ANATOMICAL_LIMITS: dict[str, dict[str, tuple[float, float]]] = {}
for _side, _s in (("right", 1.0), ("left", -1.0)):
    ANATOMICAL_LIMITS[f"{_side}_upper_leg"] = {
        "alpha": (-140.0, 40.0),                                        # flexion 140 .. extension 40
        "beta": (-60.0, 40.0) if _s > 0 else (-40.0, 60.0),              # abduction 60 .. adduction 40
        "gamma": (-60.0, 60.0)}
    ANATOMICAL_LIMITS[f"{_side}_lower_leg"] = {
        "alpha": (-5.0, 160.0),                                         # hyperextension 5 .. flexion 160
        "beta": (-25.0, 25.0), "gamma": (-45.0, 45.0)}
    ANATOMICAL_LIMITS[f"{_side}_foot"] = {
        "alpha": (-45.0, 65.0),                                         # dorsiflexion 45 .. plantarflexion 65
        "beta": (-45.0, 45.0), "gamma": (-45.0, 45.0)}
    ANATOMICAL_LIMITS[f"{_side}_lower_arm"] = {
        "alpha": (-160.0, 5.0),                                         # flexion 160 .. hyperextension 5
        "beta": (-30.0, 30.0), "gamma": (-90.0, 90.0)}                  # forearm rotation: see docs/markerless.md
del _side, _s
#: Named limit tables of ``[ik] limits`` and ``--joint-limits``.
LIMIT_TABLES = {"physiological": PHYSIOLOGICAL_LIMITS, "anatomical": ANATOMICAL_LIMITS}
#: Frames solved per call of the kernel (bounds the scratch of a long trial).
IK_CHUNK = 32768


class IKProblem:
    """The arrays the kernel fits: markers on segments, tree, neutral pose, pulls.

    Attributes
    ----------
    names : list of str          canonical marker names, in column order
    seg_of : (M,) int64          segment of each marker (0-based)
    local : (M, 3)               c_m, marker in its segment frame (m)
    weight : (M,)                w_m
    parent : (17,) int64         the core's parents (:class:`humanbody.core.Model`): 0-based, -1 = ground
    xi : (17, 3)                 joint offsets (m, parent frame; the core's ``joint_offset``, 0 for the root)
    S0 : (17, 3, 3)              neutral relative rotations
    lam : (17,)                  neutral-pull weights (m^2)
    axis : (17, 3)               hinge axes (body frame)
    hinge : (17,)                hinge-pull weights (m^2)
    lo, hi : (17, 3)             joint limits of each body's angles (rad, -inf / inf: none)
    limit_weight : float         weight of the limit penalty (m^2/rad^2)
    """

    def __init__(self, calibration: Calibration):
        ms = calibration.markerset
        names, seg_of, local = [], [], []
        for k, seg in enumerate(SEGMENT_NAMES):
            for m, c in calibration.local.get(seg, {}).items():
                if np.isfinite(c).all():
                    names.append(m)
                    seg_of.append(k)
                    local.append(c)
        self.names = names
        self.seg_of = np.array(seg_of, dtype=np.int64)
        self.local = np.array(local, dtype=float).reshape(-1, 3)
        self.weight = np.array([float(ms.weights.get(m, 1.0)) for m in names])
        twin = calibration.model.core  # the core's tree: parents 0-based, -1 = ground
        self.parent = np.ascontiguousarray(twin.parents, dtype=np.int64)
        self.xi = np.ascontiguousarray(twin.joint_offset, dtype=float)  # the root's is 0 (it sits at p)
        self.S0 = np.ascontiguousarray([calibration.relative[s] for s in SEGMENT_NAMES], dtype=float)
        settings = dict(ms.ik)
        neutral = float(settings.get("neutral_weight", NEUTRAL_WEIGHT))
        self.lam = np.full(17, neutral)
        self.lam[0] = 0.0  # the root's orientation in ground is always the markers' to decide
        for seg, w in dict(settings.get("neutral_weights", {})).items():
            if seg not in SEGMENT_NAMES:
                raise InputError(f"marker set {ms.name!r}: [ik] neutral_weights names unknown segment {seg!r}")
            self.lam[SEGMENT_NAMES.index(seg)] = float(w)
        self.lo, self.hi = joint_limits(settings.get("limits"), ms.name)
        self.limit_weight = float(settings.get("limit_weight", LIMIT_WEIGHT))
        self.axis = np.zeros((17, 3))
        self.hinge = np.zeros(17)
        ax = "xyz".index(str(settings.get("hinge_axis", "y")))
        for seg in settings.get("hinge", []):
            k = SEGMENT_NAMES.index(seg)
            self.axis[k, ax] = 1.0
            self.hinge[k] = float(settings.get("hinge_weight", HINGE_WEIGHT))


def joint_limits(spec, where: str = "") -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper joint limits (17, 3) in rad from a limits table.

    Parameters
    ----------
    spec : None, False, "off", "physiological", "anatomical" or mapping
        None / False / "off": no limits (every bound infinite).
        "physiological": :data:`PHYSIOLOGICAL_LIMITS`; "anatomical":
        :data:`ANATOMICAL_LIMITS` (the keypoint sets' default).  A mapping
        ``{segment: {"alpha": [lo, hi], "beta": ..., "gamma": ...}}`` in
        degrees (a bound may be omitted with ``nan``); the angles are the
        model's coordinates of that body relative to its parent (the root,
        ``lower_torso``, has no parent and takes no limits).
    where : str
        Named in error messages (the marker set).

    Returns
    -------
    lo, hi : ndarray, shape (17, 3), rad
        -inf/+inf where there is no bound.
    """
    lo, hi = np.full((17, 3), -np.inf), np.full((17, 3), np.inf)
    if spec is None or spec is False or spec == "off":
        return lo, hi
    if isinstance(spec, str):
        if spec not in LIMIT_TABLES:
            raise InputError(f"{where}: [ik] limits must be \"physiological\", \"anatomical\", \"off\" or a table, "
                             f"not {spec!r}")
        spec = PHYSIOLOGICAL_LIMITS if spec == "physiological" else ANATOMICAL_LIMITS  # read at call time
    if not hasattr(spec, "items"):
        raise InputError(f"{where}: [ik] limits must be \"physiological\", \"anatomical\", \"off\" or a table")
    for seg, angles in spec.items():
        if seg not in SEGMENT_NAMES or seg == SEGMENT_NAMES[0]:
            raise InputError(f"{where}: [ik] limits names {seg!r}, not a segment with a parent")
        k = SEGMENT_NAMES.index(seg)
        for q, bounds in dict(angles).items():
            if q not in ("alpha", "beta", "gamma"):
                raise InputError(f"{where}: [ik] limits of {seg!r}: {q!r} is not alpha, beta or gamma")
            try:
                a, b = (float(x) for x in bounds)
            except (TypeError, ValueError):
                raise InputError(f"{where}: [ik] limits of {seg}.{q} must be [lower, upper] in degrees") from None
            if a > b:
                raise InputError(f"{where}: [ik] limits of {seg}.{q}: lower {a} above upper {b}")
            j = ("alpha", "beta", "gamma").index(q)
            lo[k, j] = np.radians(a) if np.isfinite(a) else -np.inf
            hi[k, j] = np.radians(b) if np.isfinite(b) else np.inf
    return lo, hi


def ik_problem(calibration: Calibration) -> IKProblem:
    """The kernel's arrays for a calibrated marker set (:class:`IKProblem`).

    Parameters
    ----------
    calibration : Calibration
        The static calibration: markers in their segments' frames, the model, neutral pose

    Returns
    -------
    IKProblem
        The kernel's arrays: markers in their segments, tree in the core's convention, neutral pose and weights.
    """
    return IKProblem(calibration)


def choose_method(ms: MarkerSet, present, ik: str = "auto") -> tuple[str, str]:
    """Which tracking ``--ik auto`` uses for a trial, and why (one line for the log).

    ``global`` when the set is a keypoint set or some cluster segment keeps
    fewer than three points (its markers present in the trial, plus the
    proximal joint centre when the set adds it with ``use_joint``): such a
    segment cannot be fitted alone, unless its joints complete it
    (:func:`humanbody.markers.tracking.joined_children`: at least one
    marker, its proximal joint and its children's joints make three
    points), when it is fitted with them and the rest of the body keeps its
    segment fits.  ``segments`` otherwise.  A forced
    ``--ik segments`` on such a trial raises :class:`InputError` (the segment
    would take its parent's pose in every frame), as on a keypoint set.

    Parameters
    ----------
    ms : MarkerSet
        The marker set (its [ik] settings)
    present : collection of str
        Canonical names of the markers with a valid sample.
    ik : {"auto", "segments", "global"}
        The --ik option: segment by segment, whole-body, or by the marker set

    Returns
    -------
    method : {"global", "segments"}
        Whole-body IK or segment-by-segment tracking.
    why : str
        The log line's reason.
    """
    if ik not in ("auto", "segments", "global"):
        raise InputError(f"ik must be auto, segments or global, not {ik!r}", option="ik")
    if ik == "segments" and ms.keypoints:
        raise InputError(f"{ms.name!r} is a keypoint set: its segments cannot be fitted one by one; "
                         "use `ik` global (or auto)")
    if ik == "global":
        return ik, f"--ik {ik}"
    if ms.keypoints:
        return "global", f"auto: {ms.name!r} is a keypoint set"
    present = set(present)
    sparse, joined = [], []
    for seg in SEGMENT_NAMES:
        spec = ms.segments[seg]
        if spec.rule != "cluster" or not spec.markers:
            continue
        own = sum(1 for m in spec.markers if m in present)
        pts = own + bool(spec.use_joint)
        if pts < 3 and set(spec.markers).intersection(ms.required):
            children = joined_children(ms, seg, present)
            if own and children is not None and own + 1 + len(children) >= 3:
                joined.append(f"{seg} ({own} + {1 + len(children)} joints)")
            else:
                sparse.append(f"{seg} ({pts})")
    if ik == "segments":
        if sparse:  # such a segment would take its parent's pose in every frame: a frozen joint
            raise InputError("ik segments: fewer than three points on " + ", ".join(sparse)
                             + ": such a segment cannot be fitted alone; use `ik` global (or auto)", option="ik")
        return ik, f"--ik {ik}" + (_joined_note(joined) if joined else "")
    if sparse:
        return "global", "auto: fewer than three points on " + ", ".join(sparse)
    if joined:
        return "segments", "auto" + _joined_note(joined)
    return "segments", "auto: every tracked segment has three or more points"


def _joined_note(joined: list) -> str:
    """The log's words for the sparse segments that their joints complete (:func:`choose_method`)."""
    return ("; fewer than three markers on " + ", ".join(joined)
            + ": fitted with their joint centres as the neighbouring segments carry them")


# ------------------------------------------------------------------ seeds
def _relative(R: np.ndarray, parent: np.ndarray) -> np.ndarray:
    """S_k = R_L^T R_k (root: R_1), shape (F, 17, 3, 3)."""
    S = np.empty_like(R)
    for k, L in enumerate(parent):
        S[:, k] = R[:, k] if L < 0 else np.swapaxes(R[:, L], 1, 2) @ R[:, k]
    return S


def _seeds(R: np.ndarray, O: np.ndarray, rows: np.ndarray, n: int, prob: IKProblem, meas: np.ndarray):
    """Finite starting rotations (n, 17, 3, 3) and root positions (n, 3) of a chunk of n frames.

    ``R``, ``O`` (partly NaN) are the absolute frames and origins of the
    chunk's frames ``rows``, the only ones the kernel starts from; the
    others get the calibrated pose and the interpolated root.
    """
    S = np.empty((n, 17, 3, 3))
    S[:] = prob.S0
    sub = _relative(R, prob.parent)
    ok = np.isfinite(sub).all(axis=(2, 3))
    S[rows[:, None], np.arange(17)[None, :]] = np.where(ok[..., None, None], sub, prob.S0)
    p = np.full((n, 3), np.nan)
    good = np.isfinite(O[:, 0]).all(axis=1)
    if good.any():
        frames = np.arange(n)
        for i in range(3):
            p[:, i] = np.interp(frames, rows[good], O[good, 0, i])
    else:  # no root seed anywhere: the centroid of the markers
        with np.errstate(invalid="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            p[rows] = np.nanmean(meas[rows], axis=1)
    p[~np.isfinite(p).all(axis=1)] = 0.0
    return S, p


def _geometry_frames(markers: dict, calibration: Calibration, n: int):
    """Per-frame anatomical frames and origins built by the set's rules (keypoint seeds), NaN where unavailable."""
    ms = calibration.markerset
    params = dict(ms.parameters, height=calibration.height, mass=calibration.mass)
    geo = Geometry(ms, markers, params)
    R = np.full((n, 17, 3, 3), np.nan)
    O = np.full((n, 17, 3), np.nan)
    for k, seg in enumerate(SEGMENT_NAMES):
        try:
            R[:, k] = geo.frame(seg)
            origin = ms.segments[seg].origin
            assert origin is not None  # checked on load
            O[:, k] = geo.point(origin)
        except (MarkerUnavailable, InputError):
            continue
    return R, O


# ------------------------------------------------------------------ tracking
def track_global(markers, calibration: Calibration, keep_frames: bool = True, required=None,
                 max_iter: int = 30, tol: float = 1e-5, rtol: float = 1e-4, seed: str = "auto",
                 chained: bool = True, limits=None):
    """Track the 17 segments by whole-body inverse kinematics (module docstring).

    Parameters
    ----------
    markers : pandas.DataFrame
        Marker trial in ground axes (m).
    calibration : Calibration
        The static calibration: markers in their segments' frames, the model, neutral pose
    keep_frames : bool
        Keep absolute frames and joint points (``Tracking.R``, ``.origins``).
    required : sequence of str, optional
        Markers that must have a valid sample (default: the set's ``required``).
    max_iter : int
        Levenberg-Marquardt iterations per frame at most.
    tol : float
        Stop when the largest increment is below ``tol`` (rad, m).
    rtol : float
        ... or when an iteration lowers the cost by less than ``rtol`` times
        the cost (large residuals: skin motion, a static trial placed
        differently).
    chained : bool
        Within each block of 128 frames start a frame from the previous
        frame's solution (the block's first frame from its seed): fewer
        iterations where the residuals are large.  False: every frame from
        its seed.
    seed : {"auto", "segments", "geometry"}
        Starting pose of each frame: the segment fits, or the anatomical
        frames the set's rules build in that frame (``auto``: geometry for
        keypoint sets, segment fits otherwise).
    limits : None, "off", "physiological" or mapping
        Joint limits (:func:`joint_limits`); None: the marker set's
        ``[ik] limits`` (none unless it says so).  A joint that the markers
        push beyond a limit stops on it (a stiff quadratic penalty in the
        fit, then the angle is set onto the limit); a trial within the
        limits gives the same results as without them.

    Returns
    -------
    Tracking
        As :func:`humanbody.markers.tracking.track`, ``method="global"``;
        ``residuals`` per segment are the RMS distance of its markers,
        ``marker_residuals`` the distance of every marker.
    """
    source = markers.attrs.get("source")
    ms = calibration.markerset
    prob = ik_problem(calibration)
    names, use, meas = _measured(markers, calibration, prob, required)
    if seed == "auto":
        seed = "geometry" if ms.keypoints else "segments"
    seed_frames = partial(_seed_frames, seed, markers, calibration, names, meas)
    idx = _seed_rows(meas, chained)
    R0, O0 = seed_frames(idx)
    lo, hi = (prob.lo, prob.hi) if limits is None else joint_limits(limits, f"track_global({ms.name!r})")
    fit = _Fit(prob, use, sequence_axes_array(calibration.model), lo, hi, int(max_iter), float(tol), float(rtol))
    table, res, cost, iters, R_all, O_all = _solve_chunks(fit, meas, idx, R0, O0, bool(chained), keep_frames)
    del R0, O0
    angles = table[:, 4:].reshape(len(meas), 17, 3)
    limited = [k for k in range(17) if np.isfinite(lo[k]).any() or np.isfinite(hi[k]).any()] if fit.limit_w else []
    if limited and chained:
        # a chained frame after frames that fit only beyond the limits (a mislabelled point) can stay wedged on
        # the limits: every such frame is solved again from its own seed and keeps the fit of lower cost
        rows = np.flatnonzero(_off_range(angles[:, limited], lo[limited], hi[limited], _frame_rms(res)).any(axis=1))
        _solve_again(fit, rows, seed_frames, meas, angles, table, res, cost, iters, R_all, O_all)
    principal = angles[:, limited].copy()  # each frame's own angles, before continuity
    time, near = finish_coordinates(markers, table, angles, fit.seq, calibration.model.sequences)
    _hold_on_limits(angles, principal, limited, lo, hi, fit.seq, near)
    coords = pd.DataFrame(table, columns=TABLE_COLUMNS, copy=False)
    coords.attrs.update(kind="coordinates", source=source or "",
                        conversions=[f"whole-body inverse kinematics with marker set {ms.name!r}"])
    residuals, used, status, marker_res = _residual_tables(ms, fit.seg_of, meas, res, cost, time,
                                                           [calibration.names.get(m, m) for m in names])
    notes = (limit_lines(time, principal, [SEGMENT_NAMES[k] for k in limited], lo[limited], hi[limited],
                         _frame_rms(res), ms.keypoints) if limited else [])
    return Tracking(coords=coords, residuals=residuals, status=status, markers_used=used, R=R_all, origins=O_all,
                    near_singular=near, method="global", marker_residuals=marker_res, iterations=iters,
                    limit_notes=notes)


def _solve_chunks(fit: _Fit, meas: np.ndarray, idx: np.ndarray, R0: np.ndarray, O0: np.ndarray, chained: bool,
                  keep_frames: bool):
    """Fit every frame, ``IK_CHUNK`` frames at a time, from the seeds (R0, O0) of the frames ``idx``.

    Returns the coordinate table (F, 4 + 51; its angle columns the joints' relative angles, rad; the time
    column left for the caller), the markers' residuals (F, m; m), the cost and iterations per frame, and
    the segments' frames (F, 17, 3, 3) and origins (F, 17, 3) when ``keep_frames`` (else None); frames whose
    root keeps too few of its markers NaN (:func:`_drop_rootless`).
    """
    n = len(meas)
    R_all = np.empty((n, 17, 3, 3)) if keep_frames else None
    O_all = np.empty((n, 17, 3)) if keep_frames else None
    res = np.empty((n, meas.shape[1]))
    cost = np.empty(n)
    iters = np.empty(n, dtype=np.int64)
    table = np.empty((n, len(TABLE_COLUMNS)))
    angles = table[:, 4:].reshape(n, 17, 3)
    for a in range(0, n, IK_CHUNK):
        b = min(n, a + IK_CHUNK)
        sel = (idx >= a) & (idx < b)
        S_seed, p_seed = _seeds(R0[sel], O0[sel], idx[sel] - a, b - a, fit.prob, meas[a:b])
        R, O = fit.solve(meas[a:b], S_seed, p_seed, chained, res[a:b], cost[a:b], iters[a:b])
        relative_angles(R, fit.prob.parent, fit.seq, 1e-9, angles[a:b])
        table[a:b, 1:4] = O[:, 0]
        if R_all is not None and O_all is not None:  # keep_frames
            R_all[a:b], O_all[a:b] = R, O
    _drop_rootless(fit, meas, table, res, cost, R_all, O_all)
    return table, res, cost, iters, R_all, O_all


#: Markers of its own the root segment needs in a frame of whole-body inverse kinematics: with one, its
#: orientation is the legs' guess (Vicon's analysis sample: the sacrum alone for 0.17 s, hip moments 7 N·m/kg).
ROOT_MARKERS = 2


def _drop_rootless(fit: _Fit, meas: np.ndarray, table, res, cost, R_all, O_all) -> None:
    """Frames in which the root segment (the pelvis) has fewer than :data:`ROOT_MARKERS` of its markers (all
    of them when it has fewer) have no pose, as segment fits leave a root without markers (its parent is the
    ground: nothing carries it); the legs' markers alone place it anywhere along their chains (Vicon's
    analysis sample: hip moments of 60 N·m/kg).  Their rows, residuals and cost
    become NaN in place (``status`` "missing"; the pipeline says how many frames have no pose).  A set whose
    root has no marker at all (keypoints placed by other rules) is left as it is."""
    own = fit.seg_of == 0
    if not own.any():
        return
    rootless = np.isfinite(meas[:, own]).all(axis=2).sum(axis=1) < min(ROOT_MARKERS, int(own.sum()))
    if not rootless.any():
        return
    table[rootless, 1:] = np.nan
    res[rootless] = np.nan
    cost[rootless] = np.nan
    if R_all is not None and O_all is not None:
        R_all[rootless] = np.nan
        O_all[rootless] = np.nan


def _hold_on_limits(angles, principal, limited: list, lo, hi, seq, near: dict) -> None:
    """Where the limits keep a joint's three angles on one branch, its angles (F, 3) are each frame's own,
    clipped onto the limits (in place), so that a frame on a limit never shifts the later ones by a turn
    (the kernel lets a joint within 10 deg of its singular set pass its limits: held on them)."""
    for i, k in enumerate(limited):
        if _bounded(lo[k], hi[k], seq[k]):
            angles[:, k] = np.clip(principal[:, i], lo[k], hi[k])
            near.pop(SEGMENT_NAMES[k], None)


def _measured(markers, calibration: Calibration, prob: IKProblem, required) -> tuple[list, list, np.ndarray]:
    """The problem's markers the trial has (their names, their rows in ``prob``) and their positions
    (F, m, 3; m, NaN where not seen).  No marker, or a segment left with too few, is an InputError."""
    source = markers.attrs.get("source")
    ms = calibration.markerset
    values, where = trial_markers(markers, ms, required)
    use = [i for i, m in enumerate(prob.names) if m in where]
    if not use:
        raise InputError(f"no marker of marker set {ms.name!r} has a valid sample", source)
    names = [prob.names[i] for i in use]
    lost = undetermined_segments(ms, set(names))
    if lost:
        seg, pts = lost[0]
        raise InputError(f"segment {seg!r} keeps {pts} point(s) of marker set {ms.name!r}: too few to "
                         "determine it through its joints", source)
    meas = np.empty((len(markers), len(names), 3))
    for j, m in enumerate(names):
        meas[:, j] = values[:, where[m]]
    return names, use, meas


def _seed_rows(meas: np.ndarray, chained: bool) -> np.ndarray:
    """The frames that need a seed: where the kernel starts afresh, the first frame of every block of
    ``_BLOCK`` frames and a frame after one without markers (the others start from the previous frames'
    solutions); every frame when not ``chained``."""
    from .._kernels.ik import _BLOCK  # lazy: numba kernels (~60 ms), loaded only for whole-body IK

    n = len(meas)
    need = np.ones(n, dtype=bool)
    if chained:
        empty = ~np.any(np.all(np.isfinite(meas), axis=2), axis=1)
        need[:] = False
        need[::_BLOCK] = True
        need[1:] |= empty[:-1]
    return np.flatnonzero(need)


class _Fit:
    """The fixed inputs of the whole-body fit of the markers ``use`` of ``prob``: what :func:`solve_frames`
    takes besides a run of frames and their seeds."""

    def __init__(self, prob: IKProblem, use: list, seq: np.ndarray, lo: np.ndarray, hi: np.ndarray,
                 max_iter: int, tol: float, rtol: float):
        self.prob, self.seq, self.lo, self.hi = prob, seq, lo, hi
        self.seg_of, self.local, self.weight = prob.seg_of[use], np.ascontiguousarray(prob.local[use]), prob.weight[use]
        from .._kernels.ik import tree_order  # lazy: numba kernels (~60 ms), loaded only for whole-body IK

        self.base, self.first = tree_order(prob.parent)
        self.limit_w = prob.limit_weight if (np.isfinite(lo).any() or np.isfinite(hi).any()) else 0.0
        self.max_iter, self.tol, self.rtol = max_iter, tol, rtol

    def solve(self, meas, S_seed, p_seed, chained: bool, res, cost, iters) -> tuple[np.ndarray, np.ndarray]:
        """Fit the frames ``meas`` (f, m, 3) from their seeds; fills ``res``, ``cost``, ``iters`` and returns the
        segments' frames R (f, 17, 3, 3) and origins (f, 17, 3)."""
        from .._kernels.ik import solve_frames  # lazy: numba kernels (~60 ms), loaded only for whole-body IK

        p = self.prob
        R = np.empty((len(meas), 17, 3, 3))
        O = np.empty((len(meas), 17, 3))
        solve_frames(np.ascontiguousarray(meas), self.weight, self.seg_of, self.local, p.parent, p.xi, p.S0,
                     p.lam, p.axis, p.hinge, self.base, self.first, self.seq, self.lo, self.hi, float(self.limit_w),
                     S_seed, p_seed, self.max_iter, self.tol, self.rtol, chained, R, O, res, cost, iters)
        return R, O


def _seed_frames(seed: str, markers, calibration: Calibration, names: list, meas: np.ndarray, rows: np.ndarray):
    """The seed frames R (f, 17, 3, 3) and origins (f, 17, 3) of the frames ``rows``: the segment fits
    (``seed="segments"``) or the frames the set's rules build (``"geometry"``)."""
    if seed == "segments":
        seg_tr = track(markers.iloc[rows], calibration, keep_frames=True, required=[])
        assert seg_tr.R is not None and seg_tr.origins is not None  # kept: keep_frames=True
        return seg_tr.R, seg_tr.origins
    return _geometry_frames({m: meas[rows, j] for j, m in enumerate(names)}, calibration, len(rows))


def _solve_again(fit: _Fit, rows: np.ndarray, seed_frames, meas, angles, table, res, cost, iters, R_all,
                 O_all) -> None:
    """Solve the frames ``rows`` again, each from its own seed (``seed_frames(rows)``), and keep the fits of
    lower cost (updating ``angles``, the root's position in ``table``, ``res``, ``cost``, ``iters`` and the
    kept frames)."""
    if not len(rows):
        return
    R0, O0 = seed_frames(rows)
    m = len(rows)
    S_seed, p_seed = _seeds(R0, O0, np.arange(m), m, fit.prob, meas[rows])
    res2, cost2, it2 = np.empty((m, res.shape[1])), np.empty(m), np.empty(m, np.int64)
    R, O = fit.solve(meas[rows], S_seed, p_seed, False, res2, cost2, it2)
    better = np.flatnonzero(cost2 < cost[rows])
    ang2 = np.empty((m, 17, 3))
    relative_angles(R, fit.prob.parent, fit.seq, 1e-9, ang2)
    at = rows[better]
    angles[at], table[at, 1:4], res[at], cost[at] = ang2[better], O[better, 0], res2[better], cost2[better]
    iters[at] += it2[better]
    if R_all is not None and O_all is not None:  # keep_frames
        R_all[at], O_all[at] = R[better], O[better]


def _residual_tables(ms: MarkerSet, seg_of: np.ndarray, meas: np.ndarray, res: np.ndarray, cost: np.ndarray,
                     time, columns: list) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Per segment and frame: the RMS distance of its markers (m), how many it has, and how it was placed
    (``STATUS``); and every marker's distance ``res`` (m) under its trial name (``columns``):
    ``(residuals, markers_used, status, marker_residuals)``."""
    n = len(meas)
    present = np.isfinite(meas).all(axis=2)
    solved = np.isfinite(cost)
    rms, count, status = {}, {}, {}
    for k, seg in enumerate(SEGMENT_NAMES):
        spec = ms.segments[seg]
        cols = np.flatnonzero(seg_of == k)
        code = np.full(n, STATUS.index("missing"), dtype=np.int8)
        if spec.rule == "cluster":
            cnt = present[:, cols].sum(axis=1)
            with np.errstate(invalid="ignore", divide="ignore"):
                sq = np.where(present[:, cols], res[:, cols] ** 2, 0.0).sum(axis=1)
                rms[seg] = np.where(cnt > 0, np.sqrt(sq / np.maximum(cnt, 1)), np.nan)
            count[seg] = cnt.astype(np.int64)
            code[solved] = STATUS.index("fallback")
            code[solved & (cnt > 0)] = STATUS.index("fit")
        else:
            code[solved] = STATUS.index(spec.rule)
        status[seg] = code
    residuals = pd.DataFrame({"time": time, **rms})
    used = pd.DataFrame({"time": time, **count})
    status_table = pd.DataFrame({"time": time, **{s: pd.Categorical.from_codes(status[s], dtype=STATUS_DTYPE, validate=False)
                                                  for s in SEGMENT_NAMES}})
    marker_res = pd.DataFrame(res, columns=columns)
    marker_res.insert(0, "time", time)
    return residuals, used, status_table, marker_res


def _bounded(lo: np.ndarray, hi: np.ndarray, seq: np.ndarray) -> bool:
    """Whether limits (3,) rad keep a Cardan sequence's three angles inside its principal ranges (one branch)."""
    if len(set(int(a) for a in seq)) != 3 or not (np.isfinite(lo).all() and np.isfinite(hi).all()):
        return False
    return bool(lo[0] > -np.pi and hi[0] < np.pi and lo[2] > -np.pi and hi[2] < np.pi
                and lo[1] > -np.pi / 2 and hi[1] < np.pi / 2)


#: An angle within this of its limit (rad) is on it: the kernel sets an angle pushed beyond onto the limit.
ON_LIMIT = 1e-6


#: A frame on a limit whose RMS marker residual exceeds this many times the trial's median is reported.
LIMIT_RESIDUAL_RATIO = 3.0


def _frame_rms(res: np.ndarray) -> np.ndarray:
    """RMS marker distance (F,) of each frame (NaN: no marker), from the distances (F, M)."""
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.sqrt(np.nanmean(res ** 2, axis=1))


def _off_range(angles: np.ndarray, lo: np.ndarray, hi: np.ndarray, frame_rms: np.ndarray) -> np.ndarray:
    """(F, S) bool: segment s on (or beyond) a limit in frame f while f's residual exceeds LIMIT_RESIDUAL_RATIO x
    the trial's median."""
    if not np.isfinite(frame_rms).any():
        return np.zeros(angles.shape[:2], dtype=bool)
    with np.errstate(invalid="ignore"):
        on = (angles < lo + ON_LIMIT) | (angles > hi - ON_LIMIT)
        bad = frame_rms > LIMIT_RESIDUAL_RATIO * np.nanmedian(frame_rms)
    return on.any(axis=2) & bad[:, None]


def limit_lines(time: np.ndarray, angles: np.ndarray, segments: list, lo: np.ndarray, hi: np.ndarray,
                frame_rms: np.ndarray, keypoints: bool = False) -> list[str]:
    """One line naming the frames that the markers fit only beyond the joint ranges, or none.

    Such a frame has a joint stopped on its limit and an RMS marker
    residual above :data:`LIMIT_RESIDUAL_RATIO` times the trial's median:
    the markers (keypoints) there fit only a pose beyond the range (a knee
    bent backwards, a limb turned half a turn, a mislabelled or swapped
    point).  The pose is held on the limit, not flipped; the line says when
    and which joints.  (A joint that noise alone puts a little beyond a limit,
    a straight knee, stops on it without raising the residual: not reported.)

    Parameters
    ----------
    time : (F,) s
        The trial's frame times
    angles : (F, S, 3) rad
        Each frame's angles of the limited segments (before continuity)
    segments : list of str
        Their names
    lo, hi : (S, 3) rad
        Their limits
    frame_rms : (F,) m
        Each frame's RMS marker residual (NaN: no markers)
    keypoints : bool
        The set is a keypoint set (the line says "keypoints")

    Returns
    -------
    list of str
        One line, or none.
    """
    if not segments:
        return []
    per = _off_range(angles, lo, hi, frame_rms)  # (F, S)
    frames = np.flatnonzero(per.any(axis=1))
    if not len(frames):
        return []
    what = "keypoints" if keypoints else "markers"
    counts = ", ".join(f"{seg} {int(per[:, i].sum())}" for i, seg in enumerate(segments) if per[:, i].any())
    return [f"joint limits: in {len(frames)} frame(s) ({time[frames[0]]:.3f}-{time[frames[-1]]:.3f} s) the {what} "
            f"fit only a pose beyond the joint ranges (a limb bent backwards or turned, or a mislabelled point): "
            f"held on the limits, not flipped: {counts}"]

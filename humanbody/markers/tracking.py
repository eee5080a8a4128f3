"""Segment tracking: marker trajectories -> segment poses -> coordinates.

Each cluster segment's pose in every frame is the least-squares rigid
transformation taking its calibrated local marker positions onto the
measured ones (Söderkvist I., Wedin P.-A. (1993) Determining the movements
of the skeleton using well-configured markers. J Biomech 26:1473-1477):
with centroids p̄, q̄ and the cross-covariance H = sum (p - p̄)(q - q̄)^T, R is
the rotation of Horn's quaternion (:mod:`humanbody.markers.rigid`); a marker
missing in a frame is left out of that frame's fit.

Segments without enough markers follow their marker-set rule (``slerp``
between two segments, ``rigid`` attachment); a cluster segment that lacks
markers its set defines and keeps fewer than three (a sparse set) joins its
joint centres to its fit (:func:`joined_children`), each where the trial
puts it (:func:`sparse_pairs`); a cluster frame with
fewer than three usable, non-collinear points follows the segment's
``fallback`` (``parent``: the calibrated relative orientation to its parent;
``nan``).

Relative orientations S_L(k)k = R_L^T R_k become the angles of each
segment's rotation sequence (``model.sequences``;
:func:`humanbody.rotations.matrix_to_euler`), unwrapped over time.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd

from .._kernels.angles import continuous_angles, relative_angles, slerp_rotations, unwrap_columns
from .._kernels.marker_layout import carried_points
from ..errors import InputError
from ..model.anthropometry import DEFAULT_MASS
from ..model.body import sequence_axes_array
from ..model.segments import PARENTS, SEGMENT_NAMES
from ..rotations.angles import singular_distance
from .calibration import Calibration, calibrate
from .markerset import detect_markerset, match_markers
from .rigid import fit_columns, fit_rigid  # noqa: F401  (fit_rigid re-exported)
from .rules import Geometry, MarkerUnavailable, tracking_frame
from .sparse_joints import functional_pair

__all__ = ["Tracking", "fit_rigid", "track", "markers_to_coordinates"]

#: Angular distance from a sequence's singular set (degrees) within which
#: :func:`track` reports a segment's frames (:attr:`Tracking.near_singular`).
NEAR_SINGULAR_DEG = 10.0

#: How a segment's pose was found in a frame (``Tracking.status`` categories).
STATUS = ("missing", "fit", "slerp", "rigid", "fallback")
#: The dtype of the status table's columns (made once: a categorical dtype per column costs 0.15 ms).
STATUS_DTYPE = pd.CategoricalDtype(categories=STATUS)


def _slerp_into(Ra, Rb, fraction: float, R) -> None:
    """``R[f]`` = the rotation ``fraction`` of the way from ``Ra[f]`` to ``Rb[f]`` (each (F, 3, 3);
    :func:`~humanbody._kernels.angles.slerp_rotations`), the kernel given the one layout calibration gives it too
    (read-only C-ordered ends, a C-ordered output, copied into ``R`` when ``R`` is a strided view), so a first
    run compiles it once."""
    a, b = np.ascontiguousarray(Ra).view(), np.ascontiguousarray(Rb).view()
    a.flags.writeable = b.flags.writeable = False
    out = R if R.flags.c_contiguous else np.empty(R.shape)
    slerp_rotations(a, b, float(fraction), out)
    if out is not R:
        R[...] = out


@dataclass(frozen=True, eq=False)
class Tracking:
    """Result of :func:`track`.

    Attributes
    ----------
    coords : pandas.DataFrame
        Generalized coordinates (docs/conventions.md layout): ``time``,
        ``lower_torso_x/y/z`` (m), ``<segment>_alpha/_beta/_gamma`` (rad).
    residuals : pandas.DataFrame
        ``time`` and per cluster segment the RMS marker residual of the fit
        (m); NaN where the segment was not fitted.
    status : pandas.DataFrame
        ``time`` and per segment how its pose was found in each frame:
        ``"fit"``, ``"slerp"``, ``"rigid"``, ``"fallback"`` (too few markers:
        parent orientation with the calibrated offset) or ``"missing"``.
    markers_used : pandas.DataFrame
        ``time`` and per cluster segment the number of points fitted.
    R : ndarray, shape (frames, 17, 3, 3), or None
        Absolute anatomical frames R_0k (columns = axes in ground); None
        when tracked with ``keep_frames=False``.
    origins : ndarray, shape (frames, 17, 3), or None
        Tracked segment origins O_k in ground (m): the fitted anatomical
        origin for cluster segments, the parent's joint point otherwise.
    near_singular : dict of str -> ndarray of bool, shape (frames,)
        Per segment that came within :data:`NEAR_SINGULAR_DEG` of its
        sequence's singular set, the frames where it did (see
        :func:`humanbody.rotations.singular_distance`).  Its angles stay
        continuous there and its rates come from Euler parameters; only the
        split between its first and third angles is sensitive.
    method : {"segments", "global"}
        How the poses were found: each segment fitted alone, or whole-body
        inverse kinematics (:func:`humanbody.markers.global_ik.track_global`).
    marker_residuals : pandas.DataFrame or None
        ``time`` and per marker the distance (m) between its measured and
        model positions (global inverse kinematics); NaN where missing.
    joined : dict of str -> int
        Per cluster segment, the frames with fewer than three usable
        markers of its own fitted with its joint centres joined (status
        ``"fit"``; :meth:`_Tracker._joined_gap_fit`).
    iterations : ndarray or None
        Whole-body inverse kinematics: the solver's iterations per frame; None for segment fits.
    limit_notes : list of str
        Whole-body inverse kinematics: the joints held on their limits, one line each (none for segment fits).
    """

    coords: pd.DataFrame
    residuals: pd.DataFrame
    status: pd.DataFrame
    markers_used: pd.DataFrame
    R: np.ndarray | None
    origins: np.ndarray | None
    near_singular: dict = field(default_factory=dict)
    method: str = "segments"
    marker_residuals: pd.DataFrame | None = None
    joined: dict = field(default_factory=dict)
    iterations: np.ndarray | None = None
    limit_notes: list = field(default_factory=list)

    def singular_lines(self) -> list[str]:
        """One line per segment that came near its singular set: which frames (time span and count).

        Returns
        -------
        list of str
            Per such segment: its number of frames within NEAR_SINGULAR_DEG of the singular set and their time span (s).
        """
        lines = []
        time = self.coords["time"].to_numpy()
        for seg, mask in self.near_singular.items():
            idx = np.flatnonzero(mask)
            lines.append(
                f"{seg}: within {NEAR_SINGULAR_DEG:g} deg of the singular set of its rotation sequence in "
                f"{idx.size} frame(s), {time[idx[0]]:.3f}-{time[idx[-1]]:.3f} s (angles kept continuous, "
                "rates from Euler parameters)")
        return lines

    @cached_property
    def status_counts(self) -> dict[str, np.ndarray]:
        """Per segment of ``status``, its frames in each :data:`STATUS` category.

        Returns
        -------
        dict of str -> ndarray of int, shape (len(STATUS) + 1,)
            ``counts[seg][STATUS.index(s)]`` frames of status ``s``; the last
            entry counts the frames without a category.  Read from the
            categories' codes (no comparison of labels), once.
        """
        return {seg: np.bincount(np.asarray(self.status[seg].array.codes, dtype=np.intp) % (len(STATUS) + 1),
                                 minlength=len(STATUS) + 1)
                for seg in self.status.columns[1:]}

    def summary(self) -> list[str]:
        """Human-readable lines: median residual per segment, frames not fitted.

        Returns
        -------
        list of str
            One line per segment: its median RMS marker residual (mm) and its number of frames not fitted.
        """
        lines = []
        counts = self.status_counts
        residuals = self.residuals.to_numpy(dtype=float)
        for j, seg in enumerate(self.residuals.columns[1:], start=1):
            r = residuals[:, j]
            bad = int(self.status.shape[0] - counts[seg][STATUS.index("fit")])
            med = np.nanmedian(r) * 1000 if np.isfinite(r).any() else np.nan
            lines.append(f"{seg}: median RMS residual {med:.1f} mm, {bad} frame(s) not fitted")
        return lines


class _Tracker:
    """Poses of the 17 segments over one chunk of frames, each found by its marker-set rule.

    ``R_out`` (n, 17, 3, 3) and ``O_out`` (n, 17, 3), when given, receive
    every segment's frame and origin in place (the rules write into
    ``R_out[:, k]``, ``O_out[:, k]``); ``pose`` returns those views.
    """

    def __init__(self, cal: Calibration, markers: dict, n: int, table=None, where=None, R_out=None, O_out=None,
                 pairs=None):
        self.cal, self.markers, self.n = cal, markers, n
        self.pairs = pairs or {}  # child -> (a, b): a sparse joint's point in the parent and the child (sparse_pairs)
        self.table, self.where = table, where  # the chunk's marker table and each marker's columns
        self.ms = cal.markerset
        self.R_out = np.empty((n, 17, 3, 3)) if R_out is None else R_out
        self.O_out = np.empty((n, 17, 3)) if O_out is None else O_out
        self.R: dict = {}
        self.O: dict = {}
        self.status = {s: np.zeros(n, dtype=np.int8) for s in SEGMENT_NAMES}  # codes of STATUS
        self.rms: dict = {}
        self.count: dict = {}
        self._busy: set = set()
        self._joint: dict = {}
        self._dist: dict = {}
        self.joined: dict = {}  # segment -> frames fitted with its joint centres (_joined_gap_fit)

    @cached_property
    def usable(self) -> set:
        """The markers with a calibrated position and a sample in this chunk (:func:`joined_children`)."""
        return {m for local in self.cal.local.values() for m in local if m in self.markers}

    def joint_point(self, seg: str):
        """O_k as carried by the tracked parent: O_L + R_L xi_k (computed once per chunk)."""
        if seg not in self._joint:
            k = SEGMENT_NAMES.index(seg)
            Rp, Op = self.pose(SEGMENT_NAMES[PARENTS[k] - 1])
            out = np.empty((self.n, 3))
            carried_points(Rp, Op, np.asarray(self.cal.model.joint_offset[k], dtype=np.float64), out)
            self._joint[seg] = out
        return self._joint[seg]

    def pose(self, seg: str):
        if seg in self.R:
            return self.R[seg], self.O[seg]
        if seg in self._busy:
            raise InputError(f"marker set {self.ms.name!r}: pose of {seg!r} depends on itself")
        self._busy.add(seg)
        spec = self.ms.segments[seg]
        k = SEGMENT_NAMES.index(seg)
        R, O = self.R_out[:, k], self.O_out[:, k]  # written in place by the rule
        if spec.rule == "cluster":
            self._cluster(seg, spec, R, O)
        elif spec.rule == "slerp":
            a, b = spec.between
            _slerp_into(self.pose(a)[0], self.pose(b)[0], spec.fraction, R)  # as slerp_frames
            O[...] = self.joint_point(seg)
            self.status[seg][np.isfinite(R).all(axis=(1, 2))] = STATUS.index("slerp")
        else:
            assert spec.to is not None  # checked on load
            Rt = self.pose(spec.to)[0]
            offset = self.cal.frames[spec.to].T @ self.cal.frames[seg]
            np.matmul(Rt, offset, out=R)
            O[...] = self.joint_point(seg) if PARENTS[k] else self.pose(spec.to)[1]
            self.status[seg][np.isfinite(R).all(axis=(1, 2))] = STATUS.index("rigid")
        self._busy.discard(seg)
        self.R[seg], self.O[seg] = R, O
        return R, O

    def _geometry(self):
        """The marker set's points and rule frames over this chunk's frames (geometric tracking)."""
        if not hasattr(self, "_geo"):
            self._geo = Geometry(self.ms, self.markers, self.cal.parameters)
        return self._geo

    def _geometric(self, seg, spec, R, O):
        """Frame-by-frame pose by the segment's ``track`` rules, R = G C (C: the static offset).

        Frames where a point is missing (NaN) keep the cluster fit already in R, O.
        """
        geo = self._geometry()
        try:
            G = tracking_frame(geo, seg)
            origin = geo.point(spec.origin)
        except MarkerUnavailable:
            return
        Rg = G @ np.asarray(self.cal.track_offsets[seg], dtype=float)
        ok = np.isfinite(Rg).all(axis=(1, 2)) & np.isfinite(origin).all(axis=1)
        R[ok], O[ok] = Rg[ok], origin[ok]
        self.status[seg][ok] = STATUS.index("fit")

    def _cluster(self, seg, spec, R, O):
        if spec.track is not None and seg in self.cal.track_offsets:
            out = self._cluster_fit(seg, spec, R, O)
            self._geometric(seg, spec, R, O)
            return out
        return self._cluster_fit(seg, spec, R, O)

    def _cluster_fit(self, seg, spec, R, O):
        local = self.cal.local.get(seg, {})
        names = [m for m in spec.markers if m in local]
        loc = [local[m] for m in names]
        k = SEGMENT_NAMES.index(seg)
        children = joined_children(self.ms, seg, self.usable)
        extra = np.empty((0, 3))
        if (spec.use_joint or children is not None) and PARENTS[k]:
            loc.append(self._pair(seg)[1])
            extra = np.ascontiguousarray(self._proximal(seg))
        cols = self._columns(names)
        if loc and (spec.child_joints or children):
            rms, count, ok = self._fit_with_children(list(spec.child_joints) + list(children or ()), names, loc,
                                                     extra, R, O)
        elif loc and cols is not None and len(loc) <= 62:  # read the markers where they are
            _, _, rms, count, ok = fit_columns(np.array(loc), self.table, cols, extra, R, O)
        elif loc:
            meas = [self._marker(m) for m in names]
            if len(extra):
                meas.append(extra)
            R[...], O[...], rms, count, ok = fit_rigid(np.array(loc), np.stack(meas, axis=1))
        else:
            R[...], O[...] = np.nan, np.nan
            rms, count, ok = np.full(self.n, np.nan), np.zeros(self.n, int), np.zeros(self.n, bool)
        # where the fallback would carry it (the parent's pose is then needed anyway), not through a parent
        # interpolated between it and another (the head under the neck)
        pspec = self.ms.segments[SEGMENT_NAMES[PARENTS[k] - 1]] if PARENTS[k] else None
        if ((~ok).any() and spec.fallback == "parent" and pspec is not None and names
                and not (pspec.rule == "slerp" and seg in pspec.between)):
            ok = self._joined_gap_fit(seg, spec, [local[m] for m in names], names, ok, R, O, rms, count)
        self.rms[seg], self.count[seg] = rms, count
        self.status[seg][ok] = STATUS.index("fit")
        if (~ok).any() and spec.fallback == "parent" and PARENTS[k]:
            par = SEGMENT_NAMES[PARENTS[k] - 1]
            idx = np.flatnonzero(~ok)
            pspec = self.ms.segments[par]
            if pspec.rule == "slerp" and seg in pspec.between:
                Rf, Of = self._fallback_through_slerp(seg, par, pspec, idx)
            else:
                Rf = self.pose(par)[0][idx] @ self.cal.relative[seg]
                Of = self.joint_point(seg)[idx]
            good = np.isfinite(Rf).all(axis=(1, 2))
            R[idx], O[idx] = Rf, Of
            self.status[seg][idx[good]] = STATUS.index("fallback")
        return R, O

    def _joined_gap_fit(self, seg, spec, loc, names, ok, R, O, rms, count):
        """The frames a cluster cannot fit (fewer than three usable markers: a marker hidden for a while),
        fitted by its markers joined by its joint centres, unit weight each: the proximal one as its tracked
        parent carries it (:meth:`_proximal`; not where the parent is itself carried) and the distal ones its
        children's own markers put (:meth:`_distal_point`), as a sparse set's fit (:func:`joined_children`) joins
        them for the whole trial.  Two shank markers + knee + ankle are four points, one three; the frames
        this fits are counted in ``joined``, the others keep ``ok`` False (the segment's fallback).

        Returns
        -------
        ok : (n,) bool  the frames fitted, by the cluster alone or joined
        """
        idx = np.flatnonzero(~ok)
        loc = list(loc) + [self._pair(seg)[1]]
        proximal = self._proximal(seg)[idx].copy()
        parent = SEGMENT_NAMES[PARENTS[SEGMENT_NAMES.index(seg)] - 1]
        carried = np.isin(self.status[parent][idx], (STATUS.index("fallback"), STATUS.index("missing")))
        proximal[carried] = np.nan  # a parent carried from its own parent puts the joint nowhere measured
        meas = [self._marker(m)[idx] for m in names] + [proximal]
        for child in dict.fromkeys(list(spec.child_joints) + list(distal_children(self.ms, seg, self.usable))):
            point = self._distal_point(child)
            if point is not None:
                loc.append(self._pair(child)[0])
                meas.append(point[idx])
        if len(loc) < 3:
            return ok
        Rj, Oj, rj, cj, good = fit_rigid(np.array(loc), np.stack(meas, axis=1))
        if not good.any():
            return ok
        at = idx[good]
        R[at], O[at], rms[at], count[at] = Rj[good], Oj[good], rj[good], cj[good]
        self.joined[seg] = self.joined.get(seg, 0) + int(good.sum())
        ok = ok.copy()
        ok[at] = True
        return ok

    def _marker(self, name):
        return self.markers[name] if name in self.markers else np.full((self.n, 3), np.nan)

    def _fit_with_children(self, children, names, loc, extra, R, O):
        """Cluster fit joined by the joint centres of the segments ``children``, unit weight each.

        Each child's joint centre O_c is where the child's own markers put its
        origin (:meth:`_distal`: its cluster alone, without any parent point;
        a sparse child's joined by its own children's joints); it joins this
        segment's cluster at the model offset xi_c.  A child frame whose
        cluster cannot be fitted leaves that point out (NaN is ignored), and
        so does a child whose markers do not determine it.
        """
        meas = [self._marker(m) for m in names]
        if len(extra):
            meas.append(extra)
        for child in children:
            point = self._distal_point(child)
            if point is None:  # a child its markers do not determine: its joint is left out of this fit
                continue
            loc.append(self._pair(child)[0])
            meas.append(point)
        R[...], O[...], rms, count, ok = fit_rigid(np.array(loc), np.stack(meas, axis=1))
        return rms, count, ok

    def _pair(self, child):
        """The joint of ``child`` with its parent in the parent's and the child's frame: (xi_c, 0), or where the
        trial puts it (:func:`sparse_pairs`)."""
        if child in self.pairs:
            return self.pairs[child]
        return np.asarray(self.cal.model.joint_offset[SEGMENT_NAMES.index(child)], dtype=float), np.zeros(3)

    def _proximal(self, seg):
        """The joint of ``seg`` with its parent as the tracked parent carries it (n, 3): O_L + R_L a."""
        if seg not in self.pairs:
            return self.joint_point(seg)
        Rp, Op = self.pose(SEGMENT_NAMES[PARENTS[SEGMENT_NAMES.index(seg)] - 1])
        return Op + Rp @ self.pairs[seg][0]

    def _distal_point(self, seg):
        """The joint of ``seg`` with its parent where ``seg``'s own markers put it (n, 3), or None."""
        pose = self._distal(seg)
        return None if pose is None else pose[1] + pose[0] @ self._pair(seg)[1]

    def _distal(self, seg):
        """Pose (R (n, 3, 3), origin (n, 3)) of ``seg`` where its own markers put it, or None when they do not
        determine it.

        A segment with three calibrated markers: their rigid fit alone (no
        parent point).  A sparse segment (:func:`sparse_segment`): its
        markers joined by its children's origins (this method, recursively)
        at the model offsets xi_c, from the foot up.
        """
        if seg in self._dist:
            return self._dist[seg]
        clocal = self.cal.local.get(seg, {})
        spec = self.ms.segments[seg]
        out = None
        if not sparse_segment(self.ms, seg, self.usable):
            names = [m for m in spec.markers if m in clocal]
            loc = [clocal[m] for m in names]
            meas = [self._marker(m) for m in names]
        else:
            names = [m for m in spec.markers if m in clocal and m in self.usable]
            loc = [clocal[m] for m in names]
            meas = [self._marker(m) for m in names]
            for child in distal_children(self.ms, seg, self.usable):
                point = self._distal_point(child)
                if point is not None:
                    loc.append(self._pair(child)[0])
                    meas.append(point)
        if names and len(loc) >= 3:
            out = fit_rigid(np.array(loc), np.stack(meas, axis=1))[:2]
        self._dist[seg] = out
        return out

    def _columns(self, names):
        """First table column of each marker (-1: absent), or None when some marker's columns are not adjacent."""
        if self.table is None:
            return None
        cols = []
        for m in names:
            c = self.where.get(m)
            if c is None:
                cols.append(-1)
            elif isinstance(c, slice):
                cols.append(c.start)
            else:
                return None
        return np.array(cols, dtype=np.int64)

    def _fallback_through_slerp(self, seg, par, pspec, idx):
        """Fallback pose of a segment whose parent is interpolated between it and another (head under the neck).

        The parent's pose needs this segment's, so in the frames ``idx`` the
        segment keeps its calibrated orientation relative to the other end
        of the interpolation (the thorax for the head), the parent is
        interpolated between the two, and the origin is carried by it.
        """
        other = pspec.between[1] if pspec.between[0] == seg else pspec.between[0]
        Ro = self.pose(other)[0][idx]
        Rf = Ro @ (self.cal.frames[other].T @ self.cal.frames[seg])
        ends = (Rf, Ro) if pspec.between[0] == seg else (Ro, Rf)
        Rp = np.empty_like(Rf)
        _slerp_into(ends[0], ends[1], pspec.fraction, Rp)
        xi = np.asarray(self.cal.model.joint_offset[SEGMENT_NAMES.index(seg)], dtype=np.float64)
        Of = self.joint_point(par)[idx] + Rp @ xi
        return Rf, Of


def sparse_segment(ms, seg: str, usable) -> bool:
    """Whether a cluster segment lacks markers its set defines and keeps fewer than three (a sparse set).

    Parameters
    ----------
    ms : MarkerSet
        A marker set (keypoint sets are never sparse: whole-body inverse
        kinematics tracks them).
    seg : str
        A segment name of SEGMENT_NAMES (e.g. "right_shank").
    usable : collection of str
        The markers with a calibrated position and a valid sample in the trial.

    Returns
    -------
    bool
        True when the segment is sparse.
    """
    spec = ms.segments[seg]
    if ms.keypoints or spec.rule != "cluster":
        return False
    return sum(m in usable for m in spec.markers) < min(3, len(spec.markers))


def distal_children(ms, seg: str, usable) -> tuple[str, ...]:
    """The cluster children of ``seg`` whose markers (and, for a sparse child, its own children's joints,
    recursively) determine their origin, the joint centre they share with ``seg``.

    Parameters
    ----------
    ms : MarkerSet
        The marker set.
    seg : str
        A segment name of SEGMENT_NAMES (e.g. "right_shank").
    usable : collection of str
        The markers with a calibrated position and a valid sample in the trial.

    Returns
    -------
    tuple of str
        Those children's segment names, in SEGMENT_NAMES order.
    """
    k = SEGMENT_NAMES.index(seg)
    out = []
    for c, child in enumerate(SEGMENT_NAMES):
        if PARENTS[c] != k + 1 or ms.segments[child].rule != "cluster":
            continue
        own = sum(m in usable for m in ms.segments[child].markers)
        if not sparse_segment(ms, child, usable):
            if own >= 3:
                out.append(child)
        elif own and own + len(distal_children(ms, child, usable)) >= 3:
            out.append(child)
    return tuple(out)


def joined_children(ms, seg: str, usable) -> tuple[str, ...] | None:
    """The children whose joints join a sparse segment's fit, or None when ``seg`` is not sparse.

    A cluster segment with a parent is sparse (:func:`sparse_segment`) when
    the lab never placed some of its markers and fewer than three are left.
    Its fit then takes, beside its markers, its proximal joint centre as its
    tracked parent carries it and the joint centre of every child whose
    markers determine it (:func:`distal_children`: a sparse child's from its
    markers and its own children's joints, from the foot up), each with unit
    weight at the point where the trial puts that joint (:func:`sparse_pairs`;
    the model offset xi_c when the trial does not show it), the joint centres
    the segment fits of the full set use: 2 shank markers + the knee (from the thigh) + the
    ankle (from the foot) are four points, 2 thigh markers + the hip (from
    the pelvis) + the knee (from the shank's markers and the ankle) four.
    The segment is fitted frame by frame like the others, and the rest of
    the body keeps its segment fits.

    Parameters
    ----------
    ms : MarkerSet
        The marker set.
    seg : str
        A segment name of SEGMENT_NAMES (e.g. "right_shank").
    usable : collection of str
        The markers with a calibrated position and a valid sample in the trial.

    Returns
    -------
    tuple of str or None
        The children (distal_children) joining the fit; None when seg is not sparse.
    """
    k = SEGMENT_NAMES.index(seg)
    if not PARENTS[k] or not sparse_segment(ms, seg, usable):
        return None
    return tuple(c for c in distal_children(ms, seg, usable) if c not in ms.segments[seg].child_joints)


def sparse_pairs(calibration: Calibration, values: np.ndarray, where: dict) -> dict:
    """Where the trial puts each joint of a sparse segment: with a child that joins its fit, and with its parent.

    First, for every sparse segment s whose parent p is a cluster its own
    markers determine (not sparse, and not joined to s by its own fit,
    ``child_joints``), the point (a in p, b in s) of
    :func:`humanbody.markers.sparse_joints.functional_pair` from p's tracked
    pose and s's pose where its markers and its children's joints put it
    (a shank without its rear marker under a full thigh: the knee).  Then,
    for every sparse segment s and child c of :func:`joined_children`, the
    point (a in s, b in c) from s's pose fitted to its markers and its
    proximal joint (where the first step put it) and c's pose where its own
    markers (and its children's joints) put it.  All over the whole trial
    ``values`` (F, 3 m; columns ``where``).  Empty when the set has no
    sparse segment.

    Parameters
    ----------
    calibration : Calibration
        The calibration (marker set, markers' segment-frame positions, model).
    values : ndarray, shape (F, C), m
        The trial's marker table.
    where : dict
        Canonical marker -> its x, y, z columns in ``values``.

    Returns
    -------
    dict
        child segment -> (a (3,), b (3,)) in m: the joint of that segment
        with its parent, in the parent's frame and in its own.
    """
    ms = calibration.markerset
    markers = {m: values[:, c] for m, c in where.items()}
    usable = {m for local in calibration.local.values() for m in local if m in markers}
    joins = {s: c for s in SEGMENT_NAMES if ms.segments[s].rule == "cluster" and (c := joined_children(ms, s, usable))}
    if not joins:
        return {}
    tr = _Tracker(calibration, markers, len(values))
    pairs = {}
    for seg in joins:  # the proximal joint of a sparse segment under a parent its own markers determine
        k = SEGMENT_NAMES.index(seg)
        parent = SEGMENT_NAMES[PARENTS[k] - 1]
        pspec = ms.segments[parent]
        if pspec.rule != "cluster" or sparse_segment(ms, parent, usable) or seg in pspec.child_joints:
            continue  # a sparse parent places it as its child (below); a parent joined by it meets it by its fit
        pose = tr._distal(seg)
        Rp, Op = tr.pose(parent)
        pair = None if pose is None else functional_pair(Rp, Op, pose[0], pose[1], calibration.model.joint_offset[k])
        if pair is not None:
            pairs[seg] = pair
    tr = _Tracker(calibration, markers, len(values), pairs=dict(pairs))
    for seg, children in joins.items():
        local = calibration.local.get(seg, {})
        names = [m for m in ms.segments[seg].markers if m in local and m in usable]
        Rp, Op, *_ = fit_rigid(np.array([local[m] for m in names] + [tr._pair(seg)[1]]),
                               np.stack([markers[m] for m in names] + [tr._proximal(seg)], axis=1))
        for child in children:
            pose = tr._distal(child)
            xi = calibration.model.joint_offset[SEGMENT_NAMES.index(child)]
            pair = None if pose is None else functional_pair(Rp, Op, pose[0], pose[1], xi)
            if pair is not None:
                pairs[child] = pair
    return pairs


def _marker_columns(markers: pd.DataFrame, found: dict) -> tuple[np.ndarray, dict]:
    """The table as one float array and, per canonical marker with a valid sample, its x, y, z columns.

    Like :func:`humanbody.markers.calibration.marker_arrays` but without
    copying: ``values[:, where[m]]`` are the positions of marker ``m``
    (a slice when its three columns are adjacent, as readers write them).
    """
    if all(dt == np.float64 for dt in markers.dtypes):
        table = markers
    else:  # other columns (text, ...) beside the markers: take the marker columns only
        wanted = [f"{col}_{a}" for col in found.values() for a in "xyz"]
        table = markers[[c for c in markers.columns if str(c) in set(wanted)]]
        try:
            table = table.astype(float)
        except (TypeError, ValueError):
            raise InputError("marker columns are not numeric", markers.attrs.get("source")) from None
    values = table.to_numpy(dtype=float, copy=False)
    pos = {str(c): i for i, c in enumerate(table.columns)}
    where = {}
    for canon, col in found.items():
        x, y, z = (pos.get(f"{col}_{a}") for a in "xyz")
        if x is None or y is None or z is None:
            continue
        idx = [x, y, z]
        cols = slice(idx[0], idx[0] + 3) if idx[1] == idx[0] + 1 and idx[2] == idx[0] + 2 else idx
        head = values[:64, cols]  # nearly always decides without scanning the whole trial
        if np.isfinite(head).all(axis=1).any() or np.isfinite(values[:, cols]).all(axis=1).any():
            where[canon] = cols
    return values, where


#: Frames tracked at a time by :func:`track`: bounds the per-frame scratch
#: (rotations, origins, marker arrays of a chunk) whatever the trial's length.
TRACK_CHUNK = 32768


def trial_markers(markers: pd.DataFrame, ms, required=None) -> tuple:
    """The trial's samples of the marker set's markers: ``(values, where)`` of :func:`_marker_columns`.

    Parameters
    ----------
    markers : pandas.DataFrame
        The trial's marker table (m), ``attrs["source"]`` its file.
    ms : MarkerSet
        The marker set.
    required : collection of str, optional
        The markers that must have a valid sample (default: the set's required markers).

    Returns
    -------
    values : ndarray, shape (F, C)
        The marker columns used, m, ground axes.
    where : dict
        Canonical marker -> its x, y, z columns in ``values``.

    Raises
    ------
    InputError
        A marker of ``required`` (default: the set's required markers) has no
        valid sample in the trial (the message names it and
        ``markers.attrs["source"]``).
    """
    names_in = markers.attrs.get("markers") or [c[:-2] for c in markers.columns if c.endswith("_x")]
    values, where = _marker_columns(markers, match_markers(ms, names_in))
    for m in (ms.required if required is None else required):
        if m not in where:
            raise InputError(f"required marker {m!r} of marker set {ms.name!r} has no valid sample",
                             markers.attrs.get("source"))
    return values, where


def track(markers, calibration: Calibration, keep_frames: bool = True,
          chunk_frames: int | None = None, required=None) -> Tracking:
    """Track the 17 segments through a motion trial.

    Frames are independent (only the unwrapping of alpha and gamma looks
    along time, and it runs over the whole trial at the end), so the trial
    is tracked ``chunk_frames`` frames at a time; the result does not depend
    on the chunk size.

    Parameters
    ----------
    markers : pandas.DataFrame
        Marker trial in ground axes (docs/conventions.md marker layout, m).
    calibration : Calibration
        From :func:`humanbody.markers.calibration.calibrate`.
    keep_frames : bool
        Keep the absolute frames and origins of every segment
        (``Tracking.R``, ``Tracking.origins``: 1632 bytes per frame); when
        False they are None.
    chunk_frames : int, optional
        Frames per chunk (default :data:`TRACK_CHUNK`).
    required : sequence of str, optional
        Markers that must have a valid sample (default: the set's
        ``required`` list).

    Returns
    -------
    Tracking
        Coordinates (root O_1 position and the angles of every body relative
        to its parent in its sequence, alpha and gamma unwrapped over time),
        per-segment RMS residuals, per-frame status.

    Raises
    ------
    InputError
        A required marker of the set is absent for the whole trial (the
        message names the marker and ``markers.attrs["source"]``).
    """
    source = markers.attrs.get("source")
    ms = calibration.markerset
    values, where = trial_markers(markers, ms, required)
    seq = sequence_axes_array(calibration.model)
    step = max(int(TRACK_CHUNK if chunk_frames is None else chunk_frames), 1)
    pairs = sparse_pairs(calibration, values, where)
    table, rms, count, codes, R_all, O_all, joined = _track_chunks(calibration, values, where, seq, step,
                                                                   keep_frames, pairs)
    angles = table[:, 4:].reshape(len(markers), 17, 3)
    time, near = finish_coordinates(markers, table, angles, seq, calibration.model.sequences)
    coords = pd.DataFrame(table, columns=TABLE_COLUMNS, copy=False)
    coords.attrs.update(kind="coordinates", source=source or "",
                        conversions=[f"segment tracking with marker set {ms.name!r}"])
    residuals = pd.DataFrame({"time": time, **rms})
    used = pd.DataFrame({"time": time, **count})
    status = pd.DataFrame({"time": time, **{s: pd.Categorical.from_codes(codes[s], dtype=STATUS_DTYPE, validate=False)
                                            for s in SEGMENT_NAMES}})  # the kernel's codes: -1 to 4, no check
    return Tracking(coords=coords, residuals=residuals, status=status, markers_used=used,
                    R=R_all, origins=O_all, near_singular=near, joined=joined)


#: The coordinates table's columns: time, the root's position, then alpha, beta, gamma per segment.
TABLE_COLUMNS = (["time"] + [f"lower_torso_{a}" for a in "xyz"]
                 + [f"{seg}_{q}" for seg in SEGMENT_NAMES for q in ("alpha", "beta", "gamma")])


def _track_chunks(calibration: Calibration, values: np.ndarray, where: dict, seq: np.ndarray, step: int,
                  keep_frames: bool, pairs=None):
    """Track every frame of the marker samples ``values`` (F, 3 m), ``step`` frames at a time.

    Returns the coordinates table (F, 4 + 51; filled in place: the root's position and the joints' relative
    angles, rad; the time column left for the caller), the cluster segments' RMS residuals and marker counts
    and every segment's status codes (``{segment: (F,)}``), the absolute frames (F, 17, 3, 3) and
    origins (F, 17, 3) when ``keep_frames`` (else None), and per segment the frames fitted with its joint
    centres joined (``{segment: int}``).  ``pairs``: the sparse joints' points (:func:`sparse_pairs`).
    """
    n = len(values)
    ms = calibration.markerset
    clusters = [s for s in SEGMENT_NAMES if ms.segments[s].rule == "cluster"]
    R_all = np.empty((n, 17, 3, 3)) if keep_frames else None
    O_all = np.empty((n, 17, 3)) if keep_frames else None
    table = np.empty((n, len(TABLE_COLUMNS)))
    root, angles = table[:, 1:4], table[:, 4:].reshape(n, 17, 3)
    rms = {s: np.empty(n) for s in clusters}
    count = {s: np.empty(n, dtype=np.int64) for s in clusters}
    status = {s: np.empty(n, dtype=np.int8) for s in SEGMENT_NAMES}
    parent = np.array([L - 1 for L in PARENTS], dtype=np.int64)  # -1: the root
    joined: dict = {}
    for a in range(0, n, step):
        b = min(n, a + step)
        chunk = values[a:b]
        if a == 0:  # one buffer for every chunk: its pages are faulted in once
            R_buf, O_buf = np.empty((b - a, 17, 3, 3)), np.empty((b - a, 17, 3))
        R, O = R_buf[:b - a], O_buf[:b - a]
        tr = _Tracker(calibration, {m: chunk[:, c] for m, c in where.items()}, b - a,
                      table=np.ascontiguousarray(chunk), where=where, R_out=R, O_out=O, pairs=pairs)
        for seg in SEGMENT_NAMES:
            tr.pose(seg)  # written into R[:, k], O[:, k]
        relative_angles(R, parent, seq, 1e-9, angles[a:b])  # S_L(k)k = R_L^T R_k -> alpha, beta, gamma
        root[a:b] = O[:, 0]
        for seg in clusters:
            rms[seg][a:b], count[seg][a:b] = tr.rms[seg], tr.count[seg]
        for seg in SEGMENT_NAMES:
            status[seg][a:b] = tr.status[seg]
        for seg, frames in tr.joined.items():
            joined[seg] = joined.get(seg, 0) + frames
        if R_all is not None and O_all is not None:  # keep_frames
            R_all[a:b], O_all[a:b] = R, O
    return table, rms, count, status, R_all, O_all, joined


def finish_coordinates(markers, table: np.ndarray, angles: np.ndarray, seq, sequences) -> tuple[np.ndarray, dict]:
    """The last step of every tracker, in place: the time column, continuous and unwrapped angles.

    ``table`` (F, 4 + 3 (N-1)) holds time, the root's position and the angle columns; ``angles``
    (F, N, 3) rad are the views the trackers filled.  The angles are made continuous through and
    beyond each sequence's singular set; alpha and gamma are unwrapped over time (beta moves by
    small steps, so unwrapping its columns too leaves them as they are).

    Returns the time (s) and, per segment, the frames within :data:`NEAR_SINGULAR_DEG` of its
    sequence's singular set.

    Parameters
    ----------
    markers : pandas.DataFrame
        The trial's marker table (its ``time`` column).
    table : ndarray, shape (F, 4 + 3 (N - 1))
        Time, the root's position (m) and the segments' angle columns (rad), filled by the tracker; changed in place.
    angles : ndarray, shape (F, N, 3), rad
        Views of table's angle columns, one row per segment (0-based, body order).
    seq : ndarray of int64, shape (N, 3)
        The axes (0, 1, 2) of every segment's rotation sequence, as the kernel takes them.
    sequences : sequence of str
        Every segment's rotation sequence.

    Returns
    -------
    time : ndarray, shape (F,), s
        The frames' times (the frame indices when the table has no time column).
    near : dict of str to ndarray of bool, shape (F,)
        Segment -> its frames near its singular set (segments that never come near are left out).
    """
    n = table.shape[0]
    time = markers["time"].to_numpy(dtype=float) if "time" in markers else np.arange(n, dtype=float)
    table[:, 0] = time
    cont = np.ascontiguousarray(angles)  # the layout the clinical angles give the kernel too: compiled once
    continuous_angles(cont, seq, 1e-9)
    if cont is not angles:
        angles[...] = cont
    near = {}
    for k, seg in enumerate(SEGMENT_NAMES):
        with np.errstate(invalid="ignore"):
            close = singular_distance(angles[:, k], sequences[k]) < np.radians(NEAR_SINGULAR_DEG)
        if close.any():
            near[seg] = close
    unwrap_columns(table[:, 4:])
    return time, near


def markers_to_coordinates(markers, markerset=None, static=None, mass: float = DEFAULT_MASS,
                           height: float | None = None, sex: str = "male", base_model=None,
                           keep_frames: bool = True, subject=None):
    """Marker trial (ground axes) -> generalized coordinates in one call.

    Parameters
    ----------
    markers : pandas.DataFrame
        Motion trial in ground axes (m).
    markerset : None, str, path or MarkerSet
        None detects the built-in set from the motion trial's marker names.
    static : pandas.DataFrame, optional
        Standing trial in ground axes; without it the motion trial calibrates
        itself (``mode="dynamic"`` of :func:`calibrate`).
    mass : float
        Subject mass (kg).
    height : float, optional
        Standing height (m); estimated from the (static) markers when None.
    sex : {"male", "female"}
        The subject's sex, for the anthropometric model.
    base_model : BodyModel, optional
        Anthropometric base model (default :func:`humanbody.model.body.default_model`).
    keep_frames : bool
        Passed to :func:`track`.
    subject : Subject, optional
        Subject measurements (:func:`humanbody.io.subject.read_subject`), passed to :func:`calibrate`.

    Returns
    -------
    coords : pandas.DataFrame
        The generalized coordinates per frame: time (s), root position (m), segment angles (rad).
    calibration : Calibration
        The calibrated marker set and body model.
    tracking : Tracking
        Residuals, status and near-singular frames of the tracking.
    """
    if markerset is None:
        names = markers.attrs.get("markers") or [c[:-2] for c in markers.columns if c.endswith("_x")]
        markerset = detect_markerset(names, markers.attrs.get("source"))
    if static is not None:
        cal = calibrate(static, markerset, mass=mass, height=height, sex=sex, base_model=base_model,
                        subject=subject)
    else:
        cal = calibrate(markers, markerset, mass=mass, height=height, sex=sex, mode="dynamic",
                        base_model=base_model, subject=subject)
    tracking = track(markers, cal, keep_frames=keep_frames)
    return tracking.coords, cal, tracking

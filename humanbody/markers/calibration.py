"""Static calibration: joint centres, anatomical frames and a subject model.

From a standing (static) trial in ground axes, :func:`calibrate` finds

1. the static pose: the median of every marker over the frames where it is
   present (robust to a few bad frames);
2. every point of the marker set (joint centres by midpoint, regression or
   offset rules) and every segment's anatomical frame (origin = proximal
   joint centre, axes by the set's primary/secondary rules);
3. each tracking marker's position in its segment frame (what
   :func:`humanbody.markers.tracking.track` fits to);
4. a subject-specific :class:`~humanbody.model.body.BodyModel`: joint offsets
   xi_k from the calibrated joint centres, segment lengths from them, masses
   and inertias from anthropometry scaled to the calibrated lengths.

Without a static trial the motion trial itself is used (``mode="dynamic"``):
the same points and frames are built in every frame where their markers are
present and the local quantities are medians over frames.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.spatial.transform import Rotation

from ..errors import INPUT, LENGTHS, InputError, Note
from ..model.anthropometry import DEFAULT_MASS
from ..model.body import BodyModel, default_model
from ..model.segments import DEFAULT_SEQUENCES, PARENTS, SEGMENT_NAMES
from ..rotations.angles import euler_to_matrix, matrix_to_euler
from ..signal.nan import nanmedian
from .height_landmarks import combine, describe
from .markerset import MarkerSet, resolve_markerset
from .plug_in_gait_rotation import (
    foot_offset_rotation,
    tibial_torsion,
    wand_offset_from_pelvis,
)
from .rules import Geometry, MarkerUnavailable, parameter_value, tracking_frame
from .segment_inertia import apply_segment_inertia, segment_inertia_table

__all__ = ["Calibration", "calibrate", "estimate_height", "estimate_height_detail", "marker_arrays"]


@dataclass(frozen=True, eq=False)
class Calibration:
    """Everything tracking needs about one subject and marker set.

    Attributes
    ----------
    markerset : MarkerSet
    names : dict
        Canonical marker name -> name in the calibration trial.
    model : BodyModel
        Subject-specific 17-segment model (xi_k, r_k from the calibration).
    local : dict of str -> dict of str -> ndarray (3,)
        Per cluster segment, each tracking marker's position in the segment
        frame (m).
    frames : dict of str -> ndarray (3, 3)
        Anatomical frame of each segment in the calibration pose (columns =
        unit axes in ground).
    origins : dict of str -> ndarray (3,)
        Origin O_k of each segment in the calibration pose (m, ground).
    points : dict of str -> ndarray (3,)
        Every named point of the set in the calibration pose (m, ground).
    relative : dict of str -> ndarray (3, 3)
        S_L(k)k in the calibration pose (parent <- body).
    static_angles : dict of str -> ndarray (3,)
        Angles (rad) of ``relative`` in each segment's rotation sequence: the
        static-pose offsets.
    lengths : dict of str -> float
        Calibrated segment lengths (m).
    mass, height : float
        Subject mass (kg) and height (m; estimated when not given).
    sex : str
    mode : {"static", "dynamic"}
    source : str
        Calibration trial file.
    notes : list of str
        What was estimated or left out (human-readable).
    parameters : dict
        The marker set's parameters with the subject's measurements (what
        the points' rules used).
    track_offsets : dict of str -> ndarray (3, 3)
        For segments tracked geometrically (``track``), the constant rotation
        from the tracking frame to the anatomical frame, G^T R, in the
        calibration pose.
    """

    markerset: MarkerSet
    names: Mapping[str, str]
    model: BodyModel
    local: Mapping[str, Mapping[str, np.ndarray]]
    frames: Mapping[str, np.ndarray]
    origins: Mapping[str, np.ndarray]
    points: Mapping[str, np.ndarray]
    relative: Mapping[str, np.ndarray]
    static_angles: Mapping[str, np.ndarray]
    lengths: Mapping[str, float]
    mass: float
    height: float
    sex: str
    mode: str
    source: str = ""
    notes: list = field(default_factory=list)
    parameters: Mapping = field(default_factory=dict)
    track_offsets: Mapping = field(default_factory=dict)

    @cached_property
    def marker_pairs(self) -> tuple[tuple[str, str, str, float], ...]:
        """Every two markers of one cluster segment and their distance in the calibration pose.

        Returns
        -------
        tuple of (segment, a, b, distance)
            ``a`` before ``b`` in ``local[segment]``'s order; ``distance`` =
            |local[a] - local[b]| (m).  Computed on first use and kept with
            the calibration (a batch calibrates a static trial once and
            compares these with every trial: :mod:`humanbody.checks.static_fit`).
        """
        pairs = []
        for segment, local in self.local.items():
            names = list(local)
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    pairs.append((segment, a, b, float(np.linalg.norm(np.asarray(local[a]) - np.asarray(local[b])))))
        return tuple(pairs)


# ------------------------------------------------------------------ helpers
def marker_arrays(df, names: Mapping[str, str]) -> dict:
    """Canonical marker name -> ground positions, shape (frames, 3), m.

    Markers whose columns are missing or entirely NaN are left out.

    Parameters
    ----------
    df : pandas.DataFrame
        A marker table with ``<trial name>_x/_y/_z`` columns (m).
    names : Mapping of str to str
        Canonical name -> trial name (:func:`humanbody.markers.markerset.match_markers`).

    Returns
    -------
    dict of str to ndarray, shape (F, 3)
        Canonical name -> positions (m), ground axes.
    """
    out = {}
    for canon, col in names.items():
        cols = [f"{col}_{a}" for a in "xyz"]
        if not all(c in df.columns for c in cols):
            continue
        arr = df[cols].to_numpy(dtype=float)
        if np.isfinite(arr).all(axis=1).any():
            out[canon] = arr
    return out


def _trial_names(df) -> list:
    names = df.attrs.get("markers")
    if names:
        return list(names)
    cols = [c for c in df.columns if c.endswith("_x")]
    return [c[:-2] for c in cols if f"{c[:-2]}_y" in df.columns and f"{c[:-2]}_z" in df.columns]


def estimate_height(markers: Mapping[str, np.ndarray], ms: MarkerSet) -> float | None:
    """Standing height (m) from a static trial, or None if the set cannot tell.

    Height = median over frames of (vertical position of the set's head-top
    point ``parameters.height_top``) - (lowest of its ``height_floor`` foot
    markers), divided by ``height_fraction`` (default 1), plus
    ``height_offset``.  The head marker's radius and the foot
    markers' height above the floor roughly cancel; the offset corrects a
    set whose head-top point is not on the vertex.  A set without head
    markers (or a trial without them) names ``height_landmarks`` instead (point -> fraction of the
    height: the acromia, the hip centres from the ASIS), combined by
    :func:`humanbody.markers.height_landmarks.combine`; its ``height_floor``
    may name points (the ankle centres, at ``height_floor_fraction``).

    Parameters
    ----------
    markers : Mapping of str to ndarray, shape (F, 3)
        Canonical marker name -> ground positions (m).
    ms : MarkerSet
        The marker set (its parameters and height rules).

    Returns
    -------
    float or None
        m.
    """
    return estimate_height_detail(markers, ms)[0]


def estimate_height_detail(markers: Mapping[str, np.ndarray], ms: MarkerSet) -> tuple[float | None, str]:
    """:func:`estimate_height` and what it used (an empty string for a head-top marker).

    Parameters
    ----------
    markers : Mapping of str to ndarray, shape (F, 3)
        Canonical marker name -> ground positions (m).
    ms : MarkerSet
        The marker set (its parameters and height rules).

    Returns
    -------
    height : float or None
        m; None when the set names no floor marker the trial has, or no head-top or landmark point.
    used : str
        The landmarks' line (:func:`humanbody.markers.height_landmarks.describe`), or ``""``.
    """
    geo = Geometry(ms, markers, {})

    def z(name):
        if name in markers:
            return np.asarray(markers[name])[:, 2]
        try:
            return geo.point(name)[:, 2]
        except (MarkerUnavailable, InputError, KeyError):
            return None

    floors = [v for v in (z(m) for m in ms.parameters.get("height_floor", [])) if v is not None]
    if not floors:
        return None, ""
    z_floor = np.fmin.reduce(np.stack(floors), axis=0)  # NaN where no floor marker is seen (no All-NaN warning)
    landmarks = ms.parameters.get("height_landmarks")
    top = ms.parameters.get("height_top")
    z_top = z(top) if top is not None else None
    if landmarks and (z_top is None or not np.isfinite(z_top).any()):  # no head-top point: the landmarks
        below = float(ms.parameters.get("height_floor_fraction", 0.0))
        levels = {name: (zt, float(f)) for name, f in landmarks.items() if (zt := z(name)) is not None}
        height, used = combine(levels, z_floor, below)
        return height, (describe(used, below) if used else "")
    if z_top is None:
        return None, ""
    h = nanmedian(z_top - z_floor) / float(ms.parameters.get("height_fraction", 1.0))
    if not np.isfinite(h):
        return None, ""
    frac = float(ms.parameters.get("height_fraction", 1.0))
    how = f"no head markers: {top} at {frac:g} of the height" if frac != 1.0 else ""
    return float(h + float(ms.parameters.get("height_offset", 0.0))), how


def _median_rotation(R: np.ndarray) -> np.ndarray:
    ok = np.isfinite(R).all(axis=(1, 2))
    if ok.sum() == 1:
        return R[ok][0]
    return Rotation.from_matrix(R[ok]).mean().as_matrix()


# ------------------------------------------------------------------ calibrate
def calibrate(static, markerset=None, mass: float = DEFAULT_MASS, height: float | None = None,
              sex: str = "male", *, mode: str = "static", base_model: BodyModel | None = None,
              required=None, subject=None) -> Calibration:
    """Calibrate a marker set on a subject from a static (standing) trial.

    Parameters
    ----------
    static : pandas.DataFrame
        Marker trial in ground axes (docs/conventions.md marker layout, m);
        ``attrs["source"]`` names the file in errors.
    markerset : None, str, path or MarkerSet
        None detects the built-in set from the marker names.
    mass : float
        Subject mass (kg).
    height : float, optional
        Standing height (m); estimated by :func:`estimate_height` when None.
    sex : {"male", "female"}
        Selects the anthropometric table of the base model.
    mode : {"static", "dynamic"}
        ``static``: median pose over the trial, then geometry of that pose.
        ``dynamic`` (no static trial): geometry in every frame, local
        quantities are medians over frames.
    base_model : BodyModel, optional
        Source of segment masses, mass-centre fractions and inertias; default
        :func:`humanbody.model.body.default_model` (mass, height, sex).
    required : sequence of str, optional
        Markers the trial must have (default: the set's ``required`` list).
    subject : Subject, optional
        Subject measurements (:mod:`humanbody.io.subject`): its measured
        values become marker-set parameters of the same names (a set's
        ``parameters`` may name ``right_knee_width``, ``marker_diameter``,
        ...); the ``plug_in_gait`` set takes its joint centres from them.

    Returns
    -------
    Calibration
        The subject-specific model, each tracking marker's position in its segment's frame (m), the calibration
        pose's frames, points and static angles, and the subject's mass and height.

    Raises
    ------
    InputError
        A required marker is missing, or a point/frame needs a marker the
        trial lacks (the message names the marker and the file).
    """
    source = str(static.attrs.get("source", ""))
    if mode not in ("static", "dynamic"):
        raise ValueError("mode must be 'static' or 'dynamic'")
    ms, names = resolve_markerset(markerset, _trial_names(static), source or None, required=required)
    markers = marker_arrays(static, names)
    notes: list[str] = []
    markers = _pose(ms, markers, len(static), names, mode, ms.required if required is None else required,
                    source, notes)
    if height is None:
        height = _height_from_markers(markers, ms, source, notes)
    params = _subject_parameters(ms, float(height), float(mass), subject, notes)
    _wand_offsets(ms, markers, params, mode, notes)
    geo = Geometry(ms, markers, params, calibrating=(mode == "static"))
    if mode == "static" and ms.parameters.get("static_tibial_torsion"):
        _static_tibial_torsion(geo, ms.parameters["static_tibial_torsion"], notes)
    frames, origins, local = _segment_frames(geo, ms, markers, mode, source)
    _offset_notes(geo, ms, params, notes)
    pts = _calibrated_points(geo, ms)
    base_seq = base_model.sequences if base_model is not None else DEFAULT_SEQUENCES
    xi, relative, angles = _joint_offsets(frames, origins, base_seq)
    lengths, distal_dir = _segment_lengths(geo, ms, frames, origins, notes)
    if base_model is None:
        base_model = default_model(mass=mass, height=height, sex=sex)
    model = _subject_model(base_model, ms, xi, lengths, distal_dir, notes)
    if ms.parameters.get("segment_inertia"):  # Plug-in Gait's legs: Dempster's table as Vicon applies it
        model = apply_segment_inertia(model, segment_inertia_table(ms.parameters["segment_inertia"], ms.name),
                                      lengths, distal_dir, float(params.get("marker_radius", 0.0)), notes)
    model = model.replace(meta=dict(model.meta, calibration=dict(
        source=source, markerset=ms.name, mode=mode, mass=float(mass), height=float(height), sex=sex)))
    model = _with_conventions(model, ms, params)
    track_offsets = _track_offsets(geo, ms, frames, params, source, notes)
    first = lambda a: nanmedian(a, axis=0) if a.ndim == 2 else _median_rotation(a)  # noqa: E731
    return Calibration(
        markerset=ms, names=dict(names), model=model, local=local,
        frames={s: first(v) for s, v in frames.items()},
        origins={s: first(v) for s, v in origins.items()},
        points=pts, relative=relative, static_angles=angles, lengths=lengths,
        mass=float(mass), height=float(height), sex=sex, mode=mode, source=source, notes=notes,
        parameters=params, track_offsets=track_offsets,
    )


def _pose(ms: MarkerSet, markers: dict, n: int, names: Mapping, mode: str, required, source: str,
          notes: list) -> dict:
    """The markers calibration measures: in ``static`` mode with the set's stand-ins and each marker's median
    over frames (1, 3); in ``dynamic`` mode every frame of the ``n``.  A required marker without a sample is an
    InputError."""
    stand_ins = _stand_in_markers(ms, markers, n) if mode == "static" else []
    lost = [m for m in required if m not in markers]
    if lost:
        raise InputError(f"required marker {lost[0]!r} (trial name {names.get(lost[0], lost[0])!r}) "
                         f"has no valid sample", source or None)
    if stand_ins:
        notes.append(f"static trial: {', '.join(stand_ins)}")
    if mode == "static":
        notes.append(Note(f"static pose = per-marker median over {n} frames", INPUT))
        return {k: nanmedian(v, axis=0, keepdims=True) for k, v in markers.items()}
    notes.append(Note(f"no static trial: geometry from {n} motion frames (medians over frames)", INPUT))
    return markers


def _stand_in_markers(ms: MarkerSet, markers: dict, n: int) -> list[str]:
    """Put the set's static stand-ins (``static_markers``: e.g. the KAD's apex for the lateral knee marker) into
    ``markers`` (in place, ``n`` frames of the point) where the point is seen; returns "marker = point" notes."""
    stand_ins: list[str] = []
    if not ms.static_markers:
        return stand_ins
    geo0 = Geometry(ms, markers, dict(ms.parameters))
    for marker, point in ms.static_markers.items():
        try:
            value = geo0.point(point)
        except MarkerUnavailable:
            continue
        if np.isfinite(value).all(axis=-1).any():
            markers[marker] = np.broadcast_to(value, (n, 3)).copy()
            stand_ins.append(f"{marker} = {point}")
    return stand_ins


def _height_from_markers(markers: Mapping[str, np.ndarray], ms: MarkerSet, source: str, notes: list) -> float:
    """The standing height (m) :func:`estimate_height` finds, checked to be a standing body (0.8-2.5 m)."""
    height, how = estimate_height_detail(markers, ms)
    if height is None:
        raise InputError(f"marker set {ms.name!r} cannot estimate the subject's height from these markers; "
                         f"give `height` (the standing height in m)", source or None)
    if not 0.8 <= height <= 2.5:  # the head is not above the feet along ground Z: the axes, not the subject
        raise InputError(f"the head markers are {height:.2f} m above the foot markers along the vertical of the "
                         f"axes mapping: not a standing body, so the axes look wrong (check `axes`; 'auto' "
                         "detects them)", source or None)
    notes.append(f"height estimated from markers: {height:.3f} m" + (f" ({how})" if how else ""))
    return height


def _subject_parameters(ms: MarkerSet, height: float, mass: float, subject, notes: list) -> dict:
    """The set's parameters with the subject's height (m), mass (kg) and measured values (``subject``; the
    marker radius is half its marker diameter)."""
    params = dict(ms.parameters, height=float(height), mass=float(mass))
    wanted = list(ms.parameters.get("subject_required", []))
    if subject is not None:
        subject.require(*wanted, why=f"(marker set {ms.name!r} needs it)")
        params.update({k: v for k, v in subject.measured().items() if k not in ("mass", "height")})
        params["subject_given"] = tuple(sorted(subject.measured()))  # a signed value given as 0 is a value
        if subject.marker_diameter is not None:
            params["marker_radius"] = 0.5 * subject.marker_diameter
    elif wanted:
        notes.append(f"no subject file: {', '.join(w for w in wanted if w in params)} of an average adult "
                     f"(the set's defaults) and leg lengths from the markers; give --subject FILE")
    return params


#: rad: a wand whose rotation offset against the pelvis's left-right axis exceeds this is not a lateral wand
WAND_LIMIT = np.radians(45.0)


def _wand_offsets(ms: MarkerSet, markers: Mapping[str, np.ndarray], params: dict, mode: str, notes: list) -> None:
    """Plug-in Gait's rotation offsets of wands that are not lateral, measured against the pelvis, in place.

    A set whose parameters name ``wand_lateral`` (the right and left ASIS markers) checks each chord rule with
    a rotation offset (``turn``, ``side``) the subject file does not give and no calibration device of the
    static trial measures: the offset the wand reads when the joint's flexion axis is the pelvis's left-right
    axis (:func:`~humanbody.markers.plug_in_gait_rotation.wand_offset_from_pelvis`, median over frames; the
    thigh's first, so the shank's chord finds the knee it gives).  A wand beyond :data:`WAND_LIMIT` is in front
    of (behind) its segment, not to its side, and so are all of them when their median is (a lab that places
    them so: a lateral shank wand reads its tibial torsion, some +20 degrees, one in front -45 to -90); those
    offsets become the measured values (said in ``notes``), the others stay the set's.
    """
    ref = ms.parameters.get("wand_lateral")
    if not ref:
        return
    given = params.get("subject_given", ())
    measured: dict = {}
    before = dict(params)
    for name, rules in ms.points.items():
        for rule in rules:
            key, side = rule.get("turn"), rule.get("side")
            if "chord" not in rule or "width" not in rule or key is None or side is None or key in given:
                continue
            geo = Geometry(ms, markers, params)
            options = rule.get("calibrate_wand", [])
            options = options if isinstance(options, (list, tuple)) else [options]
            if mode == "static" and any(_available(geo, o["point"] if isinstance(o, Mapping) else o)
                                        for o in options):
                continue  # the static trial's device measures it
            try:
                wand, proximal, marker = (geo.point(p) for p in rule["chord"])
                right, left = (geo.point(p) for p in ref)
            except MarkerUnavailable:
                continue
            delta = 0.5 * parameter_value(rule["width"], params, f"point {name!r}") + float(params.get("marker_radius", 0.007))
            turn = float(nanmedian(wand_offset_from_pelvis(wand, proximal, marker, right, left, delta, str(side))))
            if np.isfinite(turn):
                measured[str(key)] = (str(rule["chord"][0]), turn)
                params[str(key)] = turn  # tentatively: the next chord (the shank's) finds the knee it gives
    lab = bool(measured) and abs(float(np.median([t for _, t in measured.values()]))) > WAND_LIMIT
    kept = []
    for key, (wand_name, turn) in measured.items():
        if not (lab or abs(turn) > WAND_LIMIT):
            params[key] = before[key]
            continue
        kept.append(f"{wand_name} {'in front' if turn < 0 else 'behind'} ({key} {np.degrees(turn):.1f} deg)")
    if kept:
        notes.append(f"wands not to the side of their segments as Plug-in Gait's: {', '.join(kept)}, their "
                     "offsets measured against the pelvis's left-right axis; a static trial with a knee alignment "
                     "device or a subject file measures them")


def _available(geo: Geometry, point: str) -> bool:
    try:
        geo.point(point)
    except MarkerUnavailable:
        return False
    return True


def _segment_frames(geo: Geometry, ms: MarkerSet, markers: Mapping[str, np.ndarray], mode: str,
                    source: str) -> tuple[dict, dict, dict]:
    """Every segment's frames R (F, 3, 3) and origins (F, 3), and the cluster markers' positions in the
    segment frame (median over frames, m): ``(frames, origins, local)``.  A missing marker is an InputError
    naming it."""
    frames, origins, local = {}, {}, {}
    try:
        for seg in SEGMENT_NAMES:
            spec = ms.segments[seg]
            frames[seg] = geo.frame(seg)
            assert spec.origin is not None  # checked on load
            origins[seg] = geo.point(spec.origin)
            if spec.rule == "cluster":
                R, O = frames[seg], origins[seg]
                loc = {}
                for m in spec.markers:
                    if m in markers:
                        v = np.einsum("fji,fj->fi", R, markers[m] - O)
                        loc[m] = nanmedian(v, axis=0)
                local[seg] = loc
    except MarkerUnavailable as err:
        what = f"segment {seg!r}" if err.what == "marker" else f"{err.what} (segment {seg!r})"
        if ms.keypoints:  # video keypoints: there is no static trial to take it from
            raise InputError(f"keypoint {err.marker!r}, needed for the axes of {what} of keypoint set "
                             f"{ms.name!r}, has no sample in the trial", source or None) from None
        hint = ("; it is usually in the standing calibration trial: give it with --static"
                if mode == "dynamic" else "")
        raise InputError(f"marker {err.marker!r} needed for {what} of marker set {ms.name!r} "
                         f"is missing{hint}", source or None) from None
    for seg in SEGMENT_NAMES:
        if not np.isfinite(frames[seg]).all(axis=(1, 2)).any() or not np.isfinite(origins[seg]).any():
            raise InputError(f"segment {seg!r} has no frame where its markers are all present", source or None)
    return frames, origins, local


def _offset_notes(geo: Geometry, ms: MarkerSet, params: dict, notes: list) -> None:
    """Log the offsets calibration measured (the calibration device's turns, Plug-in Gait's ankle abduction on
    the medial malleolus marker) or took from the subject file (AnkleAbAdd)."""
    for key, value in geo.turns.items():
        notes.append(f"{key} = {np.degrees(value):.2f} deg from the static trial's calibration device")
    for key, value in geo.abductions.items():
        notes.append(f"{key} = {np.degrees(value):.2f} deg from the static trial's medial malleolus marker "
                     "(Plug-in Gait's AnkleAbAdd)")
    for key in sorted({str(r["abduction"]) for rules in ms.points.values() for r in rules if "abduction" in r}):
        if key not in geo.abductions and key in params.get("subject_given", ()):
            notes.append(f"{key} = {np.degrees(float(params[key])):.2f} deg from the subject file (AnkleAbAdd)")


def _calibrated_points(geo: Geometry, ms: MarkerSet) -> dict:
    """The set's named points (median over frames, m) that the trial's markers give."""
    pts = {}
    for p in ms.points:
        try:
            pts[p] = nanmedian(geo.point(p), axis=0)
        except MarkerUnavailable:
            continue
    return pts


def _joint_offsets(frames: dict, origins: dict, base_seq) -> tuple[np.ndarray, dict, dict]:
    """Each segment's origin in its parent's frame ``xi`` (17, 3; median, m), its median orientation relative
    to the parent (the root's to ground) and those as angles of the base model's sequences."""
    parents = np.asarray(PARENTS)
    xi = np.zeros((17, 3))
    relative, angles = {}, {}
    for k, seg in enumerate(SEGMENT_NAMES):
        L = parents[k]
        if L == 0:
            rel = frames[seg]
        else:
            par = SEGMENT_NAMES[L - 1]
            xi[k] = nanmedian(np.einsum("fji,fj->fi", frames[par], origins[seg] - origins[par]), axis=0)
            rel = np.einsum("fji,fjk->fik", frames[par], frames[seg])
        relative[seg] = _median_rotation(rel)
        angles[seg] = matrix_to_euler(relative[seg], base_seq[k])
    return xi, relative, angles


def _segment_lengths(geo: Geometry, ms: MarkerSet, frames: dict, origins: dict, notes: list) -> tuple[dict, dict]:
    """The segments' lengths (m, median distance between the set's two length points) and the direction to
    their distal point in the segment frame (median, m)."""
    lengths, distal_dir = {}, {}
    for seg in SEGMENT_NAMES:
        spec = ms.segments[seg]
        ends = spec.length or ((spec.origin, spec.distal) if spec.distal else None)
        if not ends:
            continue
        try:
            a, b = geo.point(ends[0]), geo.point(ends[1])
        except MarkerUnavailable:
            notes.append(Note(f"length of {seg} not calibrated (missing {ends})", LENGTHS))
            continue
        lengths[seg] = float(nanmedian(np.linalg.norm(b - a, axis=-1)))
        if spec.distal:
            d = np.einsum("fji,fj->fi", frames[seg], geo.point(spec.distal) - origins[seg])
            distal_dir[seg] = nanmedian(d, axis=0)
    return lengths, distal_dir


def _with_conventions(model: BodyModel, ms: MarkerSet, params: dict) -> BodyModel:
    """The model with the set's conventions (:class:`humanbody.model.conventions.Conventions`): joint sequences,
    progression-relative segments, progression and moment frames, rates and loads (Plug-in Gait's: one lab axis;
    moments in the distal frame; rates by central differences, the feet's over 2 frames each side; loads averaged
    over each frame), reference twists (Plug-in Gait's ankle: the shank turned by the tibial torsion about z)."""
    own = {key: str(ms.parameters[key]) for key in ("progression_frame", "moment_frame", "rates", "load_resampling",
                                                    "foot_rate_frames") if ms.parameters.get(key)}
    twists = ms.parameters.get("clinical_reference_twists") or {}
    return model.replace(conventions=model.conventions.replace(
        clinical_sequences=dict(ms.parameters.get("clinical_sequences") or model.conventions.clinical_sequences),
        clinical_progression=ms.parameters.get("clinical_progression") or model.conventions.clinical_progression,
        clinical_reference_twists={
            f"{side}_{kind}": parameter_value(name[side] if isinstance(name, Mapping) else f"{side}_{name}", params,
                                              f"clinical_reference_twists.{kind}")
            for kind, name in twists.items() for side in ("right", "left")} or model.conventions.clinical_reference_twists,
        **own))


def _track_offsets(geo: Geometry, ms: MarkerSet, frames: dict, params: dict, source: str, notes: list) -> dict:
    """The rotation from each tracked cluster segment's marker frame to its anatomical frame (3, 3); the head
    and feet take theirs from the subject file where the set says so (``frames`` updated in place)."""
    track_offsets = {}
    for seg in SEGMENT_NAMES:
        spec = ms.segments[seg]
        if spec.rule != "cluster" or spec.track is None:
            continue
        try:
            G = tracking_frame(geo, seg)
        except MarkerUnavailable as err:
            raise InputError(f"marker {err.marker!r} needed to track segment {seg!r} of marker set "
                             f"{ms.name!r} is missing", source or None) from None
        track_offsets[seg] = _median_rotation(np.einsum("fji,fjk->fik", G, frames[seg]))
        if seg == "head" and ms.parameters.get("head_offset_from_subject") and params.get("head_offset") is not None:
            track_offsets[seg], frames[seg] = _subject_head_offset(G, float(params["head_offset"]),
                                                                   track_offsets[seg], notes)
        side = seg.removesuffix("_foot")
        if (seg.endswith("_foot") and ms.parameters.get("foot_offsets_from_subject")
                and params.get(f"{side}_static_plantar_flexion") is not None
                and params.get(f"{side}_static_rotation_offset") is not None):
            O = foot_offset_rotation(float(params[f"{side}_static_plantar_flexion"]),
                                     float(params[f"{side}_static_rotation_offset"]), side)
            notes.append(f"{side} foot offsets from the subject file (StaticPlantFlex "
                         f"{np.degrees(params[f'{side}_static_plantar_flexion']):.1f} deg, StaticRotOff "
                         f"{np.degrees(params[f'{side}_static_rotation_offset']):.1f} deg), not the static trial's")
            track_offsets[seg], frames[seg] = O, np.einsum("fij,jk->fik", G, O)
    return track_offsets


def _static_tibial_torsion(geo: Geometry, rules: Mapping, notes: list) -> None:
    """Plug-in Gait's tibial torsion measured in a static trial with medial malleolus markers.

    ``rules``: per side ``{parameter, medial, unless, thigh, knee, ankle, marker}`` (the set's
    ``static_tibial_torsion``).  When the subject file does not give the parameter (one given as 0 is a value
    and wins) and the set's is 0, the trial
    has the ``medial`` marker and not the ``unless`` one (a knee alignment device, whose ankle plane needs
    the torsion), it becomes :func:`~humanbody.markers.plug_in_gait_rotation.tibial_torsion` of the thigh's
    y axis, the knee and ankle centres and the lateral marker (median over the frames), and the log says so.
    """
    for side, rule in rules.items():
        key = str(rule["parameter"])
        if (key in geo.params.get("subject_given", ()) or geo.params.get(key) or str(rule["medial"]) not in geo.markers
                or str(rule.get("unless", "")) in geo.markers):
            continue
        try:
            k = geo.frame(str(rule["thigh"]))[..., :, 1]
            value = float(nanmedian(tibial_torsion(k, geo.point(str(rule["knee"])), geo.point(str(rule["ankle"])),
                                                   geo.point(str(rule["marker"])), str(side))))
        except MarkerUnavailable:
            continue
        if np.isfinite(value):
            geo.params[key] = value
            notes.append(f"{key} = {np.degrees(value):.2f} deg from the static trial's medial malleolus marker "
                         f"({side}; Plug-in Gait's TibialTorsion)")


def _subject_head_offset(G: np.ndarray, offset: float, static_offset: np.ndarray, notes: list):
    """Plug-in Gait's head offset from the subject file: the head frame is the markers' frame G turned about
    its y axis, R = G Ry(offset) (pyCGM's ``headJC``; Nexus's ``HeadOffset``), instead of the static
    trial's levelled head.  Returns the tracking offset Ry(offset) and the static frames G Ry(offset)."""
    Ry = euler_to_matrix(np.array([0.0, offset, 0.0]), "xyz")
    level = float(np.degrees(np.arctan2(static_offset[0, 2], static_offset[0, 0])))
    notes.append(f"head offset {np.degrees(offset):.1f} deg from the subject file (HeadOffset; the static trial's "
                 f"level head would give {level:.1f} deg)")
    return Ry, np.einsum("fij,jk->fik", G, Ry)


def _subject_model(base: BodyModel, ms: MarkerSet, xi, lengths, distal_dir, notes) -> BodyModel:
    """Base anthropometry with calibrated joint offsets, lengths, com and inertia.

    For a segment with a calibrated length L_c and a base length L_b (the
    base model's ``segment_meta["length"]`` or its distal joint offset),
    the mass centre keeps its fraction of the proximal-to-distal joint
    vector and inertia scales with (L_c / L_b)^2 (mass fixed: radii of
    gyration are proportional to segment length).
    """
    if tuple(base.names) != SEGMENT_NAMES:
        raise InputError("base model must be the 17-segment model (docs/conventions.md)")
    com = np.array(base.com_offset, dtype=float)
    inertia = np.array(base.inertia, dtype=float)
    seg_meta = [dict(m) for m in base.segment_meta]
    for k, seg in enumerate(SEGMENT_NAMES):
        if seg not in lengths:
            continue
        spec = ms.segments[seg]
        child = [j for j, s in enumerate(SEGMENT_NAMES) if PARENTS[j] == k + 1
                 and ms.segments[s].origin == spec.distal] if spec.distal else []
        base_dir = base.joint_offset[child[0]] if child else None
        base_len = seg_meta[k].get("length")
        if base_len is None and base_dir is not None:
            base_len = float(np.linalg.norm(base_dir))
        seg_meta[k]["length"] = lengths[seg]
        seg_meta[k]["calibrated"] = True
        if not base_len:
            notes.append(f"{seg}: base model has no length; inertia not rescaled")
            continue
        ratio = lengths[seg] / float(base_len)
        inertia[k] *= ratio**2
        if seg in distal_dir and base_dir is not None and np.linalg.norm(base_dir) > 0:
            u = base_dir / np.linalg.norm(base_dir)
            along = float(com[k] @ u)
            perp = com[k] - along * u
            com[k] = along / float(base_len) * distal_dir[seg] + perp * ratio
        else:
            com[k] *= ratio
    return base.replace(joint_offset=xi, com_offset=com, inertia=inertia, segment_meta=seg_meta)

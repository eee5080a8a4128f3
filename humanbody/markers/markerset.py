"""Marker sets: which markers a lab uses and how they define the 17 segments.

A marker set is a TOML file (layout in ``docs/markersets.md``) so that a lab
can describe its markers without writing code.  It names

* ``required``: markers that must be present in the motion trial;
* ``aliases``: other spellings of a marker name (matching also ignores case,
  punctuation and a ``Subject:`` prefix);
* ``points``: named points built from markers and other points (joint
  centres by midpoint, published regression or offset rules, with
  alternatives tried in order);
* ``segments``: per segment of the 17 its tracking cluster, the origin
  (proximal joint centre) and how its anatomical axes are built, or a rule
  (``slerp`` between two segments, ``rigid`` attachment) for segments with
  too few markers.

Built-in sets live in ``humanbody/data/markersets/*.toml``.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..model.segments import PARENTS, SEGMENT_NAMES

__all__ = [
    "MarkerSet",
    "SegmentSpec",
    "builtin_markersets",
    "load_markerset",
    "detect_markerset",
    "match_markers",
    "resolve_markerset",
    "undetermined_segments",
]

_DATA = Path(__file__).resolve().parents[1] / "data" / "markersets"
_AXES = ("x", "y", "z")
_RULES = ("cluster", "slerp", "rigid")


@lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """Matching key of a marker name: no ``Subject:`` prefix, case, punctuation.

    Parameters
    ----------
    name : str
        A marker name as a file gives it.

    Returns
    -------
    str
        Lower-case letters and digits only.
    """
    return re.sub(r"[^0-9a-z]", "", str(name).rsplit(":", 1)[-1].lower())


@dataclass(frozen=True)
class SegmentSpec:
    """How one segment's pose is found (one ``[segments.<name>]`` table).

    Attributes
    ----------
    name : str
        Segment name (docs/conventions.md).
    rule : {"cluster", "slerp", "rigid"}
        ``cluster``: least-squares fit of its markers; ``slerp``: orientation
        interpolated between ``between`` segments at ``fraction``; ``rigid``:
        orientation follows segment ``to`` with the static relative pose.
    markers : tuple of str
        Tracking cluster (canonical marker names).
    use_joint : bool
        Add the proximal joint centre, carried by the tracked parent, to the
        cluster as a virtual marker.
    child_joints : tuple of str
        Child segments whose distal-side joint centres (their origins O_c, as
        each child's own cluster sees them) join this cluster as virtual
        markers at their model offsets xi_c: the segment and its children
        then share those joint centres in the least-squares sense, as in a
        joint-constrained global fit (Lu and O'Connor 1999).
    origin : str
        Point that is the segment origin O_k (proximal joint centre).
    primary, secondary : dict
        Axis rules ``{"axis": "z", "from": P, "to": Q}`` (or ``"ground":
        [x, y, z]`` or ``"like": "segment:axis"``); the primary axis is
        exact, the secondary fixes the plane, the third is their cross product.
    distal : str or None
        Distal joint point (segment length and mass-centre scaling).
    length : tuple of str or None
        Two points whose distance is the segment length (default origin,distal).
    fallback : {"parent", "nan"}
        What a frame with fewer than three usable cluster points gets.
    twist : str, float or None
        A rotation (rad, or the name of a parameter such as
        ``"-right_tibial_torsion"``, optionally negated) of the frame about its own z axis after
        the axis rules, ``R <- R Rz(twist)`` (Plug-in Gait's tibial torsion).
    track : None, "rules" or dict
        Geometric tracking, frame by frame, as Plug-in Gait does instead of
        a least-squares cluster fit: ``"rules"`` builds the segment's frame
        in every motion frame by its own rules (points and axes from that
        frame's markers), a table ``{primary = ..., secondary = ...}`` by
        other axis rules (Plug-in Gait's uncorrected foot); the constant
        rotation from that frame to the anatomical one in the calibration
        trial is kept (the static offsets).  Frames where a marker is
        missing keep the cluster fit.
    """

    name: str
    rule: str = "cluster"
    markers: tuple = ()
    use_joint: bool = False
    child_joints: tuple = ()
    origin: str | None = None
    primary: Mapping[str, Any] | None = None
    secondary: Mapping[str, Any] | None = None
    between: tuple = ()
    fraction: float = 0.5
    to: str | None = None
    distal: str | None = None
    length: tuple | None = None
    fallback: str = "parent"
    twist: object = None
    track: str | Mapping[str, Any] | None = None


@dataclass(frozen=True)
class MarkerSet:
    """A parsed marker-set file.

    Attributes
    ----------
    name, description : str
    required : tuple of str
        Markers the motion trial must contain (canonical names).
    aliases : dict of str -> tuple of str
        Other spellings of each canonical marker name.
    points : dict of str -> tuple of dict
        Point definitions; each is a tuple of alternative rules tried in order.
    segments : dict of str -> SegmentSpec
        One entry per segment of the 17-segment model.
    parameters : dict
        Set-wide constants (marker radius in m, ...).
    source : str
        File the set was read from.
    weights : dict of str -> float
        ``[weights]``: a marker's weight in whole-body inverse kinematics
        (default 1; :mod:`humanbody.markers.global_ik`).
    ik : dict
        ``[ik]``: whole-body inverse kinematics settings (``neutral_weight``,
        ``hinge``, ``hinge_weight``; docs/tracking.md).
    keypoints : bool
        ``keypoints = true``: a video keypoint set (joint centres and a few
        landmarks): clusters may have fewer than three points, ``--static``
        is optional and ``--ik auto`` fits the whole body.
    static_markers : dict of str -> str
        ``[static_markers]``: marker -> point that stands in for it in a
        static calibration trial where the point can be built (Plug-in
        Gait: the knee alignment device's apex for the lateral knee marker).
    """

    name: str
    description: str
    required: tuple
    aliases: Mapping[str, tuple]
    points: Mapping[str, tuple]
    segments: Mapping[str, SegmentSpec]
    parameters: Mapping[str, Any] = field(default_factory=dict)
    source: str = ""
    weights: Mapping[str, float] = field(default_factory=dict)
    ik: Mapping[str, Any] = field(default_factory=dict)
    keypoints: bool = False
    static_markers: Mapping[str, str] = field(default_factory=dict)
    #: :func:`match_markers`' maps by the trial's names (a batch's trials match the same names again and again)
    _matches: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def markers(self) -> tuple:
        """Every canonical marker name the set mentions (clusters, points, required)."""
        names = list(self.required)
        for spec in self.segments.values():
            names += [m for m in spec.markers]
        for rules in self.points.values():
            for rule in rules:
                names += _rule_names(rule)
        names += list(self.aliases)
        seen = []
        for n in names:
            if n not in seen and n not in self.points and n not in ("ground",):
                seen.append(n)
        return tuple(seen)


def _rule_names(rule: Mapping) -> list:
    out = []
    for key in ("mean", "between", "asis", "sacrum", "scale", "chord", "kad", "calibrate_wand", "calibrate_abduction",
                "flat", "cross"):
        v = rule.get(key)
        if v is not None:
            for item in (v if isinstance(v, (list, tuple)) else [v]):
                out.append(item["point"] if isinstance(item, Mapping) else item)
    if "from" in rule:
        out.append(rule["from"])
    for chain in rule.get("leg_length", []) or []:
        out += list(chain)
    return out


def builtin_markersets() -> dict[str, Path]:
    """Names and files of the built-in marker sets (``humanbody/data/markersets``).

    Returns
    -------
    dict of str to pathlib.Path
        Set name -> TOML file, sorted by name; empty when the folder is missing.
    """
    if not _DATA.is_dir():
        return {}
    return {p.stem: p for p in sorted(_DATA.glob("*.toml"))}


def load_markerset(spec) -> MarkerSet:
    """Read a marker set by built-in name or from a TOML file.

    Parameters
    ----------
    spec : str or os.PathLike or MarkerSet
        A built-in name (``"gait2392"``, ``"plugin_gait"``), a path to a TOML
        file, or an already loaded set (returned unchanged).

    Returns
    -------
    MarkerSet
        The marker set (its segments, points and rules).

    Raises
    ------
    InputError
        Unknown name, unreadable file or a malformed definition (the message
        names the file).
    """
    if isinstance(spec, MarkerSet):
        return spec
    builtin = builtin_markersets()
    key = os.fspath(spec)
    if key in builtin:
        path = builtin[key]
    elif key.lower() in builtin:
        path = builtin[key.lower()]
    elif os.path.isfile(key):
        path = Path(key)
    elif os.path.isdir(key):
        raise InputError("is a folder, not a marker set file (.toml)", key)
    elif key.lower().endswith(".toml") or os.sep in key or "/" in key:
        raise InputError(f"marker set file {key!r} not found; give an existing .toml file (or draft one with "
                         "`humanbody markerset init STATIC --out FILE`)")
    else:
        known = ", ".join(builtin) or "none"
        raise InputError(f"unknown marker set {key!r} (built-in sets: {known}; or give a .toml file)")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as err:
        raise InputError(f"cannot read marker set ({err.strerror or err})", path) from None
    except UnicodeDecodeError:
        raise InputError("marker set is not a TOML text file (not UTF-8 text)", path) from None
    return _parsed(text, str(path))


@lru_cache(maxsize=32)
def _parsed(text: str, path: str) -> MarkerSet:
    """The marker set of a file's text, parsed once per process (a batch reads it for every trial).

    Keyed by the text itself, so an edited file is parsed again; the set is
    a frozen dataclass that nothing modifies, so trials can share it.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"marker set is not valid TOML ({err})", path) from None
    try:
        return markerset_from_mapping(data, path)
    except InputError as err:
        raise err.with_path(path) from None
    except (TypeError, ValueError, KeyError, AttributeError) as err:
        raise InputError(f"malformed marker set: {err}", path) from None


def markerset_from_mapping(data: Mapping, source: str) -> MarkerSet:
    """A marker set from its parsed TOML tables, checked.

    Parameters
    ----------
    data : Mapping
        The TOML document (``name``, ``segments``, ``points``, ``parameters``, ...).
    source : str
        The file it came from (the set's default name and the messages').

    Returns
    -------
    MarkerSet
        The marker set (its segments, points and rules).

    Raises
    ------
    InputError
        A missing or unknown segment, a point without a rule, or another malformed table.
    """
    name = str(data.get("name", Path(source).stem))
    segs_in = data.get("segments")
    if not isinstance(segs_in, Mapping):
        raise InputError("marker set has no [segments] tables")
    unknown = [s for s in segs_in if s not in SEGMENT_NAMES]
    if unknown:
        raise InputError(f"marker set names unknown segment {unknown[0]!r}")
    missing = [s for s in SEGMENT_NAMES if s not in segs_in]
    if missing:
        raise InputError(f"marker set does not describe segment {missing[0]!r}")
    points = {}
    for pname, pdef in (data.get("points") or {}).items():
        rules = pdef.get("rules") if isinstance(pdef, Mapping) and "rules" in pdef else [pdef]
        if not rules or not all(isinstance(r, Mapping) for r in rules):
            raise InputError(f"point {pname!r} needs a rule table")
        for r in rules:
            if not any(k in r for k in ("mean", "between", "regression", "from", "chord", "kad", "flat", "cross")):
                raise InputError(f"point {pname!r} has no rule (mean, between, regression, chord, kad, flat, cross "
                                 "or from)")
        points[str(pname)] = tuple(dict(r) for r in rules)
    keypoints = bool(data.get("keypoints", False))
    weights = {}
    for mname, w in (data.get("weights") or {}).items():
        if isinstance(w, bool) or not isinstance(w, (int, float)) or not 0 <= w < math.inf:
            raise InputError(f"weight of marker {mname!r} must be a finite number >= 0, not {w!r}")
        weights[str(mname)] = float(w)
    ik = dict(data.get("ik") or {})
    for seg in ik.get("hinge", []):
        if seg not in SEGMENT_NAMES:
            raise InputError(f"[ik] hinge names unknown segment {seg!r}")
    hinge_weight = ik.get("hinge_weight", 0.0)
    if isinstance(hinge_weight, bool) or not isinstance(hinge_weight, (int, float)) or not 0 <= hinge_weight < math.inf:
        raise InputError(f"[ik] hinge_weight must be a finite number >= 0, not {hinge_weight!r}")
    segments = {}
    for sname in SEGMENT_NAMES:
        s = dict(segs_in[sname])
        rule = str(s.get("rule", "cluster"))
        if rule not in _RULES:
            raise InputError(f"segment {sname!r} has unknown rule {rule!r} (use {', '.join(_RULES)})")
        spec = SegmentSpec(
            name=sname,
            rule=rule,
            markers=tuple(s.get("markers", ())),
            use_joint=bool(s.get("use_joint", False)),
            child_joints=tuple(s.get("child_joints", ())),
            origin=s.get("origin"),
            primary=s.get("primary"),
            secondary=s.get("secondary"),
            between=tuple(s.get("between", ())),
            fraction=float(s.get("fraction", 0.5)),
            to=s.get("to"),
            distal=s.get("distal"),
            length=tuple(s["length"]) if "length" in s else None,
            fallback=str(s.get("fallback", "parent")),
            twist=s.get("twist"),
            track=s.get("track"),
        )
        _check_segment(spec, points, keypoints)
        segments[sname] = spec
    aliases = {str(k): tuple(v) for k, v in (data.get("aliases") or {}).items()}
    return MarkerSet(
        name=name,
        description=str(data.get("description", "")),
        required=tuple(data.get("required", ())),
        aliases=aliases,
        points=points,
        segments=segments,
        parameters=dict(data.get("parameters") or {}),
        source=source,
        weights=weights,
        ik=ik,
        keypoints=keypoints,
        static_markers={str(k): str(v) for k, v in (data.get("static_markers") or {}).items()},
    )


def _check_segment(spec: SegmentSpec, points: Mapping, keypoints: bool = False) -> None:
    n = spec.name
    if spec.origin is None:
        raise InputError(f"segment {n!r} needs an 'origin' point")
    if spec.fallback not in ("parent", "nan"):
        raise InputError(f"segment {n!r}: fallback must be 'parent' or 'nan'")
    if spec.rule == "cluster":
        for key in ("primary", "secondary"):
            ax = getattr(spec, key)
            if not isinstance(ax, Mapping) or ax.get("axis") not in _AXES:
                raise InputError(f"segment {n!r} needs a {key} axis table with axis = x, y or z")
            if not ("from" in ax and "to" in ax or "ground" in ax or "like" in ax):
                raise InputError(f"segment {n!r}: {key} axis needs from/to, ground or like")
        assert spec.primary is not None and spec.secondary is not None  # checked as tables just above
        if spec.primary["axis"] == spec.secondary["axis"]:
            raise InputError(f"segment {n!r}: primary and secondary axes must differ")
        t = spec.track
        if t is not None and t != "rules":
            if not (isinstance(t, Mapping) and all(isinstance(t.get(key), Mapping)
                                                   and t[key].get("axis") in _AXES for key in ("primary", "secondary"))):
                raise InputError(f"segment {n!r}: track must be \"rules\" or a table with primary and secondary axes")
        if len(spec.markers) + spec.use_joint < 3 and not keypoints:
            raise InputError(f"segment {n!r}: a cluster needs at least three points")
        k = SEGMENT_NAMES.index(n)
        for c in spec.child_joints:
            if c not in SEGMENT_NAMES or PARENTS[SEGMENT_NAMES.index(c)] != k + 1:
                raise InputError(f"segment {n!r}: child_joints names {c!r}, which is not a child of {n!r}")
    elif spec.rule == "slerp":
        if len(spec.between) != 2 or any(b not in SEGMENT_NAMES for b in spec.between):
            raise InputError(f"segment {n!r}: slerp needs 'between' = two segment names")
    elif spec.rule == "rigid" and spec.to not in SEGMENT_NAMES:
        raise InputError(f"segment {n!r}: rigid needs 'to' = a segment name")


def _stand_in(ms: MarkerSet, marker: str, found: Mapping) -> bool:
    """Whether a static trial has the markers of the point that stands in for ``marker`` (``static_markers``)."""
    point = ms.static_markers.get(marker)
    if point is None or point not in ms.points:
        return False
    return any(all(n in found for n in _rule_names(rule)) for rule in ms.points[point])


# --------------------------------------------------------------- name matching
def match_markers(markerset: MarkerSet, names) -> dict[str, str]:
    """Map the set's canonical marker names to the names found in a trial.

    A canonical name matches a trial name when either, or one of its
    ``aliases``, is equal after dropping a ``Subject:`` prefix, case and
    every character other than letters and digits (``R.ASIS`` = ``R_ASIS``
    = ``rasis``).  Computed once per set and names, kept with the set (a new
    dict each call).

    Parameters
    ----------
    markerset : MarkerSet
        The marker set (its segments, points and rules).
    names : iterable of str
        The trial's marker names.

    Returns
    -------
    dict
        canonical name -> trial name, for the markers found.
    """
    names = list(names)
    cache = markerset._matches
    try:
        hit = cache.get(key := tuple(names))
    except TypeError:  # unhashable names: matched afresh
        return _match_markers(markerset, names)
    if hit is None:
        if len(cache) >= 64:
            cache.clear()
        hit = cache[key] = _match_markers(markerset, names)
    return dict(hit)


def _match_markers(markerset: MarkerSet, names: list) -> dict[str, str]:
    by_key: dict[str, str] = {}
    for n in names:
        by_key.setdefault(name_key(n), n)
    head, tail = shared_affixes(names)
    if head or tail:  # "Pat01_RASI", "RASI_1": the lab's prefix or suffix on every name
        for n in names:
            bare = str(n).rsplit(":", 1)[-1]
            by_key.setdefault(name_key(bare[len(head):len(bare) - len(tail)]), n)
    out = {}
    for canon in markerset.markers:
        for cand in (canon,) + tuple(markerset.aliases.get(canon, ())):
            hit = by_key.get(name_key(cand))
            if hit is not None:
                out[canon] = hit
                break
    return out


#: Characters that end a lab's prefix or start its suffix on marker names ("Pat01_", "-1").
_SEPARATORS = "_-. "


def shared_affixes(names) -> tuple[str, str]:
    """A prefix and a suffix that every marker name carries after its ``Subject:`` prefix, cut at a separator
    (``"Pat01_RASI"``, ``"Pat01_LASI"`` -> ``("Pat01_", "")``; ``"RASI_1"``, ``"LASI_1"`` -> ``("", "_1")``);
    empty strings when the names share none (fewer than two names share nothing).

    Parameters
    ----------
    names : sequence of str
        The trial's marker names.

    Returns
    -------
    prefix, suffix : str
        The shared prefix and suffix ("" when none).
    """
    bare = [str(n).rsplit(":", 1)[-1] for n in names]
    if len(bare) < 2:
        return "", ""
    head = os.path.commonprefix(bare)
    cut = max(head.rfind(c) for c in _SEPARATORS)
    head = head[:cut + 1] if cut >= 0 else ""
    tail = os.path.commonprefix([b[::-1] for b in bare])[::-1]
    cut = max(tail[::-1].rfind(c) for c in _SEPARATORS)
    tail = tail[len(tail) - cut - 1:] if cut >= 0 else ""
    if any(len(b) <= len(head) + len(tail) for b in bare):
        return "", ""
    return head, tail


def detect_markerset(names, source: str | None = None) -> MarkerSet:
    """The built-in set covering most of its required markers in ``names``.

    Ties go to the set that matches more of the trial's names.  A required marker
    the set's ``missing_markers_note`` names (it says what it uses instead:
    Plug-in Gait's heels) does not count as missing.  A set with
    required markers missing is still chosen when the markers present
    determine every tracked segment through its joints
    (:func:`undetermined_segments`).

    Parameters
    ----------
    names : iterable of str
        The trial's marker names.
    source : str, optional
        The trial's file, for the message.

    Returns
    -------
    MarkerSet
        The chosen built-in set.

    Raises
    ------
    InputError
        When no built-in set has all its required markers; the message
        names the best set and its first missing marker.
    """
    best = None
    for key in builtin_markersets():
        ms = load_markerset(key)
        found = match_markers(ms, names)
        spared = ms.parameters.get("missing_markers_note") or {}  # markers the set says it can do without
        missing = [m for m in ms.required if m not in found and not _stand_in(ms, m, found) and m not in spared]
        score = 1.0 - len(missing) / max(len(ms.required), 1)
        # ties go to the set with fewer segments none of whose markers is here (a Plug-in Gait walk without arm
        # markers: the lower-body set), then to the one that uses more of the names (a HALPE_26 trial has every
        # BODY_25B keypoint too)
        bare = -sum(1 for spec in ms.segments.values() if spec.markers and not any(m in found for m in spec.markers))
        if best is None or (score, bare, len(found)) > (best[0], best[3], best[4]):
            best = (score, ms, missing, bare, len(found))
    if best is None:
        raise InputError("no built-in marker sets are installed", source)
    score, ms, missing, _, _ = best
    lost = undetermined_segments(ms, match_markers(ms, names)) if missing else []
    if lost:
        raise InputError(
            f"markers match no built-in marker set; closest is {ms.name!r} "
            f"({score:.0%} of its required markers) but {missing[0]!r} is missing and segment "
            f"{lost[0][0]!r} keeps {lost[0][1]} point(s); draft a set for these "
            f"markers with: humanbody markerset init STATIC --out FILE",
            source,
        )
    return ms


def resolve_markerset(spec, names, source: str | None = None, required=None) -> tuple[MarkerSet, dict]:
    """Load (or detect) a marker set and check a trial has its required markers.

    Parameters
    ----------
    spec : None, str, path or MarkerSet
        None detects the set from ``names``.
    names : sequence of str
        Marker names of the trial.
    source : str, optional
        The trial file, named in errors.
    required : sequence of str, optional
        Markers the trial must have (default: the set's ``required`` list).

    Returns
    -------
    (MarkerSet, dict)
        The set and the canonical -> trial name map of :func:`match_markers`.
    """
    ms = detect_markerset(names, source) if spec is None else load_markerset(spec)
    found = match_markers(ms, names)
    missing = [m for m in (ms.required if required is None else required)
               if m not in found and not _stand_in(ms, m, found)]
    if missing:
        raise InputError(
            f"required marker {missing[0]!r} of marker set {ms.name!r} is missing", source
        )
    return ms, found


def _track_markers(ms: MarkerSet, track: Mapping) -> set:
    """The markers a segment's ``track`` axis rules name (``from``/``to`` entries that are markers, not points)."""
    names = set()
    for axis in (track.get("primary") or {}, track.get("secondary") or {}):
        for key in ("from", "to"):
            value = axis.get(key) if isinstance(axis, Mapping) else None
            if isinstance(value, str) and value in ms.markers:
                names.add(value)
    return names


def undetermined_segments(ms: MarkerSet, present) -> list[tuple[str, int]]:
    """Tracked segments that the markers ``present`` no longer determine through their joints.

    A tracked segment (a ``cluster`` segment with a required marker, or any
    cluster of a keypoint set) is determined when its present markers plus
    the joints that tie it to determined neighbours give three points: its
    proximal joint (held by the parent) and the joint of every child whose
    own cluster keeps a marker.  A keypoint set needs two (the axial
    rotation about the line between two joint centres is then held by the
    neighbours' and the neutral pull of whole-body inverse kinematics,
    docs/tracking.md).

    Parameters
    ----------
    ms : MarkerSet
        The marker set (its segments, points and rules).
    present : collection of str
        Canonical names of the markers the trial has.

    Returns
    -------
    list of (segment, points)
        Segments with too few points and the number of points they keep.
    """
    present = set(present)
    need = 2 if ms.keypoints else 3
    required = set(ms.required)
    out = []
    for k, seg in enumerate(SEGMENT_NAMES):
        spec = ms.segments[seg]
        if spec.rule != "cluster" or not (ms.keypoints or required.intersection(spec.markers)):
            continue
        if isinstance(spec.track, Mapping) and _track_markers(ms, spec.track) <= present:
            continue  # tracked by its own axis rules (Plug-in Gait's foot: ankle centre -> toe), whose markers are here
        own = sum(1 for m in spec.markers if m in present)
        joints = 1 if PARENTS[k] else 0
        for c, child in enumerate(SEGMENT_NAMES):
            cspec = ms.segments[child]
            if PARENTS[c] == k + 1 and cspec.rule == "cluster" and any(m in present for m in cspec.markers):
                joints += 1
        if own == 0 or own + joints < need:
            out.append((seg, own + joints))
    return out

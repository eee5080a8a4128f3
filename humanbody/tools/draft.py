"""Draft a marker-set file from a lab's standing (static) trial.

:func:`draft_markerset` reads every marker name with the vocabulary of
:mod:`humanbody.lab.vocabulary`, checks each reading against where the
marker is in the standing pose, and hands the checked markers to
:mod:`humanbody.tools.draft_rules`, which picks joint-centre and frame
rules from what is present and writes the TOML text (layout in
``docs/markersets.md``).  The checks, in ground axes (x forward, y left,
z up; docs/conventions.md):

* side: a marker more than :data:`SIDE_M` to the left or right of the body
  midline (the mean lateral position of the pelvis markers) is on that side,
  whatever its name says; a side in the name that the position contradicts
  is corrected and reported;
* height: the marker's height above the lowest marker, as a fraction of
  standing height, must lie in the band of its landmark (a knee marker
  between ankle and hip height, an elbow between wrist and shoulder height);
  a marker whose name points at a body part it is not near is left out and
  reported; "epicondyle" is a knee or an elbow by its height;
* lateral/medial: of two knee or ankle markers on one side, the one
  farther from the midline is the lateral one; a lone one is taken as
  lateral (Plug-in Gait's convention) and reported;
* neighbourhood: a marker whose name the vocabulary does not know is put on
  the segment of its nearest named marker (joint markers such as knee or
  ankle markers, which sit between two segments, excepted) when that is
  within :data:`NEIGHBOUR_M` (a tracking marker only, never a joint
  landmark) and reported; unlabeled trajectories (``*152``) are left out.

The drafted set is then loaded with :func:`~humanbody.markers.markerset.load_markerset`
rules and calibrated on the same static trial, so a draft that is returned
is one the pipeline can use.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..lab.vocabulary import read_name, vocabulary
from ..markers.calibration import calibrate
from ..markers.markerset import markerset_from_mapping
from ..markers.plausibility import check_lengths
from ..model.anthropometry import HEIGHT_RANGE
from ..signal.nan import nanmedian

if TYPE_CHECKING:
    from ..markers.markerset import MarkerSet

__all__ = ["MarkerGuess", "Draft", "draft_markerset", "SIDE_M", "NEIGHBOUR_M"]

#: Lateral distance from the midline (m) beyond which a marker is on a side.
SIDE_M = 0.03
#: Largest distance (m) to the nearest named marker for a position-only guess.
NEIGHBOUR_M = 0.15
#: Least lateral-medial distance (m) between the two markers of a knee or ankle pair (joint widths: 6-11 cm).
PAIR_MIN_M = 0.04
#: Extra room (fraction of height) allowed outside a landmark's height band.
BAND_MARGIN = 0.03
#: Median marker excursion (m) above which a trial is not a standing trial.
STATIC_EXCURSION_M = 0.15
#: Height fractions of anchor landmarks for a first height estimate
#: (head, acromion, ASIS; Winter 2009 Fig. 4.1).
_ANCHORS = (("head", 0.95), ("acromion", 0.818), ("asis", 0.55))
_UNLABELED = re.compile(r"^\*|^(unlabel+ed|unnamed|unknown|marker|traj|c3d|m)[_ ]?\d*$", re.I)
_BASE = {"lower_torso", "upper_torso", "head"}  # segments with no side
#: Landmarks at a joint, between two segments: no guide for a neighbour's segment.
_JOINT_MARKS = ("knee", "ankle", "elbow", "wrist", "acromion", "trochanter")


@dataclass
class MarkerGuess:
    """How one marker of the static trial was read.

    Attributes
    ----------
    name : str
        Name in the trial.
    role : str or None
        Landmark role (vocabulary key; ``None``: not used).
    side : {"right", "left", None}
    segment : str or None
        Segment of the 17 it is taken to ride on (None: unused).
    modifiers : set of str
        lateral, medial, front, back, top, ... after the position checks.
    how : str
        ``"name"``, ``"name, side from position"``, ``"position"`` or ``"unused"``.
    notes : list of str
        What was guessed or corrected (each becomes a CHECK line).
    position : ndarray (3,)
        Median position in the standing trial (m, ground axes).
    """

    name: str
    role: str | None
    side: str | None
    segment: str | None
    modifiers: set
    how: str
    notes: list = field(default_factory=list)
    position: np.ndarray = field(default_factory=lambda: np.full(3, np.nan))

    @property
    def used(self) -> bool:
        return self.segment is not None


@dataclass
class Draft:
    """A drafted marker set.

    Attributes
    ----------
    text : str
        The TOML file.
    markers : list of MarkerGuess
        Every marker of the static trial and how it was read.
    checks : list of str
        What a person should check before using the set.
    rules : list of str
        One line per joint centre and frame rule that was chosen.
    height : float
        Standing height used for the bands and estimates (m).
    markerset : MarkerSet
        The drafted set as loaded.
    """

    text: str
    markers: list
    checks: list
    rules: list
    height: float
    markerset: MarkerSet | None = None
    window: str = ""
    """For a motion trial: the standing window drafted from (:func:`~humanbody.tools.draft_window.standing_window`)."""

    def summary(self) -> list[str]:
        """A screenful: counts of mapped, guessed and unused markers, the rules, the checks.

        Returns
        -------
        list of str
            The summary's lines.
        """
        used = [m for m in self.markers if m.used]
        by_name = sum(1 for m in used if m.how == "name")
        corrected = sum(1 for m in used if m.how.startswith("name,"))
        guessed = sum(1 for m in used if m.how == "position")
        unused = [m.name for m in self.markers if not m.used]
        segs = sorted({m.segment for m in used})
        lines = [self.window] if self.window else []
        lines += [f"mapped {len(used)} of {len(self.markers)} markers to {len(segs)} segments: {by_name} by name, "
                 f"{corrected} by name with side or lateral/medial from position, {guessed} guessed from position; "
                 f"{len(unused)} unused" + (f" ({_short(unused)})" if unused else "")]
        lines += self.rules
        if self.checks:
            lines.append(f"check ({len(self.checks)}, also written in the file):")
            lines += [f"  - {c}" for c in self.checks[:12]]
            if len(self.checks) > 12:
                lines.append(f"  ... and {len(self.checks) - 12} more in the file")
        return lines

    def details(self) -> list[str]:
        """One line per marker: segment, landmark, side, how it was read.

        Returns
        -------
        list of str
            One line per marker of the static trial.
        """
        out = []
        for m in self.markers:
            what = f"{m.segment} ({m.role}{', ' + ', '.join(sorted(m.modifiers)) if m.modifiers else ''})" \
                if m.used else "unused"
            out.append(f"{m.name}: {what}, {m.how}" + (f"; {'; '.join(m.notes)}" if m.notes else ""))
        return out


def _short(names, n: int = 6) -> str:
    return ", ".join(names[:n]) + (f", ... ({len(names) - n} more)" if len(names) > n else "")


# ------------------------------------------------------------------ the pose
def static_pose(df) -> dict:
    """Marker name -> median position over the trial, for markers with a valid sample.

    Parameters
    ----------
    df : pandas.DataFrame
        A standing trial's marker table (m, ground axes).

    Returns
    -------
    dict of str to (3,) ndarray
        m, ground.
    """
    names = df.attrs.get("markers") or [c[:-2] for c in df.columns if str(c).endswith("_x")]
    out = {}
    for n in names:
        cols = [f"{n}_{a}" for a in "xyz"]
        if not all(c in df.columns for c in cols):
            continue
        arr = df[cols].to_numpy(dtype=float)
        ok = np.isfinite(arr).all(axis=1)
        out[n] = nanmedian(arr[ok], axis=0) if ok.any() else np.full(3, np.nan)
    return out


def _excursion(df, names) -> float:
    """Median over markers of the distance between their 5th and 95th percentile positions (m)."""
    ext = []
    for n in names:
        arr = df[[f"{n}_{a}" for a in "xyz"]].to_numpy(dtype=float)
        arr = arr[np.isfinite(arr).all(axis=1)]
        if len(arr) > 1:
            lo, hi = np.percentile(arr, [5, 95], axis=0)
            ext.append(float(np.linalg.norm(hi - lo)))
    return float(np.median(ext)) if ext else 0.0


def _height(guesses, floor: float, given) -> float:
    """Standing height (m): given, else from the highest anchor landmark present.

    A top-of-head marker is the height (its lift above the vertex and the
    lowest foot marker's above the floor roughly cancel); other head
    markers sit about 0.10 m below the vertex; acromion and ASIS heights are
    0.818 and 0.55 of standing height (Winter 2009, Fig. 4.1).
    """
    if given is not None:
        return float(given)
    head = [g for g in guesses if g.role == "head"]
    if head:
        top = [g.position[2] for g in head if "top" in g.modifiers]
        return float(max(top) - floor if top else max(g.position[2] for g in head) - floor + 0.10)
    for role, frac in _ANCHORS[1:]:
        z = [g.position[2] for g in guesses if g.role == role]
        if z:
            return float((np.median(z) - floor) / frac)
    return float((max(g.position[2] for g in guesses) - floor) / 0.55)


# ------------------------------------------------------------------ reading and checking
def classify(pose: dict, height=None, lateral: dict | None = None) -> tuple[list, float, float]:
    """Read every marker name and check it against the standing pose.

    Parameters
    ----------
    pose : dict of str -> ndarray (3,)
        :func:`static_pose` (m, ground axes).
    height : float, optional
        Standing height (m); estimated from the markers when None.
    lateral : dict of str -> float, optional
        Marker name -> offset (m, + left) from the midline that decides its
        side, instead of the pose's (a walk's frame:
        :func:`humanbody.tools.draft_window.lateral_offsets`).

    Returns
    -------
    guesses : list of MarkerGuess
        Every marker's reading (segment, landmark, side) and how it was read.
    height : float
        Standing height used (m).
    midline : float
        Lateral position (y, m) of the body midline.
    """
    marks, _ = vocabulary()
    guesses = [_read_guess(name, p) for name, p in pose.items()]
    ok = [g for g in guesses if np.isfinite(g.position).all()]
    if len(ok) < 3:
        raise InputError(f"has only {len(ok)} markers with a valid sample; a marker set needs a pelvis and legs")
    _face_forward(ok)
    foot = [g.position[2] for g in ok if g.role in ("heel", "toe", "mt1", "mt5", "midfoot", "ankle")]
    floor = min(foot) if foot else min(g.position[2] for g in ok)
    H = _height(ok, floor, height)
    if not (np.isfinite(H) and H > 0.5) and height is None:  # no foot markers below the anchors: an upper-body set
        raise InputError(f"has no leg or foot markers below its pelvis and trunk markers (standing height "
                         f"estimated {H:.2f} m): a marker set needs a pelvis and legs")
    if height is None and not HEIGHT_RANGE[0] <= H <= HEIGHT_RANGE[1]:
        raise InputError(f"the standing height estimated from its highest markers ({H:.2f} m) is not plausible "
                         f"(no head or shoulder marker recognised); give the subject's `height` M")
    pelvis = [g.position[1] for g in ok if g.role in ("asis", "psis", "sacrum")]
    midline = float(np.mean(pelvis)) if pelvis else float(np.median([g.position[1] for g in ok]))

    for g in ok:
        if g.role is None:
            continue
        frac = (g.position[2] - floor) / H
        if g.role == "epicondyle":  # a knee or an elbow, by height
            g.role = "knee" if frac < 0.45 else "elbow"
        lo, hi = marks[g.role].band
        if not lo - BAND_MARGIN <= frac <= hi + BAND_MARGIN:
            g.notes.append(f"the name reads as {g.role.replace('_', ' ')} but the marker is at {100 * frac:.0f} % "
                           f"of standing height (expected {100 * lo:.0f}-{100 * hi:.0f} %): left out")
            g.role, g.how = None, "unused"
            continue
        dy = (lateral or {}).get(g.name)
        _check_side(g, marks[g.role].sided, midline, None if dy is None else midline + dy)
    named_side = [g for g in ok if g.role is not None and read_name(g.name).side is not None]
    flipped = [g for g in named_side if g.side != read_name(g.name).side]
    if len(named_side) >= 4 and len(flipped) > len(named_side) / 2:
        raise InputError(f"{len(flipped)} of the {len(named_side)} markers named right or left are on the other "
                         "side of the body: the lab axes are probably wrong (or every label is swapped); "
                         "give them with `axes`, e.g. `axes` x,-z,y")
    _pair_lateral_medial(ok, midline)
    _neighbours(ok, midline)
    for g in ok:
        _give_segment(g, marks)
    return guesses, H, midline


def _read_guess(name: str, position) -> MarkerGuess:
    """The guess a marker's name gives (role, side, modifiers); unused without a valid sample or when the name
    says it is unlabeled."""
    r = read_name(name)
    g = MarkerGuess(name, r.role, r.side, None, set(r.modifiers), "name", [], np.asarray(position, dtype=float))
    if not np.isfinite(g.position).all():
        g.role, g.how = None, "unused"
        g.notes.append("no valid sample in the static trial")
    elif r.role is None and _UNLABELED.match(name.rsplit(":", 1)[-1]):
        g.how = "unused"
        g.notes.append("unlabeled")
    return g


def _give_segment(g: MarkerGuess, marks: dict) -> None:
    """The segment of a checked guess (in place): its role's (a neighbour's when placed by position), on its
    side; unused without a role, or on the midline with a sided segment."""
    if g.role is None or g.how == "unused":
        g.segment, g.how = None, "unused"
        return
    base = marks[g.role].segment if g.how != "position" else g.segment
    assert base is not None  # a marker placed by position has its neighbour's segment
    if base in _BASE:
        g.segment = base
    elif g.side is None:
        g.notes.append("no side in the name and the marker is on the midline: left out")
        g.segment, g.how = None, "unused"
    elif not base.startswith(("right_", "left_")):
        g.segment = f"{g.side}_{base}"
    else:
        g.segment = base


#: Largest turn (deg) of the standing subject from the ground's +x that :func:`_face_forward` takes out.
FACING_TOLERANCE_DEG = 60.0


def _face_forward(guesses) -> None:
    """Turn the standing pose about the vertical so that the pelvis faces ground +x.

    The lab axes map onto ground axes by a right-angle permutation
    (:func:`humanbody.lab.axes.to_ground`), so a subject standing at an
    angle to the lab's axes (up to 45 deg) faces up to that far from +x, and
    the left/right checks along ground y would mix in the front-back extent
    (a heel behind the ankle read on the other side).  The heading is that of
    mid-sacral (sacrum or PSIS markers) -> mid-ASIS, horizontal; a heading more
    than :data:`FACING_TOLERANCE_DEG` from +x is left alone (wrong lab axes are
    reported by the side check).  Positions are changed in place (m).
    """
    asis = [g.position for g in guesses if g.role == "asis"]
    back = [g.position for g in guesses if g.role in ("psis", "sacrum")]
    if len(asis) < 2 or not back:
        return
    fwd = np.mean(asis, axis=0) - np.mean(back, axis=0)
    if np.hypot(fwd[0], fwd[1]) < 0.05:
        return
    heading = np.arctan2(fwd[1], fwd[0])
    if abs(np.degrees(heading)) > FACING_TOLERANCE_DEG or abs(heading) < 1e-9:
        return
    c, s = np.cos(-heading), np.sin(-heading)
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    centre = np.mean(asis + back, axis=0)
    for g in guesses:
        g.position = centre + turn @ (g.position - centre)


def _position_side(y: float, midline: float) -> str | None:
    dy = y - midline
    return "left" if dy > SIDE_M else "right" if dy < -SIDE_M else None


def _check_side(g: MarkerGuess, sided: bool, midline: float, y: float | None = None) -> None:
    """Side of a marker at lateral position ``y`` (default: its pose's, m) against the midline."""
    y = g.position[1] if y is None else y
    at = _position_side(y, midline)
    if g.role == "head":  # temples and front/back head markers come in pairs, a top marker does not
        sided = at is not None or g.side is not None
        if at is None:
            return
    if not sided:
        if at is not None and abs(y - midline) > 2 * SIDE_M:
            g.notes.append(f"a midline marker {100 * abs(y - midline):.0f} cm to the {at} of the midline")
        return
    if g.side is None and at is not None:
        g.side = at
        g.how = "name, side from position"
    elif g.side is not None and at is not None and at != g.side:
        g.notes.append(f"named {g.side} but it is on the subject's {at}: taken as {at}")
        g.side = at
        g.how = "name, side from position"


def _pair_lateral_medial(guesses, midline: float) -> None:
    """Lateral/medial of knee and ankle markers from their distance to the midline.

    Elbows are left as named: the arms may be held out in the standing trial.
    """
    for role in ("knee", "ankle"):
        for side in ("right", "left"):
            group = [g for g in guesses if g.role == role and g.side == side]
            if not group:
                continue
            if len(group) == 1:
                g = group[0]
                if not g.modifiers & {"lateral", "medial"}:
                    g.modifiers.add("lateral")
                    g.notes.append(f"the only {role} marker on the {side}: taken as lateral")
                continue
            group.sort(key=lambda g: abs(g.position[1] - midline), reverse=True)
            across = abs(group[0].position[1] - midline) - abs(group[-1].position[1] - midline)
            if across < PAIR_MIN_M:  # two markers on the same face (a Davis set's knee 1 and 2): no medial one
                group[0].modifiers -= {"medial"}
                group[0].modifiers.add("lateral")
                for g in group[1:]:
                    g.modifiers -= {"lateral", "medial"}
                    g.notes.append(f"within {100 * across:.0f} cm across of {group[0].name}: not a medial marker; "
                                   "used for tracking only")
                continue
            for g, want in ((group[0], "lateral"), (group[-1], "medial")):
                had = g.modifiers & {"lateral", "medial"}
                if had and want not in had:
                    g.notes.append(f"named {next(iter(had))} but it is the {want} one of the {side} {role} markers: "
                                   f"taken as {want}")
                    g.how = "name, side from position" if g.how != "name" else "name, lateral/medial from position"
                g.modifiers -= {"lateral", "medial"}
                g.modifiers.add(want)
            for g in group[1:-1]:
                g.modifiers -= {"lateral", "medial"}
                g.notes.append(f"a third {side} {role} marker: used for tracking only")


def _neighbours(guesses, midline: float) -> None:
    """Markers the vocabulary does not know: the segment of the nearest named marker, if close."""
    marks, _ = vocabulary()
    named = [g for g in guesses if g.role is not None and g.how != "unused" and g.role not in _JOINT_MARKS]
    for g in guesses:
        if g.role is not None or g.how == "unused" or not named:
            continue
        d = [float(np.linalg.norm(g.position - n.position)) for n in named]
        k = int(np.argmin(d))
        near = named[k]
        if d[k] > NEIGHBOUR_M:
            g.how = "unused"
            g.notes.append(f"name not recognised and no named marker within {100 * NEIGHBOUR_M:.0f} cm")
            continue
        g.role = "cluster"
        g.side = near.side if marks[near.role].sided else _position_side(g.position[1], midline)
        g.segment = marks[near.role].segment
        g.how = "position"
        g.notes.append(f"name not recognised: put on the segment of the nearest named marker "
                       f"{near.name} ({100 * d[k]:.0f} cm away)")


# ------------------------------------------------------------------ public
def draft_markerset(static, name: str | None = None, *, height: float | None = None,
                    knee_width: float | None = None, ankle_width: float | None = None,
                    marker_radius: float = 0.007) -> Draft:
    """Draft a marker set for the markers of a standing trial.

    Parameters
    ----------
    static : pandas.DataFrame
        Standing trial in ground axes (docs/conventions.md marker layout, m);
        ``attrs["source"]`` names the file in errors and in the draft.  A
        motion trial (a walk) is drafted from its stillest standing second
        (:func:`humanbody.tools.draft_window.standing_window`, named in
        :attr:`Draft.window`).
    name : str, optional
        Name of the set (default: the trial's file stem).
    height : float, optional
        Standing height (m); estimated from the markers when None.
    knee_width, ankle_width : float, optional
        Joint widths (m) for centres found from a lone lateral marker
        (default: an average adult, 0.105 and 0.075 m, as ``plugin_gait``).
    marker_radius : float
        Marker radius (m) added to half a joint width.

    Returns
    -------
    Draft
        The TOML text, each marker's reading, the checks to make and the rules chosen.

    Raises
    ------
    InputError
        A motion trial without a still standing window, or too few markers for a pelvis and two legs
        (the message names the file and what is missing).
    """
    from . import draft_rules  # lazy: the drafting rules (~90 ms), only when a set is drafted
    from .draft_window import lateral_offsets, standing_window  # lazy: with the drafting rules

    source = str(static.attrs.get("source", "") or "")
    names = [n for n in (static.attrs.get("markers") or [c[:-2] for c in static.columns if str(c).endswith("_x")])]
    if static.attrs.get("kind") not in (None, "markers") or not names:
        raise InputError("holds no marker trajectories; give a standing (static) marker trial", source or None)
    window, lateral = "", None
    if _excursion(static, names) > STATIC_EXCURSION_M:  # a walk: its stillest standing second, if it has one

        rows, window = standing_window(static, names, source or None)
        if len(rows) == 1:  # one frame of a walk: the sides from the whole walk (draft_window's docstring)
            lateral = lateral_offsets(static, names)
        attrs = dict(static.attrs)
        static = static.iloc[rows].reset_index(drop=True)
        static.attrs.update(attrs)
    try:
        guesses, H, midline = classify(static_pose(static), height, lateral)
        plan = draft_rules.plan(guesses, H, midline, name or _stem(source), source,
                                widths=dict(knee=knee_width, ankle=ankle_width),
                                marker_radius=marker_radius)
    except InputError as err:
        if window and err.message.startswith("has no ") and "`" not in err.message:
            # drafted from a walk's frames: a joint marker missing there is often one the lab takes off after the
            # standing trial (CAST's epicondyles, Qualisys's sample): that trial is the way on
            err = InputError(f"{err.message} (drafted from the walk's own frames: a marker taken off after the "
                             "standing trial is in that trial, which analyze and report take with `static`, "
                             "markerset init as its STATIC)", err.path, err.option)
        if not source:
            raise err from None
        raise err.with_path(source) from None
    ms = markerset_from_mapping(tomllib.loads(plan.text), source or "draft")
    cal = calibrate(static, ms, height=None if plan.height_rule else H)  # the draft must calibrate on its own trial

    warn, bad = check_lengths(cal.model, float(cal.height))
    if bad:
        where = "on the walk's frames it was drafted from" if window else "on this standing trial"
        raise InputError(f"the drafted marker set gives implausible limbs {where} ("
                         + "; ".join(bad) + "): check the marker names and the lab axes (`axes`)",
                         source or None)
    checks = list(plan.checks) + [f"limb lengths: {w}" for w in warn]
    text = plan.text
    if warn:  # said in the file too, beside the other checks
        text = "\n".join(f"# CHECK limb lengths: {w}" for w in warn) + "\n" + text
    if window:
        text = f"# Drafted from a motion trial: {window}.\n" + text
    return Draft(text=text, markers=guesses, checks=checks, rules=plan.rules, height=H, markerset=ms, window=window)


def _stem(source: str) -> str:
    stem = Path(source).stem if source else "drafted"
    return re.sub(r"[^0-9A-Za-z_]+", "_", stem) or "drafted"

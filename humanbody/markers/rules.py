"""A marker set's rules read on a trial: its points and its segments' anatomical frames.

A :class:`~humanbody.markers.markerset.MarkerSet` names points by rules
(``mean``, ``between``, ``from`` + ``offset`` in a frame, ``cross``,
``flat``, ``kad``, ``chord`` with Plug-in Gait's wand turn and ankle
abduction, hip ``regression``) and segment frames by axis rules
(``primary``/``secondary`` axes by ``to``/``from``, ``like`` another frame,
``ground``; ``slerp`` between two frames; ``same`` as another).
:class:`Geometry` evaluates them lazily over the frames of a trial, for
the static calibration (:mod:`.calibration`), segment tracking
(:mod:`.tracking`) and whole-body IK (:mod:`.global_ik`) alike.  A rule
that needs a marker the trial lacks raises :class:`MarkerUnavailable`; the
caller tries the point's next rule or leaves the segment out.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._kernels.angles import slerp_rotations
from ..errors import InputError
from ..signal.nan import nanmedian
from .joint_centres import HIP_REGRESSIONS, chord_joint_centre, chord_turn, kad_apex, triad
from .markerset import MarkerSet
from .plug_in_gait_rotation import (
    abducted_joint_centre,
    ankle_abduction_offset,
    chord_joint_centre_offset,
    rotation_offset,
)

__all__ = ["Geometry", "MarkerUnavailable", "parameter_value", "slerp_frames", "tracking_frame"]


class MarkerUnavailable(Exception):
    """A point or frame needs a marker the trial does not have."""

    def __init__(self, marker: str, what: str):
        super().__init__(marker)
        self.marker = marker
        self.what = what


def slerp_frames(Ra, Rb, fraction: float):
    """Orientation a fraction of the way from ``Ra`` to ``Rb`` (spherical).

    ``R = Ra exp(f log(Ra^T Rb))``: rotation about the fixed axis of the
    relative rotation by ``f`` times its angle.

    Parameters
    ----------
    Ra, Rb : (..., 3, 3) array_like
        Rotation matrices (broadcast together); NaN in either gives NaN.
    fraction : float
        f: 0 gives ``Ra``, 1 gives ``Rb``.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        The interpolated rotation matrices.
    """
    Ra, Rb = np.asarray(Ra, dtype=float), np.asarray(Rb, dtype=float)
    shape = np.broadcast_shapes(Ra.shape, Rb.shape)
    Ra = np.ascontiguousarray(np.broadcast_to(Ra, shape).reshape(-1, 3, 3))
    Rb = np.ascontiguousarray(np.broadcast_to(Rb, shape).reshape(-1, 3, 3))
    out = np.empty(Ra.shape)
    slerp_rotations(Ra, Rb, float(fraction), out)  # one pass per frame (markers/_angle_kernels.py)
    return out.reshape(shape)


def parameter_value(value, params: Mapping, what: str) -> float:
    """The number a rule gives: a number as it is, or a marker-set parameter's value by name.

    Parameters
    ----------
    value : float or str
        A number, or a parameter name with an optional sign (``"-knee_width"``).
    params : Mapping
        The subject's and the set's parameters (m, rad).
    what : str
        What uses it, for the error message (``"point 'RKJC'"``).

    Returns
    -------
    float
        The value (m, rad or a plain number, as the parameter is), with the sign applied.

    Raises
    ------
    InputError
        For a parameter the set and the subject do not define.
    """
    if isinstance(value, (int, float)):
        return float(value)
    text = str(value).strip()
    sign = -1.0 if text.startswith("-") else 1.0
    key = text.lstrip("+-")
    if key not in params:
        raise InputError(f"{what} uses unknown parameter {key!r}")
    return sign * float(params[key])


class Geometry:
    """Points and anatomical frames of a marker set, built lazily over frames.

    ``calibrating`` (a static trial): chord rules with a ``calibrate_wand``
    that the trial has use it, and write the turn that carries their own
    wand onto it into ``params[rule["turn"]]`` (listed in ``turns``), so
    that motion trials without the calibration device find the same centre.
    """

    def __init__(self, ms: MarkerSet, markers: Mapping[str, np.ndarray], params: dict,
                 calibrating: bool = False):
        self.ms, self.markers, self.params = ms, markers, params
        self.calibrating = calibrating
        self.turns: dict = {}
        self.abductions: dict = {}
        self.n = len(next(iter(markers.values()))) if markers else 1
        self._points: dict = {}
        self._frames: dict = {}
        self._busy: set = set()

    # points ------------------------------------------------------------
    def point(self, name: str) -> np.ndarray:
        """A point of the set (or a marker) in every frame, built by its first rule the trial allows.

        Parameters
        ----------
        name : str
            A marker or a point of ``ms.points``.

        Returns
        -------
        (n, 3) ndarray
            Ground positions (m), cached.

        Raises
        ------
        MarkerUnavailable
            When every rule of the point needs a marker the trial lacks.
        InputError
            For an undefined point or a point that depends on itself.
        """
        if name in self._points:
            return self._points[name]
        if name in self.markers:
            return self.markers[name]
        if name not in self.ms.points:
            if name in self.ms.markers:
                raise MarkerUnavailable(name, "marker")
            raise InputError(f"marker set {self.ms.name!r} uses undefined point {name!r}")
        if ("p", name) in self._busy:
            raise InputError(f"point {name!r} of marker set {self.ms.name!r} depends on itself")
        self._busy.add(("p", name))
        first = None
        try:
            for rule in self.ms.points[name]:
                try:
                    value = self._rule(name, rule)
                    break
                except MarkerUnavailable as err:
                    first = first or err
            else:
                assert first is not None  # a point has at least one rule (checked on load)
                raise MarkerUnavailable(first.marker, f"point {name!r}")
        finally:
            self._busy.discard(("p", name))
        self._points[name] = value
        return value

    def _rule(self, name: str, rule: Mapping) -> np.ndarray:
        if "mean" in rule:
            return np.mean([self.point(p) for p in rule["mean"]], axis=0)
        if "between" in rule:
            a, b = (self.point(p) for p in rule["between"])
            return a + float(rule.get("fraction", 0.5)) * (b - a)
        if "regression" in rule:
            return self._regression(name, rule)
        if "chord" in rule:
            return self._chord(name, rule)
        if "cross" in rule:  # A + d unit((B - A) x (C - A)): off the plane of three (Plug-in Gait's wands, wrist)
            a, b, c = (self.point(p) for p in rule["cross"])
            n = np.cross(b - a, c - a)
            d = 1.0
            if "width" in rule:  # half the width plus the marker radius
                d = (0.5 * parameter_value(rule["width"], self.params, f"point {name!r}")
                     + float(self.params.get("marker_radius", 0.007)))
            return a + d * n / np.linalg.norm(n, axis=-1, keepdims=True)
        if "flat" in rule:  # Plug-in Gait's foot flat: the heel at the toe's height plus the sole delta
            heel, toe = (self.point(p) for p in rule["flat"])
            if not self.params.get(str(rule.get("when", "foot_flat"))):
                return heel
            out = np.array(heel, dtype=float, copy=True)
            out[..., 2] = toe[..., 2] + parameter_value(rule.get("height", 0.0), self.params, f"point {name!r}")
            return out
        if "kad" in rule:
            kax, kd1, kd2 = (self.point(p) for p in rule["kad"])
            return kad_apex(kax, kd1, kd2, str(rule.get("side", "right")))
        base = self.point(rule["from"])
        off = np.array([parameter_value(v, self.params, f"point {name!r}") for v in rule.get("offset", (0, 0, 0))])
        if "scale" in rule:
            a, b = (self.point(p) for p in rule["scale"])
            off = off[None, :] * np.linalg.norm(b - a, axis=-1)[:, None]
        frame = rule.get("frame", "ground")
        if frame == "ground":
            return base + off
        return base + np.einsum("fij,fj->fi", self.frame(frame), np.broadcast_to(off, base.shape))

    def _chord(self, name: str, rule: Mapping) -> np.ndarray:
        """Chord-function centre; its wand turned by ``turn``, or calibrated on ``calibrate_wand``."""
        wand, proximal, marker = (self.point(p) for p in rule["chord"])
        if "offset" in rule:  # the marker-to-centre distance less the marker radius (shoulder offset)
            delta = parameter_value(rule["offset"], self.params, f"point {name!r}")
        else:
            delta = 0.5 * parameter_value(rule["width"], self.params, f"point {name!r}")
        delta += float(self.params.get("marker_radius", 0.007))
        key = rule.get("turn")
        target, extra = None, 0.0
        if self.calibrating and key is not None and "calibrate_wand" in rule:
            # alternatives in order: a point name (with the rule's calibrate_turn) or {point, turn}
            options = rule["calibrate_wand"]
            for opt in options if isinstance(options, (list, tuple)) else [options]:
                if isinstance(opt, Mapping):
                    pname, turn_by = opt["point"], opt.get("turn", 0.0)
                else:
                    pname, turn_by = opt, rule.get("calibrate_turn", 0.0)
                try:
                    target = self.point(pname)
                except MarkerUnavailable:
                    continue
                extra = parameter_value(turn_by, self.params, f"point {name!r}")
                break
        side = rule.get("side")  # Plug-in Gait's rotation offset (about the segment's axis), else a plain turn
        if target is not None:  # the device's plane, turned by calibrate_turn, and the wand's turn onto it
            turn = chord_turn(wand, proximal, marker, target) + extra
            centre = chord_joint_centre(wand, proximal, marker, delta, turn)
            if side is not None:
                turn = rotation_offset(wand, proximal, marker, centre, str(side))
            value = float(nanmedian(turn))
            if not np.isfinite(value):
                raise MarkerUnavailable(str(rule["calibrate_wand"]), f"point {name!r}")
            self.params[str(key)] = value
            self.turns[str(key)] = value
            return self._abducted(name, rule, centre, proximal, marker, delta)
        turn = 0.0 if key is None else parameter_value(key, self.params, f"point {name!r}")
        if side is not None:
            centre = chord_joint_centre_offset(wand, proximal, marker, delta, turn, str(side))
            return self._abducted(name, rule, centre, proximal, marker, delta)
        return self._abducted(name, rule, chord_joint_centre(wand, proximal, marker, delta, turn), proximal, marker,
                              delta)

    def _abducted(self, name: str, rule: Mapping, centre, proximal, marker, delta) -> np.ndarray:
        """Plug-in Gait's ankle abduction offset (rule ``abduction``: its parameter, rad) applied to a chord
        centre: the subject file's value (0 included: a value Plug-in Gait applies), else (absent) in a static
        trial measured on the ``calibrate_abduction`` (medial malleolus) marker when the trial has it, else
        the set's (0: no change).  Vicon writes the offset mirrored: the centre turns by the tilt -s v
        (:func:`~humanbody.markers.plug_in_gait_rotation.abducted_joint_centre`; s = +1 right, -1 left) for
        a value v, and a measured tilt t is stored as v = -s t."""
        key = rule.get("abduction")
        if key is None:
            return centre
        key = str(key)
        s = -1.0 if rule.get("side") == "left" else 1.0  # Vicon's AnkleAbAdd is mirrored: the tilt is -s times it
        if (key not in self.params.get("subject_given", ()) and not self.params.get(key) and self.calibrating
                and "calibrate_abduction" in rule):  # absent from the subject file: measured
            try:
                medial = self.point(str(rule["calibrate_abduction"]))
            except MarkerUnavailable:
                medial = None
            if medial is not None:
                value = -s * float(nanmedian(ankle_abduction_offset(marker, medial, proximal, delta)))
                if not np.isfinite(value):
                    raise MarkerUnavailable(str(rule["calibrate_abduction"]), f"point {name!r}")
                self.params[key] = value
                self.abductions[key] = value
        return abducted_joint_centre(centre, proximal, marker, -s * float(self.params.get(key) or 0.0))

    def _regression(self, name: str, rule: Mapping) -> np.ndarray:
        kind = str(rule["regression"]).lower()
        if kind not in HIP_REGRESSIONS:
            raise InputError(f"point {name!r} uses unknown regression {kind!r} (use {', '.join(HIP_REGRESSIONS)})")
        side = str(rule.get("side", "right"))
        if side not in ("right", "left"):
            raise InputError(f"point {name!r}: side must be 'right' or 'left'")
        rasis, lasis = (self.point(p) for p in rule["asis"])
        sacrum = np.mean([self.point(p) for p in rule["sacrum"]], axis=0)
        if kind != "davis1991":
            return HIP_REGRESSIONS[kind](rasis, lasis, sacrum, side)
        legs = []
        for chain in rule.get("leg_length", []):
            try:
                pts = [self.point(p) for p in chain]
            except MarkerUnavailable:
                continue
            legs.append(sum(np.linalg.norm(b - a, axis=-1) for a, b in zip(pts[:-1], pts[1:], strict=True)))
        if legs:
            leg = np.mean(legs, axis=0)
        else:  # greater-trochanter height ~ 0.53 H (Dempster, via Winter 2009 Fig. 4.1)
            leg = 0.53 * float(self.params["height"])
        radius = float(self.params.get("marker_radius", 0.007))
        other = "left" if side == "right" else "right"
        mine, theirs = (self.params.get(f"{s}_leg_length") for s in (side, other))
        extra = {}
        if mine is not None:  # subject measurements (Plug-in Gait): C from the mean leg length
            leg = float(mine)
            extra["mean_leg_length"] = 0.5 * (leg + float(theirs if theirs is not None else leg))
        if self.params.get(f"{side}_asis_trochanter_distance") is not None:
            extra["asis_trochanter"] = float(self.params[f"{side}_asis_trochanter_distance"])
        if self.params.get("inter_asis_distance") is not None:
            extra["inter_asis"] = float(self.params["inter_asis_distance"])
        for key in ("theta", "beta"):  # the set's own Davis angles (rad), e.g. Vicon's constants
            if f"davis_{key}" in self.params:
                extra[key] = float(self.params[f"davis_{key}"])
        return HIP_REGRESSIONS[kind](rasis, lasis, sacrum, side, leg, radius, **extra)

    # frames ------------------------------------------------------------
    def vector(self, seg: str, ax: Mapping) -> np.ndarray:
        """One axis rule of a segment's frame as a vector in every frame (not normalised).

        Parameters
        ----------
        seg : str
            The segment whose frame the rule builds (for messages).
        ax : Mapping
            The rule: ``{"to": point, "from": point}``, ``{"like": "segment:axis"}``
            (with an optional ``twist``) or ``{"ground": (x, y, z)}``.

        Returns
        -------
        ndarray, shape (n, 3)
            The axis's direction in ground per frame (m for a point difference).
        """
        if "ground" in ax:
            return np.broadcast_to(np.asarray(ax["ground"], dtype=float), (self.n, 3))
        if "like" in ax:
            other, axis = str(ax["like"]).split(":")
            R = self.frame(other)
            if "twist" in ax:  # that frame turned about its own z first: R Rz(twist) (Plug-in Gait's ankle axis)
                t = parameter_value(ax["twist"], self.params, f"segment {seg!r} axis twist")
                c, s = np.cos(t), np.sin(t)
                R = R @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            return R[..., :, "xyz".index(axis)]
        return self.point(ax["to"]) - self.point(ax["from"])

    def frame(self, seg: str) -> np.ndarray:
        """A segment's anatomical frame in every frame: its ``cluster`` axis rules (with its twist),
        a ``slerp`` between two frames, or another segment's frame.

        Parameters
        ----------
        seg : str
            A segment of the set.

        Returns
        -------
        (n, 3, 3) ndarray
            Columns are the frame's x, y, z axes in ground components; cached.

        Raises
        ------
        MarkerUnavailable
            When a rule needs a marker the trial lacks.
        """
        if seg in self._frames:
            return self._frames[seg]
        spec = self.ms.segments[seg]
        if ("f", seg) in self._busy:
            raise InputError(f"frame of segment {seg!r} in marker set {self.ms.name!r} depends on itself")
        self._busy.add(("f", seg))
        try:
            if spec.rule == "cluster":
                assert spec.primary is not None and spec.secondary is not None  # checked on load
                R = triad(spec.primary["axis"], self.vector(seg, spec.primary),
                          spec.secondary["axis"], self.vector(seg, spec.secondary))
                if spec.twist is not None:  # R <- R Rz(twist): a rotation about the frame's own z axis
                    t = parameter_value(spec.twist, self.params, f"segment {seg!r} twist")
                    c, s = np.cos(t), np.sin(t)
                    R = R @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
            elif spec.rule == "slerp":
                a, b = spec.between
                R = slerp_frames(self.frame(a), self.frame(b), spec.fraction)
            else:
                assert spec.to is not None  # checked on load
                R = self.frame(spec.to)
        finally:
            self._busy.discard(("f", seg))
        R = np.broadcast_to(R, (self.n, 3, 3)).copy()
        self._frames[seg] = R
        return R


def tracking_frame(geo: Geometry, seg: str) -> np.ndarray:
    """The frame G of a geometrically tracked segment (``track``) in every frame of ``geo``.

    ``track = "rules"``: the segment's own frame rules; a table: its
    ``primary``/``secondary`` axis rules (as a segment's), no twist.

    Parameters
    ----------
    geo : Geometry
        The set's rules on a trial.
    seg : str
        A segment whose ``track`` is given.

    Returns
    -------
    ndarray, shape (n, 3, 3)
        The frame's axes as columns, ground components, per frame.
    """
    spec = geo.ms.segments[seg]
    if spec.track == "rules":
        return geo.frame(seg)
    t = spec.track
    assert isinstance(t, Mapping)  # not "rules": a table of axis rules
    R = triad(t["primary"]["axis"], geo.vector(seg, t["primary"]), t["secondary"]["axis"],
              geo.vector(seg, t["secondary"]))
    return np.broadcast_to(R, (geo.n, 3, 3)).copy()

"""Subject measurements: a Vicon subject file (``.vsk``) or a TOML file -> :class:`Subject`.

The measurements a gait lab takes with a tape and calipers before a session
(docs/conventions.md, "Subject measurements"; docs/formats.md, "Subject
files"):

==============================  =================================  ==========
:class:`Subject` field / TOML   Vicon ``.vsk`` parameter           VSK unit
==============================  =================================  ==========
``mass``                        ``Bodymass``                       kg
``height``                      ``Height``                         mm
``inter_asis_distance``         ``InterAsisDistance``              mm
``s_leg_length``                ``LeftLegLength``/``RightLegLength``  mm
``s_asis_trochanter_distance``  ``LeftAsisTrocanterDistance``, ... mm
``s_knee_width``                ``LeftKneeWidth``, ...             mm
``s_ankle_width``               ``LeftAnkleWidth``, ...            mm
``s_tibial_torsion``            ``LeftTibialTorsion``, ...         deg
``s_thigh_rotation``            ``LeftThighRotation``, ...         deg
``s_shank_rotation``            ``LeftShankRotation``, ...         deg
``s_sole_delta``                ``LeftSoleDelta``, ...             mm
``s_shoulder_offset``           ``LeftShoulderOffset``, ...        mm
``s_elbow_width``               ``LeftElbowWidth``, ...            mm
``s_wrist_width``               ``LeftWristWidth``, ...            mm
``s_hand_thickness``            ``LeftHandThickness``, ...         mm
``marker_diameter``             ``MarkerDiameter``                 mm
``head_offset``                 ``HeadOffset``                     rad
``s_static_plantar_flexion``    ``LeftStaticPlantFlex``, ...       rad
``s_static_rotation_offset``    ``LeftStaticRotOff``, ...          rad
``s_ankle_abduction``           ``LeftAnkleAbAdd``, ...            rad
``foot_flat``                   (none: TOML only)                  true/false
==============================  =================================  ==========

(``s`` = ``right`` or ``left``.)  The TOML file uses the field names and SI
units (kg, m, rad; an angle may instead be given in degrees with the name
ending in ``_deg``, e.g. ``right_tibial_torsion_deg``).  A VSK file is XML
whose ``Parameter`` / ``StaticParameter`` elements carry ``NAME`` and
``VALUE`` attributes; others are ignored.  A Vicon Workstation / Nexus 1
parameter file (``.mp``) gives the same names and units as ``$Name = value``
lines.  In a VSK or ``.mp`` a value of 0 for a positive quantity (a width, a
length, the mass) means "not measured", as Nexus writes it; a signed
parameter (torsion, rotation and static offsets, AnkleAbAdd, HeadOffset,
sole delta) given as 0 is a value that Plug-in Gait applies: only an absent
one is measured from the static trial.  A processed C3D file's own
``PROCESSING`` group is read by :mod:`humanbody.io.c3d_processing`.
"""

from __future__ import annotations

import math
import os
import tomllib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from ..errors import InputError

__all__ = ["Subject", "read_subject", "SUBJECT_FIELDS", "SIGNED_FIELDS"]

_SIDED = ("leg_length", "asis_trochanter_distance", "knee_width", "ankle_width", "tibial_torsion",
          "sole_delta", "shoulder_offset", "elbow_width", "wrist_width", "hand_thickness", "thigh_rotation",
          "shank_rotation")
_VSK_SIDED = ("LegLength", "AsisTrocanterDistance", "KneeWidth", "AnkleWidth", "TibialTorsion",
              "SoleDelta", "ShoulderOffset", "ElbowWidth", "WristWidth", "HandThickness", "ThighRotation",
              "ShankRotation")
#: Fields that are angles (rad inside, degrees in a VSK).
_ANGLES = {f"{side}_{name}" for side in ("right", "left")
           for name in ("tibial_torsion", "thigh_rotation", "shank_rotation", "static_plantar_flexion",
                        "static_rotation_offset", "ankle_abduction")} | {"head_offset"}
#: Fields that may be zero or negative (all others must be positive).
_SIGNED = _ANGLES | {"right_sole_delta", "left_sole_delta", "head_offset"}
#: Fields that may be zero or negative: given as 0 they are a value, not "not measured".
SIGNED_FIELDS = frozenset(_SIGNED)


@dataclass(frozen=True)
class Subject:
    """One subject's measurements in SI units (None = not measured).

    Attributes
    ----------
    mass : kg;  height : m;  inter_asis_distance : m
    right_/left_leg_length : m (ASIS to medial malleolus, via the knee)
    right_/left_asis_trochanter_distance : m
    right_/left_knee_width, right_/left_ankle_width : m (epicondyles, malleoli)
    right_/left_tibial_torsion : rad, with the sign the subject file gives (Vicon's, mirrored: the
        ``plug_in_gait`` set turns the shank frame by -s times it about the tibia's axis, s = +1 right,
        -1 left)
    right_/left_thigh_rotation, _shank_rotation : rad, Plug-in Gait's rotation offsets of the thigh and
        shank wands from the knee's and ankle's flexion axes about the segment's long axis (negative for a
        wand turned forwards, on both sides; :mod:`humanbody.markers.plug_in_gait_rotation`)
    right_/left_sole_delta : m (sole thickness difference heel - toe)
    right_/left_shoulder_offset, _elbow_width, _wrist_width, _hand_thickness : m
    marker_diameter : m
    head_offset : rad, Plug-in Gait's head offset (a ``.vsk``'s ``HeadOffset``, which Vicon writes in
        radians): the head frame is the head markers' frame turned about its y axis by it,
        R = G Ry(head_offset) (a positive offset levels a marker frame pitched up by it); 0 keeps the
        markers' frame
    right_/left_static_plantar_flexion, _static_rotation_offset : rad, Plug-in Gait's static foot offsets
        (``RightStaticPlantFlex``, ``RightStaticRotOff`` of a ``.vsk``, in radians): the foot frame is the
        uncorrected foot (ankle centre to toe) turned by them
        (:func:`humanbody.markers.plug_in_gait_rotation.foot_offset_rotation`)
    right_/left_ankle_abduction : rad, Plug-in Gait's ankle abduction/adduction offset (``RightAnkleAbAdd``
        of a ``.vsk``, in radians): the chord function's ankle centre turned about the axis through the
        lateral malleolus marker normal to the shank's plane by -s times it (s = +1 right, -1 left: Vicon
        writes it mirrored), a positive offset moving the left centre proximally and the right one distally
        (:func:`humanbody.markers.plug_in_gait_rotation.abducted_joint_centre`)
    foot_flat : bool   Plug-in Gait's "foot flat" option (TOML only: ``foot_flat = true``): the static
        foot's heel taken at the toe's height plus the sole delta
    source : str   the file it was read from ("" when built in code)
    """

    mass: float | None = None
    height: float | None = None
    inter_asis_distance: float | None = None
    right_leg_length: float | None = None
    left_leg_length: float | None = None
    right_asis_trochanter_distance: float | None = None
    left_asis_trochanter_distance: float | None = None
    right_knee_width: float | None = None
    left_knee_width: float | None = None
    right_ankle_width: float | None = None
    left_ankle_width: float | None = None
    right_tibial_torsion: float | None = None
    left_tibial_torsion: float | None = None
    right_thigh_rotation: float | None = None
    left_thigh_rotation: float | None = None
    right_shank_rotation: float | None = None
    left_shank_rotation: float | None = None
    right_sole_delta: float | None = None
    left_sole_delta: float | None = None
    right_shoulder_offset: float | None = None
    left_shoulder_offset: float | None = None
    right_elbow_width: float | None = None
    left_elbow_width: float | None = None
    right_wrist_width: float | None = None
    left_wrist_width: float | None = None
    right_hand_thickness: float | None = None
    left_hand_thickness: float | None = None
    marker_diameter: float | None = None
    head_offset: float | None = None
    right_static_plantar_flexion: float | None = None
    left_static_plantar_flexion: float | None = None
    right_static_rotation_offset: float | None = None
    left_static_rotation_offset: float | None = None
    right_ankle_abduction: float | None = None
    left_ankle_abduction: float | None = None
    foot_flat: bool | None = None
    source: str = ""

    def side(self, name: str, side: str) -> float | None:
        """The measurement ``name`` (e.g. ``"knee_width"``) of ``side`` (``"right"``/``"left"``).

        Parameters
        ----------
        name : str
            A measurement's name without its side (e.g. "knee_width").
        side : {"right", "left"}
            The side.

        Returns
        -------
        float or None
            SI units.
        """
        return getattr(self, f"{side}_{name}")

    def require(self, *names: str, why: str = "") -> None:
        """InputError naming the first of ``names`` (field names) that is not measured.

        Parameters
        ----------
        *names : str
            Field names of the Subject.
        why : str
            What needs them, for the message.
        """
        for n in names:
            if getattr(self, n) is None:
                vsk = _VSK_NAME.get(n, n)
                where = f" {why}" if why else ""
                raise InputError(f"subject file has no {n} ({vsk} in a .vsk){where}", self.source or None)

    def with_values(self, **values) -> Subject:
        """A copy with the given measurements replaced; None values are ignored (``--mass`` wins over the file).

        Parameters
        ----------
        **values
            Field name -> value (SI) or None.

        Returns
        -------
        Subject
            The new subject (this one is unchanged).
        """
        given: dict[str, Any] = {k: (v if isinstance(v, bool) else float(v)) for k, v in values.items() if v is not None}
        return replace(self, **given)

    def measured(self) -> dict:
        """The measurements given, field name -> value (SI).

        Returns
        -------
        dict
            Field name -> value (kg, m, rad), only the ones given.
        """
        return {f.name: getattr(self, f.name) for f in fields(self)
                if f.name != "source" and getattr(self, f.name) is not None}


#: Field names of the measurements (TOML keys).
SUBJECT_FIELDS = tuple(f.name for f in fields(Subject) if f.name != "source")

#: Field -> (VSK name, factor to SI).
_VSK: dict[str, tuple[str, float]] = {
    "mass": ("Bodymass", 1.0), "height": ("Height", 1e-3), "inter_asis_distance": ("InterAsisDistance", 1e-3),
    "marker_diameter": ("MarkerDiameter", 1e-3), "head_offset": ("HeadOffset", 1.0),  # Vicon writes it in rad
}
for _name, _vsk in zip(_SIDED, _VSK_SIDED, strict=True):
    for _side, _Side in (("right", "Right"), ("left", "Left")):
        _field = f"{_side}_{_name}"
        _VSK[_field] = (_Side + _vsk, math.pi / 180.0 if _field in _ANGLES else 1e-3)
for _side, _Side in (("right", "Right"), ("left", "Left")):  # Plug-in Gait's foot offsets: Vicon writes rad
    _VSK[f"{_side}_static_plantar_flexion"] = (f"{_Side}StaticPlantFlex", 1.0)
    _VSK[f"{_side}_static_rotation_offset"] = (f"{_Side}StaticRotOff", 1.0)
    _VSK[f"{_side}_ankle_abduction"] = (f"{_Side}AnkleAbAdd", 1.0)
_VSK_NAME = {k: v[0] for k, v in _VSK.items()}


def _number(text, name: str, path) -> float:
    if isinstance(text, bool):
        raise InputError(f"{name} = {text!r} is not a number", path)
    try:
        x = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{name} = {text!r} is not a number", path) from None
    if not math.isfinite(x):
        raise InputError(f"{name} = {text!r} is not a finite number", path)
    return x


def _check(field: str, x: float, name: str, path) -> float:
    if field not in _SIGNED and not x > 0:
        raise InputError(f"{name} must be positive, got {x:g}", path)
    return x


def _read_vsk(path: Path) -> dict:
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as err:
        raise InputError(f"not a readable Vicon subject file (malformed XML: {err})", path) from None
    raw = {}
    for el in root.iter():
        if not str(el.tag).endswith("Parameter") or "NAME" not in el.attrib:
            continue
        if "VALUE" in el.attrib:
            raw[el.attrib["NAME"]] = el.attrib["VALUE"]
    if not raw:
        raise InputError("Vicon subject file has no Parameter elements with NAME and VALUE", path)
    return _vicon_values(raw, path)


def _read_mp(path: Path) -> dict:
    """A Vicon Workstation / Nexus 1 parameter file (``.mp``): ``$Name = value`` lines, the ``.vsk``'s names and
    units; other lines (comments, blank) are ignored."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as err:
        raise InputError(f"cannot read the subject file ({err.strerror})", path) from None
    raw = {}
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("$") or "=" not in line:
            continue
        name, _, value = line[1:].partition("=")
        raw[name.strip()] = value.strip().rstrip(";").strip()
    if not raw:
        raise InputError("Vicon parameter file (.mp) has no '$Name = value' lines", path)
    return _vicon_values(raw, path)


def _vicon_values(raw: dict, path: Path) -> dict:
    """Subject fields (SI) from Vicon parameter names -> text values (a ``.vsk``'s or an ``.mp``'s)."""
    out = {}
    for field, (name, factor) in _VSK.items():
        if name not in raw or not str(raw[name]).strip():
            continue
        x = _number(raw[name], name, path)
        if x == 0.0 and field not in _SIGNED:
            continue  # Nexus writes 0 for "not measured"
        out[field] = _check(field, x, name, path) * factor
    return out


def _read_toml(path: Path) -> dict:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputError(f"malformed TOML subject file ({str(err).splitlines()[0]})", path) from None
    if isinstance(data.get("subject"), dict) and len(data) == 1:
        data = data["subject"]
    out: dict[str, float | bool] = {}
    for key, value in data.items():
        field = key[:-4] if key.endswith("_deg") and key[:-4] in _ANGLES else key
        if field not in SUBJECT_FIELDS:
            raise InputError(f"unknown measurement {key!r} (known: {', '.join(SUBJECT_FIELDS)})", path)
        if field in out:
            raise InputError(f"{field} is given twice (in radians and in degrees)", path)
        if field == "foot_flat":
            if not isinstance(value, bool):
                raise InputError(f"foot_flat = {value!r} must be true or false", path)
            out[field] = value
            continue
        x = _check(field, _number(value, key, path), key, path)
        out[field] = math.radians(x) if key.endswith("_deg") else x
    return out


def read_subject(path, required=()) -> Subject:
    """Read a subject file: Vicon ``.vsk`` (XML), Vicon Workstation ``.mp`` (``$Name = value``) or TOML.

    The kind is told by the suffix, else by the content (XML starts with ``<``, an ``.mp`` with ``$``).

    Parameters
    ----------
    path : str or PathLike
        The subject file (.vsk, .mp or .toml).
    required : sequence of str
        Field names that must be measured (:meth:`Subject.require`).

    Returns
    -------
    Subject
        Measurements in SI units (kg, m, rad).

    Raises
    ------
    InputError
        Missing or unreadable file, a folder given as the file, malformed XML/TOML, a non-numeric or
        non-finite value, a length that is not positive, an unknown TOML
        key, no measurement at all, or a required measurement missing (the
        message names it).
    """
    p = Path(os.fspath(path))
    if p.is_dir():
        raise InputError("is a folder, not a subject file", p)
    if not p.is_file():
        raise InputError("subject file not found", p)
    try:
        head = p.read_bytes()[:512].lstrip()
    except OSError as err:
        raise InputError(f"cannot read the subject file ({err.strerror})", p) from None
    if not head:
        raise InputError("subject file is empty", p)
    if head.startswith(b"<") or p.suffix.lower() in (".vsk", ".xml"):
        values = _read_vsk(p)
    elif p.suffix.lower() == ".mp" or head.startswith(b"$"):
        values = _read_mp(p)
    else:
        values = _read_toml(p)
    if not values:
        raise InputError("subject file gives no measurement (mass, height, leg lengths, widths, ...)", p)
    subject = Subject(source=os.fspath(p), **values)
    subject.require(*required)
    return subject

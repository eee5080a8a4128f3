"""The subject's measurements that Vicon Nexus keeps in a processed C3D file's ``PROCESSING`` group.

Nexus writes the subject's measurements and Plug-in Gait's static offsets
into every trial it processes, one float parameter each, under short names
(``Bodymass``, ``Height``, ``InterAsisDistance``, ``LLegLength``,
``RKneeWidth``, ``LTibialTorsion``, ``RStaticPlantFlex``, ``LAnkleAbAdd``,
...).  Units, as the files show them:

=====================================================  =====  =====================================
PROCESSING parameter (``S`` = ``L`` or ``R``)            unit   :class:`~humanbody.io.subject.Subject`
=====================================================  =====  =====================================
``Bodymass``                                           kg     ``mass``
``Height``, ``InterAsisDistance``, ``MarkerDiameter``  mm     ``height``, ``inter_asis_distance``, ...
``SLegLength``, ``SAsisTrocanterDistance``,            mm     ``s_leg_length``, ...
``SKneeWidth``, ``SAnkleWidth``, ``SSoleDelta``,
``SShoulderOffset``, ``SElbowWidth``, ``SWristWidth``,
``SHandThickness``
``STibialTorsion``, ``SThighRotation``,                rad    ``s_tibial_torsion``, ...
``SShankRotation``, ``SStaticPlantFlex``,
``SStaticRotOff``, ``SAnkleAbAdd``, ``HeadOffset``
=====================================================  =====  =====================================

Every angle is in radians, unlike a ``.vsk``'s tibial torsion and thigh and
shank rotations (degrees): the shared Nexus 2.9 trial's ``LTibialTorsion``
is -0.22 and ``LStaticPlantFlex`` 0.27, read as radians -12.6 and 15.4
degrees, and only so do its own knee rotation and ankle flexion follow
from its markers (``tests/integration/test_vicon_outputs.py``).  A length
or the mass given as 0 is "not measured", as Nexus writes it; a signed
parameter given as 0 is a value.

Without a ``PROCESSING`` group, a ``SUBJECT`` group's ``WEIGHT`` (kg) and
``HEIGHT`` (as Biogesta writes them: centimetres; a value under 3 is taken
as metres, over 300 as millimetres) give the mass and height.

Only the parameter section is read (:func:`humanbody.io.c3d_params.parse_parameters`),
not the frames.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import numpy as np

from .c3d_params import ParameterError, parse_parameters
from .subject import SIGNED_FIELDS, Subject

__all__ = ["PROCESSING_FIELDS", "read_processing"]

_SIDED_MM = {"LegLength": "leg_length", "AsisTrocanterDistance": "asis_trochanter_distance",
             "KneeWidth": "knee_width", "AnkleWidth": "ankle_width", "SoleDelta": "sole_delta",
             "ShoulderOffset": "shoulder_offset", "ElbowWidth": "elbow_width", "WristWidth": "wrist_width",
             "HandThickness": "hand_thickness"}
_SIDED_RAD = {"TibialTorsion": "tibial_torsion", "ThighRotation": "thigh_rotation",
              "ShankRotation": "shank_rotation", "StaticPlantFlex": "static_plantar_flexion",
              "StaticRotOff": "static_rotation_offset", "AnkleAbAdd": "ankle_abduction"}

#: PROCESSING parameter -> (Subject field, factor to SI).
PROCESSING_FIELDS: dict[str, tuple[str, float]] = {
    "Bodymass": ("mass", 1.0), "Height": ("height", 1e-3), "InterAsisDistance": ("inter_asis_distance", 1e-3),
    "MarkerDiameter": ("marker_diameter", 1e-3), "HeadOffset": ("head_offset", 1.0),
}
for _S, _side in (("L", "left"), ("R", "right")):
    PROCESSING_FIELDS.update({f"{_S}{k}": (f"{_side}_{v}", 1e-3) for k, v in _SIDED_MM.items()})
    PROCESSING_FIELDS.update({f"{_S}{k}": (f"{_side}_{v}", 1.0) for k, v in _SIDED_RAD.items()})


def _parameter_section(path: Path) -> dict | None:
    """The file's parameter groups (``{name: ParameterGroup}``), or None when it is not a readable C3D parameter section."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
            if len(head) < 512 or head[1] != 0x50 or head[0] < 2:
                return None
            start = (head[0] - 1) * 512
            fh.seek(start)
            first = fh.read(4)
            if len(first) < 4:
                return None
            fh.seek(start)
            raw = fh.read(max(1, first[2]) * 512)
        groups, _ = parse_parameters(raw, 0)
    except (OSError, ParameterError):
        return None
    return groups


def read_processing(path) -> Subject | None:
    """The subject's measurements in a C3D file's ``PROCESSING`` group (SI units), or None when it has none.

    Parameters
    ----------
    path : str or PathLike
        A C3D file.

    Returns
    -------
    Subject or None
        ``source`` is ``"<file> (PROCESSING)"``.  None when the file has no
        ``PROCESSING`` group or the group holds none of
        :data:`PROCESSING_FIELDS` with a usable value (a non-finite value, a
        length or mass that is not positive, is left out: Nexus writes 0 for
        "not measured").
    """
    p = Path(os.fspath(path))
    groups = _parameter_section(p)
    group = None if groups is None else groups.get("PROCESSING")
    if group is None:
        return None if groups is None else _subject_group(p, groups.get("SUBJECT"))
    values: dict[str, Any] = {}
    for name, (fld, factor) in PROCESSING_FIELDS.items():
        par = group.params.get(name)
        if par is None or par.type not in (1, 2, 4):
            continue
        arr = np.asarray(par.value, dtype=float).ravel()
        if arr.size == 0 or not math.isfinite(float(arr[0])):
            continue
        x = float(arr[0])
        if fld not in SIGNED_FIELDS and not x > 0:
            continue
        values[fld] = x * factor
    if not values:
        return None
    return Subject(source=f"{os.fspath(p)} (PROCESSING)", **values)


def _subject_group(p: Path, group) -> Subject | None:
    """Mass (kg) and height (m) from a ``SUBJECT`` group's ``WEIGHT`` and ``HEIGHT`` (cm; < 3: m, > 300: mm),
    or None when it has neither with a plausible value."""
    if group is None:
        return None
    values: dict[str, Any] = {}
    for name, fld in (("WEIGHT", "mass"), ("HEIGHT", "height")):
        par = group.params.get(name)
        if par is None or par.type not in (1, 2, 4):
            continue
        arr = np.asarray(par.value, dtype=float).ravel()
        x = float(arr[0]) if arr.size else math.nan
        if not (math.isfinite(x) and x > 0):
            continue
        if fld == "height":
            x = x if x < 3 else x / 100 if x <= 300 else x / 1000
            if not 0.5 <= x <= 2.5:
                continue
        elif not 10 <= x <= 400:
            continue
        values[fld] = x
    if not values:
        return None
    return Subject(source=f"{os.fspath(p)} (SUBJECT)", **values)

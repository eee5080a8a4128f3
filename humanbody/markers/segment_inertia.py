"""A marker set's own table of leg segment inertia, applied to a calibrated model.

Plug-in Gait does not take its segments' masses, mass centres and inertias from
de Leva's table (the base model's) but from Dempster's, as Vicon applies it.  A set
names that table in its parameters::

    segment_inertia = { upper_leg = [0.100, 0.433, 0.540], lower_leg = [0.0465, 0.433, 0.528],
                        foot = [0.0145, 0.5, 0.475] }

one entry per leg segment (both sides): the mass as a fraction of body mass, the
mass centre as a fraction of the segment's length from its proximal joint (the foot's
along its long axis from the ankle centre) and the radius of gyration about the two
axes normal to the long axis as a fraction of the length.  The long axis keeps the
base model's moment (scaled by the mass), at most the other two.  The lengths are the
calibrated ones (hip to knee centre, knee to ankle centre; the foot's heel to toe
marker less the marker radius, as pyCGM2 measures Plug-in Gait's foot).  The other
segments share the rest of the body mass in the base model's proportions (radii
kept), so the total stays the body mass.  docs/plug_in_gait.md shows where the
numbers come from (the shared Nexus trial's own joint forces and swing-phase moments).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ..errors import SETUP, InputError, Note
from ..model.body import BodyModel
from ..model.segments import SEGMENT_NAMES

__all__ = ["LONG_AXIS", "apply_segment_inertia", "segment_inertia_table"]

#: The long axis of each leg segment in its frame: z for the thigh and shank, x for the foot.
LONG_AXIS = {"upper_leg": 2, "lower_leg": 2, "foot": 0}


def segment_inertia_table(value, set_name: str) -> dict[str, tuple[float, float, float]]:
    """The set's ``segment_inertia`` parameter checked: ``{segment: (mass, com, radius)}``.

    Parameters
    ----------
    value : mapping
        ``{"upper_leg" | "lower_leg" | "foot": [mass fraction, mass-centre fraction, radius fraction]}``.
    set_name : str
        The marker set's name, for the error message.

    Returns
    -------
    dict of str -> (float, float, float)
        Segment ("upper_leg", "lower_leg", "foot") -> (mass fraction, mass-centre fraction, radius fraction).

    Raises
    ------
    InputError
        An unknown segment, or an entry that is not three fractions in (0, 1].
    """
    if not isinstance(value, Mapping):
        raise InputError(f"marker set {set_name!r}: segment_inertia must be a table of leg segments")
    out = {}
    for seg, entry in value.items():
        if seg not in LONG_AXIS:
            raise InputError(f"marker set {set_name!r}: segment_inertia names {seg!r}; it takes "
                             f"{', '.join(LONG_AXIS)}")
        try:
            mass, com, radius = (float(x) for x in entry)
        except (TypeError, ValueError):
            raise InputError(f"marker set {set_name!r}: segment_inertia.{seg} must be [mass fraction, "
                             f"mass-centre fraction, radius fraction]") from None
        if not all(0.0 < x <= 1.0 for x in (mass, com, radius)):
            raise InputError(f"marker set {set_name!r}: segment_inertia.{seg} = {list(entry)}: each is a "
                             f"fraction in (0, 1]")
        out[seg] = (mass, com, radius)
    return out


def apply_segment_inertia(model: BodyModel, table: Mapping[str, tuple[float, float, float]],
                          lengths: Mapping[str, float], distal_dir: Mapping[str, np.ndarray],
                          marker_radius: float, notes: list) -> BodyModel:
    """``model`` with the legs' masses, mass centres and inertias from ``table``.

    Parameters
    ----------
    model : BodyModel
        The calibrated 17-segment model (body frames; :data:`SEGMENT_NAMES`).
    table : mapping
        :func:`segment_inertia_table`'s ``{segment: (mass, com, radius)}``.
    lengths : mapping of str -> float
        Calibrated lengths (m) by segment name (``right_upper_leg``, ...); the feet's heel to toe.
    distal_dir : mapping of str -> ndarray (3,)
        The vector from each segment's origin to its distal joint in its frame (m).
    marker_radius : float
        m; taken off the feet's heel-to-toe length.
    notes : list
        One calibration note is appended (the masses applied; a :data:`humanbody.errors.SETUP` line, the first
        left to the log file when the first screen is full).

    Returns
    -------
    BodyModel
        For each leg segment k of mass fraction f, mass-centre fraction c and radius r:
        ``m_k = f M`` (M the model's total mass), ``r_k = c d_k`` with d_k the vector to its distal joint (the
        foot: ``r_k = c (L - marker_radius) e_x``), ``I_k = m_k (r L)^2`` about the two axes normal to the long
        axis, the long axis's entry scaled by the new mass but not above those (an elongated segment's least
        principal moment: a foot shorter than the base model's keeps a valid inertia); every other segment's mass and inertia times
        ``(M - sum of the legs) / (their mass)``.  A segment without a calibrated length keeps its mass centre
        and radii (its mass is the table's).
    """
    total = float(np.sum(model.mass))
    mass = np.array(model.mass, dtype=float)
    com = np.array(model.com_offset, dtype=float)
    inertia = np.array(model.inertia, dtype=float)
    legs = []
    for k, name in enumerate(SEGMENT_NAMES):
        side, _, part = name.partition("_")
        if side not in ("right", "left") or part not in table:
            continue
        legs.append(k)
        frac, c, radius = table[part]
        new = frac * total
        scale = new / mass[k]
        mass[k] = new
        length = lengths.get(name)
        if length is None or (part != "foot" and name not in distal_dir):
            inertia[k] *= scale
            continue
        long_axis = LONG_AXIS[part]
        if part == "foot":
            length = float(length) - float(marker_radius)
            com[k] = 0.0
            com[k][long_axis] = c * length
        else:
            com[k] = c * np.asarray(distal_dir[name], dtype=float)
        diag = np.full(3, new * (radius * float(length)) ** 2)
        diag[long_axis] = min(inertia[k][long_axis, long_axis] * scale, diag[long_axis])  # a long body's least
        inertia[k] = np.diag(diag)
    rest = [k for k in range(len(mass)) if k not in legs]
    share = (total - mass[legs].sum()) / mass[rest].sum()
    mass[rest] *= share
    inertia[rest] *= share
    kg = {part: mass[SEGMENT_NAMES.index(f"right_{part}")] for part in table}
    notes.append(Note("segment inertia: the set's table for the legs (" +
                      ", ".join(f"{part.replace('_', ' ')} {m:.2f} kg" for part, m in kg.items()) +
                      "), the other segments share the rest of the body mass", SETUP))
    return model.replace(mass=mass, com_offset=com, inertia=inertia)

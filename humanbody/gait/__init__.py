"""Gait analysis: events, spatiotemporal parameters, stride-normalised cycles, normative data and the GPS.

docs/gait.md describes the methods (Zeni et al. 2008 events, force-plate
thresholds, parameter definitions, time normalisation) and the tables.
"""

from .cycles import CYCLE_COLUMNS, default_variables, normalize_cycles, stride_curves, unit_of
from .events import (
    EVENT_COLUMNS,
    FOOT_MARKERS,
    PELVIS_MARKERS,
    events_of,
    foot_markers,
    force_events,
    kinematic_events,
    pelvis_markers,
    progression_axes,
)
from .gps import GPS_VARIABLES, gait_profile_score, gait_variable_scores
from .normative import NormativeSet, load_normative, read_normative
from .peaks import KINETIC_PEAKS, PEAKS, angle_peaks, kinetic_peaks
from .spatiotemporal import PARAMETERS, belt_speed, flatten, is_treadmill, spatiotemporal, strides

__all__ = [
    "CYCLE_COLUMNS", "EVENT_COLUMNS", "FOOT_MARKERS", "KINETIC_PEAKS", "PARAMETERS", "PEAKS",
    "PELVIS_MARKERS", "angle_peaks", "belt_speed", "kinetic_peaks", "default_variables", "events_of", "flatten", "foot_markers", "force_events",
    "is_treadmill", "kinematic_events", "normalize_cycles", "pelvis_markers", "progression_axes",
    "spatiotemporal", "stride_curves", "strides", "unit_of",
    "GPS_VARIABLES", "NormativeSet", "gait_profile_score", "gait_variable_scores", "load_normative", "read_normative",
]

"""Marker trajectories: conditioning (gaps, filling, low-pass), marker sets and their rules
(points and anatomical frames, :mod:`.rules`), static calibration, segment tracking and whole-body
inverse kinematics.  The lab's axes are :mod:`humanbody.lab`'s; drafting a marker set and its
predicted precision are :mod:`humanbody.tools`'."""

from .calibration import Calibration, calibrate
from .conditioning import ConditioningReport, FilterReport, condition, lowpass
from .gaps import fill_gaps, find_gaps
from .global_ik import choose_method, track_global
from .markerset import MarkerSet, builtin_markersets, detect_markerset, load_markerset
from .rigid import fit_rigid
from .tracking import Tracking, markers_to_coordinates, track

__all__ = [
    "Calibration",
    "ConditioningReport",
    "FilterReport",
    "MarkerSet",
    "Tracking",
    "builtin_markersets",
    "calibrate",
    "choose_method",
    "condition",
    "detect_markerset",
    "fill_gaps",
    "find_gaps",
    "fit_rigid",
    "load_markerset",
    "lowpass",
    "markers_to_coordinates",
    "track",
    "track_global",
]

"""Marker trajectories: conditioning (gaps, filling, low-pass), lab axes -> ground,
marker sets (and drafting one from a standing trial), static calibration, segment tracking and
whole-body inverse kinematics."""

from .axes import AxesMapping, detect_axes, parse_axes, to_ground
from .calibration import Calibration, calibrate
from .conditioning import ConditioningReport, FilterReport, condition, lowpass
from .draft import Draft, draft_markerset
from .gaps import fill_gaps, find_gaps
from .global_ik import choose_method, track_global
from .markerset import MarkerSet, builtin_markersets, detect_markerset, load_markerset
from .rigid import fit_rigid
from .tracking import Tracking, markers_to_coordinates, track

__all__ = [
    "AxesMapping",
    "Calibration",
    "ConditioningReport",
    "Draft",
    "FilterReport",
    "MarkerSet",
    "Tracking",
    "builtin_markersets",
    "calibrate",
    "choose_method",
    "condition",
    "detect_axes",
    "detect_markerset",
    "draft_markerset",
    "fill_gaps",
    "find_gaps",
    "fit_rigid",
    "load_markerset",
    "lowpass",
    "markers_to_coordinates",
    "parse_axes",
    "to_ground",
    "track",
    "track_global",
]

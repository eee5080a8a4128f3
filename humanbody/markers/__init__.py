"""Marker trajectories: conditioning (gaps, filling, low-pass) and lab axes -> ground."""

from .conditioning import ConditioningReport, FilterReport, condition, fill_gaps, find_gaps, lowpass
from .axes import AxesMapping, detect_axes, parse_axes, to_ground

__all__ = [
    "AxesMapping",
    "ConditioningReport",
    "FilterReport",
    "condition",
    "detect_axes",
    "fill_gaps",
    "find_gaps",
    "lowpass",
    "parse_axes",
    "to_ground",
]

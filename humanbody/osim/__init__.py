"""OpenSim models: read an ``.osim`` file into plain values (:func:`read_osim`, :class:`OsimModel`)."""

from .model import (
    Body,
    Coordinate,
    Coupler,
    Frame,
    Function,
    Joint,
    Marker,
    Muscle,
    OsimModel,
    PathPoint,
    PathWrap,
    TransformAxis,
    WrapObject,
)
from .reader import read_osim

__all__ = ["Body", "Coordinate", "Coupler", "Frame", "Function", "Joint", "Marker", "Muscle", "OsimModel",
           "PathPoint", "PathWrap", "TransformAxis", "WrapObject", "read_osim"]

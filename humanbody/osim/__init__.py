"""OpenSim models: read an ``.osim`` file into plain values (:func:`read_osim`, :class:`OsimModel`)."""

from .model import (
    Body,
    Coordinate,
    Frame,
    Muscle,
    OsimCoupler,
    OsimJoint,
    OsimMarker,
    OsimModel,
    OsimTransformAxis,
    PathPoint,
    PathWrap,
    WrapObject,
)
from .reader import read_osim

__all__ = ["Body", "Coordinate", "Frame", "Muscle", "OsimCoupler", "OsimJoint", "OsimMarker", "OsimModel",
           "OsimTransformAxis", "PathPoint", "PathWrap", "WrapObject", "read_osim"]

"""Gait analysis: events, spatiotemporal parameters and stride-normalised cycles."""
from .events import (EVENT_COLUMNS, FOOT_MARKERS, GRF_PLATES, PELVIS_MARKERS, events_of,
                     force_events, foot_markers, kinematic_events, pelvis_markers, progression_axes)

__all__ = ["EVENT_COLUMNS", "FOOT_MARKERS", "GRF_PLATES", "PELVIS_MARKERS", "events_of", "force_events",
           "foot_markers", "kinematic_events", "pelvis_markers", "progression_axes"]

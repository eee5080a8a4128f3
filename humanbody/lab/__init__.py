"""What a capture lab records, before any marker set or model: its axes (lab -> ground,
given or detected), the layout of a marker table (a DataFrame of ``<name>_x/_y/_z`` columns <-> a
(frames, markers, 3) array) and the spellings labs use for the same landmarks."""

from .axes import AxesMapping, detect_axes, parse_axes, to_ground
from .layout import table_markers
from .vocabulary import NameReading, read_name, vocabulary

__all__ = [
    "AxesMapping",
    "NameReading",
    "detect_axes",
    "parse_axes",
    "read_name",
    "table_markers",
    "to_ground",
    "vocabulary",
]

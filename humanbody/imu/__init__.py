"""Orientation (IMU) trials: calibration of sensors on segments and their generalized coordinates.

:func:`orientations_to_coordinates` turns an orientation trial read by
:mod:`humanbody.io.imu` (OpenSense ``.sto``, Xsens ``.mvnx``) into the
generalized-coordinates layout of docs/conventions.md; the rest of the
pipeline (clinical angles, mechanics, results, viewer, report) is that of a
coordinates trial.  docs/imu.md explains the calibration.  The names are
loaded on first use.  The readers import nothing of this package (the sensor and
segment name tables are :mod:`humanbody.io.imu_names`).
"""

from importlib import import_module

_WHERE = {
    "CALIBRATION_WINDOW_S": "calibration", "ImuCalibration": "calibration", "calibrate_sensors": "calibration",
    "parse_heading": "calibration", "orientations_to_coordinates": "coordinates",
    "segment_orientations": "coordinates", "standing_height": "coordinates",
}

__all__ = ["CALIBRATION_WINDOW_S", "ImuCalibration", "calibrate_sensors", "orientations_to_coordinates", "parse_heading",
           "segment_orientations", "standing_height"]


def __getattr__(name):
    if name in _WHERE:
        return getattr(import_module(f".{_WHERE[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

"""Sensor-to-segment calibration in a known posture, and segment orientations along a trial.

A sensor's quaternion gives ``R_s(t)``, the sensor's axes in the file's
world, mapped to ground by the lab-axes matrix ``A`` (``ground = A lab``):
``G_s(t) = A R_s(t)``.  In the calibration posture (the reference posture
of docs/conventions.md: upright, arms hanging, every segment frame parallel
to ground once the subject's heading is turned out) each segment's frame is
``Z(psi0)``, a turn by the heading ``psi0`` about the vertical, so the
sensor's mounting in its segment is

    M_s = Gbar_s^T Z(psi0)                                            (1)

with ``Gbar_s`` the mean of ``G_s`` over the calibration frames (the
chordal mean: the arithmetic mean of the matrices projected back on the
rotations).  Along the trial the segment's frame, in a ground turned so
that the subject faced +X in the calibration posture, is

    R_k(t) = Z(psi0)^T G_s(t) M_s = Z(psi0)^T G_s(t) Gbar_s^T Z(psi0)  (2)

(OpenSense's IMU placer does the same with the first frame and the model's
default pose).  The heading ``psi0`` is that of a chosen axis of the pelvis
sensor projected on the floor (OpenSense's ``base_heading_axis``), or 0
when none is given: the subject then faced the world's +X axis.

Xsens MVN exports carry segment orientations that MVN has already
calibrated (segment frames X forward, Y left, Z up in the N-pose), so by
default they are used as they are, ``R_k(t) = A R_k,file(t)``; a static
file calibrates them again by (1)-(2).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError
from ..lab.axes import parse_axes
from ..rotations.quaternions import quaternion_to_matrix

__all__ = ["ImuCalibration", "calibrate_sensors", "lab_axes", "mean_rotation", "parse_heading", "sensor_rotations"]

#: Default length of the calibration window at the start of a trial (s).
CALIBRATION_WINDOW_S = 0.5

#: The heading axis must make at least this angle with the vertical (its floor projection is used).
_MIN_HORIZONTAL = np.sin(np.radians(30.0))


@dataclass
class ImuCalibration:
    """The mounting of every sensor in its segment, from a posture.

    Attributes
    ----------
    mounting : dict         label -> (3, 3) M_s of eq. (1): segment axes in sensor axes
    heading : float         psi0 (rad), the subject's heading in the world during calibration
    axes : ndarray (3, 3)   lab -> ground matrix A
    source : str            what the posture came from (a file, the first frames)
    frames : int            frames averaged
    notes : list of str     what was done, for the log
    """

    mounting: dict
    heading: float
    axes: np.ndarray
    source: str
    frames: int
    notes: list = field(default_factory=list)

    def turn(self) -> np.ndarray:
        """Z(psi0)^T: the turn that makes the calibration heading ground +X.

        Returns
        -------
        ndarray, shape (3, 3)
            The rotation about ground Z through -heading.
        """
        return _yaw(-self.heading)


def _yaw(psi: float) -> np.ndarray:
    c, s = np.cos(psi), np.sin(psi)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def lab_axes(df, axes="auto") -> tuple[np.ndarray, str]:
    """Lab -> ground matrix of an orientation trial and how it was chosen.

    ``"auto"``: the format's world (OpenSense: OpenSim ground, Y up, i.e.
    ``x,-z,y``; Xsens: Z up, ``x,y,z``); otherwise the spec as for marker
    trials (:func:`humanbody.lab.axes.parse_axes`).

    Parameters
    ----------
    df : pandas.DataFrame
        The orientation trial (``attrs["format"]``).
    axes : str, AxesMapping or array (3, 3)
        "auto" (the format's world) or a lab -> ground spec.

    Returns
    -------
    A : ndarray, shape (3, 3)
        Lab -> ground: ground = A @ lab.
    how : str
        How it was chosen, for the log.
    """
    world = df.attrs.get("world", "x,y,z")
    if axes is None or (isinstance(axes, str) and axes.strip().lower() == "auto"):
        A = parse_axes(world)
        how = f"the format's world axes ({world})"
    else:
        A = parse_axes(axes)
        how = "given"
    return A, how


def sensor_rotations(df, label: str, A: np.ndarray) -> np.ndarray:
    """G_s(t) = A R_s(t), (F, 3, 3): a sensor's (or segment's) axes in ground.

    Parameters
    ----------
    df : pandas.DataFrame
        The orientation trial.
    label : str
        The sensor's (or segment's) label.
    A : ndarray, shape (3, 3)
        Lab -> ground axes.

    Returns
    -------
    ndarray, shape (F, 3, 3)
        The sensor's axes as columns, in ground components, per frame.
    """
    q = df[[f"{label}_q{c}" for c in "wxyz"]].to_numpy(dtype=float)
    R = quaternion_to_matrix(np.ascontiguousarray(q[:, [1, 2, 3, 0]]))  # Euler parameters: scalar last
    return np.einsum("ij,fjk->fik", A, R)


def mean_rotation(R: np.ndarray) -> np.ndarray:
    """Chordal mean of rotations (F, 3, 3): the rotation nearest their arithmetic mean (SVD).

    Parameters
    ----------
    R : ndarray, shape (F, 3, 3)
        The rotations.

    Returns
    -------
    ndarray, shape (3, 3)
        The mean rotation.
    """
    U, _, Vt = np.linalg.svd(R.mean(axis=0))
    D = np.diag([1.0, 1.0, np.sign(np.linalg.det(U @ Vt))])
    return U @ D @ Vt


def parse_heading(spec) -> np.ndarray | None:
    """A sensor axis ``"x"``, ``"-z"``, ``"+y"`` as a unit vector; None or "none"/"ground": None.

    Parameters
    ----------
    spec : str or None
        The axis's text.

    Returns
    -------
    ndarray, shape (3,), or None
        The axis in the sensor's components, or None.
    """
    if spec is None:
        return None
    text = str(spec).strip().lower().replace(" ", "")
    if text in ("", "none", "ground"):
        return None
    sign = -1.0 if text.startswith("-") else 1.0
    letter = text.lstrip("+-")
    if letter not in ("x", "y", "z") or len(text) > 2:
        raise InputError(f"imu_heading {spec!r}: expected a pelvis-sensor axis such as x, -z or +y, or 'none'",
                         option="imu_heading")
    v = np.zeros(3)
    v["xyz".index(letter)] = sign
    return v


def calibrate_sensors(df, A: np.ndarray, labels, *, heading=None, window_s: float = CALIBRATION_WINDOW_S,
              root_label: str | None = None, source: str | None = None) -> ImuCalibration:
    """Mounting of each sensor from the posture held at the start of ``df`` (eq. 1).

    Parameters
    ----------
    df : DataFrame
        Orientation trial (kind ``orientations``): a static file, or the
        motion trial whose first ``window_s`` seconds are the posture.
    A : ndarray (3, 3)
        Lab -> ground axes.
    labels : iterable of str
        Sensors to calibrate (each must be in ``df``).
    heading : str, float or None
        Axis of the pelvis sensor pointing forward in the posture (see
        :func:`parse_heading`), or the heading angle (rad); None or "none":
        the subject faced the world's +X.
    window_s : float
        Length of the averaged window (s); at least the first frame.
    root_label : str
        The pelvis sensor's label (needed with ``heading``).
    source : str
        What the posture comes from, for the notes.

    Returns
    -------
    ImuCalibration
        Each sensor's mounting (its segment's axes in the sensor's), the heading and notes.

    Raises
    ------
    InputError
        A sensor of the trial absent from the static file; a heading axis
        within 30 degrees of vertical.
    """
    t = df["time"].to_numpy(dtype=float)
    n = max(1, int(np.searchsorted(t, t[0] + window_s - 1e-9 * max(1.0, abs(t[0])), side="right")))
    where = source or str(df.attrs.get("source", ""))
    mean = {}
    for label in labels:
        if f"{label}_qw" not in df.columns:
            raise InputError(f"the calibration posture has no sensor {label!r}", where)
        mean[label] = mean_rotation(sensor_rotations(df.iloc[:n], label, A))
    axis = None if isinstance(heading, float) else parse_heading(heading)
    psi = 0.0
    notes = []
    if isinstance(heading, float):  # an angle found from the data (humanbody.imu.knee_axis)
        psi = heading
        notes.append(f"heading {round(float(np.degrees(psi)), 1) + 0.0:.1f} deg; ground turned so that the subject "
                     "faces +X in the calibration posture")
    elif axis is not None:
        v = mean[root_label] @ axis
        if np.hypot(v[0], v[1]) < _MIN_HORIZONTAL:
            raise InputError(f"imu_heading {heading}: that axis of the pelvis sensor is within 30 degrees of "
                             "vertical in the calibration posture, so it gives no heading", where, option="imu_heading")
        psi = float(np.arctan2(v[1], v[0]))
        notes.append(f"heading {round(float(np.degrees(psi)), 1) + 0.0:.1f} deg from the pelvis sensor's {heading} axis; "
                     "ground turned so that the subject faces +X in the calibration posture")
    else:
        notes.append("heading: the subject faced the world's +X axis in the calibration posture "
                     "(--imu-heading AXIS takes it from the pelvis sensor)")
    Z = _yaw(psi)
    mounting = {label: G.T @ Z for label, G in mean.items()}
    span = t[n - 1] - t[0]
    desc = f"{where}: {n} frame{'s' if n != 1 else ''} ({span:.3g} s) averaged"
    return ImuCalibration(mounting=mounting, heading=psi, axes=A, source=desc, frames=n, notes=notes)

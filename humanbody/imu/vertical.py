"""The vertical of an orientation trial's sensor world, found from the data.

Sensor-fusion worlds are levelled by gravity, but formats differ in which
of their axes is up: Xsens and OpenSense's quaternion tables as exported
are Z up, OpenSim's ground is Y up.  The vertical is found, in this order:

1. **Gravity in the accelerations**, when the file has them (Xsens MT
   text): an accelerometer at rest or on average over a trial measures
   the reaction to gravity, ``+g`` upwards.  Rotated into the world with
   each sensor's orientation and averaged over sensors and frames,
   ``u = mean_s,t R_s(t) a_s(t) / |...|`` is up (sign included).
2. **The standing posture** otherwise: thighs and shanks stand vertical,
   and a sensor strapped on a limb has one of its axes along it.  Mirrored
   on the two sides (turned half a turn about the vertical from one leg to
   the other), the left and right thigh sensors, and the shank sensors,
   see the world's vertical as the same signed sensor axis, while each
   horizontal world axis flips between the sides.  The world axis (x, y or
   z) that, for every pair present, is nearest one same signed sensor axis
   on both legs (within :data:`POSTURE_TOLERANCE_DEG`) and is the only one
   to do so, is vertical; a posture cannot tell up from down, so it is up
   in the sense the world conventions use (Z up as Xsens, Y up as OpenSim).
3. Otherwise the format's world stays, and the note says that nothing
   decided it.
"""

from __future__ import annotations

import numpy as np

from ..lab.axes import parse_axes
from .calibration import mean_rotation, sensor_rotations

__all__ = ["find_vertical", "POSTURE_TOLERANCE_DEG", "GRAVITY_TOLERANCE_DEG"]

#: Largest angle (deg) between a leg sensor's axis and the world axis taken as its vertical in the posture.
POSTURE_TOLERANCE_DEG = 20.0

#: Largest angle (deg) between the mean specific force and the nearest world axis taken as the vertical.
GRAVITY_TOLERANCE_DEG = 15.0

#: Lab-axes spec of each signed world axis taken as up (X forward kept horizontal where it can be).
_UP_SPEC = {(2, 1): "x,y,z", (2, -1): "x,-y,-z", (1, 1): "x,-z,y", (1, -1): "x,z,-y", (0, 1): "y,z,x",
            (0, -1): "-y,z,-x"}

_PAIRS = (("right_upper_leg", "left_upper_leg"), ("right_lower_leg", "left_lower_leg"))


def _rotations(df, label: str) -> np.ndarray:
    return sensor_rotations(df, label, np.eye(3))


def _from_gravity(df, labels) -> tuple[int, int, float, float] | None:
    acc = df.attrs.get("accelerations") or {}
    use = [lab for lab in labels if lab in acc]
    if not use:
        return None
    total = np.zeros(3)
    n = 0
    for lab in use:
        R = _rotations(df, lab)
        a = np.asarray(acc[lab], dtype=float)
        total += np.einsum("fij,fj->i", R, a)
        n += len(a)
    g = total / n
    mag = float(np.linalg.norm(g))
    if mag < 1e-6:
        return None
    u = g / mag
    axis = int(np.argmax(np.abs(u)))
    angle = float(np.degrees(np.arccos(min(1.0, abs(u[axis])))))
    return axis, int(np.sign(u[axis])), angle, mag


def _from_posture(posture, segment_of: dict, window: int) -> tuple[int | None, str]:
    pairs = [(segment_of[r], segment_of[left]) for r, left in _PAIRS if r in segment_of and left in segment_of]
    if not pairs:
        return None, "no left and right thigh or shank sensors"
    cos_tol = np.cos(np.radians(POSTURE_TOLERANCE_DEG))
    passing = []
    for axis in range(3):
        ok = True
        for right, left in pairs:
            vr = mean_rotation(_rotations(posture.iloc[:window], right))[axis]  # world axis in sensor axes
            vl = mean_rotation(_rotations(posture.iloc[:window], left))[axis]
            i, j = int(np.argmax(np.abs(vr))), int(np.argmax(np.abs(vl)))
            if i != j or np.sign(vr[i]) != np.sign(vl[j]) or min(abs(vr[i]), abs(vl[j])) < cos_tol:
                ok = False
                break
        if ok:
            passing.append(axis)
    if len(passing) != 1:
        why = ("no world axis is the same sensor axis on both legs" if not passing
               else f"world axes {', '.join('xyz'[a] for a in passing)} both are")
        return None, why
    return passing[0], ""


def find_vertical(trial, posture, segment_of: dict, window: int, default: str) -> tuple[np.ndarray, str, str]:
    """Lab -> ground matrix A with the data's vertical as ground Z, its spec, and one line saying how.

    Parameters
    ----------
    trial : pandas.DataFrame
        The orientation trial (its accelerations, if any).
    posture : pandas.DataFrame
        The calibration posture (a static file or the trial).
    segment_of : dict
        Segment -> sensor label.
    window : int
        Frames of ``posture`` averaged.
    default : str
        The format's world spec, kept when nothing decides.

    Returns
    -------
    A : ndarray, shape (3, 3)
        Lab -> ground: ground = A @ lab, ground Z the data's vertical.
    spec : str
        A's axes spec (e.g. "x,-z,y").
    line : str
        How the vertical was found, for the log.
    """
    labels = list(segment_of.values())
    for source, what in ((trial, "the trial"), (posture, "the static file")):
        found = _from_gravity(source, labels)
        if found is not None:
            axis, sign, angle, mag = found
            if angle <= GRAVITY_TOLERANCE_DEG:
                spec = _UP_SPEC[(axis, sign)]
                line = (f"sensor world: {'+' if sign > 0 else '-'}{'XYZ'[axis]} up, from gravity in the accelerations "
                        f"of {what} (mean {mag:.2f} m/s^2, {angle:.1f} deg from that axis; --axes overrides)")
                return parse_axes(spec), spec, line
    up, why = _from_posture(posture, segment_of, window)
    if up is not None:
        axis, sign = up, 1
        spec = _UP_SPEC[(axis, sign)]
        line = (f"sensor world: +{'XYZ'[axis]} up, from the standing posture (thighs and shanks: the same sensor "
                f"axis is vertical on both legs; a world with {'XYZ'[axis]} down needs --axes)")
        return parse_axes(spec), spec, line
    line = (f"sensor world: the format's axes ({default}); the data did not decide the vertical ({why}; no "
            "accelerations): give --axes if it is wrong")
    return parse_axes(default), default, line

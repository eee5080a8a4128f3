"""The subject's heading in the calibration posture, from the knees' flexion axis in the trial.

Sensor worlds put their X axis where the magnetometer says north, not
where the subject faced.  Taking the subject to face the world's +X (the
old default) turns every joint's flexion axis by the heading error: on the
shared Xsens walk, whose subject faced -114 deg from +X, the hip's
"adduction" was its flexion (r = -0.98 right, 0.99 left against the hip
flexion found with the right heading), the knee's flexion kept r = -0.85.

The knee is close to a hinge about the medio-lateral axis.  Calibrated
with heading 0 (segment frames = the world's axes in the posture), the
relative orientation of shank in thigh ``S(t) = R_thigh(t)^T R_shank(t)``
has rotation vectors ``phi(t) = theta(t) a`` along the flexion axis ``a``,
whose components are those of the posture's world axes.  ``a`` is the
principal direction of ``phi(t) - phi(t0)`` (the first right singular
vector), signed so that the knee flexes positively about it (flexion is a
positive turn about the left-pointing axis, docs/conventions.md); the two
knees' axes are averaged.  The subject's forward direction is
``left x up``, at the heading ``psi = atan2(-a_x, a_y)``.

As OpenSense does, the heading is then that of a pelvis-sensor axis: the
sensor axis whose floor projection is nearest that forward direction (and
at least 30 deg from the vertical), so that the pelvis, not the legs'
turn-out, decides it, exactly as ``--imu-heading AXIS`` with that axis.
When no pelvis axis lies within :data:`MAX_MISS_DEG` of the forward
direction (a sensor strapped askew), the knees' heading itself is used.
Nothing is found when the knees flex less than :data:`MIN_FLEXION_DEG`
(a standing trial gives no axis): the subject is then taken to face the
world's +X.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

__all__ = ["knee_heading", "MIN_FLEXION_DEG", "MAX_MISS_DEG"]

#: Least knee flexion range (deg) in the trial for its axis to give the heading.
MIN_FLEXION_DEG = 20.0

#: Largest angle (deg) between the knees' forward direction and the pelvis-sensor axis taken as heading axis.
MAX_MISS_DEG = 20.0

_PAIRS = (("right_upper_leg", "right_lower_leg"), ("left_upper_leg", "left_lower_leg"))


def _left_axis(R_thigh: np.ndarray, R_shank: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The knee's flexion axis (unit, pointing left) in the thigh frame, and its flexion range (deg)."""
    S = np.einsum("fji,fjk->fik", R_thigh, R_shank)
    phi = Rotation.from_matrix(S).as_rotvec()
    phi = phi - phi[0]
    _, _, vt = np.linalg.svd(phi, full_matrices=False)
    a = vt[0]
    theta = phi @ a
    span = float(np.degrees(np.ptp(theta)))
    if span < MIN_FLEXION_DEG:
        return None
    # the knee flexes (positive turns about the left axis) far more than it extends
    if abs(theta.max()) < abs(theta.min()):
        a = -a
    return a, span


def knee_heading(R_seg: dict, pelvis_mean: np.ndarray) -> tuple[str | float | None, str]:
    """The heading found from the knees and a log line: a pelvis-sensor axis (``"x"``, ``"-z"``, ...)
    pointing forward, else the knees' heading angle (rad, float), else None.

    Parameters
    ----------
    R_seg : dict of str to ndarray, shape (F, 3, 3)
        Segment -> its orientation, calibrated with heading 0.
    pelvis_mean : ndarray, shape (3, 3)
        The pelvis sensor's mean orientation in the posture, ground axes (G-bar).

    Returns
    -------
    heading : str, float or None
        A pelvis-sensor axis ("x", "-z", ...), the knees' heading (rad), or None when the knees do not tell.
    line : str
        How the heading was found, for the log.
    """
    axes = []
    for thigh, shank in _PAIRS:
        if thigh in R_seg and shank in R_seg:
            found = _left_axis(R_seg[thigh], R_seg[shank])
            if found is not None:
                axes.append(found[0])
    if not axes:
        return None, "the knees do not flex enough in the trial to show the subject's heading"
    a = np.mean(axes, axis=0)
    forward = np.array([a[1], -a[0], 0.0])
    if np.linalg.norm(forward) < 0.5:
        return None, "the knees' flexion axis is not horizontal"
    forward /= np.linalg.norm(forward)
    best, best_cos = None, -2.0
    for k, letter in enumerate("xyz"):
        for sign in (1.0, -1.0):
            v = sign * pelvis_mean[:, k]
            h = np.hypot(v[0], v[1])
            if h < np.sin(np.radians(30.0)):
                continue
            c = float((v[0] * forward[0] + v[1] * forward[1]) / h)
            if c > best_cos:
                best, best_cos = ("-" if sign < 0 else "") + letter, c
    psi = float(np.degrees(np.arctan2(forward[1], forward[0])))
    if best is None or best_cos < np.cos(np.radians(MAX_MISS_DEG)):
        return float(np.radians(psi)), (f"the subject's forward direction that the knees' flexion axis gives, "
                                        f"{psi:.1f} deg from the world's +X (no pelvis-sensor axis within "
                                        f"{MAX_MISS_DEG:.0f} deg of it)")
    miss = float(np.degrees(np.arccos(min(1.0, best_cos))))
    return best, (f"the pelvis sensor's {best} axis, the one nearest the subject's forward direction that the knees' "
                  f"flexion axis gives ({psi:.0f} deg from the world's +X; {miss:.0f} deg apart)")

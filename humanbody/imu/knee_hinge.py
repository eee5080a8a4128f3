"""Hinge knees for sensor trials: each thigh and shank fitted to both of their sensors with the knee flexing only.

Read one by one, a thigh sensor gives the femur and a shank sensor the
tibia, and the knee takes whatever relative rotation they show: with the
sensors' headings a little apart (a sensor strapped at an angle the
standing posture does not show, soft tissue) the knee then "adducts" and
"rotates" in step with its flexion.  On the shared Xsens walk its
ab/adduction followed its flexion at r = -0.75 (right) with a 25 degree
range, and the hip's adduction, read from the thigh sensor alone, agreed
with OpenSense's inverse kinematics only at r = 0.936 (right) and 0.876
(left): OpenSense's models have hinge knees, so there the shank sensor
steers the femur too.

As OpenSense's inverse kinematics with equal sensor weights, each leg's
thigh orientation ``T`` and knee flexion ``theta`` minimise the squared
(chordal) distances to the two sensors' segment frames ``R_t`` and ``R_s``,

    min ||T - R_t||^2 + ||T Y(theta) - R_s||^2,

``Y(theta)`` the turn by ``theta`` about the knee's medio-lateral axis
(the segments' y, docs/conventions.md).  For a given ``theta`` the best
``T`` is the rotation nearest ``R_t + R_s Y(theta)^T`` (polar
decomposition by SVD); for a given ``T`` the best ``theta`` is that of
``T^T R_s`` about y: ``atan2(M_02 - M_20, M_00 + M_22)``.  The two steps
alternate :data:`ITERATIONS` times from ``T = R_t``; each can only lower
the sum.  The shank is then ``T Y(theta)``.  On the shared walk the hip
adduction then agrees with OpenSense's at r = 0.999 on both sides.

**The hinge's axis from the trial.**  A standing posture fixes each
sensor's inclination (gravity is measured) but not its turn about the
segment's long axis: that comes from the sensor's heading in the world,
which the magnetometer gives sensor by sensor.  Between OpenSense's two
standing trials of the shared walk the shank sensors' headings moved 22-23
degrees more than the pelvis sensor's, the thighs' 6-12 degrees, so the
knee's flexion axis, and with it the hip's adduction and rotation, moved
with the posture chosen.  Before the fit, each thigh and shank is therefore
turned about its own long axis z so that its y axis is the knee's flexion
axis as the trial shows it (:func:`align_knee_axes`): the rotation of the
shank relative to the thigh from the first frame,
``S(t0)^T S(t)`` with ``S = R_t^T R_s``, has rotation vectors
``(theta(t) - theta(t0)) a_s`` along the axis in the shank's frame, and
``S(t) S(t0)^T`` along ``a_t`` in the thigh's; each axis is the principal
direction of its rotation vectors (first right singular vector), signed as
the posture's y.  A segment's turn is ``Z(delta)`` with
``delta = atan2(-a_x, a_y)``, so its new frame ``R Z(delta)`` keeps the
long axis (and the inclination) the posture gave and takes y from the
motion.  Then the posture's knee flexion axis no longer depends on where
the sensors' magnetometers pointed that day: on the shared walk the right
hip's adduction moves 0.2 deg (centred RMS) between the two standing
trials instead of 3.1, the knees' flexion 1.1 and 1.4 deg instead of 1.6
and 2.3.  A knee flexing less than ``MIN_FLEXION_DEG`` in the trial, or an
axis more than :data:`MAX_TURN_DEG` from the posture's, keeps the posture's
axis (the log says so).
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from .knee_axis import MIN_FLEXION_DEG

__all__ = ["align_knee_axes", "hinge_knees", "ITERATIONS", "MAX_TURN_DEG"]

#: Alternations of the two least-squares steps.
ITERATIONS = 20

#: Largest turn (deg) about a segment's long axis that the knee's functional axis may make of the posture's.
MAX_TURN_DEG = 45.0

_PAIRS = (("right", "right_upper_leg", "right_lower_leg"), ("left", "left_upper_leg", "left_lower_leg"))


def _nearest_rotation(M: np.ndarray) -> np.ndarray:
    U, _, Vt = np.linalg.svd(M)
    d = np.sign(np.linalg.det(U @ Vt))
    U[:, :, 2] *= d[:, None]
    return U @ Vt


def _about_y(theta: np.ndarray) -> np.ndarray:
    c, s = np.cos(theta), np.sin(theta)
    Y = np.zeros(theta.shape + (3, 3))
    Y[:, 0, 0] = c
    Y[:, 0, 2] = s
    Y[:, 1, 1] = 1.0
    Y[:, 2, 0] = -s
    Y[:, 2, 2] = c
    return Y


def _about_z(delta: float) -> np.ndarray:
    c, s = np.cos(delta), np.sin(delta)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _principal_axis(R_rel: np.ndarray) -> tuple[np.ndarray, float]:
    """Unit principal direction of the rotation vectors of ``R_rel`` (F, 3, 3), signed along +y, and their
    range along it (deg)."""
    phi = Rotation.from_matrix(R_rel).as_rotvec()
    _, _, vt = np.linalg.svd(phi, full_matrices=False)
    a = vt[0] if vt[0, 1] >= 0.0 else -vt[0]
    return a, float(np.degrees(np.ptp(phi @ a)))


def align_knee_axes(R: dict) -> list[str]:
    """Turn each thigh and shank (``R[segment]``, (F, 3, 3), changed in place) about its long axis so that its
    y axis is the knee's flexion axis in the trial (module docstring); return the log lines.

    The turn ``delta`` (rad) of a segment whose knee axis is ``a`` in its frame is ``atan2(-a_x, a_y)``:
    ``Z(delta) e_y`` is ``a`` projected on the segment's horizontal plane.

    Parameters
    ----------
    R : dict of str to ndarray, shape (F, 3, 3)
        Segment -> its orientation (axes as columns, ground components) per frame; the thighs and shanks are changed in
        place.

    Returns
    -------
    list of str
        One line per knee: its thigh's and shank's turns (deg), or why the posture's axis is kept.
    """
    notes = []
    for side, thigh, shank in _PAIRS:
        if thigh not in R or shank not in R:
            continue
        S = np.einsum("fji,fjk->fik", R[thigh], R[shank])
        a_t, span = _principal_axis(np.einsum("fij,kj->fik", S, S[0]))
        a_s, _ = _principal_axis(np.einsum("ji,fjk->fik", S[0], S))
        turns = [float(np.arctan2(-a[0], a[1])) for a in (a_t, a_s)]
        worst = max(abs(np.degrees(d)) for d in turns)
        if span < MIN_FLEXION_DEG or worst > MAX_TURN_DEG:
            why = (f"flexes {span:.0f} deg in the trial (less than {MIN_FLEXION_DEG:.0f})" if span < MIN_FLEXION_DEG
                   else f"flexes about an axis {worst:.0f} deg from the posture's (more than {MAX_TURN_DEG:.0f})")
            notes.append(f"knee: {side} knee {why}: its flexion axis is the calibration posture's")
            continue
        for seg, delta in ((thigh, turns[0]), (shank, turns[1])):
            R[seg] = R[seg] @ _about_z(delta)
        deg = [round(float(np.degrees(d)), 1) + 0.0 for d in turns]  # + 0.0: no "-0.0"
        notes.append(f"knee: {side} knee's flexion axis from the trial ({span:.0f} deg of flexion): thigh turned "
                     f"{deg[0]:+.1f} deg, shank {deg[1]:+.1f} deg about their long axes from the calibration "
                     "posture's")
    return notes


def hinge_knees(R: dict) -> list[str]:
    """Refit each side's thigh and shank (``R[segment]``, (F, 3, 3), changed in place) with a hinge knee about
    the flexion axis the trial shows (:func:`align_knee_axes`); return the log lines (the axis's turn, the mean
    misfit to each sensor).

    Parameters
    ----------
    R : dict of str to ndarray, shape (F, 3, 3)
        Segment -> its orientation (axes as columns, ground components) per frame; the thighs and shanks are changed in
        place.

    Returns
    -------
    list of str
        Per knee: the axis's lines (align_knee_axes) and the mean misfit to each sensor (deg).
    """
    notes = align_knee_axes(R)
    for side, thigh, shank in _PAIRS:
        if thigh not in R or shank not in R:
            continue
        Rt, Rs = R[thigh], R[shank]
        T = Rt.copy()
        for _ in range(ITERATIONS):
            M = np.einsum("fji,fjk->fik", T, Rs)
            theta = np.arctan2(M[:, 0, 2] - M[:, 2, 0], M[:, 0, 0] + M[:, 2, 2])
            T = _nearest_rotation(Rt + np.einsum("fij,fkj->fik", Rs, _about_y(theta)))
        M = np.einsum("fji,fjk->fik", T, Rs)
        theta = np.arctan2(M[:, 0, 2] - M[:, 2, 0], M[:, 0, 0] + M[:, 2, 2])
        S = np.einsum("fij,fjk->fik", T, _about_y(theta))

        def misfit(A, B):
            c = np.clip((np.einsum("fij,fij->f", A, B) - 1.0) / 2.0, -1.0, 1.0)
            return float(np.degrees(np.mean(np.arccos(c))))

        notes.append(f"knee: {side} knee a hinge (flexion only, as OpenSense's models): thigh and shank fitted to "
                     f"both sensors, mean misfit {misfit(T, Rt):.1f} deg (thigh), {misfit(S, Rs):.1f} deg (shank); "
                     "--imu-knee free reads each sensor alone")
        R[thigh], R[shank] = T, S
    return notes

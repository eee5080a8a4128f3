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
"""

from __future__ import annotations

import numpy as np

__all__ = ["hinge_knees", "ITERATIONS"]

#: Alternations of the two least-squares steps.
ITERATIONS = 20

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


def hinge_knees(R: dict) -> list[str]:
    """Refit each side's thigh and shank (``R[segment]``, (F, 3, 3), changed in place) with a hinge knee;
    return the log lines (the mean misfit to each sensor)."""
    notes = []
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

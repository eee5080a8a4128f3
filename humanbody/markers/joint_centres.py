"""Joint-centre regressions and anatomical-frame construction from points.

Every function is vectorised over frames: points have shape ``(..., 3)`` in
ground components (m), frames are ``(..., 3, 3)`` matrices whose columns are
the unit x, y, z axes of the segment frame in ground components (so
``R @ v_local + origin`` is the ground position of a point given in the
segment frame).

Hip-centre regressions are written in the pelvis frame of the marker set
conventions used here (x forward, y left, z up; origin midway between the
anterior superior iliac spines, ASIS); the published equations use other
axis names, which are mapped in each docstring.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = [
    "triad",
    "pelvis_frame",
    "hip_harrington2007",
    "hip_bell1990",
    "hip_davis1991",
    "chord_joint_centre",
    "chord_turn",
    "kad_apex",
    "HIP_REGRESSIONS",
]

_AXIS = {"x": 0, "y": 1, "z": 2}


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def triad(primary: str, p, secondary: str, s):
    """Right-handed orthonormal frame from a primary axis and a secondary vector.

    Parameters
    ----------
    primary, secondary : {"x", "y", "z"}
        Which frame axes ``p`` and ``s`` point along (they must differ).
    p : array_like, shape (..., 3)
        Direction of the primary axis (kept exactly).
    s : array_like, shape (..., 3)
        Vector roughly along the secondary axis; only its component normal
        to ``p`` is used (Gram-Schmidt), the third axis is the cross product
        that completes a right-handed frame.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        Columns are the unit x, y, z axes in ground components.
    """
    i, j = _AXIS[primary], _AXIS[secondary]
    k = 3 - i - j
    e_i = _unit(np.asarray(p, dtype=float))
    s = np.asarray(s, dtype=float)
    if (j - i) % 3 == 1:  # (i, j, k) cyclic: e_k = e_i x e_j
        e_k = _unit(np.cross(e_i, s))
        e_j = np.cross(e_k, e_i)
    else:  # anti-cyclic: e_k = e_j x e_i
        e_k = _unit(np.cross(s, e_i))
        e_j = np.cross(e_i, e_k)
    R = np.empty(e_i.shape[:-1] + (3, 3))
    R[..., :, i] = e_i
    R[..., :, j] = e_j
    R[..., :, k] = e_k
    return R


def pelvis_frame(rasis, lasis, sacrum):
    """Pelvis frame of the ASIS and sacral markers.

    y from the right to the left ASIS, x forward: the direction from the
    sacral point (sacral marker or mid-PSIS) to mid-ASIS made normal to y,
    z = x cross y (up).  Origin at mid-ASIS.

    Parameters
    ----------
    rasis, lasis, sacrum : array_like, shape (..., 3), m
        The right and left ASIS markers and the sacral point (sacral marker or mid-PSIS), ground axes.

    Returns
    -------
    R : ndarray, shape (..., 3, 3)
        The pelvis frame's axes x, y, z as columns, in ground components.
    origin : ndarray (..., 3)
        Mid-ASIS (m).
    width : ndarray (...)
        Inter-ASIS distance PW (m).
    depth : ndarray (...)
        Distance from mid-ASIS to the sacral point, PD (m).
    """
    rasis, lasis, sacrum = (np.asarray(a, dtype=float) for a in (rasis, lasis, sacrum))
    mid = 0.5 * (rasis + lasis)
    R = triad("y", lasis - rasis, "x", mid - sacrum)
    width = np.linalg.norm(lasis - rasis, axis=-1)
    depth = np.linalg.norm(mid - sacrum, axis=-1)
    return R, mid, width, depth


def _place(R, origin, forward, lateral, vertical, side):
    sign = -1.0 if side == "right" else 1.0
    local = np.stack(np.broadcast_arrays(forward, sign * lateral, vertical), axis=-1)
    return origin + np.einsum("...ij,...j->...i", R, local)


def hip_harrington2007(rasis, lasis, sacrum, side: str):
    """Hip joint centre by Harrington et al. (2007), pelvis width and depth.

    Harrington M.E., Zavatsky A.B., Lawson S.E.M., Yuan Z., Theologis T.N.
    (2007) Prediction of the hip joint centre in adults, children, and
    patients with cerebral palsy based on magnetic resonance imaging.
    J Biomech 40:595-602.  In mm, from mid-ASIS in the pelvis frame::

        posterior  x = -0.24 PD - 9.9
        inferior   z = -0.30 PW - 10.9
        lateral    y = +-(0.33 PW + 7.3)   (+ left hip, - right hip)

    PW is the inter-ASIS distance, PD the mid-ASIS to mid-PSIS (sacral)
    distance.

    Parameters
    ----------
    rasis, lasis, sacrum : array_like, shape (..., 3)
        Ground positions (m); ``sacrum`` is the sacral marker or mid-PSIS.
    side : {"right", "left"}
        The hip's side.

    Returns
    -------
    ndarray, shape (..., 3)
        Hip centre in ground (m).
    """
    R, mid, pw, pd = pelvis_frame(rasis, lasis, sacrum)
    pw, pd = 1000.0 * pw, 1000.0 * pd
    return _place(R, mid, (-0.24 * pd - 9.9) / 1000, (0.33 * pw + 7.3) / 1000,
                  (-0.30 * pw - 10.9) / 1000, side)


def hip_bell1990(rasis, lasis, sacrum, side: str):
    """Hip joint centre by Bell, Brand & Pedersen (1989/1990), pelvis width only.

    Bell A.L., Pedersen D.R., Brand R.A. (1990) A comparison of the accuracy
    of several hip center location prediction methods. J Biomech 23:617-621.
    From the ASIS line: 19 % of PW posterior, 30 % of PW inferior and 36 % of
    PW medial of the ASIS, i.e. 14 % of PW lateral of mid-ASIS.
    Arguments and result as :func:`hip_harrington2007`.

    Parameters
    ----------
    rasis, lasis, sacrum : array_like, shape (..., 3), m
        The right and left ASIS markers and the sacral point (sacral marker or mid-PSIS), ground axes.
    side : {"right", "left"}
        The hip's side.

    Returns
    -------
    ndarray, shape (..., 3), m
        The hip centre, ground axes.
    """
    R, mid, pw, _ = pelvis_frame(rasis, lasis, sacrum)
    return _place(R, mid, -0.19 * pw, 0.14 * pw, -0.30 * pw, side)


def hip_davis1991(rasis, lasis, sacrum, side: str, leg_length, marker_radius=0.007, *,
                  mean_leg_length=None, asis_trochanter=None, inter_asis=None, theta=None, beta=None):
    """Hip joint centre of Davis et al. (1991), as in Vicon Plug-in Gait.

    Davis R.B., Ounpuu S., Tyburski D., Gage J.R. (1991) A gait analysis data
    collection and reduction technique. Hum Mov Sci 10:575-587.  With leg
    length LL and marker radius r (mm), theta = 28.4 deg, beta = 18 deg::

        C = 0.115 LLm - 15.3           (LLm: mean of the two legs in Plug-in Gait)
        d = 0.1288 LL - 48.56          (ASIS to greater trochanter distance, when not measured)
        x = -(d + r) cos(beta) + C cos(theta) sin(beta)
        z = -(d + r) sin(beta) - C cos(theta) cos(beta)
        lateral = PW/2 - C sin(theta)

    in the pelvis frame (origin mid-ASIS, x forward, y left, z up); PW is
    the inter-ASIS distance, measured from the markers unless given.

    Parameters
    ----------
    leg_length : float or array_like, m
        ASIS to medial malleolus (via the knee) of that side.
    marker_radius : float, m
        The markers' radius r.
    mean_leg_length : float, optional, m
        Leg length for C (default ``leg_length``).
    asis_trochanter : float, optional, m
        Measured ASIS-to-trochanter distance d (default the regression).
    inter_asis : float, optional, m
        Measured inter-ASIS distance PW (default from the markers).
    theta, beta : float, optional, rad
        The two angles (default the published 28.4 and 18 deg; Vicon's
        implementation, as the open reimplementations that match it give
        them, uses 0.500000178813934 and 0.314000427722931 rad).

    Returns
    -------
    ndarray, shape (..., 3), m
        The hip centre, ground axes.
    """
    R, mid, pw, _ = pelvis_frame(rasis, lasis, sacrum)
    if inter_asis is not None:
        pw = np.broadcast_to(float(inter_asis), np.shape(pw))
    ll, r = 1000.0 * np.asarray(leg_length, dtype=float), 1000.0 * marker_radius
    llm = ll if mean_leg_length is None else 1000.0 * np.asarray(mean_leg_length, dtype=float)
    theta = np.radians(28.4) if theta is None else float(theta)
    beta = np.radians(18.0) if beta is None else float(beta)
    c = 0.115 * llm - 15.3
    d = 0.1288 * ll - 48.56 if asis_trochanter is None else 1000.0 * np.asarray(asis_trochanter, dtype=float)
    x = -(d + r) * np.cos(beta) + c * np.cos(theta) * np.sin(beta)
    z = -(d + r) * np.sin(beta) - c * np.cos(theta) * np.cos(beta)
    lateral = 500.0 * pw - c * np.sin(theta)
    return _place(R, mid, x / 1000, lateral / 1000, z / 1000, side)


def _chord_axes(wand, proximal, marker):
    """u = (P - M)/|P - M|, L = |P - M| and w: the unit part of W - M normal to u (shapes (..., 3), (..., 1), (..., 3))."""
    a, b, c = (np.asarray(v, dtype=float) for v in (wand, proximal, marker))
    bc = b - c
    length = np.linalg.norm(bc, axis=-1, keepdims=True)
    u = bc / length
    ac = a - c
    w = _unit(ac - np.sum(ac * u, axis=-1, keepdims=True) * u)
    return u, length, w


def chord_joint_centre(wand, proximal, marker, delta, turn=0.0):
    """Joint centre by Plug-in Gait's chord function (knee and ankle; Davis et al. 1991, Kadaba 1990).

    The centre D of the joint whose lateral marker is M, given the proximal
    joint centre P and the wand (or other lateral) marker W: D lies in the
    plane (W, P, M), at distance ``delta`` (half the joint width plus the
    marker radius) from M, with the marker-to-centre line perpendicular to
    the segment axis, ``(D - M) . (D - P) = 0``, on the side of the line MP
    away from W (medial).  With u = (P - M)/|P - M|, L = |P - M| and w the
    unit vector in the plane normal to u pointing towards W::

        D = M + (delta^2 / L) u - sqrt(delta^2 - delta^4 / L^2) w

    ``turn`` (rad) first turns the plane about the line MP, right-handed
    about u: ``w <- cos(turn) w + sin(turn) u x w``.  This is how the
    thigh and shank rotation offsets that a knee alignment device (KAD)
    measures in the static trial are applied to a wand that is not in the
    joint's plane (:func:`chord_turn`).

    Parameters
    ----------
    wand, proximal, marker : array_like, shape (..., 3), m
        The wand marker W, the proximal joint centre P and the joint's lateral marker M, in one common frame.
    delta : float or array_like, shape (...), m
        Half the joint width plus the marker radius.
    turn : float or array_like, shape (...), rad
        The turn of the plane about the line MP (0: the wand's plane).

    Returns
    -------
    ndarray, shape (..., 3), m
        The joint centre D, in the markers' frame.
    """
    u, length, w = _chord_axes(wand, proximal, marker)
    delta = np.asarray(delta, dtype=float)[..., None]
    turn = np.asarray(turn, dtype=float)[..., None]
    if np.any(turn != 0.0):
        w = np.cos(turn) * w + np.sin(turn) * np.cross(u, w)
    along = delta**2 / length
    across = np.sqrt(np.maximum(delta**2 - along**2, 0.0))
    return np.asarray(marker, dtype=float) + along * u - across * w


def chord_turn(wand, proximal, marker, target):
    """The turn (rad) that carries the wand's plane onto the target's about the line marker -> proximal.

    With u, w as in :func:`chord_joint_centre` for the wand W and w_t the
    same unit vector for the target point T (e.g. the KAD's axis marker)::

        turn = atan2(u . (w x w_t), w . w_t)          in (-pi, pi]

    so that ``chord_joint_centre(W, P, M, delta, turn)`` equals
    ``chord_joint_centre(T, P, M, delta)``.  Shapes (..., 3) -> (...).

    Parameters
    ----------
    wand, proximal, marker, target : array_like, shape (..., 3), m
        The wand marker W, the proximal joint centre P, the joint's lateral marker M and the target point T, in one
        common frame.

    Returns
    -------
    ndarray, shape (...), rad
        The turn, in (-pi, pi].
    """
    u, _, w = _chord_axes(wand, proximal, marker)
    _, _, wt = _chord_axes(target, proximal, marker)
    return np.arctan2(np.sum(u * np.cross(w, wt), axis=-1), np.sum(w * wt, axis=-1))


def kad_apex(kax, kd1, kd2, side: str):
    """Apex of a knee alignment device (KAD): the point on the knee where its three arms meet.

    The KAD's three arms are equally long (a) and mutually perpendicular,
    so its markers KAX, KD1, KD2 form an equilateral triangle of side
    a sqrt(2) whose centroid G lies a / sqrt(3) from the apex along the
    triangle's normal.  With n = (KD2 - KD1) x (KAX - KD1) / |...|, which
    points laterally on the left knee and medially on the right (the same
    device, labelled alike, is mirrored)::

        a = mean(|KAX - KD1|, |KAX - KD2|, |KD1 - KD2|) / sqrt(2)
        apex = G - s a / sqrt(3) n           s = +1 left, -1 right

    The apex stands in for the lateral knee marker (KNE) in the static
    trial; the arm apex -> KAX is the knee's flexion axis (lateral).

    Parameters
    ----------
    kax, kd1, kd2 : array_like, shape (..., 3), m
        The KAD's axis marker and its two other markers, in one common frame.
    side : {"right", "left"}
        The knee's side.

    Returns
    -------
    ndarray, shape (..., 3), m
        The apex, in the markers' frame.
    """
    a_, b_, c_ = (np.asarray(v, dtype=float) for v in (kax, kd1, kd2))
    n = _unit(np.cross(c_ - b_, a_ - b_))
    side_len = (np.linalg.norm(a_ - b_, axis=-1) + np.linalg.norm(a_ - c_, axis=-1)
                + np.linalg.norm(b_ - c_, axis=-1)) / 3.0
    arm = side_len / np.sqrt(2.0)
    s = 1.0 if side == "left" else -1.0
    return (a_ + b_ + c_) / 3.0 - s * (arm / np.sqrt(3.0))[..., None] * n


#: Regression name (as written in marker-set files) -> function.
HIP_REGRESSIONS: dict[str, Callable[..., np.ndarray]] = {
    "harrington2007": hip_harrington2007,
    "bell1990": hip_bell1990,
    "davis1991": hip_davis1991,
}

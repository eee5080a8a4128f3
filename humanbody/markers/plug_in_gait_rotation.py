"""Plug-in Gait's thigh and shank rotation offsets (``ThighRotation``, ``ShankRotation`` of a ``.vsk``).

A thigh (shank) wand is rarely exactly in the plane of the knee's (ankle's)
flexion axis.  Plug-in Gait measures, in a static trial with a knee
alignment device, how far it is turned, and stores that angle in the
subject file; in every later trial without the device the knee (ankle)
centre is the point of the chord function's circle at which the wand is
turned by that same angle.  The angle is measured about the segment's long
axis, at the joint centre D, between the lateral joint marker M (which lies
on the flexion axis) and the wand W, both projected on the plane normal to
a = (P - D) / |P - D| (P: the proximal joint centre)::

    m = (M - D) - ((M - D) . a) a,     w = (W - D) - ((W - D) . a) a
    theta = atan2(a . (m x w), m . w)              right-handed about a
    offset = -s theta                              s = +1 right, -1 left

so a wand turned forwards (anteriorly) of the flexion axis reads a negative
offset on both sides, as Plug-in Gait's (and pyCGM2's ``getThighOffset``,
``getShankOffsets``, validated against Nexus) do.  :func:`rotation_offset`
measures it; :func:`chord_joint_centre_offset` finds the centre on the
chord circle (|D - M| = delta, (D - M) . (D - P) = 0) that gives a wanted
offset.
"""

from __future__ import annotations

import numpy as np

from ..rotations.angles import euler_to_matrix
from .joint_centres import chord_joint_centre

__all__ = ["rotation_offset", "wand_offset_from_pelvis", "chord_joint_centre_offset", "foot_offset_rotation", "ankle_abduction_offset",
           "abducted_joint_centre", "tibial_torsion"]


def _side_sign(side: str) -> float:
    if side not in ("right", "left"):
        raise ValueError("side must be 'right' or 'left'")
    return 1.0 if side == "right" else -1.0


def _orthogonal_unit(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The unit vector of ``a`` and that of ``b`` made normal to it (Gram-Schmidt), both (..., 3).

    ``a_n = a / |a|``, ``b_n = unit(b - (b . a_n) a_n)``: a segment's long axis and a second axis in the plane
    normal to it.
    """
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    b = b - np.sum(b * a, axis=-1, keepdims=True) * a
    return a, b / np.linalg.norm(b, axis=-1, keepdims=True)


def rotation_offset(wand, proximal, marker, centre, side: str) -> np.ndarray:
    """Plug-in Gait's rotation offset (rad) of the wand W about the segment axis at the centre D.

    Parameters
    ----------
    wand, proximal, marker, centre : array_like, shape (..., 3), m
        The wand marker W, the proximal joint centre P, the joint marker M and the joint centre D (module docstring),
        in one common frame.
    side : {"right", "left"}
        The side of the body (s = +1 right, -1 left).

    Returns
    -------
    ndarray, shape (...), rad
        The offset -s atan2(a . (m x w), m . w).
    """
    W, P, M, D = (np.asarray(v, dtype=float) for v in (wand, proximal, marker, centre))
    a = P - D
    a = a / np.linalg.norm(a, axis=-1, keepdims=True)
    m = M - D
    m = m - np.sum(m * a, axis=-1, keepdims=True) * a
    w = W - D
    w = w - np.sum(w * a, axis=-1, keepdims=True) * a
    theta = np.arctan2(np.sum(a * np.cross(m, w), axis=-1), np.sum(m * w, axis=-1))
    return -_side_sign(side) * theta


def wand_offset_from_pelvis(wand, proximal, marker, right_asis, left_asis, delta: float, side: str) -> np.ndarray:
    """The rotation offset (rad) a wand reads when the joint's flexion axis is the pelvis's left-right axis.

    Without a knee alignment device, a wand far from the side of its segment (Motion Analysis's thigh and
    shank markers in front of the segment, not lateral) is told by where it lies against the pelvis: the
    centre D is taken ``delta`` medial of the joint marker M along the ASIS-to-ASIS direction made normal to
    the segment axis a = (P - M) / |P - M|, and the wand's offset at that centre is :func:`rotation_offset`::

        l = s (RASI - LASI),   l_n = unit(l - (l . a) a),   D = M - delta l_n

    A lateral wand reads the hip's (knee's) rotation from the pelvis's axis and its own placement, a few
    tens of degrees; one in front of the segment reads about -90 degrees on both sides.

    Parameters
    ----------
    wand, proximal, marker : array_like, shape (..., 3), m
        The wand marker W, the proximal joint centre P and the joint marker M (as rotation_offset takes them), in
        one common frame.
    right_asis, left_asis : array_like, shape (..., 3), m
        The two ASIS markers, in one common frame.
    delta : float, m
        The chord's distance from M to the centre (half the joint's width plus the marker radius).
    side : {"right", "left"}
        The side of the body (s = +1 right, -1 left).

    Returns
    -------
    ndarray, shape (...), rad
        The wand's rotation offset.
    """
    P, M, R, L = (np.asarray(v, dtype=float) for v in (proximal, marker, right_asis, left_asis))
    _, lat = _orthogonal_unit(P - M, _side_sign(side) * (R - L))
    return rotation_offset(wand, P, M, M - float(delta) * lat, side)


def chord_joint_centre_offset(wand, proximal, marker, delta, offset, side: str, iterations: int = 60) -> np.ndarray:
    """The chord function's joint centre at which the wand reads the rotation ``offset`` (rad).

    The centre lies on the chord circle D(t) = :func:`chord_joint_centre`
    (W, P, M, delta, turn=t) (the circle of points at ``delta`` from M with
    (D - M) normal to (D - P)); t is found in every frame so that
    :func:`rotation_offset` (W, P, M, D(t)) = ``offset``: the root nearest
    t = 0 of a scan of the circle in 5-degree steps, refined by bisection
    (``iterations`` halvings, 5 deg / 2^60 at the default).  ``offset`` = 0
    gives the plain chord function (t = 0).  NaN where no turn of the
    circle gives the offset.

    Parameters
    ----------
    wand, proximal, marker : array_like, shape (..., 3), m
        The wand marker W, the proximal joint centre P and the joint marker M, in one common frame.
    delta : float, m
        The centre's distance from M (half the joint width plus the marker radius).
    offset : float or array_like, shape (...), rad
        The rotation offset the wand must read at the centre.
    side : {"right", "left"}
        The side of the body (s = +1 right, -1 left).

    Returns
    -------
    ndarray, shape (..., 3), m
        The joint centre, in one common frame; NaN where no turn of the circle gives the offset.
    """
    W, P, M = (np.asarray(v, dtype=float) for v in (wand, proximal, marker))
    shape = np.broadcast_shapes(W.shape, P.shape, M.shape)
    W, P, M = (np.broadcast_to(v, shape).reshape(-1, 3) for v in (W, P, M))
    n = len(W)
    target = np.broadcast_to(np.asarray(offset, dtype=float), shape[:-1]).reshape(-1)
    if not np.any(target != 0.0):
        return chord_joint_centre(W, P, M, delta).reshape(shape)

    def residual(t):
        D = chord_joint_centre(W, P, M, delta, t)
        r = rotation_offset(W, P, M, D, side) - target
        return np.angle(np.exp(1j * r))  # wrapped to (-pi, pi]

    grid = np.radians(np.arange(-180.0, 180.1, 5.0))
    vals = np.stack([residual(np.full(n, g)) for g in grid], axis=1)  # (n, G)
    change = (np.sign(vals[:, :-1]) != np.sign(vals[:, 1:])) & (np.abs(vals[:, :-1] - vals[:, 1:]) < np.pi)
    mid = 0.5 * (grid[:-1] + grid[1:])
    dist = np.where(change, np.abs(mid)[None, :], np.inf)
    k = np.argmin(dist, axis=1)
    found = np.isfinite(dist[np.arange(n), k])
    lo, hi = grid[k].copy(), grid[k + 1].copy()
    f_lo = vals[np.arange(n), k]
    for _ in range(iterations):
        t = 0.5 * (lo + hi)
        f = residual(t)
        same = np.sign(f) == np.sign(f_lo)
        lo, f_lo = np.where(same, t, lo), np.where(same, f, f_lo)
        hi = np.where(same, hi, t)
    D = chord_joint_centre(W, P, M, delta, 0.5 * (lo + hi))
    D[~found] = np.nan
    return D.reshape(shape)


#: Plug-in Gait's foot axes (x up, y the ankle's flexion axis, z from the toe to the ankle centre) in ours
#: (x heel to toe, y the flexion axis, z up): columns of our axes in Plug-in Gait's.
_PIG_FOOT = np.array([[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [-1.0, 0.0, 0.0]])


def foot_offset_rotation(plantar_flexion: float, rotation: float, side: str) -> np.ndarray:
    """Plug-in Gait's static foot offsets as the rotation O (3, 3) from our uncorrected foot frame to the foot's.

    A subject file's ``RightStaticPlantFlex`` and ``RightStaticRotOff`` (rad, as Vicon writes them) turn
    Plug-in Gait's uncorrected foot U (z from the toe marker to the ankle centre, y the ankle's flexion
    axis) about its y axis by -beta, then about its new x axis by -alpha, with beta the plantar flexion
    offset and alpha = -s times the rotation offset (s = +1 right, -1 left), as pyCGM's
    ``footJointCenter`` (validated against Nexus) does: A = U Ry(-beta) Rx(-alpha).  In our foot axes
    (x heel to toe, y the flexion axis, z up; U_ours = U P):  O = P^T Ry(-beta) Rx(-alpha) P, and the
    foot frame is U_ours O in every frame.

    Parameters
    ----------
    plantar_flexion : float, rad
        ``StaticPlantFlex``.
    rotation : float, rad
        ``StaticRotOff``.
    side : {"right", "left"}
        The side of the body (s = +1 right, -1 left).

    Returns
    -------
    ndarray, shape (3, 3)
        O.
    """
    s = _side_sign(side)
    M = euler_to_matrix(np.array([0.0, -float(plantar_flexion), 0.0]), "xyz") @ \
        euler_to_matrix(np.array([s * float(rotation), 0.0, 0.0]), "xyz")
    return _PIG_FOOT.T @ M @ _PIG_FOOT


def ankle_abduction_offset(marker, medial, proximal, delta) -> np.ndarray:
    """Plug-in Gait's ankle abduction/adduction offset (rad; a ``.vsk``'s ``RightAnkleAbAdd``) from a static trial.

    With a medial malleolus marker N, the ankle centre of the static trial is on the malleolar axis, at
    ``delta`` (half the ankle width plus the marker radius) from the lateral marker M:
    C = M + delta (N - M) / |N - M|.  The offset is the angle, in the shank's frontal plane, between
    the line from C to M and the ankle's flexion axis (the plane normal to the shank's long axis
    z = (P - C) / |P - C|, P the knee centre), positive when M is distal to C (pyCGM2's
    ``getAbdAddAnkleJointOffset``, which Nexus's static processing writes)::

        d = M - C,   theta = atan2(-(d . z), |d - (d . z) z|)

    The same formula holds on both sides.

    Parameters
    ----------
    marker, medial, proximal : array_like, shape (..., 3), m
        The lateral malleolus marker M, the medial malleolus marker N and the knee centre P, in one common frame.
    delta : float, m
        Half the ankle width plus the marker radius.

    Returns
    -------
    ndarray, shape (...), rad
        The ankle abduction offset, positive when M is distal to C.
    """
    M, N, P = (np.asarray(v, dtype=float) for v in (marker, medial, proximal))
    u = N - M
    C = M + float(delta) * u / np.linalg.norm(u, axis=-1, keepdims=True)
    z = P - C
    z = z / np.linalg.norm(z, axis=-1, keepdims=True)
    d = M - C
    along = np.sum(d * z, axis=-1)
    across = np.linalg.norm(d - along[..., None] * z, axis=-1)
    return np.arctan2(-along, across)


def abducted_joint_centre(centre, proximal, marker, offset) -> np.ndarray:
    """The chord function's ankle centre turned by Plug-in Gait's ankle abduction offset (rad).

    The centre C (chord function, at ``delta`` from the lateral marker M, normal to the line to the
    knee centre P) turns by ``offset`` about the axis through M normal to the plane (P, C, M),
    x = (P - C) x (M - C) / |...|, right-handed (Rodrigues)::

        v = C - M,   C' = M + v cos t + (x x v) sin t + x (x . v)(1 - cos t)

    so that a positive offset moves the centre proximally and leaves M distal to it by ``offset``
    (pyCGM2's ``_rotateAjc``, the inverse of :func:`ankle_abduction_offset`).  The distance |C' - M|
    and the plane (P, C, M) are kept; ``offset`` = 0 returns C.

    Parameters
    ----------
    centre, proximal, marker : array_like, shape (..., 3), m
        The chord function's ankle centre C, the knee centre P and the lateral malleolus marker M, in one common frame.
    offset : float or array_like, shape (...), rad
        The ankle abduction offset.

    Returns
    -------
    ndarray, shape (..., 3), m
        The turned ankle centre C', in one common frame.
    """
    C, P, M = (np.asarray(v, dtype=float) for v in (centre, proximal, marker))
    t = np.asarray(offset, dtype=float)
    if not np.any(t != 0.0):
        return C
    x = np.cross(P - C, M - C)
    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
    v = C - M
    c, s = np.cos(t)[..., None], np.sin(t)[..., None]
    return M + v * c + np.cross(x, v) * s + x * np.sum(x * v, axis=-1, keepdims=True) * (1.0 - c)


def tibial_torsion(knee_axis, knee, ankle, marker, side: str) -> np.ndarray:
    """Plug-in Gait's tibial torsion (rad; a ``.vsk``'s ``RightTibialTorsion``) from a static trial.

    The angle about the shank's long axis z = (K - A) / |K - A| (K, A the knee and ankle centres) from
    the ankle's flexion axis y_a (the line s (A - M), M the lateral malleolus marker, normal to z: to the
    left on both sides, s = +1 right, -1 left) to the knee's flexion axis k (the thigh's y axis, also to
    the left), right-handed about z::

        x_a = y_a x z,   theta = atan2(k . x_a, k . y_a),   torsion = s theta

    The knee's shank frame is the ankle's turned by -theta about z, R_s = R_a Rz(-theta) (pyCGM2's
    ``getTibialTorsionOffset`` with medial malleolus markers, on either side); Vicon writes the torsion
    mirrored, theta on the right and -theta on the left (pyCGM2 reads a subject file's
    ``LeftTibialTorsion`` as the offset -t, ``RightTibialTorsion`` as +t), and so does this function:
    the ``plug_in_gait`` sets turn the shank by Rz(-s torsion).

    Parameters
    ----------
    knee_axis, knee, ankle, marker : array_like, shape (..., 3)
        The knee's flexion axis k (a direction, to the left), the knee and ankle centres K, A and the lateral malleolus
        marker M (m), in one common frame.
    side : {"right", "left"}
        The side of the body (s = +1 right, -1 left).

    Returns
    -------
    ndarray, shape (...), rad
        The tibial torsion as Vicon writes it (theta on the right, -theta on the left).
    """
    k, K, A, M = (np.asarray(v, dtype=float) for v in (knee_axis, knee, ankle, marker))
    z, y = _orthogonal_unit(K - A, _side_sign(side) * (A - M))
    x = np.cross(y, z)
    return _side_sign(side) * np.arctan2(np.sum(k * x, axis=-1), np.sum(k * y, axis=-1))

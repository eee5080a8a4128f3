"""Functional joint centre: the point fixed in two segments that best fits their relative motion.

SCoRE, the symmetrical centre of rotation estimation (Ehrig R.M., Taylor
W.R., Duda G.N., Heller M.O. (2006) A survey of formal methods for
determining the centre of rotation of ball joints. J Biomech 39:2798-2809).
Given the poses of a proximal segment (``R_p``, ``d_p``) and a distal one
(``R_t``, ``d_t``) over frames, the joint centre is a point ``c_p`` fixed in
the proximal frame and ``c_t`` fixed in the distal frame that coincide in
ground at every frame::

    R_p(f) c_p + d_p(f) = R_t(f) c_t + d_t(f)

solved in least squares over the frames as the linear system
``[R_p, -R_t] [c_p; c_t] = d_t - d_p`` (3 F equations, 6 unknowns).  The
centre in ground at each frame is the mean of the two images.

The system is well posed only when the joint turns about more than one axis:
for motion about a single fixed axis every point of that axis fits, and the
component along the axis is undetermined.  :func:`score_centre` reports the
smallest singular value of the (centred) system, so a caller can refuse a
trial whose range of motion does not determine the centre.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["FunctionalCentre", "score_centre"]


@dataclass(frozen=True)
class FunctionalCentre:
    """Result of :func:`score_centre`.

    Attributes
    ----------
    proximal, distal : ndarray, shape (3,)
        The centre in the proximal and in the distal segment frame (m).
    ground : ndarray, shape (F, 3)
        Its ground position per frame: the mean of the two images (m).
    rms : float
        RMS distance between the two images over the frames used (m).
    conditioning : float
        Smallest singular value of the centred system divided by
        ``sqrt(frames)`` (dimensionless, 0 to sqrt(2)); near 0 when the
        motion is about a single axis (the centre then undetermined along it).
    frames : int
        Frames used (both poses finite).
    """

    proximal: np.ndarray
    distal: np.ndarray
    ground: np.ndarray
    rms: float
    conditioning: float
    frames: int


def score_centre(R_p, d_p, R_t, d_t) -> FunctionalCentre:
    """SCoRE joint centre of two tracked segments (Ehrig et al. 2006).

    Parameters
    ----------
    R_p, R_t : array_like, shape (F, 3, 3)
        Rotation of the proximal and distal segment frames in ground
        (columns: the frame's unit axes); NaN frames are skipped.
    d_p, d_t : array_like, shape (F, 3)
        Origins of those frames in ground (m).

    Returns
    -------
    FunctionalCentre

    Raises
    ------
    ValueError
        Fewer than two usable frames.

    Notes
    -----
    The unknowns ``x = [c_p; c_t]`` minimise
    ``sum_f |R_p(f) c_p - R_t(f) c_t - (d_t(f) - d_p(f))|^2``.  The system is
    centred on its frame means before the singular values are taken, which
    leaves the solution unchanged and makes ``conditioning`` measure the
    rotation range rather than the distance from the origins.
    """
    R_p, R_t = (np.asarray(a, dtype=float) for a in (R_p, R_t))
    d_p, d_t = (np.asarray(a, dtype=float) for a in (d_p, d_t))
    F = R_p.shape[0]
    ok = (np.isfinite(R_p).all(axis=(1, 2)) & np.isfinite(R_t).all(axis=(1, 2))
          & np.isfinite(d_p).all(axis=1) & np.isfinite(d_t).all(axis=1))
    n = int(ok.sum())
    if n < 2:
        raise ValueError(f"a functional joint centre needs at least two frames with both segments tracked, got {n}")
    A = np.concatenate([R_p[ok], -R_t[ok]], axis=2)  # (n, 3, 6)
    b = d_t[ok] - d_p[ok]  # (n, 3)
    A_bar, b_bar = A - A.mean(axis=0), b - b.mean(axis=0)
    # A fixed centre satisfies A_bar x = b_bar; the mean equation gives the rest.
    # Solving the full system in least squares is the SCoRE estimate.
    x, *_ = np.linalg.lstsq(A.reshape(3 * n, 6), b.reshape(3 * n), rcond=None)
    sv = np.linalg.svd(A_bar.reshape(3 * n, 6), compute_uv=False)
    c_p, c_t = x[:3], x[3:]
    gp = np.einsum("fij,j->fi", R_p, c_p) + d_p
    gt = np.einsum("fij,j->fi", R_t, c_t) + d_t
    gap = np.linalg.norm(gp[ok] - gt[ok], axis=1)
    return FunctionalCentre(proximal=c_p, distal=c_t, ground=0.5 * (gp + gt),
                            rms=float(np.sqrt(np.mean(gap ** 2))),
                            conditioning=float(sv[-1] / np.sqrt(n)), frames=n)

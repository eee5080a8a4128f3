"""Spatial (6-D) vectors in Plücker coordinates, after Featherstone's spatial_v2: the tests' independent algebra.

Conventions, stated once:

- A **motion vector** (velocity, acceleration) is ``v = (omega, v_O)``:
  angular part first, then the linear velocity of the body point at the
  frame's origin O.  A **force vector** is ``f = (n_O, f)``: the moment about
  O first, then the force.  ``v . f`` is a power.
- A **coordinate transform** ``X`` (6 x 6) re-expresses a motion vector given
  in frame A in frame B's coordinates: ``v_B = X v_A``.  It is built from
  ``E``, the 3 x 3 rotation taking A coordinates to B coordinates (so
  ``E = S^T`` for the project's S with parent = S . body), and ``r``, the
  position of B's origin relative to A's, in A coordinates:
  ``X = [[E, 0], [-E r x, E]]`` (:func:`motion_transform`).  Force vectors
  transform by ``X* = X^-T = [[E, -E r x], [0, E]]`` (:func:`force_transform`).
  A transform changes coordinates; it does not move anything (no
  displacement operator is used here).
- ``crm(v)`` is the motion cross product ``v x`` (on motion vectors),
  ``crf(v) = -crm(v)^T`` the force cross product ``v x*``.
- A **spatial inertia** about O, from mass m, mass centre c (relative to O)
  and rotational inertia I_c about the centre (:func:`spatial_inertia`):
  ``[[I_c + m c x (c x)^T, m c x], [m (c x)^T, m 1]]``; the momentum is
  ``h = I v`` and the kinetic energy ``v . I v / 2``.

Every function is one operation, takes NumPy arrays (leading axes broadcast)
and returns float64.
"""

from __future__ import annotations

import numpy as np

from humanbody.rotations.common import elementary, skew, transpose

__all__ = ["rotx", "roty", "rotz", "skew3", "motion_transform", "force_transform", "inverse_motion_transform",
           "crm", "crf", "spatial_inertia", "inertia_parts"]


def _rot(axis: int, theta):
    """Coordinate rotation by ``theta`` about ``axis``: A coordinates -> B coordinates (B turned by theta).

    ``E = S^T`` for the elementary S of :func:`humanbody.rotations.common.elementary` (Huston 8.64-8.70).
    """
    return np.ascontiguousarray(transpose(elementary(axis, theta)))


def rotx(theta):
    """E of a frame turned by ``theta`` about x: A coordinates -> B coordinates. ``E = [[1, 0, 0], [0, c, s], [0, -s, c]]``.

    Parameters
    ----------
    theta : float or array_like
        rad (leading axes broadcast).

    Returns
    -------
    (..., 3, 3) ndarray
    """
    return _rot(0, theta)


def roty(theta):
    """E of a frame turned by ``theta`` about y: A coordinates -> B coordinates.

    Parameters
    ----------
    theta : float or array_like
        rad (leading axes broadcast).

    Returns
    -------
    (..., 3, 3) ndarray
    """
    return _rot(1, theta)


def rotz(theta):
    """E of a frame turned by ``theta`` about z: A coordinates -> B coordinates.

    Parameters
    ----------
    theta : float or array_like
        rad (leading axes broadcast).

    Returns
    -------
    (..., 3, 3) ndarray
    """
    return _rot(2, theta)


def skew3(r):
    """``r x`` as a 3 x 3 matrix (:func:`humanbody.rotations.skew`).

    Parameters
    ----------
    r : (..., 3) array_like

    Returns
    -------
    (..., 3, 3) ndarray
    """
    return skew(r)


def _block_transform(E, r, rows: slice, cols: slice):
    """6 x 6 matrices with ``E`` on both diagonal blocks and ``-E r x`` in block (``rows``, ``cols``)."""
    E = np.asarray(E, dtype=float)
    r = np.asarray(r, dtype=float)
    X = np.zeros(np.broadcast_shapes(E.shape[:-2], r.shape[:-1]) + (6, 6))
    X[..., :3, :3] = E
    X[..., 3:, 3:] = E
    X[..., rows, cols] = -E @ skew3(r)
    return X


def motion_transform(E, r):
    """Plücker transform of motion vectors, ``X = [[E, 0], [-E r x, E]]``.

    Parameters
    ----------
    E : (..., 3, 3) array_like
        Rotation taking A coordinates to B coordinates.
    r : (..., 3) array_like
        B's origin relative to A's, in A coordinates (m).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    return _block_transform(E, r, slice(3, 6), slice(0, 3))


def force_transform(E, r):
    """Transform of force vectors, ``X* = [[E, -E r x], [0, E]]`` (equal to ``X^-T``).

    Parameters
    ----------
    E : (..., 3, 3) array_like
        Rotation taking A coordinates to B coordinates.
    r : (..., 3) array_like
        B's origin relative to A's, in A coordinates (m).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    return _block_transform(E, r, slice(0, 3), slice(3, 6))


def inverse_motion_transform(E, r):
    """``X^-1``: B coordinates back to A, ``[[E^T, 0], [r x E^T, E^T]]``.

    Parameters
    ----------
    E : (..., 3, 3) array_like
        Rotation taking A coordinates to B coordinates.
    r : (..., 3) array_like
        B's origin relative to A's, in A coordinates (m).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    Et = np.swapaxes(np.asarray(E, dtype=float), -1, -2)
    X = np.zeros(np.broadcast_shapes(Et.shape[:-2], np.shape(r)[:-1]) + (6, 6))
    X[..., :3, :3] = Et
    X[..., 3:, 3:] = Et
    X[..., 3:, :3] = skew3(r) @ Et
    return X


def crm(v):
    """Motion cross product ``v x`` (6 x 6): ``[[w x, 0], [v_O x, w x]]`` for ``v = (w, v_O)``.

    Parameters
    ----------
    v : (..., 6) array_like
        A motion vector (rad/s, m/s).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    v = np.asarray(v, dtype=float)
    C = np.zeros(v.shape[:-1] + (6, 6))
    W = skew3(v[..., :3])
    C[..., :3, :3] = W
    C[..., 3:, 3:] = W
    C[..., 3:, :3] = skew3(v[..., 3:])
    return C


def crf(v):
    """Force cross product ``v x*`` = ``-crm(v)^T``.

    Parameters
    ----------
    v : (..., 6) array_like
        A motion vector (rad/s, m/s).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    return -np.swapaxes(crm(v), -1, -2)


def spatial_inertia(m, c, I_c):
    """Spatial inertia about a frame's origin: ``[[I_c + m c x (c x)^T, m c x], [m (c x)^T, m 1]]``.

    Parameters
    ----------
    m : float or array_like
        Mass (kg).
    c : (..., 3) array_like
        Mass centre relative to the origin (m).
    I_c : (..., 3, 3) array_like
        Rotational inertia about the mass centre (kg m^2).

    Returns
    -------
    (..., 6, 6) ndarray
    """
    m = np.asarray(m, dtype=float)
    C = skew3(c)
    out = np.zeros(C.shape[:-2] + (6, 6))
    out[..., :3, :3] = np.asarray(I_c, dtype=float) + m[..., None, None] * C @ np.swapaxes(C, -1, -2)
    out[..., :3, 3:] = m[..., None, None] * C
    out[..., 3:, :3] = m[..., None, None] * np.swapaxes(C, -1, -2)
    out[..., 3:, 3:] = m[..., None, None] * np.eye(3)
    return out


def inertia_parts(I):
    """Mass, mass centre and inertia about the centre of a spatial inertia (inverse of :func:`spatial_inertia`).

    Parameters
    ----------
    I : (..., 6, 6) array_like

    Returns
    -------
    m : ndarray
        kg.
    c : (..., 3) ndarray
        m, relative to the frame's origin.
    I_c : (..., 3, 3) ndarray
        kg m^2, about the mass centre.
    """
    I = np.asarray(I, dtype=float)
    m = I[..., 3, 3]
    C = I[..., :3, 3:] / m[..., None, None]
    c = np.stack([C[..., 2, 1], C[..., 0, 2], C[..., 1, 0]], axis=-1)
    I_c = I[..., :3, :3] - m[..., None, None] * C @ np.swapaxes(C, -1, -2)
    return m, c, I_c

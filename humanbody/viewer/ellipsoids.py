"""The equivalent uniform ellipsoid of a segment: the solid the viewer draws for it.

For a uniform solid ellipsoid of mass m and semi-axes a, b, c along its
principal axes the principal moments are ``I1 = m (b^2 + c^2) / 5`` (and
cyclically), so a segment of mass m with principal moments I1, I2, I3 about
its mass centre G_k has the same inertia as the ellipsoid with

``a^2 = 5 / (2 m) (I2 + I3 - I1)``, ``b^2 = 5 / (2 m) (I3 + I1 - I2)``,
``c^2 = 5 / (2 m) (I1 + I2 - I3)``

(the triangle inequality of principal moments keeps them non-negative).
:class:`~humanbody.viewer.scene.Scene` centres it at G_k and turns it by
``R_k E_k``, E_k holding the principal directions in the body frame.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ellipsoid_semi_axes", "ellipsoid_inertia", "MIN_SEMI_AXIS"]

#: Smallest semi-axis drawn (m), for segments whose inertia is nearly flat.
MIN_SEMI_AXIS = 0.005


def ellipsoid_semi_axes(mass, inertia) -> tuple[np.ndarray, np.ndarray]:
    """Semi-axes and principal directions of the equivalent uniform ellipsoids.

    Parameters
    ----------
    mass : array_like, shape (n,), kg
        The segments' masses.
    inertia : array_like, shape (n, 3, 3), kg m^2
        Inertia dyadics about the mass centres (any frame).

    Returns
    -------
    semi : ndarray, shape (n, 3), m
        Semi-axes (a, b, c) along the principal directions, from
        ``a^2 = 5 / (2 m) (I2 + I3 - I1)`` and cyclic permutations
        (uniform solid ellipsoid: ``I1 = m (b^2 + c^2) / 5``), at least
        :data:`MIN_SEMI_AXIS`.
    axes : ndarray, shape (n, 3, 3)
        Principal directions in the frame of ``inertia``, as columns
        (a proper rotation: ``det = +1``), so ``inertia = axes diag(I) axes^T``.
    """
    mass = np.asarray(mass, dtype=float)
    inertia = np.asarray(inertia, dtype=float)
    moments, axes = np.linalg.eigh(0.5 * (inertia + np.swapaxes(inertia, -1, -2)))
    axes = axes.copy()
    flip = np.linalg.det(axes) < 0
    axes[flip, :, 2] *= -1.0  # make every frame right-handed
    total = moments.sum(axis=-1, keepdims=True)
    sq = 5.0 / (2.0 * mass[:, None]) * (total - 2.0 * moments)  # I2 + I3 - I1 = sum - 2 I1
    semi = np.sqrt(np.clip(sq, MIN_SEMI_AXIS**2, None))
    return semi, axes


def ellipsoid_inertia(mass: float, semi) -> np.ndarray:
    """Principal moments (kg m^2) of a uniform solid ellipsoid with semi-axes ``semi`` (m).

    ``I1 = m (b^2 + c^2) / 5`` and cyclic permutations; the inverse of
    :func:`ellipsoid_semi_axes`.

    Parameters
    ----------
    mass : float, kg
        The ellipsoid's mass.
    semi : array_like, shape (..., 3), m
        Its semi-axes a, b, c.

    Returns
    -------
    ndarray, shape (..., 3), kg m^2
        The principal moments about the semi-axes' directions.
    """
    a2 = np.asarray(semi, dtype=float) ** 2
    return mass / 5.0 * (a2.sum() - a2)

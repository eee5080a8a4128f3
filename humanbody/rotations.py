"""Orientation conventions: dextral (Bryant) angles and their rates.

All functions are vectorised: angles have shape ``(..., 3)``, matrices
``(..., 3, 3)``.  A transformation matrix ``S`` maps body components to
parent components, ``v_parent = S @ v_body`` (Huston eq. 8.73).
"""

from __future__ import annotations

import numpy as np


def bryant_to_matrix(angles):
    """Transformation matrix of dextral (Bryant) angles, Huston eq. 8.74.

    Parameters
    ----------
    angles : array_like, shape (..., 3)
        alpha, beta, gamma (rad): successive rotations about the body-fixed
        x, y and z axes.

    Returns
    -------
    S : ndarray, shape (..., 3, 3)
        ``S = A(alpha) B(beta) C(gamma)`` with parent = S . body components.
    """
    a = np.asarray(angles, dtype=float)
    sa, sb, sg = np.sin(a[..., 0]), np.sin(a[..., 1]), np.sin(a[..., 2])
    ca, cb, cg = np.cos(a[..., 0]), np.cos(a[..., 1]), np.cos(a[..., 2])
    S = np.empty(a.shape[:-1] + (3, 3))
    S[..., 0, 0] = cb * cg
    S[..., 0, 1] = -cb * sg
    S[..., 0, 2] = sb
    S[..., 1, 0] = ca * sg + sa * sb * cg
    S[..., 1, 1] = ca * cg - sa * sb * sg
    S[..., 1, 2] = -sa * cb
    S[..., 2, 0] = sa * sg - ca * sb * cg
    S[..., 2, 1] = sa * cg + ca * sb * sg
    S[..., 2, 2] = ca * cb
    return S


def bryant_omega_parent(angles, rates):
    """Angular velocity in parent components from Bryant angle rates, eq. 8.95.

    Parameters
    ----------
    angles, rates : array_like, shape (..., 3)
        (alpha, beta, gamma) in rad and their time derivatives in rad/s.

    Returns
    -------
    ndarray, shape (..., 3)
        ``(a' + g' sb,  b' ca - g' sa cb,  b' sa + g' ca cb)`` in rad/s.
        No division: valid at every orientation, the singular set included.
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    sa, sb = np.sin(a[..., 0]), np.sin(a[..., 1])
    ca, cb = np.cos(a[..., 0]), np.cos(a[..., 1])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    return np.stack(
        (ad + gd * sb, bd * ca - gd * sa * cb, bd * sa + gd * ca * cb), axis=-1
    )


def bryant_omega_body(angles, rates):
    """Angular velocity in body components from Bryant angle rates, eq. 8.96.

    Returns ``(a' cb cg + b' sg,  -a' cb sg + b' cg,  a' sb + g')`` (rad/s),
    shape (..., 3).
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    sb, sg = np.sin(a[..., 1]), np.sin(a[..., 2])
    cb, cg = np.cos(a[..., 1]), np.cos(a[..., 2])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    return np.stack(
        (ad * cb * cg + bd * sg, -ad * cb * sg + bd * cg, ad * sb + gd), axis=-1
    )


def bryant_omega_parent_dot(angles, rates, accels):
    """Time derivative of the parent components of eq. 8.95.

    Differentiating the components of the relative angular velocity in the
    parent frame gives the relative angular acceleration seen from the
    parent (the term ``d(omega_hat)/dt`` of Huston eq. 8.115).

    Parameters
    ----------
    angles, rates, accels : array_like, shape (..., 3)
        Bryant angles (rad), their first (rad/s) and second (rad/s^2)
        time derivatives.

    Returns
    -------
    ndarray, shape (..., 3), rad/s^2.
    """
    a = np.asarray(angles, dtype=float)
    d = np.asarray(rates, dtype=float)
    dd = np.asarray(accels, dtype=float)
    sa, sb = np.sin(a[..., 0]), np.sin(a[..., 1])
    ca, cb = np.cos(a[..., 0]), np.cos(a[..., 1])
    ad, bd, gd = d[..., 0], d[..., 1], d[..., 2]
    add, bdd, gdd = dd[..., 0], dd[..., 1], dd[..., 2]
    v1 = add + gdd * sb + gd * bd * cb
    v2 = (bdd * ca - bd * ad * sa) - (gdd * sa * cb + gd * ad * ca * cb - gd * bd * sa * sb)
    v3 = (bdd * sa + bd * ad * ca) + (gdd * ca * cb - gd * ad * sa * cb - gd * bd * ca * sb)
    return np.stack((v1, v2, v3), axis=-1)


def matrix_to_bryant(S, tol: float = 1e-9):
    """Dextral (Bryant) angles of a transformation matrix (inverse of eq. 8.74).

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Proper orthogonal matrices, parent = S . body.
    tol : float
        Where ``cos(beta) < tol`` the orientation is on the singular set:
        only alpha + gamma (beta = +pi/2) or alpha - gamma (beta = -pi/2) is
        defined; gamma is then set to 0 and alpha carries the whole rotation.

    Returns
    -------
    ndarray, shape (..., 3)
        alpha, beta in [-pi/2, pi/2], gamma (rad); alpha, gamma in (-pi, pi].
    """
    S = np.asarray(S, dtype=float)
    cb = np.hypot(S[..., 0, 0], S[..., 0, 1])
    beta = np.arctan2(S[..., 0, 2], cb)
    alpha = np.arctan2(-S[..., 1, 2], S[..., 2, 2])
    gamma = np.arctan2(-S[..., 0, 1], S[..., 0, 0])
    singular = cb < tol
    if np.any(singular):
        alpha = np.where(singular, np.arctan2(S[..., 2, 1], S[..., 1, 1]), alpha)
        gamma = np.where(singular, 0.0, gamma)
    return np.stack((alpha, beta, gamma), axis=-1)

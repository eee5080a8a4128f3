"""The core's kinematics, Jacobians and dynamics against finite differences, with functions and couplers."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.core import (
    body_jacobian,
    forward_kinematics,
    inverse_dynamics,
    marker_jacobian,
    marker_positions,
    mass_matrix,
)

from ._trees import mixed_tree


@pytest.fixture(scope="module", params=[False, True], ids=["plain", "splines+coupler"])
def model(request):
    return mixed_tree(seed=5, couplers=request.param, splines=request.param)


def _trajectory(model, t):
    """A smooth motion: every coordinate a sum of sines, with its exact rates."""
    k = np.arange(model.nq)
    w, ph = 1.0 + 0.3 * k, 0.7 * k
    q = 0.6 * np.sin(np.outer(t, w) + ph)
    qd = 0.6 * w * np.cos(np.outer(t, w) + ph)
    qdd = -0.6 * w ** 2 * np.sin(np.outer(t, w) + ph)
    return q, qd, qdd


def test_marker_jacobian_is_the_derivative_of_the_markers(model):
    q = _trajectory(model, np.array([0.3, 1.1]))[0]
    data = forward_kinematics(model, q)
    J = marker_jacobian(model, data)
    h = 1e-6
    for c in range(model.nq):
        if c in {cp.dependent for cp in model.couplers}:
            assert np.all(J[..., c] == 0.0)
            continue
        qp, qm = q.copy(), q.copy()
        qp[:, c] += h
        qm[:, c] -= h
        fd = (marker_positions(model, forward_kinematics(model, qp))
              - marker_positions(model, forward_kinematics(model, qm))) / (2 * h)
        np.testing.assert_allclose(J[..., c], fd, atol=1e-8)


def test_velocities_and_accelerations_are_the_time_derivatives(model):
    t, h = np.array([0.4, 1.3]), 1e-5
    q, qd, qdd = _trajectory(model, t)
    data = forward_kinematics(model, q, qd, qdd)
    before, after = (forward_kinematics(model, *_trajectory(model, t + s)) for s in (-h, h))
    np.testing.assert_allclose(data.velocity, (after.origin - before.origin) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(data.acceleration, (after.velocity - before.velocity) / (2 * h), atol=1e-6)
    np.testing.assert_allclose(data.alpha, (after.omega - before.omega) / (2 * h), atol=1e-6)
    dR = (after.R - before.R) / (2 * h)  # R' = [omega]x R
    W = np.einsum("fbij,fbkj->fbik", dR, data.R)
    np.testing.assert_allclose(np.stack([W[..., 2, 1], W[..., 0, 2], W[..., 1, 0]], -1), data.omega, atol=1e-8)
    Jb = body_jacobian(model, data, np.arange(model.nbodies))
    np.testing.assert_allclose(np.einsum("fbic,fc->fbi", Jb[:, :, :3], data.qd), data.omega, atol=1e-12)
    np.testing.assert_allclose(np.einsum("fbic,fc->fbi", Jb[:, :, 3:], data.qd), data.velocity, atol=1e-12)


def _energy(model, q, qd):
    data = forward_kinematics(model, q, qd)
    r = np.einsum("fbij,bj->fbi", data.R, model.com)
    vG = data.velocity + np.cross(data.omega, r)
    G = data.origin + r
    Ig = np.einsum("fbij,bjk,fblk->fbil", data.R, model.inertia, data.R)
    kinetic = 0.5 * (np.einsum("b,fbi,fbi->f", model.mass, vG, vG) + np.einsum("fbi,fbij,fbj->f", data.omega, Ig,
                                                                              data.omega))
    return kinetic - np.einsum("b,fbi,i->f", model.mass, G, model.gravity)


def test_inverse_dynamics_does_the_work_of_the_energy(model):
    """Power balance: ``tau . q' = d(T + V)/dt`` along a motion (no external load)."""
    t, h = np.array([0.2, 0.9, 1.7]), 1e-5
    q, qd, qdd = _trajectory(model, t)
    data = forward_kinematics(model, q, qd, qdd)
    tau = inverse_dynamics(model, q, qd, qdd)
    dE = (_energy(model, *_trajectory(model, t + h)[:2]) - _energy(model, *_trajectory(model, t - h)[:2])) / (2 * h)
    np.testing.assert_allclose(np.einsum("fc,fc->f", tau, data.qd), dE, rtol=1e-7, atol=1e-6)


def test_mass_matrix_is_the_slope_of_inverse_dynamics_in_accelerations(model):
    q, qd, _ = _trajectory(model, np.array([0.5]))
    M = mass_matrix(model, q)
    assert np.allclose(M, np.swapaxes(M, 1, 2), atol=1e-13)
    free = [c for c in range(model.nq) if c not in {cp.dependent for cp in model.couplers}]
    assert np.all(np.linalg.eigvalsh(M[0][np.ix_(free, free)]) > 0.0)
    if model.couplers:
        return  # with couplers the rates of the dependent coordinates follow qdd: M is along the independent ones
    h0 = inverse_dynamics(model, q, qd, np.zeros_like(q))
    cols = np.stack([inverse_dynamics(model, q, qd, e[None]) - h0 for e in np.eye(model.nq)], axis=-1)
    np.testing.assert_allclose(M, cols, atol=1e-11)


def test_mass_matrix_gives_the_kinetic_energy(model):
    """``1/2 q'^T M q' = sum 1/2 (m |v_G|^2 + omega . I_g omega)``, with couplers along the independent rates."""
    q, qd, _ = _trajectory(model, np.array([0.3, 0.8, 1.6]))
    M = mass_matrix(model, q)
    without_gravity = _energy(model, q, qd) + np.einsum("b,fbi,i->f", model.mass,
                                                        forward_kinematics(model, q).points(
                                                            np.arange(model.nbodies), model.com), model.gravity)
    np.testing.assert_allclose(0.5 * np.einsum("fc,fcd,fd->f", qd, M, qd), without_gravity, rtol=1e-12)

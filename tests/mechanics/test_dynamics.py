"""Equations of motion: M symmetric positive definite, kinetic energy, inverse/forward round trip,
gravity as the gradient of the potential energy, and Pinocchio's crba, nonLinearEffects, rnea, aba."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _motion import random_model, random_tree

import humanbody as hb
from humanbody.mechanics.dynamics import bias_forces, forward_dynamics, inverse_dynamics, mass_matrix
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.rotations import SEQUENCES


def _models():
    rng = np.random.default_rng(0)
    default = hb.BodyModel.default(mass=70.0, height=1.7)
    mixed = default.replace(sequences=[SEQUENCES[i] for i in rng.integers(0, 12, 17)])
    tree = random_model(rng, random_tree(rng, 7)).replace(sequences=[SEQUENCES[i] for i in rng.integers(0, 12, 7)])
    return {"default": default, "mixed": mixed, "tree": tree}


MODELS = _models()


def _state(model, rng, F=6):
    n = 3 + 3 * model.n_bodies
    return rng.uniform(-1.2, 1.2, (F, n)), rng.normal(0, 1.5, (F, n)), rng.normal(0, 3, (F, n))


@pytest.mark.parametrize("name", list(MODELS))
def test_mass_matrix_symmetric_positive_and_kinetic_energy(name):
    model = MODELS[name]
    rng = np.random.default_rng(1)
    q, qd, _ = _state(model, rng)
    M = mass_matrix(model, q)
    np.testing.assert_allclose(M, np.swapaxes(M, 1, 2), atol=1e-12)
    assert np.all(np.linalg.eigvalsh(M) > 0)
    # 1/2 qd^T M qd equals the kinetic energy of compute()
    cols = coordinate_columns(model)
    data = {"time": np.arange(len(q), dtype=float)}
    for i, c in enumerate(cols):
        data[c], data[c + "_dot"], data[c + "_ddot"] = q[:, i], qd[:, i], 0.0 * q[:, i]
    ke = hb.compute(model, pd.DataFrame(data)).kinetic_energy()
    np.testing.assert_allclose(0.5 * np.einsum("fi,fij,fj->f", qd, M, qd), ke, rtol=1e-10)


@pytest.mark.parametrize("name", list(MODELS))
def test_inverse_then_forward_returns_the_accelerations(name):
    model = MODELS[name]
    q, qd, qdd = _state(model, np.random.default_rng(2))
    tau = inverse_dynamics(model, q, qd, qdd)
    np.testing.assert_allclose(forward_dynamics(model, q, qd, tau), qdd, rtol=1e-7, atol=1e-7)
    np.testing.assert_allclose(tau, np.einsum("fij,fj->fi", mass_matrix(model, q), qdd) + bias_forces(model, q, qd),
                               rtol=1e-9, atol=1e-8)
    # single configurations too
    np.testing.assert_allclose(inverse_dynamics(model, q[0], qd[0], qdd[0]), tau[0])


def test_gravity_is_the_gradient_of_the_potential_energy():
    model = MODELS["default"]
    rng = np.random.default_rng(3)
    q = rng.uniform(-1, 1, 3 + 3 * 17)
    g = bias_forces(model, q, np.zeros_like(q))  # at rest: the gravity terms
    cols = coordinate_columns(model)

    def pe(qq):
        data = {"time": [0.0, 1.0, 2.0], **{c: [v] * 3 for c, v in zip(cols, qq, strict=True)}}
        res = hb.compute(model, pd.DataFrame(data), differentiation="gradient")
        return -float(np.einsum("k,ki,i->", model.mass, res.com[0], model.gravity))

    h = 1e-6
    grad = np.array([(pe(q + h * e) - pe(q - h * e)) / (2 * h) for e in np.eye(len(q))])
    np.testing.assert_allclose(g, grad, atol=1e-5 * np.abs(grad).max())


@pytest.mark.parametrize("name", ["default", "mixed", "tree"])
def test_against_pinocchio(name):
    pin = pytest.importorskip("pinocchio")
    from tests.mechanics.test_pinocchio_kinematics import pinocchio_model

    model = MODELS[name]
    # Pinocchio's crba assumes each joint's subtree takes consecutive indices: number the bodies depth first
    order, stack = [], [1]
    while stack:
        k = stack.pop()
        order.append(k)
        stack += sorted(model.children(k), reverse=True)
    model = model.reordered(order)
    q, qd, qdd = _state(model, np.random.default_rng(4), F=4)
    pm, _ = pinocchio_model(model)
    data = pm.createData()
    M = mass_matrix(model, q)
    h = bias_forces(model, q, qd)
    tau = inverse_dynamics(model, q, qd, qdd)
    acc = forward_dynamics(model, q, qd, tau)
    for f in range(len(q)):
        Mp = pin.crba(pm, data, q[f])
        Mp = np.triu(Mp) + np.triu(Mp, 1).T
        np.testing.assert_allclose(M[f], Mp, atol=1e-10, rtol=1e-9)
        np.testing.assert_allclose(h[f], pin.nonLinearEffects(pm, data, q[f], qd[f]), atol=1e-9, rtol=1e-9)
        np.testing.assert_allclose(tau[f], pin.rnea(pm, data, q[f], qd[f], qdd[f]), atol=1e-9, rtol=1e-9)
        np.testing.assert_allclose(acc[f], pin.aba(pm, data, q[f], qd[f], tau[f]), atol=1e-7, rtol=1e-7)


def test_wrong_size_is_an_input_error():
    with pytest.raises(hb.InputError, match="54 columns"):
        mass_matrix(MODELS["default"], np.zeros(10))

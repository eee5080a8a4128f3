"""The mass matrix by the composite rigid body algorithm against independent evaluations of the same matrix:
columns of the recursive Newton-Euler inverse dynamics (unit accelerations at rest, no gravity), the kinetic
energy of the compiled kinematics, and, for the simulation's relative-angular-velocity speeds, the congruence
with the angle-coordinate matrix.  (Pinocchio's crba: tests/test_dynamics.py::test_against_pinocchio.)"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _motion import random_model, random_tree

import humanbody as hb
from humanbody.mechanics.dynamics import inverse_dynamics, mass_matrix
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.rotations import SEQUENCES
from humanbody.simulation.forward import System


def _models():
    rng = np.random.default_rng(10)
    default = hb.BodyModel.default(mass=70.0, height=1.7)
    seqs = lambda n: [SEQUENCES[i] for i in rng.integers(0, 12, n)]  # noqa: E731
    return {
        "default": default,
        "mixed": default.replace(sequences=seqs(17)),
        "chain": random_model(rng, list(range(6))).replace(sequences=seqs(6)),
        "branching": random_model(rng, random_tree(rng, 9)).replace(sequences=seqs(9)),
        "single": random_model(rng, [0]).replace(sequences=seqs(1)),
        "two_on_ground": random_model(rng, [0, 1, 0, 3, 3]).replace(sequences=seqs(5)),
    }


MODELS = _models()


def _by_inverse_dynamics(model, q):
    """Column i: the generalized forces of the unit acceleration e_i at rest without gravity, (F, n, n)."""
    F, n = q.shape
    still = model.replace(gravity=[0.0, 0.0, 0.0])
    qq = np.repeat(q, n, axis=0)
    cols = inverse_dynamics(still, qq, np.zeros_like(qq), np.tile(np.eye(n), (F, 1))).reshape(F, n, n)
    return np.swapaxes(cols, 1, 2)


@pytest.mark.parametrize("name", list(MODELS))
def test_equals_the_inverse_dynamics_columns(name):
    model = MODELS[name]
    rng = np.random.default_rng(11)
    q = rng.uniform(-2.5, 2.5, (5, 3 + 3 * model.n_bodies))
    M = mass_matrix(model, q)
    ref = _by_inverse_dynamics(model, q)
    for f in range(len(q)):
        assert np.abs(M[f] - ref[f]).max() <= 1e-12 * np.abs(ref[f]).max()
    np.testing.assert_array_equal(M, np.swapaxes(M, 1, 2))  # symmetric by construction
    assert np.all(np.linalg.eigvalsh(M) > 0)
    np.testing.assert_array_equal(mass_matrix(model, q[2]), M[2])  # one configuration, same numbers


@pytest.mark.parametrize("name", list(MODELS))
def test_kinetic_energy_of_the_segments(name):
    """1/2 qd^T M qd = sum over segments of 1/2 m v.v + 1/2 w.I w, v and w from compute()."""
    model = MODELS[name]
    rng = np.random.default_rng(12)
    n = 3 + 3 * model.n_bodies
    q, qd = rng.uniform(-2.5, 2.5, (7, n)), rng.normal(0, 2.0, (7, n))
    cols = coordinate_columns(model)
    data = {"time": np.arange(len(q), dtype=float)}
    for i, c in enumerate(cols):
        data[c], data[c + "_dot"], data[c + "_ddot"] = q[:, i], qd[:, i], 0.0 * q[:, i]
    res = hb.compute(model, pd.DataFrame(data))
    Ig = np.einsum("fkia,kab,fkjb->fkij", res.R, model.inertia, res.R)
    ke = 0.5 * (np.einsum("k,fki,fki->f", model.mass, res.com_vel, res.com_vel)
                + np.einsum("fki,fkij,fkj->f", res.omega, Ig, res.omega))
    np.testing.assert_allclose(0.5 * np.einsum("fi,fij,fj->f", qd, mass_matrix(model, q), qd), ke, rtol=1e-12)


@pytest.mark.parametrize("name", ["default", "branching", "two_on_ground"])
def test_simulation_matrix_in_relative_angular_velocities(name):
    """The simulation's M_u (speeds u = (x', w_k)) is congruent to M: M = T^T M_u T with u = T qd, and its
    kinetic energy is the segments' at the state's own velocities."""
    model = MODELS[name]
    rng = np.random.default_rng(13)
    system = System(model, gravity=False)
    n, N = system.n, system.N
    q, qd = rng.uniform(-1.2, 1.2, n), rng.normal(0, 2.0, n)
    ev = system.evaluate(0.0, system.state(q, qd))
    Mu = ev["M"]
    np.testing.assert_array_equal(Mu, Mu.T)
    T = np.zeros((n, n))
    T[:3, :3] = np.eye(3)
    H = system.rate_matrices(q[3:].reshape(N, 3))
    for k in range(N):
        T[3 + 3 * k:6 + 3 * k, 3 + 3 * k:6 + 3 * k] = H[k]
    M = mass_matrix(model, q)
    np.testing.assert_allclose(T.T @ Mu @ T, M, atol=1e-11 * np.abs(M).max())
    data = ev["data"]
    Ig = np.einsum("kia,kab,kjb->kij", data.R[0], model.inertia, data.R[0])
    com_vel = data.velocity[0] + np.cross(data.omega[0], ev["com"] - data.origin[0])
    ke = 0.5 * (np.einsum("k,ki,ki->", model.mass, com_vel, com_vel)
                + np.einsum("ki,kij,kj->", data.omega[0], Ig, data.omega[0]))
    np.testing.assert_allclose(0.5 * ev["u"] @ Mu @ ev["u"], ke, rtol=1e-12)

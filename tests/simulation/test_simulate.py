"""Forward simulation: energy, an exact pendulum period, momentum of a free body, Euler parameters through
a Cardan singular set, and inverse dynamics of a simulated trial returning its torques."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from scipy.special import ellipk

import humanbody as hb
from humanbody.rotations import quaternion_to_matrix
from humanbody.simulation.forward import System
from humanbody.simulation.passive import Contacts, JointSprings, inverse_left_jacobian, rotation_vector

MODEL = hb.BodyModel.default(mass=75.0, height=1.75)


def _body(names, parents, joint, com, mass, inertia, seqs, gravity=(0, 0, -9.81)):
    return hb.BodyModel(names=names, parents=parents, joint_offset=joint, com_offset=com, mass=mass, inertia=inertia,
                        sequences=seqs, gravity=gravity)


def _identity_springs(N, k=0.0, c=0.0):
    return JointSprings(np.full((N, 3), k), np.full((N, 3), c), np.tile([0.0, 0.0, 0.0, 1.0], (N, 1)))


def test_rotation_vector_and_jacobian():
    rng = np.random.default_rng(0)
    phi = rng.normal(0, 1.0, (20, 3))
    phi *= np.minimum(1.0, 3.0 / np.linalg.norm(phi, axis=1, keepdims=True))
    e = Rotation.from_rotvec(phi).as_quat()
    np.testing.assert_allclose(rotation_vector(e), phi, atol=1e-12)
    np.testing.assert_allclose(rotation_vector(-e), phi, atol=1e-12)
    # J_r(phi) phi' = w_body: finite differences of exp(phi)
    h = 1e-6
    for p in phi[:5]:
        Jr = np.empty((3, 3))
        R = Rotation.from_rotvec(p).as_matrix()
        for i in range(3):
            dp = np.zeros(3)
            dp[i] = h
            dR = (Rotation.from_rotvec(p + dp).as_matrix() - Rotation.from_rotvec(p - dp).as_matrix()) / (2 * h)
            W = R.T @ dR
            Jr[:, i] = [W[2, 1], W[0, 2], W[1, 0]]
        np.testing.assert_allclose(inverse_left_jacobian(p), np.linalg.inv(Jr).T, atol=1e-7)


@pytest.mark.slow
def test_undamped_body_conserves_energy():
    rng = np.random.default_rng(1)
    n = 54
    q0 = np.zeros(n)
    q0[2] = 1.0
    q0[6:] = rng.uniform(-0.4, 0.4, n - 6)
    qd0 = rng.normal(0, 0.5, n)
    springs = JointSprings(np.r_[[[0.0, 0, 0]], np.full((16, 3), 15.0)], np.zeros((17, 3)),
                           Rotation.from_euler("xyz", rng.uniform(-0.2, 0.2, (17, 3))).as_quat())
    sim = hb.simulate(MODEL, 2.0, q0, qd0, springs=springs, rtol=1e-10, atol=1e-10, rate_hz=20, method="DOP853")
    s = sim.system
    E = np.array([s.energy(t, y) for t, y in zip(sim.coordinates.time, sim.states, strict=True)])
    assert np.ptp(E) / abs(E[0]) <= 1e-6
    # and it is not a trivially still body: the kinetic energy changes
    ke = hb.compute(MODEL, sim.coordinates).kinetic_energy()
    assert np.ptp(ke) > 10.0


@pytest.mark.slow
def test_contact_spring_conserves_energy():
    """A body dropped on an undamped floor spring bounces without losing energy."""
    n = 54
    q0 = np.zeros(n)
    q0[2] = 1.05
    foot = MODEL.names.index("right_foot")
    contacts = Contacts(body=[foot, foot + 3], point=[[0.05, 0, -0.08]] * 2, height=0.0, stiffness=2e5, damping=0.0)
    sim = hb.simulate(MODEL, 0.6, q0, springs=_identity_springs(17, 300.0), contacts=contacts, rtol=1e-10,
                      atol=1e-10, rate_hz=200, max_step=1e-3, method="DOP853")
    s = sim.system
    E = np.array([s.energy(t, y) for t, y in zip(sim.coordinates.time, sim.states, strict=True)])
    assert sim.contacts["contact1_force_z"].max() > 300.0  # it did land
    assert np.ptp(E) / abs(E[0]) <= 1e-6


@pytest.mark.parametrize("theta0_deg", [5.0, 90.0, 150.0])
def test_pendulum_period_is_the_elliptic_integral(theta0_deg):
    m, d = 3.0, 0.4
    I = np.diag([0.05, 0.04, 0.01])
    model = _body(["base", "bob"], [0, 1], np.zeros((2, 3)), [[0, 0, 0], [0, 0, -d]], [10.0, m],
                  [np.eye(3) * 0.1, I], ["xyz", "yxz"])
    th0 = np.radians(theta0_deg)
    q0 = np.zeros(9)
    q0[6] = th0
    sim = hb.simulate(model, 4.0, q0, locked=["base"], rtol=1e-11, atol=1e-12, rate_hz=400, method="DOP853")
    c = sim.coordinates
    a, ad, t = c["bob_alpha"].to_numpy(), c["bob_alpha_dot"].to_numpy(), c["time"].to_numpy()
    i = np.nonzero((a[:-1] > 0) & (a[1:] <= 0))[0]  # downward crossings of the vertical
    j = np.where(np.abs(a[i]) < np.abs(a[i + 1]), i, i + 1)
    crossing = t[j] - a[j] / ad[j]  # a Newton step: a'' = 0 at the vertical
    I_O = I[1, 1] + m * d * d
    period = 4.0 * np.sqrt(I_O / (m * 9.81 * d)) * ellipk(np.sin(th0 / 2) ** 2)
    assert len(crossing) >= 2
    np.testing.assert_allclose(np.diff(crossing), period, rtol=1e-7)
    np.testing.assert_allclose(c[["bob_beta", "bob_gamma"]].to_numpy(), 0.0, atol=1e-9)  # stays planar
    np.testing.assert_allclose(c[["base_x", "base_z", "base_alpha"]].to_numpy(), 0.0)  # locked


def test_free_body_conserves_momentum():
    rng = np.random.default_rng(2)
    n = 54
    q0 = rng.uniform(-0.5, 0.5, n)
    qd0 = rng.normal(0, 1.0, n)
    sim = hb.simulate(MODEL, 1.0, q0, qd0, gravity=False, rtol=1e-11, atol=1e-11, rate_hz=50, method="DOP853")
    res = hb.compute(MODEL, sim.coordinates)
    P = np.einsum("k,fki->fi", MODEL.mass, res.com_vel)
    L = (np.einsum("k,fki->fi", MODEL.mass, np.cross(res.com, res.com_vel))
         + np.einsum("fkij,fkj->fi", res.inertia, res.omega))
    np.testing.assert_allclose(P - P[0], 0.0, atol=1e-8 * np.abs(P[0]).max())
    np.testing.assert_allclose(L - L[0], 0.0, atol=1e-8 * np.abs(L[0]).max())
    assert np.ptp(res.omega[:, 5], axis=0).max() > 1.0  # the hands do swing


def test_euler_parameters_pass_the_cardan_singular_set():
    """A body spinning about its principal y axis at 3 rad/s: its xyz angle beta passes 90 deg (where the angle
    rates are singular); the Euler parameters follow the exact rotation R = roty(w t) through it."""
    model = _body(["top"], [0], [[0, 0, 0]], [[0, 0, 0]], [2.0], [np.diag([0.02, 0.03, 0.05])], ["xyz"],
                  gravity=(0, 0, 0))
    w = 3.0
    qd0 = np.zeros(6)
    qd0[4] = w
    sim = hb.simulate(model, 1.5, np.zeros(6), qd0, rtol=1e-11, atol=1e-12, rate_hz=100, method="DOP853")
    t = sim.coordinates.time.to_numpy()
    exact = Rotation.from_euler("y", (w * t)[:, None]).as_matrix()
    np.testing.assert_allclose(quaternion_to_matrix(sim.quaternions[:, 0]), exact, atol=1e-9)
    assert np.abs(sim.coordinates["top_beta"]).max() > np.radians(89.0)
    # a tumbling asymmetric body through the same set: angular momentum and energy hold
    qd0 = np.array([0, 0, 0, 0.05, 4.0, 0.1])
    sim = hb.simulate(model, 3.0, np.zeros(6), qd0, rtol=1e-11, atol=1e-12, rate_hz=100, method="DOP853")
    R = quaternion_to_matrix(sim.quaternions[:, 0])
    w = sim.states[:, -3:]
    L = np.einsum("fij,jk,flk,fl->fi", R, model.inertia[0], R, w)
    np.testing.assert_allclose(L - L[0], 0.0, atol=1e-9)
    assert np.abs(np.cos(sim.coordinates["top_beta"])).min() < 0.05


def test_inverse_dynamics_of_a_simulated_trial_returns_its_torques():
    n = 54
    q0 = np.zeros(n)
    q0[2] = 1.0
    q0[3 + 3 * 12] = 0.5  # right hip flexed
    springs = JointSprings(np.r_[[[0.0, 0, 0]], np.full((16, 3), 40.0)], np.r_[[[0.0, 0, 0]], np.full((16, 3), 2.0)],
                           np.tile([0.0, 0.0, 0.0, 1.0], (17, 1)))
    knee = hb.coordinate_columns(MODEL).index("right_lower_leg_alpha")

    def torques(t, q, qd):
        tau = np.zeros(n)
        tau[knee] = 8.0 * np.sin(2 * np.pi * 1.5 * t)
        tau[3:6] = -5.0 * qd[3:6]  # the pelvis's orientation damped by a state feedback
        return tau

    sim = hb.simulate(MODEL, 1.0, q0, torques=torques, springs=springs, rate_hz=100)
    c = sim.coordinates
    cols = hb.coordinate_columns(MODEL)
    q, qd, qdd = (c[[x + s for x in cols]].to_numpy() for s in ("", "_dot", "_ddot"))
    tau = hb.inverse_dynamics(MODEL, q, qd, qdd)
    want = sim.torques[[x + "_tau" for x in cols]].to_numpy()
    np.testing.assert_allclose(tau, want, atol=1e-6 * np.abs(want).max())
    assert np.abs(want[:, knee]).max() > 5.0
    # exact rates: the given _dot and _ddot columns are the derivatives of the coordinates
    from scipy.interpolate import CubicSpline

    spline = CubicSpline(c.time, q)
    np.testing.assert_allclose(spline(c.time, 1)[5:-5], qd[5:-5], atol=2e-3 * np.abs(qd).max())
    np.testing.assert_allclose(spline(c.time, 2)[5:-5], qdd[5:-5], atol=2e-2 * np.abs(qdd).max())


def test_many_states_at_once_equal_one_by_one():
    """The vectorised equations (the implicit integrators' Jacobians) equal the single-state ones, contacts,
    springs, torques and locked joints included."""
    rng = np.random.default_rng(5)
    n = 54
    foot = MODEL.names.index("right_foot")
    contacts = Contacts(body=[foot, foot], point=[[-0.04, 0, -0.075], [0.16, 0, -0.075]], height=0.05,
                        stiffness=5e4, damping=300.0, tangential_stiffness=1e4, tangential_damping=100.0,
                        anchor=[[0.3, -0.1], [0.5, -0.1]], moving=True)
    springs = JointSprings(np.full((17, 3), 50.0), np.full((17, 3), 2.0), np.tile([0.0, 0.0, 0.0, 1.0], (17, 1)),
                           preload=rng.normal(0, 3, (17, 3)))
    system = System(
        MODEL, torques=lambda t, q, qd: np.sin(t) * np.arange(n) / n - 0.5 * qd, springs=springs,
        contacts=contacts, base=lambda t: (1e-3 * np.sin(t), 1e-3 * np.cos(t)), locked=["left_hand"])
    q = rng.uniform(-0.6, 0.6, (9, n))
    q[:, 2] = 0.95
    Y = np.stack([system.state(qq, rng.normal(0, 1, n)) for qq in q], axis=1)
    many = system.rhs(0.3, Y)
    one = np.stack([system.rhs(0.3, Y[:, j]) for j in range(Y.shape[1])], axis=1)
    np.testing.assert_allclose(many, one, rtol=1e-12, atol=1e-9)
    assert np.any([system.evaluate(0.3, Y[:, j])["contact_forces"][:, 2].max() > 0 for j in range(9)])

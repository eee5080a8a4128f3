"""The core against Pinocchio on a random tree with every joint type: poses, velocities, RNEA, mass matrix."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.core import forward_kinematics, inverse_dynamics, mass_matrix

from ._trees import mixed_tree, pinocchio_twin

pin = pytest.importorskip("pinocchio")


@pytest.fixture(scope="module")
def twin():
    model = mixed_tree(seed=3)
    pm, where = pinocchio_twin(pin, model)
    assert pm.nq == model.nq and pm.nv == model.nq
    rng = np.random.default_rng(7)
    F = 6
    q, qd, qdd = (rng.normal(size=(F, model.nq)) for _ in range(3))
    return model, pm, where, q, qd, qdd


def _pin_pose(pd, where, b):
    jid, X = where[b]
    return pd.oMi[jid] * X


def test_poses_and_velocities_match_pinocchio(twin):
    model, pm, where, q, qd, qdd = twin
    data = forward_kinematics(model, q, qd, qdd)
    pd = pm.createData()
    for f in range(q.shape[0]):
        pin.forwardKinematics(pm, pd, q[f], qd[f], qdd[f])
        for b in range(model.nbodies):
            M = _pin_pose(pd, where, b)
            np.testing.assert_allclose(data.R[f, b], M.rotation, atol=1e-12)
            np.testing.assert_allclose(data.origin[f, b], M.translation, atol=1e-12)
            jid, X = where[b]
            v = pd.oMi[jid].act(pd.v[jid])  # spatial velocity, world frame at the world origin
            a = pd.oMi[jid].act(pd.a[jid])
            np.testing.assert_allclose(data.omega[f, b], v.angular, atol=1e-12)
            o = data.origin[f, b]
            np.testing.assert_allclose(data.velocity[f, b], v.linear + np.cross(v.angular, o), atol=1e-12)
            np.testing.assert_allclose(data.alpha[f, b], a.angular, atol=1e-12)
            # classical acceleration of the origin: a_spatial + w x v_point
            vo = v.linear + np.cross(v.angular, o)
            classical = a.linear + np.cross(a.angular, o) + np.cross(v.angular, vo)
            np.testing.assert_allclose(data.acceleration[f, b], classical, atol=1e-12)


def test_inverse_dynamics_matches_rnea(twin):
    model, pm, where, q, qd, qdd = twin
    rng = np.random.default_rng(11)
    external = rng.normal(size=(q.shape[0], model.nbodies, 6)) * 5.0
    tau = inverse_dynamics(model, q, qd, qdd, external)
    data = forward_kinematics(model, q)
    pd = pm.createData()
    for f in range(q.shape[0]):
        pin.forwardKinematics(pm, pd, q[f])
        fext = [pin.Force.Zero() for _ in range(pm.njoints)]
        for b in range(model.nbodies):
            jid, _ = where[b]
            oMi = pd.oMi[jid]
            force, moment = external[f, b, :3], external[f, b, 3:]
            about_joint = moment + np.cross(data.origin[f, b] - oMi.translation, force)
            fext[jid] += pin.Force(oMi.rotation.T @ force, oMi.rotation.T @ about_joint)
        ref = pin.rnea(pm, pd, q[f], qd[f], qdd[f], fext)
        assert np.abs(tau[f] - ref).max() <= 1e-12 * max(1.0, np.abs(ref).max())


def test_mass_matrix_matches_pinocchio(twin):
    """M's columns are Pinocchio's ``rnea(q, 0, e_i) - rnea(q, 0, 0)``.

    (Pinocchio 4.1's ``crba`` on this tree disagrees with its own ``rnea`` columns, in
    both conventions, so the reference is the latter.)
    """
    model, pm, _, q, _, _ = twin
    M = mass_matrix(model, q)
    pd = pm.createData()
    zero = np.zeros(model.nq)
    for f in range(q.shape[0]):
        h = pin.rnea(pm, pd, q[f], zero, zero)
        ref = np.column_stack([pin.rnea(pm, pd, q[f], zero, e) - h for e in np.eye(model.nq)])
        np.testing.assert_allclose(M[f], ref, atol=1e-12)

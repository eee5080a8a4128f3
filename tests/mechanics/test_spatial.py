"""Spatial vectors against their definitions: duality, composition, inverse, cross products, inertia."""

import _spatial as sp
import numpy as np

from humanbody.rotations import euler_to_matrix

rng = np.random.default_rng(0)


def _transform():
    E = euler_to_matrix(rng.uniform(-3, 3, 3), "xyz").T  # A -> B coordinates
    return E, rng.normal(size=3)


def test_elementary_rotations_are_coordinate_transforms():
    th = 0.4
    np.testing.assert_allclose(sp.rotz(th) @ [1.0, 0, 0], [np.cos(th), -np.sin(th), 0])  # x of A seen from B
    for f, axis in ((sp.rotx, 0), (sp.roty, 1), (sp.rotz, 2)):
        np.testing.assert_allclose(f(th), euler_to_matrix(np.eye(3)[axis] * th, "xyz").T, atol=1e-15)


def test_duality_power_is_invariant():
    E, r = _transform()
    X, Xf = sp.motion_transform(E, r), sp.force_transform(E, r)
    v, f = rng.normal(size=6), rng.normal(size=6)
    assert np.isclose((X @ v) @ (Xf @ f), v @ f)
    np.testing.assert_allclose(Xf, np.linalg.inv(X).T, atol=1e-12)


def test_composition_and_inverse():
    E1, r1 = _transform()
    E2, r2 = _transform()
    X12 = sp.motion_transform(E2, r2) @ sp.motion_transform(E1, r1)
    np.testing.assert_allclose(X12, sp.motion_transform(E2 @ E1, r1 + E1.T @ r2), atol=1e-12)
    np.testing.assert_allclose(sp.inverse_motion_transform(E1, r1) @ sp.motion_transform(E1, r1), np.eye(6),
                               atol=1e-12)


def test_cross_products():
    v, u, f = rng.normal(size=6), rng.normal(size=6), rng.normal(size=6)
    np.testing.assert_allclose(sp.crf(v), -sp.crm(v).T)
    np.testing.assert_allclose(sp.crm(v) @ v, 0.0, atol=1e-12)  # v x v = 0
    assert np.isclose((sp.crm(v) @ u) @ f, -u @ (sp.crf(v) @ f))  # duality of the two products
    # the velocity of a point: the linear part at O moved to another point by the transform
    E, r = np.eye(3), rng.normal(size=3)
    w, vO = v[:3], v[3:]
    np.testing.assert_allclose((sp.motion_transform(E, r) @ v)[3:], vO + np.cross(w, r), atol=1e-12)


def test_inertia_energy_and_parts():
    m, c = 3.2, rng.normal(size=3) * 0.1
    A = rng.normal(size=(3, 3))
    I_c = A @ A.T + np.eye(3) * 0.1
    I = sp.spatial_inertia(m, c, I_c)
    np.testing.assert_allclose(I, I.T, atol=1e-14)
    back = sp.inertia_parts(I)
    np.testing.assert_allclose(back[0], m)
    np.testing.assert_allclose(back[1], c, atol=1e-14)
    np.testing.assert_allclose(back[2], I_c, atol=1e-13)
    v = rng.normal(size=6)
    w, vO = v[:3], v[3:]
    vG = vO + np.cross(w, c)
    ke = 0.5 * m * vG @ vG + 0.5 * w @ I_c @ w
    assert np.isclose(0.5 * v @ I @ v, ke)
    E, r = _transform()  # energy does not depend on the coordinates: I_B = X* I_A X^-1
    X, Xf = sp.motion_transform(E, r), sp.force_transform(E, r)
    IB = Xf @ I @ np.linalg.inv(X)
    assert np.isclose(0.5 * (X @ v) @ IB @ (X @ v), ke)

"""Tests of humanbody.rotations against scipy, Huston's explicit equations,
finite differences and invariants."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.integrate import solve_ivp
from scipy.spatial.transform import Rotation

from humanbody import rotations as rot
from humanbody.errors import InputError, SingularityWarning
from humanbody.mechanics import angular_rates as ar

CONVENTIONS = ("matrix", "quaternion", "rotvec") + rot.SEQUENCES
SCIPY_SEQ = {s: s.upper() for s in rot.SEQUENCES}  # scipy: upper case = intrinsic (body-fixed) axes
SINGULAR_MIDDLE = {s: (0.0, np.pi) if s in rot.EULER else (np.pi / 2, -np.pi / 2) for s in rot.SEQUENCES}
OFFSETS = (0.0, 1e-8, 1e-7, 1e-6, 1e-5, 1e-4, 1e-3)


@pytest.fixture(scope="module")
def random_S():
    return Rotation.random(2000, random_state=20240607).as_matrix()


def _near_singular_angles(seq, rng, n=40):
    """Angles exactly at and within 1e-8 .. 1e-3 of the singular set of seq."""
    out = []
    for mid in SINGULAR_MIDDLE[seq]:
        for d in OFFSETS:
            for sign in (1.0, -1.0):
                a = rng.uniform(-np.pi, np.pi, (n, 3))
                a[:, 1] = mid + sign * d
                out.append(a)
    return np.concatenate(out)


@pytest.fixture(scope="module")
def near_singular_S():
    rng = np.random.default_rng(7)
    return np.concatenate([rot.euler_to_matrix(_near_singular_angles(s, rng), s) for s in rot.SEQUENCES])


def _assert_rotation(S, atol=1e-13):
    eye = np.broadcast_to(np.eye(3), S.shape)
    np.testing.assert_allclose(S @ np.swapaxes(S, -1, -2), eye, atol=atol)
    np.testing.assert_allclose(np.linalg.det(S), 1.0, atol=atol)


# --------------------------------------------------------------------------- conversions


@pytest.mark.parametrize("src,dst", list(itertools.product(CONVENTIONS, CONVENTIONS)))
def test_round_trip_every_pair(src, dst, random_S, near_singular_S):
    S = np.concatenate((random_S, near_singular_S))
    a = rot.convert(S, "matrix", src)
    b = rot.convert(a, src, dst)
    back = rot.convert(b, dst, "matrix")
    np.testing.assert_allclose(back, S, atol=2e-12)
    # and back to the source convention itself, compared as orientations
    np.testing.assert_allclose(rot.convert(rot.convert(b, dst, src), src, "matrix"), S, atol=2e-12)


def test_matrices_are_proper_orthogonal(random_S):
    rng = np.random.default_rng(1)
    angles = rng.uniform(-4, 4, (2000, 3))
    for seq in rot.SEQUENCES:
        _assert_rotation(rot.euler_to_matrix(angles, seq))
    _assert_rotation(rot.quaternion_to_matrix(rng.normal(size=(2000, 4))))
    _assert_rotation(rot.axis_angle_to_matrix(rng.normal(size=(2000, 3)), rng.uniform(-7, 7, 2000)))


def test_quaternions_unit_canonical_and_robust(random_S, near_singular_S):
    S = np.concatenate((random_S, near_singular_S))
    q = rot.matrix_to_quaternion(S)
    np.testing.assert_allclose(np.linalg.norm(q, axis=-1), 1.0, atol=1e-15)
    assert np.all(q[:, 3] >= 0)
    # half-turns (eps4 = 0) where the trace method fails: the axis is recovered
    axes = np.random.default_rng(3).normal(size=(200, 3))
    axes /= np.linalg.norm(axes, axis=1, keepdims=True)
    q_pi = rot.matrix_to_quaternion(rot.axis_angle_to_matrix(axes, np.pi))
    np.testing.assert_allclose(np.abs(q_pi[:, :3]), np.abs(axes), atol=1e-15)
    np.testing.assert_allclose(q_pi[:, 3], 0.0, atol=1e-15)
    ax, th = rot.matrix_to_axis_angle(np.eye(3))
    assert th == 0.0 and np.array_equal(ax, [1.0, 0.0, 0.0])


def test_continuous_quaternions_along_time_axis():
    t = np.linspace(0, 10, 1001)
    angles = np.stack((3.0 * np.sin(t), 1.2 * np.cos(0.7 * t), 4.0 * t), axis=-1)
    S = rot.euler_to_matrix(angles, "xyz")
    q = rot.matrix_to_quaternion(S, continuous=True)
    assert np.all(np.sum(q[1:] * q[:-1], axis=-1) > 0)
    assert q[0, 3] >= 0
    q_plain = rot.matrix_to_quaternion(S)
    assert np.any(np.sum(q_plain[1:] * q_plain[:-1], axis=-1) < 0)  # the case continuous fixes
    np.testing.assert_allclose(rot.quaternion_to_matrix(q), S, atol=1e-14)
    # leading dimensions beyond time are kept: (frames, segments, 4)
    q2 = rot.matrix_to_quaternion(np.stack((S, S[::-1]), axis=1), continuous=True)
    assert q2.shape == (1001, 2, 4)
    assert np.all(np.sum(q2[1:] * q2[:-1], axis=-1) > 0)


@pytest.mark.parametrize("seq", rot.SEQUENCES)
def test_agrees_with_scipy_where_conventions_coincide(seq, random_S):
    scipy_rot = Rotation.from_matrix(random_S)
    # intrinsic (capital-letter) sequences of scipy are successive body-fixed rotations
    angles = rot.matrix_to_euler(random_S, seq)
    np.testing.assert_allclose(angles, scipy_rot.as_euler(SCIPY_SEQ[seq]), atol=1e-12)
    rng = np.random.default_rng(5)
    a = rng.uniform(-4, 4, (500, 3))
    # euler_to_matrix (scipy's from_euler) against the product of Huston's elementary matrices (8.64-8.70)
    M = [rot.common.elementary(rot.sequence_axes(seq)[n], a[:, n]) for n in range(3)]
    np.testing.assert_allclose(rot.euler_to_matrix(a, seq), M[0] @ M[1] @ M[2], atol=1e-14)
    # scipy's quaternion is scalar-last as ours, its matrices are parent <- body
    np.testing.assert_allclose(rot.matrix_to_quaternion(random_S), scipy_rot.as_quat(canonical=True), atol=1e-14)
    q = rng.normal(size=(500, 4))
    e1, e2, e3, e4 = (q / np.linalg.norm(q, axis=1, keepdims=True)).T  # eq. 8.176 written out
    huston = np.stack([np.stack([e1 * e1 - e2 * e2 - e3 * e3 + e4 * e4, 2 * (e1 * e2 - e3 * e4), 2 * (e1 * e3 + e2 * e4)], -1),
                       np.stack([2 * (e1 * e2 + e3 * e4), -e1 * e1 + e2 * e2 - e3 * e3 + e4 * e4, 2 * (e2 * e3 - e1 * e4)], -1),
                       np.stack([2 * (e1 * e3 - e2 * e4), 2 * (e2 * e3 + e1 * e4), -e1 * e1 - e2 * e2 + e3 * e3 + e4 * e4], -1)], 1)
    np.testing.assert_allclose(rot.quaternion_to_matrix(q), huston, atol=1e-14)
    # the quaternion of a sequence's angles (scipy) against the product of its axis quaternions (eq. 8.166)
    qs = None
    for n, axis in enumerate(rot.sequence_axes(seq)):
        f = np.zeros((len(a), 4))
        f[:, axis], f[:, 3] = np.sin(a[:, n] / 2), np.cos(a[:, n] / 2)
        qs = f if qs is None else rot.quaternion_product(qs, f)
    qs *= np.where(qs[:, 3:] < 0, -1.0, 1.0)
    np.testing.assert_allclose(rot.sequence_to_quaternion(a, seq), qs, atol=1e-14)
    np.testing.assert_allclose(rot.convert(random_S, "matrix", "rotvec"), scipy_rot.as_rotvec(), atol=1e-13)


def test_huston_explicit_matrices():
    rng = np.random.default_rng(11)
    t1, t2, t3 = rng.uniform(-4, 4, (3, 300))
    s1, s2, s3, c1, c2, c3 = np.sin(t1), np.sin(t2), np.sin(t3), np.cos(t1), np.cos(t2), np.cos(t3)
    S = rot.euler_to_matrix(np.stack((t1, t2, t3), -1), "zxz")
    # eqs. 8.84-8.91: rows are N_i in n components, columns n_j in N components
    np.testing.assert_allclose(S[:, 0, :], np.stack((c1 * c3 - s1 * c2 * s3, -c1 * s3 - s1 * c2 * c3, s1 * s2), -1),
                               atol=1e-15)
    np.testing.assert_allclose(S[:, 1, :], np.stack((c1 * c2 * s3 + s1 * c3, c1 * c2 * c3 - s1 * s3, -c1 * s2), -1),
                               atol=1e-15)
    np.testing.assert_allclose(S[:, 2, :], np.stack((s2 * s3, s2 * c3, c2), -1), atol=1e-15)
    np.testing.assert_allclose(S[:, :, 1], np.stack((-s3 * c1 - c3 * c2 * s1, -s3 * s1 + c3 * c2 * c1, c3 * s2), -1),
                               atol=1e-15)
    # eq. 8.74 is S = A B C with the elementary matrices of 8.64, 8.67, 8.70
    a = rng.uniform(-4, 4, (300, 3))
    (ca, cb, cg), (sa, sb, sg), one, zero = np.cos(a.T), np.sin(a.T), np.ones(300), np.zeros(300)
    A = np.stack((np.stack((one, zero, zero), -1), np.stack((zero, ca, -sa), -1), np.stack((zero, sa, ca), -1)), 1)
    B = np.stack((np.stack((cb, zero, sb), -1), np.stack((zero, one, zero), -1), np.stack((-sb, zero, cb), -1)), 1)
    C = np.stack((np.stack((cg, -sg, zero), -1), np.stack((sg, cg, zero), -1), np.stack((zero, zero, one), -1)), 1)
    np.testing.assert_allclose(rot.bryant_to_matrix(a), A @ B @ C, atol=1e-15)
    # eq. 8.166: Euler parameters of axis l and angle theta, scalar last
    l = np.array([2.0, -1.0, 2.0]) / 3.0
    q = rot.axis_angle_to_quaternion(l, 0.8)
    np.testing.assert_allclose(q, np.r_[l * np.sin(0.4), np.cos(0.4)], atol=1e-16)
    ax, th = rot.quaternion_to_axis_angle(q)
    np.testing.assert_allclose(ax, l, atol=1e-15)
    assert th == pytest.approx(0.8, abs=1e-15)


@pytest.mark.parametrize("seq", rot.SEQUENCES)
def test_singular_set_is_deterministic(seq):
    rng = np.random.default_rng(13)
    angles = rng.uniform(-3, 3, (200, 3))
    for mid in SINGULAR_MIDDLE[seq]:
        angles[:, 1] = mid
        S = rot.euler_to_matrix(angles, seq)
        out = rot.matrix_to_euler(S, seq)
        assert np.all(out[:, 2] == 0.0)  # third angle exactly zero, the first carries it all
        np.testing.assert_allclose(rot.euler_to_matrix(out, seq), S, atol=1e-14)
        np.testing.assert_array_equal(rot.matrix_to_euler(S, seq), out)
        assert np.all(rot.is_singular(out, seq, tol=1e-12))


@pytest.mark.parametrize("seq", rot.SEQUENCES)
def test_angle_ranges_and_recovery_away_from_singularity(seq):
    rng = np.random.default_rng(17)
    a = rng.uniform(-np.pi, np.pi, (2000, 3))
    if seq in rot.EULER:
        a[:, 1] = rng.uniform(0.01, np.pi - 0.01, 2000)
    else:
        a[:, 1] = rng.uniform(-np.pi / 2 + 0.01, np.pi / 2 - 0.01, 2000)
    np.testing.assert_allclose(rot.matrix_to_euler(rot.euler_to_matrix(a, seq), seq), a, atol=1e-12)


# --------------------------------------------------------------------------- rotation dyadic


def test_rotation_dyadic_rotates_vectors_as_eq_8_149():
    rng = np.random.default_rng(19)
    axis = rng.normal(size=(500, 3))
    angle = rng.uniform(-7, 7, 500)
    p = rng.normal(size=(500, 3))
    R = rot.rotation_dyadic(axis, angle)
    p_hat = rot.rotate(axis, angle, p)
    np.testing.assert_allclose((R @ p[:, :, None])[:, :, 0], p_hat, atol=1e-14)
    np.testing.assert_allclose(np.linalg.norm(p_hat, axis=1), np.linalg.norm(p, axis=1), rtol=1e-14)  # 8.154
    l = axis / np.linalg.norm(axis, axis=1, keepdims=True)
    np.testing.assert_allclose(rot.rotate(axis, angle, 3.0 * l), 3.0 * l, atol=1e-14)  # the axis stays
    np.testing.assert_allclose(R @ np.swapaxes(R, 1, 2), np.broadcast_to(np.eye(3), R.shape), atol=1e-14)  # 8.161
    np.testing.assert_allclose(rot.rotate([0, 0, 1], np.pi / 2, [1.0, 0, 0]), [0, 1.0, 0], atol=1e-16)
    # 8.159-8.160: S_ij = N_i . n_j, the columns of S are the rotated base vectors
    S = rot.axis_angle_to_matrix(axis, angle)
    for j in range(3):
        np.testing.assert_allclose(S[:, :, j], rot.rotate(axis, angle, np.eye(3)[j]), atol=1e-14)
    np.testing.assert_allclose(S, Rotation.from_rotvec(l * angle[:, None]).as_matrix(), atol=1e-14)


# --------------------------------------------------------------------------- angular velocity


def _motion(t, seq):
    """Smooth analytic angles, rates and second derivatives (away from singularities)."""
    a0 = np.array([0.3, 0.4 if seq != "zxz" else 1.2, -0.5])
    amp = np.array([1.1, 0.6, 1.7])
    om = np.array([1.3, 0.9, 2.1])
    ph = np.array([0.2, -0.4, 1.0])
    arg = om * t[:, None] + ph
    return a0 + amp * np.sin(arg), amp * om * np.cos(arg), -amp * om**2 * np.sin(arg)


def _omega_fd(S_of_t, t, h=1e-5):
    """Angular velocity from central differences of S: W ~ dS/dt S^T."""
    Sp, Sm, S = S_of_t(t + h), S_of_t(t - h), S_of_t(t)
    S_dot = (Sp - Sm) / (2 * h)
    return rot.unskew(S_dot @ np.swapaxes(S, -1, -2)), rot.unskew(np.swapaxes(S, -1, -2) @ S_dot)


@pytest.mark.parametrize("seq", rot.SEQUENCES)
def test_omega_from_angle_rates_matches_finite_differences(seq):
    t = np.linspace(0, 5, 101)
    angles, rates, _ = _motion(t, seq)
    w_parent_fd, w_body_fd = _omega_fd(lambda tt: rot.euler_to_matrix(_motion(tt, seq)[0], seq), t)
    w_parent = ar.omega_from_angle_rates(angles, rates, seq, "parent")
    w_body = ar.omega_from_angle_rates(angles, rates, seq, "body")
    np.testing.assert_allclose(w_parent, w_parent_fd, atol=1e-8)
    np.testing.assert_allclose(w_body, w_body_fd, atol=1e-8)
    S = rot.euler_to_matrix(angles, seq)
    np.testing.assert_allclose((S @ w_body[:, :, None])[:, :, 0], w_parent, atol=1e-14)
    # eq. 8.123 and its inverse 8.187-8.189
    S_dot = ar.matrix_rate(S, w_parent, "parent")
    np.testing.assert_allclose(ar.matrix_rate(S, w_body, "body"), S_dot, atol=1e-13)
    np.testing.assert_allclose(ar.omega_from_matrix_rate(S, S_dot, "parent"), w_parent, atol=1e-13)
    np.testing.assert_allclose(ar.omega_from_matrix_rate(S, S_dot, "body"), w_body, atol=1e-13)


def test_existing_bryant_formulas_and_explicit_euler_forms():
    rng = np.random.default_rng(23)
    a, d = rng.uniform(-3, 3, (2, 400, 3))
    np.testing.assert_allclose(ar.omega_from_angle_rates(a, d, "xyz", "parent"), ar.bryant_omega_parent(a, d),
                               atol=1e-15)
    np.testing.assert_allclose(ar.omega_from_angle_rates(a, d, "xyz", "body"), ar.bryant_omega_body(a, d),
                               atol=1e-15)
    # Euler z-x-z, eqs. 8.97/8.98 (signs as derived from the configuration graph, Fig. 8.30)
    s1, s2, s3, c1, c2, c3 = np.sin(a[:, 0]), np.sin(a[:, 1]), np.sin(a[:, 2]), np.cos(a[:, 0]), np.cos(a[:, 1]), \
        np.cos(a[:, 2])
    d1, d2, d3 = d.T
    parent = np.stack((d2 * c1 + d3 * s1 * s2, d2 * s1 - d3 * c1 * s2, d1 + d3 * c2), -1)
    body = np.stack((d2 * c3 + d1 * s2 * s3, d1 * s2 * c3 - d2 * s3, d3 + d1 * c2), -1)
    np.testing.assert_allclose(ar.omega_from_angle_rates(a, d, "zxz", "parent"), parent, atol=1e-14)
    np.testing.assert_allclose(ar.omega_from_angle_rates(a, d, "zxz", "body"), body, atol=1e-14)
    # bryant_omega_parent_dot against a central difference along a smooth motion
    t = np.linspace(0, 3, 31)
    h = 1e-5
    ang, rt, acc = _motion(t, "xyz")
    fd = (ar.bryant_omega_parent(*_motion(t + h, "xyz")[:2]) - ar.bryant_omega_parent(*_motion(t - h, "xyz")[:2]))
    np.testing.assert_allclose(ar.bryant_omega_parent_dot(ang, rt, acc), fd / (2 * h), atol=1e-8)


@pytest.mark.parametrize("seq", rot.SEQUENCES)
@pytest.mark.parametrize("frame", ("parent", "body"))
def test_rates_omega_rates_round_trip(seq, frame):
    rng = np.random.default_rng(29)
    a = rng.uniform(-3, 3, (2000, 3))
    keep = np.abs(rot.singular_factor(a, seq)) > 1e-3
    a = a[keep]
    d = rng.normal(size=a.shape)
    w = ar.omega_from_angle_rates(a, d, seq, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            back, singular = ar.angle_rates(a, w, seq, frame)
    assert not singular.any()
    np.testing.assert_allclose(back, d, atol=1e-9)


def test_bryant_rates_are_huston_8_135_and_8_136():
    rng = np.random.default_rng(31)
    a = rng.uniform(-3, 3, (500, 3))
    V = rng.normal(size=(500, 3))
    sa, sb, sg, ca, cb, cg = np.sin(a[:, 0]), np.sin(a[:, 1]), np.sin(a[:, 2]), np.cos(a[:, 0]), np.cos(a[:, 1]), \
        np.cos(a[:, 2])
    V1, V2, V3 = V.T
    parent = np.stack((V1 + sb * (sa * V2 - ca * V3) / cb, ca * V2 + sa * V3, (-sa * V2 + ca * V3) / cb), -1)
    body = np.stack(((cg * V1 - sg * V2) / cb, sg * V1 + cg * V2, V3 + sb * (-cg * V1 + sg * V2) / cb), -1)
    np.testing.assert_allclose(ar.bryant_rates(a, V, "parent")[0], parent, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(ar.bryant_rates(a, V, "body")[0], body, rtol=1e-10, atol=1e-10)


# --------------------------------------------------------------------------- singularities


@pytest.mark.parametrize("seq", rot.SEQUENCES)
@pytest.mark.parametrize("frame", ("parent", "body"))
def test_at_singularity_mask_no_numpy_warning_and_quaternion_fallback(seq, frame):
    # a motion whose middle angle sweeps through the singular value exactly at t = 0
    t = np.linspace(-1, 1, 201)
    mid = SINGULAR_MIDDLE[seq][0]

    def angles_of(tt):
        return np.stack((0.4 + 0.8 * np.sin(tt), mid + 0.3 * tt, -0.2 + 1.1 * tt), axis=-1)

    def rates_of(tt):
        return np.stack((0.8 * np.cos(tt), 0.3 + 0 * tt, 1.1 + 0 * tt), axis=-1)

    angles = angles_of(t)
    assert abs(rot.singular_factor(angles[100], seq)) < 1e-15
    omega = ar.omega_from_angle_rates(angles, rates_of(t), seq, frame)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any numpy RuntimeWarning would fail
        with np.errstate(all="raise"):
            with pytest.raises(SingularityWarning):
                ar.angle_rates(angles, omega, seq, frame, tol=1e-6)
            rates, singular = ar.angle_rates(angles, omega, seq, frame, tol=0.1, warn=False)
    expected_mask = np.abs(rot.singular_factor(angles, seq)) < 0.1
    np.testing.assert_array_equal(singular, expected_mask)
    assert singular[100] and singular.sum() < 201
    assert np.all(np.isnan(rates[singular])) and np.all(np.isfinite(rates[~singular]))
    np.testing.assert_allclose(rates[~singular], rates_of(t)[~singular], atol=1e-12)
    with pytest.warns(SingularityWarning, match="quaternion_rates"):
        ar.angle_rates(angles, omega, seq, frame)

    # fallback: Euler parameter rates are finite everywhere and reproduce the motion
    S = rot.euler_to_matrix(angles, seq)
    q = rot.matrix_to_quaternion(S, continuous=True)
    q_dot = ar.quaternion_rates(q, omega, frame)
    assert np.all(np.isfinite(q_dot))
    h = 1e-6
    q_fd = (rot.matrix_to_quaternion(rot.euler_to_matrix(angles_of(t + h), seq), continuous=True)
            - rot.matrix_to_quaternion(rot.euler_to_matrix(angles_of(t - h), seq), continuous=True)) / (2 * h)
    np.testing.assert_allclose(q_dot, q_fd * np.sign(np.sum(q_fd * q_dot, axis=-1, keepdims=True)), atol=1e-8)

    # integrating q_dot = 1/2 E^T [omega; 0] straight through the singular set
    def rhs(tt, y):
        w = ar.omega_from_angle_rates(angles_of(np.atleast_1d(tt)), rates_of(np.atleast_1d(tt)), seq, frame)[0]
        return ar.quaternion_rates(y, w, frame)

    sol = solve_ivp(rhs, (t[0], t[-1]), q[0], t_eval=t, rtol=1e-11, atol=1e-12)
    np.testing.assert_allclose(rot.quaternion_to_matrix(sol.y.T), S, atol=1e-8)


def test_is_singular_and_factor():
    a = np.array([[0.1, np.pi / 2 - 1e-7, 0.3], [0.1, 0.2, 0.3], [0.0, -np.pi / 2, 0.0]])
    np.testing.assert_array_equal(rot.is_singular(a, "xyz", tol=1e-6), [True, False, True])
    np.testing.assert_array_equal(rot.is_singular(a, "zyx", tol=1e-8), [False, False, True])
    np.testing.assert_allclose(rot.singular_factor(a, "zxz"), np.sin(a[:, 1]))
    assert rot.is_singular([0.0, 0.0, 0.0], "zxz")
    # matrix_to_bryant: tol decides the singular branch; forcing gamma = 0 where
    # |cos beta| < tol costs at most about |cos beta| in the reproduced matrix
    S = rot.bryant_to_matrix(a)
    np.testing.assert_allclose(rot.bryant_to_matrix(rot.matrix_to_bryant(S, tol=1e-9)), S, atol=1e-14)
    err = np.abs(rot.bryant_to_matrix(rot.matrix_to_bryant(S, tol=1e-5)) - S).max()
    assert 1e-9 < err < 2e-7
    assert rot.matrix_to_bryant(S, tol=1e-5)[0, 2] == 0.0 and rot.matrix_to_bryant(S, tol=1e-9)[0, 2] != 0.0


# --------------------------------------------------------------------------- Euler parameter rates


def test_euler_parameter_matrix_orthogonal_and_frames():
    rng = np.random.default_rng(37)
    q = rot.matrix_to_quaternion(Rotation.random(300, random_state=3).as_matrix())
    for frame in ("parent", "body"):
        E = ar.euler_parameter_matrix(q, frame)
        np.testing.assert_allclose(E @ np.swapaxes(E, 1, 2), np.broadcast_to(np.eye(4), E.shape), atol=1e-14)
    w_body = rng.normal(size=(300, 3))
    S = rot.quaternion_to_matrix(q)
    w_parent = (S @ w_body[:, :, None])[:, :, 0]
    q_dot = ar.quaternion_rates(q, w_parent, "parent")
    np.testing.assert_allclose(ar.quaternion_rates(q, w_body, "body"), q_dot, atol=1e-14)
    np.testing.assert_allclose(np.sum(q * q_dot, axis=-1), 0.0, atol=1e-15)  # eq. 8.200
    np.testing.assert_allclose(ar.omega_from_quaternion_rates(q, q_dot, "parent"), w_parent, atol=1e-14)
    np.testing.assert_allclose(ar.omega_from_quaternion_rates(q, q_dot, "body"), w_body, atol=1e-14)
    # Huston 8.210-8.213 written out
    e1, e2, e3, e4 = q.T
    V1, V2, V3 = w_parent.T
    hus = 0.5 * np.stack((e4 * V1 + e3 * V2 - e2 * V3, -e3 * V1 + e4 * V2 + e1 * V3,
                          e2 * V1 - e1 * V2 + e4 * V3, -e1 * V1 - e2 * V2 - e3 * V3), -1)
    np.testing.assert_allclose(q_dot, hus, atol=1e-15)


@pytest.mark.parametrize("frame", ("parent", "body"))
def test_quaternion_rates_and_second_derivative_vs_finite_differences(frame):
    t = np.linspace(0, 4, 41)
    h = 1e-4

    def S_of(tt):
        return rot.euler_to_matrix(_motion(tt, "xyz")[0], "xyz")

    def q_of(tt):
        return rot.matrix_to_quaternion(S_of(tt), continuous=True)

    def omega_of(tt):
        ang, rt, _ = _motion(tt, "xyz")
        return ar.omega_from_angle_rates(ang, rt, "xyz", frame)

    q0, qp, qm = q_of(t), q_of(t + h), q_of(t - h)
    # the same sign branch at t and t +/- h (continuity within each triple)
    qp *= np.sign(np.sum(qp * q0, -1, keepdims=True))
    qm *= np.sign(np.sum(qm * q0, -1, keepdims=True))
    q_dot = (qp - qm) / (2 * h)
    q_ddot = (qp - 2 * q0 + qm) / h**2
    np.testing.assert_allclose(ar.quaternion_rates(q0, omega_of(t), frame), q_dot, atol=1e-7)
    np.testing.assert_allclose(ar.omega_from_quaternion_rates(q0, q_dot, frame), omega_of(t), atol=1e-7)
    omega_dot_fd = (omega_of(t + h) - omega_of(t - h)) / (2 * h)
    np.testing.assert_allclose(ar.angular_acceleration_from_quaternion(q0, q_ddot, frame), omega_dot_fd,
                               atol=2e-6)
    # the dropped term: vector rows of E(q_dot) q_dot vanish identically
    Eqd = ar.euler_parameter_matrix(q_dot, frame)
    np.testing.assert_allclose((Eqd @ q_dot[:, :, None])[:, :3, 0], 0.0, atol=1e-13)


# --------------------------------------------------------------------------- helpers and bad input


def test_skew_and_vectorisation():
    rng = np.random.default_rng(41)
    w, p = rng.normal(size=(2, 5, 7, 3))
    W = rot.skew(w)
    assert W.shape == (5, 7, 3, 3)
    np.testing.assert_allclose((W @ p[..., None])[..., 0], np.cross(w, p), atol=1e-15)
    np.testing.assert_allclose(rot.unskew(W), w)
    a = rng.uniform(-3, 3, (5, 7, 3))
    for seq in rot.SEQUENCES:
        S = rot.euler_to_matrix(a, seq)
        assert S.shape == (5, 7, 3, 3) and S.dtype == np.float64
        assert rot.matrix_to_euler(S, seq).shape == (5, 7, 3)
        assert ar.angle_rates(a, w, seq)[0].shape == (5, 7, 3)
    assert rot.matrix_to_quaternion(S).shape == (5, 7, 4)
    assert rot.euler_to_matrix([0.1, 0.2, 0.3], "zyx").shape == (3, 3)
    assert rot.convert([0, 0, 0, 1], "quaternion", "zxz").shape == (3,)


def test_bad_input_raises_input_error():
    with pytest.raises(InputError, match="sequence"):
        rot.euler_to_matrix([0, 0, 0], "xxy")
    with pytest.raises(InputError, match="zero"):
        rot.quaternion_to_matrix([0, 0, 0, 0])
    with pytest.raises(InputError, match="convention"):
        rot.convert(np.eye(3), "matrix", "rodrigues")
    with pytest.raises(InputError, match="frame"):
        ar.omega_from_angle_rates([0, 0, 0], [0, 0, 0], "xyz", "ground")
    with pytest.raises(InputError, match="shape"):
        rot.matrix_to_quaternion(np.eye(4))


def test_bryant_to_quaternion_equals_the_matrix_route_and_is_continuous():
    bryant_to_quaternion, matrix_to_quaternion = rot.bryant_to_quaternion, rot.matrix_to_quaternion
    bryant_to_matrix, quaternion_to_matrix = rot.bryant_to_matrix, rot.quaternion_to_matrix
    rng = np.random.default_rng(11)
    a = rng.uniform(-4, 4, (2000, 3))
    a[:5, 1] = [np.pi / 2, -np.pi / 2, 0.0, np.pi, -np.pi]  # singular set and half turns
    np.testing.assert_allclose(bryant_to_quaternion(a), matrix_to_quaternion(bryant_to_matrix(a)), atol=2e-15)
    t = np.linspace(0, 20, 4001)[:, None]
    path = np.hstack([3 * np.sin(t), 1.2 * np.sin(0.7 * t), 4 * t])  # gamma winds past +-pi many times
    q = bryant_to_quaternion(path, continuous=True)
    assert np.min(np.sum(q[1:] * q[:-1], axis=1)) > 0.99
    np.testing.assert_allclose(quaternion_to_matrix(q), bryant_to_matrix(path), atol=1e-14)
    assert q[0, 3] >= 0


def test_rotation_vector_to_quaternion_matches_axis_angle_and_scipy():
    rng = np.random.default_rng(11)
    phi = rng.normal(size=(200, 3)) * rng.uniform(0, 3, (200, 1))
    q = rot.rotation_vector_to_quaternion(phi)
    theta = np.linalg.norm(phi, axis=-1)
    np.testing.assert_allclose(q, rot.axis_angle_to_quaternion(phi / theta[:, None], theta), atol=1e-15)
    np.testing.assert_allclose(q, Rotation.from_rotvec(phi).as_quat(), atol=1e-15)
    np.testing.assert_array_equal(rot.rotation_vector_to_quaternion(np.zeros(3)), [0.0, 0.0, 0.0, 1.0])

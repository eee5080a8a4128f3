"""The shared small Cholesky solve (:mod:`humanbody._kernels.cholesky`) against numpy's LAPACK."""

import numpy as np

from humanbody._kernels.cholesky import cholesky_solve


def test_solves_a_positive_definite_system_and_leaves_its_factor():
    rng = np.random.default_rng(5)
    M = rng.normal(size=(23, 23))
    H = M @ M.T + 0.1 * np.eye(23)
    g = rng.normal(size=23)
    work, out = H.copy(), np.zeros(23)
    assert cholesky_solve(work, g, out, 0.0)
    np.testing.assert_allclose(out, np.linalg.solve(H, g), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.tril(work), np.linalg.cholesky(H), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(np.triu(work, 1), np.triu(H, 1))  # the upper triangle is not touched


def test_a_matrix_that_is_not_positive_definite_is_refused_or_floored():
    H = np.array([[1.0, 2.0], [2.0, 1.0]])  # eigenvalues 3 and -1
    out = np.full(2, 7.0)
    assert not cholesky_solve(H.copy(), np.ones(2), out, 0.0)
    np.testing.assert_array_equal(out, 7.0)  # not written
    assert cholesky_solve(H.copy(), np.ones(2), out, 1e-12)  # the floored pivot still gives a (huge) step
    assert np.all(np.isfinite(out)) and np.abs(out).max() > 1e5

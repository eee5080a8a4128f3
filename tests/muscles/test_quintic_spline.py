"""OpenSim's quintic interpolating spline's slopes (humanbody.muscles.coordinates) against SciPy's
``make_interp_spline`` of degree 5 with the same end conditions, and against polynomials it must reproduce."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import make_interp_spline

from humanbody._kernels.banded import banded_solve
from humanbody.osim.quintic import bspline_local, natural_quintic_derivatives, natural_quintic_slopes


@pytest.mark.parametrize("n, uneven", [(8, False), (151, False), (421, True), (5000, False)])
def test_slopes_equal_scipys_spline(n, uneven):
    rng = np.random.default_rng(n)
    t = np.arange(n) / 60.0 + (rng.uniform(0.0, 0.004, n) if uneven else 0.0)
    y = np.cumsum(rng.standard_normal((n, 4)), axis=0)
    zero = np.zeros(4)
    want = make_interp_spline(t, y, k=5, bc_type=([(3, zero), (4, zero)], [(3, zero), (4, zero)]), axis=0)(t, 1)
    got = natural_quintic_slopes(t, y)
    assert np.abs(got - want).max() <= 1e-11 * np.abs(want).max()


def test_quadratics_are_differentiated_exactly():
    """A quadratic has zero third and fourth derivatives: the spline is the quadratic itself."""
    t = np.linspace(0.0, 2.0, 121)
    y = np.stack([3.0 * t**2 - t + 2.0, -0.5 * t**2], axis=1)
    np.testing.assert_allclose(natural_quintic_slopes(t, y), np.stack([6.0 * t - 1.0, -t], axis=1), atol=1e-9)


def test_basis_is_a_partition_of_unity_and_its_derivatives_sum_to_zero():
    knots = np.r_[np.zeros(5), np.linspace(0.0, 1.0, 11), np.ones(5)]
    x = np.linspace(0.0, 1.0, 37)
    N, first = bspline_local(knots, 5, x)
    np.testing.assert_allclose(N.sum(axis=1), 1.0, atol=1e-13)
    assert first.min() == 0 and first.max() == len(knots) - 2 * 6  # the last 6 of the 15 B-splines
    for d in (1, 2, 3, 4):
        np.testing.assert_allclose(bspline_local(knots, 5, x, d)[0].sum(axis=1), 0.0, atol=1e-7)


@pytest.mark.parametrize("kl, ku", [(0, 0), (1, 2), (3, 1), (4, 4)])
def test_banded_solve_equals_a_dense_solve(kl, ku):
    """LU with row exchanges on the band storage (zero diagonals force the exchanges) against numpy's."""
    rng = np.random.default_rng(kl * 10 + ku)
    n = 40
    A = np.zeros((n, n))
    for d in range(-kl, ku + 1):
        A += np.diag(rng.standard_normal(n - abs(d)), d)
    if kl:
        A[np.arange(n), np.arange(n)] *= rng.uniform(size=n) < 0.5  # zero pivots half the time
    b = rng.standard_normal((n, 3))
    ab = np.zeros((2 * kl + ku + 1, n))
    for i, j in zip(*np.nonzero(A), strict=True):
        ab[kl + ku + i - j, j] = A[i, j]
    x = b.copy()
    assert banded_solve(ab, kl, ku, x) == 0
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-9, atol=1e-9)
    singular = np.zeros((2 * kl + ku + 1, n))
    assert banded_solve(singular, kl, ku, b.copy()) == 1


@pytest.mark.parametrize("n, uneven", [(8, False), (151, False), (421, True)])
def test_derivatives_equal_scipys_spline_to_1e_12(n, uneven):
    """The one quintic spline of static optimization and inverse dynamics (its values, slopes and curvatures at
    the samples) is SciPy's ``make_interp_spline`` with natural ends, to 1e-12 of each derivative's range."""
    rng = np.random.default_rng(n + 1)
    t = np.arange(n) / 100.0 + (rng.uniform(0.0, 0.003, n) if uneven else 0.0)
    y = np.cumsum(rng.standard_normal((n, 3)), axis=0) * 0.01
    zero = np.zeros(3)
    ref = make_interp_spline(t, y, k=5, bc_type=([(3, zero), (4, zero)], [(3, zero), (4, zero)]), axis=0)
    for order, got in zip((0, 1, 2), natural_quintic_derivatives(t, y, (0, 1, 2)), strict=True):
        want = ref(t, order)
        assert np.abs(got - want).max() <= 1e-12 * np.abs(want).max(), order

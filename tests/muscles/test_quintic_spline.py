"""OpenSim's quintic interpolating spline's slopes (humanbody.muscles.coordinates) against SciPy's
``make_interp_spline`` of degree 5 with the same end conditions, and against polynomials it must reproduce."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.interpolate import make_interp_spline

from humanbody.muscles.coordinates import DENSE_SAMPLES, bspline_basis, natural_quintic_slopes


@pytest.mark.parametrize("n, uneven", [(8, False), (151, False), (421, True), (DENSE_SAMPLES + 5, False)])
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
    np.testing.assert_allclose(bspline_basis(knots, 5, x).sum(axis=1), 1.0, atol=1e-13)
    for d in (1, 2, 3, 4):
        np.testing.assert_allclose(bspline_basis(knots, 5, x, d).sum(axis=1), 0.0, atol=1e-7)

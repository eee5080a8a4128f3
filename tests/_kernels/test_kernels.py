"""humanbody._kernels.tree.sincos: the vectorisable sine and cosine the recursion uses."""

import math

import numpy as np
import pytest

from humanbody._kernels.tree import sincos


def _ulps(got, exact):
    return np.abs(got - exact) / np.spacing(np.maximum(np.abs(exact), np.finfo(float).tiny))


@pytest.mark.parametrize("span,max_ulp", [(1.0, 1), (7.0, 1), (1e3, 2), (1e5, 2)])
def test_sincos_within_two_ulp_of_libm(span, max_ulp):
    x = np.random.default_rng(int(span)).uniform(-span, span, 200_000)
    x[:4] = [np.pi / 2, -np.pi, 3 * np.pi / 4, 1e-300]
    s, c = np.empty_like(x), np.empty_like(x)
    sincos(x, s, c)
    exact_s = np.array([math.sin(v) for v in x])
    exact_c = np.array([math.cos(v) for v in x])
    assert _ulps(s, exact_s).max() <= max_ulp
    assert _ulps(c, exact_c).max() <= max_ulp
    np.testing.assert_allclose(s * s + c * c, 1.0, atol=4e-16)


def test_sincos_special_and_large_arguments_follow_libm():
    x = np.array([np.nan, np.inf, -np.inf, 1e5 + 0.5, -3e7, 1e300, 0.0, -0.0])
    s, c = np.empty_like(x), np.empty_like(x)
    sincos(x, s, c)
    assert np.isnan(s[:3]).all() and np.isnan(c[:3]).all()
    np.testing.assert_array_equal(s[3:6], [math.sin(v) for v in x[3:6]])  # libm beyond 1e5 rad
    np.testing.assert_array_equal(c[3:6], [math.cos(v) for v in x[3:6]])
    assert s[6] == 0.0 and c[6] == 1.0 and c[7] == 1.0

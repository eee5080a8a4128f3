"""Savitzky-Golay taps and filter against scipy.signal (a test-only reference) and exact polynomials."""

import numpy as np
import pytest
from scipy import signal

from humanbody.signal.savgol import savgol_coeffs, savgol_edge, savgol_filter

RNG = np.random.default_rng(341)


def _case():
    window = 2 * int(RNG.integers(1, 45)) + 1
    polyorder = int(RNG.integers(0, min(window - 1, 7) + 1))
    return window, polyorder, int(RNG.integers(0, 4)), float(RNG.uniform(1e-3, 0.1))


@pytest.mark.parametrize(("window", "polyorder", "deriv", "delta"), [_case() for _ in range(120)])
def test_taps_and_filter_equal_scipy(window, polyorder, deriv, delta):
    taps = savgol_coeffs(window, polyorder, deriv, delta)
    want_taps = signal.savgol_coeffs(window, polyorder, deriv=deriv, delta=delta)
    np.testing.assert_allclose(taps, want_taps, rtol=1e-12, atol=1e-12 * np.abs(want_taps).max(initial=0.0))
    F = int(RNG.integers(window, window + 300))
    x = np.cumsum(RNG.normal(size=(F, 3)), axis=0)
    got = savgol_filter(x, window, polyorder, deriv, delta)
    want = signal.savgol_filter(x, window, polyorder, deriv=deriv, delta=delta, axis=0, mode="interp")
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())
    first = savgol_edge(x[:window], True, polyorder, deriv, delta)
    last = savgol_edge(x[:window], False, polyorder, deriv, delta)
    whole = signal.savgol_filter(x[:window], window, polyorder, deriv=deriv, delta=delta, axis=0, mode="interp")
    h = window // 2
    np.testing.assert_allclose(first, whole[:h], rtol=1e-12, atol=1e-12 * np.abs(whole).max())
    np.testing.assert_allclose(last, whole[window - h:], rtol=1e-12, atol=1e-12 * np.abs(whole).max())


def test_even_window_taps_equal_scipy():
    for window, polyorder in ((4, 2), (10, 3), (16, 5)):
        np.testing.assert_allclose(savgol_coeffs(window, polyorder, 1, 0.01),
                                   signal.savgol_coeffs(window, polyorder, deriv=1, delta=0.01), rtol=1e-12)


def test_polynomials_of_the_fitted_order_are_reproduced_with_their_derivatives():
    """A cubic sampled at 0.01 s: the filter of order 3 returns it and its exact derivatives, ends included."""
    t = np.arange(120) * 0.01
    y = 2.0 - 3.0 * t + 0.5 * t ** 2 + 4.0 * t ** 3
    exact = [y, -3.0 + t + 12.0 * t ** 2, 1.0 + 24.0 * t, np.full_like(t, 24.0), np.zeros_like(t)]
    for deriv, want in enumerate(exact):
        np.testing.assert_allclose(savgol_filter(y, 21, 3, deriv, 0.01), want, rtol=1e-9, atol=1e-8)


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="polyorder"):
        savgol_coeffs(5, 5)
    with pytest.raises(ValueError, match="longer than the signal"):
        savgol_filter(np.ones(10), 11, 2)
    with pytest.raises(ValueError, match="odd"):
        savgol_filter(np.ones(10), 6, 2)
    with pytest.raises(ValueError, match="finite"):
        savgol_filter(np.array([1.0, np.nan, 2.0, 3.0, 4.0]), 5, 2)

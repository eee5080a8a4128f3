"""Smoothing differentiation: stated cut-offs hold, derivatives are right."""

import numpy as np
import pytest

from humanbody import Differentiation, InputError
from humanbody.signal.differentiate import savgol_window

RATE = 100.0
T = np.arange(0, 20, 1 / RATE)


def _gain(method, f, cutoff=6.0):
    """Amplitude of a unit sinusoid at f Hz after smoothing (interior of the record)."""
    y = np.sin(2 * np.pi * f * T)
    ys, _, _ = Differentiation(method=method, cutoff_hz=cutoff)(T, y)
    mid = slice(len(T) // 4, 3 * len(T) // 4)
    return np.sqrt(2 * np.mean(ys[mid] ** 2))


@pytest.mark.parametrize("method", ["savgol", "butterworth", "spline"])
def test_cutoff_is_minus_3_db(method):
    assert _gain(method, 1.0) > 0.97            # pass band
    assert abs(_gain(method, 6.0) - 2 ** -0.5) < 0.08  # -3 dB at the stated cut-off
    assert _gain(method, 20.0) < 0.2            # stop band


def test_savgol_window_grows_as_cutoff_falls():
    w = [savgol_window(fc, 100.0, 4) for fc in (20.0, 10.0, 6.0, 3.0)]
    assert all(x % 2 == 1 for x in w) and w == sorted(w) and w[0] < w[-1]


@pytest.mark.parametrize("method", ["savgol", "butterworth", "spline", "gradient"])
def test_derivatives_of_a_slow_sinusoid(method):
    w = 2 * np.pi * 0.8
    y = np.stack([np.sin(w * T), np.cos(w * T)], axis=1)
    ys, yd, ydd = Differentiation(method=method, cutoff_hz=6.0)(T, y)
    mid = slice(100, -100)
    np.testing.assert_allclose(yd[mid], w * np.stack([np.cos(w * T), -np.sin(w * T)], 1)[mid], atol=0.02 * w)
    np.testing.assert_allclose(ydd[mid], -w * w * y[mid], atol=0.03 * w * w)
    assert ys.shape == yd.shape == ydd.shape == y.shape


def test_spline_accepts_uneven_sampling_others_refuse():
    rng = np.random.default_rng(0)
    t = np.sort(rng.uniform(0, 5, 400))
    y = np.sin(2 * t)
    _, yd, _ = Differentiation(method="spline", cutoff_hz=5.0)(t, y)
    np.testing.assert_allclose(yd[40:-40], 2 * np.cos(2 * t[40:-40]), atol=0.05)
    with pytest.raises(InputError, match="not evenly spaced"):
        Differentiation()(t, y)


def test_bad_settings_and_short_input():
    with pytest.raises(InputError, match="unknown differentiation"):
        Differentiation(method="fourier")
    with pytest.raises(InputError, match="positive"):
        Differentiation(cutoff_hz=-1)
    with pytest.raises(InputError, match="at least 3 frames"):
        Differentiation()(np.array([0.0, 0.1]), np.zeros(2))
    with pytest.raises(InputError, match="Nyquist"):
        Differentiation(method="butterworth", cutoff_hz=80.0)(T, np.sin(T))
    with pytest.raises(InputError, match="strictly increasing"):
        Differentiation()(np.array([0.0, 0.1, 0.1, 0.2]), np.zeros(4))


@pytest.mark.parametrize("method", ["savgol", "butterworth", "spline", "gradient"])
def test_rates_without_the_smoothed_signal_are_the_same(method):
    t = np.arange(300) / 100.0
    y = np.column_stack([np.sin(3 * t), t ** 3])
    d = Differentiation(method=method)
    full = d(t, y)
    part = d(t, y, smoothed=False)
    assert part[0] is None or np.array_equal(part[0], full[0])
    np.testing.assert_array_equal(part[1], full[1])
    np.testing.assert_array_equal(part[2], full[2])


@pytest.mark.parametrize("deriv", [0, 1, 2])
def test_parallel_savgol_equals_scipy(deriv):
    from scipy.signal import savgol_filter

    from humanbody.signal.differentiate import _savgol

    rng = np.random.default_rng(2)
    x = np.cumsum(rng.normal(size=(3000, 7)), axis=0)
    x[1500, 3] = np.nan  # NaN spreads over one window, as in scipy
    got = _savgol(x, 31, 4, deriv, 0.01)
    want = savgol_filter(x, 31, 4, deriv=deriv, delta=0.01, axis=0, mode="interp")
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10 * np.nanmax(np.abs(want)))


def test_edges_false_skips_the_end_fits_and_keeps_the_interior():
    """A block of a longer trial (edges=False) gets the same interior rows; the end rows are NaN."""
    from humanbody import Differentiation

    t = np.arange(400) / 100.0
    y = np.column_stack([np.sin(3 * t), np.cos(2 * t)])
    d = Differentiation("savgol")
    reach = d.reach(100.0)
    full = d(t, y, smoothed=False)
    for edges in ((False, True), (True, False), (False, False)):
        part = d(t, y, smoothed=False, edges=edges)
        for a, b in zip(full[1:], part[1:], strict=True):
            np.testing.assert_array_equal(a[reach:-reach], b[reach:-reach])
            assert np.isnan(b[:reach]).all() == (not edges[0])
            assert np.isnan(b[-reach:]).all() == (not edges[1])
            if edges[0]:
                np.testing.assert_array_equal(a[:reach], b[:reach])

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
    # the edges: scipy's filter on the signal padded by its odd reflection about each end (numpy's pad)
    padded = np.pad(x, ((15, 15), (0, 0)), mode="reflect", reflect_type="odd")
    want = savgol_filter(padded, 31, 4, deriv=deriv, delta=0.01, axis=0, mode="interp")[15:-15]
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


def _push_off(t):
    """An ankle-like angle (rad): a fall of 0.4 rad over about 0.15 s centred 0.12 s into the trial, on a 1-Hz sway,
    and its exact rate (rad/s)."""
    tau, c = 0.03, 0.12
    e = np.exp((t - c) / tau)
    return 0.4 / (1 + e) + 0.1 * np.sin(2 * np.pi * t), -0.4 / tau * e / (1 + e) ** 2 + 0.2 * np.pi * np.cos(2 * np.pi * t)


def test_edges_of_a_fast_change_near_the_start_stay_within_the_trials_rates():
    """A push-off 0.12 s into a 60-Hz trial: the first frame's rate comes out within 15 % of the peak rate
    of its true value, the first 9 frames' within 30 % (the 6-Hz smoothing of the fall); a quartic fitted to the first window and evaluated at its end (scipy's
    ``mode="interp"``) gives a rate of the wrong sign near the size of the peak there."""
    from scipy.signal import savgol_filter

    from humanbody import Differentiation

    t = np.arange(151) / 60.0
    x, v = _push_off(t)
    _, vd, _ = Differentiation()(t, x[:, None])
    peak = np.abs(v).max()
    h = Differentiation().reach(60.0)
    assert h == 9
    assert abs(vd[0, 0] - v[0]) < 0.15 * peak
    assert np.abs(vd[:h, 0] - v[:h]).max() < 0.3 * peak  # the 6-Hz smoothing of the fall itself: 0.26
    assert np.abs(vd[:, 0]).max() <= peak
    interp = savgol_filter(x, 2 * h + 1, 4, deriv=1, delta=1 / 60.0, mode="interp")
    assert abs(interp[0] - v[0]) > 0.7 * peak  # what the edge rows were


@pytest.mark.parametrize("phase", [0.0, 0.7, 1.6, 2.5])
def test_edges_of_a_smooth_motion_within_tolerance(phase):
    """A 1-Hz sinusoid sampled at 60 Hz, through the marker filter's zero-phase Butterworth (odd padding)
    and the default differentiation: velocities at the edge frames within 20 % of the peak velocity, the
    interior within 1 %; accelerations at the edges never 5 % beyond the true peak (the reflection takes the
    end's curvature as zero, so the end frame's acceleration is biased towards zero, never outwards)."""
    from scipy import signal

    from humanbody import Differentiation
    from humanbody.signal.filters import butterworth_sos

    t = np.arange(151) / 60.0
    w = 2 * np.pi
    x, v, a = 0.3 * np.sin(w * t + phase), 0.3 * w * np.cos(w * t + phase), -0.3 * w * w * np.sin(w * t + phase)
    sos = butterworth_sos(6.0, 60.0, 4)
    xf = signal.sosfiltfilt(sos, x, padlen=9)
    _, vd, ad = Differentiation()(t, xf[:, None])
    h = 9
    edge = np.r_[0:h, len(t) - h:len(t)]
    assert np.abs(vd[edge, 0] - v[edge]).max() < 0.2 * np.abs(v).max()
    assert np.abs(vd[h:-h, 0] - v[h:-h]).max() < 0.01 * np.abs(v).max()
    assert np.abs(ad[edge, 0]).max() <= 1.05 * np.abs(a).max()
    assert np.abs(ad[h:-h, 0] - a[h:-h]).max() < 0.03 * np.abs(a).max()

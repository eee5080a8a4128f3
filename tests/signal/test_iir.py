"""Butterworth sections and the zero-phase filter against scipy.signal (a test-only reference)."""

import numpy as np
import pytest
from scipy import signal

from humanbody.signal.iir import butter_lowpass_sos, default_padlen, sosfilt_zi, sosfiltfilt

RNG = np.random.default_rng(34)
CASES = [(int(RNG.integers(1, 11)), float(RNG.choice([30, 50, 60, 100, 120, 148.5, 200, 250, 1000, 2000]))
          * float(RNG.uniform(0.95, 1.05)), float(RNG.uniform(0.002, 0.498))) for _ in range(120)]


@pytest.mark.parametrize(("n", "rate", "fraction"), CASES)
def test_design_and_filter_equal_scipy(n, rate, fraction):
    """Sections, initial states, default padding and the filtered signal: scipy's to 1e-12 (in fact bit for bit)."""
    fc = fraction * rate
    sos = butter_lowpass_sos(n, fc, rate)
    ref = signal.butter(n, fc, btype="low", fs=rate, output="sos")
    np.testing.assert_allclose(sos, ref, rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(sosfilt_zi(sos), signal.sosfilt_zi(ref), rtol=1e-12, atol=1e-15)
    pad = default_padlen(sos)
    F = int(RNG.integers(pad + 1, pad + 400))
    x = np.cumsum(RNG.normal(size=(F, 3)), axis=0) + RNG.normal(size=3) * 100
    for padlen in (None, 0, int(RNG.integers(1, F)), F - 1):
        got = sosfiltfilt(sos, x, padlen=padlen)
        want = signal.sosfiltfilt(ref, x, axis=0, padlen=padlen)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12 * np.abs(want).max())


def test_one_dimensional_and_three_dimensional_signals():
    """Columns are independent: any trailing shape filters each column along axis 0."""
    sos = butter_lowpass_sos(2, 6.0, 100.0)
    x = np.cumsum(RNG.normal(size=(200, 4, 3)), axis=0)
    got = sosfiltfilt(sos, x)
    assert got.shape == x.shape
    np.testing.assert_array_equal(got[:, 2, 1], sosfiltfilt(sos, x[:, 2, 1]))
    np.testing.assert_allclose(got, signal.sosfiltfilt(sos, x, axis=0), rtol=1e-12, atol=1e-12)


def test_short_signal_and_bad_design_are_refused():
    sos = butter_lowpass_sos(2, 6.0, 100.0)
    assert default_padlen(sos) == 9 and default_padlen(butter_lowpass_sos(4, 6.0, 100.0)) == 15
    assert default_padlen(butter_lowpass_sos(3, 6.0, 100.0)) == 12  # the pole and zero at 0 do not count
    with pytest.raises(ValueError, match="longer than the padding"):
        sosfiltfilt(sos, np.ones(9))
    assert sosfiltfilt(sos, np.ones(10)).shape == (10,)
    with pytest.raises(ValueError, match="half the"):
        butter_lowpass_sos(2, 50.0, 100.0)
    with pytest.raises(ValueError, match="order"):
        butter_lowpass_sos(0, 6.0, 100.0)


def test_constant_passes_and_half_power_at_the_cutoff():
    """Invariants independent of scipy: unit DC gain, a constant is unchanged (steady-state start),
    and one pass is -3 dB at the cut-off (|H|^2 = 1/2 on the unit circle)."""
    for n in (1, 2, 3, 4, 7):
        sos = butter_lowpass_sos(n, 10.0, 200.0)
        np.testing.assert_allclose(sosfiltfilt(sos, np.full(100, 3.25)), 3.25, rtol=1e-12)
        w = np.exp(-1j * 2 * np.pi * 10.0 / 200.0)
        H = np.prod([(s[0] + s[1] * w + s[2] * w ** 2) / (s[3] + s[4] * w + s[5] * w ** 2) for s in sos])
        assert abs(abs(H) ** 2 - 0.5) < 1e-12
        assert abs(np.prod(sos[:, :3].sum(axis=1) / sos[:, 3:].sum(axis=1)) - 1.0) < 1e-12


def test_nan_spreads_through_its_column_only():
    sos = butter_lowpass_sos(2, 6.0, 100.0)
    x = np.cumsum(RNG.normal(size=(100, 2)), axis=0)
    x[40, 0] = np.nan
    y = sosfiltfilt(sos, x)
    assert np.isnan(y[:, 0]).all() and np.isfinite(y[:, 1]).all()

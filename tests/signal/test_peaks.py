"""Peak finding against scipy.signal.find_peaks (a test-only reference): the same indices exactly."""

import warnings

import numpy as np
import pytest
from scipy import signal

from humanbody.signal.peaks import find_peaks

RNG = np.random.default_rng(3434)


def _signal(n):
    """Random walks rounded to 0.1 (flat tops and ties) or smooth gait-like waves."""
    if RNG.random() < 0.5:
        return np.round(np.cumsum(RNG.normal(size=n)), 1)
    t = np.arange(n) / 100.0
    return np.sin(2 * np.pi * t) + 0.3 * np.sin(4 * np.pi * t + 1) + 0.05 * RNG.normal(size=n)


@pytest.mark.parametrize("seed", range(200))
def test_indices_equal_scipy(seed):
    n = int(RNG.integers(1, 3000))
    x = _signal(n)
    kw = {}
    if RNG.random() < 0.8:
        kw["height"] = float(np.quantile(x, RNG.uniform(0, 1)))
    if RNG.random() < 0.8:
        kw["distance"] = int(RNG.integers(1, 80)) if RNG.random() < 0.8 else float(RNG.uniform(1, 40))
    if RNG.random() < 0.8:
        kw["prominence"] = float(RNG.uniform(0, 2))
        if RNG.random() < 0.8:
            kw["wlen"] = int(RNG.integers(2, 300)) | (1 if RNG.random() < 0.7 else 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns on zero prominences; humanbody does not
        want = signal.find_peaks(x, **kw)[0]
    got = find_peaks(x, **kw)
    np.testing.assert_array_equal(got, want)
    assert got.dtype == want.dtype


def test_flat_top_ends_and_short_signals():
    np.testing.assert_array_equal(find_peaks(np.array([0.0, 1.0, 1.0, 1.0, 1.0, 0.0])), [2])
    np.testing.assert_array_equal(find_peaks(np.array([5.0, 1.0, 2.0, 1.0, 5.0])), [2])  # ends are never peaks
    for x in (np.zeros(0), np.ones(1), np.array([0.0, 1.0])):
        assert find_peaks(x, height=0.0, distance=2, prominence=0.1, wlen=3).size == 0


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError, match="distance"):
        find_peaks(np.zeros(5), distance=0.5)
    with pytest.raises(ValueError, match="wlen"):
        find_peaks(np.zeros(5), prominence=0.1, wlen=1)
    with pytest.raises(ValueError, match="1-D"):
        find_peaks(np.zeros((5, 2)))

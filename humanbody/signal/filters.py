"""Zero-phase Butterworth low-pass design shared by marker filtering and differentiation.

One meaning of "order" and "cut-off" across the library: ``order`` is the
order of the complete forward-backward filter (even; each pass has order
``order // 2``) and ``cutoff_hz`` is the -3 dB point of the complete filter.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError


def winter_design_cutoff(cutoff_hz: float, rate_hz: float, order: int = 4) -> float:
    """Cut-off of each pass so that the forward-backward filter is -3 dB at ``cutoff_hz``.

    A Butterworth low-pass of order N designed at f_d by the bilinear
    transform has ``|H(f)|^2 = 1 / (1 + (tan(pi f / fs) / tan(pi f_d / fs))^(2N))``.
    Run forwards and backwards the magnitude is squared, ``|H(f)|^2``, which
    is 1/sqrt(2) (-3 dB) at ``tan(pi f / fs) = C tan(pi f_d / fs)`` with
    ``C = (sqrt(2) - 1)^(1 / (2N))`` (Winter 2009, Biomechanics and Motor
    Control of Human Movement, 4th ed.; Robertson & Dowling 2003, J. Electromyogr.
    Kinesiol. 13:569-573; C = 0.802 for a
    2nd-order filter run twice).  Hence
    ``f_d = fs / pi * arctan(tan(pi cutoff_hz / fs) / C)``.

    Parameters
    ----------
    cutoff_hz : float
        Wanted -3 dB frequency of the complete zero-phase filter (Hz).
    rate_hz : float
        Sampling rate (Hz).
    order : int
        Order of the complete zero-phase filter (even); each pass has order
        ``order // 2``.

    Returns
    -------
    float
        Design cut-off of each pass (Hz), always below the Nyquist frequency.
    """
    n_pass = order // 2
    C = (np.sqrt(2.0) - 1.0) ** (1.0 / (2 * n_pass))
    return float(rate_hz / np.pi * np.arctan(np.tan(np.pi * cutoff_hz / rate_hz) / C))


def butterworth_sos(cutoff_hz: float, rate_hz: float, order: int = 4, source=None) -> np.ndarray:
    """Second-order sections of one pass of the zero-phase low-pass of :func:`lowpass`.

    Validates the arguments (InputError for cut-off outside (0, Nyquist) or
    an odd or non-positive order) and returns
    ``scipy.signal.butter(order // 2, winter_design_cutoff(...), fs=rate_hz, output="sos")``.

    Parameters
    ----------
    cutoff_hz : float, Hz
        -3 dB frequency of the complete forward-backward filter.
    rate_hz : float, Hz
        The sampling rate.
    order : int
        Order of the complete filter (even).
    source : str, optional
        The file named in errors.

    Returns
    -------
    ndarray, shape (ceil(order / 4), 6)
        Second-order sections.
    """
    nyq = rate_hz / 2.0
    if not (np.isfinite(cutoff_hz) and 0.0 < cutoff_hz < nyq):
        raise InputError(f"low-pass cut-off {cutoff_hz!r} Hz must be above 0 and below the Nyquist "
                         f"frequency {nyq:g} Hz (half the {rate_hz:g} Hz sampling rate)", source)
    if int(order) != order or order < 2 or order % 2:
        raise InputError(f"zero-phase filter order must be an even integer >= 2 (two passes), got {order!r}",
                         source)
    fd = winter_design_cutoff(cutoff_hz, rate_hz, int(order))
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when a filter is first designed

    return signal.butter(int(order) // 2, fd, btype="low", fs=rate_hz, output="sos")

"""Savitzky-Golay smoothing and differentiation: least-squares polynomials over a sliding window.

Within a window of ``W`` samples centred on sample ``i`` the polynomial of
degree ``polyorder`` nearest in least squares to the samples is fitted and
its value (or ``deriv``-th derivative, per ``delta`` seconds) at the centre
is the output.  That value is a fixed linear combination of the window's
samples, the taps of :func:`savgol_coeffs`, so the interior of the output is
a convolution.  The first and last ``W // 2`` samples come from the
polynomial fitted to the first and last window, evaluated at their own
positions (scipy's ``mode="interp"``).  Same operations as
``scipy.signal.savgol_coeffs`` / ``savgol_filter`` (with NumPy's
least-squares solver in place of SciPy's; both call LAPACK's ``gelsd``).
"""

from __future__ import annotations

import math

import numpy as np


def savgol_coeffs(window: int, polyorder: int, deriv: int = 0, delta: float = 1.0) -> np.ndarray:
    """Convolution taps of the Savitzky-Golay filter evaluated at the window's centre.

    The taps ``c`` solve, in least squares, ``sum_k c_k x_k^j = j! / delta^j if j == deriv else 0``
    for ``j = 0..polyorder``, with ``x_k`` the sample offsets from the centre
    in reverse order (convolution order); ``deriv > polyorder`` gives zeros.

    Parameters
    ----------
    window : int
        Window length in samples (> polyorder).
    polyorder : int
    deriv : int
    delta : float
        Sample spacing (s), for derivatives.

    Returns
    -------
    (window,) float64
    """
    if polyorder >= window:
        raise ValueError("polyorder must be less than window_length.")
    half, rem = divmod(window, 2)
    pos = half - 0.5 if rem == 0 else half
    if deriv > polyorder:
        return np.zeros(window)
    x = np.flip(np.arange(-pos, window - pos, dtype=np.float64))
    A = x ** np.arange(polyorder + 1, dtype=np.float64).reshape(-1, 1)
    y = np.zeros(polyorder + 1)
    y[deriv] = (float(math.factorial(deriv)) if deriv < 171 else np.inf) / delta ** deriv
    return np.linalg.lstsq(A, y, rcond=np.finfo(np.float64).eps * max(A.shape))[0]


def _polyfit(x: np.ndarray, y: np.ndarray, deg: int) -> np.ndarray:
    """Least-squares polynomial coefficients (deg + 1, columns), highest power first; columns scaled to unit norm."""
    lhs = x[:, None] ** np.flip(np.arange(deg + 1, dtype=x.dtype))[None, :]
    scale = np.sqrt(np.sum(lhs * lhs, axis=0))
    lhs /= scale
    c = np.linalg.lstsq(lhs, y, rcond=x.shape[0] * np.finfo(x.dtype).eps)[0]
    return (c.T / scale).T


def _fit_edge(x: np.ndarray, start: int, stop: int, rows: slice, polyorder: int, deriv: int,
              delta: float) -> np.ndarray:
    """Values at ``rows`` (positions in ``x``) of the polynomial fitted to ``x[start:stop]`` (2-D)."""
    coef = _polyfit(np.arange(0, stop - start, dtype=x.dtype), x[start:stop], polyorder)
    n = coef.shape[0]
    if deriv > 0:
        if n <= deriv:
            coef = np.zeros_like(coef[:1])
        else:
            coef = coef[:-deriv].copy()
            for k in range(deriv):
                coef *= np.arange(n - k - 1, deriv - k - 1, -1, dtype=coef.dtype).reshape(n - deriv, 1)
    at = np.arange(rows.start - start, rows.stop - start, dtype=coef.dtype).reshape(-1, 1)
    values = np.zeros_like(at)
    for j in range(coef.shape[0]):
        values = values * at + coef[j]
    return values / delta ** deriv


def savgol_filter(x: np.ndarray, window: int, polyorder: int, deriv: int = 0, delta: float = 1.0) -> np.ndarray:
    """Savitzky-Golay filter along axis 0, the edges from the polynomial fitted to the end windows.

    Parameters
    ----------
    x : (F, ...) float
        Finite samples along axis 0, F >= window.
    window : int
        Odd window length (samples), > polyorder.
    polyorder, deriv : int
    delta : float
        Sample spacing (s); derivatives are per ``delta ** deriv``.

    Returns
    -------
    (F, ...) float64
    """
    x = np.asarray(x, dtype=np.float64)
    F = x.shape[0]
    if window > F:
        raise ValueError(f"the Savitzky-Golay window ({window} samples) is longer than the signal ({F})")
    if window % 2 == 0:
        raise ValueError(f"the Savitzky-Golay window must be odd, got {window}")
    flat = np.ascontiguousarray(x.reshape(F, -1))
    if not np.isfinite(flat).all():
        raise ValueError("the Savitzky-Golay filter needs finite samples")
    taps = savgol_coeffs(window, polyorder, deriv, delta)
    h = window // 2
    out = np.empty_like(flat)
    inner = np.zeros((F - 2 * h, flat.shape[1]))
    for k in range(window):  # out[i] = sum_k taps[k] x[i + h - k], summed in the order of k
        inner += taps[k] * flat[2 * h - k:F - k]
    out[h:F - h] = inner
    out[:h] = _fit_edge(flat, 0, window, slice(0, h), polyorder, deriv, delta)
    out[F - h:] = _fit_edge(flat, F - window, F, slice(F - h, F), polyorder, deriv, delta)
    return out.reshape(x.shape)


def savgol_edge(x: np.ndarray, first: bool, polyorder: int, deriv: int, delta: float) -> np.ndarray:
    """The first (or last) ``W // 2`` rows of :func:`savgol_filter` of one finite window ``x`` (W, C).

    The polynomial of degree ``polyorder`` fitted to the whole window, or its
    ``deriv``-th derivative, at those rows: the edge rule of :func:`savgol_filter`
    for a signal whose first (last) W samples are ``x``.
    """
    W = x.shape[0]
    h = W // 2
    return _fit_edge(x, 0, W, slice(0, h) if first else slice(W - h, W), polyorder, deriv, delta)

"""Butterworth low-pass design in second-order sections and the zero-phase (forward-backward) filter.

The design follows the textbook route: the analog Butterworth prototype's
poles ``p_m = -exp(i pi m / (2N))`` (``m = -N+1, -N+3, ..., N-1``), scaled to
the pre-warped cut-off ``w = 4 tan(pi Wn / 2)`` (``Wn`` the cut-off as a
fraction of the Nyquist frequency), mapped by the bilinear transform
``z = (4 + s) / (4 - s)`` (all N zeros at ``z = -1``, gain
``w^N / prod(4 - s_m)``), then paired into second-order sections: the
pole nearest the unit circle goes into the last section with its
conjugate (or, for odd N, the real pole with a pole at 0), each with two
zeros, and the gain multiplies the first section's numerator.  Every step
is computed with the same floating-point operations in the same order as
``scipy.signal.butter(N, Wn, output="sos")``, so the coefficients agree
with it bit for bit on the platforms tested.

The zero-phase filter (:func:`sosfiltfilt`) extends the signal at both ends
by ``padlen`` samples of odd reflection (``2 x[0] - x[k]``), runs the
sections forwards from the steady state of a step of height ``x[0]``
(:func:`sosfilt_zi`), backwards from the steady state of the forward
output's last sample, and trims the extension: what
``scipy.signal.sosfiltfilt(..., padtype="odd")`` computes.
"""

from __future__ import annotations

import numpy as np

from .._kernels.sos import sosfilt_rows


def butter_lowpass_sos(n: int, cutoff_hz: float, rate_hz: float) -> np.ndarray:
    """Second-order sections of a digital Butterworth low-pass of order ``n`` (one pass).

    Parameters
    ----------
    n : int
        Filter order, >= 1.
    cutoff_hz : float
        -3 dB frequency of this (single-pass) filter (Hz), 0 < cutoff_hz < rate_hz / 2.
    rate_hz : float
        Sampling rate (Hz).

    Returns
    -------
    (ceil(n / 2), 6) float64
        Rows ``(b0, b1, b2, 1, a1, a2)``, each section ``H_s(z) = (b0 + b1 z^-1 + b2 z^-2) /
        (1 + a1 z^-1 + a2 z^-2)``; the filter is their product.
    """
    n = int(n)
    if n < 1:
        raise ValueError(f"Butterworth order must be >= 1, got {n}")
    wn = np.asarray(cutoff_hz, dtype=np.float64) / (float(rate_hz) / 2)
    if not 0 < wn < 1:
        raise ValueError(f"cut-off {cutoff_hz!r} Hz must lie between 0 and half the {rate_hz!r} Hz sampling rate")
    warped = float(2 * 2.0 * np.tan(np.pi * wn / 2.0))
    m = np.arange(-n + 1, n, 2, dtype=np.float64)
    poles = warped * -np.exp(1j * np.pi * m / (2 * n))  # analog prototype scaled to the cut-off
    gain = 1.0 * warped ** n
    poles_z = (4.0 + poles) / (4.0 - poles)  # bilinear transform, fs = 2
    gain_z = gain * np.real(np.prod(4.0 - np.zeros(0)) / np.prod(4.0 - poles))
    zeros_z = -np.ones(n)
    if n % 2:  # odd order: a pole and a zero at the origin complete the first section
        poles_z = np.concatenate((poles_z, [0.0]))
        zeros_z = np.concatenate((zeros_z, [0.0]))
    sos = _pair_sections(np.sort(zeros_z), _conjugate_halves(poles_z))
    sos[0][:3] *= gain_z
    return sos


def _conjugate_halves(p: np.ndarray) -> np.ndarray:
    """Poles with positive imaginary part (each standing for its conjugate pair), then the real poles.

    Sorted by real part; a pair is the mean of the pole and its partner's
    conjugate (the two are conjugates to rounding), as scipy's ``_cplxreal``.
    """
    tol = 100 * np.finfo(np.float64).eps
    p = p[np.lexsort((abs(p.imag), p.real))]
    real = abs(p.imag) <= tol * abs(p)
    upper, lower = p[~real & (p.imag > 0)], p[~real & (p.imag < 0)]
    if len(upper) != len(lower):
        raise ValueError("poles without a conjugate partner")
    return np.concatenate(((upper + lower.conj()) / 2, p[real].real))


def _poly(roots) -> np.ndarray:
    """Coefficients of ``prod (x - r)``, highest power first; real when the roots come in conjugates."""
    roots = np.asarray(roots)
    a = np.ones((1,), dtype=roots.dtype)
    one = np.ones_like(roots[0])
    for r in roots:
        a = np.convolve(a, np.stack((one, -r)), mode="full")
    if np.iscomplexobj(a):
        a = np.real(a).copy()
    return a


def _pair_sections(zeros: np.ndarray, poles: np.ndarray) -> np.ndarray:
    """Second-order sections from real ``zeros`` and the poles of :func:`_conjugate_halves`.

    From the last section to the first: the pole nearest the unit circle,
    with its conjugate (a complex pole) or the real pole nearest the unit
    circle (a real pole), and the two zeros nearest to it.
    """
    n_sections = len(zeros) // 2
    sos = np.zeros((n_sections, 6))
    p, z = poles, zeros
    for si in range(n_sections - 1, -1, -1):
        i = np.argmin(np.abs(1 - np.abs(p)))
        p1 = p[i]
        p = np.delete(p, i)
        if np.isreal(p1):
            reals = np.flatnonzero(np.isreal(p))
            j = reals[np.argmin(np.abs(1 - np.abs(p[reals])))]
            p2 = p[j]
            p = np.delete(p, j)
        else:
            p2 = p1.conj()
        z_pair = []
        for _ in range(2):
            k = np.argsort(np.abs(z - p1))[0]
            z_pair.append(z[k])
            z = np.delete(z, k)
        sos[si, :3] = 1.0 * _poly(np.asarray(z_pair))
        sos[si, 3:] = _poly(np.asarray([p1, p2]))
    return sos


def sosfilt_zi(sos: np.ndarray) -> np.ndarray:
    """Initial states of the sections for the steady state of a unit step.

    For section ``s`` with ``b, a`` the states ``z`` solve
    ``(I - A^T) z = b[1:] - a[1:] b0`` (``A`` the companion matrix of ``a``),
    scaled by the DC gain ``prod b.sum() / a.sum()`` of the sections before it.

    Returns
    -------
    (S, 2) float64
    """
    sos = np.asarray(sos, dtype=np.float64)
    zi = np.empty((sos.shape[0], 2))
    scale = 1.0
    for s in range(sos.shape[0]):
        b, a = sos[s, :3], sos[s, 3:]
        i_minus_a = np.eye(2) - np.array([[-a[1] / 1.0, 1.0], [-a[2] / 1.0, 0.0]])
        zi[s] = scale * np.linalg.solve(i_minus_a, b[1:] - a[1:] * b[0])
        scale *= np.sum(b) / np.sum(a)
    return zi


def default_padlen(sos: np.ndarray) -> int:
    """Samples of padding :func:`sosfiltfilt` uses when not told: 3 x (2 S + 1 - poles/zeros at 0)."""
    sos = np.asarray(sos)
    taps = 2 * len(sos) + 1 - min(int((sos[:, 2] == 0).sum()), int((sos[:, 5] == 0).sum()))
    return 3 * taps


def sosfiltfilt(sos: np.ndarray, x: np.ndarray, padlen: int | None = None) -> np.ndarray:
    """Zero-phase filter along axis 0: forwards and backwards through the sections ``sos``.

    Parameters
    ----------
    sos : (S, 6) float64
        Second-order sections (:func:`butter_lowpass_sos`).
    x : (F, ...) float
        Samples along axis 0; every column is filtered on its own.  NaN
        spreads through the whole column.
    padlen : int, optional
        Samples of odd extension at each end, < F; None: :func:`default_padlen`.

    Returns
    -------
    (F, ...) float64
        The filtered samples, a new array.
    """
    sos = np.ascontiguousarray(sos, dtype=np.float64)
    x = np.asarray(x, dtype=np.float64)
    edge = default_padlen(sos) if padlen is None else int(padlen)
    F = x.shape[0]
    if F <= edge:
        raise ValueError(f"the signal has {F} samples: it must be longer than the padding, {edge} samples")
    flat = x.reshape(F, -1)
    if edge > 0:
        flat = np.concatenate((2 * flat[:1] - flat[edge:0:-1], flat, 2 * flat[-1:] - flat[-2:-(edge + 2):-1]))
    zi = sosfilt_zi(sos)[:, :, None]
    y = np.array(flat, dtype=np.float64, order="C")
    sosfilt_rows(sos, y, zi * y[:1])
    y = np.ascontiguousarray(y[::-1])
    sosfilt_rows(sos, y, zi * y[:1])
    y = y[::-1]
    if edge > 0:
        y = y[edge:-edge]
    return np.ascontiguousarray(y).reshape(x.shape)

"""Smoothing differentiation of sampled signals (first and second derivatives).

Measured coordinates carry noise that differentiation amplifies, so rates are
taken from a smoothing differentiator with a stated cut-off frequency.  The
methods:

``"savgol"`` (default)
    Savitzky-Golay local polynomial fit (:func:`scipy.signal.savgol_filter`)
    of order ``polyorder``; the window is the shortest odd length whose
    smoothing response has fallen to -3 dB at ``cutoff_hz`` (computed from the
    filter's own frequency response, see :func:`savgol_window`).  The first
    and last half window of rows are the same centred fit on the signal
    extended by its odd reflection about each end (:func:`_edge_fit`).
``"butterworth"``
    Zero-phase low-pass Butterworth (:func:`humanbody.signal.filters.butterworth_sos`
    run by :func:`scipy.signal.sosfiltfilt`): ``order`` is the order of the
    complete forward-backward filter and ``cutoff_hz`` its -3 dB point
    (Winter's correction), as for the marker filter; then second-order
    central differences (:func:`numpy.gradient`).
``"spline"``
    Cubic smoothing spline (:func:`scipy.interpolate.make_smoothing_spline`)
    and its analytic derivatives.  The penalty ``lam`` is set from the
    cut-off: for samples h apart the spline acts as the filter
    ``1 / (1 + lam h w^4)``, -3 dB at ``w = 2 pi cutoff_hz`` when
    ``lam = (sqrt(2) - 1) / (h (2 pi cutoff_hz)^4)``.  Accepts uneven sampling
    (h is then the median step).
``"gradient"``
    No smoothing: second-order central differences.  For signals that are
    already smooth (simulations, densely sampled analytic motion).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..errors import InputError
from . import CUTOFF_HZ

METHODS = ("savgol", "butterworth", "spline", "gradient")


def savgol_window(cutoff_hz: float, rate_hz: float, polyorder: int = 4) -> int:
    """Shortest odd Savitzky-Golay window whose -3 dB point is <= ``cutoff_hz``.

    The smoothing (zeroth-derivative) filter's magnitude response
    ``|H(f)| = |sum_n c_n exp(-2 pi i f n / rate)|`` is evaluated on a fine
    grid for growing windows; Schafer (2011, IEEE Signal Processing Magazine
    28(4):111-117) gives the same behaviour in closed form approximately,
    ``f_c ~ (N + 1) / (3.2 M - 4.6) * rate / 2`` for a window 2M + 1.

    Parameters
    ----------
    cutoff_hz : float, Hz
        The -3 dB frequency wanted.
    rate_hz : float, Hz
        The sampling rate.
    polyorder : int
        The fitted polynomial's order.

    Returns
    -------
    int
        The window length in samples: odd, at least polyorder + 2 (or + 3 to stay odd).
    """
    # a rate computed from a time column differs in the last bits from trial to trial
    return _savgol_window(float(cutoff_hz), float(f"{float(rate_hz):.9g}"), int(polyorder))


@lru_cache(maxsize=256)
def _savgol_window(cutoff_hz: float, rate_hz: float, polyorder: int) -> int:
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when a trial is first differentiated

    nyq = rate_hz / 2.0
    if cutoff_hz >= nyq:
        return polyorder + 2 - (polyorder % 2) + 1 if polyorder % 2 == 0 else polyorder + 2
    freqs = np.linspace(0.0, nyq, 2048)
    freqs = freqs[freqs <= cutoff_hz]  # only a dip below -3 dB up to the cut-off decides
    window = polyorder + 2 if polyorder % 2 == 1 else polyorder + 1
    while window < 100001:
        c = signal.savgol_coeffs(window, polyorder)
        n = np.arange(window) - window // 2
        # the sum over taps by numpy, not a BLAS matrix-vector product: OpenBLAS would start its threads
        # for this small product (~10 ms a window on a busy machine, against ~0.1 ms)
        H = np.abs((np.exp(-2j * np.pi * np.outer(freqs, n) / rate_hz) * c).sum(axis=1))
        if np.any(H < 1.0 / np.sqrt(2.0)):
            return window
        window += 2
    return window


@lru_cache(maxsize=64)
def _savgol_taps(window: int, polyorder: int, deriv: int, delta: float) -> np.ndarray:
    """:func:`scipy.signal.savgol_coeffs` as a contiguous array, once per filter (blocks share it)."""
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when a trial is first differentiated

    taps = np.ascontiguousarray(signal.savgol_coeffs(window, polyorder, deriv=deriv, delta=delta))
    taps.setflags(write=False)
    return taps


def _savgol(x: np.ndarray, window: int, polyorder: int, deriv: int, delta: float,
            edges: tuple[bool, bool] = (True, True)) -> np.ndarray:
    """Savitzky-Golay smoothing or derivative along axis 0, NaN-tolerant, the interior in parallel.

    The interior rows are the convolution with :func:`scipy.signal.savgol_coeffs`
    (:func:`humanbody._kernels.fir.convolve_rows`, both cores), what
    :func:`scipy.signal.savgol_filter` gives, to rounding; the first and last
    ``window // 2`` rows are the same fit on the signal reflected about its
    ends (:func:`_edge_fit`).
    ``edges`` (first, last) False leaves those rows NaN instead: a block of
    a longer trial, whose caller trims them.
    """
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when a trial is first differentiated

    F = x.shape[0]
    if F < window:
        return signal.savgol_filter(x, window, polyorder, deriv=deriv, delta=delta, axis=0, mode="interp")
    if x.ndim != 2:
        return _savgol(x.reshape(F, -1), window, polyorder, deriv, delta, edges).reshape(x.shape)
    from .._kernels.fir import convolve_rows  # lazy: numba, ~0.3 s

    x = np.ascontiguousarray(x)
    out = np.empty_like(x)
    convolve_rows(x, _savgol_taps(window, polyorder, deriv, float(delta)), out)
    h = window // 2
    if edges[0]:
        out[:h] = _edge_fit(x[:window], True, polyorder, deriv, delta)
    else:
        out[:h] = np.nan
    if edges[1]:
        out[F - h:] = _edge_fit(x[F - window:], False, polyorder, deriv, delta)
    else:
        out[F - h:] = np.nan
    return out


def _edge_fit(xw: np.ndarray, first: bool, polyorder: int, deriv: int, delta: float) -> np.ndarray:
    """The first (last) half window of rows of one edge window (window, columns), from the signal reflected about its end.

    The ``h = window // 2`` samples beyond the end are the odd (point)
    reflection of the first (last) samples about the end sample,
    ``x(-k) = 2 x(0) - x(k)`` (Smith 1989, J Biomech 22:967; Winter 2009,
    *Biomechanics and Motor Control of Human Movement*, 4th ed., sect. 2.2.4),
    as the marker filter pads (:func:`scipy.signal.sosfiltfilt`, ``padtype="odd"``);
    every edge row is then the same centred Savitzky-Golay fit as the interior
    rows.  The end's value and slope are kept; its curvature is taken as zero,
    so the second derivative of the end frame is biased towards zero and never
    overshoots.  A polynomial fitted to the whole edge window and evaluated at
    its end (``mode="interp"``) follows a smooth motion more closely, but
    extrapolates a window that holds a fast change (a push-off starting
    0.1 s into a walk) into rates several times the trial's peak.
    A column with a NaN is NaN (NaN samples propagate to the rows whose window
    holds them, as in the interior convolution).
    """
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when a trial is first differentiated

    W, h = xw.shape[0], xw.shape[0] // 2
    if first:
        ext, rows = np.concatenate([2.0 * xw[:1] - xw[h:0:-1], xw]), slice(h, 2 * h)
    else:
        ext, rows = np.concatenate([xw, 2.0 * xw[-1:] - xw[-2:-h - 2:-1]]), slice(W - h, W)
    ok = np.isfinite(xw).all(axis=0)
    if ok.all():
        return signal.savgol_filter(ext, W, polyorder, deriv=deriv, delta=delta, axis=0, mode="interp")[rows]
    res = np.full((h, xw.shape[1]), np.nan)
    if ok.any():
        res[:, ok] = signal.savgol_filter(ext[:, ok], W, polyorder, deriv=deriv, delta=delta, axis=0,
                                          mode="interp")[rows]
    return res


@dataclass(frozen=True)
class Differentiation:
    """How rates are computed from sampled coordinates.

    Parameters
    ----------
    method : {"savgol", "butterworth", "spline", "gradient"}
    cutoff_hz : float
        -3 dB cut-off of the smoothing (Hz); ignored by "spline" and "gradient".
    polyorder : int
        Polynomial order of "savgol" (>= 2 so second derivatives exist).
    order : int
        Order of the complete zero-phase Butterworth filter of "butterworth"
        (even; each pass has half of it).
    """

    method: str = "savgol"
    cutoff_hz: float = CUTOFF_HZ
    polyorder: int = 4
    order: int = 4

    def __post_init__(self):
        if self.method not in METHODS:
            raise InputError(
                f"unknown differentiation method {self.method!r}; choose one of {', '.join(METHODS)}"
            )
        if not (np.isfinite(self.cutoff_hz) and self.cutoff_hz > 0):
            raise InputError(f"cut-off frequency must be positive, got {self.cutoff_hz}")
        if self.polyorder < 2:
            raise InputError("savgol polyorder must be at least 2 for second derivatives")

    def describe(self, rate_hz: float | None = None) -> str:
        """One line saying what is done, for logs and result metadata.

        Parameters
        ----------
        rate_hz : float, optional, Hz
            The sampling rate (the line then gives the window in frames).

        Returns
        -------
        str
            The line.
        """
        if self.method == "savgol":
            extra = ""
            if rate_hz:
                extra = f", window {savgol_window(self.cutoff_hz, rate_hz, self.polyorder)} samples"
            return f"Savitzky-Golay order {self.polyorder}, -3 dB at {self.cutoff_hz:g} Hz{extra}"
        if self.method == "butterworth":
            return (
                f"zero-phase Butterworth (order {self.order} overall), -3 dB at {self.cutoff_hz:g} Hz, "
                "then central differences"
            )
        if self.method == "spline":
            return f"cubic smoothing spline, -3 dB at {self.cutoff_hz:g} Hz, analytic derivatives"
        return "central differences, no smoothing"

    def reach(self, rate_hz: float) -> int | None:
        """Frames on each side that a rate at one frame depends on; None when global.

        A trial differentiated in overlapping blocks, each extended by this
        many frames on both sides and trimmed afterwards, gives exactly the
        rates of one pass: Savitzky-Golay is a finite filter (half its
        window) and central differences of central differences reach two
        frames; the Butterworth filter and the smoothing spline act on the
        whole trial.

        Parameters
        ----------
        rate_hz : float, Hz
            The sampling rate.

        Returns
        -------
        int or None
            The reach in frames, or None for a global method (Butterworth, spline).
        """
        if self.method == "savgol":
            return savgol_window(self.cutoff_hz, rate_hz, self.polyorder) // 2
        if self.method == "gradient":
            return 2
        return None

    def step(self, time) -> float:
        """The sampling step (s) of ``time``: the median step, checked as :meth:`__call__` checks it.

        Parameters
        ----------
        time : array_like, shape (F,), s
            The samples' times.

        Returns
        -------
        float, s
            The median step.
        """
        t = np.asarray(time, dtype=float)
        if t.shape[0] < 3:
            raise InputError("at least 3 frames are needed to compute rates")
        dt = np.diff(t)
        if np.any(dt <= 0):
            raise InputError("time is not strictly increasing")
        h = float(np.median(dt))
        if self.method != "spline" and not np.allclose(dt, h, rtol=1e-3, atol=0.0):
            raise InputError(
                f"samples are not evenly spaced in time (steps {dt.min():.6g}..{dt.max():.6g} s); "
                "use the 'spline' differentiation or resample the trial"
            )
        return h

    def __call__(self, time, y, smoothed: bool = True, step: float | None = None,
                 edges: tuple[bool, bool] = (True, True)):
        """Smoothed values, first and second derivatives of ``y`` along axis 0.

        Parameters
        ----------
        time : (F,) s, strictly increasing.
        y : (F, ...) samples.

        smoothed : bool
            Also form the smoothed signal (False skips it where that saves work).
        step : float, optional
            Sampling step (s) to use instead of :meth:`step` of ``time`` (a
            block of a longer trial uses the trial's step).
        edges : (bool, bool)
            Whether the first and the last :meth:`reach` rows are wanted.  A
            block inside a longer trial, extended by the reach and trimmed
            by its caller, says False: "savgol" then skips the polynomial
            fits of those rows and leaves them NaN.  The other methods
            ignore it.

        Returns
        -------
        (y_s, y_dot, y_ddot), each shaped like ``y`` (``y_s`` is None when
        ``smoothed`` is False and the method need not form it).  NaN samples propagate
        into the neighbouring derivatives; they are not invented.
        """
        t = np.asarray(time, dtype=float)
        y = np.asarray(y, dtype=float)
        F = t.shape[0]
        h = self.step(t) if step is None else float(step)
        flat = y.reshape(F, -1)
        if self.method == "spline":
            return self._spline(t, flat, y.shape, h)
        rate = 1.0 / h
        if self.method == "savgol":
            w = savgol_window(self.cutoff_hz, rate, self.polyorder)
            if w > F:
                w = F if F % 2 == 1 else F - 1
            if w <= self.polyorder:
                raise InputError(
                    f"trial has {F} frames, too few for a Savitzky-Golay window of order {self.polyorder}"
                )
            out: list[np.ndarray | None] = [_savgol(flat, w, self.polyorder, d, h, edges)
                                            for d in ((0, 1, 2) if smoothed else (1, 2))]
            if not smoothed:
                out.insert(0, None)
        elif self.method == "butterworth":
            from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when used, not at start-up

            from .filters import butterworth_sos  # lazy: scipy.signal, as above

            sos = butterworth_sos(self.cutoff_hz, rate, self.order)
            padlen = min(3 * (2 * len(sos) + 1), F - 1)
            ys = signal.sosfiltfilt(sos, flat, axis=0, padlen=padlen)
            yd = np.gradient(ys, h, axis=0, edge_order=2)
            out = [ys, yd, np.gradient(yd, h, axis=0, edge_order=2)]
        else:  # gradient
            yd = np.gradient(flat, h, axis=0, edge_order=2)
            out = [flat.copy(), yd, np.gradient(yd, h, axis=0, edge_order=2)]
        return tuple(None if o is None else np.ascontiguousarray(o).reshape(y.shape) for o in out)

    def _spline(self, t, flat, shape, h):
        from scipy.interpolate import make_smoothing_spline  # lazy: scipy.interpolate, ~0.8 s

        lam = (np.sqrt(2.0) - 1.0) / (h * (2.0 * np.pi * self.cutoff_hz) ** 4)
        out = np.full((3,) + flat.shape, np.nan)
        ok_cols = np.isfinite(flat).all(axis=0)
        if ok_cols.any():  # columns without gaps: one vectorised fit
            spl = make_smoothing_spline(t, flat[:, ok_cols], lam=lam)
            for d in range(3):
                out[d][:, ok_cols] = spl(t, nu=d)
        for j in np.nonzero(~ok_cols)[0]:  # columns with gaps: fit the valid samples
            ok = np.isfinite(flat[:, j])
            if ok.sum() >= 5:
                spl = make_smoothing_spline(t[ok], flat[ok, j], lam=lam)
                for d in range(3):
                    out[d, :, j] = spl(t, nu=d)
        return tuple(np.ascontiguousarray(o).reshape(shape) for o in out)

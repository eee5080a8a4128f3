"""Coordinates, speeds and accelerations from a coordinates file, as OpenSim's AnalyzeTool makes them.

OpenSim's static optimization reads the coordinates (an IK ``.mot``), and
with ``lowpass_cutoff_frequency_for_coordinates`` set:

1. pads each column with ``n // 2`` points at each end, reflected and
   negated about the end value (``2 x_0 - x_k``: value and slope kept);
2. filters it with a third-order Butterworth low-pass, forward then backward
   (Signal::LowpassIIR: bilinear transform with the cut-off pre-warped,
   ``w = tan(pi fc T)``; the first four outputs of each pass copy its input);
3. fits a quintic spline through the padded, filtered samples (GCVSplineSet
   of degree 5 with no smoothing: the natural interpolating spline, third and
   fourth derivatives zero at the ends) and takes the speeds as its
   derivative at the samples; the accelerations are the derivative of the
   same kind of spline through the speeds.

Without a cut-off the spline runs through the samples themselves, unpadded.
:func:`opensim_kinematics` reproduces these steps (OpenSim's filtered
coordinates to 3e-8 rad, its speeds to 5e-7 of their range on the shared walk).
"""

from __future__ import annotations

import numpy as np

from .._kernels.banded import banded_solve
from .._kernels.iir import iir3_pass

DEGREE = 5  # quintic


def bspline_local(knots: np.ndarray, k: int, x: np.ndarray, deriv: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The ``deriv``-th derivative of the B-splines of degree ``k`` on ``knots`` that are not zero at each ``x``:
    ``(N, first)``, ``N`` (len(x), k + 1) the values of ``B[first] .. B[first + k]`` at each point
    (a point at the last knot in the last non-empty interval).

    At ``x`` in ``[t_c, t_c+1)`` only ``B[c-k] .. B[c]`` are not zero (``first = c - k``); they are raised
    degree by degree (de Boor's recurrence, ``B[i,d] = w[i,d] B[i,d-1] + (1 - w[i+1,d]) B[i+1,d-1]``,
    ``w[i,d] = (x - t_i) / (t_i+d - t_i)``), the last ``deriv`` raises by the derivative's
    ``dB[i,d] = d (B[i,d-1] / (t_i+d - t_i) - B[i+1,d-1] / (t_i+d+1 - t_i+1))`` (0/0 taken as 0).

    Parameters
    ----------
    knots : numpy.ndarray
        (K,) non-decreasing knot vector.
    k : int
        Degree of the B-splines.
    x : numpy.ndarray
        (n,) points at which to evaluate.
    deriv : int, default 0
        Order of the derivative (0: the values).

    Returns
    -------
    N : numpy.ndarray
        (n, k + 1) the nonzero B-splines (or their ``deriv``-th derivatives) at each point.
    first : numpy.ndarray
        (n,) int, index of the first of those B-splines at each point.
    """
    t = np.asarray(knots, dtype=float)
    x = np.asarray(x, dtype=float)
    last = int(np.flatnonzero(t[1:] > t[:-1])[-1])
    c = np.clip(np.searchsorted(t, x, side="right") - 1, 0, last)
    c = np.where(x >= t[last + 1], last, c)
    N = np.ones((len(x), 1))  # N[:, j]: B[c - d + j] at degree d
    for d in range(1, k + 1):
        i = c[:, None] - d + np.arange(d + 1)  # the d + 1 functions of degree d
        lo = np.pad(N, ((0, 0), (1, 0)))  # B[i, d-1] (B[c - d] of degree d - 1 is zero)
        hi = np.pad(N, ((0, 0), (0, 1)))  # B[i+1, d-1]
        span, span1 = t[i + d] - t[i], t[i + d + 1] - t[i + 1]
        if d > k - deriv:
            a = np.divide(d, span, out=np.zeros_like(span), where=span > 0)
            b = np.divide(d, span1, out=np.zeros_like(span1), where=span1 > 0)
            N = lo * a - hi * b
        else:
            w = np.divide(x[:, None] - t[i], span, out=np.zeros_like(span), where=span > 0)
            w1 = np.divide(x[:, None] - t[i + 1], span1, out=np.zeros_like(span1), where=span1 > 0)
            N = w * lo + (1.0 - w1) * hi
    return N, c - k


def natural_quintic_slopes(t: np.ndarray, y: np.ndarray) -> np.ndarray:
    """(F, C): the first derivative, at the samples ``t`` (F,), of the quintic spline interpolating each
    column of ``y`` (F, C) there, knots at the samples, third and fourth derivatives zero at both ends
    (OpenSim's GCVSpline of degree 5 without smoothing; SciPy's ``make_interp_spline(t, y, k=5,
    bc_type=([(3, 0), (4, 0)], [(3, 0), (4, 0)]))``, to rounding).

    Its B-spline coefficients ``c`` (knots ``t`` with 5 more copies of each end) solve
    ``B(t) c = y`` with ``B3(t0) c = B4(t0) c = B3(tn) c = B4(tn) c = 0`` (``Bd``: the basis' d-th
    derivative, :func:`bspline_local`), rows in that order: a banded system (each row's 6 nonzeros
    near the diagonal), solved by :func:`humanbody._kernels.banded.banded_solve` in O(F); the slopes
    are ``B1(t) c``.

    Parameters
    ----------
    t : numpy.ndarray
        (F,) increasing sample times (s).
    y : numpy.ndarray
        (F, C) or (F, ...) samples to interpolate, one column per signal.

    Returns
    -------
    numpy.ndarray
        The spline's first derivative at ``t``, shaped like ``y`` (units of ``y`` per s).

    Raises
    ------
    ValueError
        The collocation matrix is singular (repeated sample times).
    """
    k = DEGREE
    t = np.asarray(t, dtype=float)
    y = np.asarray(y, dtype=float)
    knots = np.concatenate([np.full(k, t[0]), t, np.full(k, t[-1])])
    ends = t[[0, -1]]
    parts = [bspline_local(knots, k, ends[:1], 3), bspline_local(knots, k, ends[:1], 4),
             bspline_local(knots, k, t), bspline_local(knots, k, ends[1:], 3), bspline_local(knots, k, ends[1:], 4)]
    N = np.concatenate([p[0] for p in parts])
    first = np.concatenate([p[1] for p in parts])
    n = len(N)
    rows = np.repeat(np.arange(n), k + 1)
    cols = (first[:, None] + np.arange(k + 1)).ravel()
    values = N.ravel()
    nonzero = values != 0.0
    rows, cols, values = rows[nonzero], cols[nonzero], values[nonzero]
    kl, ku = max(int(np.max(rows - cols)), 0), max(int(np.max(cols - rows)), 0)
    ab = np.zeros((2 * kl + ku + 1, n))
    ab[kl + ku + rows - cols, cols] = values
    rhs = np.zeros((n, int(np.prod(y.shape[1:], dtype=int))))
    rhs[2: 2 + len(t)] = y.reshape(len(t), -1)
    if banded_solve(ab, kl, ku, rhs):
        raise ValueError("the spline's collocation matrix is singular (repeated sample times)")
    slope, at = bspline_local(knots, k, t, 1)
    out = np.einsum("fj,fjc->fc", slope, rhs[at[:, None] + np.arange(k + 1)])
    return out.reshape(y.shape)


def reflect_pad(x: np.ndarray, n: int) -> np.ndarray:
    """``n`` points before and after (axis 0), ``2 x[0] - x[k]`` and ``2 x[-1] - x[-1-k]`` (Signal::Pad).

    Parameters
    ----------
    x : numpy.ndarray
        (F, ...) samples along axis 0.
    n : int
        Points to add at each end (at most ``F - 1``); 0 or less: ``x`` unchanged.

    Returns
    -------
    numpy.ndarray
        (F + 2 n, ...) the padded samples (``x`` itself when ``n <= 0``).
    """
    if n <= 0:
        return x
    n = min(n, len(x) - 1)
    return np.concatenate([2.0 * x[0] - x[n:0:-1], x, 2.0 * x[-1] - x[-2:-n - 2:-1]])


def butterworth3(x: np.ndarray, dt: float, cutoff_hz: float) -> np.ndarray:
    """OpenSim's Signal::LowpassIIR on every column of ``x`` (F, C): third-order Butterworth, forward and back.

    Parameters
    ----------
    x : numpy.ndarray
        (F, C) evenly sampled signals (any further axes are flattened into columns).
    dt : float
        Sampling interval (s).
    cutoff_hz : float
        Cut-off frequency (Hz), limited to ``0.49 / dt``.

    Returns
    -------
    numpy.ndarray
        The filtered signals, shaped like ``x``.
    """
    fc = min(cutoff_hz, 0.49 / dt)
    w = np.tan(np.pi * fc * dt)
    w2, w3 = w * w, w ** 3
    den = (w + 1.0) * (w2 + w + 1.0)
    a = np.array([w3, 3 * w3, 3 * w3, w3]) / den
    b = np.array([1.0, (3 * w3 + 2 * w2 - 2 * w - 3) / den, (3 * w3 - 2 * w2 - 2 * w + 3) / den,
                  (w - 1) * (w2 - w + 1) / den])
    forward = iir3_pass(np.ascontiguousarray(np.asarray(x, dtype=float).reshape(len(x), -1)), a, b)
    return iir3_pass(np.ascontiguousarray(forward[::-1]), a, b)[::-1].reshape(np.shape(x))


def opensim_kinematics(time: np.ndarray, q: np.ndarray, cutoff_hz: float | None = None
                       ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coordinates, speeds and accelerations at the samples, as OpenSim's AnalyzeTool derives them.

    Parameters
    ----------
    time : (F,) s, evenly sampled.
    q : (F, C) coordinates (rad, m).
    cutoff_hz : the low-pass cut-off (Hz), or None for no filtering.

    Returns
    -------
    q, qd, qdd : (F, C) each.
    """
    time = np.asarray(time, float)
    q = np.asarray(q, float)
    dt = float(np.median(np.diff(time)))
    n = len(time) // 2 if cutoff_hz is not None and cutoff_hz >= 0 else 0
    x = reflect_pad(q, n)
    t = np.concatenate([time[0] - dt * np.arange(n, 0, -1), time, time[-1] + dt * np.arange(1, n + 1)])
    if n:
        x = butterworth3(x, dt, float(cutoff_hz))  # type: ignore[arg-type]
    speeds = natural_quintic_slopes(t, x)
    inner = slice(n, n + len(time))
    return x[inner], speeds[inner], natural_quintic_slopes(t, speeds)[inner]

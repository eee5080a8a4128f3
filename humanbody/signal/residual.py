"""Cut-off frequency of the marker low-pass from the data: Winter's residual analysis.

A zero-phase low-pass at cut-off f_c leaves the residual

    R(f_c) = sqrt( 1/(N C) sum_{i,c} (x_ic - x^_ic(f_c))^2 )

between the C recorded coordinates x and their filtered copies x^.  Above
the frequencies where the movement has power, the residual is white
noise passed by the filter's stop band: it falls on a straight line
R(f) ~ a + b f, whose intercept a (b < 0) estimates the noise's RMS amplitude.
Below them the residual rises steeply, because the filter starts removing
movement.  Winter (2009, Biomechanics and Motor Control of Human Movement,
4th ed.) picks the cut-off where the residual has come
down to the noise, ``R(f_c) = a``: as much noise is let through as
movement is removed.  One cut-off serves all markers (markers of one
segment must be filtered alike, or the clusters deform).

The pooled residual weighs each coordinate by its own power above the
cut-off: the fast markers (feet, hands) decide, as they should, since the
slow ones lose nothing at a cut-off fitted to the fast ones.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from .filters import butterworth_sos

__all__ = ["MIN_FRAMES", "ResidualAnalysis", "residual_cutoff"]

#: Fewest frames the analysis accepts (one second at 60 Hz would already be few).
MIN_FRAMES = 60
#: Longest stretch analysed (frames); a long trial is analysed on its middle part.
MAX_FRAMES = 12_000


@dataclass(frozen=True)
class ResidualAnalysis:
    """The residual curve and the cut-off chosen from it.

    Attributes
    ----------
    cutoff_hz : float               chosen -3 dB cut-off of the zero-phase filter (Hz)
    candidates_hz : (K,)            cut-offs tried (Hz)
    residual : (K,)                 pooled residual R(f) at each (same units as the data)
    noise : float                   intercept a of the noise line (the noise's RMS estimate)
    slope : float                   slope b of the noise line (units per Hz)
    fit_from_hz : float             lowest cut-off of the noise line's fit (Hz)
    """

    cutoff_hz: float
    candidates_hz: np.ndarray
    residual: np.ndarray
    noise: float
    slope: float
    fit_from_hz: float

    def describe(self, unit: str = "mm", scale: float = 1000.0) -> str:
        """One line for the log.

        Parameters
        ----------
        unit : str
            The unit the noise level is written in.
        scale : float
            Its factor from SI (1000 for mm).

        Returns
        -------
        str
            The cut-off chosen and the noise level in unit.
        """
        return (f"cut-off chosen by residual analysis (Winter): the residual meets the noise level "
                f"{self.noise * scale:.2g} {unit} at {self.cutoff_hz:g} Hz (noise line fitted from {self.fit_from_hz:g} Hz up)")


def residual_cutoff(x: np.ndarray, rate_hz: float, order: int = 4, lowest_hz: float = 1.0,
                    highest_hz: float | None = None, step_hz: float = 0.5, source=None) -> ResidualAnalysis:
    """Winter's residual analysis of the columns of ``x``: the cut-off where the residual meets the noise line.

    Parameters
    ----------
    x : (N, C) array
        Signals sampled at ``rate_hz`` (e.g. marker coordinates in m);
        columns with any non-finite value are left out.
    rate_hz : float
        Sampling rate (Hz).
    order : int
        Order of the complete zero-phase Butterworth filter, as the marker filter uses it.
    lowest_hz, highest_hz, step_hz : float
        Cut-offs tried: ``lowest_hz, lowest_hz + step_hz, ...`` up to ``highest_hz``
        (default: 0.4 of the sampling rate, at most 30 Hz).
    source : str, optional
        File named in errors.

    Returns
    -------
    ResidualAnalysis
        The cut-off is the lowest candidate whose residual is at or below
        the noise line's intercept ``a``; the line is fitted by least
        squares to R(f) over the upper half of the candidates (above the
        movement's frequencies for human motion sampled at 50 Hz or more).
        When the residual never comes down to ``a`` (no noise to speak of),
        the highest candidate is returned.

    Raises
    ------
    InputError
        Fewer than :data:`MIN_FRAMES` frames, no finite column, or a rate
        too low for the candidate range.
    """
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        x = x[:, None]
    n = x.shape[0]
    if n < MIN_FRAMES:
        raise InputError(f"residual analysis for the cut-off needs at least {MIN_FRAMES} frames, got {n}; "
                         "give the cut-off (`cutoff_hz` HZ)", source)
    keep = np.isfinite(x).all(axis=0)
    if not keep.any():
        raise InputError("residual analysis for the cut-off: no marker coordinate is finite in every frame; "
                         "give the cut-off (`cutoff_hz` HZ)", source)
    x = x[:, keep]
    if n > MAX_FRAMES:  # the middle of a long trial: the same movement, a bounded cost
        s = (n - MAX_FRAMES) // 2
        x = x[s:s + MAX_FRAMES]
    top = min(0.4 * rate_hz, 30.0) if highest_hz is None else float(highest_hz)
    cands = np.arange(float(lowest_hz), top + 1e-9, float(step_hz))
    if len(cands) < 6:
        raise InputError(f"residual analysis for the cut-off: a {rate_hz:g} Hz sampling rate leaves too few "
                         "cut-offs to try; give the cut-off (`cutoff_hz` HZ)", source)
    from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when the cut-off is first chosen

    x = x - x.mean(axis=0)
    res = np.empty(len(cands))
    for i, fc in enumerate(cands):
        sos = butterworth_sos(float(fc), rate_hz, order, source)
        y = signal.sosfiltfilt(sos, x, axis=0)
        res[i] = np.sqrt(np.mean((x - y) ** 2))
    upper = cands >= cands[len(cands) // 2]
    slope, noise = np.polyfit(cands[upper], res[upper], 1)
    below = np.nonzero(res <= noise)[0]
    chosen = float(cands[below[0]]) if len(below) else float(cands[-1])
    return ResidualAnalysis(chosen, cands, res, float(noise), float(slope), float(cands[upper][0]))

"""The result of a statistical parametric mapping test."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError


@dataclass(frozen=True)
class SPMResult:
    """A statistic field, its critical threshold and its supra-threshold clusters.

    Attributes
    ----------
    test : str
        ``"ttest"``, ``"ttest_paired"``, ``"ttest2"``, ``"anova1"``, ``"hotellings"``,
        ``"hotellings_paired"``, ``"hotellings2"``, ``"regress"``, ``"anova2"``, ``"anova1rm"``
        or ``"anova2rm"``.
    stat : str
        ``"T"`` (t field), ``"F"`` (F field) or ``"T2"`` (Hotelling's T² field).
    z : ndarray, shape (nodes,)
        The statistic at each node (also available as :attr:`t`).
    df : float or tuple of float
        Degrees of freedom: ``v`` for a t field, ``(k, v)`` for an F field.
    fwhm : float
        Smoothness of the residual field, in node intervals.
    resels : tuple of float
        Resel counts ``(R0, R1)`` of the field.
    alpha : float
        Type I error rate of the whole field.
    two_tailed : bool
        True when clusters of both signs are tested (``alpha/2`` per tail).
    threshold : float
        Critical height ``u*``: the field (``|z|`` when two-tailed) reaches it
        somewhere with probability ``alpha`` under the null hypothesis.
    clusters : tuple of Cluster
        Stretches beyond the threshold, in the order they start.
    method : str
        ``"rft"`` (random field theory) or ``"permutation"``.
    permutations : int
        Number of labellings the permutation distribution was built from (0 for RFT).
    effect : str
        The effect tested by an ANOVA with several (``"A"``, ``"B"``, ``"AxB"``); empty otherwise.
    r : ndarray (nodes,) or None
        :func:`~humanbody.stats.regress`: the correlation coefficient curve.
    """

    test: str
    stat: str
    z: np.ndarray
    df: float | tuple[float, ...]
    fwhm: float
    resels: tuple
    alpha: float
    two_tailed: bool
    threshold: float
    clusters: tuple = field(default_factory=tuple)
    method: str = "rft"
    permutations: int = 0
    effect: str = ""
    r: object = None

    @property
    def t(self) -> np.ndarray:
        """The statistic field (the t field; the F field of :func:`anova1`)."""
        return self.z

    @property
    def nodes(self) -> int:
        return int(self.z.size)

    @property
    def significant(self) -> np.ndarray:
        """Boolean (nodes,): the node is beyond the threshold (``|z|`` when two-tailed)."""
        z = np.abs(self.z) if self.two_tailed else self.z
        return z >= self.threshold

    @property
    def h0reject(self) -> bool:
        """True when the null hypothesis is rejected (some node reaches the threshold)."""
        return bool(self.significant.any())

    def __repr__(self) -> str:
        df = self.df if isinstance(self.df, (int, float)) else tuple(round(d, 3) for d in self.df)
        label = {"T": "t", "F": "F", "T2": "T2"}.get(self.stat, self.stat)
        head = (f"SPMResult({self.test}{' ' + self.effect if self.effect else ''}, SPM{{{label}}}, "
                f"nodes={self.nodes}, df={df}, fwhm={self.fwhm:.3f}, "
                f"{'two' if self.two_tailed else 'one'}-tailed alpha={self.alpha}, "
                f"threshold={self.threshold:.4f}, method={self.method})")
        lines = [head]
        for c in self.clusters:
            lines.append(f"  cluster {'+' if c.sign > 0 else '-'} nodes {c.start:.2f}-{c.end:.2f} "
                         f"(extent {c.extent:.2f}) p={c.p:.4g}")
        return "\n".join(lines)


def check_curves(Y, name: str = "Y") -> np.ndarray:
    """``Y`` as a float array of shape (curves, nodes); InputError for anything else or NaN.

    Parameters
    ----------
    Y : array_like, shape (curves, nodes)
        Curves, one row per curve.
    name : str
        The argument's name in the message.

    Returns
    -------
    ndarray, shape (curves, nodes), float
        The same curves as floats.
    """
    try:
        a = np.asarray(Y, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name}: curves must be numbers ({err})") from None
    if a.ndim != 2:
        raise InputError(f"{name}: curves must be a 2-D array (curves, nodes), got shape {a.shape}")
    if a.shape[1] < 2:
        raise InputError(f"{name}: curves need at least 2 nodes, got {a.shape[1]}")
    if a.shape[0] < 2:
        raise InputError(f"{name}: a group needs at least 2 curves, got {a.shape[0]}")
    if not np.isfinite(a).all():
        rows, cols = np.nonzero(~np.isfinite(a))
        raise InputError(f"{name}: curve {rows[0]} has a NaN or infinite value at node {cols[0]} "
                         f"({rows.size} such values)")
    return a

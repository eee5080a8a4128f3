"""Supra-threshold clusters of a 1-D field with interpolated endpoints."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Cluster:
    """One connected stretch of the field beyond the threshold.

    Attributes
    ----------
    start, end : float
        Node positions (0 .. nodes-1, fractional) where the field crosses the
        threshold, linearly interpolated between nodes; a cluster that
        touches an end of the field starts or ends at that node.
    sign : int
        +1 for a cluster above ``+threshold``, -1 below ``-threshold``.
    p : float
        Probability, under the null hypothesis, of a cluster at least this
        wide (random field theory) or with at least this metric
        (permutation).
    extent : float
        ``end - start`` in node intervals.
    extent_resels : float
        ``extent / fwhm`` (random field theory), or NaN.
    peak : float
        Largest ``|statistic|`` inside the cluster.
    """

    start: float
    end: float
    sign: int
    p: float
    extent: float
    extent_resels: float
    peak: float

    def percent(self, nodes: int) -> tuple[float, float]:
        """``(start, end)`` in percent of the field (node ``nodes - 1`` = 100 %).

        Parameters
        ----------
        nodes : int
            The field's number of nodes.

        Returns
        -------
        start, end : float, %
            The cluster's interpolated ends in percent of the field.
        """
        scale = 100.0 / (nodes - 1)
        return self.start * scale, self.end * scale


def find_clusters(z, threshold: float, sign: int = 1) -> list[tuple[float, float, float]]:
    """Stretches where ``sign * z >= threshold``: list of ``(start, end, peak)``.

    ``start`` and ``end`` are linear interpolations of the crossing between
    the last node below and the first node at or above the threshold
    (``q + (u - z_q) / (z_{q+1} - z_q)``); at an end of the field they are
    the end node.

    Parameters
    ----------
    z : array_like, shape (nodes,)
        The field.
    threshold : float
        The height to reach (the field's units).
    sign : {1, -1}
        -1 looks for stretches below -threshold.

    Returns
    -------
    list of (float, float, float)
        Start and end (node positions) and the peak of ``sign * z``.
    """
    z = sign * np.asarray(z, dtype=float)
    above = z >= threshold
    if not above.any():
        return []
    edges = np.diff(np.concatenate([[False], above, [False]]).astype(np.int8))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    last = z.size - 1
    out = []
    for i0, i1 in zip(starts, ends, strict=True):
        s = float(i0) if i0 == 0 else (i0 - 1) + (threshold - z[i0 - 1]) / (z[i0] - z[i0 - 1])
        e = float(i1) if i1 == last else i1 + (threshold - z[i1]) / (z[i1 + 1] - z[i1])
        out.append((float(s), float(e), float(z[i0:i1 + 1].max())))
    return out

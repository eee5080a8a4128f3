"""Smoothness of a 1-D field from the residuals of a linear model, and its resel counts.

Kiebel et al. (1999) estimate the roughness of the error field from the
standardised residuals.  With residuals ``r_j(q)`` (rows ``j`` = curves,
``q`` = node), normalise each node's residuals to unit sum of squares,

.. math::

    e_j(q) = \\frac{r_j(q)}{\\sqrt{\\sum_i r_i(q)^2}},
    \\qquad
    \\lambda(q) = \\sum_j \\left(\\frac{\\partial e_j}{\\partial q}\\right)^2

(``lambda`` estimates the variance of the derivative of a unit-variance
field).  A Gaussian kernel of width ``FWHM`` makes
``lambda = 4 ln 2 / FWHM^2``, so each node carries
``sqrt(lambda(q) / (4 ln 2))`` resels, and the field's FWHM is the inverse
of their mean (derivatives by central differences, one-sided at the ends).
"""

from __future__ import annotations

import math

import numpy as np


def estimate_fwhm(residuals) -> float:
    """FWHM of the field (in node intervals) from the residuals, shape (curves, nodes).

    See the module docstring for the equations.  Nodes where every residual
    is zero carry no information and are left out.

    Parameters
    ----------
    residuals : array_like, shape (curves, nodes)
        Each curve minus its fitted mean, one row per curve.

    Returns
    -------
    float
        Node intervals; inf when the residuals are all zero.
    """
    r = np.asarray(residuals, dtype=float)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError("residuals must have shape (curves, nodes) with at least 2 nodes")
    ssq = np.einsum("jq,jq->q", r, r)
    dr = np.gradient(r, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.einsum("jq,jq->q", dr, dr) / ssq
    lam = lam[np.isfinite(lam)]
    if lam.size == 0:
        return math.inf
    resels_per_node = np.sqrt(lam / (4.0 * math.log(2.0)))
    mean = float(resels_per_node.mean())
    return math.inf if mean == 0.0 else 1.0 / mean


def field_fwhm(residuals) -> float:
    """FWHM of the residual field: :func:`estimate_fwhm` of (curves, nodes) residuals, or, for the
    residuals of vector curves (curves, nodes, components), the mean of each component's FWHM
    (the estimate of spm1d's Hotelling's T² tests).

    Parameters
    ----------
    residuals : array_like, shape (curves, nodes) or (curves, nodes, components)
        Each curve minus its fitted mean, one row per curve.

    Returns
    -------
    float
        FWHM in node intervals (inf when the residuals are all zero).
    """
    r = np.asarray(residuals, dtype=float)
    if r.ndim == 3:
        return float(np.mean([estimate_fwhm(r[:, :, i]) for i in range(r.shape[2])]))
    return estimate_fwhm(r)


def resels(nodes: int, fwhm: float) -> tuple[float, float]:
    """Resel counts ``(R0, R1)`` of an interval of ``nodes`` nodes: ``(1, (nodes - 1) / FWHM)``.

    ``R0`` is the Euler characteristic of the interval (one connected
    piece); ``R1`` its length (``nodes - 1`` node intervals) in resels.

    Parameters
    ----------
    nodes : int
        Number of nodes of the field.
    fwhm : float
        Node intervals.

    Returns
    -------
    (float, float)
        (R0, R1) = (1, (nodes - 1) / fwhm).
    """
    return 1.0, (nodes - 1) / fwhm

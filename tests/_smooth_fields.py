"""Smooth random curves for the SPM tests: Gaussian-smoothed white noise, with or without an effect."""

import numpy as np
from scipy import ndimage


def smooth_curves(rng, rows, nodes=101, sigma=6.0, effect=0.0, centre=50.0, width=10.0):
    """(rows, nodes) curves: white noise smoothed by a Gaussian of ``sigma`` nodes, unit SD, plus a bump."""
    y = ndimage.gaussian_filter1d(rng.standard_normal((rows, nodes)), sigma, axis=1, mode="wrap")
    y /= y.std()
    q = np.arange(nodes)
    return y + effect * np.exp(-0.5 * ((q - centre) / width) ** 2)

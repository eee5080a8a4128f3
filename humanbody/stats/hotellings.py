"""Hotelling's T² tests on vector curves: a joint's three angles (or any I components) at once.

Vector curves are arrays of shape ``(J, Q, I)``: ``J`` curves (subjects or
strides), ``Q`` nodes, ``I`` components.  At each node ``q`` the mean
vector ``m(q)`` and covariance ``W(q)`` (I × I) of the curves give

======================  =============================================================  ===================
test                    statistic at each node                                         df ``(p, m)``
======================  =============================================================  ===================
:func:`hotellings`      ``T² = J (m - mu)ᵀ W⁻¹ (m - mu)``                              ``(I, J - 1)``
:func:`hotellings_paired`  :func:`hotellings` of ``YA - YB``                           ``(I, J - 1)``
:func:`hotellings2`     ``T² = JA JB / (JA + JB) (mA - mB)ᵀ W_p⁻¹ (mA - mB)``           ``(I, JA + JB - 2)``
======================  =============================================================  ===================

with the pooled covariance ``W_p = ((JA-1) W_A + (JB-1) W_B) / (JA+JB-2)``.
``T²`` with ``(p, m)`` is ``p m / (m - p + 1)`` times an F with
``(p, m - p + 1)`` df, which gives its random field theory densities
(:func:`humanbody.stats.rft.ec_density_t2`).  The smoothness is the mean of
the FWHM of each component's residuals (as spm1d).  T² is never negative:
the tests are one-tailed.

The permutation versions (``permutation=True``) flip the signs of the
curves (one-sample, paired) or share the curves out again between the
groups (two-sample), as :mod:`.nonparam` does for the t tests; the T²
field of each labelling follows from one inverse per node by the
Sherman-Morrison identity: with ``S`` the sum of squares about 0 (one
sample) or about the grand mean (two samples) and ``a = dᵀ S⁻¹ d``,
``T² = J (J-1) a / (1 - J a)`` (one sample, ``d`` the labelling's mean) and
``T² = k (N-2) a / (1 - k a)`` with ``k = JA JB / N`` (two samples, ``d`` the
difference of the means).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InputError
from .nonparam import label_sets, permutation_inference, sign_flips
from .parametric import inference
from .result import SPMResult


def check_vector_curves(Y, name: str = "Y") -> np.ndarray:
    """``Y`` as a float array (curves, nodes, components); InputError for anything else or NaN.

    Parameters
    ----------
    Y : array_like, shape (curves, nodes, components)
        Vector curves: one row per curve, one value per node and component.
    name : str
        The argument's name in the message.

    Returns
    -------
    ndarray, shape (curves, nodes, components)
        The same curves as floats.
    """
    try:
        a = np.asarray(Y, dtype=float)
    except (TypeError, ValueError) as err:
        raise InputError(f"{name}: vector curves must be numbers ({err})") from None
    if a.ndim != 3:
        raise InputError(f"{name}: vector curves must be a 3-D array (curves, nodes, components), got shape {a.shape}")
    J, Q, I = a.shape
    if Q < 2:
        raise InputError(f"{name}: curves need at least 2 nodes, got {Q}")
    if I < 1:
        raise InputError(f"{name}: vector curves need at least 1 component")
    if not np.isfinite(a).all():
        j, q, i = (int(v[0]) for v in np.nonzero(~np.isfinite(a)))
        raise InputError(f"{name}: curve {j} has a NaN or infinite value at node {q} (component {i})")
    return a


def _t2(diff: np.ndarray, W: np.ndarray, scale: float) -> np.ndarray:
    """``scale * dᵀ W⁻¹ d`` per node: ``diff`` (Q, I), ``W`` (Q, I, I); InputError for a singular W."""
    try:
        x = np.linalg.solve(W, diff[:, :, None])[:, :, 0]
    except np.linalg.LinAlgError:
        raise InputError("the components' covariance is singular at some node (a component that does not "
                         "vary, or fewer curves than components)") from None
    return scale * np.einsum("qi,qi->q", diff, x)


def _covariance(R: np.ndarray) -> np.ndarray:
    """Sum of the outer products of residual vectors per node: (J, Q, I) -> (Q, I, I)."""
    return np.einsum("jqi,jqk->qik", R, R)


def _inverse(S: np.ndarray) -> np.ndarray:
    try:
        return np.linalg.inv(S)
    except np.linalg.LinAlgError:
        raise InputError("the components' covariance is singular at some node") from None


def _need_curves(J: int, I: int, name: str) -> None:
    if J <= I:
        raise InputError(f"{name}: Hotelling's T² needs more curves than components ({J} curves, {I} components)")


def hotellings(Y, mu=None, *, alpha: float = 0.05, permutation: bool = False, iterations: int = 10000,
               seed=None, cluster_metric: str = "integral") -> SPMResult:
    """One-sample Hotelling's T² test: is the mean vector curve different from ``mu``?

    Parameters
    ----------
    Y : array, shape (J, Q, I)
        ``J`` vector curves of ``Q`` nodes and ``I`` components.
    mu : float or array broadcastable to (Q, I), optional
        The null-hypothesis curve (0).
    alpha : float
        Type I error rate of the whole field.
    permutation : bool
        Sign-flipping permutation inference instead of random field theory
        (``iterations``, ``seed``, ``cluster_metric`` as :mod:`.nonparam`).

    Returns
    -------
    SPMResult
        ``stat == "T2"``, ``df = (I, J - 1)``, one-tailed.
    """
    Y = check_vector_curves(Y, "Y")
    if mu is not None:
        Y = Y - np.asarray(mu, dtype=float)
    J, Q, I = Y.shape
    _need_curves(J, I, "Y")
    m = Y.mean(axis=0)
    R = Y - m
    z = _t2(m, _covariance(R) / (J - 1), float(J))
    df = (float(I), float(J - 1))
    if not permutation:
        return inference("hotellings", "T2", z, df, R, alpha, False)

    signs = sign_flips(J, iterations, seed)  # (P, J)
    d = np.einsum("pj,jqi->pqi", signs, Y) / J
    a = np.einsum("pqi,qik,pqk->pq", d, _inverse(_covariance(Y)), d)
    with np.errstate(divide="ignore", invalid="ignore"):
        fields = J * (J - 1) * a / (1.0 - J * a)
    return permutation_inference("hotellings", "T2", z, df, R, fields, alpha, False, cluster_metric)


def hotellings_paired(YA, YB, **kw) -> SPMResult:
    """Paired Hotelling's T² test: :func:`hotellings` of ``YA - YB`` (same rows, same order).

    Parameters
    ----------
    YA, YB : array_like, shape (curves, nodes, components)
        The paired vector curves (row j of each one subject's two conditions).
    **kw
        As :func:`hotellings` takes them.

    Returns
    -------
    SPMResult
        The T² field, its threshold and clusters (df = (components, curves - 1)).
    """
    YA, YB = check_vector_curves(YA, "YA"), check_vector_curves(YB, "YB")
    if YA.shape != YB.shape:
        raise InputError(f"paired vector curves must have the same shape, got {YA.shape} and {YB.shape}")
    return replace(hotellings(YA - YB, **kw), test="hotellings_paired")


def hotellings2(YA, YB, *, alpha: float = 0.05, permutation: bool = False, iterations: int = 10000,
                seed=None, cluster_metric: str = "integral") -> SPMResult:
    """Two-sample Hotelling's T² test: do two groups' mean vector curves differ?

    Parameters
    ----------
    YA, YB : arrays, shape (JA, Q, I) and (JB, Q, I)
        The two groups' vector curves: curves, Q nodes, I components (the same Q and I).
    alpha, permutation, iterations, seed, cluster_metric
        As :func:`hotellings` (permutation: the curves are shared out again
        between the groups).

    Returns
    -------
    SPMResult
        ``stat == "T2"``, ``df = (I, JA + JB - 2)`` (pooled covariance).
    """
    YA, YB = check_vector_curves(YA, "YA"), check_vector_curves(YB, "YB")
    if YA.shape[1:] != YB.shape[1:]:
        raise InputError(f"the groups' vector curves differ in nodes or components: {YA.shape[1:]} and {YB.shape[1:]}")
    JA, JB = YA.shape[0], YB.shape[0]
    N, I = JA + JB, YA.shape[2]
    _need_curves(N - 1, I, "YA, YB")
    R = np.concatenate([YA - YA.mean(axis=0), YB - YB.mean(axis=0)])
    d = YA.mean(axis=0) - YB.mean(axis=0)
    k = JA * JB / N
    z = _t2(d, _covariance(R) / (N - 2), k)
    df = (float(I), float(N - 2))
    if not permutation:
        return inference("hotellings2", "T2", z, df, R, alpha, False)

    Y = np.concatenate([YA, YB])
    Y = Y - Y.mean(axis=0)
    inA = label_sets([JA, JB], iterations, seed)[:, :, 0]  # (P, N)
    sA = np.einsum("pj,jqi->pqi", inA, Y)
    dd = sA / JA - (-sA) / JB  # the grand sum is 0 after centring: sB = -sA
    a = np.einsum("pqi,qik,pqk->pq", dd, _inverse(_covariance(Y)), dd)
    with np.errstate(divide="ignore", invalid="ignore"):
        fields = k * (N - 2) * a / (1.0 - k * a)
    return permutation_inference("hotellings2", "T2", z, df, R, fields, alpha, False, cluster_metric)

"""Static optimization's kernel: closed-form optima, KKT certificates, warm starts, infeasible frames."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.muscles import Reserves, solve

NONE = Reserves()


def one_joint(tau, F, r, lo=0.01, hi=1.0):
    nf = len(tau)
    cap = np.broadcast_to(np.asarray(F, float), (nf, len(F))).copy()
    arms = np.broadcast_to(np.asarray(r, float)[:, None], (nf, len(r), 1)).copy()
    n = len(F)
    return solve(cap, arms, np.asarray(tau, float)[:, None], NONE, np.full(n, lo), np.full(n, hi))


def test_one_joint_agonists_share_in_proportion_to_strength_times_arm():
    """Nothing at a bound: a_i = tau F_i r_i / sum_k (F_k r_k)^2 (Lagrange)."""
    F, r = np.array([1000.0, 500.0, 800.0]), np.array([0.05, 0.03, 0.04])
    tau = np.array([20.0, 35.0, 10.0])
    opt = one_joint(tau, F, r)
    expected = tau[:, None] * (F * r) / np.sum((F * r) ** 2)
    np.testing.assert_allclose(opt.controls, expected, rtol=1e-12)
    np.testing.assert_allclose(opt.forces, expected * F, rtol=1e-12)
    assert np.all(opt.iterations >= 0)


def test_one_joint_antagonist_rests_at_min_control():
    """The antagonist (r < 0) sits at min_control; the agonists carry tau - lo F_a r_a between them."""
    F, r, lo = np.array([1000.0, 600.0, 900.0]), np.array([0.05, 0.04, -0.03]), 0.02
    tau = np.array([30.0])
    opt = one_joint(tau, F, r, lo=lo)
    rest = tau[0] - lo * F[2] * r[2]
    ag = rest * (F[:2] * r[:2]) / np.sum((F[:2] * r[:2]) ** 2)
    np.testing.assert_allclose(opt.controls[0], [ag[0], ag[1], lo], rtol=1e-12)


def test_one_joint_weak_muscle_saturates():
    """A muscle whose unbounded share exceeds 1 (here 35 x 30 / 1000 = 1.05) stays at 1; the other carries the rest."""
    F, r = np.array([100.0, 3000.0]), np.array([0.10, 0.01])
    opt = one_joint(np.array([35.0]), F, r)
    assert opt.controls[0, 1] == 1.0
    np.testing.assert_allclose(opt.controls[0, 0], (35.0 - 30.0) / 10.0, rtol=1e-12)


def kkt_violation(A, b, x, lo, hi):
    """Largest violation of the KKT conditions of min |x|^2/2, A x = b, lo <= x <= hi."""
    free = (x > lo + 1e-9) & (x < hi - 1e-9)
    lam, *_ = np.linalg.lstsq(A[:, free].T, x[free], rcond=None)
    s = A.T @ lam
    worst = np.abs(A @ x - b).max()
    worst = max(worst, np.abs(x[free] - s[free]).max(initial=0.0))
    at_lo = np.isclose(x, lo) & ~free
    at_hi = np.isclose(x, hi) & ~free
    worst = max(worst, np.maximum(s[at_lo] - lo[at_lo], 0).max(initial=0.0))  # multiplier >= 0
    worst = max(worst, np.maximum(hi[at_hi] - s[at_hi], 0).max(initial=0.0))
    return worst


@pytest.mark.parametrize("seed", range(5))
def test_random_problems_meet_kkt_and_match_scipy(seed):
    """Random frames with reserves: the KKT conditions hold to rounding and scipy's solver agrees."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(seed)
    nf, nm, nc = 6, 30, 8
    cap = rng.uniform(200, 2000, (nf, nm))
    arms = rng.normal(0, 0.03, (nf, nm, nc)) * (rng.random((1, nm, nc)) < 0.4)
    tau = rng.normal(0, 40, (nf, nc))
    res = Reserves(tuple(f"r{j}" for j in range(nc)), np.arange(nc), np.full(nc, 1.0),
                   np.full(nc, -np.inf), np.full(nc, np.inf))
    opt = solve(cap, arms, tau, res, np.full(nm, 0.01), np.ones(nm))
    assert np.all(opt.iterations >= 0)
    assert np.abs(opt.residual).max() < 1e-8 * np.abs(tau).max()
    from humanbody.muscles.static_optimization import constraint_matrix

    A = constraint_matrix(cap, arms, res)
    lo = np.concatenate([np.full(nm, 0.01), np.full(nc, -np.inf)])
    hi = np.concatenate([np.ones(nm), np.full(nc, np.inf)])
    for f in range(nf):
        assert kkt_violation(A[f], tau[f], opt.controls[f], lo, hi) < 1e-7
    f = 0
    ref = minimize(lambda x: x @ x, np.zeros(nm + nc), jac=lambda x: 2 * x, method="SLSQP",
                   bounds=list(zip(lo, hi, strict=True)),
                   constraints={"type": "eq", "fun": lambda x: A[f] @ x - tau[f], "jac": lambda x: A[f]},
                   options={"ftol": 1e-14, "maxiter": 500})
    np.testing.assert_allclose(opt.controls[f], ref.x, atol=1e-5)


def test_exponent_three_meets_its_stationarity():
    """p = 3 on one joint, nothing at a bound: a_i^2 proportional to F_i r_i."""
    F, r = np.array([1000.0, 500.0]), np.array([0.05, 0.03])
    cap, arms = F[None, :].copy(), r[None, :, None].copy()
    opt = solve(cap, arms, np.array([[20.0]]), NONE, np.full(2, 0.0), np.ones(2), exponent=3.0)
    a = opt.controls[0]
    np.testing.assert_allclose(a[0] ** 2 / a[1] ** 2, (F[0] * r[0]) / (F[1] * r[1]), rtol=1e-8)
    np.testing.assert_allclose(a @ (F * r), 20.0, rtol=1e-10)


def test_a_moment_the_muscles_cannot_carry_is_flagged():
    """Without reserves, a moment beyond every muscle at full activation: iterations -1."""
    opt = one_joint(np.array([10.0, 500.0]), np.array([1000.0]), np.array([0.05]))
    assert opt.iterations[0] >= 0 and opt.iterations[1] == -1

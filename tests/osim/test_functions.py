"""OpenSim's functions of one variable as the reader gives them (the core's functions), packed for the one kernel
the joints and the muscle paths evaluate: values and slopes against the opensim package's own classes and against
closed forms."""

from __future__ import annotations

import numpy as np
import pytest
from _isolated import run_isolated

from humanbody._kernels.functions import function_value
from humanbody.core import functions as fn
from humanbody.core.functions import Function, FunctionTable

X = np.array([-1.2, -0.4, 0.0, 0.3, 1.0, 1.7, 2.5, 4.0])
KNOTS = (-1.0, -0.2, 0.5, 1.1, 2.0, 3.0)
VALUES = (0.3, -0.1, 0.4, 0.2, 0.9, 0.5)


def _evaluate(f: Function, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    table = FunctionTable.of([f])
    out = np.array([function_value(*table.arrays(), 0, float(v)) for v in x])
    return out[:, 0], out[:, 1]


def test_closed_forms():
    v, d = _evaluate(fn.Constant(2.5), X)
    assert np.all(v == 2.5) and np.all(d == 0)
    v, d = _evaluate(fn.Linear(3.0, -1.0), X)
    assert np.allclose(v, 3 * X - 1) and np.allclose(d, 3)
    v, d = _evaluate(fn.Polynomial((2.0, -1.0, 0.5, 4.0)), X)   # decreasing powers
    assert np.allclose(v, 2 * X**3 - X**2 + 0.5 * X + 4) and np.allclose(d, 6 * X**2 - 2 * X + 0.5)
    v, d = _evaluate(fn.PiecewiseLinear(KNOTS, VALUES), X)
    inside = (X >= KNOTS[0]) & (X <= KNOTS[-1])
    assert np.allclose(v[inside], np.interp(X[inside], KNOTS, VALUES))
    inner = fn.Linear(3.0, -1.0)
    v, d = _evaluate(fn.Multiplier(fn.Multiplier(inner, 4.0), 0.5), X)
    assert np.allclose(v, 2 * (3 * X - 1)) and np.allclose(d, 6)


def test_splines_interpolate_and_natural_ends():
    for kind in (fn.SimmSpline, fn.NaturalCubicSpline):
        v, _ = _evaluate(kind(KNOTS, VALUES), np.array(KNOTS))
        assert np.allclose(v, VALUES, atol=1e-14)
    h = 1e-6
    for x0 in (KNOTS[0], KNOTS[-1]):    # natural: zero curvature at the ends (one-sided differences)
        s = np.sign(KNOTS[2] - x0)
        _, d = _evaluate(fn.NaturalCubicSpline(KNOTS, VALUES), np.array([x0, x0 + s * h]))
        assert abs(d[1] - d[0]) / h < 1e-4


def _opensim_values(xs):
    """OpenSim 4.6's value and first derivative of the four functions at ``xs``: (4, len(xs), 2); in a child
    process (tests/_isolated.py: an OpenSim StdVectorInt breaks ezc3d's vectors in the process that made it)."""
    import opensim as osim  # lazy: only in the child process

    x = osim.Vector(1, 0.0)

    def theirs(f, v):
        x.set(0, float(v))
        return f.calcValue(x), f.calcDerivative(osim.StdVectorInt([0]), x)

    simm, pwl = osim.SimmSpline(), osim.PiecewiseLinearFunction()   # NaturalCubicSpline: not in the bindings
    for a, b in zip(KNOTS, VALUES, strict=True):
        simm.addPoint(a, b)
        pwl.addPoint(a, b)
    poly = osim.PolynomialFunction(osim.Vector([2.0, -1.0, 0.5, 4.0]))
    lin = osim.LinearFunction(3.0, -1.0)
    return np.array([[theirs(f, xi) for xi in xs] for f in (simm, pwl, poly, lin)])


def test_against_opensim():
    pytest.importorskip("opensim")
    refs = run_isolated(_opensim_values, X)
    cases = [fn.SimmSpline(KNOTS, VALUES), fn.PiecewiseLinear(KNOTS, VALUES),
             fn.Polynomial((2.0, -1.0, 0.5, 4.0)),
             fn.Linear(3.0, -1.0)]
    for ours, ref, kind in zip(cases, refs, ("SimmSpline", "PiecewiseLinear", "Polynomial", "Linear"), strict=True):
        v, d = _evaluate(ours, X)
        assert np.allclose(v, ref[:, 0], atol=1e-12), kind
        assert np.allclose(d, ref[:, 1], atol=1e-10), kind

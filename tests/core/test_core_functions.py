"""Functions of coordinates: values by definition, derivatives by finite differences, splines by their conditions."""

from __future__ import annotations

import numpy as np
import pytest
from _isolated import run_isolated

from humanbody.core import functions as fn
from humanbody.errors import InputError

X = np.linspace(-2.5, 5.5, 161)
KNOTS = (np.array([0.0, 1.0, 2.5, 3.0, 4.5]), np.array([0.0, 2.0, 1.0, 3.0, -1.0]))
ALL = [fn.Constant(1.5), fn.Linear(2.0, -1.0), fn.Polynomial([0.3, -1.0, 2.0, 0.5]), fn.PiecewiseLinear(*KNOTS),
       fn.SimmSpline(*KNOTS), fn.NaturalCubicSpline(*KNOTS), fn.Multiplier(fn.SimmSpline(*KNOTS), -0.4),
       fn.Multiplier(fn.Multiplier(fn.Polynomial([1.0, 0.0, 0.0]), 2.0), 3.0), fn.SimmSpline([0, 1], [1, 3]),
       fn.SimmSpline([0, 1, 3], [1, 3, 0])]


@pytest.mark.parametrize("f", ALL, ids=lambda f: type(f).__name__)
def test_derivatives_are_the_finite_differences(f):
    h = 1e-6
    x = X[np.all(np.abs(X[:, None] - KNOTS[0][None, :]) > 1e-3, axis=1)]  # away from the knots (kinks)
    np.testing.assert_allclose(f(x, 1), (f(x + h) - f(x - h)) / (2 * h), atol=1e-7)
    np.testing.assert_allclose(f(x, 2), (f(x + h, 1) - f(x - h, 1)) / (2 * h), atol=2e-6)


def test_values_by_definition():
    assert fn.Constant(1.5)(3.0) == 1.5
    np.testing.assert_allclose(fn.Polynomial([0.3, -1.0, 2.0, 0.5])(X), np.polyval([0.3, -1.0, 2.0, 0.5], X))
    np.testing.assert_allclose(fn.PiecewiseLinear(*KNOTS)(KNOTS[0]), KNOTS[1])
    np.testing.assert_allclose(fn.PiecewiseLinear(*KNOTS)([-1.0, 5.5]), [-2.0, -1.0 - 4.0 / 1.5])
    np.testing.assert_allclose(fn.Multiplier(fn.Linear(2.0, 1.0), 3.0)(X), 3.0 * (2.0 * X + 1.0))


@pytest.mark.parametrize("cls", [fn.SimmSpline, fn.NaturalCubicSpline])
def test_splines_interpolate_with_continuous_slope_and_curvature(cls):
    f = cls(*KNOTS)
    np.testing.assert_allclose(f(KNOTS[0]), KNOTS[1], atol=1e-14)
    inner = KNOTS[0][1:-1]
    for d in (0, 1, 2):
        np.testing.assert_allclose(f(inner - 1e-9, d), f(inner + 1e-9, d), atol=1e-6)


def test_natural_spline_is_scipys_inside_and_straight_outside():
    from scipy.interpolate import CubicSpline

    f, ref = fn.NaturalCubicSpline(*KNOTS), CubicSpline(*KNOTS, bc_type="natural")
    x = np.linspace(0.0, 4.5, 91)
    np.testing.assert_allclose(f(x), ref(x), atol=1e-13)
    np.testing.assert_allclose(f(x, 1), ref(x, 1), atol=1e-12)
    np.testing.assert_allclose(f([-1.0, 5.5]), ref([0.0, 4.5]) + ref([0.0, 4.5], 1) * [-1.0, 1.0], atol=1e-13)
    assert np.all(f([-1.0, 5.5], 2) == 0.0)


def test_simm_spline_end_conditions():
    """Forsythe-Malcolm-Moler: the end pieces' third derivative is that of the cubic through the end four points."""
    f = fn.SimmSpline(*KNOTS)
    x, y = KNOTS
    for idx, at in ((slice(0, 4), 0.5), (slice(-4, None), 3.7)):
        cubic = np.polyfit(x[idx], y[idx], 3)
        third = 6.0 * cubic[0]
        assert (f(at + 1e-4, 2) - f(at - 1e-4, 2)) / 2e-4 == pytest.approx(third, rel=1e-6)
    parabola = fn.SimmSpline([0, 1, 3], [1, 3, 0])
    np.testing.assert_allclose(parabola(np.linspace(0, 3, 7)), np.polyval(np.polyfit([0, 1, 3], [1, 3, 0], 2),
                                                                          np.linspace(0, 3, 7)), atol=1e-13)


def _opensim_simm_spline(xs):
    """OpenSim 4.6's SimmSpline through KNOTS: value, first and second derivative at ``xs``, (len(xs), 3); in a
    child process (tests/_isolated.py: an OpenSim StdVectorInt breaks ezc3d's vectors in the process that made it)."""
    import opensim as osim  # lazy: only in the child process

    ref = osim.SimmSpline()
    for a, b in zip(*KNOTS, strict=True):
        ref.addPoint(float(a), float(b))
    out = []
    for x in xs:
        v = osim.Vector(1, x)
        first, second = osim.StdVectorInt(), osim.StdVectorInt()
        first.append(0)
        second.append(0)
        second.append(0)
        out.append((ref.calcValue(v), ref.calcDerivative(first, v), ref.calcDerivative(second, v)))
    return out


def test_simm_spline_is_opensims():
    pytest.importorskip("opensim")
    f = fn.SimmSpline(*KNOTS)
    xs = (-1.0, 0.0, 0.5, 2.7, 4.5, 6.0)
    for x, (value, first, second) in zip(xs, run_isolated(_opensim_simm_spline, xs), strict=True):
        assert f(x) == pytest.approx(value, abs=1e-12)
        assert f(x, 1) == pytest.approx(first, abs=1e-12)
        assert f(x, 2) == pytest.approx(second, abs=1e-12)


def test_bad_knots_say_so():
    with pytest.raises(InputError, match="increasing"):
        fn.SimmSpline([0, 2, 1], [0, 1, 2])
    with pytest.raises(InputError, match="one length"):
        fn.PiecewiseLinear([0, 1], [0])

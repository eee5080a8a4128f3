"""Wrap ellipsoids against closed forms (a sphere's great circle, an ellipse in a principal plane) and
against OpenSim 4.6 live on small synthetic models (tests/osim/_synthetic.py): every quadrant, the three
path-wrap methods, turned ellipsoids, paths that miss or stop short."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import quad
from scipy.optimize import brentq

from humanbody._kernels.wrap import INSIDE, MANDATORY, NO_WRAP, wrap_sphere
from humanbody._kernels.wrap_ellipsoid import AXIAL, HYBRID, MIDPOINT, wrap_ellipsoid

from ._synthetic import model_xml

DIMS = (0.06, 0.035, 0.045)
QUADRANTS = {"all": (0, 0), "+x": (0, 1), "-x": (0, -1), "+y": (1, 1), "-y": (1, -1), "+z": (2, 1), "-z": (2, -1)}
METHODS = {"hybrid": HYBRID, "midpoint": MIDPOINT, "axial": AXIAL}


def _length(p1, p2, result):
    _, r1, r2, arc = result
    return np.linalg.norm(np.subtract(p1, r1)) + arc + np.linalg.norm(np.subtract(p2, r2))


@pytest.mark.parametrize("method", [HYBRID, MIDPOINT, AXIAL])
@pytest.mark.parametrize("p1, p2", [((-0.2, 0.01, 0.0), (0.2, 0.02, 0.0)),
                                    ((-0.1, 0.03, -0.04), (0.15, -0.01, 0.05)),
                                    ((-0.06, -0.02, 0.01), (0.3, 0.0, -0.02))])
def test_round_ellipsoid_is_the_sphere(p1, p2, method):
    """Equal semi-axes: the path of the sphere kernel (tangent lines and the great-circle arc), within the
    1-mm chords OpenSim samples the arc with and its tangent search's tolerance."""
    r = 0.05
    result = wrap_ellipsoid(p1, p2, (r, r, r), 0, 0, method)
    sphere = wrap_sphere(p1, p2, r, 0, 0)
    assert result[0] == MANDATORY
    assert _length(p1, p2, result) == pytest.approx(_length(p1, p2, sphere), abs=1e-6)
    for a, b in zip(result[1:3], sphere[1:3], strict=True):
        assert np.linalg.norm(np.subtract(a, b)) < 2e-5


def _ellipse_path(p1, p2, a, b):
    """Closed form in the plane z = 0 of the ellipse (x/a)^2 + (y/b)^2 = 1: the taut string from p1 to p2
    round it, the shortest of the paths made of a tangent line from each end and the arc between the
    tangent points (every such path keeps off the inside, so the shortest is the taut one)."""
    def tangents(p):      # angles t of the points (a cos t, b sin t) whose tangent passes through p
        f = lambda t: p[0] * np.cos(t) / a + p[1] * np.sin(t) / b - 1.0    # noqa: E731
        grid = np.linspace(-np.pi, np.pi, 2001)
        v = f(grid)
        return [brentq(f, grid[i], grid[i + 1]) for i in np.flatnonzero(np.sign(v[:-1]) != np.sign(v[1:]))]

    def point(t):
        return np.array([a * np.cos(t), b * np.sin(t)])

    def arc(t0, span):
        return quad(lambda t: np.hypot(a * np.sin(t), b * np.cos(t)), t0, t0 + span, epsabs=1e-14)[0]

    lengths = [np.linalg.norm(p1[:2] - point(t1)) + np.linalg.norm(p2[:2] - point(t2)) + arc(lo, (hi - lo) % (2 * np.pi))
               for t1 in tangents(p1) for t2 in tangents(p2) for lo, hi in ((t1, t2), (t2, t1))]
    return min(lengths)


@pytest.mark.parametrize("method", [HYBRID, MIDPOINT])
@pytest.mark.parametrize("p1, p2", [((-0.15, 0.01, 0.0), (0.12, 0.02, 0.0)),
                                    ((-0.1, -0.03, 0.0), (0.09, 0.025, 0.0))])
def test_path_in_a_principal_plane_is_the_ellipse_path(p1, p2, method):
    """Ends in the plane z = 0: the path is the tangent lines and the ellipse arc (closed form, quadrature),
    within the 1-mm chords OpenSim samples the arc with."""
    result = wrap_ellipsoid(p1, p2, DIMS, 0, 0, method)
    assert result[0] == MANDATORY
    assert _length(p1, p2, result) == pytest.approx(_ellipse_path(np.array(p1), np.array(p2), *DIMS[:2]), abs=2e-6)
    for r in result[1:3]:
        assert abs(r[2]) < 1e-9                                                     # stays in the plane
        assert (r[0] / DIMS[0]) ** 2 + (r[1] / DIMS[1]) ** 2 == pytest.approx(1.0, abs=1e-4)   # on the surface


def test_ellipsoid_statuses():
    assert wrap_ellipsoid((-0.2, 0.05, 0.0), (0.2, 0.05, 0.0), DIMS, 0, 0, HYBRID)[0] == NO_WRAP      # misses
    assert wrap_ellipsoid((-0.2, 0.01, 0.0), (-0.08, 0.01, 0.0), DIMS, 0, 0, HYBRID)[0] == NO_WRAP    # stops short
    assert wrap_ellipsoid((-0.01, 0.0, 0.0), (0.2, 0.01, 0.0), DIMS, 0, 0, HYBRID)[0] == INSIDE       # starts inside


def test_quadrant_sends_the_path_round_the_allowed_side():
    p1, p2 = (-0.2, -0.01, 0.0), (0.2, -0.01, 0.0)        # passes on the -y side, only +y may carry it
    free = wrap_ellipsoid(p1, p2, DIMS, 0, 0, HYBRID)
    held = wrap_ellipsoid(p1, p2, DIMS, 1, 1, HYBRID)
    assert free[1][1] < 0 and free[2][1] < 0
    assert held[0] == MANDATORY and held[1][1] > 0 and held[2][1] > 0
    assert _length(p1, p2, held) > _length(p1, p2, free)


def _cases(rng):
    """(method, quadrant, p1, p2) in the ellipsoid's frame that wrap in the unmoved pose: two per method
    and quadrant; and one path that passes the ellipsoid by."""
    out = []
    for method, code in METHODS.items():
        for quadrant, (axis, sign) in QUADRANTS.items():
            found = 0
            while found < 2:
                p1, p2 = rng.uniform(-0.12, 0.12, 3), rng.uniform(-0.12, 0.12, 3)
                if wrap_ellipsoid(tuple(p1), tuple(p2), DIMS, axis, sign, code)[0] == MANDATORY:
                    out.append((method, quadrant, p1, p2))
                    found += 1
    out.append(("hybrid", "all", np.array((-0.15, 0.09, 0.0)), np.array((0.15, 0.09, 0.0))))
    return out


def test_ellipsoids_equal_opensims(tmp_path):
    pytest.importorskip("opensim")
    from _osim_cases import synthetic_against_opensim

    from humanbody.osim.model import xyz_body_fixed

    rng = np.random.default_rng(3)
    cases = _cases(rng)
    surfaces, muscles = [], []
    for i, (method, quadrant, p1, p2) in enumerate(cases):
        centre = np.array((0.0, 0.5 * i, 0.0))          # one ellipsoid per muscle, apart from the others
        turn = tuple(rng.uniform(-1, 1, 3)) if i % 3 == 0 else (0.0, 0.0, 0.0)
        R = xyz_body_fixed(turn)
        surfaces.append(("WrapEllipsoid", f"egg{i}", tuple(centre), turn, quadrant, {"dimensions": DIMS}))
        muscles.append((f"m{i}", R @ p1 + centre, R @ p2 + centre - (0.2, 0.0, 0.0), [(f"egg{i}", method)]))
    path = tmp_path / "ellipsoids.osim"
    path.write_text(model_xml(surfaces, muscles, reach=0.01))
    both = synthetic_against_opensim(path, length_tol=1e-8, arm_tol=1e-7)     # targets 0.01 mm and 0.1 mm
    wrapped = both.geometry.path_points(both.reference["q"])[1] > 2
    assert wrapped.sum() > 200 and (~wrapped).sum() > 50 and not wrapped[:, -1].any()   # wraps and misses

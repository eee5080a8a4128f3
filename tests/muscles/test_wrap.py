"""Cylinder wrapping against the closed form of the shortest path, and the statuses OpenSim's algorithm gives."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody._kernels.wrap import INSIDE, MANDATORY, NO_WRAP, WRAPPED, wrap_cylinder

R = 0.05


def _length(p1, p2, result):
    _, r1, r2, arc = result
    return np.linalg.norm(np.subtract(p1, r1)) + arc + np.linalg.norm(np.subtract(p2, r2))


def _shortest(a, h, c, over_far_side=False):
    """Closed form for p1 = (-a, h, -c), p2 = (a, h, c) round the cylinder (radius R, axis z): unroll the
    tangent planes and the cylinder, the path is a straight line of rise 2c over the length across."""
    d = np.hypot(a, h)
    turn = np.pi - 2 * np.arctan2(h, a) if not over_far_side else np.pi + 2 * np.arctan2(h, a)
    across = 2 * np.sqrt(d * d - R * R) + R * (turn - 2 * np.arccos(R / d))
    return np.hypot(across, 2 * c)


@pytest.mark.parametrize("h, c", [(0.02, 0.0), (0.035, 0.0), (0.02, 0.03), (-0.01, 0.05)])
@pytest.mark.parametrize("single", [True, False])
def test_free_cylinder_is_the_shortest_path(h, c, single):
    p1, p2 = (-0.2, h, -c), (0.2, h, c)
    result = wrap_cylinder(p1, p2, R, 1.0, 0, 0, single)
    assert result[0] == MANDATORY
    # one wrap: the tangent points stay where the apex plane puts them, within 0.01 mm of the shortest
    # path when the ends are at different heights; several wraps: slid until tangent, the shortest path
    tol = 1e-5 if single and c else 1e-7
    assert _length(p1, p2, result) == pytest.approx(_shortest(0.2, abs(h), c), abs=tol)
    for r in result[1:3]:
        assert np.hypot(r[0], r[1]) == pytest.approx(R, abs=1e-12)     # tangent points on the surface


@pytest.mark.parametrize("c", [0.0, 0.03])
def test_quadrant_sends_the_path_round_the_allowed_side(c):
    p1, p2 = (-0.2, -0.02, -c), (0.2, -0.02, c)         # the straight line passes on the -y side
    result = wrap_cylinder(p1, p2, R, 1.0, 1, 1, True)  # only +y may carry it
    assert result[0] == WRAPPED
    assert result[1][1] > 0 and result[2][1] > 0
    assert _length(p1, p2, result) == pytest.approx(_shortest(0.2, 0.02, c, over_far_side=True), abs=1e-5)
    free = wrap_cylinder(p1, p2, R, 1.0, 0, 0, True)
    assert free[1][1] < 0 and _length(p1, p2, free) < _length(p1, p2, result)


def test_statuses():
    assert wrap_cylinder((-0.2, 0.08, 0.0), (0.2, 0.08, 0.0), R, 1.0, 0, 0, True)[0] == NO_WRAP      # misses
    assert wrap_cylinder((-0.01, 0.0, 0.0), (0.2, 0.01, 0.0), R, 1.0, 0, 0, True)[0] == INSIDE       # starts inside
    assert wrap_cylinder((-0.2, 0.02, 0.8), (0.2, 0.02, 0.9), R, 1.0, 0, 0, True)[0] == NO_WRAP      # past the end
    # both ends off the allowed side: OpenSim sends the path round the allowed side whatever the line does
    status, r1, r2, _ = wrap_cylinder((-0.2, 0.08, 0.0), (0.2, 0.08, 0.0), R, 1.0, 1, -1, True)
    assert status == WRAPPED and r1[1] < 0 and r2[1] < 0

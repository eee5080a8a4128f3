"""Wrap tori against the closed form of a path in a plane through the torus's axis, and against OpenSim 4.6
live on small synthetic models (tests/osim/_synthetic.py): every quadrant, turned tori, paths through the
hole that touch the tube and paths that do not."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody._kernels.wrap import NO_WRAP, WRAPPED
from humanbody._kernels.wrap_torus import wrap_torus

from ._synthetic import model_xml

INNER, OUTER = 0.02, 0.06
QUADRANTS = ("all", "+x", "-x", "+y", "-y", "+z", "-z")


def _length(p1, p2, result):
    _, r1, r2, arc = result
    return np.linalg.norm(np.subtract(p1, r1)) + arc + np.linalg.norm(np.subtract(p2, r2))


@pytest.mark.parametrize("p1, p2", [((0.03, 0.0, -0.1), (0.05, 0.0, 0.1)),
                                    ((0.05, 0.0, -0.08), (0.035, 0.0, 0.1)),
                                    ((-0.03, 0.0, -0.1), (-0.05, 0.0, 0.1))])
@pytest.mark.parametrize("single", [True, False])
def test_path_in_a_plane_through_the_axis_is_the_tube_circle_path(p1, p2, single):
    """Ends in the plane y = 0: the path is the taut string round the tube's circle in that plane, on the
    side facing the torus's axis (tangent lines and the arc between them)."""
    result = wrap_torus(p1, p2, INNER, OUTER, 0, 0, single)
    assert result[0] == WRAPPED
    centre = np.array((np.sign(p1[0]) * OUTER, 0.0, 0.0))
    a, b = np.subtract(p1, centre), np.subtract(p2, centre)
    da, db = np.linalg.norm(a), np.linalg.norm(b)
    between = np.arccos(np.dot(a, b) / (da * db))
    closed = np.sqrt(da**2 - INNER**2) + np.sqrt(db**2 - INNER**2) + INNER * (
        between - np.arccos(INNER / da) - np.arccos(INNER / db))
    assert _length(p1, p2, result) == pytest.approx(closed, abs=1e-12)
    for r in result[1:3]:
        assert abs(r[1]) < 1e-15 and np.linalg.norm(r - centre) == pytest.approx(INNER, abs=1e-15)
        assert abs(r[0]) < abs(centre[0])                       # on the side facing the axis


def test_torus_statuses():
    assert wrap_torus((0.005, 0.0, -0.1), (0.01, 0.0, 0.1), INNER, OUTER, 0, 0, True)[0] == NO_WRAP  # through the hole
    assert wrap_torus((0.0, 0.0, -0.1), (0.0, 0.0, 0.1), INNER, OUTER, 0, 0, True)[0] == NO_WRAP    # along its axis
    assert wrap_torus((0.03, 0.0, -0.1), (0.05, 0.0, 0.1), INNER, OUTER, 0, -1, True)[0] == NO_WRAP  # quadrant -x
    assert wrap_torus((0.03, 0.0, -0.1), (0.05, 0.0, 0.1), INNER, OUTER, 0, 1, True)[0] == WRAPPED


def test_tori_equal_opensims(tmp_path):
    pytest.importorskip("opensim")
    from _osim_cases import synthetic_against_opensim

    from humanbody.osim.model import xyz_body_fixed

    rng = np.random.default_rng(4)
    surfaces, muscles = [], []
    for i in range(28):                                 # through the hole, near the tube
        centre = np.array((0.0, 0.5 * i, 0.0))          # one torus per muscle, apart from the others
        p1 = np.r_[rng.uniform(-0.06, 0.06, 2), -0.12]
        p2 = np.r_[rng.uniform(-0.06, 0.06, 2), 0.12]
        turn = tuple(rng.uniform(-0.5, 0.5, 3)) if i % 2 else (0.0, 0.0, 0.0)
        R = xyz_body_fixed(turn)
        surfaces.append(("WrapTorus", f"ring{i}", tuple(centre), turn, QUADRANTS[i % 7],
                         {"inner_radius": INNER, "outer_radius": OUTER}))
        muscles.append((f"m{i}", R @ p1 + centre, R @ p2 + centre - (0.2, 0.0, 0.0), [f"ring{i}"]))
    # a path in the torus's plane 0.1 m beside it: OpenSim wraps it over the tube's tangent cylinder all the same
    surfaces.append(("WrapTorus", "beside", (0.1, 20.0, 0.0), (0.0, 0.0, 0.0), "all", {"inner_radius": 0.01,
                                                                                         "outer_radius": 0.02}))
    muscles.append(("beside", (0.0, 20.1, 0.0), (0.0, 20.1, 0.0), ["beside"]))
    path = tmp_path / "tori.osim"
    path.write_text(model_xml(surfaces, muscles, reach=0.01))
    both = synthetic_against_opensim(path, length_tol=1e-8, arm_tol=1e-7)     # targets 0.01 mm and 0.1 mm
    wrapped = both.geometry.path_points(both.reference["q"])[1] > 2
    assert wrapped.sum() > 100 and (~wrapped).sum() > 100                      # wraps and misses
    assert wrapped[:, -1].all() and (both.paths.lengths[:, -1] > 0.25).all()     # the straight line would be 0.2 m

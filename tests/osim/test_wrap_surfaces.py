"""Wrap spheres against the closed form of the path over a sphere, and against OpenSim 4.6 live on
small synthetic models (tests/osim/_synthetic.py): every quadrant, paths that wrap the far way
round, paths that miss."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody._kernels.wrap import INSIDE, MANDATORY, NO_WRAP, WRAPPED, wrap_sphere

from ._synthetic import model_xml

R = 0.05
QUADRANTS = {"all": (0, 0), "+x": (0, 1), "-x": (0, -1), "+y": (1, 1), "-y": (1, -1), "+z": (2, 1), "-z": (2, -1)}


def _length(p1, p2, result):
    _, r1, r2, arc = result
    return np.linalg.norm(np.subtract(p1, r1)) + arc + np.linalg.norm(np.subtract(p2, r2))


def _great_circle(p1, p2, long_way=False):
    """Closed form of the path over the sphere in the plane through the centre and both points: the two
    tangent lines and the arc between them, the short way round or the long way."""
    a, b = np.linalg.norm(p1), np.linalg.norm(p2)
    between = np.arccos(np.dot(p1, p2) / (a * b))
    if long_way:
        between = 2 * np.pi - between
    arc = R * (between - np.arccos(R / a) - np.arccos(R / b))
    return np.sqrt(a * a - R * R) + np.sqrt(b * b - R * R) + arc


@pytest.mark.parametrize("p1, p2", [((-0.2, 0.01, 0.0), (0.2, 0.02, 0.0)),
                                    ((-0.1, 0.03, -0.04), (0.15, -0.01, 0.05)),
                                    ((-0.06, -0.02, 0.01), (0.3, 0.0, -0.02))])
def test_free_sphere_is_the_great_circle_path(p1, p2):
    result = wrap_sphere(p1, p2, R, 0, 0)
    assert result[0] == WRAPPED
    assert _length(p1, p2, result) == pytest.approx(_great_circle(np.array(p1), np.array(p2)), abs=1e-14)
    for r, p in zip(result[1:3], (p1, p2), strict=True):
        assert np.linalg.norm(r) == pytest.approx(R, abs=1e-15)                # on the surface
        assert np.dot(r, np.subtract(p, r)) == pytest.approx(0.0, abs=1e-15)   # the line leaves it tangentially
        assert np.dot(np.cross(p1, p2), r) == pytest.approx(0.0, abs=1e-15)    # in the plane of the ends


def test_sphere_statuses():
    assert wrap_sphere((-0.2, 0.06, 0.0), (0.2, 0.06, 0.0), R, 0, 0)[0] == NO_WRAP       # the line misses
    assert wrap_sphere((-0.2, 0.01, 0.0), (-0.08, 0.01, 0.0), R, 0, 0)[0] == NO_WRAP     # stops short of it
    assert wrap_sphere((-0.01, 0.0, 0.0), (0.2, 0.01, 0.0), R, 0, 0)[0] == INSIDE        # starts inside
    assert wrap_sphere((-0.2, 0.01, 0.0), (0.2, 0.01, 0.0), R, 1, 1)[0] == MANDATORY     # an end on +y, cuts it


def test_quadrant_sends_the_path_round_the_allowed_side():
    p1, p2 = (-0.2, -0.01, 0.0), (0.2, -0.01, 0.0)        # passes on the -y side, only +y may carry it
    result = wrap_sphere(p1, p2, R, 1, 1)
    assert result[0] == WRAPPED and result[1][1] > 0 and result[2][1] > 0
    long_way = _great_circle(np.array(p1), np.array(p2), long_way=True)
    assert _length(p1, p2, result) == pytest.approx(long_way, abs=1e-14)
    assert long_way > _length(p1, p2, wrap_sphere(p1, p2, R, 0, 0))


def _cases():
    """End points (sphere frame) that wrap, in every quadrant, with far-way-round ones among them."""
    rng = np.random.default_rng(7)
    out = []
    for quadrant, (axis, sign) in QUADRANTS.items():
        wraps, far = [], []
        while len(wraps) < 4 or (sign and len(far) < 2):
            p1, p2 = rng.uniform(-0.12, 0.12, 3), rng.uniform(-0.12, 0.12, 3)
            status, _, _, arc = wrap_sphere(tuple(p1), tuple(p2), R, axis, sign)
            if status in (WRAPPED, MANDATORY):
                (far if arc < 0 else wraps).append((p1, p2))
        out += [(quadrant, p1, p2) for p1, p2 in wraps[:4] + far[:2]]
    return out


@pytest.mark.slow
def test_spheres_equal_opensims(tmp_path):
    pytest.importorskip("opensim")
    from _osim_cases import synthetic_against_opensim

    cases = _cases()
    surfaces, muscles = [], []
    for i, (quadrant, p1, p2) in enumerate(cases):
        centre = (0.0, 0.5 * i, 0.0)                       # one sphere per muscle, apart from the others
        surfaces.append(("WrapSphere", f"ball{i}", centre, (0.0, 0.0, 0.0), quadrant, {"radius": R}))
        muscles.append((f"m{i}", p1 + centre, p2 + centre - (0.2, 0.0, 0.0), [f"ball{i}"]))
    path = tmp_path / "spheres.osim"
    path.write_text(model_xml(surfaces, muscles, reach=0.01))
    synthetic_against_opensim(path, length_tol=1e-12, arm_tol=1e-12)
    far = [i for i, (quadrant, p1, p2) in enumerate(cases) if wrap_sphere(tuple(p1), tuple(p2), R, *QUADRANTS[quadrant])[3] < 0]
    assert len(far) >= 12                # the far way round (negative arcs, as OpenSim measures them) is covered

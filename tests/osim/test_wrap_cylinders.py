"""Paths over two wrap cylinders against OpenSim 4.6 live, on a small synthetic model (tests/osim/_synthetic.py).

With two or more wraps on a path OpenSim slides each cylinder's tangent points along its axis until
the straight lines meet the helix within 0.1 degree (one wrap: no sliding).  Within a round of that
iteration it moves the first tangent point, then judges the second one against the helix carried
along the axis by the first one's move.  Where the iteration stops depends on that order: judged on
the round's helix instead, the tangent points settle up to a millimetre along the axis from
OpenSim's and the lengths differ by up to 0.01 mm (the Rajagopal gastrocnemii).  OpenSim's helix
turns by the signed angle between the tangent points about the axis; the long way round it turns
``2 pi`` minus that angle, more than a full turn when the angle is negative, and its length counts
that turn (one wrap or several).
"""

from __future__ import annotations

import numpy as np
import pytest

from ._synthetic import model_xml

pytest.importorskip("opensim")

R = 0.03
# (quadrant, ground point, point on the arm): lines that cross both cylinders at a slant, so the helices rise
# and the tangent points must slide; the arm's origin sits at (0.2, 0, 0)
MUSCLES = [("all", (-0.25, 0.012, 0.06), (0.12, 0.018, -0.07)),
           ("all", (-0.2, -0.01, -0.05), (0.15, -0.004, 0.08)),
           ("+y", (-0.22, 0.004, 0.02), (0.1, 0.01, -0.09)),
           ("-y", (-0.3, -0.008, -0.08), (0.13, -0.012, 0.04)),
           ("+x", (-0.24, 0.02, 0.07), (0.11, -0.02, -0.03))]


def _model(tmp_path):
    surfaces, muscles = [], []
    for i, (quadrant, origin, insertion) in enumerate(MUSCLES):
        y = 0.5 * i                                          # each muscle over its own pair, apart from the others
        surfaces.append(("WrapCylinder", f"a{i}", (-0.08, y, 0.0), (0.0, 0.0, 0.0), quadrant, {"radius": R, "length": 0.5}))
        surfaces.append(("WrapCylinder", f"b{i}", (0.08, y, 0.0), (0.2, -0.15, 0.0), quadrant, {"radius": R, "length": 0.5}))
        shift = np.array([0.0, y, 0.0])
        muscles.append((f"m{i}", np.add(origin, shift), np.add(insertion, shift), [f"a{i}", f"b{i}"]))
    path = tmp_path / "two_cylinders.osim"
    path.write_text(model_xml(surfaces, muscles, reach=0.01))
    return path


def _opensim_paths(path, q, names):
    """OpenSim's current path of every muscle at each pose: points in ground (F x M x 6 x 3, NaN past the last)."""
    import opensim as osim

    osim.Logger.setLevelString("error")
    model = osim.Model(str(path))
    state = model.initSystem()
    coords = [model.getCoordinateSet().get(i) for i in range(model.getCoordinateSet().getSize())]
    out = np.full((len(q), len(names), 6, 3), np.nan)
    for f, row in enumerate(q):
        for c, v in zip(coords, row, strict=True):
            c.setValue(state, float(v), False)
        model.realizePosition(state)
        for m, name in enumerate(names):
            current = osim.GeometryPath.safeDownCast(model.getMuscles().get(name).getPath()).getCurrentPath(state)
            for j in range(current.getSize()):
                point = current.get(j)
                x = point.getBody().getTransformInGround(state)
                local = point.getLocation(state)
                out[f, m, j] = [sum(x.R().get(r, k) * local.get(k) for k in range(3)) + x.p().get(r) for r in range(3)]
    return out


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    from _osim_reference import random_poses, reference

    from humanbody.muscles import MuscleGeometry
    from humanbody.osim import read_osim

    path = _model(tmp_path_factory.mktemp("cylinders"))
    model = read_osim(path)
    q = np.vstack([np.zeros((1, 6)), random_poses(model, 12, 3) * [0.1, 0.1, 0.1, 1, 1, 1]])
    mask = np.zeros((len(MUSCLES), 6), bool)
    mask[:, [0, 3, 4, 5]] = True          # FreeJoint: OpenSim's moment arms about its 2nd, 3rd rotations are not dL/dq
    ref = reference(path, q, mask)
    geometry = MuscleGeometry.of(model)
    return model, path, ref, mask, geometry


@pytest.mark.slow
def test_two_cylinder_paths_equal_opensims(case):
    model, path, ref, mask, geometry = case
    paths = geometry.compute(ref["q"])
    assert np.abs(paths.lengths - ref["lengths"]).max() < 1e-12                       # m
    assert np.nanmax(np.abs(np.where(mask, paths.moment_arms, np.nan) - ref["moment_arms"])) < 1e-12
    points, counts = geometry.path_points(ref["q"])
    theirs = _opensim_paths(path, ref["q"], model.muscle_names)
    assert np.array_equal(counts, (~np.isnan(theirs[..., 0])).sum(axis=2))
    assert (counts == 6).mean() > 0.7                                       # mostly over both cylinders
    assert np.nanmax(np.abs(points[:, :, :6] - theirs)) < 1e-12             # the tangent points themselves


QUADRANTS = {"all": (0, 0), "+x": (0, 1), "-x": (0, -1), "+y": (1, 1), "-y": (1, -1)}


@pytest.mark.slow
@pytest.mark.parametrize("iterated", [False, True])
def test_one_cylinder_segment_equals_opensims(tmp_path, iterated):
    """One straight segment over one cylinder, alone on its path (no sliding) or with a second, inactive
    wrap on the path (OpenSim then slides the tangent points): tangent points and lengths to 1e-12 m, in
    every quadrant, the long way round included (where OpenSim's turn exceeds a full turn when the
    signed angle between the tangent points is negative)."""
    from _osim_reference import reference

    from humanbody._kernels.wrap import MANDATORY, WRAPPED, wrap_cylinder
    from humanbody.osim import read_osim

    rng = np.random.default_rng(11)
    surfaces, muscles, cases = [], [], []
    while len(cases) < 40:
        quadrant = list(QUADRANTS)[len(cases) % len(QUADRANTS)]
        p1, p2 = rng.uniform(-0.2, 0.2, 3), rng.uniform(-0.2, 0.2, 3)
        status, r1, r2, arc = wrap_cylinder(tuple(p1), tuple(p2), R, 0.5, *QUADRANTS[quadrant], not iterated)
        if status not in (WRAPPED, MANDATORY):
            continue
        i, centre = len(cases), np.array([0.0, 0.6 * len(cases), 0.0])
        surfaces.append(("WrapCylinder", f"c{i}", centre, (0.0, 0.0, 0.0), quadrant, {"radius": R, "length": 0.5}))
        surfaces.append(("WrapCylinder", f"off{i}", centre + 0.3, (0.0, 0.0, 0.0), "all",
                         {"radius": 0.001, "length": 0.001, "active": "false"}))
        muscles.append((f"m{i}", p1 + centre, p2 + centre - (0.2, 0.0, 0.0), [f"c{i}"] + [f"off{i}"] * iterated))
        cases.append((p1, p2, np.array(r1) + centre, np.array(r2) + centre,
                      np.linalg.norm(p1 - r1) + arc + np.linalg.norm(p2 - r2), arc))
    path = tmp_path / "one_cylinder.osim"
    path.write_text(model_xml(surfaces, muscles, reach=0.01))
    model = read_osim(path)
    q = np.zeros((1, 6))
    ref = reference(path, q, np.zeros((len(cases), 6), bool))
    theirs = _opensim_paths(path, q, model.muscle_names)[0]
    for m, (_p1, _p2, r1, r2, length, _arc) in enumerate(cases):
        assert abs(length - ref["lengths"][0, m]) < 1e-12
        assert np.abs(theirs[m, 1] - r1).max() < 1e-12 and np.abs(theirs[m, 2] - r2).max() < 1e-12
    beyond = [c for c in cases if c[5] > 2 * np.pi * R]
    assert len(beyond) >= 2                          # arcs of more than a full turn, as OpenSim measures them


@pytest.mark.slow
def test_the_tangent_points_slide(case):
    """The two-cylinder poses exercise the sliding: OpenSim's tangent points lie up to millimetres along
    the axis from where one wrap would leave them, so the first test holds the iteration itself."""
    from humanbody._kernels.wrap import wrap_cylinder
    from humanbody.osim.model import xyz_body_fixed

    model, path, ref, mask, geometry = case
    points, counts = geometry.path_points(ref["q"])
    slid = []
    for f, m in zip(*np.nonzero(counts == 6), strict=True):
        for k, name in ((1, f"a{m}"), (3, f"b{m}")):
            wo = next(w for w in model.wrap_objects if w.name == name)
            rot = xyz_body_fixed(wo.rotation)
            local = [rot.T @ (points[f, m, j] - wo.translation) for j in (k - 1, k, k + 1, k + 2)]
            one = wrap_cylinder(tuple(local[0]), tuple(local[3]), R, 0.5, *QUADRANTS[wo.quadrant], True)
            slid.append(max(abs(one[1][2] - local[1][2]), abs(one[2][2] - local[2][2])))
    assert np.sum(np.array(slid) > 1e-4) >= 20       # tangent points slid by more than 0.1 mm

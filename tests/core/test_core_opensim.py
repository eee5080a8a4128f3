"""A Custom joint is OpenSim's CustomJoint: the same pose from the same SpatialTransform (OpenSim itself)."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.core import ModelBuilder, forward_kinematics, functions, joints

RAX = [(0.0, 0.0, 1.0), (1.0, 0.0, 0.0), (0.0, 0.6, 0.8)]
TAX = [(1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)]
KNOTS = ([-1.0, 0.0, 0.5, 1.0, 2.0], [0.1, 0.0, 0.05, -0.02, 0.3])


def _axis_xml(name, i, axis, spline):
    f = ("<SimmSpline name=\"function\"><x>{}</x><y>{}</y></SimmSpline>".format(
        " ".join(map(str, KNOTS[0])), " ".join(map(str, KNOTS[1]))) if spline
         else "<LinearFunction name=\"function\"><coefficients>1 0</coefficients></LinearFunction>")
    return (f"<TransformAxis name=\"{name}\"><coordinates>q{i}</coordinates>"
            f"<axis>{axis[0]} {axis[1]} {axis[2]}</axis>{f}</TransformAxis>")


def _osim_file(path):
    names = ["rotation1", "rotation2", "rotation3", "translation1", "translation2", "translation3"]
    axes = "".join(_axis_xml(n, i, a, spline=(i == 4)) for i, (n, a) in enumerate(zip(names, RAX + TAX, strict=True)))
    coords = "".join(f"<Coordinate name=\"q{i}\"><default_value>0</default_value></Coordinate>" for i in range(6))
    frame = ("<PhysicalOffsetFrame name=\"{0}\"><socket_parent>{1}</socket_parent>"
             "<translation>{2}</translation><orientation>{3}</orientation></PhysicalOffsetFrame>")
    path.write_text(
        "<?xml version=\"1.0\" encoding=\"UTF-8\" ?><OpenSimDocument Version=\"40000\"><Model name=\"m\">"
        "<Ground name=\"ground\"/><BodySet name=\"bodyset\"><objects><Body name=\"b\"><mass>1</mass>"
        "<mass_center>0 0 0</mass_center><inertia>1 1 1 0 0 0</inertia></Body></objects></BodySet>"
        "<JointSet name=\"jointset\"><objects><CustomJoint name=\"j\"><socket_parent_frame>p</socket_parent_frame>"
        f"<socket_child_frame>c</socket_child_frame><coordinates>{coords}</coordinates><frames>"
        + frame.format("p", "/ground", "0.1 0.2 -0.3", "0.3 -0.2 0.5")
        + frame.format("c", "/bodyset/b", "-0.05 0.02 0.1", "0 0.4 0")
        + f"</frames><SpatialTransform>{axes}</SpatialTransform></CustomJoint></objects></JointSet>"
        "</Model></OpenSimDocument>")


def _xyz(angles):
    """OpenSim's orientation of an offset frame: body-fixed x, y, z."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_euler("XYZ", angles).as_matrix()


def test_custom_joint_is_opensims_custom_joint(tmp_path):
    osim = pytest.importorskip("opensim")
    _osim_file(tmp_path / "m.osim")
    om = osim.Model(str(tmp_path / "m.osim"))
    state = om.initSystem()
    spline = functions.SimmSpline(*KNOTS)
    rot = tuple(joints.TransformAxis(a, None, i) for i, a in enumerate(RAX))
    tra = tuple(joints.TransformAxis(a, spline if i == 1 else None, 3 + i) for i, a in enumerate(TAX))
    b = ModelBuilder("m")
    b.add_body("b", joints.Custom(nq=6, rotations=rot, translations=tra), offset=(0.1, 0.2, -0.3),
               rotation=_xyz([0.3, -0.2, 0.5]), child_offset=(-0.05, 0.02, 0.1), child_rotation=_xyz([0, 0.4, 0]),
               mass=1.0, inertia=(1, 1, 1))
    model = b.build()
    rng = np.random.default_rng(2)
    q = rng.uniform(-1.2, 1.2, size=(5, 6))
    data = forward_kinematics(model, q)
    body = om.getBodySet().get(0)
    for f in range(q.shape[0]):
        for i in range(6):
            om.getCoordinateSet().get(i).setValue(state, q[f, i], False)
        om.realizePosition(state)
        T = body.getTransformInGround(state)
        R = np.array([[T.R().get(i, k) for k in range(3)] for i in range(3)])
        p = np.array([T.p().get(i) for i in range(3)])
        np.testing.assert_allclose(data.R[f, 0], R, atol=1e-12)
        np.testing.assert_allclose(data.origin[f, 0], p, atol=1e-12)

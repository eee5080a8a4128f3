"""An OpenSim model as read (:class:`~humanbody.osim.OsimModel`) onto the core: a :class:`humanbody.core.Model`.

Every joint becomes a body of the core's tree with its parent and child
frames (OpenSim's offset frames: translation, body-fixed X-Y-Z angles); a
CustomJoint keeps its spatial transform (three rotations about body-fixed
axes, three translations along the parent frame's axes, each a function of
one coordinate), a WeldJoint holds its child fixed, a PinJoint turns about
the joint frame's z.  Coordinate couplers become the core's couplers.
Masses, mass centres and inertias (about the mass centre, OpenSim's
``Ixx Iyy Izz Ixy Ixz Iyz``) carry over.
"""

from __future__ import annotations

import numpy as np

from .. import core
from ..core import functions as fn
from ..core import joints
from ..errors import InputError
from ..osim.model import Function, Joint, OsimModel
from .paths import xyz_body_fixed


def core_function(f: Function) -> fn.Function:
    """The core's function for an OpenSim function value."""
    if f.kind == "constant":
        return fn.Constant(f.value)
    if f.kind == "linear":
        slope, intercept = (tuple(f.coefficients) + (1.0, 0.0))[:2]
        return fn.Linear(slope, intercept)
    if f.kind == "polynomial":
        return fn.Polynomial(list(f.coefficients))
    if f.kind == "piecewise_linear":
        return fn.PiecewiseLinear(list(f.x), list(f.y))
    if f.kind == "spline":
        return fn.SimmSpline(list(f.x), list(f.y))
    if f.kind == "natural_spline":
        return fn.NaturalCubicSpline(list(f.x), list(f.y))
    if f.kind == "multiplier" and f.inner is not None:
        return fn.Multiplier(core_function(f.inner), f.scale)
    raise InputError(f"function kind {f.kind!r} cannot be put on the core")


def _axis(ax, coords: tuple[str, ...]) -> joints.TransformAxis:
    if not ax.coordinates:
        return joints.TransformAxis(ax.axis, core_function(ax.function), None)
    if len(ax.coordinates) > 1:
        raise InputError(f"a transform axis of {len(ax.coordinates)} coordinates is not supported")
    return joints.TransformAxis(ax.axis, core_function(ax.function), coords.index(ax.coordinates[0]))


def core_joint(joint: Joint) -> joints.Joint:
    """The core's joint type for an OpenSim joint."""
    if joint.kind == "custom":
        rot = tuple(_axis(a, joint.coordinates) for a in joint.transform[:3])
        tra = tuple(_axis(a, joint.coordinates) for a in joint.transform[3:])
        return joints.Custom(len(joint.coordinates), rot, tra)
    if joint.kind == "weld":
        return joints.Weld()
    if joint.kind == "pin":
        return joints.Revolute("z")
    raise InputError(f"joint {joint.name}: {joint.kind} joints are not supported for muscle forces")


def core_model(model: OsimModel) -> core.Model:
    """The core model of an OpenSim model: bodies in joint order (each after its parent).

    Raises
    ------
    InputError
        A joint kind or function the core does not run.
    """
    bodies = {b.name: b for b in model.bodies}
    builder = core.ModelBuilder(model.name, gravity=model.gravity)
    for joint in model.joints:
        b = bodies[joint.child]
        parent = None if joint.parent == "ground" else joint.parent
        builder.add_body(b.name, core_joint(joint), parent=parent, offset=joint.parent_frame.translation,
                         rotation=xyz_body_fixed(joint.parent_frame.orientation),
                         child_offset=joint.child_frame.translation,
                         child_rotation=xyz_body_fixed(joint.child_frame.orientation),
                         mass=b.mass, com=b.mass_center, inertia=np.array(b.inertia),
                         coordinates=joint.coordinates)
    for c in model.couplers:
        if len(c.independent) != 1:
            raise InputError(f"coupler {c.name}: {len(c.independent)} independent coordinates are not supported")
        builder.add_coupler(c.dependent, fn.Multiplier(core_function(c.function), c.scale_factor), c.independent[0])
    return builder.build()

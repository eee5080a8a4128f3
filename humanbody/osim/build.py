"""An OpenSim model as a model of the core (:mod:`humanbody.core`): one kinematics and dynamics for every tree.

Joint by joint, OpenSim's types become the core's: CustomJoint → ``Custom`` (its
SpatialTransform's translations along parent-frame axes, then its rotations about
body-fixed axes, each a function of one of the joint's coordinates), PinJoint →
``Revolute("z")``, UniversalJoint → ``Universal("x", "y")``, BallJoint and GimbalJoint →
``Cardan("xyz")`` (body-fixed X-Y-Z angles), FreeJoint → ``Custom`` with OpenSim's
coordinate order (three rotations, then three translations), SliderJoint →
``Prismatic("x")``, PlanarJoint → ``Custom`` (rotation about z, translations along x, y),
WeldJoint → ``Weld``.  A joint frame is the OpenSim offset frame: translation and
body-fixed X-Y-Z orientation in its body.  Bodies are added parents first (the order
the core requires); ground is the core's root, not a body.  CoordinateCouplerConstraints
become couplers ``q_dependent = scale_factor * f(q_independent)``.

:class:`CoreModel` keeps the core model and the two numberings side by side: the
OpenSim model's coordinates (file order) and bodies (ground first) against the core's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core import Model, ModelBuilder, functions, joints
from ..errors import InputError
from .model import OsimJoint, OsimModel, OsimTransformAxis, xyz_body_fixed

_X, _Y, _Z = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)
_XYZ = (_X, _Y, _Z)


def _axis(ax: OsimTransformAxis, joint: OsimJoint) -> joints.TransformAxis:
    fn = ax.function
    if not ax.coordinates:
        return joints.TransformAxis(ax.axis, fn if isinstance(fn, functions.Constant) else functions.Constant(0.0))
    if len(ax.coordinates) > 1:
        raise InputError(f"joint {joint.name}: a transform axis driven by {len(ax.coordinates)} coordinates "
                         "is not supported")
    local = joint.coordinates.index(ax.coordinates[0])
    identity = isinstance(fn, functions.Linear) and (fn.slope, fn.intercept) == (1.0, 0.0)
    return joints.TransformAxis(ax.axis, None if identity else fn, local)


def _moves(ax: OsimTransformAxis) -> bool:
    return bool(ax.coordinates) or not (isinstance(ax.function, functions.Constant) and ax.function.value == 0.0)


def core_joint(joint: OsimJoint):
    """The core's joint type for an OpenSim joint; its coordinates keep OpenSim's order.

    Parameters
    ----------
    joint : OsimJoint
        An OpenSim joint as read from the file (its kind, coordinates and, for a CustomJoint, six transform axes).

    Returns
    -------
    humanbody.core.joints joint type
        ``Custom``, ``Revolute``, ``Universal``, ``Cardan``, ``Prismatic`` or ``Weld`` (see the module notes).

    Raises
    ------
    InputError
        A joint type, or a transform axis driven by several coordinates, that is not supported.
    """
    k = joint.kind
    if k == "custom":
        rot = tuple(_axis(a, joint) for a in joint.transform[:3] if _moves(a))
        trans = tuple(_axis(a, joint) for a in joint.transform[3:] if _moves(a))
        return joints.Custom(nq=len(joint.coordinates), rotations=rot, translations=trans)
    if k == "pin":
        return joints.Revolute(_Z)
    if k == "universal":
        return joints.Universal(_X, _Y)
    if k in ("ball", "gimbal"):
        return joints.Cardan("xyz")
    if k == "slider":
        return joints.Prismatic(_X)
    if k == "weld":
        return joints.Weld()
    if k == "free":
        return joints.Custom(nq=6, rotations=tuple(joints.TransformAxis(a, None, i) for i, a in enumerate(_XYZ)),
                             translations=tuple(joints.TransformAxis(a, None, 3 + i) for i, a in enumerate(_XYZ)))
    if k == "planar":
        return joints.Custom(nq=3, rotations=(joints.TransformAxis(_Z, None, 0),),
                             translations=(joints.TransformAxis(_X, None, 1), joints.TransformAxis(_Y, None, 2)))
    raise InputError(f"joint {joint.name}: type {k} is not supported")


def _tree_order(model: OsimModel) -> list[OsimJoint]:
    """The joints parents first, from ground; a body no joint reaches is an error."""
    by_parent: dict[str, list[OsimJoint]] = {}
    for j in model.joints:
        by_parent.setdefault(j.parent, []).append(j)
    order, frontier = [], ["ground"]
    while frontier:
        body = frontier.pop(0)
        for j in by_parent.get(body, []):
            order.append(j)
            frontier.append(j.child)
    if len(order) != len(model.joints):
        loose = sorted({j.name for j in model.joints} - {j.name for j in order})
        raise InputError(f"joints {', '.join(loose)} do not hang from ground (a loop or a missing parent)",
                         path=model.path)
    return order


@dataclass(frozen=True)
class CoreModel:
    """An OpenSim model and its core model side by side.

    Attributes
    ----------
    osim : OsimModel
    model : humanbody.core.Model
    q_index : (nq,) int   core column of each OpenSim coordinate (``osim.coordinate_names`` order)
    body_index : (B,) int  core body of each OpenSim body (``osim.body_names``; ground -1)
    """

    osim: OsimModel
    model: Model
    q_index: np.ndarray
    body_index: np.ndarray

    def to_core(self, q: np.ndarray) -> np.ndarray:
        """Coordinates (F, nq) in OpenSim's order → the core's order.

        Parameters
        ----------
        q : numpy.ndarray
            (F, nq) coordinates (or their rates), ``osim.coordinate_names`` order.

        Returns
        -------
        numpy.ndarray
            (F, nq) the same columns in the core's order.
        """
        out = np.empty_like(q)
        out[:, self.q_index] = q
        return out

    def from_core(self, q: np.ndarray) -> np.ndarray:
        """Core-ordered columns (..., nq) → OpenSim's order.

        Parameters
        ----------
        q : numpy.ndarray
            (..., nq) columns in the core's coordinate order.

        Returns
        -------
        numpy.ndarray
            (..., nq) the same columns in ``osim.coordinate_names`` order.
        """
        return q[..., self.q_index]


def build_core_model(model: OsimModel) -> CoreModel:
    """The core model of an OpenSim model (see the module notes).

    Parameters
    ----------
    model : OsimModel
        The OpenSim model as read.

    Returns
    -------
    CoreModel
        The core model with both numberings (coordinates and bodies).

    Raises
    ------
    InputError
        Joints that do not hang from ground, an unsupported joint, or a coupler with several independent
        coordinates.
    """
    b = ModelBuilder(model.name or "osim", gravity=model.gravity)
    bodies = {x.name: x for x in model.bodies}
    for j in _tree_order(model):
        body = bodies[j.child]
        b.add_body(j.child, core_joint(j), parent=None if j.parent == "ground" else j.parent,
                   offset=j.parent_frame.translation, rotation=xyz_body_fixed(j.parent_frame.orientation),
                   child_offset=j.child_frame.translation, child_rotation=xyz_body_fixed(j.child_frame.orientation),
                   mass=body.mass, com=body.mass_center, inertia=body.inertia, coordinates=j.coordinates)
    for mk in model.markers:
        if mk.body != "ground":
            b.add_marker(mk.name, mk.body, mk.location)
    for c in model.couplers:
        if len(c.independent) != 1:
            raise InputError(f"coupler {c.name}: {len(c.independent)} independent coordinates; one is supported",
                             path=model.path)
        fn = c.function if c.scale_factor == 1.0 else functions.Multiplier(c.function, c.scale_factor)
        b.add_coupler(c.dependent, fn, c.independent[0])
    core = b.build()
    q_index = np.array([core.coordinate(n) for n in model.coordinate_names], dtype=np.int64)
    body_index = np.array([-1 if n == "ground" else core.body(n) for n in model.body_names], dtype=np.int64)
    return CoreModel(model, core, q_index, body_index)

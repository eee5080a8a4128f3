"""The core: one body model, one kinematics pass, on which any tree of joints runs.

Pinocchio's split: a frozen :class:`Model` holds what never changes during a
motion (the tree, the joints, the inertias, the markers); a :class:`Data`
holds what one evaluation over F frames produces; the algorithms are free
functions of ``(model, q, ...)`` named after the literature.

Conventions (stated once)
-------------------------
- Units: SI -- m, rad, kg, s, N, N m.  Angles are radians everywhere.
- Bodies are numbered ``0 .. B-1`` so that ``model.parents[b] < b``;
  ``parents[b] = -1`` is the ground.  Every kernel uses this numbering.
- Coordinates ``q`` are numbered ``0 .. nq-1``, body by body: body b's joint
  owns ``q[:, model.q_start[b]:model.q_start[b+1]]``.  The generalized
  speeds are the coordinates' time derivatives ``qd`` (also for rotations),
  and the generalized forces ``tau`` are conjugate to them.
- Frames: a body's pose is ``(R, origin)`` with ``x_ground = R x_body +
  origin``.  A joint's frame is placed in its parent body by
  ``(rotation, offset)`` and in its child body by ``(child_rotation,
  child_offset)``; the joint moves the child's joint frame in the parent's.
  Every vector of a :class:`Data` is in ground components.
- Arrays have frames first: ``q`` (F, nq), poses (F, B, 3, 3) and (F, B, 3),
  Jacobians (F, points, 3, nq).

Building a model
----------------
::

    import numpy as np
    from humanbody.core import ModelBuilder, joints, functions

    b = ModelBuilder("leg", gravity=(0.0, -9.81, 0.0))
    b.add_body("pelvis", joints.Free("zxy"), mass=11.8, com=(-0.07, 0, 0),
               inertia=(0.10, 0.09, 0.06), coordinates=("tx", "ty", "tz", "tilt", "list", "rot"))
    b.add_body("femur", joints.Cardan("zxy"), parent="pelvis", offset=(-0.056, -0.078, 0.077),
               mass=9.3, com=(0, -0.17, 0), inertia=(0.13, 0.035, 0.14))
    knee = joints.Custom(nq=1,
        rotations=(joints.TransformAxis("z", coordinate=0),),
        translations=(joints.TransformAxis("x", functions.SimmSpline([-2.0, 0.0, 0.2], [-0.003, 0.0, 0.001]), 0),
                      joints.TransformAxis("y", functions.Constant(-0.4))))
    b.add_body("tibia", knee, parent="femur", mass=3.7, com=(0, -0.18, 0), inertia=(0.05, 0.005, 0.05),
               coordinates=("knee_angle",))
    b.add_marker("LKNE", "femur", (0.0, -0.40, 0.05))
    b.add_coupler("femur_2", functions.Linear(0.1, 0.0), "knee_angle")   # femur_2 = 0.1 knee_angle
    model = b.build()                       # frozen: Model

    from humanbody.core import forward_kinematics, marker_jacobian, inverse_dynamics
    q = np.zeros((10, model.nq))            # 10 frames
    data = forward_kinematics(model, q)     # Data: data.R (10, 3, 3, 3), data.origin (10, 3, 3)
    J = marker_jacobian(model, data)        # (10, 1, 3, nq)
    tau = inverse_dynamics(model, q, q, q)  # (10, nq): N, N m

Joint types (:mod:`humanbody.core.joints`)
------------------------------------------
``Free(sequence)`` (6: origin in the parent frame, then the sequence's three
angles), ``Cardan(sequence)`` (3 angles about body-fixed axes in order,
``R = R_a1 R_a2 R_a3``: Huston's 16 joints), ``Ball()`` (= ``Cardan("xyz")``),
``Revolute(axis)``, ``Prismatic(axis)``, ``Universal(axis1, axis2)``,
``Weld()`` and ``Custom(nq, rotations, translations)``: OpenSim's CustomJoint
(translations along parent-frame axes, then up to three rotations about
body-fixed axes in order; each :class:`~humanbody.core.joints.TransformAxis`
a function of one of the joint's coordinates).  For the kernels every joint
is a run of axes (rotation or translation, unit vector, function,
coordinate), so one recursion runs every model.

Function types (:mod:`humanbody.core.functions`)
------------------------------------------------
``Constant``, ``Linear(slope, intercept)``, ``Polynomial(coefficients)``
(decreasing powers), ``PiecewiseLinear(x, y)``, ``SimmSpline(x, y)``
(OpenSim's), ``NaturalCubicSpline(x, y)``, ``Multiplier(function, scale)``:
data (type code + coefficients) evaluated with first and second derivatives
by one numba kernel.  A function is also callable: ``f(x, derivative=0)``.

Couplers
--------
``ModelBuilder.add_coupler(dependent, function, independent)`` (OpenSim's
CoordinateCouplerConstraint): before the kinematics, ``q_d = f(q_i)``,
``qd_d = f' qd_i``, ``qdd_d = f'' qd_i^2 + f' qdd_i``, in the order given.
Jacobians and generalized forces are then along the independent
coordinates (the chain rule; a dependent coordinate's column and force are 0).

Algorithms
----------
- :func:`forward_kinematics` ``(model, q, qd=None, qdd=None) -> Data``
- :func:`marker_positions`, :func:`com_positions` ``(model, data)`` (F, M, 3)
- :func:`point_jacobian` ``(model, data, body, offset)``, :func:`marker_jacobian`
  ``(model, data)``: (F, M, 3, nq); :func:`body_jacobian` ``(model, data, body)``: (F, M, 6, nq)
- :func:`inverse_dynamics` ``(model, q, qd, qdd, external=None)`` (recursive
  Newton-Euler; ``external`` (F, B, 6): force and moment about each body's
  origin, ground), :func:`joint_loads` ``(model, data, external)``,
  :func:`mass_matrix` ``(model, q)``
- :func:`from_body_model` ``(BodyModel) -> Model``: the 17 segments (or any
  Huston tree) with the same coordinates in the same order (``BodyModel.core``
  holds it, built once).
- Huston's fast path for such a tree (:mod:`humanbody.core.huston`):
  :func:`huston_kinematics` ``(model, q, qd, qdd, local_rates)`` (the
  block-of-frames recursion of Huston ch. 8-10: angular velocities, joint
  points, mass centres, inertia forces and torques; what
  :func:`humanbody.compute` reports) and :func:`huston_loads` ``(model,
  kinematics, load_force, load_moment, load_body)`` (joint forces, moments
  and powers from the tips to the root: the analysis's kinetics).
"""

from __future__ import annotations

from . import functions, joints
from .data import Data
from .dynamics import inverse_dynamics, joint_loads, mass_matrix
from .huston import from_body_model, huston_kinematics, huston_loads
from .kinematics import (
    body_jacobian,
    com_positions,
    forward_kinematics,
    marker_jacobian,
    marker_positions,
    point_jacobian,
)
from .model import Coupler, Marker, Model, ModelBuilder

__all__ = ["Model", "ModelBuilder", "Marker", "Coupler", "Data", "functions", "joints", "forward_kinematics",
           "marker_positions", "com_positions", "point_jacobian", "marker_jacobian", "body_jacobian",
           "inverse_dynamics", "joint_loads", "mass_matrix", "from_body_model", "huston_kinematics", "huston_loads"]

"""An OpenSim model as plain frozen values: what an ``.osim`` file says, nothing computed.

Units are OpenSim's: metres, kilograms, radians.  Every vector is a tuple of
three floats in the frame the file names (a body's own frame unless stated).
Orientations are OpenSim's body-fixed X-Y-Z angle triples (rad): the frame's
rotation matrix is ``Rx(a) Ry(b) Rz(c)``.

The layout follows the file: bodies, joints with their parent and child
frames (an offset from a body: translation and orientation), coordinates,
coordinate couplers, markers, muscles with their geometry paths, and the
wrap surfaces on the bodies.  The file's functions of a coordinate (a
transform axis's, a coupler's, a moving path point's) are read as the
core's function values (:mod:`humanbody.core.functions`), the ones its
kinematics and the muscle path kernels evaluate.  The records are named
``Osim...`` where the core has a type of the same purpose (``OsimJoint``,
``OsimTransformAxis``, ``OsimCoupler``, ``OsimMarker``).  :func:`humanbody.osim.read_osim` reads it;
what a file holds that this layout does not is named in
:attr:`OsimModel.notes`, one line per kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..core.functions import Function

Vec3 = tuple[float, float, float]

def xyz_body_fixed(angles) -> np.ndarray:
    """Rotation matrix of OpenSim's body-fixed X-Y-Z angles (rad): ``Rx(a) Ry(b) Rz(c)`` (frame → body).

    Parameters
    ----------
    angles : sequence of 3 float
        The X, Y, Z angles (rad).

    Returns
    -------
    numpy.ndarray
        (3, 3) rotation matrix.
    """
    a, b, c = angles
    ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(c), np.sin(c)
    rx = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
    ry = np.array([[cb, 0.0, sb], [0.0, 1.0, 0.0], [-sb, 0.0, cb]])
    rz = np.array([[cc, -sc, 0.0], [sc, cc, 0.0], [0.0, 0.0, 1.0]])
    return rx @ ry @ rz


@dataclass(frozen=True)
class Body:
    """A rigid body: ``mass`` (kg), ``mass_center`` (m, body frame), ``inertia`` about the mass centre
    in the body frame, ``(Ixx, Iyy, Izz, Ixy, Ixz, Iyz)`` (kg m^2)."""

    name: str
    mass: float
    mass_center: Vec3
    inertia: tuple[float, float, float, float, float, float]


@dataclass(frozen=True)
class Frame:
    """A frame fixed on ``body``: origin at ``translation`` (m, body frame), axes rotated by the
    body-fixed X-Y-Z angles ``orientation`` (rad)."""

    body: str
    translation: Vec3 = (0.0, 0.0, 0.0)
    orientation: Vec3 = (0.0, 0.0, 0.0)


@dataclass(frozen=True)
class OsimTransformAxis:
    """One of a CustomJoint's six axes: ``function`` of ``coordinates`` (none: of nothing, a constant)
    gives the angle (rad, the three rotations) or the displacement (m, the three translations) along
    ``axis`` (unit vector in the joint's parent frame for translations; rotations compose body-fixed)."""

    coordinates: tuple[str, ...]
    axis: Vec3
    function: Function


@dataclass(frozen=True)
class OsimJoint:
    """A joint between ``parent_frame`` and ``child_frame``.

    ``kind`` is ``custom`` (``transform`` holds its six axes: rotation1..3, translation1..3), or
    ``pin``, ``universal``, ``ball``, ``free``, ``gimbal``, ``slider``, ``planar``, ``weld``
    (their mobilities in OpenSim's order, ``coordinates`` in the file's order).
    The child body moves as ``X_ground_child = X_ground_parent X_parent_frame X_joint(q) X_child_frame^-1``.
    """

    name: str
    kind: str
    parent_frame: Frame
    child_frame: Frame
    coordinates: tuple[str, ...]
    transform: tuple[OsimTransformAxis, ...] = ()

    @property
    def parent(self) -> str:
        return self.parent_frame.body

    @property
    def child(self) -> str:
        return self.child_frame.body


@dataclass(frozen=True)
class Coordinate:
    """A generalized coordinate: ``motion_type`` ``rotational`` (rad) or ``translational`` (m) or
    ``coupled``; ``range`` (min, max), ``default``, ``locked``, ``clamped`` as in the file."""

    name: str
    joint: str
    motion_type: str
    default: float
    range: tuple[float, float]
    locked: bool
    clamped: bool


@dataclass(frozen=True)
class OsimCoupler:
    """CoordinateCouplerConstraint: ``dependent = scale_factor * function(independent...)``."""

    name: str
    dependent: str
    independent: tuple[str, ...]
    function: Function
    scale_factor: float = 1.0


@dataclass(frozen=True)
class OsimMarker:
    """A marker at ``location`` (m) on ``body``."""

    name: str
    body: str
    location: Vec3
    fixed: bool = False


@dataclass(frozen=True)
class PathPoint:
    """A point of a muscle's path on ``body``.

    ``kind``: ``fixed`` (at ``location``), ``conditional`` (at ``location`` only while
    ``coordinate`` lies in ``range``, ends included), ``moving`` (its x, y, z are
    ``functions[i]`` of ``moving_coordinates[i]``; ``location`` unused).
    """

    name: str
    body: str
    location: Vec3
    kind: str = "fixed"
    coordinate: str = ""
    range: tuple[float, float] = (0.0, 0.0)
    moving_coordinates: tuple[str, str, str] = ("", "", "")
    functions: tuple[Function, ...] = ()


@dataclass(frozen=True)
class WrapObject:
    """A wrap surface fixed on ``body``: its frame at ``translation`` with body-fixed X-Y-Z angles
    ``rotation``; ``kind`` ``cylinder`` (``radius``, ``length`` along its z), ``sphere`` (``radius``),
    ``ellipsoid`` (``dimensions``: semi-axes), ``torus`` (``inner_radius``: tube, ``outer_radius``:
    centre circle); ``quadrant`` ``all``, ``+x``, ``-x``, ``+y``, ... as OpenSim's."""

    name: str
    body: str
    kind: str
    translation: Vec3
    rotation: Vec3
    quadrant: str = "all"
    radius: float = 0.0
    length: float = 0.0
    dimensions: Vec3 = (0.0, 0.0, 0.0)
    inner_radius: float = 0.0
    outer_radius: float = 0.0
    active: bool = True


@dataclass(frozen=True)
class PathWrap:
    """The path wraps over ``wrap_object`` between its points ``range`` (1-based, ``(-1, -1)``:
    the whole path); ``method`` (``hybrid``, ``midpoint``, ``axial``) is the ellipsoid's algorithm."""

    wrap_object: str
    method: str = "hybrid"
    range: tuple[int, int] = (-1, -1)


@dataclass(frozen=True)
class Muscle:
    """A muscle (or any path actuator) with its parameters (N, m, rad, optimal fibre lengths / s) and path."""

    name: str
    kind: str
    points: tuple[PathPoint, ...]
    wraps: tuple[PathWrap, ...] = ()
    max_isometric_force: float = float("nan")
    optimal_fiber_length: float = float("nan")
    tendon_slack_length: float = float("nan")
    pennation_angle_at_optimal: float = 0.0
    max_contraction_velocity: float = 10.0
    applies_force: bool = True


@dataclass(frozen=True)
class OsimModel:
    """A whole OpenSim model, as read (:func:`humanbody.osim.read_osim`).

    ``joints`` are in the file's order; ``notes`` name what the file holds that is not
    supported (one line per kind).  ``version`` is the document's ``Version`` (30000, 40000, ...).
    """

    name: str
    path: str
    version: int
    gravity: Vec3
    bodies: tuple[Body, ...]
    joints: tuple[OsimJoint, ...]
    coordinates: tuple[Coordinate, ...]
    couplers: tuple[OsimCoupler, ...]
    markers: tuple[OsimMarker, ...]
    muscles: tuple[Muscle, ...]
    wrap_objects: tuple[WrapObject, ...]
    notes: tuple[str, ...] = field(default=())

    @property
    def coordinate_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.coordinates)

    @property
    def body_names(self) -> tuple[str, ...]:
        return tuple(b.name for b in self.bodies)

    @property
    def muscle_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.muscles)

    def coordinate(self, name: str) -> Coordinate:
        """The coordinate called ``name`` (KeyError if none).

        Parameters
        ----------
        name : str
            The coordinate's name.

        Returns
        -------
        Coordinate
            The coordinate.

        Raises
        ------
        KeyError
            No coordinate has that name.
        """
        for c in self.coordinates:
            if c.name == name:
                return c
        raise KeyError(name)

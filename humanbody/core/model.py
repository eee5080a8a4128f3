"""The core model: a frozen tree of bodies and joints, built by :class:`ModelBuilder`.

One parent convention for every kernel: bodies are numbered ``0 .. B-1`` so
that ``parents[b] < b``, and ``parents[b] = -1`` means the ground.
Coordinates are numbered ``0 .. nq-1``, body by body in body order: body b's
joint owns ``q[q_start[b] : q_start[b + 1]]``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .functions import Function, FunctionTable
from .joints import Joint

__all__ = ["Model", "ModelBuilder", "Marker", "Coupler", "CompiledTree"]


@dataclass(frozen=True)
class Marker:
    """A point fixed on a body: ``name``, ``body`` (index), ``offset`` (3,) m in the body frame."""

    name: str
    body: int
    offset: tuple


@dataclass(frozen=True)
class Coupler:
    """``q[dependent] = function(q[independent])`` (OpenSim's CoordinateCouplerConstraint), coordinate indices."""

    dependent: int
    function: Function
    independent: int


@dataclass(frozen=True, eq=False)
class CompiledTree:
    """The model as the kernels read it (:mod:`humanbody._kernels.joint_tree`).

    Attributes
    ----------
    astart : ndarray of int64, shape (B + 1,)
        Body b's axes are ``astart[b] .. astart[b+1]-1``.
    akind : ndarray of int64, shape (A,)
        0 rotation, 1 translation.
    aaxis : ndarray, shape (A, 3)
        Unit vectors in the frame the previous axes produced.
    afun : ndarray of int64, shape (A,)
        Function index in ``functions`` (-1: identity).
    acoord : ndarray of int64, shape (A,)
        Model coordinate index (-1: none, a constant axis).
    pR, pp : ndarray, shapes (B, 3, 3) and (B, 3)
        The joint frame in the parent body (rotation; offset, m).
    cR, cp : ndarray, shapes (B, 3, 3) and (B, 3)
        The body frame in the joint's child frame (the inverse of the child placement; m).
    cdep, cfun, cind : ndarray of int64, shape (C,)
        The couplers: dependent coordinate, function index, independent coordinate.
    functions : FunctionTable
        Every function of the axes and couplers, packed for the kernels.
    """

    astart: np.ndarray
    akind: np.ndarray
    aaxis: np.ndarray
    afun: np.ndarray
    acoord: np.ndarray
    pR: np.ndarray
    pp: np.ndarray
    cR: np.ndarray
    cp: np.ndarray
    cdep: np.ndarray
    cfun: np.ndarray
    cind: np.ndarray
    functions: FunctionTable


def _frozen(a, shape, what, dtype=float) -> np.ndarray:
    arr = np.array(a, dtype=dtype, copy=True)
    if arr.shape != shape:
        raise InputError(f"{what} must have shape {shape}, got {arr.shape}")
    if dtype is float and not np.all(np.isfinite(arr)):
        raise InputError(f"{what} contains a non-finite value")
    arr.setflags(write=False)
    return arr


@dataclass(frozen=True, eq=False)
class Model:
    """A tree of rigid bodies joined by joints of any :mod:`~humanbody.core.joints` type (frozen).

    Attributes
    ----------
    names : tuple of str, length B
        Body names.
    parents : ndarray of int64, shape (B,)
        ``parents[b] < b``; -1 = ground.
    joints : tuple of Joint, length B
        The joint between body b and its parent.
    joint_rotation, joint_offset : ndarray, shapes (B, 3, 3) and (B, 3)
        The joint's frame in the parent body's frame (its parent placement, offset in m; ground
        axes for the ground).
    child_rotation, child_offset : ndarray, shapes (B, 3, 3) and (B, 3)
        The joint's frame in the child body's frame (offset in m; identity and zero: the body
        frame is the joint frame).
    mass : ndarray, shape (B,)
        Body masses (kg).
    com : ndarray, shape (B, 3)
        Mass centres (m, body frames).
    inertia : ndarray, shape (B, 3, 3)
        Inertias about the mass centres, body axes (kg m^2).
    gravity : ndarray, shape (3,)
        Gravitational acceleration, ground axes (m/s^2).
    coordinate_names : tuple of str, length nq
        The coordinates' names, in order.
    q_start : ndarray of int64, shape (B + 1,)
        Body b's joint owns ``q[q_start[b]:q_start[b+1]]``.
    markers : tuple of Marker
        Points fixed on the bodies.
    couplers : tuple of Coupler
        Applied in order before the kinematics.
    name : str
        The model's name.
    compiled : CompiledTree
        The arrays the kernels read (derived).
    """

    names: tuple
    parents: np.ndarray
    joints: tuple
    joint_rotation: np.ndarray
    joint_offset: np.ndarray
    child_rotation: np.ndarray
    child_offset: np.ndarray
    mass: np.ndarray
    com: np.ndarray
    inertia: np.ndarray
    gravity: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, -9.81]))
    coordinate_names: tuple = ()
    markers: tuple = ()
    couplers: tuple = ()
    name: str = "model"
    q_start: np.ndarray = field(init=False, repr=False)
    compiled: CompiledTree = field(init=False, repr=False)

    def __post_init__(self):
        B = len(self.names)
        if B == 0 or len(set(self.names)) != B:
            raise InputError("a model needs at least one body, with unique names")
        set_ = lambda k, v: object.__setattr__(self, k, v)  # noqa: E731
        set_("names", tuple(str(n) for n in self.names))
        par = _frozen(self.parents, (B,), "parents", np.int64)
        if any(not -1 <= par[b] < b for b in range(B)):
            raise InputError("parents[b] must be -1 (ground) or a body numbered before b")
        set_("parents", par)
        joints = tuple(self.joints)
        if len(joints) != B or not all(isinstance(j, Joint) for j in joints):
            raise InputError("a model needs one Joint per body")
        set_("joints", joints)
        for key, shape in (("joint_rotation", (B, 3, 3)), ("joint_offset", (B, 3)), ("child_rotation", (B, 3, 3)),
                           ("child_offset", (B, 3)), ("mass", (B,)), ("com", (B, 3)), ("inertia", (B, 3, 3)),
                           ("gravity", (3,))):
            set_(key, _frozen(getattr(self, key), shape, key))
        start = np.concatenate([[0], np.cumsum([j.nq for j in joints])]).astype(np.int64)
        start.setflags(write=False)
        set_("q_start", start)
        nq = int(start[-1])
        names = tuple(self.coordinate_names) or tuple(f"q{i}" for i in range(nq))
        if len(names) != nq or len(set(names)) != nq:
            raise InputError(f"the model has {nq} coordinates; got {len(names)} names (unique)")
        set_("coordinate_names", tuple(str(n) for n in names))
        set_("markers", tuple(self.markers))
        set_("couplers", tuple(self.couplers))
        for m in self.markers:
            if not 0 <= m.body < B:
                raise InputError(f"marker {m.name!r} is on body {m.body}, the model has {B}")
        for c in self.couplers:
            if not (0 <= c.dependent < nq and 0 <= c.independent < nq) or c.dependent == c.independent:
                raise InputError(f"a coupler needs two different coordinates of the {nq}")
        set_("compiled", _compile(self))

    @property
    def nbodies(self) -> int:
        """Number of bodies B."""
        return len(self.names)

    @property
    def nq(self) -> int:
        """Number of coordinates (also the number of generalized speeds: their time derivatives)."""
        return int(self.q_start[-1])

    @property
    def marker_names(self) -> tuple:
        return tuple(m.name for m in self.markers)

    def body(self, name: str) -> int:
        """Index of the body ``name``.

        Parameters
        ----------
        name : str
            A body name of :attr:`names`.

        Returns
        -------
        int
            Its index, 0-based.

        Raises
        ------
        InputError
            When the model has no such body.
        """
        try:
            return self.names.index(name)
        except ValueError:
            raise InputError(f"the model has no body {name!r}") from None

    def coordinate(self, name: str) -> int:
        """Index of the coordinate ``name``.

        Parameters
        ----------
        name : str
            A coordinate name of :attr:`coordinate_names`.

        Returns
        -------
        int
            Its index in ``q``, 0-based.

        Raises
        ------
        InputError
            When the model has no such coordinate.
        """
        try:
            return self.coordinate_names.index(name)
        except ValueError:
            raise InputError(f"the model has no coordinate {name!r}") from None

    def replace(self, **changes) -> Model:
        """A copy with some fields changed (``dataclasses.replace``; the model is frozen).

        Parameters
        ----------
        **changes
            Fields and their new values (the compiled tree is rebuilt).

        Returns
        -------
        Model
            A new frozen model with the changes; ``self`` is unchanged.
        """
        return dataclasses.replace(self, **changes)


def _compile(model: Model) -> CompiledTree:
    """The axis arrays and function table of ``model`` (:class:`CompiledTree`)."""
    functions: list[Function] = []
    index: dict[int, int] = {}

    def fid(fn: Function | None) -> int:
        if fn is None:
            return -1
        if id(fn) not in index:
            index[id(fn)] = len(functions)
            functions.append(fn)
        return index[id(fn)]

    kind, axis, fun, coord, astart = [], [], [], [], [0]
    for b, joint in enumerate(model.joints):
        for ax in joint.axes():
            kind.append(ax.kind)
            axis.append(ax.vector)
            fun.append(fid(ax.function))
            coord.append(-1 if ax.coordinate is None else int(model.q_start[b]) + ax.coordinate)
        astart.append(len(kind))
    cfun = [fid(c.function) for c in model.couplers]
    ints = lambda v: np.array(v, dtype=np.int64).reshape(-1)  # noqa: E731
    cR = np.ascontiguousarray(np.swapaxes(model.child_rotation, 1, 2))
    cp = -np.einsum("bij,bj->bi", cR, model.child_offset)
    return CompiledTree(
        ints(astart), ints(kind), np.array(axis, dtype=float).reshape(-1, 3), ints(fun), ints(coord),
        np.ascontiguousarray(model.joint_rotation), np.ascontiguousarray(model.joint_offset), cR,
        np.ascontiguousarray(cp), ints([c.dependent for c in model.couplers]), ints(cfun),
        ints([c.independent for c in model.couplers]), FunctionTable.of(functions))


def _rotation(value: ArrayLike | None, what: str) -> np.ndarray:
    if value is None:
        return np.eye(3)
    R = np.asarray(value, dtype=float)
    if R.shape != (3, 3) or not np.allclose(R @ R.T, np.eye(3), atol=1e-9) or np.linalg.det(R) < 0:
        raise InputError(f"{what} must be a 3x3 rotation matrix")
    return R


class ModelBuilder:
    """Builds a :class:`Model` body by body (each body after its parent), then :meth:`build`.

    Examples
    --------
    >>> from humanbody.core import ModelBuilder, joints
    >>> b = ModelBuilder("arm")
    >>> b.add_body("upper", joints.Revolute("y"), mass=2.0, com=(0, 0, -0.15), inertia=[0.02, 0.02, 0.002])
    0
    >>> b.add_body("fore", joints.Revolute("y"), parent="upper", offset=(0, 0, -0.3), mass=1.0)
    1
    >>> b.build().nq
    2
    """

    def __init__(self, name: str = "model", gravity: ArrayLike = (0.0, 0.0, -9.81)):
        self.name = name
        self.gravity = np.asarray(gravity, dtype=float)
        self._bodies: list[dict] = []
        self._coordinates: list[str] = []
        self._markers: list[Marker] = []
        self._couplers: list[tuple] = []

    def add_body(self, name: str, joint: Joint, *, parent: str | None = None, offset: ArrayLike = (0, 0, 0),
                 rotation: ArrayLike | None = None, child_offset: ArrayLike = (0, 0, 0),
                 child_rotation: ArrayLike | None = None, mass: float = 0.0, com: ArrayLike = (0, 0, 0),
                 inertia: ArrayLike = (0, 0, 0), coordinates: Sequence[str] | None = None) -> int:
        """Add body ``name`` hinged to ``parent`` (None: the ground) by ``joint``.

        Parameters
        ----------
        name : str
            The body's name (unique in the model).
        joint : Joint
            Its joint to the parent (:mod:`humanbody.core.joints`).
        parent : str, optional
            A body added before (None: the ground).
        offset, rotation : (3,) m; (3, 3), default identity
            The joint frame in the parent body's frame.
        child_offset, child_rotation : (3,) m; (3, 3), default identity
            The joint frame in this body's frame (default: the body frame).
        mass : float
            kg.
        com : (3,)
            m, body frame.
        inertia : (3,), (6,) or (3, 3)
            Principal moments, ``Ixx Iyy Izz Ixy Ixz Iyz`` (OpenSim's order) or the
            matrix; kg m^2 about the com, body axes.
        coordinates : sequence of str, optional
            Names of the joint's ``joint.nq`` coordinates (default ``name_0``, ...).

        Returns
        -------
        int
            The body's index.
        """
        names = [b["name"] for b in self._bodies]
        if name in names:
            raise InputError(f"body {name!r} is already in the model")
        if parent is not None and parent not in names:
            raise InputError(f"body {name!r}: its parent {parent!r} must be added before it")
        coords = list(coordinates) if coordinates is not None else [f"{name}_{i}" for i in range(joint.nq)]
        if len(coords) != joint.nq:
            raise InputError(f"body {name!r}: its joint has {joint.nq} coordinates, {len(coords)} names given")
        self._bodies.append(dict(
            name=name, joint=joint, parent=-1 if parent is None else names.index(parent),
            offset=np.asarray(offset, dtype=float), rotation=_rotation(rotation, f"body {name!r}'s rotation"),
            child_offset=np.asarray(child_offset, dtype=float),
            child_rotation=_rotation(child_rotation, f"body {name!r}'s child rotation"),
            mass=float(mass), com=np.asarray(com, dtype=float), inertia=_inertia(inertia, name)))
        self._coordinates += coords
        return len(self._bodies) - 1

    def add_marker(self, name: str, body: str, offset: ArrayLike) -> None:
        """A marker ``name`` fixed on ``body``.

        Parameters
        ----------
        name : str
            The marker's name.
        body : str
            A body added before.
        offset : (3,) array_like
            m, body frame.
        """
        self._markers.append(Marker(name, self._index(body), tuple(float(v) for v in np.ravel(offset))))

    def add_coupler(self, dependent: str, function: Function, independent: str) -> None:
        """Couple two coordinates: ``dependent = function(independent)`` (by name).

        Parameters
        ----------
        dependent, independent : str
            Coordinate names (checked by :meth:`build`).
        function : Function
            :mod:`humanbody.core.functions`.
        """
        self._couplers.append((dependent, function, independent))

    def _index(self, body: str) -> int:
        names = [b["name"] for b in self._bodies]
        if body not in names:
            raise InputError(f"no body {body!r} in the model")
        return names.index(body)

    def build(self) -> Model:
        """The frozen model.

        Returns
        -------
        Model
            The frozen model of the bodies, joints and markers added so far.

        Raises
        ------
        InputError
            Without bodies, or with a coupler naming a coordinate the model lacks.
        """
        if not self._bodies:
            raise InputError("a model needs at least one body")
        col = lambda key: np.array([b[key] for b in self._bodies])  # noqa: E731
        coords = tuple(self._coordinates)
        idx = {c: i for i, c in enumerate(coords)}
        for d, _, i in self._couplers:
            if d not in idx or i not in idx:
                raise InputError(f"a coupler names a coordinate the model lacks: {d!r} or {i!r}")
        couplers = tuple(Coupler(idx[d], f, idx[i]) for d, f, i in self._couplers)
        return Model(col("name").tolist(), col("parent"), tuple(b["joint"] for b in self._bodies),
                     col("rotation"), col("offset"), col("child_rotation"), col("child_offset"),
                     col("mass"), col("com"), col("inertia"), self.gravity, coords, tuple(self._markers),
                     couplers, self.name)


def _inertia(value: ArrayLike, name: str) -> np.ndarray:
    a = np.asarray(value, dtype=float)
    if a.shape == (3,):
        return np.diag(a)
    if a.shape == (6,):
        xx, yy, zz, xy, xz, yz = a
        return np.array([[xx, xy, xz], [xy, yy, yz], [xz, yz, zz]])
    if a.shape == (3, 3):
        return a
    raise InputError(f"body {name!r}: inertia must be (3,), (6,) or (3, 3), got shape {a.shape}")

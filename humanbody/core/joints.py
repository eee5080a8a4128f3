"""Joint types: each a run of axes that move the child's joint frame in the parent's.

Every joint is, for the kernels, a sequence of *axes* applied in order, each
acting in the frame the previous ones produced (body-fixed, successive):

- a rotation about a unit vector ``u`` by the angle ``v = f(q_c)`` (rad),
- a translation along a unit vector ``u`` by the distance ``v = f(q_c)`` (m),

with ``f`` the identity unless a :mod:`~humanbody.core.functions` function is
given.  The joint's transform is the product of the axes' transforms; its
motion subspace (the Jacobian column of coordinate ``c``) is the sum over the
axes driven by ``c`` of ``f'(q_c)`` times the axis' unit twist (rotation:
``(u, u x (x - o_axis))``; translation: ``(0, u)``).

====================  ===  ==========================================================
type                  nq   axes
====================  ===  ==========================================================
``Free(sequence)``    6    translations along parent x, y, z (q0-q2, m), then the
                           three rotations of ``sequence`` (q3-q5, rad): the root
``Cardan(sequence)``  3    the three rotations of ``sequence`` ("xyz": Bryant
                           angles, Huston eq. 8.74; "zxy": flexion, adduction, rotation)
``Ball()``            3    ``Cardan("xyz")``
``Revolute(axis)``    1    rotation about ``axis``
``Prismatic(axis)``   1    translation along ``axis``
``Universal(a1, a2)`` 2    rotation about a1, then about a2 of the rotated frame
``Weld()``            0    none
``Custom(...)``       n    OpenSim's CustomJoint: up to three translations along
                           parent-frame axes, then up to three rotations about
                           body-fixed axes in order (``R = R_1 R_2 R_3``), each a
                           :class:`TransformAxis`: a function of one of the joint's
                           coordinates (or a constant)
====================  ===  ==========================================================

The order of a :class:`Custom` joint's transform (translations in the parent
frame, then rotations axis 1, 2, 3 each about the frame the previous ones
rotated) is OpenSim 4's SpatialTransform, checked against OpenSim itself in
tests/core/test_core_opensim.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

from ..errors import InputError
from .functions import Function

__all__ = ["Axis", "TransformAxis", "Joint", "Free", "Cardan", "Ball", "Revolute", "Prismatic", "Universal",
           "Weld", "Custom", "ROTATION", "TRANSLATION"]

ROTATION, TRANSLATION = 0, 1

_UNIT = {"x": (1.0, 0.0, 0.0), "y": (0.0, 1.0, 0.0), "z": (0.0, 0.0, 1.0)}


def _unit(axis: ArrayLike | str, what: str) -> tuple[float, float, float]:
    if isinstance(axis, str):
        if axis not in _UNIT:
            raise InputError(f"{what}: axis must be 'x', 'y', 'z' or a vector, got {axis!r}")
        return _UNIT[axis]
    a = np.asarray(axis, dtype=float).ravel()
    n = float(np.linalg.norm(a)) if a.size == 3 else 0.0
    if a.size != 3 or not np.isfinite(n) or n == 0.0:
        raise InputError(f"{what}: an axis needs three finite components, not all zero; got {axis!r}")
    if abs(n - 1.0) > 1e-12:
        a = a / n
    return float(a[0]), float(a[1]), float(a[2])


def _sequence(sequence: str) -> str:
    s = str(sequence).lower()
    if len(s) != 3 or set(s) - set("xyz") or s[1] in (s[0], s[2]):
        raise InputError(f"a rotation sequence is three of x, y, z with no axis twice in a row, got {sequence!r}")
    return s


@dataclass(frozen=True)
class Axis:
    """One axis as the kernels read it: ``kind`` (ROTATION or TRANSLATION), unit ``vector``,
    ``function`` (None: the coordinate itself) and ``coordinate`` (index in the joint; None: constant)."""

    kind: int
    vector: tuple
    function: Function | None = None
    coordinate: int | None = None


@dataclass(frozen=True)
class TransformAxis:
    """An axis of a :class:`Custom` joint (OpenSim's TransformAxis).

    Parameters
    ----------
    axis : 'x', 'y', 'z' or (3,)  unit vector (normalised here)
    function : Function or None  what the coordinate drives (None: the identity)
    coordinate : int or None  index of the coordinate among the joint's; None
        with a constant ``function`` for an axis no coordinate drives
    """

    axis: tuple
    function: Function | None = None
    coordinate: int | None = None

    def __post_init__(self):
        object.__setattr__(self, "axis", _unit(self.axis, "a transform axis"))
        if self.coordinate is None and self.function is None:
            raise InputError("a transform axis without a coordinate needs a (constant) function")


class Joint:
    """A joint type: ``nq`` coordinates and the :class:`Axis` run that moves the child (:meth:`axes`)."""

    nq: int = 0

    def axes(self) -> tuple[Axis, ...]:  # pragma: no cover - every type overrides
        """The joint's axes in the order they act (every type overrides this; the overrides share this description).

        Returns
        -------
        tuple of Axis
            Rotations and translations, each with its unit vector, function and coordinate.
        """
        raise NotImplementedError


def _rotations(sequence: str, first: int) -> tuple[Axis, ...]:
    return tuple(Axis(ROTATION, _UNIT[a], None, first + i) for i, a in enumerate(sequence))


@dataclass(frozen=True)
class Free(Joint):
    """Six coordinates: the child's origin in the parent frame (m), then ``sequence``'s three angles (rad)."""

    sequence: str = "xyz"
    nq: int = field(default=6, init=False)

    def __post_init__(self):
        object.__setattr__(self, "sequence", _sequence(self.sequence))

    def axes(self):
        move = tuple(Axis(TRANSLATION, _UNIT[a], None, i) for i, a in enumerate("xyz"))
        return move + _rotations(self.sequence, 3)


@dataclass(frozen=True)
class Cardan(Joint):
    """Three angles (rad) about the body-fixed axes of ``sequence`` in order: ``R = R_a1 R_a2 R_a3``."""

    sequence: str = "xyz"
    nq: int = field(default=3, init=False)

    def __post_init__(self):
        object.__setattr__(self, "sequence", _sequence(self.sequence))

    def axes(self):
        return _rotations(self.sequence, 0)


@dataclass(frozen=True)
class Ball(Joint):
    """Three angles (rad), body-fixed x, y, z (the same as ``Cardan("xyz")``)."""

    nq: int = field(default=3, init=False)

    def axes(self):
        return _rotations("xyz", 0)


@dataclass(frozen=True)
class Revolute(Joint):
    """One angle (rad) about ``axis`` (a unit vector of the joint frame, or 'x', 'y', 'z')."""

    axis: tuple = (0.0, 0.0, 1.0)
    nq: int = field(default=1, init=False)

    def __post_init__(self):
        object.__setattr__(self, "axis", _unit(self.axis, "a revolute joint"))

    def axes(self):
        return (Axis(ROTATION, self.axis, None, 0),)


@dataclass(frozen=True)
class Prismatic(Joint):
    """One distance (m) along ``axis``."""

    axis: tuple = (1.0, 0.0, 0.0)
    nq: int = field(default=1, init=False)

    def __post_init__(self):
        object.__setattr__(self, "axis", _unit(self.axis, "a prismatic joint"))

    def axes(self):
        return (Axis(TRANSLATION, self.axis, None, 0),)


@dataclass(frozen=True)
class Universal(Joint):
    """Two angles (rad): about ``axis1``, then about ``axis2`` of the frame the first rotated."""

    axis1: tuple = (1.0, 0.0, 0.0)
    axis2: tuple = (0.0, 1.0, 0.0)
    nq: int = field(default=2, init=False)

    def __post_init__(self):
        object.__setattr__(self, "axis1", _unit(self.axis1, "a universal joint"))
        object.__setattr__(self, "axis2", _unit(self.axis2, "a universal joint"))

    def axes(self):
        return (Axis(ROTATION, self.axis1, None, 0), Axis(ROTATION, self.axis2, None, 1))


@dataclass(frozen=True)
class Weld(Joint):
    """No coordinate: the child is fixed in the parent."""

    nq: int = field(default=0, init=False)

    def axes(self):
        return ()


@dataclass(frozen=True)
class Custom(Joint):
    """OpenSim's CustomJoint: ``nq`` coordinates, translations (parent frame) then body-fixed rotations.

    Parameters
    ----------
    nq : int  number of the joint's coordinates
    rotations : up to three :class:`TransformAxis`, applied in order, each about
        the frame the previous ones rotated
    translations : up to three :class:`TransformAxis`, along parent-frame axes,
        applied before the rotations
    """

    nq: int = 0
    rotations: tuple = ()
    translations: tuple = ()

    def __post_init__(self):
        rot, tra = tuple(self.rotations), tuple(self.translations)
        if len(rot) > 3 or len(tra) > 3:
            raise InputError("a custom joint has at most three rotations and three translations")
        for t in rot + tra:
            if not isinstance(t, TransformAxis):
                raise InputError(f"a custom joint's axes are TransformAxis values, got {t!r}")
            if t.coordinate is not None and not 0 <= t.coordinate < self.nq:
                raise InputError(f"a transform axis names coordinate {t.coordinate} of a joint with {self.nq}")
        object.__setattr__(self, "rotations", rot)
        object.__setattr__(self, "translations", tra)

    def axes(self):
        move = tuple(Axis(TRANSLATION, t.axis, t.function, t.coordinate) for t in self.translations)
        return move + tuple(Axis(ROTATION, t.axis, t.function, t.coordinate) for t in self.rotations)


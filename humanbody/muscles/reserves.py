"""Reserve and residual actuators: an OpenSim actuators file (a ForceSet of CoordinateActuators,
PointActuators and TorqueActuators).

A CoordinateActuator ``k`` adds ``u_k F_k`` to the generalised force of its
coordinate (``F_k`` its ``optimal_force``, N·m on a rotation, N on a
translation), with ``u_k`` a control in ``[min_control, max_control]``
(unbounded by default).  A PointActuator applies the force ``u_k F_k d`` at a
point of a body (``point`` in the body, or in ground with ``point_is_global``;
unit direction ``d`` in ground, or in the body unless ``force_is_global``); a
TorqueActuator the torque ``u_k F_k n`` on ``bodyA`` and its opposite on
``bodyB`` (unit axis ``n`` in ground, or in ``bodyA`` unless
``torque_is_global``).  Their generalised forces ``J^T (f, m)`` depend on the
pose: :func:`body_actuator_directions` gives them frame by frame.  Static optimization weighs its control like a
muscle's activation, so a small optimal force makes a reserve expensive: the
optimum leans on it only where the muscles cannot carry the moment.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

SUPPORTED = ("CoordinateActuator", "PointActuator", "TorqueActuator")
OTHER_ACTUATORS = ("ActivationCoordinateActuator", "BodyActuator")


@dataclass(frozen=True)
class BodyActuator:
    """A PointActuator (``kind`` "point": ``body``, ``point`` (m), ``direction``) or TorqueActuator
    ("torque": ``body`` A, ``other`` B, ``direction`` the axis); ``point_global``/``direction_global``:
    given in ground rather than in the body. Directions are unit vectors."""

    kind: str
    body: str
    other: str
    point: tuple[float, float, float]
    direction: tuple[float, float, float]
    point_global: bool
    direction_global: bool


@dataclass(frozen=True)
class Reserves:
    """Reserve actuators: names, coordinate indices (-1 for a point or torque actuator), optimal forces,
    control bounds (each (K,)); ``bodies`` the point and torque actuators' :class:`BodyActuator` (None for a
    coordinate actuator); ``directions`` (F, K, C) their generalised force per unit force, frame by frame,
    once :func:`body_actuator_directions` has filled them in (None while there is none or not yet)."""

    names: tuple[str, ...] = ()
    coordinates: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    optimal_force: np.ndarray = field(default_factory=lambda: np.zeros(0))
    min_control: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_control: np.ndarray = field(default_factory=lambda: np.zeros(0))
    bodies: tuple = ()
    directions: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.names)


def _number(node: ET.Element, tag: str, default: float, path) -> float:
    child = node.find(tag)
    if child is None or child.text is None or not child.text.strip():
        return default
    text = child.text.strip().lower()
    text = {"inf": "inf", "infinity": "inf", "-inf": "-inf", "-infinity": "-inf"}.get(text, text)
    try:
        return float(text)
    except ValueError:
        raise InputError(f"{node.get('name')!r}: <{tag}> is not a number ({child.text.strip()!r})", path) from None


def _vector(node: ET.Element, tag: str, path) -> tuple[float, float, float]:
    text = (node.findtext(tag) or "").split()
    try:
        values = tuple(float(v) for v in text)
    except ValueError:
        values = ()
    if len(values) != 3:
        raise InputError(f"{node.get('name')!r}: <{tag}> is not three numbers ({' '.join(text)!r})", path)
    return values


def _flag(node: ET.Element, tag: str, default: bool) -> bool:
    text = (node.findtext(tag) or "").strip().lower()
    return default if not text else text == "true"


def _body_actuator(node: ET.Element, bodies: Sequence[str] | None, path) -> BodyActuator:
    """A PointActuator's or TorqueActuator's geometry, its bodies checked against the model's."""
    name = node.get("name", "")
    point = node.tag == "PointActuator"
    tags = ("body",) if point else ("bodyA", "bodyB")
    names = [(node.findtext(t) or "").strip() for t in tags]
    for tag, body in zip(tags, names, strict=True):
        if bodies is not None and body not in bodies:
            raise InputError(f"actuator {name!r} names {tag} {body!r}, which the model lacks", path)
    direction = np.array(_vector(node, "direction" if point else "axis", path))
    if not np.linalg.norm(direction) > 0:
        raise InputError(f"actuator {name!r}: its {'direction' if point else 'axis'} is zero", path)
    unit = tuple(float(v) for v in direction / np.linalg.norm(direction))
    if point:
        return BodyActuator("point", names[0], "", _vector(node, "point", path), unit,  # type: ignore[arg-type]
                            _flag(node, "point_is_global", False), _flag(node, "force_is_global", False))
    return BodyActuator("torque", names[0], names[1], (0.0, 0.0, 0.0), unit, False,  # type: ignore[arg-type]
                        _flag(node, "torque_is_global", True))


def read_reserves(path: str | os.PathLike, coordinates: Sequence[str], bodies: Sequence[str] | None = None) -> Reserves:
    """Read the reserve actuators of an OpenSim actuators file, in file order.

    Parameters
    ----------
    path : str | os.PathLike
        The XML file (``<OpenSimDocument><ForceSet><objects>...``).
    coordinates : Sequence[str]
        The model's coordinate names; the result's ``coordinates`` index them.
    bodies : Sequence[str], optional
        The model's body names (ground included), to check the point and torque actuators' bodies.

    Returns
    -------
    Reserves
        Names, coordinate indices (-1 for a point or torque actuator), optimal forces (N·m or N) and control bounds.

    Raises
    ------
    InputError
        Not XML, an actuator naming a coordinate or body the model lacks, or an actuator
        kind not supported (named, in one line).
    """
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise InputError(f"is not a readable OpenSim actuators file ({exc})", path) from None
    index = {c: i for i, c in enumerate(coordinates)}
    others = sorted({node.tag for tag in OTHER_ACTUATORS for node in root.iter(tag)})
    if others:
        raise InputError(f"holds {', '.join(others)}: reserves are {', '.join(SUPPORTED)}", path)
    names, coords, force, lo, hi = [], [], [], [], []
    geometry: list[BodyActuator | None] = []
    for node in root.iter():
        name = node.get("name", "")
        if node.tag not in SUPPORTED or name == "default":
            continue
        if node.tag == "CoordinateActuator":
            coordinate = (node.findtext("coordinate") or "").strip()
            if coordinate not in index:
                raise InputError(f"actuator {name!r} names coordinate {coordinate!r}, which the model lacks", path)
            coords.append(index[coordinate])
            geometry.append(None)
        else:
            coords.append(-1)
            geometry.append(_body_actuator(node, bodies, path))
        names.append(name)
        force.append(_number(node, "optimal_force", 1.0, path))
        lo.append(_number(node, "min_control", -np.inf, path))
        hi.append(_number(node, "max_control", np.inf, path))
    if not names:
        raise InputError(f"holds no actuator ({', '.join(SUPPORTED)})", path)
    return Reserves(tuple(names), np.array(coords, dtype=int), np.array(force), np.array(lo), np.array(hi),
                    tuple(geometry) if any(g is not None for g in geometry) else ())


def weak_reserves(coordinates: Sequence[str], optimal_force: float = 1.0) -> Reserves:
    """One unbounded CoordinateActuator per coordinate (``<coordinate>_reserve``), optimal force
    ``optimal_force`` (N·m, N on a translation): the Joint Reaction tutorial's weak reserves, the
    file :func:`write_reserves` writes, in memory.

    Parameters
    ----------
    coordinates : sequence of str
        The model's coordinate names.
    optimal_force : float, default 1.0
        Each reserve's optimal force (N·m, N on a translation).

    Returns
    -------
    Reserves
        One reserve per coordinate, in ``coordinates`` order, controls unbounded.
    """
    n = len(coordinates)
    return Reserves(tuple(f"{c}_reserve" for c in coordinates), np.arange(n), np.full(n, float(optimal_force)),
                    np.full(n, -np.inf), np.full(n, np.inf))


def write_reserves(path: str | os.PathLike, coordinates: Sequence[str], optimal_force: float = 1.0,
                   residual: Sequence[str] = ()) -> str:
    """Write an OpenSim actuators file: one unbounded CoordinateActuator per coordinate.

    Named ``<coordinate>_reserve``, or ``<coordinate>_residual`` for the coordinates in
    ``residual`` (a gait model's six pelvis coordinates). ``optimal_force`` N·m (N on a
    translation); a small one (1, the Joint Reaction tutorial's) makes the reserves a last resort.
    Returns the path written.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    coordinates : sequence of str
        The coordinates, one actuator each.
    optimal_force : float, default 1.0
        Each actuator's optimal force (N·m, N on a translation).
    residual : sequence of str, default ()
        Coordinates whose actuator is named ``<coordinate>_residual``.

    Returns
    -------
    str
        ``path``.
    """
    rows = []
    for c in coordinates:
        kind = "residual" if c in residual else "reserve"
        rows.append(f'      <CoordinateActuator name="{c}_{kind}">\n'
                    f"        <min_control>-Inf</min_control>\n        <max_control>Inf</max_control>\n"
                    f"        <coordinate>{c}</coordinate>\n        <optimal_force>{optimal_force:g}</optimal_force>\n"
                    f"      </CoordinateActuator>")
    body = "\n".join(rows)
    text = (f'<?xml version="1.0" encoding="UTF-8" ?>\n<OpenSimDocument Version="40000">\n'
            f'  <ForceSet name="reserves">\n    <objects>\n{body}\n    </objects>\n    <groups />\n'
            f"  </ForceSet>\n</OpenSimDocument>\n")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return os.fspath(path)

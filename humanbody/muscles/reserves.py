"""Reserve and residual actuators: an OpenSim actuators file (a ForceSet of CoordinateActuators).

A CoordinateActuator ``k`` adds ``u_k F_k`` to the generalised force of its
coordinate (``F_k`` its ``optimal_force``, N·m on a rotation, N on a
translation), with ``u_k`` a control in ``[min_control, max_control]``
(unbounded by default).  Static optimization weighs its control like a
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

SUPPORTED = ("CoordinateActuator",)
OTHER_ACTUATORS = ("PointActuator", "TorqueActuator", "ActivationCoordinateActuator", "BodyActuator")


@dataclass(frozen=True)
class Reserves:
    """Coordinate actuators: names, coordinate indices, optimal forces, control bounds (each (K,))."""

    names: tuple[str, ...] = ()
    coordinates: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=int))
    optimal_force: np.ndarray = field(default_factory=lambda: np.zeros(0))
    min_control: np.ndarray = field(default_factory=lambda: np.zeros(0))
    max_control: np.ndarray = field(default_factory=lambda: np.zeros(0))

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


def read_reserves(path: str | os.PathLike, coordinates: Sequence[str]) -> Reserves:
    """Read the CoordinateActuators of an OpenSim actuators file.

    Parameters
    ----------
    path : the XML file (``<OpenSimDocument><ForceSet><objects>...``).
    coordinates : the model's coordinate names; the result's ``coordinates`` index them.

    Raises
    ------
    InputError
        Not XML, an actuator naming a coordinate the model lacks, or an actuator
        kind other than CoordinateActuator (named, in one line).
    """
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise InputError(f"is not a readable OpenSim actuators file ({exc})", path) from None
    index = {c: i for i, c in enumerate(coordinates)}
    others = sorted({node.tag for tag in OTHER_ACTUATORS for node in root.iter(tag)})
    if others:
        raise InputError(f"holds {', '.join(others)}: only CoordinateActuator reserves are supported", path)
    names, coords, force, lo, hi = [], [], [], [], []
    for node in root.iter("CoordinateActuator"):
        name = node.get("name", "")
        if name == "default":
            continue
        coordinate = (node.findtext("coordinate") or "").strip()
        if coordinate not in index:
            raise InputError(f"actuator {name!r} names coordinate {coordinate!r}, which the model lacks", path)
        names.append(name)
        coords.append(index[coordinate])
        force.append(_number(node, "optimal_force", 1.0, path))
        lo.append(_number(node, "min_control", -np.inf, path))
        hi.append(_number(node, "max_control", np.inf, path))
    if not names:
        raise InputError("holds no CoordinateActuator", path)
    return Reserves(tuple(names), np.array(coords, dtype=int), np.array(force), np.array(lo), np.array(hi))


def weak_reserves(coordinates: Sequence[str], optimal_force: float = 1.0) -> Reserves:
    """One unbounded CoordinateActuator per coordinate (``<coordinate>_reserve``), optimal force
    ``optimal_force`` (N·m, N on a translation): the Joint Reaction tutorial's weak reserves, the
    file :func:`write_reserves` writes, in memory."""
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

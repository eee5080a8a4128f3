"""Muscle force capacity at activation 1 with a rigid tendon: the force static optimization scales by activation.

OpenSim's StaticOptimization with muscle physiology on takes each muscle's
force as ``a F`` with ``F = calcInextensibleTendonActiveFiberForce(1)``: the
tendon at its slack length, the fibre at constant thickness
(``l = sqrt((l0 sin alpha0)^2 + (L - ls)^2)``), the fibre velocity from the
path's lengthening speed (``v = dL cos alpha``), ``F = Fmax fL(l/l0) fV(v) cos alpha``
(:mod:`humanbody._kernels.muscle_capacity`).  Passive fibre force is not part
of it.  Supported: Thelen2003Muscle (gait2392).

The parameters come from the ``.osim`` file's muscle elements, each with
OpenSim's default when the file omits it.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .._kernels.muscle_capacity import thelen_capacity
from ..errors import InputError

KINDS = ("Thelen2003Muscle",)
THELEN_DEFAULTS = {"max_isometric_force": 1000.0, "optimal_fiber_length": 0.1, "tendon_slack_length": 0.2,
                   "pennation_angle_at_optimal": 0.0, "max_contraction_velocity": 10.0, "KshapeActive": 0.45,
                   "Af": 0.25, "Flen": 1.4, "fv_linear_extrap_threshold": 0.95,
                   "maximum_pennation_angle": math.acos(0.1), "minimum_activation": 0.01,
                   "min_control": float("nan"), "max_control": 1.0}


@dataclass(frozen=True)
class MuscleSet:
    """The muscles of a model, in file order: names, kind, and each parameter as an (M,) array."""

    names: tuple[str, ...]
    kinds: tuple[str, ...]
    params: dict[str, np.ndarray]

    @property
    def min_control(self) -> np.ndarray:
        """Lower activation bound: ``min_control``, else the muscle's minimum activation."""
        lo = self.params["min_control"]
        return np.where(np.isnan(lo), self.params["minimum_activation"], lo)

    @property
    def max_control(self) -> np.ndarray:
        return self.params["max_control"]


def _value(node: ET.Element, tag: str, default: float) -> float:
    text = node.findtext(tag)
    if text is None or not text.strip():
        return default
    text = text.strip()
    return float({"Inf": "inf", "-Inf": "-inf", "infinity": "inf", "-infinity": "-inf"}.get(text, text))


def read_muscles(path: str | os.PathLike, names: tuple[str, ...] | None = None) -> MuscleSet:
    """The muscle parameters of an ``.osim`` file (the muscles that apply force, or ``names`` in that order).

    Raises
    ------
    InputError
        A muscle of a kind whose capacity is not implemented (named, one line).
    """
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise InputError(f"is not a readable OpenSim model ({exc})", path) from None
    found: dict[str, tuple[str, ET.Element]] = {}
    for tag in ("Thelen2003Muscle", "Millard2012EquilibriumMuscle", "DeGrooteFregly2016Muscle",
                "Schutte1993Muscle_Deprecated", "Delp1990Muscle_Deprecated", "RigidTendonMuscle"):
        for node in root.iter(tag):
            if node.get("name") != "default" and (node.findtext("appliesForce") or "true").strip() != "false":
                found[node.get("name", "")] = (tag, node)
    order = names if names is not None else tuple(n for n in found)
    unsupported = sorted({found[n][0] for n in order if n in found and found[n][0] not in KINDS})
    if unsupported:
        raise InputError(f"muscles of kind {', '.join(unsupported)}: capacity is implemented for "
                         f"{', '.join(KINDS)} only", path)
    params = {k: np.array([_value(found[n][1], k, d) for n in order]) for k, d in THELEN_DEFAULTS.items()}
    return MuscleSet(tuple(order), tuple(found[n][0] for n in order), params)


def minimum_fibre_length(muscles: MuscleSet) -> np.ndarray:
    """OpenSim's fixed-width pennation model's shortest fibre: ``h / sin(max pennation)`` (m), ``h = l0 sin alpha0``."""
    p = muscles.params
    h = p["optimal_fiber_length"] * np.sin(p["pennation_angle_at_optimal"])
    return np.maximum(h / np.sin(p["maximum_pennation_angle"]), 1e-8 * p["optimal_fiber_length"])


def capacity(muscles: MuscleSet, length: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """Active force (N) along the tendon of each muscle at activation 1, every frame.

    Parameters
    ----------
    muscles : :func:`read_muscles`.
    length, speed : (F, M) muscle-tendon lengths (m) and lengthening speeds (m/s).

    Returns
    -------
    (F, M) ``Fmax fL fV cos(alpha)`` with a rigid tendon.
    """
    p = muscles.params
    L = np.ascontiguousarray(length, dtype=float)
    dL = np.ascontiguousarray(speed, dtype=float)
    return thelen_capacity(L, dL, p["max_isometric_force"], p["optimal_fiber_length"],
                           p["pennation_angle_at_optimal"], p["tendon_slack_length"], p["max_contraction_velocity"],
                           p["KshapeActive"], p["Af"], p["Flen"], p["fv_linear_extrap_threshold"],
                           minimum_fibre_length(muscles))

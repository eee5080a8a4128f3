"""Muscle force capacity at activation 1 with a rigid tendon: the force static optimization scales by activation.

OpenSim's StaticOptimization with muscle physiology on takes each muscle's
force as ``a F`` with ``F = calcInextensibleTendonActiveFiberForce(1)``: the
tendon at its slack length, the fibre at constant thickness
(``l = sqrt((l0 sin alpha0)^2 + (L - ls)^2)``), the fibre velocity from the
path's lengthening speed (``v = dL cos alpha``), ``F = Fmax fL(l/l0) fV(v) cos alpha``
(:mod:`humanbody._kernels.muscle_capacity`).  Passive fibre force is not part
of it.  Supported: Thelen2003Muscle (gait2392: ``fL = exp(-(l/l0 - 1)^2 / KshapeActive)``,
Thelen's force-velocity relation) and Millard2012EquilibriumMuscle (Rajagopal
2016: the active force-length and force-velocity curves of
:mod:`humanbody.muscles.curves`; OpenSim projects its force with the pennation
angle of the normalised fibre length, and so does this) and DeGrooteFregly2016Muscle
(:mod:`humanbody._kernels.degroote_fregly`: three Gaussian-like terms, the
inverse-sinh force-velocity curve; OpenSim returns its fibre force unprojected,
``Fmax fL fV``, and so does this; its ``min_control`` defaults to 0).

The parameters come from the ``.osim`` file's muscle elements, each with
OpenSim's default when the file omits it.
"""

from __future__ import annotations

import math
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from .._kernels.degroote_fregly import degroote_capacity
from .._kernels.muscle_capacity import millard_capacity, thelen_capacity
from ..errors import InputError
from .curves import millard_active_force_length, millard_force_velocity

KINDS = ("Thelen2003Muscle", "Millard2012EquilibriumMuscle", "DeGrooteFregly2016Muscle")
COMMON = {"max_isometric_force": 1000.0, "optimal_fiber_length": 0.1, "tendon_slack_length": 0.2,
          "pennation_angle_at_optimal": 0.0, "max_contraction_velocity": 10.0,
          "maximum_pennation_angle": math.acos(0.1), "minimum_activation": 0.01,
          "min_control": float("nan"), "max_control": 1.0}
THELEN = {"KshapeActive": 0.45, "Af": 0.25, "Flen": 1.4, "fv_linear_extrap_threshold": 0.95}
DEGROOTE = {"active_force_width_scale": 1.0, "passive_fiber_strain_at_one_norm_force": 0.6}
# Millard's curves: (element, property) -> OpenSim's default
MILLARD = {("ActiveForceLengthCurve", "min_norm_active_fiber_length"): 0.4441,
           ("ActiveForceLengthCurve", "transition_norm_fiber_length"): 0.73,
           ("ActiveForceLengthCurve", "max_norm_active_fiber_length"): 1.8123,
           ("ActiveForceLengthCurve", "shallow_ascending_slope"): 0.8616,
           ("ActiveForceLengthCurve", "minimum_value"): 0.1,
           ("ForceVelocityCurve", "max_eccentric_velocity_force_multiplier"): 1.4,
           ("ForceVelocityCurve", "concentric_slope_at_vmax"): 0.0,
           ("ForceVelocityCurve", "concentric_slope_near_vmax"): 0.25,
           ("ForceVelocityCurve", "isometric_slope"): 5.0,
           ("ForceVelocityCurve", "eccentric_slope_at_vmax"): 0.0,
           ("ForceVelocityCurve", "eccentric_slope_near_vmax"): 0.15,
           ("ForceVelocityCurve", "concentric_curviness"): 0.6,
           ("ForceVelocityCurve", "eccentric_curviness"): 0.9}


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


def _child(node: ET.Element, tag: str) -> ET.Element:
    child = node.find(tag)
    return node if child is None else child


def read_muscles(path: str | os.PathLike, names: tuple[str, ...] | None = None) -> MuscleSet:
    """The muscle parameters of an ``.osim`` file (the muscles that apply force, or ``names`` in that order).

    Parameters
    ----------
    path : str or os.PathLike
        The ``.osim`` model file.
    names : tuple of str, optional
        The muscles to read, in this order; None: every muscle that applies force, in file order.

    Returns
    -------
    MuscleSet
        The muscles' names, kinds and parameters, each an (M,) array (OpenSim's default where the file omits it).

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
    nodes = [found[n][1] for n in order]
    params = {k: np.array([_value(e, k, d) for e in nodes]) for k, d in (COMMON | THELEN | DEGROOTE).items()}
    for (curve, k), d in MILLARD.items():
        params[k] = np.array([_value(_child(e, curve), k, d) for e in nodes])
    kinds = tuple(found[n][0] for n in order)
    dgf = np.array([k == "DeGrooteFregly2016Muscle" for k in kinds], dtype=bool)
    params["min_control"] = np.where(dgf & np.isnan(params["min_control"]), 0.0, params["min_control"])  # its default
    return MuscleSet(tuple(order), kinds, params)


def minimum_fibre_length(muscles: MuscleSet) -> np.ndarray:
    """The shortest fibre (m): the fixed-width pennation model's ``h / sin(max pennation)``,
    ``h = l0 sin alpha0``; a Millard muscle's no shorter than its shortest active length.

    Parameters
    ----------
    muscles : MuscleSet
        From :func:`read_muscles`.

    Returns
    -------
    numpy.ndarray
        (M,) shortest fibre length of each muscle (m).
    """
    p = muscles.params
    l0 = p["optimal_fiber_length"]
    h = l0 * np.sin(p["pennation_angle_at_optimal"])
    shortest = np.maximum(h / np.sin(p["maximum_pennation_angle"]), 1e-8 * l0)
    millard = np.array([k == "Millard2012EquilibriumMuscle" for k in muscles.kinds], dtype=bool)
    return np.where(millard, np.maximum(shortest, p["min_norm_active_fiber_length"] * l0), shortest)


def millard_curves(muscles: MuscleSet) -> tuple[np.ndarray, ...]:
    """Every muscle's active force-length (M, 5, 6) and force-velocity (M, 4, 6) control points and ends.

    Parameters
    ----------
    muscles : MuscleSet
        From :func:`read_muscles` (every muscle's Millard curve parameters, defaults for the others).

    Returns
    -------
    tuple of numpy.ndarray
        ``(fl_x, fl_y, fl_ends, fv_x, fv_y, fv_ends)``: the force-length control points x and y (M, 5, 6) and
        ends (M, 6), then the force-velocity control points x and y (M, 4, 6) and ends (M, 6)
        (:func:`humanbody.muscles.curves.millard_active_force_length`,
        :func:`~humanbody.muscles.curves.millard_force_velocity`).
    """
    p = muscles.params
    fl = [millard_active_force_length(p["min_norm_active_fiber_length"][i], p["transition_norm_fiber_length"][i],
                                      1.0, p["max_norm_active_fiber_length"][i], p["minimum_value"][i],
                                      p["shallow_ascending_slope"][i]) for i in range(len(muscles.names))]
    fv = [millard_force_velocity(p["max_eccentric_velocity_force_multiplier"][i], p["concentric_slope_at_vmax"][i],
                                 p["concentric_slope_near_vmax"][i], p["isometric_slope"][i],
                                 p["eccentric_slope_at_vmax"][i], p["eccentric_slope_near_vmax"][i],
                                 p["concentric_curviness"][i], p["eccentric_curviness"][i])
          for i in range(len(muscles.names))]
    return tuple(np.ascontiguousarray(np.array([c[k] for c in curves])) for curves in (fl, fv) for k in range(3))


def capacity(muscles: MuscleSet, length: np.ndarray, speed: np.ndarray) -> np.ndarray:
    """Active force (N) along the tendon of each muscle at activation 1, every frame.

    Parameters
    ----------
    muscles : MuscleSet
        :func:`read_muscles`.
    length, speed : numpy.ndarray
        (F, M) muscle-tendon lengths (m) and lengthening speeds (m/s).

    Returns
    -------
    numpy.ndarray
        (F, M) ``Fmax fL fV cos(alpha)`` with a rigid tendon.
    """
    p = muscles.params
    L = np.ascontiguousarray(length, dtype=float)
    dL = np.ascontiguousarray(speed, dtype=float)
    lmin = minimum_fibre_length(muscles)
    common = (p["max_isometric_force"], p["optimal_fiber_length"], p["pennation_angle_at_optimal"],
              p["tendon_slack_length"], p["max_contraction_velocity"])
    out = np.zeros(L.shape)
    kinds = np.array(muscles.kinds)
    if (kinds == "Thelen2003Muscle").any():
        out[:, kinds == "Thelen2003Muscle"] = thelen_capacity(
            L, dL, *common, p["KshapeActive"], p["Af"], p["Flen"], p["fv_linear_extrap_threshold"], lmin
        )[:, kinds == "Thelen2003Muscle"]
    if (kinds == "Millard2012EquilibriumMuscle").any():
        out[:, kinds == "Millard2012EquilibriumMuscle"] = millard_capacity(
            L, dL, *common, lmin, np.sin(p["maximum_pennation_angle"]), *millard_curves(muscles))[:, kinds == "Millard2012EquilibriumMuscle"]
    dgf = kinds == "DeGrooteFregly2016Muscle"
    if dgf.any():
        out[:, dgf] = degroote_capacity(np.ascontiguousarray(L[:, dgf]), np.ascontiguousarray(dL[:, dgf]),
                                        *(np.ascontiguousarray(a[dgf]) for a in common),
                                        np.ascontiguousarray(p["active_force_width_scale"][dgf]))
    return out

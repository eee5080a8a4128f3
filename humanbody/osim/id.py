"""Inverse dynamics on an OpenSim model: OpenSim's InverseDynamicsTool on the core's Newton-Euler.

The coordinates (F, nq) are fitted by an interpolating quintic spline with natural ends
(``q''' = q'''' = 0``: OpenSim's GCVSplineSet of degree 5 with no smoothing,
:mod:`humanbody.osim.quintic`) over the whole table; its first and second derivatives are the speeds and accelerations.  OpenSim's
``lowpass_cutoff_frequency_for_coordinates`` defaults to -1 (no filter) and so does this:
no filter is applied.  Each ExternalForce of an ExternalLoads file (force, point and torque
expressed in ground) is interpolated linearly to the coordinates' times (0 outside the table's times) and applied to the
body it names as a force ``f`` (N) and a moment ``(p - o) x f + t`` (N m) about the body's
origin ``o``; the core's recursive Newton-Euler then gives the generalized forces, named as
OpenSim names them (``<coordinate>_moment`` N m, ``<coordinate>_force`` N for translations).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass

import numpy as np

from ..core import forward_kinematics, joint_loads
from ..errors import InputError
from .build import CoreModel
from .quintic import natural_quintic_derivatives


@dataclass(frozen=True)
class ExternalForce:
    """One ExternalForce: ``body`` it acts on and its ``force``/``point``/``torque`` column prefixes."""

    name: str
    body: str
    force: str
    point: str
    torque: str


def read_external_loads(path: str | os.PathLike) -> tuple[list[ExternalForce], str]:
    """The ExternalForces of an OpenSim ExternalLoads XML and its data file (resolved beside the XML).

    Parameters
    ----------
    path : str or os.PathLike
        The ExternalLoads XML.

    Returns
    -------
    forces : list of ExternalForce
        The file's enabled forces (disabled ones left out).
    datafile : str
        The path of the forces table (.mot/.sto).

    Raises
    ------
    InputError
        An unreadable file, no ExternalLoads, a force or point not expressed in ground, or no enabled
        force or datafile.
    """
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise InputError(f"cannot read the external loads ({exc})", path=path) from None
    loads = root if root.tag == "ExternalLoads" else root.find("ExternalLoads")
    if loads is None:
        raise InputError("has no ExternalLoads: not an OpenSim external loads file", path=path)
    forces = []
    for el in loads.findall("./objects/ExternalForce"):
        if (el.findtext("isDisabled") or "false").strip().lower() == "true":
            continue
        text = {k: (el.findtext(k) or "").strip() for k in ("applied_to_body", "force_expressed_in_body",
                "point_expressed_in_body", "force_identifier", "point_identifier", "torque_identifier")}
        for k in ("force_expressed_in_body", "point_expressed_in_body"):
            if text[k] != "ground":
                raise InputError(f"ExternalForce {el.get('name')}: {k} {text[k]!r} is not supported (ground only)",
                                 path=path)
        forces.append(ExternalForce(el.get("name", ""), text["applied_to_body"], text["force_identifier"],
                                    text["point_identifier"], text["torque_identifier"]))
    datafile = (loads.findtext("datafile") or "").strip()
    if not forces or not datafile:
        raise InputError("names no enabled ExternalForce or no datafile", path=path)
    return forces, os.path.join(os.path.dirname(os.path.abspath(path)), datafile)


def _columns(table, prefix: str, path) -> np.ndarray:
    names = [prefix + a for a in "xyz"]
    missing = [n for n in names if n not in table]
    if missing:
        raise InputError(f"has no column {missing[0]} (named by the external loads)", path=path)
    return table[names].to_numpy(dtype=float)


def external_wrenches(cm: CoreModel, forces: list[ExternalForce], table, time: np.ndarray, origin: np.ndarray,
                      path="") -> np.ndarray:
    """Loads on every core body, (F, B, 6): force (N) and moment about the body origin (N m), ground axes.

    ``table``: the forces table (``time`` and the ExternalForces' columns); ``origin`` (F, B, 3) the
    bodies' origins at ``time``.

    Parameters
    ----------
    cm : CoreModel
        The model.
    forces : list of ExternalForce
        The external forces (:func:`read_external_loads`).
    table : pandas.DataFrame
        The forces table.
    time : numpy.ndarray
        (F,) times (s) at which to interpolate the loads (0 outside the table's span).
    origin : numpy.ndarray
        (F, B, 3) the core bodies' origins in ground (m).
    path : str or os.PathLike, default ""
        The loads file, for messages.

    Returns
    -------
    numpy.ndarray
        (F, B, 6) force (N) then moment (N m) on each core body.

    Raises
    ------
    InputError
        A force on a body the model lacks, or a column the table lacks.
    """
    out = np.zeros((len(time), cm.model.nbodies, 6))
    t = table["time"].to_numpy(dtype=float)
    names = set(cm.osim.body_names)
    for ef in forces:
        if ef.body not in names:
            raise InputError(f"ExternalForce {ef.name}: the model has no body {ef.body}", path=path)
        b = cm.model.body(ef.body)
        f, p, m = (np.stack([np.interp(time, t, c, left=0.0, right=0.0) for c in _columns(table, pre, path).T], axis=1)
                   for pre in (ef.force, ef.point, ef.torque))
        out[:, b, :3] += f
        out[:, b, 3:] += np.cross(p - origin[:, b], f) + m
    return out


def generalized_force_names(cm: CoreModel) -> list[str]:
    """OpenSim's column names of the generalized forces: ``<coordinate>_moment`` for a rotational
    coordinate, ``_force`` for the others (translational and coupled, as OpenSim names them).

    Parameters
    ----------
    cm : CoreModel
        The model.

    Returns
    -------
    list of str
        One name per coordinate, ``osim.coordinate_names`` order.
    """
    return [c.name + ("_force" if c.motion_type != "rotational" or _translates(cm, c.name) else "_moment")
            for c in cm.osim.coordinates]


def _translates(cm: CoreModel, name: str) -> bool:
    """A coordinate that moves a translation axis only (OpenSim's Translational)."""
    for j in cm.osim.joints:
        kinds = [k >= 3 for k, ax in enumerate(j.transform) if name in ax.coordinates]  # rotation1..3, translation1..3
        if kinds:
            return all(kinds)
    return False


def solve_id(cm: CoreModel, time: np.ndarray, q: np.ndarray, forces: list[ExternalForce], table,
             path="") -> np.ndarray:
    """Generalized forces (F, nq) in OpenSim's coordinate order (N m, N) over ``q`` (F, nq; rad, m).

    Parameters
    ----------
    cm : CoreModel
        The OpenSim model and its core model (:func:`humanbody.osim.build.build_core_model`).
    time : numpy.ndarray
        (F,) frame times (s), increasing (at least 6 frames).
    q : numpy.ndarray
        (F, nq) coordinates (rad, m) in OpenSim's order.
    forces : list of ExternalForce
        The external loads (:func:`read_external_loads`).
    table : pandas.DataFrame
        Their data table (``time`` and the force, point and torque columns, in ground).

    Returns
    -------
    numpy.ndarray
        (F, nq) generalized forces (N m on rotations, N on translations), OpenSim's coordinate order.

    Raises
    ------
    InputError
        Fewer than 6 frames, or loads that do not fit the model or table.
    """
    if len(time) < 6:
        raise InputError("inverse dynamics needs at least 6 frames", path=path)
    qd, qdd = natural_quintic_derivatives(time, q, (1, 2))
    Q, QD, QDD = (cm.to_core(a) for a in (q, qd, qdd))
    data = forward_kinematics(cm.model, Q, QD, QDD)
    ext = external_wrenches(cm, forces, table, time, data.origin, path)
    return cm.from_core(joint_loads(cm.model, data, ext)[2])

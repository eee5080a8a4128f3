"""A marker trial on an OpenSim model in one go: inverse kinematics, then the muscle chain of :mod:`.trial`.

``analyze TRIAL --model MODEL.osim --forces LOADS.xml --muscles`` and
``report ... --model MODEL.osim --muscles`` run this: OpenSim's marker
inverse kinematics on the model (:func:`humanbody.osim.ik.solve_ik`), then
inverse dynamics, static optimization and joint reactions on those
coordinates (:func:`~.trial.run_coordinates`), the coordinates low-passed at
6 Hz first as in OpenSim's Joint Reaction tutorial (:data:`COORDINATE_CUTOFF_HZ`). Without a reserves file every coordinate gets
the Joint Reaction tutorial's weak reserve (:func:`~.reserves.weak_reserves`,
optimal force 1): the pelvis' residuals, and a last resort elsewhere that the
log names wherever it carries more than 10 % of a moment.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..io import markers_array, read_trial
from ..osim import read_osim
from ..osim.ik import IKResult, IKTasks, solve_ik
from .capacity import read_muscles
from .geometry import MuscleGeometry
from .reserves import weak_reserves
from .trial import MuscleResults, Setup, run_coordinates

#: Hz: the coordinates' low-pass before their derivatives (OpenSim's ``lowpass_cutoff_frequency_for_coordinates``
#: in its Joint Reaction tutorial's setup): marker IK's accelerations are noisy
COORDINATE_CUTOFF_HZ = 6.0

#: Setups read in this process, by model path and modification time (a report's worker reads its model once)
_SETUPS: dict = {}


def setup_of(path: str | os.PathLike) -> Setup:
    """:meth:`Setup.load` of a model, once per process and file version.

    Parameters
    ----------
    path : str or os.PathLike
        The ``.osim`` model file.

    Returns
    -------
    Setup
        The model's muscle geometry and muscle parameters (the same object for the same file version).

    Raises
    ------
    InputError
        The model has no muscles.
    """
    key = (os.path.abspath(path), os.stat(path).st_mtime_ns)
    if key not in _SETUPS:
        osim = read_osim(path)
        if not osim.muscle_names:
            raise InputError("has no muscles: static optimization needs a model with muscles", path)
        _SETUPS[key] = Setup(MuscleGeometry.of(osim), read_muscles(path, osim.muscle_names))
    return _SETUPS[key]


def loads_xml(forces: str | os.PathLike) -> str:
    """The ExternalLoads XML of a force file: the file itself, or the .xml of the same name beside a table.

    Parameters
    ----------
    forces : str or os.PathLike
        An ExternalLoads ``.xml``, or a loads table with an ``.xml`` of the same stem beside it.

    Returns
    -------
    str
        The path of the ExternalLoads XML.

    Raises
    ------
    InputError
        A table without an ``.xml`` beside it.
    """
    path = os.fspath(forces)
    if path.lower().endswith(".xml"):
        return path
    xml = os.path.splitext(path)[0] + ".xml"
    if not os.path.exists(xml):
        raise InputError(f"with an .osim model, the loads are an OpenSim ExternalLoads XML (none found at {xml})",
                         path)
    return xml


@dataclass(frozen=True)
class MarkerTrial:
    """What :func:`analyze_markers` found: the inverse kinematics and the muscle results."""

    time: np.ndarray
    ik: IKResult
    muscles: MuscleResults


def analyze_markers(setup: Setup, trial: str | os.PathLike, forces: str | os.PathLike,
                    reserves: str | os.PathLike | None = None, tasks: IKTasks | None = None,
                    joints: tuple[str, ...] | None = None, exponent: float = 2.0) -> MarkerTrial:
    """Inverse kinematics of a marker trial on the model, then static optimization and joint reactions.

    Parameters
    ----------
    setup : Setup
        :func:`setup_of` the model.
    trial : str | os.PathLike
        Marker file (TRC, C3D, ...) in the model's lab axes (OpenSim: y up).
    forces : str or os.PathLike, optional
        An OpenSim ExternalLoads XML (or a table with one of the same name beside it); None: no external loads.
    reserves : str | os.PathLike, optional
        An OpenSim actuators file; None: a weak reserve on every coordinate.
    tasks : IKTasks, optional
        The IK setup's weights (None: every shared marker, weight 1).
    joints : tuple[str, ...], optional
        Joints whose reactions to compute (None: every joint; ``()``: none).
    exponent : float
        The cost's ``p``.

    Returns
    -------
    MarkerTrial
        The frame times (F,) s, the inverse kinematics and the muscle results.
    """
    loads = loads_xml(forces)
    frame = read_trial(trial)
    names, xyz = markers_array(frame)
    time = frame["time"].to_numpy(dtype=float)
    ik = solve_ik(setup.geometry.core, names, xyz, tasks, path=trial, time=time)
    chosen = reserves if reserves is not None else weak_reserves(setup.geometry.model.coordinate_names)
    result = run_coordinates(setup, time, ik.q, loads, chosen, exponent, cutoff_hz=COORDINATE_CUTOFF_HZ,
                             joints=joints, where=trial)
    return MarkerTrial(time, ik, result)

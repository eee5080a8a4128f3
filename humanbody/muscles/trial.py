"""One trial on an OpenSim model: coordinates and loads in, activations, muscle forces and joint reactions out.

The chain, each step OpenSim's:

1. the coordinates file (an IK ``.mot``) filtered and differentiated as
   OpenSim's AnalyzeTool does (:mod:`.coordinates`), every ``step``-th frame;
2. the bodies' motion on the core (:mod:`.bridge`), the external loads on
   their bodies, inverse dynamics: the generalised forces ``tau``;
3. every muscle's length, lengthening speed and moment arms (the paths of
   :mod:`humanbody._kernels.muscle_paths`: ``r = -dL/dq``), its capacity
   (:mod:`.capacity`);
4. static optimization (:mod:`.static_optimization`), reserves from an
   actuators file;
5. joint reactions with the optimum's muscle forces applied (:mod:`.reactions`).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field, replace

import numpy as np

from .. import core
from .._kernels.muscle_loads import path_loads
from ..errors import InputError
from ..io.loads import LoadTable, read_loads
from ..osim import read_osim
from .capacity import MuscleSet, capacity, read_muscles
from .coordinates import opensim_kinematics
from .geometry import MuscleGeometry, read_model_coordinates
from .reactions import reaction_columns
from .reserves import Reserves, read_reserves
from .static_optimization import Optimum, solve

# OpenSim ground (x forward, y up, z right) -> humanbody ground (x forward, y left, z up), for read_loads
Y_UP = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


@dataclass(frozen=True)
class Setup:
    """A model ready for trials: its muscle geometry (the file as read, on the core, paths packed)
    and its muscles' parameters."""

    geometry: MuscleGeometry
    muscles: MuscleSet

    @classmethod
    def load(cls, path: str | os.PathLike) -> Setup:
        """Parameters
----------
path : str or os.PathLike
    The ``.osim`` model file.

        Returns
        -------
        Setup
            The model's muscle geometry and its muscles' parameters.
        """
        osim = read_osim(path)
        return cls(MuscleGeometry.of(osim), read_muscles(path, osim.muscle_names))

    @property
    def model(self) -> core.Model:
        return self.geometry.core.model


@dataclass(frozen=True)
class MuscleResults:
    """A trial's muscle results, every analysed frame."""

    time: np.ndarray
    coordinates: tuple[str, ...]
    tau: np.ndarray
    lengths: np.ndarray
    speeds: np.ndarray
    moment_arms: np.ndarray
    capacity: np.ndarray
    optimum: Optimum
    reserves: Reserves
    reaction_names: list[str] = field(default_factory=list)
    reactions: np.ndarray | None = None


def load_bodies(path: str | os.PathLike, names: list[str]) -> list[str]:
    """The body each load acts on, as an ExternalLoads file names it (``applied_to_body``); for a
    ground-reaction file given alone, the load names themselves.

    Parameters
    ----------
    path : str or os.PathLike
        The loads file (an ExternalLoads ``.xml``, or a table).
    names : list of str
        The loads' names, as the loads table has them.

    Returns
    -------
    list of str
        The body each load acts on, in ``names`` order (the name itself when the XML does not say).

    Raises
    ------
    InputError
        An unreadable ExternalLoads XML.
    """
    if os.fspath(path).lower().endswith(".xml"):
        try:
            root = ET.parse(path).getroot()
        except (ET.ParseError, OSError) as err:
            raise InputError(f"cannot read the ExternalLoads file ({err})", path) from None
        bodies = {}
        for ef in root.iter("ExternalForce"):
            ident = (ef.findtext("force_identifier") or "").strip()
            bodies[ident[:-2] if ident.endswith("_v") else ident] = (ef.findtext("applied_to_body") or "").strip()
        return [bodies.get(n, n) for n in names]
    return list(names)


def body_wrenches(setup: Setup, path: str | os.PathLike, time: np.ndarray, origin: np.ndarray,
                  table: LoadTable | None = None) -> np.ndarray:
    """(F, B, 6) force and moment about each core body's origin (OpenSim ground axes) from a loads file
    (``table``: the file as :func:`~humanbody.io.loads.read_loads` read it, when already read).

    Parameters
    ----------
    setup : Setup
        The model.
    path : str or os.PathLike
        The loads file.
    time : numpy.ndarray
        (F,) frame times (s); the loads are interpolated to them.
    origin : numpy.ndarray
        (F, B, 3) the core bodies' origins in ground (m).
    table : LoadTable, optional
        The loads already read.

    Returns
    -------
    numpy.ndarray
        (F, B, 6) force (N) then moment (N·m) on each core body, about its origin.

    Raises
    ------
    InputError
        A load acting on a body the model lacks.
    """
    table = table if table is not None else read_loads(path, mapping=Y_UP)
    out = np.zeros((len(time), setup.model.nbodies, 6))
    for j, body in enumerate(load_bodies(path, table.names)):
        if body not in setup.model.names:
            raise InputError(f"load {table.names[j]!r} acts on body {body!r}, which the model lacks", path)
        b = setup.model.names.index(body)
        f, p, m = (np.stack([np.interp(time, table.time, Y_UP.T[i] @ a[:, j].T) for i in range(3)], axis=1)
                   for a in (table.force, np.nan_to_num(table.point), table.moment))
        out[:, b, :3] += f
        out[:, b, 3:] += m + np.cross(p - origin[:, b], f)
    return out


def _poses(setup: Setup, data) -> tuple[np.ndarray, np.ndarray]:
    """Body rotations (F, B, 3, 3) and origins (F, B, 3) in the OpenSim model's body order, ground first."""
    index = setup.geometry.core.body_index
    Rs = np.broadcast_to(np.eye(3), (data.frames, len(index), 3, 3)).copy()
    Os = np.zeros((data.frames, len(index), 3))
    Rs[:, 1:] = data.R[:, index[1:]]
    Os[:, 1:] = data.origin[:, index[1:]]
    return Rs, Os


def run_coordinates_file(setup: Setup, coordinates: str | os.PathLike, loads: str | os.PathLike | None,
        reserves: str | os.PathLike | None = None, exponent: float = 2.0, step: int = 1,
        cutoff_hz: float | None = None, joints: tuple[str, ...] | None = (),
        time_range: tuple[float, float] | None = None) -> MuscleResults:
    """Static optimization and joint reactions of one trial.

    Parameters
    ----------
    setup : Setup
        :meth:`Setup.load` of the model.
    coordinates : str | os.PathLike
        The trial's coordinates (OpenSim ``.mot``/``.sto``: degrees or radians as its header says).
    loads : str | os.PathLike, optional
        External loads (OpenSim ExternalLoads ``.xml`` or ground-reaction ``.mot``), or None.
    reserves : str or os.PathLike, optional
        An OpenSim actuators file of CoordinateActuators, or None.
    exponent : float
        The cost's ``p`` (OpenSim's ``activation_exponent``).
    step : int
        Every ``step``-th frame is analysed.
    cutoff_hz : float, optional
        OpenSim's coordinate low-pass cut-off (Hz); None: no filter.
    joints : tuple[str, ...], optional
        Joint names for the reactions; None for every joint, ``()`` for none.
    time_range : (start, end) s of the frames to analyse (after filtering the whole file, as OpenSim);
        frames outside the loads' time span are left out.

    Returns
    -------
    MuscleResults
        The analysed frames' generalised forces, muscle lengths, speeds, moment arms and capacity, the
        optimum, and the joint reactions when ``joints`` asks for them.
    """
    time, q = read_model_coordinates(coordinates, setup.geometry.model)
    return run_coordinates(setup, time, q, loads, reserves, exponent, step, cutoff_hz, joints, time_range,
                           where=coordinates)


def run_coordinates(setup: Setup, time: np.ndarray, q: np.ndarray, loads: str | os.PathLike | None,
                    reserves: str | os.PathLike | Reserves | None = None, exponent: float = 2.0, step: int = 1,
                    cutoff_hz: float | None = None, joints: tuple[str, ...] | None = (),
                    time_range: tuple[float, float] | None = None,
                    where: str | os.PathLike = "") -> MuscleResults:
    """:func:`run_coordinates_file` on coordinates already in memory: ``time`` (F,) s and ``q`` (F, C) in the model's
    coordinate order (rad, m), as :func:`~humanbody.osim.ik.solve_ik` gives them; ``where`` names
    them in messages; ``reserves`` may also be a :class:`Reserves` (:func:`~.reserves.weak_reserves`).
    The other parameters are :func:`run_coordinates_file`'s.

    Parameters
    ----------
    setup : Setup
        The model.
    time : numpy.ndarray
        (F,) frame times (s).
    q : numpy.ndarray
        (F, C) coordinates in the model's order (rad, m).
    loads : str or os.PathLike or None
        External loads file, or None.
    reserves : str or os.PathLike or Reserves, optional
        An actuators file or reserves in memory; None: no reserves.
    exponent, step, cutoff_hz, joints, time_range
        As :func:`run_coordinates_file`.
    where : str or os.PathLike, default ""
        What names the coordinates in messages.

    Returns
    -------
    MuscleResults
        As :func:`run_coordinates_file`.

    Raises
    ------
    InputError
        No frame inside the loads' time span and ``time_range``.
    """
    names = setup.geometry.model.coordinate_names
    Q, QD, QDD = opensim_kinematics(time, q, cutoff_hz)
    lo, hi = time_range if time_range is not None else (-np.inf, np.inf)
    table = read_loads(loads, mapping=Y_UP) if loads is not None else None
    if table is not None:
        span = table.time
        lo, hi = max(lo, span[0] - 1e-9), min(hi, span[-1] + 1e-9)
    keep = np.flatnonzero((time >= lo - 1e-9) & (time <= hi + 1e-9))[::max(1, int(step))]
    if not len(keep):
        raise InputError("has no frame inside the loads' time span (and the time range asked for)", where)
    time, Q, QD, QDD = time[keep], Q[keep], QD[keep], QDD[keep]
    cm = setup.geometry.core
    data = core.forward_kinematics(cm.model, cm.to_core(Q), cm.to_core(QD), cm.to_core(QDD))
    ext = body_wrenches(setup, loads, time, data.origin, table) if loads is not None else None
    tau = cm.from_core(core.joint_loads(cm.model, data, ext)[2])
    paths = setup.geometry.compute(Q, QD)
    lengths, speeds, arms = paths.lengths, paths.velocities, paths.moment_arms
    assert speeds is not None  # compute() gives them when rates are given
    cap = capacity(setup.muscles, lengths, speeds)
    res = (reserves if isinstance(reserves, Reserves) else
           read_reserves(reserves, names, ("ground",) + tuple(setup.model.names)) if reserves is not None
           else Reserves())
    res = body_actuator_directions(setup, data, res)
    opt = solve(cap, arms, tau, res, setup.muscles.min_control, setup.muscles.max_control, exponent)
    result = MuscleResults(time, names, tau, lengths, speeds, arms, cap, opt, res)
    if joints == ():
        return result
    nm = len(setup.muscles.names)
    Rs, Os = _poses(setup, data)
    pk = setup.geometry.paths
    muscle = path_loads(np.ascontiguousarray(cm.from_core(data.q)), Rs, Os,
                        np.ascontiguousarray(opt.forces[:, :nm]), nm, pk.max_points, pk.arrays())
    body_loads = np.zeros((data.frames, cm.model.nbodies, 6))
    body_loads[:, cm.body_index[1:]] = muscle[:, 1:]
    if ext is not None:
        body_loads = body_loads + ext
    force, moment, _ = core.joint_loads(cm.model, data, body_loads)
    chosen = _joints(setup, joints)
    cols, values = reaction_columns(cm.model, data, force, moment, chosen)
    return MuscleResults(time, names, tau, lengths, speeds, arms, cap, opt, res, cols, values)


def body_actuator_directions(setup: Setup, data, reserves: Reserves) -> Reserves:
    """``reserves`` with the generalised force of each actuator per unit force at every frame of
    ``data`` (``directions`` (F, K, C)) when it has point or torque actuators; unchanged otherwise.

    A body actuator's load ``w = (f, m)`` (force and moment about the body's origin, ground axes) enters
    the equations of motion as ``J^T w``; inverse dynamics being linear in the external loads, that is
    ``tau_ID(0) - tau_ID(w)``, one inverse dynamics per actuator. A point actuator's force
    ``d`` acts at its point ``p``: ``(d, (p - o) x d)``; a torque actuator's axis ``n`` gives
    ``(0, n)`` on body A and ``(0, -n)`` on body B (none on ground).

    Parameters
    ----------
    setup : Setup
        The model.
    data : core data
        The forward kinematics of the F frames (:func:`humanbody.core.forward_kinematics`).
    reserves : Reserves
        The reserve actuators.

    Returns
    -------
    Reserves
        ``reserves``, with ``directions`` (F, K, C) (N·m or N per N or N·m of actuator load) when it has body
        actuators.
    """
    if not reserves.bodies:
        return reserves
    cm = setup.geometry.core
    names = list(setup.model.names)
    zero = core.joint_loads(cm.model, data)[2]
    D = np.zeros((data.frames, len(reserves), len(setup.geometry.model.coordinate_names)))
    for k, b in enumerate(reserves.bodies):
        if b is None:
            D[:, k, reserves.coordinates[k]] = 1.0
            continue
        w = np.zeros((data.frames, cm.model.nbodies, 6))
        i = names.index(b.body) if b.body in names else -1
        R = data.R[:, i] if i >= 0 else np.broadcast_to(np.eye(3), (data.frames, 3, 3))
        d = np.asarray(b.direction) if b.direction_global else R @ np.asarray(b.direction)
        if b.kind == "point" and i >= 0:
            p = np.asarray(b.point) if b.point_global else data.origin[:, i] + R @ np.asarray(b.point)
            w[:, i, :3] = d
            w[:, i, 3:] = np.cross(p - data.origin[:, i], d)
        elif b.kind == "torque":
            if i >= 0:
                w[:, i, 3:] += d
            if b.other in names:
                w[:, names.index(b.other), 3:] -= d
        D[:, k] = cm.from_core(zero - core.joint_loads(cm.model, data, w)[2])
    return replace(reserves, directions=D)


def _joints(setup: Setup, joints: tuple[str, ...] | None) -> list[tuple[str, int]]:
    """(joint name, child body index) of the chosen joints (all when None), in the model's joint order."""
    known = {j.name: setup.model.names.index(j.child) for j in setup.geometry.model.joints}
    if joints is None:
        return list(known.items())
    missing = [j for j in joints if j not in known]
    if missing:
        raise InputError(f"joint_reactions names {', '.join(missing)}, which the model lacks "
                         f"(it has {', '.join(known)})", option="joint_reactions")
    return [(j, known[j]) for j in joints]

"""Inverse kinematics on an OpenSim model: OpenSim's weighted marker least squares, frame by frame.

Per frame the free coordinates ``q`` minimise (OpenSim's InverseKinematicsTool objective, as
Simbody's assembler weighs it: the markers' goal is their weighted mean)

    C(q) = sum_m w_m |x_m(q) - x̂_m|^2 / sum_m w_m + sum_c w_c (q_c - v_c)^2

over the markers ``m`` measured in that frame (``x̂_m`` in ground axes, m; the model's
marker ``x_m(q)`` by the core's forward kinematics) and the coordinate tasks ``c``
(``v_c`` its default or manual value, or, for ``from_file``, the setup's ``coordinate_file``
at the frame's time: rotational columns converted from degrees when the file says so, a
quintic spline through the file's rows, exact at the file's own times; rad or m).
Levenberg–Marquardt on the residuals ``sqrt(w_m) (x(q) - x̂)`` and ``sqrt(w_c sum_m w_m) (q_c - v_c)``
(C scaled by ``sum_m w_m``) with the core's marker Jacobians ``J = dx/dq``:

    (JᵀJ + λ diag(JᵀJ)) Δq = -Jᵀr,    λ halved on success, multiplied by 10 on failure,

warm-started from the previous frame's solution (the first frame from the model's
default pose); the whole trial is one call of a compiled kernel
(:func:`humanbody._kernels.osim_ik.ik_trial`).  Clamped coordinates are kept in their ranges (the step is projected,
as OpenSim bounds them), locked coordinates stay at their default values, and a
coupler's dependent coordinate follows its independent one (the core applies the
couplers, so its Jacobian column is 0 and it is not a free coordinate).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field

import numpy as np
from scipy.interpolate import make_interp_spline

from .._kernels import osim_ik as _k
from ..errors import InputError
from ..io.opensim import read_opensim_arrays
from .build import CoreModel


@dataclass(frozen=True)
class IKTasks:
    """Weights of an OpenSim IK setup: ``markers`` name → weight (absent = not applied when
    ``only_listed``), ``coordinates`` name → (weight, value or None for the default value);
    ``from_file`` the coordinates whose value is taken from ``coordinate_file``."""

    markers: dict[str, float] = field(default_factory=dict)
    coordinates: dict[str, tuple[float, float | None]] = field(default_factory=dict)
    only_listed: bool = False
    from_file: frozenset[str] = frozenset()
    coordinate_file: str | None = None


def _task_weight(el) -> tuple[bool, float]:
    apply = (el.findtext("apply") or "true").strip().lower() != "false"
    try:
        weight = float((el.findtext("weight") or "1").strip())
    except ValueError:
        weight = float("nan")
    return apply, weight


def read_ik_setup(path: str | os.PathLike) -> IKTasks:
    """The marker and coordinate tasks of an OpenSim IK setup XML (``IKMarkerTask``, ``IKCoordinateTask``).

    Parameters
    ----------
    path : str | os.PathLike
        The setup file (``<InverseKinematicsTool>`` with an ``<IKTaskSet>``)

    Returns
    -------
    IKTasks
        markers listed with ``apply`` false are left out; only listed markers are used.
    """
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as exc:
        raise InputError(f"cannot read the IK setup ({exc})", path=path) from None
    tasks = root.findall(".//IKTaskSet/objects/*")
    if not tasks:
        raise InputError("has no IKTaskSet with tasks: not an OpenSim IK setup", path=path)
    markers: dict[str, float] = {}
    coords: dict[str, tuple[float, float | None]] = {}
    from_file = set()
    for el in tasks:
        apply, weight = _task_weight(el)
        name = el.get("name", "")
        if not np.isfinite(weight) or weight < 0:
            raise InputError(f"task {name}: weight must be a number >= 0", path=path)
        if not apply or weight == 0:
            continue
        if el.tag == "IKMarkerTask":
            markers[name] = weight
        elif el.tag == "IKCoordinateTask":
            kind = (el.findtext("value_type") or "default_value").strip()
            if kind == "from_file":
                from_file.add(name)
            value = float((el.findtext("value") or "0").strip()) if kind == "manual_value" else None
            coords[name] = (weight, value)
        else:
            raise InputError(f"task type {el.tag} is not supported", path=path)
    coordinate_file = None
    if from_file:
        given = (root.findtext(".//coordinate_file") or "").strip()
        if given in ("", "Unassigned"):
            raise InputError(f"coordinate task {sorted(from_file)[0]} takes its value from_file, but the setup names"
                             " no coordinate_file", path=path)
        coordinate_file = os.path.join(os.path.dirname(os.path.abspath(path)), given)   # as OpenSim resolves it
    return IKTasks(markers, coords, only_listed=True, from_file=frozenset(from_file), coordinate_file=coordinate_file)


@dataclass(frozen=True)
class IKResult:
    """``q`` (F, nq) in OpenSim's coordinate order (rad, m); ``rms_error`` and ``max_error``
    (F,) of the weighted markers (m); ``markers`` the marker names used."""

    q: np.ndarray
    rms_error: np.ndarray
    max_error: np.ndarray
    markers: tuple[str, ...]


def _problem(cm: CoreModel, names, tasks: IKTasks, path) -> tuple[np.ndarray, ...]:
    """Core marker index, trial column and weight of every marker used; the free core columns."""
    model = cm.model
    core_markers = {m.name: i for i, m in enumerate(model.markers)}
    col = {n: i for i, n in enumerate(names)}
    use = [n for n in core_markers if n in col and (not tasks.only_listed or n in tasks.markers)]
    if not use:
        raise InputError(f"has no marker names in common with the model {os.path.basename(cm.osim.path)}"
                         " (or none of them weighted by the IK setup)", path=path)
    mi = np.array([core_markers[n] for n in use], dtype=np.int64)
    ti = np.array([col[n] for n in use], dtype=np.int64)
    w = np.array([tasks.markers.get(n, 1.0) for n in use])
    dependent = {c.dependent for c in cm.osim.couplers}
    free = [cm.q_index[i] for i, c in enumerate(cm.osim.coordinates) if not c.locked and c.name not in dependent]
    return mi, ti, w, np.array(sorted(free), dtype=np.int64)


def _file_values(cm: CoreModel, tasks: IKTasks, time: np.ndarray) -> dict[str, np.ndarray]:
    """The ``from_file`` coordinates' values at ``time`` (rad, m), from the setup's coordinate file."""
    path = tasks.coordinate_file or ""
    columns, t, values, attrs = read_opensim_arrays(path)
    names = {c.split("/")[-2] if c.endswith("/value") else c: j for j, c in enumerate(columns)}
    missing = sorted(tasks.from_file - set(names))
    if missing:
        raise InputError(f"has no column for the IK setup's from_file coordinates {', '.join(missing)}", path=path)
    converted = set(attrs.get("converted_columns", []))
    out = {}
    for c in cm.osim.coordinates:
        if c.name not in tasks.from_file:
            continue
        v = values[:, names[c.name]]
        was = columns[names[c.name]] in converted
        should = bool(attrs.get("in_degrees")) and c.motion_type == "rotational"
        v = np.deg2rad(v) if should and not was else np.rad2deg(v) if was and not should else v
        out[c.name] = make_interp_spline(t, v, k=min(5, len(t) - 1))(time) if len(t) > 1 else np.full(len(time), v[0])
    return out


def _coordinate_tasks(cm: CoreModel, tasks: IKTasks, time: np.ndarray | None,
                      frames: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Column, √weight and value per frame (F, tasks) of every coordinate task on a coordinate not locked."""
    if tasks.from_file and time is None:
        raise InputError("the IK setup takes coordinate values from_file: the trial's times are needed")
    from_file = _file_values(cm, tasks, np.asarray(time, float)) if tasks.from_file else {}
    idx, w, v = [], [], []
    for i, c in enumerate(cm.osim.coordinates):
        if c.name in tasks.coordinates and not c.locked:
            weight, value = tasks.coordinates[c.name]
            idx.append(cm.q_index[i])
            w.append(weight)
            v.append(from_file[c.name] if c.name in from_file else np.full(frames, c.default if value is None else value))
    values = np.array(v, dtype=float).T.reshape(frames, len(idx))
    return np.array(idx, dtype=np.int64), np.sqrt(np.array(w, dtype=float)), np.ascontiguousarray(values)


def solve_ik(cm: CoreModel, names, markers: np.ndarray, tasks: IKTasks | None = None,
             path: str | os.PathLike = "", iterations: int = 50, time: np.ndarray | None = None) -> IKResult:
    """OpenSim's marker inverse kinematics on the model, every frame (see the module notes).

    Parameters
    ----------
    cm : CoreModel
        The OpenSim model and its core model
    names : sequence of str
        The trial's marker names
    markers : (F, M, 3)
        The trial's markers in ground axes (m), NaN where missing
    tasks : IKTasks, optional
        Weights (default: every shared marker, weight 1)
    path : str or os.PathLike
        The trial file, named in messages.
    iterations : int
        The most Levenberg–Marquardt steps per frame
    time : (F,) array, optional
        The frames' times (s); needed by ``from_file`` coordinate tasks

    Returns
    -------
    IKResult
        coordinates in OpenSim's order (rad, m)
    """
    tasks = tasks or IKTasks()
    mi, ti, w, free = _problem(cm, list(names), tasks, path)
    ct = _coordinate_tasks(cm, tasks, time, markers.shape[0])
    nq = cm.model.nq
    lo, hi = np.full(nq, -np.inf), np.full(nq, np.inf)
    q = np.zeros(nq)
    for i, c in enumerate(cm.osim.coordinates):
        j = cm.q_index[i]
        q[j] = c.default
        if c.clamped:
            lo[j], hi[j] = c.range
    cc = cm.model.compiled
    body = np.array([cm.model.markers[i].body for i in mi], dtype=np.int64)
    offset = np.array([cm.model.markers[i].offset for i in mi], dtype=float).reshape(-1, 3)
    tree = tuple(np.ascontiguousarray(a) for a in (cm.model.parents, cc.astart, cc.akind, cc.aaxis, cc.pR, cc.pp,
                                                    cc.cR, cc.cp, cc.acoord, cc.afun, body, offset))
    fun = tuple(np.ascontiguousarray(a) for a in cc.functions.arrays())
    cpl = tuple(np.ascontiguousarray(a) for a in (cc.cdep, cc.cfun, cc.cind))
    targets = np.ascontiguousarray(markers[:, ti], dtype=float)
    F = targets.shape[0]
    out, rms, mx = np.empty((F, nq)), np.empty(F), np.empty(F)
    cidx, csw, cval = ct
    _k.ik_trial(q, targets, w.astype(float), free, cidx, csw, cval, lo, hi, int(iterations), tree, fun, cpl,
                out, rms, mx)
    return IKResult(cm.from_core(out), rms, mx, tuple(names[t] for t in ti))

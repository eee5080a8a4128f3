"""Muscle-tendon lengths, lengthening velocities, moment arms and path points of an OpenSim model over a trial.

Start from a model and a table of its coordinates::

    from humanbody.osim import read_osim
    from humanbody.muscles import MuscleGeometry, read_model_coordinates

    model = read_osim("gait2392.osim")
    geometry = MuscleGeometry.of(model)
    time, q = read_model_coordinates("walk_ik.mot", model)     # (F,), (F, nq): rad, m, model order
    paths = geometry.compute(q)                           # MusclePaths
    paths.lengths          # (F, M) m, muscles in model.muscle_names order
    paths.moment_arms      # (F, M, nq) m, coordinates in model.coordinate_names order
    points, counts = geometry.path_points(q)              # (F, M, P, 3) m in ground, NaN padded

The bodies' poses and Jacobians come from the core (:mod:`humanbody.core`) through
:func:`humanbody.osim.build.build_core_model`; the paths from
:mod:`humanbody._kernels.muscle_paths`.  A moment arm is OpenSim's: ``r = -dL/dq`` with the
coupled coordinates following (computed for the coordinates each muscle crosses; exactly 0 for the others) (a coupler's dependent coordinate has no column of its own: 0),
each straight segment between two bodies carrying unit tension, a moving point adding its
own motion on its body.  The lengthening velocity is ``dL/dt`` for the coordinates' rates.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from .._kernels.muscle_paths import trial_path_points, trial_paths
from ..core import body_jacobian, forward_kinematics
from ..errors import InputError
from ..io.opensim import read_opensim_arrays
from ..osim.build import CoreModel, build_core_model
from ..osim.model import OsimModel
from .crossing import crossed_coordinates
from .paths import KERNEL_WRAPS, PackedPaths


@dataclass(frozen=True)
class MusclePaths:
    """What :meth:`MuscleGeometry.compute` gives for F frames.

    Attributes
    ----------
    q : (F, nq)          the coordinates used (rad, m; couplers' dependent coordinates filled in)
    lengths : (F, M)     muscle-tendon lengths (m)
    moment_arms : (F, M, nq)  moment arms (m; N m per N of tension, rad for translations: m per m)
    velocities : (F, M) or None  lengthening velocities (m/s), when rates were given
    """

    q: np.ndarray
    lengths: np.ndarray
    moment_arms: np.ndarray
    velocities: np.ndarray | None


@dataclass(frozen=True)
class MuscleGeometry:
    """A model's muscle paths ready to run: the core model, the packed paths, what each muscle crosses."""

    core: CoreModel
    paths: PackedPaths
    crossed: dict
    directions: tuple[np.ndarray, np.ndarray]

    @classmethod
    def of(cls, model: OsimModel) -> MuscleGeometry:
        """Build once per model (packs the paths and the core model).

        Parameters
        ----------
        model : OsimModel
            The model, read by :func:`humanbody.osim.read_osim`.

        Returns
        -------
        MuscleGeometry
            The model's core model, packed paths and crossed coordinates.
        """
        crossed = crossed_coordinates(model)
        index = {c: i for i, c in enumerate(model.coordinate_names)}
        dirs = [index[c] for m in model.muscle_names for c in crossed[m]]
        offsets = np.cumsum([0] + [len(crossed[m]) for m in model.muscle_names])
        return cls(build_core_model(model), PackedPaths.build(model), crossed,
                   (offsets.astype(np.int64), np.array(dirs, dtype=np.int64)))

    @property
    def model(self) -> OsimModel:
        return self.core.osim

    @property
    def notes(self) -> tuple[str, ...]:
        """The model's unsupported parts and the wrap surfaces the paths pass through, one line each."""
        kinds = sorted({w.kind for w in self.model.wrap_objects if w.kind not in KERNEL_WRAPS})
        extra = tuple(f"not supported, paths pass through them: wrap {k} surfaces" for k in kinds)
        return self.model.notes + extra

    def _poses(self, q: np.ndarray, qd: np.ndarray | None = None):
        """Core kinematics; poses and velocities in the OpenSim model's body order (ground first)."""
        data = forward_kinematics(self.core.model, self.core.to_core(q),
                                  None if qd is None else self.core.to_core(qd))
        bi = self.core.body_index
        F, B = data.R.shape[0], len(bi)
        R = np.empty((F, B, 3, 3))
        O = np.zeros((F, B, 3))
        R[:, 0] = np.eye(3)
        R[:, 1:] = data.R[:, bi[1:]]
        O[:, 1:] = data.origin[:, bi[1:]]
        return data, R, O

    def _directions(self, data) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The bodies' Jacobians (F, B, 6, nq core; ground a zero row), the column of each OpenSim
        coordinate, and the coordinates' rates for a unit rate of each, the coupled ones following
        (F, nq, nq, OpenSim order)."""
        bi = self.core.body_index
        F = data.q.shape[0]
        J = np.zeros((F, len(bi), 6, data.q.shape[1]))
        J[:, 1:] = body_jacobian(self.core.model, data, bi[1:])
        nq = self.core.q_index.shape[0]
        QD = np.broadcast_to(np.eye(nq), (F, nq, nq)).copy()
        c = self.core.model.compiled
        inverse = np.argsort(self.core.q_index)                       # core column -> OpenSim column
        for k in range(c.cdep.shape[0]):
            QD[:, inverse[c.cind[k]], inverse[c.cdep[k]]] = data.coupler_slope[:, k]
            QD[:, inverse[c.cdep[k]]] = 0.0
        return J, self.core.q_index, QD

    def compute(self, q, qd=None) -> MusclePaths:
        """Lengths and moment arms (and lengthening velocities with ``qd``) over F frames.

        Parameters
        ----------
        q : (F, nq) array
            Coordinates in ``model.coordinate_names`` order (rad, m)
        qd : (F, nq) array, optional
            Their rates (rad/s, m/s)

        Returns
        -------
        MusclePaths
            ``q`` (F, nq), ``lengths`` (F, M) m, ``moment_arms`` (F, M, nq) m, ``velocities`` (F, M) m/s or None
            without ``qd``.
        """
        q = self._check(q, "q")
        data, R, O = self._poses(q, None if qd is None else self._check(qd, "qd"))
        J, kcol, QD = self._directions(data)
        pk, n = self.paths.arrays(), len(self.paths.muscles)
        qq = np.ascontiguousarray(self.core.from_core(data.q))
        lengths, rates = trial_paths(qq, R, O, J, kcol, QD, *self.directions, True, n, self.paths.max_points, pk)
        velocities = None
        if qd is not None:
            bi = self.core.body_index
            v = np.zeros((len(q), len(bi), 6, 1))
            v[:, 1:, :3, 0] = data.omega[:, bi[1:]]
            v[:, 1:, 3:, 0] = data.velocity[:, bi[1:]]
            rate = np.ascontiguousarray(self.core.from_core(data.qd)[:, None])
            every = (np.arange(n + 1, dtype=np.int64), np.zeros(n, np.int64))    # each muscle: direction 0
            _, vel = trial_paths(qq, R, O, v, np.zeros(1, np.int64), rate, *every, False, n, self.paths.max_points, pk)
            velocities = vel[:, :, 0]
        return MusclePaths(qq, lengths, -rates, velocities)

    def lengths(self, q) -> np.ndarray:
        """Muscle-tendon lengths (F, M) m.

        Parameters
        ----------
        q : (F, nq) array
            Coordinates in ``model.coordinate_names`` order (rad, m).

        Returns
        -------
        numpy.ndarray
            (F, M) muscle-tendon lengths (m), muscles in ``model.muscle_names`` order.
        """
        q = self._check(q, "q")
        data, R, O = self._poses(q)
        F, B = R.shape[:2]
        qq = np.ascontiguousarray(self.core.from_core(data.q))
        n = len(self.paths.muscles)
        out, _ = trial_paths(qq, R, O, np.zeros((F, B, 6, 1)), np.zeros(0, np.int64), np.zeros((F, 0, q.shape[1])),
                             np.zeros(n + 1, np.int64), np.zeros(0, np.int64), True, n, self.paths.max_points,
                             self.paths.arrays())
        return out

    def path_points(self, q) -> tuple[np.ndarray, np.ndarray]:
        """Every muscle's path in ground: points (F, M, P, 3) m (NaN past the last) and counts (F, M).

        Parameters
        ----------
        q : (F, nq) array
            Coordinates in ``model.coordinate_names`` order (rad, m).

        Returns
        -------
        points : numpy.ndarray
            (F, M, P, 3) path points in ground (m), NaN past each path's last.
        counts : numpy.ndarray
            (F, M) number of points of each path.
        """
        q = self._check(q, "q")
        data, R, O = self._poses(q)
        qq = np.ascontiguousarray(self.core.from_core(data.q))
        return trial_path_points(qq, R, O, len(self.paths.muscles), self.paths.max_points, self.paths.arrays())

    def _check(self, q, what: str) -> np.ndarray:
        a = np.array(q, dtype=float, ndmin=2)
        nq = len(self.model.coordinates)
        if a.ndim != 2 or a.shape[1] != nq:
            raise InputError(f"{what} must have {nq} columns (the model's coordinates), got shape {np.shape(q)}")
        return np.ascontiguousarray(a)


def read_model_coordinates(path: str | os.PathLike, model: OsimModel) -> tuple[np.ndarray, np.ndarray]:
    """An OpenSim coordinates file (.mot/.sto, degrees or radians) as ``(time (F,), q (F, nq))``.

    Columns are matched to ``model.coordinate_names`` (also by their path in an OpenSim 4 states
    file, ``/jointset/knee_r/knee_angle_r/value``); rotational coordinates are converted from
    degrees when the header says ``inDegrees=yes``.  A coupler's dependent coordinate may be
    missing (it follows its driver); any other missing coordinate is an error naming them.

    Parameters
    ----------
    path : str or os.PathLike
        The coordinates file.
    model : OsimModel
        The model whose coordinates the columns are matched to.

    Returns
    -------
    time : numpy.ndarray
        (F,) s.
    q : numpy.ndarray
        (F, nq) coordinates in ``model.coordinate_names`` order (rad, m; a missing dependent coordinate at its default).

    Raises
    ------
    InputError
        The file lacks a column for one of the model's (independent) coordinates, or one of them has
        a missing (NaN) or infinite value.
    """
    columns, time, values, attrs = read_opensim_arrays(path)
    index = {c: j for j, c in enumerate(columns)}
    names = {c.split("/")[-2] if c.endswith("/value") else c: c for c in columns if c != "time"}
    dependent = {c.dependent for c in model.couplers}
    missing = [c.name for c in model.coordinates if c.name not in names and c.name not in dependent]
    if missing:
        shown = ", ".join(missing[:6]) + (f" and {len(missing) - 6} more" if len(missing) > 6 else "")
        raise InputError(f"has no column for the model's coordinates {shown}", path=path)
    converted = set(attrs.get("converted_columns", []))
    degrees = bool(attrs.get("in_degrees"))
    q = np.zeros((len(time), len(model.coordinates)))
    for i, c in enumerate(model.coordinates):
        if c.name not in names:
            q[:, i] = c.default
            continue
        col = names[c.name]
        v = values[:, index[col]]
        was = col in converted
        should = degrees and c.motion_type == "rotational"
        q[:, i] = np.deg2rad(v) if should and not was else np.rad2deg(v) if was and not should else v
    bad = ~np.isfinite(q)
    if bad.any():
        rows, cols = np.nonzero(bad)
        row, k = int(rows[0]), int(cols[0])
        raise InputError(f"coordinate {model.coordinates[k].name} has a missing or non-finite value at "
                         f"time {time[row]:g} s (row {row + 1})", path=path)
    return time, q

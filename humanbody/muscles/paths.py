"""An OpenSim model's muscle paths packed into flat arrays for :mod:`humanbody._kernels.muscle_paths`.

Bodies are numbered as ``model.body_names`` (ground 0), coordinates as
``model.coordinate_names``.  Path points keep their body and location (m, body frame);
conditional points their coordinate and range; moving points one function of one coordinate
per axis, packed with the core's :class:`~humanbody.core.functions.FunctionTable` (the joints' table,
evaluated by the same kernel, :func:`humanbody._kernels.functions.function_value`).  Wrap surfaces
keep their body, their frame in the body (rotation: OpenSim's body-fixed X-Y-Z angles), their kind and size, and their quadrant as ``(axis, sign)``; path wraps
their surface, their range of points and their ellipsoid method (:data:`METHOD_CODES`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..core.functions import Constant, Function, FunctionTable
from ..errors import InputError
from ..osim.model import OsimModel, xyz_body_fixed

WRAP_CODES = {"cylinder": 0, "sphere": 1, "ellipsoid": 2, "torus": 3}
KERNEL_WRAPS = ("cylinder", "sphere", "ellipsoid", "torus")
METHOD_CODES = {"hybrid": 0, "midpoint": 1, "axial": 2}
POINT_CODES = {"fixed": 0, "conditional": 1, "moving": 2}


def quadrant_code(quadrant: str, where: str) -> tuple[int, int]:
    """OpenSim's quadrant name as ``(axis, sign)``; ``all`` is sign 0.

    Parameters
    ----------
    quadrant : str
        ``all``, ``x``, ``-y``, ``+z`` ... (case and spaces ignored; empty or ``unassigned`` is ``all``).
    where : str
        What the quadrant belongs to, for the message.

    Returns
    -------
    axis : int
        0, 1, 2 for x, y, z (0 for ``all``).
    sign : int
        1, -1, or 0 for ``all``.

    Raises
    ------
    InputError
        Not one of ``all``, ±x, ±y, ±z.
    """
    q = quadrant.strip().lower()
    if q in ("all", "unassigned", ""):
        return 0, 0
    sign = -1 if q.startswith("-") else 1
    axis = q.lstrip("+-")
    if axis not in ("x", "y", "z"):
        raise InputError(f"{where}: quadrant {quadrant!r} is not one of all, ±x, ±y, ±z")
    return "xyz".index(axis), sign


@dataclass(frozen=True)
class PackedPaths:
    """Every muscle path of a model as arrays (see the module notes); ``arrays()`` is the kernels' tuple."""

    muscles: tuple[str, ...]
    bodies: tuple[str, ...]
    coordinates: tuple[str, ...]
    max_points: int
    point_arrays: tuple
    wrap_arrays: tuple
    functions: FunctionTable

    def arrays(self) -> tuple:
        """The kernels' tuple of the packed paths.

        Returns
        -------
        tuple of numpy.ndarray
            The point arrays, the wrap arrays, then the function table's arrays, in the kernels' order.
        """
        return self.point_arrays + self.wrap_arrays + self.functions.arrays()

    @classmethod
    def build(cls, model: OsimModel) -> PackedPaths:
        """Pack ``model``'s muscles (ValueError-free: the reader checked every name).

        Parameters
        ----------
        model : OsimModel
            The model whose muscles are packed.

        Returns
        -------
        PackedPaths
            The model's muscle paths as arrays.
        """
        body = {n: i for i, n in enumerate(model.body_names)}
        coord = {n: i for i, n in enumerate(model.coordinate_names)}
        functions: list[Function] = []
        rows = []
        m_pt = [0]
        for m in model.muscles:
            for p in m.points:
                fn = [-1, -1, -1]
                mc = [-1, -1, -1]
                if p.kind == "moving":
                    for a in range(3):
                        fn[a] = len(functions)
                        functions.append(p.functions[a])
                        mc[a] = coord.get(p.moving_coordinates[a], -1)
                rows.append((body[p.body], p.location, POINT_CODES[p.kind], coord.get(p.coordinate, -1),
                             p.range, mc, fn))
            m_pt.append(len(rows))
        points = (
            np.array([r[0] for r in rows], np.int64), np.array([r[1] for r in rows], float).reshape(-1, 3),
            np.array([r[2] for r in rows], np.int64), np.array([r[3] for r in rows], np.int64),
            np.array([r[4] for r in rows], float).reshape(-1, 2), np.array([r[5] for r in rows], np.int64).reshape(-1, 3),
            np.array([r[6] for r in rows], np.int64).reshape(-1, 3), np.array(m_pt, np.int64))
        wraps, n_wraps_max = _pack_wraps(model, body)
        table = FunctionTable.of(functions or [Constant(0.0)])
        max_points = max(len(m.points) + 2 * len(m.wraps) for m in model.muscles) if model.muscles else 2
        return cls(model.muscle_names, model.body_names, model.coordinate_names, max_points, points, wraps, table)


def _pack_wraps(model: OsimModel, body: dict) -> tuple[tuple, int]:
    """The path wraps of every muscle and the wrap surfaces they use."""
    objects = [w for w in model.wrap_objects]
    index = {w.name: i for i, w in enumerate(objects)}
    pw_obj, pw_range, pw_method, m_pw = [], [], [], [0]
    for m in model.muscles:
        for pw in m.wraps:
            if pw.wrap_object not in index:
                continue                       # named in model.notes by the reader
            pw_obj.append(index[pw.wrap_object])
            pw_range.append(pw.range)
            pw_method.append(METHOD_CODES.get(pw.method, 0))
        m_pw.append(len(pw_obj))
    n = len(objects)
    wo_R = np.zeros((max(n, 1), 3, 3))
    wo_p = np.zeros((max(n, 1), 3))
    wo_dim = np.zeros((max(n, 1), 3))
    wo_body = np.zeros(max(n, 1), np.int64)
    wo_kind = np.zeros(max(n, 1), np.int64)
    wo_axis = np.zeros(max(n, 1), np.int64)
    wo_sign = np.zeros(max(n, 1), np.int64)
    wo_active = np.zeros(max(n, 1), np.bool_)
    for i, w in enumerate(objects):
        wo_R[i] = xyz_body_fixed(w.rotation)
        wo_p[i] = w.translation
        wo_body[i] = body[w.body]
        wo_kind[i] = WRAP_CODES[w.kind]
        wo_axis[i], wo_sign[i] = quadrant_code(w.quadrant, f"wrap object {w.name}")
        wo_active[i] = w.active and w.kind in KERNEL_WRAPS
        if w.kind == "cylinder":
            wo_dim[i] = (w.radius, w.length, 0.0)
        elif w.kind == "sphere":
            wo_dim[i] = (w.radius, 0.0, 0.0)
        elif w.kind == "ellipsoid":
            wo_dim[i] = w.dimensions
        else:
            wo_dim[i] = (w.inner_radius, w.outer_radius, 0.0)
    arrays = (np.array(pw_obj, np.int64), np.array(pw_range, np.int64).reshape(-1, 2), np.array(m_pw, np.int64),
              wo_body, wo_R, wo_p, wo_kind, wo_dim, wo_axis, wo_sign, wo_active, np.array(pw_method, np.int64))
    counts = np.diff(m_pw)
    return arrays, int(counts.max()) if len(counts) else 0

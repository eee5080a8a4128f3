"""OpenSim input files from a humanbody trial: TRC markers, GRF MOT with ExternalLoads XML, angle and moment tables.

The layouts are those OpenSim's own tools read (and :mod:`humanbody.io.trc`,
:mod:`humanbody.io.opensim` and :func:`humanbody.io.loads.read_loads` read
back):

- TRC: five header lines (``PathFileType 4``, the key line, its values with
  ``Units``, ``Frame#  Time  <marker>`` with two blank cells after each
  name, ``X1 Y1 Z1 ...``), a blank line, then one tab-separated row per
  frame; a missing sample is ``NaN`` (OpenSim's TRC adapter reads it as
  missing).
- MOT/STO: a title line, ``version=1``, ``nRows``, ``nColumns``,
  ``inDegrees``, ``endheader``, the column names, tab-separated rows.
- ExternalLoads XML: one ``ExternalForce`` per foot, force and point
  expressed in ground, identifiers naming the MOT columns
  (``ground_force_v``/``ground_force_p``/``ground_torque_`` for the right
  foot, ``1_ground_...`` for the left, as OpenSim's examples name them).

OpenSim's axes: X forward, Y up, Z to the right.  humanbody's ground (X
forward, Y left, Z up) maps to them by :data:`OPENSIM_OF_GROUND`.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.sax.saxutils import escape

import numpy as np

from ..atomic import atomic_path, open_temp
from ..errors import InputError
from .writers import PARALLEL_MIN_VALUES, check_digits, format_chunks, write_all

__all__ = [
    "GRF_PREFIXES",
    "OPENSIM_OF_GROUND",
    "foot_wrenches",
    "write_external_loads",
    "write_storage",
    "write_trc",
]

#: OpenSim components = OPENSIM_OF_GROUND @ ground components (X forward, Y up, Z right).
OPENSIM_OF_GROUND = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])

#: Column prefixes of each foot's force in the GRF file (force ``<p>force_v*``, point ``<p>force_p*``,
#: free moment ``<p>torque_*``).
GRF_PREFIXES = {"right": "ground_", "left": "1_ground_"}

#: Values of an OpenSim table filled, printed and written at a time (whole rows; at most
#: ``writers.PARALLEL_MIN_VALUES - 1``, so that a chunk is printed on the calling thread).
_CHUNK_VALUES = 1 << 16


def _nan_cells(text: bytes) -> bytes:
    """Tab-separated lines with ``NaN`` in every empty cell that follows a tab.

    An empty cell is a tab followed by a tab or by the line's end.  One
    ``replace`` pass fills every other cell of a run of empty cells (its
    matches do not overlap), so two passes fill them all; a line's last
    cell comes last.
    """
    text = text.replace(b"\t\t", b"\tNaN\t").replace(b"\t\t", b"\tNaN\t")
    return text.replace(b"\t\n", b"\tNaN\n")


def _write_text(path: Path, head: bytes, rows: int, width: int, fill, digits: int) -> str:
    """Write ``head`` then a table's rows atomically: tab-separated, ``digits`` significant digits (C's
    ``%g``), ``NaN`` for a missing value (an empty cell would end a row early for OpenSim).

    ``fill(r0, r1, out)`` puts rows ``r0:r1`` of the table, ``rows`` x
    ``width`` float64, into ``out``.  The table is never formed whole: it is
    filled, printed and written a chunk of rows (:data:`_CHUNK_VALUES`
    values, half a megabyte) at a time, each chunk's text written straight
    from one of two print buffers by a second thread while the next chunk
    is printed.  A chunk is printed by the kernel's single-thread variant:
    with the writing thread beside it, that took 0.9 s for the 100,000-frame
    TRC and angles where the two-thread variant took 1.5 s, on two cores
    shared with other work (``benchmarks/bench_export.py``).  Every printed
    block holds whole lines, so the ``NaN`` cells are filled in the chunks
    that have one.
    """
    digits = check_digits(digits)
    step = max(1, min(_CHUNK_VALUES, PARALLEL_MIN_VALUES - 1) // max(1, width))
    table = np.empty((min(rows, step), width))
    try:
        with atomic_path(path) as tmp, open_temp(tmp, buffering=0) as fh, \
                ThreadPoolExecutor(max_workers=1, thread_name_prefix="humanbody-opensim") as pool:
            fd = fh.fileno()
            pending = pool.submit(write_all, fd, [head])
            scratch, turn = [[None], [None]], 0  # the buffer printed into, while the other one is written
            for r0 in range(0, rows, step):
                r1 = min(rows, r0 + step)
                part = table[:r1 - r0]
                fill(r0, r1, part)
                chunks = format_chunks(part, digits, sep="\t", scratch=scratch[turn])
                if np.isnan(part).any():
                    chunks = [_nan_cells(bytes(c)) for c in chunks]
                pending.result()
                pending = pool.submit(write_all, fd, chunks)
                turn ^= 1
            pending.result()
    except OSError as err:
        raise InputError(f"cannot write the OpenSim file ({err.strerror or err})", path) from None
    return str(path)


def _write_bytes(path: Path, data: bytes) -> str:
    try:
        with atomic_path(path) as tmp, open_temp(tmp) as fh:
            fh.write(data)
    except OSError as err:
        raise InputError(f"cannot write the OpenSim file ({err.strerror or err})", path) from None
    return str(path)


def write_trc(path, names, xyz, time, rate_hz: float, unit: str = "mm", first_frame: int = 1,
              digits: int = 9, *, axes=None, scale: float = 1.0) -> str:
    """Write markers ``xyz`` (frames, markers, 3) as a TRC file.

    The file receives ``xyz @ axes.T / scale``: ``axes`` (3, 3) turns the
    points into OpenSim's axes and ``scale`` (length units per ``unit``)
    into ``unit``, frame block by frame block as the rows are written;
    without them ``xyz`` is already in OpenSim's axes and ``unit``.

    Parameters
    ----------
    path : str or os.PathLike
        The .trc file to write.
    names : sequence of str
        The markers' names, in xyz's order.
    xyz : ndarray, shape (frames, markers, 3)
        Marker positions (NaN for a gap), in OpenSim's axes and unit unless axes and scale are given.
    time : ndarray, shape (frames,), s
        The frames' times.
    rate_hz : float, Hz
        The frame rate written in the header.
    unit : str
        The length unit written in the header ("mm", "m").
    first_frame : int
        The number of the first frame (1-based).
    digits : int
        Significant digits.
    axes : ndarray, shape (3, 3), optional
        Turns xyz into OpenSim's axes (rows written xyz @ axes.T).
    scale : float
        xyz's length units per unit (xyz is divided by it).

    Returns
    -------
    str
        The path written.
    """
    path = Path(path)
    n, m = len(time), len(names)
    head = "\n".join([
        f"PathFileType\t4\t(X/Y/Z)\t{path.name}",
        "DataRate\tCameraRate\tNumFrames\tNumMarkers\tUnits\tOrigDataRate\tOrigDataStartFrame\tOrigNumFrames",
        f"{rate_hz:g}\t{rate_hz:g}\t{n}\t{m}\t{unit}\t{rate_hz:g}\t{first_frame}\t{n}",
        "Frame#\tTime\t" + "".join(f"{name}\t\t\t" for name in names).rstrip("\t"),
        "\t\t" + "\t".join(f"X{i}\tY{i}\tZ{i}" for i in range(1, m + 1)),
        "", "",
    ]).encode()
    time = np.asarray(time, dtype=float)
    A = None if axes is None else np.asarray(axes, dtype=float).T

    def fill(r0, r1, out):
        out[:, 0] = first_frame + np.arange(r0, r1)
        out[:, 1] = time[r0:r1]
        p = np.asarray(xyz[r0:r1], dtype=float)
        if A is not None:
            p = p @ A
        if scale != 1.0:
            p = p / scale
        out[:, 2:] = p.reshape(r1 - r0, 3 * m)

    return _write_text(path, head, n, 2 + 3 * m, fill, digits)


def write_storage(path, title: str, columns, time, values, in_degrees: bool, digits: int = 9) -> str:
    """Write an OpenSim MOT/STO table: ``time`` then ``columns``.

    ``values`` (frames, len(columns)): an array, or any object with a 2-D
    ``shape`` whose row slices ``values[r0:r1]`` are arrays (read a block
    of rows at a time).

    Parameters
    ----------
    path : str or os.PathLike
        The .mot or .sto file to write.
    title : str
        The header's first line (the table's name).
    columns : sequence of str
        The column names after time.
    time : ndarray, shape (frames,), s
        The frames' times.
    values : ndarray-like, shape (frames, len(columns))
        The values, in the units the columns carry (degrees when in_degrees).
    in_degrees : bool
        The header's ``inDegrees``.
    digits : int
        Significant digits.

    Returns
    -------
    str
        The path written.
    """
    n = len(time)
    if not (hasattr(values, "shape") and len(values.shape) == 2):
        values = np.asarray(values, dtype=float).reshape(n, -1)
    time = np.asarray(time, dtype=float)
    head = "\n".join([title, "version=1", f"nRows={n}", f"nColumns={len(columns) + 1}",
                      f"inDegrees={'yes' if in_degrees else 'no'}", "endheader",
                      "\t".join(["time", *columns]), ""]).encode()

    def fill(r0, r1, out):
        out[:, 0] = time[r0:r1]
        out[:, 1:] = values[r0:r1]

    return _write_text(Path(path), head, n, len(columns) + 1, fill, digits)


def write_external_loads(path, datafile: str, bodies: dict) -> str:
    """OpenSim ExternalLoads XML: one ExternalForce per side in ``bodies`` (side -> body name), data in ``datafile``.

    Parameters
    ----------
    path : str or os.PathLike
        The .xml file to write.
    datafile : str
        The ground-reaction .mot file's name, as written in the XML.
    bodies : dict of str to str
        Side ("right", "left") -> the OpenSim body the side's force is applied to.

    Returns
    -------
    str
        The path written.
    """
    forces = []
    for side, body in bodies.items():
        p = GRF_PREFIXES[side]
        forces.append(f"""			<ExternalForce name="{side}_foot">
				<applied_to_body>{escape(body)}</applied_to_body>
				<force_expressed_in_body>ground</force_expressed_in_body>
				<point_expressed_in_body>ground</point_expressed_in_body>
				<force_identifier>{p}force_v</force_identifier>
				<point_identifier>{p}force_p</point_identifier>
				<torque_identifier>{p}torque_</torque_identifier>
				<data_source_name>{escape(datafile)}</data_source_name>
			</ExternalForce>""")
    text = f"""<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000">
	<ExternalLoads name="externalloads">
		<objects>
{chr(10).join(forces)}
		</objects>
		<groups />
		<datafile>{escape(datafile)}</datafile>
	</ExternalLoads>
</OpenSimDocument>
"""
    return _write_bytes(Path(path), text.encode())


def foot_wrenches(loads, foot_index: int, floor: float | None = None):
    """Each frame's load on one foot as OpenSim wants it: force, centre of pressure, free moment.

    Parameters
    ----------
    loads : humanbody.mechanics.loads.FrameLoads
        Conditioned loads on the frames with their per-frame segment
        (``body``).
    foot_index : int
        Segment index of the foot (0-based, as ``loads.body``).
    floor : float, optional
        Height (m, ground Z) of the plane the centre of pressure lies on;
        default the median height of the loads' centres of pressure.

    Returns
    -------
    force, point, torque : (F, 3) each, ground axes
        The sum of the loads on the foot, ``F = sum F_i`` and ``M_O = sum
        M_O,i`` (about the ground origin); the point on the plane z = h
        where the moment has no horizontal part, ``x = (h F_x - M_Oy) /
        F_z``, ``y = (M_Ox + h F_y) / F_z``; the free moment ``T = M_O - P
        x F`` (vertical).  Frames without load: zero force, the point at
        the origin of the plane, zero moment.
    """
    on = loads.body == foot_index  # (F, L)
    F = np.einsum("fl,fli->fi", on, np.nan_to_num(loads.force))
    Mo = np.einsum("fl,fli->fi", on, np.nan_to_num(loads.moment_o))
    if floor is None:
        z = loads.cop[..., 2]
        floor = float(np.nanmedian(z)) if np.isfinite(z).any() else 0.0
    h = floor
    loaded = np.abs(F[:, 2]) > 1e-9
    fz = np.where(loaded, F[:, 2], 1.0)
    P = np.zeros_like(F)
    P[:, 0] = np.where(loaded, (h * F[:, 0] - Mo[:, 1]) / fz, 0.0)
    P[:, 1] = np.where(loaded, (Mo[:, 0] + h * F[:, 1]) / fz, 0.0)
    P[:, 2] = h
    T = np.where(loaded[:, None], Mo - np.cross(P, F), 0.0)
    return F, P, T

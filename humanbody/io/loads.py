"""Load files in: force plates and load tables as one :class:`LoadTable`, ground axes.

A load is a force F (N), its point of application P (m) and a free moment M
(N·m about P), ground axes.  :func:`read_loads` reads every load file into
one :class:`LoadTable` on the file's own time base:

- OpenSim ground-reaction files (``.mot``/``.sto``): per plate
  ``<p>vx/vy/vz`` (force), ``<p>px/py/pz`` (point), ``<p'>torque_x/y/z`` (free
  moment), lab axes.  An ExternalLoads ``.xml`` beside the file (same stem, or
  ``<stem>.xml``, ``<stem>_loads.xml``, or ``<trial>_external_loads.xml`` beside
  ``<trial>_grf.mot``) names the body each plate acts on;
  OpenSim's body names map to segments (:data:`OPENSIM_BODIES`).  Other
  columns are ignored.
- an OpenSim ExternalLoads ``.xml`` itself: its ``<datafile>`` (relative to
  the XML) is read as above, with the XML's bodies.
- C3D force platforms (:func:`humanbody.io.forceplates.read_c3d_platforms`).
- the generic loads table of docs/conventions.md (``L_force_x`` ...,
  ``L_point_x`` ..., ``L_moment_x`` ..., ground axes).

Conditioning and assignment to segments are mechanics
(:mod:`humanbody.mechanics.loads`, :mod:`humanbody.mechanics.foot_contact`).
"""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import ROUTINE, InputError, Note
from ..signal import FORCE_THRESHOLD
from .forceplates import (
    file_plates,
    plate_from_points,
    reaction_sign,
    read_c3d_platforms,
    vertical_axis_mapping,
    vertical_mapping,
)
from .opensim import read_opensim, read_opensim_arrays

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["LoadTable", "read_loads", "OPENSIM_BODIES", "FORCE_THRESHOLD"]


#: OpenSim body names (Gait2392, Rajagopal, Hamner) -> our segments.
OPENSIM_BODIES = {
    "pelvis": "lower_torso", "torso": "upper_torso", "head": "head",
    **{f"{b}_{s}": f"{side}_{seg}" for s, side in (("r", "right"), ("l", "left"))
       for b, seg in (("femur", "upper_leg"), ("tibia", "lower_leg"), ("patella", "lower_leg"),
                      ("talus", "foot"), ("calcn", "foot"), ("toes", "foot"), ("humerus", "upper_arm"),
                      ("ulna", "lower_arm"), ("radius", "lower_arm"), ("hand", "hand"))},
}

_AXES = ("x", "y", "z")


@dataclass(eq=False)
class LoadTable:
    """Loads as read, on the file's own time base, ground axes.

    Attributes
    ----------
    time : (T,) s
    names : list of str               one per load (plate)
    force, point, moment : (T, L, 3)  N, m (NaN where undefined), N·m about the point
    segments : list of str or None    the segment each load acts on, when the file says
    source : str
    plates : list of PlateGeometry    each load's plate surface (:mod:`humanbody.io.forceplates`)
    rate_hz : float
    """

    time: np.ndarray
    names: list
    force: np.ndarray
    point: np.ndarray
    moment: np.ndarray
    segments: list
    source: str = ""
    notes: list = field(default_factory=list)
    plates: list | None = None

    @property
    def rate_hz(self) -> float:
        return float((len(self.time) - 1) / (self.time[-1] - self.time[0])) if len(self.time) > 1 else float("nan")



def _xml_beside(path: Path) -> Path | None:
    trial = path.stem[:-len("_grf")] if path.stem.endswith("_grf") else path.stem
    for cand in (path.with_suffix(".xml"), path.with_name(path.stem + "_loads.xml"),
                 path.with_name(path.stem + "_ExternalLoads.xml"),
                 path.with_name(trial + "_external_loads.xml")):  # what --export opensim writes
        if cand.is_file():
            return cand
    return None


def _xml_root(xml: Path) -> ET.Element:
    """The parsed ExternalLoads file (its root element); an InputError naming it when it cannot be read."""
    try:
        return ET.parse(xml).getroot()
    except (ET.ParseError, OSError) as err:
        raise InputError(f"cannot read the ExternalLoads file ({err})", xml) from None


def _xml_datafile(xml: Path) -> Path:
    """The data file an ExternalLoads file names (``<datafile>``, relative to the XML), checked: the XML
    is an ExternalLoads file, names an OpenSim ``.mot``/``.sto`` and that file exists."""
    loads = _xml_root(xml)
    if loads.tag != "ExternalLoads":
        found = list(loads.iter("ExternalLoads"))
        if not found:
            raise InputError("is not an OpenSim ExternalLoads file (no <ExternalLoads> element)", xml)
        loads = found[0]
    name = (loads.findtext("datafile") or "").strip()
    if not name:
        raise InputError("ExternalLoads file names no data file (<datafile> is missing or empty)", xml)
    data = xml.parent / name
    if data.suffix.lower() not in (".mot", ".sto"):
        raise InputError(f"ExternalLoads data file {name!r} is not an OpenSim .mot or .sto file", xml)
    if not data.is_file():
        raise InputError(f"ExternalLoads data file {name!r} not found (looked for {data})", xml)
    return data


def _xml_bodies(xml: Path) -> dict:
    """Force identifier prefix -> OpenSim body name, from an ExternalLoads file."""
    root = _xml_root(xml)
    out = {}
    for ef in root.iter("ExternalForce"):
        body = (ef.findtext("applied_to_body") or "").strip()
        ident = (ef.findtext("force_identifier") or "").strip()
        disabled = (ef.findtext("isDisabled") or "false").strip().lower() == "true"
        if body and ident and not disabled:
            out[ident] = body
    return out


def _finite_check(name, values, path):
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.argmax(bad.any(axis=tuple(range(1, values.ndim)))))
        raise InputError(f"{name} has a missing or non-finite value (row {row + 1})", path)


def _infinite_check(name: str, values: np.ndarray, path) -> None:
    """Raise InputError naming ``path`` and the first data row when ``values`` holds an infinite value.

    A missing value (NaN) passes: a centre of pressure is undefined while nothing stands on the plate.

    Parameters
    ----------
    name : str
        What the values are, for the message (``point of plate1``).
    values : numpy.ndarray
        (frames, 3) a plate's point (m) or moment (N m) in the file's axes and units.
    path : str or pathlib.Path
        The load file, named by the message.
    """
    bad = np.isinf(values)
    if bad.any():
        row = int(np.argmax(bad.any(axis=tuple(range(1, values.ndim)))))
        raise InputError(f"{name} has an infinite value (row {row + 1})", path)


def read_loads(path, mapping=None, loads: dict | None = None) -> LoadTable:
    """Read a ground-reaction or loads file into ground axes.

    Parameters
    ----------
    path : str or Path
        An OpenSim ``.mot``/``.sto`` ground-reaction file, an OpenSim
        ExternalLoads ``.xml`` (its ``<datafile>`` is read, with its bodies),
        a C3D file with force platforms, or a loads table (CSV,
        docs/conventions.md "External loads").
    mapping : ndarray (3, 3), optional
        Lab -> ground axes of a ground-reaction file (``ground = mapping @
        lab``), the markers' mapping; detected from the vertical force when
        omitted.  A loads table is in ground axes already.
    loads : dict, optional
        Load name -> segment (``--load NAME=segment``), overriding the file.

    Returns
    -------
    LoadTable
        The loads per sample: force (N), point (m) and moment (N m), ground axes, with names and segments.

    Raises
    ------
    InputError
        Unreadable file, no load columns, non-finite forces, time not increasing;
        an ExternalLoads file that cannot be read, names no data file or one
        that does not exist.
    """
    path = Path(os.fspath(path))
    if path.suffix.lower() == ".c3d":
        return _read_c3d_platforms(path, mapping, loads)
    if path.suffix.lower() == ".xml":  # an ExternalLoads file given itself: its data file, with its bodies
        xml, path = path, _xml_datafile(path)
    else:
        xml = _xml_beside(path)
    notes: list = []
    arrays = read_opensim_arrays(path) if path.suffix.lower() in (".mot", ".sto") else None
    if arrays is not None and file_plates(arrays[0]):
        # plates of an OpenSim file: its arrays, no DataFrame (no pandas at the start of `humanbody muscles`)
        columns, file_time, values, _ = arrays
        time = _check_time(file_time, path)
        index = {c: j for j, c in enumerate(columns)}

        def block(names: list[str]) -> np.ndarray:
            return np.asfortranarray(values[:, [index[c] for c in names]])

        vertical = vertical_mapping(columns, lambda c: values[:, index[c]], str(path)) if mapping is None else None
        names, forces, points, moments, segs = _plate_columns(block, vertical, file_plates(columns), path, mapping,
                                                              notes, xml)
    else:
        table = read_opensim(path) if arrays is not None else _read_csv(path)
        time = _file_time(table, path)
        plates = file_plates(table.columns)
        if plates:
            vertical = vertical_axis_mapping(table) if mapping is None else None
            names, forces, points, moments, segs = _plate_columns(_block(table), vertical, plates, path, mapping,
                                                                  notes, xml)
        else:
            names, forces, points, moments, segs = _generic_columns(table, path)
    force, point, moment = (np.stack(a, axis=1) for a in (forces, points, moments))
    moment = np.nan_to_num(moment)
    down = [j for j in range(len(names)) if reaction_sign(force[:, j, 2], FORCE_THRESHOLD) < 0]
    if down:  # the force on the plate (a lab's export): the reaction on the subject is its opposite
        force[:, down] *= -1.0
        moment[:, down] *= -1.0
        notes.append(f"loads: {', '.join(names[j] for j in down)} give the force on the plate (downwards): taken "
                     "as the ground reaction on the subject, its opposite")
    for name, seg in (loads or {}).items():
        if name not in names:
            raise InputError(f"loads {name}=...: the file has no load {name!r} (it has {', '.join(names)})", path,
                             option="loads")
        segs[names.index(name)] = seg
    plates_geo = [plate_from_points(n, point[:, j], force[:, j, 2] >= FORCE_THRESHOLD) for j, n in enumerate(names)]
    notes += _geometry_notes(plates_geo)
    return LoadTable(time, names, force, point, moment, segs, str(path), notes, plates=plates_geo)


def _file_time(table: pd.DataFrame, path: Path) -> np.ndarray:
    """The load file's time column (s), checked: present, two rows or more, increasing."""
    if "time" not in table.columns:
        raise InputError("load file has no time column", path)
    return _check_time(table["time"].to_numpy(dtype=float), path)


def _check_time(time: np.ndarray, path: Path) -> np.ndarray:
    """A load file's time column (s) checked: two rows or more, increasing."""
    if len(time) < 2:
        raise InputError("load file has fewer than two rows", path)
    if np.any(np.diff(time) <= 0):
        raise InputError(f"time is not increasing at row {int(np.argmax(np.diff(time) <= 0)) + 2}", path)
    return time


def _block(table: pd.DataFrame):
    """``columns -> table[columns].to_numpy(dtype=float)`` (the same array, column-major), from one array of the
    whole table: a DataFrame column selection costs 3-10 ms, this a few microseconds."""
    try:
        values = table.to_numpy(dtype=float)
    except (TypeError, ValueError):  # a column of text (a CSV loads table): selected column by column
        values = None

    def block(columns: list[str]) -> np.ndarray:
        where = table.columns.get_indexer(columns)
        if values is None or (where < 0).any():
            return table[columns].to_numpy(dtype=float)  # the same error as before on a bad column
        return np.asfortranarray(values[:, where])

    return block


def _plate_columns(block, vertical, plates, path: Path, mapping, notes: list, xml: Path | None) -> tuple:
    """Per plate of an OpenSim ground-reaction table (``block(columns) -> ndarray (frames, len(columns))``):
    names, force, point, moment (ground axes) and the segment its ExternalLoads file ``xml`` names (or None);
    ``vertical`` the table's lab -> ground mapping, used when ``mapping`` is None."""
    M = vertical if mapping is None else np.asarray(mapping, dtype=float)
    names, force, point, moment, segs = [], [], [], [], []
    bodies = {}
    if xml is not None:
        bodies = _xml_bodies(xml)
        notes.append(f"loads: bodies from {xml.name}")
    for i, (p, t) in enumerate(plates):
        name = p.rstrip("_") or f"plate{i + 1}"
        f = block([f"{p}v{a}" for a in _AXES])
        _finite_check(f"force of {name}", f, path)
        q = block([f"{p}p{a}" for a in _AXES])
        _infinite_check(f"point of {name}", q, path)
        m = block([f"{t}{a}" for a in _AXES]) if t else np.zeros_like(f)
        _infinite_check(f"moment of {name}", m, path)
        f, q, m = f @ M.T, q @ M.T, m @ M.T  # checked first: inf * 0 in the product would be a NaN and a warning
        names.append(name)
        force.append(f)
        point.append(q)
        moment.append(m)
        body = bodies.get(p + "v", bodies.get(p))  # OpenSim names the force "<prefix>v"
        if body is not None and body not in OPENSIM_BODIES:
            raise InputError(f"ExternalLoads names body {body!r}, which has no segment of the 17-segment "
                             f"model (known: {', '.join(sorted(OPENSIM_BODIES))})", xml)
        segs.append(OPENSIM_BODIES.get(body) if body else None)
    return names, force, point, moment, segs


def _generic_columns(table: pd.DataFrame, path: Path) -> tuple:
    """Per load of a loads table (``<load>_force_x`` ..., ground axes): names, force, point, moment, no segment."""
    generic = sorted({c[: -len("_force_x")] for c in table.columns if c.endswith("_force_x")})
    generic = [g for g in generic if all(f"{g}_{w}_{a}" in table.columns for w in ("force", "point") for a in _AXES)]
    if not generic:
        raise InputError("no loads: neither force-plate columns (<plate>vx/vy/vz, px/py/pz) nor "
                         "<load>_force_x/y/z with <load>_point_x/y/z", path)
    names, force, point, moment = [], [], [], []
    segs: list = []
    block = _block(table)
    for g in generic:
        f = block([f"{g}_force_{a}" for a in _AXES])
        _finite_check(f"force of {g}", f, path)
        names.append(g)
        force.append(f)
        point.append(block([f"{g}_point_{a}" for a in _AXES]))
        cols = [f"{g}_moment_{a}" for a in _AXES]
        moment.append(block(cols) if all(c in table.columns for c in cols) else np.zeros_like(f))
        segs.append(None)
    return names, force, point, moment, segs


def _read_c3d_platforms(path: Path, mapping, loads) -> LoadTable:
    """Force platforms of a C3D file (:func:`humanbody.io.forceplates.read_c3d_platforms`) as a LoadTable."""
    c = read_c3d_platforms(path, mapping)
    segs = [None] * len(c.names)
    for name, seg in (loads or {}).items():
        if name not in c.names:
            raise InputError(f"loads {name}=...: the file has no load {name!r} (it has {', '.join(c.names)})", path,
                             option="loads")
        segs[c.names.index(name)] = seg
    notes = [f"loads: {len(c.names)} force platform(s) of type {', '.join(map(str, c.types))} from the "
             f"C3D file at {c.rate_hz:g} Hz"]
    if c.rezeroed:
        notes.append("loads: not zeroed before the trial, the resting force taken off: "
                     + ", ".join(f"{k} {abs(v[2]):.0f} N" for k, v in c.rezeroed.items()))
    if c.reversed:
        notes.append(f"loads: {', '.join(c.reversed)} give the force on the plate (downwards): taken as the ground "
                     "reaction on the subject, its opposite")
    return LoadTable(c.time, list(c.names), c.force, c.point, c.moment, segs, str(path),
                     notes + _geometry_notes(c.plates), plates=list(c.plates))


def _geometry_notes(plates) -> list:
    """One line on plates that are not flat on the ground (raised, tilted): where they are."""
    odd = [p for p in plates if abs(p.height) > 0.01 or p.tilt_deg > 1.0]
    if not odd:
        return []
    return [Note("loads: plates off the ground: " + ", ".join(
        f"{p.name} at {p.height * 1000:.0f} mm" + (f" tilted {p.tilt_deg:.0f} deg" if p.tilt_deg > 1.0 else "")
        for p in odd), ROUTINE)]


def _read_csv(path: Path) -> pd.DataFrame:
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the load file ({getattr(err, 'strerror', None) or err})", path) from None
    if not text.strip():
        raise InputError("load file is empty", path)
    try:
        table = pd.read_csv(io.StringIO(text), sep=None, engine="python")
    except (pd.errors.ParserError, ValueError) as err:
        raise InputError(f"load file is not a table ({err})", path) from None
    bad = [c for c in table.columns if table[c].dtype == object]
    if bad:
        raise InputError(f"column {bad[0]!r} of the load file is not numeric", path)
    return table

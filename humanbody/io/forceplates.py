"""Force plates: the one home of their file layouts, vertical axis and geometry.

Every part of humanbody that touches a force plate (the kinetics' loads,
the force-plate gait events, the viewer's ground reactions) reads it here.

File layouts
------------
- OpenSim ground-reaction files (``.mot``/``.sto``): per plate six columns
  sharing a prefix ``p``: ``<p>vx, <p>vy, <p>vz`` (force, N) and ``<p>px,
  <p>py, <p>pz`` (point of application, m), and a free moment
  ``<q>torque_x/y/z`` (N·m) where ``q`` is ``p`` without its ``force_``
  (:func:`file_plates`).  OpenSim names the right foot's plate
  ``ground_force_`` and the left's ``1_ground_force_``
  (:data:`SIDE_PREFIXES`).
- C3D force platforms (types 1-4) through ezc3d's platform model
  (:func:`read_c3d_platforms`): force, centre of pressure and free moment in
  the lab, and the plate's corners.  Labs' plates measure the force the
  subject applies to them (AMTI, Kistler: plate z down, the vertical force on
  the plate downwards in the lab); a plate whose vertical force points down
  is turned into the ground reaction on the subject, ``-F`` and ``-M`` about
  the same centre of pressure (:func:`reaction_sign`).

Vertical axis
-------------
A force file alone does not say which lab axis is up.  Body weight dominates
a walking or running trial's ground reaction, so the lab axis carrying the
largest mean absolute force is vertical (:func:`vertical_axis_mapping`,
:func:`vertical_component`).

Geometry
--------
A plate's surface is a plane (:class:`PlateGeometry`: centre, unit normal,
corners).  From C3D corners it is exact, at any height and tilt (stairs,
ramps).  A force file gives no corners: the plane is horizontal through the
points the file gives while the plate is loaded (their median height), and
its outline the rectangle around those points.  On a plane through the point
``c`` with normal ``n``, the centre of pressure of the wrench ``(F, M_O)``
about the ground origin is the point where the moment has no tangential
part:

    P = c + n x (M_O - c x F) / (n . F)

(for a horizontal plane at height h: ``x = (h F_x - M_Oy) / F_z``,
``y = (M_Ox + h F_y) / F_z``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from ..signal import FORCE_THRESHOLD
from ._validate import LENGTH_UNITS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SIDE_PREFIXES", "PlateGeometry", "plate_prefixes", "file_plates", "vertical_axis_mapping", "rezeroed_centre",
           "vertical_component", "plate_from_corners", "plate_from_points", "centre_of_pressure",
           "read_c3d_platforms", "c3d_has_platforms", "C3DPlatforms", "reaction_sign", "vertical_forces"]

_AXES = ("x", "y", "z")

#: Force-column prefix of each foot's plate in an OpenSim ground-reaction file (gait2392 examples).
SIDE_PREFIXES = {"right": "ground_force_", "left": "1_ground_force_"}

#: Outline margin (m) around the loaded points of a plate known only from a force file.
OUTLINE_MARGIN = 0.10

#: Lab axes (Y up) of a force file whose vertical is y: OpenSim's (X forward, Y up, Z right).
_Y_UP = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])


# ------------------------------------------------------------------ file layouts
def plate_prefixes(columns) -> list[str]:
    """Prefixes ``p`` for which all of ``p + vx, vy, vz, px, py, pz`` are columns.

    Parameters
    ----------
    columns : iterable of str
        A force table's column names.

    Returns
    -------
    list of str
        The prefixes, in column order (e.g. "ground_force_", "1_ground_force_").
    """
    cols = set(columns)
    out = []
    for c in columns:
        if c.endswith("vx"):
            p = c[:-2]
            if all(p + s in cols for s in ("vx", "vy", "vz", "px", "py", "pz")):
                out.append(p)
    return out


def file_plates(columns) -> list[tuple[str, str | None]]:
    """(force prefix, torque prefix or None) of each plate: ``<p>vx..pz`` and ``<q>torque_x..z``.

    Parameters
    ----------
    columns : iterable of str
        A force table's column names.

    Returns
    -------
    list of (str, str or None)
        Per plate in column order: the prefix of its force and point columns, and that of its torque columns (None when
        it has none).
    """
    cols = set(columns)
    plates = []
    for p in plate_prefixes(columns):
        base = p[:-len("force_")] if p.endswith("force_") else p
        t = base + "torque_"
        plates.append((p, t if all(t + a in cols for a in _AXES) else None))
    return plates


def plate_name(prefix: str, i: int) -> str:
    """A plate's name: its column prefix without the trailing underscore, else ``plate<i+1>``.

    Parameters
    ----------
    prefix : str
        The plate's column prefix (e.g. "1_ground_force_").
    i : int
        The plate's index (0-based).

    Returns
    -------
    str
        The name.
    """
    name = prefix.rstrip("_")
    return name if name else f"plate{i + 1}"


def vertical_axis_mapping(forces: pd.DataFrame) -> np.ndarray:
    """Lab -> ground mapping for a force file alone: the vertical is the lab axis carrying most force.

    The lab axis with the largest mean absolute force summed over plates is
    vertical.  A Y-up file is taken as OpenSim's axes (X forward, Y up, Z
    right: spec ``x,-z,y``); a Z-up file keeps its axes.  Returns M (3, 3)
    with ``ground = M @ lab``.

    Parameters
    ----------
    forces : pandas.DataFrame
        An OpenSim ground-reaction table, lab axes.

    Returns
    -------
    ndarray, shape (3, 3)
        The signed permutation M with ground = M @ lab (Z up).
    """
    return vertical_mapping(forces.columns, lambda c: forces[c].to_numpy(dtype=float), forces.attrs.get("source"))


def vertical_mapping(columns, column, source) -> np.ndarray:
    """:func:`vertical_axis_mapping` of a table given as its column names and ``column(name) -> ndarray (frames,)``
    (N), ``source`` the file named by its error.

    Parameters
    ----------
    columns : sequence of str
        The table's column names.
    column : callable
        Gives a column's samples (N) by its name.
    source : str
        The file, named in the error.

    Returns
    -------
    ndarray, shape (3, 3)
        The signed permutation M with ground = M @ lab (Z up).
    """
    load = np.zeros(3)
    for p in plate_prefixes(columns):
        for j, a in enumerate(_AXES):
            load[j] += np.nanmean(np.abs(column(f"{p}v{a}")))
    up = int(np.argmax(load))
    if up == 1:
        return _Y_UP.copy()
    if up == 2:
        return np.eye(3)
    raise InputError("cannot tell the vertical axis of the force plates (most force is along lab x); "
                     "give `axes`", source)


def vertical_component(forces: pd.DataFrame, prefix: str) -> str:
    """The force component ('x', 'y' or 'z') of one plate with the largest median + 95th-percentile magnitude.

    Parameters
    ----------
    forces : pandas.DataFrame
        A force table (N, the file's lab axes).
    prefix : str
        The plate's column prefix.

    Returns
    -------
    str
        "x", "y" or "z" ("y" when the plate has none of the columns).
    """
    best, axis = -1.0, "y"
    for a in _AXES:
        col = f"{prefix}v{a}"
        if col in forces.columns:
            v = np.abs(forces[col].to_numpy(dtype=float))
            score = float(np.nanpercentile(v, 95)) + float(np.nanmedian(v))
            if score > best:
                best, axis = score, a
    return axis


# ------------------------------------------------------------------ geometry
@dataclass(eq=False)
class PlateGeometry:
    """A force plate's surface in ground axes (m).

    Attributes
    ----------
    name : str
    centre : (3,)        a point of the surface (the corners' mean, or the loaded points' median)
    normal : (3,)        unit normal of the surface, upwards
    corners : (4, 3)     outline of the surface, in order around it
    source : str         "corners" (the file's plate corners) or "points" (from the loaded points)
    """

    name: str
    centre: np.ndarray
    normal: np.ndarray
    corners: np.ndarray
    source: str = "points"

    @property
    def height(self) -> float:
        """Height (m) of the surface's centre above the ground origin."""
        return float(self.centre[2])

    @property
    def tilt_deg(self) -> float:
        """Angle (degrees) between the surface and the horizontal."""
        return float(np.degrees(np.arccos(np.clip(self.normal[2], -1.0, 1.0))))

    def cop(self, force, moment_o, through=None) -> np.ndarray:
        """Centre of pressure on the surface (or on the parallel plane through ``through``), (..., 3) m.

        Parameters
        ----------
        force : ndarray, shape (..., 3), N
            The force of the wrench (either sign convention), ground axes.
        moment_o : ndarray, shape (..., 3), N m about the ground origin
            The moment of the same wrench, ground axes.
        through : ndarray, shape (..., 3), optional, m
            A point of the plane parallel to the surface to use instead (e.g. the plate's top when the surface is its
            bottom); default the surface's centre.

        Returns
        -------
        ndarray, shape (..., 3), m
            The centre of pressure, ground axes; NaN where the force is parallel to the plane.
        """
        return centre_of_pressure(force, moment_o, self.normal, self.centre if through is None else through)


def centre_of_pressure(force, moment_o, normal, point) -> np.ndarray:
    """Where the line of action of the wrench ``(F, M_O)`` (about the ground origin) meets a plane.

    ``P = c + n x (M_O - c x F) / (n . F)`` for the plane through ``c``
    (``point``, (3,) or (..., 3)) with unit normal ``n``; NaN where the force
    is parallel to the plane.  Shapes (..., 3).

    Parameters
    ----------
    force : ndarray, shape (..., 3), N
        The force of the wrench, ground axes.
    moment_o : ndarray, shape (..., 3), N m
        Its moment about the ground origin, ground axes.
    normal : ndarray, shape (3,)
        The plane's normal (any length; normalized here).
    point : ndarray, shape (3,) or (..., 3), m
        A point of the plane, ground axes.

    Returns
    -------
    ndarray, shape (..., 3), m
        The centre of pressure, ground axes; NaN where the force is parallel to the plane.
    """
    F = np.asarray(force, dtype=float)
    c = np.broadcast_to(np.asarray(point, dtype=float), F.shape)
    n = np.asarray(normal, dtype=float)
    n = n / np.linalg.norm(n)
    m_c = np.asarray(moment_o, dtype=float) - np.cross(c, F)
    with np.errstate(invalid="ignore", divide="ignore"):
        nf = F @ n
        u = np.cross(n, m_c) / np.where(np.abs(nf) > 1e-9, nf, np.nan)[..., None]
    return c + u


def plate_from_corners(name: str, corners) -> PlateGeometry:
    """The plane of four corners (4, 3) m, ground axes; the normal points up.

    Parameters
    ----------
    name : str
        The plate's name.
    corners : array_like, shape (4, 3), m
        The plate's corners in ground axes, in order around the plate.

    Returns
    -------
    PlateGeometry
        The plate's centre (the corners' mean), upward unit normal and corners.
    """
    c = np.asarray(corners, dtype=float)
    centre = c.mean(axis=0)
    normal = np.cross(c[2] - c[0], c[3] - c[1])
    norm = np.linalg.norm(normal)
    if not np.isfinite(norm) or norm < 1e-9:
        raise InputError(f"force plate {name}: its corners do not span a surface")
    normal = normal / norm
    if normal[2] < 0:
        normal = -normal
    return PlateGeometry(name, centre, normal, c, "corners")


def plate_from_points(name: str, points, loaded) -> PlateGeometry:
    """A horizontal plate through the points a force file gives while loaded, (T, 3) m and (T,) bool.

    Height: the median height of those points; outline: their rectangle
    with :data:`OUTLINE_MARGIN` around it.  An unloaded plate lies on the
    ground (z = 0) around its points or the origin.

    Parameters
    ----------
    name : str
        The plate's name.
    points : array_like, shape (T, 3), m
        The file's force application points, ground axes, one per sample.
    loaded : array_like of bool, shape (T,)
        True at the samples the plate is loaded.

    Returns
    -------
    PlateGeometry
        A horizontal plate (normal +Z) with its outline (source "points").
    """
    p = np.asarray(points, dtype=float)
    ok = np.asarray(loaded, dtype=bool) & np.isfinite(p).all(axis=1)
    q = p[ok] if ok.any() else p[np.isfinite(p).all(axis=1)]
    if len(q) == 0:
        q = np.zeros((1, 3))
    z = float(np.median(q[:, 2])) if ok.any() else 0.0
    lo, hi = q[:, :2].min(axis=0) - OUTLINE_MARGIN, q[:, :2].max(axis=0) + OUTLINE_MARGIN
    corners = np.array([[hi[0], hi[1], z], [lo[0], hi[1], z], [lo[0], lo[1], z], [hi[0], lo[1], z]])
    centre = np.array([0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), z])
    return PlateGeometry(name, centre, np.array([0.0, 0.0, 1.0]), corners, "points")


# ------------------------------------------------------------------ C3D force platforms
_LENGTH = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}


def _length_factor(unit) -> float:
    """Metres per unit of a plate's ``unit_position`` (mm when unknown); a unit cut short by its
    parameter's width (``"mete"``) is the one length unit it begins."""
    key = str(unit).strip().lower()
    if key in _LENGTH:
        return _LENGTH[key]
    full = {LENGTH_UNITS[u] for u in LENGTH_UNITS if len(key) >= 3 and u.startswith(key)}
    return full.pop() if len(full) == 1 else 1e-3


@dataclass(eq=False)
class C3DPlatforms:
    """Force platforms of a C3D file in ground axes: time (T,) s; force, point, moment (T, P, 3) N, m, N·m (the
    ground reaction on the subject); ``reversed``: the plates whose channels gave the force on the plate."""

    time: np.ndarray
    names: list
    force: np.ndarray
    point: np.ndarray
    moment: np.ndarray
    plates: list
    rate_hz: float
    types: list
    reversed: list = field(default_factory=list)
    rezeroed: dict = field(default_factory=dict)
    """Plate name -> the resting force (N, (3,), the file's sign) taken off a plate that was not zeroed
    (:func:`resting_force`)."""


#: Largest resting force (N, vertical) taken as a plate's unzeroed offset, not a body standing on it.
MAX_OFFSET_N = 100.0


def resting_force(force, threshold: float = FORCE_THRESHOLD) -> np.ndarray | None:
    """The force (N, (3,)) a plate reads at rest when it was not zeroed, or None when it was.

    The resting samples are those within 5 N of the vertical force's 10th
    percentile (90th for a plate giving the force on it, downwards: of the two,
    the one nearer zero); there must be a quarter of the trial of them (a
    walk's plate is bare most of the time), the plate must carry a foot
    somewhere (a sample more than five times ``threshold`` away from them), and
    their median is taken as the offset when its vertical part lies between half
    ``threshold`` (from there on, noise would cross the contact threshold) and
    :data:`MAX_OFFSET_N` (more is a body standing on the plate, not an offset).

    Parameters
    ----------
    force : ndarray (T, 3)
        The plate's force (N), any sign convention.
    threshold : float
        The contact threshold (N).

    Returns
    -------
    ndarray, shape (3,), N, or None
        The median resting force, in the force's own axes and sign; None when the plate reads near zero at rest.
    """
    f = np.asarray(force, dtype=float)
    lo, hi = np.percentile(f[:, 2], [10, 90])
    level = lo if abs(lo) <= abs(hi) else hi
    near = np.abs(f[:, 2] - level) < 5.0
    if near.sum() < len(f) // 4 or not (np.abs(f[:, 2] - level) > 5 * threshold).any():
        return None
    rest = np.median(f[near], axis=0)
    return rest if 0.5 * threshold <= abs(rest[2]) <= MAX_OFFSET_N else None


def rezeroed_centre(centre, raw, moment, rest, corners) -> np.ndarray:
    """The centre of pressure of a plate that was not zeroed, from its zeroed loads.

    The centre of pressure lies where the moment about the surface's middle
    ``o`` has no part along the surface: ``c = o + n x M / (F . n)``, ``n`` the
    surface's normal (ezc3d's centre, from the loads as read, offset
    included).  Zeroing the plate takes the resting values off both:
    ``c' = o + n x (M - <M>_rest) / ((F - F_rest) . n)``, the resting
    moment the median of each component over the resting samples (the force along the normal
    within 5 N of the resting one, as :func:`resting_force` finds them).
    Without it, Codamotion's plate 3 (resting at -71 N) put the push-off's
    centre of pressure 3.5 cm too far forward at 3.375 s (9 cm at 3.4 s, as
    the load falls): a right ankle power of 10.6 W/kg (6.1 from the zeroed
    loads).

    Parameters
    ----------
    centre : ndarray, shape (T, 3), m
        The file's centre of pressure in the ground axes, NaN where unloaded (kept there, and where the zeroed
        force along the normal is zero).
    raw : ndarray, shape (T, 3), N
        The plate's force as read (offset included), ground axes.
    moment : ndarray, shape (T, 3), N·m
        The plate's moment as read about the middle of its surface, ground axes (ezc3d's ``moment``).
    rest : ndarray, shape (3,), N
        Its resting force (:func:`resting_force`).
    corners : ndarray, shape (4, 3), m
        The plate's corners in the C3D User Guide's order, ground axes.

    Returns
    -------
    ndarray, shape (T, 3), m
        The centre of pressure of the zeroed loads.
    """
    k = np.asarray(corners, dtype=float)
    middle = k.mean(axis=0)
    n = np.cross(k[0] - k[1], k[0] - k[3])  # the plate's z as the C3D User Guide builds it from the corners
    n /= np.linalg.norm(n)
    fn = np.asarray(raw, dtype=float) @ n
    mom = np.asarray(moment, dtype=float)
    rest_n = float(np.asarray(rest, dtype=float) @ n)
    near = (np.abs(fn - rest_n) < 5.0) & np.isfinite(mom).all(axis=1)
    m_rest = np.median(mom[near], axis=0) if near.any() else np.zeros(3)  # each channel's resting value
    zeroed = fn - rest_n
    out = np.array(centre, dtype=float)
    ok = np.isfinite(mom).all(axis=1) & np.isfinite(out).all(axis=1) & (np.abs(zeroed) > 1e-9)
    out[ok] = middle + np.cross(n, mom[ok] - m_rest) / zeroed[ok, None]
    return out


def reaction_sign(vertical, threshold: float = FORCE_THRESHOLD) -> float:
    """+1 when a plate's vertical force (N, (T,), ground z up) is the ground reaction on the subject (upwards
    while loaded), -1 when it is the force the subject applies to the plate (downwards): the sign of its sum
    over the samples above ``threshold`` in magnitude.

    Parameters
    ----------
    vertical : array_like, shape (T,), N
        The plate's vertical force, ground Z up.
    threshold : float, N
        The magnitude from which a sample counts as loaded.

    Returns
    -------
    float
        +1.0 or -1.0.
    """
    v = np.asarray(vertical, dtype=float)
    return -1.0 if float(np.sum(v[np.abs(v) >= threshold])) < 0.0 else 1.0


def c3d_has_platforms(path) -> bool:
    """Whether a C3D file declares force platforms (``FORCE_PLATFORM:USED`` > 0) and holds analog samples for them;
    False when unreadable.

    Parameters
    ----------
    path : str or os.PathLike
        The C3D file.

    Returns
    -------
    bool
        True when it has force platforms with analog samples.
    """
    try:
        import ezc3d  # optional dependency (humanbody[c3d])

        c = ezc3d.c3d(os.fspath(path))
        used = np.asarray(c["parameters"].get("FORCE_PLATFORM", {}).get("USED", {}).get("value", [0])).ravel()
        return bool(len(used) and int(used[0]) > 0 and np.size(c["data"]["analogs"]) > 0)
    except Exception:  # noqa: BLE001 - the trial reader reports what is wrong with the file
        return False


def read_c3d_platforms(path, mapping=None) -> C3DPlatforms:
    """Force platforms of a C3D file (types 1-4: corners, origin, calibration matrix, channel scales and
    offsets, analog rate), by ezc3d's force-platform model, into ground axes (``ground = mapping @ lab``).

    The centre of pressure is ezc3d's, in the lab: on the plate's surface at
    whatever height and tilt its corners give.

    Parameters
    ----------
    path : str or os.PathLike
        The C3D file.
    mapping : ndarray, shape (3, 3), optional
        Lab -> ground (default identity).

    Returns
    -------
    C3DPlatforms
        The ground reaction on the subject per analog sample: force, centre of pressure and moment (T, P, 3; N, m,
        N m), ground axes, with the plates' geometry and the analog rate.

    Raises
    ------
    InputError  no ezc3d, unreadable file, no platforms, unsupported type, non-finite forces.
    """
    path = Path(os.fspath(path))
    try:
        import ezc3d  # optional dependency (humanbody[c3d])
    except ModuleNotFoundError:
        raise InputError('reading C3D force platforms needs the package \'ezc3d\': pip install "humanbody[c3d]"',
                         path) from None
    try:
        head = ezc3d.c3d(str(path))
    except Exception as err:  # noqa: BLE001 - ezc3d raises plain errors for damaged files
        raise InputError(f"cannot read the C3D file ({err})", path) from None
    fp = head["parameters"].get("FORCE_PLATFORM", {})
    used = int(np.asarray(fp.get("USED", {}).get("value", [0])).ravel()[0]) if fp else 0
    if used <= 0:
        raise InputError("the C3D file has no force platforms (FORCE_PLATFORM:USED is 0)", path)
    types = [int(t) for t in np.asarray(fp.get("TYPE", {}).get("value", [])).ravel()[:used]]
    bad = [t for t in types if t not in (1, 2, 3, 4)]
    if bad:
        raise InputError(f"force platform type {bad[0]} is not supported (types 1-4)", path)
    if np.size(head["data"]["analogs"]) == 0:  # BTS's sample: FORCE_PLATFORM:USED 1, no analog data
        raise InputError(f"the C3D file declares {used} force platform{'s' if used > 1 else ''} but holds no "
                         "analog samples", path)
    try:
        c = ezc3d.c3d(str(path), extract_forceplat_data=True)
    except Exception as err:  # noqa: BLE001
        raise InputError(f"cannot read the force platforms ({err})", path) from None
    rate = float(np.asarray(head["parameters"]["ANALOG"]["RATE"]["value"]).ravel()[0])
    point_rate = float(np.asarray(head["parameters"]["POINT"]["RATE"]["value"]).ravel()[0])
    first = int(head["header"]["points"]["first_frame"])  # 0-based, as the marker reader's time base
    M = np.eye(3) if mapping is None else np.asarray(mapping, dtype=float)
    names, force, point, moment, plates, flipped = [], [], [], [], [], []
    rezeroed: dict = {}
    # no POINT:UNITS: ezc3d says metres, the file's lengths are millimetres (as the marker reader takes them)
    declared = len(head["parameters"]["POINT"].get("UNITS", {}).get("value", [])) > 0
    for i, p in enumerate(c["data"]["platform"]):
        pos = _length_factor(p["unit_position"]) if declared else 1e-3
        unit_m = str(p["unit_moment"]).strip().lower()
        mom = _LENGTH.get(unit_m[1:] if unit_m.startswith("n") else "mm", 1e-3) if declared else 1e-3
        f = np.asarray(p["force"], dtype=float).T @ M.T
        bad = ~np.isfinite(f)
        if bad.any():
            raise InputError(f"force of platform {i + 1} has a missing or non-finite value "
                             f"(sample {int(np.argmax(bad.any(axis=1))) + 1})", path)
        name = f"plate{i + 1}"
        raw = f
        rest = resting_force(f)
        if rest is not None:  # a plate not zeroed before the trial (Codamotion's sample): its resting force off
            f = f - rest
            rezeroed[name] = rest
        sign = reaction_sign(f[:, 2])  # the force on the plate (labs' convention) -> the reaction on the subject
        if sign < 0:
            flipped.append(name)
        names.append(name)
        force.append(sign * f)
        cop, tz = (p["center_of_pressure"], p["Tz"]) if types[i] != 3 else _type3_centre(c, i, p)
        corners = (np.asarray(p["corners"], dtype=float).T * pos) @ M.T
        centre = _rotate_rows(np.asarray(cop, dtype=float).T * pos, M)
        if rest is not None:
            about = _rotate_rows(np.asarray(p["moment"], dtype=float).T * mom, M)
            centre = rezeroed_centre(centre, raw, about, rest, corners)
        point.append(centre)
        moment.append(sign * _rotate_rows(np.asarray(tz, dtype=float).T * mom, M))
        try:
            plates.append(plate_from_corners(name, corners))
        except InputError as err:
            raise err.with_path(path) from None
    n = force[0].shape[0]
    # an analog-only file (no 3-D points, POINT:RATE 0, as Kistler writes it) starts at its first sample
    time = (first / point_rate if point_rate > 0 else 0.0) + np.arange(n) / rate
    forces, points, moments = (np.stack(a, axis=1) for a in (force, point, moment))
    return C3DPlatforms(time, names, forces, points, np.nan_to_num(moments), plates, rate, types, flipped, rezeroed)


def _rotate_rows(a: np.ndarray, M: np.ndarray) -> np.ndarray:
    """Rows ``a`` (T, 3) in the lab axes ``M @ a[t]``; a row with a missing value stays all NaN.

    ezc3d leaves the centre of pressure and the free moment NaN while a plate
    is unloaded; rotating those rows directly makes the matrix product warn
    ("invalid value in matmul"), so they are rotated as zeros and set back to NaN.
    """
    bad = ~np.isfinite(a).all(axis=1)
    out = np.where(bad[:, None], 0.0, a) @ M.T
    out[bad] = np.nan
    return out


def _type3_centre(c, i: int, p) -> tuple[np.ndarray, np.ndarray]:
    """Centre of pressure and free moment (each (3, T), lab, the file's units) of platform ``i`` of type 3
    (Kistler, 8 channels ``fx12, fx34, fy14, fy23, fz1..fz4``).

    Its ``ORIGIN`` holds the sensors' offsets ``a, b`` from the plate's centre and the depth ``az0`` of
    the sensor plane below the surface (C3D User Guide, type 3), not a shift of the origin, which is how
    ezc3d 1.7 takes it (its centre of pressure then lies ``(a, b)`` away from the foot).  In plate axes
    (``R``, the corners' frame), about the centre of the sensor plane:

        Mx = b (fz1 + fz2 - fz3 - fz4),  My = a (-fz1 + fz2 + fz3 - fz4),
        Mz = b (-fx12 + fx34) + a (fy14 - fy23);

    moved to the surface's centre ``c`` (the sensor plane ``az0`` below it), then the centre of pressure
    ``P = c + n x M_c / (n . F)`` and the free moment ``((M_c - (P - c) x F) . n) n`` (``n`` the plate's z).
    """
    fp = c["parameters"]["FORCE_PLATFORM"]
    used = int(np.asarray(fp["USED"]["value"]).ravel()[0])
    chan = np.asarray(fp["CHANNEL"]["value"]).reshape(-1, used, order="F")[:8, i].astype(int) - 1
    ch = np.asarray(c["data"]["analogs"], dtype=float)[0][chan]
    a, b, az0 = (abs(float(v)) for v in np.asarray(fp["ORIGIN"]["value"]).reshape(3, used, order="F")[:, i])
    corners = np.asarray(p["corners"], dtype=float)
    x, y = corners[:, 0] - corners[:, 1], corners[:, 0] - corners[:, 3]
    z = np.cross(x, y)
    y = np.cross(z, x)
    R = np.stack([x / np.linalg.norm(x), y / np.linalg.norm(y), z / np.linalg.norm(z)], axis=1)
    centre = corners.mean(axis=1)
    F = R @ np.vstack([ch[0] + ch[1], ch[2] + ch[3], ch[4:8].sum(axis=0)])
    m_plate = np.vstack([b * (ch[4] + ch[5] - ch[6] - ch[7]), a * (-ch[4] + ch[5] + ch[6] - ch[7]),
                         b * (-ch[0] + ch[1]) + a * (ch[2] - ch[3])])
    m_c = R @ m_plate + np.cross(R @ np.array([0.0, 0.0, -az0]), F.T).T
    n = R[:, 2]
    nf = n @ F
    # No centre of pressure (NaN) where no force crosses the plate or a channel is missing: those samples are
    # zeros through the arithmetic (NaN and inf would make it warn), then NaN.
    on = (nf != 0.0) & np.isfinite(nf) & np.isfinite(m_c).all(axis=0)
    m_on, f_on = np.where(on, m_c, 0.0), np.where(on, F, 0.0)
    arm = np.cross(n, m_on.T).T / np.where(on, nf, 1.0)[None, :]
    tz = ((m_on - np.cross(arm.T, f_on.T).T).T @ n)[None, :] * n[:, None]
    arm[:, ~on] = tz[:, ~on] = np.nan
    return centre[:, None] + arm, tz


def vertical_forces(forces: pd.DataFrame, plates: dict | None = None,
                    vertical: str = "auto") -> tuple[np.ndarray, dict, dict]:
    """Each foot's vertical force from a force table (an OpenSim ground-reaction file as read).

    Parameters
    ----------
    forces : DataFrame
        ``time`` and per plate ``<prefix>vx/vy/vz`` (N, the file's lab axes).
    plates : dict, optional
        ``side -> column prefix``; default :data:`SIDE_PREFIXES`.
    vertical : {"auto", "x", "y", "z"}
        The vertical component; "auto": per plate the one with the largest
        magnitude (:func:`vertical_component`).

    Returns
    -------
    time : ndarray, shape (T,)
        The samples' times (s).
    vertical : dict of str to ndarray, shape (T,)
        Side ("right", "left") -> that foot's vertical force (N, the sign as in the file), what
        :func:`humanbody.gait.force_events` takes.
    columns : dict of str to str
        Side -> the force column used.
    """
    src = forces.attrs.get("source")
    if "time" not in forces.columns:
        raise InputError("force table has no time column", src)
    out, columns = {}, {}
    for side, prefix in dict(plates or SIDE_PREFIXES).items():
        axis = vertical_component(forces, prefix) if vertical == "auto" else vertical
        col = f"{prefix}v{axis}"
        if col not in forces.columns:
            raise InputError(f"no vertical force column {col!r} for the {side} foot", src)
        out[side] = forces[col].to_numpy(dtype=float)
        columns[side] = col
    return forces["time"].to_numpy(dtype=float), out, columns

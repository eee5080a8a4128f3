"""External loads: force plates and load tables in, loads on segments out.

A load is a force F (N), its point of application P (m) and a free moment M
(N·m about P), ground axes.  Loads are carried as the equivalent wrench
about the ground origin, ``(F, M_O = P x F + M)``: both are continuous
through contact and lift-off (zero while unloaded), so they can be low-pass
filtered and resampled without the centre-of-pressure artefacts at contact,
and the moment about any point Q is ``M_O - Q x F``.

Sources (:func:`read_loads`):

- OpenSim ground-reaction files (``.mot``/``.sto``): per plate
  ``<p>vx/vy/vz`` (force), ``<p>px/py/pz`` (point), ``<p'>torque_x/y/z`` (free
  moment), lab axes.  An ExternalLoads ``.xml`` beside the file (same stem, or
  ``<stem>.xml``, ``<stem>_loads.xml``, or ``<trial>_external_loads.xml`` beside
  ``<trial>_grf.mot``) names the body each plate acts on;
  OpenSim's body names map to segments (:data:`OPENSIM_BODIES`).  Other
  columns are ignored.
- the generic loads table of docs/conventions.md (``L_force_x`` ...,
  ``L_point_x`` ..., ``L_moment_x`` ..., ground axes).

Conditioning (:func:`condition_loads`): below a vertical-force threshold a
load is zero; the wrench is low-passed (zero-phase Butterworth, by default the
markers' cut-off: matched cut-offs avoid artefactual joint-moment peaks at
contact, Bisseling and Hof 2006, Kristianslund et al. 2012) and resampled to
the frames of the motion.  Assignment (:func:`assign_loads`): a load named to
a segment goes to it; otherwise, in each frame it is loaded, to the foot
whose sole is nearest its centre of pressure, within
:data:`ASSIGN_DISTANCE`; with both feet that close and about as close as each
other (:data:`AMBIGUOUS_MARGIN`), or both soles touching the plate and moving
with it (:data:`CONTACT_SPEED`) wherever the centre of pressure is, the frame
is ambiguous (two feet on one plate) and those feet's kinetics are NaN.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["LoadTable", "FrameLoads", "read_loads", "condition_loads", "assign_loads", "OPENSIM_BODIES",
           "ASSIGN_DISTANCE", "FORCE_THRESHOLD"]

#: OpenSim body names (Gait2392, Rajagopal, Hamner) -> our segments.
OPENSIM_BODIES = {
    "pelvis": "lower_torso", "torso": "upper_torso", "head": "head",
    **{f"{b}_{s}": f"{side}_{seg}" for s, side in (("r", "right"), ("l", "left"))
       for b, seg in (("femur", "upper_leg"), ("tibia", "lower_leg"), ("patella", "lower_leg"),
                      ("talus", "foot"), ("calcn", "foot"), ("toes", "foot"), ("humerus", "upper_arm"),
                      ("ulna", "lower_arm"), ("radius", "lower_arm"), ("hand", "hand"))},
}

#: Largest distance (m) from a load's centre of pressure to a foot's sole (the line from the ankle
#: to the toe end of the foot) for the load to be given to that foot automatically.
ASSIGN_DISTANCE = 0.20

#: Two feet closer to a centre of pressure than :data:`ASSIGN_DISTANCE` whose distances differ by
#: less than this (m) are both on the plate: the frame is ambiguous.
AMBIGUOUS_MARGIN = 0.05

#: Vertical force (N) below which a load is taken as zero (no contact).
FORCE_THRESHOLD = 20.0

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
    plates: list = None

    @property
    def rate_hz(self) -> float:
        return float((len(self.time) - 1) / (self.time[-1] - self.time[0])) if len(self.time) > 1 else float("nan")


@dataclass(eq=False)
class FrameLoads:
    """Conditioned loads on the motion's frames, ground axes.

    Attributes
    ----------
    names : list of str
    force : (F, L, 3) N;  moment_o : (F, L, 3) N·m about the ground origin
    cop : (F, L, 3) m   centre of pressure on the plate's surface, in 3-D (NaN while unloaded)
    body : (F, L) int   segment index each load acts on per frame; -1 none (unloaded or
                        unassigned), -2 ambiguous (kinetics NaN there)
    shared : (F, L, 2) int, optional
                        in an ambiguous frame, the two feet on the load's plate: only their
                        kinetics (and those of the segments below them in the tree) are NaN;
                        -1 elsewhere.  Without it an ambiguous frame is NaN for every segment.
    plates : list of PlateGeometry, optional   each load's plate surface
    unloaded : list of str
                        feet (segment names) no load reached in any frame: their side's kinetics
                        are NaN (the ground reaction on them was not measured)
    raw_time, raw_fz : (T,) s and (T, L) N, optional
                        the file's own samples of each load's vertical force (zero below the
                        threshold, not filtered): contact times at the file's rate
    notes : list of str what was done, for the user
    """

    names: list
    force: np.ndarray
    moment_o: np.ndarray
    cop: np.ndarray
    body: np.ndarray = None
    notes: list = field(default_factory=list)
    shared: np.ndarray = None
    plates: list = None
    unloaded: list = field(default_factory=list)
    unloaded_index: list = field(default_factory=list)
    raw_time: np.ndarray = None
    raw_fz: np.ndarray = None

    def kernel_arrays(self, start: int, stop: int):
        """Force, moment about the origin and body of frames ``start:stop`` as the kinetic kernels take them.

        A frame where two feet share a plate (``shared``) carries a NaN load on
        each of them, so NaN reaches exactly those feet, the segments they hang
        from and the root; every other segment keeps its kinetics.  Feet that no
        load ever reached (``unloaded``) carry a NaN load in every frame.
        """
        force = self.force[start:stop]
        moment = self.moment_o[start:stop]
        body = np.asarray(self.body[start:stop], dtype=np.int64)
        shared = None if self.shared is None else self.shared[start:stop]
        extra_b, extra_f = [], []
        F = force.shape[0]
        if shared is not None and (shared >= 0).any():
            amb = (body == -2) & (shared[..., 0] >= 0)
            force = np.where(amb[..., None], np.nan, force)
            moment = np.where(amb[..., None], np.nan, moment)
            body = np.where(amb, shared[..., 0], body)
            for j in range(body.shape[1]):
                if amb[:, j].any():
                    extra_b.append(np.where(amb[:, j], shared[:, j, 1], -1))
                    extra_f.append(np.where(amb[:, j, None], np.nan, 0.0) * np.ones((F, 3)))
        for k in self.unloaded_index:
            extra_b.append(np.full(F, k, dtype=np.int64))
            extra_f.append(np.full((F, 3), np.nan))
        if extra_b:
            force = np.concatenate([force, np.stack(extra_f, axis=1)], axis=1)
            moment = np.concatenate([moment, np.stack(extra_f, axis=1)], axis=1)
            body = np.concatenate([body, np.stack(extra_b, axis=1).astype(np.int64)], axis=1)
        return (np.ascontiguousarray(force, dtype=float), np.ascontiguousarray(moment, dtype=float),
                np.ascontiguousarray(body, dtype=np.int64))


# ------------------------------------------------------------------ reading
def _xml_beside(path: Path) -> Path | None:
    trial = path.stem[:-len("_grf")] if path.stem.endswith("_grf") else path.stem
    for cand in (path.with_suffix(".xml"), path.with_name(path.stem + "_loads.xml"),
                 path.with_name(path.stem + "_ExternalLoads.xml"),
                 path.with_name(trial + "_external_loads.xml")):  # what --export opensim writes
        if cand.is_file():
            return cand
    return None


def _xml_bodies(xml: Path) -> dict:
    """Force identifier prefix -> OpenSim body name, from an ExternalLoads file."""
    try:
        root = ET.parse(xml).getroot()
    except (ET.ParseError, OSError) as err:
        raise InputError(f"cannot read the ExternalLoads file ({err})", xml) from None
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


def read_loads(path, mapping=None, loads: dict | None = None) -> LoadTable:
    """Read a ground-reaction or loads file into ground axes.

    Parameters
    ----------
    path : str or Path
        An OpenSim ``.mot``/``.sto`` ground-reaction file or a loads table
        (CSV, docs/conventions.md "External loads").
    mapping : ndarray (3, 3), optional
        Lab -> ground axes of a ground-reaction file (``ground = mapping @
        lab``), the markers' mapping; detected from the vertical force when
        omitted.  A loads table is in ground axes already.
    loads : dict, optional
        Load name -> segment (``--load NAME=segment``), overriding the file.

    Raises
    ------
    InputError
        Unreadable file, no load columns, non-finite forces, time not increasing.
    """
    from ..io.forceplates import file_plates, plate_from_points, reaction_sign, vertical_axis_mapping
    from ..io.opensim import read_opensim

    path = Path(os.fspath(path))
    if path.suffix.lower() == ".c3d":
        return _read_c3d_platforms(path, mapping, loads)
    table = read_opensim(path) if path.suffix.lower() in (".mot", ".sto") else _read_csv(path)
    if "time" not in table.columns:
        raise InputError("load file has no time column", path)
    time = table["time"].to_numpy(dtype=float)
    if len(time) < 2:
        raise InputError("load file has fewer than two rows", path)
    if np.any(np.diff(time) <= 0):
        raise InputError(f"time is not increasing at row {int(np.argmax(np.diff(time) <= 0)) + 2}", path)
    plates = file_plates(table.columns)
    generic = sorted({c[: -len("_force_x")] for c in table.columns if c.endswith("_force_x")})
    generic = [g for g in generic if all(f"{g}_{w}_{a}" in table.columns for w in ("force", "point") for a in _AXES)]
    notes = []
    if plates:
        M = vertical_axis_mapping(table) if mapping is None else np.asarray(mapping, dtype=float)
        names, force, point, moment, segs = [], [], [], [], []
        bodies = {}
        xml = _xml_beside(path)
        if xml is not None:
            bodies = _xml_bodies(xml)
            notes.append(f"loads: bodies from {xml.name}")
        for i, (p, t) in enumerate(plates):
            name = p.rstrip("_") or f"plate{i + 1}"
            f = table[[f"{p}v{a}" for a in _AXES]].to_numpy(dtype=float) @ M.T
            q = table[[f"{p}p{a}" for a in _AXES]].to_numpy(dtype=float) @ M.T
            m = (table[[f"{t}{a}" for a in _AXES]].to_numpy(dtype=float) @ M.T) if t else np.zeros_like(f)
            _finite_check(f"force of {name}", f, path)
            names.append(name)
            force.append(f)
            point.append(q)
            moment.append(m)
            body = bodies.get(p + "v", bodies.get(p))  # OpenSim names the force "<prefix>v"
            if body is not None and body not in OPENSIM_BODIES:
                raise InputError(f"ExternalLoads names body {body!r}, which has no segment of the 17-segment "
                                 f"model (known: {', '.join(sorted(OPENSIM_BODIES))})", xml)
            segs.append(OPENSIM_BODIES.get(body) if body else None)
    elif generic:
        names, force, point, moment, segs = [], [], [], [], []
        for g in generic:
            f = table[[f"{g}_force_{a}" for a in _AXES]].to_numpy(dtype=float)
            _finite_check(f"force of {g}", f, path)
            names.append(g)
            force.append(f)
            point.append(table[[f"{g}_point_{a}" for a in _AXES]].to_numpy(dtype=float))
            cols = [f"{g}_moment_{a}" for a in _AXES]
            moment.append(table[cols].to_numpy(dtype=float) if all(c in table.columns for c in cols)
                          else np.zeros_like(f))
            segs.append(None)
    else:
        raise InputError("no loads: neither force-plate columns (<plate>vx/vy/vz, px/py/pz) nor "
                         "<load>_force_x/y/z with <load>_point_x/y/z", path)
    force, point, moment = (np.stack(a, axis=1) for a in (force, point, moment))
    moment = np.nan_to_num(moment)
    down = [j for j in range(len(names)) if reaction_sign(force[:, j, 2], FORCE_THRESHOLD) < 0]
    if down:  # the force on the plate (a lab's export): the reaction on the subject is its opposite
        force[:, down] *= -1.0
        moment[:, down] *= -1.0
        notes.append(f"loads: {', '.join(names[j] for j in down)} give the force on the plate (downwards): taken "
                     "as the ground reaction on the subject, its opposite")
    for name, seg in (loads or {}).items():
        if name not in names:
            raise InputError(f"--load {name}=...: the file has no load {name!r} (it has {', '.join(names)})", path)
        segs[names.index(name)] = seg
    plates_geo = [plate_from_points(n, point[:, j], force[:, j, 2] >= FORCE_THRESHOLD) for j, n in enumerate(names)]
    notes += _geometry_notes(plates_geo)
    return LoadTable(time, names, force, point, moment, segs, str(path), notes, plates=plates_geo)


def c3d_has_platforms(path) -> bool:
    """Whether a C3D file declares force platforms (:func:`humanbody.io.forceplates.c3d_has_platforms`)."""
    from ..io.forceplates import c3d_has_platforms as has

    return has(path)


def _read_c3d_platforms(path: Path, mapping, loads) -> LoadTable:
    """Force platforms of a C3D file (:func:`humanbody.io.forceplates.read_c3d_platforms`) as a LoadTable."""
    from ..io.forceplates import read_c3d_platforms

    c = read_c3d_platforms(path, mapping)
    segs = [None] * len(c.names)
    for name, seg in (loads or {}).items():
        if name not in c.names:
            raise InputError(f"--load {name}=...: the file has no load {name!r} (it has {', '.join(c.names)})", path)
        segs[c.names.index(name)] = seg
    notes = [f"loads: {len(c.names)} force platform(s) of type {', '.join(map(str, c.types))} from the "
             f"C3D file at {c.rate_hz:g} Hz"]
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
    return ["loads: plates off the ground: " + ", ".join(
        f"{p.name} at {p.height * 1000:.0f} mm" + (f" tilted {p.tilt_deg:.0f} deg" if p.tilt_deg > 1.0 else "")
        for p in odd)]


def _read_csv(path: Path) -> pd.DataFrame:
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the load file ({getattr(err, 'strerror', None) or err})", path) from None
    if not text.strip():
        raise InputError("load file is empty", path)
    import io

    try:
        table = pd.read_csv(io.StringIO(text), sep=None, engine="python")
    except (pd.errors.ParserError, ValueError) as err:
        raise InputError(f"load file is not a table ({err})", path) from None
    bad = [c for c in table.columns if table[c].dtype == object]
    if bad:
        raise InputError(f"column {bad[0]!r} of the load file is not numeric", path)
    return table


# ------------------------------------------------------------------ conditioning
def condition_loads(table: LoadTable, frame_time, cutoff_hz: float | None = 6.0,
                    threshold: float = FORCE_THRESHOLD) -> FrameLoads:
    """Threshold, low-pass and resample loads to the motion's frames.

    Parameters
    ----------
    table : LoadTable
    frame_time : (F,) s, the motion's frame times
    cutoff_hz : float or None
        Low-pass cut-off of the wrench (zero-phase Butterworth, order 4, the
        markers' filter); None or 0: not filtered.
    threshold : float
        Vertical force (N) below which a load is zero.

    Frames outside the load file's time range get zero loads and are named
    in the notes; no overlap at all is an error.
    """
    from ..scipy_signal import signal
    from ..signal.filters import butterworth_sos
    from ..io.forceplates import plate_from_points

    t = np.asarray(frame_time, dtype=float)
    lo, hi = table.time[0], table.time[-1]
    inside = (t >= lo - 1e-9) & (t <= hi + 1e-9)
    if not inside.any():
        raise InputError(f"the load file covers {lo:g}-{hi:g} s and the trial {t[0]:g}-{t[-1]:g} s: "
                         "they do not overlap", table.source)
    f = np.where((table.force[..., 2] >= threshold)[..., None], table.force, 0.0)
    p = np.where(np.isfinite(table.point), table.point, 0.0)
    m_o = np.where((table.force[..., 2] >= threshold)[..., None], np.cross(p, f) + table.moment, 0.0)
    T, L = f.shape[:2]
    wrench = np.concatenate([f, m_o], axis=2).reshape(T, L * 6)
    notes = [f"loads: {', '.join(table.names)} from {Path(table.source).name} at {table.rate_hz:.0f} Hz; "
             f"zero below {threshold:g} N vertical"]
    if cutoff_hz and cutoff_hz >= 0.5 * table.rate_hz:
        notes.append(f"loads: not filtered (sampled at {table.rate_hz:g} Hz, nothing above {cutoff_hz:g} Hz to remove)")
    elif cutoff_hz:
        sos = butterworth_sos(cutoff_hz, table.rate_hz, 4, table.source)
        wrench = signal.sosfiltfilt(sos, wrench, axis=0)
        notes.append(f"loads: low-passed at {cutoff_hz:g} Hz (zero-phase Butterworth, as the markers), "
                     f"resampled to the {len(t)} frames")
    res = np.empty((len(t), L * 6))
    for j in range(L * 6):
        res[:, j] = np.interp(t, table.time, wrench[:, j], left=0.0, right=0.0)
    res = res.reshape(len(t), L, 6)
    force, moment_o = res[..., :3].copy(), res[..., 3:].copy()
    loaded = force[..., 2] >= threshold
    force[~loaded] = 0.0
    moment_o[~loaded] = 0.0
    plates = table.plates or [plate_from_points(n, table.point[:, j], table.force[:, j, 2] >= threshold)
                              for j, n in enumerate(table.names)]
    cop = np.full((len(t), L, 3), np.nan)
    for j, plate in enumerate(plates):
        # the plane of the plate, through the file's own point of application (its height on stairs)
        ok = (table.force[:, j, 2] >= threshold) & np.isfinite(table.point[:, j]).all(axis=1)
        through = (np.stack([np.interp(t, table.time[ok], table.point[ok, j, a]) for a in range(3)], axis=1)
                   if ok.any() else np.broadcast_to(plate.centre, (len(t), 3)))
        cop[:, j] = plate.cop(force[:, j], moment_o[:, j], through)
    cop[~loaded] = np.nan
    if not inside.all():
        notes.append(f"loads: {int((~inside).sum())} frame(s) outside the load file's time range: no load there")
    raw_fz = np.where(table.force[..., 2] >= threshold, table.force[..., 2], 0.0)
    return FrameLoads(list(table.names), force, moment_o, cop, notes=notes, plates=plates,
                      raw_time=np.asarray(table.time, dtype=float), raw_fz=raw_fz)


# ------------------------------------------------------------------ assignment
def sole_points(model, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Heel and toe ends of foot ``k``'s sole in the foot's frame (m), each (3,).

    The sole lies the ankle height below the ankle: twice the depth of the
    foot's mass centre below it (the default model puts the mass centre half
    the ankle height above the sole, docs/anthropometry.md "Feet"); the heel
    end is behind the ankle in gait2392's proportion to the ankle height, the
    toe end the foot's length ahead of the heel.
    """
    from ..model.anthropometry import ANKLE_HEIGHT, HEEL_BEHIND_ANKLE

    r = np.asarray(model.com_offset[k], dtype=float)
    h = -2.0 * r[2] if r[2] < -0.005 else ANKLE_HEIGHT * 1.75
    length = float(model.segment_meta[k].get("length") or 2.0 * np.linalg.norm(r) or 0.2)
    heel = h * HEEL_BEHIND_ANKLE / ANKLE_HEIGHT
    return np.array([-heel, 0.0, -h]), np.array([length - heel, 0.0, -h])


def _sole(results, model, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The line of a foot's sole in ground axes, (F, 3) each end: its heel and toe ends."""
    heel, toe = sole_points(model, k)
    O, R = results.joint[:, k], results.R[:, k]
    return O + R @ heel, O + R @ toe


def _distance_to_segment(p, a, b) -> np.ndarray:
    ab = b - a
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(np.einsum("fi,fi->f", p - a, ab) / np.einsum("fi,fi->f", ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + s[:, None] * ab), axis=1)


#: Height (m) of a foot's sole above a plate's surface below which that foot may stand on it.
CONTACT_HEIGHT = 0.05


#: Largest difference (m/s) between the velocities of two soles' lower ends along a plate for both feet to
#: stand on it: feet on a surface move with it (still on the ground, at the belt's speed on a treadmill; the
#: shared treadmill walk: 0.1-0.8 m/s apart in double support), while a foot swinging low over the plate moves
#: 2 m/s or more faster than the stance foot.
CONTACT_SPEED = 1.0

#: Margin (m) around a plate's outline (corners) or around the centres of pressure a force file gives on it
#: within which a sole's lower end counts as over the plate.
OUTLINE_MARGIN = 0.03


def _sole_height(a, b, plate) -> np.ndarray:
    """Height (m) of the lower end of a sole (ends ``a``, ``b``, (F, 3)) above a plate's plane, (F,)."""
    n, c = plate.normal, plate.centre
    return np.minimum((a - c) @ n, (b - c) @ n)


def _sole_on_plate(a, b, time, plate) -> tuple[np.ndarray, np.ndarray]:
    """Whether the lower end of a sole (ends ``a``, ``b``, (F, 3) m) touches a plate, (F,) bool, and its
    velocity along the plate's surface, (F, 3) m/s.

    Touching: the lower end no more than :data:`CONTACT_HEIGHT` above the plate's plane and within
    :data:`OUTLINE_MARGIN` of its outline (the C3D corners; for a plate known from a force file, the
    rectangle of its centres of pressure with :data:`humanbody.io.forceplates.OUTLINE_MARGIN`).
    """
    n, c = plate.normal, plate.centre
    ha, hb = (a - c) @ n, (b - c) @ n
    low = (ha <= hb)[:, None]
    end = np.where(low, a, b)
    t = np.asarray(time, dtype=float)
    vel = (np.where(low, np.gradient(a, t, axis=0), np.gradient(b, t, axis=0)) if len(t) > 2
           else np.zeros_like(end))
    vel = vel - (vel @ n)[:, None] * n
    k = np.asarray(plate.corners, dtype=float)
    inside = np.minimum(ha, hb) <= CONTACT_HEIGHT
    for edge in (k[0] - k[1], k[0] - k[3]):
        half = 0.5 * float(np.linalg.norm(edge))
        if half > 0:
            inside &= np.abs((end - c) @ (edge / (2 * half))) <= half + OUTLINE_MARGIN
    return inside, vel


def assign_loads(loads: FrameLoads, table_segments, model, results, distance: float = ASSIGN_DISTANCE) -> FrameLoads:
    """Give every load in every frame a segment (``loads.body``); see the module docstring.

    ``table_segments`` lists the segment named for each load (or None).  A
    load not named goes to the foot whose sole (heel to toe, the ankle height
    below the ankle) is nearest its centre of pressure in 3-D, within
    ``distance``.  When the other foot is as near (within
    :data:`AMBIGUOUS_MARGIN`) and its sole also touches the plate's plane
    (within :data:`CONTACT_HEIGHT`), both feet stand on the plate: the frame is
    ambiguous for those two feet (``body`` -2, ``shared`` the two feet).  So it is
    when both soles touch the plate (:func:`_sole_on_plate`), their lower ends'
    velocities along it differ by at most :data:`CONTACT_SPEED` and neither foot
    is the one nearest another plate's load or touches another plate, wherever the centre of pressure lies
    (double support on a walkway or a one-plate treadmill).
    A foot that no load reaches in any frame is listed in ``unloaded`` (its
    kinetics are NaN) with one line saying which plates went unused and why.
    Returns ``loads`` with ``body`` set and lines added to ``notes``.
    """
    from ..io.forceplates import plate_from_points

    F, L = loads.force.shape[:2]
    body = np.full((F, L), -1, dtype=np.int64)
    shared = np.full((F, L, 2), -1, dtype=np.int64)
    loaded = loads.force[..., 2] > 0
    feet = [s for s in ("right_foot", "left_foot") if s in model.names]
    plates = loads.plates or [plate_from_points(n, loads.cop[:, j], loaded[:, j]) for j, n in enumerate(loads.names)]
    dist, height, touch, speed = {}, {}, {}, {}
    time = getattr(results, "time", None)
    time = np.arange(F, dtype=float) if time is None or len(time) != F else time
    for s in feet:
        k = model.names.index(s)
        a, b = _sole(results, model, k)
        dist[s] = np.stack([_distance_to_segment(loads.cop[:, j], a, b) for j in range(L)], axis=1)
        height[s] = np.stack([_sole_height(a, b, plates[j]) for j in range(L)], axis=1)
        on = [_sole_on_plate(a, b, time, plates[j]) for j in range(L)]
        touch[s] = np.stack([o[0] for o in on], axis=1)
        speed[s] = np.stack([o[1] for o in on], axis=1)
    # the foot nearest each load within ``distance`` (-1 none): a foot standing on another plate is not on this one
    near_foot = np.full((F, L), -1, dtype=np.int64)
    if feet:
        for j in range(L):
            d = np.stack([np.where(np.isfinite(dist[s][:, j]), dist[s][:, j], np.inf) for s in feet], axis=1)
            near_foot[:, j] = np.where(loaded[:, j] & (d.min(axis=1) <= distance), np.argmin(d, axis=1), -1)
    unused = []
    for j, name in enumerate(loads.names):
        seg = table_segments[j]
        if seg is not None:
            if seg not in model.names:
                raise InputError(f"load {name!r} is given to {seg!r}, which is not a segment of the model "
                                 f"({', '.join(model.names)})")
            body[loaded[:, j], j] = model.names.index(seg)
            loads.notes.append(f"loads: {name} -> {seg} (named)")
            continue
        if not feet:
            raise InputError(f"load {name!r} names no segment and the model has no feet to give it to; "
                             "use --load NAME=segment")
        d = np.stack([dist[s][:, j] for s in feet], axis=1)  # (F, feet)
        d = np.where(np.isfinite(d), d, np.inf)
        h = np.stack([height[s][:, j] for s in feet], axis=1)
        order = np.argsort(d, axis=1, kind="stable")
        rows = np.arange(F)
        d1 = d[rows, order[:, 0]]
        nearest = order[:, 0]
        close = d1 <= distance
        two = np.zeros(F, dtype=bool)
        if d.shape[1] > 1:
            second = order[:, 1]
            d2 = d[rows, second]
            with np.errstate(invalid="ignore"):  # inf - inf where no foot is near
                two = (close & (d2 <= distance) & (d2 - d1 < AMBIGUOUS_MARGIN)
                       & (h[rows, second] <= CONTACT_HEIGHT) & (h[rows, nearest] <= CONTACT_HEIGHT))
            if len(feet) == 2:
                # both soles on the plate, moving together (double support on one plate, a treadmill's belt):
                # the centre of pressure lies between them wherever it is, neither foot's share is known
                f0, f1 = feet
                together = np.linalg.norm(speed[f0][:, j] - speed[f1][:, j], axis=1) <= CONTACT_SPEED
                others = np.delete(near_foot, j, axis=1)
                # that foot is on another plate: the one nearest its load, or its sole touches it
                elsewhere = [(others == i).any(axis=1) | np.delete(touch[f], j, axis=1).any(axis=1)
                             for i, f in enumerate(feet)]
                two |= (touch[f0][:, j] & touch[f1][:, j] & together & ~elsewhere[0] & ~elsewhere[1])
        for i, s in enumerate(feet):
            take = loaded[:, j] & close & ~two & (nearest == i)
            body[take, j] = model.names.index(s)
        ambiguous = loaded[:, j] & two
        body[ambiguous, j] = -2
        if ambiguous.any():
            idx = np.array([model.names.index(s) for s in feet])
            shared[ambiguous, j, 0] = idx[nearest[ambiguous]]
            shared[ambiguous, j, 1] = idx[order[ambiguous, 1]] if len(feet) > 1 else -1
        far = loaded[:, j] & ~close & ~two
        counts = ", ".join(f"{s} {int((body[:, j] == model.names.index(s)).sum())}" for s in feet)
        line = f"loads: {name} -> nearest foot within {distance * 100:.0f} cm of the centre of pressure ({counts} frames)"
        if ambiguous.any():
            line += f"; both feet on it in {int(ambiguous.sum())} frame(s): those feet's kinetics NaN there"
        if far.any():
            line += f"; no foot near it in {int(far.sum())} loaded frame(s): load unused there"
        loads.notes.append(line)
        if not (body[:, j] >= 0).any() and not ambiguous.any():
            why = ("never loaded above the threshold" if not loaded[:, j].any()
                   else f"no foot within {distance * 100:.0f} cm of its centre of pressure while loaded")
            unused.append(f"{name} ({why})")
    loads.body = body
    loads.shared = shared
    reached = set(body[body >= 0].tolist()) | set(shared[shared >= 0].tolist())
    loads.unloaded = [s for s in feet if model.names.index(s) not in reached]
    loads.unloaded_index = [model.names.index(s) for s in loads.unloaded]
    if loads.unloaded:
        side = " and ".join(s.replace("_foot", "") for s in loads.unloaded)
        loads.notes.append(f"loads: no load on the {side} foot in any frame: {side} side kinetics NaN"
                           + (f"; unused plate(s): {', '.join(unused)}" if unused else ""))
    elif unused:
        loads.notes.append(f"loads: unused plate(s): {', '.join(unused)}")
    return loads


# ------------------------------------------------------------------ body mass from the plates
#: Shortest quiet standing (s) and its largest relative variation of the total vertical force.
QUIET_SECONDS, QUIET_VARIATION = 1.0, 0.02
#: Shortest stretch (s) of continuous loading averaged when the subject never leaves the plates.
CONTINUOUS_SECONDS = 2.0
#: Longest flight (s) between two contacts of a run or a hop on the plates.
LONGEST_FLIGHT = 0.5


def mass_from_plates(table: LoadTable, threshold: float = FORCE_THRESHOLD, gravity: float = 9.81):
    """Body mass (kg) from the total vertical ground reaction, and one line saying how; (None, why) when the
    plates cannot tell.

    Over whole strides the mean vertical acceleration of the mass centre is
    zero, so the mean total vertical force is ``m g`` (Winter 2009, ch. 5).
    In order of preference:

    1. quiet standing: the longest stretch of at least :data:`QUIET_SECONDS`
       whose total vertical force stays within :data:`QUIET_VARIATION` of its
       mean;
    2. whole steps between contacts: from the first to the last onset of
       contact after a flight (running, hopping: every contact on the plates,
       flights no longer than :data:`LONGEST_FLIGHT`), at least two steps;
    3. continuous loading (a treadmill, both belts measured): the mean over
       the longest stretch of at least :data:`CONTINUOUS_SECONDS` with the
       plates always loaded.

    The vertical is the axis carrying the most force (a file's own axes).
    """
    f = np.nansum(table.force, axis=1)  # (T, 3) total over the plates
    axis = int(np.argmax(np.nanmean(np.abs(f), axis=0)))
    fz = np.abs(f[:, axis])
    t = table.time
    dt = float(np.median(np.diff(t)))
    on = fz >= threshold
    edges = np.flatnonzero(np.diff(on.astype(int)))
    bounds = np.concatenate([[0], edges + 1, [len(on)]])
    runs = [(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if on[a]]
    name = Path(table.source).name if table.source else "the plates"
    # 1. quiet standing: a stretch whose force stays within a few per cent of its mean
    win = max(int(round(QUIET_SECONDS / dt)), 2)
    if len(fz) >= win:
        from numpy.lib.stride_tricks import sliding_window_view

        w = sliding_window_view(fz, win)
        mean = w.mean(axis=1)
        ok = (mean >= threshold) & ((w.max(axis=1) - w.min(axis=1)) <= 2 * QUIET_VARIATION * mean)
        if ok.any():
            i = int(np.argmax(ok))
            j = i
            while j + 1 < len(ok) and ok[j + 1]:
                j += 1
            m = float(fz[i:j + win].mean()) / gravity
            return m, (f"mass {m:.1f} kg from {name}: mean vertical force of {(j + win - i) * dt:.1f} s of quiet "
                       "standing / g (no --mass given)")
    # 2. whole steps of a run or a hop: from the first to the last contact onset after a flight
    onsets = [a for a, _ in runs if a > 0]
    gaps = [(nxt[0] - cur[1]) * dt for cur, nxt in zip(runs[:-1], runs[1:])]
    if len(onsets) >= 3 and gaps and max(gaps) <= LONGEST_FLIGHT:
        a, b = onsets[0], onsets[-1]
        m = float(fz[a:b].mean()) / gravity
        return m, (f"mass {m:.1f} kg from {name}: mean vertical force over {len(onsets) - 1} whole steps "
                   f"({(b - a) * dt:.1f} s, flights included) / g (no --mass given)")
    # 3. never off the plates: the longest continuous stretch
    if runs:
        a, b = max(runs, key=lambda r: r[1] - r[0])
        if (b - a) * dt >= CONTINUOUS_SECONDS and (b - a) >= 0.9 * len(fz):
            m = float(fz[a:b].mean()) / gravity
            return m, (f"mass {m:.1f} kg from {name}: mean vertical force over {(b - a) * dt:.1f} s of continuous "
                       "loading / g (no --mass given)")
    return None, "the plates show no quiet standing, whole running steps or continuous loading"

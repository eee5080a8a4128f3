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
other (:data:`AMBIGUOUS_MARGIN`) the frame is ambiguous (two feet on one
plate) and its kinetics are NaN.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError

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
    cop : (F, L, 3) m   centre of pressure on the floor (NaN while unloaded)
    body : (F, L) int   segment index each load acts on per frame; -1 none (unloaded or
                        unassigned), -2 ambiguous (kinetics NaN there)
    notes : list of str what was done, for the user
    """

    names: list
    force: np.ndarray
    moment_o: np.ndarray
    cop: np.ndarray
    body: np.ndarray = None
    notes: list = field(default_factory=list)


# ------------------------------------------------------------------ reading
def _plates(columns) -> list[tuple[str, str | None]]:
    """(force prefix, torque prefix or None) of each plate: ``<p>vx..pz`` and ``<q>torque_x..z``."""
    from .viewer.forces import plate_prefixes

    cols = set(columns)
    plates = []
    for p in plate_prefixes(columns):
        base = p[:-len("force_")] if p.endswith("force_") else p
        t = base + "torque_"
        plates.append((p, t if all(t + a in cols for a in _AXES) else None))
    return plates


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
    from .io import read_trial
    from .viewer.forces import vertical_axis_mapping

    path = Path(os.fspath(path))
    if path.suffix.lower() == ".c3d":
        return _read_c3d_platforms(path, mapping, loads)
    table = read_trial(path) if path.suffix.lower() in (".mot", ".sto") else _read_csv(path)
    if "time" not in table.columns:
        raise InputError("load file has no time column", path)
    time = table["time"].to_numpy(dtype=float)
    if len(time) < 2:
        raise InputError("load file has fewer than two rows", path)
    if np.any(np.diff(time) <= 0):
        raise InputError(f"time is not increasing at row {int(np.argmax(np.diff(time) <= 0)) + 2}", path)
    plates = _plates(table.columns)
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
    for name, seg in (loads or {}).items():
        if name not in names:
            raise InputError(f"--load {name}=...: the file has no load {name!r} (it has {', '.join(names)})", path)
        segs[names.index(name)] = seg
    return LoadTable(time, names, force, point, moment, segs, str(path), notes)


_LENGTH = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}


def c3d_has_platforms(path) -> bool:
    """Whether a C3D file declares force platforms (``FORCE_PLATFORM:USED`` > 0); False when unreadable."""
    try:
        import ezc3d

        c = ezc3d.c3d(os.fspath(path))
        used = c["parameters"].get("FORCE_PLATFORM", {}).get("USED", {}).get("value", [0])
        return int(np.asarray(used).ravel()[0]) > 0 if len(np.asarray(used).ravel()) else False
    except Exception:  # noqa: BLE001 - the trial reader reports what is wrong with the file
        return False


def _read_c3d_platforms(path: Path, mapping, loads) -> LoadTable:
    """Force platforms of a C3D file (types 1-4: corners, origin, calibration matrix, channel scales and
    offsets, analog rate), by ezc3d's force-platform model, into ground axes."""
    try:
        import ezc3d
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
    try:
        c = ezc3d.c3d(str(path), extract_forceplat_data=True)
    except Exception as err:  # noqa: BLE001
        raise InputError(f"cannot read the force platforms ({err})", path) from None
    rate = float(np.asarray(head["parameters"]["ANALOG"]["RATE"]["value"]).ravel()[0])
    point_rate = float(np.asarray(head["parameters"]["POINT"]["RATE"]["value"]).ravel()[0])
    first = int(head["header"]["points"]["first_frame"])  # 0-based, as the marker reader's time base
    M = np.eye(3) if mapping is None else np.asarray(mapping, dtype=float)
    names, force, point, moment = [], [], [], []
    for i, p in enumerate(c["data"]["platform"]):
        pos = _LENGTH.get(str(p["unit_position"]).strip().lower(), 1e-3)
        unit_m = str(p["unit_moment"]).strip().lower()
        mom = _LENGTH.get(unit_m[1:] if unit_m.startswith("n") else "mm", 1e-3)
        f = np.asarray(p["force"], dtype=float).T @ M.T
        _finite_check(f"force of platform {i + 1}", f, path)
        names.append(f"plate{i + 1}")
        force.append(f)
        point.append((np.asarray(p["center_of_pressure"], dtype=float).T * pos) @ M.T)
        moment.append((np.asarray(p["Tz"], dtype=float).T * mom) @ M.T)
    n = force[0].shape[0]
    time = first / point_rate + np.arange(n) / rate
    force, point, moment = (np.stack(a, axis=1) for a in (force, point, moment))
    segs = [None] * len(names)
    for name, seg in (loads or {}).items():
        if name not in names:
            raise InputError(f"--load {name}=...: the file has no load {name!r} (it has {', '.join(names)})", path)
        segs[names.index(name)] = seg
    return LoadTable(time, names, force, point, np.nan_to_num(moment), segs, str(path),
                     [f"loads: {len(names)} force platform(s) of type {', '.join(map(str, types))} from the C3D file "
                      f"at {rate:g} Hz"])


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
    from ._scipy import signal
    from .filters import butterworth_sos

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
    with np.errstate(invalid="ignore", divide="ignore"):
        fz = force[..., 2]
        cop = np.stack([-moment_o[..., 1] / fz, moment_o[..., 0] / fz, np.zeros_like(fz)], axis=-1)
    cop[~loaded] = np.nan
    if not inside.all():
        notes.append(f"loads: {int((~inside).sum())} frame(s) outside the load file's time range: no load there")
    return FrameLoads(list(table.names), force, moment_o, cop, notes=notes)


# ------------------------------------------------------------------ assignment
def _sole(results, k: int, length: float) -> tuple[np.ndarray, np.ndarray]:
    """The line of a foot's sole, (F, 3) each end: the ankle and a point ``length`` ahead along the foot."""
    O = results.joint[:, k]
    return O, O + results.R[:, k, :, 0] * length


def _distance_to_segment(p, a, b) -> np.ndarray:
    ab = b - a
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(np.einsum("fi,fi->f", p - a, ab) / np.einsum("fi,fi->f", ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + s[:, None] * ab), axis=1)


def assign_loads(loads: FrameLoads, table_segments, model, results, distance: float = ASSIGN_DISTANCE) -> FrameLoads:
    """Give every load in every frame a segment (``loads.body``); see the module docstring.

    ``table_segments`` lists the segment named for each load (or None).
    Returns ``loads`` with ``body`` set and lines added to ``notes``.
    """
    F, L = loads.force.shape[:2]
    body = np.full((F, L), -1, dtype=np.int64)
    loaded = loads.force[..., 2] > 0
    feet = [s for s in ("right_foot", "left_foot") if s in model.names]
    dist = {}
    for s in feet:
        k = model.names.index(s)
        length = float(model.segment_meta[k].get("length") or 2.0 * np.linalg.norm(model.com_offset[k]) or 0.2)
        a, b = _sole(results, k, length)
        dist[s] = np.stack([_distance_to_segment(loads.cop[:, j], a, b) for j in range(L)], axis=1)
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
        order = np.sort(d, axis=1)
        nearest = np.argmin(d, axis=1)
        close = order[:, 0] <= distance
        two = np.zeros(F, dtype=bool)
        if d.shape[1] > 1:
            with np.errstate(invalid="ignore"):  # inf - inf where no foot is near
                two = close & (order[:, 1] <= distance) & (order[:, 1] - order[:, 0] < AMBIGUOUS_MARGIN)
        for i, s in enumerate(feet):
            take = loaded[:, j] & close & ~two & (nearest == i)
            body[take, j] = model.names.index(s)
        ambiguous = loaded[:, j] & two
        near = d <= distance
        body[ambiguous, j] = -2
        far = loaded[:, j] & ~near.any(axis=1)
        counts = ", ".join(f"{s} {int((body[:, j] == model.names.index(s)).sum())}" for s in feet)
        line = f"loads: {name} -> nearest foot within {distance * 100:.0f} cm of the centre of pressure ({counts} frames)"
        if ambiguous.any():
            line += f"; both feet on it in {int(ambiguous.sum())} frame(s): kinetics NaN there"
        if far.any():
            line += f"; no foot near it in {int(far.sum())} loaded frame(s): load unused there"
        loads.notes.append(line)
    loads.body = body
    return loads

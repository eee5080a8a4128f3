"""``--export c3d,opensim``: a trial's results written for other programs.

This module stands above the domain (it uses :mod:`humanbody.gait` for the
events it writes and :mod:`humanbody.markers` for the lab axes); the file
writers it calls live in :mod:`humanbody.io`.

:func:`write_results <humanbody.trial_output.write_results>` collects the
columns named by :func:`export_columns` while it writes the results table,
then calls :func:`write_exports`, which writes

- ``<stem>.c3d`` (:mod:`humanbody.io.c3d_writer`): the input's markers and
  analog data as read, our outputs as Vicon Nexus's Plug-in Gait names them
  (:data:`PIG_OUTPUTS`), joint centres and mass centres as modelled points,
  gait events;
- ``opensim/`` (:mod:`humanbody.io.opensim_writer`): ``<stem>.trc``,
  ``<stem>_grf.mot`` with ``<stem>_external_loads.xml``,
  ``<stem>_angles.mot`` and ``<stem>_moments.sto``.

Plug-in Gait outputs (docs/formats.md, "C3D export"): angles in degrees, X
sagittal, Y frontal, Z transverse; for side S (R, L), with s = +1 on the
right and -1 on the left:

=====================  ==========================================================
``SPelvisAngles``      (tilt, s obliquity, s rotation): each side's own sense
``SHipAngles``         (flexion, adduction, internal rotation)
``SKneeAngles``        (flexion, adduction = varus, internal rotation)
``SAnkleAngles``       (dorsiflexion, inversion, internal rotation); with Plug-in Gait's
                       ankle (the ``plug_in_gait`` sets) (dorsiflexion, -inversion,
                       internal rotation), as Nexus writes it
``SFootProgressAngles``(0, 0, foot progression, internal positive); with Plug-in Gait's
                       foot (the ``plug_in_gait`` sets) (pitch - 90, s roll, foot
                       progression) from the progression frame, as Nexus writes it
``SHipMoment`` ...     -1000 x (flexion, adduction, internal rotation moment), N·mm/kg:
                       extensor, abductor, external rotator positive
``SHipPower`` ...      (0, 0, joint power) W/kg, generation positive
``SGroundReactionForce`` ground reaction on the foot, lab axes, N/kg
=====================  ==========================================================

With Plug-in Gait's upper body (the ``plug_in_gait`` set with its upper-body
markers) also ``SThoraxAngles``, ``SHeadAngles``, ``SSpineAngles``,
``SNeckAngles``, ``SShoulderAngles``, ``SElbowAngles``, ``SWristAngles``
(:data:`PIG_UPPER_OUTPUTS`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from .errors import InputError
from .gait.events import FOOT_MARKERS, PELVIS_MARKERS, PSEUDO_FEET, foot_markers, kinematic_events
from .io import length_unit, markers_array, read_trial
from .io.c3d_writer import PointBlock, platform_channels, write_c3d
from .io.opensim_writer import (
    GRF_PREFIXES,
    OPENSIM_OF_GROUND,
    foot_wrenches,
    write_external_loads,
    write_storage,
    write_trc,
)
from .lab.axes import to_ground
from .options import DEFAULT_FEET, EXPORT_FORMATS, parse_export, parse_feet

__all__ = [
    "DEFAULT_FEET",
    "EXPORT_FORMATS",
    "export_columns",
    "parse_export",
    "parse_feet",
    "pig_outputs",
    "pig_upper_outputs",
    "uses_pig_ankle",
    "write_exports",
]

_SIDES = (("R", "right", 1.0), ("L", "left", -1.0))
_AXES = ("x", "y", "z")


def pig_outputs(pig_ankle: bool = False) -> list:
    """``(group, label, components)``: each component None (zero) or ``(column, factor)``.

    ``pig_ankle``: the model decomposes the ankle as Plug-in Gait does (``conventions.clinical_sequences["ankle"]
    == "yzx"``, :func:`uses_pig_ankle`); ``SAnkleAngles`` Y is then written as Nexus writes it, the negative
    of the inversion (the rotation about the foot's long axis, s = +1 right, -1 left: Y = -s x): the shared
    Nexus 2.9 trial's own tibia and foot axes (``RTIO``..., ``RFOO``...) give its ``RAnkleAngles``,
    ``LAnkleAngles`` to 0.005 deg so, and with the other sign not at all (r = -0.99).  Such a model's
    ``SFootProgressAngles`` X and Y are then its ``s_foot_progression_x_deg`` and ``s_foot_progression_y_deg``
    (:func:`humanbody.mechanics.clinical.clinical_angles`; 0 otherwise).

    Parameters
    ----------
    pig_ankle : bool
        The model decomposes the ankle as Plug-in Gait does (:func:`uses_pig_ankle`): ``SAnkleAngles`` Y and
        ``SFootProgressAngles`` as Nexus writes them.

    Returns
    -------
    list of (str, str, list)
        Per output: its C3D group (``"ANGLES"``, ``"MOMENTS"``, ...), its label and its three components.
    """
    out = []
    ankle_y = -1.0 if pig_ankle else 1.0
    for S, side, s in _SIDES:
        foot_x, foot_y = ((f"{side}_foot_progression_x_deg", 1.0), (f"{side}_foot_progression_y_deg", 1.0)) \
            if pig_ankle else (None, None)
        out += [
            ("ANGLES", f"{S}PelvisAngles", [("pelvis_tilt_deg", 1.0), ("pelvis_obliquity_deg", s),
                                            ("pelvis_rotation_deg", s)]),
            ("ANGLES", f"{S}HipAngles", [(f"{side}_hip_{w}_deg", 1.0)
                                         for w in ("flexion", "adduction", "internal_rotation")]),
            ("ANGLES", f"{S}KneeAngles", [(f"{side}_knee_{w}_deg", 1.0)
                                          for w in ("flexion", "adduction", "internal_rotation")]),
            ("ANGLES", f"{S}AnkleAngles", [(f"{side}_ankle_dorsiflexion_deg", 1.0),
                                           (f"{side}_ankle_inversion_deg", ankle_y),
                                           (f"{side}_ankle_internal_rotation_deg", 1.0)]),
            ("ANGLES", f"{S}FootProgressAngles", [foot_x, foot_y, (f"{side}_foot_progression_deg", 1.0)]),
        ]
        for joint, words in (("Hip", ("flexion", "adduction", "internal_rotation")),
                             ("Knee", ("flexion", "adduction", "internal_rotation")),
                             ("Ankle", ("dorsiflexion", "inversion", "internal_rotation"))):
            j = joint.lower()
            out.append(("MOMENTS", f"{S}{joint}Moment", [(f"{side}_{j}_{w}_moment_Nm_per_kg", -1000.0) for w in words]))
            out.append(("POWERS", f"{S}{joint}Power", [None, None, (f"{side}_{j}_power_W_per_kg", 1.0)]))
    return out


#: Plug-in Gait model outputs and the results columns they come from (see the module docstring).
PIG_OUTPUTS = pig_outputs()
#: The same for a model with Plug-in Gait's ankle (``SAnkleAngles`` Y = -inversion, :func:`pig_outputs`).
PIG_ANKLE_OUTPUTS = pig_outputs(pig_ankle=True)


def uses_pig_ankle(model) -> bool:
    """Whether ``model`` decomposes the ankle as Plug-in Gait does (``conventions.clinical_sequences["ankle"]``
    is ``"yzx"``: the ``plug_in_gait`` sets), so that its ``SAnkleAngles`` Y is written as Nexus writes it.

    Parameters
    ----------
    model : BodyModel
        The analysed trial's model: ``conventions.clinical_sequences`` names its ankle's sequence.

    Returns
    -------
    bool
        True for the Plug-in Gait ankle (``"yzx"``).
    """
    return model.conventions.clinical_sequences.get("ankle") == "yzx"


def pig_upper_outputs() -> list:
    """Plug-in Gait's upper-body angle outputs, ``(group, label, components)`` as :func:`pig_outputs`.

    Each side's own sense, as Nexus reports them (docs/joint_angles.md, "Plug-in Gait's upper body"):
    thorax and head relative to the progression (forward tilt, own side up, rotated towards the other
    side positive, as the pelvis); spine (the thorax relative to the pelvis) and neck (the head
    relative to the thorax): flexed forward, bent and turned towards the own side positive; shoulder
    and wrist (flexion, abduction = -adduction, internal rotation); elbow (flexion, 0, 0 by construction).

    Returns
    -------
    list of (str, str, list)
        ``(group, label, components)``: the C3D group (``"ANGLES"``), Plug-in Gait's label with its side
        prefix (``LThoraxAngles``) and its X, Y, Z components as ``(clinical column, sign)`` pairs.
    """
    out = []
    for S, side, s in _SIDES:
        out += [
            ("ANGLES", f"{S}ThoraxAngles", [("thorax_tilt_deg", 1.0), ("thorax_obliquity_deg", s),
                                            ("thorax_progression_rotation_deg", s)]),
            ("ANGLES", f"{S}HeadAngles", [("head_tilt_deg", 1.0), ("head_obliquity_deg", s),
                                          ("head_rotation_deg", s)]),
            ("ANGLES", f"{S}SpineAngles", [("thorax_flexion_deg", 1.0), ("thorax_lateral_flexion_deg", s),
                                           ("thorax_rotation_deg", -s)]),
            ("ANGLES", f"{S}NeckAngles", [("neck_flexion_deg", 1.0), ("neck_lateral_flexion_deg", s),
                                          ("neck_rotation_deg", -s)]),
            ("ANGLES", f"{S}ShoulderAngles", [(f"{side}_shoulder_flexion_deg", 1.0),
                                              (f"{side}_shoulder_adduction_deg", -1.0),
                                              (f"{side}_shoulder_internal_rotation_deg", 1.0)]),
            ("ANGLES", f"{S}ElbowAngles", [(f"{side}_elbow_{w}_deg", 1.0)
                                           for w in ("flexion", "adduction", "internal_rotation")]),
            ("ANGLES", f"{S}WristAngles", [(f"{side}_wrist_flexion_deg", 1.0), (f"{side}_wrist_adduction_deg", -1.0),
                                           (f"{side}_wrist_internal_rotation_deg", 1.0)]),
        ]
    return out


#: Plug-in Gait's upper-body outputs: written when the trial has Plug-in Gait's thorax relative to the
#: progression (``thorax_tilt_deg``: the ``plug_in_gait`` set with its upper-body markers), whose
#: shoulder, spine and neck orders they are.
PIG_UPPER_OUTPUTS = pig_upper_outputs()


def _vector(prefix: str) -> list:
    return [f"{prefix}_{a}" for a in _AXES]


def export_columns(model, columns) -> list:
    """The results columns the exports need, in ``columns`` order: every clinical angle and moment, the
    feet's ground reactions and powers, the joint and mass centres.

    Parameters
    ----------
    model : BodyModel
        The analysed trial's model: its segment names (joint and mass-centre columns) and ankle sequence.
    columns : iterable of str
        The results table's columns.

    Returns
    -------
    list of str
        The columns the C3D and OpenSim exports read, in ``columns`` order.
    """
    want = {c for _, _, comps in PIG_OUTPUTS for c in (x[0] for x in comps if x)}
    want.update(f"{side}_grf_{a}_N_per_kg" for side in ("right", "left") for a in _AXES)
    for name in model.names:
        want.update(_vector(f"{name}_joint") + _vector(f"{name}_com"))
    want.update(_vector("body_com"))
    return [c for c in columns if c in want or c.endswith(("_deg", "_moment_Nm_per_kg"))]


# ------------------------------------------------------------------ raw input
def _raw_markers(analysis):
    """(names, xyz (F, n, 3) m in lab axes, the file's unit, metres per unit, frame table) or None."""
    if analysis.axes is None:
        return None
    df = analysis.raw if getattr(analysis, "raw", None) is not None else read_trial(analysis.source)
    unit, scale = length_unit(df.attrs.get("units_in_file") or "m")
    names = list(df.attrs.get("markers") or [])
    if names and list(map(str, df.columns)) == ["time"] + [f"{n}_{a}" for n in names for a in _AXES]:
        # time, then each marker's x, y, z: the positions are the table's columns after time, as they are
        # (a view of a table of floats, read only here), not a copy of a long trial's markers
        xyz = df.to_numpy(dtype=float)[:, 1:].reshape(len(df), len(names), 3)
    else:
        names, xyz = markers_array(df)
    return list(names), xyz, unit, scale, df


def _events(analysis, raw, cols, time) -> tuple[pd.DataFrame, str]:
    """Gait events (Zeni et al. 2008) from the input's markers in ground axes, else from model points."""
    if raw is not None:
        want = {m for pairs in FOOT_MARKERS.values() for pair in pairs for m in pair} | set(PELVIS_MARKERS)
        df = raw[4]
        keep = [m for m in df.attrs.get("markers", []) if m in want]
        part = df[["time"] + [f"{m}_{a}" for m in keep for a in _AXES]]
        part.attrs = dict(df.attrs, markers=keep)  # only the markers events use, turned to ground
        ground, _ = to_ground(part, axes=analysis.axes.spec)
        try:
            foot_markers(ground)
            return kinematic_events(ground), "markers"
        except InputError:
            pass
    points = {"time": np.asarray(time, dtype=float)}
    for name, col in (("right_ankle", "right_foot_joint"), ("left_ankle", "left_foot_joint"),
                      ("pelvis", "lower_torso_joint")):
        for a in _AXES:
            points[f"{name}_{a}"] = cols[f"{col}_{a}"]
    for side in ("right", "left"):  # the toe as humanbody.gait.selection.pseudo_markers: 2 G - O
        for a in _AXES:
            points[f"{side}_toe_{a}"] = 2 * np.asarray(cols[f"{side}_foot_com_{a}"]) - cols[f"{side}_foot_joint_{a}"]
    df = pd.DataFrame(points)
    df.attrs.update(kind="markers", source="model points")
    return kinematic_events(df, feet=PSEUDO_FEET, pelvis=["pelvis"]), "model points"


class _Gathered:
    """Columns ``idx`` of a 2-D table, taken a block of rows at a time: ``g[r0:r1]`` is (rows, len(idx))."""

    def __init__(self, base: np.ndarray, idx):
        self.base, self.idx = base, np.asarray(idx, dtype=np.intp)
        self.shape = (base.shape[0], len(self.idx))

    def __getitem__(self, rows) -> np.ndarray:
        return np.take(self.base[rows], self.idx, axis=1)


def _columns(cols, names, lazy: bool = False):
    """The columns ``names`` of ``cols`` side by side, (F, len(names)) float64.

    The columns :func:`write_results <humanbody.trial_output.write_results>`
    collects are column views of one table; those are taken row by row
    (one ``take``, each row read once) rather than column by
    column (every column a pass over the whole table), and with ``lazy`` a
    block of rows at a time, as the reader asks for them (:class:`_Gathered`).
    """
    arrays = [np.asarray(cols[c]) for c in names]
    base = arrays[0].base if arrays else None
    if isinstance(base, np.ndarray) and base.ndim == 2 and base.dtype == np.float64 and base.flags.c_contiguous:
        start, row = base.__array_interface__["data"][0], base.strides[0]
        idx = []
        for a in arrays:
            at = a.__array_interface__["data"][0] - start
            if (a.base is not base or a.shape != base.shape[:1] or a.strides != (row,) or not 0 <= at < row
                    or at % base.itemsize):
                break
            idx.append(at // base.itemsize)
        else:
            return _Gathered(base, idx) if lazy else np.take(base, idx, axis=1)
    return np.column_stack(arrays) if arrays else np.zeros((0, 0))


def _points(cols, prefixes, suffix: str = "") -> np.ndarray:
    """Points ``<prefix>_x<suffix>, _y<suffix>, _z<suffix>`` of ``cols`` as (F, len(prefixes), 3)."""
    v = _columns(cols, [f"{p}_{a}{suffix}" for p in prefixes for a in _AXES])
    return v.reshape(len(v), len(prefixes), 3)


# ------------------------------------------------------------------ writing
def write_exports(analysis, out_dir, formats, cols: dict, time, events=None, feet=DEFAULT_FEET,
                  notes: list | None = None) -> dict:
    """Write the exports ``formats`` of an analysed trial; return kind -> path.

    ``cols`` maps each column of :func:`export_columns` to its (frames,)
    values, ``time`` the frames' times (s); ``events`` an events table
    (:mod:`humanbody.gait.events`; default: kinematic events computed
    here, unless the trial is a C3D with gait events of its own, which its
    EVENT group carries into the export unchanged).  Raises InputError (one
    line) when a file cannot be written; what a writer had to say (events the C3D could not hold) is added
    to ``notes``, for the log (stage "export").

    Parameters
    ----------
    analysis : Analysis
        The analysed trial (:class:`humanbody.analysis.values.Analysis`): its model, axes mapping, loads,
        source file and stem.
    out_dir : str or os.PathLike
        The output folder: ``<stem>.c3d`` and the ``opensim/`` folder are written into it.
    formats : iterable of str
        ``"c3d"``, ``"opensim"``.
    cols : dict of str to ndarray, shape (F,)
        The results columns :func:`export_columns` names (their units as in the results table), by name.
    time : ndarray, shape (F,), s
        The frames' times.
    events : pandas.DataFrame, optional
        Gait events (``time`` s, ``side``, ``event``) for the C3D; default: found here from the kinematics.
    feet : tuple of str
        The OpenSim bodies the right and left foot loads are applied to.
    notes : list of str, optional
        Filled in place with the writers' lines for the log (even when a file cannot be written).

    Returns
    -------
    dict of str to pathlib.Path
        Kind ("c3d", "opensim_trc", "opensim_angles", ...) -> the file written.
    """
    out = Path(out_dir)
    raw = _raw_markers(analysis) if analysis.axes is not None else None
    M = analysis.axes.matrix if analysis.axes is not None else np.eye(3)
    time = np.asarray(time, dtype=float)
    own = getattr(analysis, "events", None)
    keeps_own = (raw is not None and str(analysis.source).lower().endswith(".c3d")
                 and own is not None and len(own) > 0)
    if events is None and "c3d" in formats and keeps_own:
        events = None  # the C3D is written over its source, whose EVENT group already holds the lab's events
    elif events is None and "c3d" in formats:  # events go into the C3D only
        try:
            events, _ = _events(analysis, raw, cols, time)
        except (InputError, KeyError):  # no feet to find events with: the C3D has none
            events = None
    paths = {}
    if "opensim" in formats:
        paths.update(_write_opensim(analysis, out / "opensim", raw, M, cols, time, feet))
    if "c3d" in formats:
        paths["c3d"] = _write_c3d(analysis, out / f"{analysis.stem}.c3d", raw, M, cols, time, events,
                                  [] if notes is None else notes)
    return paths


def _write_c3d(analysis, path: Path, raw, M, cols, time, events, said: list) -> str:
    F = len(time)
    rate = 1.0 / float(np.median(np.diff(time))) if F > 1 else 100.0
    if raw is not None:
        names, xyz, unit, scale, df = raw
        rate = float(df.attrs.get("rate_hz") or rate)
    else:
        names, xyz, unit, scale = [], np.zeros((F, 0, 3)), "mm", 1e-3
    blocks = []
    pig_all = ((PIG_ANKLE_OUTPUTS if uses_pig_ankle(analysis.model) else PIG_OUTPUTS)
               + (PIG_UPPER_OUTPUTS if "thorax_tilt_deg" in cols else []))
    outputs = [(g, label, comps) for g, label, comps in pig_all if any(c and c[0] in cols for c in comps)]
    take: list[str] = []
    factor: list[float] = []
    where: list[int] = []  # where: each component's column of [taken x factor, 0, NaN]
    for _, _, comps in outputs:
        for c in comps:
            if c is not None and c[0] in cols:
                where.append(len(take))
                take.append(c[0])
                factor.append(c[1])
            else:
                where.append(-2 if c is None else -1)
    given = np.empty((F, len(take) + 2))
    if take:
        np.multiply(_columns(cols, take), np.array(factor), out=given[:, :len(take)])
    given[:, -2:] = (0.0, np.nan)
    pig = np.take(given, np.array(where, dtype=np.intp) % given.shape[1], axis=1).reshape(F, len(outputs), 3)
    if outputs:
        blocks.append(PointBlock([g for g, _, _ in outputs], [label for _, label, _ in outputs], pig,
                                 ["humanbody"] * len(outputs)))
    lab = M.T
    grf = [(S, side) for S, side, _ in _SIDES if f"{side}_grf_x_N_per_kg" in cols]
    if grf:
        v = _points(cols, [f"{side}_grf" for _, side in grf], "_N_per_kg")  # on the foot, N/kg, ground axes
        blocks.append(PointBlock("FORCES", [f"{S}GroundReactionForce" for S, _ in grf], v, axes=lab))
    pts_labels = [f"{name}_{what}" for name in analysis.model.names for what in ("joint", "com")
                  if f"{name}_{what}_x" in cols]
    if "body_com_x" in cols:
        pts_labels.append("body_com")
    if pts_labels:
        blocks.append(PointBlock("MODELLED", pts_labels, _points(cols, pts_labels),
                                 [f"humanbody {x}" for x in pts_labels], scale=scale, axes=lab))
    ev = []
    if events is not None:
        for t, side, event in zip(events["time"], events["side"], events["event"], strict=True):
            ev.append(({"foot_strike": "Foot Strike", "foot_off": "Foot Off"}[event], side.capitalize(), float(t)))
    source = analysis.source if str(analysis.source).lower().endswith(".c3d") and raw is not None else None
    first = int(round(time[0] * rate)) + 1 if F else 1
    if source is not None:
        first = int(raw[4].attrs.get("first_frame", first))
    plates = None
    table = getattr(analysis, "load_table", None)
    has_own = source is not None and str(analysis.source) == str(getattr(table, "source", ""))
    if table is not None and not has_own:
        per = max(1, int(round(table.rate_hz / rate)))
        if source is not None:
            import ezc3d

            head = ezc3d.c3d(str(source))
            an = head["data"]["analogs"]
            if an.size:
                per = an.shape[2] // max(1, head["data"]["points"].shape[2])
            used = head["parameters"].get("FORCE_PLATFORM", {}).get("USED", {}).get("value", [0])
            if len(np.ravel(used)) and int(np.ravel(used)[0]) > 0:
                table = None  # the trial's own plates stay; the loads file is in the results only
        if table is not None:
            frame_time = (first - 1 + np.arange(F)) / rate
            plates = platform_channels(table.time, table.force, table.point, table.moment, frame_time, lab, scale,
                                       per, names=table.names)
    notes: list[str] = []  # what the writer had to say (events it could not hold): for the analysis' log
    try:
        return write_c3d(path, frames=F, rate_hz=rate, source=source,
                         markers=None if source is not None else (names, xyz), markers_scale=scale, unit=unit,
                         first_frame=first, blocks=blocks, events=ev, platforms=plates, notes=notes)
    finally:
        said += notes


def _write_opensim(analysis, folder: Path, raw, M, cols, time, feet) -> dict:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the OpenSim folder ({err.strerror or err})", folder) from None
    stem = analysis.stem
    paths = {}
    O = OPENSIM_OF_GROUND
    if raw is not None:
        names, xyz, unit, _, df = raw
        rate = float(df.attrs.get("rate_hz"))
        t = df["time"].to_numpy(dtype=float)
        A, scale = O @ M, float(raw[3])  # OpenSim's axes, the file's unit
    else:
        names = [n + "_joint" for n in analysis.model.names if f"{n}_joint_x" in cols]
        xyz, A, scale = _points(cols, names), O, 1.0
        unit, t = "m", time
        rate = 1.0 / float(np.median(np.diff(time)))
    first = int(round(t[0] * rate)) + 1
    paths["opensim_trc"] = write_trc(folder / f"{stem}.trc", names, xyz, t, rate, unit, first_frame=max(1, first),
                                     axes=A, scale=scale)
    angles = [c for c in cols if c.endswith("_deg")]
    paths["opensim_angles"] = write_storage(folder / f"{stem}_angles.mot", "humanbody clinical angles", angles, time,
                                          _columns(cols, angles, lazy=True), in_degrees=True)
    # a side no load reached has NaN moments throughout: left out, since OpenSim's Storage stops at a NaN row
    moments = [c for c in cols if c.endswith("_moment_Nm_per_kg") and np.isfinite(cols[c]).any()]
    if moments:
        paths["opensim_moments"] = write_storage(folder / f"{stem}_moments.sto", "humanbody joint moments",
                                               moments, time, _columns(cols, moments, lazy=True),
                                               in_degrees=False)
    loads = analysis.loads
    if loads is not None:
        columns, values, bodies = [], [], {}
        torques = []
        table = getattr(analysis, "load_table", None)  # the floor: where the file's points lie
        z = table.point[..., 2] if table is not None else np.array([np.nan])
        floor = float(np.nanmedian(z)) if np.isfinite(z).any() else None
        for (side, body) in zip(("right", "left"), feet, strict=True):
            name = f"{side}_foot"
            if name not in analysis.model.names:
                continue
            force, point, torque = foot_wrenches(loads, analysis.model.names.index(name), floor)
            p = GRF_PREFIXES[side]
            columns += [f"{p}force_v{a}" for a in _AXES] + [f"{p}force_p{a}" for a in _AXES]
            values += [force @ O.T, point @ O.T]
            torques.append(([f"{p}torque_{a}" for a in _AXES], torque @ O.T))
            bodies[side] = body
        for names_t, v in torques:
            columns += names_t
            values.append(v)
        grf = folder / f"{stem}_grf.mot"
        paths["opensim_grf"] = write_storage(grf, grf.name, columns, time, np.column_stack(values), in_degrees=False)
        paths["opensim_loads"] = write_external_loads(folder / f"{stem}_external_loads.xml", grf.name, bodies)
    return paths

"""Open anything the viewer shows: a raw trial or a results table -> :class:`Scene`.

* A raw trial (markers TRC/C3D/CSV or a generalized-coordinates CSV) goes
  through :func:`humanbody.analysis.analyze_trial`; the scene then carries
  the conditioned markers (ground axes) and the tracking residuals.
* A results CSV written by ``humanbody analyze`` (docs/conventions.md "Results"
  layout) carries the generalized coordinates, so its orientations R_k are
  recomputed with :func:`humanbody.compute`; every vector the file holds
  (omega, alpha, joint, com, force, torque, body mass centre, ...) is then
  shown as written in the file, not as recomputed.  The model is the
  ``<stem>_model.json`` that ``analyze`` writes beside the results unless
  ``model`` (or mass/height) is given.  A results table holds no markers, so
  the marker layer is empty.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.option_checks import options_with
from ..analysis.run import analyze_trial
from ..errors import InputError
from ..io.loads import LoadTable, read_loads
from ..lab.axes import parse_axes
from ..mechanics.kinematics import compute, coordinate_columns
from ..mechanics.kinetics import joint_load_table
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel, load_model
from ..model.segments import VECTOR_QUANTITIES
from .scene import Scene

__all__ = ["load_scene", "is_results_table", "scene_from_analysis"]

_BODY_COM = ("body_com", "body_com_vel", "body_com_acc")


def _header(path: str) -> list[str]:
    try:
        return list(pd.read_csv(path, nrows=0).columns)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError, ValueError):
        return []


def is_results_table(columns) -> bool:
    """Whether ``columns`` are the docs/conventions.md results layout (not just coordinates).

    Parameters
    ----------
    columns : iterable of str
        A table's column names.

    Returns
    -------
    bool
        True for a results table.
    """
    cols = set(columns)
    return "time" in cols and "body_com_x" in cols and any(c.endswith("_omega_x") for c in cols)


def _loads_grf(analysis) -> LoadTable | None:
    """The analysis's external loads on its frames (force at the centre of pressure) as a LoadTable, or None."""
    loads = getattr(analysis, "loads", None)
    if loads is None:
        return None
    return LoadTable(np.asarray(analysis.motion.time, dtype=float), list(loads.names), loads.force, loads.cop,
                     np.zeros_like(loads.force), [None] * len(loads.names), str(getattr(analysis, "source", "")))


def scene_from_analysis(analysis, *, grf=None, axes: str = "auto", title: str | None = None) -> Scene:
    """A :class:`Scene` from an :class:`humanbody.analysis.Analysis` (and optional force file).

    An analysis with external loads (``forces=``) draws them as ground
    reactions and its joint moments as the ``moment`` layer.

    Parameters
    ----------
    analysis : Analysis
        The analysed trial.
    grf : str or os.PathLike, optional
        A force file to draw instead of the analysis's loads.
    axes : str
        Lab -> ground axes of ``grf``.
    title : str, optional
        The window's title (default the trial's name).

    Returns
    -------
    Scene
        The scene: segments, markers, vectors and plates over the trial's frames.
    """
    marker_segments = _marker_segments(analysis)
    residuals = analysis.residuals
    joint_moment = None
    if getattr(analysis, "loads", None) is not None:
        joint_moment = joint_load_table(analysis.model, analysis.results, analysis.loads).joint_moment
    return Scene(
        model=analysis.model,
        results=analysis.results,
        markers=analysis.markers,
        residuals=residuals if isinstance(residuals, pd.DataFrame) else None,
        marker_segments=marker_segments,
        grf=_grf(grf, analysis.markers, axes) if grf is not None else _loads_grf(analysis),
        title=title or Path(analysis.source).name,
        clinical=analysis.clinical,
        joint_moment=joint_moment,
        plates=getattr(getattr(analysis, "loads", None), "plates", None),
    )


def _marker_segments(analysis) -> dict:
    """Marker -> segment from the marker set's tracking clusters (first cluster naming the marker).

    Marker sets name canonical markers and list other spellings as aliases;
    each spelling maps to the segment.  Markers in no cluster are left to the
    scene's nearest-segment rule.
    """
    markerset = getattr(getattr(analysis, "calibration", None), "markerset", None)
    segments = getattr(markerset, "segments", None) or {}
    aliases = getattr(markerset, "aliases", None) or {}
    out: dict[str, str] = {}
    for seg_name, spec in segments.items():
        for marker in getattr(spec, "markers", ()) or ():
            for spelling in (marker, *aliases.get(marker, ())):
                out.setdefault(str(spelling), str(seg_name))
    return out


def _grf(path, markers, axes: str) -> LoadTable | None:
    """The force file ``path`` in ground axes (:func:`humanbody.io.loads.read_loads`): under the mapping ``axes``
    names, else the markers', else the vertical the forces show."""
    if path is None:
        return None
    mapping = None
    spec = None
    if isinstance(axes, str) and axes.strip().lower() != "auto":
        spec = axes
    elif markers is not None and markers.attrs.get("axes"):
        spec = markers.attrs["axes"]  # the mapping the markers were rotated with
    if spec is not None:
        mapping = parse_axes(spec)
    return read_loads(path, mapping=mapping)


def _model_for_results(path: Path, model, mass, height, sex) -> BodyModel:
    if isinstance(model, BodyModel):
        return model
    if model is not None:
        return load_model(model)
    if mass is not None or height is not None:
        return BodyModel.default(mass=DEFAULT_MASS if mass is None else float(mass),
                                 height=DEFAULT_HEIGHT if height is None else float(height), sex=sex)
    stem = path.name[: -len("_results.csv")] if path.name.endswith("_results.csv") else path.stem
    beside = path.with_name(f"{stem}_model.json")
    if beside.exists():
        return load_model(beside)
    raise InputError(
        f"results table without its model: no {beside.name} beside it; give `model`, or `mass` and `height`",
        path,
    )


def _results_from_table(path: Path, model: BodyModel):
    """Results whose vectors are the file's columns and whose R comes from its coordinates."""
    try:
        table = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as err:
        raise InputError(f"cannot read the results table ({err})", path) from None
    coord_cols = coordinate_columns(model)
    missing = [c for c in coord_cols if c not in table.columns]
    if missing:
        raise InputError(
            f"results table lacks the generalized coordinate {missing[0]!r} needed to place the segments "
            f"(model segments: {model.names[0]} .. {model.names[-1]})", path,
        )
    if len(table) == 0:
        raise InputError("results table has no rows", path)
    coords = table[["time", *coord_cols]].copy()
    coords.attrs.update(kind="coordinates", source=str(path))
    try:
        results = compute(model, coords)
    except InputError as err:
        raise err.with_path(path) from None
    override: dict[str, Any] = {}
    F, n = len(table), model.n_bodies
    for q in VECTOR_QUANTITIES:
        cols = [f"{name}_{q}_{a}" for name in model.names for a in "xyz"]
        if all(c in table.columns for c in cols):
            override[q] = np.ascontiguousarray(table[cols].to_numpy(dtype=float).reshape(F, n, 3))
    for q in _BODY_COM:
        cols = [f"{q}_{a}" for a in "xyz"]
        if all(c in table.columns for c in cols):
            override[q] = np.ascontiguousarray(table[cols].to_numpy(dtype=float))
    return dataclasses.replace(results, **override)


def _clinical_from_table(path: Path) -> pd.DataFrame | None:
    """The clinical angle columns (``*_deg``) of a results table, or None when it has none."""
    cols = [c for c in _header(str(path)) if c.endswith("_deg")]
    if not cols:
        return None
    return pd.read_csv(path, usecols=cols)[cols]


def load_scene(path, options=None, *, grf=None, **overrides) -> tuple[Scene, list[str]]:
    """Open a trial or a results table for viewing.

    Parameters
    ----------
    path : str or Path
        Raw trial (markers or generalized coordinates) or a results CSV
        written by ``humanbody analyze``.
    options : AnalysisOptions, optional
        How a raw trial is analysed (:class:`humanbody.options.AnalysisOptions`,
        as :func:`humanbody.analysis.analyze_trial` takes them; external
        loads, ``forces``, are drawn at their centres of pressure and the
        joint moments become the ``moment`` layer).  For a results CSV only
        ``model``, ``mass``, ``height``, ``sex`` apply, and ``forces`` is
        drawn as ground reactions.
    grf : str or Path, optional
        Force-plate file (e.g. OpenSim ``.mot``) whose ground reactions are drawn.
    **overrides
        Any analysis option by name over ``options`` (``static=``, ``mass=``, ...).

    Returns
    -------
    scene : Scene
        The scene: segments, markers, vectors and plates over the trial's frames.
    messages : list of str
        What was read and done, for the user.
    """
    opts = options_with(options, overrides)
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError("no such file", p)
    if p.is_dir():
        raise InputError("is a folder, not a trial file", p)
    if p.suffix.lower() in (".csv", ".txt") and is_results_table(_header(str(p))):
        subject = _model_for_results(p, opts.model, opts.mass, opts.height, opts.sex)
        results = _results_from_table(p, subject)
        messages = [f"read results table {p}: {results.n_frames} frames, model {subject.name}"]
        scene = Scene(model=subject, results=results, grf=_grf(grf if grf is not None else opts.forces, None,
                                                               opts.axes),
                      title=p.name, clinical=_clinical_from_table(p))
        return scene, messages
    analysis = analyze_trial(p, opts)
    return scene_from_analysis(analysis, grf=grf, axes=opts.axes), list(analysis.messages)

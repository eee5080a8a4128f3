"""Ground reaction forces for the viewer: force-plate columns -> ground axes.

Force files keep the plate columns as named in the file (docs/conventions.md,
"Force DataFrame").  A plate is recognised by six columns sharing a prefix:
``<p>vx, <p>vy, <p>vz`` (force, N) and ``<p>px, <p>py, <p>pz`` (centre of
pressure, m), the OpenSim ``.mot`` naming (``ground_force_vx``,
``1_ground_force_vx``, ...).  :func:`grf_to_ground` rotates them with the same
lab -> ground mapping as the markers (``ground = M @ lab``) into the layout
:class:`~humanbody.viewer.scene.Scene` draws: ``<plate>_force_<axis>`` and
``<plate>_point_<axis>``.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import InputError

__all__ = ["plate_prefixes", "grf_to_ground", "grf_arrays", "read_grf", "vertical_axis_mapping"]

_AXES = ("x", "y", "z")


def plate_prefixes(columns) -> list[str]:
    """Prefixes ``p`` for which all of ``p + vx, vy, vz, px, py, pz`` are columns."""
    cols = set(columns)
    out = []
    for c in columns:
        if c.endswith("vx"):
            p = c[:-2]
            if all(p + s in cols for s in ("vx", "vy", "vz", "px", "py", "pz")):
                out.append(p)
    return out


def _plate_name(prefix: str, i: int) -> str:
    name = prefix.rstrip("_")
    return name if name else f"plate{i + 1}"


def vertical_axis_mapping(forces: pd.DataFrame) -> np.ndarray:
    """Lab -> ground mapping for a force file alone: the vertical is the lab axis carrying most force.

    Body weight dominates a walking trial's ground reaction, so the lab axis
    with the largest mean absolute force summed over plates is vertical.  A
    Y-up file is taken as OpenSim's axes (X forward, Y up, Z right: spec
    ``x,-z,y``); a Z-up file keeps its axes.  Returns M (3, 3) with
    ``ground = M @ lab``.
    """
    prefixes = plate_prefixes(forces.columns)
    load = np.zeros(3)
    for p in prefixes:
        for j, a in enumerate(_AXES):
            load[j] += np.nanmean(np.abs(forces[f"{p}v{a}"].to_numpy(dtype=float)))
    up = int(np.argmax(load))
    if up == 1:
        return np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])
    if up == 2:
        return np.eye(3)
    raise InputError("cannot tell the vertical axis of the force plates (most force is along lab x); "
                     "give --axes", forces.attrs.get("source"))


def grf_to_ground(forces: pd.DataFrame, mapping: np.ndarray | None = None) -> pd.DataFrame:
    """Force-plate columns rotated into ground axes.

    Parameters
    ----------
    forces : DataFrame
        A force table with ``time`` and per plate ``<p>vx..vz`` (N) and
        ``<p>px..pz`` (m), lab axes.
    mapping : ndarray (3, 3), optional
        ``ground = mapping @ lab``; detected by :func:`vertical_axis_mapping` when omitted.

    Returns
    -------
    DataFrame
        ``time`` and per plate ``<plate>_force_x/_y/_z`` (N) and
        ``<plate>_point_x/_y/_z`` (m), ground axes.
    """
    source = forces.attrs.get("source")
    prefixes = plate_prefixes(forces.columns)
    if not prefixes or "time" not in forces.columns:
        raise InputError("no force-plate columns (<plate>vx/vy/vz and px/py/pz) and time", source)
    M = vertical_axis_mapping(forces) if mapping is None else np.asarray(mapping, dtype=float)
    out = {"time": forces["time"].to_numpy(dtype=float)}
    for i, p in enumerate(prefixes):
        name = _plate_name(p, i)
        for what, letter in (("force", "v"), ("point", "p")):
            lab = forces[[f"{p}{letter}{a}" for a in _AXES]].to_numpy(dtype=float)
            ground = lab @ M.T
            for j, a in enumerate(_AXES):
                out[f"{name}_{what}_{a}"] = ground[:, j]
    df = pd.DataFrame(out)
    df.attrs.update(kind="grf", source=source)
    return df


def grf_arrays(grf: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Forces and centres of pressure of a ground-axes GRF table, each (F, plates, 3)."""
    plates = [c[: -len("_force_x")] for c in grf.columns if c.endswith("_force_x")]
    plates = [p for p in plates if all(f"{p}_{w}_{a}" in grf.columns for w in ("force", "point") for a in _AXES)]
    F = len(grf)
    force = np.empty((F, len(plates), 3))
    point = np.empty((F, len(plates), 3))
    for i, p in enumerate(plates):
        force[:, i] = grf[[f"{p}_force_{a}" for a in _AXES]].to_numpy(dtype=float)
        point[:, i] = grf[[f"{p}_point_{a}" for a in _AXES]].to_numpy(dtype=float)
    return force, point


def read_grf(path, mapping: np.ndarray | None = None) -> pd.DataFrame:
    """Read a force-plate file and return its ground reactions in ground axes.

    Uses :func:`humanbody.io.read_trial`; ``mapping`` as in :func:`grf_to_ground`.
    """
    from ..io import read_trial

    path = os.fspath(path)
    forces = read_trial(path)
    if forces.attrs.get("kind") not in (None, "forces"):
        raise InputError("does not hold force-plate data", path)
    forces.attrs.setdefault("source", path)
    try:
        return grf_to_ground(forces, mapping)
    except InputError as err:
        raise err.with_path(path) from None

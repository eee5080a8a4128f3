"""Ground reaction forces for the viewer: force-plate columns -> ground axes.

Force files keep the plate columns as named in the file (docs/conventions.md,
"Force DataFrame").  A plate is recognised by six columns sharing a prefix:
``<p>vx, <p>vy, <p>vz`` (force, N) and ``<p>px, <p>py, <p>pz`` (centre of
pressure, m), the OpenSim ``.mot`` naming (``ground_force_vx``,
``1_ground_force_vx``, ...); the layouts, the vertical-axis rule and the
plates' geometry live in :mod:`humanbody.io.forceplates`.  :func:`grf_to_ground` rotates them with the same
lab -> ground mapping as the markers (``ground = M @ lab``) into the layout
:class:`~humanbody.viewer.scene.Scene` draws: ``<plate>_force_<axis>`` and
``<plate>_point_<axis>``.
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from ..errors import InputError
from ..io.forceplates import plate_name as _plate_name
from ..io.forceplates import plate_prefixes, vertical_axis_mapping

__all__ = ["plate_prefixes", "grf_to_ground", "grf_arrays", "read_grf", "vertical_axis_mapping"]

_AXES = ("x", "y", "z")


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

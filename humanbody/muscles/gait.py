"""A walking trial's muscle results in gait terms: main muscle groups, hip and knee contact force in body weights.

From a trial's :class:`~humanbody.muscles.trial.MuscleResults`, one per-frame
table (``time`` s, then ``{side}_{group}_activation`` and
``{side}_{hip|knee}_contact_force_bw``) that the report normalises over the
stride like any other variable, and the trial's peaks for its summary row.

- A group's activation is the mean of its muscles' activations (gait2392's
  and Rajagopal 2016's names: :data:`GROUPS`; a group the model lacks is left out).
- A joint's contact force is the magnitude of the force the joint transmits
  to its child body with the muscle forces applied (OpenSim's JointReaction,
  ``<joint>_on_<child>_in_<child>_fx..fz``), over the model's weight
  ``m g`` (``m`` the sum of its bodies' masses, ``g`` 9.80665 m/s^2).
  The hip is the joint that moves ``hip_flexion_<r|l>``, the knee the one that moves
  ``knee_angle_<r|l>``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .trial import MuscleResults, Setup

G = 9.80665  # m/s^2, standard gravity: body weight = m G
SIDES = {"right": "r", "left": "l"}

#: (group, title, name prefixes of its muscles without the side suffix): gait2392 and Rajagopal 2016 names
GROUPS = (
    ("gluteus_maximus", "gluteus maximus", ("glut_max", "glmax")),
    ("gluteus_medius", "gluteus medius", ("glut_med", "glmed")),
    ("hamstrings", "hamstrings", ("semimem", "semiten", "bifemlh", "bflh")),
    ("rectus_femoris", "rectus femoris", ("rect_fem", "recfem")),
    ("vasti", "vasti", ("vas_med", "vas_int", "vas_lat", "vasmed", "vasint", "vaslat")),
    ("gastrocnemius", "gastrocnemius", ("med_gas", "lat_gas", "gasmed", "gaslat")),
    ("soleus", "soleus", ("soleus",)),
    ("tibialis_anterior", "tibialis anterior", ("tib_ant", "tibant")),
)
#: (joint key, the coordinate (without side suffix) its joint moves)
CONTACT_JOINTS = (("hip", "hip_flexion"), ("knee", "knee_angle"))

#: A group is "on" over the stride where its mean activation exceeds this share of its peak ...
ON_SHARE = 0.2
#: ... and this activation
ON_FLOOR = 0.05


def members(muscles, group_prefixes, side: str) -> list[int]:
    """Indices of the muscles of a group on one side (``side``: "r" or "l").

    Parameters
    ----------
    muscles : sequence of str
        The model's muscle names.
    group_prefixes : sequence of str
        Name prefixes of the group's muscles, without the side suffix.
    side : str
        "r" or "l".

    Returns
    -------
    list of int
        Indices into ``muscles``.
    """
    return [i for i, m in enumerate(muscles)
            if m.endswith(f"_{side}") and any(m[: -2].startswith(p) for p in group_prefixes)]


def contact_joints(setup: Setup) -> dict[tuple[str, str], tuple[str, str]]:
    """(side, "hip"|"knee") -> (joint name, child body name) of the model's hip and knee joints.

    Parameters
    ----------
    setup : Setup
        The trial's setup (its model's joints).

    Returns
    -------
    dict
        ``(side, "hip"|"knee")`` -> ``(joint name, child body name)``, for the joints the model has.
    """
    out = {}
    for side, s in SIDES.items():
        for key, coordinate in CONTACT_JOINTS:
            for j in setup.geometry.model.joints:
                if f"{coordinate}_{s}" in j.coordinates:
                    out[(side, key)] = (j.name, j.child)
    return out


def body_weight(setup: Setup) -> float:
    """The model's weight ``m g`` (N): the sum of its bodies' masses times standard gravity.

    Parameters
    ----------
    setup : Setup
        The trial's setup (its model's bodies).

    Returns
    -------
    float
        The model's weight (N).
    """
    return float(sum(b.mass for b in setup.geometry.model.bodies)) * G


def gait_table(result: MuscleResults, setup: Setup) -> pd.DataFrame:
    """Per-frame table: ``time`` (s), ``{side}_{group}_activation`` (0-1) and
    ``{side}_{hip|knee}_contact_force_bw`` (body weights; present when the result has the
    joint's reactions, :func:`contact_joints`).

    Parameters
    ----------
    result : MuscleResults
        The trial's muscle results (time, controls, reactions).
    setup : Setup
        The setup that made them (model, muscle names).

    Returns
    -------
    pandas.DataFrame
        One row per frame, the columns above.
    """
    columns: dict[str, np.ndarray] = {"time": result.time}
    controls = result.optimum.controls
    for side, s in SIDES.items():
        for group, _, prefixes in GROUPS:
            idx = members(setup.muscles.names, prefixes, s)
            if idx:
                columns[f"{side}_{group}_activation"] = controls[:, idx].mean(axis=1)
    names = list(result.reaction_names)
    weight = body_weight(setup)
    for (side, key), (joint, child) in contact_joints(setup).items():
        stem = f"{joint}_on_{child}_in_{child}_f"
        if result.reactions is not None and f"{stem}x" in names:
            i = names.index(f"{stem}x")
            force = np.linalg.norm(result.reactions[:, i: i + 3], axis=1)
            columns[f"{side}_{key}_contact_force_bw"] = force / weight
    return pd.DataFrame(columns)


def contact_peaks(table: pd.DataFrame, strikes: dict | None = None) -> dict[str, float]:
    """The trial's peak hip and knee contact force per side, body weights:
    ``{side}_peak_{hip|knee}_contact_force_bw`` (NaN when the table lacks the joint).

    ``strikes`` (side -> foot-strike times, s) limits each side's peak to its strides, from its
    first foot strike to its last (the trial's ends, where the motion starts and stops inside the
    capture, are left out); None: every frame.

    Parameters
    ----------
    table : pandas.DataFrame
        From :func:`gait_table`.
    strikes : dict, optional
        Side ("right", "left") -> foot-strike times (s).

    Returns
    -------
    dict of str to float
        ``{side}_peak_{hip|knee}_contact_force_bw`` -> peak (body weights, NaN when not available).
    """
    out = {}
    time = table["time"].to_numpy(dtype=float) if "time" in table else np.zeros(0)
    for side in SIDES:
        inside = np.ones(len(time), dtype=bool)
        if strikes is not None:
            t = np.asarray(strikes.get(side, ()), dtype=float)
            inside = (time >= t.min()) & (time <= t.max()) if len(t) >= 2 else np.zeros(len(time), dtype=bool)
        for key, _ in CONTACT_JOINTS:
            col = f"{side}_{key}_contact_force_bw"
            values = table[col].to_numpy(dtype=float)[inside] if col in table else np.full(1, np.nan)
            out[f"{side}_peak_{key}_contact_force_bw"] = (float(np.nanmax(values)) if np.isfinite(values).any()
                                                          else float("nan"))
    return out


def on_spans(percent: np.ndarray, mean: np.ndarray) -> list[tuple[float, float]]:
    """(start, end) percent of the stride where a group is on: its mean activation above
    ``max(ON_FLOOR, ON_SHARE * peak)`` (:data:`ON_SHARE`, :data:`ON_FLOOR`).

    Parameters
    ----------
    percent : numpy.ndarray
        (n,) percent of the stride of each sample.
    mean : numpy.ndarray
        (n,) the group's mean activation (0-1, NaN where unknown).

    Returns
    -------
    list of tuple of float
        ``(start, end)`` percent of each span where the group is on (empty when never).
    """
    finite = np.isfinite(mean)
    if not finite.any():
        return []
    on = finite & (mean > max(ON_FLOOR, ON_SHARE * float(np.nanmax(mean))))
    edges = np.flatnonzero(np.diff(np.r_[0, on.astype(np.int8), 0]))
    return [(float(percent[a]), float(percent[b - 1])) for a, b in zip(edges[::2], edges[1::2], strict=True)]

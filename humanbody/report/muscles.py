"""A report trial's muscles (``report ... --model MODEL.osim --muscles``): files, figure, summary columns.

The trial's markers on the OpenSim model, inverse kinematics, static
optimization and the hip and knee reactions
(:func:`humanbody.muscles.markers.analyze_markers`), then over the strides
the report's own events cut: the main muscle groups' activations with on/off
bars, and the hip and knee contact force in body weights
(:mod:`humanbody.muscles.gait`). The summary row gains
``{side}_peak_{hip|knee}_contact_force_bw``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from ..gait import events_of, normalize_cycles
from ..io.writers import REPORT_CSV_DIGITS, table_csv_bytes
from ..muscles.findings import bound_lines, reserve_lines, unmet_lines
from ..muscles.gait import GROUPS, contact_joints, contact_peaks, gait_table, on_spans
from ..muscles.markers import analyze_markers, setup_of
from ..osim.ik import read_ik_setup
from . import svg
from .panels import cycle_panels

#: (title, variable with {side}, scale, unit) of the contact-force panels
CONTACT_PANELS = [
    ("hip contact force", "{side}_hip_contact_force_bw", 1.0, "BW"),
    ("knee contact force", "{side}_knee_contact_force_bw", 1.0, "BW"),
]


@dataclass
class MusclePart:
    """What the muscles add to a trial: files (name -> bytes), summary columns, the figure, log lines."""

    files: dict = field(default_factory=dict)
    row: dict = field(default_factory=dict)
    figures: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)


def _table(time: np.ndarray, names, values: np.ndarray) -> bytes:
    frame = pd.DataFrame(np.asarray(values), columns=list(names))
    frame.insert(0, "time", time)
    return table_csv_bytes(frame, REPORT_CSV_DIGITS)


def muscle_part(task, model: str, reserves: str | None, events: pd.DataFrame, foot_off: dict, plots: str,
                stem: str, ik_setup: str | None = None) -> MusclePart:
    """The muscles of one report trial (``task.grf`` its loads: an ExternalLoads XML, or a table with
    one beside it); ``events`` cut the strides, ``foot_off`` (side -> %) marks the panels; ``ik_setup``
    an OpenSim IK setup weighing the inverse kinematics (None: equal weights).

    Parameters
    ----------
    task : TrialTask
        The report trial (its trial and force files).
    model : str
        The OpenSim model file.
    reserves : str or None
        The reserve actuators' file.
    events : pandas.DataFrame
        The events that cut the strides (time s, side, event).
    foot_off : dict of str to float
        Side -> its foot off in percent of the stride.
    plots : str
        The figures' format.
    stem : str
        The files' name stem.
    ik_setup : str, optional
        An OpenSim IK setup whose marker weights the inverse kinematics uses (None: equal weights).

    Returns
    -------
    MusclePart
        The muscles' files (name -> bytes), summary columns, figure and log lines of the trial.
    """
    part = MusclePart()
    if task.grf is None:
        part.messages.append("muscles skipped: the trial has no force file")
        part.row.update(contact_peaks(pd.DataFrame()))
        return part
    setup = setup_of(model)
    wanted = tuple(joint for joint, _ in contact_joints(setup).values())
    tasks = read_ik_setup(ik_setup) if ik_setup else None
    found = analyze_markers(setup, task.trial, task.grf, reserves, tasks, joints=wanted)
    r = found.muscles
    actuators = list(setup.muscles.names) + list(r.reserves.names)
    part.files[f"{stem}_activations.csv"] = _table(r.time, actuators, r.optimum.controls)
    part.files[f"{stem}_muscle_forces.csv"] = _table(r.time, actuators, r.optimum.forces)
    if r.reactions is not None:
        part.files[f"{stem}_joint_reactions.csv"] = _table(r.time, r.reaction_names, r.reactions)
    part.messages.append(f"muscles: {Path(model).name}, inverse kinematics ({_weights(ik_setup)}) RMS marker error "
                         f"{1000 * np.nanmean(found.ik.rms_error):.1f} mm, static optimization of {len(r.time)} "
                         f"frames" + ("" if reserves else ", reserves of optimal force 1 on every coordinate"))
    part.messages += unmet_lines(r.time, r.optimum)
    part.messages += bound_lines(r.time, r.optimum, setup.muscles.names, setup.muscles.max_control)
    part.messages += reserve_lines(r.time, r.optimum, r.tau, r.moment_arms, r.reserves, r.coordinates)
    table = gait_table(r, setup)
    part.row.update(contact_peaks(table, {side: events_of(events, side, "foot_strike") for side in ("right", "left")}))
    if plots == "svg":
        part.figures[f"{stem}_muscles.svg"] = _figure(table, events, foot_off, stem)
    return part


def _weights(ik_setup: str | None) -> str:
    """How the inverse kinematics weighs the markers, for the log."""
    return f"weights of {Path(ik_setup).name}" if ik_setup else "every marker weight 1: --ik-setup for OpenSim's"


def _figure(table: pd.DataFrame, events: pd.DataFrame, foot_off: dict, stem: str) -> str:
    """The muscle groups' activations with on/off bars, then the hip and knee contact force (SVG)."""
    variables = [c for c in table.columns if c != "time"]
    cycles = normalize_cycles(table, events, variables)
    spec = [(title, f"{{side}}_{group}_activation", 1.0, "activation") for group, title, _ in GROUPS
            if f"right_{group}_activation" in table or f"left_{group}_activation" in table]
    panels = cycle_panels(cycles, spec, None, foot_off)
    for panel in panels:
        panel.bars = {s.side: on_spans(s.percent, s.mean) for s in panel.series}
    panels += cycle_panels(cycles, CONTACT_PANELS, None, foot_off)
    return svg.grid_svg(panels, f"{stem}: muscle activations (static optimization) and joint contact force "
                                "over the stride", ncols=5)

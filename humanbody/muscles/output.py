"""A trial's muscle results as files, in OpenSim's names and units, and the log lines that go with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from ..io.writers import write_table
from .findings import bound_lines, reserve_lines, unmet_lines
from .trial import MuscleResults, Setup


def _table(time: np.ndarray, names, values: np.ndarray) -> pd.DataFrame:
    frame = pd.DataFrame(np.asarray(values), columns=list(names))
    frame.insert(0, "time", time)
    return frame


def write_results(r: MuscleResults, setup: Setup, out: Path, trial: str) -> list[str]:
    """Write the trial's static optimization and joint reactions into ``out``; return the log lines
    (files written, then the findings).

    ``<trial>_activations.csv``, ``<trial>_muscle_forces.csv`` (N; reserves after the muscles, N·m
    or N), ``<trial>_joint_reactions.csv`` (``<joint>_on_<body>_in_<frame>_fx..pz``; N, N·m, m).
    """
    muscles = setup.muscles.names
    stem = out / trial
    actuators = list(muscles) + list(r.reserves.names)
    lines = [f"wrote activations: {write_table(_table(r.time, actuators, r.optimum.controls), f'{stem}_activations')}",
             f"wrote muscle forces: {write_table(_table(r.time, actuators, r.optimum.forces), f'{stem}_muscle_forces')}"]
    if r.reactions is not None and r.reaction_names:
        table = _table(r.time, r.reaction_names, r.reactions)
        lines.append(f"wrote joint reactions: {write_table(table, f'{stem}_joint_reactions')}")
    lines += unmet_lines(r.time, r.optimum)
    lines += bound_lines(r.time, r.optimum, muscles, setup.muscles.max_control)
    lines += reserve_lines(r.time, r.optimum, r.tau, r.moment_arms, r.reserves, r.coordinates)
    return lines

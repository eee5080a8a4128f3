"""A trial's muscle results as files, in OpenSim's names and units, and the log lines that go with them."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..io.writers import write_blocks
from .findings import bound_lines, reserve_lines, unmet_lines
from .trial import MuscleResults, Setup


def _write(stem: str, time: np.ndarray, names, values: np.ndarray) -> str:
    """``<stem>.csv``: ``time`` then ``names`` (the bytes ``write_table`` writes of that DataFrame, without pandas)."""
    table = np.column_stack([np.asarray(time, dtype=np.float64), np.asarray(values, dtype=np.float64)])
    return write_blocks(f"{stem}.csv", ["time", *map(str, names)], [table])


def write_muscle_results(r: MuscleResults, setup: Setup, out: Path, trial: str) -> list[str]:
    """Write the trial's static optimization and joint reactions into ``out``; return the log lines
    (files written, then the findings).

    ``<trial>_activations.csv``, ``<trial>_muscle_forces.csv`` (N; reserves after the muscles, N·m
    or N), ``<trial>_joint_reactions.csv`` (``<joint>_on_<body>_in_<frame>_fx..pz``; N, N·m, m).

    Parameters
    ----------
    r : MuscleResults
        The trial's results.
    setup : Setup
        The setup that made them (muscle names, activation bounds).
    out : pathlib.Path
        The folder written into.
    trial : str
        The trial's name, the files' stem.

    Returns
    -------
    list of str
        ``wrote ...: <path>`` per file, then the findings (:mod:`humanbody.muscles.findings`).
    """
    muscles = setup.muscles.names
    stem = out / trial
    actuators = list(muscles) + list(r.reserves.names)
    lines = [f"wrote activations: {_write(f'{stem}_activations', r.time, actuators, r.optimum.controls)}",
             f"wrote muscle forces: {_write(f'{stem}_muscle_forces', r.time, actuators, r.optimum.forces)}"]
    if r.reactions is not None and r.reaction_names:
        lines.append(f"wrote joint reactions: {_write(f'{stem}_joint_reactions', r.time, r.reaction_names, r.reactions)}")
    lines += unmet_lines(r.time, r.optimum)
    lines += bound_lines(r.time, r.optimum, muscles, setup.muscles.max_control)
    lines += reserve_lines(r.time, r.optimum, r.tau, r.moment_arms, r.reserves, r.coordinates)
    return lines

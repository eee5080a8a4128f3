"""What an optimum says about the trial, one line each: bounds hit, reserves leaned on, frames not met.

A trial that needs large reserves is a finding, not a silent number: the
muscles of the model could not (or would rather not) carry part of the
generalised forces there.  The lines name the frames by their times.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .reserves import Reserves
from .static_optimization import Optimum

RESERVE_SHARE = 0.10  # a reserve carrying more than this share of its coordinate's generalised force is named
FLOOR = 1.0  # N·m or N: generalised forces smaller than this are not judged by share


SPANNED = 1e-6  # m: a muscle whose moment arm never exceeds this does not span the coordinate


def _span(time: np.ndarray, frames: np.ndarray) -> str:
    if len(frames) == 1:
        return f"1 frame ({time[frames[0]]:.3f} s)"
    return f"{len(frames)} frames ({time[frames[0]]:.3f}-{time[frames[-1]]:.3f} s)"


def bound_lines(time: np.ndarray, opt: Optimum, muscles: Sequence[str], max_control: np.ndarray) -> list[str]:
    """One line per muscle that reached its upper activation bound, with the frames.

    Parameters
    ----------
    time : numpy.ndarray
        (F,) frame times (s).
    opt : Optimum
        The static optimization's result (``controls`` (F, M + R)).
    muscles : sequence of str
        The M muscle names, in the controls' order.
    max_control : numpy.ndarray
        (M,) upper activation bounds.

    Returns
    -------
    list of str
        One line per muscle at its bound (empty when none).
    """
    nm = len(muscles)
    at_top = opt.controls[:, :nm] >= max_control - 1e-9
    lines = []
    for i in np.flatnonzero(at_top.any(axis=0)):
        lines.append(f"{muscles[int(i)]} at full activation in {_span(time, np.flatnonzero(at_top[:, i]))}")
    return lines


def reserve_lines(time: np.ndarray, opt: Optimum, tau: np.ndarray, moment_arms: np.ndarray, reserves: Reserves,
                  coordinates: Sequence[str]) -> list[str]:
    """Reserves carrying more than 10 % of their coordinate's generalised force, one line each.

    Coordinates no muscle spans (the pelvis' six, for a gait model) can only be
    carried by their actuators: they are said once, as residuals, with the
    largest force and moment.

    Parameters
    ----------
    time : numpy.ndarray
        (F,) frame times (s).
    opt : Optimum
        The static optimization's result (``forces`` (F, M + R): muscles, then reserves; N or N·m).
    tau : numpy.ndarray
        (F, nq) generalised forces to reproduce (N·m or N).
    moment_arms : numpy.ndarray
        (F, M, nq) muscle moment arms (m).
    reserves : Reserves
        The reserve actuators (their names and coordinate indices, -1 for point or torque actuators).
    coordinates : sequence of str
        The nq coordinate names.

    Returns
    -------
    list of str
        The lines (empty when no reserve is leaned on and nothing is left to residuals).
    """
    nm = moment_arms.shape[1]
    spanned = np.abs(moment_arms).max(axis=(0, 1)) > SPANNED
    lines, residual = [], []
    for k, name in enumerate(reserves.names):
        j = reserves.coordinates[k]
        force = opt.forces[:, nm + k]
        if j < 0:  # a point or torque actuator: its largest force or torque
            residual.append(f"{name} {np.abs(force).max():.3g}")
            continue
        if not spanned[j]:
            residual.append(f"{coordinates[j]} {np.abs(force).max():.3g}")
            continue
        big = (np.abs(tau[:, j]) > FLOOR) & (np.abs(force) > RESERVE_SHARE * np.abs(tau[:, j]))
        if big.any():
            share = np.abs(force[big]) / np.abs(tau[big, j])
            lines.append(f"reserve {name} carried more than {RESERVE_SHARE:.0%} of {coordinates[j]}'s moment in "
                         f"{_span(time, np.flatnonzero(big))}, up to {share.max():.0%}")
    if residual:
        lines.append("residuals carry what no muscle spans (largest, N or N·m): " + ", ".join(residual))
    return lines


def unmet_lines(time: np.ndarray, opt: Optimum) -> list[str]:
    """One line when some frames could not meet the generalised forces within the bounds.

    Parameters
    ----------
    time : numpy.ndarray
        (F,) frame times (s).
    opt : Optimum
        The static optimization's result (``iterations`` < 0 marks a frame not met).

    Returns
    -------
    list of str
        One line, or none when every frame was met.
    """
    bad = np.flatnonzero(opt.iterations < 0)
    if not len(bad):
        return []
    return [f"the muscles and reserves cannot reproduce the generalised forces in {_span(time, bad)}; "
            "those frames are the closest the bounds allow (add or strengthen reserves)"]

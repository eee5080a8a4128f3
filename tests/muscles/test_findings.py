"""The log lines of an optimum: bounds hit, reserves leaned on, frames not met, residuals."""

from __future__ import annotations

import numpy as np

from humanbody.muscles import Reserves, solve
from humanbody.muscles.findings import bound_lines, reserve_lines, unmet_lines


def test_lines_name_the_muscle_the_reserve_and_the_frames():
    """One joint (j=0) with a weak muscle and a reserve, one coordinate (j=1) no muscle spans."""
    time = np.array([0.0, 0.1, 0.2])
    cap = np.full((3, 1), 100.0)
    arms = np.zeros((3, 1, 2))
    arms[:, 0, 0] = 0.05  # at most 5 N·m from the muscle
    tau = np.array([[1.0, 3.0], [4.9, 3.0], [20.0, 3.0]])
    res = Reserves(("r0", "r1"), np.array([0, 1]), np.array([1.0, 1.0]), np.full(2, -np.inf), np.full(2, np.inf))
    opt = solve(cap, arms, tau, res, np.array([0.01]), np.array([1.0]))
    assert unmet_lines(time, opt) == []
    assert bound_lines(time, opt, ["m"], np.array([1.0])) == ["m at full activation in 1 frame (0.200 s)"]
    lines = reserve_lines(time, opt, tau, arms, res, ["c0", "c1"])
    assert lines[0].startswith("reserve r0 carried more than 10% of c0's moment in 1 frame (0.200 s), up to 75%")
    assert lines[1] == "residuals carry what no muscle spans (largest, N or N·m): c1 3"


def test_unmet_frames_are_said():
    opt = solve(np.full((2, 1), 100.0), np.full((2, 1, 1), 0.05), np.array([[1.0], [50.0]]), Reserves(),
                np.array([0.0]), np.array([1.0]))
    assert unmet_lines(np.array([0.0, 0.5]), opt)[0].startswith(
        "the muscles and reserves cannot reproduce the generalised forces in 1 frame (0.500 s)")

"""Muscle-tendon lengths against OpenSim 4.6, the bodies placed where OpenSim puts them.

The body poses come from OpenSim itself (tests/_osim_reference.py), so these tests check
the path geometry alone: points, conditional and moving points, wrapping.
"""

from __future__ import annotations

import numpy as np
import pytest
from _osim_cases import CASES

from humanbody._kernels.muscle_paths import trial_paths
from humanbody.muscles.paths import PackedPaths

pytest.importorskip("opensim")

TWO_WRAPS = ("gasmed_r", "gaslat_r", "gasmed_l", "gaslat_l")


def _lengths(case):
    ref = case.reference()
    pk = PackedPaths.build(case.model)
    F, B = ref["p"].shape[:2]
    n = len(pk.muscles)
    lengths, _ = trial_paths(ref["q"], ref["R"], ref["p"], np.zeros((F, B, 6, 1)), np.zeros(0, np.int64),
                             np.zeros((F, 0, ref["q"].shape[1])), np.zeros(n + 1, np.int64), np.zeros(0, np.int64),
                             True, n, pk.max_points, pk.arrays())
    return lengths, ref["lengths"], pk.muscles


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gait2392_walk", "gait2392_generic_poses", "rajagopal_poses"])
def test_lengths_equal_opensims(shared_data, name):
    ours, theirs, muscles = _lengths(CASES[name])
    assert np.abs(ours - theirs).max() < 1e-8     # m: 0.01 µm
    assert np.all(ours > 0)


@pytest.mark.slow
def test_two_wrap_lengths_equal_opensims(shared_data):
    """Paths over two cylinders (the gastrocnemii): OpenSim keeps the place in ground a tangent point had
    when first read while the path is built (muscle_paths' notes), and slides the tangent points along
    each cylinder as its WrapCylinder does (wrap.tangent_helix); ours does both."""
    ours, theirs, muscles = _lengths(CASES["rajagopal_poses"])
    two = [muscles.index(m) for m in TWO_WRAPS]
    assert np.abs(ours[:, two] - theirs[:, two]).max() < 1e-8       # m: 0.01 µm

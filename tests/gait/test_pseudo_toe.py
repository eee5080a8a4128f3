"""Gait events of trials without markers (generalized coordinates, orientations): the model's points standing
for heel and toe (humanbody.gait.selection.pseudo_markers).  The toe is the head of the second metatarsal,
twice the ankle-to-mass-centre vector from the ankle (Winter's foot: its mass centre halfway between them);
on the sample walk the events then give the stance and double support of its marker version and of normal
walking (about 60 % and 20 %)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.gait.selection import pseudo_markers

DATA = Path(__file__).resolve().parents[2] / "data"


def test_the_toe_is_twice_the_ankle_to_mass_centre_vector():
    analysis = hb.analyze_trial(DATA / "sample_walk.csv")
    res = analysis.results
    points = pseudo_markers(res, res.time)
    for side in ("right", "left"):
        k = res.segment(f"{side}_foot")
        ankle, com = res.joint[:, k], res.com[:, k]
        toe = points[[f"{side}_toe_{c}" for c in "xyz"]].to_numpy()
        np.testing.assert_allclose(toe - ankle, 2 * (com - ankle), atol=1e-12)
        np.testing.assert_allclose(points[[f"{side}_ankle_{c}" for c in "xyz"]].to_numpy(), ankle, atol=0)
        length = np.linalg.norm(toe - ankle, axis=1)  # ankle to the metatarsal heads: a foot's 12-18 cm
        assert np.ptp(length) < 1e-9 and 0.12 < length[0] < 0.18


def test_the_sample_walks_stance_and_double_support_are_those_of_walking(tmp_path):
    from humanbody.cli import main

    out = tmp_path / "report"
    assert main(["report", str(DATA / "sample_walk.csv"), str(DATA / "sample_walk_markers.trc"), "--static",
                 str(DATA / "sample_static.trc"), "--mass", "75", "--height", "1.75", "--out", str(out),
                 "--plots", "none", "-q", "--jobs", "1"]) == 0
    rows = pd.read_csv(out / "summary.csv").set_index("key")
    coords, markers = rows.loc["sample_walk"], rows.loc["sample_walk_markers"]
    assert coords["stance_pct"] == pytest.approx(59.7, abs=0.1)  # 57.6 with the mass centre as the toe
    assert coords["double_support_pct"] == pytest.approx(19.4, abs=0.1)  # 15.1 with the mass centre
    assert abs(coords["stance_pct"] - markers["stance_pct"]) < 1.5
    assert abs(coords["double_support_pct"] - markers["double_support_pct"]) < 2.5

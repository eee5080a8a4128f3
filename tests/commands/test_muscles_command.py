"""``humanbody muscles``: the two tables of the shared walk against OpenSim, and bad input in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _osim_cases import CASES

from humanbody.cli import main


@pytest.mark.slow
def test_walk_tables_equal_opensims(shared_data, tmp_path, capsys):
    pytest.importorskip("opensim")
    case = CASES["gait2392_walk"]
    ik = shared_data / "gait2392_walk" / "reference" / "opensim_ik.mot"
    assert main(["muscles", str(ik), "--model", str(case.path), "--out", str(tmp_path)]) == 0
    assert "211 frames, 92 muscles, 262 moment arms" in capsys.readouterr().out
    lengths = pd.read_csv(tmp_path / "opensim_muscle_lengths.csv")
    arms = pd.read_csv(tmp_path / "opensim_moment_arms.csv")
    ref = case.reference()
    assert list(lengths.columns) == ["time", *case.model.muscle_names]
    assert np.abs(lengths.to_numpy()[:, 1:] - ref["lengths"]).max() < 1e-5
    assert arms.shape == (211, 263) and "rect_fem_r/knee_angle_r" in arms and "rect_fem_r/ankle_angle_r" not in arms
    names, coords = case.model.muscle_names, case.model.coordinate_names
    for col in arms.columns[1:]:
        m, c = col.split("/")
        theirs = ref["moment_arms"][:, names.index(m), coords.index(c)]
        assert np.abs(arms[col].to_numpy() - theirs).max() < 1e-4, col


def test_bad_input_one_line(shared_data, tmp_path, capsys):
    model = shared_data / "opensim_models" / "rajagopal2016" / "Rajagopal2016.osim"
    ik = shared_data / "gait2392_walk" / "reference" / "opensim_ik.mot"
    assert main(["muscles", str(ik), "--model", str(model), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "has no column for the model's coordinates arm_flex_r" in err
    bad = tmp_path / "bad.osim"
    bad.write_text("not xml")
    assert main(["muscles", str(ik), "--model", str(bad), "--out", str(tmp_path)]) == 2
    assert "not an XML file" in capsys.readouterr().err

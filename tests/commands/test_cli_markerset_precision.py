"""``humanbody markerset precision TRIAL --static STATIC``: the predicted precision of a marker set on a trial."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from humanbody.cli import main

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
WALK, STATIC = DATA / "sample_walk_markers.trc", DATA / "sample_static.trc"


def _table(out: str) -> dict:
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0].replace("_", "").isalpha():
            try:
                rows[parts[0]] = [float(x) for x in parts[1:]]
            except ValueError:
                continue
    return rows


def test_prints_every_segment_and_writes_the_frames(tmp_path, capsys):
    csv = tmp_path / "std.csv"
    assert main(["markerset", "precision", str(WALK), "--static", str(STATIC), "--csv", str(csv)]) == 0
    cap = capsys.readouterr()
    rows = _table(cap.out)
    assert len(rows) == 17, cap.out
    assert len(cap.out.splitlines()) <= 24  # a screenful
    assert 0.05 < rows["right_lower_leg"][0] < 0.5          # knee flexion
    assert rows["right_upper_arm"][2] > 2 * rows["right_upper_arm"][0]  # one marker off the humerus axis
    assert rows["right_hand"] == [0.0, 0.0, 0.0]             # no hand markers: held by the neutral pull
    std = pd.read_csv(csv)
    assert len(std) == 441 and "right_lower_leg_alpha" in std and "time" in std
    assert abs(((std["right_lower_leg_alpha"] ** 2).mean()) ** 0.5 - rows["right_lower_leg"][0]) < 0.006
    assert "largest:" in cap.err and "wrote" in cap.err
    # the same without the filter: the noise is no longer divided, about 1 / sqrt(0.13) times larger
    assert main(["markerset", "precision", str(WALK), "--static", str(STATIC), "--cutoff", "0", "-q"]) == 0
    cap = capsys.readouterr()
    raw = _table(cap.out)
    assert cap.err == ""
    assert 2.2 < raw["right_lower_leg"][0] / rows["right_lower_leg"][0] < 3.2
    # twice the noise, twice the error (the frames' full precision: the table's two decimals alone move a 0.3 deg
    # ratio by 1.5 %)
    csv4 = tmp_path / "std4.csv"
    assert main(["markerset", "precision", str(WALK), "--static", str(STATIC), "--noise-mm", "4", "-q",
                 "--csv", str(csv4)]) == 0
    four = _table(capsys.readouterr().out)
    std4 = pd.read_csv(csv4)
    for col in ("right_upper_leg_alpha", "right_lower_leg_alpha", "left_foot_alpha"):
        ratio = ((std4[col] ** 2).mean() / (std[col] ** 2).mean()) ** 0.5
        assert abs(ratio - 2) < 1e-4, (col, ratio)
    assert abs(four["right_upper_leg"][0] - 2 * rows["right_upper_leg"][0]) <= 0.015  # the table: 2 x, to its rounding (0.005 + 2 x 0.005)


@pytest.mark.parametrize("extra,message", [
    (["--cutoff", "-1"], "--cutoff must be 0"),
    (["--cutoff", "80"], "Nyquist"),
    (["--markerset", "nosuchset"], "nosuchset"),
])
def test_bad_options_one_line_exit_2(extra, message, capsys):
    assert main(["markerset", "precision", str(WALK), "--static", str(STATIC), *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.parametrize("value", ["0", "-2", "abc", "nan", "inf"])
def test_noise_must_be_positive(value, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["markerset", "precision", str(WALK), "--noise-mm", value])
    assert exc.value.code == 2
    assert "positive number of mm" in capsys.readouterr().err


def test_bad_files_one_line_exit_2(tmp_path, capsys):
    cases = [([str(tmp_path / "missing.trc")], "missing.trc"),
             ([str(DATA / "sample_walk.csv")], "not a marker trial"),
             ([str(WALK), "--static", str(tmp_path / "nostatic.trc")], "nostatic.trc")]
    empty = tmp_path / "empty.trc"
    empty.write_text("")
    cases.append(([str(empty)], "empty.trc"))
    for args, message in cases:
        assert main(["markerset", "precision", *args]) == 2, args
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    csv = tmp_path / "there.csv"
    csv.write_text("x")
    assert main(["markerset", "precision", str(WALK), "--static", str(STATIC), "--csv", str(csv)]) == 2
    assert "--force" in capsys.readouterr().err and csv.read_text() == "x"


def test_subprocess_exit_status_and_no_traceback(tmp_path):
    r = subprocess.run([sys.executable, "-m", "humanbody", "markerset", "precision", str(tmp_path / "none.trc")],
                       capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 2 and "Traceback" not in r.stderr and r.stderr.count("\n") == 1, r.stderr

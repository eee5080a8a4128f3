"""``humanbody vibration``: the CSV files, the plot, and one-line errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pandas as pd

from humanbody.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_vibration_writes_response_modes_and_plot(tmp_path):
    out = tmp_path / "vib"
    assert main(["vibration", "--posture", "seated", "--mass", "60", "--height", "1.65", "--out", str(out),
                 "--fmax", "12", "-q"]) == 0
    r = pd.read_csv(out / "frequency_response.csv")
    assert list(r.columns) == ["frequency_hz", "apparent_mass_kg", "apparent_mass_phase_deg",
                               "seat_to_head_transmissibility", "seat_to_head_phase_deg"]
    assert r.frequency_hz.iloc[0] == 0.5 and abs(r.frequency_hz.iloc[-1] - 12.0) < 1e-9
    peak = r.apparent_mass_kg.idxmax()
    assert 4.0 <= r.frequency_hz[peak] <= 6.0  # the scaled subject resonates where the 75 kg one does
    m = pd.read_csv(out / "modes.csv")
    assert list(m.columns) == ["frequency_hz", "damping_ratio", "dominant"] and len(m) > 5
    assert (out / "frequency_response.png").stat().st_size > 10000


def test_vibration_bad_input_is_one_line(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    for args, message in ((["--fmin", "3", "--fmax", "1"], "--fmin"), (["--model", str(tmp_path / "x.json")], "x.json"),
                          (["--mass", "-3"], "--mass must be positive")):
        r = subprocess.run([sys.executable, "-m", "humanbody", "vibration", "--out", str(tmp_path / "o"), *args],
                           capture_output=True, text=True, env=env)
        assert r.returncode == 2 and message in r.stderr and r.stderr.count("\n") == 1, r.stderr

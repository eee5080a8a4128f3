"""The static trial's segment dimensions against the trial's (humanbody.checks.static_fit): the distances
between the markers of each segment, measured independently from the files, and a static of another body
(the same markers, the body 15 % larger) refused even when the tracking residual alone would pass."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from humanbody.checks.static_fit import MAX_DIMENSION_PCT, check_static_fit, segment_dimensions
from humanbody.errors import InputError
from humanbody.io import read_trial
from humanbody.lab.axes import to_ground
from humanbody.markers.calibration import calibrate

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"
SHARED = ROOT.parent / "shared" / "data" / "gait2392_walk"


@pytest.fixture(scope="module")
def sample():
    static, _ = to_ground(read_trial(DATA / "sample_static.trc"), "x,-z,y")
    walk, _ = to_ground(read_trial(DATA / "sample_walk_markers.trc"), "x,-z,y")
    return calibrate(static, mass=75.0, height=1.75), static, walk


def _small_residual(walk):
    """A tracking result whose residual alone passes (2 mm on every segment)."""
    return SimpleNamespace(residuals=pd.DataFrame({"time": walk["time"], "lower_torso": 0.002, "right_foot": 0.002}))


def _xyz(df, name):
    return df[[f"{name}_{c}" for c in "xyz"]].to_numpy(dtype=float)


def test_the_pelvis_width_and_foot_length_are_the_files_own(sample):
    cal, static, walk = sample
    dims = segment_dimensions(cal, walk).set_index(["a", "b"])
    for a, b in (("R.ASIS", "L.ASIS"), ("R.Heel", "R.Toe.Tip")):
        in_static = np.linalg.norm(np.nanmedian(_xyz(static, a) - _xyz(static, b), axis=0))
        in_trial = np.nanmedian(np.linalg.norm(_xyz(walk, a) - _xyz(walk, b), axis=1))
        row = dims.loc[(a, b)]
        assert row["static_m"] == pytest.approx(in_static, abs=1e-3)  # the static's median pose
        assert row["trial_m"] == pytest.approx(in_trial, abs=1e-9)
        assert row["difference_pct"] == pytest.approx(100 * (in_trial - in_static) / in_static, abs=0.5)
    assert (dims["static_m"] >= 0.05).all() and len(dims) > 40


def test_the_subjects_own_static_fits(sample):
    cal, _, walk = sample
    line = check_static_fit("sample_static.trc", _small_residual(walk), calibration=cal, markers=walk)
    assert line.startswith("check static: sample_static.trc fits the trial's subject")
    assert re.search(r"segment marker distances within 0\.\d % of the trial's, at most 8 %\)$", line), line


def test_a_larger_bodys_static_is_refused_though_its_residual_passes(sample):
    cal, _, walk = sample
    larger = walk.copy()
    cols = [c for c in walk.columns if c != "time"]
    larger[cols] = walk[cols] * 1.15  # every distance 15 % longer
    with pytest.raises(InputError) as err:
        check_static_fit("sample_static.trc", _small_residual(walk), calibration=cal, markers=larger)
    message = str(err.value.on_command_line())  # what the command line says; Python callers read `skip_checks`
    assert "does not fit this trial's subject" in message and "--skip-check static" in message
    assert "differ from the trial's by 15.0 %" in message and "median marker residual" not in message
    assert 15.0 > MAX_DIMENSION_PCT
    line = check_static_fit("sample_static.trc", _small_residual(walk), calibration=cal, markers=larger, skip=True)
    assert "does not fit" in line and "--skip-check static" in line


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared walk (../shared/data) is absent")
def test_the_shared_static_on_the_sample_walk_is_refused_in_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "humanbody", "analyze", str(DATA / "sample_walk_markers.trc"),
                           "--static", str(SHARED / "subject01_static.trc"), "--out", str(tmp_path)], capture_output=True,
                          text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}, timeout=900)
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip() and "compiling the numerical kernels" not in ln]
    assert proc.returncode == 2 and len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    assert "subject01_static.trc: does not fit this trial's subject" in lines[0]
    assert "differ from the trial's by 16." in lines[0] and "--skip-check static" in lines[0]

"""Generalized-coordinates CSV reader (docs/conventions.md layout) and format detection."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.errors import InputError
from humanbody.io import detect_format, read_trial
from humanbody.model.segments import SEGMENT_NAMES


def _coords_csv(path, n=6, rate=50.0, drop=None, extra=(), rates=False):
    cols = ["time", "lower_torso_x", "lower_torso_y", "lower_torso_z"]
    cols += [f"{s}_{a}" for s in SEGMENT_NAMES for a in ("alpha", "beta", "gamma")]
    base = list(cols[1:])
    if rates:
        cols += [f"{c}_dot" for c in base] + [f"{c}_ddot" for c in base]
    cols += list(extra)
    cols = [c for c in cols if c != drop]
    rng = np.random.default_rng(3)
    vals = rng.uniform(-0.5, 0.5, (n, len(cols)))
    vals[:, 0] = np.arange(n) / rate
    path.write_text(",".join(cols) + "\n" + "\n".join(",".join(f"{x:.9f}" for x in r) for r in vals) + "\n")
    return path, cols, vals


def test_coordinates_roundtrip(tmp_path):
    f, cols, vals = _coords_csv(tmp_path / "c.csv")
    assert detect_format(f) == "coordinates"
    df = read_trial(f)
    assert df.attrs["kind"] == "coordinates" and df.attrs["rate_hz"] == pytest.approx(50.0)
    assert list(df.columns) == cols and df.attrs["segments"] == list(SEGMENT_NAMES)
    np.testing.assert_allclose(df.to_numpy(), vals, rtol=0, atol=1e-9)
    assert df.attrs["rates_given"] is False
    g, _, _ = _coords_csv(tmp_path / "r.csv", rates=True, extra=["lower_torso_omega_x"])
    df = read_trial(g, kind="coordinates")
    assert df.attrs["rates_given"] is True and "lower_torso_omega_x" in df


def test_coordinates_errors(tmp_path):
    f, _, _ = _coords_csv(tmp_path / "miss.csv", drop="left_foot_gamma")
    with pytest.raises(InputError, match="missing required columns left_foot_gamma") as err:
        read_trial(f)
    assert "miss.csv" in str(err.value)
    f, cols, vals = _coords_csv(tmp_path / "hole.csv")
    lines = f.read_text().splitlines()
    fields = lines[2].split(",")
    fields[5] = ""
    lines[2] = ",".join(fields)
    f.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=f"missing value at line 3 in column '{cols[5]}'"):
        read_trial(f)
    f, _, _ = _coords_csv(tmp_path / "one.csv", n=1)
    with pytest.raises(InputError, match="at least 2"):
        read_trial(f)
    f, _, _ = _coords_csv(tmp_path / "k.csv")
    with pytest.raises(InputError, match="not markers"):
        read_trial(f, kind="markers")

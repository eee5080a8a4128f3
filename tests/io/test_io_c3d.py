"""C3D reader: files written with ezc3d, truncated and garbage files."""

from __future__ import annotations

import builtins

import numpy as np
import pytest
from _io_samples import positions, write_c3d

from humanbody.errors import InputError
from humanbody.io import markers_array, read_trial

pytest.importorskip("ezc3d")
NAMES = ["LASI", "RASI", "LHEE"]


@pytest.fixture
def xyz():
    p = positions(10, 3)
    p[4, 1] = 0.0  # "not seen"
    return p


def test_points_labels_rate_units(tmp_path, xyz):
    f = write_c3d(tmp_path / "t.c3d", xyz, NAMES, rate=200.0,
                  extra_points={"LKneeAngles": np.ones((10, 3))})
    df = read_trial(f)
    a = df.attrs
    assert a["format"] == "c3d" and a["kind"] == "markers" and a["markers"] == NAMES
    assert a["rate_hz"] == 200.0 and a["units_in_file"] == "mm" and a["first_frame"] == 1
    assert a["ignored_points"] == ["LKneeAngles"]
    expect = xyz / 1000.0
    expect[4, 1] = np.nan
    # ezc3d stores float32: compare at single precision
    np.testing.assert_allclose(markers_array(df)[1], expect, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(df["time"], np.arange(10) / 200.0)
    assert a["missing"] == {"RASI": 1}


def test_metres_and_unknown_units(tmp_path, xyz):
    df = read_trial(write_c3d(tmp_path / "m.c3d", xyz / 1000, NAMES, units="m"))
    assert df.attrs["units_in_file"] == "m"
    assert not any("-> m" in c for c in df.attrs["conversions"])
    with pytest.raises(InputError, match="unknown length unit 'ft'") as err:
        read_trial(write_c3d(tmp_path / "ft.c3d", xyz, NAMES, units="ft"))
    assert "ft.c3d" in str(err.value)


def test_truncated_and_garbage(tmp_path, xyz):
    raw = write_c3d(tmp_path / "ok.c3d", positions(50, 3), NAMES).read_bytes()
    for n in (300, 700, len(raw) - 700):
        f = tmp_path / f"cut{n}.c3d"
        f.write_bytes(raw[:n])
        with pytest.raises(InputError) as err:
            read_trial(f)
        assert f.name in str(err.value) and ("truncated" in str(err.value) or "not a C3D" in str(err.value))
    g = tmp_path / "junk.c3d"
    g.write_bytes(b"not a c3d file at all\n" * 40)
    with pytest.raises(InputError, match="not a C3D file"):
        read_trial(g)


def test_missing_ezc3d(tmp_path, xyz, monkeypatch):
    f = write_c3d(tmp_path / "t.c3d", xyz, NAMES)
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "ezc3d":
            raise ImportError("no ezc3d")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    with pytest.raises(InputError, match=r"pip install 'humanbody\[c3d\]'"):
        read_trial(f)

"""Marker CSV/TSV readers: plain tables, Vicon Nexus, OptiTrack Motive, Qualisys."""

from __future__ import annotations

import numpy as np
import pytest
from _io_samples import positions, replace_field, write_motive_csv, write_plain_csv, write_qualisys_tsv, write_vicon_csv

from humanbody.errors import InputError
from humanbody.io import detect_format, markers_array, read_trial

NAMES = ["LASI", "RASI", "LHEE", "RTOE"]


@pytest.fixture
def xyz():
    p = positions(8, 4)
    p[3, 2] = np.nan
    return p


def _expect(xyz, scale=1e-3):
    return xyz * scale


@pytest.mark.parametrize("style", ["{m}_{A}", "{m}_{a}", "{m}.{a}", "{m} {A}", "{m}:{A}"])
def test_plain_styles_detect_mm(tmp_path, xyz, style):
    df = read_trial(write_plain_csv(tmp_path / "p.csv", xyz, NAMES, style=style))
    assert df.attrs["format"] == "csv" and df.attrs["units_in_file"] == "mm"
    assert df.attrs["markers"] == NAMES and df.attrs["rate_hz"] == pytest.approx(100.0)
    assert any("detected as mm" in c for c in df.attrs["conversions"])
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz), atol=1e-12)


def test_plain_detects_metres_and_hints(tmp_path, xyz):
    m = xyz / 1000.0
    f = tmp_path / "m.csv"
    lines = ["time," + ",".join(f"{n}_{a}" for n in NAMES for a in "XYZ")]
    lines += [f"{i / 100:.2f}," + ",".join(f"{x:.6f}" if np.isfinite(x) else "" for x in m[i].ravel())
              for i in range(len(m))]
    f.write_text("\n".join(lines) + "\n")
    df = read_trial(f)
    assert df.attrs["units_in_file"] == "m" and "detected as m" in df.attrs["conversions"][0]
    np.testing.assert_allclose(markers_array(df)[1], m, atol=1e-9)

    # unit hint in the names, units row, tab separator, option override
    df = read_trial(write_plain_csv(tmp_path / "cm.csv", xyz, NAMES, unit_hint="cm"))
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz, 1e-2), atol=1e-12)
    df = read_trial(write_plain_csv(tmp_path / "ur.tsv", xyz, NAMES, units_row="cm", sep="\t"))
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz, 1e-2), atol=1e-12)
    df = read_trial(write_plain_csv(tmp_path / "opt.csv", xyz, NAMES), units="cm")  # detected: mm
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz, 1e-2), atol=1e-12)
    with pytest.raises(InputError, match="span 9.. m .* not in m as the units option says"):
        read_trial(tmp_path / "opt.csv", units="m")  # a person 900 m across: millimetres forced to metres


def test_plain_frames_need_rate(tmp_path, xyz):
    f = write_plain_csv(tmp_path / "fr.csv", xyz, NAMES, time=False)
    with pytest.raises(InputError, match="rate_hz"):
        read_trial(f)
    df = read_trial(f, rate_hz=50)
    np.testing.assert_allclose(df["time"], np.arange(8) / 50.0)
    # a constant rate column does the same
    text = f.read_text().splitlines()
    text = [text[0] + ",rate"] + [r + ",50" for r in text[1:]]
    g = tmp_path / "rc.csv"
    g.write_text("\n".join(text) + "\n")
    assert read_trial(g).attrs["rate_hz"] == 50.0


def test_vicon_trajectories_section(tmp_path, xyz):
    f = write_vicon_csv(tmp_path / "v.csv", xyz, NAMES, rate=100, first_frame=101)
    assert detect_format(f) == "vicon"
    df = read_trial(f)
    a = df.attrs
    assert a["format"] == "vicon-csv" and a["markers"] == NAMES and a["subject"] == "Sub"
    assert a["rate_hz"] == 100.0 and a["units_in_file"] == "mm" and a["first_frame"] == 101
    np.testing.assert_allclose(df["time"], (100 + np.arange(8)) / 100.0)
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz), atol=1e-12)
    assert a["missing"] == {"LHEE": 1}
    # without the Devices section too
    df2 = read_trial(write_vicon_csv(tmp_path / "v2.csv", xyz, NAMES, with_devices=False))
    np.testing.assert_allclose(markers_array(df2)[1], _expect(xyz), atol=1e-12)


def test_motive_markers(tmp_path, xyz):
    f = write_motive_csv(tmp_path / "o.csv", xyz, NAMES, rate=120.0)
    assert detect_format(f) == "motive"
    df = read_trial(f)
    a = df.attrs
    assert a["format"] == "motive-csv" and a["markers"] == NAMES and a["rate_hz"] == 120.0
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz), atol=1e-12)
    np.testing.assert_allclose(df["time"], np.arange(8) / 120.0, atol=1e-12)
    g = write_motive_csv(tmp_path / "om.csv", xyz / 1000, NAMES, units="Meters")
    np.testing.assert_allclose(markers_array(read_trial(g))[1], _expect(xyz), atol=1e-9)


@pytest.mark.parametrize("row", [True, False])
def test_qualisys_tsv(tmp_path, xyz, row):
    f = write_qualisys_tsv(tmp_path / "q.tsv", xyz, NAMES, rate=150.0, frame_time_row=row)
    df = read_trial(f)
    assert df.attrs["format"] == "qualisys-tsv" and df.attrs["rate_hz"] == 150.0
    np.testing.assert_allclose(markers_array(df)[1], _expect(xyz), atol=1e-12)  # 0,0,0 -> NaN
    assert df.attrs["missing_zero_samples"] == 1


def _bad(path, frag):
    with pytest.raises(InputError, match=frag) as err:
        read_trial(path)
    assert path.name in str(err.value) and "\n" not in str(err.value)


def test_bad_csv_inputs(tmp_path, xyz):
    f = tmp_path / "hdr.csv"
    f.write_text("time,A_X,A_Y,A_Z\n")
    _bad(f, "no data rows")
    f = tmp_path / "noz.csv"
    f.write_text("time,A_X,A_Y\n0,1,2\n0.1,1,2\n")
    _bad(f, "'A' has no Z column")
    f = tmp_path / "notime.csv"
    f.write_text("when,A_X,A_Y,A_Z\n0,1,2,3\n0.1,1,2,3\n")
    _bad(f, "no time column")
    f = tmp_path / "dup.csv"
    f.write_text("time,A_X,A_Y,A_Z,A_X\n0,1,2,3,1\n0.1,1,2,3,1\n")
    _bad(f, "appears twice")
    f = replace_field(write_plain_csv(tmp_path / "cell.csv", xyz, NAMES), 5, 2, "oops")
    _bad(f, "non-numeric value 'oops' at line 5, column 2")
    f = write_plain_csv(tmp_path / "trunc.csv", xyz, NAMES)
    f.write_text(f.read_text().rstrip("\n").rsplit(",", 3)[0] + "\n")
    _bad(f, "truncated at line 9")
    f = write_plain_csv(tmp_path / "unit.csv", xyz, NAMES, unit_hint="in")
    _bad(f, "unknown length unit 'in'")
    f = tmp_path / "irr.csv"
    f.write_text("time,A_X,A_Y,A_Z\n0,1,2,3\n0.01,1,2,3\n0.02,1,2,3\n0.05,1,2,3\n0.06,1,2,3\n")
    _bad(f, "irregular")
    f = write_vicon_csv(tmp_path / "vdup.csv", xyz, ["A", "A", "B", "C"], with_devices=False)
    _bad(f, "appears twice")
    f = write_qualisys_tsv(tmp_path / "qt.tsv", xyz, NAMES)
    f.write_text("\n".join(f.read_text().splitlines()[:-2]) + "\n")
    _bad(f, "NO_OF_FRAMES=8")
    f = tmp_path / "what.csv"
    f.write_text("alpha,beta\n1,2\n")
    _bad(f, "cannot tell the format")
    f = tmp_path / "bin.dat"
    f.write_bytes(b"\x00\x01\x02" * 100)
    _bad(f, "binary")

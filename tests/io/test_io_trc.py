"""TRC reader: the shared OpenSim walking trial and generated files."""

from __future__ import annotations

import numpy as np
import pytest
from _io_samples import positions, replace_field, write_trc

from humanbody.errors import InputError
from humanbody.io import markers_array, read_trial


@pytest.fixture(scope="module")
def walk(shared_data):
    return read_trial(shared_data / "gait2392_walk" / "subject01_walk1.trc")


def test_shared_walk_layout(walk):
    assert walk.shape == (151, 1 + 41 * 3)
    a = walk.attrs
    assert a["kind"] == "markers" and a["format"] == "trc"
    assert a["rate_hz"] == 60.0 and a["units_in_file"] == "mm"
    assert len(a["markers"]) == 41 and a["markers"][:3] == ["R.ASIS", "L.ASIS", "V.Sacral"]
    assert "marker coordinates mm -> m" in a["conversions"]
    assert list(walk.columns[:4]) == ["time", "R.ASIS_x", "R.ASIS_y", "R.ASIS_z"]


def test_shared_walk_first_row_and_time(walk):
    # first data row of the file, in mm: 617.247620 1055.275020 170.781980 639.606380 ...
    first = walk.iloc[0]
    np.testing.assert_allclose(
        [first["R.ASIS_x"], first["R.ASIS_y"], first["R.ASIS_z"], first["L.ASIS_x"]],
        [0.61724762, 1.05527502, 0.17078198, 0.63960638], rtol=0, atol=1e-12,
    )
    # the file prints 0.017 s; the time base is the exact 1/60 s grid
    np.testing.assert_allclose(walk["time"].to_numpy(), np.arange(151) / 60.0, atol=1e-12)
    names, pos = markers_array(walk)
    assert pos.shape == (151, 41, 3) and pos.flags.c_contiguous
    assert names == walk.attrs["markers"]
    np.testing.assert_allclose(pos[0, 1], [0.63960638, 1.04425842, -0.08890979], atol=1e-12)


def test_generated_roundtrip_units_and_zero_markers(tmp_path):
    xyz = positions(6, 3)
    xyz[2, 1] = 0.0  # "not seen" code
    xyz[4, 2] = np.nan  # blank fields
    f = write_trc(tmp_path / "t.trc", xyz, ["A", "B", "C"], rate=100.0, units="mm")
    df = read_trial(f)
    names, pos = markers_array(df)
    expect = xyz / 1000.0
    expect[2, 1] = np.nan
    np.testing.assert_allclose(pos, expect, atol=1e-12)
    assert df.attrs["missing"] == {"B": 1, "C": 1}
    assert df.attrs["missing_zero_samples"] == 1
    assert any("(0, 0, 0)" in c for c in df.attrs["conversions"])

    for units, scale in [("cm", 1e-2), ("m", 1.0)]:  # the same positions in the header's unit
        g = write_trc(tmp_path / f"{units}.trc", xyz * 1e-3 / scale, ["A", "B", "C"], units=units)
        np.testing.assert_allclose(markers_array(read_trial(g))[1], expect, atol=1e-12)
    # the units option overrides the header
    np.testing.assert_allclose(markers_array(read_trial(f, units="cm"))[1], expect * 10, atol=1e-9)
    with pytest.raises(InputError, match="not in m as the units option says"):
        read_trial(f, units="m")  # millimetres forced to metres: a person hundreds of metres across


def test_whole_trial_missing_marker_is_kept(tmp_path):
    xyz = positions(5, 2)
    xyz[:, 1] = np.nan
    df = read_trial(write_trc(tmp_path / "e.trc", xyz, ["A", "B"]))
    assert df.attrs["empty_markers"] == ["B"] and df["B_x"].isna().all()


def test_no_blank_line_no_trailing_tab(tmp_path):
    xyz = positions(4, 2)
    df = read_trial(write_trc(tmp_path / "x.trc", xyz, ["A", "B"], blank_line=False, trailing_tab=False))
    assert len(df) == 4


def _bad(path, *fragments):
    with pytest.raises(InputError) as err:
        read_trial(path)
    text = str(err.value)
    assert path.name in text and "\n" not in text
    for frag in fragments:
        assert frag in text, text
    return text


def test_bad_files(tmp_path):
    xyz = positions(5, 2)
    names = ["A", "B"]
    _bad(tmp_path / "missing.trc", "not found")
    (tmp_path / "empty.trc").write_text("")
    _bad(tmp_path / "empty.trc", "empty")
    d = tmp_path / "dir.trc"
    d.mkdir()
    _bad(d, "directory")

    f = write_trc(tmp_path / "hdr.trc", xyz[:0], names)
    _bad(f, "no data rows")

    f = write_trc(tmp_path / "short.trc", xyz, names)
    lines = f.read_text().splitlines()
    lines[-1] = "\t".join(lines[-1].split("\t")[:4])
    f.write_text("\n".join(lines) + "\n")
    _bad(f, "truncated at line 11")

    f = write_trc(tmp_path / "fewer.trc", xyz, names, num_frames=9)
    _bad(f, "truncated", "NumFrames=9")

    f = replace_field(write_trc(tmp_path / "nan.trc", xyz, names), 9, 3, "abc", sep="\t")
    _bad(f, "non-numeric value 'abc'", "line 9", "column 3", "'A_X'")

    _bad(write_trc(tmp_path / "dup.trc", xyz, ["A", "A"]), "appears twice")
    _bad(write_trc(tmp_path / "nm.trc", xyz, names, num_markers=3), "NumMarkers=3")
    _bad(write_trc(tmp_path / "unit.trc", xyz, names, units="furlong"), "unknown length unit")
    _bad(write_trc(tmp_path / "back.trc", xyz, names, times=[0, 0.01, 0.03, 0.02, 0.04]),
         "not strictly increasing at line 10")
    _bad(write_trc(tmp_path / "gap.trc", xyz, names, times=[0, 0.01, 0.02, 0.05, 0.06]),
         "irregular")
    _bad(write_trc(tmp_path / "rate.trc", xyz, names, rate=100.0, times=np.arange(5) / 50.0),
         "disagrees")
    _bad(write_trc(tmp_path / "one.trc", xyz[:1], names), "at least 2")


def test_marker_frame_written_as_csv_reads_back(walk, tmp_path):
    f = tmp_path / "walk_markers.csv"
    walk.to_csv(f, index=False)
    back = read_trial(f)
    assert back.attrs["units_in_file"] == "m" and back.attrs["markers"] == walk.attrs["markers"]
    np.testing.assert_allclose(markers_array(back)[1], markers_array(walk)[1], rtol=0, atol=1e-12)
    np.testing.assert_allclose(back["time"], walk["time"], atol=1e-12)


@pytest.mark.parametrize("sep", ["\t\t", "\t \t", "   ", "\t\t\t"])
def test_header_fields_by_name_whatever_whitespace_separates_them(tmp_path, sep):
    """Exporters that pad the two header rows with runs of tabs or spaces: fields are read by name."""
    xyz = positions(4, 2)
    path = write_trc(tmp_path / "x.trc", xyz, ["A", "B"], rate=120.0, units="mm")
    lines = path.read_text().split("\n")
    lines[1] = sep.join(lines[1].split("\t"))
    lines[2] = sep.join(lines[2].split("\t"))
    path.write_text("\n".join(lines))
    df = read_trial(path)
    assert df.attrs["rate_hz"] == pytest.approx(120.0)
    assert df.attrs["header"]["Units"] == "mm"
    np.testing.assert_allclose(df["A_x"].to_numpy(), xyz[:, 0, 0] / 1000.0, rtol=1e-9)


def test_infinite_and_absurd_cells_are_missing_and_counted(tmp_path):
    """1e400 (inf) and 1e30 cells: set missing and counted at read time, no warning anywhere after."""
    import warnings


    xyz = positions(60, 3)
    path = write_trc(tmp_path / "x.trc", xyz, ["A", "B", "C"])
    lines = path.read_text().split("\n")
    cells = lines[10].split("\t")
    cells[2] = "1e400"
    lines[10] = "\t".join(cells)
    cells = lines[20].split("\t")
    cells[6] = "1e30"
    lines[20] = "\t".join(cells)
    path.write_text("\n".join(lines))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_trial(path)
    assert df.attrs["invalid_samples"] == 2
    assert any("2 marker samples with an infinite or absurd coordinate" in c for c in df.attrs["conversions"])
    assert np.isnan(df["A_x"].iloc[4]) and np.isnan(df["B_x"].iloc[14])
    assert np.isfinite(df["C_x"]).all()

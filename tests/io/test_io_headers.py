"""Header fields by name, whatever whitespace separates them, and impossible cells, for every text format.

TRC has its own tests (test_io_trc.py); here the OpenSim MOT/STO, Motive and
Qualisys headers padded as exporters and hand edits pad them, and inf / 1e30
cells in the marker formats: set missing and counted at read time, with no
warning escaping.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _io_samples import positions, write_motive_csv, write_plain_csv, write_qualisys_tsv

from humanbody.io import markers_array, read_trial

NAMES = ["LASI", "RASI", "LHEE", "RTOE"]


def _pad_header(path, n_lines: int, sep: str, pad: str) -> None:
    lines = path.read_text().split("\n")
    for i in range(n_lines):
        lines[i] = pad.join(lines[i].split(sep))
    path.write_text("\n".join(lines))


@pytest.mark.parametrize("pad", ["\t\t", "\t \t", " \t", "\t\t\t"])
def test_qualisys_header_fields_by_name_with_runs_of_whitespace(tmp_path, pad):
    xyz = positions(6, 4)
    f = write_qualisys_tsv(tmp_path / "q.tsv", xyz, NAMES, rate=150.0, frame_time_row=False)
    _pad_header(f, 11, "\t", pad)
    df = read_trial(f)
    assert df.attrs["rate_hz"] == 150.0 and df.attrs["markers"] == NAMES
    np.testing.assert_allclose(markers_array(df)[1], xyz * 1e-3, atol=1e-12)


def test_qualisys_header_separated_by_spaces(tmp_path):
    xyz = positions(6, 4)
    f = write_qualisys_tsv(tmp_path / "q.tsv", xyz, NAMES, rate=150.0, frame_time_row=False)
    lines = f.read_text().split("\n")
    for i in range(9):  # key and value(s) separated by spaces (names keep their tabs)
        lines[i] = "   ".join(lines[i].split("\t"))
    lines[6] = "DESCRIPTION"  # a key with no value
    f.write_text("\n".join(lines))
    df = read_trial(f)
    assert df.attrs["rate_hz"] == 150.0 and df.attrs["markers"] == NAMES


@pytest.mark.parametrize("pad", [", ", " ,  ", ",\t"])
def test_motive_header_fields_by_name_with_padding(tmp_path, pad):
    xyz = positions(6, 4)
    f = write_motive_csv(tmp_path / "m.csv", xyz, NAMES, rate=120.0)
    lines = f.read_text().split("\n")
    lines[0] = pad.join(lines[0].split(","))
    f.write_text("\n".join(lines))
    df = read_trial(f)
    assert df.attrs["rate_hz"] == 120.0 and df.attrs["units_in_file"] == "mm"
    np.testing.assert_allclose(markers_array(df)[1], xyz * 1e-3, atol=1e-12)


@pytest.mark.parametrize("eq", ["=", " = ", "\t=\t", "=  "])
def test_opensim_header_fields_by_name_with_whitespace(tmp_path, eq):
    f = tmp_path / "c.mot"
    head = ["Coordinates", "version=1", "nRows=3", "nColumns=3", "inDegrees=yes", "endheader"]
    head = [h.replace("=", eq) for h in head]
    f.write_text("\n".join(head) + "\ntime\t\tknee_angle_r\tpelvis_tx\n0\t10\t0.5\n0.01\t20\t0.6\n0.02\t30\t0.7\n")
    df = read_trial(f)
    assert df.attrs["kind"] == "opensim_coordinates" and df.attrs["in_degrees"]
    np.testing.assert_allclose(df["knee_angle_r"], np.deg2rad([10, 20, 30]))


def _corrupt(text: str, sep: str, row: int, col: int, cell: str) -> str:
    lines = text.split("\n")
    cells = lines[row].split(sep)
    cells[col] = cell
    lines[row] = sep.join(cells)
    return "\n".join(lines)


@pytest.mark.parametrize("fmt", ["csv", "qualisys", "motive"])
def test_infinite_and_absurd_cells_are_missing_and_counted(tmp_path, fmt):
    xyz = positions(20, 4)
    if fmt == "csv":
        f, sep, first, lead = write_plain_csv(tmp_path / "p.csv", xyz, NAMES), ",", 1, 1
    elif fmt == "qualisys":
        f, sep, first, lead = write_qualisys_tsv(tmp_path / "q.tsv", xyz, NAMES), "\t", 12, 2
    else:
        f, sep, first, lead = write_motive_csv(tmp_path / "m.csv", xyz, NAMES), ",", 7, 9
    text = _corrupt(f.read_text(), sep, first + 3, lead + 0, "1e400")     # LASI x in frame 3: inf
    text = _corrupt(text, sep, first + 7, lead + 5, "-1e30")                # RASI z in frame 7: absurd
    f.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_trial(f)
    assert df.attrs["invalid_samples"] == 2
    assert any("2 marker samples with an infinite or absurd coordinate" in c for c in df.attrs["conversions"])
    _, got = markers_array(df)
    assert np.isnan(got[3, 0]).all() and np.isnan(got[7, 1]).all()
    ok = np.ones(got.shape[:2], bool)
    ok[3, 0] = ok[7, 1] = False
    np.testing.assert_allclose(got[ok], xyz[ok] * 1e-3, atol=1e-12)

"""OpenSim MOT/STO reader: the shared GRF, IK and ID files and generated tables."""

from __future__ import annotations

import numpy as np
import pytest
from _shared import WALK, require_shared

from humanbody.errors import InputError
from humanbody.io import read_forces, read_trial

GRF = WALK / "subject01_walk1_grf.mot"
IK = WALK / "reference" / "opensim_ik.mot"
ID = WALK / "reference" / "opensim_inverse_dynamics.sto"


def _need(path):
    require_shared()
    return path


def test_shared_grf_is_forces():
    df = read_forces(_need(GRF))
    assert df.attrs["kind"] == "forces" and len(df) == 1501 and df.shape[1] == 19
    assert df.attrs["rate_hz"] == pytest.approx(600.0, rel=1e-3)
    assert df.attrs["conversions"] == []  # inDegrees=yes must not touch forces
    assert {"ground_force_vx", "1_ground_force_px", "ground_torque_y"} <= set(df.columns)
    # first row of the file
    np.testing.assert_allclose(
        df.iloc[0][["ground_force_vx", "ground_force_vy", "ground_force_vz", "1_ground_torque_z"]],
        [101.5119767, 745.4661142, -47.44870554, 6.88030347],
    )
    assert df["time"].iloc[2] == pytest.approx(0.0033)  # file times kept (no header rate)


def test_shared_ik_degrees_to_radians():
    df = read_trial(_need(IK))
    a = df.attrs
    assert a["kind"] == "opensim_coordinates" and len(df) == 211 and a["in_degrees"]
    assert a["rate_hz"] == pytest.approx(60.0)
    np.testing.assert_allclose(df["pelvis_tilt"].iloc[0], np.deg2rad(4.76281529))
    np.testing.assert_allclose(df["hip_flexion_r"].iloc[0], np.deg2rad(19.18693645))
    # translations stay in metres
    np.testing.assert_allclose(df[["pelvis_tx", "pelvis_ty", "pelvis_tz"]].iloc[0],
                               [0.58952689, 1.03324624, -0.02136294])
    assert "pelvis_tx" not in a["converted_columns"] and "knee_angle_l" in a["converted_columns"]
    assert len(a["converted_columns"]) == 20
    assert "knee_angle_l" in a["conversions"][0] and "deg -> rad" in a["conversions"][0]


def test_shared_id_is_plain_table():
    df = read_trial(_need(ID))
    assert df.attrs["kind"] == "table" and len(df) == 73 and df.attrs["format"] == "opensim-sto"
    np.testing.assert_allclose(df["pelvis_tilt_moment"].iloc[0], 19.87038755)
    assert df.attrs["conversions"] == []
    with pytest.raises(InputError, match="not forces"):
        read_forces(ID)


def _mot(path, body, header="Coordinates\nversion=1\nnRows={n}\nnColumns={c}\ninDegrees=yes\nendheader\n",
         columns="time\tknee_angle_r\tpelvis_tx", n=None):
    rows = body.strip("\n").splitlines()
    text = header.format(n=len(rows) if n is None else n, c=len(columns.split("\t")))
    path.write_text(text + columns + "\n" + "\n".join(rows) + "\n")
    return path


def test_space_separated_and_bad_tables(tmp_path):
    f = tmp_path / "sp.mot"
    f.write_text("Coordinates\nnRows=3\ninDegrees=no\nendheader\ntime knee_angle_r\n0 0.1\n0.01 0.2\n0.02 0.3\n")
    df = read_trial(f)
    assert df.attrs["kind"] == "opensim_coordinates" and df.attrs["conversions"] == []
    np.testing.assert_allclose(df["knee_angle_r"], [0.1, 0.2, 0.3])

    good = "0\t10\t0.5\n0.01\t20\t0.6\n0.02\t30\t0.7\n"
    df = read_trial(_mot(tmp_path / "ok.mot", good))
    np.testing.assert_allclose(df["knee_angle_r"], np.deg2rad([10, 20, 30]))
    np.testing.assert_allclose(df["pelvis_tx"], [0.5, 0.6, 0.7])

    cases = {
        "trunc.mot": (_mot, dict(body=good, n=5), "truncated"),
        "short.mot": (_mot, dict(body=good + "0.03\t40\n"), "truncated at line"),
        "nonnum.mot": (_mot, dict(body="0\t10\t0.5\n0.01\tx1\t0.6\n0.02\t3\t0.7\n"), "non-numeric value 'x1' at line 9"),
        "back.mot": (_mot, dict(body="0\t1\t1\n0.02\t1\t1\n0.01\t1\t1\n"), "not strictly increasing"),
        "hdr.mot": (_mot, dict(body="", n=0), "no data rows"),
        "notime.mot": (_mot, dict(body=good, columns="t\tknee_angle_r\tpelvis_tx"), "'time'"),
        "dup.mot": (_mot, dict(body=good, columns="time\tknee_angle_r\tknee_angle_r"), "appears twice"),
        "one.mot": (_mot, dict(body="0\t1\t1\n"), "at least 2"),
    }
    for name, (make, kw, frag) in cases.items():
        path = make(tmp_path / name, **kw)
        with pytest.raises(InputError, match=frag) as err:
            read_trial(path)
        assert name in str(err.value)


def test_large_tab_separated_table_reads_the_same_by_the_fast_path(shared_data, monkeypatch, tmp_path):
    """A GRF file of 64 kB or more is parsed by the fast engine: the same frame, bit for bit, as the careful
    path gives; a bad cell in it still gets the careful path's message (line and column)."""
    from humanbody.io import _fastread
    from humanbody.io.opensim import read_opensim

    grf = shared_data / "gait2392_walk" / "subject01_walk1_grf.mot"
    assert grf.stat().st_size >= _fastread.FAST_MIN_BYTES
    fast = read_opensim(grf)
    monkeypatch.setattr(_fastread, "FAST_MIN_BYTES", 1 << 40)  # every file by the careful path
    careful = read_opensim(grf)
    monkeypatch.undo()
    assert list(fast.columns) == list(careful.columns) and fast.index.equals(careful.index)
    assert np.array_equal(fast.to_numpy(), careful.to_numpy(), equal_nan=True)
    assert repr(fast.attrs) == repr(careful.attrs)
    lines = grf.read_text().splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith("time"))
    lines[k + 700] = lines[k + 700].replace("\t", "\tabc", 1)  # column 2 of data line 700
    bad = tmp_path / "bad_grf.mot"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=f"line {k + 701}.*column 2"):
        read_opensim(bad)

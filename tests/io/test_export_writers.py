"""The export writers' fast paths write the bytes of a straightforward reference: OpenSim text printed chunk by
chunk against C's printf, the C3D frames encoded here against ezc3d's own, columns gathered against a plain
stack, gait event refinement against the scalar formula."""

from __future__ import annotations

import re

import numpy as np
import pytest

from humanbody.io import opensim_writer as ow

AWKWARD = np.array([0.0, -0.0, np.nan, 1e-12, -1e-12, 1e300, -1.5e-300, 123456789.0, 1234567891.0, 0.5, 2.5e-5,
                    -999999999.5, 1.0 / 3.0, 5e-324, np.inf, -np.inf, 1e16, 0.000123456789])


def _awkward_table(rows: int, cols: int, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(rows, cols)) * 10.0 ** rng.integers(-8, 9, size=(rows, cols))
    pick = rng.random((rows, cols)) < 0.3
    v[pick] = rng.choice(AWKWARD, size=pick.sum())
    v[rows // 2:rows // 2 + 3, :] = np.nan  # whole rows missing: runs of empty cells up to the line's end
    return v


def _reference_rows(table: np.ndarray, digits: int = 9) -> bytes:
    """Each value as C's printf prints it (%.9g); NaN as ``NaN`` except in the first cell."""
    lines = []
    for row in table.tolist():
        cells = [("" if j == 0 else "NaN") if x != x else f"%.{digits}g" % x for j, x in enumerate(row)]
        lines.append("\t".join(cells) + "\n")
    return "".join(lines).encode()


@pytest.mark.parametrize("chunk", [ow._CHUNK_VALUES, 7 * 40])  # one chunk; many chunks of 7 rows
def test_opensim_table_bytes_equal_printf(tmp_path, monkeypatch, chunk):
    monkeypatch.setattr(ow, "_CHUNK_VALUES", chunk)
    time = np.arange(500) / 100.0
    values = _awkward_table(500, 39)
    path = ow.write_storage(tmp_path / "t.mot", "title", [f"c{i}" for i in range(39)], time, values, in_degrees=True)
    text = open(path, "rb").read()
    head, rows = text.split(b"endheader\n", 1)
    assert head.startswith(b"title\nversion=1\nnRows=500\nnColumns=40\ninDegrees=yes\n")
    rows = rows.split(b"\n", 1)[1]  # after the column names
    assert rows == _reference_rows(np.column_stack([time, values]))


def test_opensim_table_reads_values_a_block_of_rows_at_a_time(tmp_path, monkeypatch):
    """A row source (``shape`` and row slices) gives the bytes of the same array."""
    from humanbody.export import _Gathered

    monkeypatch.setattr(ow, "_CHUNK_VALUES", 50)
    base = _awkward_table(300, 12, seed=2)
    idx = [3, 0, 7, 8, 11]
    t = np.arange(300) * 0.01
    a = ow.write_storage(tmp_path / "a.sto", "x", list("abcde"), t, base[:, idx], in_degrees=False)
    b = ow.write_storage(tmp_path / "b.sto", "x", list("abcde"), t, _Gathered(base, idx), in_degrees=False)
    assert open(a, "rb").read() == open(b, "rb").read()


def test_nan_cells_equal_a_regular_expression():
    rng = np.random.default_rng(4)
    for _ in range(200):
        cells = rng.choice([b"1", b"-2.5", b""], size=(rng.integers(1, 6), rng.integers(2, 8)))
        cells[:, 0] = b"7"  # the first cell (time, frame) is never missing
        text = b"".join(b"\t".join(row) + b"\n" for row in cells)
        assert ow._nan_cells(text) == re.sub(rb"(?<=\t)(?=[\t\n])", b"NaN", text)


def test_trc_turned_and_scaled_per_chunk_equals_the_whole_product(tmp_path, monkeypatch):
    """``axes`` and ``scale`` applied chunk by chunk: the bytes of the points turned and scaled at once."""
    monkeypatch.setattr(ow, "_CHUNK_VALUES", 4 * 20)
    rng = np.random.default_rng(5)
    xyz = rng.normal(size=(103, 6, 3)) * 1000.0
    xyz[10, 2] = np.nan
    xyz[11, 3, 1] = -0.0
    xyz[12, 4] = 0.0
    A = ow.OPENSIM_OF_GROUND @ np.array([[0.0, -1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    t = np.arange(103) / 60.0
    names = [f"m{i}" for i in range(6)]
    fast = ow.write_trc(tmp_path / "fast.trc", names, xyz, t, 60.0, "mm", first_frame=5, axes=A, scale=1e-3)
    pts = xyz @ A.T
    pts /= 1e-3
    plain = ow.write_trc(tmp_path / "plain.trc", names, pts, t, 60.0, "mm", first_frame=5)
    a, b = open(fast, "rb").read(), open(plain, "rb").read()
    assert a.replace(b"fast.trc", b"") == b.replace(b"plain.trc", b"")
    rows = a.split(b"\n", 6)[6]
    table = np.column_stack([5 + np.arange(103), t, pts.reshape(103, -1)])
    assert rows == _reference_rows(table)


# ------------------------------------------------------------------ C3D
def test_c3d_with_awkward_points_reads_back_in_ezc3d(tmp_path):
    """Blocks with NaN, inf, -0 and huge values, a group per label, points turned and scaled as written:
    ezc3d reads back every value (float32), invalid points as NaN."""
    ezc3d = pytest.importorskip("ezc3d")
    from humanbody.io import c3d_writer as cw

    n = 300
    rng = np.random.default_rng(6)
    markers = rng.normal(size=(n, 5, 3)) * 1000.0
    markers[250, 1, 2] = np.nan  # the only invalid marker sample, late
    outputs = rng.normal(size=(n, 4, 3)) * 50.0
    outputs[:, 3, :2] = 0.0
    outputs[7, 0] = -0.0
    outputs[260, 2, 0] = np.inf
    modelled = rng.normal(size=(n, 3, 3))
    modelled[270, 1] = 1e300  # overflows the float32 of the file: inf
    lab = np.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    blocks = [cw.PointBlock(["ANGLES", "MOMENTS", "ANGLES", "POWERS"], ["LA", "LM", "RA", "RP"], outputs,
                            ["humanbody"] * 4),
              cw.PointBlock("MODELLED", ["j1", "j2", "j3"], modelled, scale=1e-3, axes=lab)]
    with np.errstate(over="ignore"):
        cw.write_c3d(tmp_path / "a.c3d", frames=n, rate_hz=100.0, markers=([f"p{i}" for i in range(5)], markers),
                     markers_scale=1e-3, blocks=blocks, events=[("Foot Strike", "Left", 0.5)])
    c = ezc3d.c3d(str(tmp_path / "a.c3d"))
    P = c["parameters"]["POINT"]
    assert list(P["ANGLES"]["value"]) == ["LA", "RA"] and list(P["POWERS"]["value"]) == ["RP"]
    labels = list(P["LABELS"]["value"])
    got = c["data"]["points"][:3, labels.index("j2")].T
    want = (modelled[:, 1] @ lab.T) / 1e-3
    ok = np.isfinite(want).all(axis=1) & (np.abs(want) < 3e38).all(axis=1)
    np.testing.assert_allclose(got[ok], want[ok], rtol=1e-6)
    assert np.isinf(got[270]).any()
    assert np.isnan(c["data"]["points"][0, labels.index("p1"), 250])
    assert np.isnan(c["data"]["points"][0, labels.index("RA"), 260])
    np.testing.assert_allclose(c["data"]["points"][:3, :5].transpose(2, 1, 0)[:250], markers[:250] / 1e-3,
                               rtol=1e-6)


# ------------------------------------------------------------------ columns and events
def test_columns_of_one_table_equal_a_stack():
    from humanbody.export import _columns, _Gathered, _points

    table = np.empty((40, 9))  # as write_results collects the columns the exports need
    table[:] = np.arange(40.0 * 9).reshape(40, 9)
    names = [f"c{j}" for j in range(9)]
    cols = {c: table[:, j] for j, c in enumerate(names)}
    pick = ["c4", "c0", "c8", "c5"]
    np.testing.assert_array_equal(_columns(cols, pick), np.column_stack([table[:, 4], table[:, 0], table[:, 8],
                                                                          table[:, 5]]))
    lazy = _columns(cols, pick, lazy=True)
    assert isinstance(lazy, _Gathered) and lazy.shape == (40, 4)
    np.testing.assert_array_equal(lazy[10:13], table[10:13][:, [4, 0, 8, 5]])
    loose = {c: table[:, j].copy() for j, c in enumerate(names)}  # not views of one table: a plain stack
    np.testing.assert_array_equal(_columns(loose, pick), _columns(cols, pick))
    np.testing.assert_array_equal(_points({f"p_{a}": table[:, j] for j, a in enumerate("xyz")}, ["p"]),
                                  table[:, None, :3])


def _refine_peak(t, y, i):
    """The scalar parabolic vertex, the reference."""
    if i <= 0 or i >= len(y) - 1:
        return float(t[i])
    y0, y1, y2 = y[i - 1], y[i], y[i + 1]
    den = y0 - 2.0 * y1 + y2
    if den == 0 or not np.isfinite(den):
        return float(t[i])
    shift = float(np.clip(0.5 * (y0 - y2) / den, -0.5, 0.5))
    j = i + 1 if shift > 0 else i - 1
    return float(t[i] + shift * abs(t[j] - t[i]))


def test_refined_peaks_equal_the_scalar_formula():
    from humanbody.gait.events import _refine_peaks

    rng = np.random.default_rng(1)
    for trial in range(100):
        n = int(rng.integers(3, 300))
        t = np.cumsum(rng.uniform(0.001, 0.02, n))
        y = rng.normal(size=n)
        if trial % 3 == 0:
            y[rng.integers(0, n, 5)] = y[0]  # flat stretches: three collinear samples
        idx = np.unique(np.concatenate([[0, n - 1], rng.integers(0, n, 20)]))
        assert _refine_peaks(t, y, idx) == [_refine_peak(t, y, int(i)) for i in idx]
    # a parabola's vertex exactly
    t = np.arange(10) * 0.1
    y = -(t - 0.43) ** 2
    assert _refine_peaks(t, y, [4]) == pytest.approx([0.43], abs=1e-12)


@pytest.mark.parametrize("n_events", [255, 300])
def test_c3d_events_stop_at_the_formats_limit_and_the_file_reads_back(tmp_path, n_events):
    """A C3D parameter dimension is one byte: at most 255 events, the earliest kept, one note; ezc3d reads it."""
    ezc3d = pytest.importorskip("ezc3d")
    from humanbody.io import c3d_writer

    n = 200
    rng = np.random.default_rng(3)
    events = [("Foot Strike" if i % 2 else "Foot Off", "Left" if i % 3 else "Right", float(t))
              for i, t in enumerate(rng.permutation(np.arange(n_events)) * 0.01)]
    notes: list = []
    path = c3d_writer.write_c3d(tmp_path / "ev.c3d", frames=n, rate_hz=100.0,
                                markers=(["A"], rng.normal(size=(n, 1, 3))), events=events, notes=notes)
    ev = ezc3d.c3d(path)["parameters"]["EVENT"]
    kept = min(n_events, c3d_writer.MAX_EVENTS)
    assert int(np.ravel(ev["USED"]["value"])[0]) == kept
    times = np.asarray(ev["TIMES"]["value"], dtype=float).reshape(2, -1)[1]
    expected = sorted(events, key=lambda e: e[2])[:kept] if n_events > kept else events
    np.testing.assert_allclose(times, [e[2] for e in expected], atol=1e-6)
    assert list(ev["LABELS"]["value"]) == [e[0] for e in expected]
    assert list(ev["CONTEXTS"]["value"]) == [e[1] for e in expected]
    assert len(notes) == (n_events > kept)
    if notes:
        assert f"the {n_events - kept} latest of {n_events}" in notes[0]

"""Fast path of the text readers: the same frames, attrs and messages as the careful path.

Large files (``_fastread.FAST_MIN_BYTES``) have their numbers read by the
numba parser; these tests lower the threshold to 0 so every file goes
through it, and compare with the threshold out of reach (careful path only).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _io_samples import positions, replace_field, write_motive_csv, write_plain_csv, write_trc

from humanbody._kernels import text_parse as _parse
from humanbody.errors import InputError
from humanbody.io import _fastread, _validate, read_trial

DATA = Path(__file__).resolve().parents[2] / "data"
NAMES = ["LASI", "RASI", "LHEE", "RTOE"]


def _read(path, fast, monkeypatch, **options):
    monkeypatch.setattr(_fastread, "FAST_MIN_BYTES", 0 if fast else 10**15)
    used = []
    real = _fastread.fast_block

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        used.append(out is not None)
        return out

    monkeypatch.setattr(_fastread, "fast_block", spy)
    try:
        return read_trial(path, **options), any(used)
    except InputError as err:
        return str(err), any(used)


def _same(path, monkeypatch, expect_fast=True, **options):
    fast, used = _read(path, True, monkeypatch, **options)
    slow, used_slow = _read(path, False, monkeypatch, **options)
    assert not used_slow
    assert used == expect_fast, "fast path used" if used else "fast path not used"
    if isinstance(slow, str):
        assert fast == slow
    else:
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        assert fast.attrs == slow.attrs
    return fast


@pytest.mark.parametrize("name", ["sample_walk_markers.trc", "sample_static.trc"])
def test_sample_trc_files(name, monkeypatch):
    df = _same(DATA / name, monkeypatch)
    assert df.attrs["format"] == "trc"


def test_shared_walk(monkeypatch, shared_data):
    walk = shared_data / "gait2392_walk" / "subject01_walk1.trc"
    _same(walk, monkeypatch)


@pytest.fixture
def xyz():
    p = positions(80, 4)
    p[3, 2] = np.nan
    p[7, 1] = 0.0
    return p


def test_generated_layouts(tmp_path, xyz, monkeypatch):
    _same(write_trc(tmp_path / "a.trc", xyz, NAMES), monkeypatch)
    _same(write_trc(tmp_path / "b.trc", xyz, NAMES, blank_line=False, trailing_tab=False), monkeypatch)
    _same(write_plain_csv(tmp_path / "p.csv", xyz, NAMES), monkeypatch)
    _same(write_plain_csv(tmp_path / "u.tsv", xyz, NAMES, units_row="cm", sep="\t"), monkeypatch)
    _same(write_plain_csv(tmp_path / "s.csv", xyz, NAMES, sep=";"), monkeypatch)
    _same(write_motive_csv(tmp_path / "m.csv", xyz, NAMES), monkeypatch)


def _edit(path, fn, first=6):
    """Apply ``fn`` to the text of the data lines (from line ``first`` + 1) of a file."""
    lines = path.read_text().split("\n")
    path.write_text("\n".join(lines[:first]) + "\n" + fn("\n".join(lines[first:])))
    return path


def test_anomalies_fall_back_to_the_careful_path(tmp_path, xyz, monkeypatch):
    def trc(name):
        return write_trc(tmp_path / name, xyz, NAMES)

    # the fast path declines; the careful path gives the message
    msg = _same(_edit(trc("short.trc"), lambda t: t.rstrip("\n").rsplit("\t", 5)[0] + "\n"),
                monkeypatch, expect_fast=False)
    assert "truncated at line 86" in msg
    msg = _same(replace_field(trc("cell.trc"), 12, 4, "abc", sep="\t"), monkeypatch, expect_fast=False)
    assert "non-numeric value 'abc' at line 12, column 4" in msg
    msg = _same(_edit(trc("extra.trc"), lambda t: t.rstrip("\n") + "\t99\n"), monkeypatch,
                expect_fast=False)
    assert "more values" in msg
    _same(_edit(trc("lonecr.trc"), lambda t: t.replace("\n", "\r", 12)), monkeypatch, expect_fast=False)
    _same(_edit(trc("inf.trc"), lambda t: t.replace("\t\t", "\tinf\t", 1)), monkeypatch, expect_fast=False)

    # handled by the fast path itself, with the careful path's result
    _same(_edit(trc("blank.trc"), lambda t: t.replace("\n", "\n\n", 10) + "\t" * 13 + "\n\n"),
          monkeypatch)
    _same(_edit(trc("crlf.trc"), lambda t: t.replace("\n", "\r\n")), monkeypatch)
    _same(_edit(trc("nan.trc"), lambda t: t.replace("\t\t", "\tNaN\t", 1)), monkeypatch)
    _same(_edit(trc("long.trc"), lambda t: t.replace("000\t", "00000000000000000001\t", 50)), monkeypatch)
    _same(_edit(trc("exp.trc"), lambda t: t.replace("0.010\t", "1.0e-2\t", 1)), monkeypatch)
    # the time and frame-count checks run on fast-path numbers too
    f = write_trc(tmp_path / "back.trc", xyz[:5], NAMES, times=[0, 0.01, 0.03, 0.02, 0.04])
    assert "not strictly increasing at line 10" in _same(f, monkeypatch)
    f = write_trc(tmp_path / "fewer.trc", xyz, NAMES, num_frames=50)
    assert "NumFrames=50" in _same(f, monkeypatch)


def test_quoted_and_spaced_csv(tmp_path, xyz, monkeypatch):
    f = write_plain_csv(tmp_path / "q.csv", xyz, NAMES)
    lines = f.read_text().splitlines()
    lines[3] = ",".join(f'"{c}"' for c in lines[3].split(","))
    lines[5] = ", ".join(lines[5].split(","))
    f.write_text("\n".join(lines) + "\n")
    _same(f, monkeypatch, expect_fast=False)


def test_parser_is_correctly_rounded():
    """One cell per line: the kernel's numbers and, for the lines it flags, flagged_row's, bit for bit float()'s."""
    rng = np.random.default_rng(11)
    n = 20000
    mant = rng.integers(0, 10**rng.integers(1, 19, n), dtype=np.int64)
    texts = [f"{'-' if s else ''}{m}e{e}" if k == 0 else f"{m / 10**d:.{d}f}"
             for m, e, s, k, d in zip(mant, rng.integers(-40, 40, n), rng.random(n) < 0.5,
                                      rng.integers(0, 2, n), rng.integers(0, 12, n), strict=True)]
    texts += ["0", "-0", "+1.5", ".5", "5.", "1E5", "0.000000000000000000001234", "12345678901234567890",
              "-0.0e-999", "1e400", "-1e400", "4.9e-324", "2.4703282292062327e-324", "9007199254740993",
              "0000000000000000000001.5", "1.7976931348623157e308"]
    table, status = _kernel(texts, 1)
    ref = np.array([float(t) for t in texts])
    fast = status == _parse.ROW_OK
    assert fast.mean() > 0.5 and np.all(status[~fast] == _parse.ROW_FLAGGED)
    np.testing.assert_array_equal(table[fast, 0].view(np.int64), ref[fast].view(np.int64))  # bit for bit
    for i in np.flatnonzero(~fast):
        got = _fastread.flagged_row(texts[i].encode(), 1, "\t")
        assert got is not None and got.view(np.int64)[0] == ref[i:i + 1].view(np.int64)[0], texts[i]


@pytest.mark.parametrize("cell, expect", [
    ("1.5", 1.5), (" +.5e-3 ", 0.0005), ("5.", 5.0), ("-0", -0.0), ("1" * 25, float("1" * 25)),
    ("NaN", np.nan), (" n/a ", np.nan), ("NULL", np.nan), ("-", np.nan), ("", np.nan),
    ("inf", None), ("1_000", None), ("0x10", None), ("1e", None), ("1e+", None), (".", None), ("e5", None),
    ("1.2.3", None), ("1e5x", None), ("--1", None), ("abc", None),
])
def test_flagged_row_reads_cells_as_the_kernel_does(cell, expect):
    """flagged_row takes a decimal number or a missing token, declines anything else (as the kernel)."""
    got = _fastread.flagged_row(f"7\t{cell}\t8".encode(), 3, "\t")
    _, status = _kernel([f"7\t{cell}\t8"], 3)
    if expect is None:
        assert got is None and status[0] == _parse.ROW_FLAGGED
    else:
        assert got is not None and (np.isnan(got[1]) if np.isnan(expect) else got[1] == expect)
        assert np.signbit(got[1]) == np.signbit(expect)
        assert status[0] in (_parse.ROW_OK, _parse.ROW_FLAGGED)


def test_flagged_row_declines_rows_the_careful_path_must_judge():
    assert _fastread.flagged_row(b"1\t2", 3, "\t") is None  # short
    assert _fastread.flagged_row(b"1\t2\t3\t4", 3, "\t") is None  # a field past the last column
    assert _fastread.flagged_row(b"nan\t-\tNA", 3, "\t") is None  # only missing cells
    np.testing.assert_array_equal(_fastread.flagged_row(b"1\t2\t3\t \r", 3, "\t"), [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------- streaming in chunks
@pytest.fixture
def tiny_chunks(monkeypatch):
    """Chunks of 256 bytes in blocks of 64 on 3 threads: every boundary case on small files."""
    monkeypatch.setattr(_fastread, "BLOCK_BYTES", 64)
    monkeypatch.setattr(_fastread, "CHUNK_BYTES", 256)
    monkeypatch.setattr(_fastread, "threads", lambda: 3)


def test_chunk_and_block_boundaries(tmp_path, xyz, monkeypatch, tiny_chunks):
    # lines far longer than a chunk (the buffer grows), CR LF pairs split between chunks,
    # blank lines inside (rows moved up in place) and in numbers (rows copied), no final line feed
    f = write_trc(tmp_path / "a.trc", xyz, NAMES)
    _same(f, monkeypatch)
    _same(_edit(write_trc(tmp_path / "crlf.trc", xyz, NAMES), lambda t: t.replace("\n", "\r\n")), monkeypatch)
    _same(_edit(write_trc(tmp_path / "b1.trc", xyz, NAMES), lambda t: t.replace("\n", "\n\n", 3)), monkeypatch)
    _same(_edit(write_trc(tmp_path / "b2.trc", xyz, NAMES), lambda t: t.replace("\n", "\n \t\n")), monkeypatch)
    _same(_edit(write_trc(tmp_path / "end.trc", xyz, NAMES), lambda t: t.rstrip("\n")), monkeypatch)
    _same(_edit(write_trc(tmp_path / "end2.trc", xyz, NAMES), lambda t: t + "\n\n  \n"), monkeypatch)
    _same(write_plain_csv(tmp_path / "p.csv", xyz, NAMES), monkeypatch)
    _same(write_motive_csv(tmp_path / "m.csv", xyz, NAMES), monkeypatch)
    # a CR as the last byte of the first-pass chunk: in a CR LF pair, and alone
    crlf = _edit(write_trc(tmp_path / "crlf2.trc", xyz[:20], NAMES), lambda t: t.replace("\n", "\r\n"))
    first = _fastread.read_head(crlf, 7, 0).offsets[6]
    raw = crlf.read_bytes()
    lone = tmp_path / "lone.trc"
    monkeypatch.setattr(_fastread, "BLOCK_BYTES", 1)
    for cr in [i for i in range(first, len(raw)) if raw[i] == 13][:3]:
        monkeypatch.setattr(_fastread, "CHUNK_BYTES", cr - first + 1)
        _same(crlf, monkeypatch)
        lone.write_bytes(raw[:cr + 1] + b"\t" + raw[cr + 1:])
        _same(lone, monkeypatch, expect_fast=False)


def test_threads_do_not_change_the_result(tmp_path, xyz, monkeypatch):
    f = write_trc(tmp_path / "a.trc", positions(3000, 4), NAMES)
    monkeypatch.setattr(_fastread, "FAST_MIN_BYTES", 0)
    monkeypatch.setattr(_fastread, "BLOCK_BYTES", 4096)
    frames = []
    for n in (1, 2, 5):
        monkeypatch.setattr(_fastread, "threads", lambda n=n: n)
        frames.append(read_trial(f))
    for df in frames[1:]:
        pd.testing.assert_frame_equal(df, frames[0], check_exact=True)


def test_fast_path_never_holds_the_file(tmp_path, monkeypatch):
    """Peak traced memory: the final table, the chunk buffer and small arrays, not the file."""
    import tracemalloc

    f = write_trc(tmp_path / "big.trc", positions(6000, 20), [f"M{k}" for k in range(20)])
    monkeypatch.setattr(_fastread, "CHUNK_BYTES", 1 << 16)
    monkeypatch.setattr(_fastread, "BLOCK_BYTES", 1 << 12)
    read_trial(f)  # numba caches and imports loaded
    tracemalloc.start()
    try:
        df = read_trial(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    table = df.to_numpy().nbytes
    assert f.stat().st_size > 2 * table / 3  # the text is as large as the table
    assert peak < table + 3 * (1 << 16) + 64 * len(df) + 200_000, (peak, table)


# ----------------------------------------------------------------------------- cells
CELLS = ["", " ", "1", "-2.5", "+3.", ".5", "-.5", "0", "-0", "-0.0", "1e5", "1E-5", "2.5e+3", "1e-400",
         "1e400", "00000000000000000001", "0.0000000000000000000001234", "12345678901234567890.5",
         "9007199254740993", "nan", "NaN", "-nan", "+NAN", "NA", "n/a", "N/A", "null", "NULL", "-",
         " nan ", "inf", "-Infinity", "1e", "1e+", "e5", ".", "+", "--1", "1.5.2", "1 2", "0x10", "1_000",
         "\u0663", "nan\x0c", '"1.5"', "1,5", "abc"]


@pytest.mark.parametrize("cell", CELLS)
@pytest.mark.parametrize("sep", [",", "\t"])
def test_every_cell_as_the_careful_path_reads_it(tmp_path, xyz, cell, sep, monkeypatch):
    """One odd cell in a column: the fast path gives the careful path's frame or message."""
    if cell == "1,5" and sep == ",":
        cell = "1;5"
    f = write_plain_csv(tmp_path / "c.csv", xyz, NAMES, sep=sep)
    lines = f.read_text().split("\n")
    for i, col in ((5, 3), (9, 7)):  # a marker coordinate, twice
        fields = lines[i].split(sep)
        fields[col] = cell
        lines[i] = sep.join(fields)
    f.write_text("\n".join(lines), encoding="utf-8")
    fast, _ = _read(f, True, monkeypatch)
    slow, _ = _read(f, False, monkeypatch)
    if isinstance(slow, str):
        assert fast == slow
    else:
        pd.testing.assert_frame_equal(fast, slow, check_exact=True)
        assert fast.attrs == slow.attrs


def _kernel(lines: list[str], ncol: int, sep: str = "\t"):
    buf = np.frombuffer(("\n".join(lines)).encode(), dtype=np.uint8)
    n = len(lines)
    table, aux = np.full((n, ncol), -7.0), np.empty((n, 0))
    status, bounds = np.empty(n, dtype=np.uint8), np.empty((n, 2), dtype=np.int64)
    end = _parse.parse_range(buf, 0, buf.size, buf.size, ncol, ord(sep), _parse.EXACT_POW10,
                              np.arange(ncol), table, aux, status, bounds, 0)
    assert end == n
    return table, status


def test_line_kernel_and_flagged_lines_equal_float():
    """parse_range (one pass per line), then flagged_row on the lines it flags, against float() cell by cell."""
    rng = np.random.default_rng(5)
    ncol, n = 12, 4000
    mant = rng.integers(0, 10 ** rng.integers(1, 19, (n, ncol)), dtype=np.int64)
    form = rng.integers(0, 4, (n, ncol))
    exps = rng.integers(-30, 30, (n, ncol))
    decs = rng.integers(0, 12, (n, ncol))
    lines = []
    for i in range(n):
        cells = []
        for j in range(ncol):
            m, k = int(mant[i, j]), form[i, j]
            text = (f"{m}e{exps[i, j]}" if k == 0 else f"{m / 10 ** decs[i, j]:.{decs[i, j]}f}" if k == 1
                    else f"-{m}" if k == 2 else f" {m / 1000:.3f} ")
            cells.append(text)
        lines.append("\t".join(cells))
    table, status = _kernel(lines, ncol)
    flagged = status == _parse.ROW_FLAGGED
    assert np.all(status[~flagged] == _parse.ROW_OK) and 0.05 < flagged.mean() < 0.95
    for i in np.flatnonzero(flagged):
        table[i] = _fastread.flagged_row(lines[i].encode(), ncol, "\t")
    exact = np.array([[float(c) for c in line.split("\t")] for line in lines])
    np.testing.assert_array_equal(table.view(np.int64), exact.view(np.int64))  # every bit, signs of zero too


def test_line_kernel_row_codes():
    lines = ["1\t2\t3", " \t\r", "", "1\t2", "1\t2\t3\t4", "1\t2\t3\t\t ", "\t\t", "nan\tNA\t-",
             "1\tabc\t3", "1\t1e400\t3", "1\r"]
    _, status = _kernel(lines, 3)
    f = _parse
    assert list(status) == [f.ROW_OK, f.ROW_BLANK, f.ROW_BLANK, f.ROW_SHORT, f.ROW_EXTRA, f.ROW_OK,
                            f.ROW_BLANK, f.ROW_EMPTY, f.ROW_FLAGGED, f.ROW_FLAGGED, f.ROW_SHORT]


# ----------------------------------------------------------------------------- marker tables
def _marker_frame_numpy(time, xyz, scale):
    """The frame marker_frame builds, by plain numpy (zero -> NaN, any NaN -> all NaN, scale)."""
    xyz = np.array(xyz, dtype=float)
    zero = np.all(xyz == 0.0, axis=2)
    xyz[zero] = np.nan
    miss = np.any(np.isnan(xyz), axis=2)
    xyz[miss] = np.nan
    if scale != 1.0:
        xyz *= scale
    return np.column_stack([time, xyz.reshape(len(time), -1)]), int(zero.sum()), miss.sum(axis=0)


@pytest.mark.parametrize("scale", [1.0, 1e-3])
def test_marker_frame_in_place_equals_numpy(scale, monkeypatch):
    rng = np.random.default_rng(2)
    n, m = 3000, 30
    xyz = rng.normal(0, 500 * 1e-3 / scale, (n, m, 3))  # a lab's 0.5 m spread, in the file's unit
    xyz[rng.random((n, m)) < 0.05] = 0.0
    xyz[rng.random((n, m, 3)) < 0.03] = np.nan
    xyz[rng.random((n, m, 3)) < 0.01] = -0.0
    xyz[:, 4] = np.nan  # one marker missing throughout
    time = np.arange(n) / 100.0
    ref, n_zero, miss = _marker_frame_numpy(time, xyz, scale)
    names = [f"M{k}" for k in range(m)]
    kw = dict(units=({1.0: "m", 1e-3: "mm"}[scale], "the test"), time=time, rate=(100.0, "the test rate"))
    monkeypatch.setattr(_fastread, "threads", lambda: 2)
    table = np.empty((n, 1 + 3 * m))
    table[:, 1:] = xyz.reshape(n, -1)
    a = _validate.marker_frame(Path("x.trc"), "trc", names, table[:, 1:].reshape(n, m, 3), table=table, **kw)
    assert np.shares_memory(a.to_numpy(copy=False), table)
    b = _validate.marker_frame(Path("x.trc"), "trc", names, xyz, **kw)
    for df in (a, b):
        np.testing.assert_array_equal(df.to_numpy().view(np.int64), ref.view(np.int64))  # same bits
        assert df.attrs["missing_zero_samples"] == n_zero
        assert df.attrs["missing"] == {nm: int(c) for nm, c in zip(names, miss, strict=True) if c}
        assert df.attrs["empty_markers"] == ["M4"]
    with pytest.raises(ValueError):
        _validate.marker_frame(Path("x.trc"), "trc", names, xyz, table=table, **kw)


def test_unit_detection_kernel_equals_numpy():
    from humanbody.io import _csv_common

    def reference(xyz):  # the statistic of _detect_units by numpy
        finite = np.isfinite(xyz).all(axis=2) & ~np.all(xyz == 0.0, axis=2)
        enough = finite.sum(axis=1) >= 2
        p = np.where(finite[..., None], xyz, np.nan)[enough]
        return float(np.median(np.nanmax(np.nanmax(p, axis=1) - np.nanmin(p, axis=1), axis=1)))

    rng = np.random.default_rng(4)
    for scale in (1.0, 1e-3):
        xyz = rng.normal(0, 400, (2000, 12, 3)) * scale
        xyz[rng.random((2000, 12)) < 0.3] = 0.0
        xyz[rng.random((2000, 12, 3)) < 0.1] = np.nan
        xyz[rng.random((2000, 12, 3)) < 0.01] = np.inf
        unit, note = _csv_common._detect_units(xyz)
        stat = reference(xyz)
        assert note == f"length unit detected as {unit} (median marker-cloud extent {stat:.4g} in file units)"
        assert unit == ("mm" if stat > 10 else "m")
    one = np.zeros((5, 3, 3))  # no frame with two usable samples: the numpy branches
    one[:, 0] = [[1500.0, 2.0, 3.0]]
    assert _csv_common._detect_units(one)[0] == "mm"
    assert _csv_common._detect_units(np.zeros((5, 3, 3)))[0] == "m"


def test_plain_csv_columns_kept_aside(tmp_path, xyz, monkeypatch):
    """Frame and rate columns (aux), ignored columns, hints and units rows through the fast path."""
    f = write_plain_csv(tmp_path / "frames.csv", xyz, NAMES, time=False)
    df = _same(f, monkeypatch, rate_hz=50.0)
    assert df.attrs["rate_hz"] == 50.0
    assert "Frame column" in _same(f, monkeypatch)  # no rate: the careful message
    lines = f.read_text().splitlines()
    lines[0] = "rate,note," + lines[0]
    lines[1:] = [f"50,{i % 3},{line}" for i, line in enumerate(lines[1:])]
    f.write_text("\n".join(lines) + "\n")
    df = _same(f, monkeypatch)
    assert df.attrs["rate_hz"] == 50.0 and df.attrs["ignored_columns"] == ["note"]
    _same(write_plain_csv(tmp_path / "h.csv", xyz, NAMES, unit_hint="cm", style="{m}.{a}"), monkeypatch)
    _same(write_plain_csv(tmp_path / "m.csv", xyz / 1000, NAMES), monkeypatch)  # metres detected


def test_long_header_read_in_steps(tmp_path, xyz, monkeypatch):
    monkeypatch.setattr(_fastread, "_HEAD_BYTES", 16)
    _same(write_trc(tmp_path / "a.trc", xyz, NAMES), monkeypatch)
    _same(write_motive_csv(tmp_path / "m.csv", xyz, NAMES), monkeypatch)
    head = _fastread.read_head(write_trc(tmp_path / "b.trc", xyz[:2], NAMES), 50, 0)
    assert head is None  # fewer lines than asked

"""Fast path of the text readers: the same frames, attrs and messages as the careful path.

Large files (``_validate.FAST_MIN_BYTES``) have their numbers read by the
numba parser; these tests lower the threshold to 0 so every file goes
through it, and compare with the threshold out of reach (careful path only).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from _io_samples import SHARED, positions, replace_field, write_motive_csv, write_plain_csv, write_trc
from humanbody import _format
from humanbody.errors import InputError
from humanbody.io import _validate, read_trial

DATA = Path(__file__).resolve().parents[1] / "data"
NAMES = ["LASI", "RASI", "LHEE", "RTOE"]


def _read(path, fast, monkeypatch, **options):
    monkeypatch.setattr(_validate, "FAST_MIN_BYTES", 0 if fast else 10**15)
    used = []
    real = _validate.fast_block

    def spy(*args, **kwargs):
        out = real(*args, **kwargs)
        used.append(out is not None)
        return out

    monkeypatch.setattr(_validate, "fast_block", spy)
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


def test_shared_walk(monkeypatch):
    walk = SHARED / "subject01_walk1.trc"
    if not walk.exists():
        pytest.skip("shared data not available")
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
    rng = np.random.default_rng(11)
    n = 20000
    mant = rng.integers(0, 10**rng.integers(1, 19, n), dtype=np.int64)
    texts = [f"{'-' if s else ''}{m}e{e}" if k == 0 else f"{m / 10**d:.{d}f}"
             for m, e, s, k, d in zip(mant, rng.integers(-40, 40, n), rng.random(n) < 0.5,
                                      rng.integers(0, 2, n), rng.integers(0, 12, n))]
    texts += ["0", "-0", "+1.5", ".5", "5.", "1E5", "0.000000000000000000001234", "12345678901234567890"]
    line = "\t".join(texts).encode()
    buf = np.frombuffer(line, dtype=np.uint8)
    values = np.empty((1, len(texts)))
    flags = np.zeros((1, len(texts)), dtype=np.uint8)
    status = np.empty(1, dtype=np.uint8)
    _format.parse_rows(buf, np.array([0]), np.array([buf.size]), len(texts), 9, _format._EXACT_POW10,
                       values, flags, status)
    assert status[0] == _format.ROW_OK
    ref = np.array([float(t) for t in texts])
    fast = flags[0] == _format.CELL_OK
    assert fast.mean() > 0.5 and not np.any(flags[0] == _format.CELL_TEXT)
    np.testing.assert_array_equal(values[0, fast], ref[fast])  # bit for bit
    assert np.all(np.signbit(values[0, fast]) == np.signbit(ref[fast]))

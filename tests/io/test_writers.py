"""CSV writer: number printing against C's %g, streaming, atomicity, fallbacks."""

from __future__ import annotations

import os
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from humanbody.io import writers
from humanbody.io.writers import CSV_DIGITS, CsvWriter, format_csv_rows, write_table

SPECIAL = [0.0, -0.0, np.nan, np.inf, -np.inf, 5e-324, -5e-324, 2.2250738585072014e-308,
           2.225073858507201e-308, 1.7976931348623157e308, -1.7976931348623157e308, 1e-5,
           9.99999999995e-5, 1e-4, 9.9999999999e9, 9.99999999995e9, 1e23, 1e22, 0.1, 0.5,
           1234567890.5, 1234567891.5, 2.5, 3.5, 0.015, 123456.0, 1e15, 1e16, 1e300, 1e-300,
           1e270, 1e-270, 9.999999999e270, 1.0000000001e-270]


def _printf(values, digits):
    """Reference text: Python's %-formatting (C's %g, correctly rounded, half to even)."""
    f = f"%.{digits}g"
    return "".join(",".join("" if np.isnan(x) else f % x for x in row) + "\n" for row in values)


def _sample(n, seed):
    """Values over the whole double range, typical magnitudes, rounded decimals and the specials."""
    rng = np.random.default_rng(seed)
    wide = rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-330, 308, n)
    typical = rng.standard_normal(n) * 10.0 ** rng.uniform(-6, 6, n)
    scale = 10.0 ** rng.integers(0, 7, n)
    decimals = np.round(rng.uniform(-2000, 2000, n) * scale) / scale
    bits = rng.integers(0, 2**63 - 1, n, dtype=np.int64).view(np.float64)  # any bit pattern
    x = np.concatenate([wide, typical, decimals, bits, SPECIAL])
    return x[np.isfinite(x) | np.isnan(x) | np.isinf(x)]


@pytest.mark.parametrize("digits", range(1, 16))
def test_printing_equals_printf(digits):
    x = _sample(12_000, digits)
    x = x[: x.size // 5 * 5].reshape(-1, 5)
    assert format_csv_rows(x, digits).decode() == _printf(x, digits)


def _edges(digits):
    """Values where printing is hardest: carries into a new power of ten, powers of ten, ties, range ends."""
    m = np.arange(-325, 309, dtype=float)
    carry = (1.0 - 0.5 * 10.0**-digits) * 10.0**m  # 9.9999999995e-5 for 10 digits: rounds up to 1e-4
    pw = 10.0**m
    tiny = np.array([5e-324, 1e-323, 4.9406564584124654e-322, 2.2250738585072009e-308, 2.2250738585072014e-308,
                     1e-310, 1.2345678901234567e-315])
    huge = np.array([1.7976931348623157e308, 8.98846567431158e307, 1e308, 1.2345678901234567e307])
    base = np.concatenate([carry, pw, tiny, huge])
    base = base[np.isfinite(base) & (base > 0)]
    below = np.nextafter(base, 0)
    near = np.concatenate([base, below, np.nextafter(below, 0), np.nextafter(base[base < 1e308], np.inf)])
    # exact decimal ties n + 1/2 at the last digit, both scalings (k >= 0 and k < 0), kept where exact in binary
    rng = np.random.default_rng(digits)
    n = rng.integers(10 ** (digits - 1), 10**digits, 300)
    ties = []
    for s in range(-8, 25):
        for v in n:
            x = (2 * int(v) + 1) * Fraction(10) ** s / 2
            if float(x) == x and 0 < float(x) < 1.7e308:
                ties.append(float(x))
    ties = np.array(ties + [1.25e20, 2.5, 0.5, 25.0, 1.5e-1])
    x = np.concatenate([near, ties, np.nextafter(ties, 0), np.nextafter(ties, np.inf), [0.0, np.nan, np.inf]])
    return np.concatenate([x, -x])


@pytest.mark.parametrize("digits", range(1, 16))
def test_edge_values_equal_printf(digits):
    x = _edges(digits)
    x = np.concatenate([x, np.full(-x.size % 4, np.nan)]).reshape(-1, 4)
    assert format_csv_rows(x, digits).decode() == _printf(x, digits)


@pytest.mark.parametrize("digits", [1, 2, 7, 10, 15])
def test_exact_tiers_and_printf_fallback(digits):
    """Every value through the double-double tier, every near tie through the exact test or Python."""
    from humanbody._kernels import csv_print as _csvprint
    from humanbody.io.writers import _constants, format_chunks

    x = np.concatenate([_edges(digits), _sample(2000, 50 + digits)])
    x = np.concatenate([x, np.full(-x.size % 4, np.nan)]).reshape(-1, 4)
    ref = _printf(x, digits)
    for margins in [(np.inf, _csvprint.margins(digits)[1]), (np.inf, 1.0)]:
        text = b"".join(bytes(c) for c in format_chunks(x, digits, margins=margins)).decode()
        assert text == ref
    # with a tie margin of 1 the kernel must give some blocks up (|k| > 22 exists in the sample)
    tables, ipow10, expw = _constants()
    rows = x.shape[0]
    block_bytes = rows * x.shape[1] * (digits + 8) + _csvprint.SLACK
    lengths = np.zeros(1, np.int64)
    out = np.empty(block_bytes, np.uint8)
    _csvprint.format_block_serial(x, digits, 44, tables, ipow10, expw, np.inf, 1.0, rows, block_bytes, out, lengths)
    assert lengths[0] == -1
    _csvprint.format_block_serial(x, digits, 44, tables, ipow10, expw, np.inf, _csvprint.margins(digits)[1], rows,
                                block_bytes, out, lengths)
    assert bytes(out[:lengths[0]]).decode() == ref


def test_ties_round_half_to_even_and_near_ties():
    # exact binary ties at the 10th digit, and their neighbours one ulp away
    ties = np.array([1234567890.5, 1234567891.5, 9999999999.5, 12345678905.0, 0.5, 2.5])
    near = np.concatenate([np.nextafter(ties, np.inf), np.nextafter(ties, -np.inf)])
    x = np.concatenate([ties, near])[:, None]
    assert format_csv_rows(x, 10).decode() == _printf(x, 10)
    # decimal ties that are not exact in binary (0.15 is 0.1499999...): printf decides by the bits
    y = (np.arange(1, 100000) + 0.5) * 10.0 ** np.repeat(np.arange(-15, 5), 5000)[:99999]
    y = y[:, None]
    assert format_csv_rows(y, 10).decode() == _printf(y, 10)


def test_relative_error_bound_and_round_trip():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((20000, 10)) * 10.0 ** rng.uniform(-300, 300, (20000, 10))
    x[::7, 3] = rng.uniform(0, 5e-310, x[::7, 3].shape)  # subnormals
    text = format_csv_rows(x, CSV_DIGITS).decode()
    back = np.array([[float(c) for c in line.split(",")] for line in text.splitlines()])
    scale = 10.0 ** (np.floor(np.log10(np.abs(x), where=x != 0, out=np.zeros_like(x))) - CSV_DIGITS + 1)
    # |x - printed| <= half a unit in the 10th digit (plus the rounding of the comparison itself)
    assert np.all(np.abs(back - x) <= 0.5 * scale * (1 + 1e-9) + np.spacing(np.abs(x)))
    assert np.all(np.signbit(back) == np.signbit(x))


def test_layout_of_special_values():
    x = np.array([[np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-5, 1e16, 100.0, 0.25]])
    assert format_csv_rows(x).decode() == ",inf,-inf,-0,0,1e-05,1e+16,100,0.25\n"
    assert format_csv_rows(np.zeros((0, 3))) == b""
    with pytest.raises(ValueError):
        format_csv_rows(x, 16)
    with pytest.raises(ValueError):
        format_csv_rows(x, 0)


def _table(rows=1000, cols=7, seed=3):
    rng = np.random.default_rng(seed)
    data = rng.standard_normal((rows, cols)) * 10.0 ** rng.uniform(-8, 8, (rows, cols))
    data[rng.random((rows, cols)) < 0.05] = np.nan
    return pd.DataFrame(data, columns=["time"] + [f"c{j}" for j in range(1, cols)])


def test_write_table_reads_back(tmp_path):
    df = _table()
    path = write_table(df, tmp_path / "t")
    assert path.endswith("t.csv")
    back = pd.read_csv(path)
    assert list(back.columns) == list(df.columns)
    np.testing.assert_array_equal(back.isna().to_numpy(), df.isna().to_numpy())
    np.testing.assert_allclose(back.to_numpy(), df.to_numpy(), rtol=0.5000001 * 10.0 ** (1 - CSV_DIGITS), atol=0)
    # digits=None: Arrow's shortest round-trip text, every bit kept
    exact = pd.read_csv(write_table(df, tmp_path / "e", digits=None))
    np.testing.assert_array_equal(exact.to_numpy(), df.to_numpy())


def test_streaming_equals_one_shot_byte_for_byte(tmp_path):
    df = _table(rows=3000)
    one = write_table(df, tmp_path / "one")
    rng = np.random.default_rng(0)
    cuts = np.sort(rng.choice(np.arange(1, 3000), 12, replace=False))
    with CsvWriter(tmp_path / "many.csv", df.columns) as w:
        for block in np.split(df.to_numpy(), cuts):
            w.write(block)
        w.write(np.empty((0, df.shape[1])))
    assert w.rows == 3000 and w.closed
    assert (tmp_path / "many.csv").read_bytes() == open(one, "rb").read()
    # a large block takes the parallel kernel: same bytes as the serial one
    big = np.tile(df.to_numpy(), (80, 1))
    text = format_csv_rows(big)
    assert text == format_csv_rows(df.to_numpy()) * 80


def test_atomic_no_partial_file(tmp_path):
    target = tmp_path / "out.csv"
    with pytest.raises(RuntimeError):
        with CsvWriter(target, ["a", "b"]) as w:
            w.write(np.ones((10, 2)))
            raise RuntimeError("stop")
    assert not target.exists()
    assert os.listdir(tmp_path) == []  # no temporary file left behind
    target.write_text("old\n")
    with pytest.raises(ValueError):
        with CsvWriter(target, ["a", "b"]) as w:
            w.write(np.ones((10, 3)))  # wrong width
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["out.csv"]
    w = CsvWriter(target, ["a"])
    w.write(np.arange(3.0))
    w.abort()
    assert target.read_text() == "old\n" and os.listdir(tmp_path) == ["out.csv"]
    with pytest.raises(ValueError):
        w.write(np.ones((1, 1)))


def test_header_quoting_and_fallbacks(tmp_path):
    df = pd.DataFrame({"time": [0.0, 0.1], 'a,"b"': [1.0, 2.0], "n": [3, 4]})
    text = open(write_table(df, tmp_path / "q"), encoding="utf-8").read()
    assert text == 'time,"a,""b""",n\n0,1,3\n0.1,2,4\n'
    # a text column or a large integer: Arrow writes the table
    mixed = pd.DataFrame({"time": [0.0, 0.5], "label": ["x", "y"]})
    assert pd.read_csv(write_table(mixed, tmp_path / "m"))["label"].tolist() == ["x", "y"]
    big = pd.DataFrame({"id": [2**40, 3]})
    assert pd.read_csv(write_table(big, tmp_path / "b"))["id"].tolist() == [2**40, 3]
    pq = pytest.importorskip("pyarrow.parquet")
    path = write_table(df, tmp_path / "p", fmt="parquet")
    assert pq.read_table(path).num_rows == 2


def test_threaded_writes_equal_one_shot_and_errors_surface(tmp_path, monkeypatch):
    """Chunks written on the second thread keep their order; its error reaches the caller, no file is left."""
    df = _table(rows=5000, cols=9)
    one = open(write_table(df, tmp_path / "one"), "rb").read()
    monkeypatch.setattr(writers, "_THREAD_MIN_BYTES", 0)
    monkeypatch.setattr(writers, "_CHUNK_ROWS", 300)
    monkeypatch.setattr(writers, "PARALLEL_MIN_VALUES", 1000)
    with CsvWriter(tmp_path / "many.csv", df.columns) as w:
        for block in np.array_split(df.to_numpy(), 7):
            w.write(block)
    assert (tmp_path / "many.csv").read_bytes() == one

    real = writers.write_all
    calls = []

    def failing(fd, chunks):
        calls.append(len(chunks))
        if len(calls) == 3:
            raise OSError(28, "No space left on device")
        real(fd, chunks)

    monkeypatch.setattr(writers, "write_all", failing)
    target = tmp_path / "full.csv"
    with pytest.raises(OSError, match="No space"):
        with CsvWriter(target, df.columns) as w:
            w.write(df.to_numpy())
    assert not target.exists()
    assert sorted(os.listdir(tmp_path)) == ["many.csv", "one.csv"]


@pytest.mark.parametrize("shift", [0, 256, -256])
def test_power_of_ten_table_is_the_exact_value_split_in_two_doubles(shift):
    """Every row hi + lo of the printer's table against exact rational arithmetic."""
    from fractions import Fraction

    from humanbody._kernels import csv_print as _csvprint

    table = _csvprint._pow10_table(shift)
    for i, k in enumerate(range(_csvprint._K_MIN, _csvprint._K_MAX + 1)):
        exact = Fraction(10) ** k * Fraction(2) ** shift
        hi, lo = table[i]
        if exact >= Fraction(2) ** 1023 or float(exact) == 0.0:  # beyond the split's range, or underflow
            assert hi == np.inf and lo == 0.0
            continue
        assert hi == float(exact)  # nearest double (Fraction -> float rounds correctly)
        assert lo == float(exact - Fraction(hi))
        if hi > 1e-290:  # lo a normal double: the pair carries ~106 bits
            assert abs(Fraction(hi) + Fraction(lo) - exact) <= exact * Fraction(1, 2**105)

"""CSV writer: number printing against C's %g, streaming, atomicity, fallbacks."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest

from humanbody.writers import CSV_DIGITS, CsvWriter, format_csv_rows, write_table

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


@pytest.mark.parametrize("digits", [1, 3, 6, 10, 12, 15])
def test_printing_equals_printf(digits):
    x = _sample(25_000, digits)
    x = x[: x.size // 5 * 5].reshape(-1, 5)
    assert format_csv_rows(x, digits).decode() == _printf(x, digits)


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
    np.testing.assert_allclose(back.to_numpy(), df.to_numpy(), rtol=5.000001e-10, atol=0)
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

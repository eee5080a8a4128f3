"""The faster routes of a report give the numbers and bytes of the plain ones.

* stride curves resampled for all strides and variables at once equal
  ``numpy.interp`` stride by stride, variable by variable, bit for bit;
* the curve index :func:`normalize_cycles` hands over equals the one found by
  searching the table's labels;
* a Parquet table written into a cached schema is the file
  ``pyarrow.Table.from_pandas`` makes;
* a stride table built in one piece equals the one built per side.
"""

from __future__ import annotations

import io

import numpy as np
import pandas as pd
import pytest

from humanbody.gait import cycles as cyc


def _interp_loop(time, values, strikes, points=101):
    """The reference: numpy.interp per stride and variable over the frames around the stride."""
    t, y = np.asarray(time, float), np.asarray(values, float)
    y = y[:, None] if y.ndim == 1 else y
    s = np.sort(np.asarray(strikes, float))
    frac = np.linspace(0.0, 1.0, points)
    out = np.full((max(len(s) - 1, 0), points, y.shape[1]), np.nan)
    for i, (a, b) in enumerate(zip(s[:-1], s[1:], strict=True)):
        if a < t[0] or b > t[-1]:
            continue
        tq = a + frac * (b - a)
        j0, j1 = max(np.searchsorted(t, a) - 1, 0), min(np.searchsorted(t, b) + 1, len(t))
        for v in range(y.shape[1]):
            col = y[j0:j1, v]
            if np.isfinite(col).all():
                out[i, :, v] = np.interp(tq, t[j0:j1], col)
    return out


@pytest.mark.parametrize("seed", range(40))
def test_stride_curves_equal_numpy_interp_bit_for_bit(seed):
    rng = np.random.default_rng(seed)
    F = int(rng.integers(2, 300))
    t = np.arange(F) / rng.choice([60.0, 100.0, 120.0, 333.3]) + rng.uniform(-1.0, 1.0)
    y = rng.normal(size=(F, 6)) * 10.0 ** rng.uniform(-3, 3, size=6)
    y[rng.random(y.shape) < 0.01] = np.nan
    y[:, 2] = 7.0  # a constant column
    strikes = rng.uniform(t[0] - 0.2, t[-1] + 0.2, int(rng.integers(0, 8)))
    if seed % 3 == 0:  # strikes exactly on frames, at the first and the last frame
        strikes = np.concatenate([strikes, t[rng.integers(0, F, 3)], [t[0], t[-1]]])
    points = int(rng.choice([101, 51, 2]))
    want, got = _interp_loop(t, y, strikes, points), cyc.stride_curves(t, y, strikes, points)
    assert got.shape == want.shape
    ok = ~np.isnan(want)
    assert np.array_equal(ok, ~np.isnan(got))
    assert want[ok].tobytes() == got[ok].tobytes()


def _walk_table(rng, F=400, rate=100.0):
    t = np.arange(F) / rate
    cols = {"time": t}
    for name in ("right_knee_flexion_deg", "left_knee_flexion_deg", "pelvis_tilt_deg", "right_hip_power_W_per_kg"):
        cols[name] = 20 * np.sin(2 * np.pi * t / 1.1 + rng.uniform(0, 6)) + rng.normal(0, 0.1, F)
    cols["left_knee_flexion_deg"][57] = np.nan
    strikes = {"right": [0.3, 1.4, 2.5, 3.6], "left": [0.85, 1.95, 3.05]}
    events = pd.DataFrame([(ts, s, "foot_strike", "force") for s, ts_ in strikes.items() for ts in ts_],
                          columns=["time", "side", "event", "source"])
    return pd.DataFrame(cols), events


def test_curve_index_handed_over_equals_the_searched_one():
    table, events = _walk_table(np.random.default_rng(1))
    cycles, given = cyc.normalized_curves(table, events)
    pd.testing.assert_frame_equal(cycles, cyc.normalize_cycles(table, events))
    searched = cyc.curve_index(cycles)
    shuffled = cyc.curve_index(cycles.iloc[::-1].reset_index(drop=True))  # a curve in rows of any order
    assert np.array_equal(shuffled[("right", "right_knee_flexion_deg")],
                          len(cycles) - 1 - given[("right", "right_knee_flexion_deg")][::-1])
    assert given.keys() == searched.keys()
    for key in given:
        assert np.array_equal(given[key], searched[key])
    assert str(cycles["variable"].dtype) == str(pd.Series(["a"]).dtype)  # text stored as pandas stores it


def test_stride_table_equals_the_per_side_build():
    table, events = _walk_table(np.random.default_rng(2))
    got = cyc.stride_table(table, events)
    variables = cyc.clinical_variables(table.columns)
    parts = []
    t = table["time"].to_numpy()
    for side in ("right", "left"):
        strikes = np.sort(events.loc[events["side"] == side, "time"].to_numpy())
        curves = _interp_loop(t, table[variables].to_numpy(), strikes)
        n = curves.shape[0]
        part = pd.DataFrame(curves.reshape(n * 101, len(variables)), columns=variables)
        part.insert(0, "percent", np.tile(np.linspace(0, 100, 101), n))
        part.insert(0, "stride", np.repeat(np.arange(n), 101))
        part.insert(0, "side", side)
        parts.append(part)
    pd.testing.assert_frame_equal(got, pd.concat(parts, ignore_index=True))


def test_parquet_in_a_cached_schema_is_pandas_file():
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    from humanbody.io import writers

    def pandas_route(t):
        buf = io.BytesIO()
        pq.write_table(pa.Table.from_pandas(t, preserve_index=False), buf)
        return buf.getvalue()

    rng = np.random.default_rng(3)
    writers._ARROW_SCHEMAS.clear()
    for k in range(12):
        n = 0 if k == 0 else int(rng.integers(1, 300))
        t = pd.DataFrame({"side": pd.array(rng.choice(["right", "left"], n), dtype=pd.StringDtype(na_value=np.nan)),
                          "stride": rng.integers(0, 5, n), "percent": rng.random(n), "knee_deg": rng.normal(size=n)})
        t.loc[rng.random(n) < 0.1, "knee_deg"] = np.nan  # NaN is written as null, as pandas' route does
        if k % 4 == 1:
            t["note"] = np.array(rng.choice(["x", None], n), dtype=object)  # object columns: never cached
        assert writers.table_bytes(t, "parquet") == pandas_route(t), k
    assert writers._ARROW_SCHEMAS  # the layout was cached and re-used

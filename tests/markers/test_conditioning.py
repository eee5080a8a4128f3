"""Tests of humanbody.markers.conditioning: gaps, filling, zero-phase low-pass."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from _io_samples import shared_walk
from scipy import signal
from scipy.spatial.transform import Rotation

from humanbody.errors import InputError
from humanbody.markers import condition, fill_gaps, find_gaps, lowpass
from humanbody.markers.conditioning import butterworth_sos


def marker_frame(t: np.ndarray, markers: dict[str, np.ndarray], rate: float) -> pd.DataFrame:
    """Marker DataFrame in the COMMON layout from name -> (frames, 3) arrays."""
    cols = {"time": t}
    for name, xyz in markers.items():
        for k, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = xyz[:, k]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="synthetic", rate_hz=rate, markers=list(markers),
                    units_in_file="m", conversions=[], format="test")
    return df


def smooth_path(t: np.ndarray) -> np.ndarray:
    """A smooth 3-D path (m): slow sinusoids of 0.1 m amplitude around (0.5, 0.2, 1.0)."""
    return np.column_stack([0.5 + 0.1 * np.sin(2 * np.pi * 1.0 * t),
                            0.2 + 0.1 * np.cos(2 * np.pi * 0.7 * t + 0.3),
                            1.0 + 0.05 * np.sin(2 * np.pi * 1.3 * t + 1.0)])


def _xyz(df, name):
    return df[[f"{name}_x", f"{name}_y", f"{name}_z"]].to_numpy()


# --------------------------------------------------------------------------- gaps
def test_find_gaps_lists_nan_and_zero_runs():
    rate = 100.0
    t = np.arange(50) / rate
    a, b = smooth_path(t), smooth_path(t + 1.0)
    a[10:14] = np.nan
    a[30, 1] = np.nan          # one coordinate missing = marker missing
    b[0:3] = 0.0               # exact origin = missing
    b[47:] = np.nan
    gaps = find_gaps(marker_frame(t, {"A": a, "B": b}, rate))
    assert list(gaps.columns) == ["marker", "start_frame", "end_frame", "start_time", "end_time", "length_frames"]
    got = [tuple(r) for r in gaps[["marker", "start_frame", "end_frame", "length_frames"]].itertuples(index=False)]
    assert got == [("A", 10, 13, 4), ("A", 30, 30, 1), ("B", 0, 2, 3), ("B", 47, 49, 3)]
    assert gaps["start_time"].iloc[0] == pytest.approx(0.10)
    assert gaps["end_time"].iloc[0] == pytest.approx(0.13)


def test_find_gaps_empty_when_complete():
    t = np.arange(20) / 50.0
    assert len(find_gaps(marker_frame(t, {"A": smooth_path(t)}, 50.0))) == 0


# --------------------------------------------------------------------------- spline / linear fill
def test_spline_fill_reproduces_smooth_signal():
    rate = 100.0
    t = np.arange(300) / rate
    truth = smooth_path(t)
    x = truth.copy()
    x[100:109] = np.nan                       # 9 frames = 0.09 s <= max_gap 0.1 s
    df = marker_frame(t, {"A": x}, rate)
    out, report = fill_gaps(df, max_gap=0.1)
    err = np.abs(_xyz(out, "A") - truth).max()
    assert err < 2e-5                         # 0.1 m amplitude, cubic spline over 10 samples a side
    assert report["filled"].tolist() == [True] and report["method"].tolist() == ["spline"]
    # a straight line is much worse on the same gap: the spline is doing real work
    lin, _ = fill_gaps(df, max_gap=0.1, method="linear")
    assert np.abs(_xyz(lin, "A") - truth).max() > 20 * err
    # the input is untouched and attrs are kept
    assert np.isnan(_xyz(df, "A")[100:109]).all()
    assert out.attrs["source"] == "synthetic" and out.attrs["conditioning"]


def test_long_and_edge_gaps_stay_nan_and_are_reported():
    rate = 100.0
    t = np.arange(200) / rate
    x = smooth_path(t)
    x[0:3] = np.nan          # edge: not extrapolated
    x[50:70] = np.nan        # 20 frames = 0.2 s > 0.1 s
    x[120:130] = np.nan      # 10 frames = 0.1 s: filled (limit is inclusive)
    x[195:] = np.nan         # edge
    out, report = fill_gaps(marker_frame(t, {"A": x}, rate), max_gap=0.1)
    y = _xyz(out, "A")
    assert np.isnan(y[0:3]).all() and np.isnan(y[50:70]).all() and np.isnan(y[195:]).all()
    assert np.isfinite(y[3:50]).all() and np.isfinite(y[70:195]).all()
    rows = {r.start_frame: r for r in report.itertuples()}
    assert not rows[0].filled and "start or end" in rows[0].note
    assert not rows[50].filled and "longer" in rows[50].note and rows[50].length_frames == 20
    assert rows[120].filled and rows[120].method == "spline"
    assert not rows[195].filled
    # the same limit in frames; one frame less and the 10-frame gap is left
    _, rep9 = fill_gaps(marker_frame(t, {"A": x}, rate), max_gap_frames=9)
    assert not rep9.set_index("start_frame").loc[120, "filled"]


def test_short_support_falls_back_to_linear_and_says_so():
    rate = 50.0
    t = np.arange(12) / rate
    x = smooth_path(t)
    x[1:5] = np.nan          # one valid sample before: no spline possible
    x[6:8] = np.nan
    out, report = fill_gaps(marker_frame(t, {"A": x}, rate), max_gap=0.2)
    assert np.isfinite(_xyz(out, "A")).all()
    first = report.iloc[0]
    assert first["method"] == "linear" and "too few" in first["note"]


def test_bad_fill_arguments():
    t = np.arange(20) / 50.0
    df = marker_frame(t, {"A": smooth_path(t)}, 50.0)
    with pytest.raises(InputError, match="unknown fill method"):
        fill_gaps(df, method="cubic")
    with pytest.raises(InputError, match="segments"):
        fill_gaps(df, method="rigid")
    with pytest.raises(InputError, match="not in the trial"):
        fill_gaps(df, method="rigid", segments={"thigh": ["A", "B", "C", "D"]})
    with pytest.raises(InputError, match="max_gap"):
        fill_gaps(df, max_gap=-1.0)


# --------------------------------------------------------------------------- rigid fill
def rigid_cluster(t: np.ndarray):
    """Five markers fixed on a body that translates and rotates (no noise)."""
    local = np.array([[0.05, 0.00, 0.00], [0.00, 0.06, 0.01], [-0.04, -0.02, 0.03],
                      [0.01, 0.02, -0.07], [0.03, -0.05, 0.04]])
    rot = Rotation.from_rotvec(np.column_stack([0.8 * np.sin(2 * t), 0.5 * np.cos(1.3 * t), 1.1 * t]))
    origin = np.column_stack([1.2 * t, 0.1 * np.sin(3 * t), 0.9 + 0.05 * np.cos(5 * t)])
    return {f"M{i}": origin + rot.apply(p) for i, p in enumerate(local)}


def test_rigid_fill_reproduces_marker_on_rigid_cluster():
    rate = 100.0
    t = np.arange(200) / rate
    truth = rigid_cluster(t)
    data = {k: v.copy() for k, v in truth.items()}
    data["M0"][40:120] = np.nan     # 0.8 s: far beyond max_gap, rigid fill ignores the limit
    data["M0"][:5] = np.nan         # at the start: rigid fill needs no extrapolation in time
    data["M3"][60:70] = np.nan      # a reference drops out too; 3 others remain
    lone = smooth_path(t)
    lone[100:105] = np.nan          # a marker on no segment: spline under max_gap
    data["free"] = lone
    df = marker_frame(t, data, rate)
    out, report = fill_gaps(df, max_gap=0.1, method="rigid", segments={"shank": ["M0", "M1", "M2", "M3", "M4"]})
    for k in truth:
        assert np.abs(_xyz(out, k) - truth[k]).max() < 1e-9, k
    m0 = report[report["marker"] == "M0"]
    assert m0["filled"].all() and set(m0["method"]) == {"rigid"}
    assert sorted(m0["start_frame"]) == [0, 40]
    free = report[report["marker"] == "free"].iloc[0]
    assert free["filled"] and free["method"] == "spline"


def test_rigid_fill_needs_three_other_markers():
    rate = 100.0
    t = np.arange(100) / rate
    truth = rigid_cluster(t)
    data = {k: truth[k].copy() for k in ("M0", "M1", "M2")}
    data["M0"][40:60] = np.nan
    out, report = fill_gaps(marker_frame(t, data, rate), max_gap=0.1, method="rigid",
                            segments={"seg": ["M0", "M1", "M2"]})
    assert np.isnan(_xyz(out, "M0")[40:60]).all()
    assert not report["filled"].any() and "longer" in report["note"].iloc[0]


# --------------------------------------------------------------------------- low-pass
def _amplitude_phase(y: np.ndarray, t: np.ndarray, f: float) -> tuple[float, float]:
    """Least-squares amplitude and phase of y = A sin(2 pi f t + phi) + c."""
    X = np.column_stack([np.sin(2 * np.pi * f * t), np.cos(2 * np.pi * f * t), np.ones_like(t)])
    (s, c, _), *_ = np.linalg.lstsq(X, y, rcond=None)
    return float(np.hypot(s, c)), float(np.arctan2(c, s))


@pytest.mark.parametrize("f_test", [2.0, 6.0, 10.0, 20.0])
def test_lowpass_gain_and_zero_phase(f_test):
    rate, fc, N = 200.0, 6.0, 4
    t = np.arange(4000) / rate
    x = np.column_stack([0.3 + 0.01 * np.sin(2 * np.pi * f_test * t + 0.4)] * 3)
    out, rep = lowpass(marker_frame(t, {"A": x}, rate), cutoff_hz=fc, order=N)
    mid = slice(500, 3500)                   # away from the ends
    amp, ph = _amplitude_phase(_xyz(out, "A")[mid, 0], t[mid], f_test)
    # forward-backward Butterworth with -3 dB at fc (bilinear transform):
    # |H| = 1 / (1 + (sqrt 2 - 1) (tan(pi f/fs) / tan(pi fc/fs))^N)
    ratio = np.tan(np.pi * f_test / rate) / np.tan(np.pi * fc / rate)
    expected = 1.0 / (1.0 + (np.sqrt(2) - 1) * ratio ** N)
    assert amp / 0.01 == pytest.approx(expected, rel=1e-3, abs=1e-6)
    # the same from scipy's response of one pass, squared for the double pass
    _, h = signal.sosfreqz(butterworth_sos(fc, rate, N), worN=[f_test], fs=rate)
    assert abs(h[0]) ** 2 == pytest.approx(expected, rel=1e-9)
    if expected > 1e-3:
        assert abs(ph - 0.4) < 1e-6          # zero phase: no lag
    assert rep.cutoff_hz == fc and rep.order == N and rep.design_hz > fc


def test_lowpass_minus_3db_at_cutoff():
    for rate, fc, N in [(60.0, 6.0, 4), (100.0, 10.0, 2), (250.0, 15.0, 6)]:
        _, h = signal.sosfreqz(butterworth_sos(fc, rate, N), worN=[fc], fs=rate)
        assert abs(h[0]) ** 2 == pytest.approx(1 / np.sqrt(2), rel=1e-9)


def test_lowpass_keeps_nan_runs_and_skips_short_runs():
    rate = 100.0
    t = np.arange(300) / rate
    rng = np.random.default_rng(1)
    x = smooth_path(t) + rng.normal(0, 0.002, (300, 3))
    x[100:130] = np.nan
    x[200:205] = np.nan
    x[210:215] = np.nan       # leaves a 5-frame run 205..209, shorter than the padding
    out, rep = lowpass(marker_frame(t, {"A": x}, rate), cutoff_hz=6.0)
    y = _xyz(out, "A")
    assert np.array_equal(np.isnan(y), np.isnan(x))
    assert np.array_equal(y[205:210], x[205:210])                      # untouched
    assert rep.unfiltered[["start_frame", "end_frame"]].values.tolist() == [[205, 209]]
    # filtered runs are smoother: noise removed
    assert np.std(np.diff(y[:100, 0], 2)) < 0.1 * np.std(np.diff(x[:100, 0], 2))
    assert np.abs(y[10:90] - smooth_path(t)[10:90]).max() < 0.0025


@pytest.mark.parametrize("cutoff", [30.0, 45.0, 0.0, -2.0, np.nan])
def test_bad_cutoff_rejected(cutoff):
    t = np.arange(100) / 60.0
    with pytest.raises(InputError, match="Nyquist"):
        lowpass(marker_frame(t, {"A": smooth_path(t)}, 60.0), cutoff_hz=cutoff)


def test_bad_order_rejected():
    t = np.arange(100) / 60.0
    with pytest.raises(InputError, match="even"):
        lowpass(marker_frame(t, {"A": smooth_path(t)}, 60.0), order=3)


def test_uneven_time_rejected():
    t = np.arange(100) / 60.0
    t[50:] += 0.05            # three frames dropped
    df = marker_frame(t, {"A": smooth_path(t)}, 60.0)
    with pytest.raises(InputError, match="uniform"):
        lowpass(df)


# --------------------------------------------------------------------------- the chain
def test_condition_report():
    rate = 100.0
    t = np.arange(300) / rate
    rng = np.random.default_rng(2)
    a = smooth_path(t) + rng.normal(0, 0.001, (300, 3))
    b = smooth_path(t + 0.5) + rng.normal(0, 0.001, (300, 3))
    a[50:55] = np.nan
    b[100:160] = np.nan
    b[290:] = np.nan
    out, rep = condition(marker_frame(t, {"A": a, "B": b}, rate), max_gap=0.1, cutoff_hz=8.0)
    assert np.isfinite(_xyz(out, "A")).all()
    assert np.isnan(_xyz(out, "B")[100:160]).all() and np.isnan(_xyz(out, "B")[290:]).all()
    text = "\n".join(rep.lines())
    assert "filled A frames 50-54" in text and "by spline" in text
    assert "still missing B: frames 100-159, 290-299" in text
    assert "-3 dB at 8 Hz" in text
    d = json.loads(json.dumps(rep.to_dict(), default=float))
    assert len(d["gaps"]) == 3 and len(d["remaining"]) == 2 and d["filter"]["cutoff_hz"] == 8.0
    assert out.attrs["conditioning"] and out.attrs["rate_hz"] == rate


def test_condition_without_filter():
    t = np.arange(50) / 50.0
    x = smooth_path(t)
    out, rep = condition(marker_frame(t, {"A": x}, 50.0), cutoff_hz=None)
    assert np.array_equal(_xyz(out, "A"), x) and rep.filter is None
    assert "low-pass: none" in rep.lines()


# --------------------------------------------------------------------------- shared OpenSim trial
def _read_shared_trial():
    return shared_walk()


def test_shared_trial_gap_filling():
    df = _read_shared_trial()
    truth = _xyz(df, "R.Heel").copy()
    foot = ["R.Heel", "R.Midfoot.Sup", "R.Midfoot.Lat", "R.Toe.Tip", "R.Toe.Lat", "R.Toe.Med"]
    holed = df.copy()
    holed.loc[50:54, ["R.Heel_x", "R.Heel_y", "R.Heel_z"]] = np.nan     # 5 frames at 60 Hz
    out, rep = fill_gaps(holed, max_gap=0.1)
    assert rep["method"].tolist() == ["spline"]
    assert np.abs(_xyz(out, "R.Heel")[50:55] - truth[50:55]).max() < 0.01
    holed.loc[40:90, ["R.Heel_x", "R.Heel_y", "R.Heel_z"]] = np.nan     # 0.85 s: only rigid can fill it
    out, rep = fill_gaps(holed, max_gap=0.1, method="rigid", segments={"right_foot": foot})
    assert rep["method"].tolist() == ["rigid"]
    assert np.abs(_xyz(out, "R.Heel")[40:91] - truth[40:91]).max() < 0.02  # foot is not quite rigid
    filtered, frep = lowpass(df, cutoff_hz=6.0)
    assert np.nanmax(np.abs(_xyz(filtered, "R.Heel") - truth)) < 0.02
    assert len(frep.unfiltered) == 0

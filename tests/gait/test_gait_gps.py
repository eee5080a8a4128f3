"""Gait Profile Score (Baker et al. 2009): synthetic curves with known offsets, missing curves, the summary."""

import numpy as np
import pandas as pd
import pytest

from humanbody.gait.gps import GPS_VARIABLES, gait_profile_score, gait_variable_scores, gps_columns
from humanbody.gait.normative import load_normative

PCT = np.linspace(0.0, 100.0, 101)


def _cycles(curves: dict) -> pd.DataFrame:
    """A cycles table (normalize_cycles layout) from {(side, column): mean curve at 0..100 %}."""
    parts = [pd.DataFrame({"side": side, "variable": col, "unit": "deg", "percent": PCT, "mean": y,
                           "sd": 1.0, "n_strides": 3}) for (side, col), y in curves.items()]
    return pd.concat(parts, ignore_index=True)


def _column(variable, side):
    return variable if variable.startswith("pelvis_") else f"{side}_{variable}"


def _offset_table(normative, offsets, shape=None):
    """Curves equal to the normative mean (interpolated to every 1 %) plus a known offset per side and variable.

    The left side's pelvic obliquity and rotation are stored as our columns are: the negated own-sense curve.
    """
    curves = {}
    for side in ("right", "left"):
        for v in GPS_VARIABLES:
            g = normative[normative["variable"] == v]
            y = np.interp(PCT, g["percent"], g["mean"]) + offsets[(side, v)]
            if shape is not None:
                y = y + shape(PCT)
            sign = -1.0 if side == "left" and v in ("pelvis_obliquity_deg", "pelvis_rotation_deg") else 1.0
            curves[(side, _column(v, side))] = sign * y
    return _cycles(curves)


def test_known_offsets_give_exactly_those_scores():
    normative = load_normative(":Free").conditions["Free"]
    rng = np.random.default_rng(3)
    offsets = {(s, v): float(rng.uniform(-12, 12)) for s in ("right", "left") for v in GPS_VARIABLES}
    scores = gait_variable_scores(_offset_table(normative, offsets), normative)
    for key, off in offsets.items():
        assert scores[key] == pytest.approx(abs(off), abs=1e-9), key
    row = gait_profile_score(scores)
    for side in ("right", "left"):
        expect = np.sqrt(np.mean([offsets[(side, v)] ** 2 for v in GPS_VARIABLES]))
        assert row[f"{side}_gait_profile_score_deg"] == pytest.approx(expect, abs=1e-9)
        for v in GPS_VARIABLES:
            assert row[f"{side}_gvs_{v}"] == pytest.approx(abs(offsets[(side, v)]), abs=1e-9)
    assert row["gait_profile_score_deg"] == pytest.approx(np.sqrt(np.mean(np.square(list(offsets.values())))),
                                                          abs=1e-9)
    assert list(row) == gps_columns()


def test_equal_to_normative_scores_zero_and_a_sine_scores_its_rms():
    """GVS is the RMS over the normative percents (0, 2, ..., 100): a sine of amplitude A over them."""
    normative = load_normative(":Free").conditions["Free"]
    zero = {(s, v): 0.0 for s in ("right", "left") for v in GPS_VARIABLES}
    assert all(x == pytest.approx(0.0, abs=1e-12) for x in
               gait_variable_scores(_offset_table(normative, zero), normative).values())
    amp = 4.0
    scores = gait_variable_scores(_offset_table(normative, zero, lambda p: amp * np.sin(2 * np.pi * p / 100)),
                                  normative)
    t = np.arange(0, 101, 2)
    expect = np.sqrt(np.mean((amp * np.sin(2 * np.pi * t / 100)) ** 2))  # 51 samples, both ends included
    for v in scores.values():
        assert v == pytest.approx(expect, abs=1e-9)


def test_missing_curve_is_nan_and_the_scores_that_need_it():
    normative = load_normative(":Free").conditions["Free"]
    offsets = {(s, v): 1.0 for s in ("right", "left") for v in GPS_VARIABLES}
    cyc = _offset_table(normative, offsets)
    cyc = cyc[cyc["variable"] != "left_foot_progression_deg"]
    row = gait_profile_score(gait_variable_scores(cyc, normative))
    assert np.isnan(row["left_gvs_foot_progression_deg"]) and np.isnan(row["left_gait_profile_score_deg"])
    assert np.isnan(row["gait_profile_score_deg"])
    assert row["right_gait_profile_score_deg"] == pytest.approx(1.0)

"""Spatiotemporal parameters against the synthetic walk's known values."""

import numpy as np
import pytest

from humanbody.gait import belt_speed, flatten, force_events, kinematic_events, spatiotemporal, strides
from humanbody.gait.synthetic import walking_forces, walking_markers
from humanbody.io.forceplates import vertical_forces

T, STANCE, LENGTH, WIDTH = 1.1, 0.62, 1.3, 0.16


@pytest.mark.parametrize("treadmill", [False, True])
def test_parameters_from_true_events(treadmill):
    """Force events are shifted symmetrically; the marker-based values are exact."""
    m = walking_markers(stride_time=T, stance=STANCE, stride_length=LENGTH, step_width=WIDTH, treadmill=treadmill)
    ev = kinematic_events(m)
    p = spatiotemporal(ev, m)
    assert p.attrs["treadmill"] is treadmill
    assert list(p.index) == ["right", "left", "overall"]
    o = p.loc["overall"]
    assert o["n_strides"] == 5
    assert o["stride_time_s"] == pytest.approx(T, abs=1e-3)
    assert o["step_time_s"] == pytest.approx(T / 2, abs=2e-3)
    assert o["cadence_steps_per_min"] == pytest.approx(120 / T, rel=1e-3)
    # kinematic offs are found within a frame of the truth
    assert o["stance_pct"] == pytest.approx(100 * STANCE, abs=1.5)
    assert o["stance_pct"] + o["swing_pct"] == pytest.approx(100)
    assert o["double_support_pct"] == pytest.approx(200 * (STANCE - 0.5), abs=3)
    assert o["stride_length_m"] == pytest.approx(LENGTH, rel=0.01)
    assert o["step_length_m"] == pytest.approx(LENGTH / 2, rel=0.01)
    assert o["step_width_m"] == pytest.approx(WIDTH, abs=1e-9)
    assert o["speed_m_per_s"] == pytest.approx(LENGTH / T, rel=0.01)


def test_temporal_phases_exact_with_exact_events():
    m = walking_markers()
    truth = m.attrs["truth"]
    import pandas as pd
    rows = [(t, side, ev, "force") for side in truth for ev in truth[side] for t in truth[side][ev]]
    ev = pd.DataFrame(rows, columns=["time", "side", "event", "source"]).sort_values("time")
    table = strides(ev)
    np.testing.assert_allclose(table["stride_time_s"], T)
    np.testing.assert_allclose(table["stance_pct"], 100 * STANCE)
    np.testing.assert_allclose(table["double_support_pct"], 200 * (STANCE - 0.5))
    np.testing.assert_allclose(table["step_time_s"].dropna(), T / 2)


def test_belt_speed_and_given_treadmill_speed():
    m = walking_markers(treadmill=True)
    ev = kinematic_events(m)
    assert belt_speed(m, ev) == pytest.approx(LENGTH / T, rel=1e-6)
    p = spatiotemporal(ev, m, treadmill_speed=1.0)
    assert p.loc["overall", "speed_m_per_s"] == pytest.approx(1.0)
    assert p.loc["overall", "stride_length_m"] == pytest.approx(1.0 * T, rel=1e-3)


def test_temporal_only_without_markers_and_flatten():
    m = walking_markers()
    ev = force_events(*vertical_forces(walking_forces(m))[:2], frame_times=m["time"].to_numpy())
    p = spatiotemporal(ev)
    assert p.loc["overall", "stride_time_s"] == pytest.approx(T, abs=1e-3)
    assert np.isnan(p.loc["overall", "stride_length_m"])
    row = flatten(spatiotemporal(ev, treadmill_speed=1.2))
    assert row["stride_length_m"] == pytest.approx(1.2 * T, rel=1e-3)
    assert row["right_n_strides"] == 3 and row["left_n_strides"] == 2
    assert row["treadmill"] is True


def test_no_complete_stride():
    m = walking_markers(duration=0.9)
    p = spatiotemporal(kinematic_events(m), m)
    assert p.loc["overall", "n_strides"] == 0
    assert np.isnan(p.loc["overall", "cadence_steps_per_min"])
    assert "no complete stride" in p.attrs["note"]

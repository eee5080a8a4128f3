"""Stride normalisation: known curves, known spread, units, missing samples."""

import numpy as np
import pandas as pd

from humanbody.gait import default_variables, normalize_cycles, stride_curves, unit_of


def _events(strikes_r, strikes_l):
    rows = [(t, "right", "foot_strike", "force") for t in strikes_r]
    rows += [(t, "left", "foot_strike", "force") for t in strikes_l]
    return pd.DataFrame(rows, columns=["time", "side", "event", "source"])


def test_sine_normalises_to_percent():
    T, t0 = 1.1, 0.23
    t = np.arange(0, 5, 0.01)
    strikes = t0 + T * np.arange(4)
    y = np.sin(2 * np.pi * (t - t0) / T)
    curves = stride_curves(t, y, strikes)
    assert curves.shape == (3, 101, 1)
    p = np.linspace(0, 1, 101)
    np.testing.assert_allclose(curves[:, :, 0], np.tile(np.sin(2 * np.pi * p), (3, 1)), atol=2e-3)


def test_mean_and_sd_over_strides():
    """Stride k scaled by (1 + 0.1 k): mean and sample SD at each percent are known."""
    T, t0 = 1.0, 0.1
    t = np.arange(0, 5.5, 0.005)
    strikes = t0 + T * np.arange(5)
    k = np.floor((t - t0) / T)
    scale = 1 + 0.1 * k
    table = pd.DataFrame({"time": t, "right_lower_leg_beta": scale * (t - t0 - k * T)})  # ramp 0 -> 1 per stride
    out = normalize_cycles(table, _events(strikes, []))
    assert list(out.columns) == ["side", "variable", "unit", "percent", "mean", "sd", "n_strides"]
    assert set(out["side"]) == {"right"} and len(out) == 101
    scales = 1 + 0.1 * np.arange(4)
    frac = out["percent"].to_numpy() / 100
    # the ramp jumps back at the stride end: compare away from 100 %
    sel = frac < 0.99
    np.testing.assert_allclose(out["mean"][sel], scales.mean() * frac[sel], atol=1e-9)
    np.testing.assert_allclose(out["sd"][sel], scales.std(ddof=1) * frac[sel], atol=1e-9)
    assert (out["n_strides"] == 4).all()
    assert (out["unit"] == "rad").all()


def test_stride_with_gap_is_left_out():
    t = np.arange(0, 4, 0.01)
    y = np.cos(t)
    y[150] = np.nan  # inside the second stride
    table = pd.DataFrame({"time": t, "body_com_x": y, "body_com_vel_x": -np.sin(t)})
    out = normalize_cycles(table, _events([0.2, 1.2, 2.2, 3.2], [0.7, 1.7, 2.7]))
    n = out.groupby(["side", "variable"])["n_strides"].first()
    assert n[("right", "body_com_x")] == 2 and n[("right", "body_com_vel_x")] == 3
    assert n[("left", "body_com_x")] == 1  # 0.7-1.7 s holds the gap too


def test_units_and_default_variables():
    cases = {
        "right_foot_alpha": "rad", "right_foot_alpha_x": "rad/s^2", "right_foot_omega_rel_z": "rad/s",
        "right_foot_omega_x": "rad/s", "head_force_z": "N", "head_torque_y": "N m",
        "body_com_vel_x": "m/s", "body_com_acc_z": "m/s^2", "body_com_y": "m", "lower_torso_x": "m",
        "head_inertia_xy": "kg m^2", "head_joint_x": "m", "time": "",
    }
    for col, unit in cases.items():
        assert unit_of(col) == unit, col
    cols = list(cases) + ["right_foot_beta", "right_foot_com_x"]
    assert set(default_variables(cols)) == {
        "right_foot_alpha", "right_foot_beta", "right_foot_omega_rel_z", "head_force_z", "head_torque_y",
        "body_com_vel_x", "body_com_acc_z", "body_com_y",
    }


def test_no_strides_gives_empty_table():
    table = pd.DataFrame({"time": np.arange(0, 1, 0.01), "body_com_x": 0.0})
    out = normalize_cycles(table, _events([0.5], []))
    assert out.empty and list(out.columns)[0] == "side"


def test_stride_table_holds_the_curves_behind_the_cycle_means():
    from humanbody.gait.cycles import clinical_variables, stride_table

    t = np.arange(0, 4, 0.01)
    table = pd.DataFrame({"time": t, "right_knee_flexion_deg": 30 + 20 * np.sin(2 * np.pi * t),
                          "left_hip_flexion_moment_Nm_per_kg": np.cos(3 * t), "body_com_x": t,
                          "right_knee_power_W_per_kg": t * t})
    table.loc[150, "right_knee_flexion_deg"] = np.nan
    events = _events([0.2, 1.2, 2.2, 3.2], [0.7, 1.7, 2.7])
    assert clinical_variables(table.columns) == ["right_knee_flexion_deg", "left_hip_flexion_moment_Nm_per_kg",
                                                 "right_knee_power_W_per_kg"]
    strides = stride_table(table, events)
    assert list(strides.columns[:3]) == ["side", "stride", "percent"] and "body_com_x" not in strides
    assert len(strides) == (3 + 2) * 101
    cycles = normalize_cycles(table, events, variables=clinical_variables(table.columns))
    for (side, var), part in cycles.groupby(["side", "variable"]):
        curves = strides[strides.side == side][var].to_numpy().reshape(-1, 101)
        ok = np.isfinite(curves).all(axis=1)
        assert ok.sum() == part["n_strides"].iloc[0]
        np.testing.assert_allclose(curves[ok].mean(axis=0), part["mean"], rtol=1e-12)

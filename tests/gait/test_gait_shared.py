"""Gait on the shared OpenSim treadmill walk (subject01_walk1): events against the force plates.

Independent references: the force-plate events of subject01_walk1_grf.mot
(read here with a plain parser), the heel's raw mid-stance velocity, and the
period of the raw heel trajectory.
"""


import itertools

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

from humanbody.gait import events_of, force_events, kinematic_events, spatiotemporal
from humanbody.io.forceplates import vertical_forces

DATA = WALK
TRC = DATA / "subject01_walk1.trc"
GRF = DATA / "subject01_walk1_grf.mot"
pytestmark = needs_shared


def _read_grf(path):
    lines = path.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader") + 1
    df = pd.read_csv(path, sep=r"\s+", skiprows=start)
    df.attrs.update(kind="forces", source=str(path))
    return df


@pytest.fixture(scope="module")
def trial():
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground
    from humanbody.markers.conditioning import condition

    raw = read_trial(TRC)
    ground, _ = to_ground(raw, axes="auto")
    markers, _ = condition(ground, cutoff_hz=6.0)
    forces = _read_grf(GRF)
    t = markers["time"].to_numpy()
    return raw, markers, kinematic_events(markers), force_events(*vertical_forces(forces)[:2], frame_times=t)


def test_kinematic_events_within_frames_of_force_plates(trial):
    raw, markers, kin, frc = trial
    dt = 1.0 / raw.attrs["rate_hz"]
    for side in ("right", "left"):
        for event in ("foot_strike", "foot_off"):
            k, f = events_of(kin, side, event), events_of(frc, side, event)
            assert len(k) >= 1
            # every kinematic event has a force event within 3 frames (Zeni et al. report ~1-2)
            for tk in k:
                assert np.min(np.abs(f - tk)) <= 3 * dt, (side, event, tk, f)
            # and every force event not at the trial's edges has a kinematic one
            inner = f[(f > 0.1) & (f < markers["time"].iloc[-1] - 0.1)]
            for tf in inner:
                assert np.min(np.abs(k - tf)) <= 3 * dt, (side, event, tf, k)


def test_stride_time_cadence_and_belt_speed(trial):
    raw, markers, kin, frc = trial
    p = spatiotemporal(kin, markers)
    assert p.attrs["treadmill"]
    stride = p.loc["overall", "stride_time_s"]
    assert stride == pytest.approx(1.2, abs=0.06)
    assert spatiotemporal(frc, markers).loc["overall", "stride_time_s"] == pytest.approx(stride, abs=0.02)

    # cadence against the period of the raw right heel's fore-aft motion (autocorrelation peak)
    t = raw["time"].to_numpy()
    x = raw["R.Heel_x"].to_numpy() - raw["V.Sacral_x"].to_numpy()
    x = x - x.mean()
    ac = np.correlate(x, x, mode="full")[len(x) - 1:]
    lag_min = int(0.6 / (t[1] - t[0]))
    period = (lag_min + np.argmax(ac[lag_min:])) * (t[1] - t[0])
    assert p.loc["overall", "cadence_steps_per_min"] == pytest.approx(120.0 / period, rel=0.04)

    # belt speed against the raw heel's backward velocity in mid-stance (force-plate stances)
    v = -np.gradient(raw["R.Heel_x"].to_numpy(), t)  # lab x is forward in this file
    v_left = -np.gradient(raw["L.Heel_x"].to_numpy(), t)
    samples = []
    for side, vel in (("right", v), ("left", v_left)):
        strikes, offs = events_of(frc, side, "foot_strike"), events_of(frc, side, "foot_off")
        for a in strikes:
            later = offs[offs > a]
            if len(later):
                b = later[0]
                sel = (t > a + (b - a) / 3) & (t < a + 2 * (b - a) / 3)
                samples.append(np.median(vel[sel]))
    reference = float(np.mean(samples))
    assert p.attrs["belt_speed_m_per_s"] == pytest.approx(reference, abs=0.1)
    assert p.loc["overall", "speed_m_per_s"] == pytest.approx(reference, abs=0.1)
    assert p.loc["overall", "stride_length_m"] == pytest.approx(reference * stride, abs=0.15)


def test_force_events_alternate(trial):
    _, _, _, frc = trial
    for side in ("right", "left"):
        ev = frc[frc["side"] == side]["event"].tolist()
        assert all(a != b for a, b in itertools.pairwise(ev))  # strike, off, strike, ...

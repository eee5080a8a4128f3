"""Which events cut the strides: force strikes on plates strides apart (a walkway's plates 1 and 3, the strike
between them off the plates) do not cut strides (humanbody.gait.selection._skipped_strikes)."""

import numpy as np
import pandas as pd

from humanbody.gait import force_events, kinematic_events
from humanbody.gait.selection import EVENT_LAG, _skipped_strikes
from humanbody.gait.synthetic import walking_markers


def _plates(markers, keep: dict, rate_hz: float = 1000.0) -> pd.DataFrame:
    """Force events of the stances ``keep[side]`` (indices among the stances wholly inside the trial) only: the
    feet on plates in those stances."""
    t = np.arange(markers["time"].iloc[0], markers["time"].iloc[-1], 1.0 / rate_hz)
    vertical = {}
    for side, every in markers.attrs["stances"].items():
        stances = [(a, b) for a, b in every if a > t[0] and b < t[-1]]
        f = np.zeros_like(t)
        for i in keep[side]:
            strike, off = stances[i]
            sel = (t >= strike) & (t <= off)
            f[sel] = 700.0 * np.sin(np.pi * (t[sel] - strike) / (off - strike))
        vertical[side] = f
    return force_events(t, vertical, frame_times=markers["time"].to_numpy())


def test_plates_strides_apart_skip_the_strike_between_them():
    m = walking_markers(duration=6.0)
    kin = kinematic_events(m)
    apart = _plates(m, {"right": [0, 2], "left": [1, 3]})  # plates 1 and 3 of each foot's path
    assert _skipped_strikes(apart, kin, "right") == 1
    assert _skipped_strikes(apart, kin, "left") == 1
    every = _plates(m, {"right": [0, 1, 2], "left": [1, 2, 3]})  # a treadmill's or consecutive plates
    assert _skipped_strikes(every, kin, "right") == 0
    assert _skipped_strikes(every, kin, "left") == 0


def test_a_stray_kinematic_strike_inside_one_stride_is_not_a_skipped_strike():
    m = walking_markers(duration=6.0)
    kin = kinematic_events(m)
    every = _plates(m, {"right": [0, 1], "left": [0, 1]})
    strikes = every[(every["side"] == "right") & (every["event"] == "foot_strike")]["time"].to_numpy()
    stray = pd.DataFrame({"time": [strikes.mean()], "frame": [0], "side": ["right"], "event": ["foot_strike"],
                          "source": ["kinematic"]})
    assert strikes[1] - strikes[0] > 2 * EVENT_LAG
    assert _skipped_strikes(every, pd.concat([kin, stray], ignore_index=True), "right") == 0

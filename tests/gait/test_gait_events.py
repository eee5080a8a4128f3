"""Gait events on a synthetic walk with exact events, and input checks."""

import numpy as np
import pandas as pd
import pytest

from humanbody.errors import InputError
from humanbody.gait import events_of, foot_markers, force_events, kinematic_events, progression_axes
from humanbody.gait.synthetic import walking_forces, walking_markers
from humanbody.io.forceplates import vertical_forces

FRAME = 0.01  # s at 100 Hz


def _match(found, true, tol):
    """Every true event inside the detectable range has one found event within tol."""
    assert len(found) == len(true), (found, true)
    assert np.max(np.abs(np.asarray(found) - np.asarray(true))) <= tol


@pytest.mark.parametrize("treadmill", [False, True])
@pytest.mark.parametrize("method", ["coordinate", "velocity"])
def test_zeni_events_match_truth(treadmill, method):
    m = walking_markers(treadmill=treadmill)
    ev = kinematic_events(m, method=method)
    assert list(ev.columns) == ["time", "frame", "side", "event", "source"]
    assert set(ev["source"]) == {"kinematic"}
    for side in ("right", "left"):
        for event in ("foot_strike", "foot_off"):
            _match(events_of(ev, side, event), m.attrs["truth"][side][event], FRAME)
    # frame is the nearest frame of the time
    assert np.all(np.abs(m["time"].to_numpy()[ev["frame"]] - ev["time"]) <= FRAME / 2 + 1e-12)
    assert ev["time"].is_monotonic_increasing


def test_events_do_not_depend_on_heading():
    """Walking along -X with the lab rotated: same event times."""
    m = walking_markers()
    r = m.copy()
    for c in m.columns:
        if c.endswith("_x"):
            r[c] = -m[c]
        elif c.endswith("_y"):
            r[c] = -m[c]
    r.attrs = dict(m.attrs)
    a, b = kinematic_events(m), kinematic_events(r)
    fwd, left = progression_axes(r)
    np.testing.assert_allclose(fwd, [-1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(left, [0, -1, 0], atol=1e-12)
    pd.testing.assert_frame_equal(a[["time", "side", "event"]], b[["time", "side", "event"]])


def test_plug_in_gait_names_and_explicit_mapping():
    names = ("RHEE", "RTOE", "LHEE", "LTOE", "SACR", "RASI", "LASI")
    m = walking_markers(names=names)
    assert foot_markers(m) == {"right": ("RHEE", "RTOE"), "left": ("LHEE", "LTOE")}
    ev = kinematic_events(m, feet={"right": ("RHEE", "RTOE")}, pelvis=["SACR"])
    _match(events_of(ev, "right", "foot_strike"), m.attrs["truth"]["right"]["foot_strike"], FRAME)


def test_foot_and_pelvis_markers_read_from_other_labs_names():
    """Names outside the fixed pairs are read as landmarks: BTS's ``r mall``/``r met`` (a malleolus for the heel
    where the walk has none), Qualisys's ``R_HEEL``/``R_MT_1``, ``sacrum``/``r asis`` for the pelvis; a repeated
    label told apart (``r met_2``) and a wand are not taken; the events are the fixed names' events."""
    bts = walking_markers(names=("r mall", "r met", "l mall", "l met", "sacrum", "r asis", "l asis"))
    assert foot_markers(bts) == {"right": ("r mall", "r met"), "left": ("l mall", "l met")}
    ev = kinematic_events(bts)
    _match(events_of(ev, "right", "foot_strike"), bts.attrs["truth"]["right"]["foot_strike"], FRAME)
    _match(events_of(ev, "left", "foot_off"), bts.attrs["truth"]["left"]["foot_off"], FRAME)
    qualisys = walking_markers(names=("R_HEEL", "R_MT_1", "L_HEEL", "L_MT_1", "SACRUM", "R_ASIS", "L_ASIS"))
    assert foot_markers(qualisys) == {"right": ("R_HEEL", "R_MT_1"), "left": ("L_HEEL", "L_MT_1")}
    twice = bts.copy()
    for a in "xyz":  # "r met_2" alone reads as a second-metatarsal (toe) marker: the first "r met" is taken
        twice[f"r met_2_{a}"] = twice[f"r met_{a}"] + 0.5
    assert foot_markers(twice)["right"] == ("r mall", "r met")
    wand = bts.drop(columns=[f"r met_{a}" for a in "xyz"])
    for a in "xyz":
        wand[f"R.Toe.Wand_{a}"] = bts[f"r met_{a}"] + 0.1
    with pytest.raises(InputError, match="right heel and toe"):
        foot_markers(wand)


def test_missing_markers_is_input_error():
    m = walking_markers().drop(columns=["R.Heel_x", "R.Heel_y", "R.Heel_z"])
    with pytest.raises(InputError, match="right heel and toe"):
        kinematic_events(m)
    m = walking_markers(names=("R.Heel", "R.Toe.Tip", "L.Heel", "L.Toe.Tip", "A", "B", "C"))
    with pytest.raises(InputError, match="pelvis"):
        kinematic_events(m)
    with pytest.raises(InputError, match="method"):
        kinematic_events(walking_markers(), method="magic")


def test_force_events_threshold_crossings():
    """Half-sine stance forces: the threshold is crossed asin(F0/W)/pi of a stance after strike."""
    m = walking_markers()
    f = walking_forces(m, weight=700.0)
    t, vertical, columns = vertical_forces(f)
    assert columns == {"right": "ground_force_vy", "left": "1_ground_force_vy"}
    ev = force_events(t, vertical, threshold=20.0, frame_times=m["time"].to_numpy())
    assert set(ev["source"]) == {"force"}
    stance = 0.62 * 1.1
    delay = np.arcsin(20.0 / 700.0) / np.pi * stance
    for side in ("right", "left"):
        truth = m.attrs["truth"][side]
        strikes = events_of(ev, side, "foot_strike")
        offs = events_of(ev, side, "foot_off")
        _match(strikes, truth["foot_strike"] + delay, 2e-3)
        _match(offs, truth["foot_off"] - delay, 2e-3)
    # frames are marker frames (100 Hz), not force samples
    assert ev["frame"].max() < len(m)


def test_force_events_sign_and_noise():
    m = walking_markers()
    f = walking_forces(m)
    flipped = f.copy()
    for c in f.columns[1:]:
        flipped[c] = -f[c]
    a = force_events(*vertical_forces(f)[:2])
    b = force_events(*vertical_forces(flipped)[:2])
    pd.testing.assert_frame_equal(a, b)
    # a 10 ms spike above threshold in swing is not a contact
    noisy = f.copy()
    t = f["time"].to_numpy()
    noisy.loc[(t > 1.10) & (t < 1.11), "ground_force_vy"] = 100.0
    assert len(force_events(*vertical_forces(noisy)[:2])) == len(a)


def test_force_events_missing_column():
    f = walking_forces(walking_markers()).drop(columns=["1_ground_force_vy"])
    with pytest.raises(InputError, match="left foot"):
        vertical_forces(f, vertical="y")
    t = np.arange(5.0)
    with pytest.raises(InputError, match="right foot"):
        force_events(t, {"right": np.ones(4)})

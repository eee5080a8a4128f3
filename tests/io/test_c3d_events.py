"""Gait events of a C3D file's EVENT group: read into an events table, Trial.events and Analysis.events."""

from __future__ import annotations

import numpy as np
import pytest
from _io_samples import positions, write_c3d

from humanbody.gait import EVENT_COLUMNS
from humanbody.io import read_trial
from humanbody.io.c3d_events import decode_event, event_code, event_name, event_side, events_table, parse_events

ezc3d = pytest.importorskip("ezc3d")
NAMES = ["LASI", "RASI", "LHEE"]
RATE = 100.0


def _with_events(path, first_frame=1, frames=50, **params):
    """A C3D of ``frames`` frames at 100 Hz whose EVENT group holds ``params`` (name -> value) as given."""
    write_c3d(path, positions(frames, 3), NAMES, rate=RATE, first_frame=first_frame)
    c = ezc3d.c3d(str(path))
    for name, value in params.items():
        c.add_parameter("EVENT", name, value)
    c.write(str(path))
    return path


def _events(df):
    return events_table(df.attrs.get("events"))


def test_round_trip_through_our_writer(tmp_path):
    """Events written by the C3D writer (--export c3d) come back with their times, sides and frames."""
    from humanbody.io.c3d_writer import write_c3d as write_ours

    xyz = positions(120, 3)
    t_right = [0.134, 0.61]
    written = [("Foot Strike", "Right", t_right[0]), ("Foot Off", "Left", 0.305), ("Foot Strike", "Right", t_right[1]),
               ("Foot Off", "Right", 0.9)]
    path = write_ours(tmp_path / "t.c3d", frames=120, rate_hz=RATE, markers=(NAMES, xyz), unit="mm",
                      first_frame=11, events=written)
    df = read_trial(path)
    ev = _events(df)
    assert list(ev.columns) == EVENT_COLUMNS
    t0 = 10 / RATE  # frame 11 of the capture: 0.1 s
    assert df["time"].iloc[0] == pytest.approx(t0)
    np.testing.assert_allclose(ev["time"], sorted(t for _, _, t in written), atol=1e-6)  # float32 in the file
    assert list(ev["side"]) == ["right", "left", "right", "right"]
    assert list(ev["event"]) == ["foot_strike", "foot_off", "foot_strike", "foot_off"]
    assert set(ev["source"]) == {"file"}
    # the nearest frame, 0-based from the trial's first: round((t - t0) * rate)
    assert list(ev["frame"]) == [3, 21, 51, 80]
    assert "event_notes" not in df.attrs


def test_nexus_labels_contexts_and_minutes(tmp_path):
    """Nexus/QTM spellings, minutes + seconds, General events and unknown labels counted in a note."""
    labels = ["Foot Strike", "Foot_Off", "FootStrike", "Event", "Foot Off", "foot strike"]
    contexts = ["Left", "Right", "Left", "General", "General", " right "]
    minutes = [0, 0, 1, 0, 0, 1]
    seconds = [0.1, 0.2, -59.7, 0.25, 0.3, -59.65]  # 1 min - 59.7 s = 0.3 s
    path = _with_events(tmp_path / "n.c3d", USED=len(labels), LABELS=labels, CONTEXTS=contexts,
                        TIMES=np.array([minutes, seconds], dtype=float))
    df = read_trial(path)
    ev = _events(df)
    assert list(zip(ev["side"], ev["event"], strict=True)) == [("left", "foot_strike"), ("right", "foot_off"),
                                                   ("left", "foot_strike"), ("right", "foot_strike")]
    np.testing.assert_allclose(ev["time"], [0.1, 0.2, 0.3, 0.35], atol=1e-5)
    np.testing.assert_array_equal(ev["frame"], [10, 20, 30, 35])
    (note,) = df.attrs["event_notes"]
    assert "2 event(s) other than" in note and "Event/General x1" in note and "Foot Off/General x1" in note


def test_label_and_context_names():
    for label in ("Foot Strike", "Foot_Strike", "FootStrike", "foot strike", "Heel Strike", "Initial Contact"):
        assert event_name(label) == "foot_strike"
    for label in ("Foot Off", "Foot_Off", "FootOff", "Toe Off"):
        assert event_name(label) == "foot_off"
    assert event_name("Event") is None and event_name("") is None
    assert event_side("Right") == "right" and event_side("L") == "left"
    assert event_side("General") is None and event_side("") is None


def test_event_codes():
    """A side then an event: Motion Analysis's and Qualisys's codes, and a whole label with its side."""
    for code, want in (("RHS", ("foot_strike", "right")), ("LTO", ("foot_off", "left")),
                       ("L_FS", ("foot_strike", "left")), ("R-FO", ("foot_off", "right")),
                       ("RIC", ("foot_strike", "right")), ("Left Foot Off", ("foot_off", "left")),
                       ("Right Heel Strike", ("foot_strike", "right"))):
        assert event_code(code) == want, code
    for other in ("", "Event", "Left-FP", "General", "RFP1", "HS", "Right"):
        assert event_code(other) == (None, None), other
    assert decode_event("Foot Strike", "Right") == ("foot_strike", "right")
    assert decode_event("", "RHS") == ("foot_strike", "right")  # Cortex: the code in CONTEXTS, no label
    assert decode_event("LTO", "") == ("foot_off", "left")  # Qualisys: the code in LABELS, no context
    assert decode_event("LTO", "General") == ("foot_off", "left")
    assert decode_event("RHS", "Left") == (None, None)  # a code whose side the context contradicts
    assert decode_event("Foot Off", "RHS") == (None, None)  # a code whose event the label contradicts


def test_codes_in_contexts_as_motion_analysis_writes_them(tmp_path):
    """Cortex: LABELS empty, CONTEXTS "LHS", "RTO", ... (its EVENT_CONTEXT group lists them)."""
    path = _with_events(tmp_path / "m.c3d", USED=4, LABELS=["", "", "", ""], CONTEXTS=["LHS", "RTO", "RHS", "LTO"],
                        TIMES=np.array([[0, 0, 0, 0], [0.1, 0.15, 0.3, 0.35]]))
    ev = _events(read_trial(path))
    assert list(zip(ev["side"], ev["event"], strict=True)) == [("left", "foot_strike"), ("right", "foot_off"),
                                                               ("right", "foot_strike"), ("left", "foot_off")]
    np.testing.assert_array_equal(ev["frame"], [10, 15, 30, 35])


def test_codes_in_labels_without_contexts_as_qualisys_writes_them(tmp_path):
    """Qualisys: LABELS "LHS", "RTO", ... and no CONTEXTS parameter at all."""
    path = _with_events(tmp_path / "q.c3d", USED=3, LABELS=["LHS", "RTO", "Event"],
                        TIMES=np.array([[0, 0, 0], [0.1, 0.2, 0.3]]))
    df = read_trial(path)
    ev = _events(df)
    assert list(zip(ev["side"], ev["event"], strict=True)) == [("left", "foot_strike"), ("right", "foot_off")]
    (note,) = df.attrs["event_notes"]
    assert "Event/(no context) x1" in note


@pytest.mark.parametrize("folder,name,n", [("c3d_org", "sample_00_Motion_Analysis_Corporation_Walk1", 8),
                                           (".", "Qualisys", 7)])
def test_shared_files_events_as_codes(folder, name, n):
    """The shared Walk1 (codes in CONTEXTS) and Qualisys.c3d (codes in LABELS): every event read, strikes and offs
    alternating on each side, and each side's stance 55-68 % of its stride."""
    from _shared import SHARED_DATA

    path = SHARED_DATA / "real" / "c3d" / folder / f"{name}.c3d"
    if not path.is_file():
        pytest.skip(f"needs the shared C3D files ({path.name})")
    df = read_trial(path)
    ev = _events(df)
    assert len(ev) == n and "event_notes" not in df.attrs
    for side in ("right", "left"):
        own = ev[ev["side"] == side]
        kinds = list(own["event"])
        assert all(a != b for a, b in zip(kinds, kinds[1:], strict=False))
        strikes = own.loc[own["event"] == "foot_strike", "time"].to_numpy()
        offs = own.loc[own["event"] == "foot_off", "time"].to_numpy()
        stances = [(offs[(offs > a) & (offs < b)][0] - a) / (b - a)
                   for a, b in zip(strikes, strikes[1:], strict=False) if ((offs > a) & (offs < b)).any()]
        assert stances and all(0.55 <= s <= 0.68 for s in stances), (side, stances)


def test_events_outside_the_trial_dropped(tmp_path):
    """A trial cropped in the capture program: frames 11-60 (0.10-0.59 s); events before and after it go."""
    path = _with_events(tmp_path / "o.c3d", first_frame=11, USED=4,
                        LABELS=["Foot Strike", "Foot Strike", "Foot Off", "Foot Strike"],
                        CONTEXTS=["Right", "Right", "Left", "Left"],
                        TIMES=np.array([[0, 0, 0, 0], [0.05, 0.2, 0.59, 0.7]]))
    df = read_trial(path)
    assert df["time"].iloc[0] == pytest.approx(0.1) and df["time"].iloc[-1] == pytest.approx(0.59)
    ev = _events(df)
    np.testing.assert_allclose(ev["time"], [0.2, 0.59], atol=1e-6)
    np.testing.assert_array_equal(ev["frame"], [10, 49])
    (note,) = df.attrs["event_notes"]
    assert "2 event(s) outside the trial's time range" in note


@pytest.mark.parametrize("params, what", [
    (dict(USED=2, LABELS=["Foot Strike", "Foot Off"], CONTEXTS=["Right", "Right"]), "no TIMES"),
    (dict(USED=3, LABELS=["Foot Strike", "Foot Off"], CONTEXTS=["Right", "Right"],
          TIMES=np.array([[0, 0], [0.1, 0.2]])), "disagree"),
    (dict(USED=2, LABELS=["Foot Strike", "Foot Off"], CONTEXTS=["Right"],
          TIMES=np.array([[0, 0], [0.1, 0.2]])), "disagree"),
    (dict(USED=2, LABELS=["Foot Strike", "Foot Off"], CONTEXTS=["Right", "Right"],
          TIMES=np.array([[0, 0], [0.1, np.nan]])), "not finite"),
])
def test_malformed_group_is_a_note_and_the_markers_stay(tmp_path, params, what):
    path = _with_events(tmp_path / "m.c3d", **params)
    df = read_trial(path)
    assert "events" not in df.attrs
    (note,) = df.attrs["event_notes"]
    assert what in note and "EVENT group not read" in note
    assert len(df) == 50 and df.attrs["markers"] == NAMES


def test_parse_events_never_raises_on_odd_values():
    t = np.arange(10) / RATE
    assert parse_events(None, t, RATE) == (None, [])
    assert parse_events({"USED": {"value": [0]}}, t, RATE) == (None, [])
    cols, notes = parse_events({"USED": {"value": [1]}, "TIMES": {"value": [["x"], ["y"]]},
                                "LABELS": {"value": ["Foot Strike"]}, "CONTEXTS": {"value": ["Left"]}}, t, RATE)
    assert cols is None and "not numeric" in notes[0]
    cols, notes = parse_events({"TIMES": {"value": np.zeros((3, 1))}, "LABELS": {"value": ["Foot Strike"]},
                                "CONTEXTS": {"value": ["Left"]}}, t, RATE)
    assert cols is None and "shape" in notes[0]
    # a flat TIMES holds (minutes, seconds) pairs, as the file stores them
    cols, notes = parse_events({"USED": {"value": [2]}, "TIMES": {"value": [0.0, 0.02, 0.0, 0.05]},
                                "LABELS": {"value": ["Foot Strike", "Foot Off"]},
                                "CONTEXTS": {"value": ["Left", "Left"]}}, t, RATE)
    assert cols["time"] == [0.02, 0.05] and cols["frame"] == [2, 5] and notes == []


def test_trial_and_analysis_carry_the_events(tmp_path):
    """humanbody.trial.load_trial fills Trial.events and says so in its log; a trial without events has None."""
    from humanbody.trial import load_trial

    path = _with_events(tmp_path / "e.c3d", USED=3, LABELS=["Foot Strike", "Foot Off", "Foot Strike"],
                        CONTEXTS=["Right", "Right", "Right"], TIMES=np.array([[0, 0, 0], [0.1, 0.2, 0.4]]))
    trial = load_trial(path, axes="x,y,z")
    assert list(trial.events.columns) == EVENT_COLUMNS and len(trial.events) == 3
    assert any("right 2 foot strikes, 1 foot offs; left 0 foot strikes, 0 foot offs" in line for line in trial.log)
    plain = write_c3d(tmp_path / "p.c3d", positions(50, 3), NAMES, rate=RATE)
    assert load_trial(plain, axes="x,y,z").events is None

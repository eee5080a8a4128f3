"""The report cuts strides at the gait events a C3D file carries (its EVENT group), or as --events says."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.report import ReportOptions

ezc3d = pytest.importorskip("ezc3d")
ROOT = Path(__file__).resolve().parents[2]
WALK = ROOT / "data" / "sample_walk_markers.trc"
STATIC = ROOT / "data" / "sample_static.trc"
#: The file's events: the kinematic ones moved by these amounts (s); stance 0.05 s shorter, swing 0.05 s longer.
SHIFT = {"foot_strike": 0.03, "foot_off": -0.02}


def _report(trial, out, *extra):
    status = main(["report", str(trial), "--static", str(STATIC), "--out", str(out), "--plots", "none",
                   "--jobs", "1", "-q", *extra])
    assert status == 0
    key = Path(trial).stem
    return {"summary": pd.read_csv(out / "summary.csv").iloc[0],
            "events": pd.read_csv(out / key / f"{key}_events.csv"),
            "params": pd.read_csv(out / key / f"{key}_spatiotemporal.csv").set_index("side"),
            "page": (out / key / f"{key}.html").read_text(encoding="utf-8")}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The sample walk as a C3D without events (its report: kinematic events), the same C3D with the kinematic
    events shifted by SHIFT in its EVENT group, reported with --events auto and --events kinematic."""
    from humanbody.io import markers_array, read_trial
    from humanbody.io.c3d_writer import write_c3d

    d = tmp_path_factory.mktemp("file_events")
    df = read_trial(WALK)
    names, xyz = markers_array(df)
    rate = float(df.attrs["rate_hz"])
    plain = d / "plain" / "walk.c3d"
    plain.parent.mkdir()
    write_c3d(plain, frames=len(df), rate_hz=rate, markers=(names, xyz * 1000.0), unit="mm")
    kin = _report(plain, d / "out_plain")
    assert set(kin["events"]["source"]) == {"kinematic"}
    mine = kin["events"]
    labels = {"foot_strike": "Foot Strike", "foot_off": "Foot Off"}
    written = [(labels[e], s.capitalize(), t + SHIFT[e]) for t, s, e in zip(mine["time"], mine["side"], mine["event"], strict=True)]
    walk = d / "file" / "walk.c3d"
    walk.parent.mkdir()
    write_c3d(walk, frames=len(df), rate_hz=rate, markers=(names, xyz * 1000.0), unit="mm",
              events=written + [("Event", "General", 1.0)])
    return {"kinematic_plain": kin, "mine": mine, "auto": _report(walk, d / "out_auto"),
            "kinematic": _report(walk, d / "out_kin", "--events", "kinematic"), "file": walk, "written": written}


def test_analyze_export_keeps_the_files_events_once(runs, tmp_path):
    """``analyze --export c3d`` of a C3D with its own events writes them once, not followed by detected ones."""
    out = tmp_path / "out"
    assert main(["analyze", str(runs["file"]), "--static", str(STATIC), "--out", str(out), "--export", "c3d",
                 "-q"]) == 0
    ev = ezc3d.c3d(str(out / "walk.c3d"))["parameters"]["EVENT"]
    assert int(ev["USED"]["value"][0]) == len(runs["written"]) + 1  # the file's gait events and its General one
    times = np.asarray(ev["TIMES"]["value"], dtype=float).reshape(2, -1)
    got = sorted(np.round(60.0 * times[0] + times[1], 4))
    want = sorted(np.round([t for _, _, t in runs["written"]] + [1.0], 4))
    np.testing.assert_allclose(got, want, atol=1e-4)


def test_strides_cut_at_the_file_events(runs):
    auto, kin, mine = runs["auto"], runs["kinematic_plain"], runs["mine"]
    assert auto["summary"]["events_source"] == "file"
    file_ev = auto["events"][auto["events"]["source"] == "file"].reset_index(drop=True)
    # the file's events in the events table, as written (float32 in the file)
    np.testing.assert_allclose(file_ev["time"], mine["time"] + mine["event"].map(SHIFT), atol=1e-6)
    assert list(file_ev["side"]) == list(mine["side"]) and list(file_ev["event"]) == list(mine["event"])
    # the kinematic events are still found and listed
    assert (auto["events"]["source"] == "kinematic").sum() == len(mine)
    for side in ("right", "left"):
        a, k = auto["params"].loc[side], kin["params"].loc[side]
        assert a["n_strides"] == k["n_strides"] >= 2
        assert a["stride_time_s"] == pytest.approx(k["stride_time_s"], abs=1e-6)  # every strike moved alike
        # stance from the strike (+0.03 s) to the foot off (-0.02 s): 0.05 s shorter, the swing 0.05 s longer
        assert a["stance_time_s"] == pytest.approx(k["stance_time_s"] - 0.05, abs=1e-5)
        assert a["swing_time_s"] == pytest.approx(k["swing_time_s"] + 0.05, abs=1e-5)
    page = auto["page"]
    # the counts of the events written into the file (the sample walk's kinematic events)
    strikes = int(((mine["side"] == "right") & (mine["event"] == "foot_strike")).sum())
    offs = int(((mine["side"] == "right") & (mine["event"] == "foot_off")).sum())
    assert strikes >= 3 and offs >= 3
    assert f"gait events cutting the strides: right from the file (its EVENT group): {strikes} foot strikes" in page
    assert f"events: the file&#x27;s EVENT group: right {strikes} foot strikes, {offs} foot offs" in page or \
        f"events: the file's EVENT group: right {strikes} foot strikes, {offs} foot offs" in page
    assert "Event/General x1" in page


def test_events_kinematic_ignores_the_file(runs):
    kin, plain = runs["kinematic"], runs["kinematic_plain"]
    assert kin["summary"]["events_source"] == "kinematic"
    pd.testing.assert_frame_equal(kin["params"], plain["params"])
    n = len(runs["mine"])  # the gait events written into the file
    assert f"--events kinematic: the file&#x27;s {n} gait events not used" in kin["page"] or \
        f"--events kinematic: the file's {n} gait events not used" in kin["page"]


def test_side_with_too_few_file_strikes_falls_back():
    """A side with one foot strike in the file keeps the force/kinematic events; --events file says so."""
    from humanbody.gait.selection import _choose_events

    def table(rows, source):
        return pd.DataFrame({"time": [r[0] for r in rows], "frame": [int(r[0] * 100) for r in rows],
                             "side": [r[1] for r in rows], "event": [r[2] for r in rows], "source": source})

    kin = table([(0.1, "right", "foot_strike"), (0.5, "left", "foot_strike"), (1.1, "right", "foot_strike"),
                 (1.5, "left", "foot_strike")], "kinematic")
    own = table([(0.12, "right", "foot_strike"), (1.12, "right", "foot_strike"), (0.52, "left", "foot_strike")],
                "file")
    for source in ("auto", "file"):
        messages: list = []
        events, used = _choose_events(kin, kin, own, source, messages)
        assert len(events) == 7
        assert list(used.loc[used["side"] == "right", "time"]) == [0.12, 1.12]
        assert list(used.loc[used["side"] == "right", "source"]) == ["file", "file"]
        assert list(used.loc[used["side"] == "left", "source"]) == ["kinematic", "kinematic"]
        assert messages[-1].startswith("gait events cutting the strides: right from the file")
        assert "left from the markers (kinematic" in messages[-1]
        fell_back = [m for m in messages if m.startswith("--events file: left side")]
        assert len(fell_back) == (source == "file")
    messages = []
    _, used = _choose_events(kin, kin, own, "force", messages)
    assert set(used["source"]) == {"kinematic"}
    assert "--events force: the file's 3 gait events not used" in messages
    assert "--events force: right side: no force events on it; its strides are cut at the kinematic events" in messages


def test_bad_events_value_is_a_usage_error(tmp_path, capsys):
    with pytest.raises(SystemExit) as exc:
        main(["report", str(WALK), "--out", str(tmp_path / "out"), "--events", "plates"])
    assert exc.value.code == 2
    assert "--events" in capsys.readouterr().err
    with pytest.raises(InputError, match="events must be one of auto, file, force, kinematic"):
        ReportOptions(events="plates")


def test_events_option_is_in_the_cache_key():
    from types import SimpleNamespace

    from humanbody.report import cache

    task = SimpleNamespace(trial=str(WALK), static=None, grf=None, mass=None, height=None, treadmill_speed=None)
    hashes = {e: cache.trial_hash(task, ReportOptions(events=e).as_dict()) for e in ("auto", "file", "kinematic")}
    assert len(set(hashes.values())) == 3


def test_file_events_drawn_as_squares():
    from humanbody.report import svg

    series = [("right heel", "#c00", False, np.array([0.0, 1.0]), np.array([0.0, 0.5]))]
    marks = [(0.2, 0.1, "#c00", True, "file"), (0.4, 0.2, "#c00", False, "kinematic"), (0.6, 0.3, "#c00", True, "force")]
    text = svg.events_svg(series, marks, "t")
    assert text.count('width="7" height="7"') == 1 and text.count("<circle") == 1 and text.count("l-4,7z") == 1

"""``markerset init`` on a walk: drafted from its stillest standing second, or its most upright frame.

Synthetic trials of the sample subject (tests/tools/test_markerset_draft.py): Plug-in Gait names, a
walk that starts with one still second (the standing pose with 0.5 mm of sway), the same walk without
it, and one whose markers each miss a third of the frames (no frame holds most of them).
"""

from __future__ import annotations

import contextlib
import io

import numpy as np

from humanbody.cli import main
from tests.tools.test_markerset_draft import LABS, layout, model, msm, reference, trials  # noqa: F401

RATE = 100.0


def _init(path, out):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["markerset", "init", str(path), "--out", str(out)])
    return status, err.getvalue()


def _walk_file(tmp_path, trials, still_s: float, name: str):  # noqa: F811
    """The Plug-in Gait walk, after ``still_s`` seconds of standing still (TRC, OpenSim axes)."""
    names = LABS["pig"]
    (_, st), (tw, wk) = trials
    n = int(round(still_s * RATE))
    rng = np.random.default_rng(7)
    pts = {}
    for g, lab in names.items():
        stand = st[g][:1] + 0.0005 * np.sin(2 * np.pi * 0.3 * np.arange(n) / RATE)[:, None] + rng.normal(0, 2e-4, (n, 3))
        pts[lab] = np.concatenate([stand, wk[g]]) if n else wk[g]
    t = np.arange(len(next(iter(pts.values())))) / RATE
    path = tmp_path / name
    msm.write_trc(path, t, pts, RATE)
    return path, t


def test_a_walk_that_starts_with_one_still_second(tmp_path, trials, reference):  # noqa: F811
    """Drafted from frames 1-100, said in one line and in the file; the walk then analysed with that set
    alone (no static) gives the sagittal angles back (measured: hips 1.1 / 0.3, knees 0.2 / 0.2 deg RMS
    after the first second)."""
    import pandas as pd

    path, t = _walk_file(tmp_path, trials, 1.0, "still_walk.trc")
    out = tmp_path / "lab.toml"
    status, text = _init(path, out)
    assert status == 0, text
    assert "standing window: frames 1-100 (0.00-0.99 s), the stillest 1 s of the trial" in text, text
    assert "Drafted from a motion trial: standing window: frames 1-100" in out.read_text()
    assert f"humanbody analyze TRIAL --markerset {out}" in text and "--static" not in text.splitlines()[-1]
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        assert main(["analyze", str(path), "--markerset", str(out), "--out", str(tmp_path / "o")]) == 0, err.getvalue()
    res = pd.read_csv(tmp_path / "o" / "still_walk_results.csv").iloc[100:].reset_index(drop=True)
    for seg in ("right_upper_leg", "right_lower_leg", "left_upper_leg", "left_lower_leg"):
        e = np.degrees(res[f"{seg}_alpha"].to_numpy() - reference[f"{seg}_alpha"].to_numpy())
        assert np.sqrt(np.mean(e ** 2)) < 2.0, seg


def test_a_walk_without_a_still_second_is_drafted_from_its_most_upright_frame(tmp_path, trials):  # noqa: F811
    path, _ = _walk_file(tmp_path, trials, 0.0, "walk.trc")
    status, text = _init(path, tmp_path / "lab.toml")
    assert status == 0, text
    line = next(x for x in text.splitlines() if x.startswith("no still standing window"))
    assert "drafted from frame" in line and "the most upright" in line and "check the draft" in line


def test_a_trial_with_no_window_holding_most_markers_is_refused_in_one_line(tmp_path, trials):  # noqa: F811
    names = LABS["pig"]
    (_, _), (tw, wk) = trials
    rng = np.random.default_rng(1)
    pts = {}
    for g, lab in names.items():
        v = wk[g].copy()
        v[rng.random(len(v)) < 0.35] = np.nan
        pts[lab] = v
    msm.write_trc(tmp_path / "holes.trc", tw, pts, RATE)
    status, text = _init(tmp_path / "holes.trc", tmp_path / "lab.toml")
    assert status == 2 and text.count("\n") == 1, text
    assert "holes.trc" in text and "standing" in text, text


def test_the_standing_window_of_a_walk_that_ends_standing():
    """Arrays only: 30 markers walking 1.2 m/s for 2 s, then standing 1.5 s with 1 mm sway: the window is inside
    the standing part; the most upright frame of a walk is where its two 'legs' pass each other."""
    import pandas as pd

    from humanbody.tools.draft_window import standing_window

    rate, rng = 100.0, np.random.default_rng(5)
    t = np.arange(350) / rate
    base = rng.normal(0, 0.2, (30, 3))
    x = np.where(t < 2.0, 1.2 * t, 2.4)
    swing = np.where(t < 2.0, 0.3 * np.sin(2 * np.pi * t), 0.0)
    cols = {"time": t}
    for m in range(30):
        p = base[m] + np.c_[x + (swing if m % 2 else -swing), 0 * t, 0 * t] + 0.001 * np.sin(7 * t + m)[:, None]
        cols.update({f"M{m}_x": p[:, 0], f"M{m}_y": p[:, 1], f"M{m}_z": p[:, 2]})
    trial = pd.DataFrame(cols)
    names = [f"M{m}" for m in range(30)]
    rows, line = standing_window(trial, names)
    assert rows[0] >= 200 and len(rows) == 100 and line.startswith("standing window: frames"), line
    rows, line = standing_window(trial.iloc[:200].reset_index(drop=True), names)
    assert len(rows) == 1 and min(abs(rows[0] - f) for f in (0, 50, 100, 150, 200)) <= 3, (rows, line)  # legs together
    assert line.startswith("no still standing window") and "check the draft" in line


def test_the_sides_of_a_walk_frame_come_from_the_whole_walk(tmp_path, trials):  # noqa: F811
    """In the most upright frame (one leg in mid-stance, the other in mid-swing) the pelvis sits over the stance
    foot, so its heel can lie across the frame's midline; over the whole walk every foot marker is on its named
    side of the pelvis, by at least 3 cm (half a step width)."""
    import humanbody as hb
    from humanbody.lab.axes import to_ground
    from humanbody.tools.draft_window import lateral_offsets

    path, _ = _walk_file(tmp_path, trials, 0.0, "walk.trc")
    ground, _ = to_ground(hb.read_trial(str(path)))
    names = [c[:-2] for c in ground.columns if c.endswith("_x")]
    off = lateral_offsets(ground, names)
    for n in ("HEE", "TOE", "MT5", "ANK", "KNE"):
        assert off[f"R{n}"] < -0.03 and off[f"L{n}"] > 0.03, (n, off[f"R{n}"], off[f"L{n}"])
    assert abs(off["SACR"]) < 0.01
    assert lateral_offsets(ground, [n for n in names if not n.endswith("ASI")]) is None

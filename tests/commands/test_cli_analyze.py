"""`humanbody analyze`: results table from a coordinates trial; bad input -> one line, exit 2."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _motion import random_model, sinusoid_motion

import humanbody as hb
from humanbody.cli import main
from humanbody.mechanics.kinematics import coordinate_columns


@pytest.fixture
def trial(tmp_path):
    rng = np.random.default_rng(5)
    model = random_model(rng)
    model_path = tmp_path / "model.json"
    model.save(model_path)
    df = sinusoid_motion(model, np.linspace(0, 2, 201), rng)
    path = tmp_path / "walk.csv"
    df.to_csv(path, index=False, float_format="%.17g")
    return model, df, path, model_path


def test_analyze_writes_the_conventions_table(trial, tmp_path, capsys):
    model, df, path, model_path = trial
    out = tmp_path / "out"
    assert main(["analyze", str(path), "--model", str(model_path), "--out", str(out)]) == 0
    table = pd.read_csv(out / "walk_results.csv")
    res = hb.compute(model, df)
    from humanbody.mechanics.clinical import clinical_angles

    expected = pd.concat([res.to_dataframe(), clinical_angles(model, df)], axis=1)  # mechanics, then clinical angles
    assert list(table.columns) == list(expected.columns)
    assert "right_knee_flexion_deg" in table.columns
    np.testing.assert_allclose(table.to_numpy(), expected.to_numpy(), rtol=5e-8, atol=1e-300)  # 8 digits
    assert hb.load_model(out / "walk_model.json").names == model.names
    err = capsys.readouterr().err
    assert "rates given in the trial" in err and "wrote results" in err
    assert main(["analyze", str(path), "--model", str(model_path), "--out", str(out), "--digits", "15",
                 "-q"]) == 0
    fine = pd.read_csv(out / "walk_results.csv").to_numpy()
    np.testing.assert_allclose(fine, expected.to_numpy(), rtol=6e-15, atol=1e-300)  # 15 digits + parsing
    assert np.nanmax(np.abs(fine - expected.to_numpy())) < np.nanmax(np.abs(table.to_numpy() - expected.to_numpy()))


@pytest.mark.parametrize("bad", ["0", "16", "x"])
def test_digits_out_of_range_is_a_usage_error(trial, tmp_path, bad, capsys):
    model, df, path, model_path = trial
    with pytest.raises(SystemExit) as exc:
        main(["analyze", str(path), "--out", str(tmp_path / "o"), "--digits", bad])
    assert exc.value.code == 2
    assert "1 to 15" in capsys.readouterr().err


def test_results_file_feeds_back_as_coordinates(trial, tmp_path):
    model, df, path, model_path = trial
    out = tmp_path / "out"
    main(["analyze", str(path), "--model", str(model_path), "--out", str(out), "-q"])
    again = hb.read_trial(out / "walk_results.csv")
    cols = coordinate_columns(model)
    np.testing.assert_allclose(again[cols].to_numpy(), df[cols].to_numpy(), rtol=5e-8, atol=1e-300)  # 8 significant digits


def test_parquet_output(trial, tmp_path):
    pytest.importorskip("pyarrow")
    model, df, path, model_path = trial
    out = tmp_path / "pq"
    assert main(["analyze", str(path), "--model", str(model_path), "--out", str(out), "--format", "parquet", "-q"]) == 0
    table = pd.read_parquet(out / "walk_results.parquet")
    np.testing.assert_array_equal(table["time"].to_numpy(), df["time"].to_numpy())


def _bad_files(tmp_path, df):
    cases = {}
    cases["missing.csv"] = None
    (tmp_path / "empty.csv").write_text("")
    cases["empty.csv"] = "empty"
    (tmp_path / "header_only.csv").write_text(",".join(df.columns) + "\n")
    cases["header_only.csv"] = "no data"
    bad = df.copy().astype({"head_beta": object})
    bad.loc[7, "head_beta"] = "n/a?"
    bad.to_csv(tmp_path / "text.csv", index=False)
    cases["text.csv"] = "head_beta"
    df.drop(columns=["left_foot_gamma"]).to_csv(tmp_path / "nocol.csv", index=False)
    cases["nocol.csv"] = "left_foot_gamma"
    back = df.copy()
    back.loc[10, "time"] = back.loc[3, "time"]
    back.to_csv(tmp_path / "back.csv", index=False)
    cases["back.csv"] = "increasing"
    (tmp_path / "garbage.xyz").write_bytes(b"\x00\x01\x02 not a trial")
    cases["garbage.xyz"] = ""
    return cases


def test_bad_input_one_line_exit_2(trial, tmp_path, capsys):
    model, df, path, model_path = trial
    for name, words in _bad_files(tmp_path, df).items():
        target = tmp_path / name
        status = main(["analyze", str(target), "--model", str(model_path), "--out", str(tmp_path / "o")])
        err = capsys.readouterr().err.strip()
        assert status == 2, (name, err)
        assert len(err.splitlines()) == 1, (name, err)
        assert name in err and "Traceback" not in err, (name, err)
        if words:
            assert words.lower() in err.lower(), (name, err)


def test_bad_model_and_subject_options(trial, tmp_path, capsys):
    model, df, path, model_path = trial
    (tmp_path / "bad.json").write_text("{not json")
    assert main(["analyze", str(path), "--model", str(tmp_path / "bad.json"), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "JSON" in err


def test_subprocess_exit_status_and_no_traceback(trial, tmp_path):
    model, df, path, model_path = trial
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    proc = subprocess.run([sys.executable, "-m", "humanbody", "analyze", str(empty), "--out", str(tmp_path / "o")],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "empty.csv" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    ok = subprocess.run([sys.executable, "-m", "humanbody", "analyze", str(path), "--model", str(model_path),
                         "--out", str(tmp_path / "o2"), "-q"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    assert (tmp_path / "o2" / "walk_results.csv").exists()


def test_angles_in_degrees_are_refused(trial, tmp_path, capsys):
    model, df, path, model_path = trial
    deg = df.copy()
    for c in deg.columns:
        if c.endswith(("_alpha", "_beta", "_gamma")):
            deg[c] = np.degrees(deg[c])
    deg.to_csv(tmp_path / "degrees.csv", index=False)
    assert main(["analyze", str(tmp_path / "degrees.csv"), "--model", str(model_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "degrees.csv" in err and "radians" in err and "_beta" in err


def test_rigid_gap_filling_from_the_marker_set_clusters(tmp_path, capsys):
    data = __import__("pathlib").Path(__file__).resolve().parents[2] / "data"
    status = main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                   "--fill", "rigid", "--out", str(tmp_path), "--verbose"])
    err = capsys.readouterr().err
    assert status == 0, err
    assert "R.Heel frames 120-125" in err and "by rigid (rigid cluster of segment right_foot)" in err
    # without --verbose the gaps are counted, and the details go to the log file only
    status = main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                   "--fill", "rigid", "--out", str(tmp_path)])
    err = capsys.readouterr().err
    assert status == 0 and "R.Heel frames 120-125" not in err and "5 filled (by rigid, spline)" in err
    assert "R.Heel frames 120-125" in (tmp_path / "sample_walk_markers_log.txt").read_text()


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_chunked_writing_equals_the_whole_trial(trial, tmp_path, fmt):
    """Results written a few frames at a time are the rows of the whole-trial computation."""
    from humanbody.analysis import analyze_trial
    from humanbody.trial_output import write_results

    model, df, path, model_path = trial
    analysis = analyze_trial(path, model=model_path)
    whole = pd.concat([analysis.results.to_dataframe(), analysis.clinical], axis=1)
    write_results(analysis, tmp_path / "one", fmt=fmt)
    write_results(analysis, tmp_path / "chunked", fmt=fmt, chunk_frames=37)
    read = pd.read_csv if fmt == "csv" else pd.read_parquet
    one = read(tmp_path / "one" / f"walk_results.{fmt}")
    chunked = read(tmp_path / "chunked" / f"walk_results.{fmt}")
    assert list(chunked.columns) == list(whole.columns)
    np.testing.assert_array_equal(chunked.to_numpy(), one.to_numpy())
    if fmt == "parquet":
        np.testing.assert_array_equal(chunked.to_numpy(), whole.to_numpy())
    else:
        np.testing.assert_allclose(chunked.to_numpy(), whole.to_numpy(), rtol=5e-8, atol=1e-300)  # the CSV has 8 significant digits


def test_long_trial_writing_shows_a_bar_on_a_terminal_only(trial, tmp_path, monkeypatch, capsys):
    import sys as _sys

    from humanbody.analysis import analyze_trial
    from humanbody.trial_output import write_results

    model, df, path, model_path = trial
    analysis = analyze_trial(path, model=model_path)
    monkeypatch.setattr(_sys.stderr, "isatty", lambda: True, raising=False)
    write_results(analysis, tmp_path / "a", chunk_frames=16, progress=True)
    assert "writing walk_results.csv" in capsys.readouterr().err
    monkeypatch.setattr(_sys.stderr, "isatty", lambda: False, raising=False)
    write_results(analysis, tmp_path / "b", chunk_frames=16, progress=True)
    assert capsys.readouterr().err == ""
    assert (tmp_path / "a" / "walk_results.csv").read_bytes() == (tmp_path / "b" / "walk_results.csv").read_bytes()


def test_marker_trial_in_small_chunks_equals_large_chunks(tmp_path, monkeypatch):
    """The whole pipeline in chunks (tracking, rates with overlap, mechanics, writing) gives the same results."""
    from pathlib import Path

    from humanbody.analysis import analyze_trial
    from humanbody.markers import tracking
    from humanbody.mechanics import kinematics
    from humanbody.trial_output import write_results

    data = Path(__file__).resolve().parents[2] / "data"
    walk, static = data / "sample_walk_markers.trc", data / "sample_static.trc"
    big = analyze_trial(walk, static=static, mass=75.0, height=1.75)
    write_results(big, tmp_path / "big", fmt="parquet")
    monkeypatch.setattr(tracking, "TRACK_CHUNK", 50)
    monkeypatch.setattr(kinematics, "RATE_CHUNK", 60)
    small = analyze_trial(walk, static=static, mass=75.0, height=1.75)
    assert small.n_frames > 6 * 60
    write_results(small, tmp_path / "small", fmt="parquet", chunk_frames=37)
    a = pd.read_parquet(tmp_path / "big" / "sample_walk_markers_results.parquet")
    b = pd.read_parquet(tmp_path / "small" / "sample_walk_markers_results.parquet")
    pd.testing.assert_frame_equal(a, b, check_exact=True)


def test_unlabeled_and_unused_markers_are_counted_not_listed(tmp_path, capsys):
    """A trial with many markers the set does not use (unlabeled *1 ... with gaps): a screenful, not a line each."""
    import pandas as pd

    from humanbody.io import read_trial

    data = __import__("pathlib").Path(__file__).resolve().parents[2] / "data"
    walk = read_trial(data / "sample_walk_markers.trc")
    names = walk.attrs["markers"]
    lines = (data / "sample_walk_markers.trc").read_text().split("\n")
    # 60 unlabeled markers, each with a gap every 50 frames, as Vicon exports them
    rng = np.random.default_rng(0)
    extra = np.round(rng.uniform(0, 1000, (len(walk), 60, 3)), 3)
    extra[::50] = np.nan
    head = lines[:5]
    fields3 = head[2].split("\t")
    fields3[3] = str(len(names) + 60)
    head[2] = "\t".join(fields3)
    all_names = list(names) + [f"*{i + 1}" for i in range(60)]
    head[3] = "Frame#\tTime\t" + "\t".join(f"{n}\t\t" for n in all_names)
    head[4] = "\t\t" + "\t".join(f"X{k + 1}\tY{k + 1}\tZ{k + 1}" for k in range(len(all_names)))
    body = [ln for ln in lines[5:] if ln.strip()]
    rows = []
    for i, ln in enumerate(body):
        cells = ["" if np.isnan(x) else f"{x:.3f}" for x in extra[i].ravel()]
        rows.append(ln.rstrip("\t") + "\t" + "\t".join(cells))
    path = tmp_path / "unlabeled.trc"
    path.write_text("\n".join(head + [""] + rows) + "\n")
    status = main(["analyze", str(path), "--static", str(data / "sample_static.trc"), "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 0, err
    assert len(err) <= 25, "\n".join(err)  # the first screen: 25 lines at most
    assert any("ignored 60 marker(s)" in line and "60 unlabeled" in line for line in err)
    assert not any("*7" in line for line in err)
    results = pd.read_csv(tmp_path / "o" / "unlabeled_results.csv")
    assert np.isfinite(results["right_knee_flexion_deg"]).all()


@pytest.mark.parametrize("argv", [["analyze", "x.trc", "--out", "o", "--mass", "150lb"], ["analyze"],
                                  ["frobnicate"], ["markerset", "precision"], ["report", "d", "--events", "nope"]])
def test_usage_errors_are_one_line_and_exit_2(argv, capsys):
    from humanbody.cli import main

    with pytest.raises(SystemExit) as e:
        main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and ": error: " in err[0] and "--help" in err[0], err


def test_static_of_another_marker_set_is_named_as_such(tmp_path, capsys):
    """A keypoint trial given a marker-cluster static: one line naming both sets, exit 2."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    status = main(["analyze", str(data / "sample_walk_keypoints.trc"), "--static", str(data / "sample_static.trc"),
                   "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert len(err.splitlines()) == 1, err
    assert "sample_static.trc" in err and "'body25b'" in err, err
    assert "not those of" in err and "--static" in err, err


def test_the_log_says_whether_joint_limits_apply(tmp_path, capsys):
    """--joint-limits is confirmed under whole-body IK and named as unused under segment fits."""
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    assert main(["analyze", str(data / "sample_walk_keypoints.trc"), "--joint-limits", "physiological",
                 "--out", str(tmp_path / "g")]) == 0
    assert "tracking: joint limits: physiological (--joint-limits)" in capsys.readouterr().err
    assert main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
                 "--joint-limits", "physiological", "--out", str(tmp_path / "s")]) == 0
    err = capsys.readouterr().err
    assert "tracking: segment fits" in err
    assert "--joint-limits physiological not used: joint limits act in whole-body inverse kinematics" in err, err


def test_forced_segment_fits_on_a_keypoint_trial_name_the_trial(capsys):
    """``--ik segments`` the trial cannot take: one line, the trial named first, exit 2."""
    from humanbody.cli import main

    trial = Path(__file__).resolve().parents[2] / "data" / "sample_walk_keypoints.trc"
    assert main(["analyze", str(trial), "--ik", "segments", "--out", "unused", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"{trial}: 'body25b' is a keypoint set" in err[0], err


def test_the_first_screen_leaves_the_lowest_priorities_to_the_log_file():
    """Over budget, the records of lowest priority go first (in order within one priority), a line saying how
    many; NOTE records and plain lines stay, in their order."""
    from humanbody.analysis import Record
    from humanbody.commands.analyze import screen_lines
    from humanbody.errors import EDGES, FILTERING, ROUTINE

    recs = [Record("message", "s", f"n{i}") for i in range(3)]
    recs[1:1] = [Record("message", "s", "r1", ROUTINE), Record("message", "s", "f1", FILTERING),
                 Record("message", "s", "e1", EDGES), Record("message", "s", "f2", FILTERING)]
    assert screen_lines(recs, 7) == [r.message for r in recs]  # within budget: all, in order
    assert screen_lines(recs, 5) == ["n0", "e1", "n1", "n2", "(3 more notes in the log file; --verbose prints them)"]
    assert screen_lines(recs, 6) == ["n0", "r1", "e1", "n1", "n2",
                                     "(2 more notes in the log file; --verbose prints them)"]
    assert screen_lines(["a", "b", "c"], 2) == ["a", "b", "c"]  # plain lines: never left off

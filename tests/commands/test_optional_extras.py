"""A command that needs an optional package that is not installed says in one line what to install."""

import sys

import pytest

from humanbody.cli import main, missing_optional


@pytest.mark.parametrize("package,extra", [("pyvista", "viewer"), ("ezc3d", "c3d"), ("distributed", "cluster")])
def test_message_names_the_extra(package, extra):
    line = missing_optional(ModuleNotFoundError(f"No module named '{package}'", name=package))
    assert f'pip install "humanbody[{extra}]"' in line and package in line
    assert missing_optional(ModuleNotFoundError("No module named 'foo'", name="foo")) is None


def _hide(monkeypatch, *names):
    """Make ``import name`` fail as if the package were not installed."""
    for name in names:
        for mod in [m for m in list(sys.modules) if m == name or m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, mod)
        monkeypatch.setitem(sys.modules, name, None)  # import raises ModuleNotFoundError


def test_view_without_pyvista_is_one_line_and_status_2(monkeypatch, capsys, tmp_path):
    from pathlib import Path

    data = Path(__file__).resolve().parents[2] / "data"
    _hide(monkeypatch, "pyvista")
    for mod in [m for m in list(sys.modules) if m.startswith("humanbody.viewer")]:
        monkeypatch.delitem(sys.modules, mod)  # imported again, without pyvista
    status = main(["view", str(data / "sample_walk.csv"), "--screenshot", str(tmp_path / "a.png")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert 'pip install "humanbody[viewer]"' in err[0]


def test_c3d_without_ezc3d_is_one_line_and_status_2(monkeypatch, capsys, tmp_path):
    trial = tmp_path / "walk.c3d"
    trial.write_bytes(b"\x02\x50" + b"\x00" * 1022)
    _hide(monkeypatch, "ezc3d")
    status = main(["analyze", str(trial), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1, err
    assert "c3d" in err[0].lower() and ("humanbody[c3d]" in err[0] or "ezc3d" in err[0])

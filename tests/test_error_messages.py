"""Library errors name parameters; the command line names flags.

A message the library raises names a parameter as the Python caller wrote it
(``ik must be ...``, ``give `mass` KG``); the command line shows the flag
(:meth:`humanbody.errors.InputError.on_command_line`).  So no error string
outside ``commands/`` and ``cli.py`` spells a flag, read from the source.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from humanbody.errors import InputError, flag_of

PACKAGE = Path(__file__).resolve().parents[1] / "humanbody"
FLAG = re.compile(r"(?<![\w-])--[a-z]")
#: Errors where a command line is the product: the message tells which command to run.
ALLOWED = {("markers/markerset.py", "humanbody markerset init STATIC --out FILE"),
           ("analysis/conditioning.py", "humanbody markerset init STATIC --out FILE")}
ERRORS = {"InputError", "refusal", "ValueError", "TypeError"}


def _strings(node: ast.AST):
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, str):
            yield sub.value


def _error_strings():
    """(module, text) of every string in a call that builds an error, outside commands/ and cli.py."""
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if rel.startswith("commands/") or rel == "cli.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                func = node.func
                name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
                if name in ERRORS:
                    for text in _strings(node):
                        yield rel, text


def test_no_library_error_names_a_command_line_flag():
    found = [(rel, text) for rel, text in _error_strings() if FLAG.search(text)]
    named = [(rel, text) for rel, text in found if not any(rel == a and t in text for a, t in ALLOWED)]
    assert not named, "error strings naming a flag (name the parameter; the command line translates):\n" + "\n".join(
        f"{rel}: {text!r}" for rel, text in named)
    assert all(any(rel == a and t in text for rel, text in found) for a, t in ALLOWED)  # nothing stale allowed


def test_the_scan_sees_error_strings():
    """The scan is not empty: it reads the errors of many modules (a broken walk would pass vacuously)."""
    strings = list(_error_strings())
    assert len(strings) > 300 and len({rel for rel, _ in strings}) > 50


@pytest.mark.parametrize(("message", "option", "python", "command_line"), [
    ("ik must be auto, segments or global, not 'x'", "ik", None, "--ik must be auto, segments or global, not 'x'"),
    ("imu_map 'a': expected ID=name pairs", "imu_map", None, "--imu-map 'a': expected ID=name pairs"),
    ("skip_checks 'x': no such check", "skip_checks", None, "--skip-check 'x': no such check"),
    ("no `mass`: 2 frames; give `mass` KG (or `subject` FILE), or `skip_checks` mass to go on anyway", None, None,
     "no --mass: 2 frames; give --mass KG (or --subject FILE), or --skip-check mass to go on anyway"),
    ("too few frames; give the cut-off (`cutoff_hz` HZ)", None, None, "too few frames; give the cut-off (--cutoff HZ)"),
    ("load 'x' names no segment; use `load_segments` NAME=segment", None, None,
     "load 'x' names no segment; use --load NAME=segment"),
    ("massive error", "mass", None, "--mass" + "ive error"),  # a prefix is a prefix; messages start with the name
    ("mass `is` plain", None, None, "mass --is plain"),
])
def test_command_line_names_the_flags(message, option, python, command_line):
    err = InputError(message, "trial.trc", option=option)
    assert str(err) == "trial.trc: " + (python or message)
    cli = err.on_command_line()
    assert str(cli) == "trial.trc: " + command_line and cli.path == "trial.trc"
    assert "`" not in str(cli)


def test_an_error_without_parameters_is_the_same_error():
    err = InputError("no such file", "x.trc")
    assert err.on_command_line() is err
    assert flag_of("opensim_feet") == "--opensim-feet" and flag_of("load_segments") == "--load"


def test_python_and_command_line_messages_of_a_real_error(tmp_path):
    """One error through both doors: the library's parameter names, the command line's flags."""
    from humanbody.options import check_names

    with pytest.raises(InputError) as err:
        check_names(["mass", "height"])
    assert str(err.value).startswith("skip_checks 'height': no such check")
    assert str(err.value.on_command_line()).startswith("--skip-check 'height': no such check")

"""Every default named once: the 6 Hz cut-off, the 20 N force threshold and the 75 kg / 1.75 m subject.

Each is one constant (``humanbody.signal.CUTOFF_HZ``, ``humanbody.signal.FORCE_THRESHOLD``,
``humanbody.model.anthropometry.DEFAULT_MASS`` / ``DEFAULT_HEIGHT``); the
library's defaults, the options' fields and the command line's defaults and
help texts are built from it.  Checked from the source (a literal in place of
the name fails) and from the parsers themselves.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from humanbody.cli import build_parser
from humanbody.commands.analyze import analysis_options
from humanbody.model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from humanbody.options import MARKERSET_CUTOFF, AnalysisOptions
from humanbody.signal import CUTOFF_HZ, FORCE_THRESHOLD

PACKAGE = Path(__file__).resolve().parents[1] / "humanbody"
#: (word in a parameter's name, the literal it must not be written as)
NAMED = [("cutoff", CUTOFF_HZ), ("threshold", FORCE_THRESHOLD), ("mass", DEFAULT_MASS), ("height", DEFAULT_HEIGHT)]
#: The definitions themselves.
DEFINED = {("signal/__init__.py", "CUTOFF_HZ"), ("signal/__init__.py", "FORCE_THRESHOLD"),
           ("model/anthropometry.py", "DEFAULT_MASS")}


def _literal(node) -> float | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
        return float(node.value)
    return None


def _defaults(tree):
    """(name, default node) of parameters, dataclass fields, ``x.get("name", default)`` and ``default=`` of
    ``add_argument("--name", ...)``."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            a = node.args
            pos = a.posonlyargs + a.args
            yield from zip((p.arg for p in pos[len(pos) - len(a.defaults):]), a.defaults, strict=True)
            yield from ((p.arg, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True) if d is not None)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            yield node.target.id, node.value
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            if getattr(node.func, "attr", None) == "get" and len(node.args) == 2:
                yield node.args[0].value, node.args[1]
            for kw in node.keywords:
                if kw.arg == "default":
                    yield node.args[0].value, kw.value


def test_no_default_is_written_as_a_number():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        for name, node in _defaults(ast.parse(path.read_text())):
            value = _literal(node)
            for word, default in NAMED:
                if value == default and word in name.lower() and (rel, name) not in DEFINED:
                    found.append(f"{rel}: {name} = {value:g} (use the named default)")
    assert not found, "\n".join(found)


def test_help_texts_show_the_named_defaults():
    """No help text spells a default by hand: each shows the constant's value, so the two cannot part."""
    pattern = re.compile(r"default (6 Hz|20 N|75\b|1\.75\b)")
    texts = [(path.relative_to(PACKAGE).as_posix(), node.value) for path in sorted((PACKAGE / "commands").glob("*.py"))
             for node in ast.walk(ast.parse(path.read_text()))
             if isinstance(node, ast.Constant) and isinstance(node.value, str) and pattern.search(node.value)]
    assert not texts, texts


@pytest.mark.parametrize("command", [["analyze", "t.trc", "--out", "o"], ["view", "t.trc"],
                                     ["compare", "a", "b", "--out", "o"], ["report", "a", "--out", "o"]])
def test_command_line_defaults_are_the_options_defaults(command):
    args = build_parser().parse_args(command)
    assert getattr(args, "force_threshold", FORCE_THRESHOLD) == FORCE_THRESHOLD
    assert getattr(args, "cutoff", MARKERSET_CUTOFF) == MARKERSET_CUTOFF  # the marker set's: CUTOFF_HZ unless it says
    assert getattr(args, "diff_cutoff", CUTOFF_HZ) == CUTOFF_HZ
    if command[0] != "report":
        opts = analysis_options(args) if command[0] != "compare" else analysis_options(args, static=None, forces=None)
        default = AnalysisOptions()
        assert (opts.force_threshold, opts.cutoff_hz, opts.differentiation.cutoff_hz) == \
            (default.force_threshold, default.cutoff_hz, default.differentiation.cutoff_hz) == \
            (FORCE_THRESHOLD, MARKERSET_CUTOFF, CUTOFF_HZ)


def test_help_shows_the_values():
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command").choices  # the subcommands' parsers
    assert f"(default {FORCE_THRESHOLD:g} N)" in " ".join(sub["analyze"].format_help().split())
    assert f"(default {DEFAULT_MASS:g})" in " ".join(sub["vibration"].format_help().split())

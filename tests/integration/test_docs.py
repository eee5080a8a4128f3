"""README.md and docs/*.md name what exists: every ``humanbody`` command shown parses with the command line's own
parser and the project's and shared files it reads exist from the repository's folder (the shared data beside
the clone, ``../shared/``, when present), every Python block compiles, and the README's Python block gives a
DataFrame of angles with a time column.  The pages are run as written, their printed figures checked, in
tests/integration/test_docs_run.py (docs/tutorial.md in tests/integration/test_tutorial.py); this module also
covers the commands that one does not run (a cluster, a movie, a benchmark)."""

from __future__ import annotations

import os
import re
import shlex
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHARED = ROOT.parent / "shared"
#: Where the files of the project and the shared data are, from the repository's folder (a path starting
#: ``shared/`` is the shared data named from the wrong folder).
_PROJECT_FILES = ("data/", "docs/", "../shared/", "shared/", "benchmarks/", "humanbody/", "tests/", "apps/")
#: Options whose value is a file or folder the command writes.
_OUTPUT_OPTIONS = ("--out", "-o", "--screenshot", "--movie", "--save", "--csv", "--output", "--html")


_SUBCOMMANDS = ("analyze", "report", "view", "model", "markerset", "simulate", "vibration", "compare", "muscles", "--help",
                "--version")


def _blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]  # indented too


def _commands():
    """(page, command line) of every ``humanbody`` command in a shell block (continuations joined)."""
    out = []
    for page in PAGES:
        for lang, body in _blocks(page.read_text()):
            if lang not in ("", "sh", "bash", "console", "shell"):
                continue
            for line in body.replace("\\\n", " ").splitlines():
                line = line.strip().removeprefix("$ ").removeprefix(".venv/bin/")
                line = line.split("  #")[0].split(" # ")[0].strip()
                words = line.split() or [""]
                if words[0] != "humanbody" or len(words) < 2 or words[1] not in _SUBCOMMANDS:
                    continue  # prose or output in a block (``humanbody report: interrupted ...``)
                if any(c in line for c in ("...", "[", "<", "|")):
                    continue
                if any(re.fullmatch(r"[A-Z][A-Z0-9_]+(=\S+)?", tok) for tok in line.split()[1:]):
                    continue  # a synopsis with placeholders (TRIAL, DIR, FILE), not a command to run
                out.append((page.name, line))
    return out


COMMANDS = _commands()


def test_pages_show_commands():
    assert len(COMMANDS) > 30


@pytest.mark.parametrize("page,command", COMMANDS, ids=[f"{p}:{c[:60]}" for p, c in COMMANDS])
def test_command_parses_and_its_input_files_exist(page, command):
    from humanbody.cli import build_parser

    argv = shlex.split(command)[1:]
    try:
        build_parser().parse_args(argv)
    except SystemExit as stop:  # argparse's exit: an option the command does not take
        assert stop.code == 0, f"{page}: {command}"
    for before, arg in zip(["", *argv[:-1]], argv, strict=True):
        if before in _OUTPUT_OPTIONS or arg.startswith("-") or "/" not in arg.split("=")[-1]:
            continue
        arg = arg.split("=")[-1]
        if arg.startswith("../shared/") and not SHARED.exists():
            continue
        if not arg.startswith(_PROJECT_FILES):
            continue  # the reader's own files in an example (trials/, /data/subject01, ...): parsed only
        assert (ROOT / arg).exists(), f"{page}: {command}: {arg} is not there from the repository's folder"


@pytest.mark.parametrize("page", [p for p in PAGES if "```python" in p.read_text()], ids=lambda p: p.name)
def test_python_blocks_compile(page):
    for i, (lang, body) in enumerate(_blocks(page.read_text())):
        if lang == "python":
            compile(textwrap.dedent(body), f"{page.name} block {i}", "exec")


def test_readme_python_block_runs(tmp_path, monkeypatch):
    """The README's library example, run as written from a folder holding the repository's data/."""
    block = next(body for lang, body in _blocks((ROOT / "README.md").read_text()) if lang == "python")
    os.symlink(ROOT / "data", tmp_path / "data", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    exec(compile(block, "README.md", "exec"), scope)
    analysis = scope["analysis"]
    angles = analysis.angles
    assert list(angles.columns[:2]) == ["time", "pelvis_rotation_deg"] and "right_knee_flexion_deg" in angles
    assert len(angles) == len(analysis.coords) and analysis.moments is None  # no forces in the example
    assert (tmp_path / "results" / "api" / "sample_walk_markers_results.csv").exists()

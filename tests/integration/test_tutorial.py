"""docs/tutorial.md runs as written: its commands print what the page shows (each shown line, ``...`` standing
for any text, in order), and its Python block runs and gives the shapes it states.  On the shared OpenSim
walk, ``../shared/data/gait2392_walk`` beside the repository; skipped when that folder is absent."""

from __future__ import annotations

import itertools
import re
import shlex
from pathlib import Path

import pytest
from _shared import SHARED_DATA, needs_shared

ROOT = Path(__file__).resolve().parents[2]
SHARED = SHARED_DATA
TUTORIAL = ROOT / "docs" / "tutorial.md"

pytestmark = needs_shared


def _blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced code block, in order."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def _command_and_output():
    """Each ``humanbody analyze`` block of the page with the output block that follows it."""
    blocks = _blocks(TUTORIAL.read_text())
    out = []
    for (lang, body), (_, nxt) in itertools.pairwise(blocks):
        if not lang and body.lstrip().startswith("humanbody analyze") and not nxt.lstrip().startswith("humanbody"):
            out.append((body, nxt))
    return out


def _matches(expected: str, actual: list[str]) -> list[str]:
    """The expected lines (``...`` any text) not found, in order, among the actual lines."""
    missing, at = [], 0
    for line in expected.strip().splitlines():
        if not line.strip():
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in line.strip().split("...")))
        for i in range(at, len(actual)):
            if pattern.fullmatch(actual[i].strip()):
                at = i + 1
                break
        else:
            missing.append(line)
    return missing


@pytest.mark.parametrize("case", range(2))
def test_tutorial_commands_print_what_the_page_shows(case, tmp_path, capsys, monkeypatch):
    from humanbody.cli import main

    pairs = _command_and_output()
    assert len(pairs) == 2
    command, expected = pairs[case]
    argv = shlex.split(command.replace("\\\n", " "))[1:]
    monkeypatch.chdir(tmp_path)
    (tmp_path / "shared").symlink_to(SHARED.parent)
    argv = [a.replace("../shared/", str(tmp_path / "shared") + "/") for a in argv]
    assert main(argv) == 0
    actual = capsys.readouterr().err.splitlines()
    # the column counts the page states (section 1): without and with the force plates
    stated = re.search(r"one row per frame and (\d+)\s+columns \((\d+) with `--forces`", TUTORIAL.read_text())
    assert stated, "the tutorial states the results' column count"
    header = (tmp_path / "results" / "walk" / "subject01_walk1_results.csv").open().readline()
    assert len(header.strip().split(",")) == int(stated.group(1 + case))
    missing = _matches(expected, actual)
    assert not missing, "tutorial lines not printed today:\n" + "\n".join(missing) + "\n--- printed:\n" + "\n".join(actual)


def test_tutorial_python_block_runs(monkeypatch):
    blocks = [body for lang, body in _blocks(TUTORIAL.read_text()) if lang == "python"]
    assert blocks
    code = blocks[0].replace('"../shared/data/', f'"{SHARED}/')
    scope: dict = {}
    exec(compile(code, "tutorial.md", "exec"), scope)
    res, k = scope["res"], scope["k"]
    for expr, shape in re.findall(r"^(\S[^#\n]*?)\s+# \(([\d, ]+)\)", code, re.M):
        value = eval(expr, scope)
        value = value() if callable(value) else value
        assert tuple(value.shape) == tuple(int(x) for x in shape.split(",") if x.strip()), expr
    assert k == 11 and res.force.shape[0] == 151


def test_tutorial_report_figures(tmp_path):
    """Section 7's figures: stride time, cadence and belt speed of the report on the shared walk."""
    import pandas as pd

    from humanbody.cli import main

    text = TUTORIAL.read_text()
    m = re.search(r"stride time ([\d.]+) s, cadence (\d+)\s+steps/min, belt speed ([\d.]+) m/s", text)
    assert m, "the tutorial states the report's figures"
    out = tmp_path / "report"
    assert main(["report", str(SHARED / "gait2392_walk"), "--mass", "72.6", "--out", str(out), "--plots", "none",
                 "-q", "--jobs", "1"]) == 0
    row = pd.read_csv(out / "summary.csv").iloc[0]
    stride, cadence, speed = row["stride_time_s"], row["cadence_steps_per_min"], row["belt_speed_m_per_s"]
    assert f"{stride:.2f}" == m.group(1) and f"{cadence:.0f}" == m.group(2) and f"{speed:.2f}" == m.group(3), \
        (stride, cadence, speed)

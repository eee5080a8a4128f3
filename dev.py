#!/usr/bin/env python3
"""Project runner: creates its own environment, then runs the job or the tests.

    python3 dev.py demo    analyse the sample marker trial shipped in data/ and make its gait report
    python3 dev.py lint    ruff and mypy as configured in pyproject.toml
    python3 dev.py test    run the whole test suite (arguments go to pytest: -m "not slow" is the quick run)
    python3 dev.py bench   run the benchmarks in benchmarks/
    python3 dev.py env     only create (or update) the environment

Needs only Python 3.11+.  The first call creates ``.venv/`` beside this file
and installs humanbody with all its extras into it; later calls reuse it and
reinstall only when pyproject.toml changed.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
STAMP = VENV / ".humanbody-installed"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
EXTRAS = "all,test"


def _say(msg: str) -> None:
    print(f"[dev] {msg}", flush=True)


def ensure_env() -> None:
    """Create .venv and install the project into it when needed."""
    if sys.version_info < (3, 11):  # noqa: UP036  dev.py runs under any python3 and says why it stops
        sys.exit(f"humanbody needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    want = hashlib.sha256((ROOT / "pyproject.toml").read_bytes() + EXTRAS.encode()).hexdigest()
    if PY.exists() and STAMP.exists() and STAMP.read_text().strip() == want:
        return
    if not PY.exists():
        _say(f"creating environment {VENV}")
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    _say("installing humanbody and its dependencies (first run only; a few minutes)")
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    subprocess.run(pip + ["--upgrade", "pip"], check=False)
    # a path-based editable install (a .pth line naming this folder): a script run beside the clone, whose
    # folder is named humanbody too, still imports the package, not the clone's folder as a namespace package
    # (the default editable install serves it through a finder that loses to that folder)
    subprocess.run(pip + ["-e", f"{ROOT}[{EXTRAS}]", "--config-settings", "editable_mode=compat"], check=True)
    STAMP.write_text(want + "\n")


def run(*cmd: str) -> int:
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    return subprocess.call(list(cmd), cwd=ROOT, env=env)


def demo() -> int:
    """The main job on the sample data in data/: analyse a marker trial, then a gait report."""
    hb = str(BIN / "humanbody")
    subject = ["--static", "data/sample_static.trc", "--mass", "75", "--height", "1.75"]
    _say("1/2 humanbody analyze: marker trial -> joint angles and mechanics of the 17 segments")
    status = run(hb, "analyze", "data/sample_walk_markers.trc", *subject, "--out", "results/sample_walk")
    if status:
        return status
    _say("2/2 humanbody report: gait events, spatiotemporal parameters, cycle curves, plots")
    status = run(hb, "report", "data/sample_walk_markers.trc", *subject, "--out", "results/report")
    if status == 0:
        _say("done: results/sample_walk/ (results table), results/report/index.html (gait report)")
    return status


def lint(extra: list[str]) -> int:
    """ruff (the rules in pyproject.toml) over the tree, then mypy over the whole package."""
    status = run(str(PY), "-m", "ruff", "check", "--no-cache", *extra, ".")
    return status or run(str(PY), "-m", "mypy")


def test(extra: list[str]) -> int:
    workers = os.environ.get("HUMANBODY_TEST_WORKERS", "auto")
    args = ["-n", workers] if workers not in ("0", "1") else []
    return run(str(PY), "-m", "pytest", *args, *extra)


def bench(extra: list[str]) -> int:
    return run(str(PY), "benchmarks/run.py", *extra)


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in ("demo", "lint", "test", "bench", "env"):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    ensure_env()
    cmd, rest = argv[0], argv[1:]
    if cmd == "demo":
        return demo()
    if cmd == "lint":
        return lint(rest)
    if cmd == "test":
        return test(rest)
    if cmd == "bench":
        return bench(rest)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

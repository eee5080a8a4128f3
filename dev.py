#!/usr/bin/env python3
"""Project runner: creates its own environment, then runs the job or the tests.

    python3 dev.py demo    analyse the sample marker trial shipped in data/ and make its gait report
    python3 dev.py lint    ruff and mypy as configured in pyproject.toml
    python3 dev.py test    run the test suite, the slow tests left out (arguments go to pytest: -m "" runs all)
    python3 dev.py bench   run the benchmarks in benchmarks/
    python3 dev.py env     only create (or update) the environment

Needs only Python 3.11+.  The first call creates ``.venv/`` beside this file
and installs humanbody into it with what the command needs: ``demo`` the
main job's packages only (NumPy, SciPy, pandas, numba, ezc3d, ...); ``test``,
``lint`` and ``bench`` add the extras (the viewer's VTK and ffmpeg, Dask, and
the test references Pinocchio, OpenSim and spm1d), saying so in one line.
Later calls reuse the environment and reinstall only when pyproject.toml
changed or a command needs an extra not installed yet.
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
#: The extras each command installs (pyproject.toml): the main job needs none beyond reading C3D files.
EXTRAS = {"demo": ("c3d",), "env": ("c3d",), "lint": ("all", "test"), "test": ("all", "test"),
          "bench": ("all", "test", "bench")}


def _say(msg: str) -> None:
    print(f"[dev] {msg}", flush=True)


def _installed() -> tuple[str, set[str]]:
    """The pyproject.toml digest and the extras of the last install (``STAMP``): ("", set()) before any."""
    try:
        digest, _, extras = STAMP.read_text().strip().partition(" ")
    except OSError:
        return "", set()
    return digest, set(filter(None, extras.split(",")))


def ensure_env(extras: tuple[str, ...] = ("c3d",)) -> None:
    """Create .venv and install the project with ``extras`` into it when needed.

    Parameters
    ----------
    extras : tuple of str
        The extras of pyproject.toml the command needs (``c3d``, ``all``, ``test``, ``bench``); the install
        is redone when pyproject.toml changed or one of them is not installed yet.
    """
    if sys.version_info < (3, 11):  # noqa: UP036  dev.py runs under any python3 and says why it stops
        sys.exit(f"humanbody needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    digest = hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()
    had_digest, had = _installed()
    if PY.exists() and had_digest == digest and set(extras) <= had:
        return
    if not PY.exists():
        _say(f"creating environment {VENV}")
        venv.EnvBuilder(with_pip=True, clear=False).create(VENV)
    want = sorted(set(extras) | (had if had_digest == digest else set()))
    if had_digest == digest and had:
        _say(f"installing the extras {', '.join(sorted(set(extras) - had))} (the viewer's VTK and ffmpeg, Dask and "
             "the test references Pinocchio, OpenSim and spm1d: about 1.5 GB, a few minutes, once)")
    else:
        _say("installing humanbody and the packages the main job needs (first run only; about a minute)"
             if set(want) <= {"c3d"} else "installing humanbody with its extras (first run only; a few minutes)")
    # --no-compile: Python writes the bytecode of the modules a run imports when it first imports them, a
    # fraction of the packages' files; compiling all of them at install costs 20 CPU-s and 130 MB
    pip = [str(PY), "-m", "pip", "install", "--disable-pip-version-check", "-q", "--no-compile"]
    subprocess.run(pip + ["--upgrade", "pip"], check=False)
    # a path-based editable install (a .pth line naming this folder): a script run beside the clone, whose
    # folder is named humanbody too, still imports the package, not the clone's folder as a namespace package
    # (the default editable install serves it through a finder that loses to that folder)
    subprocess.run(pip + ["-e", f"{ROOT}[{','.join(want)}]", "--config-settings", "editable_mode=compat"],
                   check=True)
    STAMP.write_text(f"{digest} {','.join(want)}\n")


def run(*cmd: str) -> int:
    """Run a program in the repository's folder with matplotlib drawing off-screen (``MPLBACKEND=Agg``).

    Parameters
    ----------
    *cmd : str
        The program and its arguments.

    Returns
    -------
    int
        Its exit status.
    """
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    return subprocess.call(list(cmd), cwd=ROOT, env=env)


def demo() -> int:
    """The main job on the sample data in data/: analyse a marker trial, then a gait report.

    Returns
    -------
    int
        0 when both commands succeeded, else the first failing one's exit status.
    """
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
    """ruff (the rules in pyproject.toml) over the tree, then mypy over the whole package.

    Parameters
    ----------
    extra : list of str
        More arguments for ruff.

    Returns
    -------
    int
        0 when both are clean.
    """
    status = run(str(PY), "-m", "ruff", "check", "--no-cache", *extra, ".")
    return status or run(str(PY), "-m", "mypy")


def test(extra: list[str]) -> int:
    """pytest over tests/ on every core; the tests marked slow left out unless ``extra`` chooses (``-m ...``).

    The workers are pytest-xdist's (``HUMANBODY_TEST_WORKERS``: their
    number, default one per core; 0 or 1: none).  Before they start,
    ``tests/conftest.py`` compiles the numba kernels the tests use in two
    processes, once.

    Parameters
    ----------
    extra : list of str
        More arguments for pytest (test paths, ``-m``, ``-k``, ``-x``, ...).

    Returns
    -------
    int
        pytest's exit status.
    """
    workers = os.environ.get("HUMANBODY_TEST_WORKERS", "auto")
    args = ["-n", workers] if workers not in ("0", "1") else []
    chosen = any(a == "-m" or a.startswith("-m") for a in extra)
    if not chosen:
        _say('the tests marked slow are left out: `python3 dev.py test -m ""` runs them all, `-m slow` only them')
    return run(str(PY), "-m", "pytest", *args, *([] if chosen else ["-m", "not slow"]), *extra)


def bench(extra: list[str]) -> int:
    """The benchmarks (``benchmarks/run.py``).

    Parameters
    ----------
    extra : list of str
        Its arguments.

    Returns
    -------
    int
        Its exit status.
    """
    return run(str(PY), "benchmarks/run.py", *extra)


def main(argv: list[str]) -> int:
    """Create or update the environment for the command, then run it.

    Parameters
    ----------
    argv : list of str
        The command (``demo``, ``lint``, ``test``, ``bench``, ``env``) and its arguments.

    Returns
    -------
    int
        The command's exit status; 2 for an unknown command (the usage is printed).
    """
    if not argv or argv[0] in ("-h", "--help") or argv[0] not in ("demo", "lint", "test", "bench", "env"):
        print(__doc__)
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    cmd, rest = argv[0], argv[1:]
    ensure_env(EXTRAS[cmd])
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

"""The first run's second compiler (:mod:`humanbody._kernels.warm`): its list is what ``analyze`` and ``report``
use, a kernel one process compiles another loads from numba's cache, and the helper stops when told."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

from humanbody._kernels import warm

ROOT = Path(__file__).resolve().parents[2]


def _python(code: str, **env: str) -> str:
    run = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg", **env}, timeout=900)
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout


def test_the_list_is_what_analyze_and_report_use(tmp_path):
    """Every kernel signature the demo's two commands compile or load, and nothing else; when this fails,
    ``NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/first_run_kernels.py`` writes the list anew."""
    out = _python(f"""
        from humanbody.cli import main
        from humanbody._kernels import warm
        subject = ["--static", "data/sample_static.trc", "--mass", "75", "--height", "1.75", "--quiet"]
        assert main(["analyze", "data/sample_walk_markers.trc", *subject, "--out", r"{tmp_path}/a"]) == 0
        assert main(["report", "data/sample_walk_markers.trc", *subject, "--out", r"{tmp_path}/r", "--jobs", "1"]) == 0
        for name, sig in warm.used():
            print(name + "\\t" + sig)
    """)
    used = {tuple(line.split("\t")) for line in out.splitlines()}
    listed = warm.entries()
    assert len(set(listed)) == len(listed)
    assert used == set(listed), (sorted(used - set(listed)), sorted(set(listed) - used))


def test_every_listed_signature_is_read_back_as_numba_prints_it():
    for name, sig in warm.entries():
        assert repr(warm.signature(sig)) == sig, name


def test_a_kernel_one_process_compiles_the_next_loads(tmp_path):
    """Two processes with one cache folder: the first compiles (numba's compile event), the second loads."""
    code = """
        from numba.core import event as ev
        from humanbody._kernels import warm
        seen = []
        class L(ev.Listener):
            def on_start(self, event): seen.append(1)
            def on_end(self, event): pass
        ev.register("numba:compile", L())
        warm.compile_listed([e for e in warm.entries() if e[0] == "text_parse.last_line_feed"])
        print(len(seen))
    """
    assert int(_python(code, NUMBA_CACHE_DIR=str(tmp_path))) >= 1
    assert int(_python(code, NUMBA_CACHE_DIR=str(tmp_path))) == 0


def test_the_helper_stops_when_told(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.setattr(warm, "_cores", lambda: 2)
    proc = warm.start()
    assert proc is not None
    warm.stop(proc)
    assert proc.returncode is not None
    assert not list(tmp_path.rglob("*.tmp.*"))  # no half-written cache file left behind
    monkeypatch.setattr(warm, "_cores", lambda: 1)
    assert warm.start() is None  # one core: the command compiles alone

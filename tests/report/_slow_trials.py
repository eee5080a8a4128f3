"""Slow trials for the report's interruption tests, with nothing in the library: every trial waits before it starts.

:func:`slow_trials` writes a ``sitecustomize.py`` into a folder and puts it
first on ``PYTHONPATH`` (in ``env``, or in this process's environment through
``monkeypatch``): every Python process started with that environment (the
``humanbody report`` command, its fork-server and spawned workers, Dask's
worker processes) then wraps :func:`humanbody.report.trial._process` with a
sleep when it imports :mod:`humanbody.report.trial`.  With ``monkeypatch``,
the module already imported in this process is wrapped too, so forked
workers, which import nothing, wait as well.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

#: ``sitecustomize.py``: wrap ``_process`` of humanbody.report.trial with a sleep of {delay} s, once imported.
_SITE = '''\
import sys
import time


def _slowed(module):
    process = module._process

    def _process(*args, **kwargs):
        time.sleep({delay!r})
        return process(*args, **kwargs)

    module._process = _process


class _OnImport:
    """Wrap humanbody.report.trial when it is first imported (a meta path finder that steps aside after)."""

    def find_spec(self, name, path=None, target=None):
        if name != "humanbody.report.trial":
            return None
        sys.meta_path.remove(self)
        import importlib.util

        spec = importlib.util.find_spec(name)
        run = spec.loader.exec_module

        def exec_module(module):
            run(module)
            _slowed(module)

        spec.loader.exec_module = exec_module
        return spec


sys.meta_path.insert(0, _OnImport())
'''


def slow_trials(folder: Path, delay: float, env: dict | None = None, monkeypatch=None) -> dict:
    """Make every report trial wait ``delay`` s before it starts, in the processes started with the returned
    environment (``env``, default ``os.environ``); with ``monkeypatch``, in this process too (and its
    environment is set)."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "sitecustomize.py").write_text(_SITE.format(delay=float(delay)))
    base = dict(os.environ if env is None else env)
    paths = [str(folder)] + [p for p in base.get("PYTHONPATH", "").split(os.pathsep) if p]
    out = dict(base, PYTHONPATH=os.pathsep.join(paths))
    if monkeypatch is not None:
        from humanbody.report import trial

        process = trial._process

        def _process(*args, **kwargs):
            time.sleep(delay)
            return process(*args, **kwargs)

        monkeypatch.setattr(trial, "_process", _process)
        monkeypatch.setenv("PYTHONPATH", out["PYTHONPATH"])
    return out

"""Rerun bookkeeping: a content hash per trial, kept in a small JSON file.

The hash covers the bytes of the trial, its static trial and its force file,
the options that change the outputs, and the library version.  A trial whose
hash is unchanged (and whose outputs are all still there) is not computed
again unless ``--force``; its summary row is taken from the JSON file.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from pathlib import Path

from .._atomic import atomic_write_text

__all__ = ["STATE_FILE", "trial_hash", "load_state", "save_state"]

STATE_FILE = "report_state.json"
_FORMAT = 1  # bump when the report's outputs change for the same inputs


def _file_digest(h, path) -> None:
    if path is None:
        h.update(b"\0none\0")
        return
    h.update(os.fspath(Path(path).name).encode())
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as err:  # a missing file is hashed by its error; the trial will fail and be rerun
        h.update(f"\0unreadable {err.strerror}\0".encode())


def trial_hash(task, options: dict) -> str:
    """SHA-256 (hex) of the task's input files, its values and ``options``."""
    from .. import __version__

    h = hashlib.sha256()
    for p in (task.trial, task.static, task.grf):
        _file_digest(h, p)
    values = {"mass": task.mass, "height": task.height, "treadmill_speed": task.treadmill_speed,
              "options": options, "version": __version__, "format": _FORMAT}
    h.update(json.dumps(values, sort_keys=True, default=str).encode())
    return h.hexdigest()


def load_state(out_dir) -> dict:
    """The saved ``{key: {"hash", "row", "files"}}``; empty when absent or unreadable."""
    path = Path(out_dir) / STATE_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    trials = data.get("trials") if isinstance(data, dict) else None
    return trials if isinstance(trials, dict) else {}


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalar
        return _jsonable(value.item())
    return value


def save_state(out_dir, trials: dict) -> None:
    """Write the state atomically (NaN stored as null)."""
    clean = {
        k: {"hash": v["hash"], "files": list(v["files"]),
            "row": {c: _jsonable(x) for c, x in v["row"].items()}}
        for k, v in trials.items()
    }
    atomic_write_text(Path(out_dir) / STATE_FILE,
                      json.dumps({"format": _FORMAT, "trials": clean}, indent=1, sort_keys=True) + "\n")

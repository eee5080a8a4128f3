"""Rerun and resume bookkeeping: a content hash per trial, a state file and its journal.

The hash covers the bytes of the trial, its static trial and its force file,
the options that change the outputs, and the library version.  A trial whose
hash is unchanged (and whose outputs are all still there) is not computed
again unless ``--force``; its summary row is taken from the state.

The state lives in two files of the report folder:

* ``report_state.json`` - the compacted state, rewritten atomically at the
  end of a run (and when a run is interrupted);
* ``report_state.journal`` - one JSON line appended per finished trial while
  the batch runs.  A run that dies (killed, power cut of the process, Ctrl-C)
  loses at most the trials that were still running: the next run replays the
  journal over the JSON file.  A line cut short by a crash is not valid JSON
  and is ignored, so a record is either complete or absent.

Entries are ``{key: {"hash", "row", "files"}}``; ``row`` is the summary row
with NaN stored as null, ``files`` the trial's files relative to the folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
from pathlib import Path

from .._atomic import atomic_write_text
from ..errors import InputError

__all__ = ["STATE_FILE", "JOURNAL_FILE", "LOCK_FILE", "trial_hash", "load_state", "save_state",
           "clean_row", "Journal", "folder_lock"]

STATE_FILE = "report_state.json"
JOURNAL_FILE = "report_state.journal"
LOCK_FILE = ".report.lock"
_FORMAT = 2  # bump when the report's outputs change for the same inputs


def _file_digest(path) -> bytes:
    h = hashlib.sha256()
    h.update(os.fspath(Path(path).name).encode())
    try:
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as err:  # a missing file is hashed by its error; the trial will fail and be rerun
        h.update(f"\0unreadable {err.strerror}\0".encode())
    return h.digest()


def _cached_digest(path, memo: dict | None) -> bytes:
    """Digest of one input file; ``memo`` reuses it for a file shared by many trials (a static trial)."""
    if memo is None:
        return _file_digest(path)
    try:
        st = os.stat(path)
        stamp = (os.fspath(path), st.st_size, st.st_mtime_ns)
    except OSError:
        return _file_digest(path)
    if stamp not in memo:
        memo[stamp] = _file_digest(path)
    return memo[stamp]


def trial_hash(task, options: dict, memo: dict | None = None) -> str:
    """SHA-256 (hex) of the task's input files, its values and ``options``.

    ``memo`` (a dict kept by the caller) avoids hashing a file shared by many
    trials more than once; a file is identified by path, size and mtime.
    """
    from .. import __version__

    h = hashlib.sha256()
    for p in (task.trial, task.static, task.grf):
        h.update(b"\0none\0" if p is None else _cached_digest(p, memo))
    values = {"mass": task.mass, "height": task.height, "treadmill_speed": task.treadmill_speed,
              "options": options, "version": __version__, "format": _FORMAT}
    h.update(json.dumps(values, sort_keys=True, default=str).encode())
    return h.hexdigest()


def _jsonable(value):
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if hasattr(value, "item"):  # numpy scalar
        return _jsonable(value.item())
    return value


def clean_row(row: dict) -> dict:
    """The row as the state stores it: plain Python values, NaN as None."""
    return {c: _jsonable(x) for c, x in row.items()}


def _entry(value) -> dict | None:
    if not (isinstance(value, dict) and isinstance(value.get("row"), dict)):
        return None
    return {"hash": value.get("hash"), "row": value["row"], "files": list(value.get("files") or [])}


def load_state(out_dir) -> dict:
    """The saved ``{key: {"hash", "row", "files"}}`` with the journal replayed; empty when absent.

    An unreadable state file counts as empty (every trial is recomputed);
    incomplete journal lines are skipped.
    """
    out = Path(out_dir)
    trials: dict = {}
    try:
        data = json.loads((out / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        data = None
    saved = data.get("trials") if isinstance(data, dict) and data.get("format") == _FORMAT else None
    for key, value in (saved or {}).items():
        entry = _entry(value)
        if entry is not None:
            trials[key] = entry
    try:
        with open(out / JOURNAL_FILE, "rb") as fh:
            for line in fh:
                try:
                    rec = json.loads(line)
                except ValueError:  # cut short by a crash
                    continue
                if not isinstance(rec, dict) or rec.get("format") != _FORMAT:
                    continue
                entry = _entry(rec)
                if entry is not None and isinstance(rec.get("key"), str):
                    trials[rec["key"]] = entry
    except OSError:
        pass
    return trials


def save_state(out_dir, trials: dict) -> None:
    """Write the compacted state atomically (NaN stored as null) and drop the journal."""
    clean = {k: {"hash": v["hash"], "files": list(v["files"]), "row": clean_row(v["row"])}
             for k, v in trials.items()}
    out = Path(out_dir)
    atomic_write_text(out / STATE_FILE,
                      json.dumps({"format": _FORMAT, "trials": clean}, indent=1, sort_keys=True) + "\n")
    with contextlib.suppress(FileNotFoundError):
        os.remove(out / JOURNAL_FILE)


class Journal:
    """Append-only record of finished trials (one JSON line each), written as they finish.

    Each record goes to the file in a single ``write`` on a descriptor opened
    with ``O_APPEND``, so it reaches the file whole even if the process is
    killed right after; it is not fsync'ed (it survives the death of the
    process, not of the machine).
    """

    def __init__(self, out_dir):
        self.path = Path(out_dir) / JOURNAL_FILE
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)

    def record(self, key: str, entry: dict) -> None:
        """Append ``entry`` (hash, row, files) for trial ``key``."""
        rec = {"format": _FORMAT, "key": key, "hash": entry["hash"], "files": list(entry["files"]),
               "row": clean_row(entry["row"])}
        os.write(self._fd, (json.dumps(rec, sort_keys=True) + "\n").encode("utf-8"))

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def folder_lock(out_dir):
    """Hold an exclusive lock on the report folder while a batch writes to it.

    Raises
    ------
    InputError  when another ``humanbody report`` holds it.
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows: no lock
        yield
        return
    path = Path(out_dir) / LOCK_FILE
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise InputError("another humanbody report is writing to this report folder", out_dir) from None
        yield
    finally:
        os.close(fd)

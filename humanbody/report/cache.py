"""Rerun and resume bookkeeping: a content hash per trial and the state of the report folder.

The hash covers the bytes of the trial, its static trial and its force file,
the options that change the outputs, and the library version.  A trial whose
hash is unchanged (and whose outputs are all still there) is not computed
again unless ``--force``; its summary row is taken from the state.

The state is one SQLite table in ``report_state.sqlite`` (Python's
:mod:`sqlite3`): a row per trial, written by the coordinating process as
each trial finishes, in its own transaction (``INSERT OR REPLACE``).  A run
that dies (killed, Ctrl-C, the process lost) loses at most the trials that
were still running: a record is in the file whole or not at all, and the
next run reads it as it is.  Writes are not synced to the disk
(``PRAGMA synchronous=OFF``): they survive the death of the process, not
of the machine; a state file that cannot be read counts as empty.

Entries are ``{key: {"hash", "row", "files"}}``; ``row`` is the summary row
with NaN stored as null, ``files`` the trial's files relative to the folder
(both as JSON text in the table).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import math
import os
import sqlite3
from pathlib import Path

from .. import __version__
from ..errors import InputError
from ..gait.normative import BUILTIN, parse_spec

__all__ = ["STATE_FILE", "LOCK_FILE", "trial_hash", "load_state", "clean_row", "Journal", "folder_lock"]

STATE_FILE = "report_state.sqlite"
LOCK_FILE = ".report.lock"
_FORMAT = 3  # bump when the report's outputs change for the same inputs


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

    Parameters
    ----------
    task : TrialTask
        The trial's task (its files and values).
    options : dict
        The report's options (JSON-friendly).
    memo : dict, optional
        (path, size, mtime) -> the file's hash, kept by the caller across trials.

    Returns
    -------
    str
        64 hex digits.
    """
    h = hashlib.sha256()
    for p in (task.trial, task.static, task.grf):
        h.update(b"\0none\0" if p is None else _cached_digest(p, memo))
    if getattr(task, "subject", None) is not None:  # a subject file: its content, not only its name
        h.update(_cached_digest(task.subject, memo))
    norm = options.get("normative")
    if norm and norm.strip().lower() != "none":  # a normative file's content, not only its name

        path, _ = parse_spec(norm)
        if path != BUILTIN:
            h.update(_cached_digest(path, memo))
    if options.get("muscles"):  # the OpenSim model, the reserves, the IK setup, the loads' ExternalLoads XML: content
        xml = os.path.splitext(task.grf)[0] + ".xml" if task.grf is not None else None
        for path in (options["muscles"], options.get("reserves"), options.get("ik_setup"), xml):
            if path is not None and os.path.isfile(path):
                h.update(_cached_digest(path, memo))
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
    """The row as the state stores it: plain Python values, NaN as None.

    Parameters
    ----------
    row : dict
        A summary row.

    Returns
    -------
    dict
        The same keys with JSON-friendly values.
    """
    return {c: _jsonable(x) for c, x in row.items()}


def load_state(out_dir) -> dict:
    """The saved ``{key: {"hash", "row", "files"}}``; empty when absent or unreadable.

    Opened for writing (``mode=rw``, which does not create the file) so that
    SQLite rolls back a record cut short by a killed run before reading.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder.

    Returns
    -------
    dict
        Trial key -> its hash, summary row and files.
    """
    path = Path(out_dir) / STATE_FILE
    try:
        with contextlib.closing(sqlite3.connect(f"{path.absolute().as_uri()}?mode=rw", uri=True)) as db:
            rows = db.execute("SELECT key, hash, files, row FROM trials WHERE format = ?", (_FORMAT,)).fetchall()
    except sqlite3.Error:  # no state yet, or a damaged file: every trial is computed
        return {}
    return {key: {"hash": h, "row": json.loads(row), "files": json.loads(files)} for key, h, files, row in rows}


class Journal:
    """The state table, open for the records of the trials a run finishes (one transaction each)."""

    def __init__(self, out_dir):
        self.path = Path(out_dir) / STATE_FILE
        try:
            self._db = self._open()
        except sqlite3.DatabaseError as err:
            if isinstance(err, sqlite3.OperationalError):  # locked, cannot open: not a damaged file
                raise
            os.remove(self.path)  # not a database (damaged): start afresh, as load_state did
            self._db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, isolation_level=None, timeout=60)  # autocommit: a statement, a transaction
        try:
            db.execute("PRAGMA synchronous=OFF")
            db.execute("CREATE TABLE IF NOT EXISTS trials "
                       "(key TEXT PRIMARY KEY, format INTEGER, hash TEXT, files TEXT, row TEXT)")
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def record(self, key: str, entry: dict) -> None:
        """Store ``entry`` (hash, row, files) for trial ``key``, replacing an earlier one.

        Parameters
        ----------
        key : str
            The trial's key (its output name).
        entry : dict
            Its "hash", "row" and "files".
        """
        self._db.execute("INSERT OR REPLACE INTO trials VALUES (?, ?, ?, ?, ?)",
                         (key, _FORMAT, entry["hash"], json.dumps(list(entry["files"])),
                          json.dumps(clean_row(entry["row"]), sort_keys=True)))

    def keep_only(self, keys) -> None:
        """Forget the trials not in ``keys`` (the state holds the trials of the last run).

        Parameters
        ----------
        keys : iterable of str
            The keys of the trials to keep.
        """
        stale = {k for (k,) in self._db.execute("SELECT key FROM trials")} - set(keys)
        self._db.executemany("DELETE FROM trials WHERE key = ?", [(k,) for k in sorted(stale)])

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


@contextlib.contextmanager
def folder_lock(out_dir):
    """Hold an exclusive lock on the report folder while a batch writes to it.

    Parameters
    ----------
    out_dir : str or os.PathLike
        The report folder.

    Yields
    ------
    None
        Nothing: the lock is held inside the with block.

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

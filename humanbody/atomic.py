"""Atomic file writing: write to a temporary file beside the target, then rename."""

from __future__ import annotations

import contextlib
import os
import tempfile


def _current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


_UMASK = _current_umask()


@contextlib.contextmanager
def atomic_path(path, suffix: str = ""):
    """Yield a temporary path beside ``path``; on success rename it onto ``path``.

    A reader never sees a half-written file: either the old file or the
    complete new one.  On an exception the temporary file is removed.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write.
    suffix : str
        Added to the temporary file's name (a writer that picks the format by the suffix).

    Yields
    ------
    str
        The temporary file's path, in the folder of ``path``.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix="." + os.path.basename(path) + ".", suffix=suffix or ".tmp", dir=folder)
    os.close(fd)
    try:
        os.chmod(tmp, 0o666 & ~_UMASK)  # mkstemp makes 0600; give the file the usual permissions
        yield tmp
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise


def open_temp(tmp, buffering: int = -1):
    """Open the empty temporary file of :func:`atomic_path` for binary writing, without truncating it.

    ``open(tmp, "wb")`` would truncate the (already empty) file, and on ext4
    a truncated file is flushed to disk when it is closed (the
    ``auto_da_alloc`` safeguard for programs that rewrite a file in place):
    0.2-0.4 s of waiting for a 730 MB results file.  The rename that follows
    is the safeguard this module relies on, so the file is opened as it is.

    Parameters
    ----------
    tmp : str or os.PathLike
        The temporary path :func:`atomic_path` yielded.
    buffering : int
        As :func:`open` takes it.

    Returns
    -------
    file object
        Open for reading and writing bytes, positioned at its start.
    """
    return open(tmp, "r+b", buffering=buffering)


def atomic_write_text(path, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The file to write (replaced whole, or left as it was on an error).
    text : str
        The file's content.
    encoding : str
        The text's encoding.
    """
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding=encoding, newline="") as fh:
            fh.write(text)

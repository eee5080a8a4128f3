"""Is the numba kernel cache warm?  Lets commands say when a first run compiles."""

from __future__ import annotations

from pathlib import Path

_KERNELS = Path(__file__).with_name("_kernels.py")


def kernels_cached() -> bool:
    """True when numba's on-disk cache of :mod:`humanbody._kernels` is newer than its source.

    Numba writes an index file (``*.nbi``) per cached function next to the
    module (``__pycache__``) or, when that folder is not writable, under
    ``NUMBA_CACHE_DIR`` / the user cache; a source change invalidates it.
    This looks only in ``__pycache__`` and errs on the side of "not cached".
    """
    try:
        stamp = _KERNELS.stat().st_mtime
        index = list(_KERNELS.parent.joinpath("__pycache__").glob("_kernels.*.nbi"))
    except OSError:
        return False
    return any(p.stat().st_mtime >= stamp for p in index)

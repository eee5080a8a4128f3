"""Is the numba kernel cache warm?  Lets commands say when a first run compiles."""

from __future__ import annotations

from pathlib import Path

#: The modules holding numba kernels compiled with ``cache=True``.
_MODULES = (Path(__file__).with_name("_kernels.py"), Path(__file__).with_name("_format.py"))


def _cached(module: Path) -> bool:
    try:
        stamp = module.stat().st_mtime
        index = list(module.parent.joinpath("__pycache__").glob(f"{module.stem}.*.nbi"))
    except OSError:
        return False
    return any(p.stat().st_mtime >= stamp for p in index)


def kernels_cached() -> bool:
    """True when numba's on-disk cache of every kernel module is newer than its source.

    Numba writes an index file (``*.nbi``) per cached function next to the
    module (``__pycache__``) or, when that folder is not writable, under
    ``NUMBA_CACHE_DIR`` / the user cache; a source change invalidates it.
    This looks only in ``__pycache__`` and errs on the side of "not cached".
    """
    return all(_cached(m) for m in _MODULES)

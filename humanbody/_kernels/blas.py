"""SciPy's BLAS and LAPACK entry points for numba, without the import of ``scipy.linalg`` (before a compile).

Numba's array lowering (``numba.np.arraymath``, loaded when numba sets its compiler up: with the first
kernel of a process, or before the first compile in a command's own process,
:func:`humanbody._kernels.cache.load_cached_directly`) checks that BLAS is there by
``import scipy.linalg.cython_blas``.  That import runs
``scipy/linalg/__init__.py`` first: the whole of SciPy's linear algebra and, through its array-API
layer, ``numpy.f2py``, ``numpy.testing`` and ``numpy.ma``, about 0.2 CPU-s, while numba uses only the
two extension modules' function pointers (looked up by ``importlib.import_module``).  Loaded here
under their full names, the import finds them in ``sys.modules`` and runs nothing more.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys


def load_blas_modules() -> bool:
    """Load ``scipy.linalg.cython_blas`` and ``cython_lapack`` alone, before numba looks for them.

    For a command's own process (:func:`humanbody._kernels.cache.load_cached_directly`, on a kernel
    that compiles): a ``scipy.linalg`` imported later is
    the whole package as usual, but without these two as attributes (``import_module`` and
    ``sys.modules`` still give them), so a library user's process is left to import them as usual.
    Anything unexpected (no SciPy, another layout) leaves them to numba.

    Returns
    -------
    bool
        True when both are in ``sys.modules`` (loaded here or before, or ``scipy.linalg`` was already
        imported); False when SciPy or the two extension modules were not found, or loading failed.
    """
    if "scipy.linalg" in sys.modules:
        return True
    try:
        scipy = importlib.util.find_spec("scipy")
        folders = [os.path.join(p, "linalg") for p in (scipy.submodule_search_locations or ())] if scipy else []
        for name in ("scipy.linalg.cython_blas", "scipy.linalg.cython_lapack"):
            if name in sys.modules:
                continue
            spec = importlib.machinery.PathFinder.find_spec(name, folders)
            if spec is None or spec.loader is None:
                return False
            module = importlib.util.module_from_spec(spec)
            sys.modules[name] = module
            try:
                spec.loader.exec_module(module)
            except BaseException:
                del sys.modules[name]
                raise
    except Exception:  # noqa: BLE001 - numba then imports them its own way
        return False
    return True

"""``scipy.signal``, imported without importing ``scipy.stats`` on the way.

``import scipy.signal`` imports ``scipy.stats`` (0.4-0.9 s here, a third of
a small trial's run) for a single name, ``scoreatpercentile``, which only
``find_peaks_cwt`` calls.  None of humanbody's filters needs it.  So while
scipy.signal loads, ``sys.modules["scipy.stats"]`` holds a stand-in:

- a name in :data:`_CALLED_LATER` (looked up at import, called later)
  becomes a function that imports the real ``scipy.stats`` when it is first
  called and then calls the real function;
- any other name imports the real ``scipy.stats`` at once and returns the
  real attribute (slow, but never wrong, whatever a later scipy looks up).

The stand-in is removed as soon as scipy.signal is imported; ``import
scipy.stats`` afterwards (by the user or by scipy) loads the real module.  If
scipy.stats is already loaded, nothing is replaced.  Use::

    from ._scipy import signal
"""

from __future__ import annotations

import importlib
import sys
import threading
import types

from ._gc import gc_paused

_CALLED_LATER = frozenset({"scoreatpercentile"})
_LOCK = threading.Lock()


def _real_stats(stand_in):
    """The real scipy.stats, imported after taking the stand-in out of sys.modules."""
    if sys.modules.get("scipy.stats") is stand_in:
        del sys.modules["scipy.stats"]
    return importlib.import_module("scipy.stats")


class _DeferredStats(types.ModuleType):
    """Stand-in for ``scipy.stats`` while scipy.signal is imported (see the module docstring)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        if name in _CALLED_LATER:
            stand_in = self

            def call(*args, **kwargs):
                return getattr(_real_stats(stand_in), name)(*args, **kwargs)

            call.__name__ = call.__qualname__ = name
            call.__doc__ = f"scipy.stats.{name}, imported on first call (humanbody._scipy)."
            return call
        return getattr(_real_stats(self), name)


def _import_signal():
    with _LOCK:
        if "scipy.signal" in sys.modules or "scipy.stats" in sys.modules:
            return importlib.import_module("scipy.signal")
        stand_in = _DeferredStats("scipy.stats")
        sys.modules["scipy.stats"] = stand_in
        try:
            with gc_paused():
                return importlib.import_module("scipy.signal")
        finally:
            if sys.modules.get("scipy.stats") is stand_in:
                del sys.modules["scipy.stats"]


signal = _import_signal()

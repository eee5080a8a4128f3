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

    from humanbody.scipy_signal import signal

SciPy also rewrites the docstring of every public function of
scipy.signal (and of the modules it loads) as it is imported, parsing each
one to append a table of the array libraries it supports (its
``xp_capabilities`` decorator): about 500 docstrings, 40 % of the import
(0.1-0.2 s).  While scipy.signal loads here, that parser is replaced by one
that leaves each docstring as it is (:func:`_docstrings_as_they_are`); the
functions themselves are untouched.  If SciPy's private names differ from
what this expects, nothing is replaced.
"""

from __future__ import annotations

import importlib
import sys
import threading
import types
from contextlib import contextmanager

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
            call.__doc__ = f"scipy.stats.{name}, imported on first call (humanbody.scipy_signal)."
            return call
        return getattr(_real_stats(self), name)


class _DocAsItIs:
    """Stand-in for SciPy's ``FunctionDoc`` in ``xp_capabilities``: the docstring is kept unparsed.

    The decorator appends a note to ``doc["Notes"]`` and keeps what follows
    the first line of ``str(doc)``; here the note goes to a list thrown away
    and ``str`` gives an empty first line and the docstring as it was.
    """

    def __init__(self, func):
        self._text = getattr(func, "__doc__", None) or ""

    def __getitem__(self, section):
        return []

    def __str__(self):
        return "\n" + self._text


@contextmanager
def _docstrings_as_they_are():
    """While inside, SciPy's capability decorator leaves docstrings unparsed (module docstring)."""
    try:
        from scipy._lib import _array_api as api
    except ImportError:  # pragma: no cover - another SciPy layout
        api = None
    real = getattr(api, "FunctionDoc", None)
    if real is None or not callable(getattr(api, "xp_capabilities", None)):
        yield
        return
    api.FunctionDoc = _DocAsItIs
    try:
        yield
    finally:
        api.FunctionDoc = real


def _import_signal():
    with _LOCK:
        if "scipy.signal" in sys.modules or "scipy.stats" in sys.modules:
            return importlib.import_module("scipy.signal")
        stand_in = _DeferredStats("scipy.stats")
        sys.modules["scipy.stats"] = stand_in
        try:
            with gc_paused(), _docstrings_as_they_are():
                return importlib.import_module("scipy.signal")
        finally:
            if sys.modules.get("scipy.stats") is stand_in:
                del sys.modules["scipy.stats"]


signal = _import_signal()

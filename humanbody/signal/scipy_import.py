"""SciPy imported without rewriting its docstrings, in the command line's own process.

SciPy 1.15 and later decorate every function that states its array-API
support (``scipy._lib._array_api.xp_capabilities``): at import, each such
function's docstring is parsed into numpydoc sections
(``scipy._lib._docscrape.FunctionDoc``), a table of the supported array
libraries is added to its Notes, and the docstring is printed back.
Importing ``scipy.signal`` decorates some 650 functions this way (through
``scipy.stats``, ``scipy.interpolate``, ``scipy.spatial``, ...): 0.3-0.4
CPU-s, a third of that import and a fifth of an ``analyze`` of a short
trial, for docstrings a command never shows.

:func:`plain_docstring_notes` makes the decorator append the same table to
the end of the docstring as it stands, without parsing it.  It is installed
by :func:`humanbody.cli.console` only (the command's own process: a
library user's help texts are left as SciPy makes them), takes effect when
``scipy._lib._array_api`` is first imported (nothing is imported for it),
and changes nothing if SciPy's layout differs from the one it expects.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys

#: The SciPy module whose decorator parses docstrings, and the name it calls the parser by.
MODULE = "scipy._lib._array_api"
PARSER = "FunctionDoc"


class PlainDoc:
    """A function's docstring as it stands, with notes appended, in the part of ``FunctionDoc``'s interface
    that SciPy's ``xp_capabilities`` decorator uses (``doc["Notes"].append(note)``, then ``str(doc)``, whose
    first line, the signature, the decorator drops).

    Parameters
    ----------
    func : callable
        The decorated function (or ufunc); its ``__doc__`` (None: empty) is kept as it is.
    *args, **kwargs
        ``FunctionDoc``'s other arguments, ignored.
    """

    humanbody_plain = True

    def __init__(self, func, *args, **kwargs) -> None:
        self._doc = getattr(func, "__doc__", None) or ""
        self._notes: list = []

    def __getitem__(self, key: str) -> list:
        """The notes to append (``key`` ``"Notes"``; any other section is unknown here).

        Parameters
        ----------
        key : str
            A numpydoc section name.

        Returns
        -------
        list
            The notes, appended to the end of the docstring by :meth:`__str__`.
        """
        if key != "Notes":
            raise KeyError(key)
        return self._notes

    def __str__(self) -> str:
        """An empty signature line, then the docstring and the notes, each after a blank line.

        Returns
        -------
        str
        """
        notes = "".join(f"\n\n{note}" for note in self._notes)
        return "\n" + self._doc.rstrip() + notes


class _Loader(importlib.abc.Loader):
    """The ordinary loader of :data:`MODULE`, then the parser replaced in the loaded module."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        if isinstance(getattr(module, PARSER, None), type) and callable(getattr(module, "xp_capabilities", None)):
            setattr(module, PARSER, PlainDoc)


class _Finder(importlib.abc.MetaPathFinder):
    """Finds :data:`MODULE` once, through the other finders, and wraps its loader in :class:`_Loader`."""

    def find_spec(self, name, path, target=None):
        if name != MODULE:
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        spec.loader = _Loader(spec.loader)
        return spec


def plain_docstring_notes() -> bool:
    """Have SciPy's array-API decorator append its notes to docstrings without parsing them (from now on).

    Returns
    -------
    bool
        True when the change is installed: before ``scipy._lib._array_api`` is imported it waits for that
        import; if the module is already imported, its parser is replaced at once when it has the expected
        layout.
    """
    module = sys.modules.get(MODULE)
    if module is not None:
        if isinstance(getattr(module, PARSER, None), type) and callable(getattr(module, "xp_capabilities", None)):
            setattr(module, PARSER, PlainDoc)
            return True
        return getattr(getattr(module, PARSER, None), "humanbody_plain", False)
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    return True

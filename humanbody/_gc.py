"""The garbage collector paused while big packages are imported.

Importing numpy, pandas, numba and scipy allocates a few hundred
thousand objects, and Python's cyclic collector runs a full pass over all
of them every so often while they arrive: about 300 collections and
0.1-0.2 s of a run's start-up, for imports that leave no cycles to free.
:func:`gc_paused` turns the collector off for the duration of a block and
back on after it (only if it was on), so a program that embeds humanbody
keeps its own setting.

The command line owns its process, so it also sets :data:`freeze_after`:
every paused block then ends with :func:`gc.freeze`, which moves the objects
alive at that moment (modules, functions, classes: alive to the end) out of
the collector's sight, and the later collections during the analysis look
at the objects the analysis makes only (0.1-0.25 s less per run).  A library
user's objects are never frozen.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager

#: Set by :func:`humanbody.cli.console`: freeze what is alive after each paused block.
freeze_after = False


@contextmanager
def gc_paused():
    """Collector off inside the block; restored to its previous state after it.

    Yields
    ------
    None
        Nothing: the collector is off inside the with block.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze_after:
            gc.freeze()
        if was_enabled:
            gc.enable()

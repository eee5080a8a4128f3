"""A first run's second compiler: a helper process that compiles, from the
end of the list, the kernels ``analyze`` and ``report`` use, while the
command compiles them from the start.

Numba compiles one kernel at a time on one core.  Each process writes what
it compiles to numba's on-disk cache (``cache=True``), and a process that
reaches a kernel the other has finished loads it from there (numba reads a
kernel's cache index whenever it needs a signature it does not hold).  The
two meet about halfway, so a first run on two cores compiles in about half
the wall time.  The helper is stopped when the command ends.

The kernels and their argument types are listed in ``first_run.txt``
(``module.function``, a tab, the signature as numba prints it), in the order
a first ``analyze`` of a marker trial compiles them;
``benchmarks/first_run_kernels.py`` writes the list (with an empty
``NUMBA_CACHE_DIR``), and a test checks it against what ``analyze`` and
``report`` use.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import signal
import subprocess
import sys
from pathlib import Path

from numba.core import types
from numba.core.registry import CPUDispatcher

from .cache import cached_signatures, drop_stale_kernels

LIST = Path(__file__).with_name("first_run.txt")


def entries(path: Path | None = None) -> list[tuple[str, str]]:
    """The listed kernels of ``first_run.txt`` (or of another list in its layout), in order.

    Parameters
    ----------
    path : Path, optional
        A list of kernels, one ``module.function<TAB>signature`` a line (default: :data:`LIST`, the first
        run's list; the test suite keeps its own, ``tests/kernels.txt``).

    Returns
    -------
    list of (str, str)
        ``(module.function`` under :mod:`humanbody._kernels`, the argument types as numba prints them).
    """
    out = []
    for line in (LIST if path is None else path).read_text().splitlines():
        name, _, sig = line.partition("\t")
        if name and sig:
            out.append((name, sig))
    return out


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def start() -> subprocess.Popen | None:
    """Start the helper (silent, its own process) when this machine has a second core.

    Returns
    -------
    subprocess.Popen or None
        The helper's process; None on one core, with ``HUMANBODY_FIRST_RUN_HELPER=0``, or when it cannot start.
    """
    if _cores() < 2 or os.environ.get("HUMANBODY_FIRST_RUN_HELPER", "1") == "0":
        return None
    try:
        return subprocess.Popen([sys.executable, "-m", "humanbody._kernels.warm"], stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:  # no helper: the command compiles everything itself, as it would anyway
        return None


def stop(proc: subprocess.Popen | None) -> None:
    """End the helper if it still runs (it stops between two files of numba's cache, never inside one write).

    Parameters
    ----------
    proc : subprocess.Popen or None
        What :func:`start` returned.
    """
    if proc is None or proc.poll() is not None:
        return
    with contextlib.suppress(OSError):
        proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def signature(text: str) -> tuple:
    """The argument types a line of ``first_run.txt`` names (numba's own printing of them).

    Parameters
    ----------
    text : str
        The signature text, e.g. ``(array(float64, 2d, C), int64)``.

    Returns
    -------
    tuple of numba types
        The argument types, as numba's dispatcher takes them to compile.
    """
    names = dict(vars(types))
    names["bool"] = types.boolean
    return eval(text, {"__builtins__": {}}, names)  # noqa: S307 - our own file of type names


def compile_listed(order: list[tuple[str, str]], skip_errors: bool = False) -> int:
    """Compile (or load from the cache) each listed kernel, in ``order``.

    Parameters
    ----------
    order : list of (str, str)
        Entries as :func:`entries` gives them.
    skip_errors : bool, optional
        Pass over an entry that no longer names a kernel or whose signature no longer compiles (a list
        written before the kernel changed); by default such an entry raises.

    Returns
    -------
    int
        How many were compiled or loaded.
    """
    done = 0
    for name, sig in order:
        module, _, function = name.rpartition(".")
        try:
            dispatcher = getattr(importlib.import_module(f"humanbody._kernels.{module}"), function)
            dispatcher.compile(signature(sig))
        except Exception:
            if not skip_errors:
                raise
            continue
        done += 1
    return done


def load_serial(order: list[tuple[str, str]] | None = None) -> int:
    """Load (or compile) the listed kernels that run on one thread, leaving this process safe to fork.

    A process that forks workers loads these once, with numba's own
    start-up (its typing and lowering registries, about half of what a
    worker's first kernel costs), and its forked workers inherit them
    (:func:`humanbody.report.trial.prepare_workers`).  Parallel kernels are
    left out: loading one starts numba's threads, which a forked child
    cannot use.

    Parameters
    ----------
    order : list of (str, str), optional
        Entries as :func:`entries` gives them (default: the whole list).

    Returns
    -------
    int
        How many were loaded.
    """
    serial = []
    for name, sig in entries() if order is None else order:
        module, _, function = name.rpartition(".")
        dispatcher = getattr(importlib.import_module(f"humanbody._kernels.{module}"), function)
        if not dispatcher.targetoptions.get("parallel"):
            serial.append((name, sig))
    return compile_listed(serial)


def used() -> list[tuple[str, str]]:
    """Every kernel signature this process has compiled or loaded so far.

    Returns
    -------
    list of (str, str)
        ``(module.function``, signature text), as ``first_run.txt`` lists them.
    """
    out = []
    for modname, module in sorted(sys.modules.items()):
        if not modname.startswith("humanbody._kernels."):
            continue
        for attr, obj in sorted(vars(module).items()):
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == modname:
                out += [(f"{modname.rpartition('.')[2]}.{attr}", repr(s)) for s in obj.signatures]
    return out


def missing(order: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """The entries of ``order`` that numba's on-disk cache does not hold for the current sources.

    Nothing is imported or compiled: the cache's index files are read
    (:func:`humanbody._kernels.cache.cached_signatures`), after the kernels
    that inline edited helpers are dropped as every kernel module drops them
    on import (:func:`humanbody._kernels.cache.drop_stale_kernels`).

    Parameters
    ----------
    order : list of (str, str)
        Entries as :func:`entries` gives them.

    Returns
    -------
    list of (str, str)
        The entries not cached, in the order of ``order``.
    """
    drop_stale_kernels()
    cached = cached_signatures()
    return [(name, sig) for name, sig in order if sig not in cached.get(name, ())]


def compile_in_processes(path: Path, processes: int = 2) -> int:
    """Compile the kernels of a list that the cache lacks, in ``processes`` silent processes, and wait for them.

    With two processes one compiles the missing entries from the start of
    the list and the other from its end; each loads from numba's cache what
    the other has already written, so they meet about halfway.  When one
    has gone through the whole list every entry is cached and the other is
    stopped (it stops between two files of the cache).  With one process (or one
    core) this process compiles them itself.  A process that fails leaves
    its kernels to be compiled where they are first used, as without this.

    Parameters
    ----------
    path : Path
        The list (:func:`entries`' layout), e.g. ``tests/kernels.txt``.
    processes : int, optional
        1 or 2: the number of compiling processes (default 2; 1 on a machine with one core).

    Returns
    -------
    int
        How many entries were missing from the cache (0: nothing was started).
    """
    todo = missing(entries(path))
    if not todo:
        return 0
    if processes < 2 or _cores() < 2:
        compile_listed(todo, skip_errors=True)
        return len(todo)
    cmd = [sys.executable, "-m", "humanbody._kernels.warm", "--list", str(path)]
    procs = []
    for extra in ([], ["--from-end"]):
        try:
            procs.append(subprocess.Popen(cmd + extra, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
        except OSError:  # the kernels are compiled where they are first used, as without this
            break
    # until one has gone through the whole list (or every one has ended): then everything listed is cached
    while procs and not any(p.poll() == 0 for p in procs) and any(p.poll() is None for p in procs):
        with contextlib.suppress(subprocess.TimeoutExpired):
            next(p for p in procs if p.poll() is None).wait(timeout=0.2)
    for proc in procs:
        stop(proc)
    return len(todo)


def _helper(argv: list[str]) -> int:
    """The helper: compile a list (default: the first run's, from its end), until done or told to stop.

    Parameters
    ----------
    argv : list of str
        ``[--list PATH] [--from-end]``: with ``--list`` the missing entries of that list, from its start
        unless ``--from-end``; without it the first run's list from its end (:func:`start`).
    """

    def _stop(signum, frame):
        raise SystemExit(0)  # unwinds numba's write of a cache file, which removes its temporary file

    signal.signal(signal.SIGTERM, _stop)
    if "--list" in argv:
        order = missing(entries(Path(argv[argv.index("--list") + 1])))
        compile_listed(order[::-1] if "--from-end" in argv else order, skip_errors=True)
    else:
        compile_listed(entries()[::-1])
    return 0


if __name__ == "__main__":
    sys.exit(_helper(sys.argv[1:]))

"""Numba's on-disk kernel cache: is it warm (commands say when a first run
compiles), is it still valid for the shared inline helpers, and loading it
without numba's compiler set-up (:func:`load_cached_directly`)?"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import pickle
import re
import sys
from pathlib import Path

_HERE = Path(__file__).parent
_KERNEL = re.compile(r"^@nb\.njit\((?![^)]*inline=\"always\")[^)]*cache=", re.M)
_SIBLING = re.compile(r"^from \.(\w+) import", re.M)


def _sources() -> dict[Path, str]:
    out = {}
    for path in sorted(_HERE.glob("*.py")):
        try:
            out[path] = path.read_text()
        except OSError:
            continue
    return out


def _inlined(sources: dict[Path, str]) -> dict[Path, tuple[Path, ...]]:
    """Helper module -> the kernel modules that inline it, directly or through another helper."""
    imports = {path: {_HERE / f"{name}.py" for name in _SIBLING.findall(text)} for path, text in sources.items()}
    out = {}
    for helpers in sources:
        dependents: set[Path] = set()
        grow = True
        while grow:
            new = {p for p, deps in imports.items() if deps & (dependents | {helpers})} - dependents - {helpers}
            dependents |= new
            grow = bool(new)
        dependents.discard(_HERE / "cache.py")
        if dependents and helpers.name != "cache.py":
            out[helpers] = tuple(sorted(dependents))
    return out


_SOURCES = _sources()
#: The modules holding numba kernels compiled with ``cache=True`` (every module
#: of this folder with a kernel that is not only inlined into others).
_MODULES = tuple(path for path, text in _SOURCES.items() if _KERNEL.search(text))


def _cached(module: Path) -> bool:
    try:
        stamp = module.stat().st_mtime
        source = hashlib.sha256(module.read_bytes()).digest()
        index = list(module.parent.joinpath("__pycache__").glob(f"{module.stem}.*.nbi"))
    except OSError:
        return False
    for path in index:
        fresh = _index_matches(path, source)
        if fresh is None:  # an index this numba does not write: judge by its age
            fresh = path.stat().st_mtime >= stamp
        if fresh:
            return True
    return False


def _index_matches(path: Path, source: bytes) -> bool | None:
    """Whether a numba index file was written for this source (numba >= 0.61 stamps the SHA-256 of the file).

    None when the file cannot be read that way.  Numba has no public call
    that says whether a function's cache is valid without loading (or
    compiling) it, which is what the notice before a first run must avoid;
    so the index (a pickle: numba's version, then the source stamp) is read
    here, and any layout this does not recognise falls back to comparing
    file ages (:func:`_cached`), never to an error.
    """
    try:
        with open(path, "rb") as f:
            pickle.load(f)  # numba's version key
            stamp = pickle.loads(f.read())[0]
    except Exception:  # noqa: BLE001 - any unreadable index is simply "unknown"
        return None
    if isinstance(stamp, bytes):
        return stamp == source
    return None


def kernels_cached() -> bool:
    """True when numba's on-disk cache of every kernel module is newer than its source.

    Numba writes an index file (``*.nbi``) per cached function next to the
    module (``__pycache__``) or, when that folder is not writable, under
    ``NUMBA_CACHE_DIR`` / the user cache; it stamps the index with the
    SHA-256 of the source, so an edit invalidates it and a mere touch does
    not.  This reads the stamps in ``__pycache__`` (files it cannot read are
    judged by their age) and errs on the side of "not cached".

    Returns
    -------
    bool
        Whether every kernel module's cache index is newer than its source (False: a first run compiles).
    """
    return all(_cached(m) for m in _MODULES)


def cached_signatures() -> dict[str, set[str]]:
    """The signatures numba's on-disk cache holds for the current source of each kernel module, by kernel.

    Reads the index files (``*.nbi``) in each kernel module's ``__pycache__``
    whose stamp is the SHA-256 of the module's current source (as
    :func:`kernels_cached` does), without importing the kernel modules or
    compiling anything; unpickling an index imports numba's type classes.
    An index this cannot read counts as holding nothing, so the answer errs
    on the side of "not cached".

    Returns
    -------
    dict of str to set of str
        ``module.function`` (the module's name under :mod:`humanbody._kernels`) to the argument types of
        each cached signature as numba prints them (``repr`` of the tuple of types), the form
        ``first_run.txt`` and ``tests/kernels.txt`` list them in.
    """
    out: dict[str, set[str]] = {}
    for module in _SOURCES:  # every module: a kernel inlined elsewhere is cached too when called directly
        try:
            source = hashlib.sha256(module.read_bytes()).digest()
            index = sorted(module.parent.joinpath("__pycache__").glob(f"{module.stem}.*.nbi"))
        except OSError:
            continue
        for path in index:
            function = path.name[len(module.stem) + 1:].partition("-")[0]
            try:
                with open(path, "rb") as f:
                    pickle.load(f)  # numba's version key
                    stamp, overloads = pickle.loads(f.read())
            except Exception:  # noqa: BLE001 - an unreadable index holds nothing we can use
                continue
            if stamp != source:
                continue
            sigs = out.setdefault(f"{module.stem}.{function}", set())
            sigs.update(repr(tuple(key[0])) for key in overloads)
    return out


#: Modules whose kernels inline helpers from another module, and that module.
#: Numba keys a cached kernel on its own module's source only, so an edit of
#: the helpers would leave the kernels that inline them stale.  Read from the
#: sibling imports (``from .rot import ...``) of the modules in this folder.
_INLINED = _inlined(_SOURCES)


def drop_stale_kernels() -> None:
    """Remove the cached kernels that inline helpers whose source has changed since they were cached.

    A stamp file beside each helper module's cache (``__pycache__/<name>.helpers``)
    holds the SHA-256 of the helper source the cached kernels were built
    with; when the source differs, the dependent modules' ``*.nbi``/``*.nbc``
    files are deleted (numba then compiles afresh) and the stamp renewed.
    Anything unreadable or unwritable is left alone.
    """
    for helpers, dependents in _INLINED.items():
        try:
            digest = hashlib.sha256(helpers.read_bytes()).hexdigest()
        except OSError:
            continue
        stamp = helpers.parent / "__pycache__" / f"{helpers.stem}.helpers"
        try:
            if stamp.read_text() == digest:
                continue
        except OSError:
            pass
        try:
            for module in dependents:
                for path in module.parent.joinpath("__pycache__").glob(f"{module.stem}.*.nb[ic]"):
                    path.unlink()
            stamp.parent.mkdir(exist_ok=True)
            stamp.write_text(digest)
        except OSError:
            continue


@contextlib.contextmanager
def announce_compilation(message: str, stream=None):
    """While the ``with`` block runs, print ``message`` once if numba compiles one of humanbody's kernels.

    Numba raises its ``numba:compile`` event only on a cache miss (a kernel
    loaded from the on-disk cache raises none), so the notice appears when
    kernels actually compile and never on a run that loads them.  The
    listener is removed when the block ends, and the stream (default: the
    ``sys.stderr`` of the moment) is looked up when the notice is printed,
    so a process that runs many commands (tests, notebooks) keeps no stale
    listener or stream.

    Parameters
    ----------
    message : str
        The one line to print (a command's "compiling the kernels" notice).
    stream : file object, optional
        Where to print it (default: the ``sys.stderr`` of the moment it is printed).

    Yields
    ------
    None
        Nothing: the block runs with the announcement armed.
    """
    from numba.core import event as ev  # lazy: numba, ~0.3 s, only while a command runs

    class _Once(ev.Listener):
        done = False

        def on_start(self, event):
            if self.done:
                return
            disp = (event.data or {}).get("dispatcher")
            module = getattr(getattr(disp, "py_func", None), "__module__", "") or ""
            if module.startswith("humanbody"):
                self.done = True
                try:
                    print(message, file=sys.stderr if stream is None else stream, flush=True)
                except (OSError, ValueError):  # a closed or broken stream: the notice is only a courtesy
                    pass

        def on_end(self, event):
            pass

    listener = _Once()
    ev.register("numba:compile", listener)
    try:
        yield
    finally:
        ev.unregister("numba:compile", listener)


#: Modules numba imports with itself that only its compiler's set-up (the entry points of its extensions) or
#: a ``.numba_config.yaml`` in the working folder uses: about 0.05 CPU-s of a command's start-up.
_ONLY_COMPILING = ("importlib.metadata", "yaml")


def _defer_import(name: str) -> None:
    """Import ``name`` lazily (:class:`importlib.util.LazyLoader`): the module runs when one of its attributes
    is first used, if ever; nothing changes when it is already imported or cannot be found."""
    if name in sys.modules:
        return
    try:
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return
        spec.loader = importlib.util.LazyLoader(spec.loader)
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except Exception:  # noqa: BLE001 - left to the ordinary import
        sys.modules.pop(name, None)
        return
    parent, _, child = name.rpartition(".")
    if parent in sys.modules:
        setattr(sys.modules[parent], child, module)


@contextlib.contextmanager
def _quiet_llvm_lock():
    """Without numba's ``numba:llvm_lock`` events (its compile-time statistics) on each of llvmlite's calls
    while the block runs: reading a cached kernel makes some 300 such calls (about 4 µs each, with the events).
    llvmlite keeps its lock's callbacks in a list of its own; anything else leaves them as they are."""
    import llvmlite.binding.ffi as ffi  # lazy: numba is already imported

    callbacks = getattr(getattr(getattr(ffi, "lib", None), "_lock", None), "_cblist", None)
    if not isinstance(callbacks, list):
        yield
        return
    saved = list(callbacks)
    for pair in saved:
        ffi.unregister_lock_callback(*pair)
    try:
        yield
    finally:
        for pair in saved:
            ffi.register_lock_callback(*pair)


def load_cached_directly() -> bool:
    """Load cached kernels without first setting up numba's compiler, in this process (a command's own).

    Numba's ``Cache.load_overload`` refreshes the target context before it
    reads a cached kernel: it imports and installs every typing and
    lowering registry (``numba.np.arraymath``, ``numba.typed``, the
    random generators, third-party entry points, and through
    ``numba.np.linalg`` SciPy's BLAS), about 0.2 CPU-s that only compiling
    uses.  A kernel read from the cache is machine code with its
    environment; running it needs numba's runtime (NRT, for the arrays it
    allocates), initialised here, and the helper symbols the target context
    installs when it is made.  So this replaces ``load_overload`` by one
    that initialises the runtime and reads the cache; on a miss (nothing
    cached for that signature) numba compiles as usual, and its compiler
    refreshes the context itself (``compile_extra``).  Numba's extensions
    (its ``numba_extensions`` entry points, which numba otherwise loads at
    any kernel's first call, cached or not) are loaded before the first
    kernel that compiles, cached or not (numba's ``numba:compile`` event),
    after SciPy's two BLAS/LAPACK modules alone (:mod:`.blas`).  Anything
    unexpected (another numba layout) leaves numba as it is.  Called before
    numba is imported, it also defers the modules numba imports for its
    compiler alone (:data:`_ONLY_COMPILING`) to their first use.

    Returns
    -------
    bool
        True when cached kernels load this way from now on in this process.
    """
    if "numba" not in sys.modules:
        for name in _ONLY_COMPILING:
            _defer_import(name)
    try:
        from numba.core import caching, entrypoints  # lazy: numba, imported after the deferrals above
        from numba.core import event as ev  # lazy: numba, as above
        from numba.core.runtime import nrt  # lazy: numba, as above
    except ImportError:  # pragma: no cover - numba is a dependency
        return False
    cache = caching.Cache
    if getattr(cache.load_overload, "humanbody_direct", False):
        return True
    if not (hasattr(cache, "_load_overload") and hasattr(cache, "_guard_against_spurious_io_errors")
            and callable(getattr(getattr(nrt, "rtsys", None), "initialize", None))
            and isinstance(getattr(entrypoints, "_already_initialized", None), bool)):
        return False

    def load_overload(self, sig, target_context):
        nrt.rtsys.initialize(target_context)
        with self._guard_against_spurious_io_errors(), _quiet_llvm_lock():
            return self._load_overload(sig, target_context)

    class BeforeCompiling(ev.Listener):
        """Before the first kernel that compiles (cached or not): what the loads held back, once."""

        done = False

        def on_start(self, event):
            if self.done:
                return
            self.done = True
            from .blas import load_blas_modules  # lazy: only before a compile

            load_blas_modules()  # the compiler's set-up checks for BLAS: SciPy's two modules, alone
            entrypoints._already_initialized = False
            entrypoints.init_all()  # numba's extensions, as numba would have loaded them

        def on_end(self, event):
            pass

    if not entrypoints._already_initialized:  # numba loads them at a dispatcher's first call otherwise
        entrypoints._already_initialized = True
        ev.register("numba:compile", BeforeCompiling())
    load_overload.humanbody_direct = True  # type: ignore[attr-defined]
    load_overload.__doc__ = caching.Cache.load_overload.__doc__
    cache.load_overload = load_overload
    return True

"""The ``humanbody`` command line: one entry point, one module per subcommand.

Each module in :mod:`humanbody.commands` defines ``register(subparsers)``
which adds its parser and sets ``func`` to the function that runs it.
Bad input (:class:`~humanbody.errors.InputError`) becomes one line on
stderr and exit status 2, never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import importlib
import os
import sys

from . import __version__
from .errors import InputError

#: Subcommands in the order ``--help`` lists them.
COMMANDS = ("analyze", "report", "compare", "view", "model", "markerset", "simulate", "vibration", "muscles")

#: Subcommands that run numba kernels.
KERNEL_COMMANDS = ("analyze", "report", "view", "simulate", "vibration", "muscles")

EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2

#: Optional packages -> (what needs them, the extra that installs them; None: humanbody's own requirement).
OPTIONAL: dict[str, tuple[str, str | None]] = {
    "pyvista": ("the 3-D viewer", "viewer"), "vtk": ("the 3-D viewer", "viewer"),
    "imageio": ("movies of the viewer", "viewer"), "imageio_ffmpeg": ("movies of the viewer", "viewer"),
    "ezc3d": ("reading C3D files", "c3d"),
    "dask": ("running on a Dask cluster", "cluster"), "distributed": ("running on a Dask cluster", "cluster"),
    # requirements of humanbody itself (None: no extra), missing from a broken installation
    "matplotlib": ("drawing figures", None), "pyarrow": ("Parquet tables", None),
}


def missing_optional(err: ModuleNotFoundError) -> str | None:
    """The one-line message for an optional package that is not installed, or None for any other module.

    Parameters
    ----------
    err : ModuleNotFoundError
        The failed import; its ``name`` is the module that was not found.

    Returns
    -------
    str or None
        What needs the package, its name and the ``pip install`` line of the extra that brings it (plain
        ``humanbody`` for one of humanbody's own requirements); None when the module is not in ``OPTIONAL``.
    """
    top = (err.name or "").split(".")[0]
    if top not in OPTIONAL:
        return None
    what, extra = OPTIONAL[top]
    target = f"humanbody[{extra}]" if extra else "humanbody"
    return f"{what} needs the package {top!r}, which is not installed: pip install \"{target}\""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (the problem and where to read more), exit status 2,
    as every other refused input; ``--help`` still prints the full usage."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _command_of(argv) -> str | None:
    """The subcommand ``argv`` names (its first word that is not an option), when it is one of :data:`COMMANDS`."""
    words = [a for a in (sys.argv[1:] if argv is None else argv) if not a.startswith("-")]
    return words[0] if words and words[0] in COMMANDS else None


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``only`` (a command run needs its own parser, not the others':
    their modules' imports are start-up time).

    Parameters
    ----------
    only : str, optional
        A subcommand's name.

    Returns
    -------
    argparse.ArgumentParser
        The humanbody command's parser with its subcommands.
    """
    parser = _Parser(
        prog="humanbody",
        description=(
            "Mechanics of a 17-segment human body model from motion-capture trials: "
            "angular velocities and accelerations, joint and mass-centre motion, "
            "inertia dyadics, inertia forces and torques (Huston's formulation)."
        ),
    )
    parser.add_argument("--version", action="version", version=f"humanbody {__version__}")
    parser.add_argument(
        "--debug", action="store_true", help="show Python tracebacks for errors (for bug reports)"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS if only is None else (only,):
        try:
            module = importlib.import_module(f"humanbody.commands.{name}")
        except ModuleNotFoundError as err:  # a subcommand whose module is not built yet
            if err.name != f"humanbody.commands.{name}":
                raise
            continue
        module.register(sub)
    return parser


#: On a first run (kernels not cached) of ``analyze`` or ``report``, compile kernels in a second process too
#: (:mod:`humanbody._kernels.warm`): the console entry point sets it, in-process callers (tests, notebooks) do not.
first_run_helper = False

#: The process is the command's own (the console entry point sets it): numba may be set up for it alone.
own_process = False


def console(argv=None) -> int:
    """Entry point of the installed ``humanbody`` command and of ``python -m humanbody``.

    The process is the command's own, so it is set up for the command
    before anything numerical is imported:

    - idle OpenMP workers (numba's parallel kernels) and OpenBLAS threads
      (numpy's, scipy's) sleep at once instead of spinning for a while after
      each parallel region (``OMP_WAIT_POLICY=PASSIVE``,
      ``OPENBLAS_THREAD_TIMEOUT=4``, the shortest OpenBLAS accepts), so they
      do not take the core of the CSV writer or of another trial's process
      (about 1.5 CPU-s of a 100,000-frame analysis); a policy the user set
      is kept, and batch workers inherit it;
    - the objects alive once its modules are imported (modules, classes,
      functions: alive to the end) are taken out of the cyclic garbage
      collector's sight (:func:`gc.freeze`, here and after each later import
      block, :mod:`humanbody._gc`); its collections during the analysis then
      look only at what the analysis makes;
    - cached kernels load without numba's compiler set-up (its typing and
      lowering registries, about 0.2 CPU-s), which numba makes only when a
      kernel compiles; its check for BLAS then finds SciPy's two BLAS/LAPACK
      modules loaded alone instead of importing the whole of
      ``scipy.linalg`` (:func:`humanbody._kernels.cache.load_cached_directly`);
    - SciPy's array-API decorator appends its support tables to the
      docstrings of SciPy's functions without parsing each docstring first
      (0.3-0.4 CPU-s of importing ``scipy.signal``,
      :func:`humanbody.signal.scipy_import.plain_docstring_notes`).

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The exit status (:func:`main`'s).
    """
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")
    from . import _gc  # lazy: only the console entry point freezes the collector
    from .signal.scipy_import import plain_docstring_notes  # lazy: only the console entry point

    plain_docstring_notes()

    _gc.freeze_after = True
    gc.freeze()
    global first_run_helper, own_process
    first_run_helper = own_process = True
    return main(argv)


def main(argv=None) -> int:
    """Run the command line; return the exit status.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 for bad input (one line, no traceback), 1 for another failure.
    """
    parser = build_parser(_command_of(argv))
    args = parser.parse_args(argv)
    notice: contextlib.AbstractContextManager[None] = contextlib.nullcontext()
    second = None
    if args.command in KERNEL_COMMANDS:
        from ._kernels.cache import (  # lazy: numba, only for commands that run kernels
            announce_compilation,
            kernels_cached,
        )

        if own_process:
            from ._gc import gc_paused  # lazy: only the command's own process
            from ._kernels.cache import load_cached_directly  # lazy: imports numba

            with gc_paused():  # numba's import: no cycles worth collecting
                load_cached_directly()
        if not kernels_cached():  # some kernel has no cache yet: say so if, and when, one compiles
            if not getattr(args, "quiet", False):
                notice = announce_compilation("humanbody: compiling the numerical kernels this command needs (once "
                                              "each: under a minute on two idle cores; cached for later runs)")
            if first_run_helper and args.command in ("analyze", "report"):
                from ._kernels import warm  # lazy: numba, on a first run only

                second = warm.start()
    try:
        with notice:
            status = args.func(args)
    except InputError as err:
        if args.debug:
            raise
        print(f"humanbody {args.command}: error: {err.on_command_line()}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print(f"humanbody {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # output piped into a program that stopped reading (head, less)
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except MemoryError:
        print(f"humanbody {args.command}: error: out of memory", file=sys.stderr)
        return EXIT_FAILED
    except ModuleNotFoundError as err:
        line = missing_optional(err)
        if line is None:
            if args.debug:
                raise
            print(f"humanbody {args.command}: internal error: ModuleNotFoundError: {err} "
                  "(run with --debug for a traceback and please report it)", file=sys.stderr)
            return EXIT_FAILED
        print(f"humanbody {args.command}: error: {line}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except Exception as err:  # an internal bug: one line, traceback with --debug
        if args.debug:
            raise
        print(
            f"humanbody {args.command}: internal error: {type(err).__name__}: {err} "
            "(run with --debug for a traceback and please report it)",
            file=sys.stderr,
        )
        return EXIT_FAILED
    finally:
        if second is not None:
            warm.stop(second)
    return EXIT_OK if status is None else int(status)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())

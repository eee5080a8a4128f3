"""The command line run inside the test process: what a subprocess would show, without its start-up.

A ``python -m humanbody`` subprocess pays 1-3 CPU-s importing NumPy, pandas,
SciPy and numba before it reads its first argument; a test module with many
bad-input cases runs one of them in a real process (exit status, no
traceback) and the others here, where the modules are already imported.
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import warnings

from humanbody.cli import main


def run_main(*args: str) -> subprocess.CompletedProcess:
    """``humanbody ARGS`` by :func:`humanbody.cli.main` in this process.

    Returns a CompletedProcess with the exit status (``main``'s, or a
    ``SystemExit``'s: argparse's usage errors), stdout and stderr; a Python
    warning raised meanwhile is appended to stderr as the interpreter would
    print it, so a test that wants one line on stderr sees it too.
    """
    out, err = io.StringIO(), io.StringIO()
    with warnings.catch_warnings(record=True) as caught, contextlib.redirect_stdout(out), \
            contextlib.redirect_stderr(err):
        warnings.simplefilter("always")
        try:
            status = main(list(args))
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    text = err.getvalue() + "".join(warnings.formatwarning(w.message, w.category, w.filename, w.lineno)
                                    for w in caught)
    return subprocess.CompletedProcess(["humanbody", *args], status, out.getvalue(), text)

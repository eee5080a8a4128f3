import sys
from pathlib import Path

import pytest

# Every folder imports the helpers (_motion.py, _shared.py, ...) by module name: tests/ goes on
# sys.path, at the end, so that a test folder named like a module (tests/signal/: signal) never
# hides that module.  Test modules import one another as tests.<folder>.test_x.
sys.path.append(str(Path(__file__).resolve().parent))
from _shared import require_shared  # noqa: E402


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared data folder, ``../shared/data`` relative to the repository root (tests/_shared.py).

    The test is skipped, always with the same reason, when the folder is absent.
    """
    return require_shared()


#: Every kernel signature the quick suite compiles (``benchmarks/test_run_kernels.py`` writes it from numba's
#: cache of a checkout where the suite ran): compiled before the workers start (:func:`_compile_kernels_once`).
KERNELS = Path(__file__).resolve().with_name("kernels.txt")


def _compile_kernels_once(config) -> bool:
    """Compile the suite's kernels that numba's cache lacks in two processes, before pytest-xdist's workers start.

    Without this each worker compiles a kernel where one of its tests first
    needs it, and both workers compile the kernels both need before either
    has cached them; this process (the controller, which runs no tests)
    would compile the first ``analyze``'s kernels on one core first.  The
    two processes split :data:`KERNELS` (one from each end, loading what
    the other has cached; :func:`humanbody._kernels.warm.compile_in_processes`).
    Nothing starts when the cache holds every listed signature (reading its
    index costs about 0.3 CPU-s, numba's import included), in a worker, in
    a run without workers, in a run of chosen test folders or files (they
    may need few of the kernels; ``HUMANBODY_TEST_COMPILE=1`` compiles the
    list for them too), or with ``HUMANBODY_TEST_COMPILE=0``.  One line
    says how long it took: pytest's own "in N s" counts from after this
    hook.

    Parameters
    ----------
    config : pytest.Config
        The session's configuration (``numprocesses`` is pytest-xdist's ``-n``, resolved to a count).

    Returns
    -------
    bool
        True in the controller of a run with workers (which then runs no analysis of its own: its workers
        each run one, loading the kernels compiled here).
    """
    import os
    import time

    if hasattr(config, "workerinput") or (getattr(config.option, "numprocesses", None) or 0) < 2:
        return False
    choice = os.environ.get("HUMANBODY_TEST_COMPILE", "")
    tests = Path(__file__).resolve().parent
    whole = all(Path(arg.split("::")[0]).resolve() in (tests, tests.parent) for arg in config.args)
    if choice == "0" or not KERNELS.is_file() or not (whole or choice == "1"):
        return False
    from humanbody._kernels import warm

    start = time.monotonic()
    count = warm.compile_in_processes(KERNELS)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if count and reporter is not None:
        reporter.write_line(f"{count} numba kernels compiled in two processes before the tests "
                            f"({time.monotonic() - start:.0f} s, once: cached for later runs)")
    return True


def pytest_sessionstart(session):
    """Compile (or load) every numba kernel once before the tests run.

    Commands print a one-time "compiling" notice while numba's disk cache is
    cold; tests that check that a bad input gives exactly one line of stderr
    would otherwise depend on which test happened to compile the kernels
    first.  With pytest-xdist's workers, the controller first compiles the
    suite's kernels in two processes (:func:`_compile_kernels_once`) and
    leaves the rest to its workers.  In each worker (or a run without
    workers) one small marker trial through ``humanbody analyze`` reaches
    the reader, conditioning, tracking, mechanics, kinetics and CSV kernels.

    Parameters
    ----------
    session : pytest.Session
        The test session about to collect and run.
    """
    if _compile_kernels_once(session.config):
        return
    import tempfile

    from humanbody.cli import main

    data = Path(__file__).resolve().parents[1] / "data"
    with tempfile.TemporaryDirectory() as out:
        loads = Path(out) / "loads.csv"  # a load on the right foot: the kinetics kernels too
        loads.write_text("time,L_force_x,L_force_y,L_force_z,L_point_x,L_point_y,L_point_z\n"
                         "0,0,0,700,0,0,0\n10,0,0,700,0,0,0\n")
        main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
              "--out", out, "-q", "--forces", str(loads), "--load", "L=right_foot"])

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


def pytest_sessionstart(session):
    """Compile (or load) every numba kernel once before the tests run.

    Commands print a one-time "compiling" notice while numba's disk cache is
    cold; tests that check that a bad input gives exactly one line of stderr
    would otherwise depend on which test happened to compile the kernels
    first.  One small marker trial through ``humanbody analyze`` reaches the
    reader, conditioning, tracking, mechanics, kinetics and CSV kernels.
    """
    import tempfile

    from humanbody.cli import main

    data = Path(__file__).resolve().parents[1] / "data"
    with tempfile.TemporaryDirectory() as out:
        loads = Path(out) / "loads.csv"  # a load on the right foot: the kinetics kernels too
        loads.write_text("time,L_force_x,L_force_y,L_force_z,L_point_x,L_point_y,L_point_z\n"
                         "0,0,0,700,0,0,0\n10,0,0,700,0,0,0\n")
        main(["analyze", str(data / "sample_walk_markers.trc"), "--static", str(data / "sample_static.trc"),
              "--out", out, "-q", "--forces", str(loads), "--load", "L=right_foot"])

"""The house's rules, computed from the package's own imports (tests/_house.py, ast).

Rooms are the folders of ``humanbody/``, its root modules and the script
folders (``benchmarks/``, ``data/``, ``apps/``); every import counts, also
those inside functions.  docs/architecture.md draws the same graph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from _house import build, summary

ROOT = Path(__file__).resolve().parents[1]

#: The domain folders the readers and writers of io/ stand below.
DOMAIN = ("markers/", "gait/", "imu/", "mechanics/")

#: io/ imports of the domain still to move (none: the sensor-name tables are io/imu_names.py).
IO_PENDING: set = set()


@pytest.fixture(scope="module")
def house():
    """The house without the imports still to move (:data:`IO_PENDING`)."""
    return build(ROOT, leave_out=IO_PENDING)


@pytest.fixture(scope="module")
def whole_house():
    return build(ROOT)


def test_no_circles_and_every_import_runs_down(house, whole_house):
    assert whole_house.circles == [], summary(whole_house)
    assert house.circles == [], summary(house)
    assert house.back_up_imports == 0, summary(house)
    for (a, b) in house.edges:
        assert house.floor[a] > house.floor[b], (a, b)


def test_floors_and_root_modules(house):
    assert house.floors <= 10, summary(house)
    assert len(house.root_modules) <= 10, house.root_modules


def test_io_imports_nothing_of_the_domain(whole_house):
    found = set()
    for (a, b), where in whole_house.edges.items():
        if a == "io/" and b in DOMAIN:
            found |= {(w.split(":")[0], b) for w in where}
    assert found <= IO_PENDING, sorted(found - IO_PENDING)


def test_private_names_stay_in_their_folder(house):
    assert len(house.private) <= 2, house.private


def test_the_kernels_and_foundations_import_no_domain(house):
    for low in ("_kernels/", "rotations/", "signal/", "model/", "errors", "atomic"):
        assert not (house.imports_of(low) & {"io/", *DOMAIN, "pipeline", "trial", "report/", "viewer/",
                                             "commands/"}), low


def test_the_house_sees_a_circle_and_a_private_name(tmp_path):
    """The measure itself: a circle between two folders and a private name imported across them are found."""
    pkg = tmp_path / "humanbody"
    for sub, text in (("a", "from ..b import _hidden\n"), ("b", "def f():\n    from ..a import thing\n")):
        (pkg / sub).mkdir(parents=True)
        (pkg / sub / "__init__.py").write_text(text)
    (pkg / "__init__.py").write_text("")
    (pkg / "top.py").write_text("from .a import thing\n")
    h = build(tmp_path)
    assert h.circles == [["a/", "b/"]]
    assert h.back_up_imports == 1 and h.floors == 2
    assert h.private == ["humanbody.a:1 imports humanbody.b._hidden"]
    assert h.root_modules == ["top"]

"""The house's rules, computed from the package's own imports (tests/_house.py, ast).

Rooms are the folders of ``humanbody/``, its root modules and the script
folders (``benchmarks/``, ``data/``, ``apps/``); every import counts, also
those inside functions.  docs/architecture.md draws the same graph.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from _house import build, summary

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"

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
    for low in ("_kernels/", "core/", "lab/", "rotations/", "signal/", "model/", "errors", "atomic"):
        assert not (house.imports_of(low) & {"io/", *DOMAIN, "analysis/", "trial", "report/", "viewer/",
                                             "commands/"}), low


def test_the_lab_stands_below_the_marker_sets(house):
    """lab/ (the lab's axes, a marker table's layout, the spellings of landmarks) knows no marker set, model or
    file format: the trial, IMU, viewer, export and marker rooms all take the axes from it."""
    assert house.imports_of("lab/") <= {"_kernels/", "errors", "signal/"}, house.imports_of("lab/")
    assert house.floor["lab/"] < house.floor["markers/"]


def test_the_tools_serve_their_commands_alone(house):
    """tools/ (the marker-set draft, whole-body IK's predicted precision) is imported by the commands and by the
    stage that drafts a set for a lab's own marker names, by nothing of the analysis below them."""
    assert house.importers_of("tools/") <= {"commands/", "analysis/"}, house.importers_of("tools/")


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


# ------------------------------------------------------------------ functions a reader can hold

PACKAGE = ROOT / "humanbody"

#: The longest function (lines from ``def`` to its last line, its docstring left out: documenting a function's
#: parameters never makes it longer to read) outside the numba kernels.
MAX_FUNCTION_LINES = 80

#: Optional or platform-bound modules a function may import where it needs them (a missing one is reported
#: by the command that needs it, not at start-up).
OPTIONAL_IMPORTS = frozenset({"pyarrow", "dask", "distributed", "pyvista", "matplotlib", "tqdm", "ezc3d",
                              "imageio", "opensim", "pinocchio", "pin", "spm1d", "fcntl"})

#: Files other branches of the same change are still splitting and tidying (their functions and imports):
#: emptied when those branches are merged.  ``scipy_signal.py`` is replaced by a plain import there.
_PENDING_OTHER_BRANCHES: frozenset[str] = frozenset()


def _pending(rel: str) -> bool:
    return any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in _PENDING_OTHER_BRANCHES)


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        yield rel, path.read_text(encoding="utf-8")


def long_functions(sources) -> list[str]:
    """``file:line name (lines)`` of every function longer than :data:`MAX_FUNCTION_LINES` outside ``_kernels/``
    (its docstring not counted)."""
    found = []
    for rel, text in sources:
        if rel.startswith("_kernels/"):
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = node.end_lineno - node.lineno + 1
                first = node.body[0]
                if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and \
                        isinstance(first.value.value, str):
                    n -= first.end_lineno - first.lineno + 1
                if n > MAX_FUNCTION_LINES:
                    found.append(f"{rel}:{node.lineno} {node.name} ({n} lines)")
    return found


def lazy_imports(sources) -> list[str]:
    """``file:line statement`` of every import inside a function that is neither of an optional module
    (:data:`OPTIONAL_IMPORTS`) nor carries a reason on its line (``# lazy: why``)."""
    found = []
    for rel, text in sources:
        lines = text.splitlines()
        for fn in ast.walk(ast.parse(text)):
            if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(fn):
                if not isinstance(node, (ast.Import, ast.ImportFrom)):
                    continue
                if isinstance(node, ast.Import):
                    roots = {a.name.split(".")[0] for a in node.names}
                else:
                    roots = {(node.module or "").split(".")[0]} if node.level == 0 else {""}
                if roots <= OPTIONAL_IMPORTS or "# lazy:" in lines[node.lineno - 1]:
                    continue
                found.append(f"{rel}:{node.lineno} {lines[node.lineno - 1].strip()}")
    return sorted(set(found))


def test_no_function_over_80_lines():
    found = long_functions((rel, text) for rel, text in _sources() if not _pending(rel))
    assert found == [], "\n".join(found)


def test_imports_at_the_top_except_optional_or_with_a_reason():
    found = lazy_imports((rel, text) for rel, text in _sources() if not _pending(rel))
    assert found == [], "\n".join(found)


def test_the_rules_see_a_long_function_and_a_lazy_import():
    """The measures themselves: an 81-line function and an unexplained import inside a function are found;
    a kernel, a function whose docstring makes it long, an optional module and an import with its reason
    are not."""
    body = "".join(f"    x{i} = {i}\n" for i in range(80))
    long = f"def f():\n{body}"
    assert long_functions([("a.py", long)]) == ["a.py:1 f (81 lines)"]
    assert long_functions([("_kernels/a.py", long), ("b.py", "def g():\n    return 1\n")]) == []
    documented = 'def f():\n    """Doc.\n\n' + "    Parameters\n" * 40 + '    """\n' + "".join(f"    x{i} = {i}\n" for i in range(79))
    assert long_functions([("a.py", documented)]) == []
    text = ("def f():\n    import numpy as np\n    import pyarrow.parquet as pq\n"
            "    from .x import y  # lazy: x imports this module\n    from . import z\n")
    assert lazy_imports([("a.py", text)]) == ["a.py:2 import numpy as np", "a.py:5 from . import z"]


def _room(name: str) -> str:
    """A room as the page's table names it -> as tests/_house.py names it (``trial.py`` -> ``trial``, the package
    face ``__init__.py`` -> ``humanbody``; folders keep their slash)."""
    if name == "__init__.py":
        return "humanbody"
    return name.removesuffix(".py")


def _page_name(room: str) -> str:
    """The inverse of :func:`_room`: how the page writes a room of tests/_house.py."""
    if room == "humanbody":
        return "`__init__.py`"
    return f"`{room}`" if room.endswith("/") else f"`{room}.py`"


def documented_floors(text: str) -> dict[str, int]:
    """Room -> floor from the page's table of floors (rows ``| N | `room`, ... |``).

    Parameters
    ----------
    text : str
        The page (docs/architecture.md).

    Returns
    -------
    dict of str to int
        Each room the table names (tests/_house.py's spelling) and the floor its row gives.
    """
    floors = {}
    for line in text.splitlines():
        row = re.fullmatch(r"\| (\d+) \| (.+) \|", line.strip())
        if row:
            for name in re.findall(r"`([^`]+)`", row.group(2)):
                floors[_room(name)] = int(row.group(1))
    return floors


def test_the_pages_table_of_floors_is_the_house(whole_house):
    """docs/architecture.md's table of floors is the house the code builds: every room on its floor, every room in
    the table.  On a failure the message gives the rows to write."""
    documented = documented_floors(PAGE.read_text(encoding="utf-8"))
    if documented != whole_house.floor:
        rows = [f"| {n} | " + ", ".join(_page_name(r) for r in sorted(rooms)) + " |"
                for n in range(max(whole_house.floor.values()), 0, -1)
                if (rooms := [r for r, f in whole_house.floor.items() if f == n])]
        wrong = sorted(set(documented.items()) ^ set(whole_house.floor.items()))
        pytest.fail("docs/architecture.md's table of floors is not the house (python tests/_house.py); differing "
                    f"(room, floor): {wrong}. Write these rows (wording of the data/ scripts and the package face "
                    "as the page has them):\n" + "\n".join(rows))


def test_the_table_is_read_as_written():
    text = "| 3 | `lab/`, `options.py` |\n| 2 | the package face `__init__.py` |\n| face | `cli.py` | not a floor |\n"
    assert documented_floors(text) == {"lab/": 3, "options": 3, "humanbody": 2}

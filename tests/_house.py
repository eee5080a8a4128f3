"""The package's house: its import graph with folders as rooms, computed from the source (ast).

Rooms: every folder of ``humanbody/`` (``io/``, ``markers/``, ...), every root
module (``pipeline``, ``trial``, ...; the package face ``humanbody/__init__.py``
is the room ``humanbody``), and the scripts of ``benchmarks/``, ``data/`` and
``apps/`` (one room per folder).  A room imports another when any of its
modules imports (at module level or inside a function) a module of the
other.  A room stands one floor above the highest room it imports; rooms
that import nothing of the package stand on floor 1.

With import circles between rooms there is no such order: the circles are
broken by dropping, one at a time, the room-to-room link with the fewest
import statements, and every dropped statement counts as an import running
"back up" (from a lower floor to a higher one).

Run as a script to print the numbers of a source tree::

    python tests/_house.py [ROOT]
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass, field
from pathlib import Path

SCRIPT_FOLDERS = ("benchmarks", "data", "apps")
PACKAGE = "humanbody"


@dataclass
class House:
    """The room graph of a source tree and the numbers the architecture test checks."""

    edges: dict = field(default_factory=dict)     # (room, room) -> list of "module:line"
    rooms: set = field(default_factory=set)
    root_modules: list = field(default_factory=list)
    private: list = field(default_factory=list)   # "module:line imports name" across rooms
    circles: list = field(default_factory=list)   # strongly connected groups of rooms (len > 1)
    back_up: list = field(default_factory=list)   # (room, room, statements) links dropped to break circles
    floor: dict = field(default_factory=dict)

    @property
    def floors(self) -> int:
        return max(self.floor.values()) if self.floor else 0

    @property
    def back_up_imports(self) -> int:
        return sum(len(s) for _, _, s in self.back_up)

    def importers_of(self, room: str) -> set:
        return {a for (a, b) in self.edges if b == room}

    def imports_of(self, room: str) -> set:
        return {b for (a, b) in self.edges if a == room}


def _module_name(root: Path, path: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def room_of(module: str, packages: set) -> str | None:
    """The room of a module name (``humanbody.io.trc`` -> ``io/``), None outside the package and scripts."""
    parts = module.split(".")
    if parts[0] in SCRIPT_FOLDERS:
        return parts[0] + "/"
    if parts[0] != PACKAGE:
        return None
    if len(parts) == 1:
        return PACKAGE
    return parts[1] + "/" if parts[1] in packages else parts[1]


def _targets(node, module: str, is_package: bool, known: set) -> list:
    """(module imported, name imported or None) of one import statement, absolute."""
    out = []
    if isinstance(node, ast.Import):
        for a in node.names:
            out.append((a.name, None))
        return out
    if node.level:
        base = module.split(".") if is_package else module.split(".")[:-1]
        base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        target = ".".join(base + ([node.module] if node.module else []))
    else:
        target = node.module or ""
    for a in node.names:
        sub = f"{target}.{a.name}"
        out.append((sub, None) if sub in known else (target, a.name))
    return out


def build(root: Path | str, leave_out=()) -> House:
    """The :class:`House` of the source tree at ``root`` (the repository's top folder).

    ``leave_out``: ``(module, room)`` pairs whose imports are not counted (a move still to come).
    """
    root = Path(root)
    pkg = root / PACKAGE
    packages = {p.name for p in pkg.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    files = sorted(pkg.rglob("*.py")) + [p for d in SCRIPT_FOLDERS for p in sorted((root / d).glob("*.py"))]
    known = {_module_name(root, f) for f in files}
    house = House()
    house.root_modules = sorted(f.stem for f in pkg.glob("*.py") if f.stem not in ("__init__", "__main__"))
    for f in files:
        module = _module_name(root, f)
        src_room = room_of(module, packages)
        house.rooms.add(src_room)
        tree = ast.parse(f.read_text(encoding="utf-8"), str(f))
        for node in ast.walk(tree):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            for target, name in _targets(node, module, f.name == "__init__.py", known):
                dst_room = room_of(target, packages)
                if dst_room is None or dst_room == src_room or (module, dst_room) in leave_out:
                    continue
                where = house.edges.setdefault((src_room, dst_room), [])
                if f"{module}:{node.lineno}" not in where:
                    where.append(f"{module}:{node.lineno}")
                last = target.split(".")[-1]
                crossing = [n for n in (last, name) if n and n.startswith("_") and not n.startswith("__")]
                if crossing and dst_room != "_kernels/" and _folder(src_room) != _folder(dst_room):
                    house.private.append(f"{module}:{node.lineno} imports {target}" + (f".{name}" if name else ""))
    house.rooms |= {r for e in house.edges for r in e}
    _floors(house)
    return house


def _folder(room: str) -> str:
    """The folder of a room: root modules share the package's folder."""
    return room if room.endswith("/") else PACKAGE


def _sccs(rooms, edges) -> list:
    """Strongly connected components (Tarjan), each a sorted list of rooms."""
    succ = {r: sorted(b for (a, b) in edges if a == r) for r in rooms}
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in succ[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for r in sorted(rooms):
        if r not in index:
            visit(r)
    return out


def _floors(house: House) -> None:
    edges = dict(house.edges)
    house.circles = [c for c in _sccs(house.rooms, edges) if len(c) > 1]
    while True:
        cyc = [c for c in _sccs(house.rooms, edges) if len(c) > 1]
        if not cyc:
            break
        inner = [(len(s), a, b) for (a, b), s in edges.items() for c in cyc if a in c and b in c]
        _, a, b = min(inner)
        house.back_up.append((a, b, edges.pop((a, b))))
    floor: dict = {}

    def height(r, seen=()):
        if r not in floor:
            below = [b for (a, b) in edges if a == r]
            floor[r] = 1 + max((height(b) for b in below), default=0)
        return floor[r]

    for r in house.rooms:
        height(r)
    house.floor = floor


def summary(house: House) -> str:
    lines = [f"floors {house.floors}; rooms {len(house.rooms)}; circles {len(house.circles)} "
             f"{house.circles}; imports running back up {house.back_up_imports} "
             f"({', '.join(f'{a} -> {b} x{len(s)}' for a, b, s in house.back_up)}); "
             f"root modules {len(house.root_modules)} {house.root_modules}; "
             f"private names across folders {len(house.private)}"]
    for r in sorted(house.rooms, key=lambda r: (-house.floor[r], r)):
        lines.append(f"  floor {house.floor[r]:2d}  {r}")
    lines += [f"  private: {p}" for p in house.private]
    return "\n".join(lines)


if __name__ == "__main__":
    print(summary(build(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parents[1],
                        leave_out={tuple(a.split("=")) for a in sys.argv[2:]})))

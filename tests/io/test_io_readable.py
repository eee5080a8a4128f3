"""io/ stays readable: no function over 80 lines, imports at the top except the few kept lazy on purpose."""

from __future__ import annotations

import ast
from pathlib import Path

IO = Path(__file__).resolve().parents[2] / "humanbody" / "io"

#: The imports io/ keeps inside functions: an optional dependency, or one whose import at start-up costs
#: the command line tens of milliseconds or more (each says so in a comment where it is imported).
LAZY = {"ezc3d", "pyarrow.parquet", "scipy.spatial.transform"}


def _functions():
    for path in sorted(IO.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                yield path, node


def test_no_io_function_is_over_80_lines():
    long = [f"{p.name}:{f.name} {f.end_lineno - f.lineno + 1}" for p, f in _functions()
            if f.end_lineno - f.lineno + 1 > 80]
    assert not long, long


def test_io_imports_are_at_the_top_except_the_lazy_ones():
    inner = []
    for path, func in _functions():
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            inner += [f"{path.name}:{func.name} imports {n}" for n in names if n not in LAZY]
    assert not inner, inner

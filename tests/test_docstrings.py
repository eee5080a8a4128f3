"""Every public function documents its parameters and what it returns (numpydoc), computed from the source (ast).

A function or method is public when its name and the names of the classes holding it have no leading
underscore (dunder methods such as ``__init__`` are documented in their class's docstring).  It needs a
``Parameters`` section when it takes arguments besides ``self``/``cls``, and a ``Returns`` (or ``Yields``)
section when it returns a value.  Properties are attributes: their one-line docstring is their documentation.
Every entry of those sections says what the value is, not only its type: a ``name : type`` (or bare type) line
with no indented description under it fails (STYLE: "docstrings with units, shapes and equations").
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "humanbody"

_SECTION = r"^\s*{}\s*\n\s*-{{3,}}\s*$"


def _has_section(doc: str, *names: str) -> bool:
    return any(re.search(_SECTION.format(n), doc, re.MULTILINE) for n in names)


def _arguments(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> list[str]:
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in fn.decorator_list)
    if method and not static and names and names[0] in ("self", "cls"):
        names = names[1:]
    return names


def _own_nodes(fn):
    """The nodes of ``fn``'s body, not descending into nested functions, classes or lambdas."""
    nested = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
    stack = [node for node in fn.body if not isinstance(node, nested)]
    while stack:
        node = stack.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, nested):
                stack.append(child)


def _returns_value(fn) -> bool:
    for node in _own_nodes(fn):
        if isinstance(node, (ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, ast.Return) and node.value is not None:
            if not (isinstance(node.value, ast.Constant) and node.value.value is None):
                return True
    return False


def _decorators(fn) -> set[str]:
    out = set()
    for d in fn.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        out.add(d.attr if isinstance(d, ast.Attribute) else getattr(d, "id", ""))
    return out


def _public_functions(tree: ast.Module):
    """``(qualified name, node, is_method)`` of the module's public functions and public classes' methods.

    A method without a docstring of its own that overrides a method of a base class in the same module
    is documented by that method's docstring (as :func:`inspect.getdoc` finds it), and is yielded as that one.
    """
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}

    def inherited(cls, name, seen=()):
        for base in cls.bases:
            base_cls = classes.get(getattr(base, "id", None))
            if base_cls is None or base_cls.name in seen:
                continue
            for item in base_cls.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == name:
                    return item if ast.get_docstring(item) else inherited(base_cls, name, (*seen, base_cls.name))
            found = inherited(base_cls, name, (*seen, base_cls.name))
            if found is not None:
                return found
        return None

    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.name.startswith("_"):
            yield node.name, node, False
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            for item in node.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and not item.name.startswith("_"):
                    base = None if ast.get_docstring(item) else inherited(node, item.name)
                    yield f"{node.name}.{item.name}", item if base is None else base, True


def undocumented(sources) -> list[str]:
    """``file:line name: missing`` of every public function whose docstring lacks a section it needs.

    Parameters
    ----------
    sources : iterable of (str, str)
        ``(path relative to the package, source text)`` of each module.

    Returns
    -------
    list of str
        One entry per function, naming the missing sections (``Parameters``, ``Returns``).
    """
    found = []
    for rel, text in sources:
        for name, fn, method in _public_functions(ast.parse(text)):
            decorators = _decorators(fn)
            if decorators & {"property", "setter", "overload", "cached_property"}:
                continue
            doc = ast.get_docstring(fn) or ""
            missing = []
            if _arguments(fn, method) and not _has_section(doc, "Parameters"):
                missing.append("Parameters")
            if _returns_value(fn) and not _has_section(doc, "Returns", "Yields"):
                missing.append("Returns")
            if missing:
                found.append(f"{rel}:{fn.lineno} {name}: {', '.join(missing)}")
    return found


_ENTRY_SECTIONS = ("Parameters", "Other Parameters", "Returns", "Yields")
_RULE = re.compile(r"\s*-{3,}\s*")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def _bare_entries(doc: str) -> list[tuple[str, str]]:
    """``(section, entry line)`` of each entry of ``doc``'s Parameters/Returns/Yields sections with no description.

    An entry is a line at the section's least indentation (``name : type``, ``a, b : float`` or, in Returns, a
    bare type); its description is the more-indented lines under it.  An entry followed directly by another
    entry, the next section or the end of the docstring is bare.
    """
    lines = doc.split("\n")
    found = []
    i = 0
    while i < len(lines) - 1:
        if not (lines[i].strip() in _ENTRY_SECTIONS and _RULE.fullmatch(lines[i + 1])):
            i += 1
            continue
        section, j, body = lines[i].strip(), i + 2, []
        while j < len(lines) and not (j + 1 < len(lines) and lines[j].strip() and _RULE.fullmatch(lines[j + 1])):
            if lines[j].strip():
                body.append(lines[j])
            j += 1
        if body:
            least = min(_indent(line) for line in body)
            for k, line in enumerate(body):
                following = body[k + 1] if k + 1 < len(body) else None
                if _indent(line) == least and (following is None or _indent(following) <= least):
                    found.append((section, line.strip()))
        i = j
    return found


def bare_entries(sources) -> list[str]:
    """``file:line name: section 'entry'`` of every Parameters/Returns entry of a public function with no meaning.

    Parameters
    ----------
    sources : iterable of (str, str)
        ``(path relative to the package, source text)`` of each module.

    Returns
    -------
    list of str
        One line per bare entry, in the order of the modules and their functions.
    """
    found = []
    for rel, text in sources:
        for name, fn, _method in _public_functions(ast.parse(text)):
            for section, entry in _bare_entries(ast.get_docstring(fn) or ""):
                found.append(f"{rel}:{fn.lineno} {name}: {section} '{entry}'")
    return found


def _sources():
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")


def test_every_public_function_documents_its_parameters_and_returns():
    found = undocumented(_sources())
    assert found == [], f"{len(found)} public functions lack numpydoc sections:\n" + "\n".join(found)


def test_every_parameter_and_return_says_what_it_is():
    found = bare_entries(_sources())
    per_module = Counter(line.split(":", 1)[0] for line in found)
    assert found == [], (f"{len(found)} Parameters/Returns entries give only a type (most in: "
                         + ", ".join(f"{m} {n}" for m, n in per_module.most_common(8)) + "); the first:\n"
                         + "\n".join(found[:40]))


def test_the_rule_sees_a_bare_entry():
    """The measure itself: an entry with no description under it is found, in Parameters and Returns, also when
    several names share a line and when it is the last line of the docstring; described entries are not."""
    text = '''
def f(a, b, c, *lines):
    """Doc.

    Parameters
    ----------
    a : float
    b, c : ndarray, shape (n, 3)
        Positions of the two ends (m).
    *lines : str

    Returns
    -------
    float
        The length (m).
    """
    return a

def g(x):
    """Doc.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Angle per frame (rad).

        A second paragraph.

    Returns
    -------
    ndarray
    """
    return x

def _private(y):
    """Doc.

    Parameters
    ----------
    y : int
    """
'''
    assert bare_entries([("a.py", text)]) == [
        "a.py:2 f: Parameters 'a : float'", "a.py:2 f: Parameters '*lines : str'", "a.py:19 g: Returns 'ndarray'"]


def test_the_rule_sees_a_missing_section():
    """The measure itself: missing sections are found (also through a base class of the module); self,
    properties, private names, nested functions' returns and ``return None`` are not."""
    text = '''
def f(a):
    """Doc."""
    return a

def g():
    """Doc."""
    return None

def h(a):
    """Doc.

    Parameters
    ----------
    a : int
        A.

    Returns
    -------
    int
        A.
    """
    return a

def _p(a):
    return a

class C:
    def m(self):
        """Doc."""
        def inner():
            return 1
        return

    def n(self, x):
        """Doc."""
        yield x

    @property
    def v(self):
        """Doc."""
        return 1

class _D:
    def m(self, x):
        return x

class E(C):
    def n(self, x):
        yield x

class G(h.__class__):
    def w(self, x):
        return x
'''
    assert undocumented([("a.py", text)]) == ["a.py:2 f: Parameters, Returns", "a.py:35 C.n: Parameters, Returns",
                                           "a.py:35 E.n: Parameters, Returns", "a.py:53 G.w: Parameters, Returns"]

"""docs/architecture.md's table of floors is the house the code builds (tests/_house.py): every room on its floor,
every room in the table."""

from __future__ import annotations

import re
from pathlib import Path

from _house import build

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "architecture.md"


def _room(name: str) -> str:
    """A room as the table names it -> as tests/_house.py names it (``trial.py`` -> ``trial``, the package face
    ``__init__.py`` -> ``humanbody``; folders keep their slash)."""
    if name == "__init__.py":
        return "humanbody"
    return name.removesuffix(".py")


def documented_floors(text: str) -> dict[str, int]:
    """Room -> floor from the page's table of floors (rows ``| N | `room`, ... |``).

    Parameters
    ----------
    text : str
        The page.

    Returns
    -------
    dict of str to int
    """
    floors = {}
    for line in text.splitlines():
        row = re.fullmatch(r"\| (\d+) \| (.+) \|", line.strip())
        if row:
            for name in re.findall(r"`([^`]+)`", row.group(2)):
                floors[_room(name)] = int(row.group(1))
    return floors


def test_the_table_of_floors_is_the_house():
    house = build(ROOT)
    documented = documented_floors(PAGE.read_text(encoding="utf-8"))
    assert documented == house.floor


def test_the_table_is_read_as_written():
    text = "| 3 | `lab/`, `options.py` |\n| 2 | the package face `__init__.py` |\n| face | `cli.py` | not a floor |\n"
    assert documented_floors(text) == {"lab/": 3, "options": 3, "humanbody": 2}

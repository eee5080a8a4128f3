"""The plates' assignment said in one line, however many plates a lab has.

:func:`humanbody.mechanics.foot_contact.assign_loads` notes one line per load;
:func:`assignment_line` joins them: the loads named to a segment
(``name -> segment (named)``), then those given to the nearest foot with
each one's frame counts, ambiguous frames and loaded frames no foot was
near.  A plate never loaded is counted, not listed.
"""

from __future__ import annotations

import re

__all__ = ["assignment_line"]

_NEAREST = re.compile(r"^loads: (?P<name>.+?) -> nearest foot within (?P<cm>[0-9.]+) cm of the centre of pressure "
                      r"\((?P<counts>[^)]*) frames\)(?P<rest>.*)$")
_NAMED = re.compile(r"^loads: (?P<name>.+?) -> (?P<seg>\S+) \(named\)$")


def assignment_line(notes: list) -> list:
    """``notes`` with the per-load assignment lines joined into one (at the place of the first).

    Parameters
    ----------
    notes : list
        Log lines (str or Note).

    Returns
    -------
    list
        A new list.
    """
    named: list[str] = []
    nearest: list[str] = []
    out: list[str] = []
    idle, at, cm = 0, None, "20"
    for line in notes:
        m, n = _NAMED.match(line), _NEAREST.match(line)
        if m is not None:
            at = len(out) if at is None else at
            named.append(f"{m['name']} -> {m['seg']} (named)")
            continue
        if n is None:
            out.append(line)
            continue
        at = len(out) if at is None else at
        cm = n["cm"]
        counts = [c.strip() for c in n["counts"].split(",")]
        used = [c for c in counts if not c.endswith(" 0")]
        rest = n["rest"].replace(": those feet's kinetics NaN there", ", kinetics NaN").replace(
            ": load unused there", ", unused")
        if not used and not rest:
            idle += 1
            continue
        nearest.append(f"{n['name']} ({', '.join(used) or 'no foot'}{rest.replace(';', ',')})")
    if at is None:
        return list(notes)
    parts = named[:]
    if nearest or idle:
        parts.append(f"nearest foot within {cm} cm of the centre of pressure, frames: " + ", ".join(nearest)
                     + (f"{'; ' if nearest else ''}{idle} plate(s) never reached by a foot" if idle else ""))
    out.insert(at, "loads: " + "; ".join(parts))
    return out

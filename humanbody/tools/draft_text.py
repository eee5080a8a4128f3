"""The TOML text of a drafted marker set (layout in docs/markersets.md).

:func:`toml_text` writes the header comments (what to check, how each
marker was read), the required list, parameters, points and the 17 segment
tables chosen by :mod:`humanbody.tools.draft_rules`; comments starting
with ``CHECK`` mark the guesses.
"""

from __future__ import annotations

import json
import re
import textwrap

import numpy as np

from ..markers.markerset import name_key
from ..model.segments import SEGMENT_NAMES

__all__ = ["rename_points", "toml_text"]


def rename_points(out, marker_names) -> None:
    """Give a point whose name a marker also has (after case and punctuation) a ``_point`` suffix.

    Parameters
    ----------
    out : Drafting
        Its points, and every rule naming them, renamed in place.
    marker_names : iterable of str
        The trial's markers.
    """
    taken = {name_key(n) for n in marker_names}
    new = {p: p + "_point" for p in out.points if name_key(p) in taken}
    if not new:
        return

    def sub(v):
        if isinstance(v, str):
            return new.get(v, v)
        if isinstance(v, list):
            return [sub(x) for x in v]
        if isinstance(v, dict):
            return {k: sub(x) for k, x in v.items()}
        return v

    out.points = {new.get(p, p): (sub(r), c) for p, (r, c) in out.points.items()}
    out.segments = {s: (sub(t), c) for s, (t, c) in out.segments.items()}
    out.params = {k: (sub(v), c) for k, (v, c) in out.params.items()}


def _val(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float, np.floating)):
        text = repr(round(float(v), 6))
        return text
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_val(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {_val(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot write {type(v).__name__} in TOML")


def _key(k: str) -> str:
    return k if re.fullmatch(r"[A-Za-z0-9_-]+", k) else json.dumps(k)


def _comment(lines) -> list[str]:
    out = []
    for c in lines:
        out += [f"# {w}" for w in textwrap.wrap(c[:1].upper() + c[1:], 96)]
    return out


def _assign(key: str, value, width: int = 100) -> str:
    """``key = value``; a long list is wrapped at ``width`` characters."""
    text = f"{_key(key)} = {_val(value)}"
    if len(text) <= width or not isinstance(value, list):
        return text
    rows, row = [], "  "
    for v in value:
        item = _val(v) + ", "
        if len(row) + len(item) > width and row.strip():
            rows.append(row.rstrip())
            row = "  "
        row += item
    rows.append(row.rstrip().rstrip(","))
    return f"{_key(key)} = [\n" + "\n".join(rows) + "\n]"


def toml_text(out, guesses, name: str, source: str) -> str:
    """The marker-set file of a draft: header, the CHECK lines, markers, points, segments, parameters.

    Parameters
    ----------
    out : Drafting
        The points, segments and checks drafted.
    guesses : list
        Every marker's reading (used or not), for the ``[markers]`` comments.
    name : str
        The set's name.
    source : str
        The standing trial's file (for the header).

    Returns
    -------
    str
        TOML (docs/markersets.md).
    """
    w = max([len(g.name) for g in guesses] + [8])
    lines = [f"# Marker set drafted by `humanbody markerset init` from {source or 'a standing trial'}.",
             "# Layout and rules: docs/markersets.md.  Lines marked CHECK are guesses: confirm or edit",
             "# them before trusting the results, then analyse with --markerset THIS_FILE.", "#"]
    if out.checks:
        lines.append("# What to check:")
        lines += [f"#   - {c}" for c in out.checks]
        lines.append("#")
    lines.append("# Markers (name in the trial: segment, landmark, how it was read):")
    for g in guesses:
        if g.used:
            what = f"{g.segment}, {g.role}" + (f" ({', '.join(sorted(g.modifiers))})" if g.modifiers else "")
        else:
            what = "unused"
        note = f"  CHECK: {'; '.join(g.notes)}" if g.notes else ""
        lines.append(f"#   {g.name:<{w}}  {what}; {g.how}{note}")
    lines += ["", f"name = {_val(name)}",
              f"description = {_val('drafted from ' + (source.rsplit('/', 1)[-1] if source else 'a standing trial'))}",
              "", "# Markers every motion trial must contain (static-only markers are left out).",
              _assign("required", out.required), "", "[parameters]"]
    for k, (v, c) in out.params.items():
        line = _assign(k, v)
        if c and "\n" not in line and len(line) + len(c) + 4 <= 100:
            lines.append(f"{line}  # {c}")
        else:
            lines += ([f"# {c}"] if c else []) + [line]
    lines += ["", "# ------------------------------------------------------------------ points"]
    for pname, (rule, comment) in out.points.items():
        if rule is None:
            continue
        lines += [""] + _comment(comment) + [f"[points.{pname}]"]
        if isinstance(rule, list):
            lines.append(f"rules = {_val(rule)}")
        else:
            lines += [_assign(k, v) for k, v in rule.items()]
    lines += ["", "# ---------------------------------------------------------------- segments"]
    for seg in SEGMENT_NAMES:
        table, comment = out.segments[seg]
        lines += [""] + _comment(comment) + [f"[segments.{seg}]"]
        lines += [_assign(k, v) for k, v in table.items()]
    return "\n".join(lines) + "\n"

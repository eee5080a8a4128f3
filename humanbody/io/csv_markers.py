"""Marker trajectories in CSV/TSV text: plain tables and three vendor exports (:mod:`.csv_vendors`).

Layouts (docs/formats.md shows an example of each):

``plain``
    One header row, then one row per frame.  Columns: ``time`` (or
    ``Frame`` with a frame rate), optional constant ``rate``, and per
    marker three columns ``<marker>_X``, ``<marker>_x``, ``<marker>.x``,
    ``<marker> X`` ... .  A unit may follow a name in brackets
    (``LASI_X (mm)``, ``time [s]``) or sit in a row of units under the
    header; otherwise it is detected from the size of the marker cloud.
``vicon-csv``, ``motive-csv``, ``qualisys-tsv``
    Vendor exports, read by :mod:`humanbody.io.csv_vendors`.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _text
from ._csv_common import (
    _AXIS,
    _FRAME_NAMES,
    _QUALISYS_KEYS,
    _RATE_NAMES,
    _TIME_NAMES,
    _TIME_UNITS,
    _VICON_SECTIONS,
    _delimiter,
    _dest,
    _numbers,
    _rows,
    _strip_hint,
    _units,
)
from ._validate import LENGTH_UNITS, marker_frame

_HEAD_LINES = 60


def sniff(lines: list[str]) -> str | None:
    """Layout of a marker text file: "vicon", "motive", "qualisys", "plain" or None."""
    head = [line.strip().lstrip("\ufeff") for line in lines[:50]]
    text = [h for h in head if h]
    if not text:
        return None
    first = text[0]
    if first.lower().startswith("format version"):
        return "motive"
    keys = {re.split(r"[\t,; ]", h, maxsplit=1)[0] for h in text}
    if sum(k in keys for k in _QUALISYS_KEYS) >= 2:
        return "qualisys"
    if first.rstrip(",\t;").strip().lower() in _VICON_SECTIONS and len(text) > 1:
        rate = text[1].rstrip(",\t;").strip()
        if re.fullmatch(r"[0-9.]+", rate) and any(
                line.strip().rstrip(",;\t").strip().lower() == "trajectories" for line in lines):
            return "vicon"
    fields = [f.strip().strip('"') for f in re.split(r"[\t,;]", first)]
    if len(fields) >= 2 and any(_AXIS.match(_strip_hint(f)[0]) for f in fields):
        return "plain"
    return None



def read_plain(path: Path, lines: list[str], units=None, rate_hz=None, head=None):
    """Plain wide marker table (see the module docstring).

    ``head`` (:class:`humanbody.io._fastread.Head`): ``lines`` are only the
    first lines of a large file, whose numbers are read by the fast path.
    """
    first = next(i for i, line in enumerate(lines) if line.strip())
    delim = _delimiter(lines[first])
    rows = _rows(lines, delim)
    header = [c.strip() for c in rows[first]]
    while header and not header[-1]:
        header.pop()
    conversions: list[str] = []
    time_col = frame_col = rate_col = None
    time_scale = 1.0
    unit_hints: set[str] = set()
    markers: dict[str, dict[str, int]] = {}
    ignored: list[str] = []
    seen: set[str] = set()
    for j, raw in enumerate(header):
        if not raw:
            raise InputError(f"column {j + 1} of the header on line {first + 1} has no name", path)
        if raw in seen:
            raise InputError(f"column {raw!r} appears twice", path)
        seen.add(raw)
        base, hint = _strip_hint(raw)
        low = base.lower()
        if low in _TIME_NAMES:
            time_col = j
            if hint:
                if hint.lower() not in _TIME_UNITS:
                    raise InputError(f"unknown time unit {hint!r} in column {raw!r}", path)
                time_scale = _TIME_UNITS[hint.lower()]
            continue
        if low in _FRAME_NAMES:
            frame_col = j
            continue
        if low in _RATE_NAMES:
            rate_col = j
            continue
        m = _AXIS.match(base)
        if not m:
            ignored.append(raw)
            continue
        axis = m.group("axis").lower()
        name = m.group("name").strip()
        slot = markers.setdefault(name, {})
        if axis in slot:
            raise InputError(f"marker {name!r} has two {axis.upper()} columns", path)
        slot[axis] = j
        if hint:
            unit_hints.add(hint)
    if not markers:
        raise InputError(
            "has no marker columns (expected <marker>_X, <marker>_Y, <marker>_Z)", path
        )
    for name, slot in markers.items():
        lost = [a.upper() for a in "xyz" if a not in slot]
        if lost:
            raise InputError(f"marker {name!r} has no {'/'.join(lost)} column", path)
    if time_col is None and frame_col is None:
        raise InputError("has no time column (or Frame column with a frame rate)", path)

    # an optional row of units under the header
    start = first + 1
    while start < len(rows) and not any(rows[start]):
        start += 1
    if start < len(rows):
        urow = [c.strip() for c in rows[start]]
        cells = [c for c in urow if c]
        if cells and all(c.lower() in LENGTH_UNITS or c.lower() in _TIME_UNITS for c in cells):
            for j in (slot[a] for slot in markers.values() for a in "xyz"):
                if j < len(urow) and urow[j]:
                    unit_hints.add(urow[j])
            start += 1

    if head is not None and start >= len(lines) - 1:  # the head ends before the data
        return read_plain(path, _text.read_lines(path), units=units, rate_hz=rate_hz)
    names = list(markers)
    idx = [markers[n][a] for n in names for a in "xyz"]
    extra = [j for j in (rate_col, frame_col) if j is not None]
    table, aux, line_no = _numbers(path, lines, head, rows, start, header, delim,
                                   _dest(len(header), time_col, idx, extra), 1 + len(idx), len(extra))
    xyz = table[:, 1:].reshape(len(table), len(names), 3)
    unit = _units(units, unit_hints or None, "a column name or the units row", xyz, conversions)

    rate = None
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    elif rate_col is not None:
        col = aux[:, extra.index(rate_col)]
        col = col[np.isfinite(col)]
        if col.size == 0 or np.ptp(col) > 1e-9 * abs(col[0]):
            raise InputError(f"the rate column {header[rate_col]!r} is empty or not constant", path)
        rate = (col[0], f"rate in column {header[rate_col]!r}")
    time = frames = note = None
    if time_col is not None:
        time = table[:, 0] * time_scale
        if time_scale != 1.0:
            conversions.append("time ms -> s")
    else:
        if rate is None:
            raise InputError("has a Frame column but no time column or frame rate; pass rate_hz=", path)
        assert frame_col is not None  # checked above: a time or a Frame column
        numbers = aux[:, extra.index(frame_col)]
        frames, note = (numbers, numbers[0]), "time from the Frame column at {rate:g} Hz"
    return marker_frame(
        path, "csv", names, xyz, units=unit, rate=rate, time=time, frames=frames, line_numbers=line_no,
        time_note=note, conversions=conversions, extra_attrs={"ignored_columns": ignored}, table=table,
    )

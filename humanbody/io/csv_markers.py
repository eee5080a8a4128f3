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
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _text
from ._csv_common import (
    AXIS_SUFFIX,
    FRAME_NAMES,
    QUALISYS_KEYS,
    RATE_NAMES,
    TIME_NAMES,
    TIME_UNITS,
    VICON_SECTIONS,
    destination_columns,
    marker_units,
    read_numbers,
    sniff_delimiter,
    split_rows,
    strip_unit_hint,
)
from ._validate import LENGTH_UNITS, marker_frame

HEAD_LINES = 60


def sniff(lines: list[str]) -> str | None:
    """Layout of a marker text file: "vicon", "motive", "qualisys", "plain" or None.

    Parameters
    ----------
    lines : list of str
        The first lines of the file.

    Returns
    -------
    str or None
        The layout's name, or None when it is none of them.
    """
    head = [line.strip().lstrip("\ufeff") for line in lines[:50]]
    text = [h for h in head if h]
    if not text:
        return None
    first = text[0]
    if first.lower().startswith("format version"):
        return "motive"
    keys = {re.split(r"[\t,; ]", h, maxsplit=1)[0] for h in text}
    if sum(k in keys for k in QUALISYS_KEYS) >= 2:
        return "qualisys"
    if first.rstrip(",\t;").strip().lower() in VICON_SECTIONS and len(text) > 1:
        rate = text[1].rstrip(",\t;").strip()
        if re.fullmatch(r"[0-9.]+", rate) and any(
                line.strip().rstrip(",;\t").strip().lower() == "trajectories" for line in lines):
            return "vicon"
    fields = [f.strip().strip('"') for f in re.split(r"[\t,;]", first)]
    if len(fields) >= 2 and any(AXIS_SUFFIX.match(strip_unit_hint(f)[0]) for f in fields):
        return "plain"
    return None


def read_plain(path: Path, lines: list[str], units=None, rate_hz=None, head=None):
    """Plain wide marker table (see the module docstring).

    ``head`` (:class:`humanbody.io._fastread.Head`): ``lines`` are only the
    first lines of a large file, whose numbers are read by the fast path.

    Parameters
    ----------
    path : pathlib.Path
        The CSV file (named in errors).
    lines : list of str
        The file's text lines.
    units : str, optional
        The length unit, overriding the file's.
    rate_hz : float, optional
        The sampling rate, overriding the file's.
    head : Head, optional
        The file's first lines when it is large (then lines are only those).

    Returns
    -------
    pandas.DataFrame
        ``time`` (s) and ``<marker>_x/_y/_z`` (m), lab axes; ``attrs`` as the readers write them.
    """
    first = next(i for i, line in enumerate(lines) if line.strip())
    delim = sniff_delimiter(lines[first])
    rows = split_rows(lines, delim)
    header = [c.strip() for c in rows[first]]
    while header and not header[-1]:
        header.pop()
    cols = _header_columns(header, first, path)
    start = _units_row(rows, first + 1, cols)
    if head is not None and start >= len(lines) - 1:  # the head ends before the data
        return read_plain(path, _text.read_lines(path), units=units, rate_hz=rate_hz)
    names = list(cols.markers)
    idx = [cols.markers[n][a] for n in names for a in "xyz"]
    extra = [j for j in (cols.rate, cols.frame) if j is not None]
    table, aux, line_no = read_numbers(path, lines, head, rows, start, header, delim,
                                   destination_columns(len(header), cols.time, idx, extra), 1 + len(idx), len(extra))
    xyz = table[:, 1:].reshape(len(table), len(names), 3)
    conversions: list[str] = []
    unit = marker_units(units, cols.unit_hints or None, "a column name or the units row", xyz, conversions)
    rate = _rate(rate_hz, cols, header, aux, extra, path)
    time = frames = note = None
    if cols.time is not None:
        time = table[:, 0] * cols.time_scale
        if cols.time_scale != 1.0:
            conversions.append("time ms -> s")
    else:
        if rate is None:
            raise InputError("has a Frame column but no time column or frame rate; pass rate_hz=", path)
        assert cols.frame is not None  # checked by _header_columns: a time or a Frame column
        numbers = aux[:, extra.index(cols.frame)]
        frames, note = (numbers, numbers[0]), "time from the Frame column at {rate:g} Hz"
    return marker_frame(
        path, "csv", names, xyz, units=unit, rate=rate, time=time, frames=frames, line_numbers=line_no,
        time_note=note, conversions=conversions, extra_attrs={"ignored_columns": cols.ignored}, table=table,
    )


@dataclass
class _Columns:
    """What the header row of a plain table says: where time, frame number and rate are, each marker's
    X/Y/Z columns, the units named in brackets, and the columns of none of these."""

    time: int | None = None
    frame: int | None = None
    rate: int | None = None
    time_scale: float = 1.0
    unit_hints: set[str] = field(default_factory=set)
    markers: dict[str, dict[str, int]] = field(default_factory=dict)
    ignored: list[str] = field(default_factory=list)

    def add_time(self, j: int, raw: str, hint: str | None, path: Path) -> None:
        """Column ``j`` is time; a unit in brackets must be a time unit (s, ms)."""
        self.time = j
        if hint:
            if hint.lower() not in TIME_UNITS:
                raise InputError(f"unknown time unit {hint!r} in column {raw!r}", path)
            self.time_scale = TIME_UNITS[hint.lower()]

    def add_axis(self, j: int, name: str, axis: str, hint: str | None, path: Path) -> None:
        """Column ``j`` is the ``axis`` coordinate of marker ``name``; one column per axis."""
        slot = self.markers.setdefault(name, {})
        if axis in slot:
            raise InputError(f"marker {name!r} has two {axis.upper()} columns", path)
        slot[axis] = j
        if hint:
            self.unit_hints.add(hint)


def _header_columns(header: list[str], first: int, path: Path) -> _Columns:
    """The header row (on 0-based line ``first``) read into :class:`_Columns`, checked: every column named
    once, markers with X, Y and Z, a time or Frame column."""
    cols = _Columns()
    seen: set[str] = set()
    for j, raw in enumerate(header):
        if not raw:
            raise InputError(f"column {j + 1} of the header on line {first + 1} has no name", path)
        if raw in seen:
            raise InputError(f"column {raw!r} appears twice", path)
        seen.add(raw)
        base, hint = strip_unit_hint(raw)
        low = base.lower()
        m = AXIS_SUFFIX.match(base)
        if low in TIME_NAMES:
            cols.add_time(j, raw, hint, path)
        elif low in FRAME_NAMES:
            cols.frame = j
        elif low in RATE_NAMES:
            cols.rate = j
        elif m:
            cols.add_axis(j, m.group("name").strip(), m.group("axis").lower(), hint, path)
        else:
            cols.ignored.append(raw)
    if not cols.markers:
        raise InputError(
            "has no marker columns (expected <marker>_X, <marker>_Y, <marker>_Z)", path
        )
    for name, slot in cols.markers.items():
        lost = [a.upper() for a in "xyz" if a not in slot]
        if lost:
            raise InputError(f"marker {name!r} has no {'/'.join(lost)} column", path)
    if cols.time is None and cols.frame is None:
        raise InputError("has no time column (or Frame column with a frame rate)", path)
    return cols


def _units_row(rows: list[list[str]], start: int, cols: _Columns) -> int:
    """The first data row at or after ``start`` (blank rows skipped), past an optional row of units under
    the header, whose marker units join ``cols.unit_hints``."""
    while start < len(rows) and not any(rows[start]):
        start += 1
    if start < len(rows):
        urow = [c.strip() for c in rows[start]]
        cells = [c for c in urow if c]
        if cells and all(c.lower() in LENGTH_UNITS or c.lower() in TIME_UNITS for c in cells):
            for j in (slot[a] for slot in cols.markers.values() for a in "xyz"):
                if j < len(urow) and urow[j]:
                    cols.unit_hints.add(urow[j])
            start += 1
    return start


def _rate(rate_hz, cols: _Columns, header: list[str], aux: np.ndarray, extra: list[int], path: Path):
    """The stated frame rate and where it is stated: the option, else the constant rate column, else None."""
    if rate_hz is not None:
        return (rate_hz, "rate_hz option")
    if cols.rate is None:
        return None
    col = aux[:, extra.index(cols.rate)]
    col = col[np.isfinite(col)]
    if col.size == 0 or np.ptp(col) > 1e-9 * abs(col[0]):
        raise InputError(f"the rate column {header[cols.rate]!r} is empty or not constant", path)
    return (col[0], f"rate in column {header[cols.rate]!r}")

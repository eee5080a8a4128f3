"""Marker trajectories in CSV/TSV text: plain tables and three vendor exports.

Layouts (docs/formats.md shows an example of each):

``plain``
    One header row, then one row per frame.  Columns: ``time`` (or
    ``Frame`` with a frame rate), optional constant ``rate``, and per
    marker three columns ``<marker>_X``, ``<marker>_x``, ``<marker>.x``,
    ``<marker> X`` ... .  A unit may follow a name in brackets
    (``LASI_X (mm)``, ``time [s]``) or sit in a row of units under the
    header; otherwise it is detected from the size of the marker cloud.
``vicon-csv``
    Vicon Nexus export: sections (``Devices``, ``Trajectories``, ``Model
    Outputs``...) each with a title line, a rate line, a row of
    ``Subject:Marker`` names every third column, a ``Frame,Sub Frame,X,Y,Z``
    row and a units row; the ``Trajectories`` section is read.
``motive-csv``
    OptiTrack Motive export: a ``Format Version,...`` line of key/value
    pairs (``Export Frame Rate``, ``Length Units``), rows Type / Name / ID /
    Parent, a Rotation/Position row and ``Frame,Time (Seconds),X,Y,Z``;
    the ``Marker`` position triples are read.
``qualisys-tsv``
    Qualisys Track Manager TSV: a block of ``KEY<TAB>value`` lines
    (``NO_OF_FRAMES``, ``FREQUENCY``, ``MARKER_NAMES``...), then optionally
    a ``Frame Time <m> X ...`` row, then data (millimetres).
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _fastread as fr
from . import _validate as v

_UNIT_HINT = re.compile(r"^(?P<base>.*?)\s*[\(\[](?P<unit>[^\)\]]*)[\)\]]\s*$")
_AXIS = re.compile(r"^(?P<name>.+?)[_.:\s-]+(?P<axis>[XYZxyz])$")
_TIME_NAMES = {"time", "t", "times", "time_s", "seconds", "time (seconds)"}
_FRAME_NAMES = {"frame", "frame#", "frames", "frame_number", "frame number", "sample"}
_RATE_NAMES = {"rate", "rate_hz", "frame_rate", "framerate", "fps", "sample_rate",
               "sampling_rate", "hz"}
_TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3}
_VICON_SECTIONS = {"devices", "trajectories", "model outputs", "joints", "segments"}
_QUALISYS_KEYS = ("NO_OF_FRAMES", "NO_OF_MARKERS", "FREQUENCY", "MARKER_NAMES")
#: Lines decoded before the numbers of a large file (its header must fit).
_HEAD_LINES = 60


# ----------------------------------------------------------------------------- sniffing
def _delimiter(line: str) -> str:
    counts = {d: line.count(d) for d in ("\t", ",", ";")}
    best = max(counts, key=counts.get)
    return best if counts[best] else " "


def _rows(lines: list[str], delim: str) -> list[list[str]]:
    if delim == " ":
        return [line.split() for line in lines]
    return list(csv.reader(lines, delimiter=delim))  # cells keep their spaces; numbers parse anyway


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


def _strip_hint(name: str) -> tuple[str, str | None]:
    m = _UNIT_HINT.match(name)
    if m:
        return m.group("base").strip(), m.group("unit").strip()
    return name.strip(), None


# ----------------------------------------------------------------------------- shared
def _detect_units(xyz: np.ndarray) -> tuple[str, str]:
    """Guess mm or m from the size of the marker cloud (positions in file units).

    A person spans about 0.2-2.2 m, so the per-frame extent of a full marker
    set is a few hundred to a few thousand in millimetres and below about 3
    in metres.  The statistic is the median over frames of the largest
    coordinate extent across markers, or, with one marker, the median of
    its largest absolute coordinate.  Above 10 the file is taken as mm.
    """
    if xyz.shape[1] >= 2:  # the usual case in one pass over the frames, no temporary arrays
        from . import _marker_kernels

        n = xyz.shape[0]
        k = fr.threads() if n * xyz.shape[1] > 1 << 16 else 1
        count, ext = np.empty(n, dtype=np.int64), np.empty(n)
        fr.in_threads(lambda i, r0, r1: _marker_kernels.cloud_extents(xyz, r0, r1, count, ext), n, k)
        ext = ext[count >= 2]
        if ext.size and np.all(ext != 0.0):  # (an extent of 0 could be -0.0 below: left to numpy)
            stat = float(np.median(ext))
            unit = "mm" if stat > 10.0 else "m"
            return unit, f"length unit detected as {unit} (median marker-cloud extent {stat:.4g} in file units)"
    finite = np.isfinite(xyz).all(axis=2) & ~np.all(xyz == 0.0, axis=2)
    if not finite.any():
        return "m", "no marker samples to detect the unit from: taken as m"
    enough = finite.sum(axis=1) >= 2
    if xyz.shape[1] >= 2 and enough.any():
        p = np.where(finite[..., None], xyz, np.nan)[enough]
        ext = np.nanmax(np.nanmax(p, axis=1) - np.nanmin(p, axis=1), axis=1)
        stat, what = float(np.median(ext)), "marker-cloud extent"
    else:
        stat, what = float(np.median(np.abs(xyz[finite]).max(axis=1))), "coordinate size"
    unit = "mm" if stat > 10.0 else "m"
    return unit, f"length unit detected as {unit} (median {what} {stat:.4g} in file units)"


def _strip_subject(names: list[str], conversions: list[str]) -> tuple[list[str], str | None]:
    """Drop a ``Subject:`` prefix shared by every name (Vicon, Motive)."""
    prefixes = {n.split(":", 1)[0] for n in names if ":" in n}
    if len(prefixes) == 1 and all(":" in n for n in names):
        prefix = prefixes.pop()
        short = [n.split(":", 1)[1] for n in names]
        if len(set(short)) == len(short) and all(short):
            conversions.append(f"subject prefix '{prefix}:' removed from the marker names")
            return short, prefix
    return names, None


def _data_rows(rows, start, stop, line_offset=0):
    out, line_no = [], []
    for i in range(start, stop):
        if any(c.strip() for c in rows[i]):
            out.append(rows[i])
            line_no.append(i + 1 + line_offset)
    return out, line_no


def _units(option, file_unit, path, where, xyz, conversions) -> str:
    """Short unit name from the option, else the file's unit, else detection."""
    if option is not None:
        v.length_scale(option, path, "the units option")
        return v.canonical_unit(option)
    if file_unit is not None:
        v.length_scale(file_unit, path, where)
        return v.canonical_unit(file_unit)
    unit, note = _detect_units(xyz)
    conversions.append(note)
    return unit


# ----------------------------------------------------------------------------- plain
def _numbers(path, lines, head, rows, start, columns, delim, dest, width, n_aux=0):
    """Data block from line ``start`` (0-based) to the end: fast path, else careful.

    Column j goes to ``table[:, dest[j]]`` (dest[j] >= 0), ``aux[:, -2 - dest[j]]``
    (<= -2) or nowhere (-1), as :func:`humanbody.io._fastread.fast_block`
    fills them.  Returns table (rows, width), aux (rows, n_aux) and the
    1-based line of each row.
    """
    fast = None
    if head is not None and delim != " ":
        fast = fr.fast_block(head, start, columns, delim, dest, width, n_aux)
    if fast is not None:
        return fast
    if head is not None:  # rows held only the head of the file
        rows = _rows(v.read_lines(path), delim)
    body, line_no = _data_rows(rows, start, len(rows))
    values = v.parse_block(body, line_no, columns, path)
    table, aux = np.empty((len(values), width)), np.empty((len(values), n_aux))
    for j, d in enumerate(dest):
        if d >= 0:
            table[:, d] = values[:, j]
        elif d <= -2:
            aux[:, -2 - d] = values[:, j]
    return table, aux, line_no


def _dest(n_columns: int, time_col, idx, extra) -> list[int]:
    """Targets of the columns: time -> 0, marker columns ``idx`` -> 1.., ``extra`` -> aux 0.."""
    dest = [-1] * n_columns
    if time_col is not None:
        dest[time_col] = 0
    for k, j in enumerate(idx):
        dest[j] = 1 + k
    for k, j in enumerate(extra):
        dest[j] = -2 - k
    return dest


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
        if cells and all(c.lower() in v.LENGTH_UNITS or c.lower() in _TIME_UNITS for c in cells):
            for j in (slot[a] for slot in markers.values() for a in "xyz"):
                if j < len(urow) and urow[j]:
                    unit_hints.add(urow[j])
            start += 1
    for u in unit_hints:
        v.length_scale(u, path, "a column name or the units row")
    if len({v.canonical_unit(u) for u in unit_hints}) > 1:
        raise InputError(f"the marker columns give different units ({', '.join(sorted(unit_hints))})", path)

    if head is not None and start >= len(lines) - 1:  # the head ends before the data
        return read_plain(path, v.read_lines(path), units=units, rate_hz=rate_hz)
    names = list(markers)
    idx = [markers[n][a] for n in names for a in "xyz"]
    extra = [j for j in (rate_col, frame_col) if j is not None]
    table, aux, line_no = _numbers(path, lines, head, rows, start, header, delim,
                                   _dest(len(header), time_col, idx, extra), 1 + len(idx), len(extra))
    xyz = table[:, 1:].reshape(len(table), len(names), 3)
    file_unit = next(iter(unit_hints)) if unit_hints else None
    unit = _units(units, file_unit, path, "a column name", xyz, conversions)

    rate = None
    if rate_hz is not None:
        rate = v.positive_rate(rate_hz, path, "rate_hz option")
    elif rate_col is not None:
        col = aux[:, extra.index(rate_col)]
        col = col[np.isfinite(col)]
        if col.size == 0 or np.ptp(col) > 1e-9 * abs(col[0]):
            raise InputError(f"the rate column {header[rate_col]!r} is empty or not constant", path)
        rate = v.positive_rate(col[0], path, f"rate in column {header[rate_col]!r}")
    if time_col is not None:
        t = table[:, 0] * time_scale
        if time_scale != 1.0:
            conversions.append("time ms -> s")
        time, rate = v.time_base(t, path, line_no, header_rate=rate, conversions=conversions)
    else:
        if rate is None:
            raise InputError("has a Frame column but no time column or frame rate; pass rate_hz=", path)
        frames = aux[:, extra.index(frame_col)]
        time, _ = v.time_base((frames - frames[0]) / rate, path, line_no)
        conversions.append(f"time from the Frame column at {rate:g} Hz")
    return v.marker_frame(
        time, names, xyz, path=path, fmt="csv", rate_hz=rate, units_in_file=unit,
        scale=v.LENGTH_UNITS[unit], conversions=conversions,
        extra_attrs={"ignored_columns": ignored}, table=table,
    )


# ----------------------------------------------------------------------------- Vicon
def read_vicon(path: Path, lines: list[str], units=None, rate_hz=None):
    """Trajectories section of a Vicon Nexus CSV export."""
    stripped = [line.strip().rstrip(",;\t").strip().lower() for line in lines]
    try:
        title = stripped.index("trajectories")
    except ValueError:
        raise InputError("has no Trajectories section", path) from None
    delim = _delimiter(next((line for line in lines[title + 1:] if line.count(",") or "\t" in line), ","))
    k = title + 1
    while k < len(lines) and not stripped[k]:
        k += 1
    if k >= len(lines):
        raise InputError("the Trajectories section ends after its title", path)
    rate_line = k
    rate_text = _rows([lines[k]], delim)[0][0].strip()
    header_rows = []
    k += 1
    while k < len(lines) and len(header_rows) < 3:
        if stripped[k]:
            header_rows.append(k)
        k += 1
    if len(header_rows) < 3:
        raise InputError("the Trajectories section has an incomplete header", path)
    names_row, axes_row, units_row = ([c.strip() for c in _rows([lines[i]], delim)[0]]
                                      for i in header_rows)
    if not axes_row or axes_row[0].lower() != "frame":
        raise InputError(
            f"line {header_rows[1] + 1} of the Trajectories section must start with Frame", path
        )
    # the section ends at the first blank line after the data starts
    stop = k
    while stop < len(lines) and stripped[stop]:
        stop += 1
    names = []
    for j in range(2, len(axes_row), 3):
        name = names_row[j] if j < len(names_row) else ""
        if not name:
            if any(axes_row[j:j + 3]):
                raise InputError(f"the Trajectories columns {j + 1}-{j + 3} have no marker name", path)
            continue
        if [a.upper() for a in axes_row[j:j + 3]] != ["X", "Y", "Z"]:
            raise InputError(f"marker {name!r} does not have X, Y, Z columns", path)
        names.append(name)
    if not names:
        raise InputError("the Trajectories section names no markers", path)
    ncol = 2 + 3 * len(names)
    columns = ["Frame", "Sub Frame"] + [f"{n}_{a}" for n in names for a in "XYZ"]
    body, line_no = _data_rows(_rows(lines[k:stop], delim), 0, stop - k, line_offset=k)
    values = v.parse_block(body, line_no, columns, path)
    conversions: list[str] = []
    file_units = {u for u in units_row[2:ncol] if u}
    if len(file_units) > 1:
        raise InputError(f"the Trajectories units row mixes units ({', '.join(sorted(file_units))})", path)
    xyz = values[:, 2:].reshape(len(body), len(names), 3)
    unit = _units(units, file_units.pop() if file_units else None, path,
                  "the Trajectories units row", xyz, conversions)
    if rate_hz is not None:
        rate = v.positive_rate(rate_hz, path, "rate_hz option")
    else:
        rate = v.positive_rate(rate_text, path, f"Trajectories rate on line {rate_line + 1}")
    frames = values[:, 0]
    time, _ = v.time_base((frames - 1.0) / rate, path, line_no)  # frame numbers must be regular
    conversions.append(f"time = (Frame - 1) / {rate:g} Hz")
    short, subject = _strip_subject(names, conversions)
    return v.marker_frame(
        time, short, xyz, path=path, fmt="vicon-csv", rate_hz=rate, units_in_file=unit,
        scale=v.LENGTH_UNITS[unit], conversions=conversions,
        extra_attrs={"subject": subject, "first_frame": int(frames[0])},
    )


# ----------------------------------------------------------------------------- Motive
def read_motive(path: Path, lines: list[str], units=None, rate_hz=None, head=None):
    """Marker positions of an OptiTrack Motive CSV export (``head``: as for read_plain)."""
    delim = _delimiter(lines[0])
    rows = _rows(lines, delim)
    meta_row = rows[0]
    meta = {meta_row[i].strip().lower(): meta_row[i + 1].strip()
            for i in range(0, len(meta_row) - 1, 2) if meta_row[i].strip()}
    axis_i = next((i for i, r in enumerate(rows[:40])
                   if len(r) > 1 and r[0].lower() == "frame" and r[1].lower().startswith("time")), None)
    if axis_i is None:
        raise InputError("has no 'Frame,Time (Seconds),X,Y,Z' row in its Motive header", path)
    labelled = {}
    order = ["type", "name", "id", "parent"]
    plain = [i for i in range(1, axis_i - 1) if any(rows[i])]
    for pos, i in enumerate(plain):
        label = rows[i][1].strip().lower() if len(rows[i]) > 1 else ""
        key = label if label in order else order[min(pos, 3)]
        labelled[key] = rows[i]
    comp = rows[axis_i - 1]
    axes = rows[axis_i]
    types, names = labelled.get("type"), labelled.get("name")
    if types is None or names is None:
        raise InputError("the Motive header has no Type or Name row", path)

    def cell(row, j):
        return row[j].strip() if j < len(row) else ""

    triples: list[tuple[str, int]] = []
    j = 2
    while j + 2 < len(axes) + 1:
        if (cell(types, j) == "Marker" and cell(comp, j) == "Position"
                and [cell(axes, j + a).upper() for a in range(3)] == ["X", "Y", "Z"]):
            triples.append((cell(names, j), j))
            j += 3
        else:
            j += 1
    if not triples:
        raise InputError("the Motive export has no Marker Position columns", path)
    columns = [f"col{j + 1}" if not c else c for j, c in enumerate(axes)]
    idx = [j + a for _, j in triples for a in range(3)]
    table, _, line_no = _numbers(path, lines, head, rows, axis_i + 1, columns, delim,
                                 _dest(len(columns), 1, idx, []), 1 + len(idx))
    n_rows = len(table)
    conversions: list[str] = []
    names_list = [n for n, _ in triples]
    xyz = table[:, 1:].reshape(n_rows, len(triples), 3)
    unit = _units(units, meta.get("length units"), path, "the Motive Length Units", xyz, conversions)
    rate = None
    if rate_hz is not None:
        rate = v.positive_rate(rate_hz, path, "rate_hz option")
    else:
        for key in ("export frame rate", "capture frame rate"):
            if meta.get(key):
                rate = v.positive_rate(meta[key], path, f"Motive {key}")
                break
    time, rate = v.time_base(table[:, 0], path, line_no, header_rate=rate, conversions=conversions)
    if "total exported frames" in meta:
        try:
            declared = int(float(meta["total exported frames"]))
        except ValueError:
            declared = None
        if declared is not None and n_rows < declared:
            raise InputError(
                f"truncated: the header says Total Exported Frames={declared} but there are only "
                f"{n_rows} data rows", path,
            )
    short, subject = _strip_subject(names_list, conversions)
    return v.marker_frame(
        time, short, xyz, path=path, fmt="motive-csv", rate_hz=rate, units_in_file=unit,
        scale=v.LENGTH_UNITS[unit], conversions=conversions,
        extra_attrs={"subject": subject, "header": meta}, table=table,
    )


# ----------------------------------------------------------------------------- Qualisys
def read_qualisys(path: Path, lines: list[str], units=None, rate_hz=None):
    """Qualisys Track Manager TSV export of 3-D trajectories (millimetres)."""
    rows = [line.rstrip("\r\n").split("\t") for line in lines]
    meta: dict[str, list[str]] = {}
    k = 0
    while k < len(rows) and rows[k] and re.fullmatch(r"[A-Z][A-Z0-9_]*", rows[k][0].strip() or "-"):
        meta[rows[k][0].strip()] = [c.strip() for c in rows[k][1:]]
        k += 1
    if "MARKER_NAMES" not in meta:
        raise InputError("the Qualisys header has no MARKER_NAMES line", path)
    names = [n for n in meta["MARKER_NAMES"] if n]
    if not names:
        raise InputError("MARKER_NAMES lists no markers", path)
    names = v.check_marker_names(names, path)
    while k < len(rows) and not any(c.strip() for c in rows[k]):
        k += 1
    lead = 0
    if k < len(rows) and rows[k] and rows[k][0].strip().lower() == "frame":
        head = [c.strip() for c in rows[k]]
        lead = 2 if len(head) > 1 and head[1].lower() == "time" else 1
        k += 1
    else:
        # no column row: Frame and Time columns are present when the row is 3n+2 wide
        first = next((r for r in rows[k:] if any(c.strip() for c in r)), [])
        width = len([c for c in first if c.strip()])
        lead = 2 if width == 3 * len(names) + 2 else 0
    columns = (["Frame", "Time"][:lead]) + [f"{n}_{a}" for n in names for a in "XYZ"]
    body, line_no = _data_rows(rows, k, len(rows))
    values = v.parse_block(body, line_no, columns, path)
    conversions: list[str] = []
    if rate_hz is not None:
        rate = v.positive_rate(rate_hz, path, "rate_hz option")
    elif meta.get("FREQUENCY"):
        rate = v.positive_rate(meta["FREQUENCY"][0], path, "Qualisys FREQUENCY")
    else:
        raise InputError("the Qualisys header has no FREQUENCY; pass rate_hz=", path)
    if "NO_OF_FRAMES" in meta:
        try:
            declared = int(float(meta["NO_OF_FRAMES"][0]))
        except (ValueError, IndexError):
            raise InputError("NO_OF_FRAMES in the header is not a number", path) from None
        if len(body) < declared:
            raise InputError(
                f"truncated: the header says NO_OF_FRAMES={declared} but there are only "
                f"{len(body)} data rows", path,
            )
        if len(body) > declared:
            raise InputError(f"the header says NO_OF_FRAMES={declared} but there are {len(body)} data rows", path)
    if "NO_OF_MARKERS" in meta:
        try:
            declared = int(float(meta["NO_OF_MARKERS"][0]))
        except (ValueError, IndexError):
            declared = None
        if declared is not None and declared != len(names):
            raise InputError(
                f"the header says NO_OF_MARKERS={declared} but MARKER_NAMES lists {len(names)}", path
            )
    if lead == 2:
        time, rate = v.time_base(values[:, 1], path, line_no, header_rate=rate, conversions=conversions)
    elif lead == 1:
        time, _ = v.time_base((values[:, 0] - values[0, 0]) / rate, path, line_no)
    else:
        time = v.time_from_rate(len(body), rate, path)
    xyz = values[:, lead:].reshape(len(body), len(names), 3)
    if units is None:
        unit = "mm"
        conversions.append("Qualisys TSV coordinates taken as mm (the format's unit)")
    else:
        v.length_scale(units, path, "the units option")
        unit = v.canonical_unit(units)
    return v.marker_frame(
        time, names, xyz, path=path, fmt="qualisys-tsv", rate_hz=rate, units_in_file=unit,
        scale=v.LENGTH_UNITS[unit], conversions=conversions,
        extra_attrs={"header": {key: " ".join(val) for key, val in meta.items()
                                if key != "MARKER_NAMES"}},
    )


_READERS = {"plain": read_plain, "vicon": read_vicon, "motive": read_motive, "qualisys": read_qualisys}


def read_marker_text(path, units=None, rate_hz=None, layout: str | None = None):
    """Read a marker CSV/TSV file of any layout above.

    Parameters
    ----------
    path : str or Path
        The file.
    units : {"mm", "cm", "m"}, optional
        Length unit of the coordinates, overriding the file and detection.
    rate_hz : float, optional
        Frame rate (Hz), overriding the file's; needed for files with
        frame numbers and no time column nor rate.
    layout : {"plain", "vicon", "motive", "qualisys"}, optional
        Skip the layout detection.

    Returns
    -------
    DataFrame
        Marker layout (``time``, ``<marker>_x/_y/_z`` in m) with the common
        ``attrs``; ``format`` is "csv", "vicon-csv", "motive-csv" or
        "qualisys-tsv".
    """
    path = v.check_file(path)
    head = fr.read_head(path, _HEAD_LINES)
    if head is not None:  # a large file: plain and Motive layouts read their numbers fast
        first = next(line for line in head.lines if line.strip()).strip().lstrip("\ufeff")
        vicon_like = first.rstrip(",\t;").strip().lower() in _VICON_SECTIONS
        fast_layout = layout or (None if vicon_like else sniff(head.lines))
        if fast_layout in ("plain", "motive"):
            return _READERS[fast_layout](path, head.lines, units=units, rate_hz=rate_hz, head=head)
    lines = v.read_lines(path)
    layout = layout or sniff(lines)
    if layout not in _READERS:
        raise InputError("cannot tell the format of the file: expected TRC, MOT/STO, C3D, CSV or TSV", path)
    return _READERS[layout](path, lines, units=units, rate_hz=rate_hz)

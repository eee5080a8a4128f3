"""Marker trajectories in three vendor text exports (docs/formats.md shows an example of each).

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

import re
from pathlib import Path

from ..errors import InputError
from . import _text
from ._csv_common import (
    data_rows,
    destination_columns,
    marker_units,
    read_numbers,
    sniff_delimiter,
    split_rows,
    strip_subject,
)
from ._validate import marker_frame


def read_vicon(path: Path, lines: list[str], units=None, rate_hz=None):
    """Trajectories section of a Vicon Nexus CSV export.

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

    Returns
    -------
    pandas.DataFrame
        ``time`` (s) and ``<marker>_x/_y/_z`` (m), lab axes; ``attrs`` as the readers write them.
    """
    stripped = [line.strip().rstrip(",;\t").strip().lower() for line in lines]
    try:
        title = stripped.index("trajectories")
    except ValueError:
        raise InputError("has no Trajectories section", path) from None
    delim = sniff_delimiter(next((line for line in lines[title + 1:] if line.count(",") or "\t" in line), ","))
    k = title + 1
    while k < len(lines) and not stripped[k]:
        k += 1
    if k >= len(lines):
        raise InputError("the Trajectories section ends after its title", path)
    rate_line = k
    rate_text = split_rows([lines[k]], delim)[0][0].strip()
    header_rows: list[int] = []
    k += 1
    while k < len(lines) and len(header_rows) < 3:
        if stripped[k]:
            header_rows.append(k)
        k += 1
    if len(header_rows) < 3:
        raise InputError("the Trajectories section has an incomplete header", path)
    names_row, axes_row, units_row = ([c.strip() for c in split_rows([lines[i]], delim)[0]]
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
    body, line_no = data_rows(split_rows(lines[k:stop], delim), 0, stop - k, line_offset=k)
    values = _text.parse_block(body, line_no, columns, path)
    conversions: list[str] = []
    file_units = {u for u in units_row[2:ncol] if u}
    if len(file_units) > 1:
        raise InputError(f"the Trajectories units row mixes units ({', '.join(sorted(file_units))})", path)
    xyz = values[:, 2:].reshape(len(body), len(names), 3)
    unit = marker_units(units, file_units.pop() if file_units else None, "the Trajectories units row", xyz,
                  conversions)
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    else:
        rate = (rate_text, f"Trajectories rate on line {rate_line + 1}")
    frames = values[:, 0]
    short, subject = strip_subject(names, conversions)
    return marker_frame(
        path, "vicon-csv", short, xyz, units=unit, rate=rate, frames=(frames, 1.0), line_numbers=line_no,
        time_note="time = (Frame - 1) / {rate:g} Hz", conversions=conversions,
        extra_attrs={"subject": subject, "first_frame": int(frames[0])},
    )



def read_motive(path: Path, lines: list[str], units=None, rate_hz=None, head=None):
    """Marker positions of an OptiTrack Motive CSV export (``head``: as for read_plain).

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
        The file's first lines when it is large (the data block is then read by the fast reader).

    Returns
    -------
    pandas.DataFrame
        ``time`` (s) and ``<marker>_x/_y/_z`` (m), lab axes; ``attrs`` as the readers write them.
    """
    delim = sniff_delimiter("\n".join(lines[:12]))  # the header and first rows decide, not a padded first line
    rows = split_rows(lines, delim)
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
    table, _, line_no = read_numbers(path, lines, head, rows, axis_i + 1, columns, delim,
                                 destination_columns(len(columns), 1, idx, []), 1 + len(idx))
    n_rows = len(table)
    conversions: list[str] = []
    names_list = [n for n, _ in triples]
    xyz = table[:, 1:].reshape(n_rows, len(triples), 3)
    unit = marker_units(units, meta.get("length units"), "the Motive Length Units", xyz, conversions)
    rate = None
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    else:
        for key in ("export frame rate", "capture frame rate"):
            if meta.get(key):
                rate = (meta[key], f"Motive {key}")
                break
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
    short, subject = strip_subject(names_list, conversions)
    return marker_frame(
        path, "motive-csv", short, xyz, units=unit, rate=rate, time=table[:, 0], line_numbers=line_no,
        conversions=conversions, extra_attrs={"subject": subject, "header": meta}, table=table,
    )



#: A Qualisys header line: an upper-case key, then its values after tabs or spaces.
_QUALISYS_KEY = re.compile(r"\s*([A-Z][A-Z0-9_]*)(?:[\t ]+(.*)|\s*)$")


def read_qualisys(path: Path, lines: list[str], units=None, rate_hz=None):
    """Qualisys Track Manager TSV export of 3-D trajectories (millimetres).

    Parameters
    ----------
    path : pathlib.Path
        The TSV file (named in errors).
    lines : list of str
        The file's text lines.
    units : str, optional
        The length unit, overriding the file's.
    rate_hz : float, optional
        The sampling rate, overriding the file's.

    Returns
    -------
    pandas.DataFrame
        ``time`` (s) and ``<marker>_x/_y/_z`` (m), lab axes; ``attrs`` as the readers write them.
    """
    rows = [line.rstrip("\r\n").split("\t") for line in lines]
    meta: dict[str, list[str]] = {}
    k = 0
    while k < len(lines):  # KEY then its values, after any run of tabs or spaces
        m = _QUALISYS_KEY.match(lines[k].rstrip("\r\n"))
        if m is None:
            break
        rest = m.group(2) or ""
        meta[m.group(1)] = [c.strip() for c in rest.split("\t") if c.strip()] if "\t" in rest else rest.split()
        k += 1
    if "MARKER_NAMES" not in meta:
        raise InputError("the Qualisys header has no MARKER_NAMES line", path)
    names = [n for n in meta["MARKER_NAMES"] if n]
    if not names:
        raise InputError("MARKER_NAMES lists no markers", path)
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
    body, line_no = data_rows(rows, k, len(rows))
    values = _text.parse_block(body, line_no, columns, path)
    conversions: list[str] = []
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    elif meta.get("FREQUENCY"):
        rate = (meta["FREQUENCY"][0], "Qualisys FREQUENCY")
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
            declared_markers: int | None = int(float(meta["NO_OF_MARKERS"][0]))
        except (ValueError, IndexError):
            declared_markers = None
        if declared_markers is not None and declared_markers != len(names):
            raise InputError(
                f"the header says NO_OF_MARKERS={declared_markers} but MARKER_NAMES lists {len(names)}", path
            )
    time = values[:, 1] if lead == 2 else None
    frames = (values[:, 0], values[0, 0]) if lead == 1 else None
    xyz = values[:, lead:].reshape(len(body), len(names), 3)
    if units is None:
        unit = ("mm", "the units option")
        conversions.append("Qualisys TSV coordinates taken as mm (the format's unit)")
    else:
        unit = (units, "the units option")
    return marker_frame(
        path, "qualisys-tsv", names, xyz, units=unit, rate=rate, time=time, frames=frames,
        line_numbers=line_no, conversions=conversions,
        extra_attrs={"header": {key: " ".join(val) for key, val in meta.items()
                                if key != "MARKER_NAMES"}},
    )

"""OpenSim MOT/STO tables: ground reaction forces, coordinates, other tables.

Layout (docs/formats.md)::

    Coordinates                 <- title line
    version=1
    nRows=211
    nColumns=24
    inDegrees=yes
    <free text lines>
    endheader
    time  pelvis_tilt  ...  pelvis_tx ...      <- column names (tab or spaces)
    0.50  4.76         ...  0.5895    ...

The table becomes one of three kinds:

- ``forces``: ground-reaction files (columns such as ``ground_force_vx``,
  ``ground_force_px``, ``ground_torque_x``, also with a plate prefix such as
  ``1_ground_force_vx``); values are SI already (N, m, N·m) and kept as named.
- ``opensim_coordinates``: joint coordinates (inverse-kinematics output,
  title ``Coordinates``, or OpenSim coordinate names); with ``inDegrees=yes``
  the rotational columns are converted to radians, the translations
  ``*_tx``, ``*_ty``, ``*_tz`` are kept in metres.
- ``table``: anything else (for example inverse-dynamics moments), as given.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _fastread as fr
from . import _text
from ._validate import checked_time_base, table_frame

_FORCE = re.compile(r"(^|_)(ground_)?(force|torque)_(v|p)?[xyz]$|ground_(force|torque)", re.I)
_TRANSLATION = re.compile(r"_t[xyz]$", re.I)
#: Coordinate names of the OpenSim gait models (gait2392, Rajagopal), by stem.
_COORD_STEMS = (
    "pelvis_tilt", "pelvis_list", "pelvis_rotation", "hip_flexion", "hip_adduction",
    "hip_rotation", "knee_angle", "ankle_angle", "subtalar_angle", "mtp_angle",
    "lumbar_extension", "lumbar_bending", "lumbar_rotation", "arm_flex", "arm_add",
    "arm_rot", "elbow_flex", "pro_sup", "wrist_flex", "wrist_dev",
)


def looks_like_opensim(lines: list[str]) -> bool:
    """True when an ``endheader`` line appears near the top of the file.

    Parameters
    ----------
    lines : list of str
        The file's first lines.

    Returns
    -------
    bool
        True when an "endheader" line is among the first 200.
    """
    return any(line.strip().lower() == "endheader" for line in lines[:200])


def _parse_header(lines, path):
    end = next((i for i, line in enumerate(lines) if line.strip().lower() == "endheader"), None)
    if end is None:
        raise InputError("is not an OpenSim MOT/STO file: no endheader line", path)
    fields = {}
    title = lines[0].strip() if end > 0 and "=" not in lines[0] else ""
    for line in lines[:end]:
        text = line.strip()
        if "=" in text:
            key, _, val = text.partition("=")
            fields[key.strip().lower()] = val.strip()
    return end, title, fields


def declared_int(fields, key, path):
    """An integer the header declares (``nRows=...``), or None when it does not.

    Parameters
    ----------
    fields : dict
        The header's ``key=value`` pairs.
    key : str
        The key (e.g. "nRows").
    path : str or os.PathLike
        The file, for the message.

    Returns
    -------
    int or None
        The value, or None when the header does not declare it.

    Raises
    ------
    InputError
        When the value is not a number.
    """
    if key not in fields:
        return None
    try:
        return int(float(fields[key]))
    except ValueError:
        raise InputError(f"{key}={fields[key]!r} in the header is not a number", path) from None


def table_head(path) -> tuple[list[str], str, dict, int, str | None, list[str]]:
    """The lines of an OpenSim MOT/STO file and its head: ``(lines, title, fields, k, sep, columns)``.

    ``fields`` are the header's ``key=value`` pairs, ``k`` the index of the
    column-name line, ``sep`` its separator (tab, else white space) and
    ``columns`` the names on it (trailing empty cells dropped).

    Parameters
    ----------
    path : str or os.PathLike
        The .mot or .sto file.

    Returns
    -------
    tuple
        (lines, title, fields, k, sep, columns) as above.
    """
    lines = _text.read_lines(path)
    end, title, fields = _parse_header(lines, path)
    k = end + 1
    while k < len(lines) and not lines[k].strip():
        k += 1
    if k >= len(lines):
        raise InputError("has a header but no column names or data rows", path)
    sep = "\t" if "\t" in lines[k] else None
    columns = list(_text.split_line(lines[k], sep))
    while columns and not columns[-1]:
        columns.pop()
    return lines, title, fields, k, sep, columns


def table_kind(columns: list[str], title: str) -> str:
    """Kind of an OpenSim table from its column names and title line.

    Parameters
    ----------
    columns : list of str
        The column names, time first.
    title : str
        The file's first line.

    Returns
    -------
    str
        ``"forces"``, ``"opensim_coordinates"`` or ``"table"``.
    """
    data = columns[1:]
    if any(_FORCE.search(c) for c in data):
        return "forces"
    if title.strip().lower() == "coordinates":
        return "opensim_coordinates"
    if any(c.lower().startswith(_COORD_STEMS) and not c.lower().endswith(("_moment", "_force"))
           for c in data):
        return "opensim_coordinates"
    return "table"


def read_opensim(path, **options):
    """Read an OpenSim ``.mot``/``.sto`` table.

    Parameters
    ----------
    path : str or Path
        The file.
    **options
        ``rate_hz`` is accepted for symmetry and ignored (the time column
        gives the rate); ``units`` is rejected.

    Returns
    -------
    DataFrame
        ``time`` (s) then the file's columns.  ``attrs``: kind ("forces",
        "opensim_coordinates" or "table"), source, format ("opensim-mot" or
        "opensim-sto"), rate_hz (from the time column), conversions (the
        deg -> rad conversion with the converted columns), converted_columns,
        in_degrees, title, header (the key=value fields).

    Raises
    ------
    InputError
        No endheader, no column line, no ``time`` first column, duplicate
        column names, nRows/nColumns that disagree with the table, and every
        check of :mod:`humanbody.io._text` and :mod:`humanbody.io._validate`.
    """
    if options.get("units") is not None:
        raise InputError("the units option applies to marker files, not to MOT/STO tables", path)
    return table_frame(**_table(path))


def read_opensim_arrays(path) -> tuple[list[str], np.ndarray, np.ndarray, dict]:
    """An OpenSim ``.mot``/``.sto`` table as arrays, without a DataFrame (no pandas import).

    The same file, checks and numbers as :func:`read_opensim`.

    Parameters
    ----------
    path : str or os.PathLike
        The .mot or .sto file.

    Returns
    -------
    columns : list of str
        The columns after ``time``, as named in the file.
    time : ndarray, shape (frames,)
        Time (s), checked as :func:`read_opensim` checks it.
    values : ndarray, shape (frames, len(columns))
        The columns' values (rotational coordinates in rad, as :func:`read_opensim`).
    attrs : dict
        What :func:`read_opensim` puts in the DataFrame's ``attrs``.
    """
    t = _table(path)
    time, rate_hz = checked_time_base(t["time"], t["path"], t["line_numbers"])
    attrs = {"kind": t["kind"], "source": str(t["path"]), "format": t["fmt"], "rate_hz": float(rate_hz),
             "conversions": list(t["conversions"]), **t["extra_attrs"]}
    return t["columns"], np.asarray(time, dtype=float), t["values"], attrs


def _table(path) -> dict:
    """The checked table of an OpenSim file: the arguments of :func:`humanbody.io._validate.table_frame`."""
    path = _text.check_file(path)
    lines, title, fields, k, sep, columns = table_head(path)
    columns = _column_names(lines, k, sep, columns, fields, path)
    values, line_no = _data(path, lines, k, sep, columns)
    nrows = declared_int(fields, "nrows", path)
    if nrows is not None and len(line_no) < nrows:
        raise InputError(
            f"truncated: the header says nRows={nrows} but there are only {len(line_no)} data rows",
            path,
        )
    if nrows is not None and len(line_no) > nrows:
        raise InputError(f"the header says nRows={nrows} but there are {len(line_no)} data rows", path)
    in_degrees = fields.get("indegrees", "no").strip().lower() in ("yes", "true", "1")
    kind = table_kind(columns, title)
    names = columns[1:]
    data, converted, conversions = _to_radians(values[:, 1:].copy(), names, kind == "opensim_coordinates"
                                               and in_degrees)
    fmt = "opensim-sto" if Path(path).suffix.lower() == ".sto" else "opensim-mot"
    return {"path": path, "fmt": fmt, "kind": kind, "columns": names, "values": data, "time": values[:, 0],
            "line_numbers": line_no, "conversions": conversions,
            "extra_attrs": {"converted_columns": converted, "in_degrees": in_degrees, "title": title,
                            "header": fields}}


def _data(path, lines: list[str], k: int, sep: str | None, columns: list[str]) -> tuple:
    """The numbers of the data rows after the column-name line ``k``: ``(values (rows, columns), line numbers)``.

    A tab-separated file of :data:`humanbody.io._fastread.FAST_MIN_BYTES` or more (a ground-reaction
    file of a few seconds) is parsed by the fast path (the same numbers; a GRF file of 1,500 rows
    3-5x faster); the careful path below reads the rest and gives the precise message on bad input.
    """
    if sep == "\t":
        head = fr.read_head(path, k + 2)
        if head is not None and head.lines[:k + 1] == lines[:k + 1]:
            fast = fr.fast_block(head, k + 1, columns, "\t", np.arange(len(columns)), len(columns))
            if fast is not None and len(fast[2]):
                return fast[0], fast[2]
    rows, line_no = [], []
    for i in range(k + 1, len(lines)):
        if lines[i].strip():
            rows.append(_text.split_line(lines[i], sep))
            line_no.append(i + 1)
    if not rows:
        raise InputError("has a header but no data rows", path)
    return _text.parse_block(rows, line_no, columns, path), line_no


def _column_names(lines: list[str], k: int, sep: str | None, columns: list[str], fields: dict, path) -> list[str]:
    """The column names of line ``k + 1`` checked: ``time`` first, every column named once, as many as
    ``nColumns`` says (names padded by runs of tabs, one value per name below, are closed up)."""
    first = next((ln for ln in lines[k + 1:] if ln.strip()), "")
    named = [c for c in columns if c]
    if len(named) < len(columns) and len(named) == len(_text.split_line(first, sep)):
        columns = named  # names padded by runs of tabs, one value per name below
    if not columns or columns[0].lower() != "time":
        raise InputError(f"the first column on line {k + 1} must be 'time'", path)
    if any(not c for c in columns):
        raise InputError(f"a column on line {k + 1} has no name", path)
    seen = set()
    for c in columns:
        if c in seen:
            raise InputError(f"column {c!r} appears twice", path)
        seen.add(c)
    ncols = declared_int(fields, "ncolumns", path)
    if ncols is not None and ncols != len(columns):
        raise InputError(f"the header says nColumns={ncols} but line {k + 1} names {len(columns)}", path)
    return columns


def _to_radians(data: np.ndarray, names: list[str], convert: bool) -> tuple[np.ndarray, list[str], list[str]]:
    """With ``convert`` (coordinates, ``inDegrees=yes``), every rotational column of ``data`` (not
    ``*_tx/_ty/_tz``) deg -> rad, in place: ``(data, converted names, the conversion sentence)``."""
    if not convert:
        return data, [], []
    rot = [j for j, c in enumerate(names) if not _TRANSLATION.search(c)]
    data[:, rot] = np.deg2rad(data[:, rot])
    converted = [names[j] for j in rot]
    return data, converted, [f"{len(converted)} rotational coordinates deg -> rad (inDegrees=yes; "
                             f"translations *_tx/_ty/_tz kept in m): {', '.join(converted)}"]

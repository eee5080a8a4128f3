"""Helpers shared by the marker CSV/TSV readers: delimiters, column names, units, data rows.

:mod:`humanbody.io.csv_markers` (plain tables, layout detection) and
:mod:`humanbody.io.csv_vendors` (Vicon, Motive, Qualisys exports) read their
layouts with these.
"""

from __future__ import annotations

import csv
import re

import numpy as np

from .._kernels import marker_table as _marker_kernels
from . import _fastread as fr
from . import _text

_UNIT_HINT = re.compile(r"^(?P<base>.*?)\s*[\(\[](?P<unit>[^\)\]]*)[\)\]]\s*$")
AXIS_SUFFIX = re.compile(r"^(?P<name>.+?)[_.:\s-]+(?P<axis>[XYZxyz])$")
TIME_NAMES = {"time", "t", "times", "time_s", "seconds", "time (seconds)"}
FRAME_NAMES = {"frame", "frame#", "frames", "frame_number", "frame number", "sample"}
RATE_NAMES = {"rate", "rate_hz", "frame_rate", "framerate", "fps", "sample_rate",
               "sampling_rate", "hz"}
TIME_UNITS = {"s": 1.0, "sec": 1.0, "seconds": 1.0, "ms": 1e-3}
VICON_SECTIONS = {"devices", "trajectories", "model outputs", "joints", "segments"}
QUALISYS_KEYS = ("NO_OF_FRAMES", "NO_OF_MARKERS", "FREQUENCY", "MARKER_NAMES")


def sniff_delimiter(line: str) -> str:
    """The delimiter of a header line: tab, comma or semicolon, whichever occurs most; ``" "`` (runs of white space) when none does.

    Parameters
    ----------
    line : str
        The header line.

    Returns
    -------
    str
        The tab, comma or semicolon, or " " for runs of white space.
    """
    counts = {d: line.count(d) for d in ("\t", ",", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else " "


def split_rows(lines: list[str], delim: str) -> list[list[str]]:
    """The cells of every line: CSV cells for a delimiter, white-space fields for ``" "``.

    Parameters
    ----------
    lines : list of str
        The text lines.
    delim : str
        The delimiter (sniff_delimiter).

    Returns
    -------
    list of list of str
        One list of cells per line.
    """
    if delim == " ":
        return [line.split() for line in lines]
    return list(csv.reader(lines, delimiter=delim))  # cells keep their spaces; numbers parse anyway


def strip_unit_hint(name: str) -> tuple[str, str | None]:
    """A column name without its unit in brackets (``"X (mm)"`` -> ``("X", "mm")``).

    Parameters
    ----------
    name : str
        A column name.

    Returns
    -------
    base : str
        The name without the bracketed unit.
    unit : str or None
        The unit in the brackets, or None when there is none.
    """
    m = _UNIT_HINT.match(name)
    if m:
        return m.group("base").strip(), m.group("unit").strip()
    return name.strip(), None


def _detect_units(xyz: np.ndarray) -> tuple[str, str]:
    """Guess mm or m from the size of the marker cloud (positions in file units).

    A person spans about 0.2-2.2 m, so the per-frame extent of a full marker
    set is a few hundred to a few thousand in millimetres and below about 3
    in metres.  The statistic is the median over frames of the largest
    coordinate extent across markers, or, with one marker, the median of
    its largest absolute coordinate.  Above 10 the file is taken as mm.
    """
    if xyz.shape[1] >= 2:  # the usual case in one pass over the frames, no temporary arrays
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


def strip_subject(names: list[str], conversions: list[str]) -> tuple[list[str], str | None]:
    """Drop a ``Subject:`` prefix shared by every name (Vicon, Motive).

    Parameters
    ----------
    names : list of str
        The column (marker) names.
    conversions : list of str
        Takes a line saying what was removed.

    Returns
    -------
    names : list of str
        The names without the prefix (unchanged when they do not all share one).
    prefix : str or None
        The prefix removed, or None.
    """
    prefixes = {n.split(":", 1)[0] for n in names if ":" in n}
    if len(prefixes) == 1 and all(":" in n for n in names):
        prefix = prefixes.pop()
        short = [n.split(":", 1)[1] for n in names]
        if len(set(short)) == len(short) and all(short):
            conversions.append(f"subject prefix '{prefix}:' removed from the marker names")
            return short, prefix
    return names, None


def data_rows(rows, start, stop, line_offset=0):
    """The non-blank rows ``start .. stop - 1`` and their 1-based line numbers.

    Parameters
    ----------
    rows : list of list of str
        The file's rows of cells.
    start, stop : int
        The first row and one past the last (0-based indices into rows).
    line_offset : int
        Lines before ``rows[0]`` in the file.

    Returns
    -------
    rows : list of list of str
        The rows with at least one non-blank cell.
    line_numbers : list of int
        Their 1-based lines in the file.
    """
    out, line_no = [], []
    for i in range(start, stop):
        if any(c.strip() for c in rows[i]):
            out.append(rows[i])
            line_no.append(i + 1 + line_offset)
    return out, line_no


def marker_units(option, file_unit, where, xyz, conversions) -> tuple:
    """The length unit and where it is given: the option, else the file's unit, else detection.

    Parameters
    ----------
    option : str or None
        The ``units`` option.
    file_unit : str or None
        The unit the file states.
    where : str
        Where the file states it.
    xyz : ndarray
        The positions (file units), for detection.
    conversions : list of str
        Takes the detection's line.

    Returns
    -------
    unit : str
        The length unit ("m", "mm", ...).
    where : str
        Where it comes from, for the log ("the units option", the file's place, or the detection).
    """
    if option is not None:
        return option, "the units option"
    if file_unit is not None:
        return file_unit, where
    unit, note = _detect_units(xyz)
    conversions.append(note)
    return unit, "the detected unit"


def read_numbers(path, lines, head, rows, start, columns, delim, dest, width, n_aux=0):
    """Data block from line ``start`` (0-based) to the end: fast path, else careful.

    Column j goes to ``table[:, dest[j]]`` (dest[j] >= 0), ``aux[:, -2 - dest[j]]``
    (<= -2) or nowhere (-1), as :func:`humanbody.io._fastread.fast_block`
    fills them.  Returns table (rows, width), aux (rows, n_aux) and the
    1-based line of each row.

    Parameters
    ----------
    path : pathlib.Path
        The file (named in errors; read again when only its head was read).
    lines : list of str
        The file's lines as read (not used by the reading itself).
    head : Head or None
        The file's first lines when it is large (the fast reader reads the rest), else None.
    rows : list of list of str
        The rows of cells read so far (the whole file when head is None).
    start : int
        The first data row (0-based).
    columns : list of str
        The column names, named in errors.
    delim : str
        The delimiter (" " for white space).
    dest : list of int
        Where each column goes (see above), as destination_columns gives it.
    width : int
        Number of table columns.
    n_aux : int
        Number of aux columns.

    Returns
    -------
    table : ndarray, shape (rows, width)
        The time (column 0) and marker coordinates in file units.
    aux : ndarray, shape (rows, n_aux)
        The other columns read.
    line_numbers : list of int
        The 1-based line of each row.
    """
    fast = None
    if head is not None and delim != " ":
        fast = fr.fast_block(head, start, columns, delim, dest, width, n_aux)
    if fast is not None:
        return fast
    if head is not None:  # rows held only the head of the file
        rows = split_rows(_text.read_lines(path), delim)
    body, line_no = data_rows(rows, start, len(rows))
    values = _text.parse_block(body, line_no, columns, path)
    table, aux = np.empty((len(values), width)), np.empty((len(values), n_aux))
    for j, d in enumerate(dest):
        if d >= 0:
            table[:, d] = values[:, j]
        elif d <= -2:
            aux[:, -2 - d] = values[:, j]
    return table, aux, line_no


def destination_columns(n_columns: int, time_col, idx, extra) -> list[int]:
    """Targets of the columns: time -> 0, marker columns ``idx`` -> 1.., ``extra`` -> aux 0..

    Parameters
    ----------
    n_columns : int
        Number of columns in the file.
    time_col : int or None
        The time column's index (0-based), or None.
    idx : sequence of int
        The marker coordinate columns' indices, in table order.
    extra : sequence of int
        The indices of the other columns to keep (into aux).

    Returns
    -------
    list of int
        -1 for a column not read.
    """
    dest = [-1] * n_columns
    if time_col is not None:
        dest[time_col] = 0
    for k, j in enumerate(idx):
        dest[j] = 1 + k
    for k, j in enumerate(extra):
        dest[j] = -2 - k
    return dest

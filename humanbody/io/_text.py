"""Reading a text trial file the careful way: open it, split its lines, parse its data rows.

Each text reader (``trc``, ``opensim``, ``csv_markers``, ``csv_vendors``,
``coords``) opens its file with :func:`check_file` and :func:`read_lines`
and turns its data rows into numbers with :func:`parse_block`, whose
messages name the line and the column of a short, long or non-numeric row.
Large files take the fast path first (:mod:`humanbody.io._fastread`), which
hands any line it cannot read plainly back to this path.  Every function
raises :class:`humanbody.errors.InputError` naming the file.
"""

from __future__ import annotations

import csv
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from .._kernels.text_parse import MISSING_TOKENS  # cell texts read as a missing value
from ..errors import InputError

if TYPE_CHECKING:
    pass


# ----------------------------------------------------------------------------- files
def check_file(path) -> Path:
    """Return ``path`` as a Path after checking it is a readable, non-empty file.

    Parameters
    ----------
    path : str or os.PathLike
        The file.

    Returns
    -------
    pathlib.Path
        The same path.

    Raises
    ------
    InputError
        When the file does not exist, is a directory, cannot be read or is
        empty.
    """
    p = Path(os.fspath(path))
    if not p.exists():
        raise InputError("file not found", p)
    if p.is_dir():
        raise InputError("is a directory, not a trial file", p)
    try:
        size = p.stat().st_size
        with open(p, "rb") as fh:
            fh.read(1)
    except OSError as err:
        raise InputError(f"cannot read the file ({err.strerror or err})", p) from None
    if size == 0:
        raise InputError("the file is empty", p)
    return p


def read_lines(path: Path) -> list[str]:
    """Text lines of ``path`` without line ends (UTF-8, BOM and Latin-1 tolerated).

    Parameters
    ----------
    path : pathlib.Path
        The text file.

    Returns
    -------
    list of str
        Its lines.
    """
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise InputError(f"cannot read the file ({err.strerror or err})", path) from None
    if b"\x00" in raw[:4096]:
        raise InputError("is a binary file, not a text trial file", path)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    lines = text.splitlines()
    if not any(line.strip() for line in lines):
        raise InputError("the file holds only blank lines", path)
    return lines


def split_line(line: str, sep: str | None) -> list[str]:
    """Fields of one line: ``sep`` is a delimiter, or None for runs of white space.

    Parameters
    ----------
    line : str
        The line.
    sep : str or None
        The delimiter, or None for runs of white space.

    Returns
    -------
    list of str
        The fields, stripped of surrounding white space.
    """
    if sep is None:
        return line.split()
    return [f.strip() for f in line.split(sep)]


# ----------------------------------------------------------------------------- numbers
def parse_block(
    rows: list[list[str]],
    line_numbers: list[int],
    names: list[str],
    path: Path,
) -> np.ndarray:
    """Numbers of a data block, shape (rows, len(names)), missing cells -> NaN.

    Parameters
    ----------
    rows : list of list of str
        Fields of each data row (already split).
    line_numbers : list of int
        1-based line number of each row in the file, for messages.
    names : list of str
        Column names, for messages; their count is the expected row width.
        Extra fields after the last column must be blank.
    path : Path
        The file, for messages.

    Returns
    -------
    ndarray, shape (rows, len(names)), float64
        The numbers, NaN for empty cells.

    Raises
    ------
    InputError
        A row shorter than the header ("truncated at line N" for the last
        row), a non-blank field beyond the header, or a cell that is not a
        number (naming the line and the column).
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    ncol = len(names)
    if not rows:
        raise InputError("has a header but no data rows", path)
    cells = []
    for k, (fields, line_no) in enumerate(zip(rows, line_numbers, strict=True)):
        if len(fields) < ncol:
            if k == len(rows) - 1:
                raise InputError(
                    f"truncated at line {line_no}: the last row has {len(fields)} of "
                    f"{ncol} values", path,
                )
            raise InputError(
                f"line {line_no} has {len(fields)} values but the header has {ncol} columns",
                path,
            )
        if len(fields) > ncol:
            extra = [f for f in fields[ncol:] if f.strip()]
            if extra:
                raise InputError(
                    f"line {line_no} has more values ({len(fields)}) than the header has "
                    f"columns ({ncol})", path,
                )
            fields = fields[:ncol]
        cells.append(fields)
    try:  # fast path: pandas' C parser on the checked rows
        text = "\n".join("\t".join(fields) for fields in cells)
        values = pd.read_csv(
            io.StringIO(text), sep="\t", header=None, names=range(ncol), dtype=float,
            na_values=sorted(MISSING_TOKENS), keep_default_na=True, skipinitialspace=True,
            quoting=csv.QUOTE_NONE, skip_blank_lines=False, engine="c",
        ).to_numpy(dtype=float)
        if values.shape == (len(cells), ncol):
            return values
    except (ValueError, TypeError, pd.errors.ParserError):
        pass
    frame = pd.DataFrame(cells, dtype=object)
    values = frame.apply(pd.to_numeric, errors="coerce").to_numpy(dtype=float)
    for i, j in zip(*np.nonzero(np.isnan(values)), strict=True):  # NaN: a missing token or bad text
        text = str(cells[i][j]).strip().strip('"')
        if text.lower() not in MISSING_TOKENS:
            raise InputError(
                f"non-numeric value {text!r} at line {line_numbers[i]}, "
                f"column {j + 1} ({names[j]!r})", path,
            )
    return values

"""OpenSim TRC marker files (Motion Analysis "Track Row Column" text).

Layout (tab-separated; docs/formats.md shows an example)::

    PathFileType  4  (X/Y/Z)  walk.trc
    DataRate  CameraRate  NumFrames  NumMarkers  Units  OrigDataRate ...
    60.00     60.00       151        41          mm     60.00 ...
    Frame#  Time  R.ASIS          L.ASIS          ...
                  X1   Y1   Z1    X2   Y2   Z2    ...
    <blank line>
    1       0.000  617.2 1055.3 170.8 ...

Marker names sit on line 4, each heading three columns; line 5 labels the
columns X1 Y1 Z1 ...; data rows hold Frame#, Time and the coordinates.
Blank fields are missing samples.  The unit comes from the ``Units`` header
field and the rate from ``DataRate`` (the Time column must agree with it).
"""

from __future__ import annotations

import re

import numpy as np

from ..errors import InputError
from . import _fastread as fr
from . import _text
from ._validate import marker_frame

_LABEL = re.compile(r"^[XYZxyz]\d+$")


def looks_like_trc(first_line: str) -> bool:
    """True when the first line of a text file is a TRC ``PathFileType`` line.

    Parameters
    ----------
    first_line : str
        The file's first line.

    Returns
    -------
    bool
        True for a TRC file.
    """
    return first_line.lstrip("\ufeff").strip().lower().startswith("pathfiletype")


def _header_fields(keys_line: str, values_line: str) -> dict[str, str]:
    """The header's fields by name: the names on line 2 paired with the values on line 3.

    Fields are separated by any run of whitespace (writers use single tabs,
    runs of tabs or spaces); no field name or value contains whitespace.
    """
    # strict=False: a header line with more or fewer fields than the other is read as far as both go;
    # the fields the reader needs are checked by name afterwards
    return dict(zip(keys_line.split(), values_line.split(), strict=False))


def read_trc(path, units: str | None = None, rate_hz: float | None = None):
    """Read an OpenSim TRC marker file into a marker DataFrame.

    Parameters
    ----------
    path : str or Path
        The ``.trc`` file.
    units : {"mm", "cm", "m"}, optional
        Length unit of the coordinates, overriding the ``Units`` header field.
    rate_hz : float, optional
        Frame rate (Hz) overriding ``DataRate`` (used when the header has none).

    Returns
    -------
    DataFrame
        ``time`` (s), then ``<marker>_x/_y/_z`` in metres in the file's lab
        axes; ``attrs`` as in :func:`humanbody.io._validate.marker_frame`
        with ``format="trc"`` and ``header`` (the header fields).

    Raises
    ------
    InputError
        For every layout problem (see :mod:`humanbody.io._text` and
        :mod:`humanbody.io._validate`), a NumMarkers or NumFrames that
        disagrees with the file, or unknown units.
    """
    path = _text.check_file(path)
    head = fr.read_head(path, 6)  # large files: header lines now, numbers by the fast path
    lines = head.lines if head is not None else _text.read_lines(path)
    if not looks_like_trc(lines[0]):
        raise InputError("is not a TRC file: line 1 does not start with PathFileType", path)
    if len(lines) < 5:
        raise InputError(f"the TRC header is incomplete: {len(lines)} of its 5 lines", path)
    header = _header_fields(lines[1], lines[2])
    unit = _unit(header, units, path)
    names = _marker_names(lines[3], header, path)
    table, time_col, coords, line_no = _data(path, head, lines, names)
    _check_num_frames(header, line_no, path)
    rate, time, note = _rate_and_time(header, rate_hz, time_col, path)
    xyz = coords.reshape(len(line_no), len(names), 3)
    return marker_frame(
        path, "trc", names, xyz, units=unit, rate=rate, time=time, line_numbers=line_no, time_note=note,
        extra_attrs={"header": dict(header)}, table=table,
    )


def _unit(header: dict[str, str], units: str | None, path) -> tuple[str, str]:
    """The length unit and where it comes from: the ``units`` option, else the ``Units`` header field."""
    if units is not None:
        return (units, "the units option")
    if "Units" in header and header["Units"]:
        return (header["Units"], "the TRC Units field")
    raise InputError("the TRC header has no Units field; pass units='mm' (or 'cm', 'm')", path)


def _declared(header: dict[str, str], field: str, path) -> int | None:
    """The integer header field ``field`` (NumMarkers, NumFrames), or None when the header has none."""
    if field not in header:
        return None
    try:
        return int(float(header[field]))
    except ValueError:
        raise InputError(f"{field} {header[field]!r} is not a number", path) from None


def _marker_names(line: str, header: dict[str, str], path) -> list[str]:
    """The marker names of line 4: one every third column from column 3, as many as NumMarkers says."""
    name_fields = [f.strip() for f in line.split("\t")]
    if len(name_fields) < 3 or name_fields[0].lower().rstrip("#") != "frame":
        raise InputError("line 4 of a TRC file must start with Frame# and Time", path)
    names = []
    for j, f in enumerate(name_fields[2:]):
        if not f:
            continue
        if j % 3:
            raise InputError(
                f"marker name {f!r} on line 4 is not in the first of its 3 columns", path
            )
        names.append(f)
    if not names:
        raise InputError("line 4 names no markers", path)
    declared = _declared(header, "NumMarkers", path)
    if declared is not None and declared != len(names):
        raise InputError(
            f"the header says NumMarkers={declared} but line 4 names {len(names)} markers", path
        )
    return names


def _data(path, head, lines: list[str], names: list[str]) -> tuple:
    """The data rows (after the X1/Y1/Z1 label line and any blank lines): ``(table, time, coordinates,
    line numbers)``; ``table`` is the fast path's (time, coordinates) block or None."""
    start = 4
    label_fields = [f.strip() for f in lines[4].split("\t")]
    if any(_LABEL.match(f) for f in label_fields) or not any(label_fields):
        start = 5
    columns = ["Frame#", "Time"] + [f"{n}_{a}" for n in names for a in "XYZ"]
    # fast path: Time -> table column 0, coordinates -> columns 1.. (Frame# checked, not kept)
    dest = np.arange(-1, len(columns) - 1)
    fast = fr.fast_block(head, start, columns, "\t", dest, len(columns) - 1) if head is not None else None
    if fast is not None:
        table, _, line_no = fast
        return table, table[:, 0], table[:, 1:], line_no
    # the careful path: every message names the line and column
    if head is not None:
        lines = _text.read_lines(path)
    rows, line_no = [], []
    for i in range(start, len(lines)):
        if not lines[i].strip():
            continue
        rows.append(lines[i].split("\t"))
        line_no.append(i + 1)
    if not rows:
        raise InputError("has a TRC header but no data rows", path)
    values = _text.parse_block(rows, line_no, columns, path)
    return None, values[:, 1], values[:, 2:], line_no


def _check_num_frames(header: dict[str, str], line_no, path) -> None:
    """NumFrames, when the header gives it, must equal the data rows (fewer is truncation)."""
    declared = _declared(header, "NumFrames", path)
    n_rows = len(line_no)
    if declared is None:
        return
    if n_rows < declared:
        raise InputError(
            f"truncated: the header says NumFrames={declared} but there are only "
            f"{n_rows} data rows (last at line {line_no[-1]})", path,
        )
    if n_rows > declared:
        raise InputError(
            f"the header says NumFrames={declared} but there are {n_rows} data rows", path
        )


def _rate_and_time(header: dict[str, str], rate_hz: float | None, time_col: np.ndarray, path) -> tuple:
    """``(rate, time, note)`` for :func:`marker_frame`: the rate from the option or ``DataRate``; the Time
    column, or None (time built from the rate) when it is empty."""
    rate: tuple[float | str, str] | None
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    elif header.get("DataRate"):
        rate = (header["DataRate"], "TRC DataRate")
    else:
        rate = None
    if not np.all(np.isnan(time_col)):
        return rate, time_col, None
    if rate is None:
        raise InputError("has neither a Time column nor a DataRate; pass rate_hz=", path)
    return rate, None, "time built from the frame rate {rate:g} Hz (Time column empty)"

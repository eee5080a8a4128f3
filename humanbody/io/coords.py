"""Generalized-coordinates trials (docs/conventions.md, "Generalized-coordinates trial").

One header row, then one row per frame::

    time,lower_torso_x,lower_torso_y,lower_torso_z,lower_torso_alpha,lower_torso_beta,...
    0.00,0.012,0.000,0.950,0.010,-0.020,...

``time`` in s, ``lower_torso_x/_y/_z`` (the origin of body 1 in ground, m)
and ``<segment>_alpha``, ``_beta``, ``_gamma`` (Bryant angles, rad) for every
segment; optional ``_dot`` and ``_ddot`` columns give exact rates.  A
results CSV (docs/conventions.md, "Results") carries the same columns and is
accepted too; its other columns are kept.
"""

from __future__ import annotations

import csv

import numpy as np

from ..errors import InputError
from ..model.segments import SEGMENT_NAMES
from . import _text
from ._validate import table_frame

_ANGLES = ("alpha", "beta", "gamma")


def _delimiter(line: str) -> str:
    counts = {d: line.count(d) for d in ("\t", ",", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def angle_segments(columns) -> list[str]:
    """Names ``n`` with an ``n_alpha`` column, in column order.

    Parameters
    ----------
    columns : iterable of str
        A coordinates table's column names.

    Returns
    -------
    list of str
        The segment names.
    """
    return [c[: -len("_alpha")] for c in columns if c.endswith("_alpha")]


def looks_like_coordinates(header_line: str) -> bool:
    """True when a header row names ``time`` and at least one full Bryant-angle triple.

    Parameters
    ----------
    header_line : str
        The header row's text.

    Returns
    -------
    bool
        True when it looks like a coordinates table.
    """
    cols = [c.strip().strip('"') for c in header_line.split(_delimiter(header_line))]
    cset = set(cols)
    return "time" in cset and any(
        f"{n}_beta" in cset and f"{n}_gamma" in cset for n in angle_segments(cols)
    )


def required_columns(columns) -> list[str]:
    """Columns a coordinates file must hold, given the columns it has.

    For the 17-segment model (``lower_torso_alpha`` present) every segment of
    :data:`humanbody.model.segments.SEGMENT_NAMES`; for another tree every segment
    the file names, with the first one carrying the ``_x/_y/_z`` position.

    Parameters
    ----------
    columns : sequence of str
        The file's column names.

    Returns
    -------
    list of str
        The column names required (time, root position, every segment's three angles).
    """
    segs = angle_segments(columns)
    if "lower_torso" in segs:
        segs = list(SEGMENT_NAMES)
    base = segs[0]
    return (["time"] + [f"{base}_{a}" for a in "xyz"]
            + [f"{n}_{a}" for n in segs for a in _ANGLES])


def _check_radians(values, header, segs, path) -> None:
    """Refuse angles that are evidently in degrees.

    A Bryant beta lies in [-pi/2, pi/2] for any orientation (matrix_to_bryant
    returns it there), so |beta| beyond pi cannot be radians; alpha and gamma
    may be unwrapped over time, so only values beyond 100 rad (16 turns) are
    refused.
    """
    for seg in segs:
        for angle, limit in (("beta", np.pi), ("alpha", 100.0), ("gamma", 100.0)):
            name = f"{seg}_{angle}"
            if name not in header:
                continue
            peak = float(np.nanmax(np.abs(values[:, header.index(name)]), initial=0.0))
            if peak > limit:
                raise InputError(
                    f"column {name!r} reaches {peak:.4g}: angles must be in radians and these look "
                    "like degrees (convert with numpy.radians)", path)


def read_coordinates(path, **options):
    """Read a generalized-coordinates CSV (or a results CSV with those columns).

    Parameters
    ----------
    path : str or Path
        The CSV file (comma, tab or semicolon separated).
    **options
        ``units`` and ``rate_hz`` are rejected (the layout is SI with a
        time column).

    Returns
    -------
    DataFrame
        The file's columns (time in s, positions in m, angles in rad) with
        ``attrs``: kind="coordinates", source, format="coordinates-csv",
        rate_hz, conversions (empty), segments, rates_given (True when every
        coordinate has ``_dot`` and ``_ddot`` columns).

    Raises
    ------
    InputError
        Missing required columns, duplicate columns, a missing or
        non-numeric value in a required column, and the time checks of
        :func:`humanbody.io._validate.table_frame`.
    """
    for key in ("units", "rate_hz"):
        if options.get(key) is not None:
            raise InputError(f"the {key} option does not apply to a coordinates file", path)
    path = _text.check_file(path)
    lines = _text.read_lines(path)
    first = next(i for i, line in enumerate(lines) if line.strip())
    delim = _delimiter(lines[first])
    rows = [[c.strip() for c in r] for r in csv.reader(lines, delimiter=delim)]
    header = rows[first]
    while header and not header[-1]:
        header.pop()
    if len(set(header)) != len(header):
        dup = next(c for c in header if header.count(c) > 1)
        raise InputError(f"column {dup!r} appears twice", path)
    need = required_columns(header)
    missing = [c for c in need if c not in header]
    if missing:
        more = f" and {len(missing) - 3} more" if len(missing) > 3 else ""
        raise InputError(f"missing required columns {', '.join(missing[:3])}{more}", path)
    body, line_no = [], []
    for i in range(first + 1, len(rows)):
        if any(rows[i]):
            body.append(rows[i])
            line_no.append(i + 1)
    values = _text.parse_block(body, line_no, header, path)
    t = header.index("time")
    keep = [j for j, c in enumerate(header) if c != "time"]
    segs = [n for n in angle_segments(header) if f"{n}_beta" in header]
    rates_given = all(f"{c}_dot" in header and f"{c}_ddot" in header for c in need[1:])
    df = table_frame(
        path, "coordinates-csv", "coordinates", [header[j] for j in keep], values[:, keep], time=values[:, t],
        line_numbers=line_no, required=need, extra_attrs={"segments": segs, "rates_given": rates_given},
    )
    _check_radians(values, header, segs, path)
    return df

"""Trial readers: marker, force and coordinate files into pandas DataFrames.

:func:`read_trial` recognises the format from the file's content (and its
extension) and returns a DataFrame with a ``time`` column (s) whose
``attrs["kind"]`` says what it holds:

=======================  ==================================================
kind                     layout
=======================  ==================================================
``markers``              ``time``, ``<marker>_x/_y/_z`` (m, lab axes)
``forces``               ``time`` and the force file's columns (N, m, N·m)
``coordinates``          generalized coordinates (docs/conventions.md)
``opensim_coordinates``  OpenSim joint coordinates (rad, m)
``orientations``         sensor or segment quaternions (OpenSense ``.sto``, Xsens ``.mvnx``, MT text)
``table``                any other OpenSim table, as given
=======================  ==================================================

docs/formats.md describes every supported layout and how units and frame
rates are found.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from . import _fastread as fr
from . import _text
from ._csv_common import VICON_SECTIONS
from ._validate import length_unit
from .c3d import looks_like_c3d, read_c3d
from .coords import looks_like_coordinates, read_coordinates
from .csv_markers import HEAD_LINES, read_plain, sniff
from .csv_vendors import read_motive, read_qualisys, read_vicon
from .imu import looks_like_mvnx, looks_like_opensense, read_mvnx, read_opensense
from .opensim import looks_like_opensim, read_opensim
from .trc import looks_like_trc, read_trc
from .xsens_mt import looks_like_xsens_mt, read_xsens_mt

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "read_trial",
    "read_forces",
    "markers_array",
    "detect_format",
    "read_trc",
    "read_opensim",
    "read_c3d",
    "read_marker_text",
    "read_coordinates",
    "read_opensense",
    "read_mvnx",
    "length_unit",
]

FORMATS = ("trc", "opensim", "c3d", "coordinates", "csv", "vicon", "motive", "qualisys", "opensense", "mvnx",
           "xsens-mt")
_UNKNOWN = "cannot tell the format of the file: expected TRC, MOT/STO, C3D, CSV, TSV or MVNX"
_TEXT_EXT = {".csv", ".tsv", ".txt"}


#: layout -> reader(path, lines, units=, rate_hz=[, head=]) -> marker DataFrame
_READERS: dict[str, Callable[..., pd.DataFrame]] = {"plain": read_plain, "vicon": read_vicon, "motive": read_motive, "qualisys": read_qualisys}


def read_marker_text(path, units=None, rate_hz=None, layout: str | None = None):
    """Read a marker CSV/TSV file of any layout (plain, Vicon, Motive, Qualisys; docs/formats.md).

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
    path = _text.check_file(path)
    head = fr.read_head(path, HEAD_LINES)
    if head is not None:  # a large file: plain and Motive layouts read their numbers fast
        first = next(line for line in head.lines if line.strip()).strip().lstrip("\ufeff")
        vicon_like = first.rstrip(",\t;").strip().lower() in VICON_SECTIONS
        fast_layout = layout or (None if vicon_like else sniff(head.lines))
        if fast_layout in ("plain", "motive"):
            return _READERS[fast_layout](path, head.lines, units=units, rate_hz=rate_hz, head=head)
    lines = _text.read_lines(path)
    layout = layout or sniff(lines)
    if layout not in _READERS:
        raise InputError("cannot tell the format of the file: expected TRC, MOT/STO, C3D, CSV or TSV", path)
    return _READERS[layout](path, lines, units=units, rate_hz=rate_hz)


def _head_says_trc(path) -> bool:
    """True when the first non-blank line of a text file is a TRC PathFileType line.

    Reads 64 KiB; a file with a NUL byte there is left to :func:`read_lines`
    (which calls it binary).
    """
    with open(path, "rb") as fh:
        head = fh.read(65536)
    if b"\x00" in head[:4096]:
        return False
    for line in head.decode("utf-8-sig", errors="replace").splitlines()[:-1]:
        if line.strip():
            return looks_like_trc(line)
    return False


def detect_format(path) -> str:
    """Name of the reader for ``path``: one of :data:`FORMATS`.

    The content decides (C3D key byte, ``PathFileType`` line, ``endheader``
    line, vendor headers, coordinate or marker column names); the
    extension is used only to reject binary files that are not C3D.

    Parameters
    ----------
    path : str or os.PathLike
        The trial file.

    Returns
    -------
    str
        Its format, one of :data:`FORMATS`.

    Raises
    ------
    InputError
        When the file is missing, empty or of no supported format.
    """
    p = _text.check_file(path)
    with open(p, "rb") as fh:
        head = fh.read(512)
    if looks_like_c3d(head) and (p.suffix.lower() == ".c3d" or b"\x00" in head):
        return "c3d"
    if p.suffix.lower() == ".c3d":
        if len(head) >= 2 and head[1] == 0x50:  # the C3D key, but the parameter section's block number is invalid
            raise InputError(f"is not a readable C3D file: the header puts the parameter section at block "
                             f"{head[0]}, outside the file", p)
        raise InputError("is not a C3D file (no C3D header)", p)
    if looks_like_mvnx(head):
        return "mvnx"
    if p.suffix.lower() == ".mvnx":
        raise InputError("is not an MVNX file (no <mvnx> XML root)", p)
    if _head_says_trc(p):  # skip decoding a long TRC file only to look at its first line
        return "trc"
    top = fr.read_head(p, 200)  # a long file: its first lines decide (read_head is None for small files)
    if top is not None and top.lines[0].strip().lstrip("\ufeff").rstrip(",\t;").strip().lower() in (
            "devices", "trajectories", "model outputs", "joints", "segments"):
        top = None  # Vicon: the Trajectories title may come after the first lines
    lines = top.lines if top is not None else _text.read_lines(p)
    first = next(line for line in lines if line.strip())
    if looks_like_trc(first):
        return "trc"
    if looks_like_opensense(lines):
        return "opensense"
    if looks_like_opensim(lines):
        return "opensim"
    if looks_like_coordinates(first):
        return "coordinates"
    layout = sniff(lines)
    if layout is not None:
        return "csv" if layout == "plain" else layout
    raise InputError(_UNKNOWN, p)


def _is_xsens_mt(path) -> bool:
    """A folder, a trial prefix or a file of an Xsens MT Manager text export (:mod:`humanbody.io.xsens_mt`)."""
    p = Path(os.fspath(path))
    if p.is_dir():
        return any(looks_like_xsens_mt(f) for f in p.glob("*.txt"))
    if p.is_file():
        return p.suffix.lower() == ".txt" and looks_like_xsens_mt(p)
    return p.parent.is_dir() and any(looks_like_xsens_mt(f) for f in p.parent.glob(p.name + "_*.txt"))


def read_trial(path, kind: str | None = None, **options):
    """Read a motion-capture trial file into a DataFrame with a ``time`` column (``humanbody.read_trial``,
    docs/conventions.md "Python API").

    :func:`humanbody.trial.load_trial` (``humanbody.Trial.read``) reads the same file into a
    :class:`~humanbody.trial.Trial`, markers in ground axes.

    Parameters
    ----------
    path : str or Path
        The trial file: TRC, OpenSim MOT/STO, C3D, marker CSV/TSV (plain,
        Vicon Nexus, OptiTrack Motive, Qualisys), a generalized-coordinates
        CSV or an orientation trial (OpenSense ``.sto``, Xsens ``.mvnx``, an
        Xsens MT Manager text export: its folder, trial prefix or a file).
    kind : str, optional
        The kind of data expected ("markers", "forces", "coordinates",
        "opensim_coordinates", "table"); an InputError is raised when the
        file holds another kind.
    **options
        ``units`` ("mm", "cm", "m") overrides the length unit of marker
        files; ``rate_hz`` (Hz) gives or overrides the frame rate of marker
        files; ``format`` (one of :data:`FORMATS`) skips format detection;
        ``imu_map`` (a mapping XML or ``"ID=name,..."``) maps the sensors of
        an Xsens MT text export to segments.

    Returns
    -------
    DataFrame
        ``time`` (s) and the file's data in SI units; ``attrs`` holds kind,
        source, format, rate_hz and conversions (what was converted), and
        for markers units_in_file, markers, missing and empty_markers.

    Raises
    ------
    InputError
        Naming the file, in one sentence, for a missing, empty, truncated or
        malformed file, a format it cannot recognise, or the wrong kind.
    """
    fmt = options.pop("format", None)
    imu_map = options.pop("imu_map", None)
    unknown = set(options) - {"units", "rate_hz"}
    if unknown:
        raise TypeError(f"read_trial() got unexpected options {sorted(unknown)}")
    if fmt is None and _is_xsens_mt(path):
        fmt = "xsens-mt"
    if fmt is None:
        fmt = detect_format(path)
    elif fmt not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, not {fmt!r}")
    if fmt == "trc":
        df = read_trc(path, **options)
    elif fmt == "opensim":
        df = read_opensim(path, **options)
    elif fmt == "opensense":
        df = read_opensense(path, **options)
    elif fmt == "mvnx":
        df = read_mvnx(path, **options)
    elif fmt == "xsens-mt":
        df = read_xsens_mt(path, mapping=imu_map, **options)
    elif fmt == "c3d":
        df = read_c3d(path, **options)
    elif fmt == "coordinates":
        df = read_coordinates(path, **options)
    else:
        df = read_marker_text(path, layout="plain" if fmt == "csv" else fmt, **options)
    if kind is not None and df.attrs.get("kind") != kind:
        raise InputError(f"holds {df.attrs.get('kind')} data, not {kind}", df.attrs.get("source", path))
    return df


def read_forces(path, **options):
    """Read a force file (OpenSim ground-reaction ``.mot``) as kind "forces".

    Same as ``read_trial(path, kind="forces")``: ``time`` (s) then the
    file's columns (N, m, N·m) as named in the file, a DataFrame in lab axes.
    The force plates of any layout as a :class:`~humanbody.io.loads.LoadTable`
    in a trial's ground axes are :func:`humanbody.trial.load_forces`.

    Parameters
    ----------
    path : str or os.PathLike
        The force file.
    **options
        As :func:`read_trial` takes them.

    Returns
    -------
    pandas.DataFrame
        ``time`` (s) and the file's force columns, lab axes.
    """
    return read_trial(path, kind="forces", **options)


def markers_array(df) -> tuple[list[str], np.ndarray]:
    """Marker names and positions of a marker DataFrame.

    Parameters
    ----------
    df : DataFrame
        Marker layout (``time``, ``<name>_x/_y/_z``).

    Returns
    -------
    names : list of str
        Marker names in column order (``attrs["markers"]`` when present).
    positions : ndarray, shape (frames, markers, 3)
        Float64, C-contiguous, NaN where missing (m).
    """
    cols = set(map(str, df.columns.tolist()))  # a list first: pandas iterates Arrow text slowly
    names = df.attrs.get("markers")
    if not names or not all(f"{n}_{a}" in cols for n in names for a in "xyz"):
        names = [c[:-2] for c in map(str, df.columns.tolist()) if c.endswith("_x")]
        names = [n for n in names if f"{n}_y" in cols and f"{n}_z" in cols]
    order = [f"{n}_{a}" for n in names for a in "xyz"]
    pos = np.ascontiguousarray(df[order].to_numpy(dtype=float).reshape(len(df), len(names), 3))
    return list(names), pos

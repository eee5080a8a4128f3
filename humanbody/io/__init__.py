"""Trial readers: marker, force and coordinate files into pandas DataFrames.

:func:`read_trial` recognises the format from the file's content (and its
extension) and returns a DataFrame with a ``time`` column (s) whose
``attrs["kind"]`` says what it holds:

=====================  ====================================================
kind                   layout
=====================  ====================================================
``markers``            ``time``, ``<marker>_x/_y/_z`` (m, lab axes)
=====================  ====================================================

docs/formats.md describes every supported layout and how units and frame
rates are found.
"""

from __future__ import annotations

import os

import numpy as np

from ..errors import InputError
from . import _validate as v
from .trc import looks_like_trc, read_trc

__all__ = ["read_trial", "read_trc", "markers_array"]

_UNKNOWN = "cannot tell the format of the file: expected TRC, MOT/STO, C3D, CSV or TSV"


def read_trial(path, kind: str | None = None, **options):
    """Read a motion-capture trial file into a DataFrame with a ``time`` column.

    Parameters
    ----------
    path : str or Path
        The trial file.
    kind : str, optional
        The kind of data expected (e.g. ``"markers"``); an InputError is
        raised when the file holds another kind.
    **options
        ``units`` ("mm", "cm", "m") overrides the length unit of marker
        files; ``rate_hz`` (Hz) gives the frame rate of files without one.

    Returns
    -------
    DataFrame
        ``time`` (s) and the file's data in SI units; ``attrs`` holds kind,
        source, format, rate_hz and conversions (what was converted).

    Raises
    ------
    InputError
        Naming the file, for a missing, empty, truncated or malformed file
        and for a format it cannot recognise.
    """
    p = v.check_file(path)
    lines = v.read_lines(p)
    if looks_like_trc(lines[0]) or p.suffix.lower() == ".trc":
        df = read_trc(p, **options)
    else:
        raise InputError(_UNKNOWN, p)
    if kind is not None and df.attrs.get("kind") != kind:
        raise InputError(f"holds {df.attrs.get('kind')} data, not {kind}", p)
    return df


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
    cols = set(map(str, df.columns))
    names = df.attrs.get("markers")
    if not names or not all(f"{n}_{a}" in cols for n in names for a in "xyz"):
        names = [c[:-2] for c in map(str, df.columns) if c.endswith("_x")]
        names = [n for n in names if f"{n}_y" in cols and f"{n}_z" in cols]
    order = [f"{n}_{a}" for n in names for a in "xyz"]
    pos = np.ascontiguousarray(df[order].to_numpy(dtype=float).reshape(len(df), len(names), 3))
    return list(names), pos

"""C3D marker files through ezc3d.

A C3D file is binary: a 512-byte header block, a parameter section (groups
such as POINT with LABELS, RATE, UNITS) and the frame data (Motion Lab
Systems, *The C3D File Format User Guide*, 2008).  The points become the
marker layout: ``POINT:LABELS`` (continued in ``LABELS2``...) name them,
``POINT:RATE`` gives the frame rate and ``POINT:UNITS`` the length unit.
Points that the file lists as model outputs (``POINT:ANGLES``, ``FORCES``,
``MOMENTS``, ``POWERS``, ``SCALARS``, ``REACTIONS``, and humanbody's
modelled points ``MODELLED``) are not markers and are
left out.

The gait events of the ``EVENT`` group are read by
:mod:`humanbody.io.c3d_events`.

Before ezc3d sees the file, :func:`_check_structure` checks that the header,
the parameter chain and the announced frames fit in the file, because
ezc3d can stall on a truncated file instead of raising.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from ..errors import InputError
from . import _text
from ._validate import marker_frame
from .c3d_events import parse_events

_NOT_MARKERS = ("ANGLES", "FORCES", "MOMENTS", "POWERS", "SCALARS", "REACTIONS", "MODELLED")
_MISSING_EZC3D = "reading C3D needs the ezc3d package: pip install 'humanbody[c3d]'"


def looks_like_c3d(head: bytes) -> bool:
    """True when the first bytes carry the C3D key (second byte 0x50)."""
    return len(head) >= 2 and head[1] == 0x50 and 1 < head[0] < 128


def _check_structure(path: Path) -> str | None:
    """Raise InputError when the file is not a complete C3D file.

    Checks the header key, the parameter section (its blocks present, the
    record chain inside it) and that the data section holds every frame
    the header announces.  A data section that holds fewer frames than
    announced but ends with a whole frame exactly at the end of the file is
    accepted (ezc3d reads those frames): the returned note says so; a file
    cut inside a frame is truncated.
    """
    raw = path.read_bytes()
    size = len(raw)
    if size < 512 or raw[1] != 0x50:
        raise InputError("is not a C3D file (no C3D header)", path)
    p_start = (raw[0] - 1) * 512
    if p_start < 512 or p_start + 4 > size:
        raise InputError("is a truncated C3D file: the parameter section is missing", path)
    n_blocks, proc = raw[p_start + 2], raw[p_start + 3]
    if proc not in (84, 85, 86):
        raise InputError(f"is not a readable C3D file: unknown processor type {proc}", path)
    end = "<" if proc in (84, 85) else ">"
    p_end = p_start + n_blocks * 512
    if n_blocks == 0 or p_end > size:
        raise InputError("is a truncated C3D file: the parameter section is cut short", path)
    pos, steps = p_start + 4, 0
    while True:
        steps += 1
        if pos + 2 > p_end or steps > 100000:
            raise InputError("is a damaged C3D file: the parameter records run past their section", path)
        n_len = abs(struct.unpack_from("b", raw, pos)[0])
        if n_len == 0:
            break
        off_at = pos + 2 + n_len
        if off_at + 2 > p_end:
            raise InputError("is a damaged C3D file: the parameter records run past their section", path)
        offset = struct.unpack_from(end + "h", raw, off_at)[0]
        if offset == 0:
            break
        nxt = off_at + offset
        if offset < 0 or nxt > p_end:
            raise InputError("is a damaged C3D file: a parameter record points outside its section", path)
        pos = nxt
    words = struct.unpack_from(end + "9H", raw, 0)
    n_points, n_analog, first, last, data_block = words[1], words[2], words[3], words[4], words[8]
    if proc == 85:  # DEC float: the sign bit is the top bit of the second byte
        floats = bool(raw[13] & 0x80)
    else:
        floats = struct.unpack_from(end + "f", raw, 12)[0] < 0
    frames = max(0, last - first + 1)
    per_frame = (4 * n_points + n_analog) * (4 if floats else 2)
    d_start = (max(data_block, 1) - 1) * 512
    need = d_start + frames * per_frame
    if size < need:
        have = max(0, (size - d_start) // per_frame) if per_frame else 0
        if have >= 2 and size == d_start + have * per_frame:
            # Whole frames up to the file's last byte (NDI Optotrak writes the planned frame count in the
            # header): the frames that are there are read, as ezc3d reads them, and the log says so.
            return (f"the header announces {frames} frames, the data hold {have} whole frames up to the end "
                    f"of the file: {have} read")
        raise InputError(
            f"is a truncated C3D file: the header announces {frames} frames but the data "
            f"stop after {have}", path,
        )
    return None


def _param(c, group, name, default=None):
    try:
        return c["parameters"][group][name]["value"]
    except KeyError:
        return default


def _labels(c) -> list[str]:
    labels = list(_param(c, "POINT", "LABELS", []) or [])
    k = 2
    while _param(c, "POINT", f"LABELS{k}") is not None:
        labels += list(_param(c, "POINT", f"LABELS{k}"))
        k += 1
    return [str(x).strip() for x in labels]


def read_c3d(path, units: str | None = None, rate_hz: float | None = None):
    """Read the marker points of a C3D file.

    Parameters
    ----------
    path : str or Path
        The ``.c3d`` file.
    units : {"mm", "cm", "m"}, optional
        Length unit overriding ``POINT:UNITS``.
    rate_hz : float, optional
        Frame rate (Hz) overriding ``POINT:RATE``.

    Returns
    -------
    DataFrame
        Marker layout (``time`` from ``(first_frame - 1) / rate``, then
        ``<label>_x/_y/_z`` in m) with ``format="c3d"`` and, besides the
        common ``attrs``, ``first_frame``, ``ignored_points`` (model outputs
        left out), ``analog_rate_hz``, ``analog_labels`` and, when the file's
        ``EVENT`` group holds foot strikes or foot offs, ``events``: the
        columns of an events table (:func:`humanbody.io.c3d_events.parse_events`,
        ``source = "file"``; :func:`humanbody.io.c3d_events.events_table`
        makes the DataFrame); ``event_notes``: what of the group was left out.

    Raises
    ------
    InputError
        When ezc3d is missing, the file is not a complete C3D file, the
        labels are missing or repeated, the unit is unknown, or the file
        has fewer than 2 frames.
    """
    path = _text.check_file(path)
    c, frames_note = _open(path)
    pts = np.asarray(c["data"]["points"], dtype=float)  # (4, points, frames)
    labels, keep, skip = _marker_points(c, pts.shape[1], path)
    conversions: list[str] = [frames_note] if frames_note else []
    unit = _unit(c, units, conversions)
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    else:
        r = _param(c, "POINT", "RATE", [])
        r = float(r[0]) if len(r) else float(c["header"]["points"]["frame_rate"])
        rate = (r, "POINT:RATE")
    first = int(c["header"]["points"]["first_frame"]) + 1  # ezc3d counts from 0, the file from 1
    xyz = np.transpose(pts[:3, keep, :], (2, 1, 0))  # (frames, markers, 3)
    analog_labels = [str(x).strip() for x in (_param(c, "ANALOG", "LABELS", []) or [])]
    analog_rate = _param(c, "ANALOG", "RATE", [])
    frame = marker_frame(
        path, "c3d", [labels[k] for k in keep], xyz, units=unit, rate=rate, first_frame=first,
        conversions=conversions,
        extra_attrs={
            "first_frame": first,
            "ignored_points": [lab for lab in labels if lab in skip],
            "analog_rate_hz": float(analog_rate[0]) if len(analog_rate) else None,
            "analog_labels": analog_labels,
        },
    )
    events, notes = parse_events(c["parameters"].get("EVENT"), frame["time"].to_numpy(),
                                 float(frame.attrs.get("rate_hz") or 0.0))
    if events is not None:
        frame.attrs["events"] = events
    if notes:
        frame.attrs["event_notes"] = notes
    return frame


def _open(path: Path) -> tuple:
    """The file as ezc3d reads it, after :func:`_check_structure`, and that check's note (or None); ezc3d's
    C++ errors (and a missing ezc3d) become one InputError line."""
    try:
        import ezc3d  # optional dependency (humanbody[c3d])
    except ImportError:
        raise InputError(_MISSING_EZC3D, path) from None
    frames_note = _check_structure(path)
    try:
        return ezc3d.c3d(str(path)), frames_note
    except Exception as err:  # ezc3d raises RuntimeError/IOError with C++ messages
        text = " ".join(str(err).split()) or type(err).__name__
        raise InputError(f"is not a readable C3D file ({text})", path) from None


def _marker_points(c, n_points: int, path: Path) -> tuple[list[str], list[int], set[str]]:
    """The labels of the file's ``n_points`` points (``point<k>`` where the file names none), the indices
    of the markers among them and the labels of the model outputs left out (:data:`_NOT_MARKERS`)."""
    labels = _labels(c)
    if n_points == 0:
        raise InputError("holds no 3-D points", path)
    if len(labels) < n_points:
        labels += [f"point{k + 1}" for k in range(len(labels), n_points)]
    labels = labels[:n_points]
    skip: set[str] = set()
    for group in _NOT_MARKERS:
        skip.update(str(x).strip() for x in (_param(c, "POINT", group, []) or []))
    keep = [k for k, lab in enumerate(labels) if lab not in skip]
    if not keep:
        raise InputError("holds no marker points (only model outputs)", path)
    return labels, keep, skip


def _unit(c, units: str | None, conversions: list[str]) -> tuple[str, str]:
    """The length unit and where it is given: the option, else ``POINT:UNITS`` (mm when it is missing,
    noted in ``conversions``)."""
    if units is not None:
        return (units, "the units option")
    raw_unit = _param(c, "POINT", "UNITS", [])
    raw_unit = str(raw_unit[0]).strip() if len(raw_unit) else ""
    if not raw_unit:
        conversions.append("POINT:UNITS missing: coordinates taken as mm")
        return ("mm", "POINT:UNITS")
    return (raw_unit, "POINT:UNITS")

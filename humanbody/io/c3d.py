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
from . import _text, c3d_raw
from ._validate import LENGTH_UNITS, length_unit, marker_frame
from .c3d_events import parse_events
from .c3d_params import ParameterError, parse_parameters

_NOT_MARKERS = ("ANGLES", "FORCES", "MOMENTS", "POWERS", "SCALARS", "REACTIONS", "MODELLED")
_MISSING_EZC3D = "reading C3D needs the ezc3d package: pip install 'humanbody[c3d]'"


def looks_like_c3d(head: bytes) -> bool:
    """True when the first bytes carry the C3D key (second byte 0x50).

    Parameters
    ----------
    head : bytes
        The file's first bytes (at least 2).

    Returns
    -------
    bool
        Whether they start like a C3D file (first byte 2-127, the parameter block's number; second 0x50).
    """
    return len(head) >= 2 and head[1] == 0x50 and 1 < head[0] < 128


def _check_structure(path: Path) -> tuple[str | None, str | None]:
    """Raise InputError when the file is not a complete C3D file; else ``(note, damage)``.

    Checks the header key, the parameter section (present; its record
    chain, read strictly, for ``damage``: why ezc3d should not be given the
    file, or None) and that the data section holds every frame the header
    announces.  A data section that holds fewer frames than announced but
    ends with a whole frame exactly at the end of the file is accepted
    (ezc3d reads those frames): the returned note says so; a file cut
    inside a frame is truncated.
    """
    raw = path.read_bytes()
    size = len(raw)
    if size < 512 or raw[1] != 0x50:
        raise InputError("is not a C3D file (no C3D header)", path)
    p_start = (raw[0] - 1) * 512
    if p_start < 512 or p_start + 4 > size:
        where = f" (block {raw[0]}, the file has {-(-size // 512)})" if p_start >= 512 else ""
        raise InputError(f"is a truncated C3D file: the parameter section is missing{where}", path)
    n_blocks, proc = raw[p_start + 2], raw[p_start + 3]
    if proc not in (84, 85, 86):
        raise InputError(f"is not a readable C3D file: unknown processor type {proc}", path)
    end = "<" if proc in (84, 85) else ">"
    words = struct.unpack_from(end + "9H", raw, 0)
    n_points, n_analog, first, last, data_block = words[1], words[2], words[3], words[4], words[8]
    damage = _parameter_damage(raw, p_start, n_blocks, proc, data_block)
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
                    f"of the file: {have} read"), damage
        raise InputError(
            f"is a truncated C3D file: the header announces {frames} frames but the data "
            f"stop after {have}", path,
        )
    return None, damage


def _parameter_damage(raw: bytes, p_start: int, n_blocks: int, proc: int, data_block: int) -> str | None:
    """Why the parameter section should not be given to ezc3d (it can stall on a damaged one), or None:
    no blocks declared, a record that cannot be read (:func:`~humanbody.io.c3d_params.parse_parameters`,
    strict), big-endian MIPS (ezc3d does not read it)."""
    if proc == 86:
        return "big-endian SGI/MIPS encoding"
    if n_blocks == 0:
        return "its parameter section declares no blocks"
    try:
        parse_parameters(raw, p_start, (data_block - 1) * 512 if data_block > 1 else None)
    except ParameterError:
        return "its parameter section is damaged"
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
    c, notes = _open(path)
    pts = np.asarray(c["data"]["points"], dtype=float)  # (4, points, frames)
    labels, keep, skip = _marker_points(c, pts.shape[1], path)
    conversions: list[str] = list(notes)
    unit = _unit(c, units, conversions)
    if rate_hz is not None:
        rate = (rate_hz, "rate_hz option")
    else:
        r = _param(c, "POINT", "RATE", [])
        r = float(r[0]) if len(r) else float(c["header"]["points"]["frame_rate"])
        rate = (r, "POINT:RATE")
    first = int(c["header"]["points"]["first_frame"]) + 1  # ezc3d counts from 0, the file from 1
    xyz = np.transpose(pts[:3, keep, :], (2, 1, 0))  # (frames, markers, 3)
    names, kept = _tell_apart([labels[k] for k in keep], xyz, conversions)
    xyz = xyz[:, kept, :]
    analog_labels = [str(x).strip() for x in (_param(c, "ANALOG", "LABELS", []) or [])]
    analog_rate = _param(c, "ANALOG", "RATE", [])
    frame = marker_frame(
        path, "c3d", names, xyz, units=unit, rate=rate, first_frame=first,
        conversions=conversions,
        extra_attrs={
            "first_frame": first,
            "ignored_points": [lab for lab in labels if lab in skip],
            "analog_rate_hz": float(analog_rate[0]) if len(analog_rate) else None,
            "analog_labels": analog_labels,
            **_screen(c),
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
    """The file as ezc3d reads it, after :func:`_check_structure`, and the notes on what was odd.

    ezc3d is the reference; humanbody's own reader (:mod:`humanbody.io.c3d_raw`) takes the files ezc3d
    cannot read (a damaged parameter section, big-endian MIPS, a parameter ezc3d refuses), those where
    ezc3d finds no points the header announces, and those whose data section ezc3d's frame layout does
    not fit while the header's does (one line says which).  Errors of both become one InputError line."""
    try:
        import ezc3d  # optional dependency (humanbody[c3d])
    except ImportError:
        raise InputError(_MISSING_EZC3D, path) from None
    frames_note, damage = _check_structure(path)
    notes = [frames_note] if frames_note else []
    if damage is None:
        try:
            c = ezc3d.c3d(str(path))
        except Exception as err:  # ezc3d raises RuntimeError/IOError with C++ messages
            damage = _first_sentence(" ".join(str(err).split()) or type(err).__name__)
        else:
            damage = _ezc3d_misread(path, c)
            if damage is None:
                return c, notes
    try:
        c, raw_notes = c3d_raw.read_raw(path)
    except (ParameterError, ValueError, struct.error) as err:
        raise InputError(f"is not a readable C3D file ({damage}; {err})", path) from None
    return c, [f"ezc3d does not read this file as written ({damage}): read by humanbody's C3D reader", *raw_notes]


def _screen(c) -> dict:
    """``{"screen_axes": (X_SCREEN, Y_SCREEN)}`` when the file declares its screen axes (``"+X"``, ``"+Z"``),
    else ``{}``."""
    xs, ys = _param(c, "POINT", "X_SCREEN", []), _param(c, "POINT", "Y_SCREEN", [])
    if len(xs) and len(ys) and str(xs[0]).strip() and str(ys[0]).strip():
        return {"screen_axes": (str(xs[0]).strip(), str(ys[0]).strip())}
    return {}


def _first_sentence(text: str) -> str:
    """The first sentence of an ezc3d message, without its advice to set flags."""
    return text.split(". ")[0].rstrip(".")


def _ezc3d_misread(path: Path, c) -> str | None:
    """Why ezc3d's reading of the file is not its content, or None: no points where the header announces
    some, or a frame layout (points and analog samples per frame) that does not fill the data section
    while the header's does."""
    raw = path.read_bytes()
    head = c3d_raw._header(raw)
    pts = c["data"]["points"]
    if pts.shape[1] == 0 and head["n_points"] > 0:
        return f"its parameters declare no points, the header {head['n_points']}"
    frames = pts.shape[2]
    analogs = c["data"]["analogs"]
    ez_analog = analogs.shape[1] * analogs.shape[2] // frames if frames else 0
    start = (max(head["data_block"], 1) - 1) * 512
    width = 4 if head["scale"] < 0 else 2
    if frames == 0 or c3d_raw.fits(len(raw), start, frames, 4 * pts.shape[1] + ez_analog, width):
        return None
    if c3d_raw.fits(len(raw), start, frames, 4 * pts.shape[1] + head["n_analog"], width):
        return (f"it takes {ez_analog} analog samples per frame, the header and the data section "
                f"{head['n_analog']}")
    return None


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


def _tell_apart(names: list[str], xyz: np.ndarray, notes: list[str]) -> tuple[list[str], list[int]]:
    """Names for the points ``names`` (their ``xyz`` (frames, points, 3)): an unnamed point is named
    ``M01``, ``M02``, ... after its place; of points sharing a label, those with no sample in any frame are
    dropped and the others kept as ``RKNE``, ``RKNE_2``, ...  Returns the names and the indices kept; one
    line per kind of oddity goes to ``notes``."""
    empty = ~np.isfinite(xyz).all(axis=2).any(axis=0) | ~np.any(xyz != 0.0, axis=(0, 2))
    taken = {n for n in names if n}
    unnamed = []
    out = list(names)
    for k, n in enumerate(names):
        if not n:
            new = f"M{k + 1:02d}"
            j = 2
            while new in taken:
                new, j = f"M{k + 1:02d}_{j}", j + 1
            out[k] = new
            taken.add(new)
            unnamed.append(new)
    count: dict[str, int] = {}
    for n in out:
        count[n] = count.get(n, 0) + 1
    dropped: list[str] = []
    renamed: list[str] = []
    seen: dict[str, int] = {}
    kept: list[int] = []
    for k, n in enumerate(out):
        if count[n] > 1 and empty[k] and sum(1 for j, m in enumerate(out) if m == n and not empty[j]) >= 1:
            dropped.append(n)
            continue
        seen[n] = seen.get(n, 0) + 1
        if seen[n] > 1:
            new = f"{n}_{seen[n]}"
            while new in taken:
                seen[n] += 1
                new = f"{n}_{seen[n]}"
            renamed.append(f"{n} -> {new}")
            out[k] = new
            taken.add(new)
        kept.append(k)
    if unnamed:
        notes.append(f"{len(unnamed)} unnamed point(s) named {', '.join(unnamed[:4])}{' ...' if len(unnamed) > 4 else ''}")
    if dropped:
        notes.append(f"{len(dropped)} repeated label(s) with no sample dropped ({', '.join(dropped[:4])}"
                     f"{' ...' if len(dropped) > 4 else ''})")
    if renamed:
        notes.append(f"{len(renamed)} repeated label(s) told apart: {', '.join(renamed[:3])}"
                     f"{' ...' if len(renamed) > 3 else ''}")
    return [out[k] for k in kept], kept


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
    key = raw_unit.lower()
    if key not in LENGTH_UNITS and len(key) >= 3:
        # a unit cut short by its parameter's width ("mete" for metres)
        full = sorted({length_unit(u)[0] for u in LENGTH_UNITS if u.startswith(key)})
        if len(full) == 1:
            conversions.append(f"POINT:UNITS {raw_unit!r} read as {full[0]} (cut short)")
            return (full[0], "POINT:UNITS")
    return (raw_unit, "POINT:UNITS")

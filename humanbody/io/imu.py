"""Orientation (IMU) trials: OpenSense quaternion tables and Xsens MVN ``.mvnx`` exports.

Both become a DataFrame of kind ``orientations``: ``time`` (s), then for
every sensor (OpenSense) or segment (Xsens) ``<label>_qw``, ``_qx``,
``_qy``, ``_qz`` (unit quaternion, scalar first, rotating the sensor's or
segment's axes into the file's world axes), and for Xsens ``<label>_px``,
``_py``, ``_pz`` (segment origin in the world, m).  ``attrs``:

- ``sensors``: the labels in file order; ``segment_of``: our segment ->
  label (:mod:`humanbody.io.imu_names`); ``unused``: labels of no segment;
- ``world``: the default lab-axes spec of the format (OpenSense: OpenSim
  ground, Y up: ``"opensim"``; Xsens: Z up: ``"x,y,z"``);
- ``anatomical``: True when the orientations are already segment frames
  (Xsens: MVN's own calibration; X forward, Y left, Z up in the N-pose);
- ``positions``: True when segment positions were read;
- Xsens only: ``joint_angles`` (joint label -> (F, 3) degrees, the file's
  ``jointAngle``, kept for comparison) and ``joints`` (label -> (parent
  segment, child segment)).

docs/formats.md describes both layouts.
"""

from __future__ import annotations

import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from ..errors import InputError
from . import _text
from ._validate import table_frame
from .imu_names import OPENSIM_BODIES, ROOT, XSENS_SEGMENTS, assign
from .opensim import declared_int, table_head

if TYPE_CHECKING:
    pass

#: Largest |norm - 1| of a quaternion taken as rounding and normalised; beyond it the file is refused.
NORM_TOLERANCE = 0.01

def looks_like_opensense(lines: list[str]) -> bool:
    """True for an OpenSim table of quaternions: ``DataType=Quaternion`` or ``w,x,y,z`` cells.

    Parameters
    ----------
    lines : list of str
        The file's first lines.

    Returns
    -------
    bool
        True when it is one.
    """
    end = next((i for i, line in enumerate(lines[:200]) if line.strip().lower() == "endheader"), None)
    if end is None:
        return False
    if any(line.replace(" ", "").lower() == "datatype=quaternion" for line in lines[:end]):
        return True
    rows = [line for line in lines[end + 1:end + 4] if line.strip()]
    return len(rows) >= 2 and any(cell.count(",") == 3 for cell in rows[1].split("\t")[1:])


def looks_like_mvnx(head: bytes) -> bool:
    """True when the first bytes of a file are an XML document whose root is ``mvnx``.

    Parameters
    ----------
    head : bytes
        The file's first bytes (2048 are looked at).

    Returns
    -------
    bool
        True when it is one.
    """
    text = head[:2048].decode("utf-8", errors="replace").lstrip("\ufeff \r\n\t")
    return text.startswith("<") and re.search(r"<mvnx[\s>]", text) is not None


def unit_quaternions(q: np.ndarray, names: list[str], line_of, path) -> tuple[np.ndarray, float]:
    """Quaternions (F, S, 4) checked finite and of unit norm (within :data:`NORM_TOLERANCE`), normalised.

    Parameters
    ----------
    q : ndarray, shape (F, S, 4)
        Quaternions w, x, y, z of S sensors over F frames.
    names : list of str
        The S sensors' names.
    line_of : callable
        Frame index -> where it is in the file, for messages.
    path : str or os.PathLike
        The file, named in errors.

    Returns
    -------
    q : ndarray, shape (F, S, 4)
        The same quaternions scaled to unit norm.
    deviation : float
        The largest |norm - 1| found.
    """
    bad = np.argwhere(~np.isfinite(q).all(axis=2))
    if bad.size:
        i, s = bad[0]
        raise InputError(f"missing or non-finite quaternion at {line_of(i)} for {names[s]!r}", path)
    norm = np.linalg.norm(q, axis=2)
    dev = np.abs(norm - 1.0)
    if dev.max(initial=0.0) > NORM_TOLERANCE:
        i, s = np.unravel_index(np.argmax(dev), dev.shape)
        raise InputError(f"quaternion of {names[s]!r} at {line_of(i)} has norm {norm[i, s]:.4g}, "
                         f"not 1 (tolerance {NORM_TOLERANCE:g})", path)
    return q / norm[..., None], float(dev.max(initial=0.0))


def orientation_frame(path, fmt, labels, q, time, line_numbers, world, anatomical, table, suffix,
                      positions=None, conversions=(), extra=None):
    """The orientation trial's DataFrame: ``time``, ``<label>_q{w,x,y,z}`` (and ``<label>_p{x,y,z}``, m) and its ``attrs``.

    Parameters
    ----------
    path : str or os.PathLike
        The file, named in errors and in attrs.
    fmt : str
        The format's name.
    labels : list of str
        The S sensors' (or segments') labels as the file gives them.
    q : ndarray, shape (F, S, 4)
        Unit quaternions w, x, y, z of each sensor, in the format's world axes.
    time : ndarray, shape (F,), s
        The frames' times.
    line_numbers : sequence of int or None
        The 1-based file line of each frame (for messages), None when the format has no lines.
    world : str
        The format's lab-axes spec.
    anatomical : bool
        The orientations are segment frames already.
    table : dict
        Label -> segment table (:data:`humanbody.io.imu_names.OPENSIM_BODIES`, ...).
    suffix : str
        Ending of every label, removed before matching (e.g. "_imu").
    positions : ndarray, shape (F, S, 3), optional
        Each sensor's (segment's) position, m, world axes.
    conversions : sequence of str
        Lines saying what was converted, kept in attrs.
    extra : dict, optional
        More ``attrs``.

    Returns
    -------
    pandas.DataFrame
        The orientation trial: one row per frame.

    Raises
    ------
    InputError
        No pelvis sensor, or a time base :func:`~humanbody.io._validate.table_frame` refuses.
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    segment_of, unused = assign(labels, table, suffix)
    if ROOT not in segment_of:
        want = table[ROOT][0] + suffix
        raise InputError(f"no {want!r} {'sensor' if suffix else 'segment'}: the pelvis orientation is required "
                         f"(the file has {', '.join(labels) or 'none'})", path)
    cols, data = [], []
    for s, label in enumerate(labels):
        for j, c in enumerate("wxyz"):
            cols.append(f"{label}_q{c}")
            data.append(q[:, s, j])
        if positions is not None:
            for j, c in enumerate("xyz"):
                cols.append(f"{label}_p{c}")
                data.append(positions[:, s, j])
    values = np.column_stack(data) if data else np.empty((len(time), 0))
    attrs = {"sensors": list(labels), "segment_of": segment_of, "unused": unused, "world": world,
             "anatomical": anatomical, "positions": positions is not None}
    attrs.update(extra or {})
    if len(time) == 1:  # OpenSense calibration files hold one row: a posture, not a trial
        if not np.isfinite(time[0]):
            raise InputError("time is missing or not finite", path)
        df = pd.DataFrame({"time": np.asarray(time, dtype=float), **dict(zip(cols, values.T, strict=True))})
        df.attrs.update(kind="orientations", source=str(path), format=fmt, rate_hz=None,
                        conversions=list(conversions), **attrs)
        return df
    return table_frame(path, fmt, "orientations", cols, values, time=time, line_numbers=line_numbers,
                       conversions=list(conversions), extra_attrs=attrs)


def _fast_block(rows: list[str], S: int) -> np.ndarray | None:
    """Numbers of well-formed tab-separated rows (S tabs, 3 S commas each) by pandas' C parser, or None.

    None (so that the careful path reads the rows and names the bad one) when
    a row has another shape, a value is not a number, or any value is not
    finite.
    """
    import pandas as pd  # lazy: pandas costs 0.5 CPU-s at start-up; `humanbody muscles` reads and writes without it
    arr = np.array(rows)
    if not ((np.char.count(arr, "\t") == S).all() and (np.char.count(arr, ",") == 3 * S).all()):
        return None
    text = "\n".join(rows).replace(",", "\t")
    try:
        values = pd.read_csv(io.StringIO(text), sep="\t", header=None, names=range(1 + 4 * S), dtype=float,
                             engine="c", na_filter=False, skip_blank_lines=False).to_numpy(dtype=float)
    except (ValueError, TypeError, pd.errors.ParserError):
        return None
    if values.shape != (len(rows), 1 + 4 * S) or not np.isfinite(values).all():
        return None
    return values


def _careful_block(rows, line_no, labels, path):
    """Time (F,) and quaternions (F, S, 4) cell by cell, raising InputError at the first bad cell."""
    n, S = len(rows), len(labels)
    time = np.empty(n)
    q = np.empty((n, S, 4))
    for i, (fields, ln) in enumerate(zip(rows, line_no, strict=True)):
        if len(fields) < S + 1:
            what = "truncated at" if i == n - 1 else "short row at"
            raise InputError(f"{what} line {ln}: {len(fields)} of {S + 1} values", path)
        if any(f.strip() for f in fields[S + 1:]):
            raise InputError(f"line {ln} has more values ({len(fields)}) than the header has columns ({S + 1})",
                             path)
        try:
            time[i] = float(fields[0])
        except ValueError:
            raise InputError(f"non-numeric time {fields[0]!r} at line {ln}", path) from None
        for s in range(S):
            parts = fields[s + 1].split(",")
            if len(parts) != 4 and i == n - 1 and s == S - 1 and len(parts) < 4:
                raise InputError(f"truncated at line {ln}: the last quaternion has {len(parts)} of 4 values",
                                 path)
            if len(parts) != 4:
                raise InputError(f"line {ln}, column {labels[s]!r}: expected a quaternion 'w,x,y,z', "
                                 f"got {fields[s + 1]!r}", path)
            try:
                q[i, s] = [float(p) for p in parts]
            except ValueError:
                raise InputError(f"non-numeric quaternion {fields[s + 1]!r} at line {ln}, column "
                                 f"{labels[s]!r}", path) from None
    return time, q


# ----------------------------------------------------------------------------- OpenSense
def read_opensense(path, **options):
    """Read an OpenSense orientation table (``.sto``: ``time`` and one ``w,x,y,z`` column per sensor).

    Parameters
    ----------
    path : str or Path
        The .sto file.
    **options
        ``units`` and ``rate_hz`` are refused (quaternions have no unit; the
        time column gives the rate).

    Returns
    -------
    pandas.DataFrame
        Of kind ``orientations`` (module docstring), quaternions normalised; ``attrs["world"] = "opensim"``
        (OpenSim ground: X forward, Y up, Z right, the frame OpenSense's IMU tools read the file in when no
        ``sensor_to_opensim_rotations`` are given).

    Raises
    ------
    InputError
        No endheader or column line, a first column other than ``time``,
        duplicate names, a cell that is not four numbers, a missing or
        non-finite quaternion, a norm off 1 by more than
        :data:`NORM_TOLERANCE`, a short (truncated) row, nRows disagreeing,
        time not increasing or not uniform, no pelvis sensor.
    """
    for key in ("units", "rate_hz"):
        if options.get(key) is not None:
            raise InputError(f"the {key} option does not apply to an orientation file", path)
    path = _text.check_file(path)
    lines, _title, header, k, sep, columns = table_head(path)
    if not columns or columns[0].lower() != "time":
        raise InputError(f"the first column on line {k + 1} must be 'time'", path)
    labels = columns[1:]
    if not labels:
        raise InputError(f"line {k + 1} names no sensor columns after 'time'", path)
    if any(not c for c in labels):
        raise InputError(f"a column on line {k + 1} has no name", path)
    dup = next((c for c in labels if labels.count(c) > 1), None)
    if dup is not None or "time" in (c.lower() for c in labels):
        raise InputError(f"column {dup or 'time'!r} appears twice", path)
    line_no = [i + 1 for i in range(k + 1, len(lines)) if lines[i].strip()]
    if not line_no:
        raise InputError("has a header but no data rows", path)
    S = len(labels)
    block = _fast_block([lines[i - 1] for i in line_no], S) if sep == "\t" else None
    if block is None:  # the careful path: its messages name the line and the column
        time, q = _careful_block([_text.split_line(lines[i - 1], sep) for i in line_no], line_no, labels, path)
    else:
        time, q = block[:, 0], block[:, 1:].reshape(len(line_no), S, 4)
    n = len(line_no)
    nrows = declared_int(header, "nrows", path)
    if nrows is not None and n < nrows:
        raise InputError(f"truncated: the header says nRows={nrows} but there are only {n} data rows", path)
    q, dev = unit_quaternions(q, labels, lambda i: f"line {line_no[i]}", path)
    notes = [f"quaternions normalised (largest norm deviation {dev:.1e})"] if dev > 1e-6 else []
    fmt = "opensense-sto"
    return orientation_frame(path, fmt, labels, q, time, line_no, "opensim", False, OPENSIM_BODIES, "_imu",
                  conversions=notes, extra={"header": header})


# ----------------------------------------------------------------------------- Xsens MVNX
def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _numbers(text, count, what, frame_no, path) -> np.ndarray:
    try:
        values = np.array((text or "").split(), dtype=float)
    except ValueError:
        raise InputError(f"non-numeric {what} in frame {frame_no}", path) from None
    if values.size != count:
        raise InputError(f"{what} of frame {frame_no} has {values.size} values, expected {count}", path)
    return values


def read_mvnx(path, **options):
    """Read an Xsens MVN export (``.mvnx``, XML), streaming its frames.

    Reads the segment labels (``<segments>``), the joints (``<joints>``:
    label, the two connected segments), the frame rate (``frameRate`` of
    ``<subject>``) and every ``<frame type="normal">``: ``orientation``
    (w, x, y, z per segment, global frame Z up), ``position`` (m) and
    ``jointAngle`` (x, y, z per joint, degrees) when present.  Calibration
    frames (``identity``, ``tpose``, ``npose``) are skipped.  Time: the
    frame's ``time`` attribute (ms), else its index over the frame rate.

    Parameters
    ----------
    path : str or Path
        The .mvnx file.
    **options
        ``units`` and ``rate_hz`` are refused.

    Returns
    -------
    pandas.DataFrame
        Of kind ``orientations`` (module docstring); ``anatomical`` True (MVN's segment frames: X forward,
        Y left, Z up in the N-pose).

    Raises
    ------
    InputError
        Malformed or truncated XML, no segments or no normal frames, a
        frame with the wrong count of values or a non-numeric one, NaN,
        non-unit quaternions, time not increasing, no Pelvis segment.
    """
    for key in ("units", "rate_hz"):
        if options.get(key) is not None:
            raise InputError(f"the {key} option does not apply to an MVNX file", path)
    path = _text.check_file(path)
    mv = _parse_mvnx(path)
    if not mv.segments:
        raise InputError("no <segments> list: not an MVN export", path)
    if not mv.quats:
        raise InputError("no <frame type=\"normal\"> frames", path)
    F, S = len(mv.quats), len(mv.segments)
    if mv.pos and len(mv.pos) != F:
        raise InputError(f"{F - len(mv.pos)} frames have no <position>", path)
    time, clock = _mvnx_time(mv, path)
    q, dev = unit_quaternions(np.asarray(mv.quats).reshape(F, S, 4), mv.segments, lambda i: f"frame {i + 1}", path)
    positions = np.asarray(mv.pos).reshape(F, S, 3) if mv.pos else None
    if positions is not None and not np.isfinite(positions).all():
        i = int(np.argwhere(~np.isfinite(positions))[0, 0])
        raise InputError(f"missing or non-finite position in frame {i + 1}", path)
    notes = [clock] + ([f"quaternions normalised (largest norm deviation {dev:.1e})"] if dev > 1e-6 else [])
    joint_angles = {}
    if mv.angles and len(mv.angles) == F:
        a = np.asarray(mv.angles).reshape(F, len(mv.joints), 3)
        joint_angles = {name: a[:, j] for j, name in enumerate(mv.joints)}
    return orientation_frame(path, "mvnx", mv.segments, q, time, None, "x,y,z", True, XSENS_SEGMENTS, "",
                  positions=positions, conversions=notes,
                  extra={"joint_angles": joint_angles, "joints": mv.joints, "frame_rate": mv.rate})


@dataclass
class _Mvnx:
    """What the stream of an MVNX file holds, as read so far (:func:`_parse_mvnx`)."""

    path: Path
    segments: list[str] = field(default_factory=list)
    joints: dict[str, tuple[str, str]] = field(default_factory=dict)
    rate: float | None = None
    times: list[float] = field(default_factory=list)
    quats: list[np.ndarray] = field(default_factory=list)
    pos: list[np.ndarray] = field(default_factory=list)
    angles: list[np.ndarray] = field(default_factory=list)
    frame_no: int = 0
    in_segments: bool = False
    frames_elem: ET.Element | None = None

    def start(self, tag: str, elem: ET.Element) -> None:
        """An opening tag: the subject's frame rate, the segment list begins, the frames' parent."""
        rate = elem.get("frameRate")
        if tag == "subject" and rate:
            try:
                self.rate = float(rate)
            except ValueError:
                raise InputError(f"frameRate={rate!r} is not a number", self.path) from None
        elif tag == "segments":
            self.in_segments = True
        elif tag == "frames":
            self.frames_elem = elem

    def end(self, tag: str, elem: ET.Element) -> None:
        """A closed element: a segment, a joint or a frame is read, then dropped from the tree."""
        if tag == "segments":
            self.in_segments = False
        elif tag == "segment" and self.in_segments:
            self.segments.append(elem.get("label") or f"segment{len(self.segments) + 1}")
            elem.clear()
        elif tag == "joint" and (label := elem.get("label")) is not None:
            conn = [(_local(c.tag), (c.text or "").split("/")[0].strip()) for c in elem]
            ends = [v for t, v in conn if t in ("connector1", "connector2")]
            if len(ends) == 2:
                self.joints[label] = (ends[0], ends[1])
            elem.clear()
        elif tag == "frame":
            if elem.get("type", "normal") == "normal":
                self.frame(elem)
            elem.clear()
            if self.frames_elem is not None:
                try:
                    self.frames_elem.remove(elem)  # a long recording: keep no frame once read
                except ValueError:
                    pass

    def frame(self, elem: ET.Element) -> None:
        """One normal frame: orientations (4 per segment), positions (3), joint angles (3 per joint), time."""
        self.frame_no += 1
        frame_no, path = self.frame_no, self.path
        if not self.segments:
            raise InputError("a frame comes before the <segments> list", path)
        S = len(self.segments)
        parts = {_local(c.tag): c.text for c in elem}
        if "orientation" not in parts:
            raise InputError(f"frame {frame_no} has no <orientation>", path)
        self.quats.append(_numbers(parts["orientation"], 4 * S, "orientation", frame_no, path))
        if "position" in parts:
            self.pos.append(_numbers(parts["position"], 3 * S, "position", frame_no, path))
        if "jointAngle" in parts and self.joints:
            self.angles.append(_numbers(parts["jointAngle"], 3 * len(self.joints), "jointAngle", frame_no, path))
        t = elem.get("time")
        try:
            self.times.append(float(t) / 1000.0 if t is not None else np.nan)
        except ValueError:
            raise InputError(f"frame {frame_no} has a non-numeric time {t!r}", path) from None


def _parse_mvnx(path: Path) -> _Mvnx:
    """Stream an MVNX file's XML (:class:`_Mvnx`); malformed or truncated XML is an InputError at its line."""
    mv = _Mvnx(path)
    try:
        for event, elem in ET.iterparse(path, events=("start", "end")):
            if event == "start":
                mv.start(_local(elem.tag), elem)
            else:
                mv.end(_local(elem.tag), elem)
    except ET.ParseError as err:
        line = getattr(err, "position", (None,))[0]
        where = f" at line {line}" if line else ""
        raise InputError(f"malformed or truncated XML{where} ({err.msg if hasattr(err, 'msg') else err})",
                         path) from None
    return mv


def _mvnx_time(mv: _Mvnx, path: Path) -> tuple[np.ndarray, str]:
    """The frames' time (s) and how it was found: their ``time`` attribute (ms), else index / frameRate."""
    time = np.asarray(mv.times)
    if not np.isnan(time).any():
        return time, "time ms -> s"
    if not mv.rate or mv.rate <= 0:
        raise InputError("frames have no time and the subject has no frameRate", path)
    return np.arange(len(mv.quats)) / mv.rate, f"time from the frame index at frameRate {mv.rate:g} Hz"


def quaternions(df, label: str) -> np.ndarray:
    """Quaternions (F, 4) ``w, x, y, z`` of one label of an orientation DataFrame.

    Parameters
    ----------
    df : pandas.DataFrame
        An orientation trial.
    label : str
        A sensor's (segment's) label.

    Returns
    -------
    ndarray, shape (F, 4)
        Its quaternions, w first.
    """
    return df[[f"{label}_q{c}" for c in "wxyz"]].to_numpy(dtype=float)


def read_orientations(path, **options):
    """Read an OpenSense ``.sto`` or an Xsens ``.mvnx`` by its content.

    Parameters
    ----------
    path : str or os.PathLike
        The .sto or .mvnx file.
    **options
        As the format's reader takes them.

    Returns
    -------
    pandas.DataFrame
        An orientation trial (kind ``orientations``).
    """
    p = _text.check_file(path)
    with open(p, "rb") as fh:
        head = fh.read(2048)
    if looks_like_mvnx(head):
        return read_mvnx(p, **options)
    return read_opensense(p, **options)


__all__ = [
    "NORM_TOLERANCE",
    "looks_like_mvnx",
    "looks_like_opensense",
    "quaternions",
    "read_mvnx",
    "read_opensense",
    "read_orientations",
]

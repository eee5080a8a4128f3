"""humanbody's own C3D reader, for the files ezc3d cannot read.

ezc3d (the field's reference reader) refuses some files that hold good
data: big-endian SGI/MIPS files ("MIPS processor type not supported"), a
float ``ANALOG:OFFSET``, a parameter section longer than its declared block
count, a record whose offset word is wrong, a parameter section overwritten
part-way, an all-empty parameter section (PhaseSpace: everything in the
header).  This module reads those files by the C3D specification (Motion
Lab Systems, *The C3D File Format User Guide*, 2008):

- header (512 bytes, 16-bit words in the processor's byte order): word 1
  the parameter block, word 2 points per frame, word 3 analog samples per
  frame, words 4-5 first and last frame (from 1), words 7-8 the point
  scale (float; negative: the data are floats), word 9 the data block,
  words 11-12 the frame rate;
- parameters by :func:`humanbody.io.c3d_params.parse_parameters`, tolerant
  (a section past its block count up to the data, a wrong offset word
  followed by the record's own lengths, a damaged tail dropped);
- data: per frame, per point ``x, y, z, w`` (int16 times ``|scale|``, or
  float32: IEEE little-endian on Intel, DEC's on DEC, big-endian on MIPS),
  then the analog samples.  A point whose fourth word is negative is
  invalid (NaN), as ezc3d gives it.

Missing ``POINT`` parameters are taken from the header (``USED``,
``SCALE``, ``RATE``, ``DATA_START``, ``FRAMES``) and said so, one line each.

:func:`read_raw` returns the file in the layout of ezc3d's ``c3d`` object
(``parameters[group][name]["value"]``, ``header["points"]``,
``data["points"]`` (4, points, frames)), so :mod:`humanbody.io.c3d` treats
both the same way.
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np

from .c3d_params import _dec_to_ieee, parse_parameters

__all__ = ["read_raw", "point_labels"]


def _header(raw: bytes) -> dict:
    """The header's words: parameter block, points, analog samples per frame, first and last frame (from 1),
    point scale, data block, frame rate; and the processor code and byte order of the parameter section."""
    p_start = (raw[0] - 1) * 512
    proc = raw[p_start + 3] if p_start + 4 <= len(raw) else 84
    proc = proc if proc in (84, 85, 86) else 84
    end = "<" if proc in (84, 85) else ">"
    words = struct.unpack_from(end + "9H", raw, 0)

    def real(at: int) -> float:
        if proc == 85:
            return float(_dec_to_ieee(raw[at:at + 4])[0])
        return float(struct.unpack_from(end + "f", raw, at)[0])

    return {"p_start": p_start, "proc": proc, "end": end, "n_points": words[1], "n_analog": words[2],
            "first": words[3], "last": words[4], "scale": real(12), "data_block": words[8], "rate": real(20)}


def _value(groups: dict, group: str, name: str):
    g = groups.get(group)
    p = g.params.get(name) if g is not None else None
    return None if p is None else p.value


def _first_number(value) -> float | None:
    if value is None or isinstance(value, list):
        return None
    arr = np.asarray(value, dtype=float).ravel()
    return float(arr[0]) if arr.size else None


def _point_settings(head: dict, groups: dict, notes: list[str]) -> dict:
    """Points, scale, rate, data block and frames: ``POINT`` parameters, else the header (noted)."""
    out, missing = {}, []
    for key, param, fallback in (("n_points", "USED", head["n_points"]), ("scale", "SCALE", head["scale"]),
                                 ("rate", "RATE", head["rate"]), ("data_block", "DATA_START", head["data_block"])):
        value = _first_number(_value(groups, "POINT", param))
        if value is None or (key in ("rate", "data_block") and value <= 0) or (key == "scale" and value == 0):
            missing.append((param, fallback))
            value = fallback
        out[key] = value
    if missing:
        notes.append(f"POINT:{', '.join(p for p, _ in missing)} missing: taken from the header "
                     f"({', '.join(f'{v:g}' for _, v in missing)})")
    out["n_points"] = int(out["n_points"])
    out["data_block"] = int(out["data_block"])
    out["frames"] = max(0, head["last"] - head["first"] + 1)
    return out


def fits(size: int, start: int, frames: int, per_frame: int, width: int) -> bool:
    """Whether ``frames`` frames of ``per_frame`` values of ``width`` bytes from byte ``start`` end the file of
    ``size`` bytes (up to one 512-byte block of padding).

    Parameters
    ----------
    size : int
        The file's size (bytes).
    start : int
        Byte offset of the data section.
    frames : int
        Number of frames.
    per_frame : int
        Values per frame.
    width : int
        Bytes per value (2 or 4).

    Returns
    -------
    bool
        True when the frames fill the file to within a block (and there is at least one).
    """
    rest = size - start - frames * per_frame * width
    return frames > 0 and 0 <= rest <= 512


def analog_per_frame(raw: bytes, head: dict, groups: dict, set_: dict) -> tuple[int, str | None]:
    """Analog samples per point frame: the header's word 3 when the data section's size agrees with it, else
    ``ANALOG:USED`` times the analog samples per frame (``ANALOG:RATE / POINT:RATE``) when that agrees (the
    note says which was taken), else the header's.

    Parameters
    ----------
    raw : bytes
        The file's bytes.
    head : dict
        The header's fields.
    groups : dict of str to ParameterGroup
        The parameter groups.
    set_ : dict
        The point settings (``scale``, ``data_block``, ``rate``, ``frames``, ``n_points``).

    Returns
    -------
    n : int
        Analog samples per point frame.
    note : str or None
        The line saying the parameters were taken over the header, else None.
    """
    width = 4 if set_["scale"] < 0 else 2
    start = (max(set_["data_block"], 1) - 1) * 512
    candidates: list[tuple[int, str | None]] = [(head["n_analog"], None)]
    used = _first_number(_value(groups, "ANALOG", "USED"))
    a_rate = _first_number(_value(groups, "ANALOG", "RATE"))
    if used and a_rate and set_["rate"] > 0:
        n = int(used) * int(round(a_rate / set_["rate"]))
        candidates.append((n, f"the header says {head['n_analog']} analog samples per frame, the data hold "
                              f"ANALOG:USED x ANALOG:RATE / POINT:RATE = {n}: {n} taken"))
    for n, note in candidates:
        if fits(len(raw), start, set_["frames"], 4 * set_["n_points"] + n, width):
            return n, note
    return head["n_analog"], None


def _frame_values(raw: bytes, head: dict, set_: dict, per_frame: int, floats: bool) -> np.ndarray:
    """The data section as (frames, values per frame) float64, frames limited to the whole ones present."""
    start = (max(set_["data_block"], 1) - 1) * 512
    width = 4 if floats else 2
    n = min(set_["frames"], max(0, (len(raw) - start) // (per_frame * width))) if per_frame else 0
    chunk = raw[start:start + n * per_frame * width]
    if not floats:
        vals = np.frombuffer(chunk, dtype=head["end"] + "i2").astype(float)
    elif head["proc"] == 85:
        vals = _dec_to_ieee(chunk).astype(float)
    else:
        vals = np.frombuffer(chunk, dtype=head["end"] + "f4").astype(float)
    return vals.reshape(n, per_frame)


def read_raw(path) -> tuple[dict, list[str]]:
    """A C3D file read by the specification, laid out as ezc3d's ``c3d`` object, and one line per oddity.

    Parameters
    ----------
    path : str or os.PathLike
        The C3D file.

    Returns
    -------
    c : dict
        ``{"parameters": {group: {name: {"value": ...}}}, "header": {"points": {"frame_rate",
        "first_frame" (from 0), "last_frame"}}, "data": {"points": (4, points, frames)}}``; invalid
        points NaN, the fourth row 1.
    notes : list of str
        What was odd (parameters taken from the header, a damaged parameter tail).

    Raises
    ------
    ParameterError
        When the parameter section cannot be read at all.
    """
    raw = Path(path).read_bytes()
    head = _header(raw)
    notes: list[str] = []
    limit = (head["data_block"] - 1) * 512 if head["data_block"] > 1 else None
    groups, _ = parse_parameters(raw, head["p_start"], limit, notes)
    set_ = _point_settings(head, groups, notes)
    floats = set_["scale"] < 0
    n_analog, note = analog_per_frame(raw, head, groups, set_)
    if note:
        notes.append(note)
    per_frame = 4 * set_["n_points"] + n_analog
    vals = _frame_values(raw, head, set_, per_frame, floats)
    if len(vals) < set_["frames"]:
        notes.append(f"the header announces {set_['frames']} frames, the data hold {len(vals)}: {len(vals)} read")
    block = vals[:, :4 * set_["n_points"]].reshape(len(vals), set_["n_points"], 4)
    xyz = block[..., :3] * (1.0 if floats else abs(set_["scale"]))
    xyz[block[..., 3] < 0] = np.nan
    points = np.ones((4, set_["n_points"], len(vals)))
    points[:3] = np.transpose(xyz, (2, 1, 0))
    params = {g.name: {p.name: {"value": p.value} for p in g.params.values()} for g in groups.values()}
    params.setdefault("POINT", {})["RATE"] = {"value": np.array([set_["rate"]])}
    c = {"parameters": params,
         "header": {"points": {"frame_rate": set_["rate"], "first_frame": head["first"] - 1,
                               "last_frame": head["first"] - 2 + len(vals)}},
         "data": {"points": points}}
    return c, notes




def point_labels(path) -> list[str] | None:
    """The point labels of a C3D file (``POINT:LABELS``, ``LABELS2``, ...; the first ``POINT:USED``, else the
    header's count), read from its header and parameter section only; None when they cannot be read.

    Parameters
    ----------
    path : str or os.PathLike
        The C3D file.

    Returns
    -------
    list of str or None
        The labels, stripped, or None.
    """
    try:
        with open(path, "rb") as fh:
            first = fh.read(512)
            if len(first) < 512 or first[1] != 0x50:
                return None
            head = _header(first + bytes(4))
            end = (head["data_block"] - 1) * 512 if head["data_block"] > 1 else None
            fh.seek(0)
            raw = fh.read(end) if end is not None and end > head["p_start"] else fh.read()
        head = _header(raw)
        groups, _ = parse_parameters(raw, head["p_start"], None, [])
    except Exception:  # noqa: BLE001 - a file that cannot be read has no labels to tell
        return None
    labels: list[str] = []
    k = 1
    while (value := _value(groups, "POINT", "LABELS" if k == 1 else f"LABELS{k}")) is not None:
        labels += [str(x).strip() for x in (value if isinstance(value, list) else np.ravel(value))]
        k += 1
    used = _first_number(_value(groups, "POINT", "USED"))
    n = int(used) if used is not None and used >= 0 else head["n_points"]
    return labels[:n]

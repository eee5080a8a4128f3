"""The parameter section of a C3D file as one model: groups of typed parameters, read and laid out.

A C3D parameter section (Motion Lab Systems, *The C3D File Format User
Guide*, 2008, ch. 2) starts on a 512-byte block with four bytes (reserved,
key 0x50, number of blocks, processor: 84 Intel, 85 DEC, 86 MIPS), then one
record per group and per parameter:

- name length (int8; negative when the item is locked), group id (int8;
  negative for a group, the group's id for a parameter), the name (ASCII),
  a 16-bit offset from the offset word itself to the next record (0 on the
  last one);
- a parameter then holds its type (-1 char, 1 byte, 2 int16, 4 float), the
  number of dimensions, each dimension (one unsigned byte: at most 255),
  ``abs(type) * prod(dims)`` bytes of data (first dimension fastest);
- both end with a description (length byte, then text).

:func:`parse_parameters` reads any processor's section into
:class:`Parameter` objects (DEC floats turned into IEEE ones, big-endian MIPS
words into native ones); :func:`layout_parameters` lays them out again,
Intel format, computing every offset from the records it writes.  Nothing
is patched afterwards: a parameter whose value depends on the layout
(``POINT:DATA_START``) is set before the section is laid out, its size
being fixed by its type.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

import numpy as np

__all__ = ["Parameter", "ParameterGroup", "ParameterError", "parse_parameters", "layout_parameters", "split_lists",
           "MAX_DIM"]

#: Largest size of one dimension of a parameter (one unsigned byte).
MAX_DIM = 255

_DTYPES = {1: np.int8, 2: np.int16, 4: np.float32}


class ParameterError(ValueError):
    """A parameter section that cannot be read or laid out (the message says why)."""


@dataclass(eq=False)
class Parameter:
    """One C3D parameter.

    type : int              -1 char, 1 byte, 2 int16, 4 float (as in the file)
    dims : tuple of int     the dimensions, first one fastest (a char array of n
                            strings of length L is ``(L, n)``)
    data : ndarray          the values, flat in file order: uint8 codes for char,
                            int8, int16 or float32
    description : str
    locked : bool
    """

    name: str
    type: int
    dims: tuple
    data: np.ndarray
    description: str = ""
    locked: bool = False

    @property
    def value(self):
        """Python view: a list of str for char, else an array of shape ``dims`` (Fortran order), as ezc3d
        gives it."""
        if self.type == -1:
            raw = bytes(np.asarray(self.data, dtype=np.uint8))
            if len(self.dims) <= 1:
                if self.dims and self.dims[0] == 0:
                    return []
                return [raw.decode("latin-1").rstrip(" \0")] if self.dims else [raw.decode("latin-1")]
            L = self.dims[0]
            n = int(np.prod(self.dims[1:]))
            return [raw[k * L:(k + 1) * L].decode("latin-1").rstrip(" \0") for k in range(n)]
        arr = np.asarray(self.data)
        return arr.reshape(self.dims, order="F") if len(self.dims) > 1 else arr

    @classmethod
    def of(cls, name: str, values, type: int | None = None, description: str = "", locked: bool = False,
           dims=None) -> Parameter:
        """A parameter holding ``values``: str or list of str (char), or numbers.

        ``type`` defaults to char for text, int16 for integers, float otherwise;
        ``dims`` (file order) defaults to the values' shape, the values taken
        in Fortran order (a single number: no dimension).

        Parameters
        ----------
        name : str
            The parameter's name.
        values : str, list of str, number or array
            What it holds.
        type : int, optional
            C3D type: -1 char, 1 byte, 2 int16, 4 float.
        description : str, default ""
            Its description.
        locked : bool, default False
            Its locked flag.
        dims : tuple of int, optional
            Its dimensions, file order.

        Returns
        -------
        Parameter
            The parameter, data packed as the file holds it.

        Raises
        ------
        ParameterError
            Integers that do not fit 16 bits for type 2.
        """
        if isinstance(values, str) or (isinstance(values, (list, tuple)) and values
                                       and all(isinstance(v, str) for v in values)) or type == -1:
            texts = [values] if isinstance(values, str) else [str(v) for v in values]
            enc = [t.encode("latin-1", "replace") for t in texts]
            if isinstance(values, str):
                return cls(name, -1, (len(enc[0]),), np.frombuffer(enc[0], dtype=np.uint8).copy(), description,
                           locked)
            L = max([len(e) for e in enc] + [1])
            codes = np.frombuffer(b"".join(e.ljust(L) for e in enc), dtype=np.uint8).copy()
            return cls(name, -1, (L, len(enc)), codes, description, locked)
        arr = np.asarray(values)
        data: np.ndarray
        if type is None:
            type = 2 if arr.dtype.kind in "iub" else 4
        if type == 2 and arr.size and (arr.min() < -32768 or arr.max() > 65535):
            raise ParameterError(f"{name}: the values do not fit 16-bit integers")
        if type == 1:
            data = arr.astype(np.int64).ravel(order="F").astype(np.uint8).view(np.int8)
        elif type == 2:
            data = arr.astype(np.int64).ravel(order="F").astype(np.uint16).view(np.int16)
        else:
            data = arr.astype(np.float32).ravel(order="F")
        if dims is None:
            dims = arr.shape  # file order, first dimension fastest (the values are taken in Fortran order)
        return cls(name, type, tuple(int(d) for d in dims), data, description, locked)


@dataclass(eq=False)
class ParameterGroup:
    """A C3D group: its parameters in file order."""

    name: str
    gid: int
    description: str = ""
    locked: bool = False
    params: dict = field(default_factory=dict)


def _dec_to_ieee(b: bytes) -> np.ndarray:
    """DEC (VAX F) 32-bit floats -> IEEE: swap the two 16-bit words, then divide by 4 (exponent bias 129)."""
    a = np.frombuffer(b, dtype=np.uint8).reshape(-1, 4)
    swapped = np.ascontiguousarray(a[:, [2, 3, 0, 1]]).view("<f4").ravel()
    return (swapped / 4.0).astype(np.float32)


def parse_parameters(raw: bytes, start: int, limit: int | None = None,
                     notes: list | None = None) -> tuple[dict, int]:
    """The groups (``{name: ParameterGroup}`` in group-id order) of the parameter section at byte ``start`` of ``raw``,
    and the processor code (84, 85 or 86).

    ``limit`` (a byte position, the data section's start): the section may
    run past the block count its first bytes declare, up to ``limit`` (some
    writers count too few blocks; ezc3d reads on).  A record whose offset
    word points outside the section, or back inside its own bytes, is
    followed by the record right after its description (the offset is
    redundant with the lengths the record holds).  ``notes`` (a list): a
    damaged record ends the section instead of raising, the records before
    it kept, and one line saying so is appended.

    Parameters
    ----------
    raw : bytes
        The file's bytes (or its first bytes, up to the data section).
    start : int
        Byte offset of the parameter section.
    limit : int, optional
        Byte position the section may run to.
    notes : list, optional
        Where a damaged record's line goes (None: raise instead).

    Returns
    -------
    groups : dict of str to ParameterGroup
        The groups, their parameters in file order.
    processor : int
        84 (Intel), 85 (DEC) or 86 (MIPS).

    Raises
    ------
    ParameterError  a record that runs past the section, an unknown processor or type.
    """
    if start + 4 > len(raw):
        raise ParameterError("the parameter section is missing")
    n_blocks, proc = raw[start + 2], raw[start + 3]
    if proc not in (84, 85, 86):
        raise ParameterError(f"unknown processor type {proc}")
    stop = min(len(raw), max(start + max(1, n_blocks) * 512, limit or 0))
    groups: dict[int, ParameterGroup] = {}
    pending: list[tuple[int, Parameter]] = []
    pos: int | None = start + 4
    read = 0
    try:
        while pos is not None and pos + 2 <= stop:
            pos = _record_at(raw, pos, stop, proc, groups, pending)
            read += 1
    except ParameterError:
        if notes is None:
            raise
        notes.append(f"the parameter section is damaged after its first {read} records: those records read")
    for gid, p in pending:
        if gid not in groups:  # a parameter of an undeclared group: the group gets a name (as ezc3d does)
            groups[gid] = ParameterGroup(f"GROUP{gid}", gid)
        groups[gid].params[p.name] = p
    return {g.name: g for g in sorted(groups.values(), key=lambda g: g.gid)}, proc


def _record_at(raw: bytes, pos: int, stop: int, proc: int, groups: dict, pending: list) -> int | None:
    """Read the group or parameter record at ``pos`` into ``groups`` / ``pending``; the position of the next
    record, or None after the last one."""
    end = "<" if proc in (84, 85) else ">"
    n_len = struct.unpack_from("b", raw, pos)[0]
    gid = struct.unpack_from("b", raw, pos + 1)[0]
    if n_len == 0:
        return None
    locked, n_len = n_len < 0, abs(n_len)
    at = pos + 2 + n_len
    if at + 2 > stop:
        raise ParameterError("a parameter record runs past the section")
    name = raw[pos + 2:at].decode("latin-1").strip()
    offset = struct.unpack_from(end + "h", raw, at)[0]
    body = at + 2
    if gid < 0:
        if body + 1 > stop:
            raise ParameterError(f"group {name} runs past the section")
        d_len = raw[body]
        groups[-gid] = ParameterGroup(name, -gid, raw[body + 1:body + 1 + d_len].decode("latin-1"), locked)
        natural = body + 1 + d_len
    else:
        param, natural = _parameter_body(raw, body, stop, proc, name, locked)
        pending.append((gid, param))
    if offset == 0:
        return None
    nxt = at + offset
    if nxt < natural or nxt > stop:  # the offset word contradicts the record's own lengths
        nxt = natural
    if nxt <= pos or nxt > stop:
        raise ParameterError(f"the record of {name} points outside the section")
    return nxt


def _parameter_body(raw: bytes, body: int, stop: int, proc: int, name: str, locked: bool) -> tuple:
    """The parameter whose type byte is at ``body``, and the position right after its description."""
    end = "<" if proc in (84, 85) else ">"
    if body + 2 > stop:
        raise ParameterError(f"parameter {name} runs past the section")
    ptype = struct.unpack_from("b", raw, body)[0]
    if ptype not in (-1, 1, 2, 4):
        raise ParameterError(f"parameter {name} has the unknown type {ptype}")
    nd = raw[body + 1]
    if nd > 7:
        raise ParameterError(f"parameter {name} has {nd} dimensions (at most 7)")
    dims = tuple(raw[body + 2:body + 2 + nd])
    size = abs(ptype) * int(np.prod(dims)) if nd else abs(ptype)
    d0 = body + 2 + nd
    if d0 + size + 1 > stop:
        raise ParameterError(f"parameter {name} runs past the section")
    chunk = raw[d0:d0 + size]
    data: np.ndarray
    if ptype == -1:
        data = np.frombuffer(chunk, dtype=np.uint8).copy()
    elif ptype == 1:
        data = np.frombuffer(chunk, dtype=np.int8).copy()
    elif ptype == 2:
        data = np.frombuffer(chunk, dtype=end + "i2").astype(np.int16)
    elif proc == 85:
        data = _dec_to_ieee(chunk)
    else:
        data = np.frombuffer(chunk, dtype=end + "f4").astype(np.float32)
    d_len = raw[d0 + size]
    desc = raw[d0 + size + 1:d0 + size + 1 + d_len].decode("latin-1")
    return Parameter(name, ptype, dims, data, desc, locked), d0 + size + 1 + d_len


def _name(name: str, locked: bool, gid: int) -> bytes:
    """Name length (negative when locked), group id, name."""
    b = name.encode("latin-1", "replace")
    if not 1 <= len(b) <= 127:
        raise ParameterError(f"the name {name!r} must have 1 to 127 characters")
    return struct.pack("bb", -len(b) if locked else len(b), gid) + b


def _desc(text: str) -> bytes:
    d = text.encode("latin-1", "replace")[:255]
    return bytes([len(d)]) + d


def _record(head: bytes, body: bytes, last: bool) -> bytes:
    """A record: name part, the offset word (to the next record, 0 when ``last``), the rest."""
    return head + struct.pack("<h", 0 if last else 2 + len(body)) + body


def layout_parameters(groups: dict, first_block: int = 2) -> bytes:
    """The parameter section of ``groups`` (Intel format), whole 512-byte blocks.

    Each group's record is followed by its parameters' records; group ids
    are renumbered 1, 2, ... in the order of ``groups``.  ``first_block``
    goes into the section's first byte (the block of the first parameter
    record, as the header's first byte).

    Parameters
    ----------
    groups : dict of str to ParameterGroup
        The groups to write, in order.
    first_block : int, default 2
        The section's first byte.

    Returns
    -------
    bytes
        The section, a whole number of 512-byte blocks.

    Raises
    ------
    ParameterError  a dimension over 255, data not matching the dimensions, a name too long.
    """
    items = []
    for gid, g in enumerate(groups.values(), start=1):
        if gid > 127:
            raise ParameterError("more than 127 groups")
        items.append((_name(g.name, g.locked, -gid), _desc(g.description)))
        for p in g.params.values():
            dims = tuple(int(d) for d in p.dims)
            if any(d > MAX_DIM or d < 0 for d in dims) or len(dims) > 7:
                raise ParameterError(f"{g.name}:{p.name} has the dimensions {dims} (each at most {MAX_DIM})")
            n = int(np.prod(dims)) if dims else 1
            if p.type == -1:
                data = np.asarray(p.data, dtype=np.uint8).tobytes()
            else:
                data = np.asarray(p.data, dtype=_DTYPES[abs(p.type)]).astype("<" + np.dtype(
                    _DTYPES[abs(p.type)]).str[1:]).tobytes()
            if len(data) != abs(p.type) * n:
                raise ParameterError(f"{g.name}:{p.name} holds {len(data)} bytes, its dimensions {dims} "
                                     f"need {abs(p.type) * n}")
            body = struct.pack("bB", p.type, len(dims)) + bytes(dims) + data + _desc(p.description)
            items.append((_name(p.name, p.locked, gid), body))
    out = bytearray()
    for k, (head, body) in enumerate(items):
        out += _record(head, body, k == len(items) - 1)
    n_blocks = (4 + len(out) + 1 + 511) // 512  # +1: a zero byte after the last record
    if n_blocks > 255:
        raise ParameterError("the parameters need more than 255 blocks")
    section = bytearray(n_blocks * 512)
    section[0:4] = bytes([first_block, 0x50, n_blocks, 84])
    section[4:4 + len(out)] = out
    return bytes(section)


def split_lists(group: ParameterGroup, base: str, texts: list, template: Parameter | None = None) -> None:
    """Put the list ``texts`` into ``base``, ``base2``, ``base3``... of at most 255 entries each, as Vicon
    writes LABELS/DESCRIPTIONS/UNITS past 255 points; stale continuation parameters are removed.  The
    description and locked flag of ``template`` (or of the existing ``base``) are kept.

    Parameters
    ----------
    group : ParameterGroup
        The group changed in place.
    base : str
        The parameter's name (``LABELS``, ...).
    texts : list of str
        The entries.
    template : Parameter, optional
        Where the description and locked flag come from when ``base`` is missing.
    """
    old = group.params.get(base, template)
    for k in range(2, 100):
        group.params.pop(f"{base}{k}", None)
    chunks = [texts[i:i + MAX_DIM] for i in range(0, len(texts), MAX_DIM)] or [[]]
    for k, chunk in enumerate(chunks):
        name = base if k == 0 else f"{base}{k + 1}"
        prev = group.params.get(name, old)
        p = Parameter.of(name, list(chunk), type=-1, description=prev.description if prev else "",
                         locked=prev.locked if prev else False)
        if not chunk:
            p.dims, p.data = (1, 0), np.zeros(0, dtype=np.uint8)
        group.params[name] = p

"""C3D output: the input trial's data untouched, our results added as Vicon Nexus writes model outputs.

:func:`write_c3d` writes one C3D file through ezc3d.  From a C3D trial it
re-reads the source file with ezc3d and keeps everything in it as read:
marker labels, coordinates (lab axes, ``POINT:UNITS``), residuals and
camera masks, the analog channels, the ``FORCE_PLATFORM`` group and every
other parameter.  From a TRC or CSV trial it writes the markers as read
(lab axes, the file's length unit), and, given a loads table, analog
channels with a ``FORCE_PLATFORM`` group of type 2 that reproduces the
loads (:func:`platform_channels`).

Our outputs are appended as points in Nexus's model-output groups
(``POINT:ANGLES``, ``MOMENTS``, ``POWERS``, ``FORCES``) and modelled
points (``POINT:MODELLED``, a humanbody parameter our reader leaves out
like the groups above); gait events go into the ``EVENT`` group.  The
mapping from the results columns to the Plug-in Gait names and signs is
:mod:`humanbody.export` (docs/formats.md, "C3D export").

The classic C3D header counts frames in 16-bit words: ``last frame =
first frame + frames - 1`` must be at most 65535.  ezc3d writes a longer
trial without complaint but reads back only 65535 frames, so a longer one
is an :class:`~humanbody.errors.InputError` before anything is written.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

import numpy as np

from ..errors import InputError

__all__ = ["C3D_MAX_FRAME", "Platforms", "PointBlock", "platform_channels", "write_c3d"]

#: Largest frame number the C3D header can hold (unsigned 16-bit word).
C3D_MAX_FRAME = 65535


@dataclass(eq=False)
class PointBlock:
    """Points to add: ``labels`` with ``values`` (frames, n, 3); NaN = invalid.

    ``group`` is the POINT parameter listing them (ANGLES, MOMENTS, POWERS,
    FORCES or MODELLED; "" for markers), or a list of one such name per
    label; ``descriptions`` one text per label.  The file receives ``values @ axes.T / scale`` (``axes`` (3, 3),
    default none: the values are in the file's axes), formed frame block by
    frame block as they are written (:meth:`points`).
    """

    group: str | list
    labels: list
    values: np.ndarray
    descriptions: list = field(default_factory=list)
    scale: float = 1.0
    axes: np.ndarray | None = None

    def groups(self) -> list:
        """The group of each label."""
        return [self.group] * len(self.labels) if isinstance(self.group, str) else list(self.group)

    def points(self, frames=slice(None), labels=slice(None)) -> np.ndarray:
        """What the file receives for ``frames`` and ``labels`` (slices or index lists): (f, n, 3) float64."""
        v = np.asarray(self.values[frames, labels, :], dtype=float)
        if self.axes is not None:
            v = v @ np.asarray(self.axes, dtype=float).T
        return v / self.scale if self.scale != 1.0 else v


def _valid(v: np.ndarray) -> np.ndarray:
    """(...) bool: the points ``v`` (..., 3) whose three coordinates are finite."""
    f = np.isfinite(v)
    return f[..., 0] & f[..., 1] & f[..., 2]


@dataclass(eq=False)
class Platforms:
    """Type-2 force platforms as analog channels (see :func:`platform_channels`).

    analogs : (channels, samples) float   Fx Fy Fz Mx My Mz of each plate
    labels, units : list of str           one per channel
    corners : (plates, 4, 3)              corner positions, lab axes, the points' unit
    rate_hz : float                       analog rate (an integer multiple of the point rate)
    """

    analogs: np.ndarray
    labels: list
    units: list
    corners: np.ndarray
    rate_hz: float


def platform_channels(time, force, point, moment, frame_time, lab_of_ground, unit_scale: float,
                      samples_per_frame: int, names=None) -> Platforms:
    """Analog channels of type-2 platforms that carry loads ``force``, ``point``, ``moment``.

    Parameters
    ----------
    time : (T,) s                 the loads' samples
    force, point, moment : (T, L, 3)
        Ground reaction on the subject (N), its point of application (m,
        NaN while unloaded) and the free moment about it (N·m), ground axes
        (X forward, Y left, Z up).
    frame_time : (F,) s           the point frames; the analogs cover them at
                                  ``samples_per_frame`` samples a frame
    lab_of_ground : (3, 3)        lab components = ``lab_of_ground @ ground``
    unit_scale : float            metres per unit of the points (0.001 for mm)

    Each plate's axes are the ground axes (x forward, y left, z up: the
    corners are ordered so, corner 1 at +x +y), its surface at the median
    height of the loaded points, its centre C the middle of the points'
    extent.  The channels are F and the moment about C, ``M_C = (P - C) x F
    + M``, in the plate's axes (N and N·unit).  A reader of type-2 plates
    (ezc3d) finds the centre of pressure ``C + (-M_Cy / F_z, M_Cx / F_z)``
    and the free moment about the vertical: the same wrench.  Loads are
    linearly interpolated onto the analog samples and zero outside their
    time span.
    """
    time = np.asarray(time, dtype=float)
    F, P, M = (np.asarray(a, dtype=float) for a in (force, point, moment))
    L = F.shape[1]
    frame_time = np.asarray(frame_time, dtype=float)
    n = len(frame_time)
    dt = (frame_time[-1] - frame_time[0]) / (n - 1) if n > 1 else 1.0
    ta = frame_time[0] + np.arange(n * samples_per_frame) * (dt / samples_per_frame)
    R = np.asarray(lab_of_ground, dtype=float)
    analogs = np.zeros((6 * L, len(ta)))
    corners = np.zeros((L, 4, 3))
    labels, units = [], []
    mu = "N" + {1e-3: "mm", 1e-2: "cm", 1.0: "m"}.get(unit_scale, "mm")
    for k in range(L):
        loaded = np.isfinite(P[:, k]).all(axis=1) & (np.abs(F[:, k, 2]) > 0)
        pts = P[loaded, k] if loaded.any() else np.zeros((1, 3))
        lo, hi = pts[:, :2].min(axis=0), pts[:, :2].max(axis=0)
        centre = np.array([*(0.5 * (lo + hi)), float(np.median(pts[:, 2]))])
        half = np.maximum(0.5 * (hi - lo) + 0.1, (0.3, 0.2))  # m: at least a 0.6 x 0.4 m plate
        Pk = np.where(np.isfinite(P[:, k]), P[:, k], centre)
        Mc = np.cross(Pk - centre, F[:, k]) + M[:, k]
        for j, (src, scale) in enumerate(((F[:, k], 1.0), (Mc, 1.0 / unit_scale))):
            for a in range(3):
                analogs[6 * k + 3 * j + a] = np.interp(ta, time, src[:, a] * scale, left=0.0, right=0.0)
        name = names[k] if names else f"plate{k + 1}"
        labels += [f"{name}_{c}" for c in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]
        units += ["N"] * 3 + [mu] * 3
        for c, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
            g = centre + np.array([sx * half[0], sy * half[1], 0.0])
            corners[k, c] = (R @ g) / unit_scale
    return Platforms(analogs, labels, units, corners, samples_per_frame / dt)


def _labels(params, group="POINT") -> tuple[list, list]:
    """All labels of a group (LABELS, LABELS2, ...) and the parameter names holding them."""
    names = ["LABELS"] + [f"LABELS{k}" for k in range(2, 100) if f"LABELS{k}" in params[group]]
    out = []
    for name in names:
        if name in params[group]:
            out += [str(x).strip() for x in params[group][name]["value"]]
    return out, [n for n in names if n in params[group]]


def _int_param(c, group: str, name: str, values, shape=None) -> None:
    from ezc3d import ezc3d as swig

    p = swig.Parameter(name, "")
    vec = swig.VecInt([int(v) for v in np.asarray(values).ravel(order="F")])
    p.set(vec) if shape is None else p.set(vec, swig.VecUInt([int(s) for s in shape]))
    c._storage["parameters"].add_parameter(group, p)


def _check_frames(first: int, frames: int, path) -> None:
    last = first + frames - 1
    if last > C3D_MAX_FRAME:
        raise InputError(f"cannot write C3D: {frames} frames from frame {first} end at frame {last}, past the "
                         f"C3D limit of {C3D_MAX_FRAME} (16-bit frame numbers); the CSV results are written, "
                         "use --export opensim for a longer trial", path)


def write_c3d(path, *, frames: int, rate_hz: float, source=None, markers=None, markers_scale: float = 1.0,
              unit: str = "mm",
              first_frame: int = 1, blocks=(), events=(), platforms: Platforms | None = None,
              description: str = "humanbody", notes: list | None = None) -> str:
    """Write a C3D file atomically; return its path.

    Parameters
    ----------
    path : str or Path             the ``.c3d`` to write
    frames : int                   number of point frames
    rate_hz : float                point rate
    source : str or Path, optional a C3D trial: re-read with ezc3d and kept as it is
    markers : (labels, (frames, n, 3) float), optional
        markers of a trial that is not a C3D file, lab axes, in ``unit``
        times ``markers_scale`` (written divided by it)
    unit : {"mm", "cm", "m"}       ``POINT:UNITS`` when there is no ``source``
    first_frame : int              1-based number of the first frame (no ``source``)
    blocks : list of PointBlock    points to add
    events : list of (label, context, time_s)
        at most :data:`MAX_EVENTS` in the file with the source's (the earliest are kept)
    platforms : Platforms, optional
        force platforms to add (only when the source has none)
    notes : list, optional
        one line is appended here when events had to be left out

    Raises
    ------
    InputError
        Too many frames for the C3D format, a label clash with the
        source's markers, platforms for a source that has some, or the
        file cannot be written.
    """
    try:
        import ezc3d
    except ImportError:
        raise InputError("writing C3D needs the ezc3d package: pip install 'humanbody[c3d]'", path) from None
    path = os.fspath(path)
    if source is not None:
        c = ezc3d.c3d(os.fspath(source))
        first = int(c["header"]["points"]["first_frame"]) + 1
        _check_frames(first, c["data"]["points"].shape[2], path)
        if c["data"]["points"].shape[2] != frames:
            raise InputError(f"the source has {c['data']['points'].shape[2]} frames, the results {frames}", path)
    else:
        _check_frames(first_frame, frames, path)
        c = ezc3d.c3d()
        c["parameters"]["POINT"]["RATE"]["value"] = [float(rate_hz)]
        c["parameters"]["POINT"]["LABELS"]["value"] = ()
        c["data"]["points"] = np.zeros((4, 0, frames))
        c.add_parameter("POINT", "UNITS", unit)
        c["header"]["points"]["first_frame"] = int(first_frame) - 1
        c["data"]["meta_points"] = {"residuals": np.zeros((1, 0, frames)),
                                    "camera_masks": np.zeros((7, 0, frames), dtype=bool)}
        if markers is not None:  # the markers go first, as the points of the file
            blocks = [PointBlock("", list(markers[0]), markers[1], scale=markers_scale), *blocks]
    params = c["parameters"]
    existing, label_params = _labels(params)
    model_groups = {}
    for g in ("ANGLES", "FORCES", "MOMENTS", "POWERS", "SCALARS", "REACTIONS", "MODELLED"):
        if g in params["POINT"]:
            model_groups[g] = [str(x).strip() for x in params["POINT"][g]["value"]]
    outputs = {lab for v in model_groups.values() for lab in v}
    pts = c["data"]["points"]
    meta = c["data"]["meta_points"]
    new_labels, new_desc, take = [], [], []
    for b, block in enumerate(blocks):
        for j, (label, group) in enumerate(zip(block.labels, block.groups(), strict=True)):
            listed = model_groups.setdefault(group, []) if group else []
            if label in existing:
                if label not in outputs:
                    raise InputError(f"cannot add model output {label!r}: the source has a marker of that name", path)
                i = existing.index(label)  # a model output of an earlier run (Nexus or ours): ours replace it
                v = block.points()[:, j, :].T  # (3, frames)
                ok = np.isfinite(v).all(axis=0)
                pts[:3, i] = np.where(ok, v, np.nan)
                pts[3, i] = np.where(ok, 1.0, np.nan)
                meta["residuals"][0, i] = np.where(ok, 0.0, -1.0)
            else:
                new_labels.append(label)
                new_desc.append(block.descriptions[j] if j < len(block.descriptions) else "")
                take.append((b, j))
            if label not in listed:
                listed.append(label)
    data = _Points(pts, meta["residuals"], meta["camera_masks"], blocks, take)
    if new_labels:
        last = label_params[-1]
        params["POINT"][last]["value"] = list(params["POINT"][last]["value"]) + new_labels
        if "DESCRIPTIONS" in params["POINT"] and len(params["POINT"]["DESCRIPTIONS"]["value"]) == len(existing):
            params["POINT"]["DESCRIPTIONS"]["value"] = list(params["POINT"]["DESCRIPTIONS"]["value"]) + new_desc
    for g, listed in model_groups.items():
        if g and listed:
            c.add_parameter("POINT", g, listed)
    for g, u in (("ANGLE_UNITS", "deg"), ("FORCE_UNITS", "N/kg"), ("MOMENT_UNITS", "Nmm/kg"),
                 ("POWER_UNITS", "W/kg")):
        if any(g.split("_")[0] + "S" in b.groups() for b in blocks) and g not in params["POINT"]:
            c.add_parameter("POINT", g, u)
    if platforms is not None:
        _add_platforms(c, platforms, path)
    if events:
        dropped = _add_events(c, events, description)
        if dropped and notes is not None:
            notes.append(f"c3d export: the EVENT group holds at most {MAX_EVENTS} events; the {dropped} latest of "
                         f"{len(events)} gait events were left out of {os.path.basename(path)} (all are in the events "
                         "table of the report)")
    from ..atomic import atomic_path

    try:
        with atomic_path(path, suffix=".c3d") as tmp:
            if not _write_fast(c, tmp, data):
                c["data"]["points"], c["data"]["meta_points"] = data.arrays(slice(None))
                c.write(tmp)
    except OSError as err:
        raise InputError(f"cannot write the C3D file ({err.strerror or err})", path) from None
    return path


class _Points:
    """The points of the file: the source's (4, n0, frames) with their residuals and camera masks, then the new
    points of ``blocks`` (``take``: (block, label index) of each, in order), kept as the blocks hold them
    (frames first) until frames are asked for.

    A new point is what its block gives (:meth:`PointBlock.points`); one
    with a coordinate that is not finite is invalid (residual -1).
    """

    def __init__(self, pts, residuals, masks, blocks, take):
        self.src = (pts, residuals, masks)
        self.n0, self.k, self.frames = pts.shape[1], len(take), pts.shape[2]
        self.runs = []  # (block, first label, labels, first new index): consecutive labels of one block
        i = 0
        while i < self.k:
            b, j = take[i]
            r = 1
            while i + r < self.k and take[i + r] == (b, j + r):
                r += 1
            self.runs.append((blocks[b], j, r, i))
            i += r

    def _new(self, frames) -> np.ndarray:
        """The new points of ``frames`` (a slice or a list of indices), (f, k, 3)."""
        f = len(range(self.frames)[frames]) if isinstance(frames, slice) else len(frames)
        out = np.empty((f, self.k, 3))
        for block, j, r, i in self.runs:
            out[:, i:i + r] = block.points(frames, slice(j, j + r))
        return out

    def arrays(self, frames) -> tuple:
        """ezc3d's ``points`` (4, n, f) and ``meta_points`` of ``frames``."""
        pts, res, masks = (a[:, :, frames] for a in self.src)
        if not self.k:
            return pts, {"residuals": res, "camera_masks": masks}
        new = self._new(frames)
        ok = _valid(new).T  # (k, f)
        allp = np.empty((4, self.n0 + self.k, pts.shape[2]))
        allp[:, :self.n0] = pts
        allp[:3, self.n0:] = new.transpose(2, 1, 0)
        allp[3, self.n0:] = np.where(ok, 1.0, np.nan)
        return allp, {"residuals": np.concatenate([res, np.where(ok, 0.0, -1.0)[None]], axis=1),
                      "camera_masks": np.concatenate([masks, np.zeros((7,) + ok.shape, dtype=bool)], axis=1)}

    def first_invalid(self):
        """Index of the first frame holding an invalid point (a residual < 0 or a coordinate not finite), or
        None.  A block whose smallest and largest values are finite has no invalid point (a new point is
        judged before its axes and scale: an overflow there is not looked for)."""
        pts, res, _ = self.src
        bad = ((res[0] < 0) | ~np.isfinite(pts[:3]).all(axis=0)).any(axis=0) if self.n0 else None
        for block, j, r, _ in self.runs:
            v = block.values[:, j:j + r, :]
            if v.size and np.isfinite(np.min(v)) and np.isfinite(np.max(v)):
                continue
            more = ~_valid(np.asarray(v)).all(axis=1)
            bad = more if bad is None else bad | more
        where = np.flatnonzero(bad) if bad is not None else ()
        return int(where[0]) if len(where) else None

    def encode(self, frames, analogs, scales, sub: int) -> np.ndarray:
        """The float-format data rows (f, 4 points + channels x subframes) of ``frames`` (C3D User Guide ch. 3).

        A point is x, y, z and a word whose integer value holds the residual
        (high byte, in units of ``|POINT:SCALE|`` = 1) and the camera mask
        (low byte); an invalid point (residual < 0) is 0, 0, 0, -1.  Analog
        samples follow, subframe by subframe, each channel divided by its
        scale (the offset, 0, added: -0 is written as 0).  A new point's
        word is 0 (residual 0, no camera).
        """
        pts, residuals, masks = self.src
        n0, n = self.n0, self.n0 + self.k
        f = len(range(self.frames)[frames]) if isinstance(frames, slice) else len(frames)
        rows = np.empty((f, 4 * n + analogs.shape[1] * sub), dtype="<f4")
        pv = rows[:, :4 * n].reshape(f, n, 4)
        if n0:
            P = pts[:3][:, :, frames]  # (3, n0, f)
            res = residuals[0][:, frames]
            ok = res >= 0  # as ezc3d: a point is invalid by its residual; coordinates of a valid one as they are
            word = np.round(np.where(ok, res, 0.0)) * 256.0
            M = masks[:, :, frames]
            if M.any():
                for b in range(M.shape[0]):
                    word += np.where(M[b], float(1 << b), 0.0)
            pv[:, :n0, :3] = np.where(ok[None], P, 0.0).transpose(2, 1, 0)
            pv[:, :n0, 3] = np.where(ok, word, -1.0).T
        for block, j, r, i in self.runs:
            v = block.points(frames, slice(j, j + r))  # (f, r, 3)
            out = pv[:, n0 + i:n0 + i + r]
            with np.errstate(over="ignore"):  # beyond float32: inf, as ezc3d writes it
                out[..., :3] = v
            out[..., 3] = 0.0
            good = _valid(v)
            if not good.all():
                out[~good] = (0.0, 0.0, 0.0, -1.0)
        if analogs.shape[1]:
            idx: slice | np.ndarray
            if isinstance(frames, slice):
                idx = slice(frames.start * sub, frames.stop * sub)
            else:
                idx = (np.asarray(frames)[:, None] * sub + np.arange(sub)[None]).ravel()
            a = analogs[0][:, idx] / scales[:, None] + 0.0  # (channels, f * sub); + 0 turns -0 into 0, as ezc3d does
            rows[:, 4 * n:] = a.T.reshape(f, sub * analogs.shape[1])
        return rows


def _param_offset(raw: bytes, start: int, group: str, name: str):
    """Byte offset of the data of parameter ``group:name`` in a C3D parameter section, or None."""
    import struct

    pos, groups, found = start + 4, {}, []
    while pos + 2 < len(raw):
        n_len = abs(struct.unpack_from("b", raw, pos)[0])
        gid = struct.unpack_from("b", raw, pos + 1)[0]
        if n_len == 0:
            break
        label = raw[pos + 2:pos + 2 + n_len].decode("ascii", "replace")
        off_at = pos + 2 + n_len
        nxt = struct.unpack_from("<h", raw, off_at)[0]
        if gid < 0:
            groups[-gid] = label
        else:
            found.append((gid, label, off_at + 2))
        if nxt == 0:
            break
        pos = off_at + nxt
    for gid, label, at in found:
        if groups.get(gid) == group and label == name:
            ndim = raw[at + 1]
            return at + 2 + ndim, struct.unpack_from("b", raw, at)[0]
    return None


def _write_fast(c, path, data: _Points) -> bool:
    """Write the file by letting ezc3d write its header, parameters and a few probe frames, then the frames here.

    ezc3d converts every point and sample through its own objects (seconds
    for a long trial).  Here ezc3d writes the file with a few frames (the
    first and the first one holding an invalid point) beside ``path``;
    their bytes must equal :meth:`_Points.encode`'s rows for the same
    frames, else nothing is written and the caller lets ezc3d write
    everything.  Then the frame count is set in the header (last frame) and
    in ``POINT:FRAMES``, the block after the frames in
    ``ROTATION:DATA_START``, and ``path`` (empty) receives the header and
    all the frames, encoded a few megabytes at a time.  Returns whether the
    file was written.
    """
    import struct

    from ..atomic import open_temp

    F = data.frames
    if F < 4 or data.n0 + data.k == 0:
        return False
    an = c["data"]["analogs"]
    sub = an.shape[2] // F if an.size else 0
    bad = data.first_invalid()
    probe = sorted({0, bad} if bad is not None else {0, F - 1})
    c["data"]["points"], c["data"]["meta_points"] = data.arrays(probe)
    if sub:
        idx = (np.asarray(probe)[:, None] * sub + np.arange(sub)[None]).ravel()
        c["data"]["analogs"] = an[:, :, idx]
    probe_path = os.fspath(path)[:-len(".c3d")] + ".probe.c3d"
    try:
        c.write(probe_path)
        with open(probe_path, "rb") as fh:
            raw = fh.read()
    finally:
        c["data"]["analogs"] = an
        if os.path.exists(probe_path):
            os.remove(probe_path)
    words = struct.unpack_from("<12H", raw, 0)
    p_start = (raw[0] - 1) * 512
    if raw[1] != 0x50 or raw[p_start + 3] != 84 or struct.unpack_from("<f", raw, 12)[0] >= 0:
        return False  # not the little-endian float layout this encoder writes
    d_start = (words[8] - 1) * 512
    ana = c["parameters"]["ANALOG"]
    scales = np.asarray(ana["SCALE"]["value"], dtype=float).ravel() if an.size else np.ones(0)
    gen = float(np.ravel(ana["GEN_SCALE"]["value"])[0]) if "GEN_SCALE" in ana else 1.0
    scales = scales * gen
    if an.size and len(scales) != an.shape[1]:
        return False
    rows = data.encode(probe, an, scales, sub)
    size = rows.nbytes
    if raw[d_start:d_start + size] != rows.tobytes() or words[1] != data.n0 + data.k:
        return False
    at = _param_offset(raw, p_start, "POINT", "FRAMES")
    if at is None or at[1] != 2 or F > 65535:
        return False
    head = bytearray(raw[:d_start])
    first = words[3]
    struct.pack_into("<H", head, 8, first + F - 1)  # header word 5: last frame
    struct.pack_into("<H", head, at[0], F)
    rot = _param_offset(raw, p_start, "ROTATION", "DATA_START")  # ezc3d's block after the frames
    if rot is not None and rot[1] == 2:
        # ezc3d's value: data start + whole blocks of frames + 1, kept to 16 bits (no rotations follow)
        struct.pack_into("<H", head, rot[0], (words[8] + F * rows.shape[1] * 4 // 512 + 1) % 65536)
    with open_temp(path) as fh:  # the empty file of atomic_path, not truncated (see open_temp)
        fh.write(head)
        step = max(1, (1 << 22) // max(1, rows.shape[1] * 4))
        for a in range(0, F, step):
            fh.write(data.encode(slice(a, min(F, a + step)), an, scales, sub).data.cast("B"))
        written = F * rows.shape[1] * 4
        fh.write(b"\0" * (512 - written % 512))  # as ezc3d: up to the next block, a whole one after an exact fit
    return True


#: Most events a C3D EVENT group holds: each dimension of a parameter is one byte, so TIMES (2, n),
#: LABELS and CONTEXTS take at most 255 entries (readers refuse a file that claims more).
MAX_EVENTS = 255


def _add_events(c, events, description: str) -> int:
    """Append ``(label, context, time_s)`` events to the EVENT group in one pass (ezc3d's ``add_event``
    rewrites the group for every event: quadratic in their number).

    At most :data:`MAX_EVENTS` events in all: the earliest of ``events`` are kept.  Returns how many
    were left out.
    """
    ev = c["parameters"].get("EVENT", {})

    def old(name, default):
        return list(ev[name]["value"]) if name in ev else default

    n_old = int(np.ravel(ev["USED"]["value"])[0]) if "USED" in ev else 0
    room = max(0, MAX_EVENTS - n_old)
    dropped = max(0, len(events) - room)
    events = sorted(events, key=lambda e: e[2])[:room] if dropped else events
    if not events:
        return dropped
    times = np.asarray(ev["TIMES"]["value"], dtype=float).reshape(2, -1)[:, :n_old] if n_old else np.zeros((2, 0))
    new = np.array([[0.0] * len(events), [float(t) for _, _, t in events]])
    c.add_parameter("EVENT", "USED", n_old + len(events))
    c.add_parameter("EVENT", "TIMES", np.concatenate([times, new], axis=1))
    c.add_parameter("EVENT", "CONTEXTS", old("CONTEXTS", [])[:n_old] + [e[1] for e in events])
    c.add_parameter("EVENT", "LABELS", old("LABELS", [])[:n_old] + [e[0] for e in events])
    c.add_parameter("EVENT", "DESCRIPTIONS", (old("DESCRIPTIONS", []) + [""] * n_old)[:n_old]
                    + [description] * len(events))
    c.add_parameter("EVENT", "SUBJECTS", (old("SUBJECTS", []) + [""] * n_old)[:n_old] + [""] * len(events))
    c.add_parameter("EVENT", "ICON_IDS", (old("ICON_IDS", []) + [0] * n_old)[:n_old] + [0] * len(events))
    c.add_parameter("EVENT", "GENERIC_FLAGS", (old("GENERIC_FLAGS", []) + [0] * n_old)[:n_old] + [0] * len(events))
    return dropped


def _add_platforms(c, plates: Platforms, path) -> None:
    """Append the platforms' channels and a FORCE_PLATFORM group (the source must have none)."""
    params = c["parameters"]
    fp = params.get("FORCE_PLATFORM", {})
    if fp and int(np.asarray(fp.get("USED", {}).get("value", [0])).ravel()[0]) > 0:
        raise InputError("the C3D trial has force platforms of its own; the loads file is not added", path)
    an = c["data"]["analogs"]
    n_old = an.shape[1] if an.size else 0
    samples = plates.analogs.shape[1]
    if n_old and an.shape[2] != samples:
        raise InputError("the loads cannot be added at the analog rate of the C3D trial", path)
    new = plates.analogs[None]
    c["data"]["analogs"] = np.concatenate([an, new], axis=1) if n_old else new
    if not n_old:
        params["ANALOG"]["RATE"]["value"] = [float(plates.rate_hz)]
    labels, _ = _labels(params, "ANALOG")
    params["ANALOG"]["LABELS"]["value"] = labels[:n_old] + list(plates.labels)
    units = list(params["ANALOG"]["UNITS"]["value"]) if "UNITS" in params["ANALOG"] else []
    c.add_parameter("ANALOG", "UNITS", (units + [""] * n_old)[:n_old] + list(plates.units))
    scale = list(np.asarray(params["ANALOG"]["SCALE"]["value"], dtype=float)) if "SCALE" in params["ANALOG"] else []
    params["ANALOG"]["SCALE"]["value"] = np.array((scale + [1.0] * n_old)[:n_old] + [1.0] * len(plates.labels))
    L = len(plates.corners)
    c.add_parameter("FORCE_PLATFORM", "USED", L)
    _int_param(c, "FORCE_PLATFORM", "TYPE", [2] * L)
    _int_param(c, "FORCE_PLATFORM", "ZERO", [1, 0])
    c.add_parameter("FORCE_PLATFORM", "CORNERS", np.transpose(plates.corners, (2, 1, 0)))
    c.add_parameter("FORCE_PLATFORM", "ORIGIN", np.zeros((3, L)))
    ch = (n_old + 1 + np.arange(6 * L)).reshape(L, 6).T  # (6, plates), 1-based
    _int_param(c, "FORCE_PLATFORM", "CHANNEL", ch, (6, L))

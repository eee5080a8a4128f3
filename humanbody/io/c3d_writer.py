"""C3D output: the input trial's data untouched, our results added as Vicon Nexus writes model outputs.

:func:`write_c3d` writes one C3D file from one model of it: the groups and
typed parameters (:mod:`humanbody.io.c3d_params`), the points (with their
residuals and camera masks) and the analog channels.  From a C3D trial the
model is the source file as read: every group and parameter (name, type,
dimensions, values, description, locked flag), the header's events, the
points and analogs as ezc3d reads them.  From a TRC or CSV trial it holds
the markers as read (lab axes, the file's length unit), and, given a loads
table, analog channels with a ``FORCE_PLATFORM`` group of type 2 that
reproduces the loads (:func:`platform_channels`).

Our outputs are appended as points in Nexus's model-output groups
(``POINT:ANGLES``, ``MOMENTS``, ``POWERS``, ``FORCES``) and modelled
points (``POINT:MODELLED``, a humanbody parameter our reader leaves out
like the groups above); gait events go into the ``EVENT`` group.  Past 255
points the labels and descriptions continue in ``LABELS2``,
``DESCRIPTIONS2``, ... as Vicon writes them.  The mapping from the results
columns to the Plug-in Gait names and signs is :mod:`humanbody.export`
(docs/formats.md, "C3D export").

The file is written in one pass, Intel floating-point format: the header,
the parameter section laid out from the model (every offset computed from
the records written, :func:`humanbody.io.c3d_params.layout_parameters`),
then the frames.  The parameters that describe the layout are set from it
(``POINT:USED``, ``POINT:DATA_START``, ``POINT:FRAMES``, ``ANALOG:USED``;
``POINT:SCALE`` becomes negative, the sign of float data, keeping its
magnitude, the unit of the residuals).  Analog samples are written so that
a reader applying the file's ``ANALOG:SCALE``, ``GEN_SCALE`` and ``OFFSET``
gets the values back.

The classic C3D header counts frames in 16-bit words: ``last frame =
first frame + frames - 1`` must be at most 65535; a longer trial is an
:class:`~humanbody.errors.InputError` before anything is written.
"""

from __future__ import annotations

import os
import struct
from dataclasses import dataclass, field

import numpy as np

from ..atomic import atomic_path, open_temp
from ..errors import InputError
from .c3d_params import Parameter, ParameterError, ParameterGroup, layout_parameters, parse_parameters, split_lists

__all__ = ["C3D_MAX_FRAME", "C3DModel", "Platforms", "PointBlock", "platform_channels", "write_c3d"]

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
        """The group of each label.

        Returns
        -------
        list of str
            One group name per label.
        """
        return [self.group] * len(self.labels) if isinstance(self.group, str) else list(self.group)

    def points(self, frames=slice(None), labels=slice(None)) -> np.ndarray:
        """What the file receives for ``frames`` and ``labels`` (slices or index lists): (f, n, 3) float64.

        Parameters
        ----------
        frames : slice or list of int, default all
            The frames.
        labels : slice or list of int, default all
            The labels.

        Returns
        -------
        numpy.ndarray
            (f, n, 3) the points in the file's axes and unit (``values @ axes.T / scale``).
        """
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
    time : ndarray, shape (T,), s
        The loads' samples.
    force, point, moment : ndarray, shape (T, L, 3)
        Ground reaction on the subject (N), its point of application (m,
        NaN while unloaded) and the free moment about it (N·m), ground axes
        (X forward, Y left, Z up).
    frame_time : ndarray, shape (F,), s
        The point frames; the analogs cover them at ``samples_per_frame`` samples a frame.
    lab_of_ground : ndarray, shape (3, 3)
        Lab components = ``lab_of_ground @ ground``.
    unit_scale : float
        Metres per unit of the points (0.001 for mm).
    samples_per_frame : int
        Analog samples per point frame.
    names : sequence of str, optional
        The plates' names for the channel labels (default ``plate1`` ...).

    Notes
    -----
    Each plate's axes are the ground axes (x forward, y left, z up: the
    corners are ordered so, corner 1 at +x +y), its surface at the median
    height of the loaded points, its centre C the middle of the points'
    extent.  The channels are F and the moment about C, ``M_C = (P - C) x F
    + M``, in the plate's axes (N and N·unit).  A reader of type-2 plates
    (ezc3d) finds the centre of pressure ``C + (-M_Cy / F_z, M_Cx / F_z)``
    and the free moment about the vertical: the same wrench.  Loads are
    linearly interpolated onto the analog samples and zero outside their
    time span.

    Returns
    -------
    Platforms
        ``6 L`` channels (Fx Fy Fz in N, Mx My Mz in N·unit, plate by plate) at ``samples_per_frame`` samples a
        frame, their labels (``<name>_Fx`` ...) and units, the plates' corners (L, 4, 3) in lab axes and the
        points' unit, and the analog rate (Hz).
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



# ------------------------------------------------------------------ the model of the file
@dataclass(eq=False)
class C3DModel:
    """One C3D file: header (512 bytes, Intel), groups of parameters, points and analogs.

    groups : {name: ParameterGroup}          :mod:`humanbody.io.c3d_params`
    points : (4, n, F) float        x, y, z (file units) and 1 / NaN, as ezc3d gives them
    residuals : (1, n, F) float     residual of each point (< 0: invalid), file units
    masks : (7, n, F) bool          camera masks
    analogs : (1, channels, F * sub) float  the channels in their units (scale and offset applied)
    first_frame : int               1-based number of the first frame
    """

    header: bytearray
    groups: dict
    points: np.ndarray
    residuals: np.ndarray
    masks: np.ndarray
    analogs: np.ndarray
    first_frame: int

    @classmethod
    def read(cls, path) -> C3DModel:
        """The model of a C3D file: parameters by :func:`~humanbody.io.c3d_params.parse_parameters`, the
        frames by ezc3d.

        Parameters
        ----------
        path : str or os.PathLike
            The C3D file.

        Returns
        -------
        C3DModel
            Its header (kept for an Intel file), groups, points, residuals, camera masks and analogs.

        Raises
        ------
        InputError  an unreadable file, or one holding rotations (a section this writer does not carry).
        """
        import ezc3d  # optional dependency (humanbody[c3d])

        with open(os.fspath(path), "rb") as fh:
            raw = fh.read()
        try:
            groups, proc = parse_parameters(raw, (raw[0] - 1) * 512)
            c = ezc3d.c3d(os.fspath(path))
        except (ParameterError, RuntimeError, IndexError, ValueError) as err:
            raise InputError(f"is not a readable C3D file ({err})", path) from None
        rot = groups.get("ROTATION")
        if rot is not None and "USED" in rot.params and int(np.ravel(rot.params["USED"].value)[0]) > 0:
            raise InputError("holds a ROTATION section, which the C3D writer does not carry over", path)
        header = bytearray(512)
        if proc == 84:  # the reserved words and the header's events, as the source holds them
            header[:] = raw[:512]
        meta = c["data"]["meta_points"]
        return cls(header, groups, np.asarray(c["data"]["points"], dtype=float),
                   np.asarray(meta["residuals"], dtype=float), np.asarray(meta["camera_masks"], dtype=bool),
                   np.asarray(c["data"]["analogs"], dtype=float), int(c["header"]["points"]["first_frame"]) + 1)

    @classmethod
    def new(cls, frames: int, rate_hz: float, unit: str, first_frame: int) -> C3DModel:
        """An empty model: POINT (rate, unit, no labels) and ANALOG (no channels) groups.

        Parameters
        ----------
        frames : int
            Number of point frames.
        rate_hz : float
            Point and analog rate (Hz).
        unit : str
            ``POINT:UNITS`` ("mm", "cm", "m").
        first_frame : int
            1-based number of the first frame.

        Returns
        -------
        C3DModel
            A model with no points and no analog channels.
        """
        point = ParameterGroup("POINT", 1, "3-D point parameters")
        for p in (Parameter.of("USED", np.int16(0)), Parameter.of("SCALE", np.float32(-1.0)),
                  Parameter.of("RATE", np.float32(rate_hz)), Parameter.of("DATA_START", np.int16(0)),
                  Parameter.of("FRAMES", np.int16(0)), Parameter.of("LABELS", [], type=-1),
                  Parameter.of("DESCRIPTIONS", [], type=-1), Parameter.of("UNITS", unit)):
            point.params[p.name] = p
        analog = ParameterGroup("ANALOG", 2, "analog data parameters")
        for p in (Parameter.of("USED", np.int16(0)), Parameter.of("LABELS", [], type=-1),
                  Parameter.of("DESCRIPTIONS", [], type=-1), Parameter.of("GEN_SCALE", np.float32(1.0)),
                  Parameter.of("SCALE", np.zeros(0, dtype=np.float32)),
                  Parameter.of("OFFSET", np.zeros(0, dtype=np.int16)), Parameter.of("UNITS", [], type=-1),
                  Parameter.of("RATE", np.float32(rate_hz))):
            analog.params[p.name] = p
        return cls(bytearray(512), {"POINT": point, "ANALOG": analog}, np.zeros((4, 0, frames)),
                   np.zeros((1, 0, frames)), np.zeros((7, 0, frames), dtype=bool), np.zeros((1, 0, frames)),
                   int(first_frame))

    def group(self, name: str) -> ParameterGroup:
        """The group ``name``, added (next id) when missing.

        Parameters
        ----------
        name : str
            The group's name.

        Returns
        -------
        ParameterGroup
            The group (the model's own, changed in place by the caller).
        """
        if name not in self.groups:
            self.groups[name] = ParameterGroup(name, max([g.gid for g in self.groups.values()] + [0]) + 1)
        return self.groups[name]

    def get(self, group: str, name: str, default=None):
        """The value of ``group:name`` (:attr:`Parameter.value`), or ``default``.

        Parameters
        ----------
        group, name : str
            The parameter's group and name.
        default : object, optional
            What to return when it is missing.

        Returns
        -------
        list of str or numpy.ndarray or object
            The value, or ``default``.
        """
        g = self.groups.get(group)
        return g.params[name].value if g is not None and name in g.params else default

    def set(self, group: str, name: str, values, type: int | None = None) -> None:
        """Set ``group:name`` to ``values``; an existing parameter keeps its type (unless ``type``), its
        description and its locked flag.

        Parameters
        ----------
        group, name : str
            The parameter's group (added when missing) and name.
        values : str, list of str, number or array
            What it holds (:meth:`Parameter.of`).
        type : int, optional
            C3D type (-1 char, 1 byte, 2 int16, 4 float).
        """
        g = self.group(group)
        old = g.params.get(name)
        if type is None and old is not None and old.type != -1 and not isinstance(values, (str, list)):
            type = old.type
        p = Parameter.of(name, values, type=type)
        if old is not None:
            p.description, p.locked = old.description, old.locked
        g.params[name] = p

    def texts(self, group: str, base: str) -> list:
        """A list continued over ``base``, ``base2``, ... (stripped).

        Parameters
        ----------
        group : str
            The group.
        base : str
            The first parameter's name (``LABELS``, ...).

        Returns
        -------
        list of str
            The entries of ``base``, ``base2``, ... in order (empty when there is none).
        """
        out: list = []
        for k in range(1, 100):
            v = self.get(group, base if k == 1 else f"{base}{k}")
            if v is None:
                break
            out += [str(x).strip() for x in v]
        return out

    def set_texts(self, group: str, base: str, texts: list) -> None:
        """Set a list over ``base``, ``base2``, ... (255 entries each), keeping the char width of ``base``.

        Parameters
        ----------
        group : str
            The group (added when missing).
        base : str
            The first parameter's name.
        texts : list of str
            The entries.
        """
        g = self.group(group)
        width = g.params[base].dims[0] if base in g.params and g.params[base].dims else 1
        split_lists(g, base, list(texts))
        for k in range(1, 100):
            p = g.params.get(base if k == 1 else f"{base}{k}")
            if p is None:
                break
            if p.dims and p.dims[0] < width and len(p.dims) == 2:
                n = p.dims[1]
                codes = np.asarray(p.data, dtype=np.uint8).reshape(n, p.dims[0])
                padded = np.full((n, width), 32, dtype=np.uint8)
                padded[:, :p.dims[0]] = codes
                p.dims, p.data = (width, n), padded.ravel()

    def write(self, path, data: _Points) -> None:
        """Write the file (Intel float format) at ``path`` (an empty file, see :func:`humanbody.atomic.open_temp`).

        Parameters
        ----------
        path : str or os.PathLike
            The file to write (made empty by the caller's atomic path).
        data : _Points
            The points to write (the source's, then the blocks').

        Raises
        ------
        InputError
            Analog samples that are not a whole number per frame, more than 65535 values a frame, or a parameter
            past the format's limits.
        """
        F, n = data.frames, data.n0 + data.k
        an = self.analogs
        channels = an.shape[1] if an.size else 0
        sub = an.shape[2] // F if channels and F else 0
        if channels and sub * F != an.shape[2]:
            raise InputError(f"the analog channels hold {an.shape[2]} samples, not a whole number per frame "
                             f"({F} frames)", path)
        if n > 65535 or channels * sub > 65535:
            raise InputError("cannot write C3D: more than 65535 points or analog samples a frame", path)
        scale = abs(float(np.ravel(self.get("POINT", "SCALE", [-1.0]))[0])) or 1.0
        rate = float(np.ravel(self.get("POINT", "RATE", [0.0]))[0])
        self.set("POINT", "USED", n, type=2)
        self.set("POINT", "SCALE", np.float32(-scale), type=4)
        frames_type = self.groups["POINT"].params["FRAMES"].type if "FRAMES" in self.groups["POINT"].params else 2
        self.set("POINT", "FRAMES", F, type=frames_type if frames_type in (2, 4) else 2)
        self.set("POINT", "DATA_START", np.int16(0), type=2)
        if "ANALOG" in self.groups or channels:
            self.set("ANALOG", "USED", np.int16(channels), type=2)
        gen = float(np.ravel(self.get("ANALOG", "GEN_SCALE", [1.0]))[0]) if channels else 1.0
        scales = np.ones(channels)
        offsets = np.zeros(channels)
        if channels:
            s = np.ravel(np.asarray(self.get("ANALOG", "SCALE", []), dtype=float))
            o = np.ravel(np.asarray(self.get("ANALOG", "OFFSET", []), dtype=float))
            if len(s) < channels or len(o) < channels:
                self.set("ANALOG", "SCALE", np.concatenate([s, np.ones(channels - len(s))])[:channels].astype(
                    np.float32) if len(s) < channels else s.astype(np.float32), type=4)
                self.set("ANALOG", "OFFSET", np.concatenate([o, np.zeros(channels - len(o))])[:channels].astype(
                    np.int16) if len(o) < channels else o.astype(np.int16), type=2)
                s = np.ravel(np.asarray(self.get("ANALOG", "SCALE"), dtype=float))
                o = np.ravel(np.asarray(self.get("ANALOG", "OFFSET"), dtype=float))
            scales = s[:channels] * gen
            offsets = o[:channels]
        try:
            section = layout_parameters(self.groups)
            blocks = len(section) // 512
            self.set("POINT", "DATA_START", np.int16(2 + blocks), type=2)
            section = layout_parameters(self.groups)
        except ParameterError as err:
            raise InputError(f"cannot write C3D: {err}", path) from None
        head = self.header
        head[0], head[1] = 2, 0x50
        struct.pack_into("<5H", head, 2, n, channels * sub, self.first_frame, self.first_frame + F - 1,
                         struct.unpack_from("<H", head, 10)[0] or 10)
        struct.pack_into("<f", head, 12, -scale)
        struct.pack_into("<2H", head, 16, 2 + blocks, sub)
        struct.pack_into("<f", head, 20, rate)
        per_row = 4 * n + channels * sub
        with open_temp(path) as fh:  # the empty file of atomic_path, not truncated (see open_temp)
            fh.write(bytes(head))
            fh.write(section)
            step = max(1, (1 << 22) // max(1, per_row * 4))
            for a in range(0, F, step):
                fh.write(data.encode(slice(a, min(F, a + step)), an, scales, offsets, sub, scale).data.cast("B"))
            written = F * per_row * 4
            fh.write(b"\0" * (-written % 512))  # up to the end of the last block


def _check_frames(first: int, frames: int, path) -> None:
    last = first + frames - 1
    if last > C3D_MAX_FRAME:
        raise InputError(f"cannot write C3D: {frames} frames from frame {first} end at frame {last}, past the "
                         f"C3D limit of {C3D_MAX_FRAME} (16-bit frame numbers); the CSV results are written, "
                         "use `export` opensim for a longer trial", path)


_MODEL_GROUPS = ("ANGLES", "FORCES", "MOMENTS", "POWERS", "SCALARS", "REACTIONS", "MODELLED")


def write_c3d(path, *, frames: int, rate_hz: float, source=None, markers=None, markers_scale: float = 1.0,
              unit: str = "mm",
              first_frame: int = 1, blocks=(), events=(), platforms: Platforms | None = None,
              description: str = "humanbody", notes: list | None = None) -> str:
    """Write a C3D file atomically; return its path.

    Parameters
    ----------
    path : str or Path
        The ``.c3d`` to write.
    frames : int
        Number of point frames.
    rate_hz : float
        Point rate (Hz).
    source : str or Path, optional
        A C3D trial: read (:meth:`C3DModel.read`) and kept as it is.
    markers : (labels, (frames, n, 3) float), optional
        markers of a trial that is not a C3D file, lab axes, in ``unit``
        times ``markers_scale`` (written divided by it)
    markers_scale : float
        Factor the markers were multiplied by (they are written divided by it).
    unit : {"mm", "cm", "m"}
        ``POINT:UNITS`` when there is no ``source``.
    first_frame : int
        1-based number of the first frame (no ``source``).
    blocks : list of PointBlock
        Points to add.
    events : list of (label, context, time_s)
        at most :data:`MAX_EVENTS` in the file with the source's (the earliest are kept)
    platforms : Platforms, optional
        force platforms to add (only when the source has none)
    notes : list, optional
        one line is appended here when events had to be left out

    Returns
    -------
    str
        ``path`` (as str).

    Raises
    ------
    InputError
        Too many frames for the C3D format, a label clash with the
        source's markers, platforms for a source that has some, a
        parameter past the format's limits, or the file cannot be written.
    """
    try:
        import ezc3d  # noqa: F401 - optional dependency (humanbody[c3d]): the source is read through it
    except ImportError:
        raise InputError("writing C3D needs the ezc3d package: pip install 'humanbody[c3d]'", path) from None
    path = os.fspath(path)
    model, blocks = _model(path, frames, rate_hz, source, markers, markers_scale, unit, first_frame, blocks)
    data = _place_points(model, blocks, path)
    for g, u in (("ANGLE_UNITS", "deg"), ("FORCE_UNITS", "N/kg"), ("MOMENT_UNITS", "Nmm/kg"),
                 ("POWER_UNITS", "W/kg")):
        if any(g.split("_")[0] + "S" in b.groups() for b in blocks) and model.get("POINT", g) is None:
            model.set("POINT", g, u)
    if platforms is not None:
        _add_platforms(model, platforms, path)
    if events:
        dropped = _add_events(model, events, description)
        if dropped and notes is not None:
            notes.append(f"c3d export: the EVENT group holds at most {MAX_EVENTS} events; the {dropped} latest of "
                         f"{len(events)} gait events were left out of {os.path.basename(path)} (all are in the events "
                         "table of the report)")
    try:
        with atomic_path(path, suffix=".c3d") as tmp:
            model.write(tmp, data)
    except OSError as err:
        raise InputError(f"cannot write the C3D file ({err.strerror or err})", path) from None
    return path


def _model(path: str, frames: int, rate_hz: float, source, markers, markers_scale: float, unit: str,
           first_frame: int, blocks) -> tuple[C3DModel, list]:
    """The model to write and the point blocks to add: the source C3D as read (its frame count must be the
    results'), or a new model whose first points are the trial's ``markers``."""
    if source is not None:
        model = C3DModel.read(source)
        _check_frames(model.first_frame, model.points.shape[2], path)
        if model.points.shape[2] != frames:
            raise InputError(f"the source has {model.points.shape[2]} frames, the results {frames}", path)
        return model, list(blocks)
    _check_frames(first_frame, frames, path)
    model = C3DModel.new(frames, rate_hz, unit, first_frame)
    if markers is not None:  # the markers go first, as the points of the file
        return model, [PointBlock("", list(markers[0]), markers[1], scale=markers_scale), *blocks]
    return model, list(blocks)


def _place_points(model: C3DModel, blocks, path: str) -> _Points:
    """Give every label of ``blocks`` its point: a model output of an earlier run (Nexus or ours) is
    replaced in place, a new label is appended to ``POINT:LABELS`` (and ``DESCRIPTIONS``); each label is
    listed in its model-output group (``POINT:ANGLES`` ...).  A label of one of the source's markers is an
    InputError.  Returns the points to write."""
    existing = model.texts("POINT", "LABELS")[:model.points.shape[1]]
    model_groups = {g: [str(x).strip() for x in model.get("POINT", g)] for g in _MODEL_GROUPS
                    if model.get("POINT", g) is not None}
    outputs = {lab for v in model_groups.values() for lab in v}
    pts, res = model.points, model.residuals
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
                res[0, i] = np.where(ok, 0.0, -1.0)
            else:
                new_labels.append(label)
                new_desc.append(block.descriptions[j] if j < len(block.descriptions) else "")
                take.append((b, j))
            if label not in listed:
                listed.append(label)
    data = _Points(pts, res, model.masks, blocks, take)
    if new_labels:
        descriptions = model.texts("POINT", "DESCRIPTIONS")
        model.set_texts("POINT", "LABELS", existing + new_labels)
        if len(descriptions) == len(existing):
            model.set_texts("POINT", "DESCRIPTIONS", descriptions + new_desc)
    for g, listed in model_groups.items():
        if g and listed and [str(x).strip() for x in (model.get("POINT", g) or [])] != listed:
            model.set("POINT", g, listed)
    return data


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

    def encode(self, frames, analogs, scales, offsets, sub: int, res_unit: float = 1.0) -> np.ndarray:
        """The float-format data rows (f, 4 points + channels x subframes) of ``frames`` (C3D User Guide ch. 3).

        A point is x, y, z and a word whose integer value holds the residual
        (high byte, in units of ``res_unit`` = ``|POINT:SCALE|``) and the
        camera mask (low byte); an invalid point (residual < 0) is 0, 0, 0,
        -1.  Analog samples follow, subframe by subframe, each channel
        divided by its scale (``scales``: SCALE x GEN_SCALE) plus its offset
        (-0 is written as 0).  A new point's word is 0 (residual 0, no camera).
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
            word = np.clip(np.round(np.where(ok, res, 0.0) / res_unit), 0, 255) * 256.0
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
            safe = np.where(scales != 0, scales, 1.0)[:, None]
            a = np.where(scales[:, None] != 0, analogs[0][:, idx] / safe, 0.0) + offsets[:, None] + 0.0  # + 0: -0 -> 0
            rows[:, 4 * n:] = a.T.reshape(f, sub * analogs.shape[1])
        return rows



#: Most events a C3D EVENT group holds: each dimension of a parameter is one byte, so TIMES (2, n),
#: LABELS and CONTEXTS take at most 255 entries (readers refuse a file that claims more).
MAX_EVENTS = 255


def _add_events(model: C3DModel, events, description: str) -> int:
    """Append ``(label, context, time_s)`` events to the EVENT group, each parameter keeping its type
    (Vicon: ``ICON_IDS`` int16, ``GENERIC_FLAGS`` byte), description and locked flag.

    At most :data:`MAX_EVENTS` events in all: the earliest of ``events`` are kept.  Returns how many
    were left out.
    """
    ev = model.groups.get("EVENT")

    def old(name, default):
        return list(np.ravel(model.get("EVENT", name))) if ev is not None and name in ev.params else default

    def texts(name):
        return model.texts("EVENT", name) if ev is not None and name in ev.params else []

    n_old = int(np.ravel(model.get("EVENT", "USED"))[0]) if ev is not None and "USED" in ev.params else 0
    room = max(0, MAX_EVENTS - n_old)
    dropped = max(0, len(events) - room)
    events = sorted(events, key=lambda e: e[2])[:room] if dropped else events
    if not events:
        return dropped
    times = (np.asarray(model.get("EVENT", "TIMES"), dtype=float).reshape(2, -1, order="F")[:, :n_old] if n_old
             else np.zeros((2, 0)))
    new = np.array([[0.0] * len(events), [float(t) for _, _, t in events]])
    k = len(events)
    model.set("EVENT", "USED", np.int16(n_old + k))
    model.set("EVENT", "TIMES", np.concatenate([times, new], axis=1).astype(np.float32), type=4)
    model.set_texts("EVENT", "CONTEXTS", (texts("CONTEXTS") + [""] * n_old)[:n_old] + [e[1] for e in events])
    model.set_texts("EVENT", "LABELS", (texts("LABELS") + [""] * n_old)[:n_old] + [e[0] for e in events])
    model.set_texts("EVENT", "DESCRIPTIONS", (texts("DESCRIPTIONS") + [""] * n_old)[:n_old] + [description] * k)
    model.set_texts("EVENT", "SUBJECTS", (texts("SUBJECTS") + [""] * n_old)[:n_old] + [""] * k)
    model.set("EVENT", "ICON_IDS", np.array((old("ICON_IDS", []) + [0] * n_old)[:n_old] + [0] * k, dtype=np.int16))
    model.set("EVENT", "GENERIC_FLAGS", np.array((old("GENERIC_FLAGS", []) + [0] * n_old)[:n_old] + [0] * k,
                                                 dtype=np.int16),
              type=None if ev is not None and "GENERIC_FLAGS" in ev.params else 1)
    return dropped


def _add_platforms(model: C3DModel, plates: Platforms, path) -> None:
    """Append the platforms' channels and a FORCE_PLATFORM group (the source must have none)."""
    used = model.get("FORCE_PLATFORM", "USED")
    if used is not None and len(np.ravel(used)) and int(np.ravel(used)[0]) > 0:
        raise InputError("the C3D trial has force platforms of its own; the loads file is not added", path)
    an = model.analogs
    n_old = an.shape[1] if an.size else 0
    samples = plates.analogs.shape[1]
    if n_old and an.shape[2] != samples:
        raise InputError("the loads cannot be added at the analog rate of the C3D trial", path)
    new = plates.analogs[None]
    model.analogs = np.concatenate([an, new], axis=1) if n_old else new
    if not n_old:
        model.set("ANALOG", "RATE", np.float32(plates.rate_hz), type=4)
    n = len(plates.labels)
    model.set_texts("ANALOG", "LABELS", (model.texts("ANALOG", "LABELS") + [""] * n_old)[:n_old] + list(plates.labels))
    model.set_texts("ANALOG", "UNITS", (model.texts("ANALOG", "UNITS") + [""] * n_old)[:n_old] + list(plates.units))
    desc = model.texts("ANALOG", "DESCRIPTIONS")
    if len(desc) == n_old:
        model.set_texts("ANALOG", "DESCRIPTIONS", desc + [""] * n)
    gen = float(np.ravel(model.get("ANALOG", "GEN_SCALE", [1.0]))[0]) or 1.0
    scale = list(np.ravel(np.asarray(model.get("ANALOG", "SCALE", []), dtype=float)))
    offset = list(np.ravel(np.asarray(model.get("ANALOG", "OFFSET", []), dtype=float)))
    model.set("ANALOG", "SCALE", np.array((scale + [1.0] * n_old)[:n_old] + [1.0 / gen] * n, dtype=np.float32),
              type=4)
    model.set("ANALOG", "OFFSET", np.array((offset + [0] * n_old)[:n_old] + [0] * n, dtype=np.int16), type=2)
    L = len(plates.corners)
    model.set("FORCE_PLATFORM", "USED", np.int16(L))
    model.set("FORCE_PLATFORM", "TYPE", np.full(L, 2, dtype=np.int16))
    model.set("FORCE_PLATFORM", "ZERO", np.array([1, 0], dtype=np.int16))
    model.set("FORCE_PLATFORM", "CORNERS", np.transpose(plates.corners, (2, 1, 0)).astype(np.float32), type=4)
    model.set("FORCE_PLATFORM", "ORIGIN", np.zeros((3, L), dtype=np.float32), type=4)
    ch = (n_old + 1 + np.arange(6 * L)).reshape(L, 6).T  # (6, plates), 1-based
    model.set("FORCE_PLATFORM", "CHANNEL", ch.astype(np.int16), type=2)

"""Loads on the motion's frames: conditioning of a :class:`~humanbody.io.loads.LoadTable`.

Loads are carried as the equivalent wrench about the ground origin,
``(F, M_O = P x F + M)``: both are continuous through contact and lift-off
(zero while unloaded), so they can be low-pass filtered and resampled without
the centre-of-pressure artefacts at contact, and the moment about any point Q
is ``M_O - Q x F``.

Conditioning (:func:`condition_loads`): below a vertical-force threshold a
load is zero; the wrench is low-passed (zero-phase Butterworth, by default the
markers' cut-off: matched cut-offs avoid artefactual joint-moment peaks at
contact, Bisseling and Hof 2006, Kristianslund et al. 2012) and resampled to
the frames of the motion.  The files are read by :func:`humanbody.io.loads.read_loads`;
the loads go to segments in :mod:`humanbody.mechanics.foot_contact`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import LOADS, NOTE, ROUTINE, SAMPLING, InputError, Note
from ..io.forceplates import plate_from_points
from ..io.loads import FORCE_THRESHOLD, LoadTable
from ..signal import CUTOFF_HZ
from ..signal.filters import butterworth_sos

__all__ = ["FrameLoads", "condition_loads"]

@dataclass(eq=False)
class FrameLoads:
    """Conditioned loads on the motion's frames, ground axes.

    Attributes
    ----------
    names : list of str
    force : (F, L, 3) N;  moment_o : (F, L, 3) N·m about the ground origin
    cop : (F, L, 3) m   centre of pressure on the plate's surface, in 3-D (NaN while unloaded)
    body : (F, L) int   segment index each load acts on per frame; -1 none (unloaded or
                        unassigned), -2 ambiguous (kinetics NaN there)
    shared : (F, L, 2) int, optional
                        in an ambiguous frame, the two feet on the load's plate: only their
                        kinetics (and those of the segments below them in the tree) are NaN;
                        -1 elsewhere.  Without it an ambiguous frame is NaN for every segment.
    plates : list of PlateGeometry, optional   each load's plate surface
    unloaded : list of str
                        feet (segment names) no load reached in any frame: their side's kinetics
                        are NaN (the ground reaction on them was not measured)
    raw_time, raw_fz : (T,) s and (T, L) N, optional
                        the file's own samples of each load's vertical force (zero below the
                        threshold, not filtered): contact times at the file's rate
    notes : list of str what was done, for the user
    """

    names: list
    force: np.ndarray
    moment_o: np.ndarray
    cop: np.ndarray
    body: np.ndarray | None = None
    notes: list = field(default_factory=list)
    shared: np.ndarray | None = None
    plates: list | None = None
    unloaded: list = field(default_factory=list)
    unloaded_index: list = field(default_factory=list)
    raw_time: np.ndarray | None = None
    raw_fz: np.ndarray | None = None

    def kernel_arrays(self, start: int, stop: int):
        """Force, moment about the origin and body of frames ``start:stop`` as the kinetic kernels take them.

        A frame where two feet share a plate (``shared``) carries a NaN load on
        each of them, so NaN reaches exactly those feet, the segments they hang
        from and the root; every other segment keeps its kinetics.  Feet that no
        load ever reached (``unloaded``) carry a NaN load in every frame.

        Parameters
        ----------
        start, stop : int
            The frame range.

        Returns
        -------
        force : ndarray, shape (F, L', 3), N
            The loads' forces, ground axes, F = stop - start.
        moment : ndarray, shape (F, L', 3), N m
            The loads' moments about the ground origin, ground axes.
        body : ndarray of int64, shape (F, L')
            The segment each load acts on (-1 none); L' >= L counts the NaN loads added for shared plates and
            unloaded feet.

        Raises
        ------
        ValueError
            When the loads have not been assigned to segments.
        """
        if self.body is None:
            raise ValueError("loads not assigned to segments yet (humanbody.mechanics.foot_contact.assign_loads)")
        force = self.force[start:stop]
        moment = self.moment_o[start:stop]
        assert self.body is not None  # set by the conditioning
        body = np.asarray(self.body[start:stop], dtype=np.int64)
        shared = None if self.shared is None else self.shared[start:stop]
        extra_b, extra_f = [], []
        F = force.shape[0]
        if shared is not None and (shared >= 0).any():
            amb = (body == -2) & (shared[..., 0] >= 0)
            force = np.where(amb[..., None], np.nan, force)
            moment = np.where(amb[..., None], np.nan, moment)
            body = np.where(amb, shared[..., 0], body)
            for j in range(body.shape[1]):
                if amb[:, j].any():
                    extra_b.append(np.where(amb[:, j], shared[:, j, 1], -1))
                    extra_f.append(np.where(amb[:, j, None], np.nan, 0.0) * np.ones((F, 3)))
        for k in self.unloaded_index:
            extra_b.append(np.full(F, k, dtype=np.int64))
            extra_f.append(np.full((F, 3), np.nan))
        if extra_b:
            force = np.concatenate([force, np.stack(extra_f, axis=1)], axis=1)
            moment = np.concatenate([moment, np.stack(extra_f, axis=1)], axis=1)
            body = np.concatenate([body, np.stack(extra_b, axis=1).astype(np.int64)], axis=1)
        return (np.ascontiguousarray(force, dtype=float), np.ascontiguousarray(moment, dtype=float),
                np.ascontiguousarray(body, dtype=np.int64))


# ------------------------------------------------------------------ conditioning
def _frame_means(time: np.ndarray, values: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The mean of the samples ``values`` (T, c) at ``time`` (T,) within half a frame of each frame time ``t``
    (F,), ends included (|time - t_i| <= h + 1e-9 s, h half the median frame period): with a plate at r
    samples per frame, the r + 1 samples centred on the frame, as Nexus averages its analog channels for
    Plug-in Gait's kinetics.  A frame with no sample gets 0."""
    h = 0.5 * float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    lo = np.searchsorted(time, t - h - 1e-9, side="left")
    hi = np.searchsorted(time, t + h + 1e-9, side="right")
    cs = np.concatenate([np.zeros((1, values.shape[1])), np.cumsum(values, axis=0)])
    n = (hi - lo)[:, None]
    return np.where(n > 0, (cs[hi] - cs[lo]) / np.maximum(n, 1), 0.0)


def condition_loads(table: LoadTable, frame_time, cutoff_hz: float | None = CUTOFF_HZ,
                    threshold: float = FORCE_THRESHOLD, frame_mean: bool = False) -> FrameLoads:
    """Threshold, low-pass and resample loads to the motion's frames.

    Frames outside the load file's time range get zero loads and are named
    in the notes; no overlap at all is an error.

    Parameters
    ----------
    table : LoadTable
        The loads as read (samples, ground axes).
    frame_time : ndarray, shape (F,), s
        The motion's frame times.
    cutoff_hz : float or None
        Low-pass cut-off of the wrench (zero-phase Butterworth, order 4, the
        markers' filter); None or 0: not filtered.
    threshold : float
        Vertical force (N) below which a load is zero.
    frame_mean : bool
        Resample the (unfiltered) wrench as the mean of its samples within half a frame of each frame
        (:func:`_frame_means`, Nexus's for Plug-in Gait; the set's ``load_resampling = "frame_mean"``)
        instead of interpolating it at the frame times.

    Returns
    -------
    FrameLoads
        Force (F, L, 3) N, moment about the origin (F, L, 3) N m and centre of pressure (F, L, 3) m on the
        motion's frames, ground axes, with the plates' geometry and notes; not yet assigned to segments.
    """
    t = np.asarray(frame_time, dtype=float)
    lo, hi = table.time[0], table.time[-1]
    inside = (t >= lo - 1e-9) & (t <= hi + 1e-9)
    if not inside.any():
        raise InputError(f"the load file covers {lo:g}-{hi:g} s and the trial {t[0]:g}-{t[-1]:g} s: "
                         "they do not overlap", table.source)
    f = np.where((table.force[..., 2] >= threshold)[..., None], table.force, 0.0)
    p = np.where(np.isfinite(table.point), table.point, 0.0)
    m_o = np.where((table.force[..., 2] >= threshold)[..., None], np.cross(p, f) + table.moment, 0.0)
    T, L = f.shape[:2]
    wrench = np.concatenate([f, m_o], axis=2).reshape(T, L * 6)
    # a C3D file's platforms were named with their rate by its reader: this line is routine there
    notes: list[str] = [Note(f"loads: {', '.join(table.names)} from {Path(table.source).name} at {table.rate_hz:.0f} Hz; "
                  f"zero below {threshold:g} N vertical", ROUTINE if Path(table.source).suffix.lower() == ".c3d" else NOTE)]
    if cutoff_hz and cutoff_hz >= 0.5 * table.rate_hz:
        notes.append(f"loads: not filtered (sampled at {table.rate_hz:g} Hz, nothing above {cutoff_hz:g} Hz to remove)")
    elif cutoff_hz:
        sos = butterworth_sos(cutoff_hz, table.rate_hz, 4, table.source)
        from scipy import signal  # lazy: scipy.signal (~0.5 s), imported when loads are first filtered

        wrench = signal.sosfiltfilt(sos, wrench, axis=0)
        notes.append(Note(f"loads: low-passed at {cutoff_hz:g} Hz (zero-phase Butterworth, as the markers), "
                          f"resampled to the {len(t)} frames", LOADS))
    res = np.empty((len(t), L * 6))
    by_mean = frame_mean and not (cutoff_hz and cutoff_hz < 0.5 * table.rate_hz)
    if by_mean:
        res[:] = _frame_means(np.asarray(table.time, dtype=float), wrench, t)
        notes.append(Note("loads: each frame the mean of the samples within half a frame of it (Plug-in Gait's)", SAMPLING))
    else:
        for j in range(L * 6):
            res[:, j] = np.interp(t, table.time, wrench[:, j], left=0.0, right=0.0)
    res = res.reshape(len(t), L, 6)
    force, moment_o = res[..., :3].copy(), res[..., 3:].copy()
    # a frame mean is loaded when any of its samples is (Nexus's); resampled, when it reaches the threshold
    loaded = force[..., 2] > 0.0 if by_mean else force[..., 2] >= threshold
    force[~loaded] = 0.0
    moment_o[~loaded] = 0.0
    plates = table.plates or [plate_from_points(n, table.point[:, j], table.force[:, j, 2] >= threshold)
                              for j, n in enumerate(table.names)]
    cop = np.full((len(t), L, 3), np.nan)
    for j, plate in enumerate(plates):
        # the plane of the plate, through the file's own point of application (its height on stairs)
        ok = (table.force[:, j, 2] >= threshold) & np.isfinite(table.point[:, j]).all(axis=1)
        through = (np.stack([np.interp(t, table.time[ok], table.point[ok, j, a]) for a in range(3)], axis=1)
                   if ok.any() else np.broadcast_to(plate.centre, (len(t), 3)))
        cop[:, j] = plate.cop(force[:, j], moment_o[:, j], through)
    cop[~loaded] = np.nan
    if not inside.all():
        notes.append(f"loads: {int((~inside).sum())} frame(s) outside the load file's time range: no load there")
    raw_fz = np.where(table.force[..., 2] >= threshold, table.force[..., 2], 0.0)
    return FrameLoads(list(table.names), force, moment_o, cop, notes=notes, plates=plates,
                      raw_time=np.asarray(table.time, dtype=float), raw_fz=raw_fz)

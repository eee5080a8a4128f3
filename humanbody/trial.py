"""A trial as the analysis carries it: :class:`Trial`, arrays in ground axes, and :func:`load_trial`.

:func:`load_trial` reads a trial file with the readers of :mod:`humanbody.io`,
maps marker trials from lab to ground axes (:func:`humanbody.lab.axes.to_ground`)
and reads the force plates (:func:`load_forces`, i.e. :func:`humanbody.io.loads.read_loads`, whose
file layouts, vertical-axis rule and plate geometry live in
:mod:`humanbody.io.forceplates`) under that same mapping, so markers and
plates share one ground frame.  Inside, a trial is arrays (time, markers
``(frames, markers, 3)``, other columns ``(frames, columns)``); at the edges
:meth:`Trial.to_frame` gives DataFrames again.

One name, one return type: the ``read_*`` functions of :mod:`humanbody.io`
return pandas DataFrames in lab axes (``humanbody.read_trial(path)``, i.e.
:func:`humanbody.io.read_trial`, docs/conventions.md "Python API", and
:func:`humanbody.io.read_forces`); the ``load_*`` functions here return the
analysis' objects in ground axes: :func:`load_trial` (also
``humanbody.Trial.read(path)``) a :class:`Trial`, whose ``to_frame()`` is that
same DataFrame, and :func:`load_forces` a :class:`~humanbody.io.loads.LoadTable`.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .errors import InputError, Note, priority_of
from .io import read_trial
from .io.c3d_events import events_table
from .io.loads import read_loads
from .lab.axes import to_ground
from .lab.layout import table_markers

__all__ = ["Trial", "load_trial", "load_forces", "file_events", "KINDS"]

#: The kinds of trial an analysis takes (``attrs["kind"]`` of :func:`humanbody.io.read_trial`).
KINDS = ("markers", "coordinates", "orientations")


@dataclass(frozen=True, eq=False)
class Trial:
    """One trial: time base, data in ground axes, force plates, events and a log; a value (frozen): a stage
    that changes it gives a new one (``dataclasses.replace``).

    Attributes
    ----------
    source : str                  the trial file
    kind : str                    "markers", "coordinates" or "orientations" (:mod:`humanbody.io`)
    time : ndarray (F,)           s
    rate_hz : float or None       frame rate (Hz) the file gives or its time column implies
    axes : AxesMapping or None    lab -> ground mapping of a marker trial (``ground = axes.matrix @ lab``)
    columns : list of str         the table's columns after ``time`` (``<marker>_x/_y/_z``,
                                  generalized coordinates, quaternion components)
    table : ndarray (F, 1 + C)    ``time`` then ``columns``, float64; markers in ground axes (m)
    marker_names : list of str    markers, in column order (empty for other kinds)
    forces : LoadTable or None    force plates or loads in the same ground axes, on their own time base
                                  (:class:`humanbody.io.loads.LoadTable`; ``plates``: each plate's
                                  :class:`humanbody.io.forceplates.PlateGeometry`)
    events : DataFrame or None    gait events the trial file carries (a C3D file's ``EVENT`` group,
                                  :func:`file_events`): the events table of :mod:`humanbody.gait.events`
                                  (time s, frame, side, event, source "file"); None when it has none
    log : list of str             what was read and done, one line each, for the user
    attrs : dict                  the reader's attrs (format, units, conversions, ...)
    """

    source: str
    kind: str
    table: np.ndarray
    columns: list
    rate_hz: float | None = None
    axes: Any = None
    marker_names: list = field(default_factory=list)
    forces: Any = None
    events: pd.DataFrame | None = None
    log: list = field(default_factory=list)
    attrs: dict = field(default_factory=dict)
    _ground_attrs: dict | None = field(default=None, repr=False)

    # ---------------------------------------------------------------- arrays
    @property
    def time(self) -> np.ndarray:
        """Time of each frame (F,), s."""
        return self.table[:, 0]

    @property
    def n_frames(self) -> int:
        return int(self.table.shape[0])

    @property
    def values(self) -> np.ndarray:
        """The columns after ``time`` (F, C), a view of ``table``: the generalized coordinates of a
        coordinates trial (rad, m; docs/conventions.md), the sensor quaternions of an orientation
        trial, the marker coordinates (m, ground axes) of a marker trial."""
        return self.table[:, 1:]

    @property
    def markers(self) -> np.ndarray | None:
        """Marker positions (F, M, 3), m, ground axes (NaN or all-zero where the file has none);
        a view of ``table`` when the markers are its only columns."""
        if not self.marker_names:
            return None
        idx = self._marker_index()
        F, M = self.n_frames, len(self.marker_names)
        if np.array_equal(idx.ravel(), np.arange(1, 1 + 3 * M)):
            return self.table[:, 1:1 + 3 * M].reshape(F, M, 3)
        return self.table[:, idx.ravel()].reshape(F, M, 3)

    @property
    def plates(self) -> list:
        """The force plates' geometry (:class:`humanbody.io.forceplates.PlateGeometry`), empty without forces."""
        return list(getattr(self.forces, "plates", None) or [])

    def time_base(self) -> Trial:
        """This trial without its data columns: its time, force plates, events, axes, log and attrs (the
        analysis keeps this once the markers are let go, 8 bytes per frame instead of 8 per value).

        Returns
        -------
        Trial
            A copy with only the time column.
        """
        return dataclasses.replace(self, table=self.table[:, :1].copy(), columns=[], marker_names=[])

    def _marker_index(self) -> np.ndarray:
        pos = {c: i + 1 for i, c in enumerate(self.columns)}
        return np.array([[pos[f"{m}_{a}"] for a in "xyz"] for m in self.marker_names], dtype=np.int64)

    # ---------------------------------------------------------------- frames at the edges
    @classmethod
    def from_frame(cls, frame: pd.DataFrame, axes=None, lab_attrs: dict | None = None) -> Trial:
        """A Trial holding ``frame``'s values (no copy when it is one float64 block).

        ``frame`` is a reader's table (:func:`humanbody.io.read_trial`); for a
        marker trial already in ground axes, ``axes`` is its mapping and
        ``lab_attrs`` the reader's attrs before the mapping.

        Parameters
        ----------
        frame : pandas.DataFrame
            A reader's table: time (s) first, then its data columns.
        axes : AxesMapping, optional
            The lab -> ground mapping of a marker trial already in ground axes.
        lab_attrs : dict, optional
            The reader's attrs before that mapping.

        Returns
        -------
        Trial
            The trial.
        """
        if "time" not in frame.columns or frame.columns[0] != "time":
            raise InputError("trial has no leading time column", frame.attrs.get("source"))
        kind = str(frame.attrs.get("kind", ""))
        table = frame.to_numpy(dtype=np.float64, copy=False)
        names = table_markers(frame) if kind == "markers" else []
        ground_attrs = copy.deepcopy(frame.attrs) if axes is not None else None
        attrs = copy.deepcopy(lab_attrs if lab_attrs is not None else frame.attrs)
        rate = frame.attrs.get("rate_hz")
        return cls(source=str(frame.attrs.get("source", "")), kind=kind, table=table,
                   columns=[str(c) for c in frame.columns[1:]], rate_hz=None if rate is None else float(rate),
                   axes=axes, marker_names=list(names), attrs=attrs, _ground_attrs=ground_attrs)

    def to_frame(self, axes: str = "lab") -> pd.DataFrame:
        """The trial as a DataFrame: ``time`` then ``columns``.

        ``axes="lab"`` (default): the reader's table, exactly as
        :func:`humanbody.io.read_trial` returns it (the top-level
        ``humanbody.read_trial``): markers in lab axes, the reader's attrs.
        ``axes="ground"``: markers in ground axes as
        :func:`humanbody.lab.axes.to_ground` gives them (its attrs);
        a view of ``table`` (no copy).

        Parameters
        ----------
        axes : {"lab", "ground"}
            The axes of the markers returned.

        Returns
        -------
        pandas.DataFrame
            time (s) then the trial's columns, with attrs.
        """
        if axes not in ("lab", "ground"):
            raise ValueError(f"axes must be 'lab' or 'ground', not {axes!r}")
        cols = ["time", *self.columns]
        if axes == "ground" or self.axes is None or not self.marker_names:
            out = pd.DataFrame(self.table, columns=cols, copy=False)
            out.attrs = copy.deepcopy(self._ground_attrs if axes == "ground" and self._ground_attrs is not None
                                      else self.attrs)
            return out
        table = self.table.copy()
        idx = self._marker_index()
        perm = self.axes.signed_permutation()
        if perm is not None:  # lab[perm[i]] = sign[i] * ground[i]: exact, a missing component stays put
            for i, (j, s) in enumerate(zip(*perm, strict=True)):
                table[:, idx[:, j]] = self.table[:, idx[:, i]] * s
        else:
            F, M = self.n_frames, len(self.marker_names)
            ground = self.table[:, idx.ravel()].reshape(F, M, 3)
            table[:, idx.ravel()] = (ground @ np.asarray(self.axes.matrix)).reshape(F, 3 * M)
        out = pd.DataFrame(table, columns=cols, copy=False)
        out.attrs = copy.deepcopy(self.attrs)
        return out

    # ---------------------------------------------------------------- reading
    @classmethod
    def read(cls, path, forces=None, axes: str = "auto", loads: dict | None = None, imu_map=None) -> Trial:
        """:func:`load_trial`.

        Parameters
        ----------
        path : str or os.PathLike
            The trial file.
        forces : str or os.PathLike, optional
            Its force plates or loads table.
        axes : str, AxesMapping or array (3, 3)
            Lab -> ground axes: "auto" or a spec.
        loads : dict, optional
            Load name -> segment.
        imu_map : str, optional
            All as :func:`load_trial` takes them.

        Returns
        -------
        Trial
            The trial in ground axes, with its plates.
        """
        return load_trial(path, forces=forces, axes=axes, loads=loads, imu_map=imu_map)


def load_trial(path, forces=None, axes="auto", loads: dict | None = None, imu_map=None) -> Trial:
    """Read a trial file (and its force plates) into a :class:`Trial`, markers and plates under one mapping.

    Parameters
    ----------
    path : str or Path
        Any trial :func:`humanbody.io.read_trial` reads (markers, generalized
        coordinates, orientations).
    forces : str or Path, optional
        Force plates or loads table (:func:`humanbody.io.loads.read_loads`),
        in the trial's lab axes: read with the markers' lab -> ground mapping
        (for a trial without markers, the plates' vertical axis decides).
    axes : str, AxesMapping or array (3, 3)
        Lab -> ground axes of a marker trial: "auto" (detected from the
        markers, :func:`humanbody.lab.axes.detect_axes`) or a spec
        ("x,-z,y", "opensim").  Ignored for other kinds (orientation trials
        take theirs in :func:`humanbody.imu.orientations_to_coordinates`).
    loads : dict, optional
        Load name -> segment, overriding the force file's assignment.
    imu_map : str, optional
        Sensor -> segment mapping of an Xsens MT text export
        (:func:`humanbody.io.xsens_mt.read_xsens_mt`).

    Returns
    -------
    Trial
        ``log`` holds the lines the analysis prints: what was read, each
        conversion, the axes mapping.

    Notes
    -----
    Unlike the top-level ``humanbody.read_trial`` (a DataFrame in lab axes,
    kept for the documented Python API), this returns a Trial; its
    ``to_frame()`` is that DataFrame.
    """
    path = os.fspath(path)
    frame = read_trial(path, imu_map=imu_map)
    kind = frame.attrs.get("kind")
    fmt = frame.attrs.get("format", "?")
    rate = frame.attrs.get("rate_hz")
    rate_txt = f" at {rate:g} Hz" if rate else ""
    log = [f"read {path}: {fmt}, {kind}, {len(frame)} frames{rate_txt}"]
    log += [Note(f"converted {c}", priority_of(c)) for c in frame.attrs.get("conversions", [])]
    if kind not in KINDS:
        raise InputError(f"holds {kind or 'an unknown kind of'} data, not marker trajectories or "
                         "generalized coordinates", path)
    if kind == "markers":
        lab_attrs = frame.attrs
        ground, mapping = to_ground(frame, axes=axes)
        del frame  # a long trial: one copy of the markers at a time
        trial = Trial.from_frame(ground, axes=mapping, lab_attrs=lab_attrs)
        log.append(f"axes: {mapping.describe()}")
    else:
        trial = Trial.from_frame(frame)
    events, lines = file_events(trial.attrs) if kind == "markers" else (None, [])
    return dataclasses.replace(trial, log=log + lines, events=events,
                               forces=None if forces is None else load_forces(forces, trial.axes, loads))


def file_events(attrs: dict) -> tuple[pd.DataFrame | None, list[str]]:
    """The gait events a reader found in the file (``attrs["events"]``, :func:`humanbody.io.c3d.read_c3d`)
    as an events table, and the log lines about them (how many per side, what was left out).

    Parameters
    ----------
    attrs : dict
        A reader's attrs (``events``, ``event_notes``).

    Returns
    -------
    table : pandas.DataFrame or None
        None when the file has no events.
    lines : list of str
        Log lines (Notes with a priority) about the events.
    """
    table = events_table(attrs.get("events"))
    lines: list[str] = [Note(f"events: {note}", priority_of(note)) for note in attrs.get("event_notes", [])]
    if table is not None:
        counts = []
        for side in ("right", "left"):
            on = table["side"] == side
            counts.append(f"{side} {int((on & (table['event'] == 'foot_strike')).sum())} foot strikes, "
                          f"{int((on & (table['event'] == 'foot_off')).sum())} foot offs")
        lines.insert(0, "events: the file's EVENT group: " + "; ".join(counts))
    return table, lines


def load_forces(forces, mapping=None, loads: dict | None = None):
    """Force plates or a loads table under a trial's lab -> ground ``mapping`` (an AxesMapping or None).

    :func:`humanbody.io.loads.read_loads`: with no mapping, the
    plates' own vertical axis decides (:func:`humanbody.io.forceplates.vertical_axis_mapping`).
    Returns a :class:`~humanbody.io.loads.LoadTable` in ground axes (the DataFrame
    of the same file in lab axes is :func:`humanbody.io.read_forces`).

    Parameters
    ----------
    forces : str or os.PathLike
        The force plates or loads file.
    mapping : AxesMapping, optional
        The trial's lab -> ground mapping; None: the plates' vertical axis decides.
    loads : dict, optional
        Load name -> segment.

    Returns
    -------
    LoadTable
        The loads in ground axes (N, m, N m).
    """
    return read_loads(forces, mapping=None if mapping is None else mapping.matrix, loads=loads)

"""The muscle tables of one trial: ``<trial>_muscle_lengths.csv`` and ``<trial>_moment_arms.csv``.

``muscle_tables(coordinates_file, model_file, out_dir)`` reads an OpenSim coordinates file
(.mot/.sto: OpenSim's inverse kinematics, or ``humanbody analyze --model MODEL.osim``'s
``<trial>_ik.mot``), computes every muscle's length and moment arms over it, chunk by chunk
of frames, and writes (CONVENTIONS "OpenSim models and muscles"):

- ``<trial>_muscle_lengths.csv``: ``time`` (s), one column per muscle (m);
- ``<trial>_moment_arms.csv``: ``time`` (s), ``<muscle>/<coordinate>`` (m) for the
  coordinates each muscle crosses (:func:`humanbody.muscles.crossing.crossed_coordinates`).

``<trial>`` is the coordinates file's name without its extension and without a final
``_ik`` (so ``walk_ik.mot`` gives ``walk_muscle_lengths.csv``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..atomic import atomic_path, open_temp
from ..io.writers import CSV_DIGITS, format_csv_rows
from ..osim import read_osim
from .geometry import MuscleGeometry, read_model_coordinates

CHUNK_FRAMES = 2000


@dataclass(frozen=True)
class MuscleTables:
    """What :func:`muscle_tables` wrote: the two files, the frame count and the model's notes."""

    lengths: Path
    moment_arms: Path
    frames: int
    muscles: int
    moment_arm_columns: int
    notes: tuple[str, ...]


def trial_name(path: str | os.PathLike) -> str:
    """``walk_ik.mot`` → ``walk``; ``opensim_ik.sto`` → ``opensim``; ``trial.mot`` → ``trial``.

    Parameters
    ----------
    path : str or os.PathLike
        The coordinates file.

    Returns
    -------
    str
        The file's stem without a trailing ``_ik``.
    """
    stem = Path(path).stem
    return stem[:-3] if stem.endswith("_ik") and len(stem) > 3 else stem


def _header(columns: list[str]) -> bytes:
    return (",".join(columns) + "\n").encode()


def muscle_tables(coordinates: str | os.PathLike, model: str | os.PathLike, out_dir: str | os.PathLike,
                  chunk_frames: int = CHUNK_FRAMES, geometry: MuscleGeometry | None = None,
                  frames: tuple[np.ndarray, np.ndarray] | None = None) -> MuscleTables:
    """Write the muscle lengths and moment arms of a coordinates file for an OpenSim model.

    Parameters
    ----------
    coordinates : path
        OpenSim .mot/.sto with a column per model coordinate (degrees or radians)
    model : path
        The .osim model
    out_dir : path
        Folder for the two CSV files (created if missing)
    chunk_frames : int
        Frames computed at once (memory: about 30 kB per frame for 92 muscles)
    geometry : MuscleGeometry, optional
        The model's, when already built (the file is then not read again)
    frames : tuple of (numpy.ndarray, numpy.ndarray), optional
        ``(time (F,), q (F, nq))``: the coordinates file as :func:`.geometry.read_model_coordinates` read it with
        ``geometry``, when already read (s; rad, m).

    Returns
    -------
    MuscleTables
        The two files written, the frame, muscle and moment-arm column counts, the model's notes.

    Raises
    ------
    InputError
        The model cannot be read, or the coordinates file lacks some of the model's coordinates.
    """
    if geometry is None:
        geometry = MuscleGeometry.of(read_osim(model))
    osim_model = geometry.model
    time, q = frames if frames is not None else read_model_coordinates(coordinates, osim_model)
    names = osim_model.muscle_names
    coord_index = {c: i for i, c in enumerate(osim_model.coordinate_names)}
    pairs = [(m, coord_index[c]) for m, muscle in enumerate(names) for c in geometry.crossed[muscle]]
    arm_columns = [f"{names[m]}/{osim_model.coordinate_names[c]}" for m, c in pairs]
    rows, cols = np.array([p[0] for p in pairs], np.int64), np.array([p[1] for p in pairs], np.int64)
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    stem = trial_name(coordinates)
    lengths_path, arms_path = out / f"{stem}_muscle_lengths.csv", out / f"{stem}_moment_arms.csv"
    with atomic_path(lengths_path) as tl, atomic_path(arms_path) as ta:
        with open_temp(tl) as fl, open_temp(ta) as fa:
            fl.write(_header(["time", *names]))
            fa.write(_header(["time", *arm_columns]))
            for start in range(0, len(q), chunk_frames):
                part = slice(start, start + chunk_frames)
                paths = geometry.compute(q[part])
                t = time[part, None]
                fl.write(format_csv_rows(np.hstack([t, paths.lengths]), CSV_DIGITS))
                fa.write(format_csv_rows(np.hstack([t, paths.moment_arms[:, rows, cols]]), CSV_DIGITS))
    return MuscleTables(lengths_path, arms_path, len(q), len(names), len(arm_columns), geometry.notes)

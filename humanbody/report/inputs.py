"""What a batch report runs on: trial files, folders or a manifest CSV -> tasks.

A :class:`TrialTask` is one trial with its static trial, force file and the
subject values that override the command-line options.  Tasks are plain,
picklable data: they travel to Dask workers as they are.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from pathlib import Path

import pandas as pd

from ..errors import InputError
from ..io import read_trial
from ..io.imu import looks_like_opensense

__all__ = ["TrialTask", "TRIAL_SUFFIXES", "discover", "read_manifest", "find_static", "static_candidates",
           "shared_markers", "find_grf", "assign_keys"]

#: File suffixes taken as trials when a folder is given.
TRIAL_SUFFIXES = (".trc", ".c3d", ".csv", ".tsv", ".mvnx")

#: Suffixes of orientation (IMU) trials, which take a static file of their own kind only.
_ORIENTATION_SUFFIXES = (".sto", ".mvnx")

#: Stem endings of files this project writes; never taken as trials.
_OUTPUT_ENDINGS = ("_results", "_cycles", "_strides", "_events", "_spatiotemporal", "_residuals", "_grf", "_forces",
                   "_loads")
_OUTPUT_NAMES = ("summary.csv",)

MANIFEST_COLUMNS = ("trial", "static", "mass", "height", "treadmill_speed", "grf", "subject")


@dataclass(frozen=True)
class TrialTask:
    """One trial of a batch.

    Attributes
    ----------
    trial : str                 the trial file
    key : str                   output name (sub-folder of the report folder)
    static : str or None        standing calibration trial
    grf : str or None           ground reaction forces (OpenSim GRF .mot)
    mass, height : float or None  subject values overriding the options (kg, m)
    treadmill_speed : float or None  belt speed (m/s) overriding the options
    subject : str or None       subject measurements file (.vsk or TOML) overriding the options
    notes : tuple of str        how the static and force files were found
    """

    trial: str
    key: str = ""
    static: str | None = None
    grf: str | None = None
    mass: float | None = None
    height: float | None = None
    treadmill_speed: float | None = None
    subject: str | None = None
    notes: tuple = ()


#: Words that name a standing calibration trial (Vicon and most labs write "static", Qualisys and BTS "standing").
_STATIC_WORDS = ("static", "standing")


def _is_static(path: Path) -> bool:
    name = path.name.lower()
    return any(word in name for word in _STATIC_WORDS)


def _is_output(path: Path) -> bool:
    stem = path.stem.lower()
    return path.name.lower() in _OUTPUT_NAMES or stem.endswith(_OUTPUT_ENDINGS)


def static_candidates(trial: Path) -> list[Path]:
    """The files beside ``trial`` whose name contains "static" or "standing", in the order they are tried.

    Those with the trial's suffix come first, then the others, each by name.  An orientation trial
    (``.sto``, ``.mvnx``) takes only a static file of its own suffix, a marker trial none of those.

    Parameters
    ----------
    trial : pathlib.Path
        The trial file.

    Returns
    -------
    list of pathlib.Path
        The candidate static files, most likely first (empty when there is none).
    """
    folder = trial.parent
    try:
        cands = sorted(p for p in folder.iterdir() if p.is_file() and _is_static(p) and p != trial)
    except OSError:
        return []
    cands = [p for p in cands if p.suffix.lower() in TRIAL_SUFFIXES or _is_orientation_sto(p)]
    same = [p for p in cands if p.suffix.lower() == trial.suffix.lower()]
    if trial.suffix.lower() in _ORIENTATION_SUFFIXES:
        return same
    cands = [p for p in cands if p.suffix.lower() not in _ORIENTATION_SUFFIXES]
    return same + [p for p in cands if p not in same]


def find_static(trial: Path) -> Path | None:
    """The static trial beside ``trial``: the first of :func:`static_candidates` that is the same lab's and
    subject's, by its marker names (:func:`shared_markers`); None when none is.

    Parameters
    ----------
    trial : pathlib.Path
        The trial file.

    Returns
    -------
    pathlib.Path or None
        The static trial to calibrate ``trial`` with.
    """
    for cand in static_candidates(trial):
        if _same_markers(shared_markers(trial, cand)):
            return cand
    return None


#: Suffixes of force files found beside a trial.
FORCE_SUFFIXES = (".mot", ".sto", ".csv")


def _is_force_file(path: Path) -> bool:
    """A force file by its name: ``*grf*.mot``/``.sto`` or ``*_forces.*`` / ``*_loads.*``."""
    stem, suffix = path.stem.lower(), path.suffix.lower()
    return suffix in FORCE_SUFFIXES and (("grf" in stem and suffix in (".mot", ".sto"))
                                         or stem.endswith(("_forces", "_loads")))


def find_grf(trial: Path) -> Path | None:
    """The force file beside the trial: ``<stem>_grf.mot``, ``<stem>_forces.*``, ``<stem>_loads.*``, a
    ``*grf*.mot`` naming the trial's stem (``grf_walk.mot``), or the folder's only ``*grf*.mot``.

    Parameters
    ----------
    trial : pathlib.Path
        The trial file.

    Returns
    -------
    pathlib.Path or None
        The force file, or None when none is found.
    """
    stem = trial.stem
    for name in (f"{stem}_grf.mot", f"{stem}_grf.sto", f"{stem}_forces.mot", f"{stem}_forces.sto",
                 f"{stem}_forces.csv", f"{stem}_loads.csv"):
        p = trial.with_name(name)
        if p.is_file():
            return p
    try:
        cands = sorted(p for p in trial.parent.iterdir() if p.is_file() and _is_force_file(p))
    except OSError:
        return None
    named = [p for p in cands if stem.lower() in p.stem.lower()]
    if len(named) == 1:
        return named[0]
    grf = [p for p in cands if "grf" in p.stem.lower()]
    trials = [p for p in trial.parent.iterdir() if p.is_file() and p.suffix.lower() in TRIAL_SUFFIXES
              and not _is_static(p) and not _is_output(p) and not _is_force_file(p)]
    return grf[0] if len(grf) == 1 and len(trials) == 1 else None


def _readable(path: Path) -> str | None:
    """None when ``path`` holds a trial humanbody reads (markers or coordinates), else why not."""
    try:
        kind = read_trial(path).attrs.get("kind")
    except InputError as err:
        return err.message if hasattr(err, "message") else str(err)
    if kind not in ("markers", "coordinates", "orientations"):
        return f"holds {kind} data, not markers or coordinates"
    return None


def _task_for(trial: Path, static, grf, **values) -> TrialTask:
    notes = []
    if static is None and not _is_static(trial):
        cands = static_candidates(trial)
        pairs = [(c, shared_markers(trial, c)) for c in cands]
        found = next((c for c, shared in pairs if _same_markers(shared)), None)
        if found is not None:
            static = found
            notes.append(f"static trial {found} (found by name)")
        elif pairs:
            names = ", ".join(c.name for c, _ in pairs)
            told = [shared for _, shared in pairs if shared is not None]  # all told: none would be paired
            n_shared, n_trial, _ = max(told, key=lambda x: x[0])
            verb = "shares" if len(pairs) == 1 else "share"
            notes.append(f"no static trial paired: {names} {verb} at most {n_shared} of the trial's {n_trial} "
                         "marker names (another lab or subject); the trial calibrates itself, or give its "
                         "standing trial with --static")
    if grf is None:
        found = find_grf(trial)
        if found is not None:
            grf = found
            notes.append(f"ground reaction forces {found} (found by name)")
    return TrialTask(
        trial=os.fspath(trial), static=None if static is None else os.fspath(static),
        grf=None if grf is None else os.fspath(grf), notes=tuple(notes), **values,
    )


def _trc_marker_names(path: Path) -> set | None:
    """The marker names of a TRC file's header (its fourth line), or None when they cannot be read."""
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            lines = [fh.readline() for _ in range(4)]
    except OSError:
        return None
    if len(lines) < 4:
        return None
    names = {n.strip() for n in lines[3].split("\t")[2:] if n.strip()}
    return names or None


def _marker_names(path: Path) -> set | None:
    """A TRC or C3D file's marker names from its header, upper case and without a subject prefix
    (``A22:RKNE`` -> ``RKNE``); None when they cannot be told (another format, an unreadable header)."""
    suffix = path.suffix.lower()
    if suffix == ".trc":
        names = _trc_marker_names(path)
    elif suffix == ".c3d":
        from ..io.c3d_raw import point_labels  # lazy: the header and parameters only

        labels = point_labels(path)
        names = {n for n in labels if n} if labels is not None else None
    else:
        return None
    if not names:
        return None
    return {n.rsplit(":", 1)[-1].strip().upper() for n in names}


def shared_markers(trial: Path, static: Path) -> tuple[int, int, int] | None:
    """``(shared, trial's, static's)`` marker names of a trial and a static, by their headers (TRC, C3D);
    None when either cannot be told.

    Parameters
    ----------
    trial, static : pathlib.Path
        The two marker files.

    Returns
    -------
    (int, int, int) or None
        Marker names in common, the trial's count and the static's count.
    """
    a, b = _marker_names(trial), _marker_names(static)
    if a is None or b is None:
        return None
    return len(a & b), len(a), len(b)


def _same_markers(shared: tuple[int, int, int] | None) -> bool:
    """A static is the same lab's and subject's when it shares at least half the marker names of the smaller of
    the two files (the walk and its standing trial share them all; another lab's file a few common names such as
    RASI), or when that cannot be told from the headers."""
    if shared is None:
        return True
    n_shared, n_trial, n_static = shared
    return n_shared > 0 and 2 * n_shared >= min(n_trial, n_static)


def _is_orientation_sto(path: Path) -> bool:
    """An OpenSense orientation table (``.sto`` of quaternions), not another OpenSim table."""
    if path.suffix.lower() != ".sto":
        return False

    try:
        with open(path, "rb") as fh:
            head = fh.read(65536).decode("utf-8", errors="replace").splitlines()
    except OSError:
        return False
    return looks_like_opensense(head[:-1] or head)


def discover(paths, static=None, grf=None, skipped: list | None = None) -> list[TrialTask]:
    """Tasks for trial files and folders given on the command line.

    A folder contributes its trial files (suffixes :data:`TRIAL_SUFFIXES`
    and OpenSense orientation ``.sto`` files, not recursing), leaving out static trials (name contains "static" or "standing"),
    force files and this project's own outputs.  ``static`` and ``grf``
    apply to every trial; otherwise they are found by name beside each trial
    (:func:`find_static`, :func:`find_grf`).  A folder's CSV/TSV file that
    holds no trial humanbody reads (a vendor's model-outputs export, a
    table) is left out with a line in ``skipped``.

    Parameters
    ----------
    paths : iterable of str or os.PathLike
        Trial files and folders of trials.
    static : str or os.PathLike, optional
        The static trial of every trial (default found beside each).
    grf : str or os.PathLike, optional
        The force file of the one trial (default found beside each).
    skipped : list, optional
        Takes a line per file left out.

    Returns
    -------
    list of TrialTask
        One task per trial (with its unique key), in the order given, a folder's files sorted by name.

    Raises
    ------
    InputError  for a path that does not exist, or ``grf`` with several trials.
    """
    trials: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.iterdir()):
                if (f.is_file() and (f.suffix.lower() in TRIAL_SUFFIXES or _is_orientation_sto(f))
                        and not _is_static(f) and not _is_output(f) and not _is_force_file(f)):
                    why = _readable(f) if f.suffix.lower() in (".csv", ".tsv") else None
                    if why is not None:
                        if skipped is not None:
                            skipped.append(f"skipped {f}: not a trial humanbody reads ({why})")
                        continue
                    trials.append(f)
        elif p.exists():
            trials.append(p)
        else:
            raise InputError("no such file or folder", p)
    if grf is not None and len(trials) > 1:
        raise InputError("grf names the force file of one trial, but several trials were given", grf, option="grf")
    return assign_keys([_task_for(t, static, grf) for t in trials])


def manifest_number(value: str, column: str, line: int, path) -> float | None:
    """A manifest cell's positive finite number (mass, height, treadmill speed), or None for an empty cell.

    Parameters
    ----------
    value : str
        The cell's text.
    column : str
        Its column (``mass`` kg, ``height`` m, ``treadmill_speed`` m/s), for the message.
    line : int
        Its line in the manifest file (1 is the header), for the message.
    path : str or os.PathLike
        The manifest, named by the message.

    Returns
    -------
    float or None
        The number, in the column's unit.

    Raises
    ------
    InputError
        The cell is not a number, or not a positive finite one.
    """
    value = value.strip()
    if not value:
        return None
    try:
        x = float(value)
    except ValueError:
        raise InputError(f"line {line}: {column} {value!r} is not a number", path) from None
    if not abs(x) < float("inf"):  # inf or NaN
        raise InputError(f"line {line}: {column} must be a finite number, got {value}", path)
    if not x > 0:
        raise InputError(f"line {line}: {column} must be positive, got {value}", path)
    return x


def manifest_table(path) -> pd.DataFrame:
    """A manifest CSV as text cells (empty cells ""), column names stripped and lower-cased.

    Parameters
    ----------
    path : str or os.PathLike
        The manifest CSV.

    Returns
    -------
    pandas.DataFrame
        One row per trial, every cell text.

    Raises
    ------
    InputError
        The file is missing, a folder, or is not a readable CSV (one line naming it).
    """
    path = Path(path)
    if path.is_dir():
        raise InputError("is a folder, not a manifest CSV", path)
    if not path.is_file():
        raise InputError("manifest file not found", path)
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as err:
        raise InputError(f"cannot read the manifest CSV ({str(err).splitlines()[0]})", path) from None
    table.columns = [str(c).strip().lower() for c in table.columns]
    return table


def read_manifest(path) -> list[TrialTask]:
    """Tasks from a manifest CSV.

    Columns: ``trial`` (required), ``static``, ``mass`` (kg), ``height`` (m),
    ``treadmill_speed`` (m/s), ``grf`` and ``subject`` (a ``.vsk`` or TOML
    subject file; all optional; empty cells mean "not given").  Relative paths are resolved against the manifest's folder.
    A static or force file not given is found by name beside the trial.

    Parameters
    ----------
    path : str or os.PathLike
        The manifest CSV.

    Returns
    -------
    list of TrialTask
        One task per row, in order.
    """
    path = Path(path)
    table = manifest_table(path)
    if "trial" not in table.columns:
        raise InputError("manifest has no 'trial' column (columns: trial, static, mass, height, treadmill_speed)",
                         path)
    unknown = [c for c in table.columns if c not in MANIFEST_COLUMNS]
    if unknown:
        raise InputError(f"manifest has unknown column(s) {', '.join(unknown)}; expected "
                         + ", ".join(MANIFEST_COLUMNS), path)
    base = path.parent
    tasks = []
    for i, row in enumerate(table.to_dict("records")):
        line = i + 2
        name = row["trial"].strip()
        if not name:
            raise InputError(f"line {line}: empty trial", path)

        def resolve(v):
            v = (v or "").strip()
            return None if not v else (Path(v) if Path(v).is_absolute() else base / v)

        tasks.append(_task_for(
            resolve(name), resolve(row.get("static")), resolve(row.get("grf")),
            mass=manifest_number(row.get("mass", ""), "mass", line, path),
            height=manifest_number(row.get("height", ""), "height", line, path),
            treadmill_speed=manifest_number(row.get("treadmill_speed", ""), "treadmill_speed", line, path),
            subject=None if resolve(row.get("subject")) is None else os.fspath(resolve(row.get("subject"))),
        ))
    return assign_keys(tasks)


def assign_keys(tasks: list[TrialTask]) -> list[TrialTask]:
    """Give every task a unique output name: the file stem, else folder_stem, else a counter.

    Parameters
    ----------
    tasks : list of TrialTask
        The tasks, their key not yet set.

    Returns
    -------
    list of TrialTask
        New tasks, in the same order.
    """
    stems = [Path(t.trial).stem for t in tasks]
    out, used = [], set()
    for task, stem in zip(tasks, stems, strict=True):
        key = stem if stems.count(stem) == 1 else f"{Path(task.trial).parent.name}_{stem}"
        base, n = key, 2
        while key in used:
            key, n = f"{base}_{n}", n + 1
        used.add(key)
        out.append(replace(task, key=key))
    return out

"""Groups of gait curves for SPM comparisons, read from report folders.

``humanbody report`` writes, per trial, ``<key>/<stem>_cycles.csv`` (each
variable's mean over the trial's strides, per side) and
``<key>/<stem>_strides.parquet`` (every stride's curve; a ``_strides.csv``
with the same columns is read too).  A group is one report
folder (or the trials of one manifest group, reported first).  Its rows are

- ``unit="subject"``: one curve per subject, the mean of all its strides
  (trials of the same subject weighted by their number of strides); the
  subject is the manifest's ``subject`` column or else the trial's stem;
- ``unit="stride"``: every stride of every trial (a stride with a missing
  sample in a variable is left out of that variable).

Variables are the clinical angles, moments and powers (names ending
``_deg``, ``_moment_Nm_per_kg``, ``_power_W_per_kg``), on the strides of
``side``:

- ``right`` / ``left``: that side's variables with the side taken out of the
  name (``knee_flexion_deg``), on that side's strides;
- ``both``: the right and the left variables as they are named
  (``right_knee_flexion_deg`` on right strides, ``left_...`` on left ones);
- ``pooled``: each side-less name, right and left strides together.

Variables of no side (pelvis, thorax, neck) are taken on the right strides
(the left ones with ``side="left"``).
"""

from __future__ import annotations

import fnmatch
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import InputError

#: Clinical curves (the same pattern as :data:`humanbody.gait.cycles.CLINICAL_CURVE`, repeated here so
#: that compare does not import pandas).
CLINICAL_CURVE = re.compile(r"(_deg|_moment_Nm_per_kg|_power_W_per_kg)$")

SIDES = ("right", "left")
SIDE_CHOICES = ("right", "left", "both", "pooled")
UNITS = ("subject", "stride")


@dataclass
class Group:
    """Curves of one group.

    Attributes
    ----------
    name : str
        The group's label (folder name or manifest value).
    source : str
        Where the curves came from.
    rows : dict of str -> list of str
        Per variable, the label of each curve (subject, or ``trial:side:stride``).
    curves : dict of str -> ndarray (rows, nodes)
        Per variable, the curves.
    units : dict of str -> str
        Per variable, its unit.
    """

    name: str
    source: str
    rows: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)

    @property
    def variables(self) -> list[str]:
        return list(self.curves)


def _unit(variable: str) -> str:
    for end, unit in (("_deg", "deg"), ("_moment_Nm_per_kg", "N m/kg"), ("_power_W_per_kg", "W/kg")):
        if variable.endswith(end):
            return unit
    return ""


def _name_map(variables, side: str) -> list[tuple[str, str, str]]:
    """``(compare name, variable, stride side)`` for the clinical ``variables`` under ``side``."""
    out = []
    home = "left" if side == "left" else "right"
    for v in variables:
        sided = next((s for s in SIDES if v.startswith(s + "_")), None)
        if sided is None:
            out.append((v, v, home))
        elif side == "both":
            out.append((v, v, sided))
        elif side == "pooled":
            out.append((v[len(sided) + 1:], v, sided))
        elif sided == side:
            out.append((v[len(sided) + 1:], v, sided))
    return out


def _cycles_files(folder: Path) -> list[Path]:
    return sorted(folder.rglob("*_cycles.csv"))


def is_report_folder(folder) -> bool:
    """True when ``folder`` holds trial curves written by ``humanbody report``.

    Parameters
    ----------
    folder : str or os.PathLike
        The folder to look at.

    Returns
    -------
    bool
        True when it is a folder with at least one *_cycles.csv.
    """
    return Path(folder).is_dir() and bool(_cycles_files(Path(folder)))


def _read_csv(path: Path, columns=None) -> dict:
    """A CSV's columns as NumPy arrays (pyarrow's reader: several times faster than pandas')."""
    import pyarrow as pa
    from pyarrow import csv as pacsv

    try:
        opts = pacsv.ConvertOptions(include_columns=columns) if columns else None
        table = pacsv.read_csv(path, read_options=pacsv.ReadOptions(use_threads=False), convert_options=opts)
    except (pa.ArrowInvalid, KeyError, OSError) as err:
        raise InputError(f"cannot read the curves ({str(err).splitlines()[0]})", path) from None
    return _arrays(table)


def _arrays(table) -> dict:
    """An Arrow table's columns as NumPy arrays: strings as objects, numbers as float64 (NaN for empty)."""
    import pyarrow as pa

    out = {}
    for name, col in zip(table.column_names, table.columns, strict=True):
        if pa.types.is_string(col.type) or pa.types.is_large_string(col.type):
            out[name] = np.asarray(col.to_pylist(), dtype=object)  # to_pylist: no pandas either
        elif pa.types.is_null(col.type):  # a column of empty cells
            out[name] = np.full(len(col), np.nan)
        else:
            out[name] = _floats(col)
    return out


def _read_parquet(path: Path) -> dict:
    """A Parquet table's columns as NumPy arrays."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.ParquetFile(path).read(use_threads=False)  # read_table would import pyarrow.dataset (0.3 s)
    except (pa.ArrowInvalid, OSError) as err:
        raise InputError(f"cannot read the curves ({str(err).splitlines()[0]})", path) from None
    return _arrays(table)


def _strides_file(cycles: Path) -> Path | None:
    """The per-stride table beside a cycles table: ``_strides.parquet`` or ``_strides.csv``, if any."""
    stem = cycles.name[: -len("_cycles.csv")]
    for suffix in (".parquet", ".csv"):
        p = cycles.with_name(f"{stem}_strides{suffix}")
        if p.is_file():
            return p
    return None


#: Arrow number types read straight from their buffer, and their NumPy dtype.
_NUMPY_TYPES = {"double": np.float64, "float": np.float32, "int64": np.int64, "int32": np.int32,
                "int16": np.int16, "int8": np.int8, "uint64": np.uint64, "uint32": np.uint32,
                "uint16": np.uint16, "uint8": np.uint8}


def _floats(col) -> np.ndarray:
    """A numeric Arrow column as float64 NumPy, empty cells NaN.

    Read from the Arrow buffers (values, and the validity bitmap for empty
    cells): pyarrow's own ``to_numpy`` imports pandas on first use (half a
    second, longer than a whole comparison), ``pyarrow.compute`` a tenth of one.
    """
    import pyarrow as pa

    arr = col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col
    dtype = _NUMPY_TYPES.get(str(arr.type))
    if dtype is None:  # another type (booleans, decimals): Arrow casts it
        import pyarrow.compute as pc

        arr = arr.cast(pa.float64())
        if arr.null_count:
            arr = pc.fill_null(arr, float("nan"))
        dtype = np.float64
    n, start = len(arr), arr.offset
    values = np.frombuffer(arr.buffers()[1], dtype=dtype)[start:start + n].astype(np.float64)
    if arr.null_count:
        valid = np.unpackbits(np.frombuffer(arr.buffers()[0], dtype=np.uint8), bitorder="little")[start:start + n]
        values[valid == 0] = np.nan
    return values


def read_report(folder, *, side: str = "both", unit: str = "subject", subjects: dict | None = None,
                variables=None, name: str | None = None) -> Group:
    """The curves of a report folder, one row per subject or per stride.

    Parameters
    ----------
    folder : path
        A folder written by ``humanbody report``.
    side : {"right", "left", "both", "pooled"}
        Which strides and names: one side's variables without the side in the name, both sides as named, or both sides
        pooled under the side-less name (see the module docstring).
    unit : {"subject", "stride"}
        One row per subject (the mean curve of its strides) or one row per stride.
    subjects : dict, optional
        Trial key (the trial's sub-folder) -> subject; default: the trial stem.
    variables : list of str, optional
        Glob patterns of the compare names to keep (default: all).
    name : str, optional
        The group's label (default: the folder's name).

    Returns
    -------
    Group
        The curves of every variable (rows, nodes), with each row's subject (or stride) label.

    Raises
    ------
    InputError  for a missing folder, a folder without trial curves, or a
    trial without per-stride curves when ``unit="stride"``.
    """
    folder = Path(folder)
    if side not in SIDE_CHOICES:
        raise InputError(f"side must be one of {', '.join(SIDE_CHOICES)}, got {side!r}")
    if unit not in UNITS:
        raise InputError(f"unit must be one of {', '.join(UNITS)}, got {unit!r}")
    if not folder.is_dir():
        raise InputError("no such folder", folder)
    files = _cycles_files(folder)
    if not files:
        raise InputError("no trial curves (*_cycles.csv) in this folder: give a folder written by "
                         "'humanbody report' or a folder of trials", folder)
    group = Group(name or folder.resolve().name, str(folder))
    reader = _subject_curves if unit == "subject" else _stride_curves

    with ThreadPoolExecutor(max_workers=4) as pool:  # pyarrow's reader releases the GIL
        per_trial = list(pool.map(lambda p: reader(p, side, folder), files))  # [(trial key, {name: ...})]
    names = None
    for path, (_, table) in zip(files, per_trial, strict=True):
        keys = {n for n in table if _wanted(n, variables)}
        if names is None:
            names = keys
        elif keys != names:
            missing = sorted(names ^ keys)
            raise InputError(f"trials of one group have different variables ({', '.join(missing[:4])}"
                             f"{' ...' if len(missing) > 4 else ''}; `variables` chooses the ones all have)",
                             path)
    order = [n for n in per_trial[0][1] if _wanted(n, variables)]
    for var in order:
        labels, rows = [], []
        if unit == "subject":
            sums: dict = {}
            for key, table in per_trial:
                subject = (subjects or {}).get(key, key)
                curve, weight = table[var]
                s = sums.setdefault(subject, [np.zeros(np.shape(curve)), 0.0])
                if weight > 0:  # a trial without a usable stride adds nothing (its mean is NaN)
                    s[0] = s[0] + weight * curve
                    s[1] += weight
            for subject, (total, weight) in sums.items():
                labels.append(subject)
                rows.append(total / weight if weight > 0 else np.full(np.shape(total), np.nan))
        else:
            for key, table in per_trial:
                curves, stride_labels = table[var]
                keep = np.isfinite(curves).all(axis=1)
                rows.extend(curves[keep])
                labels.extend(f"{key}:{lab}" for lab, k in zip(stride_labels, keep, strict=True) if k)
        group.rows[var] = labels
        group.curves[var] = np.array(rows, dtype=float)
        group.units[var] = _unit(var)
    if not group.curves:
        raise InputError("no clinical angle, moment or power curves"
                         + (" matching `variables`" if variables else ""), folder)
    return group


def _wanted(name: str, patterns) -> bool:
    return not patterns or any(fnmatch.fnmatchcase(name, p) for p in patterns)


def _trial_key(path: Path, folder: Path) -> str:
    """The trial's name in the report: its sub-folder, or the file stem for curves at the top."""
    parent = path.parent.relative_to(folder).as_posix()
    return path.name[: -len("_cycles.csv")] if parent == "." else parent


def _subject_curves(path: Path, side: str, folder: Path):
    """(trial key, {name: (mean curve (nodes,), strides)}) of one trial.

    The mean of the strides of the trial's strides table (the smaller file),
    or else its cycles table's mean weighted by its number of strides.
    """
    if _strides_file(path) is not None:
        key, table = _stride_curves(path, side, folder)
        out = {}
        for name, (curves, _) in table.items():
            ok = np.isfinite(curves).all(axis=1)
            n = int(ok.sum())
            out[name] = (curves[ok].mean(axis=0) if n else np.full(curves.shape[1], np.nan), float(n))
        return key, out
    df = _read_csv(path, ["side", "variable", "percent", "mean", "n_strides"])
    key = _trial_key(path, folder)
    clinical = [v for v in dict.fromkeys(df["variable"]) if CLINICAL_CURVE.search(str(v))]
    by = {}
    sides, names, mean, n = df["side"], df["variable"], df["mean"], df["n_strides"]
    for s in SIDES:
        rows = np.flatnonzero(sides == s)
        for v in clinical:
            idx = rows[names[rows] == v]
            if idx.size:
                by[(s, v)] = (mean[idx], float(n[idx[0]]))
    out = {}
    for name, var, s in _name_map(clinical, side):
        if name in out:  # pooled: already made from the other side's variable
            continue
        srcs = [(ss, f"{ss}_{name}") for ss in SIDES] if side == "pooled" and name != var else [(s, var)]
        pieces = [by[k] for k in srcs if k in by]
        if not pieces:
            continue
        weight = sum(w for _, w in pieces)
        curve = sum(w * c for c, w in pieces) / weight if weight > 0 else np.full(pieces[0][0].shape, np.nan)
        out[name] = (curve, weight)
    return key, out


def _stride_curves(path: Path, side: str, folder: Path):
    """(trial key, {name: (curves (strides, nodes), stride labels)}) of one trial's strides table."""
    strides = _strides_file(path)
    if strides is None:
        raise InputError("no per-stride curves beside this file (made by 'humanbody report' of this version; "
                         "report the trials again, or compare per subject)", path)
    df = _read_csv(strides) if strides.suffix == ".csv" else _read_parquet(strides)
    key = _trial_key(path, folder)
    clinical = [c for c in df if CLINICAL_CURVE.search(str(c))]
    if "side" not in df or "stride" not in df:
        raise InputError("per-stride curves need the columns side and stride", strides)
    values = np.column_stack([df[c] for c in clinical]) if clinical else np.empty((len(df["side"]), 0))
    by_side = {}
    for s in SIDES:
        rows = np.flatnonzero(df["side"] == s)
        if rows.size == 0:
            continue
        ids = df["stride"][rows]
        n = np.unique(ids).size
        if rows.size % n:
            raise InputError(f"the {s} strides do not all have the same number of points", strides)
        by_side[s] = (values[rows].reshape(n, rows.size // n, len(clinical)), [f"{s}:{int(i)}" for i in
                                                                                 np.unique(ids)])
    index = {v: i for i, v in enumerate(clinical)}
    out = {}
    for name, var, s in _name_map(clinical, side):
        if name in out:
            continue
        srcs = [(ss, f"{ss}_{name}") for ss in SIDES] if side == "pooled" and name != var else [(s, var)]
        srcs = [(ss, v) for ss, v in srcs if ss in by_side and v in index]
        if not srcs:
            continue
        curves = np.concatenate([by_side[ss][0][:, :, index[v]] for ss, v in srcs])
        labels = [lab for ss, _ in srcs for lab in by_side[ss][1]]
        out[name] = (curves, labels)
    return key, out


def check_groups(groups: list[Group], paired: bool = False) -> list[str]:
    """The variables to compare; InputError when the groups cannot be compared.

    Every group must have the same variables, every curve the same number
    of nodes and no missing value, every group at least 2 curves per
    variable; paired groups exactly the same subjects.

    Parameters
    ----------
    groups : list of Group
        The groups to compare (at least 2).
    paired : bool
        The groups must have the same subjects (rows) for every variable.

    Returns
    -------
    list of str
        The variables the groups share, in the first group's order.
    """
    if len(groups) < 2:
        raise InputError(f"give at least 2 groups to compare, got {len(groups)}")
    first = groups[0]
    for g in groups[1:]:
        a, b = set(first.variables), set(g.variables)
        if a != b:
            only = sorted(a - b)[:3] or sorted(b - a)[:3]
            where = first.name if a - b else g.name
            common = sorted(a & b)
            hint = ("; `variables` chooses the ones both have, e.g. `variables` '*_deg'"
                    if any(v.endswith("_deg") for v in common) else "; `variables` chooses the ones both have")
            raise InputError(f"groups {first.name!r} and {g.name!r} have different variables "
                             f"(only {where!r} has {', '.join(only)}){hint}")
    for g in groups:
        for var, Y in g.curves.items():
            if Y.shape[0] < 2:
                raise InputError(f"group {g.name!r} has {Y.shape[0]} curve(s) of {var}: a group needs at least 2",
                                 g.source)
            bad = ~np.isfinite(Y).all(axis=1)
            if bad.any():
                raise InputError(f"group {g.name!r}: the {var} curve of {g.rows[var][int(np.argmax(bad))]} has "
                                 f"missing values (NaN)", g.source)
            if Y.shape[1] != first.curves[var].shape[1]:
                raise InputError(f"groups {first.name!r} and {g.name!r} have cycles of different lengths "
                                 f"({first.curves[var].shape[1]} and {Y.shape[1]} points)")
    if paired:
        if len(groups) != 2:
            raise InputError("paired compares exactly 2 groups", option="paired")
        for var in first.variables:
            a, b = first.rows[var], groups[1].rows[var]
            if sorted(a) != sorted(b) or len(set(a)) != len(a):
                raise InputError(f"paired needs the same subjects in both groups ({var}: "
                                 f"{len(set(a) ^ set(b))} not in both)", option="paired")
    return first.variables


def paired_rows(a: Group, b: Group, var: str) -> tuple[np.ndarray, np.ndarray]:
    """The two groups' curves of ``var`` with the rows in the same subject order.

    Parameters
    ----------
    a, b : Group
        Two groups of the same subjects.
    var : str
        The variable.

    Returns
    -------
    ya, yb : ndarray, shape (curves, nodes)
        The curves of a, and those of b reordered to a's subjects.
    """
    order = {s: i for i, s in enumerate(b.rows[var])}
    idx = [order[s] for s in a.rows[var]]
    return a.curves[var], b.curves[var][idx]

"""The groups of a comparison from a report manifest (``humanbody compare --manifest M --by COLUMN``).

:func:`manifest_groups` reads the manifest (:func:`humanbody.report.inputs.manifest_table`),
checks the columns asked for, makes its paths absolute (each group's own
manifest lives in another folder) and splits its rows into groups: one per
value of the ``by`` column, or per combination of two columns' values (two
factors), or one group of every trial (a regression).  :func:`group_subjects`
names each trial's subject and :func:`group_regressor` reads the regressor's
value of each trial and subject.  ``humanbody compare`` reports each group
(:func:`humanbody.report.batch.run_batch`) and reads it back
(:func:`humanbody.stats.groups.read_report`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from ..errors import InputError
from .inputs import MANIFEST_COLUMNS, manifest_number, manifest_table

__all__ = ["ManifestGroup", "manifest_groups", "group_subjects", "group_regressor", "unique_names"]


@dataclass(frozen=True)
class ManifestGroup:
    """One group of a manifest's trials.

    Attributes
    ----------
    value : str          the group's value of the ``by`` column(s), joined by " / " ("all" without ``by``)
    name : str           a folder name for its report (unique among the groups)
    rows : DataFrame     its rows of the manifest (paths absolute)
    manifest : DataFrame its rows in the manifest's own columns (:data:`humanbody.report.inputs.MANIFEST_COLUMNS`)
    """

    value: str
    name: str
    rows: pd.DataFrame
    manifest: pd.DataFrame

    @property
    def cells(self) -> tuple:
        """The group's value of each ``by`` column."""
        return tuple(self.value.split(" / "))


def unique_names(paths) -> list[str]:
    """The last part of each path (``"group"`` when empty), numbered where it repeats (``walk``, ``walk_2``).

    Parameters
    ----------
    paths : iterable of str or os.PathLike
        The groups' folders (or files).

    Returns
    -------
    list of str
        One unique name per path, in order.
    """
    names: list[str] = []
    for p in paths:
        base = Path(p).resolve().name or "group"
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def manifest_groups(path, by=(), regress: str | None = None) -> list[ManifestGroup]:
    """The groups of the manifest ``path``: one per value of the ``by`` column (or pair of columns' values).

    Parameters
    ----------
    path : str or os.PathLike
        A report manifest (CSV with a ``trial`` column; :mod:`humanbody.report.inputs`).
    by : sequence of str
        One column (groups) or two (two factors); none: one group "all" (a regression).
    regress : str, optional
        A column every trial must have a number in (checked by :func:`group_regressor`).

    Returns
    -------
    list of ManifestGroup
        In the order their values first appear; rows whose ``by`` value is empty are left out.
    """
    path = Path(path)
    table = manifest_table(path)
    cols = [b.strip().lower() for b in by]
    asked = [(c, "by") for c in cols] + ([(regress.strip().lower(), "regress")] if regress else [])
    for col, option in asked:
        if col not in table.columns:
            raise InputError(f"manifest has no column {col!r} (`{option}`)", path)
    if "trial" not in table.columns:
        raise InputError("manifest has no 'trial' column", path)
    for col in ("mass", "height", "treadmill_speed"):  # here, naming this file: each group's copy is written elsewhere
        if col in table.columns:
            for line, value in enumerate(table[col], start=2):
                manifest_number(value, col, line, path)
    base = path.parent.resolve()
    for col in ("trial", "static", "grf", "subject"):  # the group manifests live elsewhere: make paths absolute
        if col in table.columns:
            table[col] = [str(base / v.strip()) if v.strip() and not Path(v.strip()).is_absolute() else v
                          for v in table[col]]
    keys = ([tuple(str(table[b].iloc[i]).strip() for b in cols) for i in range(len(table))] if cols
            else [("all",)] * len(table))
    table = table.assign(_cell=[" / ".join(k) for k in keys])
    table = table[[all(k) for k in keys]]
    values = list(dict.fromkeys(table["_cell"]))
    if len(cols) == 1 and len(values) < 2:
        raise InputError(f"column {list(by)[0]!r} names {len(values)} group(s); at least 2 are needed", path)
    if len(cols) == 2:
        for i, b in enumerate(cols):
            levels = {k[i] for k in keys if all(k)}
            if len(levels) < 2:
                raise InputError(f"column {b!r} has {len(levels)} value(s): a factor needs at least 2", path)
    groups = []
    for value, name in zip(values, unique_names(values), strict=True):
        rows = table[table["_cell"] == value]
        keep = [c for c in rows.columns if c in MANIFEST_COLUMNS]
        groups.append(ManifestGroup(value, name.replace(" / ", "__"), rows, rows[keep]))
    return groups


def group_subjects(group: ManifestGroup, tasks) -> dict | None:
    """Each trial's subject: its ``subject_id``, else the stem of its measurements file (``subject``); None
    when the manifest has neither column.

    Parameters
    ----------
    group : ManifestGroup
        A group of the manifest (its rows and columns).
    tasks : sequence of TrialTask
        The group's tasks, in its rows' order (:func:`humanbody.report.inputs.read_manifest`).

    Returns
    -------
    dict or None
        Trial key -> subject name (the trial's key when its cell is empty).
    """
    rows = group.rows
    if "subject_id" in rows.columns:
        return {t.key: (s.strip() or t.key) for t, s in zip(tasks, rows["subject_id"], strict=True)}
    if "subject" in rows.columns:  # one measurements file per subject (.vsk, TOML): its stem names him
        return {t.key: (Path(s.strip()).stem if s.strip() else t.key) for t, s in zip(tasks, rows["subject"], strict=True)}
    return None


def group_regressor(group: ManifestGroup, tasks, column: str, subjects: dict | None, path) -> dict:
    """The regressor's value of each trial and of each subject (the mean of his trials').

    Parameters
    ----------
    group : ManifestGroup
        A group of the manifest (its rows and columns).
    tasks : sequence of TrialTask
        The group's tasks, in its rows' order.
    column : str
        The manifest column holding the regressor.
    subjects : dict or None
        Trial key -> subject (:func:`group_subjects`); None: each trial its own subject.
    path : str or os.PathLike
        The manifest (named in the error).

    Returns
    -------
    dict
        Trial key -> value, and subject -> mean value (a stride takes its trial's value).
    """
    col = column.strip().lower()
    per: dict = {}
    trial_values = {}
    for t, raw in zip(tasks, group.rows[col], strict=True):
        try:
            x = float(str(raw).strip())
        except ValueError:
            x = float("nan")
        if not np.isfinite(x):
            raise InputError(f"column {col!r} of trial {t.key}: {str(raw).strip()!r} is not a number "
                             "(`regress` needs a number for every trial)", path)
        per.setdefault((subjects or {}).get(t.key, t.key), []).append(x)
        trial_values[t.key] = x
    return {**trial_values, **{k: float(np.mean(v)) for k, v in per.items()}}

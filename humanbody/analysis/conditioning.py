"""Stage "condition" of a marker trial: marker set (drafted when none matches), functional hips, gaps, filter."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pandas as pd

from ..errors import IGNORED, InputError, Note
from ..markers.conditioning import condition as condition_markers
from ..markers.functional_joint import functional_hips
from ..markers.markerset import (
    MarkerSet,
    detect_markerset,
    resolve_markerset,
    undetermined_segments,
)
from ..options import MARKERSET_CUTOFF, AnalysisOptions
from ..signal import CUTOFF_HZ
from ..trial import Trial
from .log import Logbook
from .values import Conditioned


def condition(trial: Trial, options: AnalysisOptions, log: Logbook, height: float | None = None) -> Conditioned:
    """Stage "condition" of a marker trial: marker set, unused markers out, gaps filled, low-pass filtered.

    The marker set is resolved (:func:`humanbody.markers.markerset.resolve_markerset`; when none is given and
    no built-in set matches the names, one is drafted from the static trial, else from the trial itself:
    :func:`drafted_markerset`, ``height`` the subject's standing height in m if known),
    a hip calibration trial gives functional hip centres
    (:func:`humanbody.markers.functional_joint.functional_hips`, the hip trial
    read by :meth:`humanbody.trial.Trial.read` under the trial's axes mapping), the
    markers the set does not use are left out and the rest conditioned
    (:func:`humanbody.markers.conditioning.condition`).

    Parameters
    ----------
    trial : Trial
        A marker trial (stage "read"), ground axes.
    options : AnalysisOptions
        The analysis' options: ``markerset``, ``hip_trial``, ``max_gap``, ``cutoff_hz``, ``fill``.
    log : Logbook
        What the stages before said; this stage's lines are added to it.
    height : float, optional
        The subject's standing height (m), for a marker set drafted from the markers; None: not known.

    Returns
    -------
    Conditioned
        The conditioned trial with its marker set, matched names, required markers and the cut-off used.
    """
    path, messages = trial.source, []  # the user's lines, added to the log in their order
    ground = trial.to_frame("ground")
    messages.append(f"axes: {trial.axes.describe()}")
    names = ground.attrs.get("markers") or [c[:-2] for c in ground.columns if c.endswith("_x")]
    spec: str | MarkerSet | None = options.markerset
    if spec is None:
        spec = drafted_markerset(names, ground, trial, options, log, height)
    mset, found = resolve_markerset(spec, names, path, required=())
    found = _with_samples(ground, found, messages)
    required = _present_required(mset, found, path, messages)
    log.message("condition", *messages)
    messages, details = [], []
    if options.hip_trial is not None:
        mset = _with_functional_hips(mset, options.hip_trial, trial.axes, log)
    clusters = {seg: [found[m] for m in spec.markers if m in found]
                for seg, spec in mset.segments.items() if spec.rule == "cluster"}
    used = set(found.values())
    unused = [m for m in names if m not in used]
    if unused:  # markers the set does not use (unlabeled ones included): counted, never filled or filtered
        ground = ground.drop(columns=[f"{m}_{a}" for m in unused for a in "xyz" if f"{m}_{a}" in ground.columns])
        ground.attrs["markers"] = [m for m in names if m in used]
        unlabeled = sum(1 for m in unused if m.startswith("*") or m.lower().startswith("unlabeled"))
        messages.append(Note(f"ignored {len(unused)} marker(s) the marker set {mset.name!r} does not use"
                             + (f" ({unlabeled} unlabeled)" if unlabeled else ""), IGNORED))
        details = [f"ignored markers: {', '.join(unused)}"]
    markers, report = condition_markers(ground, max_gap=options.max_gap, cutoff_hz=marker_cutoff(options.cutoff_hz, mset),
                                        fill=options.fill, segments={k: v for k, v in clusters.items() if len(v) >= 3})
    del ground
    log.message("condition", *messages, *report.summary_lines())
    log.detail("condition", *details, *[f"conditioning: {line}" for line in report.lines()])
    out = replace(Trial.from_frame(markers, axes=trial.axes, lab_attrs=trial.attrs), source=trial.source,
                  forces=trial.forces, log=trial.log, events=trial.events)
    return Conditioned(trial=out, markerset=mset, found=found, required=required,
                       cutoff_hz=None if report.filter is None else report.filter.cutoff_hz)


def drafted_markerset(names, ground: pd.DataFrame, trial: Trial, options: AnalysisOptions, log: Logbook,
                      height: float | None = None) -> MarkerSet:
    """The built-in set that matches ``names`` (:func:`~humanbody.markers.markerset.detect_markerset`), else a
    set drafted for them (:func:`humanbody.tools.draft.draft_markerset`) from ``options.static`` (read under the
    trial's axes) or, without one, from the trial's stillest standing second (``ground``: the trial in ground
    axes, m), with the standing ``height`` (m) when known, else the height the draft estimates and says.

    Parameters
    ----------
    names : sequence of str
        The trial's marker names.
    ground : pandas.DataFrame
        The trial's markers in ground axes (m, ``<name>_x/_y/_z`` columns with ``time``, s): the draft's
        standing second when no static trial is given.
    trial : Trial
        The trial (stage "read"): its file names the messages, its lab -> ground mapping reads the static trial.
    options : AnalysisOptions
        The analysis' options: ``static``.
    log : Logbook
        Takes the draft's lines (stage "condition").
    height : float, optional
        The subject's standing height (m); default: the height the draft estimates (said so).

    Returns
    -------
    MarkerSet
        The built-in set, or the drafted one.

    Raises
    ------
    InputError
        Neither a built-in set matches nor can one be drafted: one line naming the closest set and why the
        draft failed, and ``humanbody markerset init`` / ``--markerset`` as the way on.
    """
    from ..tools.draft import draft_markerset  # lazy: the drafting rules, only for a lab's own names

    try:
        return detect_markerset(names, trial.source)
    except InputError as err:
        closest = err.message.split(";")[0]
    source = options.static if options.static is not None else trial.source
    try:
        if options.static is not None:
            static = Trial.read(options.static, axes=trial.axes.spec)
            if static.kind != "markers":
                raise InputError("static trial must hold marker trajectories", options.static)
            frame = static.to_frame("ground")
        else:
            frame = ground
        frame.attrs.setdefault("source", os.fspath(source))
        draft = draft_markerset(frame, height=height)
    except InputError as err:
        where = "" if options.static is None else f" (from {os.path.basename(os.fspath(options.static))})"
        # the way on: none when the reason names an option (`height`, `axes`, `markerset`); markerset init with a
        # standing trial when the walk had no standing pose; else a set written for these markers (init would
        # fail the same way on them)
        raise InputError(f"{closest}; drafting a set for them{where} failed: {err.message}" + (
            "" if "`" in err.message else
            "; draft one with humanbody markerset init STATIC --out FILE (or name a set with `markerset`)"
            if "give a standing (static) trial" in err.message else
            "; write a marker set for these markers (.toml, docs/markersets.md) and give its path with `markerset`"),
            trial.source) from None
    assert draft.markerset is not None  # a draft holds its set as loaded
    used = sum(1 for m in draft.markers if m.used)
    log.message("condition", f"marker set: no built-in set matches, drafted {draft.markerset.name!r} from "
                f"{os.path.basename(os.fspath(source))} ({used} of {len(draft.markers)} markers"
                + (f", standing height {height:.2f} m" if height is not None else "")
                + "); to check and keep it: humanbody markerset init")
    if draft.window:
        log.detail("condition", f"marker set draft: {draft.window}")
    log.detail("condition", *[f"marker set draft: {line}" for line in draft.rules + [f"CHECK {c}" for c in draft.checks]])
    return draft.markerset


def marker_cutoff(cutoff_hz: float | str | None, mset: MarkerSet) -> float | str | None:
    """The marker filter's cut-off for ``mset`` (Hz; None: no filter): ``cutoff_hz`` as given, or for
    ``"set"`` (the default) the set's ``parameters["marker_cutoff_hz"]`` (0: none; the Plug-in Gait sets,
    whose model computes from the markers as stored) else ``CUTOFF_HZ``.

    Parameters
    ----------
    cutoff_hz : float, str or None
        ``options.cutoff_hz``: Hz, "auto", "set" or None.
    mset : MarkerSet
        The trial's marker set: its ``parameters["marker_cutoff_hz"]`` (Hz) when it names one.

    Returns
    -------
    float, str or None
        The cut-off (Hz), "auto", or None (no filter).
    """
    if cutoff_hz != MARKERSET_CUTOFF:
        return cutoff_hz
    own = mset.parameters.get("marker_cutoff_hz")
    if own is None:
        return CUTOFF_HZ
    return float(own) or None


def _with_functional_hips(mset: MarkerSet, hip_trial, axes, log: Logbook) -> MarkerSet:
    """``mset`` with the functional hip centres of ``hip_trial`` (:func:`humanbody.markers.functional_joint.functional_hips`).

    The hip trial is read like the trial (:meth:`humanbody.trial.Trial.read`, under its lab -> ground
    ``axes``) and given in its lab axes (``to_frame()``, the reader's table to the last bit: the mapping
    is a signed permutation).  The SCoRE offsets live in the pelvis frame, which a rotation of the lab
    does not change: in ground axes they agree to 1e-15 m, but not to the last bit, and the results
    (8 significant digits) would then differ in their last digit from those the lab axes always gave.
    """
    try:
        hips = Trial.read(hip_trial, axes=axes.spec)
        if hips.kind != "markers":
            raise InputError("hip calibration trial must hold marker trajectories", hip_trial)
        mset, lines = functional_hips(mset, hips.to_frame())
    except InputError as err:
        raise err.with_path(hip_trial) from None
    log.message("condition", *lines)
    return mset


def _with_samples(ground: pd.DataFrame, found: dict, messages) -> dict:
    """``found`` without the markers whose columns hold no valid sample (listed in ``messages``).

    Video-keypoint writers keep a column for every keypoint of their
    skeleton, empty (or NaN) when it was never triangulated; such a marker
    counts as missing, like one the file does not name.
    """
    names = list(found.values())
    where = ground.columns.get_indexer([f"{col}_{a}" for col in names for a in "xyz"]).reshape(-1, 3)
    values = ground.to_numpy(dtype=float, copy=False)  # the trial's one float block: a view
    empty = [col for col, w in zip(names, where, strict=True)
             if (w >= 0).all() and not np.isfinite(values[:, w]).all(axis=1).any()]
    if empty:
        messages.append(f"{len(empty)} marker(s) without a valid sample, left out: {', '.join(empty)}")
    return {k: v for k, v in found.items() if v not in empty}


def _present_required(mset, found, path, messages) -> list:
    """The set's required markers the trial has; the missing ones listed in ``messages``.

    Missing required markers are not fatal while the markers present still
    determine every tracked segment through its joints
    (:func:`humanbody.markers.markerset.undetermined_segments`).
    """
    missing = [m for m in mset.required if m not in found]
    if missing:
        lost = undetermined_segments(mset, found)
        if lost:
            seg, pts = lost[0]
            raise InputError(f"required marker {missing[0]!r} of marker set {mset.name!r} is missing and "
                             f"segment {seg!r} keeps {pts} point(s): too few to determine it through its "
                             "joints", path)
        notes = mset.parameters.get("missing_markers_note") or {}
        if all(m in notes for m in missing):  # the set says what it uses instead (Plug-in Gait without heels)
            said = "; ".join(dict.fromkeys(str(notes[m]) for m in missing))
            messages.append(f"marker set {mset.name!r} without {', '.join(missing)}: {said}")
        else:
            messages.append(f"marker set {mset.name!r}: {len(missing)} required marker(s) missing "
                            f"({', '.join(missing)}); every tracked segment is still determined through its joints")
    return [m for m in mset.required if m in found]

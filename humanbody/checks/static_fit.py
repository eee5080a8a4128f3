"""Does the static trial fit the trial's subject?  Its calibration's marker residual and body dimensions.

Each segment's marker cluster is calibrated on the static trial and fitted
rigidly to the trial's markers in every frame
(:func:`humanbody.markers.tracking.track`); the fit's residual is the
distance between where the static trial puts each marker and where the
trial has it.  On the subject's own static trial it is a few millimetres
(skin motion, marker noise: the shared treadmill walk 3.1 mm); another
subject's static has other segment lengths and marker places, and the
residual is ten times that (30.6 mm on the same walk).  The trial is
refused when the median of the per-frame RMS residuals over every segment
exceeds :data:`MAX_RESIDUAL_MM`.

The body's dimensions are compared too: every distance between two markers
of one segment (5 cm apart or more: the pelvis width R.ASIS-L.ASIS, the
shoulder width, the foot's heel-toe length, the thigh and shank clusters'
spans) as the static's calibration has it against its median over the
trial's frames.  Skin and marker noise move them by a few per cent (the
shared walk with its own static: median 0.7 % over 54 distances); another
subject's pelvis, shoulders and feet differ by tens of per cent (the sample
static on the shared walk: 21 %; the shared static on the sample walk:
17 %).  The trial is refused when the median relative difference exceeds
:data:`MAX_DIMENSION_PCT`.

Video keypoints (a marker set with ``keypoints = true``) jitter by 2-4 cm
and sit where each frame's detector puts the joint: their residual may reach
:data:`KEYPOINT_MAX_RESIDUAL_MM`.  Their distances change with the pose, and
in both directions: on Pose2Sim's demo (a balancing trial and the standing
static recorded with it, tests/data/pose2sim) the shoulders are 18 % narrower
than in the static (the arms came down), the heel-ankle and trunk distances
10-30 % shorter, the thighs 13 % and the neck-head 24 % longer.  So a keypoint
trial's dimensions are its skeleton: the distances within each segment and,
for every keypoint, to the nearest keypoint of the nearest segment above it
that has one (the bones: hip-knee, knee-ankle, ankle-heel, shoulder-elbow,
elbow-wrist, neck-head, ...), each as the static has it against its median
over the trial's frames.  The static's scale against the trial's is the
median over the segments of each segment's median signed difference
(:data:`KEYPOINT_MAX_SCALE_PCT`; each segment counts once): the pose's changes
cancel in it (Pose2Sim's demo with its own static: +3.3 %), another
subject's size does not (the demo's second, smaller participant's static:
+38.7 %).
"""

from __future__ import annotations

import os

import numpy as np
import pandas as pd

from . import refusal

__all__ = ["KEYPOINT_MAX_RESIDUAL_MM", "KEYPOINT_MAX_SCALE_PCT", "MAX_DIMENSION_PCT", "MAX_RESIDUAL_MM",
           "check_static_fit", "keypoint_dimensions", "segment_dimensions"]

#: Largest median RMS marker residual (mm) of a static calibration on the trial.
MAX_RESIDUAL_MM = 15.0
#: Largest median relative difference (%) of the within-segment marker distances, static against trial.
MAX_DIMENSION_PCT = 8.0
#: Shortest marker distance (m) compared: shorter ones are mostly noise.
MIN_DISTANCE_M = 0.05
#: Video keypoint sets (``keypoints = true``): largest median RMS residual (mm).  Triangulated keypoints
#: jitter 2-4 cm and sit where each frame's detector puts the joint (Pose2Sim's demo balancing trial with its
#: own static: 27.9 mm); another subject's static leaves more (Pose2Sim's second participant: 128 mm; the
#: sample keypoint walk's subject 20 cm shorter: 52 mm; the demo trial scaled by 1.1: 47 mm).
KEYPOINT_MAX_RESIDUAL_MM = 40.0
#: Video keypoint sets: largest |median| of the signed relative differences (%) of the skeleton's keypoint
#: distances (:func:`keypoint_dimensions`), the static's scale against the trial's.  Jitter and the pose move
#: single distances by 10-30 % either way (Pose2Sim's demo: shoulders -18 %, thighs +13 %) but not their
#: median over the segments (+3.3 %; the sample keypoint walk with its own static jittered by 4 cm: 0.8 %);
#: another subject's static shifts them all one way (Pose2Sim's second participant: +38.7 %; the sample walk's
#: subject 20 cm shorter: +13.5 %; Pose2Sim's trial scaled by 0.85: -12.2 %).  What it misses: a subject 5-10 %
#: smaller or larger (the demo's trial scaled by 0.9: 7.0 %, by 1.05: 8.5 %; by 1.1 the residual refuses it).
KEYPOINT_MAX_SCALE_PCT = 10.0


def segment_dimensions(calibration, markers) -> pd.DataFrame:
    """The distances between the markers of each segment, in the static trial and in the trial.

    Parameters
    ----------
    calibration : humanbody.markers.calibration.Calibration
        The static trial's calibration: ``marker_pairs`` (each segment's
        markers two by two with their distance in the calibration pose, m,
        kept with the calibration) and ``names`` (marker -> name in the trials).
    markers : pandas.DataFrame
        The trial's markers (``<name>_x``, ``_y``, ``_z`` columns, m).

    Returns
    -------
    pandas.DataFrame
        One row per pair of markers of one segment seen in the trial and at
        least :data:`MIN_DISTANCE_M` apart in the static: ``segment``,
        ``a``, ``b``, ``static_m``, ``trial_m`` (median over the trial's
        frames), ``difference_pct`` = 100 (trial - static) / static.
    """
    rows = _dimension_rows(calibration, markers)
    return pd.DataFrame(rows, columns=["segment", "a", "b", "static_m", "trial_m", "difference_pct"])


def keypoint_dimensions(calibration, markers) -> pd.DataFrame:
    """A keypoint trial's skeleton, in the static trial and in the trial: :func:`segment_dimensions` and the bones.

    Parameters
    ----------
    calibration, markers
        As :func:`segment_dimensions`.

    Returns
    -------
    pandas.DataFrame
        :func:`segment_dimensions`'s rows, then one row per bone: each
        keypoint of a segment with the nearest (in the static) keypoint of
        the nearest segment above it that has keypoints (``segment`` names
        the lower one), the static's distance from the calibration pose
        (``origins + frames @ local``, m).
    """
    rows = _dimension_rows(calibration, markers) + _dimension_rows(calibration, markers, _bones(calibration))
    return pd.DataFrame(rows, columns=["segment", "a", "b", "static_m", "trial_m", "difference_pct"])


def _bones(calibration) -> tuple[tuple[str, str, str, float], ...]:
    """(segment, a, b, static distance m) from each keypoint of a segment to the nearest keypoint above it."""
    local, model = calibration.local, calibration.model
    where = {m: np.asarray(calibration.origins[s]) + np.asarray(calibration.frames[s]) @ np.asarray(p)
             for s, loc in local.items() for m, p in loc.items()}
    names, parents = list(model.names), np.asarray(model.parents)
    bones = []
    for segment, loc in local.items():
        up = int(parents[names.index(segment)]) if segment in names else 0
        while up and not local.get(names[up - 1]):
            up = int(parents[up - 1])
        if not up:
            continue
        above = list(local[names[up - 1]])
        for m in loc:
            gaps = [float(np.linalg.norm(where[m] - where[b])) for b in above]
            near = int(np.argmin(gaps))
            bones.append((segment, above[near], m, gaps[near]))
    return tuple(bones)


def _keypoint_scale(rows) -> float:
    """The static's scale against the trial's (%): the median over segments of each segment's median signed difference.

    Each segment counts once: a foot's six short heel, toe and ankle distances
    do not outvote the thighs and arms.
    """
    by: dict[str, list[float]] = {}
    for segment, *_, difference in rows:
        by.setdefault(segment, []).append(difference)
    return float(np.median([np.median(v) for v in by.values()]))


def _dimension_rows(calibration, markers, pairs=None) -> list[tuple[str, str, str, float, float, float]]:
    """The rows of :func:`segment_dimensions`, on arrays: the table's columns are looked up once.

    The pairs and their static distances come from the calibration
    (``Calibration.marker_pairs``, computed once per static trial; or the
    ``pairs`` given); a trial costs one column lookup, then one distance and
    median per pair.
    """
    pairs = calibration.marker_pairs if pairs is None else pairs
    base = {m: calibration.names.get(m, m) for pair in pairs for m in pair[1:3]}
    where = markers.columns.get_indexer([f"{base[m]}_{c}" for m in base for c in "xyz"]).reshape(-1, 3)
    cols = {m: w for m, w in zip(base, where, strict=True) if (w >= 0).all()}
    if not cols:
        return []
    values = markers.to_numpy(dtype=float, copy=False)
    rows = []
    for segment, a, b, static in pairs:
        if a not in cols or b not in cols or static < MIN_DISTANCE_M:
            continue
        seen = np.linalg.norm(values[:, cols[a]] - values[:, cols[b]], axis=1)
        if not np.isfinite(seen).any():
            continue
        trial = float(np.nanmedian(seen))
        rows.append((segment, a, b, static, trial, 100.0 * (trial - static) / static))
    return rows


def check_static_fit(static, tracking, *, skip: bool = False, calibration=None, markers=None) -> str | None:
    """One line on how the static trial's calibration fits the trial; refused when it is another subject's.

    ``tracking`` has ``residuals`` (DataFrame: ``time`` and one column per
    segment, m): refused past :data:`MAX_RESIDUAL_MM`.  With the static's
    ``calibration`` and the trial's ``markers``, the segments' dimensions
    (:func:`segment_dimensions`) too: refused past :data:`MAX_DIMENSION_PCT`.
    None when there is nothing to judge.

    Parameters
    ----------
    static : str or os.PathLike
        The static trial's file.
    tracking : Tracking
        The trial's tracking (its residuals per segment, m).
    calibration : Calibration, optional
        The static trial's calibration (the segments' dimensions).
    markers : pandas.DataFrame, optional
        The trial's markers (m, ground axes).
    skip : bool
        --skip-check static: say what fails instead of refusing.

    Returns
    -------
    str or None
        The ``check static:`` line.

    Raises
    ------
    InputError
        Past either limit (without ``skip``).
    """
    res = tracking.residuals.drop(columns="time")
    values = res.to_numpy(dtype=float)
    if not res.shape[1] or not np.isfinite(values).any():
        return None
    med = float(np.nanmedian(values)) * 1000.0
    name = os.path.basename(os.fspath(static))
    keypoints = bool(getattr(getattr(calibration, "markerset", None), "keypoints", False))
    max_res, max_dim = (KEYPOINT_MAX_RESIDUAL_MM, KEYPOINT_MAX_SCALE_PCT) if keypoints else (MAX_RESIDUAL_MM,
                                                                                            MAX_DIMENSION_PCT)
    rows = [] if calibration is None or markers is None else _dimension_rows(calibration, markers)
    if keypoints and rows:
        rows += _dimension_rows(calibration, markers, _bones(calibration))
    diffs = np.array([r[5] for r in rows], dtype=float)
    dim = None
    if len(diffs):  # keypoints: the scale (signed median of the segments' medians); markers: the median |difference|
        dim = abs(_keypoint_scale(rows)) if keypoints else float(np.median(np.abs(diffs)))
    said = (f"; segment {'keypoint distances scaled' if keypoints else 'marker distances'} within {dim:.1f} % of "
            f"the trial's, at most {max_dim:g} %" if dim is not None else "")
    far, apart = med > max_res, dim is not None and dim > max_dim
    if (far or apart) and not skip:
        why = []
        if far:
            worst = (res.median() * 1000.0).sort_values(ascending=False)
            top = ", ".join(f"{seg} {v:.0f} mm" for seg, v in worst.head(3).items())
            why.append(f"its calibration leaves a median marker residual of {med:.1f} mm on the trial (its own "
                       f"static: a few mm; at most {max_res:g} mm; largest {top})")
        if apart and dim is not None:
            why.append(_apart(rows, dim, max_dim, keypoints))
        raise refusal("static", f"does not fit this trial's subject: {' and '.join(why)}", static,
                      instead="give the subject's own `static`")
    if far or apart:
        return f"check static: {name} does not fit the trial's subject ({med:.1f} mm{said}; --skip-check static)"
    return (f"check static: {name} fits the trial's subject (median marker residual at most {max_res:g} mm"
            f"{said})")


def _apart(rows, dim: float, max_dim: float, keypoints: bool) -> str:
    """The refusal's words on the dimensions: the figure, its limit and two of the distances compared."""
    dims = pd.DataFrame(rows, columns=["segment", "a", "b", "static_m", "trial_m", "difference_pct"])
    order = dims["static_m"] if keypoints else dims["difference_pct"].abs()  # keypoints: the longest (the bones)
    big = dims.reindex(order.sort_values(ascending=False).index).head(2)
    pairs = ", ".join(f"{r.a}-{r.b} {r.static_m * 100:.1f} cm in the static, {r.trial_m * 100:.1f} cm in "
                      "the trial" for r in big.itertuples())
    if keypoints:
        return (f"its keypoint skeleton is {dim:.1f} % {'smaller' if _keypoint_scale(rows) > 0 else 'larger'} than "
                f"the trial's (median over {dims['segment'].nunique()} segments of {len(dims)} keypoint distances; "
                f"at most {max_dim:g} %; {pairs})")
    return (f"the distances between the markers of its segments differ from the trial's by {dim:.1f} % "
            f"(median of {len(dims)}; at most {max_dim:g} %; {pairs})")

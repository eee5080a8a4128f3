"""Gait Profile Score and Gait Variable Scores (Baker et al. 2009).

Baker R, McGinley JL, Schwartz MH, et al. The Gait Profile Score and
Movement Analysis Profile. Gait & Posture 30 (2009) 265-269.

For side ``s`` and each of the nine kinematic variables ``v`` of
:data:`GPS_VARIABLES`, with ``x_s,v(t)`` the side's mean stride curve
(:func:`humanbody.gait.normalize_cycles`) and ``n_v(t)`` the normative mean,
both at the normative percents ``t_1 .. t_T``:

    GVS_s,v = sqrt( (1/T) sum_t (x_s,v(t) - n_v(t))^2 )         (Gait Variable Score, deg)
    GPS_s   = sqrt( (1/9) sum_v GVS_s,v^2 )                      (side GPS)
    GPS     = sqrt( (1/18) sum_s sum_v GVS_s,v^2 )               (overall GPS)

The pelvis curves are the pelvis over that side's strides; pelvic obliquity
and rotation are taken in the side's own sense (the left side's are the
negated ``pelvis_obliquity_deg`` and ``pelvis_rotation_deg``), as Plug-in
Gait's and the normative data's are.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cycles import curve_index
from .normative import normative_curves

__all__ = ["GPS_VARIABLES", "SIDE_SENSE", "side_curve", "gait_variable_scores", "gait_profile_score",
           "gps_columns", "column_of"]

#: The nine variables of the GPS (side-less clinical names, degrees).
GPS_VARIABLES = ("pelvis_tilt_deg", "pelvis_obliquity_deg", "pelvis_rotation_deg",
                 "hip_flexion_deg", "hip_adduction_deg", "hip_internal_rotation_deg",
                 "knee_flexion_deg", "ankle_dorsiflexion_deg", "foot_progression_deg")

#: Side-less variable -> factor per side that turns our column into the side's own sense.
SIDE_SENSE = {"pelvis_obliquity_deg": {"right": 1.0, "left": -1.0},
              "pelvis_rotation_deg": {"right": 1.0, "left": -1.0}}

SIDES = ("right", "left")


def column_of(variable: str, side: str) -> str:
    """The cycles-table variable of a side-less name for one side (pelvis columns carry no side).

    Parameters
    ----------
    variable : str
        A side-less clinical name (e.g. "knee_flexion_deg").
    side : {"right", "left"}
        The side.

    Returns
    -------
    str
        The column name ("right_knee_flexion_deg"; pelvis names unchanged).
    """
    return variable if variable.startswith("pelvis_") else f"{side}_{variable}"


def side_curve(cycles: pd.DataFrame, variable: str, side: str, curves: dict | None = None):
    """(percent, mean) of a side-less variable over one side's strides, in the side's own sense.

    Parameters
    ----------
    cycles : DataFrame
        :func:`humanbody.gait.normalize_cycles` output.
    variable : str
        Side-less clinical name (``knee_flexion_deg``).
    side : {"right", "left"}
        The side whose strides are used.
    curves : dict, optional
        The rows of each curve (:func:`humanbody.gait.cycles.normalized_curves`); default: found in ``cycles``.

    Returns
    -------
    tuple
        (percent, mean) arrays, or (None, None) when the cycles table lacks it or it has no usable stride.
    """
    curves = curve_index(cycles) if curves is None else curves
    rows = curves.get((side, column_of(variable, side)))
    if rows is None or not len(rows):
        return None, None
    mean = cycles["mean"].to_numpy(dtype=float)[rows]
    if not np.isfinite(mean).any():
        return None, None
    sense = SIDE_SENSE.get(variable, {}).get(side, 1.0)
    return cycles["percent"].to_numpy(dtype=float)[rows], sense * mean


def gait_variable_scores(cycles: pd.DataFrame, normative: pd.DataFrame | dict, curves: dict | None = None) -> dict:
    """GVS (deg) of each side and GPS variable: ``{(side, variable): score}`` (NaN when a curve is missing).

    Parameters
    ----------
    cycles : pandas.DataFrame
        :func:`humanbody.gait.normalize_cycles` output (angles in degrees).
    normative : pandas.DataFrame or dict
        Variable, percent, mean, sd (:mod:`humanbody.gait.normative`), or its
        :func:`~humanbody.gait.normative.normative_curves`.
    curves : dict, optional
        The rows of each curve of ``cycles`` (:func:`humanbody.gait.cycles.normalized_curves`).

    Returns
    -------
    dict
        ``(side, variable)`` -> GVS (deg).
    """
    rows = curve_index(cycles) if curves is None else curves
    curves = normative_curves(normative)
    scores = {}
    for variable in GPS_VARIABLES:
        norm = curves.get(variable)
        for side in SIDES:
            pct, mean = side_curve(cycles, variable, side, rows)
            if pct is None or norm is None:
                scores[(side, variable)] = np.nan
                continue
            t, norm_mean, _ = norm
            x = np.interp(t, pct, mean, left=np.nan, right=np.nan)
            d = x - norm_mean
            scores[(side, variable)] = float(np.sqrt(np.mean(d ** 2))) if np.isfinite(d).all() else np.nan
    return scores


def gait_profile_score(scores: dict) -> dict:
    """Summary columns from :func:`gait_variable_scores`: overall and side GPS and every GVS (deg).

    A side GPS needs its nine GVS, the overall GPS all eighteen; otherwise NaN.

    Parameters
    ----------
    scores : dict
        ``(side, variable)`` -> GVS (deg), :func:`gait_variable_scores`.

    Returns
    -------
    dict
        :func:`gps_columns` -> deg (``<side>_gvs_<variable>`` for every GVS).
    """
    def rms(values):
        v = np.asarray(values, dtype=float)
        return float(np.sqrt(np.mean(v ** 2))) if v.size and np.isfinite(v).all() else np.nan

    row = {"gait_profile_score_deg": rms([scores.get((s, v), np.nan) for s in SIDES for v in GPS_VARIABLES])}
    for side in SIDES:
        row[f"{side}_gait_profile_score_deg"] = rms([scores.get((side, v), np.nan) for v in GPS_VARIABLES])
    for side in SIDES:
        for v in GPS_VARIABLES:
            row[f"{side}_gvs_{v}"] = scores.get((side, v), np.nan)
    return row


def gps_columns() -> list[str]:
    """Summary columns of the GPS, in order.

    Returns
    -------
    list of str
        The overall, right and left GPS, then each side's GVS per variable (deg).
    """
    return (["gait_profile_score_deg", "right_gait_profile_score_deg", "left_gait_profile_score_deg"]
            + [f"{s}_gvs_{v}" for s in SIDES for v in GPS_VARIABLES])




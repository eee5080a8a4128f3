"""Stage "reduce" (``--reduce-residuals``): the residual reduction as a new Analysis (:func:`reduce`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

# Imported on use (see the function): the residual reduction (mechanics.reduction), 45-55 ms of imports (CPU)
# a trial without --reduce-residuals never needs.

if TYPE_CHECKING:  # types only
    from ..mechanics.mass_fit import MassFit

from .log import records
from .values import Analysis


def reduce(analysis: Analysis, keep_markers: bool = True, fit: MassFit | None = None) -> Analysis:
    """Stage "reduce" (``--reduce-residuals``, after "mass"): the residual reduction of docs/kinetics.md.

    :func:`humanbody.mechanics.reduction.reduce_residuals` on the analysis'
    model, motion and loads (the conditioned markers' displacement limited and
    reported); when its criteria are met, the new Analysis has the fitted model
    (masses, trunk mass centre), the tracked root's motion and coordinates,
    else the same ones; its model's ``residual_reduction`` holds the
    record either way (model.json).

    Parameters
    ----------
    analysis : Analysis
        An analysis with its loads (stage "loads").
    keep_markers : bool
        Keep the conditioned markers in the new Analysis; else its trial is
        the time base only.
    fit : MassFit, optional
        One mass distribution for all of a subject's trials
        (:func:`humanbody.mechanics.reduction.fit_subject`); default: fitted on this trial.

    Returns
    -------
    Analysis
        A new Analysis, reduced or not, with one line per criterion in its log; without loads, one line
        saying it was not done.
    """
    if analysis.loads is None:
        return analysis.with_records(records(
            "message", "reduce", "residual reduction: not done: the trial has no force plates (--forces)"))
    from ..mechanics.reduction import jsonable as record_json  # lazy: imported on use (see the module's imports)
    from ..mechanics.reduction import reduce_residuals, reduced_coords, trunk_share  # lazy: as above

    red = reduce_residuals(analysis.model, analysis.motion, analysis.loads, analysis.results,
                           _marker_points(analysis.markers), trunk_share(analysis.tracking), fit)
    changes: dict[str, Any] = {"log": analysis.log.added(records("message", "reduce", *red.lines))}
    if red.applied:
        changes.update(coords=reduced_coords(analysis.coords, red), motion=red.motion)
    model = red.model if red.applied else analysis.model
    changes["model"] = model.replace(residual_reduction=record_json(red.record))
    if not keep_markers:
        changes.update(markers=None, trial=analysis.trial.time_base())
    if not red.applied:  # the model's masses and the motion are those the kinematics were computed with
        changes["computed"] = analysis.held_results
    return analysis.replace(**changes)


def _marker_points(markers: pd.DataFrame | None) -> np.ndarray | None:
    """The conditioned markers' positions, (frames, markers, 3) m, from their table; None without one."""
    if markers is None:
        return None
    cols = [c for c in markers.columns if c.endswith("_x") and c[:-2] + "_z" in markers.columns]
    if not cols:
        return None
    return np.stack([markers[[c, c[:-2] + "_y", c[:-2] + "_z"]].to_numpy(dtype=float) for c in cols], axis=1)

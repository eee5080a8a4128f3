"""Does the static trial fit the trial's subject?  Its calibration's marker residual on the trial.

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
"""

from __future__ import annotations

import os

import numpy as np

from . import refusal

__all__ = ["MAX_RESIDUAL_MM", "check_static_fit"]

#: Largest median RMS marker residual (mm) of a static calibration on the trial.
MAX_RESIDUAL_MM = 15.0


def check_static_fit(static, tracking, *, skip: bool = False) -> str | None:
    """One line on how the static trial's calibration fits the trial; refused past :data:`MAX_RESIDUAL_MM`.

    ``tracking`` has ``residuals`` (DataFrame: ``time`` and one column per
    segment, m).  None when there is no residual to judge.
    """
    res = tracking.residuals.drop(columns="time")
    values = res.to_numpy(dtype=float)
    if not res.shape[1] or not np.isfinite(values).any():
        return None
    med = float(np.nanmedian(values)) * 1000.0
    worst = (res.median() * 1000.0).sort_values(ascending=False)
    name = os.path.basename(os.fspath(static))
    if med > MAX_RESIDUAL_MM and not skip:
        top = ", ".join(f"{seg} {v:.0f} mm" for seg, v in worst.head(3).items())
        raise refusal("static", f"does not fit this trial's subject: its calibration leaves a median marker "
                      f"residual of {med:.1f} mm on the trial (its own static: a few mm; at most "
                      f"{MAX_RESIDUAL_MM:g} mm; largest {top})", static, instead="give the subject's own `static`")
    if med > MAX_RESIDUAL_MM:
        return f"check static: {name} does not fit the trial's subject ({med:.1f} mm; --skip-check static)"
    return f"check static: {name} fits the trial's subject (median marker residual at most {MAX_RESIDUAL_MM:g} mm)"

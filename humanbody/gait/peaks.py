"""Peak values of the clinical joint angles over the stride, for a report's summary.

From the stride-normalised mean curves (:func:`humanbody.gait.normalize_cycles`,
variables from :mod:`humanbody.mechanics.clinical`) and the stance phase of each side
(:func:`humanbody.gait.spatiotemporal`, ``stance_pct``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .cycles import curve_index

__all__ = ["PEAKS", "KINETIC_PEAKS", "angle_peaks", "kinetic_peaks"]

#: Summary columns (for side ``s``) -> what they hold (degrees).
PEAKS = {
    "peak_knee_flexion_swing_deg": "largest mean knee flexion in swing (after foot off)",
    "hip_flexion_rom_deg": "range of the mean hip flexion curve over the stride",
    "knee_flexion_rom_deg": "range of the mean knee flexion curve over the stride",
    "ankle_dorsiflexion_rom_deg": "range of the mean ankle dorsiflexion curve over the stride",
    "peak_hip_extension_deg": "largest mean hip extension (negative flexion) over the stride",
    "peak_ankle_dorsiflexion_stance_deg": "largest mean ankle dorsiflexion in stance",
}


def _curve(cycles: pd.DataFrame, side: str, variable: str, curves: dict):
    """Percent and mean of one variable's curve, or (None, None); ``curves``: the rows of every
    (side, variable) (:func:`humanbody.gait.cycles.curve_index`)."""
    rows = curves.get((side, variable))
    if rows is None or not len(rows):
        return None, None
    return (cycles["percent"].to_numpy(dtype=float)[rows], cycles["mean"].to_numpy(dtype=float)[rows])


def angle_peaks(cycles: pd.DataFrame, params: pd.DataFrame, curves: dict | None = None) -> dict:
    """The :data:`PEAKS` values for both sides, ``{"right_peak_knee_flexion_swing_deg": ..., ...}``.

    Parameters
    ----------
    cycles : DataFrame
        Stride-normalised curves (``side``, ``variable``, ``percent``, ``mean``,
        ...) including the clinical angle columns (degrees).
    params : DataFrame
        Spatiotemporal parameters indexed by side (``stance_pct``).
    curves : dict, optional
        The rows of each curve (:func:`humanbody.gait.cycles.normalized_curves`);
        default: found in ``cycles`` (:func:`humanbody.gait.cycles.curve_index`).

    Returns
    -------
    dict
        ``"<side>_<peak>"`` -> value (deg); NaN where a side has no complete stride or no stance phase.
    """
    curves = curve_index(cycles) if curves is None else curves
    row = {}
    for side in ("right", "left"):
        stance = float(params.loc[side, "stance_pct"]) if side in params.index else np.nan
        vals = dict.fromkeys(PEAKS, np.nan)
        p, knee = _curve(cycles, side, f"{side}_knee_flexion_deg", curves)
        if knee is not None and np.isfinite(knee).any():
            vals["knee_flexion_rom_deg"] = float(np.nanmax(knee) - np.nanmin(knee))
            swing = p >= stance
            if np.isfinite(stance) and swing.any() and np.isfinite(knee[swing]).any():
                vals["peak_knee_flexion_swing_deg"] = float(np.nanmax(knee[swing]))
        p, hip = _curve(cycles, side, f"{side}_hip_flexion_deg", curves)
        if hip is not None and np.isfinite(hip).any():
            vals["hip_flexion_rom_deg"] = float(np.nanmax(hip) - np.nanmin(hip))
            vals["peak_hip_extension_deg"] = float(-np.nanmin(hip))
        p, ankle = _curve(cycles, side, f"{side}_ankle_dorsiflexion_deg", curves)
        if ankle is not None and np.isfinite(ankle).any():
            vals["ankle_dorsiflexion_rom_deg"] = float(np.nanmax(ankle) - np.nanmin(ankle))
            st = p < stance
            if np.isfinite(stance) and st.any() and np.isfinite(ankle[st]).any():
                vals["peak_ankle_dorsiflexion_stance_deg"] = float(np.nanmax(ankle[st]))
        row.update({f"{side}_{k}": v for k, v in vals.items()})
    return row


#: Kinetic summary columns (for side ``s``).
KINETIC_PEAKS = {
    "peak_hip_flexion_moment_Nm_per_kg": "largest mean internal hip flexor moment",
    "peak_hip_extension_moment_Nm_per_kg": "largest mean internal hip extensor moment",
    "peak_knee_extension_moment_Nm_per_kg": "largest mean internal knee extensor moment in stance",
    "peak_ankle_plantarflexion_moment_Nm_per_kg": "largest mean internal ankle plantarflexor moment",
    "peak_ankle_power_W_per_kg": "largest mean ankle power generation (push-off)",
    "peak_grf_z_N_per_kg": "largest mean vertical ground reaction",
}


def kinetic_peaks(cycles: pd.DataFrame, params: pd.DataFrame, curves: dict | None = None) -> dict:
    """The :data:`KINETIC_PEAKS` of both sides from the mean curves; NaN without kinetics.

    Parameters
    ----------
    cycles : DataFrame
        Stride-normalised curves with the kinetic columns (N m/kg, W/kg).
    params : DataFrame
        Spatiotemporal parameters indexed by side (``stance_pct``).
    curves : dict, optional
        The rows of each curve (:func:`humanbody.gait.cycles.normalized_curves`); default: found in ``cycles``.

    Returns
    -------
    dict
        ``"<side>_<peak>"`` -> value.
    """
    curves = curve_index(cycles) if curves is None else curves
    row = {}
    for side in ("right", "left"):
        stance = float(params.loc[side, "stance_pct"]) if side in params.index else np.nan
        vals = dict.fromkeys(KINETIC_PEAKS, np.nan)

        def curve(name, side=side):
            p, m = _curve(cycles, side, f"{side}_{name}", curves)
            return (p, m) if m is not None and np.isfinite(m).any() else (None, None)

        p, hip = curve("hip_flexion_moment_Nm_per_kg")
        if hip is not None:
            vals["peak_hip_flexion_moment_Nm_per_kg"] = float(np.nanmax(hip))
            vals["peak_hip_extension_moment_Nm_per_kg"] = float(-np.nanmin(hip))
        p, knee = curve("knee_flexion_moment_Nm_per_kg")
        if knee is not None and np.isfinite(stance) and np.isfinite(knee[p < stance]).any():
            vals["peak_knee_extension_moment_Nm_per_kg"] = float(-np.nanmin(knee[p < stance]))
        p, ankle = curve("ankle_dorsiflexion_moment_Nm_per_kg")
        if ankle is not None:
            vals["peak_ankle_plantarflexion_moment_Nm_per_kg"] = float(-np.nanmin(ankle))
        p, power = curve("ankle_power_W_per_kg")
        if power is not None:
            vals["peak_ankle_power_W_per_kg"] = float(np.nanmax(power))
        p, grf = curve("grf_z_N_per_kg")
        if grf is not None:
            vals["peak_grf_z_N_per_kg"] = float(np.nanmax(grf))
        row.update({f"{side}_{k}": v for k, v in vals.items()})
    return row

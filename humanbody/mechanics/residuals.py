"""The root residual of a trial with measured loads, the frames where it is known, and its criteria.

The residual force ``f_1`` and moment ``m_1`` (about the root's joint point
O_1) are what ground would have to add to the measured loads for the
tracked motion to happen (docs/kinetics.md "Mechanics")::

    f_1 = sum_j m_j (a_Gj - g) - sum_L E_L
    m_1 = sum_j [(G_j - O_1) x m_j (a_Gj - g) + I_j alpha_j + omega_j x I_j omega_j]
          - sum_L (M_O,L - O_1 x E_L)

with ``E_L`` and ``M_O,L`` each load's force and moment about the ground
origin.  They depend on the sum of the loads only, not on which segment
each load was given to, so frames where two feet share a plate still have
a known residual.  The criteria (Hicks et al. 2015, "Is my model good
enough?", J Biomech Eng 137:020905; OpenSim's best-practice checklist) are
:data:`CRITERIA`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .kinetics import joint_load_table

__all__ = ["ExternalLoads", "external_loads", "root_residual", "measured_frames", "residual_summary",
           "CRITERIA", "com_height"]

#: Criteria the residual reduction reports, each (key, limit, what, source).
CRITERIA = {
    "hicks_force": (0.05, "peak residual force <= 5 % of the peak external force", "Hicks et al. 2015"),
    "hicks_moment": (0.01, "peak residual moment <= 1 % of COM height x peak external force", "Hicks et al. 2015"),
    "opensim_force_peak": (25.0, "peak residual force <= 25 N", "OpenSim best practices (10-25 N)"),
    "opensim_force_rms": (15.0, "RMS residual force <= 15 N", "OpenSim best practices (5-15 N)"),
    "opensim_moment_peak": (75.0, "peak residual moment <= 75 N m", "OpenSim best practices"),
    "marker_rms": (0.02, "markers moved <= 2 cm RMS", "OpenSim best practices"),
    "marker_max": (0.04, "markers moved <= 4 cm at most", "OpenSim best practices"),
    "angles_rms": (2.0, "joint and pelvis angles changed <= 2 deg RMS", "OpenSim best practices (2-5 deg)"),
}


@dataclass(eq=False)
class ExternalLoads:
    """The measured loads of every frame summed: force (F, 3) N and moment about the ground origin (F, 3) N m."""

    force: np.ndarray
    moment_o: np.ndarray

    @property
    def peak_force(self) -> float:
        """Peak magnitude of the summed external force (N)."""
        return float(np.max(np.linalg.norm(self.force, axis=1), initial=0.0))


def external_loads(loads) -> ExternalLoads:
    """The loads of a :class:`~humanbody.mechanics.loads.FrameLoads` summed over plates (zero where unloaded).

    Parameters
    ----------
    loads : FrameLoads
        Force (F, L, 3) N and moment about the origin (F, L, 3) N m of every load.

    Returns
    -------
    ExternalLoads
        Their sums over the L loads, NaN taken as zero.
    """
    force = np.nan_to_num(np.asarray(loads.force, dtype=float)).sum(axis=1)
    moment = np.nan_to_num(np.asarray(loads.moment_o, dtype=float)).sum(axis=1)
    return ExternalLoads(force, moment)


def root_residual(model, results, ext: ExternalLoads) -> tuple[np.ndarray, np.ndarray]:
    """Residual force (F, 3) N and moment about O_1 (F, 3) N m of every frame of ``results``.

    The project's kinetic kernel without loads (:func:`humanbody.mechanics.kinetics.joint_load_table`:
    the root then carries everything) minus the summed measured loads.

    Parameters
    ----------
    model : BodyModel
        The body model.
    results : Results
        The trial's kinematics and inertia forces.
    ext : ExternalLoads
        The summed measured loads on the same frames.

    Returns
    -------
    f1 : ndarray, shape (F, 3), N
        Residual force per frame, ground axes.
    m1 : ndarray, shape (F, 3), N m
        Residual moment about the root's origin O_1 per frame, ground axes.
    """
    jl = joint_load_table(model, results, None)
    O1 = results.joint[:, 0]
    f1 = jl.joint_force[:, 0] - ext.force
    m1 = jl.joint_moment[:, 0] - (ext.moment_o - np.cross(O1, ext.force))
    return f1, m1


#: Height (m) of an unloaded foot's ankle above its stance height below which the foot stands on the ground.
CONTACT_MARGIN = 0.015
#: Shortest unmeasured contact (s): an ankle passing low for a frame or two at a foot strike is not one.
CONTACT_TIME = 0.1


def measured_frames(model, results, loads) -> tuple[np.ndarray, list[str]]:
    """Frames where every contact with the ground is measured, (F,) bool, and a line on those that are not.

    A foot carries no measured load while its ankle (the foot's joint point) stays within
    :data:`CONTACT_MARGIN` of its stance height (the 10th percentile of its height while loaded;
    the other foot's when it is never loaded) for :data:`CONTACT_TIME` or longer: it stands
    beside the plates, and the residual there holds the unmeasured reaction.  Flight (both feet
    up, no load) is measured: the reaction is zero.

    Parameters
    ----------
    model : BodyModel
        The body model.
    results : Results
        The kinematics (the feet's joint points).
    loads : FrameLoads
        Assigned loads on the same frames.

    Returns
    -------
    ok : ndarray of bool, shape (F,)
        True at the frames where every contact is measured.
    lines : list of str
        What was left out and why (empty when every frame is measured).
    """
    F = results.joint.shape[0]
    body = np.asarray(loads.body)
    time = np.asarray(results.time, dtype=float)
    ok = np.ones(F, dtype=bool)
    feet = [(side, model.names.index(f"{side}_foot")) for side in ("right", "left") if f"{side}_foot" in model.names]
    z = {side: results.joint[:, k, 2] for side, k in feet}
    loaded = {side: (body == k).any(axis=1) | (body == -2).any(axis=1) for side, k in feet}
    stance = [np.nanpercentile(z[s][loaded[s]], 10) for s, _ in feet if loaded[s].any()]
    if not stance:
        return np.zeros(F, dtype=bool), ["no foot carries a measured load in any frame"]
    notes = []
    for side, _ in feet:
        level = np.nanpercentile(z[side][loaded[side]], 10) if loaded[side].any() else min(stance)
        off = _long_runs(~loaded[side] & (z[side] < level + CONTACT_MARGIN), time, CONTACT_TIME)
        if off.any():
            notes.append(f"{side} foot {int(off.sum())}")
        ok &= ~off
    lines = [] if not notes else [f"{int((~ok).sum())} of {F} frames have a foot on the ground off the plates "
                                  f"({', '.join(notes)} frames): no residual constraint there"]
    return ok, lines


def _long_runs(flag: np.ndarray, time: np.ndarray, shortest: float) -> np.ndarray:
    """``flag`` where it holds for ``shortest`` seconds or longer in a row (a trial's ends count as runs)."""
    out = np.zeros_like(flag)
    edges = np.flatnonzero(np.diff(np.concatenate([[0], flag.astype(np.int8), [0]])))
    dt = float(np.median(np.diff(time))) if time.size > 1 else 0.0
    for a, b in zip(edges[::2], edges[1::2], strict=True):
        if time[b - 1] - time[a] + dt >= shortest - 1e-9:
            out[a:b] = True
    return out


def com_height(results, loads) -> float:
    """Mean height (m) of the whole-body mass centre above the centres of pressure (the floor).

    Parameters
    ----------
    results : Results
        Its whole-body mass centre ``body_com``, (F, 3) m.
    loads : FrameLoads or None
        The centres of pressure (their median height is the floor; 0 without loads).

    Returns
    -------
    float, m
        The mean height.
    """
    cop = np.asarray(getattr(loads, "cop", None) if loads is not None else None, dtype=float)
    floor = float(np.nanmedian(cop[..., 2])) if cop.size and np.isfinite(cop[..., 2]).any() else 0.0
    return float(np.nanmean(results.body_com[:, 2]) - floor)


def residual_summary(f1, m1, mask) -> dict:
    """Peak and RMS magnitudes of the residual force (N) and moment (N m) over the frames of ``mask``.

    Parameters
    ----------
    f1, m1 : ndarray, shape (F, 3)
        Residual force (N) and moment (N m).
    mask : ndarray of bool, shape (F,)
        The frames summarised.

    Returns
    -------
    dict
        ``force_peak``, ``force_rms`` (N), ``moment_peak``, ``moment_rms`` (N m); NaN without frames.
    """
    f = np.linalg.norm(f1[mask], axis=1)
    m = np.linalg.norm(m1[mask], axis=1)
    if not f.size:
        return {"force_peak": float("nan"), "force_rms": float("nan"), "moment_peak": float("nan"),
                "moment_rms": float("nan")}
    return {"force_peak": float(f.max()), "force_rms": float(np.sqrt(np.mean(f ** 2))),
            "moment_peak": float(m.max()), "moment_rms": float(np.sqrt(np.mean(m ** 2)))}

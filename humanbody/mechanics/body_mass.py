"""Body mass from the force plates over the frames that carry the whole weight.

Newton's second law for the whole body, vertical component, in every frame
whose whole weight rests on measured plates:

    F_z(f) = m (g + a_z(f))                                        (1)

with F_z the total vertical ground reaction on the plates and a_z the
vertical acceleration of the body's mass centre (eq. 9.19 differentiated
twice, :attr:`humanbody.mechanics.results.Results.body_com_acc`, which does
not depend on the mass: the segments' shares of it are fixed).  Summing (1)
over those frames gives the least-squares mass

    m = sum_f F_z(f) / sum_f (g + a_z(f)).                         (2)

A frame carries the whole weight when every foot either stands on a plate
(a load is given to it: :func:`humanbody.mechanics.foot_contact.assign_loads`) or is
in the air (not loaded and its mass centre moves faster than
:data:`IN_AIR_SPEED`): a foot standing on the floor or a stair beside the
plates is neither, and its frames are left out.  Flights count (both sides
of (1) are zero there), so whole running strides give the mean force / g
even when the mass centre's acceleration is poorly known.  The spread said is the
standard deviation of eq. (2) over blocks of about :data:`BLOCK_SECONDS` of those frames.

:func:`mass_from_loads` needs at least :data:`MIN_SECONDS` of such
frames; :func:`humanbody.checks.mass.plates_mass` says the estimate in the
log and checks its body mass index.
"""

from __future__ import annotations

import numpy as np

__all__ = ["IN_AIR_SPEED", "MIN_SECONDS", "BLOCK_SECONDS", "whole_weight_frames", "mass_from_loads", "scaled_model",
           "model_height"]

#: Speed (m/s) of a foot's mass centre above which an unloaded foot is in the air (swing: 2-4 m/s in
#: walking; a foot standing beside the plates: below 0.3 m/s).
IN_AIR_SPEED = 0.8
#: Shortest total duration (s) of whole-weight frames for a mass estimate.
MIN_SECONDS = 0.5
#: Length (s) of the blocks whose estimates give the spread said.
BLOCK_SECONDS = 1.0


def whole_weight_frames(loads, results, model) -> np.ndarray:
    """(F,) bool: frames whose whole weight is on the plates (every foot on a plate or in the air).

    Parameters
    ----------
    loads : FrameLoads
        The assigned loads (``body``, ``shared``, ``force``).
    results : Results
        The motion's results (segment mass-centre velocities ``com_vel``, (F, N, 3) m/s).
    model : BodyModel
        The body model (its feet).

    Returns
    -------
    ndarray of bool, shape (F,)
        True where every foot is on a plate or faster than :data:`IN_AIR_SPEED` (in the air), and no load
        is left without a segment.
    """
    feet = [model.names.index(s) for s in ("right_foot", "left_foot") if s in model.names]
    F = loads.force.shape[0]
    if not feet:
        return np.zeros(F, dtype=bool)
    body = np.asarray(loads.body)
    shared = np.asarray(loads.shared) if loads.shared is not None else np.full(body.shape + (2,), -1)
    ok = np.ones(F, dtype=bool)
    for k in feet:
        on = (body == k).any(axis=1) | (shared == k).any(axis=(1, 2))
        speed = np.linalg.norm(np.asarray(results.com_vel)[:, k], axis=1)
        ok &= on | (~on & (speed > IN_AIR_SPEED))
    # a flight (both feet in the air) counts: there F_z = 0 = m (g + a_z), and a run's strides stay whole
    # a load no foot was given (no foot near it, or two feet on one plate without a share) leaves the frame out
    ok &= ~((loads.force[..., 2] > 0) & (body == -1)).any(axis=1)
    return ok


def mass_from_loads(loads, results, model, time, gravity: float = 9.81, edges: int = 0):
    """Mass (kg) by eq. (2) over the whole-weight frames, its spread (kg) and their count and duration (s).

    ``edges``: frames at each end of the trial left out, whose mass centre
    acceleration the differentiation estimated with data on one side only
    (:func:`humanbody.checks.edges.edge_frames`).
    Returns ``(mass or None, spread, frames, seconds)``; None when fewer than
    :data:`MIN_SECONDS` of such frames exist.

    Parameters
    ----------
    loads : FrameLoads
        The assigned loads (vertical forces ``force[..., 2]``, N).
    results : Results
        The body's mass-centre acceleration ``body_com_acc``, (F, 3) m/s^2.
    model : BodyModel
        The body model (its feet).
    time : array_like, shape (F,), s
        The frames' times.
    gravity : float, m/s^2
        Gravity's magnitude g.
    edges : int
        Frames left out at each end.

    Returns
    -------
    mass : float or None
        kg; ``sum F_z / sum (g + a_z)`` over the frames.
    spread : float
        kg, the standard deviation of the same ratio over blocks of about :data:`BLOCK_SECONDS`
        (NaN with one block or none).
    frames : int
        How many whole-weight frames were used.
    seconds : float
        Their duration (s).
    """
    ok = whole_weight_frames(loads, results, model)
    if edges > 0:
        ok[:edges] = False
        ok[len(ok) - edges:] = False
    t = np.asarray(time, dtype=float)
    dt = float(np.median(np.diff(t))) if len(t) > 1 else 0.0
    n = int(ok.sum())
    seconds = n * dt
    if n < 2 or seconds < MIN_SECONDS:
        return None, float("nan"), n, seconds
    fz = loads.force[ok, :, 2].sum(axis=1)
    az = np.asarray(results.body_com_acc)[ok, 2]
    good = np.isfinite(fz) & np.isfinite(az)
    fz, den = fz[good], gravity + az[good]
    m = float(fz.sum() / den.sum())
    # spread: eq. (2) over blocks of about one second of those frames
    blocks = max(1, int(round(seconds / BLOCK_SECONDS)))
    parts = [float(f.sum() / d.sum()) for f, d in zip(np.array_split(fz, blocks), np.array_split(den, blocks), strict=True)]
    return m, float(np.std(parts)) if len(parts) > 1 else float("nan"), n, seconds


def model_height(model) -> float | None:
    """The subject's standing height (m) the model was scaled to, or None.

    Parameters
    ----------
    model : BodyModel
        Its ``meta["subject"]["height"]``.

    Returns
    -------
    float or None
        m.
    """
    h = (model.meta.get("subject") or {}).get("height")
    return None if h is None else float(h)


def scaled_model(model, mass: float):
    """``model`` with every segment's mass and inertia scaled to a total of ``mass`` (kg); geometry kept.

    Parameters
    ----------
    model : BodyModel
        The model to scale (left as it is).
    mass : float
        The new total mass (kg).

    Returns
    -------
    BodyModel
        A new model: masses and inertias times ``mass / model.total_mass``; ``meta["subject"]["mass"]`` set.
    """
    s = float(mass) / float(model.total_mass)
    meta = dict(model.meta or {})
    if isinstance(meta.get("subject"), dict):
        meta["subject"] = dict(meta["subject"], mass=float(mass))
    return model.replace(mass=np.asarray(model.mass) * s, inertia=np.asarray(model.inertia) * s, meta=meta)

"""Loads to segments: which foot stands on which plate, every frame.

A load named to a segment goes to it; otherwise, in each frame it is loaded,
to the foot whose sole is nearest its centre of pressure, within
:data:`ASSIGN_DISTANCE`; with both feet that close and about as close as each
other (:data:`AMBIGUOUS_MARGIN`), or both soles touching the plate and moving
with it (:data:`CONTACT_SPEED`) wherever the centre of pressure is, the frame
is ambiguous (two feet on one plate) and those feet's kinetics are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import InputError
from ..io.forceplates import plate_from_points
from ..model.anthropometry import ANKLE_HEIGHT, HEEL_BEHIND_ANKLE
from .loads import FrameLoads

__all__ = ["assign_loads", "sole_points", "ASSIGN_DISTANCE", "AMBIGUOUS_MARGIN", "CONTACT_HEIGHT", "CONTACT_SPEED"]

#: Largest distance (m) from a load's centre of pressure to a foot's sole (the line from the ankle
#: to the toe end of the foot) for the load to be given to that foot automatically.
ASSIGN_DISTANCE = 0.20

#: Two feet closer to a centre of pressure than :data:`ASSIGN_DISTANCE` whose distances differ by
#: less than this (m) are both on the plate: the frame is ambiguous.
AMBIGUOUS_MARGIN = 0.05


def sole_points(model, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Heel and toe ends of foot ``k``'s sole in the foot's frame (m), each (3,).

    The sole lies the ankle height below the ankle: twice the depth of the
    foot's mass centre below it (the default model puts the mass centre half
    the ankle height above the sole, docs/anthropometry.md "Feet"); the heel
    end is behind the ankle in gait2392's proportion to the ankle height, the
    toe end the foot's length ahead of the heel.

    Parameters
    ----------
    model : BodyModel
        The body model (the foot's and ankle's geometry).
    k : int
        The foot's segment index (0-based).

    Returns
    -------
    heel, toe : ndarray, shape (3,), m
        In the foot's frame.
    """
    r = np.asarray(model.com_offset[k], dtype=float)
    h = -2.0 * r[2] if r[2] < -0.005 else ANKLE_HEIGHT * 1.75
    length = float(model.segment_meta[k].get("length") or 2.0 * np.linalg.norm(r) or 0.2)
    heel = h * HEEL_BEHIND_ANKLE / ANKLE_HEIGHT
    return np.array([-heel, 0.0, -h]), np.array([length - heel, 0.0, -h])


def _sole(results, model, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The line of a foot's sole in ground axes, (F, 3) each end: its heel and toe ends."""
    heel, toe = sole_points(model, k)
    O, R = results.joint[:, k], results.R[:, k]
    return O + R @ heel, O + R @ toe


def _distance_to_segment(p, a, b) -> np.ndarray:
    ab = b - a
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.clip(np.einsum("fi,fi->f", p - a, ab) / np.einsum("fi,fi->f", ab, ab), 0.0, 1.0)
    return np.linalg.norm(p - (a + s[:, None] * ab), axis=1)


#: Height (m) of a foot's sole above a plate's surface below which that foot may stand on it.
CONTACT_HEIGHT = 0.05


#: Largest difference (m/s) between the velocities of two soles' lower ends along a plate for both feet to
#: stand on it: feet on a surface move with it (still on the ground, at the belt's speed on a treadmill; the
#: shared treadmill walk: 0.1-0.8 m/s apart in double support), while a foot swinging low over the plate moves
#: 2 m/s or more faster than the stance foot.
CONTACT_SPEED = 1.0

#: Margin (m) around a plate's outline (corners) or around the centres of pressure a force file gives on it
#: within which a sole's lower end counts as over the plate.
OUTLINE_MARGIN = 0.03


def _sole_height(a, b, plate) -> np.ndarray:
    """Height (m) of the lower end of a sole (ends ``a``, ``b``, (F, 3)) above a plate's plane, (F,)."""
    n, c = plate.normal, plate.centre
    return np.minimum((a - c) @ n, (b - c) @ n)


def _sole_on_plate(a, b, time, plate) -> tuple[np.ndarray, np.ndarray]:
    """Whether the lower end of a sole (ends ``a``, ``b``, (F, 3) m) touches a plate, (F,) bool, and its
    velocity along the plate's surface, (F, 3) m/s.

    Touching: the lower end no more than :data:`CONTACT_HEIGHT` above the plate's plane and within
    :data:`OUTLINE_MARGIN` of its outline (the C3D corners; for a plate known from a force file, the
    rectangle of its centres of pressure with :data:`humanbody.io.forceplates.OUTLINE_MARGIN`).
    """
    n, c = plate.normal, plate.centre
    ha, hb = (a - c) @ n, (b - c) @ n
    low = (ha <= hb)[:, None]
    end = np.where(low, a, b)
    t = np.asarray(time, dtype=float)
    vel = (np.where(low, np.gradient(a, t, axis=0), np.gradient(b, t, axis=0)) if len(t) > 2
           else np.zeros_like(end))
    vel = vel - (vel @ n)[:, None] * n
    k = np.asarray(plate.corners, dtype=float)
    inside = np.minimum(ha, hb) <= CONTACT_HEIGHT
    for edge in (k[0] - k[1], k[0] - k[3]):
        half = 0.5 * float(np.linalg.norm(edge))
        if half > 0:
            inside &= np.abs((end - c) @ (edge / (2 * half))) <= half + OUTLINE_MARGIN
    return inside, vel


def assign_loads(loads: FrameLoads, table_segments, model, results, distance: float = ASSIGN_DISTANCE) -> FrameLoads:
    """Give every load in every frame a segment (``loads.body``); see the module docstring.

    ``table_segments`` lists the segment named for each load (or None).  A
    load not named goes to the foot whose sole (heel to toe, the ankle height
    below the ankle) is nearest its centre of pressure in 3-D, within
    ``distance``.  When the other foot is as near (within
    :data:`AMBIGUOUS_MARGIN`) and its sole also touches the plate's plane
    (within :data:`CONTACT_HEIGHT`), both feet stand on the plate: the frame is
    ambiguous for those two feet (``body`` -2, ``shared`` the two feet).  So it is
    when both soles touch the plate (:func:`_sole_on_plate`), their lower ends'
    velocities along it differ by at most :data:`CONTACT_SPEED` and neither foot
    is the one nearest another plate's load or touches another plate, wherever the centre of pressure lies
    (double support on a walkway or a one-plate treadmill).
    A foot that no load reaches in any frame is listed in ``unloaded`` (its
    kinetics are NaN) with one line saying which plates went unused and why.
    Returns a new FrameLoads: ``loads`` with ``body`` set and lines added to its ``notes``.

    Parameters
    ----------
    loads : FrameLoads
        The conditioned loads (left as they are).
    table_segments : sequence of str or None
        Per load, the segment it is given to, or None.
    model : BodyModel
        The body model (the feet's geometry).
    results : Results
        The motion's results (the feet's positions and velocities).
    distance : float, m
        The farthest a sole may be from a load's centre of pressure.

    Returns
    -------
    FrameLoads
        ``loads`` with ``body``, ``shared``, ``unloaded`` and ``unloaded_index`` set, and the assignment's lines
        after its ``notes``.

    Raises
    ------
    InputError
        When a named segment is not the model's, or a load names none and the model has no feet.
    """
    F, L = loads.force.shape[:2]
    body = np.full((F, L), -1, dtype=np.int64)
    shared = np.full((F, L, 2), -1, dtype=np.int64)
    c = _contacts(loads, model, results, distance)
    unused, notes = [], list(loads.notes)
    for j, name in enumerate(loads.names):
        seg = table_segments[j]
        if seg is not None:
            if seg not in model.names:
                raise InputError(f"load {name!r} is given to {seg!r}, which is not a segment of the model "
                                 f"({', '.join(model.names)})")
            body[c.loaded[:, j], j] = model.names.index(seg)
            notes.append(f"loads: {name} -> {seg} (named)")
            continue
        if not c.feet:
            raise InputError(f"load {name!r} names no segment and the model has no feet to give it to; "
                             "use `load_segments` NAME=segment")
        why = _to_feet(c, j, name, distance, model, body, shared, notes)
        if why is not None:
            unused.append(f"{name} ({why})")
    reached = set(body[body >= 0].tolist()) | set(shared[shared >= 0].tolist())
    unloaded = [s for s in c.feet if model.names.index(s) not in reached]
    if unloaded:
        side = " and ".join(s.replace("_foot", "") for s in unloaded)
        notes.append(f"loads: no load on the {side} foot in any frame: {side} side kinetics NaN"
                     + (f"; unused plate(s): {', '.join(unused)}" if unused else ""))
    elif unused:
        notes.append(f"loads: unused plate(s): {', '.join(unused)}")
    return replace(loads, body=body, shared=shared, unloaded=unloaded,
                   unloaded_index=[model.names.index(s) for s in unloaded], notes=notes)


@dataclass
class _Contacts:
    """Each foot against each load, per frame: the sole's distance to the centre of pressure ``dist`` (F, L; m),
    its height above the plate ``height`` (F, L; m), whether it touches the plate ``touch`` (F, L) and its lower
    end's velocity along it ``speed`` (F, L, 3; m/s); ``near_foot`` (F, L) the foot nearest each load within
    the assignment distance (-1 none); ``loaded`` (F, L) the loads above the threshold."""

    feet: list
    loaded: np.ndarray
    dist: dict
    height: dict
    touch: dict
    speed: dict
    near_foot: np.ndarray


def _contacts(loads: FrameLoads, model, results, distance: float) -> _Contacts:
    """How every foot of ``model`` stands against every load of ``loads`` in every frame (:class:`_Contacts`)."""
    F, L = loads.force.shape[:2]
    loaded = loads.force[..., 2] > 0
    feet = [s for s in ("right_foot", "left_foot") if s in model.names]
    plates = loads.plates or [plate_from_points(n, loads.cop[:, j], loaded[:, j]) for j, n in enumerate(loads.names)]
    dist, height, touch, speed = {}, {}, {}, {}
    time = getattr(results, "time", None)
    time = np.arange(F, dtype=float) if time is None or len(time) != F else time
    for s in feet:
        k = model.names.index(s)
        a, b = _sole(results, model, k)
        dist[s] = np.stack([_distance_to_segment(loads.cop[:, j], a, b) for j in range(L)], axis=1)
        height[s] = np.stack([_sole_height(a, b, plates[j]) for j in range(L)], axis=1)
        on = [_sole_on_plate(a, b, time, plates[j]) for j in range(L)]
        touch[s] = np.stack([o[0] for o in on], axis=1)
        speed[s] = np.stack([o[1] for o in on], axis=1)
    # the foot nearest each load within ``distance`` (-1 none): a foot standing on another plate is not on this one
    near_foot = np.full((F, L), -1, dtype=np.int64)
    if feet:
        for j in range(L):
            d = np.stack([np.where(np.isfinite(dist[s][:, j]), dist[s][:, j], np.inf) for s in feet], axis=1)
            near_foot[:, j] = np.where(loaded[:, j] & (d.min(axis=1) <= distance), np.argmin(d, axis=1), -1)
    return _Contacts(feet, loaded, dist, height, touch, speed, near_foot)


def _to_feet(c: _Contacts, j: int, name: str, distance: float, model, body: np.ndarray, shared: np.ndarray,
             notes: list) -> str | None:
    """Give load ``j`` (not named) to the nearest foot within ``distance`` per frame, or to both feet when
    both stand on it (``body`` -2, ``shared`` the two feet), in place; one line to ``notes``.  Returns why the
    load went unused, or None."""
    feet, loaded = c.feet, c.loaded
    F = len(body)
    d = np.stack([c.dist[s][:, j] for s in feet], axis=1)  # (F, feet)
    d = np.where(np.isfinite(d), d, np.inf)
    h = np.stack([c.height[s][:, j] for s in feet], axis=1)
    order = np.argsort(d, axis=1, kind="stable")
    rows = np.arange(F)
    d1 = d[rows, order[:, 0]]
    nearest = order[:, 0]
    close = d1 <= distance
    two = _both_feet(c, j, d, h, order, close, distance) if d.shape[1] > 1 else np.zeros(F, dtype=bool)
    for i, s in enumerate(feet):
        take = loaded[:, j] & close & ~two & (nearest == i)
        body[take, j] = model.names.index(s)
    ambiguous = loaded[:, j] & two
    body[ambiguous, j] = -2
    if ambiguous.any():
        idx = np.array([model.names.index(s) for s in feet])
        shared[ambiguous, j, 0] = idx[nearest[ambiguous]]
        shared[ambiguous, j, 1] = idx[order[ambiguous, 1]] if len(feet) > 1 else -1
    far = loaded[:, j] & ~close & ~two
    counts = ", ".join(f"{s} {int((body[:, j] == model.names.index(s)).sum())}" for s in feet)
    line = f"loads: {name} -> nearest foot within {distance * 100:.0f} cm of the centre of pressure ({counts} frames)"
    if ambiguous.any():
        line += f"; both feet on it in {int(ambiguous.sum())} frame(s): those feet's kinetics NaN there"
    if far.any():
        line += f"; no foot near it in {int(far.sum())} loaded frame(s): load unused there"
    notes.append(line)
    if not (body[:, j] >= 0).any() and not ambiguous.any():
        return ("never loaded above the threshold" if not loaded[:, j].any()
                else f"no foot within {distance * 100:.0f} cm of its centre of pressure while loaded")
    return None


def _both_feet(c: _Contacts, j: int, d: np.ndarray, h: np.ndarray, order: np.ndarray, close: np.ndarray,
               distance: float) -> np.ndarray:
    """The frames (F,) where both feet stand on load ``j``: the second foot as near (within
    :data:`AMBIGUOUS_MARGIN`) with both soles on the plate's plane, or both soles touching it and moving
    together while neither stands on another plate.  ``d``, ``h``: the feet's distances and sole heights
    (F, feet; m), ``order`` the feet by distance."""
    rows = np.arange(len(d))
    nearest, second = order[:, 0], order[:, 1]
    d1, d2 = d[rows, nearest], d[rows, second]
    with np.errstate(invalid="ignore"):  # inf - inf where no foot is near
        two = (close & (d2 <= distance) & (d2 - d1 < AMBIGUOUS_MARGIN)
               & (h[rows, second] <= CONTACT_HEIGHT) & (h[rows, nearest] <= CONTACT_HEIGHT))
    if len(c.feet) == 2:
        # both soles on the plate, moving together (double support on one plate, a treadmill's belt):
        # the centre of pressure lies between them wherever it is, neither foot's share is known
        f0, f1 = c.feet
        together = np.linalg.norm(c.speed[f0][:, j] - c.speed[f1][:, j], axis=1) <= CONTACT_SPEED
        others = np.delete(c.near_foot, j, axis=1)
        # that foot is on another plate: the one nearest its load, or its sole touches it
        elsewhere = [(others == i).any(axis=1) | np.delete(c.touch[f], j, axis=1).any(axis=1)
                     for i, f in enumerate(c.feet)]
        two |= (c.touch[f0][:, j] & c.touch[f1][:, j] & together & ~elsewhere[0] & ~elsewhere[1])
    return two

"""Where a trial puts the joint between a sparse segment and its child (a functional joint point).

A sparse segment (fewer than three of its markers left,
:func:`humanbody.markers.tracking.joined_children`) is fitted with the joint
centres its neighbours carry.  The model's joint centre, placed in the
static trial, is where the two segments meet with the joint extended; in
motion the two segments carry it to places up to a centimetre apart (a knee
is no ball joint, its markers sit on skin), and a segment fitted to two
markers and such a point turns with the gap.  The point the trial itself
shows is the one the two segments carry to the same place in every frame:
with the parent's pose (R_p, O_p) and the child's (R_c, O_c) found without
that joint (the parent from its markers and its proximal joint, the child
from its markers and its own children's joints), its coordinates a in the
parent and b in the child minimise

    sum_f |R_p a + O_p - R_c b - O_c|^2 + lambda F (|a - xi|^2 + |b|^2)     (1)

over the F frames where both poses exist, xi being the model's joint offset
(the child's origin in the parent).  The small prior lambda keeps the
directions the motion does not show (along a hinge's axis; every direction
in a static trial) at the model's centre, so a trial whose segments meet at
the model's joint gives a = xi, b = 0 exactly.  Eq. (1) is linear: its 6 x 6
normal equations are solved once per joint.
"""

from __future__ import annotations

import numpy as np

__all__ = ["PRIOR", "MIN_FRAMES", "functional_pair"]

#: lambda of eq. (1): weight of the model's joint centre per frame (1 = as much as one frame's misfit).
PRIOR = 0.1
#: Frames with both poses needed for a functional point; fewer keep the model's joint centre.
MIN_FRAMES = 20


def functional_pair(Rp: np.ndarray, Op: np.ndarray, Rc: np.ndarray, Oc: np.ndarray, xi,
                    prior: float = PRIOR) -> tuple[np.ndarray, np.ndarray] | None:
    """The joint point of eq. (1), in the parent's and in the child's frame.

    Parameters
    ----------
    Rp, Rc : ndarray, shape (F, 3, 3)
        The parent's and the child's frames in ground (columns = axes); NaN where not found.
    Op, Oc : ndarray, shape (F, 3)
        Their origins in ground (m).
    xi : array_like, shape (3,)
        The model's joint offset: the child's origin in the parent's frame (m).
    prior : float
        lambda of eq. (1).

    Returns
    -------
    (a, b) : tuple of ndarray, shape (3,), or None
        The point in the parent's frame and in the child's (m); None when
        fewer than :data:`MIN_FRAMES` frames have both poses.
    """
    ok = (np.isfinite(Rp).all(axis=(1, 2)) & np.isfinite(Rc).all(axis=(1, 2)) & np.isfinite(Op).all(axis=1)
          & np.isfinite(Oc).all(axis=1))
    F = int(ok.sum())
    if F < MIN_FRAMES:
        return None
    M = np.concatenate([Rp[ok], -Rc[ok]], axis=2)  # (F, 3, 6): R_p a - R_c b
    r = Oc[ok] - Op[ok]
    x0 = np.concatenate([np.asarray(xi, dtype=float), np.zeros(3)])
    N = np.einsum("fki,fkj->ij", M, M) + prior * F * np.eye(6)
    g = np.einsum("fki,fk->i", M, r) + prior * F * x0
    sol = np.linalg.solve(N, g)
    return sol[:3], sol[3:]

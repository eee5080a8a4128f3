"""Huston's body trees (:class:`humanbody.model.body.BodyModel`, the 17 segments) as core models.

A BodyModel numbers its bodies from 1 with ``L(k) = 0`` for the ground; the
core numbers them from 0 with -1 for the ground (:mod:`humanbody.core.model`).
Body 1 (the root) gets a :class:`~humanbody.core.joints.Free` joint of its
rotation sequence (its origin in ground, then its three angles); every other
body a :class:`~humanbody.core.joints.Cardan` joint of its sequence at
``xi_k`` in its parent's frame (a body on the ground is pinned at ``xi_k``).
The coordinates are those of :func:`humanbody.model.body.coordinate_columns`,
in the same order.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .joints import Cardan, Free
from .model import Model

__all__ = ["from_body_model"]


def from_body_model(body: Any) -> Model:
    """The core :class:`Model` of a BodyModel (any object with its attributes).

    Parameters
    ----------
    body : humanbody.model.body.BodyModel  (names, parents 1-based with 0 = ground,
        sequences, joint_offset, com_offset, mass, inertia, gravity, name)

    Returns
    -------
    Model  with the same bodies in the same order, coordinates named as
        :func:`humanbody.model.body.coordinate_columns`
    """
    names = tuple(body.names)
    n = len(names)
    seqs = tuple(body.sequences) or ("xyz",) * n
    joints = tuple(Free(seqs[0]) if k == 0 else Cardan(seqs[k]) for k in range(n))
    offset = np.array(body.joint_offset, dtype=float)
    offset[0] = 0.0  # the root's origin is its coordinates (Huston's recursion ignores xi_1)
    coords = [f"{names[0]}_{a}" for a in ("x", "y", "z")]
    for name in names:
        coords += [f"{name}_{a}" for a in ("alpha", "beta", "gamma")]
    eye = np.broadcast_to(np.eye(3), (n, 3, 3))
    return Model(names, np.asarray(body.parents, dtype=np.int64) - 1, joints, eye, offset, eye, np.zeros((n, 3)),
                 np.asarray(body.mass, dtype=float), np.asarray(body.com_offset, dtype=float),
                 np.asarray(body.inertia, dtype=float), np.asarray(body.gravity, dtype=float), tuple(coords),
                 name=str(body.name))

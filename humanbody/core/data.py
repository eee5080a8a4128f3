"""What one evaluation of a :class:`~humanbody.core.model.Model` over F frames produces (Pinocchio's ``Data``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Data"]


@dataclass(frozen=True, eq=False)
class Data:
    """Kinematics of every body over F frames; ground components throughout.

    Attributes
    ----------
    q, qd, qdd : ndarray, shape (F, nq)
        Coordinates (m, rad) and their first and second time derivatives, the couplers'
        dependent coordinates filled in.
    R : ndarray, shape (F, B, 3, 3)
        Body orientations (``x_ground = R x_body``).
    origin : ndarray, shape (F, B, 3)
        Body origins (m).
    omega, alpha : ndarray, shape (F, B, 3)
        Angular velocities (rad/s) and accelerations (rad/s^2).
    velocity, acceleration : ndarray, shape (F, B, 3)
        Of the body origins (m/s, m/s^2); with omega, the spatial velocity of each body at its origin.
    joint_rotation, joint_origin : ndarray, shapes (F, B, 3, 3) and (F, B, 3)
        Each joint's frame fixed in the parent (where the joint acts; m).
    axis_origin, axis_vector : ndarray, shape (F, A, 3)
        Each joint axis's point (m) and unit vector before it acts (A = ``len(model.compiled.akind)``).
    axis_slope : ndarray, shape (F, A)
        ``f'(q_c)`` of each axis (0 for a constant axis).
    coupler_slope : ndarray, shape (F, C)
        ``f'(q_independent)`` of each coupler.
    """

    q: np.ndarray
    qd: np.ndarray
    qdd: np.ndarray
    R: np.ndarray
    origin: np.ndarray
    omega: np.ndarray
    velocity: np.ndarray
    alpha: np.ndarray
    acceleration: np.ndarray
    joint_rotation: np.ndarray
    joint_origin: np.ndarray
    axis_origin: np.ndarray
    axis_vector: np.ndarray
    axis_slope: np.ndarray
    coupler_slope: np.ndarray

    @property
    def frames(self) -> int:
        """Number of frames F."""
        return int(self.q.shape[0])

    def points(self, body: np.ndarray, offset: np.ndarray) -> np.ndarray:
        """Ground positions of points fixed on bodies.

        Parameters
        ----------
        body : (M,) int ndarray
            Body of each point.
        offset : (M, 3) ndarray
            The points in their bodies' frames (m).

        Returns
        -------
        (F, M, 3) ndarray
            m.
        """
        body = np.asarray(body, dtype=np.int64)
        return self.origin[:, body] + np.einsum("fmij,mj->fmi", self.R[:, body], np.asarray(offset, dtype=float))

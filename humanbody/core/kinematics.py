"""One kinematics pass over any core model: positions, velocities, accelerations and Jacobians.

:func:`forward_kinematics` runs the couplers, every joint axis's function and
the recursion over the tree (:func:`humanbody._kernels.joint_tree.joint_tree`)
for all frames at once; the Jacobians take its :class:`~humanbody.core.data.Data`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from .._kernels import joint_tree as _k
from ..errors import InputError
from .data import Data
from .model import Model

__all__ = ["forward_kinematics", "marker_positions", "point_jacobian", "marker_jacobian", "body_jacobian",
           "com_positions"]


def _frames(model: Model, x: ArrayLike | None, like: np.ndarray | None, what: str) -> np.ndarray:
    if x is None:
        assert like is not None
        return np.zeros_like(like)
    a = np.array(x, dtype=float, order="C", ndmin=2)
    if a.ndim != 2 or a.shape[1] != model.nq or (like is not None and a.shape != like.shape):
        raise InputError(f"{what} must have {model.nq} columns (one per coordinate) and one row per frame, "
                         f"got shape {np.shape(x)}")
    return a


def forward_kinematics(model: Model, q: ArrayLike, qd: ArrayLike | None = None,
                       qdd: ArrayLike | None = None) -> Data:
    """Every body's pose, velocity and acceleration, every frame.

    Parameters
    ----------
    model : Model
        The tree, its joints and couplers.
    q : array_like, shape (F, nq) or (nq,)
        Coordinates (m for lengths, rad for angles); a coupler's dependent column is overwritten.
    qd, qdd : array_like, same shape as ``q``, optional
        Their first and second time derivatives (m/s, rad/s; m/s^2, rad/s^2); zero when None.

    Returns
    -------
    Data
        Every body's pose, velocity and acceleration and every joint axis, ground components
        (F frames; F = 1 for a 1-D ``q``).
    """
    q = _frames(model, q, None, "q")
    qd = _frames(model, qd, q, "qd")
    qdd = _frames(model, qdd, q, "qdd")
    c = model.compiled
    ft = c.functions.arrays()
    F, B, A = q.shape[0], model.nbodies, c.akind.shape[0]
    cslope = np.zeros((F, c.cdep.shape[0]))
    if c.cdep.size:
        _k.couple_coordinates(q, qd, qdd, c.cdep, c.cfun, c.cind, *ft, cslope)
    val, slope, rate, accel = (np.empty((F, A)) for _ in range(4))
    _k.axis_values(q, qd, qdd, c.afun, c.acoord, *ft, val, slope, rate, accel)
    R, jR = np.empty((F, B, 3, 3)), np.empty((F, B, 3, 3))
    origin, omega, velocity, alpha, acceleration, jorigin = (np.empty((F, B, 3)) for _ in range(6))
    aorigin, avector = np.empty((F, A, 3)), np.empty((F, A, 3))
    _k.joint_tree(model.parents, c.astart, c.akind, c.aaxis, c.pR, c.pp, c.cR, c.cp, val, rate, accel,
                  R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, avector)
    return Data(q, qd, qdd, R, origin, omega, velocity, alpha, acceleration, jR, jorigin, aorigin, avector,
                slope, cslope)


def marker_positions(model: Model, data: Data) -> np.ndarray:
    """The model's markers in ground.

    Parameters
    ----------
    model : Model
        Its ``markers`` (body, offset in the body frame, m).
    data : Data
        A kinematics pass of ``model`` (:func:`forward_kinematics`).

    Returns
    -------
    (F, M, 3) ndarray
        m, in the order of ``model.markers``.
    """
    body = np.array([m.body for m in model.markers], dtype=np.int64)
    offset = np.array([m.offset for m in model.markers], dtype=float).reshape(-1, 3)
    return data.points(body, offset)


def com_positions(model: Model, data: Data) -> np.ndarray:
    """Every body's mass centre in ground.

    Parameters
    ----------
    model : Model
        Its mass-centre offsets (m, body frames).
    data : Data
        A kinematics pass of ``model``.

    Returns
    -------
    (F, B, 3) ndarray
        m.
    """
    return data.points(np.arange(model.nbodies), model.com)


def _fold_couplers(model: Model, data: Data, J: np.ndarray) -> np.ndarray:
    """Chain rule for the couplers, last to first: ``J[:, i] += f' J[:, d]``, then ``J[:, d] = 0``."""
    c = model.compiled
    for k in range(c.cdep.shape[0] - 1, -1, -1):
        d, i = c.cdep[k], c.cind[k]
        J[..., i] += data.coupler_slope[:, k].reshape((-1,) + (1,) * (J.ndim - 2)) * J[..., d]
        J[..., d] = 0.0
    return J


def point_jacobian(model: Model, data: Data, body: ArrayLike, offset: ArrayLike) -> np.ndarray:
    """``d x / d q`` of points fixed on bodies.

    With couplers, the columns are the derivatives along the independent
    coordinates (each dependent coordinate follows its function; its column is 0).

    Parameters
    ----------
    model : Model
        The tree, its joint axes and couplers.
    data : Data
        A kinematics pass of ``model`` (its joint axes and slopes).
    body : (M,) int array_like
        Body of each point.
    offset : (M, 3) array_like
        The points in their bodies' frames (m).

    Returns
    -------
    (F, M, 3, nq) ndarray
        m per coordinate unit (m/rad for an angle, 1 for a length).
    """
    body = np.ascontiguousarray(np.atleast_1d(np.asarray(body, dtype=np.int64)))
    offset = np.asarray(offset, dtype=float).reshape(-1, 3)
    x = np.ascontiguousarray(data.points(body, offset))
    c = model.compiled
    J = np.empty((data.frames, body.shape[0], 3, model.nq))
    _k.translational_jacobian(model.parents, c.astart, c.akind, c.acoord, data.axis_origin, data.axis_vector,
                      data.axis_slope, body, x, J)
    return _fold_couplers(model, data, J)


def marker_jacobian(model: Model, data: Data) -> np.ndarray:
    """``d x / d q`` of the model's markers (see :func:`point_jacobian`).

    Parameters
    ----------
    model : Model
        Its markers (body, offset in the body frame, m).
    data : Data
        A kinematics pass of ``model``.

    Returns
    -------
    (F, M, 3, nq) ndarray
        m per coordinate unit, in the order of ``model.markers``.
    """
    body = np.array([m.body for m in model.markers], dtype=np.int64)
    offset = np.array([m.offset for m in model.markers], dtype=float).reshape(-1, 3)
    return point_jacobian(model, data, body, offset)


def body_jacobian(model: Model, data: Data, body: int | ArrayLike) -> np.ndarray:
    """The bodies' spatial Jacobians at their origins, ground components.

    Rows 0-2: ``d omega / d q'`` (rad/s per coordinate rate); rows 3-5: ``d v_origin / d q'``.

    Parameters
    ----------
    model : Model
        The tree, its joint axes and couplers.
    data : Data
        A kinematics pass of ``model``.
    body : int or (M,) int array_like
        The bodies (0-based).

    Returns
    -------
    (F, M, 6, nq) ndarray
        Rows 0-2 angular (rad/s per coordinate rate), rows 3-5 linear at the body's origin (m/s per rate), ground axes.
    """
    body = np.ascontiguousarray(np.atleast_1d(np.asarray(body, dtype=np.int64)))
    c = model.compiled
    J = np.empty((data.frames, body.shape[0], 6, model.nq))
    Jw = np.empty((data.frames, body.shape[0], 3, model.nq))
    _k.angular_jacobian(model.parents, c.astart, c.akind, c.acoord, data.axis_vector, data.axis_slope, body, Jw)
    J[:, :, :3] = _fold_couplers(model, data, Jw)
    J[:, :, 3:] = point_jacobian(model, data, body, np.zeros((body.shape[0], 3)))
    return J

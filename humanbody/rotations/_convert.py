"""Any orientation convention to any other, through the transformation matrix."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from .angles import euler_to_matrix, matrix_to_euler
from .common import SEQUENCES, scipy_rotation, stacked_scipy
from .common import as_matrices as _mat
from .common import as_vectors as _vec
from .quaternions import matrix_to_axis_angle, matrix_to_quaternion, quaternion_to_matrix

_NAMES = {"matrix": "matrix", "quaternion": "quaternion", "rotvec": "rotvec", "bryant": "xyz",
          **{seq: seq for seq in SEQUENCES}}


def convert(value, from_: str, to: str, tol: float = 1e-9):
    """Convert orientations between any two conventions.

    Parameters
    ----------
    value : array_like
        Orientations in the ``from_`` convention.
    from_, to : str
        ``"matrix"`` (..., 3, 3), parent = S . body;
        ``"quaternion"`` (..., 4) Euler parameters, scalar last (eq. 8.166);
        ``"rotvec"`` (..., 3) axis times angle, ``theta l`` (rad);
        any of :data:`SEQUENCES` (``"bryant"`` = ``"xyz"``), (..., 3) angles (rad).
    tol : float
        Singular-set threshold passed to :func:`matrix_to_euler`.

    Returns
    -------
    ndarray
        The orientations in the ``to`` convention (shapes and units as for ``from_``).  Every conversion passes
        through the transformation matrix; quaternions come out with eps4 >= 0.
    """
    try:
        src, dst = _NAMES[from_], _NAMES[to]
    except KeyError as exc:
        raise InputError(f"unknown orientation convention {exc.args[0]!r}; expected one of "
                         f"{', '.join(_NAMES)}.") from None
    if src == "matrix":
        S = _mat(value)
    elif src == "quaternion":
        S = quaternion_to_matrix(value)
    elif src == "rotvec":
        S = stacked_scipy(lambda x: scipy_rotation().from_rotvec(x).as_matrix(), _vec(value, 3, "a rotation vector"), 3)
    else:
        S = euler_to_matrix(value, src)
    if dst == "matrix":
        return np.array(S, dtype=np.float64)
    if dst == "quaternion":
        return matrix_to_quaternion(S)
    if dst == "rotvec":
        axis, th = matrix_to_axis_angle(S)
        return axis * th[..., None]
    return matrix_to_euler(S, dst, tol=tol)

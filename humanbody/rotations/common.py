"""Sequence names, argument checks, elementary matrices and the scipy bridge shared by the orientation modules."""

from __future__ import annotations

import numpy as np

from ..errors import InputError

#: Angle sequences the library knows: three rotations about body-fixed
#: (intrinsic, "successive") axes, named by the axes in the order applied.
#: Cardan (Bryant) sequences use three different axes, Euler sequences repeat
#: the first.  "xyz" are Huston's dextral (Bryant) angles (8.74), "zxz" his
#: Euler angles (8.82-8.91), "yxz" the flexion-first joint coordinate system
#: of Grood and Suntay (the default at the limb, trunk and neck joints).
CARDAN = ("xyz", "xzy", "yxz", "yzx", "zxy", "zyx")
EULER = ("xyx", "xzx", "yxy", "yzy", "zxz", "zyz")
SEQUENCES = CARDAN + EULER
AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def check_sequence(seq):
    """The rotation sequence ``seq`` in lower case, checked (``"bryant"`` is ``"xyz"``).

    Parameters
    ----------
    seq : str
        Three body axes applied in order, e.g. ``"yxz"`` (any case), or ``"bryant"``.

    Returns
    -------
    str
        One of :data:`SEQUENCES`.

    Raises
    ------
    InputError
        When ``seq`` is none of them.
    """
    s = str(seq).lower()
    if s == "bryant":
        s = "xyz"
    if s not in SEQUENCES:
        raise InputError(f"unknown rotation sequence {seq!r}; expected three body axes such as "
                         f"'yxz' (one of {', '.join(SEQUENCES)}).")
    return s


def sequence_axes(seq):
    """The axis indices (0 = x, 1 = y, 2 = z) of a rotation sequence's three rotations.

    Parameters
    ----------
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    tuple of int
        The three rotations' axes, in the order applied.
    """
    return tuple(AXIS_INDEX[c] for c in check_sequence(seq))


def is_euler_sequence(seq) -> bool:
    """True for an Euler sequence (first and third axes equal, e.g. "zxz"), False for Cardan.

    Parameters
    ----------
    seq : str
        One of :data:`SEQUENCES`.

    Returns
    -------
    bool
        True for an Euler sequence.
    """
    a = sequence_axes(seq)
    return a[0] == a[2]


def as_vectors(x, n, what):
    """``x`` as a float64 array whose last axis has length ``n``.

    Parameters
    ----------
    x : array_like, shape (..., n)
        Vectors (one per leading index).
    n : int
        The length the last axis must have.
    what : str
        The argument's name, for the message.

    Returns
    -------
    ndarray, shape (..., n), float64
        The same vectors as float64.

    Raises
    ------
    InputError
        When ``x`` is a scalar or its last axis is not ``n`` long.
    """
    a = np.asarray(x, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] != n:
        raise InputError(f"{what} must have shape (..., {n}), got {a.shape}.")
    return a


def as_matrices(S):
    """``S`` as a float64 stack of 3 x 3 matrices.

    Parameters
    ----------
    S : array_like, shape (..., 3, 3)
        Rotation (transformation) matrices.

    Returns
    -------
    ndarray, shape (..., 3, 3), float64
        The same matrices as float64.

    Raises
    ------
    InputError
        When the last two axes are not 3 x 3.
    """
    S = np.asarray(S, dtype=np.float64)
    if S.ndim < 2 or S.shape[-2:] != (3, 3):
        raise InputError(f"a rotation matrix must have shape (..., 3, 3), got {S.shape}.")
    return S


def elementary(axis, angle):
    """Matrix of a simple rotation about body axis ``axis`` (0, 1, 2).

    The matrices A, B, C of Huston eqs. 8.64, 8.67 and 8.70 (parent = M . body
    components after a rotation about x, y, z through ``angle``).

    Parameters
    ----------
    axis : int
        0, 1 or 2 (x, y, z).
    angle : float or array_like, shape (...), rad
        The rotation angle, right-hand rule about the axis.

    Returns
    -------
    ndarray, shape (..., 3, 3)
        ``M[..., axis, axis] = 1`` and the cosine/sine block on the two other axes.
    """
    c, s = np.cos(angle), np.sin(angle)
    M = np.zeros(np.shape(angle) + (3, 3))
    i, j = (axis + 1) % 3, (axis + 2) % 3
    M[..., axis, axis] = 1.0
    M[..., i, i] = c
    M[..., j, j] = c
    M[..., i, j] = -s
    M[..., j, i] = s
    return M


def skew(omega):
    """Angular velocity matrix W of a vector, Huston eqs. 8.121-8.122.

    ``W_im = -e_iml V_l`` so that ``W @ p = omega x p``.

    Parameters
    ----------
    omega : array_like, shape (..., 3)
        The vector (e.g. an angular velocity, rad/s).

    Returns
    -------
    W : ndarray, shape (..., 3, 3)
        The skew-symmetric matrix with W @ p = omega x p (omega's units).
    """
    w = as_vectors(omega, 3, "omega")
    W = np.zeros(w.shape[:-1] + (3, 3))
    W[..., 0, 1], W[..., 0, 2] = -w[..., 2], w[..., 1]
    W[..., 1, 0], W[..., 1, 2] = w[..., 2], -w[..., 0]
    W[..., 2, 0], W[..., 2, 1] = -w[..., 1], w[..., 0]
    return W


def unskew(W):
    """Dual vector of the skew-symmetric part of W (inverse of :func:`skew`).

    Parameters
    ----------
    W : array_like, shape (..., 3, 3)
        Matrices, skew-symmetric up to error.

    Returns
    -------
    ndarray, shape (..., 3)
        The dual vector ((W32 - W23)/2, (W13 - W31)/2, (W21 - W12)/2); averaging both off-diagonal entries
        halves the effect of a non-skew error.
    """
    W = as_matrices(W)
    return 0.5 * np.stack(
        (W[..., 2, 1] - W[..., 1, 2], W[..., 0, 2] - W[..., 2, 0], W[..., 1, 0] - W[..., 0, 1]),
        axis=-1,
    )


def transpose(S):
    """The transpose of every matrix of a stack (the inverse of a rotation).

    Parameters
    ----------
    S : ndarray, shape (..., n, m)
        A stack of matrices.

    Returns
    -------
    ndarray, shape (..., m, n)
        A view of ``S`` with its last two axes swapped.
    """
    return np.swapaxes(S, -1, -2)


def scipy_rotation():
    """``scipy.spatial.transform.Rotation``, imported on first use (a third of a second).

    Returns
    -------
    type
        The class :class:`scipy.spatial.transform.Rotation`.
    """
    from scipy.spatial.transform import Rotation  # lazy: scipy.spatial, ~0.5 s (humanbody --help imports rotations)

    return Rotation


def stacked_scipy(fn, x, inner):
    """``fn`` (a scipy Rotation conversion of a stack) on ``x`` of shape (..., *inner), leading axes kept.

    Rotation takes a stack (n, *inner) (older scipy only one leading axis);
    the result's trailing shape is kept and the leading axes restored.

    Parameters
    ----------
    fn : callable
        A conversion taking an (n, *inner) array, e.g. ``lambda a: Rotation.from_matrix(a).as_quat()``.
    x : ndarray, shape (..., *inner)
        The items to convert, any leading axes.
    inner : int or tuple of int
        The shape of one item of ``x`` (3 for a vector, (3, 3) for a matrix).

    Returns
    -------
    ndarray, shape (..., *out)
        ``fn``'s result per item, with ``x``'s leading axes; an empty stack gives an empty result of the
        right trailing shape.
    """
    inner = (inner,) if isinstance(inner, int) else tuple(inner)
    lead = x.shape[:x.ndim - len(inner)]
    flat = np.ascontiguousarray(x).reshape((-1,) + inner)
    if flat.shape[0] == 0:
        out = fn(np.zeros((1,) + inner))
        return np.empty(lead + out.shape[1:])
    out = fn(flat)
    return out.reshape(lead + out.shape[1:])

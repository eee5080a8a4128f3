"""Kinematic states: the motion of one frame relative to another, and their algebra.

A :class:`KinematicState` holds, for every time frame, where a frame B is
and how it moves relative to a reference frame A: the position of B's
origin, B's orientation, the velocity and acceleration of B's origin as seen
in A (time derivatives taken in A), and B's angular velocity and
acceleration relative to A, every vector in A's components.  Three rules
relate states (the rigid-body kinematics of the seed documents, with the
transport and Coriolis terms):

- :func:`compose`: B relative to A and C relative to B give C relative to A;
- :func:`invert`: B relative to A gives A relative to B;
- :func:`relative`: X and Y relative to a common frame give X relative to Y
  (``compose(invert(Y), X)``).

Frames of an analysed trial (:func:`frame_state`) are ground, every segment
frame (origin at its joint point O_k, axes n_k), the mass centre of each
segment (``"<segment>.com"``, the segment's axes) and of the whole body
(``"body_com"``, ground axes), and markers (their positions with ground axes,
rates by the library's differentiation), each relative to ground, so any two
are related through the tree without the user writing the chain:
``results.relative("head", to="upper_torso")``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..rotations.quaternions import matrix_to_axis_angle

__all__ = ["KinematicState", "compose", "invert", "relative", "identity", "frame_state", "frame_names",
           "express_in"]


def _rot(R, v):
    return np.einsum("fij,fj->fi", R, v)


def _rot_t(R, v):
    return np.einsum("fji,fj->fi", R, v)


@dataclass(frozen=True, eq=False)
class KinematicState:
    """The state of a frame B relative to a frame A, every frame of a trial; A components.

    Attributes
    ----------
    position : (F, 3) m          B's origin relative to A's origin
    orientation : (F, 3, 3)      B's axes in A's components (``v_A = orientation @ v_B``)
    velocity : (F, 3) m/s        d(position)/dt taken in A
    acceleration : (F, 3) m/s^2  d(velocity)/dt taken in A
    omega : (F, 3) rad/s         angular velocity of B relative to A
    alpha : (F, 3) rad/s^2       angular acceleration of B relative to A (d(omega)/dt in A)
    """

    position: np.ndarray
    orientation: np.ndarray
    velocity: np.ndarray
    acceleration: np.ndarray
    omega: np.ndarray
    alpha: np.ndarray

    @property
    def n_frames(self) -> int:
        return int(self.position.shape[0])

    def rotation_vector(self) -> np.ndarray:
        """B's orientation relative to A as a rotation vector (axis times angle).

        Returns
        -------
        (F, 3) ndarray
            rad, A components.
        """
        axis, angle = matrix_to_axis_angle(self.orientation)
        return axis * angle[:, None]


def identity(F: int) -> KinematicState:
    """A frame relative to itself: zero motion, identity orientation.

    Parameters
    ----------
    F : int
        Frames.

    Returns
    -------
    KinematicState
        Zero position, velocity, acceleration, omega and alpha, identity orientation, F frames.
    """
    z = np.zeros((F, 3))
    return KinematicState(z, np.broadcast_to(np.eye(3), (F, 3, 3)).copy(), z.copy(), z.copy(), z.copy(), z.copy())


def compose(ab: KinematicState, bc: KinematicState) -> KinematicState:
    """C relative to A from B relative to A and C relative to B.

    With ``r = R_AB p_BC``:

    - ``p_AC = p_AB + r``,  ``R_AC = R_AB R_BC``
    - ``v_AC = v_AB + R_AB v_BC + w_AB x r``  (transport)
    - ``w_AC = w_AB + R_AB w_BC``  (addition theorem)
    - ``a_AC = a_AB + R_AB a_BC + al_AB x r + w_AB x (w_AB x r) + 2 w_AB x (R_AB v_BC)``  (Coriolis)
    - ``al_AC = al_AB + R_AB al_BC + w_AB x (R_AB w_BC)``

    Parameters
    ----------
    ab : KinematicState
        B relative to A, A components.
    bc : KinematicState
        C relative to B, B components.

    Returns
    -------
    KinematicState
        C relative to A, A components.
    """
    R = ab.orientation
    r = _rot(R, bc.position)
    v_rel = _rot(R, bc.velocity)
    w_rel = _rot(R, bc.omega)
    w, al = ab.omega, ab.alpha
    return KinematicState(
        position=ab.position + r,
        orientation=R @ bc.orientation,
        velocity=ab.velocity + v_rel + np.cross(w, r),
        acceleration=(ab.acceleration + _rot(R, bc.acceleration) + np.cross(al, r)
                      + np.cross(w, np.cross(w, r)) + 2.0 * np.cross(w, v_rel)),
        omega=w + w_rel,
        alpha=al + _rot(R, bc.alpha) + np.cross(w, w_rel),
    )


def invert(ab: KinematicState) -> KinematicState:
    """A relative to B (B components) from B relative to A (A components).

    ``p_BA = -R^T p``, ``R_BA = R^T``, ``w_BA = -R^T w``, ``al_BA = -R^T al``,
    ``v_BA = R^T (w x p - v)``, ``a_BA = R^T (al x p - w x (w x p) + 2 w x v - a)``
    (the derivatives of ``-R^T p`` taken in B).

    Parameters
    ----------
    ab : KinematicState
        B relative to A, in A's components.

    Returns
    -------
    KinematicState
        A relative to B, in B's components.
    """
    R, p, v, a, w, al = ab.orientation, ab.position, ab.velocity, ab.acceleration, ab.omega, ab.alpha
    return KinematicState(
        position=-_rot_t(R, p),
        orientation=np.swapaxes(R, -1, -2).copy(),
        velocity=_rot_t(R, np.cross(w, p) - v),
        acceleration=_rot_t(R, np.cross(al, p) - np.cross(w, np.cross(w, p)) + 2.0 * np.cross(w, v) - a),
        omega=-_rot_t(R, w),
        alpha=-_rot_t(R, al),
    )


def relative(x: KinematicState, y: KinematicState) -> KinematicState:
    """X relative to Y (Y components) from both relative to a common frame (its components).

    Parameters
    ----------
    x, y : KinematicState
        X and Y relative to the common frame, in its components.

    Returns
    -------
    KinematicState
        X relative to Y, in Y's components.
    """
    return compose(invert(y), x)


def express_in(state: KinematicState, R) -> KinematicState:
    """The same state with its vectors in other components: ``R.T @ v`` for every vector; the
    orientation becomes ``R^T orientation``.

    Parameters
    ----------
    state : KinematicState
        A relative state (m, m/s, m/s^2, rad/s, rad/s^2).
    R : (F, 3, 3) or (3, 3) array_like
        The other axes in the current components.

    Returns
    -------
    KinematicState
        The same state in R's axes.
    """
    R = np.broadcast_to(np.asarray(R, dtype=float), state.orientation.shape)
    return KinematicState(_rot_t(R, state.position), np.swapaxes(R, -1, -2) @ state.orientation,
                          _rot_t(R, state.velocity), _rot_t(R, state.acceleration), _rot_t(R, state.omega),
                          _rot_t(R, state.alpha))


def frame_names(results, markers=None) -> list[str]:
    """Every frame :func:`frame_state` knows for these results (and marker table).

    Parameters
    ----------
    results : Results
        The trial's kinematics.
    markers : pandas.DataFrame, optional
        Marker trajectories (their names are frames too).

    Returns
    -------
    list of str
        "ground", "body_com", the segments, their "<segment>.com" and the markers.
    """
    names = ["ground", "body_com"] + list(results.names) + [f"{n}.com" for n in results.names]
    if markers is not None:
        names += list(markers.attrs.get("markers") or [c[:-2] for c in markers.columns if c.endswith("_x")])
    return names


def frame_state(results, name: str, markers=None, differentiation=None) -> KinematicState:
    """The state of a named frame of a trial relative to ground (ground components).

    Parameters
    ----------
    results : Results
        The trial's kinematics.
    name : str
        ``"ground"``; a segment name (origin O_k, the segment's axes);
        ``"<segment>.com"`` (origin G_k, the segment's axes); ``"body_com"``
        (whole-body mass centre, ground axes); or a marker of ``markers``
        (its position, ground axes; velocity and acceleration by
        ``differentiation``, a :class:`humanbody.Differentiation`, which a
        marker frame needs).
    markers : DataFrame, optional
        Marker trajectories in ground axes on the results' time base.
    differentiation : callable, optional
        ``(time, x) -> (x, v, a)`` for a marker frame.

    Returns
    -------
    KinematicState
        Position (m), orientation, velocity (m/s), acceleration (m/s^2), omega (rad/s), alpha (rad/s^2) per frame.

    Raises
    ------
    InputError
        For a name that is no frame of the trial.
    """
    F = results.n_frames
    names = list(results.names)
    if name == "ground":
        return identity(F)
    if name == "body_com":
        z = np.zeros((F, 3))
        return KinematicState(results.body_com, np.broadcast_to(np.eye(3), (F, 3, 3)).copy(),
                              results.body_com_vel, results.body_com_acc, z, z.copy())
    seg, _, point = name.partition(".")
    if seg in names and point in ("", "com"):
        k = names.index(seg)
        w, al, R = results.omega[:, k], results.alpha[:, k], results.R[:, k]
        G, vG, aG = results.com[:, k], results.com_vel[:, k], results.com_acc[:, k]
        if point == "com":
            return KinematicState(G, R, vG, aG, w, al)
        d = results.joint[:, k] - G  # O_k from G_k, a point of the same body
        return KinematicState(results.joint[:, k], R, vG + np.cross(w, d),
                              aG + np.cross(al, d) + np.cross(w, np.cross(w, d)), w, al)
    if markers is not None and all(f"{name}_{a}" in markers.columns for a in "xyz"):
        if differentiation is None:
            raise TypeError("a marker frame needs a differentiation (e.g. humanbody.Differentiation())")
        diff = differentiation
        time = np.asarray(results.time, dtype=float)
        p = markers[[f"{name}_{a}" for a in "xyz"]].to_numpy(dtype=float)
        _, v, a = diff(time, p)
        z = np.zeros((F, 3))
        return KinematicState(p, np.broadcast_to(np.eye(3), (F, 3, 3)).copy(), v, a, z, z.copy())

    known = frame_names(results, markers)
    raise InputError(f"no frame {name!r}; frames: ground, body_com, a segment ({names[0]}, ...), "
                     f"'<segment>.com'{', a marker' if markers is not None else ''} ({len(known)} in all)")


#: Quantities written for ``--relative`` (name, KinematicState attribute or method, unit).
RELATIVE_QUANTITIES = (("position", "position", "m"), ("velocity", "velocity", "m/s"),
                       ("acceleration", "acceleration", "m/s^2"), ("omega", "omega", "rad/s"),
                       ("alpha", "alpha", "rad/s^2"), ("rotation", "rotation_vector", "rad"))


def relative_columns(what: str, to: str) -> list[str]:
    """Columns ``<what>_rel_<to>_<quantity>_<axis>`` of a relative state in the results table.

    Parameters
    ----------
    what, to : str
        Frame names (:func:`frame_names`).

    Returns
    -------
    list of str
        18 names: position, velocity, acceleration, omega, alpha, rotation, each x, y, z.
    """
    w, t = what.replace(".", "_"), to.replace(".", "_")
    return [f"{w}_rel_{t}_{q}_{a}" for q, _, _ in RELATIVE_QUANTITIES for a in "xyz"]


def relative_block(results, what: str, to: str) -> np.ndarray:
    """The :func:`relative_columns` values: ``what`` relative to ``to``, ``to``'s axes.

    Parameters
    ----------
    results : Results
        The trial's kinematics.
    what, to : str
        Frame names (:func:`frame_names`).

    Returns
    -------
    (F, 18) ndarray
        m, m/s, m/s^2, rad/s, rad/s^2, rad.
    """
    st = relative(frame_state(results, what), frame_state(results, to))
    parts = []
    for _, attr, _ in RELATIVE_QUANTITIES:
        v = getattr(st, attr)
        parts.append(v() if callable(v) else v)
    return np.concatenate(parts, axis=1)

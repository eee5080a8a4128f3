"""Huston's body trees (:class:`humanbody.model.body.BodyModel`, the 17 segments) as core models, and their fast path.

A BodyModel numbers its bodies from 1 with ``L(k) = 0`` for the ground; the
core numbers them from 0 with -1 for the ground (:mod:`humanbody.core.model`).
Body 1 (the root) gets a :class:`~humanbody.core.joints.Free` joint of its
rotation sequence (its origin in ground, then its three angles); every other
body a :class:`~humanbody.core.joints.Cardan` joint of its sequence at
``xi_k`` in its parent's frame (a body on the ground is pinned at ``xi_k``).
The coordinates are those of :func:`humanbody.model.body.coordinate_columns`,
in the same order.  A BodyModel holds its core model (``BodyModel.core``).

Such a *Huston tree* (a free root, Cardan joints, every joint frame the body
frame, no couplers) has a fast path beside :func:`~humanbody.core.kinematics.forward_kinematics`:
:func:`huston_kinematics` runs Huston's recursion (chapters 8-10), the numba
kernel :func:`humanbody._kernels.tree.tree_kinematics`, over blocks of frames
side by side, and gives what the analysis reports per segment (relative and
absolute angular velocities, joint points, mass centres and their rates,
inertia forces and torques, the whole body's mass centre); :func:`huston_loads`
balances them from the tips to the root (d'Alembert, Huston ch. 9-10,
:func:`humanbody._kernels.kinetics.tree_loads`).  Both agree with the general
pass and :func:`~humanbody.core.dynamics.joint_loads` to rounding
(tests/core/test_core_huston.py).  :func:`humanbody.compute` and the analysis's
kinetics run on them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from ..errors import InputError
from .joints import Cardan, Free
from .model import Model

__all__ = ["from_body_model", "huston_kinematics", "huston_loads", "huston_shapes", "HUSTON_OUTPUTS"]

#: The arrays :func:`huston_kinematics` writes, in the order of the kernel's outputs.
HUSTON_OUTPUTS = ("R", "omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc", "force", "torque",
                  "body_com", "body_com_vel", "body_com_acc")

_BLOCK = 256  # frames per block of the kernel: inputs of a block stay in L1/L2 cache
_AXIS = {"x": 0, "y": 1, "z": 2}


def from_body_model(body: Any) -> Model:
    """The core :class:`Model` of a BodyModel (any object with its attributes).

    ``BodyModel.core`` holds it, built once; call this only for an object that is not a BodyModel.

    Parameters
    ----------
    body : humanbody.model.body.BodyModel
        Its ``names``, ``parents`` (1-based, 0 = ground), ``sequences``, ``joint_offset`` (m, parent frame),
        ``com_offset`` (m, body frame), ``mass`` (kg), ``inertia`` (kg m^2 about the mass centre, body axes),
        ``gravity`` (m/s^2) and ``name``.

    Returns
    -------
    Model
        The same bodies in the same order, numbered from 0 (parent -1 = ground), coordinates named as
        :func:`humanbody.model.body.coordinate_columns`.
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


def _tree_arrays(model: Model) -> tuple[np.ndarray, ...]:
    """The model arguments of the tree kernels: parents, sequence axes, xi, r, mass, inertia.

    Raises InputError when ``model`` is not a Huston tree (its kinematics are :func:`forward_kinematics`'s).
    """
    joints = model.joints
    eye = np.eye(3)
    if not (isinstance(joints[0], Free) and all(isinstance(j, Cardan) for j in joints[1:])) or model.couplers \
            or np.any(model.joint_offset[0] != 0.0) or np.any(model.joint_rotation != eye) \
            or np.any(model.child_rotation != eye) or np.any(model.child_offset != 0.0):
        raise InputError(f"model {model.name!r} is not a Huston tree (a Free root, Cardan joints whose frames are "
                         "the bodies' own, no couplers): use humanbody.core.forward_kinematics")
    seq = np.array([[_AXIS[a] for a in j.sequence] for j in joints], dtype=np.int64)
    # parents and seq writable, the constants read-only: the signature the kernels are compiled and cached for
    return np.array(model.parents), seq, model.joint_offset, model.com, model.mass, model.inertia


def huston_shapes(model: Model, frames: int) -> dict[str, tuple[int, ...]]:
    """The shape of each array :func:`huston_kinematics` writes.

    Parameters
    ----------
    model : Model
        A Huston tree of B bodies.
    frames : int
        Number of frames F.

    Returns
    -------
    dict of str to tuple of int
        :data:`HUSTON_OUTPUTS` -> (F, B, 3, 3) for ``R``, (F, 3) for the whole body's three, (F, B, 3) otherwise.
    """
    shapes: dict[str, tuple[int, ...]] = {name: (frames, model.nbodies, 3) for name in HUSTON_OUTPUTS}
    shapes["R"] = (frames, model.nbodies, 3, 3)
    for name in ("body_com", "body_com_vel", "body_com_acc"):
        shapes[name] = (frames, 3)
    return shapes


def huston_kinematics(model: Model, q: np.ndarray, qd: np.ndarray, qdd: np.ndarray, local_rates: bool = False,
                      out: Mapping[str, np.ndarray] | None = None,
                      kernel: Callable[..., None] | None = None) -> dict[str, np.ndarray]:
    """Huston's recursion over a Huston tree: every body's kinematics and inertia loads, every frame.

    For body k with parent p: ``R_k = R_p S_k`` (eqs. 8.64-8.74), ``omega_k = omega_p + R_p hat_omega_k``
    (8.104), ``alpha_k = alpha_p + R_p d(hat_omega_k)/dt + omega_p x R_p hat_omega_k`` (8.115), the joint
    point ``O_k = O_p + R_p xi_k`` and the mass centre ``G_k = O_k + R_k r_k`` with their velocities and
    accelerations (8.126, 8.129), the inertia force ``F*_k = -m_k a_Gk`` (10.1) and torque
    ``T*_k = -I_k alpha_k - omega_k x (I_k omega_k)`` (10.2), and the whole body's mass centre (9.19)
    (:func:`humanbody._kernels.tree.tree_kinematics`; each frame evaluated on its own).

    Parameters
    ----------
    model : Model
        A Huston tree (``BodyModel.core``); anything else is an InputError.
    q : ndarray, shape (F, nq)
        The coordinates: the root's origin in ground (m), then each body's three angles in its
        sequence (rad), as ``model.coordinate_names``.
    qd, qdd : ndarray, shape (F, nq)
        The root origin's velocity and acceleration (m/s, m/s^2), then per body either its angle
        rates (rad/s, rad/s^2; ``local_rates`` False) or the parent-frame components of its relative
        angular velocity hat omega_k and of its time derivative (``local_rates`` True).
    local_rates : bool
        What the angular columns of ``qd`` and ``qdd`` hold (above).
    out : mapping of str to ndarray, optional
        Arrays to write into, C-contiguous float64 of :func:`huston_shapes` (a workspace of an earlier
        call); new ones when None.
    kernel : callable, optional
        Runs instead of :func:`~humanbody._kernels.tree.tree_kinematics` with the same arguments first
        (:func:`humanbody._kernels.kinetics.tree_dynamics`: the kinetics of each block right after its
        kinematics).

    Returns
    -------
    dict of str to ndarray
        :data:`HUSTON_OUTPUTS` -> arrays in ground components: ``R`` (F, B, 3, 3); ``omega_rel``,
        ``omega`` (rad/s), ``alpha`` (rad/s^2), ``joint``, ``com`` (m), ``com_vel`` (m/s), ``com_acc``
        (m/s^2), ``force`` (N), ``torque`` (N m), each (F, B, 3); ``body_com``, ``body_com_vel``,
        ``body_com_acc`` (F, 3).  The arrays of ``out`` when given.
    """
    from .._kernels import tree as _tree  # lazy: the tree kernels load with the Huston path, not with every core model

    arrays = dict(out) if out is not None else {k: np.empty(s) for k, s in huston_shapes(model, q.shape[0]).items()}
    q, qd, qdd = (_one_layout(a) for a in (q, qd, qdd))
    args = (q, qd, qdd, local_rates, *_tree_arrays(model), *(arrays[name] for name in HUSTON_OUTPUTS), _BLOCK)
    with _tree.threads_for(q.shape[0]):
        (kernel or _tree.tree_kinematics)(*args)
    return arrays


def _one_layout(a: np.ndarray) -> np.ndarray:
    """``a`` as a writeable C-ordered float64 array (a copy only when it is not one already).

    numba compiles a kernel once per layout and read-only flag of its arrays: coordinates reach the Huston
    path as views of tables (read-only, Fortran-ordered or strided), and each would cost the block kernel a
    compile of its own (about 15 CPU-s) for the same arithmetic.  The copy costs 8 bytes per coordinate and
    frame beside the kernel's 4,968 bytes of results per frame.

    Parameters
    ----------
    a : numpy.ndarray
        Coordinates or their rates, shape (F, nq).

    Returns
    -------
    numpy.ndarray
        ``a`` itself or its C-ordered, writeable float64 copy, shape (F, nq).
    """
    if a.dtype == np.float64 and a.flags.c_contiguous and a.flags.writeable:
        return a
    return np.array(a, dtype=np.float64, order="C")


def huston_loads(model: Model, kinematics: Mapping[str, np.ndarray], load_force: np.ndarray,
                 load_moment: np.ndarray, load_body: np.ndarray,
                 out: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, ...]:
    """Force and moment every body of a Huston tree receives from its parent, and the joint powers.

    d'Alembert's principle body by body from the tips to the root (Huston ch. 9-10): ``f_k = sum_c f_c -
    m_k g - F*_k - E_k`` and ``m_k = sum_c (m_c + (O_c - O_k) x f_c) - (G_k - O_k) x (m_k g + F*_k) - T*_k -
    N_k`` over the children c, with the external loads ``E_k`` and ``N_k`` (about O_k) on body k; the
    power ``P_k = m_k . omega_rel_k`` (:func:`humanbody._kernels.kinetics.tree_loads`).  The root's ``f``
    and ``m`` are the residual force and moment from ground the loads leave unbalanced.

    Parameters
    ----------
    model : Model
        A Huston tree (``BodyModel.core``): its parents, masses and gravity (m/s^2).
    kinematics : mapping of str to ndarray
        What :func:`huston_kinematics` gave for the F frames (or any mapping with its ``joint``, ``com``
        (m), ``force`` (N), ``torque`` (N m) and ``omega_rel`` (rad/s), each (F, B, 3), ground components).
    load_force, load_moment : ndarray, shape (F, L, 3)
        Each external load's force (N) and moment about the ground origin (N m), ground components.
    load_body : ndarray of int64, shape (F, L)
        The body (0-based) each load acts on, < 0 on none; -2 marks a frame whose loads' bodies are
        ambiguous, whose outputs are NaN.
    out : tuple of three ndarrays, optional
        ``(force, moment, power)`` to write into (any strides), shapes (F, B, 3), (F, B, 3), (F, B).

    Returns
    -------
    force, moment : ndarray, shape (F, B, 3)
        N, and N m about each body's joint point O_k: what each body receives from its parent, ground axes.
    power : ndarray, shape (F, B)
        W: the joint moment times the relative angular velocity.
    """
    from .._kernels.kinetics import tree_loads as _tree_loads  # lazy: as huston_kinematics

    F, B = kinematics["joint"].shape[:2]
    force, moment, power = out if out is not None else (np.empty((F, B, 3)), np.empty((F, B, 3)), np.empty((F, B)))
    _tree_loads(np.array(model.parents), model.mass, model.gravity, kinematics["joint"], kinematics["com"],
                kinematics["force"], kinematics["torque"], kinematics["omega_rel"], load_force, load_moment,
                load_body, force, moment, power)
    return force, moment, power

"""The 17 segments as a core model give what humanbody.compute, inverse_dynamics and mass_matrix give."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import humanbody
from humanbody.core import (
    forward_kinematics,
    from_body_model,
    huston_kinematics,
    huston_loads,
    inverse_dynamics,
    joint_loads,
    mass_matrix,
)
from humanbody.errors import InputError


@pytest.fixture(scope="module")
def body():
    return humanbody.BodyModel.default(mass=72.0, height=1.78)


@pytest.fixture(scope="module")
def motion(body):
    rng = np.random.default_rng(4)
    n = 3 + 3 * body.n_bodies
    return tuple(rng.normal(size=(40, n)) * s for s in (0.6, 2.0, 5.0))


def _close(a, b):
    assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max())


def test_same_coordinates_and_kinematics_as_compute(body, motion):
    model = from_body_model(body)
    assert list(model.coordinate_names) == humanbody.coordinate_columns(body)
    assert list(model.parents) == [p - 1 for p in body.parents]
    q, qd, qdd = motion
    time = np.arange(q.shape[0]) * 0.01
    names = list(model.coordinate_names)
    frame = pd.concat([pd.DataFrame({"time": time}), pd.DataFrame(q, columns=names),
                       pd.DataFrame(qd, columns=[f"{c}_dot" for c in names]),
                       pd.DataFrame(qdd, columns=[f"{c}_ddot" for c in names])], axis=1)
    res = humanbody.compute(body, frame, rates="given")
    data = forward_kinematics(model, q, qd, qdd)
    _close(data.R, res.R)
    _close(data.origin, res.joint)
    _close(data.omega, res.omega)
    _close(data.alpha, res.alpha)
    _close(data.points(np.arange(model.nbodies), model.com), res.com)


def test_same_dynamics(body, motion):
    model = from_body_model(body)
    q, qd, qdd = motion
    _close(inverse_dynamics(model, q, qd, qdd), humanbody.inverse_dynamics(body, q, qd, qdd))
    _close(mass_matrix(model, q[:5]), humanbody.mass_matrix(body, q[:5]))


def test_a_body_model_holds_its_core_model_built_once(body):
    """``BodyModel.core`` is built on first use, kept, pickled with the model, and rebuilt for a changed copy."""
    core = body.core
    assert body.core is core
    same = from_body_model(body)
    assert core.coordinate_names == same.coordinate_names and core.names == same.names
    for key in ("parents", "joint_offset", "mass", "com", "inertia", "gravity"):
        np.testing.assert_array_equal(getattr(core, key), getattr(same, key))
    assert [p + 1 for p in core.parents] == list(body.parents)  # Huston's L(k), 1-based, is the public view
    back = pickle.loads(pickle.dumps(body))
    np.testing.assert_array_equal(back.core.mass, core.mass)
    heavier = body.replace(mass=body.mass * 2.0)
    np.testing.assert_array_equal(heavier.core.mass, body.mass * 2.0)
    assert not hasattr(body, "parent_index")  # one 0-based parent array: the core model's


def test_the_fast_path_gives_the_general_pass_and_the_inertia_loads(body, motion):
    """huston_kinematics (Huston's block recursion) against forward_kinematics (the joint-axis recursion), and its
    inertia force and torque against -m a_G and -(I alpha + omega x I omega) from the general pass."""
    model = body.core
    q, qd, qdd = (np.ascontiguousarray(a) for a in motion)
    kin = huston_kinematics(model, q, qd, qdd)
    data = forward_kinematics(model, q, qd, qdd)
    _close(kin["R"], data.R)
    _close(kin["joint"], data.origin)
    _close(kin["omega"], data.omega)
    _close(kin["alpha"], data.alpha)
    r = np.einsum("fbij,bj->fbi", data.R, model.com)
    w, a = data.omega, data.alpha
    acc = data.acceleration + np.cross(a, r) + np.cross(w, np.cross(w, r))
    _close(kin["force"], -model.mass[None, :, None] * acc)
    Ig = np.einsum("fbij,bjk,fblk->fbil", data.R, model.inertia, data.R)
    _close(kin["torque"], -(np.einsum("fbij,fbj->fbi", Ig, a) + np.cross(w, np.einsum("fbij,fbj->fbi", Ig, w))))
    com = (model.mass[None, :, None] * data.points(np.arange(model.nbodies), model.com)).sum(1) / model.mass.sum()
    _close(kin["body_com"], com)


def test_the_fast_path_refuses_a_model_that_is_not_a_huston_tree(body):
    other = body.core.replace(child_offset=np.full((body.n_bodies, 3), 0.01))
    q = np.zeros((2, other.nq))
    with pytest.raises(InputError, match="not a Huston tree"):
        huston_kinematics(other, q, q, q)


def test_the_fast_path_joint_loads_are_the_general_newton_euler(body, motion):
    """huston_loads (Huston's tip-to-root balance of the fast path's inertia loads) against joint_loads (recursive
    Newton-Euler on the joint axes), with a load on the right foot and one on no body."""
    model = body.core
    q, qd, qdd = (np.ascontiguousarray(a) for a in motion)
    F, B = q.shape[0], model.nbodies
    foot = model.body("right_foot")
    rng = np.random.default_rng(7)
    load_force = rng.normal(size=(F, 2, 3)) * 300.0
    load_moment = rng.normal(size=(F, 2, 3)) * 50.0  # about the ground origin
    load_body = np.tile(np.array([foot, -1], dtype=np.int64), (F, 1))
    kin = huston_kinematics(model, q, qd, qdd)
    force, moment, power = huston_loads(model, kin, load_force, load_moment, load_body)
    data = forward_kinematics(model, q, qd, qdd)
    external = np.zeros((F, B, 6))
    O = data.origin[:, foot]
    external[:, foot, :3] = load_force[:, 0]
    external[:, foot, 3:] = load_moment[:, 0] - np.cross(O, load_force[:, 0])  # about the foot's origin
    f_ne, m_ne, _ = joint_loads(model, data, external)
    _close(force, f_ne)
    _close(moment, m_ne)
    _close(power, np.einsum("fbi,fbi->fb", moment, kin["omega_rel"]))

"""The compiled kinematics against Pinocchio, for models with mixed rotation sequences.

Pinocchio (``pin``) builds the same tree with three revolute joints per
segment in the order of the segment's sequence (the root adds three prismatic
joints along the ground axes), so its configuration, velocity and
acceleration vectors are our coordinates, their rates and accelerations.
Its forward kinematics and centre-of-mass algorithm are an independent
implementation of the same mechanics.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from _motion import random_model, random_tree

import humanbody as hb
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.model.segments import DEFAULT_SEQUENCES
from humanbody.rotations import SEQUENCES

pin = pytest.importorskip("pinocchio")

_REV = {"x": "JointModelRX", "y": "JointModelRY", "z": "JointModelRZ"}
_PRI = ("JointModelPX", "JointModelPY", "JointModelPZ")


def pinocchio_model(model: hb.BodyModel):
    """The body tree as a Pinocchio model; returns it and the joint id of each segment's last rotation."""
    pm = pin.Model()
    pm.gravity.linear = np.asarray(model.gravity, dtype=float)
    last = {0: 0}
    for k in range(model.n_bodies):
        parent = last[int(model.parents[k])]
        xi = model.joint_offset[k] if k else np.zeros(3)  # body 1's origin is the root coordinate itself
        place = pin.SE3(np.eye(3), np.asarray(xi, dtype=float))
        jid = parent
        if model.parents[k] == 0 and k == 0:
            for name in _PRI:
                jid = pm.addJoint(jid, getattr(pin, name)(), place, f"{model.names[k]}_{name}")
                place = pin.SE3.Identity()
        for axis in model.sequences[k]:
            jid = pm.addJoint(jid, getattr(pin, _REV[axis])(), place, f"{model.names[k]}_r{axis}{jid}")
            place = pin.SE3.Identity()
        pm.appendBodyToJoint(jid, pin.Inertia(float(model.mass[k]), np.asarray(model.com_offset[k], dtype=float),
                                              np.asarray(model.inertia[k], dtype=float)), pin.SE3.Identity())
        last[k + 1] = jid
    return pm, [last[k + 1] for k in range(model.n_bodies)]


def _motion(model, rng, frames=40):
    cols = coordinate_columns(model)
    t = np.linspace(0.0, 1.0, frames)
    A, w, ph = rng.uniform(0.3, 2.0, len(cols)), rng.uniform(1, 6, len(cols)), rng.uniform(0, 6, len(cols))
    arg = np.outer(t, w) + ph
    q, qd, qdd = A * np.sin(arg), A * w * np.cos(arg), -A * w * w * np.sin(arg)
    data = {"time": t}
    for i, c in enumerate(cols):
        data[c], data[c + "_dot"], data[c + "_ddot"] = q[:, i], qd[:, i], qdd[:, i]
    return pd.DataFrame(data), q, qd, qdd


@pytest.mark.parametrize("case", ["default", "mixed", "random_tree"])
def test_kinematics_equal_pinocchio(case):
    rng = np.random.default_rng({"default": 1, "mixed": 2, "random_tree": 3}[case])
    if case == "default":
        model = hb.BodyModel.default(mass=72.0, height=1.78)
        assert model.sequences == DEFAULT_SEQUENCES
    elif case == "mixed":
        model = hb.BodyModel.default().replace(sequences=[SEQUENCES[i % 12] for i in range(17)])
    else:
        parents = random_tree(rng, 9)
        model = random_model(rng, parents=parents).replace(
            sequences=[SEQUENCES[i] for i in rng.integers(0, 12, len(parents))])
    coords, q, qd, qdd = _motion(model, rng)
    res = hb.compute(model, coords)
    pm, ids = pinocchio_model(model)
    data = pm.createData()
    for f in range(len(coords)):
        pin.forwardKinematics(pm, data, q[f], qd[f], qdd[f])
        for k, jid in enumerate(ids):
            M = data.oMi[jid]
            np.testing.assert_allclose(res.R[f, k], M.rotation, atol=1e-12)
            np.testing.assert_allclose(res.joint[f, k], M.translation, atol=1e-12)
            v = pin.getVelocity(pm, data, jid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
            a = pin.getClassicalAcceleration(pm, data, jid, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED)
            np.testing.assert_allclose(res.omega[f, k], v.angular, atol=1e-11)
            np.testing.assert_allclose(res.alpha[f, k], a.angular, atol=1e-10)
        com = pin.centerOfMass(pm, data, q[f], qd[f], qdd[f])
        np.testing.assert_allclose(res.body_com[f], com, atol=1e-12)
        np.testing.assert_allclose(res.body_com_vel[f], data.vcom[0], atol=1e-11)
        np.testing.assert_allclose(res.body_com_acc[f], data.acom[0], atol=1e-10)

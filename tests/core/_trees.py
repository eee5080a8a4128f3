"""Core models the tests share: a random tree with every joint type, and its Pinocchio twin."""

from __future__ import annotations

import numpy as np

from humanbody.core import ModelBuilder, functions, joints


def random_rotation(rng) -> np.ndarray:
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


def mixed_tree(seed: int = 1, couplers: bool = False, splines: bool = False):
    """A tree of ten bodies with every joint type, random placements and inertias (a core Model).

    ``splines``: the helical joint's translation is a SimmSpline of its angle and a Custom
    knee carries a spline translation; ``couplers``: one coordinate follows another.
    """
    rng = np.random.default_rng(seed)

    def unit():
        v = rng.normal(size=3)
        return v / np.linalg.norm(v)

    def inertia():
        A = rng.normal(size=(3, 3))
        return A @ A.T * 0.05 + np.eye(3) * 0.02

    pitch = functions.Linear(0.05, 0.0)
    knee_tx = functions.SimmSpline([-2.0, -1.0, 0.0, 0.5, 1.5], [0.01, -0.004, 0.0, 0.003, -0.002])
    screw = tuple(unit())
    helix = joints.Custom(nq=1, rotations=(joints.TransformAxis(screw, None, 0),),
                          translations=(joints.TransformAxis(screw, knee_tx if splines else pitch, 0),))
    knee = joints.Custom(nq=2, rotations=(joints.TransformAxis("z", None, 0),
                                          joints.TransformAxis("x", functions.Multiplier(functions.Linear(1, 0.1), 0.5), 1),
                                          joints.TransformAxis("y", functions.Constant(0.2))),
                         translations=(joints.TransformAxis("x", knee_tx, 0),
                                       joints.TransformAxis("y", functions.Polynomial([0.02, -0.01, 0.3]), 0)))
    spec = [("root", None, joints.Free("zxy")), ("a", "root", joints.Cardan("xyz")),
            ("b", "a", joints.Cardan("zyx")), ("c", "b", joints.Revolute(tuple(unit()))),
            ("d", "root", joints.Prismatic(tuple(unit()))), ("e", "d", joints.Universal(tuple(unit()), tuple(unit()))),
            ("f", "e", joints.Weld()), ("g", "f", helix), ("h", "a", joints.Ball()),
            ("k", "h", knee if splines else joints.Revolute("x"))]
    b = ModelBuilder("mixed", gravity=(0.0, 0.0, -9.81))
    for name, parent, joint in spec:
        b.add_body(name, joint, parent=parent, offset=rng.normal(size=3) * 0.2,
                   rotation=random_rotation(rng), child_offset=rng.normal(size=3) * 0.1,
                   child_rotation=random_rotation(rng), mass=rng.uniform(0.5, 5.0),
                   com=rng.normal(size=3) * 0.1, inertia=inertia())
        b.add_marker(f"{name}_m", name, rng.normal(size=3) * 0.1)
    if couplers:
        b.add_coupler("c_0", functions.SimmSpline([-3, -1, 0, 1, 3], [-1.0, -0.5, 0.1, 0.4, 2.0]), "a_1")
    return b.build()


def pinocchio_twin(pin, model):
    """The Pinocchio model of ``mixed_tree(splines=False)`` and, per body, (joint id, body placement in it)."""
    pm = pin.Model()
    pm.gravity = pin.Motion(np.asarray(model.gravity), np.zeros(3))
    where = []
    axis_joint = {"x": pin.JointModelRX, "y": pin.JointModelRY, "z": pin.JointModelRZ}
    for b, joint in enumerate(model.joints):
        p = model.parents[b]
        pid, X_pb = (0, pin.SE3.Identity()) if p < 0 else where[p]
        X_pj = X_pb * pin.SE3(model.joint_rotation[b], model.joint_offset[b])
        X_jb = pin.SE3(model.child_rotation[b], model.child_offset[b]).inverse()
        inertia = pin.Inertia(model.mass[b], model.com[b], model.inertia[b])
        if isinstance(joint, joints.Weld):
            pm.appendBodyToJoint(pid, inertia, X_pj * X_jb)
            where.append((pid, X_pj * X_jb))
            continue
        if isinstance(joint, joints.Free | joints.Cardan | joints.Ball):
            jm = pin.JointModelComposite()
            if isinstance(joint, joints.Free):
                jm.addJoint(pin.JointModelTranslation())
            for a in getattr(joint, "sequence", "xyz"):
                jm.addJoint(axis_joint[a]())
        elif isinstance(joint, joints.Revolute):
            jm = pin.JointModelRevoluteUnaligned(np.array(joint.axis))
        elif isinstance(joint, joints.Prismatic):
            jm = pin.JointModelPrismaticUnaligned(np.array(joint.axis))
        elif isinstance(joint, joints.Universal):
            jm = pin.JointModelComposite()
            jm.addJoint(pin.JointModelRevoluteUnaligned(np.array(joint.axis1)))
            jm.addJoint(pin.JointModelRevoluteUnaligned(np.array(joint.axis2)))
        else:  # the helix: rotation and Linear(pitch) translation along one axis
            (r,), (t,) = joint.rotations, joint.translations
            jm = pin.JointModelHelicalUnaligned(np.array(r.axis), t.function.slope)
        jid = pm.addJoint(pid, jm, X_pj, model.names[b])
        pm.appendBodyToJoint(jid, inertia, X_jb)
        where.append((jid, X_jb))
    return pm, where

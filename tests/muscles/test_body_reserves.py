"""Point and torque actuators as reserves: their generalised forces against virtual work by finite differences
on the shared gait2392 model, read from an OpenSim actuators file, carried by static optimization, and the
refusals of bodies the model lacks."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody import core
from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.muscles.reserves import read_reserves
from humanbody.muscles.trial import Setup, body_actuator_directions
from tests._shared import require_shared

MODEL = "opensim_models/gait2392/subject01_simbody.osim"
ACTUATORS = """<?xml version="1.0" encoding="UTF-8" ?>
<OpenSimDocument Version="40000"><ForceSet name="reserves"><objects>
  <PointActuator name="thigh_push"><body>femur_r</body><point>0.01 -0.2 0.03</point><point_is_global>false</point_is_global>
    <direction>0.3 -1 0.2</direction><force_is_global>false</force_is_global><optimal_force>50</optimal_force></PointActuator>
  <PointActuator name="pelvis_FX"><body>pelvis</body><point>0 0 0</point>
    <direction>1 0 0</direction><force_is_global>true</force_is_global><optimal_force>10</optimal_force></PointActuator>
  <TorqueActuator name="knee_twist"><bodyA>tibia_r</bodyA><bodyB>femur_r</bodyB><axis>0.2 0.1 1</axis>
    <torque_is_global>true</torque_is_global><optimal_force>20</optimal_force></TorqueActuator>
  <CoordinateActuator name="ankle_r_reserve"><coordinate>ankle_angle_r</coordinate><optimal_force>5</optimal_force></CoordinateActuator>
</objects></ForceSet></OpenSimDocument>
"""


@pytest.fixture(scope="module")
def setup():
    return Setup.load(require_shared() / MODEL)


def _pose(setup, Q):
    cm = setup.geometry.core
    return core.forward_kinematics(cm.model, cm.to_core(np.atleast_2d(Q)))


def test_generalized_forces_are_virtual_work(setup, tmp_path):
    """Q_j = f . dp/dq_j for a force at a body point, n . (dtheta_A - dtheta_B)/dq_j for a torque pair,
    by central differences over every coordinate of the model at a random pose."""
    path = tmp_path / "actuators.xml"
    path.write_text(ACTUATORS)
    osim = setup.geometry.model
    names = list(setup.model.names)
    res = read_reserves(path, osim.coordinate_names, ("ground",) + tuple(names))
    assert res.names == ("thigh_push", "pelvis_FX", "knee_twist", "ankle_r_reserve")
    assert list(res.coordinates) == [-1, -1, -1, osim.coordinate_names.index("ankle_angle_r")]
    rng = np.random.default_rng(7)
    Q = np.array([0.5 * (c.range[0] + c.range[1]) for c in osim.coordinates]) + rng.uniform(-0.1, 0.1, len(osim.coordinates))
    D = body_actuator_directions(setup, _pose(setup, Q), res).directions[0]
    femur, tibia, pelvis = names.index("femur_r"), names.index("tibia_r"), names.index("pelvis")
    d0 = np.array([0.3, -1.0, 0.2]) / np.linalg.norm([0.3, -1.0, 0.2])
    n = np.array([0.2, 0.1, 1.0]) / np.linalg.norm([0.2, 0.1, 1.0])
    base = _pose(setup, Q)
    f_thigh = base.R[0, femur] @ d0
    h = 1e-6
    for j in range(len(Q)):
        plus, minus = Q.copy(), Q.copy()
        plus[j] += h
        minus[j] -= h
        a, b = _pose(setup, plus), _pose(setup, minus)
        point = [p.origin[0, femur] + p.R[0, femur] @ np.array([0.01, -0.2, 0.03]) for p in (a, b)]
        assert D[0, j] == pytest.approx(f_thigh @ (point[0] - point[1]) / (2 * h), abs=1e-6)
        assert D[1, j] == pytest.approx((a.origin[0, pelvis, 0] - b.origin[0, pelvis, 0]) / (2 * h), abs=1e-6)
        turn = []
        for body in (tibia, femur):
            dR = a.R[0, body] @ b.R[0, body].T  # small rotation: I + [w] 2h
            turn.append(np.array([dR[2, 1] - dR[1, 2], dR[0, 2] - dR[2, 0], dR[1, 0] - dR[0, 1]]) / 2 / (2 * h))
        assert D[2, j] == pytest.approx(n @ (turn[0] - turn[1]), abs=1e-6)
        assert D[3, j] == (1.0 if j == res.coordinates[3] else 0.0)


def test_the_optimum_meets_the_generalised_forces_with_body_reserves(setup, tmp_path):
    """On the shared walk, residual point and torque actuators on the pelvis in place of its six coordinate
    reserves: the optimum reproduces every generalised force (its residual is zero to rounding)."""
    shared = require_shared()
    from humanbody.muscles.trial import run_coordinates_file

    names = setup.geometry.model.coordinate_names
    rows = [f'<PointActuator name="pelvis_F{a}"><body>pelvis</body><point>0 0 0</point><direction>{v}</direction>'
            f"<force_is_global>true</force_is_global><optimal_force>10</optimal_force></PointActuator>"
            for a, v in zip("XYZ", ("1 0 0", "0 1 0", "0 0 1"), strict=True)]
    rows += [f'<TorqueActuator name="pelvis_M{a}"><bodyA>pelvis</bodyA><bodyB>ground</bodyB><axis>{v}</axis>'
             f"<optimal_force>10</optimal_force></TorqueActuator>" for a, v in zip("XYZ", ("1 0 0", "0 1 0", "0 0 1"), strict=True)]
    rows += [f'<CoordinateActuator name="{c}_reserve"><coordinate>{c}</coordinate><optimal_force>1</optimal_force>'
             "</CoordinateActuator>" for c in names if not c.startswith("pelvis_")]
    path = tmp_path / "actuators.xml"
    path.write_text('<OpenSimDocument Version="40000"><ForceSet><objects>' + "".join(rows) + "</objects></ForceSet></OpenSimDocument>")
    walk = shared / "gait2392_walk"
    r = run_coordinates_file(setup, walk / "reference" / "opensim_ik.mot", walk / "subject01_walk1_grf.xml", path, 2.0, 4, 6.0, (),
            (0.6, 1.6))
    assert (r.optimum.iterations >= 0).all()
    assert np.abs(r.optimum.residual).max() < 1e-6 * (1.0 + np.abs(r.tau).max())
    assert np.abs(r.optimum.forces[:, len(setup.muscles.names):][:, :6]).max() > 1.0  # the residuals work


@pytest.mark.parametrize("xml, says", [
    ('<PointActuator name="p"><body>thorax</body><point>0 0 0</point><direction>1 0 0</direction></PointActuator>',
     "body 'thorax'"),
    ('<TorqueActuator name="t"><bodyA>pelvis</bodyA><bodyB>chair</bodyB><axis>0 0 1</axis></TorqueActuator>',
     "bodyB 'chair'"),
    ('<TorqueActuator name="t"><bodyA>pelvis</bodyA><bodyB>ground</bodyB><axis>0 0 0</axis></TorqueActuator>',
     "axis is zero"),
    ('<BodyActuator name="b"><body>pelvis</body></BodyActuator>', "BodyActuator"),
])
def test_bad_body_actuators_are_one_line_exit_2(tmp_path, capsys, xml, says):
    shared = require_shared()
    path = tmp_path / "bad.xml"
    path.write_text(f'<OpenSimDocument Version="40000"><ForceSet><objects>{xml}</objects></ForceSet></OpenSimDocument>')
    walk = shared / "gait2392_walk"
    status = main(["muscles", str(walk / "reference" / "opensim_ik.mot"), "--model", str(shared / MODEL),
                   "--forces", str(walk / "subject01_walk1_grf.xml"), "--reserves", str(path), "--end", "0.6",
                   "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and says in err[0], err
    with pytest.raises(InputError):
        read_reserves(path, ("pelvis_tx",), ("ground", "pelvis"))


def _opensim_generalized_forces(path: str, seed: int) -> tuple:
    """In a process of its own: the thigh's point actuator and the knee's torque actuator of ACTUATORS added
    to the model, a random pose, and each one's generalised forces at 1 N (N·m) of actuation: the
    difference of OpenSim's InverseDynamicsSolver with and without it. Returns (q, point's, torque's),
    dicts by coordinate name."""
    import opensim as osim

    osim.Logger.setLevelString("error")
    model = osim.Model(path)
    pa = osim.PointActuator("femur_r")
    pa.setName("thigh_push")
    pa.set_point(osim.Vec3(0.01, -0.2, 0.03))
    pa.set_direction(osim.Vec3(0.3, -1.0, 0.2))
    pa.set_point_is_global(False)
    pa.set_force_is_global(False)
    model.addForce(pa)
    ta = osim.TorqueActuator()
    ta.setName("knee_twist")
    ta.set_bodyA("tibia_r")
    ta.set_bodyB("femur_r")
    ta.set_axis(osim.Vec3(0.2, 0.1, 1.0))
    ta.set_torque_is_global(True)
    model.addForce(ta)
    state = model.initSystem()
    cs = model.getCoordinateSet()
    rng = np.random.default_rng(seed)
    for i in range(cs.getSize()):
        c = cs.get(i)
        c.setValue(state, 0.5 * (c.getRangeMin() + c.getRangeMax()) + rng.uniform(-0.1, 0.1), False)
    model.assemble(state)
    order = [""] * state.getNU()
    for i in range(cs.getSize()):  # the mobility of each coordinate
        for k in range(cs.getSize()):
            cs.get(k).setSpeedValue(state, 1.0 if k == i else 0.0)
        u = state.getU()
        order[[j for j in range(u.size()) if u.get(j) == 1.0][0]] = cs.get(i).getName()
    for k in range(cs.getSize()):
        cs.get(k).setSpeedValue(state, 0.0)
    solver = osim.InverseDynamicsSolver(model)
    udot = osim.Vector(state.getNU(), 0.0)

    def tau(a_point, a_torque):
        for actuator, value in ((pa, a_point), (ta, a_torque)):
            actuator.overrideActuation(state, True)
            actuator.setOverrideActuation(state, value)
        model.realizeVelocity(state)
        v = solver.solve(state, udot)
        return np.array([v.get(i) for i in range(v.size())])

    base = tau(0.0, 0.0)
    q = {cs.get(i).getName(): cs.get(i).getValue(state) for i in range(cs.getSize())}
    return q, dict(zip(order, base - tau(1.0, 0.0), strict=True)), dict(zip(order, base - tau(0.0, 1.0), strict=True))


@pytest.mark.slow
def test_generalized_forces_equal_opensims(setup, tmp_path):
    """The point and torque actuators' generalised forces per unit force equal OpenSim 4.6's own."""
    pytest.importorskip("opensim")
    from tests._isolated import run_isolated

    shared = require_shared()
    q, point, torque = run_isolated(_opensim_generalized_forces, str(shared / MODEL), 11)
    path = tmp_path / "actuators.xml"
    path.write_text(ACTUATORS)
    osim = setup.geometry.model
    res = read_reserves(path, osim.coordinate_names, ("ground",) + tuple(setup.model.names))
    D = body_actuator_directions(setup, _pose(setup, np.array([q[c] for c in osim.coordinate_names])), res).directions[0]
    for k, want in ((0, point), (2, torque)):
        got = dict(zip(osim.coordinate_names, D[k], strict=True))
        for c in osim.coordinate_names:
            assert got[c] == pytest.approx(want[c], abs=1e-9), (res.names[k], c)

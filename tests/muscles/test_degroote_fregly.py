"""DeGrooteFregly2016Muscle: its curves and its rigid-tendon capacity against OpenSim 4.6 live, on a small model
(a body on a slider pulled by three muscles of different pennation, width scale, speed and passive strain)."""

from __future__ import annotations

import numpy as np
import pytest

from tests._isolated import run_isolated

MUSCLES = [  # name, Fmax (N), l0 (m), ls (m), alpha0 (rad), vmax (l0/s), active_force_width_scale, e0
    ("plain", 1000.0, 0.10, 0.20, 0.0, 10.0, 1.0, 0.6),
    ("pennate", 2500.0, 0.06, 0.25, 0.35, 8.0, 1.4, 0.5),
    ("long", 600.0, 0.20, 0.10, 0.15, 12.0, 1.2, 0.7),
]


def _opensim_states(path: str, lengths: list, speeds: list, lN: list, vN: list) -> dict:
    """In a process of its own: the model written to ``path``, OpenSim's capacity at each (slider
    position, speed) and its curves at the normalised lengths and velocities."""
    import opensim as osim

    osim.Logger.setLevelString("error")
    model = osim.Model()
    body = osim.Body("block", 1.0, osim.Vec3(0), osim.Inertia(0.1))
    model.addBody(body)
    joint = osim.SliderJoint("slider", model.getGround(), body)
    model.addJoint(joint)
    for name, fmax, l0, ls, alpha, vmax, width, e0 in MUSCLES:
        m = osim.DeGrooteFregly2016Muscle()
        m.setName(name)
        m.set_max_isometric_force(fmax)
        m.set_optimal_fiber_length(l0)
        m.set_tendon_slack_length(ls)
        m.set_pennation_angle_at_optimal(alpha)
        m.set_max_contraction_velocity(vmax)
        m.set_active_force_width_scale(width)
        m.set_passive_fiber_strain_at_one_norm_force(e0)
        m.addNewPathPoint(f"{name}_origin", model.getGround(), osim.Vec3(0))
        m.addNewPathPoint(f"{name}_insertion", body, osim.Vec3(0))
        model.addForce(m)
    state = model.initSystem()
    model.printToXML(path)
    muscles = [osim.DeGrooteFregly2016Muscle.safeDownCast(model.getMuscles().get(i)) for i in range(len(MUSCLES))]
    cap, L, dL = (np.zeros((len(lengths), len(MUSCLES))) for _ in range(3))
    for f, (q, u) in enumerate(zip(lengths, speeds, strict=True)):
        joint.getCoordinate().setValue(state, q)
        joint.getCoordinate().setSpeedValue(state, u)
        model.realizeVelocity(state)
        for i, m in enumerate(muscles):
            L[f, i], dL[f, i] = m.getLength(state), m.getLengtheningSpeed(state)
            cap[f, i] = m.calcInextensibleTendonActiveFiberForce(state, 1.0)
    curves = np.array([[[m.calcActiveForceLengthMultiplier(a), m.calcForceVelocityMultiplier(v),
                         m.calcPassiveForceMultiplier(a)] for a, v in zip(lN, vN, strict=True)] for m in muscles])
    return {"capacity": cap, "L": L, "dL": dL, "curves": curves}


@pytest.fixture(scope="module")
def opensim(tmp_path_factory):
    pytest.importorskip("opensim")
    rng = np.random.default_rng(2016)
    path = str(tmp_path_factory.mktemp("dgf") / "dgf.osim")
    lengths, speeds = rng.uniform(0.27, 0.40, 40), rng.uniform(-3.0, 3.0, 40)
    lN, vN = rng.uniform(0.3, 1.7, 60), rng.uniform(-1.0, 1.0, 60)
    out = run_isolated(_opensim_states, path, lengths.tolist(), speeds.tolist(), lN.tolist(), vN.tolist())
    return dict(out, path=path, lN=lN, vN=vN)


def test_curves_equal_opensims(opensim):
    from humanbody._kernels.degroote_fregly import curves

    for i, (*_, width, e0) in enumerate(MUSCLES):
        ours = curves(opensim["lN"], opensim["vN"], width, e0)
        np.testing.assert_allclose(ours, opensim["curves"][i], rtol=1e-12, atol=1e-14)


def test_capacity_equals_opensims_calc_inextensible_tendon_active_fiber_force(opensim):
    from humanbody.muscles.capacity import capacity, read_muscles

    muscles = read_muscles(opensim["path"])
    assert muscles.names == tuple(m[0] for m in MUSCLES)
    assert set(muscles.kinds) == {"DeGrooteFregly2016Muscle"}
    np.testing.assert_array_equal(muscles.min_control, 0.0)  # the muscle's default, not a minimum activation
    ours = capacity(muscles, opensim["L"], opensim["dL"])
    want = opensim["capacity"]
    assert (want < 0).any()  # shortening faster than vmax: OpenSim leaves fV negative, and so do we
    np.testing.assert_allclose(ours, want, rtol=1e-10, atol=1e-9)


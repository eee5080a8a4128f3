"""Force plates anywhere: the centre of pressure on raised and tilted plates, a synthetic staircase whose
joint moments equal Pinocchio's inverse dynamics, both feet on one plate, a side with no load."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.io.forceplates import centre_of_pressure, plate_from_corners, plate_from_points

#: The stair plates' heights (m) and their centres along the walkway (m).
HEIGHTS = (0.0, 0.195, 0.389, 0.584)
PHASE_FRAMES = 25


def _int_platform_parameter(c, name, values, shape=None) -> None:
    """An integer FORCE_PLATFORM parameter of the ezc3d file ``c`` (optionally with a shape), as labs write it."""
    from ezc3d import ezc3d as swig

    par = swig.Parameter(name, "")
    vec = swig.VecInt([int(v) for v in values])
    par.set(vec) if shape is None else par.set(vec, swig.VecUInt(list(shape)))
    c._storage["parameters"].add_parameter("FORCE_PLATFORM", par)


def test_centre_of_pressure_on_horizontal_and_tilted_plates():
    rng = np.random.default_rng(2)
    F = rng.normal(0, 100, (50, 3))
    F[:, 2] = np.abs(F[:, 2]) + 300
    # a horizontal plate at 0.389 m: the analytic formula
    P = np.column_stack([rng.uniform(-1, 1, 50), rng.uniform(-1, 1, 50), np.full(50, 0.389)])
    T = np.zeros_like(F)
    T[:, 2] = rng.normal(0, 5, 50)  # free moment about the normal
    m_o = np.cross(P, F) + T
    np.testing.assert_allclose(centre_of_pressure(F, m_o, [0, 0, 1], [0, 0, 0.389]), P, atol=1e-12)
    h = 0.389
    np.testing.assert_allclose((h * F[:, 0] - m_o[:, 1]) / F[:, 2], P[:, 0], atol=1e-12)
    # a ramp tilted 10 degrees about y: points on it, free moment along its normal
    a = np.radians(10.0)
    n = np.array([-np.sin(a), 0.0, np.cos(a)])
    corners = np.array([[0.3, 0.2, 0.0], [-0.3, 0.2, 0.0], [-0.3, -0.2, 0.0], [0.3, -0.2, 0.0]])
    R = np.array([[np.cos(a), 0, -np.sin(a)], [0, 1, 0], [np.sin(a), 0, np.cos(a)]])
    plate = plate_from_corners("ramp", corners @ R.T + [1.0, 0.0, 0.2])
    np.testing.assert_allclose(plate.normal, n, atol=1e-12)
    assert plate.tilt_deg == pytest.approx(10.0)
    local = np.column_stack([rng.uniform(-0.3, 0.3, 50), rng.uniform(-0.2, 0.2, 50), np.zeros(50)])
    P = local @ R.T + [1.0, 0.0, 0.2]
    m_o = np.cross(P, F) + rng.normal(0, 5, (50, 1)) * n
    np.testing.assert_allclose(plate.cop(F, m_o), P, atol=1e-12)
    # a plate known from a force file's points: horizontal at their median height while loaded
    pts = np.column_stack([rng.uniform(0, 0.4, 30), rng.uniform(0, 0.3, 30), np.full(30, 0.195)])
    geo = plate_from_points("p", pts, np.ones(30, bool))
    assert geo.height == pytest.approx(0.195) and geo.source == "points"


# ------------------------------------------------------------------ the staircase
def _stair_coords(model):
    """Quasi-static stair climbing: in phase p the right foot stands on plate p (height HEIGHTS[p]), the left
    leg is lifted (hip and knee flexed); exact zero rates, so the frames are exact equilibria plus gravity."""
    q = hb.coordinate_columns(model)
    n = PHASE_FRAMES * len(HEIGHTS)
    cols = ["time", *q, *(c + "_dot" for c in q), *(c + "_ddot" for c in q)]
    coords = pd.DataFrame(0.0, index=range(n), columns=cols)
    coords["time"] = np.arange(n) / 100.0
    hip = model.meta["reference_pose"]["lower_torso_height"]
    for p, h in enumerate(HEIGHTS):
        rows = slice(p * PHASE_FRAMES, (p + 1) * PHASE_FRAMES - 1)
        coords.loc[rows, "lower_torso_x"] = 0.30 * p
        coords.loc[rows, "lower_torso_z"] = hip + h
    coords["left_upper_leg_alpha"] = -0.9  # hip flexed about 50 degrees
    coords["left_lower_leg_alpha"] = 1.4  # knee flexed about 80 degrees
    return coords


def _stair_loads(model, res):
    """Per phase one load on the stance plate: a known force at a point under the right sole, free moment."""
    from humanbody.mechanics.foot_contact import _sole

    rng = np.random.default_rng(5)
    k = model.names.index("right_foot")
    heel, toe = _sole(res, model, k)
    n = res.joint.shape[0]
    force = np.zeros((n, len(HEIGHTS), 3))
    point = np.zeros((n, len(HEIGHTS), 3))
    tz = np.zeros((n, len(HEIGHTS)))
    for p, h in enumerate(HEIGHTS):
        rows = slice(p * PHASE_FRAMES, (p + 1) * PHASE_FRAMES)
        f = np.array([rng.normal(0, 40), rng.normal(0, 30), 700.0 + rng.normal(0, 50)])
        force[rows, p] = f
        mid = 0.5 * (heel[rows.start] + toe[rows.start]) + [rng.uniform(-0.05, 0.05), rng.uniform(-0.02, 0.02), 0]
        assert mid[2] == pytest.approx(h, abs=1e-9)  # the sole stands on the plate
        point[:, p] = mid
        tz[rows, p] = rng.normal(0, 3)
    return force, point, tz


def _write_plates_c3d(path, force, point, tz, n_frames):
    """Four type-2 platforms, corners at the stair heights (mm), analog at 10x the point rate."""
    ezc3d = pytest.importorskip("ezc3d")

    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c["parameters"]["POINT"]["LABELS"]["value"] = ("dummy",)
    pts = np.ones((4, 1, n_frames))
    c["data"]["points"] = pts
    c.add_parameter("POINT", "UNITS", "mm")
    P = len(HEIGHTS)
    c["parameters"]["ANALOG"]["RATE"]["value"] = [1000.0]
    labels = tuple(f"{w}{i + 1}" for i in range(P) for w in ("Fx", "Fy", "Fz", "Mx", "My", "Mz"))
    c["parameters"]["ANALOG"]["LABELS"]["value"] = labels
    c["parameters"]["ANALOG"]["UNITS"]["value"] = ["N", "N", "N", "Nmm", "Nmm", "Nmm"] * P
    c["parameters"]["ANALOG"]["SCALE"]["value"] = [1.0] * 6 * P
    c["parameters"]["ANALOG"]["OFFSET"]["value"] = [0] * 6 * P
    an = np.zeros((1, 6 * P, n_frames * 10))
    frame_of = np.minimum(np.arange(n_frames * 10) // 10, n_frames - 1)
    corners = np.zeros((3, 4, P))
    for p, h in enumerate(HEIGHTS):
        centre = np.array([point[0, p, 0], point[0, p, 1], h]) * 1000.0  # plate centred under the load, mm
        half = np.array([200.0, 300.0])
        for i, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
            corners[:, i, p] = [centre[0] + sx * half[0], centre[1] + sy * half[1], centre[2]]
        f = force[frame_of, p]
        r = point[frame_of, p] * 1000.0 - centre
        m = np.cross(r, f)
        m[:, 2] += tz[frame_of, p] * 1000.0
        an[0, 6 * p:6 * p + 3] = f.T
        an[0, 6 * p + 3:6 * p + 6] = m.T
    c["data"]["analogs"] = an

    def int_param(name, values, shape=None):
        _int_platform_parameter(c, name, values, shape)

    c.add_parameter("FORCE_PLATFORM", "USED", P)
    int_param("TYPE", [2] * P)
    int_param("ZERO", [1, 0])
    c.add_parameter("FORCE_PLATFORM", "CORNERS", corners.tolist())
    c.add_parameter("FORCE_PLATFORM", "ORIGIN", np.zeros((3, P)).tolist())
    int_param("CHANNEL", range(1, 6 * P + 1), (6, P))
    c.write(str(path))
    return path


@pytest.fixture(scope="module")
def staircase(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("stairs")
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    coords = _stair_coords(model)
    res = hb.compute(model, coords)
    force, point, tz = _stair_loads(model, res)
    coords.to_csv(tmp / "stairs.csv", index=False)
    n = len(coords)
    table = {"time": coords["time"].to_numpy()}
    for p in range(len(HEIGHTS)):
        for j, a in enumerate("xyz"):
            table[f"step{p}_force_{a}"] = force[:, p, j]
            table[f"step{p}_point_{a}"] = point[:, p, j]
            table[f"step{p}_moment_{a}"] = tz[:, p] if a == "z" else 0.0
    pd.DataFrame(table).to_csv(tmp / "stairs_loads.csv", index=False)
    c3d = _write_plates_c3d(tmp / "stairs_plates.c3d", force, point, tz, n)
    return model, res, force, point, tz, tmp, c3d


def _reference_moments(model, res, force, point, tz):
    """Joint moments (ground axes, about O_k) by Pinocchio's RNEA with the known loads on the right foot."""
    pin = pytest.importorskip("pinocchio")
    from tests.mechanics.test_pinocchio_kinematics import pinocchio_model

    pm, ids = pinocchio_model(model)
    data = pm.createData()
    coords = _stair_coords(model)
    q = coords[hb.coordinate_columns(model)].to_numpy()
    k = model.names.index("right_foot")
    out = np.empty_like(res.joint)
    for f in range(len(coords)):
        fext = [pin.Force.Zero() for _ in range(pm.njoints)]
        R, O = res.R[f, k], res.joint[f, k]
        F = force[f].sum(axis=0)
        M = sum(np.cross(point[f, p] - O, force[f, p]) + [0, 0, tz[f, p]] for p in range(len(HEIGHTS)))
        fext[ids[k]] = pin.Force(R.T @ F, R.T @ M)
        pin.rnea(pm, data, q[f], np.zeros(pm.nv), np.zeros(pm.nv), fext)
        for b, jid in enumerate(ids):
            out[f, b] = res.R[f, b] @ data.f[jid].angular
    return out


@pytest.mark.parametrize("source", ["table", "c3d"])
def test_staircase_raised_plates_give_exact_joint_moments(staircase, source):
    """Plates at 0, 195, 389 and 584 mm (a loads table with 3-D points, or C3D platforms with raised corners):
    each load keeps its 3-D point, goes to the foot standing on it, and the joint moments equal Pinocchio's."""
    model, res, force, point, tz, tmp, c3d = staircase
    forces = tmp / "stairs_loads.csv" if source == "table" else c3d
    analysis = hb.analyze_trial(tmp / "stairs.csv", model=model, forces=forces, forces_cutoff_hz=0)
    loads = analysis.loads
    right = model.names.index("right_foot")
    for p, h in enumerate(HEIGHTS):
        rows = slice(p * PHASE_FRAMES, (p + 1) * PHASE_FRAMES)
        np.testing.assert_allclose(loads.cop[rows, p, 2], h, atol=1e-6)  # in 3-D, at the plate's height
        np.testing.assert_allclose(loads.cop[rows, p, :2], point[rows, p, :2], atol=1e-6)
        assert (loads.body[rows, p] == right).all()
    if source == "c3d":
        assert [round(g.height, 3) for g in loads.plates] == list(HEIGHTS)
        assert any("plates off the ground: plate2 at 195 mm" in m for m in analysis.messages)
    expect = _reference_moments(model, res, force, point, tz)
    kin = analysis.kinetics
    unknown = ("lower_torso", "left_upper_leg", "left_lower_leg", "left_foot")  # below the unloaded left foot
    for b, name in enumerate(model.names):
        got = kin[[f"{name}_joint_moment_{a}" for a in "xyz"]].to_numpy()
        if name in unknown:
            assert np.isnan(got).all(), name
        else:
            np.testing.assert_allclose(got, expect[:, b], atol=1e-6 * 700, rtol=1e-6, err_msg=name)
    # the left foot stands on nothing: no load ever reached it, so its side is NaN, said in one line
    assert np.isnan(kin["left_knee_flexion_moment_Nm_per_kg"]).all()
    assert any("no load on the left foot in any frame" in m for m in analysis.messages)


def test_viewer_draws_the_plates_where_they_are_and_the_floor_where_the_feet_are(staircase):
    pytest.importorskip("pyvista")
    from humanbody.viewer import scene_from_analysis

    model, res, force, point, tz, tmp, c3d = staircase
    analysis = hb.analyze_trial(tmp / "stairs.csv", model=model, forces=c3d, forces_cutoff_hz=0)
    scene = scene_from_analysis(analysis)
    assert scene.has_grf and len(scene.plates) == len(HEIGHTS)
    assert scene.floor_z == pytest.approx(0.0, abs=1e-9)  # the first step is on the floor
    z = np.round(np.asarray(scene.floor_mesh().points)[:, 2], 3)
    assert set(HEIGHTS) <= set(z.tolist())  # every plate's outline at its own height


def test_degenerate_plate_corners_are_one_clear_error():
    from humanbody.errors import InputError

    with pytest.raises(InputError, match="corners do not span a surface"):
        plate_from_corners("p", np.zeros((4, 3)))


# ------------------------------------------------------------------ plates as labs write them
def _lab_plate_axes(yaw_deg: float, z_down: bool = True) -> np.ndarray:
    """Columns: a plate's own x, y, z axes in the lab, turned ``yaw_deg`` about the vertical; ``z_down`` is the
    AMTI/Kistler convention (plate z into the plate, y mirrored to stay right-handed)."""
    a = np.radians(yaw_deg)
    R = np.array([[np.cos(a), -np.sin(a), 0.0], [np.sin(a), np.cos(a), 0.0], [0.0, 0.0, 1.0]])
    return R @ np.diag([1.0, -1.0, -1.0]) if z_down else R


def _write_lab_plates_c3d(path, centres, axes, force, point, tz, n_frames, types, origins, cal=None, sub=10,
                          markers=None, labels=None, up=(0.0, 0.0, 1.0)):
    """Platforms as a lab's system writes them: each plate in its own axes (``axes[p]``: columns its x, y, z in
    the lab), corner 1 at its +x +y and the others in C3D's order, channels the force and moment the subject
    applies to the plate (the ground reaction's opposite) about the plate's ORIGIN (mm, plate axes, below the
    surface), type 2 (N, N mm) or type 4 (channels = CAL_MATRIX^-1 times them).  ``force``, ``point`` (m),
    ``tz`` (N m about the surface normal): the ground reaction on the subject, lab axes (``up`` the lab's
    vertical), per point frame or, with ``sub`` samples a frame, per analog sample (length n_frames * sub);
    ``markers`` (n_frames, M, 3) m with ``labels``: the trial's markers."""
    ezc3d = pytest.importorskip("ezc3d")
    from ezc3d import ezc3d as swig

    P = len(centres)
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    if markers is None:
        c["parameters"]["POINT"]["LABELS"]["value"] = ("dummy",)
        c["data"]["points"] = np.ones((4, 1, n_frames))
    else:
        c["parameters"]["POINT"]["LABELS"]["value"] = tuple(labels)
        pts = np.ones((4, len(labels), n_frames))
        pts[:3] = np.transpose(markers, (2, 1, 0)) * 1000.0
        c["data"]["points"] = pts
    c.add_parameter("POINT", "UNITS", "mm")
    c["parameters"]["ANALOG"]["RATE"]["value"] = [100.0 * sub]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = tuple(f"{w}{i + 1}" for i in range(P)
                                                         for w in ("Fx", "Fy", "Fz", "Mx", "My", "Mz"))
    c["parameters"]["ANALOG"]["UNITS"]["value"] = (["N"] * 3 + ["Nmm"] * 3) * P
    c["parameters"]["ANALOG"]["SCALE"]["value"] = [1.0] * 6 * P
    c["parameters"]["ANALOG"]["OFFSET"]["value"] = [0] * 6 * P
    an = np.zeros((1, 6 * P, n_frames * sub))
    frame_of = (np.minimum(np.arange(n_frames * sub) // sub, n_frames - 1) if len(force) == n_frames
                else np.arange(n_frames * sub))
    corners = np.zeros((3, 4, P))
    cal_all = np.zeros((6, 6, P))
    for p in range(P):
        R, centre = axes[p], np.asarray(centres[p], dtype=float)
        for i, (sx, sy) in enumerate(((1, 1), (-1, 1), (-1, -1), (1, -1))):
            corners[:, i, p] = (centre + R @ np.array([sx * 0.2, sy * 0.3, 0.0])) * 1000.0
        normal = R[:, 2] if R[:, 2] @ np.asarray(up) > 0 else -R[:, 2]
        F = force[frame_of, p]
        m_centre = np.cross(point[frame_of, p] - centre, F) + tz[frame_of, p, None] * normal  # N m about the centre
        f_plate, m_plate = -F @ R, (-m_centre @ R) * 1000.0  # on the plate, plate axes, N and N mm
        o = -np.asarray(origins[p], dtype=float)  # the reader's origin: from the surface centre, z <= 0
        data = np.concatenate([f_plate, m_plate - np.cross(f_plate, o)], axis=1)
        if types[p] == 4:
            cal_all[:, :, p] = cal[p]
            data = data @ np.linalg.inv(cal[p]).T
        an[0, 6 * p:6 * p + 6] = data.T
    c["data"]["analogs"] = an

    def int_param(name, values, shape=None):
        _int_platform_parameter(c, name, values, shape)

    c.add_parameter("FORCE_PLATFORM", "USED", P)
    int_param("TYPE", types)
    int_param("ZERO", [1, 0])
    c.add_parameter("FORCE_PLATFORM", "CORNERS", corners.tolist())
    c.add_parameter("FORCE_PLATFORM", "ORIGIN", np.asarray(origins, dtype=float).T.tolist())
    int_param("CHANNEL", range(1, 6 * P + 1), (6, P))
    if 4 in types:
        par = swig.Parameter("CAL_MATRIX", "")
        par.set(swig.VecDouble(np.transpose(cal_all, (2, 1, 0)).ravel().tolist()), swig.VecUInt([6, 6, P]))
        c._storage["parameters"].add_parameter("FORCE_PLATFORM", par)
    c.write(str(path))
    return path


def _lab_plates(tmp, force, point, tz, n):
    """The staircase's four plates as a lab writes them: z down, the force on the plate, turned 0, 90, 180 and
    270 degrees about the vertical, origins 40 mm below the surface and off centre, types 2, 4, 2, 4."""
    rng = np.random.default_rng(7)
    centres = [np.array([point[0, p, 0] + 0.03, point[0, p, 1] - 0.02, h]) for p, h in enumerate(HEIGHTS)]
    axes = [_lab_plate_axes(yaw) for yaw in (0.0, 90.0, 180.0, 270.0)]
    origins = [(1.5, -2.0, 40.0), (0.0, 0.0, 40.0), (-3.0, 1.0, 38.5), (2.0, 2.0, 41.0)]
    cal = [np.eye(6) + rng.normal(0, 0.03, (6, 6)) for _ in HEIGHTS]
    return _write_lab_plates_c3d(tmp / "stairs_lab.c3d", centres, axes, force, point, tz, n, [2, 4, 2, 4],
                                 origins, cal)


def test_c3d_plates_as_labs_write_them_give_the_ground_reaction(staircase):
    """Plates in their own axes (z down, turned 90/180/270 degrees), ORIGIN below the surface, type 4 with a
    calibration matrix, channels carrying the force on the plate: read back as the ground reaction on the
    subject (upwards), its centre of pressure on each raised surface and the free moment about the normal."""
    from humanbody.io.forceplates import read_c3d_platforms

    model, res, force, point, tz, tmp, c3d = staircase
    path = _lab_plates(tmp, force, point, tz, len(res.joint))
    c = read_c3d_platforms(path)
    frames = np.arange(0, len(c.time), 10)  # the point frames' samples
    np.testing.assert_allclose(c.force[frames], force, atol=1e-3)  # analogs are 32-bit floats
    loaded = force[..., 2] > 0
    np.testing.assert_allclose(c.point[frames][loaded], point[loaded], atol=1e-9)
    np.testing.assert_allclose(c.moment[frames][loaded][:, 2], tz[loaded], atol=1e-4)
    assert [round(g.height, 3) for g in c.plates] == list(HEIGHTS)
    assert c.reversed == c.names  # every plate gave the force on it, turned into the reaction


def test_staircase_from_a_labs_c3d_gives_exact_joint_moments(staircase):
    model, res, force, point, tz, tmp, c3d = staircase
    path = _lab_plates(tmp, force, point, tz, len(res.joint))
    analysis = hb.analyze_trial(tmp / "stairs.csv", model=model, forces=path, forces_cutoff_hz=0)
    expect = _reference_moments(model, res, force, point, tz)
    for name in ("right_foot", "right_lower_leg", "right_upper_leg", "upper_torso"):
        b = model.names.index(name)
        got = analysis.kinetics[[f"{name}_joint_moment_{a}" for a in "xyz"]].to_numpy()
        np.testing.assert_allclose(got, expect[:, b], atol=1e-6 * 700, rtol=1e-6, err_msg=name)
    assert any("give the force on the plate (downwards)" in m for m in analysis.messages)


def test_staircase_from_a_y_up_mot_with_raised_points_and_the_force_on_the_plate(staircase):
    """An OpenSim-layout ground-reaction file (Y up), one plate per step with its points at the step's height,
    carrying the force on the plate (a lab's export, downwards): each load keeps its 3-D point, is turned into
    the reaction on the subject (said in one line) and the joint moments equal Pinocchio's."""
    model, res, force, point, tz, tmp, c3d = staircase
    lab = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])  # ground -> lab (X forward, Y up, Z right)
    cols, data = ["time"], [np.arange(len(res.joint)) / 100.0]  # the stair trial's frame times
    for p in range(len(HEIGHTS)):
        f, q, m = -force[:, p] @ lab.T, point[:, p] @ lab.T, -(tz[:, p, None] * [0, 0, 1.0]) @ lab.T
        for name, v in ((f"step{p}_force_v", f), (f"step{p}_force_p", q), (f"step{p}_torque_", m)):
            cols += [name + a for a in "xyz"]
            data += [v[:, 0], v[:, 1], v[:, 2]]
    rows = np.column_stack(data)
    path = tmp / "grf_stairs.mot"
    head = f"grf_stairs\nversion=1\nnRows={len(rows)}\nnColumns={len(cols)}\ninDegrees=no\nendheader\n"
    path.write_text(head + "\t".join(cols) + "\n" + "\n".join("\t".join(f"{x:.10f}" for x in r) for r in rows) + "\n")
    analysis = hb.analyze_trial(tmp / "stairs.csv", model=model, forces=path, forces_cutoff_hz=0)
    loads = analysis.loads
    for p in range(len(HEIGHTS)):
        rows_p = slice(p * PHASE_FRAMES, (p + 1) * PHASE_FRAMES)
        np.testing.assert_allclose(loads.cop[rows_p, p], point[rows_p, p], atol=1e-6)
        np.testing.assert_allclose(loads.force[rows_p, p], force[rows_p, p], atol=1e-6)
    assert any("give the force on the plate (downwards)" in m for m in analysis.messages)
    expect = _reference_moments(model, res, force, point, tz)
    for name in ("right_foot", "right_lower_leg", "right_upper_leg"):
        b = model.names.index(name)
        got = analysis.kinetics[[f"{name}_joint_moment_{a}" for a in "xyz"]].to_numpy()
        np.testing.assert_allclose(got, expect[:, b], atol=1e-6 * 700, rtol=1e-6, err_msg=name)


def test_a_y_up_labs_c3d_walk_with_its_own_plates_equals_the_loads_table(tmp_path):
    """The sample walk as a C3D of a Y-up lab whose two plates are written as the lab's system does (z down, the
    force on the plate, type 4, one turned 90 degrees, ORIGIN below the surface): `analyze walk.c3d` uses its
    own plates and gives the kinetics of the same loads given as a table in ground axes."""
    from humanbody.io import read_trial
    from humanbody.mechanics.foot_contact import _sole

    data = Path(__file__).resolve().parents[2] / "data"
    walk, static = data / "sample_walk_markers.trc", data / "sample_static.trc"
    base = hb.analyze_trial(walk, static=static, mass=75.0)
    res, model, t = base.results, base.model, base.results.time
    sub = 10
    ts = t[0] + np.arange(len(t) * sub) / (100.0 * sub)
    lab_of_ground = np.array([[1.0, 0, 0], [0, 0, 1.0], [0, -1.0, 0]])  # the TRC's lab: X forward, Y up, Z right
    force, point, centres, axes, table = [], [], [], [], {"time": ts}
    for side, yaw in (("right", 0.0), ("left", 90.0)):
        heel, toe = _sole(res, model, model.names.index(f"{side}_foot"))
        low = np.minimum(heel[:, 2], toe[:, 2])
        frames = np.flatnonzero(low < low.min() + 0.02)
        stance = max(np.split(frames, np.flatnonzero(np.diff(frames) > 1) + 1), key=len)
        t0, t1 = t[stance[0]], t[stance[-1]]
        on = (ts >= t0) & (ts <= t1)
        s_ = np.pi * (ts - t0) / (t1 - t0)
        f = np.stack([np.where(on, -80 * np.sin(2 * s_), 0.0), np.zeros_like(ts), np.where(on, 700 * np.sin(s_), 0.0)], 1)
        mid = 0.5 * (heel + toe)
        p = np.stack([np.interp(ts, t, mid[:, a]) for a in range(2)] + [np.zeros_like(ts)], 1)
        centres.append(lab_of_ground @ [p[on, 0].mean() + 0.02, p[on, 1].mean() - 0.03, 0.0])
        axes.append(lab_of_ground @ _lab_plate_axes(yaw))
        force.append(f @ lab_of_ground.T)
        point.append(p @ lab_of_ground.T)
        for a, c in enumerate("xyz"):
            table[f"{side}_force_{c}"] = f[:, a]
            table[f"{side}_point_{c}"] = np.where(on, p[:, a], 0.0)
    tr = read_trial(walk)
    names = list(tr.attrs["markers"])
    xyz = np.nan_to_num(np.stack([tr[[f"{n}_{a}" for a in "xyz"]].to_numpy() for n in names], axis=1))
    c3d = _write_lab_plates_c3d(tmp_path / "walk.c3d", centres, axes, np.stack(force, 1), np.stack(point, 1),
                                np.zeros((len(ts), 2)), len(t), [4, 4], [(0.0, 0.0, 40.0), (1.0, -1.0, 40.0)],
                                cal=[np.eye(6), np.eye(6)], sub=sub, markers=xyz, labels=names, up=(0.0, 1.0, 0.0))
    pd.DataFrame(table).to_csv(tmp_path / "walk_loads.csv", index=False)
    own = hb.analyze_trial(c3d, static=static, mass=75.0)
    ref = hb.analyze_trial(walk, static=static, mass=75.0, forces=tmp_path / "walk_loads.csv")
    assert any("plate1, plate2 give the force on the plate" in m for m in own.messages)
    right, left = model.names.index("right_foot"), model.names.index("left_foot")
    assert set(own.loads.body[:, 0]) == {-1, right} and set(own.loads.body[:, 1]) == {-1, left}
    for col in ("right_ankle_dorsiflexion_moment_Nm_per_kg", "right_knee_flexion_moment_Nm_per_kg",
                "left_hip_flexion_moment_Nm_per_kg", "left_grf_z_N_per_kg", "right_grf_x_N_per_kg"):
        want = ref.kinetics[col].to_numpy()
        assert np.nanmax(np.abs(want)) > 0.1, col
        np.testing.assert_allclose(own.kinetics[col].to_numpy(), want, atol=1e-4, err_msg=col)


# ------------------------------------------------------------------ both feet on one plate
def test_both_feet_standing_on_one_plate_are_a_gap_wherever_the_centre_of_pressure_is():
    """A plate under both standing feet, 70 % of the load on the right: the centre of pressure is 5 cm from the
    right sole and 12 cm from the left, yet both soles touch the plate and move together, so neither foot's
    share is known: those two feet are NaN (before: the whole load went to the right foot)."""
    from humanbody.mechanics.foot_contact import assign_loads
    from tests.mechanics.test_kinetics import _plate_loads, _standing

    model, res = _standing()
    right, left = model.names.index("right_foot"), model.names.index("left_foot")
    ahead = res.R[0, right, :, 0] * 0.05
    r_cop, l_cop = res.joint[0, right] + ahead, res.joint[0, left] + ahead
    r_cop[2] = l_cop[2] = 0.0
    cop = 0.7 * r_cop + 0.3 * l_cop
    corners = [[0.5, 0.4, 0.0], [-0.5, 0.4, 0.0], [-0.5, -0.4, 0.0], [0.5, -0.4, 0.0]]  # a walkway plate
    loads = _plate_loads(["walkway"], [cop])
    loads.plates = [plate_from_corners("walkway", corners)]
    out = assign_loads(loads, [None], model, res)
    assert (out.body[:, 0] == -2).all() and set(out.shared[0, 0]) == {right, left}
    # the same plate under the right foot only (the left leg lifted, hip and knee flexed): the right foot takes it
    q = hb.coordinate_columns(model)
    coords = pd.DataFrame(0.0, index=range(4), columns=["time", *q, *(c + "_dot" for c in q),
                                                         *(c + "_ddot" for c in q)])
    coords["time"] = np.arange(4) / 100.0
    coords["lower_torso_z"] = model.meta["reference_pose"]["lower_torso_height"]
    coords["left_upper_leg_alpha"], coords["left_lower_leg_alpha"] = -0.9, 1.4
    lifted = hb.compute(model, coords)
    loads = _plate_loads(["walkway"], [r_cop])
    loads.plates = [plate_from_corners("walkway", corners)]
    assert (assign_loads(loads, [None], model, lifted).body[:, 0] == right).all()


def test_the_shared_walk_on_one_walkway_plate_is_a_gap_in_double_support_only():
    """The shared walk's two plates summed into one plate under both feet (a walkway, or a treadmill measuring
    both belts together): in double support the two feet's kinetics are NaN (before: 42 of its 43 frames gave
    the whole load to one foot, knee moments off by up to 1.5 N m/kg); in single support the kinetics equal
    those from the two plates."""
    from _shared import WALK, require_shared

    from humanbody.io.opensim import read_opensim

    require_shared()
    g = read_opensim(WALK / "subject01_walk1_grf.mot")
    t = g["time"].to_numpy()
    F, M, fy = np.zeros((len(t), 3)), np.zeros((len(t), 3)), {}
    for p, side in (("ground_force_", "right"), ("1_ground_force_", "left")):
        f = g[[f"{p}v{a}" for a in "xyz"]].to_numpy()
        q = g[[f"{p}p{a}" for a in "xyz"]].to_numpy()
        tq = g[[f"{p[:-len('force_')]}torque_{a}" for a in "xyz"]].to_numpy()
        M += np.where((f[:, 1] > 0)[:, None], np.cross(q, f) + tq, 0.0)
        F += f
        fy[side] = f[:, 1]
    ok = F[:, 1] > 1e-3  # lab Y up: the centre of pressure on y = 0, the free moment about y
    px = np.where(ok, M[:, 2] / np.where(ok, F[:, 1], 1.0), 0.0)
    pz = np.where(ok, -M[:, 0] / np.where(ok, F[:, 1], 1.0), 0.0)
    ty = np.where(ok, M[:, 1] - (pz * F[:, 0] - px * F[:, 2]), 0.0)
    cols = {"time": t, "walkway_force_vx": F[:, 0], "walkway_force_vy": F[:, 1], "walkway_force_vz": F[:, 2],
            "walkway_force_px": px, "walkway_force_py": 0.0, "walkway_force_pz": pz,
            "walkway_torque_x": 0.0, "walkway_torque_y": ty, "walkway_torque_z": 0.0}
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "walkway_grf.mot"
        table = pd.DataFrame(cols)
        head = f"walkway_grf\nversion=1\nnRows={len(table)}\nnColumns={table.shape[1]}\ninDegrees=no\nendheader\n"
        path.write_text(head + table.to_csv(sep="\t", index=False, float_format="%.8f"))
        one = hb.analyze_trial(WALK / "subject01_walk1.trc", static=WALK / "subject01_static.trc", forces=path)
    two = hb.analyze_trial(WALK / "subject01_walk1.trc", static=WALK / "subject01_static.trc",
                           forces=WALK / "subject01_walk1_grf.mot")
    ft = one.results.time
    r, lf = np.interp(ft, t, fy["right"]), np.interp(ft, t, fy["left"])
    both = (r > 20) & (lf > 20)
    assert both.sum() >= 40
    assert (one.loads.body[both, 0] == -2).mean() >= 0.95
    for side in ("right", "left"):
        for what in ("knee_flexion_moment_Nm_per_kg", "hip_flexion_moment_Nm_per_kg", "grf_z_N_per_kg"):
            got, want = one.kinetics[f"{side}_{what}"].to_numpy(), two.kinetics[f"{side}_{what}"].to_numpy()
            assert np.isnan(got[both & (one.loads.body[:, 0] == -2)]).all()
            single = np.isfinite(got) & ~both
            assert single.sum() >= 80
            # the two plates' loads are filtered separately, the walkway's summed: equal to 0.1 N m/kg
            np.testing.assert_allclose(got[single], want[single], atol=0.1 if "moment" in what else 0.5,
                                       err_msg=f"{side} {what}")


@pytest.mark.parametrize("yaw, tilt, z_down", [(30.0, 10.0, True), (180.0, 8.0, False)])
def test_a_ramp_plate_from_c3d_gives_its_tilted_surface_and_the_reaction(tmp_path, yaw, tilt, z_down):
    """A plate tilted ``tilt`` degrees (a ramp) and turned ``yaw`` about the vertical, raised 0.3 m: the centre of
    pressure lies on its tilted surface, the normal and tilt are the plate's, the force is the reaction."""
    from humanbody.io.forceplates import read_c3d_platforms

    rng = np.random.default_rng(11)
    a, b = np.radians(tilt), np.radians(yaw)
    ramp = np.array([[np.cos(a), 0, -np.sin(a)], [0, 1, 0], [np.sin(a), 0, np.cos(a)]])
    turn = np.array([[np.cos(b), -np.sin(b), 0], [np.sin(b), np.cos(b), 0], [0, 0, 1.0]])
    axes = turn @ ramp @ (np.diag([1.0, -1.0, -1.0]) if z_down else np.eye(3))
    centre = np.array([1.0, 0.2, 0.3])
    n = 30
    local = np.column_stack([rng.uniform(-0.15, 0.15, n), rng.uniform(-0.2, 0.2, n), np.zeros(n)])
    point = centre + local @ (turn @ ramp).T
    force = np.column_stack([rng.normal(0, 60, n), rng.normal(0, 40, n), 650 + rng.normal(0, 40, n)])
    tz = rng.normal(0, 2, n)
    path = _write_lab_plates_c3d(tmp_path / "ramp.c3d", [centre], [axes], force[:, None], point[:, None],
                                 tz[:, None], n, [2], [(0.0, 0.0, 40.0)])
    c = read_c3d_platforms(path)
    frames = np.arange(0, len(c.time), 10)
    up = (turn @ ramp)[:, 2]
    assert c.plates[0].tilt_deg == pytest.approx(tilt, abs=1e-4)  # corners are 32-bit floats
    np.testing.assert_allclose(c.plates[0].normal, up, atol=1e-6)
    np.testing.assert_allclose(c.force[frames, 0], force, atol=1e-3)
    np.testing.assert_allclose(c.point[frames, 0], point, atol=1e-6)
    np.testing.assert_allclose(c.moment[frames, 0], tz[:, None] * up, atol=1e-4)
    assert c.reversed == ["plate1"]  # the channels carry the force on the plate, whichever way its z points


@pytest.mark.parametrize("source", ["table", "c3d"])
def test_staircase_without_a_mass_is_refused_not_a_small_adult(staircase, source):
    """No --mass on the stair: the left foot is held still off the plates in every frame, so no frame shows the
    whole weight on them (a foot beside the plates cannot be told from one in the air); the mass is refused in
    one line asking for --mass, not averaged into a wrong one."""
    from humanbody.errors import InputError

    model, res, force, point, tz, tmp, c3d = staircase
    forces = tmp / "stairs_loads.csv" if source == "table" else c3d
    with pytest.raises(InputError) as err:
        hb.analyze_trial(tmp / "stairs.csv", forces=forces, forces_cutoff_hz=0, height=1.75)
    text = str(err.value)  # the Python caller is told the parameter, the command line its flag
    assert "no `mass`: only 0 frame(s)" in text and "give `mass` KG" in text and "\n" not in text
    cli = str(err.value.on_command_line())
    assert "no --mass: only 0 frame(s)" in cli and "--mass KG" in cli and "--skip-check mass" in cli
    # with the mass check skipped the model's mass stays, said so
    analysis = hb.analyze_trial(tmp / "stairs.csv", forces=forces, forces_cutoff_hz=0, height=1.75,
                                skip_checks=("mass",))
    assert analysis.model.total_mass == pytest.approx(75.0)
    assert any("75 kg assumed" in m and "--skip-check mass" in m for m in analysis.messages)


def test_unloaded_plates_read_without_a_library_warning(shared_data):
    """ezc3d leaves an unloaded plate's centre of pressure and free moment NaN: read silently, kept NaN."""
    import warnings

    from humanbody.io.forceplates import read_c3d_platforms
    path = shared_data / "real" / "c3d" / "c3d_org" / "sample_23_Vicon_analysis.c3d"
    if not path.exists():
        pytest.skip("shared Vicon file absent")
    M = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = read_c3d_platforms(path, M)
    unloaded = ~np.isfinite(c.point).all(axis=2)
    assert unloaded.any() and (~unloaded).any()
    assert np.isnan(c.point[unloaded]).all()  # a missing centre of pressure stays missing, whole rows
    assert np.isfinite(c.moment).all()


def test_a_plate_not_zeroed_has_its_centre_of_pressure_from_the_zeroed_loads():
    """The file's centre divides the moments by the vertical force offset included (Codamotion's plate 3 rests at
    -71 N): from the zeroed loads, the true centre comes back wherever the foot stands, to 1e-9 m."""
    from humanbody.io.forceplates import resting_force, rezeroed_centre

    n = 4000
    fz = np.zeros(n)
    fz[1000:1600] = 600.0 * np.sin(np.linspace(0.0, np.pi, 600))  # one stance; the plate bare elsewhere
    middle = np.array([0.254, 0.23, 0.0])
    d = np.column_stack([np.linspace(-0.2, 0.24, n), np.linspace(-0.05, 0.05, n)])  # heel to the far edge
    rest_f = np.array([-4.8, 9.1, -70.7])
    rest_m = np.array([0.76, -1.5])  # N·m: the resting moments' share of the centre's arithmetic
    raw = np.column_stack([np.zeros(n), np.zeros(n), fz]) + rest_f
    raw[:, 2] += np.random.default_rng(1).normal(0.0, 0.5, n)  # the plate's noise at rest
    file_centre = np.full((n, 3), np.nan)
    file_centre[:, :2] = middle[:2] + (d * fz[:, None] + rest_m) / raw[:, 2:3]
    file_centre[:, 2] = 0.0
    rest = resting_force(raw)
    assert rest is not None and abs(rest[2] + 70.7) < 0.1
    corners = middle + np.array([[0.254, 0.23, 0.0], [0.254, -0.23, 0.0], [-0.254, -0.23, 0.0], [-0.254, 0.23, 0.0]])
    moment = np.zeros((n, 3))  # about the surface's middle: c - o = z x M / Fz, so M = (d_y, -d_x) Fz_raw
    moment[:, 0] = (file_centre[:, 1] - middle[1]) * raw[:, 2]
    moment[:, 1] = -(file_centre[:, 0] - middle[0]) * raw[:, 2]
    got = rezeroed_centre(file_centre, raw, moment, rest, corners)
    zeroed = raw[:, 2] - rest[2]
    heavy = fz > 100.0
    # the true centre, but for the plate's noise at rest in the zeroed force (0.5 N in 100-600 N: under 1.5 mm)
    assert np.allclose(got[heavy, :2], middle[:2] + d[heavy] * (fz / zeroed)[heavy, None], atol=1e-9)
    assert np.allclose(got[heavy, :2], middle[:2] + d[heavy], atol=1.5e-3)
    # left as read: far forward of the true centre at push-off
    assert np.abs(file_centre[heavy, 0] - (middle[0] + d[heavy, 0])).max() > 0.02


@pytest.mark.parametrize("rest_z,tilt_deg", [(-70.7, 0.0), (25.4, 0.0), (21.9, 3.0), (-70.7, 90.0)])
def test_the_zeroed_centre_of_pressure_holds_for_any_offset_and_plate_attitude(rest_z, tilt_deg):
    """Offsets of either sign (Codamotion's plates rest at -71, +25 and +22 N) and a plate tilted 3 deg or standing
    on its side (a file whose vertical is not its z): the centre from the zeroed loads is the true one."""
    from scipy.spatial.transform import Rotation

    from humanbody.io.forceplates import rezeroed_centre

    R = Rotation.from_euler("x", tilt_deg, degrees=True).as_matrix()
    n = 3000
    fz = np.zeros(n)
    fz[1000:1600] = 600.0 * np.sin(np.linspace(0.0, np.pi, 600))
    d = np.column_stack([np.linspace(-0.2, 0.24, n), np.linspace(-0.05, 0.05, n), np.zeros(n)])
    local_corners = np.array([[0.254, 0.23, 0.0], [0.254, -0.23, 0.0], [-0.254, -0.23, 0.0], [-0.254, 0.23, 0.0]])
    o = np.array([1.0, 2.0, 0.1])
    rest_f = np.array([-4.8, 9.1, rest_z])
    rest_m = np.array([0.76, -1.5, 0.2])
    force_local = np.column_stack([0.1 * fz, 0.05 * fz, fz]) + rest_f
    # the moment about the surface's middle of the true load at d, plus the resting moment
    moment_local = np.cross(d, np.column_stack([0.1 * fz, 0.05 * fz, fz])) + rest_m
    z = np.array([0.0, 0.0, 1.0])
    file_centre = np.cross(z, moment_local) / force_local[:, 2:3]  # ezc3d's: from the loads as read
    to_lab = lambda a: a @ R.T  # noqa: E731 - rows into the lab
    got = rezeroed_centre(o + to_lab(file_centre), to_lab(force_local), to_lab(moment_local), R @ rest_f,
                          o + to_lab(local_corners))
    heavy = fz > 100.0
    want = o + to_lab(d)
    np.testing.assert_allclose(got[heavy], want[heavy], atol=1e-9)

"""Plug-in Gait's ankle abduction/adduction offset (a .vsk's RightAnkleAbAdd / LeftAnkleAbAdd).

The static trial with medial malleolus markers measures, in the shank's frontal plane, the tilt of the
line from the ankle centre (on the malleolar axis) to the lateral marker from the flexion axis; motion
trials turn the chord function's ankle centre by it about the axis through the lateral marker normal to
the shank's plane (pyCGM2's getAbdAddAnkleJointOffset and _rotateAjc).  The synthetic trials here put
the lateral marker ANK off the flexion axis by a known angle: the static reads that angle, and the tracked
ankle centre follows the true one.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.io.subject import Subject, read_subject
from humanbody.markers.calibration import calibrate
from humanbody.markers.plug_in_gait_rotation import abducted_joint_centre, ankle_abduction_offset
from humanbody.markers.tracking import track
from tests.markers.test_plug_in_gait import SIDES, STATIC, SUBJECT, _motion, _table, place, write_vsk

TILT = {"right": 8.0, "left": -5.0}  # deg: the lateral marker this far distal (+) of the flexion axis
#: The same as Vicon writes it (AnkleAbAdd, deg): mirrored, -s times the tilt (s = +1 right, -1 left), as the
#: shared Nexus trial shows (its right ankle centre 16 mm off and ankle flexion 8.9 deg off read unmirrored).
VICON = {"right": -8.0, "left": -5.0}


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _tilted(markers: dict, centres: dict, tilt=TILT, medial=False) -> dict:
    """The markers with ANK turned about the true ankle centre by ``tilt`` (deg) in the shank's frontal
    plane (distal for a positive tilt), and with ``medial`` the medial marker MMA opposite it."""
    out = dict(markers)
    for side, S, _ in SIDES:
        C, z = centres[f"{side}_ankle"], centres[f"{side}_shank"][:, :, 2]
        delta = SUBJECT.side("ankle_width", side) / 2 + SUBJECT.marker_diameter / 2
        lateral = _unit(markers[f"{S}ANK"] - C)
        t = np.radians(tilt[side])
        out[f"{S}ANK"] = C + delta * (np.cos(t) * lateral - np.sin(t) * z)
        if medial:
            out[f"{S}MMA"] = 2 * C - out[f"{S}ANK"]
    return out


def _rotate_ajc_as_pycgm2(ajc, kjc, ank, offset_deg):
    """pyCGM2's _rotateAjc, written out: the frame z = KJC - AJC, x = z x (ANK - AJC), y = z x x at ANK; the
    centre's coordinates in it turned by Rx(offset)."""
    z = _unit(kjc - ajc)
    x = _unit(np.cross(z, _unit(ank - ajc)))
    R = np.c_[x, np.cross(z, x), z]
    loc = R.T @ (ajc - ank)
    a = np.radians(offset_deg)
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, np.cos(a), -np.sin(a)], [0.0, np.sin(a), np.cos(a)]])
    return R @ Rx @ loc + ank


def test_offset_of_a_tilted_malleolar_axis_is_the_tilt():
    """A malleolar axis tilted by t in the shank's frontal plane (lateral marker distal for t > 0) reads t,
    on either side, whatever the shank's orientation in the room."""
    rng = np.random.default_rng(3)
    for t in (-12.0, -3.0, 0.0, 4.0, 15.0):
        for s in (1.0, -1.0):
            Q = np.linalg.qr(rng.normal(size=(3, 3)))[0]
            Q *= np.sign(np.linalg.det(Q))
            C, z, lat = np.array([0.1, 0.2, 0.1]), Q[:, 2], -s * Q[:, 1]
            M = C + 0.045 * (np.cos(np.radians(t)) * lat - np.sin(np.radians(t)) * z)
            N = C - 0.9 * (M - C)  # the medial marker: any distance along the axis
            P = C + 0.41 * z
            assert np.degrees(ankle_abduction_offset(M, N, P, 0.045)) == pytest.approx(t, abs=1e-9)


def test_turned_centre_is_pycgm2_s_rotate_ajc():
    """abducted_joint_centre equals pyCGM2's frame-based rotation (written out independently), keeps the
    distance to the lateral marker and the plane (P, C, M), and moves the centre proximally for a positive
    offset; 0 returns the centre."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        C, P, M = rng.normal(size=3), rng.normal(size=3), rng.normal(size=3)
        off = rng.uniform(-20, 20)
        got = abducted_joint_centre(C, P, M, np.radians(off))
        np.testing.assert_allclose(got, _rotate_ajc_as_pycgm2(C, P, M, off), atol=1e-12)
        assert np.linalg.norm(got - M) == pytest.approx(np.linalg.norm(C - M), abs=1e-12)
        assert abs(np.dot(np.cross(P - C, M - C), got - C)) < 1e-12
    P, C, M = np.array([0.0, 0.0, 0.4]), np.zeros(3), np.array([0.0, -0.045, 0.0])  # right ankle, shank upright
    assert abducted_joint_centre(C, P, M, np.radians(10.0))[2] > 0.007
    assert np.array_equal(abducted_joint_centre(C, P, M, 0.0), C)


@pytest.fixture(scope="module")
def walk():
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    ang, origin, t = _motion(80)
    m, centres = place(ang, origin)
    return _table(_tilted(static_m, static_c, medial=True), np.arange(F0) / 100), static_c, \
        _table(_tilted(m, centres), t), centres


def _ankle_errors(cal, trial, centres) -> dict:
    res = hb.compute(cal.model, track(trial, cal).coords, differentiation="gradient")
    names = list(cal.model.names)
    return {side: np.linalg.norm(res.joint[:, names.index(f"{side}_foot")] - centres[f"{side}_ankle"], axis=-1)
            for side, _, _ in SIDES}


def test_static_with_medial_markers_measures_the_offset_and_the_walk_follows_it(walk):
    """The static trial's malleolar axes give the placed tilts (1e-9 deg) and say so; the static and the walk's
    ankle centres are within 0.1 mm of the true ones (measured 0.04 / 0.02 mm: Plug-in Gait's rule turns the
    chord centre by the static's angle about the lateral marker, which misses by the small angle between the
    shank axes through the chord centre and the true one), where the chord function alone misses by 5.8 /
    3.8 mm.  A subject file that gives AnkleAbAdd as 0 gives a value Plug-in Gait applies (no turn), not "not
    measured": the static's malleolar axes are then not used (Nexus applied no offset for such a VSK)."""
    static, static_c, trial, centres = walk
    cal = calibrate(static, "plug_in_gait", mass=70.0, height=1.78, subject=SUBJECT)
    zero = calibrate(static, "plug_in_gait", mass=70.0, height=1.78,
                     subject=SUBJECT.with_values(right_ankle_abduction=0.0, left_ankle_abduction=0.0))
    for side, _, _ in SIDES:
        assert np.degrees(cal.parameters[f"{side}_ankle_abduction"]) == pytest.approx(VICON[side], abs=1e-9)
        assert zero.parameters[f"{side}_ankle_abduction"] == 0.0
        assert not any(n.startswith(f"{side}_ankle_abduction = {VICON[side]:.2f}") for n in zero.notes)
        assert any(n.startswith(f"{side}_ankle_abduction = {VICON[side]:.2f} deg from the static trial's medial")
                   for n in cal.notes)
        assert np.linalg.norm(cal.points[f"{side}_ankle"] - static_c[f"{side}_ankle"][0]) < 1e-4
    err = _ankle_errors(cal, trial, centres)
    without_medial = static.drop(columns=[c for c in static.columns if "MMA_" in c])
    without_medial.attrs["markers"] = [m for m in static.attrs["markers"] if "MMA" not in m]
    plain = calibrate(without_medial, "plug_in_gait", mass=70.0, height=1.78, subject=SUBJECT)
    assert not any("abduction" in n for n in plain.notes)
    err0 = _ankle_errors(plain, trial, centres)
    err_zero = _ankle_errors(zero, trial, centres)
    for side, _, _ in SIDES:
        assert err[side].max() < 1e-4, side
        assert err0[side].min() > 3.5e-3, side
        np.testing.assert_allclose(err_zero[side], err0[side], atol=1e-9)  # 0 given: the plain chord centre


def test_subject_file_s_ankle_abduction_wins_over_the_static(walk, tmp_path):
    """A .vsk's RightAnkleAbAdd / LeftAnkleAbAdd (rad) are the offsets used, even with medial markers in the
    static; the walk's ankle centres are the chord centres turned by them."""
    static, _, trial, centres = walk
    vsk = tmp_path / "s.vsk"
    given = {side: float(np.radians(VICON[side])) for side in VICON}
    vsk.write_text('<KinematicModel><Parameters><Parameter NAME="Bodymass" VALUE="70"/>'
                   f'<Parameter NAME="RightAnkleAbAdd" VALUE="{given["right"]!r}"/>'
                   f'<Parameter NAME="LeftAnkleAbAdd" VALUE="{given["left"]!r}"/></Parameters></KinematicModel>')
    read = read_subject(vsk)
    assert (read.right_ankle_abduction, read.left_ankle_abduction) == (given["right"], given["left"])
    sub = SUBJECT.with_values(right_ankle_abduction=read.right_ankle_abduction,
                              left_ankle_abduction=read.left_ankle_abduction)
    cal = calibrate(static, "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    assert not any("from the static trial's medial" in n for n in cal.notes)
    assert "right_ankle_abduction = -8.00 deg from the subject file (AnkleAbAdd)" in cal.notes
    assert cal.parameters["right_ankle_abduction"] == given["right"]
    err = _ankle_errors(cal, trial, centres)
    for side, _, _ in SIDES:
        assert err[side].max() < 1e-4, side
    half = calibrate(static, "plug_in_gait", mass=70.0, height=1.78,
                     subject=SUBJECT.with_values(right_ankle_abduction=given["right"] / 2,
                                                 left_ankle_abduction=given["left"] / 2))
    assert _ankle_errors(half, trial, centres)["right"].min() > 1.5e-3  # the value given is the value used


def test_cli_with_a_vsk_s_ankle_abduction(tmp_path):
    """``humanbody analyze --subject s01.vsk`` with RightAnkleAbAdd / LeftAnkleAbAdd: the log names the offsets,
    and the model's ankle joints (results' right_foot_joint_*) are the true ankle centres within 0.1 mm."""
    from humanbody.cli import main
    from tests.markers.test_plug_in_gait import _write_csv

    F0 = 5
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    _write_csv(_tilted(static_m, static_c), np.arange(F0) / 100, tmp_path / "s01_static.csv")
    ang, origin, t = _motion(60)
    m, centres = place(ang, origin)
    _write_csv(_tilted(m, centres), t, tmp_path / "s01_walk.csv")
    write_vsk(tmp_path / "s01.vsk", AnkleAbAdd={side: np.radians(VICON[side]) for side in ("right", "left")})
    out = tmp_path / "out"
    assert main(["analyze", str(tmp_path / "s01_walk.csv"), "--static", str(tmp_path / "s01_static.csv"),
                 "--subject", str(tmp_path / "s01.vsk"), "--markerset", "plug_in_gait", "--axes", "x,y,z",
                 "--cutoff", "0", "--digits", "15", "--out", str(out), "-q"]) == 0
    log = (out / "s01_walk_log.txt").read_text()
    assert "right_ankle_abduction = -8.00 deg from the subject file (AnkleAbAdd)" in log
    assert "left_ankle_abduction = -5.00 deg from the subject file (AnkleAbAdd)" in log
    table = pd.read_csv(out / "s01_walk_results.csv")
    for side, _, _ in SIDES:
        got = table[[f"{side}_foot_joint_{a}" for a in "xyz"]].to_numpy()
        assert np.linalg.norm(got - centres[f"{side}_ankle"], axis=1).max() < 1e-4, side


def test_medial_markers_named_as_pycgm2_names_them(walk):
    """RMED / LMED (pyCGM2's names for the medial malleolus markers) stand for RMMA / LMMA."""
    static, _, _, _ = walk
    renamed = static.rename(columns={c: c.replace("MMA_", "MED_") for c in static.columns if "MMA_" in c})
    renamed.attrs["markers"] = [m.replace("MMA", "MED") for m in static.attrs["markers"]]
    cal = calibrate(renamed, "plug_in_gait", mass=70.0, height=1.78, subject=SUBJECT)
    for side, _, _ in SIDES:
        assert np.degrees(cal.parameters[f"{side}_ankle_abduction"]) == pytest.approx(VICON[side], abs=1e-9)


# ------------------------------------------------------------------ tibial torsion from the medial malleolus
def test_static_with_medial_markers_measures_the_tibial_torsion():
    """A subject file without TibialTorsion and a static trial with medial malleolus markers: the torsion is
    measured there (the placed 0.20 / -0.10 rad to 1e-9), the log says so, and the walk's knee and Plug-in
    Gait's ankle angles are the placed ones; with a KAD in the static it is not (the device's plane needs it)."""
    from humanbody.mechanics.clinical import clinical_angles
    from tests.markers.test_plug_in_gait import JOINTS, plug_in_gait_ankle

    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    for side, S, _ in SIDES:
        static_m[f"{S}MMA"] = 2 * static_c[f"{side}_ankle"] - static_m[f"{S}ANK"]
    no_torsion = Subject(**{k: v for k, v in SUBJECT.measured().items() if "tibial_torsion" not in k})
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=no_torsion)
    for side, _, _ in SIDES:
        want = SUBJECT.side("tibial_torsion", side)
        assert cal.parameters[f"{side}_tibial_torsion"] == pytest.approx(want, abs=1e-9)
        assert any(n.startswith(f"{side}_tibial_torsion = {np.degrees(want):.2f} deg from the static trial's medial")
                   for n in cal.notes)
    ang, origin, t = _motion(60)
    m, centres = place(ang, origin)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c, centres, side, sg))
        for j in JOINTS:
            np.testing.assert_allclose(cl[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)
    with_kad = dict(static_m, RKAX=static_m["RKNE"] + np.array([0.0, 0.0, 0.1]))
    cal = calibrate(_table(with_kad, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=no_torsion)
    assert cal.parameters["right_tibial_torsion"] == 0.0 and cal.parameters["left_tibial_torsion"] != 0.0


def test_a_subject_file_s_tibial_torsion_of_0_is_a_value():
    """A subject file that gives TibialTorsion as 0 gives a value Plug-in Gait applies: the static's medial
    malleolus markers do not replace it (only an absent torsion is measured), and the log says nothing of it."""
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    for side, S, _ in SIDES:
        static_m[f"{S}MMA"] = 2 * static_c[f"{side}_ankle"] - static_m[f"{S}ANK"]
    zero = SUBJECT.with_values(right_tibial_torsion=0.0, left_tibial_torsion=0.0)
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=zero)
    for side, _, _ in SIDES:
        assert cal.parameters[f"{side}_tibial_torsion"] == 0.0
        assert not any(n.startswith(f"{side}_tibial_torsion =") for n in cal.notes)

"""Plug-in Gait: synthetic markers placed from known joint centres and joint angles over the whole range
(hips to 100 deg, knees to 120 deg) give back those angles to 1e-6 deg, a standing pose its pelvic tilt,
and the model's joints (about which moments are taken) are Plug-in Gait's joint centres.

The forward model here is written from the published definitions, independently of the library's
calibration: Davis et al. (1991) hip centres in the pelvis frame, knee and ankle centres medial of the
lateral marker by half the joint width plus the marker radius with the marker-to-centre line
perpendicular to the segment axis (the chord function), wand markers in the plane of that line and the
segment axis, the shank's frame the TIB plane's turned by minus the tibial torsion about its long axis, the
foot's long axis heel to toe.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.io.subject import Subject
from humanbody.markers.calibration import calibrate
from humanbody.markers.tracking import track
from humanbody.mechanics.clinical import clinical_angles
from humanbody.rotations import euler_to_matrix

SUBJECT = Subject(mass=70.0, height=1.78, right_leg_length=0.90, left_leg_length=0.91,
                  right_knee_width=0.100, left_knee_width=0.104, right_ankle_width=0.070, left_ankle_width=0.072,
                  right_tibial_torsion=0.20, left_tibial_torsion=-0.10, marker_diameter=0.014)
PW = 0.24            # inter-ASIS distance of the synthetic pelvis (m)
SACRUM = -0.16       # mid-PSIS behind mid-ASIS along the pelvis x axis (m)
THIGH, SHANK = 0.42, 0.41
SIDES = (("right", "R", 1.0), ("left", "L", -1.0))
# upper body, rigid with the pelvis, in the pelvis frame (m)
UPPER = {
    "C7": (-0.15, 0.0, 0.50), "T10": (-0.17, 0.0, 0.25), "CLAV": (0.0, 0.0, 0.45), "STRN": (0.02, 0.0, 0.28),
    "RFHD": (0.05, -0.06, 0.70), "LFHD": (0.05, 0.06, 0.70), "RBHD": (-0.13, -0.06, 0.71),
    "LBHD": (-0.13, 0.06, 0.71),
}
for _s, _y in (("R", -1.0), ("L", 1.0)):
    UPPER.update({f"{_s}SHO": (-0.08, _y * 0.19, 0.50), f"{_s}UPA": (-0.05, _y * 0.22, 0.30),
                  f"{_s}ELB": (-0.08, _y * 0.23, 0.15), f"{_s}FRA": (-0.03, _y * 0.22, 0.0),
                  f"{_s}WRA": (-0.06, _y * 0.22, -0.15), f"{_s}WRB": (-0.11, _y * 0.22, -0.15),
                  f"{_s}FIN": (-0.08, _y * 0.22, -0.25)})


def _davis(side_sign, leg, mean_leg, radius):
    """Davis 1991 hip centre in the pelvis frame (m): the published equations, mm inside."""
    c = 0.115 * mean_leg * 1000 - 15.3
    d = 0.1288 * leg * 1000 - 48.56
    th, be = 0.500000178813934, 0.314000427722931  # Vicon's values of the paper's 28.4 and 18 deg
    r = radius * 1000
    x = -(d + r) * np.cos(be) + c * np.cos(th) * np.sin(be)
    z = -(d + r) * np.sin(be) - c * np.cos(th) * np.cos(be)
    y = -side_sign * (PW * 500 - c * np.sin(th))
    return np.array([x, y, z]) / 1000


def _rz(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])


def _frame_xy(x, y):
    """Right-handed frames (F, 3, 3) with x along ``x`` and y the part of ``y`` normal to it."""
    x = x / np.linalg.norm(x, axis=-1, keepdims=True)
    y = y - np.sum(y * x, axis=-1, keepdims=True) * x
    y = y / np.linalg.norm(y, axis=-1, keepdims=True)
    return np.stack([x, y, np.cross(x, y)], axis=-1)


def pelvis_from_progression(Rp, heading_deg) -> dict:
    """Plug-in Gait's pelvis angles (deg) of pelvis frames Rp (F, 3, 3) relative to the horizontal direction
    of progression at heading (deg about ground Z): scipy's intrinsic Y-X'-Z'' angles (a, b, c) of
    Rz(-heading) Rp give tilt a, obliquity -b (right side up), rotation c (to the left)."""
    from scipy.spatial.transform import Rotation

    S = np.einsum("fji,fjk->fik", np.asarray(_rz_many(np.radians(heading_deg))), Rp)
    a = np.degrees(Rotation.from_matrix(S).as_euler("YXZ"))
    return {"pelvis_tilt": a[:, 0], "pelvis_obliquity": -a[:, 1], "pelvis_rotation": a[:, 2]}


def _rz_many(t):
    """Rz(t) for each t (F,): (F, 3, 3)."""
    t = np.atleast_1d(np.asarray(t, float))
    return np.stack([_rz(v) for v in t])


THI_AT, TIB_AT = (0.0, 0.09, -0.20), (0.0, 0.08, -0.15)  # wands (thigh: from the hip, shank: from the knee;
# lateral y given for the left side), in the segment's frame: in the joint's plane


def place(angles: dict, origin: np.ndarray, thi=THI_AT, tib=TIB_AT, subject=None) -> tuple[dict, dict]:
    """Markers, joint centres and frames (ground, m) of F frames from clinical angles (deg, arrays (F,)).

    ``centres`` also holds, per side, ``s_thigh``, ``s_shank`` (the knee's shank frame), ``s_shank_ankle``
    (the ankle axis: the TIB-plane frame, the shank turned by the tibial torsion), ``s_foot_anatomical``
    (heel -> toe with the ankle axis) and ``s_foot_uncorrected`` (ankle centre -> toe with the knee's shank
    frame's y, the tibia with its torsion, as Nexus's foot: tests/integration/test_vicon_outputs.py): Plug-in
    Gait's foot in any frame is the uncorrected one turned by the static offset.

    ``angles``: pelvis_tilt/obliquity/rotation and s_hip/knee/ankle angles (clinical names without _deg);
    ``origin`` (F, 3): mid-ASIS.  The pelvis is posed as Plug-in Gait's angles: Y-X-Z Cardan angles
    relative to ground (+X the direction of progression), tilt about y (anterior +), obliquity about the
    floating x (right side up +, so -x), rotation about the pelvis's z (to the left +); ``centres["pelvis"]``
    is its frame.
    ``thi``, ``tib``: the wands in the thigh and (torsion-turned) shank frames, lateral y as on the left
    (mirrored on the right).  ``subject`` defaults to SUBJECT.
    """
    SUBJECT_ = SUBJECT if subject is None else subject  # noqa: N806
    F = len(origin)
    d = {k: np.radians(np.broadcast_to(v, (F,))) for k, v in angles.items()}
    Rp = euler_to_matrix(np.c_[d["pelvis_tilt"], -d["pelvis_obliquity"], d["pelvis_rotation"]], "yxz")
    at = lambda R, O, v: O + np.einsum("fij,j->fi", R, np.asarray(v, float))  # noqa: E731
    m = {"RASI": at(Rp, origin, (0, -PW / 2, 0)), "LASI": at(Rp, origin, (0, PW / 2, 0)),
         "RPSI": at(Rp, origin, (SACRUM, -0.045, 0)), "LPSI": at(Rp, origin, (SACRUM, 0.045, 0))}
    m.update({k: at(Rp, origin, v) for k, v in UPPER.items()})
    centres = {"pelvis": Rp}
    r = SUBJECT_.marker_diameter / 2
    mean_leg = 0.5 * (SUBJECT_.right_leg_length + SUBJECT_.left_leg_length)
    for side, S, s in SIDES:
        hjc = at(Rp, origin, _davis(s, SUBJECT_.side("leg_length", side), mean_leg, r))
        S_hip = euler_to_matrix(np.c_[-d[f"{side}_hip_flexion"], s * d[f"{side}_hip_adduction"],
                                      s * d[f"{side}_hip_internal_rotation"]], "yxz")
        Rt = Rp @ S_hip
        kjc = at(Rt, hjc, (0, 0, -THIGH))
        dk = SUBJECT_.side("knee_width", side) / 2 + r
        m[f"{S}KNE"] = at(Rt, kjc, (0, -s * dk, 0))
        m[f"{S}THI"] = at(Rt, hjc, (thi[0], -s * thi[1], thi[2]))  # wand, lateral
        S_knee = euler_to_matrix(np.c_[d[f"{side}_knee_flexion"], s * d[f"{side}_knee_adduction"],
                                       s * d[f"{side}_knee_internal_rotation"]], "yxz")
        Rs = Rt @ S_knee                                       # the shank frame the angles use
        Ra = Rs @ _rz(s * SUBJECT_.side("tibial_torsion", side))  # the TIB-plane frame: Rs = Ra Rz(-s torsion)
        ajc = at(Rs, kjc, (0, 0, -SHANK))
        da = SUBJECT_.side("ankle_width", side) / 2 + r
        m[f"{S}ANK"] = at(Ra, ajc, (0, -s * da, 0))
        m[f"{S}TIB"] = at(Ra, kjc, (tib[0], -s * tib[1], tib[2]))
        S_ankle = euler_to_matrix(np.c_[-d[f"{side}_ankle_dorsiflexion"], s * d[f"{side}_ankle_inversion"],
                                        s * d[f"{side}_ankle_internal_rotation"]], "yxz")
        Rf = Rs @ S_ankle
        m[f"{S}HEE"] = at(Rf, ajc, (-0.06, 0, -0.05))
        m[f"{S}TOE"] = at(Rf, ajc, (0.14, 0, -0.05))
        centres.update({f"{side}_thigh": Rt, f"{side}_hip": hjc, f"{side}_knee": kjc, f"{side}_ankle": ajc, f"{side}_shank": Rs,
                        f"{side}_shank_ankle": Ra,
                        f"{side}_foot_anatomical": _frame_xy(m[f"{S}TOE"] - m[f"{S}HEE"], Ra[:, :, 1]),
                        f"{side}_foot_uncorrected": _frame_xy(m[f"{S}TOE"] - ajc, Rs[:, :, 1])})
    return m, centres


def plug_in_gait_ankle(static_c: dict, c: dict, side: str, s: float) -> dict:
    """Ankle angles (deg) as Plug-in Gait computes them, in its own foot axes.

    Its foot frame has z along the long axis pointing back (toe -> heel), y the ankle's flexion axis and
    x = y x z (up), relative to the shank's ankle axis (the TIB-plane frame, not the knee's shank turned by
    the tibial torsion).  The foot in any frame is the uncorrected one (z from TOE to the ankle centre) turned by
    the static offset C = U0^T A0 (A0: heel -> toe in the static).  The ankle angles are the Y-X-Z Cardan
    angles (a, b, c) of shank^T foot: dorsiflexion -(a + 90 deg) (the long axis is z, not x), rotation
    about the floating axis s b (internal), inversion about the long axis -s c.
    """
    to_pig = np.array([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # columns: x up, y, z back
    U0 = static_c[f"{side}_foot_uncorrected"][0] @ to_pig
    A0 = static_c[f"{side}_foot_anatomical"][0] @ to_pig
    foot = c[f"{side}_foot_uncorrected"] @ to_pig @ (U0.T @ A0)
    S = np.einsum("fji,fjk->fik", c[f"{side}_shank_ankle"], foot)
    a = np.degrees(hb.rotations.matrix_to_euler(S, "yxz"))
    return {f"{side}_ankle_dorsiflexion": -(a[:, 0] + 90.0), f"{side}_ankle_inversion": -s * a[:, 2],
            f"{side}_ankle_internal_rotation": s * a[:, 1]}


def _table(markers: dict, t) -> pd.DataFrame:
    cols = {"time": t}
    for k, v in markers.items():
        for j, a in enumerate("xyz"):
            cols[f"{k}_{a}"] = v[:, j]
    df = pd.DataFrame(cols)
    df.attrs["markers"] = list(markers)
    return df


JOINTS = ("hip_flexion", "hip_adduction", "hip_internal_rotation", "knee_flexion", "knee_adduction",
          "knee_internal_rotation", "ankle_dorsiflexion", "ankle_inversion", "ankle_internal_rotation")
STATIC = {"pelvis_tilt": 12.0, "pelvis_obliquity": 0.0, "pelvis_rotation": 0.0,
          **{f"{side}_{j}": 0.0 for side, _, _ in SIDES for j in JOINTS},
          "right_hip_flexion": 4.0, "left_hip_flexion": 6.0, "right_knee_flexion": 3.0,
          "left_knee_flexion": -2.0, "right_ankle_dorsiflexion": 5.0, "left_ankle_dorsiflexion": 2.0}



def write_vsk(path, **per_side) -> None:
    """A Nexus subject file (``.vsk``) of :data:`SUBJECT` (mm, degrees), with ``per_side`` parameters given as
    ``{"AnkleAbAdd": {"right": value, "left": value}}`` style keywords (name without the side prefix)."""
    s = SUBJECT
    params = {"Bodymass": s.mass, "Height": 1000 * s.height, "MarkerDiameter": 1000 * s.marker_diameter}
    for side, Side in (("right", "Right"), ("left", "Left")):
        params.update({f"{Side}LegLength": 1000 * s.side("leg_length", side),
                       f"{Side}KneeWidth": 1000 * s.side("knee_width", side),
                       f"{Side}AnkleWidth": 1000 * s.side("ankle_width", side),
                       f"{Side}TibialTorsion": math.degrees(s.side("tibial_torsion", side))})
        params.update({f"{Side}{name}": float(values[side]) for name, values in per_side.items()})
    path.write_text("<KinematicModel><Parameters>" + "".join(
        f'<Parameter NAME="{k}" VALUE="{v!r}"/>' for k, v in params.items()) + "</Parameters></KinematicModel>")

def _motion(F=240):
    """Whole-range motion: hips -20..100, knees 0..120, ankles -30..20 with the other angles moving too."""
    u = np.linspace(0.0, 1.0, F)
    w = np.sin(np.pi * u)
    ang = {"pelvis_tilt": 8 + 10 * w, "pelvis_obliquity": 6 * np.sin(4 * np.pi * u),
           "pelvis_rotation": 9 * np.cos(3 * np.pi * u)}
    for side, _, s in SIDES:
        ph = 0.0 if s > 0 else 0.7
        ang.update({
            f"{side}_hip_flexion": -20 + 120 * w, f"{side}_hip_adduction": 12 * np.sin(3 * np.pi * u + ph),
            f"{side}_hip_internal_rotation": 25 * np.sin(2 * np.pi * u + ph),
            f"{side}_knee_flexion": 120 * np.sin(np.pi * u) ** 2, f"{side}_knee_adduction": 5 * np.sin(5 * u + ph),
            f"{side}_knee_internal_rotation": 15 * np.cos(4 * u + ph),
            f"{side}_ankle_dorsiflexion": -30 + 50 * u, f"{side}_ankle_inversion": 15 * np.sin(6 * u + ph),
            f"{side}_ankle_internal_rotation": 10 * np.sin(7 * u + ph),
        })
    t = u * 2.0
    origin = np.c_[1.2 * t, 0.05 * np.sin(2 * np.pi * t), 0.95 + 0.02 * np.sin(4 * np.pi * t)]
    return ang, origin, t


@pytest.fixture(scope="module")
def pig():
    F0 = 5
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78,
                    subject=SUBJECT)
    ang, origin, t = _motion()
    m, centres = place(ang, origin)
    tr = track(_table(m, t), cal)
    return cal, tr, ang, centres, static_c


def test_calibrated_joint_centres_are_plug_in_gait_s(pig):
    cal, _, _, _, static_c = pig
    for name, v in static_c.items():
        if v.ndim == 2:  # the joint centres (the frames are checked by the angles)
            np.testing.assert_allclose(cal.points[name], v[0], atol=1e-12, err_msg=name)


def test_angles_over_the_whole_range_exact(pig):
    """Hips, knees and pelvis as placed; the ankle as Plug-in Gait's foot (uncorrected foot tracked frame by
    frame, turned by the static offsets) makes it: two of the placed ankle angles' three degrees of freedom."""
    cal, tr, ang, centres, static_c = pig
    ang = dict(ang)
    for side, _, s in SIDES:
        pig_ankle = plug_in_gait_ankle(static_c, centres, side, s)
        assert np.abs(pig_ankle[f"{side}_ankle_dorsiflexion"] - ang[f"{side}_ankle_dorsiflexion"]).max() < 6.0
        ang.update(pig_ankle)
    from humanbody.mechanics.clinical import progression_heading

    cl = clinical_angles(cal.model, tr.coords, cal)
    # Plug-in Gait's progression is one lab axis, here +X; the pelvis's travel over a second swings by up to
    # 2 deg round it (the sway of _motion), which the progression no longer follows
    travel = np.degrees(progression_heading(tr.coords["time"], tr.coords[["lower_torso_x", "lower_torso_y"]]))
    assert 0.5 < np.abs(travel).max() < 2.0
    ang.update(pelvis_from_progression(centres["pelvis"], np.zeros(len(travel))))  # the pelvis from +X
    for name, want in ang.items():
        np.testing.assert_allclose(cl[f"{name}_deg"], want, atol=1e-6, err_msg=name)
    assert cl["right_knee_flexion_deg"].max() > 119.9 and cl["left_hip_flexion_deg"].max() > 99.9


def test_standing_pose_reads_its_pelvic_tilt(pig):
    cal, _, _, _, _ = pig
    F0 = 5
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    tr = track(_table(static_m, np.arange(F0) / 100), cal)
    cl = clinical_angles(cal.model, tr.coords, cal)
    want_all = dict(STATIC)
    for side, _, sg in SIDES:  # the ankle from the shank's ankle axis (turned by the tibial torsion)
        want_all.update(plug_in_gait_ankle(static_c, static_c, side, sg))
    for name, want in want_all.items():
        np.testing.assert_allclose(cl[f"{name}_deg"], want, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(cl["pelvis_tilt_deg"], 12.0, atol=1e-6)
    st = clinical_angles(cal.model, tr.coords, cal, zero="static")
    np.testing.assert_allclose(st[["pelvis_tilt_deg", "right_knee_flexion_deg"]], 0.0, atol=1e-6)


def test_model_joints_are_the_tracked_joint_centres(pig):
    """Kinetics take moments about the model's joint points O_k: they are Plug-in Gait's joint centres."""
    cal, tr, _, centres, _ = pig
    res = hb.compute(cal.model, tr.coords, differentiation="gradient")
    names = list(cal.model.names)
    for side, _, _ in SIDES:
        for seg, centre in ((f"{side}_upper_leg", f"{side}_hip"), (f"{side}_lower_leg", f"{side}_knee"),
                            (f"{side}_foot", f"{side}_ankle")):
            np.testing.assert_allclose(res.joint[:, names.index(seg)], centres[centre], atol=1e-9, err_msg=seg)


def test_subject_file_missing_a_width_is_named():
    F0 = 3
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    partial = Subject(mass=70.0, right_leg_length=0.9, left_leg_length=0.9, right_knee_width=0.1,
                      left_knee_width=0.1, right_ankle_width=0.07, source="s01.vsk")
    with pytest.raises(hb.InputError, match="s01.vsk: subject file has no left_ankle_width .LeftAnkleWidth"):
        calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=partial)


def test_chord_function_against_published_examples():
    """The chord function reproduces the worked examples of pyCGM's documentation (findJointC; pyCGM is
    validated against Vicon Nexus), mm."""
    from humanbody.markers.joint_centres import chord_joint_centre

    got = chord_joint_centre([468.14532471, 325.09780884, 673.12591553], [355.90861996, 365.38260964, 940.6974861],
                             [452.35180664, 329.0609436, 524.77893066], 59.5)
    np.testing.assert_allclose(got, [396.25286248, 347.91367254, 518.63620527], atol=1e-7)
    got = chord_joint_centre([775.40887891, 788.64742014, 514.4063264], [424.5706403, 46.17046141, 305.73130661],
                             [618.98284978, 848.86492206, 133.51848843], 42.5)
    np.testing.assert_allclose(got, [599.66684491, 843.26056826, 96.07876121], atol=1e-7)


def _write_csv(markers: dict, t, path):
    cols = {"time": t}
    for k, v in markers.items():
        for j, a in enumerate("xyz"):
            cols[f"{k}_{a} [m]"] = v[:, j]
    pd.DataFrame(cols).to_csv(path, index=False, float_format="%.17g")


def test_cli_with_a_vsk_gives_the_angles(tmp_path, capsys):
    """``humanbody analyze`` with the Plug-in Gait markers and the subject's .vsk: the placed angles."""

    from humanbody.cli import main

    F0 = 5
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    _write_csv(static_m, np.arange(F0) / 100, tmp_path / "s01_static.csv")
    ang, origin, t = _motion(120)
    m, _ = place(ang, origin)
    _write_csv(m, t, tmp_path / "s01_walk.csv")
    write_vsk(tmp_path / "s01.vsk")
    out = tmp_path / "out"
    assert main(["analyze", str(tmp_path / "s01_walk.csv"), "--static", str(tmp_path / "s01_static.csv"),
                 "--subject", str(tmp_path / "s01.vsk"), "--markerset", "plug_in_gait", "--axes", "x,y,z",
                 "--cutoff", "0", "--digits", "15", "--out", str(out), "-q"]) == 0
    table = pd.read_csv(out / "s01_walk_results.csv")
    _, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (1, 1)))
    _, centres = place(ang, origin)
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c, centres, side, sg))
    for side, _, _ in SIDES:
        for j in JOINTS:
            np.testing.assert_allclose(table[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)
    heading = np.zeros(len(centres["pelvis"]))  # Plug-in Gait's progression: the lab's +X (travel 2.4 m along it)
    for name, want in pelvis_from_progression(centres["pelvis"], heading).items():
        np.testing.assert_allclose(table[f"{name}_deg"], want, atol=1e-6, err_msg=name)
    assert hb.load_model(out / "s01_walk_model.json").total_mass == pytest.approx(70.0)


def test_lower_body_trial_uses_the_lower_body_set():
    """Without upper-body markers the lower-body set is detected; the legs' and pelvis's angles are the same."""
    from humanbody.markers.markerset import detect_markerset

    F0 = 5
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    lower = {k: v for k, v in static_m.items() if k not in UPPER}
    assert detect_markerset(list(static_m)).name == "plug_in_gait"
    assert detect_markerset(list(lower)).name == "plug_in_gait_lower"
    cal = calibrate(_table(lower, np.arange(F0) / 100), None, mass=70.0, height=1.78, subject=SUBJECT)
    ang, origin, t = _motion(60)
    m, centres = place(ang, origin)
    tr = track(_table({k: v for k, v in m.items() if k not in UPPER}, t), cal)
    cl = clinical_angles(cal.model, tr.coords, cal)
    _, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (1, 1)))
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c, centres, side, sg))
    for side, _, _ in SIDES:
        for j in JOINTS:
            np.testing.assert_allclose(cl[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)
    heading = np.zeros(len(centres["pelvis"]))  # Plug-in Gait's progression: the lab's +X (travel 2.4 m along it)
    for name, want in pelvis_from_progression(centres["pelvis"], heading).items():
        np.testing.assert_allclose(cl[f"{name}_deg"], want, atol=1e-6, err_msg=name)
    np.testing.assert_allclose(cl["thorax_flexion_deg"], 0.0, atol=1e-9)  # not measured: rigid with the pelvis
    res = hb.compute(cal.model, tr.coords, differentiation="gradient")
    k = list(cal.model.names).index("right_lower_leg")
    np.testing.assert_allclose(res.joint[:, k], centres["right_knee"], atol=1e-9)


def test_frames_are_built_from_each_frame_s_markers(pig):
    """A wobbling thigh wand (skin motion): the thigh frame is Plug-in Gait's, made from that frame's THI, KNE
    and hip centre (chord function, then z knee -> hip, y KNE -> knee centre), not a least-squares fit."""
    cal, _, _, _, _ = pig
    ang, origin, t = _motion(50)
    m, _ = place(ang, origin)
    rng = np.random.default_rng(3)
    m["RTHI"] = m["RTHI"] + rng.normal(0.0, 0.01, m["RTHI"].shape)
    tr = track(_table(m, t), cal)
    # the hip centre from the pelvis markers of each frame (Davis, pelvis frame), then the chord function
    mid = 0.5 * (m["RASI"] + m["LASI"])
    Rp = _frame_xy(mid - 0.5 * (m["RPSI"] + m["LPSI"]), m["LASI"] - m["RASI"])  # x forward, y towards LASI
    hjc = mid + np.einsum("fij,j->fi", Rp, _davis(1.0, SUBJECT.right_leg_length,
                                                  0.5 * (SUBJECT.right_leg_length + SUBJECT.left_leg_length),
                                                  SUBJECT.marker_diameter / 2))
    kne, thi = m["RKNE"], m["RTHI"]
    delta = SUBJECT.right_knee_width / 2 + SUBJECT.marker_diameter / 2
    u = hjc - kne
    L = np.linalg.norm(u, axis=1, keepdims=True)
    u = u / L
    w = thi - kne
    w = w - np.sum(w * u, axis=1, keepdims=True) * u
    w = w / np.linalg.norm(w, axis=1, keepdims=True)
    kjc = kne + delta**2 / L * u - np.sqrt(delta**2 - delta**4 / L**2) * w
    z = (hjc - kjc) / np.linalg.norm(hjc - kjc, axis=1, keepdims=True)
    y = kjc - kne
    y = y - np.sum(y * z, axis=1, keepdims=True) * z
    y = y / np.linalg.norm(y, axis=1, keepdims=True)
    want = np.stack([np.cross(y, z), y, z], axis=-1)
    k = list(cal.model.names).index("right_upper_leg")
    np.testing.assert_allclose(tr.R[:, k], want, atol=1e-9)
    assert (tr.status["right_upper_leg"] == "fit").all()


# ------------------------------------------------------------------ knee alignment device (KAD)
THI_OFF, TIB_OFF = (0.04, 0.09, -0.20), (-0.03, 0.08, -0.15)  # wands out of the joints' planes


def _with_kad(markers: dict, centres: dict, arm=0.10, tilt=35.0) -> dict:
    """Replace KNE by a KAD whose apex is where KNE was: arm KAX along the thigh's y axis (lateral), KD1
    and KD2 perpendicular to it and to each other in the thigh's sagittal plane (tilted by ``tilt`` deg),
    labelled as the device is (its triangle's normal (KD2 - KD1) x (KAX - KD1) lateral on the left)."""
    out = dict(markers)
    g = np.radians(tilt)
    for side, S, s in SIDES:
        Rt = centres[f"{side}_thigh"]
        apex = out.pop(f"{S}KNE")
        arms = {"KAX": (0.0, -s * arm, 0.0), "KD1": (arm * np.sin(g), 0.0, arm * np.cos(g)),
                "KD2": (arm * np.cos(g), 0.0, -arm * np.sin(g))}
        for k, v in arms.items():
            out[f"{S}{k}"] = apex + np.einsum("fij,j->fi", Rt, np.asarray(v))
    return out


def test_kad_apex_is_the_knee_marker():
    from humanbody.markers.joint_centres import kad_apex

    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (2, 1)))
    kad = _with_kad(static_m, static_c, arm=0.09, tilt=-20.0)
    for side, S, _ in SIDES:
        np.testing.assert_allclose(kad_apex(kad[f"{S}KAX"], kad[f"{S}KD1"], kad[f"{S}KD2"], side),
                                   static_m[f"{S}KNE"], atol=1e-12)


def test_kad_static_gives_the_knee_axis_to_misplaced_wands():
    """A static trial with the KAD and thigh and shank wands out of the joints' planes: the KAD gives the
    knee centre and flexion axis, the wands' rotation offsets carry them to the motion trial (no KAD, KNE
    where the apex was): hip, knee and ankle angles as placed, exact.  Without the KAD the same wands
    give other knee angles (the test can fail)."""
    sub = Subject(**{**SUBJECT.measured(), "right_tibial_torsion": 0.0, "left_tibial_torsion": 0.0})
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)), thi=THI_OFF, tib=TIB_OFF, subject=sub)
    kad = _with_kad(static_m, static_c)
    cal = calibrate(_table(kad, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    for side, _, _ in SIDES:
        for joint in ("knee", "ankle"):
            np.testing.assert_allclose(cal.points[f"{side}_{joint}"], static_c[f"{side}_{joint}"][0], atol=1e-12)
        assert 10.0 < abs(np.degrees(cal.parameters[f"{side}_thigh_rotation"])) < 40.0
        assert 5.0 < abs(np.degrees(cal.parameters[f"{side}_shank_rotation"])) < 40.0
    assert any("thigh_rotation" in n for n in cal.notes)
    ang, origin, t = _motion(120)
    m, centres = place(ang, origin, thi=THI_OFF, tib=TIB_OFF, subject=sub)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c, centres, side, sg))
        for j in JOINTS:
            np.testing.assert_allclose(cl[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)
    plain = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    other = clinical_angles(plain.model, track(_table(m, t), plain).coords, plain)
    assert np.abs(other["right_knee_internal_rotation_deg"] - ang["right_knee_internal_rotation"]).max() > 1.0


def test_kad_with_tibial_torsion_tracks_the_static_pose():
    """With tibial torsion the KAD's plane is turned by it at the ankle; the static trial tracked without
    the KAD (KNE at the apex) gives back the calibrated thigh, shank and foot frames exactly."""
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)), thi=THI_OFF, tib=TIB_OFF)
    cal = calibrate(_table(_with_kad(static_m, static_c), np.arange(F0) / 100), "plug_in_gait", mass=70.0,
                    height=1.78, subject=SUBJECT)
    tr = track(_table(static_m, np.arange(F0) / 100), cal)
    names = list(cal.model.names)
    for side, _, _ in SIDES:
        for seg in ("upper_leg", "lower_leg", "foot"):
            np.testing.assert_allclose(tr.R[:, names.index(f"{side}_{seg}")], np.broadcast_to(
                cal.frames[f"{side}_{seg}"], (F0, 3, 3)), atol=1e-9, err_msg=f"{side}_{seg}")
        # the shank's y axis is the KAD's axis turned by the torsion and back: within a few degrees of it
        y_s = cal.frames[f"{side}_lower_leg"][:, 1]
        y_t = static_c[f"{side}_thigh"][0][:, 1]
        assert np.degrees(np.arccos(abs(y_s @ y_t))) < 3.0


# ------------------------------------------------------------------ ankle sequence, foot flat
def test_ankle_is_plug_in_gait_s_order_not_the_joint_coordinate_system_s(pig):
    """Flexion, rotation, then inversion (Plug-in Gait's Y-X-Z in its foot axes); the knee's order (flexion,
    inversion, rotation) gives other numbers for this motion, so the test above could fail."""
    cal, tr, ang, centres, static_c = pig
    cl = clinical_angles(cal.model, tr.coords, cal)
    want = plug_in_gait_ankle(static_c, centres, "right", 1.0)
    np.testing.assert_allclose(cl["right_ankle_inversion_deg"], want["right_ankle_inversion"], atol=1e-6)
    model = cal.model.replace(conventions=cal.model.conventions.replace(clinical_sequences={}))
    jcs = clinical_angles(model, tr.coords, cal)
    assert np.abs(jcs["right_ankle_inversion_deg"] - want["right_ankle_inversion"]).max() > 0.05
    np.testing.assert_allclose(jcs["right_knee_flexion_deg"], cl["right_knee_flexion_deg"], atol=1e-12)
    assert cal.model.conventions.clinical_sequences["ankle"] == "yzx"


# ------------------------------------------------------------------ pelvis and foot progression
PELVIS_POSES = ((25.0, 0.0, 0.0), (0.0, 15.0, 0.0), (0.0, 0.0, 40.0), (25.0, 15.0, 40.0), (-10.0, -15.0, -40.0),
                (25.0, -15.0, 40.0), (15.0, 15.0, -40.0))  # (tilt, obliquity, rotation) deg


def _pelvis_pose_trial(cal, tilt, obliquity, rotation, F=20):
    """A trial holding one pelvis pose (Plug-in Gait's Y-X-Z angles) while travelling straight along +X."""
    pose = dict(STATIC, pelvis_tilt=tilt, pelvis_obliquity=obliquity, pelvis_rotation=rotation)
    t = np.arange(F) / 50.0
    m, centres = place(pose, np.c_[1.2 * t, np.zeros(F), np.full(F, 0.95)])
    return track(_table(m, t), cal), centres


def test_pelvis_is_plug_in_gait_s_tilt_obliquity_rotation(pig):
    """Large pelvis angles, alone and combined (rotation 40, obliquity 15, tilt 25 deg), posed by Plug-in Gait's
    Y-X-Z sequence relative to the direction of progression, come back to 1e-6 deg; Baker's rotation-first
    Z-X-Y order (the other marker sets') gives other numbers for the combined poses (the test can fail)."""
    cal = pig[0]
    baker = cal.model.replace(conventions=cal.model.conventions.replace(clinical_sequences={
        k: v for k, v in cal.model.conventions.clinical_sequences.items() if k != "pelvis"}))
    worst = 0.0
    for tilt, obliquity, rotation in PELVIS_POSES:
        tr, _ = _pelvis_pose_trial(cal, tilt, obliquity, rotation)
        assert np.abs(np.diff(tr.coords["lower_torso_y"])).max() < 1e-12  # straight along +X: heading 0
        cl = clinical_angles(cal.model, tr.coords, cal)
        for name, want in (("tilt", tilt), ("obliquity", obliquity), ("rotation", rotation)):
            np.testing.assert_allclose(cl[f"pelvis_{name}_deg"], want, atol=1e-6, err_msg=f"{name} {tilt, obliquity, rotation}")
        other = clinical_angles(baker, tr.coords, cal)
        worst = max(worst, float(np.abs(other[["pelvis_tilt_deg", "pelvis_obliquity_deg", "pelvis_rotation_deg"]]
                                        .to_numpy() - [tilt, obliquity, rotation]).max()))
    assert worst > 5.0
    assert cal.model.conventions.clinical_sequences["pelvis"] == "yxz"


def test_left_pelvis_angles_are_the_side_s_own_sense(pig):
    """LPelvisAngles (the C3D export, the normative comparison, the GPS) in the left side's own sense: left
    side up and left side forward positive, from the same Y-X-Z decomposition (Plug-in Gait's left pelvis)."""
    from scipy.spatial.transform import Rotation

    from humanbody.export import PIG_OUTPUTS
    from humanbody.gait.gps import SIDE_SENSE

    cal = pig[0]
    left = next(comps for group, label, comps in PIG_OUTPUTS if label == "LPelvisAngles")
    for tilt, obliquity, rotation in PELVIS_POSES:
        tr, centres = _pelvis_pose_trial(cal, tilt, obliquity, rotation, F=10)
        cl = clinical_angles(cal.model, tr.coords, cal)
        a = np.degrees(Rotation.from_matrix(centres["pelvis"]).as_euler("YXZ"))  # progression = ground +X
        # +x lifts the left side; the left side goes forward when the pelvis turns to the right (-z)
        own = {"tilt": a[:, 0], "obliquity": a[:, 1], "rotation": -a[:, 2]}
        for (column, factor), (word, want) in zip(left, own.items(), strict=True):
            np.testing.assert_allclose(factor * cl[column], want, atol=1e-6, err_msg=word)
            sense = SIDE_SENSE.get(f"pelvis_{word}_deg", {"left": 1.0})["left"]
            np.testing.assert_allclose(sense * cl[f"pelvis_{word}_deg"], want, atol=1e-6, err_msg=word)


def _pig_foot_long_axis(static_c, c, side, heading):
    """Plug-in Gait's foot long axis (unit, toe-wards) in the progression frame: the uncorrected foot (ankle
    centre -> toe with the knee's shank frame's y) of each frame turned by the static offset U0^T A0."""
    U0, A0 = static_c[f"{side}_foot_uncorrected"][0], static_c[f"{side}_foot_anatomical"][0]
    foot = c[f"{side}_foot_uncorrected"] @ (U0.T @ A0)
    return np.einsum("fij,fj->fi", _rz_many(-heading), foot[:, :, 0])


def test_foot_progression_is_plug_in_gait_s(pig):
    """Plug-in Gait's foot progression: the foot's Y-X-Z angles in its own axes (long axis z, toe to heel)
    relative to the direction of progression, the one about the floating axis: arcsin of the foot's unit long
    axis's component towards the left, internal (toes in) positive on both sides.  With the foot pitched
    (this motion's ankles, knees and hips) it differs from the angle of the long axis's floor projection."""
    cal, tr, _, centres, static_c = pig
    cl = clinical_angles(cal.model, tr.coords, cal)
    heading = np.zeros(len(tr.coords))  # Plug-in Gait's progression: the lab's +X for this trial
    floor_gap = 0.0
    for side, _, s in SIDES:
        long_axis = _pig_foot_long_axis(static_c, centres, side, heading)
        want = s * np.degrees(np.arcsin(long_axis[:, 1]))
        np.testing.assert_allclose(cl[f"{side}_foot_progression_deg"], want, atol=1e-6, err_msg=side)
        floor = s * np.degrees(np.arctan2(long_axis[:, 1], long_axis[:, 0]))
        floor_gap = max(floor_gap, float(np.nanmax(np.abs(floor - want))))
    assert floor_gap > 1.0
    model = cal.model.replace(conventions=cal.model.conventions.replace(clinical_sequences={
        k: v for k, v in cal.model.conventions.clinical_sequences.items() if k != "foot_progression"}))
    other = clinical_angles(model, tr.coords, cal)  # the floor angle (other marker sets)
    for side, _, s in SIDES:
        long_axis = _pig_foot_long_axis(static_c, centres, side, heading)
        steep = np.abs(long_axis[:, 2]) > np.sin(np.radians(80.0))
        floor = s * np.degrees(np.arctan2(long_axis[:, 1], long_axis[:, 0]))
        np.testing.assert_allclose(other[f"{side}_foot_progression_deg"][~steep], floor[~steep], atol=1e-6)


def test_pelvis_and_foot_progression_continuous_through_a_turn(pig):
    """The subject walks along +X, turns round on a semicircle and walks back: the pelvis angles follow the
    direction of progression (Plug-in Gait's Y-X-Z relative to it, exact to 1e-6 deg), stay continuous and
    within +-180, and keep the pelvis's own angles relative to the walk (within a few degrees where the
    heading's window lies on a straight or on the arc).  This is the other marker sets' progression (the
    travel over a second) with Plug-in Gait's decompositions; Plug-in Gait's own (one lab axis per trial) is
    tested in tests/mechanics/test_progression_frame.py."""
    from humanbody.mechanics.clinical import progression_heading

    cal = pig[0]
    travel_model = cal.model.replace(conventions=cal.model.conventions.replace(progression_frame=None))
    dt, v, radius = 0.02, 1.2, 1.0
    t = np.arange(0.0, 1.0 + np.pi * radius / v + 1.0, dt)
    s_path = v * t
    a = np.clip((s_path - 1.2) / radius, 0.0, np.pi)  # the turn's angle swept
    straight_back = np.maximum(s_path - 1.2 - np.pi * radius, 0.0)
    x = np.minimum(s_path, 1.2) + radius * np.sin(a) - straight_back
    y = radius * (1.0 - np.cos(a))
    F = len(t)
    travel = a  # the walking direction (rad about Z): 0, turning to pi
    rel = {"pelvis_tilt": 12 + 4 * np.sin(2 * np.pi * t), "pelvis_obliquity": 5 * np.sin(2 * np.pi * t + 0.3),
           "pelvis_rotation": 8 * np.sin(2 * np.pi * t + 1.0)}
    pose = {k: np.full(F, v) for k, v in STATIC.items()}
    pose.update(rel)
    m, centres = place(pose, np.c_[np.zeros(F), np.zeros(F), np.full(F, 0.95)])
    # turn the whole body by the walking direction about the vertical through mid-ASIS and carry it along
    Rt = _rz_many(travel)
    path = np.c_[x, y, np.zeros(F)]
    m = {k: np.einsum("fij,fj->fi", Rt, p) + path for k, p in m.items()}
    tr = track(_table(m, t), cal)
    cl = clinical_angles(travel_model, tr.coords, cal)
    heading = np.degrees(progression_heading(tr.coords["time"], tr.coords[["lower_torso_x", "lower_torso_y"]]))
    assert heading[0] == pytest.approx(0.0, abs=4.0) and heading[-1] == pytest.approx(180.0, abs=4.0)
    want = pelvis_from_progression(Rt @ centres["pelvis"], heading)
    # where the heading's one-second window lies on one straight or on the arc, the heading is the walking
    # direction (a centred chord of a circle is parallel to its tangent) up to the pelvis origin's sway
    steady = np.minimum(np.abs(t - 1.0), np.abs(t - 1.0 - np.pi * radius / v)) > 0.5
    for name in rel:
        np.testing.assert_allclose(cl[f"{name}_deg"], want[name], atol=1e-6, err_msg=name)
        assert np.abs(cl[f"{name}_deg"] - rel[name])[steady].max() < 6.0, name  # relative to the walk
        assert np.abs(np.diff(cl[f"{name}_deg"])).max() < 3.0, name
    for side, _, _ in SIDES:
        fp = cl[f"{side}_foot_progression_deg"]
        assert np.isfinite(fp).all() and np.abs(np.diff(fp)).max() < 3.0 and np.abs(fp).max() < 30.0


def test_foot_flat_with_sole_delta():
    """Foot flat: the static foot's heel at the toe's height plus the sole delta; the motion's ankle angles
    are Plug-in Gait's with that static foot, exact.  Without foot flat the heel marker itself is used."""
    sub = Subject(**{**SUBJECT.measured(), "right_sole_delta": 0.012, "left_sole_delta": -0.004,
                     "foot_flat": True})
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    flat_c = dict(static_c)
    for side, S, _ in SIDES:
        heel = static_m[f"{S}HEE"].copy()
        heel[:, 2] = static_m[f"{S}TOE"][:, 2] + sub.side("sole_delta", side)
        np.testing.assert_allclose(cal.points[f"{side}_heel_static"], heel[0], atol=1e-12)
        flat_c[f"{side}_foot_anatomical"] = _frame_xy(static_m[f"{S}TOE"] - heel,
                                                      static_c[f"{side}_shank_ankle"][:, :, 1])
    ang, origin, t = _motion(80)
    m, centres = place(ang, origin)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    plain = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78,
                      subject=Subject(**{**sub.measured(), "foot_flat": False}))
    cl_plain = clinical_angles(plain.model, track(_table(m, t), plain).coords, plain)
    for side, _, sg in SIDES:
        want = plug_in_gait_ankle(flat_c, centres, side, sg)
        for name, v in want.items():
            np.testing.assert_allclose(cl[f"{name}_deg"], v, atol=1e-6, err_msg=name)
        other = plug_in_gait_ankle(static_c, centres, side, sg)
        np.testing.assert_allclose(cl_plain[f"{side}_ankle_dorsiflexion_deg"], other[f"{side}_ankle_dorsiflexion"],
                                   atol=1e-6)
        assert np.abs(cl[f"{side}_ankle_dorsiflexion_deg"] - cl_plain[f"{side}_ankle_dorsiflexion_deg"]).max() > 1.0


def test_foot_flat_from_a_toml_subject(tmp_path):
    from humanbody.io.subject import read_subject

    (tmp_path / "s.toml").write_text("mass = 70.0\nright_sole_delta = 0.01\nfoot_flat = true\n")
    sub = read_subject(tmp_path / "s.toml")
    assert sub.foot_flat is True and sub.right_sole_delta == pytest.approx(0.01)
    (tmp_path / "b.toml").write_text("mass = 70.0\nfoot_flat = 1\n")
    with pytest.raises(hb.InputError, match="foot_flat = 1 must be true or false"):
        read_subject(tmp_path / "b.toml")


# ------------------------------------------------------------------ tibial torsion: knee and ankle split
def test_tibial_torsion_splits_knee_and_ankle_rotation():
    """Tibial torsion t as Vicon writes it (mirrored): the shank's ankle-axis (TIB-plane) frame is the knee's
    shank frame turned by s t about the tibia's long axis, Ra = Rs Rz(s t) (s = +1 right, -1 left; pyCGM2's
    CGM1.0 "proximal shank" is Ra Rz(-offset) with offset = +t on the right and -t on the left).  The knee is
    measured to Rs, the ankle from Ra: a foot square to the knee's shank reads ankle rotation -t on either
    side, the knee none; in motion both are as Plug-in Gait builds them.  (Turning both sides by the same
    Rz(-t) put a Workstation trial's left knee rotation off by twice its torsion, and the shared Nexus
    trial's by -22.6 deg: tests/integration/test_vicon_outputs.py.)"""
    sub = Subject(**{**SUBJECT.measured(), "right_tibial_torsion": np.radians(20.0),
                     "left_tibial_torsion": np.radians(-15.0)})
    pose = dict(STATIC, right_ankle_dorsiflexion=0.0, left_ankle_dorsiflexion=0.0)  # foot square to the knee's shank
    F0 = 3
    static_m, static_c = place(pose, np.tile([0.0, 0.0, 0.95], (F0, 1)), subject=sub)
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    ang, origin, t = _motion(60)
    for side, _, _ in SIDES:  # the foot square to the ankle axis: placed rotation = the torsion (about the knee's shank)
        ang[f"{side}_ankle_internal_rotation"] = np.zeros_like(t)
    m, centres = place(ang, origin, subject=sub)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    for side, _, sg in SIDES:
        np.testing.assert_allclose(cl[f"{side}_knee_internal_rotation_deg"], ang[f"{side}_knee_internal_rotation"],
                                   atol=1e-6)
        want = plug_in_gait_ankle(static_c, centres, side, sg)
        np.testing.assert_allclose(cl[f"{side}_ankle_internal_rotation_deg"], want[f"{side}_ankle_internal_rotation"],
                                   atol=1e-6)
    # standing with the foot square to the knee's shank: relative to the ankle axis the foot is turned by minus
    # s * torsion about the vertical, Rz(s t)^T, read as internal rotation -torsion, and the knee reads none
    st = clinical_angles(cal.model, track(_table(static_m, np.arange(F0) / 100), cal).coords, cal)
    torsion = {"right": 20.0, "left": -15.0}
    for side, _, _ in SIDES:
        # the placed foot is square to the knee's shank (rotation 0 there): relative to the ankle axis it is
        # turned by minus s * torsion about z, read as internal rotation -s * (s * torsion) = -torsion
        np.testing.assert_allclose(st[f"{side}_ankle_internal_rotation_deg"], -torsion[side], atol=1e-6)
        np.testing.assert_allclose(st[f"{side}_knee_internal_rotation_deg"], 0.0, atol=1e-6)


def test_medial_markers_in_the_static_give_the_joint_axes():
    """Medial knee and ankle markers (KNM, MMA) in the static trial, wands out of the joints' planes, tibial
    torsion as measured: the epicondylar and malleolar axes give the knee and ankle centres' planes, and the
    motion trial (no medial markers) gives the placed knee angles and Plug-in Gait's ankle angles exactly."""
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)), thi=THI_OFF, tib=TIB_OFF)
    with_medial = dict(static_m)
    for side, S, _ in SIDES:
        with_medial[f"{S}KNM"] = 2 * static_c[f"{side}_knee"] - static_m[f"{S}KNE"]
        with_medial[f"{S}MMA"] = 2 * static_c[f"{side}_ankle"] - static_m[f"{S}ANK"]
    cal = calibrate(_table(with_medial, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78,
                    subject=SUBJECT)
    for side, _, _ in SIDES:
        for joint in ("knee", "ankle"):
            np.testing.assert_allclose(cal.points[f"{side}_{joint}"], static_c[f"{side}_{joint}"][0], atol=1e-12)
    ang, origin, t = _motion(100)
    m, centres = place(ang, origin, thi=THI_OFF, tib=TIB_OFF)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c, centres, side, sg))
        for j in JOINTS:
            np.testing.assert_allclose(cl[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)


# ------------------------------------------------------------------ upper body joint centres
def _upper_geometry(markers_mm: dict, seeded_mm: dict, **params):
    """The plug_in_gait set's point rules on one frame of markers (mm in, m inside), some points seeded."""
    from humanbody.markers.markerset import load_markerset
    from humanbody.markers.rules import Geometry

    ms = load_markerset("plug_in_gait")
    p = dict(ms.parameters, marker_radius=0.007, **params)
    geo = Geometry(ms, {k: np.asarray(v, float)[None] / 1000 for k, v in markers_mm.items()}, p)
    geo._points.update({k: np.asarray(v, float)[None] / 1000 for k, v in seeded_mm.items()})
    return geo


def test_shoulder_centre_is_plug_in_gait_s():
    """The shoulder centre of pyCGM's documented example (findwandmarker, findshoulderJC; shoulder offset
    40 mm, 14 mm markers): thorax origin, its x axis and RSHO/LSHO give the published wand directions, and
    the published wands the published centres to 0.01 mm (the example's inputs are rounded to 0.01 mm)."""
    O = np.array([256.14, 364.30, 1459.65])
    x_tip = np.array([256.23, 365.30, 1459.66])
    geo = _upper_geometry({"RSHO": [428.88, 270.55, 1500.73], "LSHO": [68.24, 269.01, 1510.10]},
                          {"thorax_origin": O, "thorax_x_tip": O + (x_tip - O) / np.linalg.norm(x_tip - O)},
                          right_shoulder_offset=0.040, left_shoulder_offset=0.040)
    # the wands: unit vectors from the origin (pyCGM's are 1 mm long, printed to 0.01 mm)
    for side, want in (("right", [255.92, 364.32, 1460.62]), ("left", [256.42, 364.27, 1460.61])):
        got = geo.point(f"{side}_shoulder_wand")[0] - O / 1000
        np.testing.assert_allclose(got / np.linalg.norm(got), np.array(want) - O, atol=0.02)
    # the centres from the example's own (rounded) wands, as findshoulderJC takes them
    geo = _upper_geometry({"RSHO": [428.88, 270.55, 1500.73], "LSHO": [68.24, 269.01, 1510.10]},
                          {"thorax_origin": O, "right_shoulder_wand": [255.92, 364.32, 1460.62],
                           "left_shoulder_wand": [256.42, 364.27, 1460.61]},
                          right_shoulder_offset=0.040, left_shoulder_offset=0.040)
    np.testing.assert_allclose(geo.point("right_shoulder")[0] * 1000, [429.51, 274.77, 1453.92], atol=0.01)
    np.testing.assert_allclose(geo.point("left_shoulder")[0] * 1000, [64.49, 274.99, 1463.63], atol=0.01)


def test_elbow_centre_is_plug_in_gait_s():
    """The elbow centres of pyCGM's documented example (elbowJointCenter; elbow width 74 mm, 14 mm markers)."""
    geo = _upper_geometry({"RELB": [658.90, 326.07, 1285.28], "LELB": [-156.32, 335.25, 1287.39],
                           "RWRA": [776.51, 495.68, 1108.38], "RWRB": [830.90, 436.75, 1119.11],
                           "LWRA": [-249.28, 525.32, 1117.09], "LWRB": [-311.77, 477.22, 1125.16]},
                          {"right_shoulder": [429.66, 275.06, 1453.95], "left_shoulder": [64.51, 274.93, 1463.63]},
                          right_elbow_width=0.074, left_elbow_width=0.074)
    np.testing.assert_allclose(geo.point("right_elbow")[0] * 1000, [633.66, 304.95, 1256.07], atol=0.05)
    np.testing.assert_allclose(geo.point("left_elbow")[0] * 1000, [-129.16, 316.86, 1258.06], atol=0.05)


def test_wrist_and_hand_centres_are_plug_in_gait_s():
    """pyCGM's documented examples: wrist centres (elbowJointCenter, wrist width 55 mm) from the same
    markers and shoulder centres; hand centres (handJointCenter, hand thickness 34 mm) from the published
    wrist centres."""
    arm = {"RELB": [658.90, 326.07, 1285.28], "LELB": [-156.32, 335.25, 1287.39],
           "RWRA": [776.51, 495.68, 1108.38], "RWRB": [830.90, 436.75, 1119.11],
           "LWRA": [-249.28, 525.32, 1117.09], "LWRB": [-311.77, 477.22, 1125.16],
           "RFIN": [863.71, 524.44, 1074.54], "LFIN": [-326.65, 558.34, 1091.04]}
    geo = _upper_geometry(arm, {"right_shoulder": [429.66, 275.06, 1453.95], "left_shoulder": [64.51, 274.93, 1463.63]},
                          right_elbow_width=0.074, left_elbow_width=0.074, right_wrist_width=0.055,
                          left_wrist_width=0.055)
    np.testing.assert_allclose(geo.point("right_wrist")[0] * 1000, [793.32, 451.29, 1084.43], atol=0.05)
    np.testing.assert_allclose(geo.point("left_wrist")[0] * 1000, [-272.46, 485.79, 1091.37], atol=0.05)
    geo = _upper_geometry(arm, {"right_wrist": [793.32, 451.29, 1084.43], "left_wrist": [-272.45, 485.80, 1091.36]},
                          right_hand_thickness=0.034, left_hand_thickness=0.034)
    np.testing.assert_allclose(geo.point("right_hand_centre")[0] * 1000, [859.80, 517.27, 1051.97], atol=0.01)
    np.testing.assert_allclose(geo.point("left_hand_centre")[0] * 1000, [-324.52, 551.89, 1068.02], atol=0.01)


# ------------------------------------------------------------------ upper-body angles
# Plug-in Gait's upper body placed from known segment frames (ground, m), every frame frame-exact:
# thorax (z from (T10+STRN)/2 to (C7+CLAV)/2, x back to front), head (x from the back to the front pair, y from
# the right to the left pair, turned by the static "head level" offset), humerus (z elbow -> shoulder centre, x
# towards the wrist centre), radius (z wrist -> elbow centre, y the humerus's), hand (z hand centre -> wrist
# centre, y across the wrist bar).  The joint centres are those of Plug-in Gait's constructions (chord
# function, wrist offset), solved here for the marker positions.
UPPER_SUBJECT = Subject(**{**SUBJECT.measured(), "right_shoulder_offset": 0.045, "left_shoulder_offset": 0.050,
                           "right_elbow_width": 0.090, "left_elbow_width": 0.091, "right_wrist_width": 0.055,
                           "left_wrist_width": 0.056, "right_hand_thickness": 0.030, "left_hand_thickness": 0.028})
ARM = {"upper": 0.30, "fore": 0.26, "hand": 0.075, "bar": 0.06}


def _rot(axis, deg):
    """(F, 3, 3) rotations about a frame axis ('x', 'y', 'z') by ``deg`` (degrees, (F,))."""
    from scipy.spatial.transform import Rotation

    return Rotation.from_euler(axis, np.radians(np.asarray(deg, float)).reshape(-1, 1)).as_matrix()


def _chord(a, b, c, delta):
    """Chord function (Plug-in Gait): in the plane (a, b, c), the point J with |J - c| = delta, J - c normal
    to J - b, on the other side of the line c -> b from a.  (F, 3) each."""
    u = b - c
    L = np.linalg.norm(u, axis=-1, keepdims=True)
    u = u / L
    w = a - c
    w = w - np.sum(w * u, axis=-1, keepdims=True) * u
    w = w / np.linalg.norm(w, axis=-1, keepdims=True)
    return c + delta**2 / L * u - np.sqrt(delta**2 - delta**4 / L**2) * w


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _elbow_marker(ejc, sjc, wri, Hu, de, s):
    """One frame's ELB: at distance ``de`` from EJC, normal to the humerus ``Hu`` (3, 3), in the chord's plane."""
    from scipy.optimize import brentq

    def off(phi):
        return ejc + de * (np.cos(phi) * -s * Hu[:, 1] + np.sin(phi) * Hu[:, 0])

    def plane(phi):
        e = off(phi)
        n = np.cross(wri - e, sjc - e) * s
        return float((ejc - e) @ _unit(np.cross(sjc - e, n)))

    grid = np.linspace(-np.pi, np.pi, 121)
    vals = np.array([plane(g) for g in grid])
    k = np.flatnonzero(np.sign(vals[:-1]) != np.sign(vals[1:]))
    k = k[np.argmin(np.abs(grid[k]))]  # the root nearest the lateral direction
    return off(brentq(plane, grid[k], grid[k + 1], xtol=1e-15))


def place_upper(ang: dict, pelvis_origin, Rp, subject=UPPER_SUBJECT, head_pitch=8.0):
    """Upper-body markers and frames from Plug-in Gait's upper-body angles (deg, arrays (F,)).

    ``ang``: ``thorax_tilt/obliquity/rotation`` (Y-X-Z relative to ground x, the direction of progression),
    ``neck_flexion/lateral_flexion/rotation`` (the thorax in the head decomposes Y-X-Z into minus them),
    per side ``s_shoulder_flexion/adduction/internal_rotation`` (X-Y-Z: s add, -flex, s rot),
    ``s_elbow_flexion``, ``s_wrist_flexion/adduction/internal_rotation`` (Y-X-Z: -flex, s add, s rot).
    The head markers' own frame is the head's turned by ``head_pitch`` about y (a level static head
    recovers it).  Returns (markers, frames, centres).
    """
    F = len(pelvis_origin)
    r = subject.marker_diameter / 2
    at = lambda R, O, v: O + np.einsum("fij,j->fi", R, np.asarray(v, float))  # noqa: E731
    T = _rot("y", ang["thorax_tilt"]) @ _rot("x", -ang["thorax_obliquity"]) @ _rot("z", ang["thorax_rotation"])
    base = at(Rp, pelvis_origin, (-0.05, 0.0, 0.30))
    m = {"T10": at(T, base, (-0.12, 0, 0)), "STRN": at(T, base, (0.08, 0, 0)),
         "C7": at(T, base, (-0.10, 0, 0.25)), "CLAV": at(T, base, (0.06, 0, 0.25))}
    O = at(T, base, (0.06 - r, 0, 0.25))  # Plug-in Gait's thorax origin: CLAV moved back by the marker radius
    H = T @ _rot("z", ang["neck_rotation"]) @ _rot("x", ang["neck_lateral_flexion"]) @ _rot("y", ang["neck_flexion"])
    M = H @ _rot("y", np.full(F, head_pitch))
    top = at(T, base, (-0.02, 0, 0.42))
    for name, v in (("RFHD", (0.08, -0.07, 0.12)), ("LFHD", (0.08, 0.07, 0.12)), ("RBHD", (-0.10, -0.07, 0.12)),
                    ("LBHD", (-0.10, 0.07, 0.12))):
        m[name] = at(M, top, v)
    frames = {"thorax": T, "head": H}
    centres = {}
    for side, S, s in SIDES:
        Hu = T @ _rot("x", s * ang[f"{side}_shoulder_adduction"]) @ _rot("y", -ang[f"{side}_shoulder_flexion"]) \
            @ _rot("z", s * ang[f"{side}_shoulder_internal_rotation"])
        Fa = Hu @ _rot("y", -ang[f"{side}_elbow_flexion"])
        Hd = Fa @ _rot("y", -ang[f"{side}_wrist_flexion"]) @ _rot("x", s * ang[f"{side}_wrist_adduction"]) \
            @ _rot("z", s * ang[f"{side}_wrist_internal_rotation"])
        # shoulder: SJC in the thorax's frontal plane through O, SHO above it, normal to O - SJC
        sjc = at(T, O, (0.0, -s * 0.17, -0.04))
        ds = subject.side("shoulder_offset", side) + r
        m[f"{S}SHO"] = at(T, sjc, ds * _unit(np.array([0.0, -s * 0.04, 0.17])))
        ejc = at(Hu, sjc, (0, 0, -ARM["upper"]))
        wjc = at(Fa, ejc, (0, 0, -ARM["fore"]))
        ho = at(Hd, wjc, (0, 0, -ARM["hand"]))
        # wrist bar along the hand's y; its midpoint WRI = WJC - dw v with v normal to the bar and to EJC - WRI
        dw = subject.side("wrist_width", side) / 2 + r
        E = np.einsum("fji,fj->fi", Hd, ejc - wjc)
        rho, phi0 = np.hypot(E[:, 0], E[:, 2]), np.arctan2(E[:, 2], E[:, 0])
        mu = phi0 - np.arccos(-dw / rho)
        v = np.einsum("fij,fj->fi", Hd, np.c_[np.cos(mu), np.zeros(F), np.sin(mu)])
        wri = wjc - dw * v
        half = 0.5 * ARM["bar"] * Hd[:, :, 1]
        m[f"{S}WRA"], m[f"{S}WRB"] = (wri - half, wri + half) if s > 0 else (wri + half, wri - half)
        # elbow: ELB at elbow width / 2 + r from EJC, normal to the humerus, in the chord's plane
        de = subject.side("elbow_width", side) / 2 + r
        elb = np.empty((F, 3))
        for f in range(F):
            elb[f] = _elbow_marker(ejc[f], sjc[f], wri[f], Hu[f], de, s)
        m[f"{S}ELB"] = elb
        dh = subject.side("hand_thickness", side) / 2 + r
        m[f"{S}FIN"] = ho - dh * Hd[:, :, 0]
        frames.update({f"{side}_humerus": Hu, f"{side}_radius": Fa, f"{side}_hand": Hd})
        centres.update({f"{side}_shoulder": sjc, f"{side}_elbow": ejc, f"{side}_wrist": wjc,
                        f"{side}_hand_centre": ho, f"{side}_thorax_origin": O})
    return m, frames, centres


UPPER_STATIC = {"thorax_tilt": 0.0, "thorax_obliquity": 0.0, "thorax_rotation": 0.0, "neck_flexion": 0.0,
                "neck_lateral_flexion": 6.0, "neck_rotation": 0.0,  # the static head rolled (kept, as Nexus)
                **{f"{side}_{j}": v for side, _, _ in SIDES for j, v in (
                    ("shoulder_flexion", 10.0), ("shoulder_adduction", -8.0), ("shoulder_internal_rotation", 5.0),
                    ("elbow_flexion", 35.0), ("wrist_flexion", 0.0), ("wrist_adduction", 0.0),
                    ("wrist_internal_rotation", 0.0))}}


def _upper_motion(F=181):
    """Arms overhead: right shoulder flexed to 170 deg, left abducted to 90 deg, elbows 40-140 deg, wrists +-60,
    neck +-40, thorax tilting and turning; the pelvis travels along +X (the direction of progression)."""
    u = np.linspace(0.0, 1.0, F)
    w = np.sin(np.pi * u)
    ang = {"thorax_tilt": 10 + 15 * np.sin(2 * np.pi * u), "thorax_obliquity": 8 * np.sin(3 * np.pi * u),
           "thorax_rotation": 20 * np.sin(2 * np.pi * u + 0.5), "neck_flexion": 40 * np.sin(2 * np.pi * u),
           "neck_lateral_flexion": 15 * np.sin(3 * np.pi * u + 0.2), "neck_rotation": 40 * np.sin(np.pi * u + 0.3),
           "right_shoulder_flexion": 5 + 165 * w, "right_shoulder_adduction": -10 + 8 * np.sin(3 * np.pi * u),
           "right_shoulder_internal_rotation": 20 * np.sin(2 * np.pi * u),
           "left_shoulder_flexion": 10 + 5 * np.sin(2 * np.pi * u), "left_shoulder_adduction": -90 * w,
           "left_shoulder_internal_rotation": -15 + 25 * np.sin(2 * np.pi * u + 1.0)}
    for side, _, s in SIDES:
        ph = 0.0 if s > 0 else 0.9
        ang.update({f"{side}_elbow_flexion": 40 + 100 * np.sin(np.pi * u + ph / 4) ** 2,
                    f"{side}_wrist_flexion": 60 * np.sin(2 * np.pi * u + ph),
                    f"{side}_wrist_adduction": 15 * np.sin(3 * np.pi * u + ph),
                    f"{side}_wrist_internal_rotation": 30 * np.sin(np.pi * u + ph)})
    return ang, u * 2.0


def _with_upper(lower: dict, upper: dict) -> dict:
    out = {k: v for k, v in lower.items() if k not in UPPER}
    out.update(upper)
    return out


def _upper_static(F0=4) -> dict:
    """The whole-body static trial's markers (legs and pelvis as STATIC, upper body as UPPER_STATIC)."""
    origin0 = np.tile([0.0, 0.0, 0.95], (F0, 1))
    lower0, _ = place(dict(STATIC), origin0, subject=UPPER_SUBJECT)
    Rp0 = euler_to_matrix(np.tile([0.0, 0.0, np.radians(STATIC["pelvis_tilt"])], (F0, 1)), "zxy")
    up0, _, _ = place_upper({k: np.full(F0, v) for k, v in UPPER_STATIC.items()}, origin0, Rp0)
    return _with_upper(lower0, up0)


@pytest.fixture(scope="module")
def pig_upper():
    F0 = 4
    cal = calibrate(_table(_upper_static(F0), np.arange(F0) / 100), "plug_in_gait", mass=70.0,
                    height=1.78, subject=UPPER_SUBJECT)
    markers, ang, t, frames, centres, Rp = _upper_trial()
    tr = track(_table(markers, t), cal)
    return cal, tr, ang, frames, centres, Rp, markers


def _upper_trial(F=181):
    """The upper-body motion's markers (legs as STATIC, the pelvis tilting, travelling along +X)."""
    ang, t = _upper_motion(F)
    F = len(t)
    pel = {k: (np.full(F, v) if not k.startswith("pelvis") else None) for k, v in STATIC.items()}
    pel.update({"pelvis_tilt": 10 + 6 * np.sin(2 * np.pi * t), "pelvis_obliquity": np.zeros(F),
                "pelvis_rotation": np.zeros(F)})
    origin = np.c_[1.2 * t, np.zeros(F), np.full(F, 0.95)]
    lower, _ = place(pel, origin, subject=UPPER_SUBJECT)
    Rp = euler_to_matrix(np.c_[np.zeros(F), np.zeros(F), np.radians(pel["pelvis_tilt"])], "zxy")
    up, frames, centres = place_upper(ang, origin, Rp)
    return _with_upper(lower, up), ang, t, frames, centres, Rp


def test_upper_body_joint_centres_and_frames_are_plug_in_gait_s(pig_upper):
    """The placed joint centres come back as the model's joints; the segment frames as placed."""
    from humanbody.markers.rules import Geometry

    cal, tr, _, frames, centres, _, markers = pig_upper
    names = list(cal.model.names)
    geo = Geometry(cal.markerset, markers, cal.parameters)
    for name, want in centres.items():
        point = "thorax_origin" if name.endswith("thorax_origin") else name
        np.testing.assert_allclose(geo.point(point), want, atol=1e-9, err_msg=name)
    for side, _, _ in SIDES:
        for seg, f in (("upper_arm", "humerus"), ("lower_arm", "radius"), ("hand", "hand")):
            np.testing.assert_allclose(tr.R[:, names.index(f"{side}_{seg}")], frames[f"{side}_{f}"], atol=1e-9,
                                       err_msg=f"{side}_{seg}")
    np.testing.assert_allclose(tr.R[:, names.index("upper_torso")], frames["thorax"], atol=1e-9)
    np.testing.assert_allclose(tr.R[:, names.index("head")], frames["head"], atol=1e-9)


def test_upper_body_angles_over_the_range_exact(pig_upper):
    """Shoulder flexion to 170 deg and abduction to 90, elbows to 140, wrists +-60, neck +-40, the spine and
    the thorax and head relative to the progression: Plug-in Gait's angles to 1e-6 deg, continuous overhead."""
    from scipy.spatial.transform import Rotation

    cal, tr, ang, frames, _, Rp, _ = pig_upper
    cl = clinical_angles(cal.model, tr.coords, cal)
    yxz = lambda R: np.degrees(Rotation.from_matrix(R).as_euler("YXZ"))  # noqa: E731  intrinsic Y, X', Z''
    want = {f"{side}_{j}": ang[f"{side}_{j}"] for side, _, _ in SIDES for j in (
        "shoulder_flexion", "shoulder_adduction", "shoulder_internal_rotation", "elbow_flexion", "wrist_flexion",
        "wrist_adduction", "wrist_internal_rotation")}
    want.update({f"{side}_elbow_{j}": 0.0 for side, _, _ in SIDES for j in ("adduction", "internal_rotation")})
    # the thorax relative to the progression (ground +X here), Y-X-Z
    want.update({"thorax_tilt": ang["thorax_tilt"], "thorax_obliquity": ang["thorax_obliquity"],
                 "thorax_progression_rotation": ang["thorax_rotation"]})
    h = yxz(frames["head"])
    want.update({"head_tilt": h[:, 0], "head_obliquity": -h[:, 1], "head_rotation": h[:, 2]})
    # neck: the thorax in the head decomposes Y-X-Z into minus the placed angles (Plug-in Gait's order)
    S_neck = np.einsum("fji,fjk->fik", frames["head"], frames["thorax"])
    np.testing.assert_allclose(yxz(S_neck), -np.c_[ang["neck_flexion"], ang["neck_lateral_flexion"],
                                                     ang["neck_rotation"]], atol=1e-9)
    want.update({f"neck_{j}": ang[f"neck_{j}"] for j in ("flexion", "lateral_flexion", "rotation")})
    # spine: the pelvis in the thorax, Y-X-Z, each angle negated
    sp = yxz(np.einsum("fji,fjk->fik", frames["thorax"], Rp))
    want.update({"thorax_flexion": -sp[:, 0], "thorax_lateral_flexion": -sp[:, 1], "thorax_rotation": -sp[:, 2]})
    assert np.abs(tr.coords["lower_torso_y"]).max() < 1e-12  # the progression is ground +X exactly
    for name, v in want.items():
        np.testing.assert_allclose(cl[f"{name}_deg"], np.broadcast_to(v, len(cl)), atol=1e-6, err_msg=name)
    assert cl["right_shoulder_flexion_deg"].max() > 169.9 and cl["left_shoulder_adduction_deg"].min() < -89.9
    assert cl["right_elbow_flexion_deg"].max() > 139.9 and np.abs(cl["right_wrist_flexion_deg"]).max() > 59.9
    for side, _, _ in SIDES:  # continuous with the arms overhead (1 deg of motion per frame at most here)
        for j in ("flexion", "adduction", "internal_rotation"):
            assert np.abs(np.diff(cl[f"{side}_shoulder_{j}_deg"])).max() < 5.0


def test_shoulder_order_is_plug_in_gait_s_not_the_joint_coordinate_system_s(pig_upper):
    """X-Y-Z at the shoulder: flexion-first (Y-X-Z) gives other numbers for this motion (the test can fail)."""
    cal, tr, ang, _, _, _, _ = pig_upper
    seqs = {k: v for k, v in cal.model.conventions.clinical_sequences.items() if k != "shoulder"}
    jcs = clinical_angles(cal.model.replace(conventions=cal.model.conventions.replace(clinical_sequences=seqs)),
                          tr.coords, cal)
    assert np.abs(jcs["left_shoulder_flexion_deg"] - ang["left_shoulder_flexion"]).max() > 1.0


def test_decompositions_match_pycgm_documented_examples():
    """pyCGM's documented examples of its angle functions (one pair of axes, rows; validated against Nexus):
    getangle is our Y-X-Z of S = P D^T with its third angle printed as 90 - z; getangle_sho (shoulder) our
    X-Y-Z printed (y, x, z); getangle_spi (spine) our Z-X-Y printed (y, z, x), its y by arcsin (the same
    sine).  The example's axes are rounded to 8 digits, so they agree to about 1e-6 deg."""
    from humanbody.rotations import matrix_to_euler

    P = np.array([[0.0464229, 0.99648672, 0.06970743], [0.99734011, -0.04231089, -0.05935067],
                  [-0.05619277, 0.07227725, -0.99580037]])
    D = np.array([[-0.18067218, -0.98329158, -0.02225371], [0.71383942, -0.1155303, -0.69071415],
                  [0.67660243, -0.1406784, 0.7227854]])
    S = P @ D.T
    y, x, z = np.degrees(matrix_to_euler(S, "yxz"))
    np.testing.assert_allclose([y, x, 90.0 - z], [-175.65183483, -39.6322192, 100.2668477], atol=1e-6)
    x, y, z = np.degrees(matrix_to_euler(S, "xyz"))
    np.testing.assert_allclose([y, x, z], [-3.3474503, -140.28662977, 172.50982168], atol=1e-6)
    z, x, y = np.degrees(matrix_to_euler(S, "zxy"))
    np.testing.assert_allclose([z, x], [9.7438295, 39.74341087], atol=1e-6)
    np.testing.assert_allclose(np.sin(np.radians(y)), np.sin(np.radians(2.8891964)), atol=1e-8)


# ------------------------------------------------------------------ VSK thigh and shank rotation offsets
def _pig_offset(wand, proximal, marker, centre, s):
    """Plug-in Gait's wand rotation offset (deg): about the segment axis at the joint centre, from the lateral
    joint marker to the wand, negative for a wand turned forwards on both sides (pyCGM2's getThighOffset)."""
    a = _unit(proximal - centre)
    m = marker - centre
    m = m - np.sum(m * a, axis=-1, keepdims=True) * a
    w = wand - centre
    w = w - np.sum(w * a, axis=-1, keepdims=True) * a
    return -s * np.degrees(np.arctan2(np.sum(a * np.cross(m, w), axis=-1), np.sum(m * w, axis=-1)))


def test_vsk_thigh_and_shank_rotation_give_the_true_angles(tmp_path):
    """Wands turned out of the joints' planes (forwards on the thigh, backwards on the shank), no KAD: the
    subject file's ThighRotation / ShankRotation (the wands' offsets as Plug-in Gait measures them) give
    the placed knee and ankle centres and angles exactly; without them the same wands give other angles."""
    from humanbody.io.subject import read_subject

    sub = Subject(**{**SUBJECT.measured(), "right_tibial_torsion": 0.0, "left_tibial_torsion": 0.0})
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)), thi=THI_OFF, tib=TIB_OFF, subject=sub)
    params = {"Bodymass": 70.0, "MarkerDiameter": 14.0}
    for side, S, s in SIDES:
        Side = side.capitalize()
        thigh = _pig_offset(static_m[f"{S}THI"], static_c[f"{side}_hip"], static_m[f"{S}KNE"],
                            static_c[f"{side}_knee"], s)[0]
        shank = _pig_offset(static_m[f"{S}TIB"], static_c[f"{side}_knee"], static_m[f"{S}ANK"],
                            static_c[f"{side}_ankle"], s)[0]
        assert thigh < -5.0 and shank > 5.0  # THI turned forwards, TIB backwards: Plug-in Gait's signs
        params.update({f"{Side}ThighRotation": float(thigh), f"{Side}ShankRotation": float(shank),
                       f"{Side}LegLength": 1000 * sub.side("leg_length", side),
                       f"{Side}KneeWidth": 1000 * sub.side("knee_width", side),
                       f"{Side}AnkleWidth": 1000 * sub.side("ankle_width", side), f"{Side}TibialTorsion": 0.0})
    (tmp_path / "s.vsk").write_text("<KinematicModel><Parameters>" + "".join(
        f'<Parameter NAME="{k}" VALUE="{v!r}"/>' for k, v in params.items()) + "</Parameters></KinematicModel>")
    vsk = read_subject(tmp_path / "s.vsk")
    np.testing.assert_allclose(np.degrees(vsk.right_thigh_rotation), params["RightThighRotation"], rtol=1e-12)
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=vsk)
    for side, _, _ in SIDES:
        for joint in ("knee", "ankle"):
            np.testing.assert_allclose(cal.points[f"{side}_{joint}"], static_c[f"{side}_{joint}"][0], atol=1e-9)
    ang, origin, t = _motion(80)
    m, centres = place(ang, origin, thi=THI_OFF, tib=TIB_OFF, subject=sub)
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    _, static_c1 = place(STATIC, np.tile([0.0, 0.0, 0.95], (1, 1)), thi=THI_OFF, tib=TIB_OFF, subject=sub)
    ang = dict(ang)
    for side, _, sg in SIDES:
        ang.update(plug_in_gait_ankle(static_c1, centres, side, sg))
        for j in JOINTS:
            np.testing.assert_allclose(cl[f"{side}_{j}_deg"], ang[f"{side}_{j}"], atol=1e-6, err_msg=j)
    plain = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=sub)
    other = clinical_angles(plain.model, track(_table(m, t), plain).coords, plain)
    assert np.abs(other["right_knee_internal_rotation_deg"] - ang["right_knee_internal_rotation"]).max() > 1.0


def test_kad_static_measures_plug_in_gait_s_rotation_offsets():
    """With the KAD in the static trial the thigh and shank offsets the calibration reports are Plug-in
    Gait's (the angle above, measured on the placed geometry), so they can be written to a subject file."""
    sub = Subject(**{**SUBJECT.measured(), "right_tibial_torsion": 0.0, "left_tibial_torsion": 0.0})
    F0 = 3
    static_m, static_c = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)), thi=THI_OFF, tib=TIB_OFF, subject=sub)
    cal = calibrate(_table(_with_kad(static_m, static_c), np.arange(F0) / 100), "plug_in_gait", mass=70.0,
                    height=1.78, subject=sub)
    for side, S, s in SIDES:
        thigh = _pig_offset(static_m[f"{S}THI"], static_c[f"{side}_hip"], static_m[f"{S}KNE"],
                            static_c[f"{side}_knee"], s)[0]
        np.testing.assert_allclose(np.degrees(cal.parameters[f"{side}_thigh_rotation"]), thigh, atol=1e-9)


def test_upper_body_without_finger_markers_keeps_the_hand_in_line():
    """No FIN markers: the set still calibrates and tracks; the hand lies along the forearm (wrist flexion and
    deviation 0), the shoulders and elbows are unchanged."""
    F0 = 4
    origin0 = np.tile([0.0, 0.0, 0.95], (F0, 1))
    lower0, _ = place(dict(STATIC), origin0, subject=UPPER_SUBJECT)
    Rp0 = euler_to_matrix(np.tile([0.0, 0.0, np.radians(STATIC["pelvis_tilt"])], (F0, 1)), "zxy")
    up0, _, _ = place_upper({k: np.full(F0, v) for k, v in UPPER_STATIC.items()}, origin0, Rp0)
    m0 = {k: v for k, v in _with_upper(lower0, up0).items() if not k.endswith("FIN")}
    cal = calibrate(_table(m0, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=UPPER_SUBJECT)
    ang, t = _upper_motion(40)
    F = len(t)
    origin = np.c_[1.2 * t, np.zeros(F), np.full(F, 0.95)]
    lower, _ = place({k: np.full(F, v) for k, v in STATIC.items()}, origin, subject=UPPER_SUBJECT)
    Rp = euler_to_matrix(np.c_[np.zeros(F), np.zeros(F), np.full(F, np.radians(STATIC["pelvis_tilt"]))], "zxy")
    up, _, _ = place_upper(ang, origin, Rp)
    m = {k: v for k, v in _with_upper(lower, up).items() if not k.endswith("FIN")}
    cl = clinical_angles(cal.model, track(_table(m, t), cal).coords, cal)
    for side, _, _ in SIDES:
        np.testing.assert_allclose(cl[[f"{side}_wrist_flexion_deg", f"{side}_wrist_adduction_deg"]], 0.0, atol=1e-6)
        np.testing.assert_allclose(cl[f"{side}_elbow_flexion_deg"], ang[f"{side}_elbow_flexion"], atol=1e-6)
        np.testing.assert_allclose(cl[f"{side}_shoulder_flexion_deg"], ang[f"{side}_shoulder_flexion"], atol=1e-6)


def test_c3d_export_has_plug_in_gait_s_upper_body_angles(tmp_path):
    """``--export c3d`` of a Plug-in Gait trial with its upper body writes RThoraxAngles ... LWristAngles in
    POINT:ANGLES, each side in its own sense, and they read back as the placed angles."""
    ezc3d = pytest.importorskip("ezc3d")
    from humanbody.cli import main
    from humanbody.export import PIG_UPPER_OUTPUTS

    F0 = 4
    _write_csv(_upper_static(F0), np.arange(F0) / 100, tmp_path / "u_static.csv")
    markers, ang, t, _, _, _ = _upper_trial(61)
    _write_csv(markers, t, tmp_path / "u_walk.csv")
    (tmp_path / "u.toml").write_text("".join(f"{k} = {v!r}\n" for k, v in UPPER_SUBJECT.measured().items()))
    out = tmp_path / "out"
    assert main(["analyze", str(tmp_path / "u_walk.csv"), "--static", str(tmp_path / "u_static.csv"),
                 "--subject", str(tmp_path / "u.toml"), "--markerset", "plug_in_gait", "--axes", "x,y,z",
                 "--cutoff", "0", "--digits", "15", "--export", "c3d", "--out", str(out), "-q"]) == 0
    res = pd.read_csv(out / "u_walk_results.csv")
    c = ezc3d.c3d(str(out / "u_walk.c3d"))
    labels = [x.strip() for x in c["parameters"]["POINT"]["LABELS"]["value"]]
    angles = set(c["parameters"]["POINT"]["ANGLES"]["value"])
    pts = c["data"]["points"]
    assert len(PIG_UPPER_OUTPUTS) == 14
    for _, label, comps in PIG_UPPER_OUTPUTS:
        assert label in angles, label
        for axis, (col, factor) in enumerate(comps):
            np.testing.assert_allclose(pts[axis, labels.index(label)], factor * res[col], atol=1e-4,
                                       err_msg=f"{label} {axis}")

    def got(label, axis):
        return pts[axis, labels.index(label)]

    # the placed angles in Nexus's sense: the thorax as the pelvis (own side up, turned to the other side)
    np.testing.assert_allclose(got("RThoraxAngles", 0), ang["thorax_tilt"], atol=1e-4)
    np.testing.assert_allclose(got("LThoraxAngles", 1), -ang["thorax_obliquity"], atol=1e-4)
    np.testing.assert_allclose(got("LThoraxAngles", 2), -ang["thorax_rotation"], atol=1e-4)
    np.testing.assert_allclose(got("RNeckAngles", 2), -ang["neck_rotation"], atol=1e-4)  # turned to the right
    np.testing.assert_allclose(got("LNeckAngles", 1), -ang["neck_lateral_flexion"], atol=1e-4)  # bent left
    np.testing.assert_allclose(got("LShoulderAngles", 1), -ang["left_shoulder_adduction"], atol=1e-4)
    assert got("LShoulderAngles", 1).max() > 89.9  # abducted to 90 deg: abduction positive
    np.testing.assert_allclose(got("RElbowAngles", 0), ang["right_elbow_flexion"], atol=1e-4)


# ------------------------------------------------------------------ moments in Plug-in Gait's frame
@pytest.fixture(scope="module")
def pig_kinetics(tmp_path_factory):
    """The synthetic Plug-in Gait walk with a load under the right foot, analysed by the command line in the
    set's default moment frame and with --moment-frame jcs, each exported to C3D."""

    from humanbody.cli import main

    tmp = tmp_path_factory.mktemp("pig_kinetics")
    F0 = 5
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    _write_csv(static_m, np.arange(F0) / 100, tmp / "s01_static.csv")
    ang, origin, t = _motion(120)
    m, centres = place(ang, origin)
    _write_csv(m, t, tmp / "s01_walk.csv")
    tl = np.arange(0.0, t[-1] + 1e-9, 0.001)
    heel = np.array([np.interp(tl, t, m["RHEE"][:, j]) for j in range(3)]).T
    fz = 650.0 + 80.0 * np.sin(5 * tl)
    pd.DataFrame({"time": tl, "P_force_x": 0.08 * fz, "P_force_y": -0.03 * fz, "P_force_z": fz,
                  "P_point_x": heel[:, 0] + 0.08, "P_point_y": heel[:, 1], "P_point_z": 0.0 * tl,
                  "P_moment_x": 0.0 * tl, "P_moment_y": 0.0 * tl, "P_moment_z": 0.004 * fz}
                 ).to_csv(tmp / "loads.csv", index=False, float_format="%.17g")
    write_vsk(tmp / "s01.vsk")
    outs = {}
    for frame in (None, "jcs"):
        out = tmp / f"out_{frame}"
        args = ["analyze", str(tmp / "s01_walk.csv"), "--static", str(tmp / "s01_static.csv"), "--subject",
                str(tmp / "s01.vsk"), "--markerset", "plug_in_gait", "--axes", "x,y,z", "--cutoff", "0",
                "--forces", str(tmp / "loads.csv"), "--load", "P=right_foot", "--export", "c3d", "--digits", "15",
                "--out", str(out), "-q"] + (["--moment-frame", frame] if frame else [])
        assert main(args) == 0
        outs[frame] = out
    return outs


def test_plug_in_gait_moments_default_to_the_distal_frame(pig_kinetics):
    """The Plug-in Gait set's clinical moments are the distal segment's components (the thigh's for the hip,
    the shank's for the knee, the foot's for the ankle); model.json and the log name the frame; the C3D's
    RHipMoment ... are -1000 times them (N mm/kg, extensor, abductor, external rotator, plantarflexor
    positive) and stay so under --moment-frame jcs, whose results columns differ."""
    import ezc3d

    from humanbody.mechanics.moment_frames import distal_moments

    out = pig_kinetics[None]
    model = hb.load_model(out / "s01_walk_model.json")
    assert model.conventions.moment_frame == "distal" and model.conventions.progression_frame == "lab_axis"
    assert "moments: clinical moment columns (*_moment_Nm_per_kg) in the distal segment's frame" in \
        (out / "s01_walk_log.txt").read_text()
    res = pd.read_csv(out / "s01_walk_results.csv")
    distal = distal_moments(model, res)
    for col, v in distal.items():
        np.testing.assert_allclose(res[col], v, atol=1e-9, err_msg=col)
    jcs = pd.read_csv(pig_kinetics["jcs"] / "s01_walk_results.csv")
    assert hb.load_model(pig_kinetics["jcs"] / "s01_walk_model.json").conventions.moment_frame == "jcs"
    assert np.nanmax(np.abs(jcs["right_hip_adduction_moment_Nm_per_kg"] - res["right_hip_adduction_moment_Nm_per_kg"])) > 0.01
    np.testing.assert_allclose(jcs["right_knee_power_W_per_kg"], res["right_knee_power_W_per_kg"], atol=1e-9)
    for folder in pig_kinetics.values():
        c = ezc3d.c3d(str(folder / "s01_walk.c3d"))
        labels = [x.strip() for x in c["parameters"]["POINT"]["LABELS"]["value"]]
        pts = c["data"]["points"]
        for label, words, joint in (("RHipMoment", ("flexion", "adduction", "internal_rotation"), "hip"),
                                    ("RKneeMoment", ("flexion", "adduction", "internal_rotation"), "knee"),
                                    ("RAnkleMoment", ("dorsiflexion", "inversion", "internal_rotation"), "ankle")):
            for axis, w in enumerate(words):
                want = -1000.0 * res[f"right_{joint}_{w}_moment_Nm_per_kg"].to_numpy()
                np.testing.assert_allclose(pts[axis, labels.index(label)], want, rtol=1e-5,
                                           atol=1e-5 * np.abs(want).max(), err_msg=f"{folder.name} {label} {w}")
        np.testing.assert_allclose(pts[2, labels.index("RKneePower")], res["right_knee_power_W_per_kg"], rtol=1e-5,
                                   atol=1e-6)


def test_c3d_powers_are_nexus_s_z_components(pig_kinetics):
    """RHipPower, RKneePower, RAnklePower (and the left's) read back from the C3D export: the joint power in
    W/kg in the Z component, X and Y zero, as Nexus writes them; the same in either moment frame."""
    import ezc3d

    for folder in pig_kinetics.values():
        res = pd.read_csv(folder / "s01_walk_results.csv")
        c = ezc3d.c3d(str(folder / "s01_walk.c3d"))
        labels = [x.strip() for x in c["parameters"]["POINT"]["LABELS"]["value"]]
        assert "POWERS" in c["parameters"]["POINT"]
        pts = c["data"]["points"]
        for S, side in (("R", "right"), ("L", "left")):
            for joint in ("Hip", "Knee", "Ankle"):
                k = labels.index(f"{S}{joint}Power")
                want = res[f"{side}_{joint.lower()}_power_W_per_kg"].to_numpy()
                np.testing.assert_allclose(pts[2, k], want, rtol=1e-5, atol=1e-6, err_msg=f"{S}{joint}Power")
                ok = np.isfinite(pts[2, k])  # frames without a power (the unloaded left foot) are invalid points
                assert np.all(pts[:2, k][:, ok] == 0.0)
                assert side == "left" or ok.mean() > 0.9
        assert np.nanmax(np.abs(res["right_ankle_power_W_per_kg"])) > 0.1


# ------------------------------------------------------------------ Plug-in Gait's head offset (HeadOffset)
def test_head_offset_is_pycgm_s_published_example():
    """pyCGM's headJC (validated against Nexus) documents the head axes of four head markers with
    HeadOffset 0.2571990469310653 rad: ours, G Ry(offset) with G the markers' frame (x back to front, y right
    to left), gives its published axis points to 1e-8 mm."""
    from humanbody.markers.calibration import _subject_head_offset

    RFHD, LFHD = np.array([325.82983398, 402.55450439, 1722.49816895]), np.array([184.55158997, 409.68713379, 1721.34289551])
    RBHD, LBHD = np.array([304.39898682, 242.91339111, 1694.97497559]), np.array([197.8621521, 251.28889465, 1696.90197754])
    front, back = (LFHD + RFHD) / 2, (LBHD + RBHD) / 2
    x = (front - back) / np.linalg.norm(front - back)
    y = (LFHD + LBHD - RFHD - RBHD) / 2
    z = np.cross(x, y) / np.linalg.norm(np.cross(x, y))
    y = np.cross(z, x)
    G = np.c_[x, y, z][None]
    notes = []
    Ry, R = _subject_head_offset(G, 0.2571990469310653, np.eye(3), notes)
    published = [[255.21685583, 407.11593888, 1721.82538439], [254.19105385, 406.14680918, 1721.91767712],
                 [255.1903437, 406.21600904, 1722.91599129]]  # the x, y, z axes' tips (origin: the front pair)
    np.testing.assert_allclose(R[0].T + front, published, atol=1e-8)
    assert notes and "head offset 14.7 deg from the subject file" in notes[0]


@pytest.mark.parametrize("offset_deg", [-8.0, 0.0, 11.0])
def test_head_offset_from_the_subject_file_wins_over_the_level_static(offset_deg, tmp_path):
    """A subject file's HeadOffset (a .vsk writes radians) turns the head markers' frame M about its y axis in
    every frame, R = M Ry(offset), instead of the static trial's level head; -8 deg recovers the placed head
    here (the markers' frame is the head's pitched by 8 deg), 0 keeps the markers' own frame."""
    from humanbody.io.subject import read_subject

    vsk = tmp_path / "s.vsk"
    vsk.write_text(f'<KinematicModel><Parameters><Parameter NAME="HeadOffset" VALUE="{float(np.radians(offset_deg))!r}"/>'
                   '<Parameter NAME="Bodymass" VALUE="70"/></Parameters></KinematicModel>')
    assert read_subject(vsk).head_offset == pytest.approx(np.radians(offset_deg), abs=1e-15)
    subject = UPPER_SUBJECT.with_values(head_offset=np.radians(offset_deg))
    F0 = 4
    cal = calibrate(_table(_upper_static(F0), np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78,
                    subject=subject)
    assert any("head offset" in n for n in cal.notes)
    markers, ang, t, frames, centres, Rp = _upper_trial(41)
    tr = track(_table(markers, t), cal)
    R = tr.R[:, list(cal.model.names).index("head")]
    M = frames["head"] @ _rot("y", np.full(len(t), 8.0))  # the head markers' own frame (place_upper)
    np.testing.assert_allclose(R, M @ _rot("y", np.full(len(t), offset_deg)), atol=1e-9)


# ------------------------------------------------------------------ Plug-in Gait's foot offsets (StaticPlantFlex, StaticRotOff)
def test_foot_offsets_are_pycgm_s_published_example():
    """pyCGM's footJointCenter (validated against Nexus) documents both feet's axes for given ankle centres,
    flexion axes, toe markers and the subject's StaticPlantFlex / StaticRotOff (rad): our uncorrected foot
    turned by foot_offset_rotation, expressed in Plug-in Gait's foot axes, gives its published axis tips
    within 1e-6 mm (pyCGM rounds the offsets to 1e-5 deg)."""
    from humanbody.markers.plug_in_gait_rotation import _PIG_FOOT, foot_offset_rotation

    vsk = {"right": (0.2702417907002758, 0.015683497632642047), "left": (0.20251085737834015, 0.009402910292403012)}
    toe = {"right": [442.81997681, 381.62280273, 42.66047668], "left": [39.43652725, 382.44522095, 41.78911591]}
    ajc = {"right": [393.76181608, 247.67829633, 87.73775041], "left": [98.74901939, 219.46930221, 80.6306816]}
    flex = {"right": [393.07114384, 248.39110006, 87.61575574], "left": [97.79246671, 219.20927275, 80.76255901]}
    published = {"right": [[442.84624127, 381.6513024, 43.65972537], [441.87735057, 381.9563035, 42.67574106],
                           [442.48716163, 380.68048378, 42.69610043]],
                 "left": [[39.56652626, 382.50901001, 42.77857597], [38.49313328, 382.14606841, 41.93234851],
                          [39.74166341, 381.4931502, 41.81040459]]}
    for side in ("right", "left"):
        T, A, Fx = (np.array(d[side]) for d in (toe, ajc, flex))
        x = (T - A) / np.linalg.norm(T - A)
        y = (Fx - A) - ((Fx - A) @ x) * x
        y /= np.linalg.norm(y)
        U = np.c_[x, y, np.cross(x, y)]
        foot = U @ foot_offset_rotation(*vsk[side], side) @ _PIG_FOOT.T  # in Plug-in Gait's axes
        np.testing.assert_allclose(foot.T + T, published[side], atol=1e-6, err_msg=side)
    assert not np.allclose(foot_offset_rotation(0.2, 0.05, "right"), foot_offset_rotation(0.2, 0.05, "left"))


def test_foot_offsets_from_the_subject_file_win_over_the_static(tmp_path):
    """A .vsk's StaticPlantFlex and StaticRotOff (rad) turn the tracked uncorrected foot (ankle centre to toe,
    the ankle's axis) by them in every frame, instead of the static trial's heel-to-toe foot."""
    from humanbody.io.subject import read_subject
    from humanbody.markers.plug_in_gait_rotation import foot_offset_rotation

    offsets = {"right": (0.21, -0.04), "left": (0.15, 0.07)}
    vsk = tmp_path / "s.vsk"
    vsk.write_text("<KinematicModel><Parameters>" + "".join(
        f'<Parameter NAME="{S}StaticPlantFlex" VALUE="{offsets[side][0]!r}"/>'
        f'<Parameter NAME="{S}StaticRotOff" VALUE="{offsets[side][1]!r}"/>' for side, S in (("right", "Right"),
                                                                                 ("left", "Left")))
        + '<Parameter NAME="Bodymass" VALUE="70"/></Parameters></KinematicModel>')
    read = read_subject(vsk)
    assert (read.right_static_plantar_flexion, read.left_static_rotation_offset) == (0.21, 0.07)
    subject = SUBJECT.with_values(**{f"{side}_static_{w}": offsets[side][i] for side in offsets
                                     for i, w in enumerate(("plantar_flexion", "rotation_offset"))})
    F0 = 5
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    cal = calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=70.0, height=1.78, subject=subject)
    assert sum("foot offsets from the subject file" in n for n in cal.notes) == 2
    ang, origin, t = _motion(60)
    m, centres = place(ang, origin)
    tr = track(_table(m, t), cal)
    for side, _, _ in SIDES:
        R = tr.R[:, list(cal.model.names).index(f"{side}_foot")]
        want = centres[f"{side}_foot_uncorrected"] @ foot_offset_rotation(*offsets[side], side)
        np.testing.assert_allclose(R, want, atol=1e-9, err_msg=side)


def test_plug_in_gait_sets_filter_no_marker_by_default_other_sets_at_cutoff_hz():
    """The marker filter's default is the set's: none for the Plug-in Gait sets (Plug-in Gait computes from
    the markers as stored), CUTOFF_HZ for the others; a cut-off given (or 'auto') wins for every set."""
    from humanbody.analysis import marker_cutoff
    from humanbody.markers.markerset import builtin_markersets, load_markerset
    from humanbody.options import MARKERSET_CUTOFF, AnalysisOptions
    from humanbody.signal import CUTOFF_HZ

    assert AnalysisOptions().cutoff_hz == MARKERSET_CUTOFF
    sets = builtin_markersets()
    assert {"plug_in_gait", "plug_in_gait_lower", "gait2392", "coco17"} <= set(sets)
    for name, path in sets.items():
        mset = load_markerset(path)
        own = None if name in ("plug_in_gait", "plug_in_gait_lower") else CUTOFF_HZ
        assert marker_cutoff(MARKERSET_CUTOFF, mset) == own, name
        assert marker_cutoff(8.0, mset) == 8.0 and marker_cutoff("auto", mset) == "auto"

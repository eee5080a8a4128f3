"""``humanbody markerset init``: marker sets drafted from standing trials of labs that spell markers differently.

The subject is the sample model (data/make_sample_markers.py): every marker
is fixed in one segment of the default model, so the segment each marker
rides on is known, and the walk of data/sample_walk.csv is the motion the
tracked angles must give back.  Each made-up lab renames (and drops or adds)
markers in its own style; the drafted set must map every marker to the
segment it is on and track the walk to the true angles.  The shared walk,
renamed in another lab's style, must give the built-in gait2392 set's
clinical angles.
"""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK, needs_shared

import humanbody as hb
from humanbody import InputError
from humanbody.analysis import analyze_trial
from humanbody.cli import main
from humanbody.lab.vocabulary import read_name
from humanbody.markers.markerset import load_markerset
from humanbody.tools.markerset import draft_from_file

DATA = Path(__file__).resolve().parents[2] / "data"
SHARED = WALK
from tests.integration.test_sample_data import LEGS, msm  # noqa: E402  (the sample-marker script, loaded once)


# ----------------------------------------------------------------- labs
def _sides(template: dict) -> dict:
    """Expand ``{S}``/``{s}``/``{Side}`` templates into the right and left names."""
    out = {}
    for g, lab in template.items():
        if "{" not in g:
            out[g] = lab
            continue
        for S, s, side, Side in (("R", "r", "right", "Right"), ("L", "l", "left", "Left")):
            out[g.format(S=S)] = lab.format(S=S, s=s, side=side, Side=Side)
    return out


#: Vicon Plug-in Gait-like: glued side letters, lateral knee/ankle only (also in the walk), two
#: foot markers whose names the vocabulary does not know (placed by their neighbourhood).
PIG = _sides({
    "R.ASIS": "RASI", "L.ASIS": "LASI", "V.Sacral": "SACR",
    "{S}.Thigh.Upper": "{S}THI", "{S}.Thigh.Front": "{S}TH2", "{S}.Thigh.Rear": "{S}TH3",
    "{S}.Knee.Lat": "{S}KNE", "{S}.Shank.Upper": "{S}TIB", "{S}.Shank.Front": "{S}TIB2", "{S}.Shank.Rear": "{S}TIB3",
    "{S}.Ankle.Lat": "{S}ANK", "{S}.Heel": "{S}HEE", "{S}.Toe.Tip": "{S}TOE", "{S}.Toe.Lat": "{S}MT5",
    "{S}.Toe.Med": "{S}MT1", "{S}.Midfoot.Sup": "{S}MFS", "{S}.Midfoot.Lat": "{S}QZX",
    "Sternum": "STRN", "{S}.Acromium": "{S}SHO", "{S}.Bicep": "{S}UPA", "{S}.Elbow": "{S}ELB",
    "{S}.Wrist.Med": "{S}WRB", "{S}.Wrist.Lat": "{S}WRA", "{S}.Temple": "{S}FHD", "Top.Head": "HeadTop",
})
#: Words and sides spelled out, PSIS pair instead of a sacral marker.
SPELLED = _sides({
    "{S}.ASIS": "{Side}_ASIS", "{S}.PSIS": "{Side}_PSIS",
    "{S}.Thigh.Upper": "{Side}_Thigh_Upper", "{S}.Thigh.Front": "{Side}_Thigh_Front",
    "{S}.Thigh.Rear": "{Side}_Thigh_Rear", "{S}.Knee.Lat": "{Side}_Knee_Lateral",
    "{S}.Knee.Med": "{Side}_Knee_Medial", "{S}.Shank.Upper": "{Side}_Shank_Upper",
    "{S}.Shank.Front": "{Side}_Shank_Front", "{S}.Shank.Rear": "{Side}_Shank_Rear",
    "{S}.Ankle.Lat": "{Side}_Ankle_Lateral", "{S}.Ankle.Med": "{Side}_Ankle_Medial",
    "{S}.Heel": "{Side}_Heel", "{S}.Midfoot.Sup": "{Side}_Midfoot_Superior", "{S}.Toe.Tip": "{Side}_Toe",
    "{S}.Toe.Lat": "{Side}_Toe_Lateral", "Sternum": "Sternum", "{S}.Acromium": "{Side}_Shoulder",
    "{S}.Bicep": "{Side}_Biceps", "{S}.Elbow": "{Side}_Elbow", "{S}.Wrist.Med": "{Side}_Wrist_Medial",
    "{S}.Wrist.Lat": "{Side}_Wrist_Lateral", "{S}.Temple": "{Side}_Temple", "Top.Head": "Head_Top",
})
#: Bone names with numbered markers, anatomical terms, an epicondyle that is an elbow by its height.
BONES = _sides({
    "R.ASIS": "r_asis", "L.ASIS": "l_asis", "V.Sacral": "S2",
    "{S}.Thigh.Upper": "{s}_femur_1", "{S}.Thigh.Front": "{s}_femur_2", "{S}.Thigh.Rear": "{s}_femur_3",
    "{S}.Knee.Lat": "{s}_epicondyle_lat", "{S}.Knee.Med": "{s}_epicondyle_med",
    "{S}.Shank.Upper": "{s}_tibia_1", "{S}.Shank.Front": "{s}_tibia_2", "{S}.Shank.Rear": "{s}_tibia_3",
    "{S}.Ankle.Lat": "{s}_malleolus_lat", "{S}.Ankle.Med": "{s}_malleolus_med",
    "{S}.Heel": "{s}_calcaneus", "{S}.Midfoot.Sup": "{s}_navicular", "{S}.Midfoot.Lat": "{s}_cuboid",
    "{S}.Toe.Tip": "{s}_hallux", "{S}.Toe.Lat": "{s}_mt5", "{S}.Toe.Med": "{s}_mt1",
    "Sternum": "xiphoid", "{S}.Acromium": "{s}_acromion", "{S}.Bicep": "{s}_humerus",
    "{S}.Elbow": "{s}_epicondyle_hum", "{S}.Wrist.Med": "{s}_styloid_ulnar", "{S}.Wrist.Lat": "{s}_styloid_radial",
    "{S}.Temple": "{s}_temple", "Top.Head": "vertex",
})
#: Lower case with the side as a suffix.
SUFFIX = _sides({
    "{S}.ASIS": "asis_{s}", "V.Sacral": "sacral",
    "{S}.Thigh.Upper": "thigh_sup_{s}", "{S}.Thigh.Front": "thigh_ant_{s}", "{S}.Thigh.Rear": "thigh_post_{s}",
    "{S}.Knee.Lat": "knee_lat_{s}", "{S}.Knee.Med": "knee_med_{s}", "{S}.Shank.Upper": "shank_sup_{s}",
    "{S}.Shank.Front": "shank_ant_{s}", "{S}.Shank.Rear": "shank_post_{s}",
    "{S}.Ankle.Lat": "ankle_lat_{s}", "{S}.Ankle.Med": "ankle_med_{s}", "{S}.Heel": "heel_{s}",
    "{S}.Midfoot.Sup": "midfoot_sup_{s}", "{S}.Midfoot.Lat": "midfoot_lat_{s}", "{S}.Toe.Tip": "toe_{s}",
    "{S}.Toe.Lat": "toe_lat_{s}", "{S}.Toe.Med": "toe_med_{s}", "Sternum": "sternum",
    "{S}.Acromium": "shoulder_{s}", "{S}.Bicep": "biceps_{s}", "{S}.Elbow": "elbow_{s}",
    "{S}.Wrist.Med": "wrist_med_{s}", "{S}.Wrist.Lat": "wrist_lat_{s}", "{S}.Temple": "temple_{s}",
    "Top.Head": "head_top",
})
#: Plug-in Gait full body: C7/T10/CLAV/STRN thorax, four head markers, medial knee and ankle markers
#: (KNEM, ANKM) in the standing trial only, forearm, back and finger markers.
PIG_FULL = _sides({
    "R.ASIS": "RASI", "L.ASIS": "LASI", "{S}.PSIS": "{S}PSI",
    "{S}.Thigh.Upper": "{S}THI", "{S}.Thigh.Front": "{S}THI2", "{S}.Knee.Lat": "{S}KNE", "{S}.Knee.Med": "{S}KNEM",
    "{S}.Shank.Upper": "{S}TIB", "{S}.Shank.Rear": "{S}TIB2", "{S}.Ankle.Lat": "{S}ANK", "{S}.Ankle.Med": "{S}ANKM",
    "{S}.Heel": "{S}HEE", "{S}.Toe.Tip": "{S}TOE", "{S}.Toe.Lat": "{S}MT5",
    "C7": "C7", "T10": "T10", "CLAV": "CLAV", "Sternum": "STRN", "RBAK": "RBAK", "{S}.Acromium": "{S}SHO",
    "{S}.Bicep": "{S}UPA", "{S}.Elbow": "{S}ELB", "{S}.Forearm": "{S}FRA", "{S}.Wrist.Med": "{S}WRB",
    "{S}.Wrist.Lat": "{S}WRA", "{S}.Finger": "{S}FIN", "{S}.Temple": "{S}FHD", "{S}.BackHead": "{S}BHD",
})
#: Markers only in the standing trial, per lab (the others are in the walk too).
STATIC_ONLY = {"pig": (), "spelled": msm.STATIC_ONLY, "bones": msm.STATIC_ONLY, "suffix": msm.STATIC_ONLY,
               "pig_full": ("R.Knee.Med", "L.Knee.Med", "R.Ankle.Med", "L.Ankle.Med")}
LABS = {"pig": PIG, "spelled": SPELLED, "bones": BONES, "suffix": SUFFIX, "pig_full": PIG_FULL}


@pytest.fixture(scope="module")
def model():
    return hb.BodyModel.default(mass=75.0, height=1.75)


@pytest.fixture(scope="module")
def layout(model):
    """The gait2392 layout plus Plug-in Gait's extra markers.

    A PSIS pair either side of the sacral marker (same mid-point, so the
    same hip centres); C7, T10 and CLAV placed so that Plug-in Gait's thorax
    frame is parallel to ground in the standing pose, as the other frames;
    back-of-head markers behind the temples; a forearm, a finger and an
    asymmetric back marker.
    """
    lay = dict(msm.marker_layout(model))
    seg, sacral = lay["V.Sacral"]
    lay["R.PSIS"] = (seg, sacral + [0.0, -0.045, 0.0])
    lay["L.PSIS"] = (seg, sacral + [0.0, 0.045, 0.0])
    seg, sternum = lay["Sternum"]
    neck = model.joint_offset[model.names.index("neck")]  # lower neck from the thorax origin
    lay["T10"] = (seg, sternum * [-1.0, 1.0, 1.0])
    lay["C7"] = (seg, neck + [-0.08, 0.0, 0.0])
    lay["CLAV"] = (seg, neck + [0.08, 0.0, 0.0])
    lay["RBAK"] = (seg, sternum * [-1.0, 1.0, 1.5] + [0.0, -0.08, 0.0])
    for s, side in (("R", "right"), ("L", "left")):
        seg, temple = lay[f"{s}.Temple"]
        lay[f"{s}.BackHead"] = (seg, temple * [-1.0, 1.0, 1.0])
        Lw = model.segment_meta[model.names.index(f"{side}_lower_arm")]["length"]
        lay[f"{s}.Forearm"] = (f"{side}_lower_arm", np.array([0.0, (-1.0 if s == "R" else 1.0) * 0.03, -0.5 * Lw]))
        lay[f"{s}.Finger"] = (f"{side}_hand", np.array([0.0, 0.0, -0.08]))
    return lay


@pytest.fixture(scope="module")
def reference():
    return pd.read_csv(DATA / "sample_walk.csv").iloc[:200].reset_index(drop=True)


@pytest.fixture(scope="module")
def trials(model, layout, reference):
    """Noise-free standing trial and walk of the sample subject, gait2392 names (m, ground)."""
    t_static, static = msm.static_trial(model, layout, seconds=0.3)
    t_walk, walk = msm.walk_trial(model, layout, reference)
    return (t_static, static), (t_walk, walk)


def _write(tmp_path, trials, lab: str, rename=None):
    """The lab's standing and walking TRC files (OpenSim axes, mm); ``rename`` relabels afterwards."""
    names = LABS[lab]
    (ts, st), (tw, wk) = trials
    relabel = lambda n: (rename or {}).get(names[n], names[n])  # noqa: E731
    static = {relabel(n): st[n] for n in names}
    walk = {relabel(n): wk[n] for n in names if n not in STATIC_ONLY[lab]}
    sp, wp = tmp_path / f"{lab}_static.trc", tmp_path / f"{lab}_walk.trc"
    msm.write_trc(sp, ts, static, 100.0)
    msm.write_trc(wp, tw, walk, 100.0)
    return sp, wp


def _init(static, out, *extra):
    return main(["markerset", "init", str(static), "--out", str(out), *extra])


def _rms_deg(a, b):
    return float(np.degrees(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2))))


# ----------------------------------------------------------------- names
@pytest.mark.parametrize("name, role, side, mods", [
    ("RKNE", "knee", "right", set()), ("LKNEM", "knee", "left", {"medial"}), ("L_KNM", "knee", "left", {"medial"}),
    ("R.Knee.Lat", "knee", "right", {"lateral"}), ("Right_Knee_Lateral", "knee", "right", {"lateral"}),
    ("RightKneeLateral", "knee", "right", {"lateral"}), ("knee_lat_r", "knee", "right", {"lateral"}),
    ("r_femur_1", "thigh", "right", set()), ("LTHI", "thigh", "left", set()), ("RTH1", "thigh", "right", set()),
    ("L-SH", "shank", "left", set()), ("rTib", "shank", "right", set()), ("Left Malleolus Medial", "ankle", "left", {"medial"}),
    ("LHEE", "heel", "left", set()), ("calcaneus_r", "heel", "right", set()), ("RMT5", "mt5", "right", set()),
    ("l_MT1", "mt1", "left", set()), ("V.Sacral", "sacrum", None, set()), ("S2", "sacrum", None, set()),
    ("RPSI", "psis", "right", set()), ("C7", "c7", None, set()), ("T10", "t10", None, set()),
    ("CLAV", "clavicle", None, set()), ("STRN", "sternum", None, set()), ("R.Acromium", "acromion", "right", set()),
    ("LSHO", "acromion", "left", set()), ("RELB", "elbow", "right", set()), ("LWRA", "wrist", "left", {"lateral"}),
    ("r_forearm", "forearm", "right", set()), ("RBiceps", "upper_arm", "right", set()),
    ("Top.Head", "head", None, {"top"}), ("LFHD", "head", "left", {"front"}), ("temple_r", "head", "right", set()),
    ("Sub01:RASI", "asis", "right", set()), ("r_epicondyle_lat", "epicondyle", "right", {"lateral"}),
    ("KNEER", "knee", "right", set()), ("HeelL", "heel", "left", set()), ("asis-l", "asis", "left", set()),
    ("R Ankle Med", "ankle", "right", {"medial"}), ("femur", "thigh", None, set()), ("*152", None, None, set()),
    ("LMMA", "ankle", "left", {"medial"}),
])
def test_vocabulary_reads_lab_spellings(name, role, side, mods):
    r = read_name(name)
    assert (r.role, r.side) == (role, side)
    assert mods <= set(r.modifiers)


# ----------------------------------------------------------------- drafted sets on the model
@pytest.mark.parametrize("lab", sorted(LABS))
def test_drafted_set_maps_every_marker_and_tracks_the_true_angles(lab, tmp_path, trials, layout, reference):
    static, walk = _write(tmp_path, trials, lab)
    out = tmp_path / f"{lab}.toml"
    extra = []
    if lab == "pig":  # lateral markers only: the centres are exact with the subject's joint widths
        model = hb.BodyModel.default(mass=75.0, height=1.75)
        Lt, Ls = (model.segment_meta[model.names.index(s)]["length"] for s in ("right_upper_leg", "right_lower_leg"))
        extra = ["--knee-width", f"{0.24 * Lt:.6f}", "--ankle-width", f"{0.16 * Ls:.6f}", "--marker-radius", "0"]
    assert _init(static, out, *extra) == 0
    draft, _ = draft_from_file(static, **({} if lab != "pig" else dict(
        knee_width=float(extra[1]), ankle_width=float(extra[3]), marker_radius=0.0)))
    assert draft.text == out.read_text()
    truth = {LABS[lab][g]: seg for g, (seg, _) in layout.items() if g in LABS[lab]}
    got = {m.name: m.segment for m in draft.markers}
    assert got == truth  # every marker on the segment it rides on
    ms = load_markerset(out)
    assert set(ms.required) <= {LABS[lab][g] for g in LABS[lab] if g not in STATIC_ONLY[lab]}
    for m in draft.markers:  # lateral/medial of the joint markers as placed
        g = next(k for k, v in LABS[lab].items() if v == m.name)
        if ".Knee." in g or ".Ankle." in g:
            assert ("lateral" if g.endswith("Lat") else "medial") in m.modifiers, m.name
    guessed = {m.name for m in draft.markers if m.how == "position"}
    assert guessed == ({"RMFS", "LMFS", "RQZX", "LQZX"} if lab == "pig" else set())
    for name in guessed:  # every guess is marked in the file
        line = next(ln for ln in draft.text.splitlines() if ln.startswith(f"#   {name} "))
        assert "CHECK: name not recognised" in line and "_foot" in line

    an = analyze_trial(walk, static=static, markerset=out, mass=75.0, cutoff_hz=None)
    assert an.calibration.markerset.name == f"{lab}_static"
    for seg in LEGS + ["lower_torso"]:
        for q in ("alpha", "beta", "gamma"):
            col = f"{seg}_{q}"
            assert _rms_deg(an.coords[col], reference[col]) < 0.05, col
    for seg in ("right_upper_arm", "left_lower_arm", "head"):  # (the trunk's slerp rule is not the sample's trunk)
        col = f"{seg}_alpha"
        assert _rms_deg(an.coords[col], reference[col]) < 0.05, col
    if lab != "pig_full":  # (no top-of-head marker there: height from the head markers + 0.12 m)
        assert an.calibration.height == pytest.approx(1.75, abs=0.01)


def test_lower_body_set_estimates_the_upper_body_and_the_height_from_the_hips(tmp_path, trials, reference, capsys):
    """Pelvis and legs only: trunk, head and arms ride rigidly, placed by the default model; legs exact; the
    height from the hip centres (0.530 of it, Drillis and Contini; humanbody.markers.height_landmarks)."""
    lower = {g: n for g, n in SUFFIX.items() if not any(k in g for k in ("Sternum", "Acromium", "Bicep", "Elbow",
                                                                          "Wrist", "Temple", "Top.Head"))}
    (ts, st), (tw, wk) = trials
    msm.write_trc(tmp_path / "low_static.trc", ts, {n: st[g] for g, n in lower.items()}, 100.0)
    msm.write_trc(tmp_path / "low_walk.trc", tw, {n: wk[g] for g, n in lower.items() if g not in msm.STATIC_ONLY},
                  100.0)
    assert _init(tmp_path / "low_static.trc", tmp_path / "low.toml", "--height", "1.75") == 0
    err = capsys.readouterr().err
    assert "--height M" not in err.splitlines()[-1] and "give --height when analysing" not in err
    ms = load_markerset(tmp_path / "low.toml")
    assert {s: ms.segments[s].rule for s in ("upper_torso", "head", "right_upper_arm", "left_hand")} == {
        "upper_torso": "rigid", "head": "rigid", "right_upper_arm": "rigid", "left_hand": "rigid"}
    estimated = analyze_trial(tmp_path / "low_walk.trc", static=tmp_path / "low_static.trc",
                              markerset=tmp_path / "low.toml", mass=75.0)
    line = next(m for m in estimated.calibration.notes if m.startswith("height estimated from markers"))
    assert "no head markers: mid_hip at 0.53" in line and estimated.calibration.height == pytest.approx(1.75, rel=0.03)
    an = analyze_trial(tmp_path / "low_walk.trc", static=tmp_path / "low_static.trc", markerset=tmp_path / "low.toml",
                       mass=75.0, height=1.75, cutoff_hz=None)
    for seg in LEGS + ["lower_torso"]:
        for q in ("alpha", "beta", "gamma"):
            assert _rms_deg(an.coords[f"{seg}_{q}"], reference[f"{seg}_{q}"]) < 0.05
    # joints with no marker are the default model's for the height given (arms hanging), to the 0.1 mm written
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    for seg in ("upper_torso", "neck", "right_upper_arm", "left_lower_arm", "right_hand"):
        k = model.names.index(seg)
        np.testing.assert_allclose(an.calibration.model.joint_offset[k], model.joint_offset[k], atol=1e-4, err_msg=seg)


def test_side_labels_contradicted_by_position_are_caught(tmp_path, trials, reference):
    """The lab swapped the two upper-thigh labels in both trials: the draft follows the positions."""
    swap = {"thigh_sup_r": "thigh_sup_l", "thigh_sup_l": "thigh_sup_r"}
    static, walk = _write(tmp_path, trials, "suffix", rename=swap)
    draft, _ = draft_from_file(static)
    seg = {m.name: m.segment for m in draft.markers}
    assert seg["thigh_sup_l"] == "right_upper_leg" and seg["thigh_sup_r"] == "left_upper_leg"
    assert any("named left but it is on the subject's right" in line for line in draft.text.splitlines())
    note = {m.name: m.notes for m in draft.markers}
    assert any("taken as right" in n for n in note["thigh_sup_l"])
    out = tmp_path / "swapped.toml"
    out.write_text(draft.text)
    an = analyze_trial(walk, static=static, markerset=out, mass=75.0, cutoff_hz=None)
    for col in ("right_upper_leg_alpha", "left_upper_leg_beta"):
        assert _rms_deg(an.coords[col], reference[col]) < 0.05


def test_lateral_and_medial_names_contradicted_by_position_are_swapped(tmp_path, trials):
    swap = {"knee_lat_r": "knee_med_r", "knee_med_r": "knee_lat_r"}
    static, _ = _write(tmp_path, trials, "suffix", rename=swap)
    draft, _ = draft_from_file(static)
    mods = {m.name: m.modifiers for m in draft.markers}
    assert "lateral" in mods["knee_med_r"] and "medial" in mods["knee_lat_r"]
    assert any("named medial but it is the lateral one" in n for m in draft.markers for n in m.notes)


def test_a_name_pointing_at_the_wrong_body_part_is_left_out(tmp_path, trials):
    """A 'knee' name on a marker at shank height... at hip height is not a knee."""
    static, _ = _write(tmp_path, trials, "suffix", rename={"thigh_sup_r": "knee_extra_r"})
    draft, _ = draft_from_file(static)
    m = next(m for m in draft.markers if m.name == "knee_extra_r")
    assert not m.used and "of standing height" in m.notes[0]
    assert "knee_extra_r" in draft.text and "left out" in draft.text


def test_summary_is_a_screenful_and_verbose_lists_every_marker(tmp_path, trials, capsys):
    static, _ = _write(tmp_path, trials, "bones")
    assert _init(static, tmp_path / "b.toml") == 0
    err = capsys.readouterr().err.splitlines()
    assert 5 < len(err) <= 25
    assert err[-1].startswith(f"wrote {tmp_path / 'b.toml'}")
    assert any(line.startswith(f"mapped {len(BONES)} of {len(BONES)} markers") for line in err)
    assert _init(static, tmp_path / "c.toml", "-v") == 0
    assert len(capsys.readouterr().err.splitlines()) == len(err) + len(BONES) + 1


# ----------------------------------------------------------------- bad input
def _one_error_line(capsys, status):
    assert status == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("humanbody markerset: error: "), err
    return err[0]


def test_bad_input_is_one_line_and_exit_2(tmp_path, trials, capsys):
    line = _one_error_line(capsys, _init(tmp_path / "nope.trc", tmp_path / "x.toml"))
    assert "nope.trc" in line
    static, _ = _write(tmp_path, trials, "suffix")  # (a walk: tests/tools/test_markerset_from_walk.py)
    (ts, st), _ = trials
    legs_only = {n: st[g] for g, n in SUFFIX.items() if "Thigh" in g or "Shank" in g or "Heel" in g}
    msm.write_trc(tmp_path / "few.trc", ts, legs_only, 100.0)
    line = _one_error_line(capsys, _init(tmp_path / "few.trc", tmp_path / "x.toml", "--axes", "opensim"))
    assert "ASIS" in line and "few.trc" in line
    no_knee = {n: st[g] for g, n in SUFFIX.items() if "Knee" not in g}
    msm.write_trc(tmp_path / "noknee.trc", ts, no_knee, 100.0)
    line = _one_error_line(capsys, _init(tmp_path / "noknee.trc", tmp_path / "x.toml"))
    assert "knee" in line
    line = _one_error_line(capsys, _init(DATA / "sample_walk.csv", tmp_path / "x.toml"))
    assert "sample_walk.csv" in line and "no marker trajectories" in line
    (tmp_path / "x.toml").write_text("keep")
    line = _one_error_line(capsys, _init(static, tmp_path / "x.toml"))
    assert "--force" in line and (tmp_path / "x.toml").read_text() == "keep"
    assert not list(tmp_path.glob(".x.toml*"))


def test_axes_that_put_most_markers_on_the_wrong_side_are_refused(tmp_path, trials, capsys):
    static, _ = _write(tmp_path, trials, "suffix")
    line = _one_error_line(capsys, _init(static, tmp_path / "x.toml", "--axes=-x,z,y"))  # facing backwards
    assert "lab axes are probably wrong" in line and "--axes" in line
    assert _init(static, tmp_path / "x.toml", "--axes", "x,-z,y", "-q") == 0  # the right ones


def test_unmatched_trial_is_drafted_first_try(tmp_path, trials):
    """No built-in set matches and none is given: a set is drafted from the static and the analysis says so."""
    static, walk = _write(tmp_path, trials, "bones")
    an = analyze_trial(walk, static=static)
    said = [m for m in an.messages if m.startswith("marker set: no built-in set matches, drafted")]
    assert len(said) == 1 and "humanbody markerset init" in said[0]
    assert np.isfinite(an.clinical["right_knee_flexion_deg"]).mean() > 0.9


def test_undraftable_trial_error_names_the_way_on(tmp_path, trials):
    """Neither a built-in set nor a draft: one line naming why the draft failed and a way on that works --
    a marker-set file given with `markerset`, not ``markerset init``, which fails alike on these markers."""
    static, walk = _write(tmp_path, trials, "bones", rename={"r_asis": "pin_a", "l_asis": "pin_b"})
    with pytest.raises(InputError, match=r"drafting a set for them \(from bones_static.trc\) failed: needs a right "
                                         r"and a left ASIS marker.*docs/markersets.md\) and give its path with "
                                         r"`markerset`$") as err:
        analyze_trial(walk, static=static)
    assert "markerset init" not in str(err.value)


def test_trial_without_pelvis_markers_names_what_the_draft_read(tmp_path, trials, capsys):
    """No pelvis marker at all: the refusal says so, names the segments the markers were read onto and the
    marker-set file as the way on, the same from analyze and from ``markerset init`` (which fails alike)."""
    (ts, st), (tw, wk) = trials
    kept = {g: n for g, n in BONES.items() if g not in ("R.ASIS", "L.ASIS", "V.Sacral")}
    msm.write_trc(tmp_path / "np_static.trc", ts, {n: st[g] for g, n in kept.items()}, 100.0)
    msm.write_trc(tmp_path / "np_walk.trc", tw, {n: wk[g] for g, n in kept.items() if g not in msm.STATIC_ONLY},
                  100.0)
    with pytest.raises(InputError, match=r"has no pelvis marker .*the draft read \d+ markers onto right/left "
                                         r".*none onto the pelvis; .*give its path with `markerset`$") as err:
        analyze_trial(tmp_path / "np_walk.trc", static=tmp_path / "np_static.trc")
    assert "markerset init" not in str(err.value) and "\n" not in str(err.value)
    assert _init(tmp_path / "np_static.trc", tmp_path / "np.toml") == 2
    said = capsys.readouterr().err.splitlines()
    assert len(said) == 1 and "has no pelvis marker" in said[0] and said[0].endswith("give its path with --markerset")


# ----------------------------------------------------------------- the shared walk
def _renamed_copy(src: Path, dst: Path, names: dict) -> Path:
    lines = src.read_text().splitlines(keepends=True)
    head = lines[3].rstrip("\r\n").split("\t")
    lines[3] = "\t".join(names.get(h, h) for h in head) + "\n"
    dst.write_text("".join(lines))
    return dst


@needs_shared
def test_shared_walk_with_a_drafted_set_gives_the_builtin_angles(tmp_path, capsys):
    """Markers renamed in another lab's style, set drafted from the renamed static: same clinical angles."""
    static = _renamed_copy(SHARED / "subject01_static.trc", tmp_path / "lab_static.trc", SUFFIX)
    walk = _renamed_copy(SHARED / "subject01_walk1.trc", tmp_path / "lab_walk1.trc", SUFFIX)
    first = analyze_trial(walk, static=static)  # drafted on the fly, first try
    assert any(m.startswith("marker set: no built-in set matches, drafted") for m in first.messages)
    out = tmp_path / "lab.toml"
    assert _init(static, out) == 0
    capsys.readouterr()
    drafted = analyze_trial(walk, static=static, markerset=out)
    for c in ("right_knee_flexion_deg", "left_hip_flexion_deg"):
        assert np.nanmax(np.abs(first.clinical[c].to_numpy() - drafted.clinical[c].to_numpy())) < 1e-9
    builtin = analyze_trial(SHARED / "subject01_walk1.trc", static=SHARED / "subject01_static.trc")
    assert builtin.calibration.markerset.name == "gait2392"
    cols = [c for c in builtin.clinical.columns
            if c.startswith(("pelvis", "right_hip", "left_hip", "right_knee", "left_knee", "right_ankle",
                             "left_ankle", "right_foot", "left_foot", "thorax"))]
    assert len(cols) == 26
    for c in cols:
        diff = np.nanmax(np.abs(drafted.clinical[c].to_numpy() - builtin.clinical[c].to_numpy()))
        assert diff < 2.0, (c, diff)
    assert drafted.calibration.height == pytest.approx(builtin.calibration.height, abs=0.01)


def test_c3d_standing_trial_with_unlabeled_trajectories(tmp_path, trials, capsys):
    """A Vicon-style C3D (lab z up, mm) with unlabeled *N trajectories: they are left out, not guessed."""
    pytest.importorskip("ezc3d")
    from _io_samples import write_c3d

    (ts, st), _ = trials
    names = list(PIG)
    lab = np.stack([st[g] for g in names], axis=1) * 1000.0  # ground axes are a z-up lab's
    rng = np.random.default_rng(1)
    stray = lab[:, :4] + rng.normal(0, 5, (len(ts), 4, 3))  # unlabeled, next to real markers
    path = write_c3d(tmp_path / "static.c3d", np.concatenate([lab, stray], axis=1),
                     [PIG[g] for g in names] + ["*12", "*13", "*152", "*153"], rate=100.0)
    assert _init(path, tmp_path / "c.toml") == 0
    err = capsys.readouterr().err
    assert "4 unused (*12, *13, *152, *153)" in err
    draft, axes = draft_from_file(path)
    assert axes.spec == "x,y,z"
    assert {m.name for m in draft.markers if not m.used} == {"*12", "*13", "*152", "*153"}
    assert not any("*1" in line for line in draft.text.splitlines() if not line.startswith("#"))


@pytest.mark.parametrize("drop, rule, tol", [
    (("R.Knee.Lat",), ("right_knee", "from", "r_epicondyle_med"), 0.05),     # medial marker + half the width
    (("R.Heel", "L.Heel"), ("right_foot", "secondary", "right_ankle"), 0.05),  # foot axis from the ankle centre
    # toe between MT1 and MT5: 2.5 mm off the layout's foot axis, so the foot is yawed 0.7 deg (measured 0.69 RMS)
    (("R.Toe.Tip", "L.Toe.Tip"), ("right_toe", "mean", "r_mt1"), 1.0),
    (("Top.Head",), ("head", "rule", "rigid"), 0.05),                          # two head markers: head rigid
    (("Sternum",), ("upper_torso", "rule", "rigid"), 0.05),                    # two acromia: trunk rigid
])
def test_rules_follow_the_markers_present(tmp_path, trials, reference, drop, rule, tol):
    """Each branch of the rule choice drafts a set that calibrates and tracks the legs."""
    (ts, st), (tw, wk) = trials
    names = {g: n for g, n in BONES.items() if g not in drop}
    msm.write_trc(tmp_path / "s.trc", ts, {n: st[g] for g, n in names.items()}, 100.0)
    msm.write_trc(tmp_path / "w.trc", tw, {n: wk[g] for g, n in names.items() if g not in msm.STATIC_ONLY}, 100.0)
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    Lt = model.segment_meta[model.names.index("right_upper_leg")]["length"]
    assert _init(tmp_path / "s.trc", tmp_path / "s.toml", "--knee-width", f"{0.24 * Lt:.6f}",
                 "--marker-radius", "0", "-q") == 0
    ms = load_markerset(tmp_path / "s.toml")
    where, key, value = rule
    table = ms.points[where][0] if where in ms.points else ms.segments[where].__dict__
    got = table[key]
    assert value in (got if isinstance(got, (list, tuple)) else [got] if not isinstance(got, dict) else got.values())
    an = analyze_trial(tmp_path / "w.trc", static=tmp_path / "s.trc", markerset=tmp_path / "s.toml",
                       mass=75.0, height=1.75, cutoff_hz=None)
    for seg in LEGS:
        for q in ("alpha", "beta", "gamma"):
            assert _rms_deg(an.coords[f"{seg}_{q}"], reference[f"{seg}_{q}"]) < tol, (seg, q)


def test_a_pelvis_from_the_trochanters_and_c7_and_ankles_from_the_heels(tmp_path, model, layout, reference):
    """Biogesta's layout on the sample subject: no pelvis marker (greater trochanters 0.09 m lateral of the hip
    centres, C7) and no malleolus (heels 0.06 m behind and 0.045 m below the ankle centres): the draft builds the
    hips from the trochanters and the ankles from the heels, each said as a CHECK, and the thighs, shanks and feet
    track the walk's true orientations; the pelvis, whose tilt is the trunk's, is not asked to."""
    from humanbody.tools.draft_lower import HEEL_TO_ANKLE, TROCHANTER_OFFSET

    lay = dict(layout)
    for s, side, lat in (("R", "right", -1.0), ("L", "left", 1.0)):
        lay[f"{s}.Troch"] = (f"{side}_upper_leg", np.array([0.0, lat * TROCHANTER_OFFSET, 0.0]))
        lay[f"{s}.Heel"] = (f"{side}_foot", np.array([-HEEL_TO_ANKLE[0], 0.0, -HEEL_TO_ANKLE[1]]))
    t_static, st = msm.static_trial(model, lay, seconds=0.3)
    t_walk, wk = msm.walk_trial(model, lay, reference)
    names = {g: n for g, n in BONES.items() if "ASIS" not in g and "Sacral" not in g and "Ankle" not in g}
    names.update({"R.Troch": "r_trochanter", "L.Troch": "l_trochanter", "C7": "C7"})
    msm.write_trc(tmp_path / "s.trc", t_static, {n: st[g] for g, n in names.items()}, 100.0)
    msm.write_trc(tmp_path / "w.trc", t_walk, {n: wk[g] for g, n in names.items() if g not in msm.STATIC_ONLY},
                  100.0)
    assert _init(tmp_path / "s.trc", tmp_path / "s.toml", "-q") == 0
    text = (tmp_path / "s.toml").read_text()
    assert "# CHECK: no pelvis marker: the pelvis from the trochanters and C7" in text
    assert text.count("# CHECK: no right ankle marker") == 1 and text.count("# CHECK: no left ankle marker") == 1
    ms = load_markerset(tmp_path / "s.toml")
    assert list(ms.segments["lower_torso"].markers) == ["r_trochanter", "l_trochanter", "C7"]
    assert ms.segments["right_upper_leg"].use_joint is False  # the hip centre (on a pelvis of the trunk's tilt)
    an = analyze_trial(tmp_path / "w.trc", static=tmp_path / "s.trc", markerset=tmp_path / "s.toml",
                       mass=75.0, height=1.75, cutoff_hz=None)
    rms = {(seg, q): _rms_deg(an.coords[f"{seg}_{q}"], reference[f"{seg}_{q}"]) for seg in LEGS + ["lower_torso"]
           for q in ("alpha", "beta", "gamma")}
    # knees and ankles: exact (the thigh, shank and foot by their own markers, the ankle where the heel puts it)
    assert max(v for (seg, _), v in rms.items() if seg.endswith(("lower_leg", "foot"))) < 0.05, rms
    # the pelvis's rotation and obliquity within a degree; its tilt (gamma, zxy) is the trunk line's, here 6 deg
    # from the model's pelvis throughout (the sample's static trunk leans on its pelvis), and the hips' flexion
    # (alpha) carries that offset: why the draft says so as a CHECK
    assert rms[("lower_torso", "alpha")] < 1.0 and rms[("lower_torso", "beta")] < 1.0, rms
    for seg, q in (("lower_torso", "gamma"), ("right_upper_leg", "alpha"), ("left_upper_leg", "alpha")):
        err = np.degrees(an.coords[f"{seg}_{q}"].to_numpy() - reference[f"{seg}_{q}"].to_numpy())
        assert 3.0 < abs(err.mean()) < 10.0 and err.std() < 0.5, (seg, q, err.mean(), err.std())

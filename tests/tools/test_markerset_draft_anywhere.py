"""`humanbody markerset init` works first time: a static trial facing any direction in a Y-up lab whose
origin is not on the floor, names with dots and prefixes, static-only markers, and a plausibility check
of the drafted set (limb lengths, left/right symmetry) that refuses a wrong set."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import humanbody as hb
from humanbody.cli import main
from humanbody.errors import InputError
from humanbody.io import read_trial
from humanbody.tools.markerset import draft_from_file

DATA = Path(__file__).resolve().parents[2] / "data"


def _static(tmp_path, *, deg=180.0, shift=(0.0, -1.0, 0.0), prefix="Pat01:", frozen=True, drop_head=True,
            extra=None, edit=None):
    """The sample static trial rewritten: turned ``deg`` about the lab's vertical (Y up), its origin moved
    (``shift`` m), names prefixed, no motion at all (``frozen``), head markers dropped, ``extra`` markers
    {name: ground-less lab offset from a marker} added, ``edit`` {name: lab displacement (m)} applied."""
    from _io_samples import write_trc

    st = read_trial(DATA / "sample_static.trc")
    names = [n for n in st.attrs["markers"] if not (drop_head and ("Head" in n or "Temple" in n))]
    xyz = np.stack([st[[f"{n}_{a}" for a in "xyz"]].to_numpy() for n in names], axis=1)  # m, Y up
    if frozen:
        xyz = np.broadcast_to(np.nanmedian(xyz, axis=0), xyz.shape).copy()
    for name, d in (edit or {}).items():
        xyz[:, names.index(name)] += d
    for name, (base, d) in (extra or {}).items():
        xyz = np.concatenate([xyz, xyz[:, [names.index(base)]] + d], axis=1)
        names = names + [name]
    a = np.radians(deg)
    R = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    xyz = xyz @ R.T + np.asarray(shift)
    return write_trc(tmp_path / "static.trc", xyz * 1000.0, [prefix + n for n in names])


@pytest.mark.parametrize("deg", [0.0, 90.0, 180.0, 270.0])
def test_static_facing_any_direction_y_up_prefixed_dotted_names(tmp_path, capsys, deg):
    """Before: 'height must be a positive finite number, got -1.77' (up taken the wrong way in a Y-up lab
    whose origin is not on the floor) and 'cannot detect the direction of progression' (prefixed names)."""
    trc = _static(tmp_path, deg=deg)
    out = tmp_path / "set.toml"
    assert main(["markerset", "init", str(trc), "--out", str(out), "-q"]) == 0, capsys.readouterr().err
    text = out.read_text()
    assert '"Pat01:R.ASIS"' in text and '"Pat01:L.ASIS"' in text
    # the drafted set analyses a walk of the same lab: upright subject, positive height
    draft_height = draft_from_file(trc)[0].height
    assert 1.6 < draft_height < 2.0


def test_static_only_markers_are_calibration_only(tmp_path, capsys):
    """Medial knee and ankle markers and clavicle markers (MidClavicle, R.Clavicle) are drafted, but a motion
    trial need not carry them: they are not among the required markers."""
    trc = _static(tmp_path, deg=0.0, shift=(0, 0, 0), prefix="", frozen=False, drop_head=False,
                  extra={"MidClavicle": ("Sternum", [0.0, 0.06, 0.0]), "R.Clavicle": ("Sternum", [0.0, 0.05, 0.06]),
                         "L.Clavicle": ("Sternum", [0.0, 0.05, -0.06])})
    out = tmp_path / "set.toml"
    assert main(["markerset", "init", str(trc), "--out", str(out), "-q"]) == 0, capsys.readouterr().err
    import tomllib

    required = set(tomllib.loads(out.read_text())["required"])
    for static_only in ("R.Knee.Med", "L.Knee.Med", "R.Ankle.Med", "L.Ankle.Med", "MidClavicle", "R.Clavicle"):
        assert static_only not in required, static_only
    assert "R.Knee.Med" in out.read_text()  # still used by the calibration


def test_plausibility_check_refuses_a_wrong_set_and_warns_on_asymmetry(tmp_path):
    from humanbody.markers.plausibility import check_lengths

    model = hb.BodyModel.default(mass=70, height=1.75)
    meta = [dict(m, calibrated=True) for m in model.segment_meta]
    k = model.names.index("right_lower_leg")
    for scale, expect in ((1.0, ([], [])), (1.15, "warn"), (1.6, "error")):
        m = [dict(x) for x in meta]
        m[k]["length"] = meta[k]["length"] * scale
        warn, bad = check_lengths(model.replace(segment_meta=m), 1.75)
        if expect == "warn":
            assert not bad and any("right and left lower leg differ by 14 %" in w for w in warn)
        elif expect == "error":
            assert any("differ by" in b for b in bad)
        else:
            assert (warn, bad) == expect
    # the right ankle markers 15 cm too high (a knee marker read as an ankle, say): the draft refuses
    trc = _static(tmp_path, deg=0.0, shift=(0, 0, 0), prefix="", frozen=True, drop_head=False,
                  edit={"R.Ankle.Lat": [0, 0.15, 0], "R.Ankle.Med": [0, 0.15, 0]})
    with pytest.raises(InputError, match="implausible limbs"):
        draft_from_file(trc)


# ------------------------------------------------- Plug-in Gait's markers drafted = the built-in set
def _pig_lab_trials(tmp_path, *, full: bool, deg: float, prefix: str, subject=None, medial=False, rename=None):
    """Synthetic Plug-in Gait standing trial and whole-range motion (tests/markers/test_plug_in_gait.py's
    forward model; the standing subject's hips turned out 10 and 6 deg; ``subject``'s widths and tibial
    torsion, by default an average adult's widths and no torsion) written as TRC files of a Y-up lab turned
    ``deg`` about its vertical, origin off the floor, names prefixed.  ``medial``: the thigh and tibia wands
    turned out of the joints' planes, and medial knee and ankle markers (KNM, MMA) in the standing trial;
    ``rename``: {Plug-in Gait name: the lab's}."""
    from _io_samples import write_trc

    from humanbody.io.subject import Subject
    from tests.markers.test_plug_in_gait import STATIC, UPPER, _motion, place

    avg = Subject(mass=70.0, height=1.78, right_leg_length=0.90, left_leg_length=0.91, right_knee_width=0.105,
                  left_knee_width=0.105, right_ankle_width=0.075, left_ankle_width=0.075,
                  right_tibial_torsion=0.0, left_tibial_torsion=0.0, marker_diameter=0.014)
    pose = dict(STATIC, right_hip_internal_rotation=-10.0, left_hip_internal_rotation=-6.0)
    wands = dict(thi=(0.03, 0.09, -0.20), tib=(-0.025, 0.08, -0.15)) if medial else {}
    static, c = place(pose, np.tile([0.0, 0.0, 0.95], (10, 1)), subject=subject or avg, **wands)
    for side, S in (("right", "R"), ("left", "L")):
        if medial:  # on the epicondylar / malleolar axis, through the joint centre from the lateral marker
            static[f"{S}KNM"] = 2 * c[f"{side}_knee"] - static[f"{S}KNE"]
            static[f"{S}MMA"] = 2 * c[f"{side}_ankle"] - static[f"{S}ANK"]
    ang, origin, _t = _motion(120)
    walk, _ = place(ang, origin, subject=subject or avg, **wands)
    a = np.radians(deg)
    to_lab = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])  # ground x, y, z -> lab z, x, y (Y up)
    turn = np.array([[np.cos(a), 0, np.sin(a)], [0, 1, 0], [-np.sin(a), 0, np.cos(a)]])
    files = []
    for name, m in (("static", static), ("walk", walk)):
        names = [n for n in m if full or n not in UPPER]
        xyz = np.stack([m[n] for n in names], axis=1) @ to_lab.T @ turn.T + [0.3, -0.9, 0.5]
        files.append(write_trc(tmp_path / f"{name}.trc", xyz * 1000.0, [prefix + (rename or {}).get(n, n) for n in names]))
    return files


@pytest.mark.parametrize("full, deg, prefix, measured, medial", [
    (False, 0.0, "", False, False), (False, 120.0, "Subject1:", True, False), (True, 250.0, "Subject1:", True, False),
    (True, 30.0, "", True, True)])
def test_plug_in_gait_markers_draft_the_builtin_set(tmp_path, full, deg, prefix, measured, medial):
    """A set drafted from a Plug-in Gait standing trial builds the legs as the built-in set does (Davis hips,
    chord-function knees and ankles from the thigh and tibia wands, the foot heel -> toe with the ankle's
    axis, Plug-in Gait's angle sequences; with the full body also its thorax, head and chord-function arms):
    every clinical angle as the built-in set's, with the set's average-adult widths or, ``measured``, the
    subject file's widths, leg lengths and tibial torsion; ``medial``: wands out of the joints' planes, their
    rotation offsets measured from the medial knee and ankle markers of the standing trial.

    Before: the knee and ankle centres offset along the pelvis's y axis, the shank's y from the ankle
    markers, a foot flat in the standing trial and Harrington hips gave hip and ankle rotation 5-8 deg
    RMS and knee adduction 5 deg RMS from the built-in set's, and the general arm rules shoulder and wrist
    rotation 45 deg."""
    from humanbody.analysis import analyze_trial
    from tests.markers.test_plug_in_gait import SUBJECT

    subject = SUBJECT if measured else None
    static, walk = _pig_lab_trials(tmp_path, full=full, deg=deg, prefix=prefix, subject=subject, medial=medial)
    draft, _ = draft_from_file(static, height=1.78)
    assert any("chord function" in r for r in draft.rules) and any("Davis" in r for r in draft.rules)
    assert ("offset from RMMA" in " ".join(draft.rules)) == medial
    drafted = tmp_path / "drafted.toml"
    drafted.write_text(draft.text)
    builtin = "plug_in_gait" if full else "plug_in_gait_lower"
    got = {ms: analyze_trial(walk, static=str(static), markerset=ms, mass=70.0, height=1.78, subject=subject).clinical
           for ms in (str(drafted), builtin)}
    a, b = got[str(drafted)], got[builtin]
    angles = [c for c in b.columns if c.endswith("_deg")]
    assert len(angles) >= 47 and set(angles) <= set(a.columns)
    rms = {c: float(np.sqrt(np.nanmean((a[c].to_numpy() - b[c].to_numpy()) ** 2))) for c in angles}
    worst = max(rms, key=rms.get)
    assert rms[worst] < 0.05, (worst, rms[worst])


def test_plug_in_gait_landmarks_under_other_names_draft_the_builtin_set(tmp_path):
    """The same landmarks spelled out (Right_Thigh, Right_Knee_Lateral, Right_Malleolus_Lateral, ...): the
    drafted set's angles are the built-in set's on the Plug-in Gait-named trial.  The lab is turned 60 deg, so
    the subject stands 30 deg from the nearest lab axis: before, the right heel (behind the ankle, turned
    towards the midline) was read as on the left and the right foot lost its heel."""
    from humanbody.analysis import analyze_trial

    names = {}
    for S, Side in (("R", "Right"), ("L", "Left")):
        names.update({f"{S}ASI": f"{Side}_ASIS", f"{S}PSI": f"{Side}_PSIS", f"{S}THI": f"{Side}_Thigh",
                      f"{S}KNE": f"{Side}_Knee_Lateral", f"{S}TIB": f"{Side}_Tibia",
                      f"{S}ANK": f"{Side}_Malleolus_Lateral", f"{S}HEE": f"{Side}_Heel", f"{S}TOE": f"{Side}_Toe"})
    (tmp_path / "pig").mkdir()
    (tmp_path / "lab").mkdir()
    pig = _pig_lab_trials(tmp_path / "pig", full=False, deg=60.0, prefix="")
    lab = _pig_lab_trials(tmp_path / "lab", full=False, deg=60.0, prefix="", rename=names)
    draft, _ = draft_from_file(lab[0], height=1.78)
    assert any("chord function from Right_Thigh and Right_Knee_Lateral" in r for r in draft.rules)
    drafted = tmp_path / "drafted.toml"
    drafted.write_text(draft.text)
    a = analyze_trial(lab[1], static=str(lab[0]), markerset=str(drafted), mass=70.0, height=1.78).clinical
    b = analyze_trial(pig[1], static=str(pig[0]), markerset="plug_in_gait_lower", mass=70.0, height=1.78).clinical
    angles = [c for c in b.columns if c.endswith("_deg")]
    rms = {c: float(np.sqrt(np.nanmean((a[c].to_numpy() - b[c].to_numpy()) ** 2))) for c in angles}
    worst = max(rms, key=rms.get)
    assert rms[worst] < 0.05, (worst, rms[worst])

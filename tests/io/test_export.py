"""``--export c3d,opensim``: what is written reads back as the input, our outputs with Nexus's names and signs,
and OpenSim's own tools run on the OpenSim files as on the originals."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from _shared import WALK

import humanbody as hb
from humanbody.cli import main
from humanbody.errors import InputError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "data"
DATA = WALK

ezc3d = pytest.importorskip("ezc3d")


def _loads_csv(path, rate=1000.0, seconds=4.5):
    """A loads table (ground axes) at exactly 10x the sample walk's 100 Hz: one load under the right foot
    region with a moving centre of pressure and a vertical free moment."""
    t = np.arange(int(seconds * rate)) / rate
    fz = np.where((t > 0.5) & (t < 3.5), 700.0 + 50 * np.sin(3 * t), 0.0)
    table = pd.DataFrame({
        "time": t, "P_force_x": 0.1 * fz, "P_force_y": -0.02 * fz, "P_force_z": fz,
        "P_point_x": 0.2 + 0.1 * t, "P_point_y": -0.1 + 0.01 * t, "P_point_z": 0.0 * t,
        "P_moment_x": 0.0 * t, "P_moment_y": 0.0 * t, "P_moment_z": 0.005 * fz})
    table.to_csv(path, index=False, float_format="%.17g")
    return path


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    """The sample walk (TRC, Y up) analysed with a loads table and exported both ways."""
    tmp = tmp_path_factory.mktemp("export")
    loads = _loads_csv(tmp / "loads.csv")
    out = tmp / "out"
    status = main(["analyze", str(SAMPLE / "sample_walk_markers.trc"), "--static", str(SAMPLE / "sample_static.trc"),
                   "--forces", str(loads), "--load", "P=right_foot", "--out", str(out), "--export", "c3d,opensim",
                   "-q"])
    assert status == 0
    return tmp, out, loads


def _axes():
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground

    return to_ground(read_trial(SAMPLE / "sample_walk_markers.trc"), "auto")[1].matrix


# ------------------------------------------------------------------ options
@pytest.mark.parametrize("args", [["--export", "c3d,fbx"], ["--export", "opensim,"], ["--opensim-feet", "calcn_r"]])
def test_bad_export_options_are_one_line_and_status_2(tmp_path, capsys, args):
    status = main(["analyze", str(SAMPLE / "sample_walk.csv"), "--out", str(tmp_path / "o"), *args])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1
    assert "--export" in err[0] or "--opensim-feet" in err[0]
    assert not (tmp_path / "o").exists()  # checked before any work


def test_parse_export():
    from humanbody.export import parse_export, parse_feet

    assert parse_export("C3D, opensim") == ("c3d", "opensim")
    assert parse_export("opensim,opensim") == ("opensim",)
    assert parse_export(None) == ()
    assert parse_feet("foot_r,foot_l") == ("foot_r", "foot_l")
    with pytest.raises(InputError, match="unknown format 'mp4'"):
        parse_export("c3d,mp4")


# ------------------------------------------------------------------ C3D from a TRC trial
def test_c3d_keeps_the_trc_markers_and_time(sample):
    from humanbody.io import markers_array, read_trial

    _, out, _ = sample
    a = read_trial(SAMPLE / "sample_walk_markers.trc")
    b = read_trial(out / "sample_walk_markers.c3d")
    na, A = markers_array(a)
    nb, B = markers_array(b)
    assert na == nb  # the model outputs and modelled points are not read as markers
    assert b.attrs["units_in_file"] == "mm"
    np.testing.assert_array_equal(np.isnan(A), np.isnan(B))
    # stored as float32 mm: equal to the TRC's numbers to float32 precision
    np.testing.assert_allclose(B, A, rtol=1.2e-7, atol=1e-9)
    np.testing.assert_allclose(b["time"].to_numpy(), a["time"].to_numpy(), atol=1e-9)


def _points(path):
    c = ezc3d.c3d(str(path))
    labels = [s.strip() for s in c["parameters"]["POINT"]["LABELS"]["value"]]
    return c, labels, c["data"]["points"]


def test_c3d_model_outputs_follow_plug_in_gait(sample):
    _, out, _ = sample
    res = pd.read_csv(out / "sample_walk_markers_results.csv")
    c, labels, pts = _points(out / "sample_walk_markers.c3d")
    P = c["parameters"]["POINT"]
    assert "RKneeAngles" in P["ANGLES"]["value"] and "LFootProgressAngles" in P["ANGLES"]["value"]
    assert set(P["MOMENTS"]["value"]) == {f"{s}{j}Moment" for s in "RL" for j in ("Hip", "Knee", "Ankle")}
    assert set(P["POWERS"]["value"]) == {f"{s}{j}Power" for s in "RL" for j in ("Hip", "Knee", "Ankle")}
    assert set(P["FORCES"]["value"]) == {"RGroundReactionForce", "LGroundReactionForce"}
    assert P["ANGLE_UNITS"]["value"] == ["deg"] and P["MOMENT_UNITS"]["value"] == ["Nmm/kg"]

    def comp(label, axis):
        return pts[axis, labels.index(label)]

    def close(got, col, factor=1.0):
        want = factor * res[col].to_numpy()
        np.testing.assert_allclose(got, want, rtol=2e-6, atol=2e-6 * np.nanmax(np.abs(want)))

    close(comp("RKneeAngles", 0), "right_knee_flexion_deg")
    close(comp("LHipAngles", 1), "left_hip_adduction_deg")
    close(comp("RAnkleAngles", 2), "right_ankle_internal_rotation_deg")
    close(comp("RPelvisAngles", 0), "pelvis_tilt_deg")
    close(comp("RPelvisAngles", 1), "pelvis_obliquity_deg")
    close(comp("LPelvisAngles", 1), "pelvis_obliquity_deg", -1.0)  # each side's own sense
    close(comp("LPelvisAngles", 2), "pelvis_rotation_deg", -1.0)
    close(comp("LFootProgressAngles", 2), "left_foot_progression_deg")
    assert np.all(comp("LFootProgressAngles", 0) == 0)
    # moments: Plug-in Gait's, in the distal segment's frame whatever the results' frame (here the joint
    # coordinate system's, this marker set's default): extensor, abductor, external rotator positive, N mm/kg
    from humanbody.mechanics.moment_frames import distal_moments

    model = hb.load_model(out / "sample_walk_markers_model.json")
    assert model.conventions.moment_frame == "jcs"  # model.json names the frame of the moment columns
    distal = distal_moments(model, res)
    for label, axis, col in (("RHipMoment", 0, "right_hip_flexion_moment_Nm_per_kg"),
                             ("RKneeMoment", 1, "right_knee_adduction_moment_Nm_per_kg"),
                             ("RKneeMoment", 2, "right_knee_internal_rotation_moment_Nm_per_kg"),
                             ("RAnkleMoment", 0, "right_ankle_dorsiflexion_moment_Nm_per_kg")):  # plantarflexor +
        want = -1000.0 * distal[col]
        np.testing.assert_allclose(comp(label, axis), want, rtol=2e-6, atol=2e-6 * np.nanmax(np.abs(want)))
    jcs_gap = np.nanmax(np.abs(comp("RKneeMoment", 1) + 1000.0 * res["right_knee_adduction_moment_Nm_per_kg"]))
    assert jcs_gap > 1.0  # the results' JCS columns are not what the C3D holds (N mm/kg)
    close(comp("RKneePower", 2), "right_knee_power_W_per_kg")
    measured = np.isfinite(comp("RKneePower", 2))  # a stance off the plate is empty in all three components
    assert np.all(comp("RKneePower", 0)[measured] == 0) and np.isnan(comp("RKneePower", 0)[~measured]).all()
    M = _axes()
    grf = res[[f"right_grf_{a}_N_per_kg" for a in "xyz"]].to_numpy() @ M  # ground -> lab: M.T @ g
    np.testing.assert_allclose(pts[:3, labels.index("RGroundReactionForce")].T, grf, rtol=2e-6, atol=1e-5)
    # modelled points in the lab axes and unit of the markers
    knee = res[[f"right_lower_leg_joint_{a}" for a in "xyz"]].to_numpy() @ M * 1000.0
    np.testing.assert_allclose(pts[:3, labels.index("right_lower_leg_joint")].T, knee, rtol=1e-6, atol=1e-3)
    assert "right_lower_leg_joint" in P["MODELLED"]["value"] and "body_com" in P["MODELLED"]["value"]


def test_c3d_events_are_the_kinematic_events(sample):
    from humanbody.gait import kinematic_events
    from humanbody.io import read_trial
    from humanbody.lab.axes import to_ground

    _, out, _ = sample
    c = ezc3d.c3d(str(out / "sample_walk_markers.c3d"))
    ev = c["parameters"]["EVENT"]
    ground, _ = to_ground(read_trial(SAMPLE / "sample_walk_markers.trc"), "auto")
    want = kinematic_events(ground)
    assert int(ev["USED"]["value"][0]) == len(want) > 0
    got = sorted(zip(ev["CONTEXTS"]["value"], ev["LABELS"]["value"], np.round(ev["TIMES"]["value"][1], 5), strict=True))
    names = {"foot_strike": "Foot Strike", "foot_off": "Foot Off"}
    exp = sorted(zip(want["side"].str.capitalize(), want["event"].map(names), np.round(want["time"], 5), strict=True))
    assert got == exp


def test_c3d_platforms_reproduce_the_loads(sample):
    """The type-2 platforms built from a loads table give back its force, centre of pressure and free moment."""
    from humanbody.io.loads import read_loads

    _, out, loads = sample
    M = _axes()
    a = read_loads(loads)
    b = read_loads(out / "sample_walk_markers.c3d", mapping=M)
    c = ezc3d.c3d(str(out / "sample_walk_markers.c3d"))
    fp = c["parameters"]["FORCE_PLATFORM"]
    assert int(fp["USED"]["value"][0]) == 1 and list(fp["TYPE"]["value"]) == [2]
    assert np.asarray(fp.get("CAL_MATRIX", {}).get("value", [])).size == 0  # none: the channels are calibrated
    assert c["parameters"]["ANALOG"]["RATE"]["value"][0] == 1000.0
    n = len(b.time)  # the analogs cover the 441 marker frames
    assert n == 4410
    np.testing.assert_allclose(b.time, a.time[:n], atol=1e-9)
    f = a.force[:n, 0]
    np.testing.assert_allclose(b.force[:, 0], f, rtol=1e-6, atol=1e-4)
    on = f[:, 2] > 20
    np.testing.assert_allclose(b.point[on, 0], a.point[:n][on, 0], atol=1e-6)
    np.testing.assert_allclose(b.moment[on, 0], a.moment[:n][on, 0], atol=1e-4)


def test_c3d_written_by_the_library_is_read_by_the_library(sample, tmp_path):
    """The exported C3D analyses like its TRC (markers) and its loads table (the plate)."""
    import humanbody as hb

    _, out, _ = sample
    kw = {"static": SAMPLE / "sample_static.trc", "load_segments": {"plate1": "right_foot"}}
    from_c3d = hb.analyze_trial(out / "sample_walk_markers.c3d", **kw)
    assert any("1 force platform(s) of type 2" in m for m in from_c3d.messages)
    ref = pd.read_csv(out / "sample_walk_markers_results.csv")
    got = from_c3d.kinetics
    for col in ("right_knee_flexion_moment_Nm_per_kg", "right_grf_z_N_per_kg"):
        want = ref[col].to_numpy()
        kept = np.isfinite(want)  # the results file leaves a stance off the plate empty; the analysis keeps it
        np.testing.assert_allclose(got[col].to_numpy()[kept], want[kept], atol=1e-3 * np.nanmax(np.abs(want)))


# ------------------------------------------------------------------ C3D from a C3D trial
@pytest.fixture(scope="module")
def c3d_trial(tmp_path_factory):
    """The sample walk as a C3D file with a gap, residuals, an EMG channel and a force platform of its own."""
    from humanbody.io import markers_array, read_trial

    tmp = tmp_path_factory.mktemp("c3d_in")
    df = read_trial(SAMPLE / "sample_walk_markers.trc")
    names, P = markers_array(df)
    xyz = (P * 1000.0).astype(np.float32).astype(float)
    xyz[100:110, 3] = np.nan  # a gap
    n = len(xyz)
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c["parameters"]["POINT"]["LABELS"]["value"] = tuple(names)
    pts = np.ones((4, len(names), n))
    pts[:3] = np.transpose(xyz, (2, 1, 0))
    c["data"]["points"] = pts
    c.add_parameter("POINT", "UNITS", "mm")
    rng = np.random.default_rng(3)
    res = rng.uniform(0.1, 2.0, (1, len(names), n))
    res[0, 3, 100:110] = -1
    c["data"]["meta_points"] = {"residuals": res, "camera_masks": np.zeros((7, len(names), n), dtype=bool)}
    c["parameters"]["ANALOG"]["RATE"]["value"] = [1000.0]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = ("EMG1",)
    c["parameters"]["ANALOG"]["UNITS"]["value"] = ["V"]
    c["data"]["analogs"] = rng.normal(size=(1, 1, 10 * n))
    c.add_parameter("SUBJECTS", "NAMES", ["sample"])
    c.add_event(time=[0.0, 0.5], context="General", label="Start")
    path = tmp / "walk.c3d"
    c.write(str(path))
    out = tmp / "out"
    assert main(["analyze", str(path), "--static", str(SAMPLE / "sample_static.trc"), "--out", str(out),
                 "--export", "c3d", "-q"]) == 0
    return path, out / "walk.c3d"


def test_c3d_input_is_kept_bit_for_bit(c3d_trial):
    src, dst = c3d_trial
    a, b = ezc3d.c3d(str(src)), ezc3d.c3d(str(dst))
    la = list(a["parameters"]["POINT"]["LABELS"]["value"])
    lb = list(b["parameters"]["POINT"]["LABELS"]["value"])
    k = len(la)
    assert lb[:k] == la and len(lb) > k
    pa, pb = a["data"]["points"], b["data"]["points"][:, :k]
    assert np.array_equal(pa, pb, equal_nan=True)  # every marker sample, NaN gaps included
    assert np.array_equal(a["data"]["meta_points"]["residuals"], b["data"]["meta_points"]["residuals"][:, :k])
    assert np.array_equal(a["data"]["analogs"], b["data"]["analogs"])  # every analog sample
    assert b["parameters"]["SUBJECTS"]["NAMES"]["value"] == ["sample"]
    assert b["parameters"]["POINT"]["UNITS"]["value"] == ["mm"]
    assert a["header"]["points"]["first_frame"] == b["header"]["points"]["first_frame"]
    ev = b["parameters"]["EVENT"]
    assert ev["LABELS"]["value"][0] == "Start" and ev["CONTEXTS"]["value"][0] == "General"  # kept, ours after it
    assert {"Foot Strike", "Foot Off"} <= set(ev["LABELS"]["value"][1:])


def test_c3d_export_of_an_export_replaces_our_outputs(c3d_trial, tmp_path):
    _, dst = c3d_trial
    out = tmp_path / "again"
    assert main(["analyze", str(dst), "--static", str(SAMPLE / "sample_static.trc"), "--out", str(out),
                 "--export", "c3d", "-q"]) == 0
    a, b = ezc3d.c3d(str(dst)), ezc3d.c3d(str(out / "walk.c3d"))
    assert list(a["parameters"]["POINT"]["LABELS"]["value"]) == list(b["parameters"]["POINT"]["LABELS"]["value"])


# ------------------------------------------------------------------ limits and failures
def test_ezc3d_reads_back_no_more_than_65535_frames(tmp_path):
    """Why the writer refuses longer trials: ezc3d writes them but reads back 65535 frames."""
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c["parameters"]["POINT"]["LABELS"]["value"] = ("A",)
    c["data"]["points"] = np.ones((4, 1, 65536))
    c.write(str(tmp_path / "long.c3d"))
    assert ezc3d.c3d(str(tmp_path / "long.c3d"))["data"]["points"].shape[2] == 65535


def test_too_many_frames_for_c3d_is_one_line_and_the_csv_is_written(tmp_path, capsys, monkeypatch):
    from humanbody.io import c3d_writer

    with pytest.raises(InputError, match="past the C3D limit of 65535"):
        c3d_writer.write_c3d(tmp_path / "x.c3d", frames=65536, rate_hz=100.0, markers=(["A"], np.zeros((65536, 1, 3))))
    monkeypatch.setattr(c3d_writer, "C3D_MAX_FRAME", 300)  # the sample walk has 441 frames
    out = tmp_path / "o"
    status = main(["analyze", str(SAMPLE / "sample_walk_markers.trc"), "--static", str(SAMPLE / "sample_static.trc"),
                   "--out", str(out), "--export", "c3d", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "C3D limit of 300" in err[0]
    assert (out / "sample_walk_markers_results.csv").stat().st_size > 0
    assert not (out / "sample_walk_markers.c3d").exists()


@pytest.mark.parametrize("blocked", ["opensim", "sample_walk_markers.c3d"])
def test_unwritable_export_is_one_line_and_the_csv_is_written(tmp_path, capsys, blocked):
    out = tmp_path / "o"
    out.mkdir()
    if blocked == "opensim":
        (out / "opensim").write_text("a file where the folder goes")
    else:
        (out / blocked).mkdir()  # a folder where the file goes: the rename fails
    status = main(["analyze", str(SAMPLE / "sample_walk_markers.trc"), "--static", str(SAMPLE / "sample_static.trc"),
                   "--out", str(out), "--export", "c3d,opensim", "-q"])
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2 and len(err) == 1 and "cannot" in err[0]
    assert (out / "sample_walk_markers_results.csv").stat().st_size > 0


# ------------------------------------------------------------------ OpenSim files
def test_opensim_files_read_back(sample):
    from humanbody.io import markers_array, read_trial
    from humanbody.io.loads import read_loads
    from humanbody.io.opensim_writer import OPENSIM_OF_GROUND

    _, out, _ = sample
    folder = out / "opensim"
    trc = read_trial(folder / "sample_walk_markers.trc")
    src = read_trial(SAMPLE / "sample_walk_markers.trc")
    na, A = markers_array(src)
    nb, B = markers_array(trc)
    assert na == nb and trc.attrs["units_in_file"] == "mm"
    np.testing.assert_allclose(B, A @ (OPENSIM_OF_GROUND @ _axes()).T, atol=1e-9)
    res = pd.read_csv(out / "sample_walk_markers_results.csv")
    ang = read_trial(folder / "sample_walk_markers_angles.mot")
    assert ang.attrs["in_degrees"]
    col = "right_knee_flexion_deg"
    scale = np.degrees(1.0) if col in ang.attrs["converted_columns"] else 1.0
    np.testing.assert_allclose(ang[col].to_numpy() * scale, res[col].to_numpy(), rtol=1e-7, atol=1e-6)
    mom = read_trial(folder / "sample_walk_markers_moments.sto")
    np.testing.assert_allclose(mom["right_knee_flexion_moment_Nm_per_kg"], res["right_knee_flexion_moment_Nm_per_kg"],
                               rtol=1e-7, atol=1e-8)
    # the GRF file with its ExternalLoads: the right foot carries the load, as the results say
    grf = read_loads(folder / "sample_walk_markers_grf.mot", mapping=np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0.]]))
    assert grf.segments == ["right_foot", "left_foot"]
    np.testing.assert_allclose(grf.force[:, 0, 2] / np.nanmax(grf.force[:, 0, 2]),
                               res["right_grf_z_N_per_kg"] / res["right_grf_z_N_per_kg"].max(), atol=1e-7)


def _opensim():
    """opensim, its log kept off the disk (it writes opensim.log into the working folder)."""
    osim = pytest.importorskip("opensim")
    osim.Logger.removeFileSink()
    return osim


def test_opensim_reads_the_files(sample):
    osim = _opensim()
    _, out, _ = sample
    folder = out / "opensim"
    t = osim.TimeSeriesTableVec3(str(folder / "sample_walk_markers.trc"))
    assert t.getNumRows() == 441 and t.getNumColumns() == 41
    for name in ("sample_walk_markers_grf.mot", "sample_walk_markers_angles.mot"):
        s = osim.Storage(str(folder / name))
        assert s.getSize() == 441
    # the left stances, off the plate, are NaN in the moments (not measured): OpenSim's table keeps every row
    assert osim.TimeSeriesTable(str(folder / "sample_walk_markers_moments.sto")).getNumRows() == 441
    loads = osim.ExternalLoads(str(folder / "sample_walk_markers_external_loads.xml"), True)
    assert loads.getSize() == 2
    assert [loads.get(i).get_applied_to_body() for i in range(2)] == ["calcn_r", "calcn_l"]
    assert loads.getDataFileName() == "sample_walk_markers_grf.mot"


# ------------------------------------------------------------------ the shared walk through OpenSim's tools
@pytest.fixture(scope="module")
def opensim_walk(tmp_path_factory, shared_data):
    """The shared walk as a Z-up C3D (a lab that is not OpenSim's), analysed and exported to OpenSim."""
    osim = _opensim()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    import bench_opensim_ik as boi
    from _io_samples import write_c3d

    from humanbody.io import markers_array, read_trial

    tmp = tmp_path_factory.mktemp("opensim_walk")
    df = read_trial(DATA / "subject01_walk1.trc")
    names, P = markers_array(df)
    zup = np.stack([P[..., 0], -P[..., 2], P[..., 1]], axis=-1) * 1000.0  # lab x, y = -z_osim, z = y_osim
    trial = write_c3d(tmp / "subject01_walk1.c3d", zup, names, rate=60.0)
    static = read_trial(DATA / "subject01_static.trc")
    sn, S = markers_array(static)
    static_c3d = write_c3d(tmp / "static.c3d", np.stack([S[..., 0], -S[..., 2], S[..., 1]], axis=-1) * 1000.0, sn,
                           rate=60.0)
    # the shared loads in the Z-up lab: a loads table (ground axes = this lab's) with the OpenSim ExternalLoads bodies
    from humanbody.io.loads import read_loads

    lt = read_loads(DATA / "subject01_walk1_grf.mot", mapping=np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0.]]))
    cols = {"time": lt.time}
    for k, name in enumerate(("R", "L")):
        for w, arr in (("force", lt.force), ("point", lt.point), ("moment", lt.moment)):
            for j, a in enumerate("xyz"):
                cols[f"{name}_{w}_{a}"] = arr[:, k, j]
    pd.DataFrame(cols).to_csv(tmp / "loads.csv", index=False, float_format="%.17g")
    out = tmp / "out"
    assert main(["analyze", str(trial), "--static", str(static_c3d), "--mass", "72.6", "--forces",
                 str(tmp / "loads.csv"), "--load", "R=right_foot", "--load", "L=left_foot", "--out", str(out),
                 "--export", "opensim", "--opensim-feet", "right_foot,left_foot", "-q"]) == 0
    subject = boi.calibrated_subject(DATA / "subject01_walk1.trc", DATA / "subject01_static.trc")
    model, _ = boi.build_gait2392_tree(osim, subject.model, subject.calibration)
    model.initSystem()
    return osim, boi, model, tmp, out / "opensim"


def test_opensim_ik_on_the_exported_trc_equals_ik_on_the_original(opensim_walk):
    osim, boi, model, _, folder = opensim_walk
    a = boi.solve(osim, osim.Model(model), DATA / "subject01_walk1.trc", accuracy=1e-6)
    b = boi.solve(osim, osim.Model(model), folder / "subject01_walk1.trc", accuracy=1e-6)
    assert a["names"] == b["names"] and a["frames"] == b["frames"] == 151
    rot = [i for i, n in enumerate(a["names"]) if not n.endswith(("_tx", "_ty", "_tz"))]
    assert np.degrees(np.abs(a["q"][:, rot] - b["q"][:, rot])).max() < 1.0
    assert np.abs(a["errors"] - b["errors"]).max() < 1e-3  # m


def _inverse_dynamics(osim, model, ik_mot, loads_xml, folder, name):
    tool = osim.InverseDynamicsTool()
    tool.setModel(model)
    tool.setCoordinatesFileName(str(ik_mot))
    tool.setExternalLoadsFileName(str(loads_xml))
    tool.setLowpassCutoffFrequency(6.0)
    tool.setStartTime(0.05)
    tool.setEndTime(2.45)
    tool.setResultsDir(str(folder))
    tool.setOutputGenForceFileName(name)
    excluded = osim.ArrayStr()
    excluded.append("Muscles")
    tool.setExcludedForces(excluded)
    assert tool.run()
    from humanbody.io import read_trial

    return read_trial(folder / name)


def test_opensim_id_with_the_exported_loads_matches_the_original_loads(opensim_walk):
    osim, boi, model, tmp, folder = opensim_walk
    _, mot = boi.run_tool(osim, osim.Model(model), DATA / "subject01_walk1.trc", tmp, accuracy=1e-5)
    # the original ExternalLoads, its bodies renamed to this model's feet and its data file by full path
    xml = (DATA / "subject01_walk1_grf.xml").read_text()
    xml = xml.replace("calcn_r", "right_foot").replace("calcn_l", "left_foot")
    xml = xml.replace("<datafile> subject01_walk1_grf.mot </datafile>",
                      f"<datafile>{DATA / 'subject01_walk1_grf.mot'}</datafile>")
    (tmp / "original_loads.xml").write_text(xml)
    a = _inverse_dynamics(osim, osim.Model(model), mot, tmp / "original_loads.xml", tmp, "id_original.sto")
    b = _inverse_dynamics(osim, osim.Model(model), mot, folder / "subject01_walk1_external_loads.xml", tmp,
                          "id_exported.sto")
    cols = [c for c in a.columns if c.startswith(("hip_", "knee_", "ankle_")) and c.endswith("_moment")]
    assert len(cols) == 10  # ball hips (3 each), pin knees and ankles
    r = {c: np.corrcoef(a[c], b[c])[0, 1] for c in cols}
    assert min(r.values()) >= 0.99, r


# ------------------------------------------------------------------ report
def test_report_exports_each_trial(tmp_path):
    import shutil

    trials = tmp_path / "trials"
    trials.mkdir()
    shutil.copy(SAMPLE / "sample_walk_markers.trc", trials / "walk.trc")
    shutil.copy(SAMPLE / "sample_static.trc", trials / "static.trc")
    out = tmp_path / "report"
    assert main(["report", str(trials), "--out", str(out), "--plots", "none", "--jobs", "1",
                 "--export", "c3d,opensim", "-q"]) == 0
    c3d = list(out.rglob("walk.c3d"))
    assert len(c3d) == 1
    folder = c3d[0].parent
    assert (folder / "opensim" / "walk.trc").is_file() and (folder / "opensim" / "walk_angles.mot").is_file()
    ev = ezc3d.c3d(str(c3d[0]))["parameters"]["EVENT"]
    events = pd.read_csv(folder / "walk_events.csv")
    assert int(ev["USED"]["value"][0]) == int((events["source"] == "kinematic").sum())  # the strides' events
    status = main(["report", str(trials), "--out", str(tmp_path / "r2"), "--export", "bvh"])
    assert status == 2


def test_coordinates_trial_exports_model_points_and_events(tmp_path):
    """A trial without markers: the C3D and the TRC hold the model's joint centres, events from its feet."""
    out = tmp_path / "o"
    assert main(["analyze", str(SAMPLE / "sample_walk.csv"), "--out", str(out), "--export", "c3d,opensim", "-q"]) == 0
    c = ezc3d.c3d(str(out / "sample_walk.c3d"))
    res = pd.read_csv(out / "sample_walk_results.csv")
    labels = list(c["parameters"]["POINT"]["LABELS"]["value"])
    assert "right_foot_joint" in c["parameters"]["POINT"]["MODELLED"]["value"]
    ankle = c["data"]["points"][:3, labels.index("right_foot_joint")].T / 1000.0  # mm, ground axes
    np.testing.assert_allclose(ankle, res[[f"right_foot_joint_{a}" for a in "xyz"]], atol=1e-6)
    assert int(c["parameters"]["EVENT"]["USED"]["value"][0]) >= 4
    from humanbody.io import read_trial

    trc = read_trial(out / "opensim" / "sample_walk.trc")
    assert trc.attrs["units_in_file"] == "m" and len(trc) == len(res)


def _parameters_as_ezc3d_reads_them(path):
    """Every parameter of the file as our parser reads it equals ezc3d's reading (type, values, locked)."""
    from humanbody.io.c3d_params import parse_parameters

    raw = Path(path).read_bytes()
    groups, _ = parse_parameters(raw, (raw[0] - 1) * 512)
    c = ezc3d.c3d(str(path))
    for g in groups.values():
        for p in g.params.values():
            theirs = c["parameters"][g.name][p.name]
            assert theirs["type"] == p.type and theirs["is_locked"] == p.locked, (g.name, p.name)
            if p.type == -1:
                assert [str(x).strip() for x in theirs["value"]] == p.value, (g.name, p.name)
            else:
                np.testing.assert_array_equal(np.ravel(theirs["value"]), np.ravel(p.value).astype(float))
    return c


@pytest.mark.parametrize("source", ["trc", "c3d"])
def test_c3d_export_reads_back_in_ezc3d(c3d_trial, sample, tmp_path, source):
    """The exported file, laid out by our writer, is read by ezc3d with every parameter as written; from a
    C3D source its points, residuals and analogs are the source's."""
    trial = SAMPLE / "sample_walk_markers.trc" if source == "trc" else c3d_trial[0]
    extra = ["--forces", str(sample[2]), "--load", "P=right_foot"] if source == "trc" else []
    args = ["analyze", str(trial), "--static", str(SAMPLE / "sample_static.trc"), *extra, "--export", "c3d", "-q"]
    assert main([*args, "--out", str(tmp_path)]) == 0
    out = tmp_path / trial.with_suffix(".c3d").name
    c = _parameters_as_ezc3d_reads_them(out)
    if source == "c3d":
        src = ezc3d.c3d(str(trial))
        n0 = src["data"]["points"].shape[1]
        np.testing.assert_array_equal(c["data"]["points"][:, :n0], src["data"]["points"])
        np.testing.assert_array_equal(c["data"]["meta_points"]["residuals"][:, :n0],
                                      src["data"]["meta_points"]["residuals"])
        np.testing.assert_allclose(c["data"]["analogs"], src["data"]["analogs"], rtol=1e-6)
    else:
        assert int(c["parameters"]["FORCE_PLATFORM"]["USED"]["value"][0]) == 1


def test_c3d_of_more_than_255_points_continues_in_labels2(tmp_path):
    """500 markers (33.6 MB of frames): LABELS holds 255, LABELS2 the rest, as Vicon writes them; ezc3d reads
    every label and point back."""
    from humanbody.io import c3d_writer

    n, m = 4200, 500
    xyz = np.random.default_rng(1).normal(size=(n, m, 3))
    labels = [f"p{i}" for i in range(m)]
    c3d_writer.write_c3d(tmp_path / "big.c3d", frames=n, rate_hz=100.0, markers=(labels, xyz))
    c = _parameters_as_ezc3d_reads_them(tmp_path / "big.c3d")
    P = c["parameters"]["POINT"]
    assert len(P["LABELS"]["value"]) == 255 and list(P["LABELS"]["value"]) + list(P["LABELS2"]["value"]) == labels
    np.testing.assert_allclose(np.transpose(c["data"]["points"][:3], (2, 1, 0)), xyz.astype(np.float32), rtol=0)


def test_report_trial_keeps_its_results_when_the_c3d_cannot_be_written(monkeypatch):
    import humanbody as hb
    from humanbody.io import c3d_writer
    from humanbody.report.trial import _analysis_files

    analysis = hb.analyze_trial(SAMPLE / "sample_walk_markers.trc", static=SAMPLE / "sample_static.trc", keep_raw=True)
    monkeypatch.setattr(c3d_writer, "C3D_MAX_FRAME", 300)
    files, notes, _ = _analysis_files(analysis, ("c3d", "opensim"))
    assert "sample_walk_markers_results.csv" in files and "opensim/sample_walk_markers.trc" in files
    assert "sample_walk_markers.c3d" not in files
    assert len(notes) == 1 and "C3D limit of 300" in notes[0]

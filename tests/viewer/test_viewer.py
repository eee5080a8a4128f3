"""Tests of the 3-D viewer: scene geometry (no rendering), off-screen pictures, the CLI.

Rendering tests are marked ``viewer`` and skip when this machine cannot render
off screen (probed once in a subprocess, so a broken OpenGL cannot crash the
test process).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pv = pytest.importorskip("pyvista")

from humanbody import compute  # noqa: E402
from humanbody.errors import InputError  # noqa: E402
from humanbody.io.forceplates import plate_prefixes  # noqa: E402
from humanbody.io.loads import read_loads  # noqa: E402
from humanbody.io.opensim_writer import write_storage  # noqa: E402
from humanbody.viewer import Scene, ellipsoid_inertia, ellipsoid_semi_axes, load_scene  # noqa: E402
from humanbody.viewer.scene import ARROW_LENGTH, ARROW_LENGTHS  # noqa: E402
from tests.viewer.test_viewer_model import human_model, walk_coordinates  # noqa: E402


@pytest.fixture(scope="module")
def walk():
    model = human_model()
    coords = walk_coordinates(model)
    return model, coords, compute(model, coords)


@pytest.fixture(scope="module")
def scene(walk):
    model, _, res = walk
    return Scene(model, res, title="test walk")


def _random_rotation(rng):
    q, r = np.linalg.qr(rng.normal(size=(3, 3)))
    q = q * np.sign(np.diag(r))
    return q if np.linalg.det(q) > 0 else -q


# ------------------------------------------------------------------ ellipsoids
def test_known_ellipsoid_semi_axes():
    m, semi = 7.0, np.array([0.05, 0.08, 0.25])
    I = np.diag(m / 5 * np.array([semi[1] ** 2 + semi[2] ** 2, semi[0] ** 2 + semi[2] ** 2,
                                  semi[0] ** 2 + semi[1] ** 2]))
    got, axes = ellipsoid_semi_axes([m], I[None])
    # eigh sorts the moments ascending: the longest axis (smallest moment) comes first
    np.testing.assert_allclose(np.sort(got[0]), np.sort(semi), rtol=1e-12)
    np.testing.assert_allclose(np.abs(axes[0][:, np.argmax(got[0])]), [0, 0, 1], atol=1e-12)


def test_semi_axes_reproduce_random_inertia():
    rng = np.random.default_rng(3)
    n = 50
    mass = rng.uniform(0.3, 15, n)
    inertia = []
    for _ in range(n):
        d = rng.uniform(0.01, 0.3, 3)
        d[2] = rng.uniform(abs(d[0] - d[1]) + 1e-3, d[0] + d[1])
        Q = _random_rotation(rng)
        inertia.append(Q @ np.diag(d) @ Q.T)
    inertia = np.array(inertia)
    semi, axes = ellipsoid_semi_axes(mass, inertia)
    np.testing.assert_allclose(np.linalg.det(axes), 1.0, atol=1e-12)
    for k in range(n):
        back = axes[k] @ np.diag(ellipsoid_inertia(mass[k], semi[k])) @ axes[k].T
        np.testing.assert_allclose(back, inertia[k], atol=1e-12 * inertia[k].max(), rtol=1e-10)


def test_drawn_ellipsoid_has_the_segment_inertia_in_ground(scene, walk):
    """Fill the drawn mesh with points (Monte Carlo) and compare its inertia with Results.inertia."""
    model, _, res = walk
    rng = np.random.default_rng(0)
    frame = 25
    for name in ("right_upper_leg", "left_foot"):
        k = model.names.index(name)
        mesh = scene.segment_mesh(k, frame, resolution=48)
        lo, hi = np.array(mesh.bounds).reshape(3, 2).T
        pts = rng.uniform(lo, hi, size=(20000, 3))
        cloud = pv.PolyData(pts).compute_implicit_distance(mesh)
        inside = pts[cloud["implicit_distance"] < 0]
        volume = np.prod(hi - lo) * len(inside) / len(pts)
        centre = inside.mean(axis=0)
        d = inside - centre
        second = d.T @ d / len(inside)  # per unit mass
        I_mc = model.mass[k] * (np.trace(second) * np.eye(3) - second)
        np.testing.assert_allclose(centre, res.com[frame, k], atol=0.01 * scene.semi[k].max())
        np.testing.assert_allclose(I_mc, res.inertia[frame, k], atol=0.04 * np.abs(res.inertia[frame, k]).max())
        a, b, c = scene.semi[k]
        assert volume == pytest.approx(4 / 3 * np.pi * a * b * c, rel=0.04)


def test_pick_segment_finds_each_mass_centre(scene):
    for frame in (0, 40):
        for k in range(scene.n_segments):
            # a point just inside the ellipsoid along its first principal axis
            M = scene.ellipsoid_matrices(frame)[k]
            p = M[:3, 3] + 0.5 * M[:3, 0]
            assert scene.pick_segment(p, frame) == k


def test_floor_and_bounds(scene):
    assert scene.floor_z == 0.0  # the feet reach z ~ 0 in this walk
    box = scene.bounds()
    assert box[1, 0] - box[0, 0] > 1.2  # walked forward
    assert 1.7 < box[1, 2] - box[0, 2] < 2.0
    lifted = Scene(scene.model, _shifted(scene.results, dz=-0.6))
    assert lifted.floor_z == pytest.approx(lifted.lowest_point_over_trial(), abs=1e-9)


def _shifted(res, dz):
    import dataclasses

    return dataclasses.replace(res, com=res.com + [0, 0, dz], joint=res.joint + [0, 0, dz],
                               body_com=res.body_com + [0, 0, dz])


def test_vector_scale_makes_longest_arrow_fixed(scene, walk):
    _, _, res = walk
    for layer, attr in (("omega", res.omega), ("force", res.force), ("torque", res.torque)):
        top = np.linalg.norm(attr, axis=-1).max()
        assert scene.vector_scale[layer] * top == pytest.approx(ARROW_LENGTH)
        f, k = np.unravel_index(np.argmax(np.linalg.norm(attr, axis=-1)), attr.shape[:2])
        arrows = scene.arrows(layer, f)
        # the longest arrow's tip lies ARROW_LENGTH from its segment's mass centre
        tip = res.com[f, k] + attr[f, k] / np.linalg.norm(attr[f, k]) * ARROW_LENGTH
        assert np.linalg.norm(arrows.points - tip, axis=1).min() < 0.01
    assert scene.vector_scale["grf"] == 0.0 and not scene.has_grf


def test_segment_values_text(scene, walk):
    _, _, res = walk
    k = scene.names.index("head")
    lines = scene.segment_values(k, 10)
    assert lines[0].startswith("head")
    assert f"{res.force[10, k, 2]:+8.2f}" in lines[5]


def test_selected_joint_shows_its_clinical_angles(walk, tmp_path):
    from humanbody.mechanics.clinical import clinical_angles

    model, coords, res = walk
    clinical = clinical_angles(model, coords)
    sc = Scene(model, res, clinical=clinical)
    k = sc.names.index("right_lower_leg")
    lines = sc.segment_values(k, 10)
    knee = [line for line in lines if line.startswith("right knee flexion")]
    assert knee and f"{clinical['right_knee_flexion_deg'].iloc[10]:+7.1f} deg" in knee[0]
    assert any(line.startswith("right knee internal rotation") for line in lines)
    foot = sc.segment_values(sc.names.index("right_foot"), 10)
    assert any(line.startswith("right foot progression") for line in foot)
    assert any(line.startswith("pelvis tilt") for line in sc.segment_values(0, 10))
    assert not Scene(model, res).joint_angle_lines(k, 10)  # no clinical table: the mechanics only
    # a results table written by analyze carries the clinical columns: the viewer reads them back
    table = pd.concat([res.to_dataframe(), clinical], axis=1)
    table.to_csv(tmp_path / "walk_results.csv", index=False)
    model.save(tmp_path / "walk_model.json")
    reopened, _ = load_scene(tmp_path / "walk_results.csv")
    assert reopened.segment_values(k, 10)[-3:] == lines[-3:]


def test_joint_moment_layer_follows_the_selection(walk):
    model, _, res = walk
    moment = np.random.default_rng(1).normal(0, 30, res.joint.shape)
    sc = Scene(model, res, joint_moment=moment)
    assert sc.vector_scale["moment"] > 0
    assert sc.vectors("moment", 5)[0].shape == (0, 3)  # nothing selected: no arrow
    k = sc.names.index("right_lower_leg")
    sc.selected = k
    origin, value = sc.vectors("moment", 5)
    np.testing.assert_array_equal(origin, res.joint[5, k][None])
    np.testing.assert_array_equal(value, moment[5, k][None])
    assert Scene(model, res).vector_scale["moment"] == 0.0


def test_scene_from_an_analysis_with_loads_draws_them(tmp_path):
    from humanbody.viewer.load import load_scene as load

    data = Path(__file__).resolve().parents[2] / "data"
    t = np.linspace(0, 5, 11)
    pd.DataFrame({"time": t, "L_force_x": 0 * t, "L_force_y": 0 * t, "L_force_z": 700 + 0 * t,
                  "L_point_x": 0.2 + 0 * t, "L_point_y": -0.1 + 0 * t, "L_point_z": 0 * t}).to_csv(
        tmp_path / "loads.csv", index=False)
    sc, messages = load(data / "sample_walk_markers.trc", static=data / "sample_static.trc",
                        forces=tmp_path / "loads.csv", load_segments={"L": "right_foot"})
    assert sc.has_grf and sc.joint_moment is not None and sc.joint_moment.shape == sc.results.joint.shape
    origin, value = sc.vectors("grf", 10)
    np.testing.assert_allclose(value, [[0.0, 0.0, 700.0]], atol=1e-6)
    np.testing.assert_allclose(origin[0, :2], [0.2, -0.1], atol=1e-9)
    assert any("L -> right_foot (named)" in m for m in messages)


# --------------------------------------------------------------------- markers
def _markers_on(scene, names_segments, offset=(0.0, 0.0, 0.0)):
    """Marker table: one marker at each listed segment's mass centre (+ offset), every frame."""
    data = {"time": scene.time}
    for marker, seg in names_segments.items():
        k = scene.names.index(seg)
        for j, a in enumerate("xyz"):
            data[f"{marker}_{a}"] = scene.results.com[:, k, j] + offset[j]
    return pd.DataFrame(data)


def test_markers_take_the_residual_of_their_nearest_segment(walk, scene):
    model, _, res = walk
    placed = {"R.Shank": "right_lower_leg", "L.Thigh": "left_upper_leg", "Head.Top": "head"}
    markers = _markers_on(scene, placed)
    resid = pd.DataFrame({"time": res.time, "right_lower_leg": 0.004, "left_upper_leg": 0.011, "head": 0.002})
    sc = Scene(model, res, markers=markers, residuals=resid)
    assert sc.marker_names == tuple(placed)
    np.testing.assert_allclose(sc.marker_residuals(5), [0.004, 0.011, 0.002])
    np.testing.assert_allclose(sc.marker_points(7)[2], res.com[7, model.names.index("head")])
    # an explicit marker -> segment map wins over the nearest segment
    sc2 = Scene(model, res, markers=markers, residuals=resid, marker_segments={"Head.Top": "left_upper_leg"})
    assert sc2.marker_residuals(5)[2] == pytest.approx(0.011)


def test_markers_resampled_to_results_time(walk, scene):
    model, _, res = walk
    fine_t = np.linspace(res.time[0], res.time[-1], 4 * len(res.time))
    markers = pd.DataFrame({"time": fine_t, "M_x": 2 * fine_t, "M_y": 0 * fine_t, "M_z": 1 + 0 * fine_t})
    sc = Scene(model, res, markers=markers)
    np.testing.assert_allclose(sc.marker_points(11)[0], [2 * res.time[11], 0, 1], atol=1e-12)


# ------------------------------------------------------------------------ GRF
def test_grf_opensim_axes_to_ground(walk, tmp_path):
    """An OpenSim force file (lab Y up) read as the viewer reads it (:func:`humanbody.io.loads.read_loads`)."""
    model, _, res = walk
    t = res.time
    lab = pd.DataFrame({
        "time": t,
        "ground_force_vx": 50.0 + 0 * t, "ground_force_vy": 700.0 + 0 * t, "ground_force_vz": 30.0 + 0 * t,
        "ground_force_px": 0.5 + 0 * t, "ground_force_py": 0.0 * t, "ground_force_pz": 0.1 + 0 * t,
        "1_ground_force_vx": 0 * t, "1_ground_force_vy": 5.0 + 0 * t, "1_ground_force_vz": 0 * t,
        "1_ground_force_px": 0 * t, "1_ground_force_py": 0 * t, "1_ground_force_pz": 0 * t,
    })
    assert plate_prefixes(lab.columns) == ["ground_force_", "1_ground_force_"]
    path = tmp_path / "walk_grf.mot"
    write_storage(path, "grf", list(lab.columns[1:]), t, lab.to_numpy()[:, 1:], in_degrees=False)
    grf = read_loads(path)  # vertical detected: lab y carries the body weight -> OpenSim axes
    assert grf.names == ["ground_force", "1_ground_force"]
    np.testing.assert_allclose(grf.force[0, 0], [50.0, -30.0, 700.0])
    np.testing.assert_allclose(grf.point[0, 0], [0.5, -0.1, 0.0])
    sc = Scene(model, res, grf=grf)
    origin, value = sc.vectors("grf", 3)
    assert origin.shape == (1, 3)  # the 5 N plate is left out (no defined centre of pressure)
    np.testing.assert_allclose(value[0], [50.0, -30.0, 700.0])
    assert sc.vector_scale["grf"] * np.linalg.norm(value[0]) == pytest.approx(ARROW_LENGTHS["grf"])


# ---------------------------------------------------------------- loading files
def test_results_table_reopens_with_its_model(tmp_path, walk):
    model, _, res = walk
    table = res.to_dataframe()
    table["head_force_z"] *= 2.0  # the viewer must show what the file says
    table.to_csv(tmp_path / "walk_results.csv", index=False)
    model.save(tmp_path / "walk_model.json")
    sc, messages = load_scene(tmp_path / "walk_results.csv")
    k = model.names.index("head")
    np.testing.assert_allclose(sc.results.R, res.R, atol=1e-9)
    np.testing.assert_allclose(sc.results.force[:, k, 2], 2.0 * res.force[:, k, 2])
    np.testing.assert_allclose(sc.results.com, res.com, atol=1e-9)
    assert "walk_results.csv" in messages[0]


def test_results_table_without_model_is_an_input_error(tmp_path, walk):
    _, _, res = walk
    res.to_dataframe().to_csv(tmp_path / "x_results.csv", index=False)
    with pytest.raises(InputError, match="x_model.json"):
        load_scene(tmp_path / "x_results.csv")


def test_missing_file_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_scene(tmp_path / "nope.trc")


# ------------------------------------------------------------------- rendering
_PROBE = """
from humanbody.viewer.render import prepare_offscreen
prepare_offscreen()
import pyvista as pv
p = pv.Plotter(off_screen=True, window_size=(64, 64))
p.add_mesh(pv.Sphere())
img = p.screenshot(return_img=True)
assert img.std() > 0
print("ok")
"""


@pytest.fixture(scope="session")
def can_render():
    try:
        out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        pytest.skip("off-screen rendering probe timed out")
    if out.returncode != 0 or "ok" not in out.stdout:
        import re

        tail = re.sub(r"\x1b\[[0-9;]*m", "", (out.stderr.strip().splitlines() or ["?"])[-1])
        pytest.skip(f"off-screen rendering is not possible here: {tail}")
    from humanbody.viewer import prepare_offscreen

    prepare_offscreen()
    return True


def _app(scene, layers, size=(480, 360)):
    from humanbody.viewer import ViewerApp

    return ViewerApp(scene, off_screen=True, window_size=size, layers=layers, camera="side")


def _changed(a, b, tol=10):
    return np.abs(a.astype(int) - b.astype(int)).max(axis=2) > tol


@pytest.mark.viewer
def test_picture_contains_the_body(can_render, scene):
    empty = _app(scene, layers=[])
    body = _app(scene, layers=["segments"])
    try:
        bg, img = empty.image(), body.image()
    finally:
        empty.close()
        body.close()
    mask = _changed(bg, img)
    assert 0.03 < mask.mean() < 0.5  # the figure, not an empty or a flooded picture
    rows = np.flatnonzero(mask.any(axis=1))
    assert (rows[-1] - rows[0]) / img.shape[0] > 0.6  # a standing figure spans most of the height


@pytest.mark.viewer
def test_frames_differ_and_layers_change_the_picture(can_render, scene):
    app = _app(scene, layers=None)
    try:
        app.set_frame(0)
        first = app.image()
        app.set_frame(30)
        later = app.image()
        assert _changed(first, later).mean() > 0.01
        app.set_frame(30)
        assert not _changed(later, app.image()).any()  # same frame, same picture
        app.show_layer("force", True)
        with_force = app.image()
        assert _changed(later, with_force).mean() > 0.001
        app.toggle("force")
        assert not app.visible["force"]
        app.toggle("floor")
        assert _changed(later, app.image()).mean() > 0.001
        app.toggle_help()
        assert "play / pause" in app.texts["upper_right"]
    finally:
        app.close()


@pytest.mark.viewer
def test_playing_advances_in_real_time(can_render, scene):
    app = _app(scene, layers=["segments"])
    try:
        app.play()
        app.advance(0.25)  # 0.25 s at 60 Hz = 15 frames
        assert app.frame == 15
        app.change_speed(2.0)
        app.advance(0.25)
        assert app.frame == 45
        app.advance(1.0)  # past the end: loops
        assert app.frame == (45 + 120) % scene.n_frames
        app.toggle_loop()
        app.advance(10.0)
        assert app.frame == scene.n_frames - 1 and not app.playing
    finally:
        app.close()


# ---------------------------------------------------------------------- CLI
@pytest.fixture()
def trial_files(tmp_path, walk):
    model, coords, _ = walk
    path = tmp_path / "walk.csv"
    coords.iloc[:30].to_csv(path, index=False)
    model.save(tmp_path / "model.json")
    return path, tmp_path / "model.json"


def _cli(argv):
    from humanbody.cli import main

    return main(argv)


@pytest.mark.viewer
def test_cli_screenshot_and_gif(can_render, trial_files, tmp_path):
    import imageio.v3 as iio

    trial, model = trial_files
    png = tmp_path / "shot.png"
    assert _cli(["view", str(trial), "--model", str(model), "--screenshot", str(png), "--frame", "5",
                 "--size", "320x240", "-q", "--show", "segments,joints,omega"]) == 0
    img = iio.imread(png)
    assert img.shape[:2] == (240, 320)
    assert img.std() > 10
    gif = tmp_path / "walk.gif"
    assert _cli(["view", str(trial), "--model", str(model), "--movie", str(gif), "--fps", "10",
                 "--size", "160x120", "-q"]) == 0
    frames = iio.imread(gif, index=None)
    assert frames.shape[0] == 5  # 0.5 s of trial at 10 pictures per second
    assert np.abs(frames[0].astype(int) - frames[-1].astype(int)).max() > 0


@pytest.mark.parametrize(
    "extra, expect",
    [
        (["--size", "big"], "--size"),
        (["--frame", "999", "--screenshot", "x.png"], "--frame 999"),
        (["--screenshot", "x.jpg"], ".png"),
        (["--movie", "x.avi"], ".mp4 or .gif"),
        (["--show", "segments,nonsense", "--screenshot", "x.png"], "nonsense"),
    ],
)
def test_cli_bad_input_is_one_line_exit_2(trial_files, tmp_path, capsys, extra, expect):
    trial, model = trial_files
    extra = [str(tmp_path / e) if e.startswith("x.") else e for e in extra]
    status = _cli(["view", str(trial), "--model", str(model), "-q", *extra])
    err = capsys.readouterr().err.strip()
    assert status == 2
    assert len(err.splitlines()) == 1 and expect in err and "Traceback" not in err


def test_cli_missing_trial(tmp_path, capsys):
    assert _cli(["view", str(tmp_path / "missing.trc"), "--screenshot", str(tmp_path / "a.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing.trc: no such file" in err[0]


def test_cli_window_without_display_says_so(trial_files, monkeypatch, capsys):
    trial, model = trial_files
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    if not sys.platform.startswith("linux"):
        pytest.skip("display detection is for Linux")
    assert _cli(["view", str(trial), "--model", str(model)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--screenshot" in err[0]


def test_app_entry_point_is_thin():
    text = (Path(__file__).resolve().parents[2] / "apps" / "humanbody_view.py").read_text()
    assert 'main(["view"' in text and len(text.splitlines()) < 20


# ------------------------------------------------------------ the shared walk
def test_shared_walk_markers_residuals_and_ground_reaction_under_a_foot(shared_data):
    trial, static, grf = (shared_data / "gait2392_walk" / n for n in ("subject01_walk1.trc", "subject01_static.trc",
                                                                      "subject01_walk1_grf.mot"))
    sc, messages = load_scene(trial, static=static, grf=grf)
    assert sc.has_markers and sc.has_residuals and sc.has_grf
    assert len(sc.marker_names) == 41 and sc.floor_z == 0.0
    res = np.array([sc.marker_residuals(f) for f in range(sc.n_frames)])
    assert np.isfinite(res).mean() > 0.9 and np.nanmedian(res) < 0.02  # metres
    feet = [sc.names.index(n) for n in ("right_foot", "left_foot")]
    checked = 0
    for f in range(0, sc.n_frames, 5):
        origin, force = sc.vectors("grf", f)
        for p, F in zip(origin, force, strict=True):
            if F[2] < 200:  # a loaded plate: the centre of pressure is under a foot, the force points up
                continue
            to_foot = np.linalg.norm(sc.coms(f)[feet, :2] - p[:2], axis=1).min()
            assert to_foot < 0.2, (f, to_foot)
            assert F[2] > 0.8 * np.linalg.norm(F)
            checked += 1
    assert checked > 10


@pytest.mark.viewer
def test_camera_attached_to_a_segment_turns_with_it(can_render, scene):
    """--follow SEGMENT: the camera keeps its pose in the segment's axes from frame to frame."""
    app = _app(scene, layers=["segments"])
    try:
        app.set_camera("follow:head", render=False)
        k = scene.names.index("head")
        local = []
        for f in (0, 20, 40):
            app.set_frame(f, render=False)
            cam = app.plotter.camera
            R, O = scene.results.R[f, k], scene.results.joint[f, k]
            local.append((R.T @ (np.array(cam.position) - O), R.T @ np.array(cam.up)))
        for pos, up in local[1:]:
            np.testing.assert_allclose(pos, local[0][0], atol=1e-6)
            np.testing.assert_allclose(up, local[0][1], atol=1e-6)
        with pytest.raises(KeyError, match="no segment 'tail'"):
            app.set_camera("follow:tail")
    finally:
        app.close()


def _late_start(tmp_path):
    """The sample keypoint walk with its first 5 frames empty (the subject not yet seen): no pose there."""
    src = Path(__file__).resolve().parents[2] / "data" / "sample_walk_keypoints.trc"
    lines = src.read_text().split("\n")
    done = 0
    for i in range(5, len(lines)):
        fields = lines[i].split("\t")
        if done < 5 and len(fields) > 5:
            lines[i] = "\t".join(fields[:2] + [""] * (len(fields) - 2))
            done += 1
    path = tmp_path / "late.trc"
    path.write_text("\n".join(lines))
    return path


def test_frames_without_a_pose_leave_floor_bounds_and_pelvis_finite(tmp_path):
    from humanbody.options import AnalysisOptions

    scene, _ = load_scene(_late_start(tmp_path), AnalysisOptions(mass=75.0, height=1.75))
    assert not np.isfinite(scene.results.joint[0]).any()  # the frame has no pose
    assert np.isfinite(scene.floor_z)
    assert np.isfinite(scene.bounds()).all() and np.isfinite(scene.bounds(0)).all()
    assert np.isfinite(scene.pelvis(0)).all() and np.allclose(scene.pelvis(0), scene.pelvis(5))


@pytest.mark.viewer
def test_screenshot_of_a_trial_whose_first_frames_have_no_pose(can_render, tmp_path):
    import imageio.v3 as iio

    path = _late_start(tmp_path)
    for frame in (0, 10):
        png = tmp_path / f"late{frame}.png"
        assert _cli(["view", str(path), "--screenshot", str(png), "--frame", str(frame),
                     "--size", "320x240", "-q"]) == 0
    assert iio.imread(tmp_path / "late10.png").std() > 10  # the body is drawn where it has a pose

"""``humanbody view COORDINATES --model MODEL.osim --screenshot PNG``: the model's bodies and muscle paths,
off screen, and the paths coloured by an activations table."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main

pytest.importorskip("pyvista")


def _files(shared_data):
    return (shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim",
            shared_data / "gait2392_walk" / "reference" / "opensim_ik.mot")


def _colours(png) -> np.ndarray:
    from PIL import Image  # lazy: pyvista's own dependency, the test's reader

    return np.asarray(Image.open(png).convert("RGB")).reshape(-1, 3).astype(int)


def test_scene_holds_the_models_bodies_and_paths(shared_data):
    from humanbody.muscles import MuscleGeometry, read_model_coordinates
    from humanbody.osim import read_osim
    from humanbody.viewer.osim_scene import load_osim_scene

    model_path, ik = _files(shared_data)
    scene = load_osim_scene(ik, model_path)
    model = read_osim(model_path)
    _, q = read_model_coordinates(ik, model)
    points, counts = MuscleGeometry.of(model).path_points(q)
    assert scene.origins.shape == (len(q), len(model.body_names), 3)
    np.testing.assert_array_equal(scene.counts, counts)
    # the muscles' origin points ride on their bodies: a point's distance to its body's origin stays put
    pelvis = model.body_names.index("pelvis")
    d = np.linalg.norm(scene.paths[:, 0, 0] - scene.origins[:, pelvis], axis=1)
    assert model.muscles[0].points[0].body == "pelvis" and np.ptp(d) < 1e-12
    assert scene.parents[model.body_names.index("femur_r")] == pelvis


def test_screenshot_draws_muscles_by_activation(shared_data, tmp_path, capsys):
    model_path, ik = _files(shared_data)
    plain = tmp_path / "plain.png"
    assert main(["view", str(ik), "--model", str(model_path), "--screenshot", str(plain), "--frame", "50",
                 "--size", "320x400", "-q"]) == 0
    px = _colours(plain)
    red = (px[:, 0] > 150) & (px[:, 1] < 80) & (px[:, 2] < 80)
    assert red.sum() > 500                                  # the muscle paths, drawn red
    # activations: the right leg's muscles at 0 (blue), the left's at 1 (red)
    from humanbody.osim import read_osim

    muscles = read_osim(model_path).muscle_names
    table = pd.DataFrame({"time": [0.0, 10.0], **{m: [float(m.endswith("_l"))] * 2 for m in muscles}})
    table.to_csv(tmp_path / "walk_activations.csv", index=False)
    coloured = tmp_path / "coloured.png"
    assert main(["view", str(ik), "--model", str(model_path), "--screenshot", str(coloured), "--frame", "50",
                 "--size", "320x400", "--activations", str(tmp_path / "walk_activations.csv"), "-q"]) == 0
    px = _colours(coloured)
    blue = (px[:, 2] > 120) & (px[:, 0] < 100)
    red = (px[:, 0] > 120) & (px[:, 2] < 100)
    assert blue.sum() > 200 and red.sum() > 200


def test_osim_view_bad_input_one_line(shared_data, tmp_path, capsys):
    model_path, ik = _files(shared_data)
    bad = tmp_path / "acts.csv"
    bad.write_text("time,foo\n0,1\n")
    capsys.readouterr()
    assert main(["view", str(ik), "--model", str(model_path), "--screenshot", str(tmp_path / "x.png"),
                 "--activations", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "no column of the activations table names a muscle" in err

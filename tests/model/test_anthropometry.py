"""Tests of the scaled de Leva (1996) 17-segment model (humanbody.model.anthropometry)."""

import numpy as np
import pytest

from humanbody import BodyModel, InputError
from humanbody.model.anthropometry import REFERENCE_STATURE, de_leva_table, principal_inertia, validate_subject
from humanbody.model.body import default_model
from humanbody.model.segments import PARENTS, SEGMENT_NAMES


def _reference_pose(model):
    """Joint origins O_k and mass centres G_k in ground, sole at z = 0."""
    O = np.zeros((model.n_bodies, 3))
    base = np.array([0.0, 0.0, model.meta["reference_pose"]["lower_torso_height"]])
    for k in range(model.n_bodies):
        L = model.parents[k]
        O[k] = (O[L - 1] if L else base) + model.joint_offset[k]  # all frames parallel to ground
    return O, O + model.com_offset


def _whole_com(model):
    _, G = _reference_pose(model)
    return model.mass @ G / model.total_mass


# ----------------------------------------------------------------- the table
@pytest.mark.parametrize(
    "sex, row, column, value",
    [  # de Leva 1996, Table 4, typed independently of the CSV
        ("male", "thigh", "mass", 0.1416),
        ("male", "thigh", "com", 0.4095),
        ("male", "thigh", "length", 0.4222),
        ("male", "upper_trunk", "r_sag", 0.716),
        ("male", "lower_trunk", "com", 0.6115),
        ("male", "head_cerv", "length", 0.2429),
        ("male", "foot", "r_long", 0.124),
        ("female", "thigh", "mass", 0.1478),
        ("female", "thigh", "length", 0.3685),
        ("female", "hand", "com", 0.7474),
        ("female", "middle_trunk", "r_trans", 0.354),
        ("female", "shank_ajc", "length", 0.4386),
    ],
)
def test_de_leva_spot_values(sex, row, column, value):
    assert de_leva_table(sex)[row][column] == pytest.approx(value, abs=1e-12)


def test_trunk_parts_add_up_to_the_trunk():
    for sex in ("male", "female"):
        t = de_leva_table(sex)
        parts = ("upper_trunk", "middle_trunk", "lower_trunk")
        assert sum(t[p]["mass"] for p in parts) == pytest.approx(t["trunk"]["mass"], abs=1e-9)
        assert sum(t[p]["length"] for p in parts) == pytest.approx(t["trunk"]["length"], abs=1e-9)


def test_published_mass_fractions_sum_to_one():
    limbs = ("upper_arm", "forearm", "hand", "thigh", "shank", "foot")
    for sex, expected in (("male", 1.0), ("female", 0.9999)):
        t = de_leva_table(sex)
        total = t["head"]["mass"] + t["trunk"]["mass"] + 2 * sum(t[p]["mass"] for p in limbs)
        assert total == pytest.approx(expected, abs=1e-9)


def test_radii_satisfy_the_triangle_inequality():
    for sex in ("male", "female"):
        for name, row in de_leva_table(sex).items():
            I = np.sort([row["r_sag"] ** 2, row["r_trans"] ** 2, row["r_long"] ** 2])
            assert I[0] + I[1] >= I[2], (sex, name)


def test_principal_inertia():
    I = principal_inertia(2.0, 0.5, (0.1, 0.2, 0.3))
    np.testing.assert_allclose(I, np.diag([2 * 0.05**2, 2 * 0.1**2, 2 * 0.15**2]))


# ----------------------------------------------------------------- the model
@pytest.mark.parametrize("sex", ["male", "female"])
@pytest.mark.parametrize("mass, height", [(75.0, 1.75), (48.3, 1.52), (120.0, 2.05)])
def test_masses_sum_to_subject_mass(sex, mass, height):
    model = default_model(mass, height, sex)
    assert model.total_mass == pytest.approx(mass, rel=1e-12)
    assert np.all(model.mass > 0)


def test_tree_and_names():
    model = BodyModel.default(mass=70.0, height=1.70)
    assert model.names == SEGMENT_NAMES
    assert tuple(model.parents) == PARENTS
    assert model.name == "huston17"
    assert np.all(model.joint_offset[0] == 0)


@pytest.mark.parametrize("sex", ["male", "female"])
def test_inertia_spd_and_triangle(sex):
    model = default_model(75.0, 1.75, sex)
    for k, I in enumerate(model.inertia):
        np.testing.assert_allclose(I, I.T, atol=0)
        ev = np.linalg.eigvalsh(I)
        assert ev[0] > 0, SEGMENT_NAMES[k]
        assert ev[0] + ev[1] >= ev[2] * (1 - 1e-12), SEGMENT_NAMES[k]


def test_limb_values_follow_the_table():
    """Thigh of a 80 kg, 1.80 m man computed by hand from Table 4."""
    model = default_model(80.0, 1.80, "male")
    k = model.index("right_upper_leg")
    s = 1.80 / 1.741
    L = 0.4222 * s
    m = 0.1416 * 80.0
    assert model.mass[k - 1] == pytest.approx(m, rel=1e-12)
    np.testing.assert_allclose(model.com_offset[k - 1], [0, 0, -0.4095 * L], atol=1e-12)
    np.testing.assert_allclose(
        np.diag(model.inertia[k - 1]), m * (np.array([0.329, 0.329, 0.149]) * L) ** 2, rtol=1e-12
    )
    # the knee is one thigh length below the hip; the hip is beside O_1
    np.testing.assert_allclose(model.joint_offset[model.segment("right_lower_leg")], [0, 0, -L], atol=1e-12)
    assert model.joint_offset[k - 1][1] < 0 and model.joint_offset[model.segment("left_upper_leg")][1] > 0
    assert model.segment_meta[k - 1]["length"] == pytest.approx(L)
    assert "de Leva" in model.segment_meta[k - 1]["source"]


def test_axis_mapping_upper_trunk_and_foot():
    """Sagittal radius about x (antero-posterior), transverse about y; foot long axis x."""
    model = default_model(73.0, 1.741, "male")
    ut = np.diag(model.inertia[model.segment("upper_torso")])
    m = model.mass[model.segment("upper_torso")]
    L = 0.1707
    np.testing.assert_allclose(ut, m * (np.array([0.716, 0.454, 0.659]) * L) ** 2, rtol=1e-12)
    foot = np.diag(model.inertia[model.segment("left_foot")])
    mf = model.mass[model.segment("left_foot")]
    np.testing.assert_allclose(foot, mf * (np.array([0.124, 0.245, 0.257]) * 0.2581) ** 2, rtol=1e-12)


def test_downward_and_upward_segments():
    model = default_model(75.0, 1.75)
    for name in ("upper_arm", "lower_arm", "hand", "upper_leg", "lower_leg"):
        for side in ("left", "right"):
            assert model.com_offset[model.segment(f"{side}_{name}")][2] < 0
    for name in ("lower_torso", "middle_torso", "upper_torso", "neck", "head"):
        assert model.com_offset[model.segment(name)][2] > 0
    foot = model.com_offset[model.segment("right_foot")]
    assert foot[0] > 0 and foot[2] < 0
    # left and right mirror each other
    left = [model.segment(f"left_{n}") for n in ("upper_arm", "upper_leg", "foot")]
    right = [model.segment(f"right_{n}") for n in ("upper_arm", "upper_leg", "foot")]
    mirror = np.array([1.0, -1.0, 1.0])
    np.testing.assert_allclose(model.joint_offset[left], model.joint_offset[right] * mirror)
    np.testing.assert_allclose(model.com_offset[left], model.com_offset[right] * mirror)
    np.testing.assert_allclose(model.mass[left], model.mass[right])


def test_head_and_neck_together_equal_de_leva_head():
    """The split keeps de Leva's head+neck mass, mass centre and inertia."""
    mass, height = 73.0, 1.741
    model = default_model(mass, height, "male")
    row = de_leva_table("male")["head_cerv"]
    O, G = _reference_pose(model)
    n, h = model.segment("neck"), model.segment("head")
    m = model.mass[[n, h]]
    assert m.sum() == pytest.approx(row["mass"] * mass)
    g = (m[0] * G[n] + m[1] * G[h]) / m.sum()
    # de Leva: mass centre 50.02 % of VERT-CERV below the vertex (= top of stature)
    assert g[2] == pytest.approx(height - row["com"] * row["length"], abs=1e-12)
    I = sum(model.inertia[i] + model.mass[i] * ((G[i] - g) @ (G[i] - g) * np.eye(3) - np.outer(G[i] - g, G[i] - g))
            for i in (n, h))
    np.testing.assert_allclose(
        I, principal_inertia(m.sum(), row["length"], (row["r_sag"], row["r_trans"], row["r_long"])), rtol=1e-12
    )
    # the vertex is at the subject's height
    assert O[h][2] + model.segment_meta[h]["length"] == pytest.approx(height)


@pytest.mark.parametrize("sex", ["male", "female"])
def test_scaling_laws(sex):
    a = default_model(60.0, 1.60, sex)
    b = default_model(90.0, 1.60, sex)  # mass x 1.5, same height
    c = default_model(60.0, 2.00, sex)  # height x 1.25, same mass
    np.testing.assert_allclose(b.mass, 1.5 * a.mass, rtol=1e-12)
    np.testing.assert_allclose(b.inertia, 1.5 * a.inertia, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(b.joint_offset, a.joint_offset, atol=1e-15)
    np.testing.assert_allclose(c.mass, a.mass, rtol=1e-12)
    np.testing.assert_allclose(c.joint_offset, 1.25 * a.joint_offset, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(c.com_offset, 1.25 * a.com_offset, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(c.inertia, 1.25**2 * a.inertia, rtol=1e-12, atol=1e-15)
    lengths = lambda m: np.array([s["length"] for s in m.segment_meta])  # noqa: E731
    np.testing.assert_allclose(lengths(c), 1.25 * lengths(a), rtol=1e-12)


def test_reference_statures_give_table_lengths():
    for sex in ("male", "female"):
        model = default_model(70.0, REFERENCE_STATURE[sex], sex)
        t = de_leva_table(sex)
        assert model.segment_meta[model.segment("left_lower_arm")]["length"] == pytest.approx(t["forearm"]["length"])


def test_female_and_male_differ():
    m, f = default_model(65.0, 1.70, "male"), default_model(65.0, 1.70, "female")
    assert not np.allclose(m.mass, f.mass)
    assert not np.allclose(m.inertia, f.inertia)
    # women: relatively heavier thighs and lower torso (de Leva Table 4)
    for name in ("right_upper_leg", "lower_torso"):
        assert f.mass[f.segment(name)] > m.mass[m.segment(name)]


@pytest.mark.parametrize("sex", ["male", "female"])
@pytest.mark.parametrize("height", [1.55, 1.75, 1.95])
def test_whole_body_mass_centre_height(sex, height):
    """Standing mass-centre height is about 0.55-0.58 of stature (e.g. Winter 2009)."""
    g = _whole_com(default_model(70.0, height, sex))
    assert 0.55 * height <= g[2] <= 0.58 * height
    assert abs(g[1]) < 1e-12  # symmetric
    assert 0 <= g[0] < 0.01 * height  # slightly forward of the hips (feet)


def test_meta_and_json_round_trip(tmp_path):
    model = default_model(68.0, 1.72, "female")
    assert model.meta["subject"] == {"mass": 68.0, "height": 1.72, "sex": "female"}
    assert "de Leva" in model.meta["source"]
    path = tmp_path / "subject.json"
    model.save(path)
    from humanbody import load_model

    back = load_model(path)
    np.testing.assert_array_equal(back.inertia, model.inertia)
    assert back.meta["subject"]["sex"] == "female"
    assert back.segment_meta[7]["length"] == model.segment_meta[7]["length"]


@pytest.mark.parametrize(
    "mass, height, words",
    [
        (75.0, 175.0, "height 175 m is not plausible"),
        (75.0, 0.0, "height must be a positive"),
        (75.0, -1.7, "height must be a positive"),
        (75.0, float("nan"), "height must be a positive finite"),
        (75.0, float("inf"), "height must be a positive finite"),
        (75000.0, 1.75, "mass 75000 kg is not plausible"),
        (0.5, 1.75, "mass 0.5 kg is not plausible"),
        ("heavy", 1.75, "mass 'heavy' is not a number"),
        (None, 1.75, "mass None is not a number"),
    ],
)
def test_implausible_inputs_rejected(mass, height, words):
    with pytest.raises(InputError, match=words):
        default_model(mass, height)


def test_unknown_sex_rejected():
    with pytest.raises(InputError, match="sex 'other' is not known"):
        default_model(70.0, 1.7, "other")


def test_validate_subject_returns_floats():
    assert validate_subject(70, 2) == (70.0, 2.0)

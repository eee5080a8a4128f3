"""Plug-in Gait's leg segment inertia (Dempster's, as Vicon applies it), from the set's ``segment_inertia`` table.

A synthetic Plug-in Gait static is calibrated with the ``plug_in_gait`` set; the model's thighs, shanks and feet
must carry the table's masses (fractions of the body mass), mass centres (on the line from the proximal joint
centre to the distal one at 0.433 of it; the foot's on its long axis from the ankle centre at half the heel-to-
toe length less the marker radius) and inertias (m (r L)^2 about the axes normal to the long axis), measured
here in ground from the calibration's own joint centres and markers, not from the code's arithmetic.  The other
segments keep de Leva's proportions and the total stays the body mass.  The shared Nexus trial's test
(tests/integration/test_vicon_outputs.py) shows where the numbers come from.
"""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.errors import InputError
from humanbody.markers.calibration import calibrate
from humanbody.markers.markerset import load_markerset
from humanbody.markers.segment_inertia import segment_inertia_table
from humanbody.model.body import default_model
from humanbody.model.segments import SEGMENT_NAMES
from humanbody.tools.draft import draft_markerset
from tests.markers.test_plug_in_gait import STATIC, SUBJECT, _table, place

TABLE = {"upper_leg": (0.100, 0.433, 0.540), "lower_leg": (0.0465, 0.433, 0.528), "foot": (0.0145, 0.5, 0.475)}


@pytest.fixture(scope="module")
def cal():
    F0 = 3
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (F0, 1)))
    return calibrate(_table(static_m, np.arange(F0) / 100), "plug_in_gait", mass=SUBJECT.mass, height=1.78,
                     subject=SUBJECT), static_m


def _com_in_ground(cal, seg):
    k = SEGMENT_NAMES.index(seg)
    return cal.origins[seg] + cal.frames[seg] @ cal.model.com_offset[k]


@pytest.mark.parametrize("side", ["right", "left"])
def test_plug_in_gait_legs_take_dempster_s_masses_mass_centres_and_radii(cal, side):
    cal, static_m = cal
    m, M = cal.model, SUBJECT.mass
    hip, knee, ankle = (np.ravel(cal.points[f"{side}_{j}"]) for j in ("hip", "knee", "ankle"))
    for part, (a, b) in (("upper_leg", (hip, knee)), ("lower_leg", (knee, ankle))):
        seg = f"{side}_{part}"
        k = SEGMENT_NAMES.index(seg)
        frac, c, radius = TABLE[part]
        assert m.mass[k] == pytest.approx(frac * M, rel=1e-12)
        np.testing.assert_allclose(_com_in_ground(cal, seg), a + c * (b - a), atol=1e-6)
        L = np.linalg.norm(b - a)
        R = cal.frames[seg]
        I_ground = R @ m.inertia[k] @ R.T
        axis = (a - b) / L  # the long axis
        for normal in (R[:, 0], R[:, 1]):
            assert normal @ I_ground @ normal == pytest.approx(frac * M * (radius * L) ** 2, rel=1e-6)
        assert axis @ I_ground @ normal == pytest.approx(0.0, abs=1e-9)
    seg = f"{side}_foot"
    k = SEGMENT_NAMES.index(seg)
    S = "R" if side == "right" else "L"
    heel, toe = static_m[f"{S}HEE"].mean(axis=0), static_m[f"{S}TOE"].mean(axis=0)
    L = np.linalg.norm(toe - heel) - 0.5 * SUBJECT.marker_diameter
    long_axis = cal.frames[seg][:, 0]
    assert m.mass[k] == pytest.approx(0.0145 * M, rel=1e-12)
    np.testing.assert_allclose(_com_in_ground(cal, seg), ankle + 0.5 * L * long_axis, atol=1e-6)
    assert abs(long_axis @ (toe - heel)) / np.linalg.norm(toe - heel) > 0.99  # the foot's long axis: heel -> toe
    for j in (1, 2):
        assert m.inertia[k][j, j] == pytest.approx(0.0145 * M * (0.475 * L) ** 2, rel=1e-6)


def test_the_other_segments_share_the_rest_in_de_leva_s_proportions(cal):
    cal, _ = cal
    m = cal.model
    base = default_model(mass=SUBJECT.mass, height=1.78)
    assert float(np.sum(m.mass)) == pytest.approx(SUBJECT.mass, rel=1e-12)
    rest = [k for k, s in enumerate(SEGMENT_NAMES) if not s.endswith(("_leg", "_foot"))]
    ratio = m.mass[rest] / np.asarray(base.mass)[rest]
    np.testing.assert_allclose(ratio, ratio[0], rtol=1e-12)
    legs = 2 * sum(f for f, _, _ in TABLE.values())
    assert ratio[0] == pytest.approx(SUBJECT.mass * (1.0 - legs) / np.asarray(base.mass)[rest].sum(), rel=1e-12)
    assert any("segment inertia: the set's table for the legs (upper leg 7.00 kg" in n for n in cal.notes)


def test_every_plug_in_gait_set_declares_the_same_table():
    """The two built-in Plug-in Gait sets and a set drafted from Plug-in Gait's markers (``markerset init``)."""
    for name in ("plug_in_gait", "plug_in_gait_lower"):
        assert segment_inertia_table(load_markerset(name).parameters["segment_inertia"], name) == TABLE
    static_m, _ = place(STATIC, np.tile([0.0, 0.0, 0.95], (3, 1)))
    drafted = draft_markerset(_table(static_m, np.arange(3) / 100), height=1.78).markerset
    assert segment_inertia_table(drafted.parameters["segment_inertia"], drafted.name) == TABLE
    assert "segment_inertia" not in load_markerset("gait2392").parameters  # other sets keep de Leva's


@pytest.mark.parametrize("value, words", [
    ({"thigh": [0.1, 0.4, 0.5]}, "names 'thigh'"),
    ({"foot": [0.1, 0.4]}, "must be [mass fraction"),
    ({"foot": [0.1, 1.4, 0.5]}, "each is a fraction in (0, 1]"),
    ([0.1], "must be a table"),
])
def test_a_bad_table_is_one_line_naming_the_set(value, words):
    with pytest.raises(InputError, match=r"marker set 'mine'") as err:
        segment_inertia_table(value, "mine")
    assert words in str(err.value)


def test_a_foot_shorter_than_the_base_model_s_keeps_a_valid_inertia():
    """The long axis keeps the base model's moment but never more than the other two: a 5 cm foot (heel to toe
    less the marker radius 3 cm) gets its long-axis moment equal to the transverse ones, a valid body."""
    from humanbody.markers.segment_inertia import apply_segment_inertia

    base = default_model(mass=70.0, height=1.78)
    lengths = {f"{s}_{p}": 0.4 for s in ("right", "left") for p in ("upper_leg", "lower_leg")}
    lengths.update(right_foot=0.05, left_foot=0.25)
    distal = {name: np.array([0.0, 0.0, -0.4]) for name in lengths if not name.endswith("foot")}
    notes: list = []
    m = apply_segment_inertia(base, TABLE, lengths, distal, 0.02, notes)
    k, j = SEGMENT_NAMES.index("right_foot"), SEGMENT_NAMES.index("left_foot")
    transverse = 0.0145 * 70.0 * (0.475 * 0.03) ** 2
    np.testing.assert_allclose(np.diag(m.inertia[k]), transverse, rtol=1e-12)
    assert m.inertia[j][0, 0] == pytest.approx(base.inertia[j][0, 0] * 0.0145 * 70.0 / base.mass[j], rel=1e-12)
    np.testing.assert_allclose(m.com_offset[k], [0.5 * 0.03, 0.0, 0.0], atol=1e-15)


def test_a_segment_without_a_calibrated_length_takes_the_table_s_mass_only():
    """A foot whose heel-to-toe length was not calibrated (no heel marker) keeps its mass centre and radii (its
    inertia scaled with the mass); its mass is the table's and the total stays the body mass."""
    from humanbody.markers.segment_inertia import apply_segment_inertia

    base = default_model(mass=70.0, height=1.78)
    lengths = {f"{s}_{p}": 0.4 for s in ("right", "left") for p in ("upper_leg", "lower_leg")}
    distal = {name: np.array([0.0, 0.0, -0.4]) for name in lengths}
    m = apply_segment_inertia(base, TABLE, lengths, distal, 0.007, [])
    k = SEGMENT_NAMES.index("left_foot")
    assert m.mass[k] == pytest.approx(0.0145 * 70.0, rel=1e-12)
    np.testing.assert_array_equal(m.com_offset[k], base.com_offset[k])
    np.testing.assert_allclose(m.inertia[k], base.inertia[k] * m.mass[k] / base.mass[k], rtol=1e-12)
    assert float(np.sum(m.mass)) == pytest.approx(70.0, rel=1e-12)

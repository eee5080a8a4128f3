"""Tests of humanbody.lab.axes: axes specs, detection on synthetic walkers and the shared trial."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from _io_samples import shared_walk

from humanbody.errors import InputError
from humanbody.lab import AxesMapping, detect_axes, parse_axes, to_ground


def proper_specs() -> list[str]:
    """All 24 proper (det +1) signed permutations of the lab axes, as specs."""
    out = []
    for perm in itertools.permutations("xyz"):
        for signs in itertools.product("+-", repeat=3):
            M = np.zeros((3, 3))
            for i, (a, s) in enumerate(zip(perm, signs, strict=True)):
                M[i, "xyz".index(a)] = 1.0 if s == "+" else -1.0
            if np.linalg.det(M) > 0:
                out.append(",".join(("-" if s == "-" else "") + a for a, s in zip(perm, signs, strict=True)))
    return out


SPECS = proper_specs()

NAMES = {  # marker key -> (anatomical name, Vicon plug-in-gait style name)
    "rhee": ("R.Heel", "RHEE"), "lhee": ("L.Heel", "LHEE"), "rtoe": ("R.Toe.Tip", "RTOE"),
    "ltoe": ("L.Toe.Tip", "LTOE"), "rank": ("R.Ankle.Lat", "RANK"), "lank": ("L.Ankle.Lat", "LANK"),
    "rkne": ("R.Knee.Lat", "RKNE"), "lkne": ("L.Knee.Lat", "LKNE"), "rasi": ("R.ASIS", "RASI"),
    "lasi": ("L.ASIS", "LASI"), "sacr": ("V.Sacral", "SACR"), "rsho": ("R.Acromium", "RSHO"),
    "lsho": ("L.Acromium", "LSHO"), "strn": ("Sternum", "STRN"), "relb": ("R.Elbow", "RELB"),
    "lelb": ("L.Elbow", "LELB"), "rwri": ("R.Wrist.Lat", "RWRA"), "lwri": ("L.Wrist.Lat", "LWRA"),
    "rhead": ("R.Temple", "RFHD"), "lhead": ("L.Temple", "LFHD"), "top": ("Top.Head", "VERTEX"),
}


def walker_ground(overground: bool, frames: int = 240, rate: float = 100.0, speed: float = 1.2,
                  standing: bool = False) -> dict[str, np.ndarray]:
    """Marker paths (m) of a schematic walker in ground axes (X forward, Y left, Z up, floor z = 0).

    Each foot is on the floor for 60 % of a 1.1 s cycle, moving backwards at
    the belt speed on a treadmill (fixed overground, where the whole body
    also travels at ``speed``), and swings forward lifted 0.1 m.
    """
    t = np.arange(frames) / rate
    T = 1.1
    d = 0.6 * speed * T                           # foot travel during stance
    feet = {}
    for side, off in (("r", 0.0), ("l", 0.5)):
        p = (t / T + off) % 1.0
        s = np.clip((p - 0.6) / 0.4, 0.0, 1.0)
        stance = p < 0.6
        x = np.where(stance, d / 2 - speed * p * T, -d / 2 + d * (1 - np.cos(np.pi * s)) / 2)
        lift = np.where(stance, 0.0, 0.1 * np.sin(np.pi * s))
        if standing:
            x, lift = 0.0 * x, 0.0 * lift
        feet[side] = (x, lift)
    bob = 0.02 * np.sin(4 * np.pi * t / T)
    zero = np.zeros_like(t)
    m = {}
    for side, y in (("r", -1.0), ("l", 1.0)):
        x, lift = feet[side]
        xo, _ = feet["l" if side == "r" else "r"]
        m[side + "hee"] = np.column_stack([x - 0.05, zero + 0.10 * y, 0.06 + lift])
        m[side + "toe"] = np.column_stack([x + 0.15, zero + 0.09 * y, 0.03 + lift])
        m[side + "ank"] = np.column_stack([x, zero + 0.12 * y, 0.09 + lift])
        m[side + "kne"] = np.column_stack([0.5 * x + 0.05, zero + 0.11 * y, 0.50 + 0.5 * lift + bob])
        m[side + "asi"] = np.column_stack([zero + 0.10, zero + 0.13 * y, 0.95 + bob])
        m[side + "sho"] = np.column_stack([zero, zero + 0.20 * y, 1.45 + bob])
        m[side + "elb"] = np.column_stack([0.2 * xo - 0.02, zero + 0.24 * y, 1.12 + bob])
        m[side + "wri"] = np.column_stack([0.35 * xo, zero + 0.25 * y, 0.85 + bob])
        m[side + "head"] = np.column_stack([zero + 0.05, zero + 0.07 * y, 1.65 + bob])
    m["sacr"] = np.column_stack([zero - 0.10, zero, 0.98 + bob])
    m["strn"] = np.column_stack([zero + 0.10, zero, 1.30 + bob])
    m["top"] = np.column_stack([zero, zero, 1.78 + bob])
    if overground:
        for v in m.values():
            v[:, 0] += speed * t
    return m


def lab_frame(ground: dict[str, np.ndarray], spec: str, names: str, offset=(1.5, -2.0, 0.0),
              rate: float = 100.0) -> pd.DataFrame:
    """Marker DataFrame in lab axes: lab = M^T ground + offset, ground = M lab for M = parse_axes(spec).

    ``offset[:2]`` shift the lab's horizontal axes; ``offset[2] = -h`` puts
    the lab origin at height h above the floor.  ``names``: "anatomical", "vicon" or "anonymous".
    """
    M = parse_axes(spec)
    up = int(np.argmax(np.abs(M[2])))
    horiz = [k for k in range(3) if k != up]
    o = np.zeros(3)
    o[horiz], o[up] = offset[:2], offset[2] * M[2, up]   # offset[2] = -h: lab origin at height h
    cols = {"time": np.arange(len(next(iter(ground.values())))) / rate}
    listed = []
    for i, (key, g) in enumerate(sorted(ground.items())):
        if names == "anonymous":
            name = f"m{i:02d}"
        else:
            name = NAMES[key][0 if names == "anatomical" else 1]
        lab = g @ M + o                           # rows: M^T g
        listed.append(name)
        for k, a in enumerate("xyz"):
            cols[f"{name}_{a}"] = lab[:, k]
    df = pd.DataFrame(cols)
    df.attrs.update(kind="markers", source="synthetic.trc", rate_hz=rate, markers=listed, conversions=[])
    return df


# --------------------------------------------------------------------------- specs
def test_parse_axes_forms():
    expected = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], float)
    for spec in ("x,-z,y", "X=x,Y=-z,Z=y", "Z=y, X=x, Y=-z", " X , -Z , +Y ", "opensim", "OpenSim"):
        assert np.array_equal(parse_axes(spec), expected), spec
    assert np.array_equal(parse_axes("identity"), np.eye(3))
    assert np.array_equal(parse_axes(expected), expected)
    assert np.array_equal(parse_axes(AxesMapping.from_spec("x,-z,y")), expected)


def test_all_24_proper_specs_round_trip():
    assert len(SPECS) == 24 and len(set(SPECS)) == 24
    for spec in SPECS:
        M = parse_axes(spec)
        assert np.allclose(M @ M.T, np.eye(3)) and np.linalg.det(M) == pytest.approx(1.0)
        assert AxesMapping.from_spec(spec).spec == spec


@pytest.mark.parametrize("bad, why", [
    ("x,z,y", "left-handed"), ("-x,y,z", "left-handed"), ("x,x,y", "twice"), ("x,-z", "three"),
    ("a,b,c", "not a lab axis"), ("X=x,X=y,Z=z", "once"), ("x,y,z,x", "three"), ("", "three"),
    ("up,forward,left", "not a lab axis"),
])
def test_parse_axes_rejects(bad, why):
    with pytest.raises(InputError, match=why):
        parse_axes(bad)


def test_parse_axes_rejects_non_permutation_matrix():
    with pytest.raises(InputError, match="signed permutation"):
        parse_axes(np.eye(2))
    with pytest.raises(InputError, match="left-handed"):
        parse_axes(np.diag([1.0, 1.0, -1.0]))


# --------------------------------------------------------------------------- detection
@pytest.mark.parametrize("names", ["anatomical", "vicon", "anonymous"])
@pytest.mark.parametrize("overground", [True, False], ids=["overground", "treadmill"])
def test_detect_all_24_orientations(overground, names):
    ground = walker_ground(overground)
    for spec in SPECS:
        mapping = detect_axes(lab_frame(ground, spec, names))
        assert mapping.spec == spec, (spec, mapping.describe())
        assert mapping.confidence > 0.3, mapping.describe()
        assert ("overground" in mapping.how) == overground
        assert ("treadmill" in mapping.how) == (not overground)


@pytest.mark.parametrize("spec", SPECS[::5])
def test_detect_when_origin_is_not_on_the_floor(spec):
    """Anonymous markers, lab origin at hip height: up comes from the swinging feet."""
    for overground in (True, False):
        df = lab_frame(walker_ground(overground), spec, "anonymous", offset=(0.3, 0.2, -0.9))
        mapping = detect_axes(df)
        assert mapping.spec == spec and "swing" in mapping.how


def test_detect_with_missing_samples():
    ground = walker_ground(False)
    df = lab_frame(ground, "y,-x,z", "vicon")
    rng = np.random.default_rng(3)
    for name in df.attrs["markers"]:
        s = rng.integers(0, 200)
        df.loc[s:s + 30, [f"{name}_x", f"{name}_y", f"{name}_z"]] = np.nan
    assert detect_axes(df).spec == "y,-x,z"


def test_detect_standing_uses_left_right_pairs():
    ground = walker_ground(False, standing=True)
    for spec in ("x,-z,y", "-y,x,z", "z,y,-x"):
        mapping = detect_axes(lab_frame(ground, spec, "vicon"))
        assert mapping.spec == spec and "left/right marker pairs" in mapping.how
    with pytest.raises(InputError, match="progression"):
        detect_axes(lab_frame(ground, "x,-z,y", "anonymous"))


def test_detect_warns_when_pairs_disagree():
    """Left and right names swapped: the mapping keeps the motion's answer and says the pairs disagree."""
    df = lab_frame(walker_ground(True), "x,y,z", "vicon")
    swap = {c: ("L" + c[1:] if c.startswith("R") else "R" + c[1:] if c.startswith("L") else c) for c in df.columns}
    df = df.rename(columns=swap)
    df.attrs["markers"] = [c[:-2] for c in df.columns if c.endswith("_x")]
    mapping = detect_axes(df)
    assert mapping.spec == "x,y,z" and "WARNING" in mapping.how and mapping.confidence < 0.3


def test_detect_needs_markers():
    df = pd.DataFrame({"time": [0.0, 0.01], "a_x": [0, 1.0], "a_y": [0, 1.0], "a_z": [1.0, 1.0]})
    with pytest.raises(InputError, match="fewer than 3"):
        detect_axes(df)


# --------------------------------------------------------------------------- to_ground
@pytest.mark.parametrize("axes", ["auto", "given"])
def test_to_ground_recovers_ground_coordinates(axes):
    ground = walker_ground(True)
    for spec in SPECS[::3]:
        df = lab_frame(ground, spec, "anatomical")
        out, mapping = to_ground(df, axes if axes == "auto" else spec)
        assert mapping.spec == spec
        for key, g in ground.items():
            name = NAMES[key][0]
            got = out[[f"{name}_x", f"{name}_y", f"{name}_z"]].to_numpy()
            shift = got - g                       # ground = M lab = g + M offset: a constant shift
            assert np.allclose(shift, shift[0], atol=1e-12)
            assert abs(shift[0, 2]) < 1e-12         # the lab floor stays at z = 0
        assert out.attrs["axes"] == spec and out.attrs["source"] == "synthetic.trc"
        assert out.attrs["axes_description"] == mapping.describe()
        assert out.attrs["conversions"][-1] == mapping.describe()
        assert df.attrs["conversions"] == []      # input untouched
        np.testing.assert_array_equal(out["time"], df["time"])


def test_to_ground_table_equals_the_matrix_product_bit_for_bit():
    """The one-pass signed-permutation kernel gives exactly M @ lab, and NaN components stay NaN."""
    from humanbody.lab.axes import AxesMapping

    rng = np.random.default_rng(11)
    names = [f"m{i}" for i in range(5)]
    lab = rng.normal(0.0, 1.0, (300, 5, 3))
    lab[7, 2, 1] = np.nan
    lab[9, 4] = np.nan
    cols = {"time": np.arange(300) / 100.0}
    for j, n in enumerate(names):
        for i, a in enumerate("xyz"):
            cols[f"{n}_{a}"] = lab[:, j, i]
    df = pd.DataFrame(cols)
    df.attrs.update(markers=names, source="t.trc", conversions=[])
    for spec in SPECS:
        out, mapping = to_ground(df, spec)
        assert mapping.signed_permutation() is not None
        want = np.einsum("ij,fmj->fmi", mapping.matrix, np.nan_to_num(lab))
        want[np.isnan(lab[..., mapping.signed_permutation()[0]])] = np.nan
        got = out.to_numpy()[:, 1:].reshape(300, 5, 3)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(out["time"], df["time"])
    assert AxesMapping.from_spec("x,y,z").signed_permutation()[0].tolist() == [0, 1, 2]


def test_to_ground_bad_spec_names_file():
    df = lab_frame(walker_ground(True), "x,y,z", "vicon")
    with pytest.raises(InputError, match=r"^synthetic\.trc: .*left-handed"):
        to_ground(df, "x,z,y")


def test_describe_states_the_mapping():
    text = AxesMapping.from_spec("opensim").describe()
    assert "'x,-z,y'" in text and "X forward = +lab x" in text and "Y left = -lab z" in text
    assert "Z up = +lab y" in text and "given" in text


# --------------------------------------------------------------------------- shared OpenSim trial
def test_shared_trc_is_y_up_x_forward_treadmill():
    df = shared_walk()
    mapping = detect_axes(df)
    assert mapping.spec == "x,-z,y", mapping.describe()
    assert "treadmill" in mapping.how and "agree" in mapping.how
    assert mapping.confidence > 0.8
    g, _ = to_ground(df)
    assert (g["Top.Head_z"] > g["R.Heel_z"] + 1.3).all()
    assert (g["L.ASIS_y"] > g["R.ASIS_y"]).all()
    assert (g["R.Toe.Tip_x"] - g["R.Heel_x"]).median() > 0.1

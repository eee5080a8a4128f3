"""Tests of the body model (humanbody.model.body) and the ``humanbody model`` command."""

import json
import subprocess
import sys

import numpy as np
import pytest

from humanbody import BodyModel, InputError, load_model, lower_body_array
from humanbody.cli import main
from humanbody.model.segments import PARENTS, SEGMENT_NAMES

# Huston, Principles of Biomechanics, Table 8.1 (higher order lower body arrays
# of the 17-body model of Fig. 8.36), rows L ... L^6, columns k = 1 ... 17.
TABLE_8_1 = np.array([
    [0, 1, 2, 3, 4, 5, 3, 7, 3, 9, 10, 1, 12, 13, 1, 15, 16],
    [0, 0, 1, 2, 3, 4, 2, 3, 2, 3, 9, 0, 1, 12, 0, 1, 15],
    [0, 0, 0, 1, 2, 3, 1, 2, 1, 2, 3, 0, 0, 1, 0, 0, 1],
    [0, 0, 0, 0, 1, 2, 0, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
])


@pytest.fixture(scope="module")
def model():
    return BodyModel.default(mass=75.0, height=1.75)


def _random_tree(rng, n):
    parents = [0] + [int(rng.integers(0, k)) for k in range(1, n)]  # L(k) < k
    A = rng.normal(size=(n, 3, 3))
    inertia = np.einsum("kij,kil->kjl", A, A) + 0.1 * np.eye(3)  # SPD
    # enforce the triangle inequality by adding a multiple of identity
    inertia += np.trace(inertia, axis1=1, axis2=2)[:, None, None] * np.eye(3)
    return BodyModel(
        names=[f"b{k}" for k in range(1, n + 1)],
        parents=parents,
        joint_offset=rng.normal(size=(n, 3)),
        com_offset=rng.normal(size=(n, 3)),
        mass=rng.uniform(0.5, 5.0, n),
        inertia=inertia,
        segment_meta=[{"tag": k} for k in range(n)],
    )


def test_model_and_results_index_segments_alike(model):
    """One name lookup: BodyModel.segment and Results.segment give the same 0-based row; index is Huston's k."""
    import pandas as pd

    from humanbody import compute, coordinate_columns

    q = pd.DataFrame(np.zeros((30, 1 + 3 + 3 * 17)), columns=["time"] + coordinate_columns(model))
    q["time"] = np.arange(30) / 100.0
    res = compute(model, q)
    for k, name in enumerate(SEGMENT_NAMES):
        assert model.segment(name) == res.segment(name) == k and model.index(name) == k + 1
    np.testing.assert_array_equal(res.joint[0, model.segment("right_foot")], res.joint[0, 13])
    for lookup in (model.segment, res.segment, model.index):
        with pytest.raises(KeyError, match="no segment named 'foot'.*right_foot"):
            lookup("foot")


# ------------------------------------------------------- lower body arrays
def test_table_8_1(model):
    for p, row in enumerate(TABLE_8_1, start=1):
        np.testing.assert_array_equal(model.lower_body_array(p), row, err_msg=f"L^{p}")
    np.testing.assert_array_equal(model.lower_body_array(0), np.arange(1, 18))
    np.testing.assert_array_equal(model.lower_body_table(), TABLE_8_1)
    np.testing.assert_array_equal(model.parents, PARENTS)


def test_chain_of_right_hand(model):
    assert model.chain(11) == [11, 10, 9, 3, 2, 1]  # Huston eq. 8.102
    assert model.chain(1) == [1]
    assert model.chain(17) == [17, 16, 15, 1]
    with pytest.raises(IndexError):
        model.chain(18)


def test_children(model):
    assert model.children(3) == [4, 7, 9]
    assert model.children(1) == [2, 12, 15]
    assert model.children(0) == [1]


@pytest.mark.parametrize("seed", range(5))
def test_random_trees(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 30))
    m = _random_tree(rng, n)
    par = np.concatenate(([0], m.parents))
    for k in range(1, n + 1):
        chain = m.chain(k)
        # chain[p] = L^p(k), walking parent links; ends at a body attached to ground
        assert chain[0] == k and par[chain[-1]] == 0
        for p, q in enumerate(chain):
            assert m.lower_body_array(p)[k - 1] == q
        assert m.lower_body_array(len(chain))[k - 1] == 0
    table = m.lower_body_table()
    assert not table[-1].any() and all(table[i].any() for i in range(len(table) - 1))
    np.testing.assert_array_equal(lower_body_array(m.parents, 1), m.parents)


def test_lower_body_array_rejects_negative_order():
    with pytest.raises(ValueError):
        lower_body_array(PARENTS, -1)


@pytest.mark.parametrize("seed", range(3))
def test_reordered_round_trip(seed):
    rng = np.random.default_rng(10 + seed)
    m = _random_tree(rng, 12)
    # a random topological order: repeatedly pick any body whose parent is placed
    placed, order = {0}, []
    while len(order) < m.n_bodies:
        ready = [k for k in range(1, m.n_bodies + 1) if k not in order and m.parents[k - 1] in placed]
        k = int(rng.choice(ready))
        order.append(k)
        placed.add(k)
    r = m.reordered(order)
    assert all(r.parents[i] < i + 1 for i in range(r.n_bodies))
    for new, old in enumerate(order, start=1):
        assert r.names[new - 1] == m.names[old - 1]
        np.testing.assert_array_equal(r.inertia[new - 1], m.inertia[old - 1])
        assert r.segment_meta[new - 1] == m.segment_meta[old - 1]
        p_old = m.parents[old - 1]
        assert (r.parents[new - 1] == 0) == (p_old == 0)
        if p_old:
            assert r.names[r.parents[new - 1] - 1] == m.names[p_old - 1]
    inverse = [order.index(k) + 1 for k in range(1, m.n_bodies + 1)]
    back = r.reordered(inverse)
    assert back.names == m.names
    np.testing.assert_array_equal(back.parents, m.parents)
    np.testing.assert_array_equal(back.joint_offset, m.joint_offset)
    np.testing.assert_array_equal(back.com_offset, m.com_offset)


def test_reordered_rejects_a_non_permutation(model):
    with pytest.raises(ValueError):
        model.reordered([1, 1] + list(range(3, 18)))


def test_model_is_immutable(model):
    with pytest.raises(ValueError):
        model.mass[0] = 1.0
    with pytest.raises(AttributeError):
        model.name = "other"


# ------------------------------------------------------------------ JSON io
def test_json_round_trip_keeps_extra_keys(tmp_path, model):
    path = tmp_path / "m.json"
    model.save(path)
    data = json.loads(path.read_text())
    assert data["name"] == "huston17" and len(data["segments"]) == 17
    seg = data["segments"][11]
    assert seg["index"] == 12 and seg["name"] == "right_upper_leg" and seg["parent"] == 1
    assert {"joint", "com", "mass", "inertia", "length", "source"} <= set(seg)
    data["lab_note"] = "kept"
    data["segments"][0]["marker_cluster"] = ["RASI", "LASI"]
    path.write_text(json.dumps(data))
    back = load_model(path)
    assert back.names == model.names
    for attr in ("parents", "joint_offset", "com_offset", "mass", "inertia", "gravity"):
        np.testing.assert_array_equal(getattr(back, attr), getattr(model, attr))
    assert back.meta["lab_note"] == "kept"
    assert back.meta["subject"] == model.meta["subject"]
    assert back.segment_meta[0]["marker_cluster"] == ["RASI", "LASI"]
    assert back.segment_meta[11]["length"] == model.segment_meta[11]["length"]
    back.save(tmp_path / "again.json")
    assert json.loads((tmp_path / "again.json").read_text()) == data


def _segments(model):
    return model.to_dict()["segments"]


@pytest.mark.parametrize(
    "content, words",
    [
        (None, "cannot read model file"),
        ("", "model file is empty"),
        ("   \n", "model file is empty"),
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must hold a JSON object"),
        ('{"name": "x"}', "no 'segments' list"),
        ('{"segments": []}', "no 'segments' list"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": 1.0}]}', "lacks inertia"),
        ('{"segments": [{"name": "a", "parent": 0, "inertia": [[1,0,0],[0,1,0],[0,0,1]]}]}', "lacks mass"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": 1.0, "inertia": [[1,0,0],[0,1,0],[0,0,-1]]}]}',
         "not positive definite"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": 1.0, "inertia": [[1,0,0],[0,1,0],[0,0,5]]}]}',
         "triangle inequality"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": 1.0, "inertia": [[1,0.5,0],[0,1,0],[0,0,1]]}]}',
         "not symmetric"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": 1.0, "inertia": [[1,0],[0,1]]}]}', "shape"),
        ('{"segments": [{"name": "a", "parent": 1, "mass": 1.0, "inertia": [[1,0,0],[0,1,0],[0,0,1]]}]}',
         "0 <= L\\(k\\) < k"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": -1.0, "inertia": [[1,0,0],[0,1,0],[0,0,1]]}]}',
         "non-positive mass"),
        ('{"segments": [{"name": "a", "parent": 0, "mass": "x", "inertia": [[1,0,0],[0,1,0],[0,0,1]]}]}',
         "malformed model"),
    ],
)
def test_load_model_bad_files(tmp_path, content, words):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InputError, match=words) as info:
        load_model(path)
    assert str(info.value).startswith(str(path))
    assert "\n" not in str(info.value)


def test_load_model_parent_not_lower(tmp_path, model):
    data = model.to_dict()
    data["segments"][4]["parent"] = 9  # body 5 under body 9: parent >= k
    path = tmp_path / "order.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="violated for body 5") as info:
        load_model(path)
    assert info.value.path == str(path)


# ---------------------------------------------------------------------- CLI
def test_cli_show_default(capsys):
    assert main(["model", "show", "--mass", "80", "--height", "1.8"]) == 0
    out = capsys.readouterr().out
    assert "total mass 80.000 kg" in out
    for name in SEGMENT_NAMES:
        assert name in out
    assert "L6(K)" in out
    lines = out.splitlines()
    row = next(ln for ln in lines if ln.startswith("L2(K)"))
    assert [int(x) for x in row.split()[1:]] == TABLE_8_1[1].tolist()
    hand = next(ln for ln in lines if " right_hand " in ln)
    assert hand.split()[:4] == ["11", "right_hand", "10", "right_wrist"]


def test_cli_export_then_show_file(tmp_path, capsys):
    out = tmp_path / "sub" / "subject.json"
    assert main(["model", "export", "--out", str(out), "--mass", "62", "--height", "1.65", "--sex", "female"]) == 0
    model = load_model(out)
    assert model.total_mass == pytest.approx(62.0)
    assert model.meta["subject"] == {"mass": 62.0, "height": 1.65, "sex": "female"}
    np.testing.assert_allclose(model.inertia, BodyModel.default(62.0, 1.65, sex="female").inertia)
    capsys.readouterr()
    assert main(["model", "show", "--model", str(out)]) == 0
    assert "total mass 62.000 kg" in capsys.readouterr().out
    build = tmp_path / "built.json"
    assert main(["model", "build", "--out", str(build), "--mass", "62", "--height", "1.65", "--sex", "female"]) == 0
    assert json.loads(build.read_text()) == json.loads(out.read_text())


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    assert main(["model", "show", "--height", "175"]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "humanbody model: error: height 175 m is not plausible (expected 0.4-2.8 m); give metres"
    missing = tmp_path / "none.json"
    assert main(["model", "show", "--model", str(missing)]) == 2
    err = capsys.readouterr().err.strip()
    assert str(missing) in err and len(err.splitlines()) == 1
    assert main(["model", "show", "--model", str(missing), "--mass", "70"]) == 2
    assert "not both" in capsys.readouterr().err
    target = tmp_path / "x.json"
    assert main(["model", "export", "--out", str(target), "--mass", "-3"]) == 2
    assert "mass must be a positive" in capsys.readouterr().err
    assert not target.exists()


def test_cli_exit_codes_subprocess(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "humanbody", "model", *args],
                              capture_output=True, text=True, timeout=120)

    ok = run("export", "--out", str(tmp_path / "m.json"))
    assert ok.returncode == 0, ok.stderr
    assert load_model(tmp_path / "m.json").total_mass == pytest.approx(75.0)
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    res = run("show", "--model", str(bad))
    assert res.returncode == 2
    assert "Traceback" not in res.stderr and len(res.stderr.strip().splitlines()) == 1
    assert str(bad) in res.stderr


def test_sequences_in_the_model_file(tmp_path):
    """Each segment's rotation sequence is saved and read back; a file without it means xyz."""
    import json

    from humanbody.model.segments import DEFAULT_SEQUENCES

    model = BodyModel.default()
    assert model.sequences == DEFAULT_SEQUENCES
    model.save(tmp_path / "m.json")
    data = json.loads((tmp_path / "m.json").read_text())
    assert [s["sequence"] for s in data["segments"]] == list(DEFAULT_SEQUENCES)
    assert load_model(tmp_path / "m.json").sequences == DEFAULT_SEQUENCES
    for seg in data["segments"]:
        del seg["sequence"]
    (tmp_path / "old.json").write_text(json.dumps(data))
    assert load_model(tmp_path / "old.json").sequences == ("xyz",) * 17
    data["segments"][3]["sequence"] = "xxz"
    (tmp_path / "bad.json").write_text(json.dumps(data))
    with pytest.raises(InputError, match="left_upper_arm.*rotation sequence 'xxz'"):
        load_model(tmp_path / "bad.json")


def test_conventions_are_typed_fields_kept_in_the_model_file(tmp_path, model):
    """A marker set's conventions (Plug-in Gait's) and the residual reduction's record are typed fields of the
    model, not meta keys: model.json keeps them as top-level keys after the model's own description and before
    the analysis' findings, in :data:`CONVENTION_KEYS`' order, and reads them back into the same fields."""
    from humanbody.model.conventions import CONVENTION_KEYS, Conventions

    conv = Conventions(clinical_sequences={"ankle": "yzx"}, clinical_progression=["thorax", "head"],
                       progression_frame="lab_axis", moment_frame="distal", rates="gradient",
                       load_resampling="frame_mean", foot_rate_frames="2",
                       clinical_reference_twists={"right_ankle": 0.1, "left_ankle": -0.2})
    assert conv.foot_rate_frames == 2 and conv.clinical_progression == ("thorax", "head")
    pig = model.replace(conventions=conv, residual_reduction={"applied": True},
                        meta=dict(model.meta, calibration={"mode": "static"}, edges={"frames": 3}))
    data = pig.to_dict()
    keys = [k for k in data if k not in ("name", "gravity", "segments")]
    assert keys == [*model.meta, "calibration", *CONVENTION_KEYS, "residual_reduction", "edges"]
    assert data["foot_rate_frames"] == "2" and data["clinical_progression"] == ["thorax", "head"]
    pig.save(tmp_path / "pig.json")
    back = load_model(tmp_path / "pig.json")
    assert back.conventions == conv and back.residual_reduction == {"applied": True}
    assert not set(CONVENTION_KEYS) & set(back.meta) and "residual_reduction" not in back.meta
    assert back.to_json() == pig.to_json()
    assert list(model.to_dict()) == ["name", "gravity", *model.meta, "segments"]  # none set: none written


def test_a_convention_given_as_meta_is_refused(model):
    with pytest.raises(TypeError, match="meta key 'moment_frame' is a typed field of the model"):
        model.replace(meta=dict(model.meta, moment_frame="distal"))
    with pytest.raises(TypeError, match="conventions must be a Conventions"):
        model.replace(conventions={"moment_frame": "distal"})

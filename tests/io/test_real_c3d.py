"""The shared corpus of vendor C3D files (../shared/data/real/c3d): each read as ezc3d reads it, each written
back with model outputs added and read again with every original group, parameter, point, analog channel and
event unchanged.  Skipped when the shared data are absent."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from _shared import ROOT, SHARED_DATA

from humanbody.errors import InputError

ezc3d = pytest.importorskip("ezc3d")

CORPUS = SHARED_DATA / "real" / "c3d"
FILES = ["BTS", "C3DRotationExample", "FP_Type1", "FP_Type3", "Kistler", "Optotrak", "Qualisys", "Vicon",
         "read_NOTworking2"]
#: Files the marker reader refuses, and why (docs/formats.md lists them).
NO_MARKERS = {"Kistler": "holds no 3-D points", "C3DRotationExample": "holds no 3-D points"}
#: Parameters the writer sets from the layout it writes (module doc of humanbody.io.c3d_writer).
LAYOUT = {("POINT", "USED"), ("POINT", "DATA_START"), ("POINT", "FRAMES"), ("POINT", "SCALE"), ("ANALOG", "USED"),
          ("EVENT", "USED")}
#: Lists the writer appends to (the original entries stay first).
APPENDED = {("POINT", "LABELS"), ("POINT", "DESCRIPTIONS"), ("POINT", "ANGLES"),
            ("EVENT", "TIMES"), ("EVENT", "LABELS"), ("EVENT", "CONTEXTS"), ("EVENT", "DESCRIPTIONS"),
            ("EVENT", "SUBJECTS"), ("EVENT", "ICON_IDS"), ("EVENT", "GENERIC_FLAGS")}


def _path(name):
    path = CORPUS / f"{name}.c3d"
    if not path.is_file():
        pytest.skip(f"needs the shared vendor C3D corpus ({path.name})")
    return path


def _groups(path):
    from humanbody.io.c3d_params import parse_parameters

    raw = path.read_bytes()
    return parse_parameters(raw, (raw[0] - 1) * 512)[0]


@pytest.mark.parametrize("name", [f for f in FILES if f not in NO_MARKERS])
def test_markers_read_as_ezc3d_reads_them(name):
    from humanbody.io import markers_array
    from humanbody.io.c3d import read_c3d

    path = _path(name)
    c = ezc3d.c3d(str(path))
    df = read_c3d(path)
    names, P = markers_array(df)
    labels = [str(x).strip() for x in c["parameters"]["POINT"]["LABELS"]["value"]]
    assert len(df) == c["data"]["points"].shape[2] and names == labels[:len(names)]
    unit = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}[df.attrs["units_in_file"]]
    theirs = np.transpose(c["data"]["points"][:3, :len(names)], (2, 1, 0)) * unit
    np.testing.assert_array_equal(np.isnan(P), np.isnan(theirs))
    np.testing.assert_allclose(P, theirs, rtol=1e-12, equal_nan=True)


def test_optotrak_reads_the_frames_there_are_and_says_so():
    """The header announces frames 1-1149, the data hold 29 whole frames up to the end of the file."""
    from humanbody.io.c3d import read_c3d

    df = read_c3d(_path("Optotrak"))
    assert len(df) == 29 == ezc3d.c3d(str(_path("Optotrak")))["data"]["points"].shape[2]
    assert any("announces 1149 frames" in note and "29 read" in note for note in df.attrs["conversions"])


@pytest.mark.parametrize("name", ["BTS", "FP_Type1", "FP_Type3", "Kistler", "Qualisys"])
def test_plates_read_as_ezc3d_reads_them(name):
    """Every plate's force and centre of pressure are ezc3d's (the reaction on the subject: plates measuring
    the force on them change sign); an analog-only file (Kistler: point rate 0) gives its plates.  The centre
    of pressure of a type-3 (Kistler) plate is not ezc3d's, which takes the sensor offsets in ORIGIN for a
    shift of the plate's origin: tests/io/test_c3d_org.py checks it against an independent computation."""
    from humanbody.io.forceplates import read_c3d_platforms

    path = _path(name)
    ours = read_c3d_platforms(path)
    c = ezc3d.c3d(str(path), extract_forceplat_data=True)
    assert len(ours.names) == len(c["data"]["platform"]) > 0
    for k, p in enumerate(c["data"]["platform"]):
        unit = {"mm": 1e-3, "m": 1.0}[str(p["unit_position"]).strip().lower()]
        sign = -1.0 if ours.names[k] in ours.reversed else 1.0
        np.testing.assert_allclose(ours.force[:, k], sign * np.asarray(p["force"]).T, rtol=1e-12, atol=1e-9)
        if ours.types[k] != 3:
            np.testing.assert_allclose(ours.point[:, k], np.asarray(p["center_of_pressure"]).T * unit,
                                       rtol=1e-12, atol=1e-12, equal_nan=True)
    assert np.isfinite(ours.time).all() and np.all(np.diff(ours.time) > 0)


@pytest.mark.parametrize("name", sorted(NO_MARKERS))
def test_files_without_points_are_refused_in_one_line(name, tmp_path):
    from humanbody.io.c3d import read_c3d

    path = _path(name)
    with pytest.raises(InputError, match=NO_MARKERS[name]):
        read_c3d(path)
    run = subprocess.run([sys.executable, "-m", "humanbody", "analyze", str(path), "--out", str(tmp_path), "-q"],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and path.name in run.stderr


@pytest.mark.parametrize("name", [f for f in FILES if f != "C3DRotationExample"])
def test_written_back_with_outputs_keeps_everything(name, tmp_path):
    """Read -> write with two angle outputs and an event -> read: every original group and parameter (name,
    type, dimensions, values, description, locked flag) as it was, but those describing the layout; lists
    extended with the original entries first; points, residuals, analogs and header events unchanged;
    ezc3d and our reader open it."""
    from humanbody.io.c3d import read_c3d
    from humanbody.io.c3d_writer import PointBlock, write_c3d

    path = _path(name)
    c = ezc3d.c3d(str(path))
    F = c["data"]["points"].shape[2]
    values = np.random.default_rng(0).normal(size=(F, 2, 3)) * 30.0
    out = tmp_path / path.name
    write_c3d(out, frames=F, rate_hz=0.0, source=path, events=[("Foot Strike", "Left", 0.1)],
              blocks=[PointBlock("ANGLES", ["LHipAngles", "RHipAngles"], values, ["humanbody"] * 2)])
    before, after = _groups(path), _groups(out)
    for g in before.values():
        h = after[g.name]
        assert (h.description, h.locked) == (g.description, g.locked)
        for p in g.params.values():
            q = h.params[p.name]
            assert (q.type, q.locked, q.description) == (p.type, p.locked, p.description), (g.name, p.name)
            if (g.name, p.name) in LAYOUT:
                continue
            if (g.name, p.name) in APPENDED:
                if p.type == -1:
                    assert q.value[:len(p.value)] == p.value, (g.name, p.name)
                else:
                    n = p.dims[-1] if p.dims else 1
                    np.testing.assert_array_equal(np.asarray(q.value).reshape(*p.dims[:-1], -1, order="F")[..., :n]
                                                  if p.dims else q.value, p.value)
                continue
            assert tuple(q.dims) == tuple(p.dims), (g.name, p.name)
            np.testing.assert_array_equal(np.asarray(q.data), np.asarray(p.data), err_msg=f"{g.name}:{p.name}")
    d = ezc3d.c3d(str(out))
    n0 = c["data"]["points"].shape[1]
    float_data = float(np.ravel(c["parameters"]["POINT"]["SCALE"]["value"])[0]) < 0
    rtol = 0 if float_data else 1e-6  # an integer file's scaled values become float32
    np.testing.assert_allclose(d["data"]["points"][:, :n0], c["data"]["points"], rtol=rtol, equal_nan=True)
    np.testing.assert_allclose(d["data"]["meta_points"]["residuals"][:, :n0], c["data"]["meta_points"]["residuals"],
                               rtol=rtol)
    np.testing.assert_allclose(d["data"]["analogs"], c["data"]["analogs"], rtol=1e-6, atol=0)
    np.testing.assert_allclose(np.transpose(d["data"]["points"][:3, n0:], (2, 1, 0)), values, rtol=1e-6)
    assert d["header"]["events"] == c["header"]["events"]
    labels = [str(x).strip() for x in d["parameters"]["POINT"]["LABELS"]["value"]]
    assert labels[n0:] == ["LHipAngles", "RHipAngles"]
    assert list(d["parameters"]["POINT"]["ANGLES"]["value"])[-2:] == ["LHipAngles", "RHipAngles"]
    ev = d["parameters"]["EVENT"]
    assert list(ev["LABELS"]["value"])[-1] == "Foot Strike"
    assert np.asarray(ev["TIMES"]["value"]).reshape(2, -1, order="F")[1, -1] == pytest.approx(0.1)
    if name not in NO_MARKERS:
        a, b = read_c3d(path), read_c3d(out)
        assert list(a.columns) == list(b.columns)  # the outputs are not markers
        np.testing.assert_allclose(b.to_numpy(), a.to_numpy(), rtol=rtol, equal_nan=True)


def _nexus_like(path, frames=120, n_points=300):
    """A synthetic C3D laid out as Vicon Nexus writes a full-body Plug-in Gait trial: more than 255 points
    (LABELS + LABELS2), POINT:DESCRIPTIONS char 31 x 18, 4 type-2 plates on analog channels, an EVENT group
    with ICON_IDS int16 and GENERIC_FLAGS byte, a locked parameter with a description."""
    from humanbody.atomic import atomic_path
    from humanbody.io.c3d_params import Parameter
    from humanbody.io.c3d_writer import C3DModel, _add_platforms, _Points, platform_channels

    rng = np.random.default_rng(35)
    model = C3DModel.new(frames, 100.0, "mm", 1)
    model.set_texts("POINT", "LABELS", [f"Subj:M{i:03d}" for i in range(n_points)])
    desc = Parameter.of("DESCRIPTIONS", ["Plug-in Gait marker".ljust(31)] + [f"d{i}" for i in range(17)])
    assert desc.dims == (31, 18)
    model.groups["POINT"].params["DESCRIPTIONS"] = desc
    model.points = np.ones((4, n_points, frames))
    model.points[:3] = rng.normal(size=(3, n_points, frames)) * 500.0
    model.points[:, 5, 40:50] = np.nan
    model.residuals = np.where(np.isnan(model.points[3]), -1.0, rng.integers(0, 40, size=(n_points, frames)) / 10)[None]
    model.masks = np.zeros((7, n_points, frames), dtype=bool)
    model.masks[2, :, ::3] = True
    t = np.arange(frames * 10) / 1000.0
    L = 4
    force = np.zeros((len(t), L, 3))
    force[..., 2] = 600.0 + 100.0 * np.sin(t)[:, None]
    point = np.stack([np.stack([0.5 * k + 0.1 * t, 0.2 * np.ones_like(t), np.zeros_like(t)], axis=1)
                      for k in range(L)], axis=1)
    plates = platform_channels(t, force, point, np.zeros_like(force), np.arange(frames) / 100.0, np.eye(3), 1e-3,
                               10, names=[f"FP{k + 1}" for k in range(L)])
    _add_platforms(model, plates, path)
    model.set("EVENT", "USED", np.int16(2))
    model.set("EVENT", "TIMES", np.array([[0.0, 0.0], [0.25, 0.75]], dtype=np.float32), type=4)
    model.set("EVENT", "LABELS", ["Foot Strike", "Foot Off"])
    model.set("EVENT", "CONTEXTS", ["Left", "Left"])
    model.set("EVENT", "ICON_IDS", np.array([1, 2], dtype=np.int16), type=2)
    model.set("EVENT", "GENERIC_FLAGS", np.array([0, 1], dtype=np.int8), type=1)
    model.groups["POINT"].params["RATE"].locked = True
    model.groups["POINT"].params["RATE"].description = "the video frame rate"
    with atomic_path(path, suffix=".c3d") as tmp:
        model.write(tmp, _Points(model.points, model.residuals, model.masks, [], []))
    return model, plates


def test_nexus_like_file_written_back_opens_with_types_kept(tmp_path):
    """The Nexus export that once came out unreadable: written back with outputs, ezc3d and our reader open
    it; ICON_IDS stays int16, GENERIC_FLAGS byte, DESCRIPTIONS 31 x 18, LABELS2 carries on; plates and
    points are as read."""
    from humanbody.io.c3d import read_c3d
    from humanbody.io.c3d_writer import PointBlock, write_c3d
    from humanbody.io.forceplates import read_c3d_platforms

    src = tmp_path / "nexus.c3d"
    _nexus_like(src)
    c = ezc3d.c3d(str(src))
    E = c["parameters"]["EVENT"]
    assert (E["ICON_IDS"]["type"], E["GENERIC_FLAGS"]["type"]) == (2, 1)
    assert len(c["parameters"]["POINT"]["LABELS2"]["value"]) == 45 and c["data"]["points"].shape[1] == 300
    F = c["data"]["points"].shape[2]
    out = tmp_path / "out.c3d"
    outputs = np.random.default_rng(1).normal(size=(F, 3, 3))
    write_c3d(out, frames=F, rate_hz=100.0, source=src, events=[("Foot Strike", "Right", 0.5)],
              blocks=[PointBlock(["ANGLES", "MOMENTS", "POWERS"], ["LHipAngles", "LHipMoment", "LHipPower"],
                                 outputs, ["humanbody"] * 3)])
    d = ezc3d.c3d(str(out))
    E, P = d["parameters"]["EVENT"], d["parameters"]["POINT"]
    assert (E["ICON_IDS"]["type"], E["GENERIC_FLAGS"]["type"]) == (2, 1)
    assert list(E["ICON_IDS"]["value"]) == [1, 2, 0] and list(E["GENERIC_FLAGS"]["value"]) == [0, 1, 0]
    g = _groups(out)
    assert g["POINT"].params["DESCRIPTIONS"].dims == (31, 18)
    assert g["POINT"].params["RATE"].locked and g["POINT"].params["RATE"].description == "the video frame rate"
    labels = list(P["LABELS"]["value"]) + list(P["LABELS2"]["value"])
    assert labels[300:] == ["LHipAngles", "LHipMoment", "LHipPower"] and len(P["LABELS"]["value"]) == 255
    assert list(P["MOMENTS"]["value"]) == ["LHipMoment"] and list(P["POWERS"]["value"]) == ["LHipPower"]
    np.testing.assert_array_equal(d["data"]["points"][:, :300], c["data"]["points"])
    np.testing.assert_allclose(d["data"]["meta_points"]["residuals"][:, :300], c["data"]["meta_points"]["residuals"],
                               atol=1e-12)
    np.testing.assert_array_equal(d["data"]["meta_points"]["camera_masks"][:, :300],
                                  c["data"]["meta_points"]["camera_masks"])
    a, b = read_c3d_platforms(src), read_c3d_platforms(out)
    assert len(b.names) == 4
    np.testing.assert_allclose(b.force, a.force, rtol=1e-6)
    np.testing.assert_allclose(b.point, a.point, rtol=1e-6, atol=1e-9)
    want = np.broadcast_to((600.0 + 100.0 * np.sin(a.time - a.time[0]))[:, None], a.force[:, :, 2].shape)
    np.testing.assert_allclose(a.force[:, :, 2], want, rtol=1e-5)
    m1, m2 = read_c3d(src), read_c3d(out)
    assert list(m1.columns) == list(m2.columns) and len(m2.columns) == 1 + 3 * 300
    np.testing.assert_array_equal(m1.to_numpy(), m2.to_numpy())


@pytest.mark.parametrize("cut", [100, 600, 3000, -700])
def test_truncated_or_garbled_c3d_is_one_line(tmp_path, cut):
    """A damaged copy of a vendor file: one line naming the file, exit 2."""
    raw = bytearray(_path("Vicon").read_bytes())
    bad = tmp_path / "bad.c3d"
    if cut == 3000:  # a parameter record's offset pointing past the section
        start = (raw[0] - 1) * 512
        n = raw[start + 4] if raw[start + 4] < 128 else 256 - raw[start + 4]
        raw[start + 4 + 2 + n:start + 4 + 4 + n] = b"\xff\x7f"
        bad.write_bytes(bytes(raw))
    else:
        bad.write_bytes(bytes(raw[:cut]))
    run = subprocess.run([sys.executable, "-m", "humanbody", "analyze", str(bad), "--out", str(tmp_path), "-q"],
                         capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "bad.c3d" in run.stderr

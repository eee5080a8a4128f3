"""C3D.org's sample files (../shared/data/real/c3d/c3d_org) and the ezc3d corpus (../shared/data/real/c3d), read
as ezc3d reads them; the tolerance rules each on a synthetic file written with ezc3d.

For every file: nothing crashes; the points and frames equal ezc3d's where ezc3d reads the file as written,
and where it does not (a damaged parameter section, big-endian SGI, a parameter ezc3d refuses, a frame layout
that does not fill the data section), the file's own layout is checked another way (the same trial in another
encoding, smooth motion); each plate's force and centre of pressure equal an independent computation from the
analog channels, the calibration matrix and the corners (C3D User Guide, force-platform types 1-4); what was
odd is said in one line each.  Skipped when the shared data are absent."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from _shared import SHARED_DATA

from humanbody.errors import InputError

ezc3d = pytest.importorskip("ezc3d")

ORG = SHARED_DATA / "real" / "c3d" / "c3d_org"
CORPUS = SHARED_DATA / "real" / "c3d"
ORG_FILES = sorted(p.stem for p in ORG.glob("*.c3d")) if ORG.is_dir() else []
CORPUS_FILES = sorted(p.stem for p in CORPUS.glob("*.c3d")) if CORPUS.is_dir() else []
#: Files whose points ezc3d does not read as written (its frame layout or its parameters), and why.
NOT_AS_EZC3D = {
    "sample_02_sgi_real": "big-endian SGI/MIPS encoding",
    "sample_11_evart": "analog samples per frame",
    "sample_13_golfswing": "OFFSET parameter is not an INT",
    "sample_18_bad_parameter_section": "its parameter section is damaged",
    "sample_20_phasespace_sample": "its parameter section declares no blocks",
    "sample_22_BKINtechnologies": "The format is not standard",
    "sample_28_dynamic": "analog samples per frame",
    "sample_28_standing": "analog samples per frame",
}
#: Files with no 3-D points: the marker reader refuses them in one line.
NO_POINTS = {"Kistler", "C3DRotationExample"}


def _path(folder, name):
    path = folder / f"{name}.c3d"
    if not path.is_file():
        pytest.skip(f"needs the shared C3D files ({path.name})")
    return path


def _all():
    return [(ORG, n) for n in ORG_FILES] + [(CORPUS, n) for n in CORPUS_FILES]


@pytest.mark.parametrize("folder,name", _all(), ids=[n for _, n in _all()])
def test_points_and_frames_as_ezc3d_reads_them(folder, name):
    from humanbody.io.c3d import read_c3d

    path = _path(folder, name)
    if name in NO_POINTS:
        with pytest.raises(InputError, match="holds no 3-D points"):
            read_c3d(path)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df = read_c3d(path)
    notes = df.attrs["conversions"]
    assert all("\n" not in n and len(n) < 200 for n in notes)
    if name in NOT_AS_EZC3D:
        assert any(NOT_AS_EZC3D[name] in n for n in notes), notes
        return
    c = ezc3d.c3d(str(path))
    pts = np.asarray(c["data"]["points"], dtype=float)
    assert len(df) == pts.shape[2]
    labels = [str(s).strip() for s in c["parameters"]["POINT"]["LABELS"]["value"]]
    k = 2
    while f"LABELS{k}" in c["parameters"]["POINT"]:
        labels += [str(s).strip() for s in c["parameters"]["POINT"][f"LABELS{k}"]["value"]]
        k += 1
    ours = {m: df[[f"{m}_x", f"{m}_y", f"{m}_z"]].to_numpy() for m in df.attrs["markers"]}
    scale = {"mm": 1e-3, "cm": 1e-2, "m": 1.0}[df.attrs["units_in_file"]]
    names = [lab or f"M{j + 1:02d}" for j, lab in enumerate(labels[:pts.shape[1]])]
    empty = ~np.isfinite(pts[:3]).all(axis=0).any(axis=1) | ~np.any(pts[:3] != 0, axis=(0, 2))
    seen: dict[str, int] = {}
    for j, name_j in enumerate(names):
        if empty[j] and names.count(name_j) > 1:
            continue  # an empty repeated label, dropped
        seen[name_j] = seen.get(name_j, 0) + 1
        key = name_j if seen[name_j] == 1 else f"{name_j}_{seen[name_j]}"
        if key not in ours:
            continue  # a model output, or an empty repeated label
        ref = pts[:3, j, :].T * scale
        ref[(ref == 0).all(axis=1)] = np.nan
        got = ours[key]
        assert np.array_equal(np.isnan(got[:, 0]), np.isnan(ref[:, 0])), key
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-9, equal_nan=True)


@pytest.mark.parametrize("name", [n for n in NOT_AS_EZC3D if n != "sample_02_sgi_real"])
def test_files_ezc3d_misreads_hold_smooth_motion(name):
    """Read by the file's own layout, markers move less than 10 cm between frames in 95 % of the steps; ezc3d's
    reading (where it reads the file) jumps."""
    from humanbody.io.c3d import read_c3d

    df = read_c3d(_path(ORG, name))
    xyz = df.drop(columns="time").to_numpy().reshape(len(df), -1, 3)
    step = np.linalg.norm(np.diff(xyz, axis=0), axis=2)
    assert np.nanpercentile(step, 95) < 0.10


def test_sgi_file_equals_the_same_trial_in_pc_encoding():
    from humanbody.io.c3d import read_c3d

    sgi = read_c3d(_path(ORG, "sample_02_sgi_real"))
    pc = read_c3d(_path(ORG, "sample_02_pc_real"))
    assert sgi.attrs["markers"] == pc.attrs["markers"]
    np.testing.assert_array_equal(sgi.to_numpy(), pc.to_numpy())
    dec = read_c3d(_path(ORG, "sample_02_dec_int"))
    assert dec.attrs["markers"] == pc.attrs["markers"] and len(dec) == len(pc)


# ------------------------------------------------------------------ force plates, independently
def _plate_frame(corners):
    """Plate axes (columns, lab) and surface centre from the four corners (3, 4), the C3D User Guide's order."""
    c = np.asarray(corners, dtype=float)
    x = c[:, 0] - c[:, 1]
    y = c[:, 0] - c[:, 3]
    z = np.cross(x, y)
    y = np.cross(z, x)
    R = np.stack([x / np.linalg.norm(x), y / np.linalg.norm(y), z / np.linalg.norm(z)], axis=1)
    return R, c.mean(axis=1)


def _plate_wrench(kind, ch, origin, cal):
    """Force (3, T) and moment about the sensor origin (3, T), plate axes, from the channels (n, T)."""
    if kind in (2, 4):
        fm = cal @ ch[:6] if kind == 4 else ch[:6]
        return fm[:3], fm[3:6]
    if kind == 1:  # Fx, Fy, Fz, COPx, COPy, Tz: the moment of F applied at the COP, plus Tz
        F = ch[:3]
        P = np.vstack([ch[3], ch[4], np.zeros_like(ch[3])])
        M = np.cross(P.T, F.T).T
        M[2] += ch[5]
        return F, M
    a, b = origin[0], origin[1]  # type 3 (Kistler): fx12, fx34, fy14, fy23, fz1..fz4
    F = np.vstack([ch[0] + ch[1], ch[2] + ch[3], ch[4] + ch[5] + ch[6] + ch[7]])
    Mx = b * (ch[4] + ch[5] - ch[6] - ch[7])
    My = a * (-ch[4] + ch[5] + ch[6] - ch[7])
    Mz = b * (-ch[0] + ch[1]) + a * (ch[2] - ch[3])
    return F, np.vstack([Mx, My, Mz])


def _independent_plates(path, rests=None):
    """(force (T, P, 3) N, centre of pressure (T, P, 3) mm) of each plate, lab axes, from ezc3d's analog
    channels only: plate force and moment (types 1-4), into the lab by the corners' axes, the moment moved to
    the surface centre, the centre of pressure where the moment has no component along the surface.  ``rests``:
    plate index -> the resting force (N, (3,)) of a plate not zeroed; its centre of pressure is then that of
    the loads less their resting values (the force less ``rest``, the moment less its median over the samples
    whose force along the plate's normal lies within 5 N of the resting one); the force returned is the file's."""
    c = ezc3d.c3d(str(path))
    fp = c["parameters"]["FORCE_PLATFORM"]
    used = int(np.ravel(fp["USED"]["value"])[0])
    types = np.ravel(fp["TYPE"]["value"])[:used]
    chan = np.asarray(fp["CHANNEL"]["value"]).reshape(-1, used, order="F") if np.ndim(
        fp["CHANNEL"]["value"]) == 1 else np.asarray(fp["CHANNEL"]["value"])
    corners = np.asarray(fp["CORNERS"]["value"]).reshape(3, 4, used)
    origins = np.asarray(fp["ORIGIN"]["value"]).reshape(3, used)
    an = np.asarray(c["data"]["analogs"], dtype=float)[0]
    cal_all = np.asarray(fp["CAL_MATRIX"]["value"]) if "CAL_MATRIX" in fp else None
    forces, cops = [], []
    for i in range(used):
        kind = int(types[i])
        n_ch = 8 if kind == 3 else 6
        ch = an[np.asarray(chan[:n_ch, i], dtype=int) - 1]
        cal = cal_all[:, :, i] if kind == 4 else None
        o = origins[:, i]
        F, M = _plate_wrench(kind, ch, np.abs(o) if kind == 3 else o, cal)
        R, centre = _plate_frame(corners[:, :, i])
        if kind != 3:
            # ORIGIN: from the surface centre to the sensor origin, plate axes, pointing into the plate
            o_plate = -o if o[2] <= 0 else o
        else:
            o_plate = np.array([0.0, 0.0, -abs(o[2])])
        Fl = R @ F
        Ml = R @ M + np.cross((R @ o_plate)[:, None].T, Fl.T).T  # about the surface centre
        F0, M0 = Fl, Ml
        if rests and i in rests:
            rest = np.asarray(rests[i], dtype=float)
            near = np.abs((Fl.T - rest) @ R[:, 2]) < 5.0  # along the plate's normal
            F0, M0 = Fl - rest[:, None], Ml - np.median(Ml[:, near], axis=1)[:, None]
        with np.errstate(invalid="ignore", divide="ignore"):
            z = R[:, 2]
            cop = centre[:, None] + np.cross(z, M0.T).T / (F0.T @ z)[None, :]
        forces.append(Fl.T)
        cops.append(cop.T)
    return np.stack(forces, axis=1), np.stack(cops, axis=1)


#: Files ezc3d reads whose declared plates cannot be read, and the reason our one line gives: EVaRT's
#: FORCE_PLATFORM:CHANNEL has 6 rows for its two 8-channel (type 3) plates (ezc3d refuses to extract them too);
#: BTS's walk and standing trial declare a plate and hold no analog sample.
PLATES_REFUSED = {"sample_11_evart": "CHANNEL is not fill properly",
                  "sample_28_dynamic": "declares 1 force platform but holds no analog samples",
                  "sample_28_standing": "declares 1 force platform but holds no analog samples"}


def _declared_plates(path):
    """(FORCE_PLATFORM:USED, analog samples) as ezc3d reads the file, or None where ezc3d cannot read it."""
    try:
        c = ezc3d.c3d(str(path))
    except Exception:  # noqa: BLE001 - ezc3d raises plain errors for files it cannot read
        return None
    fp = c["parameters"].get("FORCE_PLATFORM", {})
    used = np.ravel(fp.get("USED", {}).get("value", [0]))
    return (int(used[0]) if len(used) else 0), int(np.size(c["data"]["analogs"]))


@pytest.mark.parametrize("folder,name", _all(), ids=[n for _, n in _all()])
def test_plate_force_and_centre_of_pressure_equal_an_independent_computation(folder, name):
    """Every plate of every shared file: its force and centre of pressure equal a computation from ezc3d's analog
    channels (types 1-4, above; a plate not zeroed from its zeroed loads) and, but for type 3's ORIGIN (the
    sensors' offsets, which ezc3d takes for a shift) and a plate not zeroed, ezc3d's own platform extraction; a file without readable plates is refused in one line, and only
    where ezc3d has no plates to give either."""
    from humanbody.io.forceplates import read_c3d_platforms

    path = _path(folder, name)
    declared = _declared_plates(path)
    if declared is None or declared[0] == 0 or name in PLATES_REFUSED:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            with pytest.raises(InputError) as err:
                read_c3d_platforms(path)
        text = str(err.value)
        assert "\n" not in text and path.name in text
        if declared is None:
            assert "cannot read the C3D file" in text
        elif declared[0] == 0:
            assert "no force platforms" in text
        else:
            assert PLATES_REFUSED[name] in text
            if "CHANNEL" in PLATES_REFUSED[name]:
                with pytest.raises(RuntimeError, match="CHANNEL"):
                    ezc3d.c3d(str(path), extract_forceplat_data=True)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an unloaded plate's NaN centre says nothing
        ours = read_c3d_platforms(path)
    rests = {i: ours.rezeroed[n] for i, n in enumerate(ours.names) if n in ours.rezeroed}
    F, P = _independent_plates(path, rests)
    units = list(ezc3d.c3d(str(path))["parameters"]["POINT"]["UNITS"]["value"]) or ["mm"]
    unit = 1e-3 if str(units[0]).strip() == "mm" else 1.0
    assert ours.force.shape == F.shape and F.shape[1] == declared[0]
    ez = ezc3d.c3d(str(path), extract_forceplat_data=True)["data"]["platform"]
    for i in range(F.shape[1]):
        sign = -1.0 if ours.names[i] in ours.reversed else 1.0
        rest = ours.rezeroed.get(ours.names[i], np.zeros(3))  # a plate not zeroed: its resting force taken off
        atol = 1e-6 * max(1.0, np.abs(F).max())
        np.testing.assert_allclose(sign * ours.force[:, i] + rest, F[:, i], atol=atol)
        np.testing.assert_allclose(sign * ours.force[:, i] + rest, np.asarray(ez[i]["force"]).T, atol=atol)
        loaded = np.linalg.norm(F[:, i], axis=1) > 50.0
        if loaded.any():
            # a plate not zeroed: ours from ezc3d's centre (its float arithmetic, 1e-6 m) scaled by the raw over the
            # zeroed force, up to 3 near the 50 N threshold
            np.testing.assert_allclose(ours.point[loaded, i], P[loaded, i] * unit, atol=1e-5 if i in rests else 1e-6)
            if ours.types[i] != 3 and i not in rests:  # ezc3d's centre: from the loads as read, offset included
                cop = np.asarray(ez[i]["center_of_pressure"], dtype=float).T[loaded] * unit
                np.testing.assert_allclose(ours.point[loaded, i], cop, atol=1e-6)


def test_plates_not_zeroed_have_their_resting_force_taken_off():
    """Codamotion's walk: three plates read 25, 22 and 71 N at rest; taken off, each reads 0 N at rest and the
    third, whose offset outweighed its steps, is the ground reaction (upwards) without being reversed."""
    from humanbody.io.forceplates import read_c3d_platforms, resting_force

    c = read_c3d_platforms(_path(ORG, "sample_00_Codamotion_codamotion_gaitwands_20150204"))
    assert {k: round(abs(v[2])) for k, v in c.rezeroed.items()} == {"plate1": 25, "plate2": 22, "plate3": 71}
    assert c.reversed == []
    for i in range(3):  # plate4 rests at 8 N, under the 20 N contact threshold: left as it is
        fz = c.force[:, i, 2]
        assert abs(np.median(fz)) < 1.0 and np.percentile(fz, 99) > 400.0
    t = np.linspace(0.0, 1.0, 1000)
    standing = np.stack([0 * t, 0 * t, 700.0 + np.sin(9 * t)], axis=1)  # a body on the plate throughout: kept
    assert resting_force(standing) is None
    zeroed = np.stack([0 * t, 0 * t, np.where((t > 0.3) & (t < 0.6), 600.0, 0.5)], axis=1)
    assert resting_force(zeroed) is None
    offset = zeroed + np.array([1.0, -2.0, 40.0])
    np.testing.assert_allclose(resting_force(offset), [1.0, -2.0, 40.5])
    np.testing.assert_allclose(resting_force(-offset), [-1.0, 2.0, -40.5])  # the force on the plate: same offset
    loaded_long = offset.copy()
    loaded_long[(t > 0.05) & (t < 0.7), 2] = 650.0  # a foot on the plate for most of the trial: the rest still found
    np.testing.assert_allclose(resting_force(loaded_long), [1.0, -2.0, 40.5])


# ------------------------------------------------------------------ prescaled analog plates
def _loads(n):
    """A foot's load on a plate for ``n`` samples: unloaded for the first and last fifth, between them a vertical
    force rising to 700 N with shear, its centre of pressure travelling 20 cm along the plate, a free moment.
    Returns force (n, 3) N and centre (n, 3) mm from the surface centre, and the free moment (n,) N·mm, all in
    the plate's axes (AMTI's: z down, the force the foot applies to the plate)."""
    t = np.linspace(0.0, 1.0, n)
    on = (t > 0.2) & (t < 0.8)
    s = np.where(on, np.sin(np.pi * (t - 0.2) / 0.6), 0.0)
    force = np.stack([80.0 * s * np.cos(7 * t), -30.0 * s, 700.0 * s], axis=1)
    cop = np.stack([-100.0 + 200.0 * t, 15.0 + 10.0 * t, 0.0 * t], axis=1)
    free = 2000.0 * s * np.sin(5 * t)
    return force, cop, free


def test_prescaled_analog_plates_read_as_the_loads_written(tmp_path):
    """Plates whose analog channels hold newtons and newton-millimetres already (ANALOG:SCALE 1, OFFSET 0,
    GEN_SCALE 1 as ezc3d writes floats; type 2, and type 4 with an identity calibration matrix): the force read
    is the ground reaction (the load written, turned into the lab and reversed), the centre of pressure the point
    written, whatever the sensor origin's place below the surface (C3D User Guide: the channels' moments are about
    the sensor origin, ORIGIN the vector between it and the surface centre, in plate axes)."""
    from humanbody.io.forceplates import read_c3d_platforms

    n, ratio = 60, 10
    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [100.0]
    c["parameters"]["POINT"]["LABELS"]["value"] = ["A", "B", "C"]
    c["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    pts = np.ones((4, 3, n))
    pts[:3] = np.transpose(_walk(n, 3), (2, 1, 0))
    c["data"]["points"] = pts
    # two AMTI-like plates side by side (corner order giving plate x = lab x, y = -lab y, z = -lab z)
    half = np.array([[300.0, -300.0, -300.0, 300.0], [-200.0, -200.0, 200.0, 200.0], [0.0, 0.0, 0.0, 0.0]])
    centres = np.array([[1000.0, 300.0, 0.0], [1600.0, 300.0, 0.0]])
    corners = np.stack([half + centres[i][:, None] for i in range(2)], axis=2)
    origins = np.array([[2.0, -1.5], [-3.0, 4.0], [-40.0, -42.5]])  # sensor origin -> surface centre, plate axes
    R = np.diag([1.0, -1.0, -1.0])  # plate -> lab
    written, channels = [], []
    for i in range(2):
        f, p, free = _loads(n * ratio)
        f = np.roll(f, 150 * i, axis=0)  # the second plate loaded later
        sensor = -origins[:, i]  # the sensor origin from the surface centre: 40 mm into the plate (+z, down)
        m = np.cross(p - sensor, f)
        m[:, 2] += free
        channels.append(np.hstack([f, m]).T)
        loaded = f[:, 2] > 50.0
        written.append((f @ R.T, (p @ R.T + centres[i])[loaded], loaded))
    c["parameters"]["ANALOG"]["RATE"]["value"] = [100.0 * ratio]
    c["parameters"]["ANALOG"]["LABELS"]["value"] = [f"{q}{i + 1}" for i in range(2)
                                                    for q in ("Fx", "Fy", "Fz", "Mx", "My", "Mz")]
    c["parameters"]["ANALOG"]["UNITS"]["value"] = (["N"] * 3 + ["Nmm"] * 3) * 2
    c["data"]["analogs"] = np.vstack(channels)[None]
    fp = c["parameters"]["FORCE_PLATFORM"]  # the group ezc3d's new file declares (integer USED, TYPE, CHANNEL)
    fp["USED"]["value"] = [2]
    fp["TYPE"]["value"] = [2, 4]
    fp["ZERO"]["value"] = [1, 0]
    fp["CHANNEL"]["value"] = np.arange(1, 13).reshape(2, 6).T
    fp["CORNERS"]["value"] = corners
    fp["ORIGIN"]["value"] = origins
    fp["CAL_MATRIX"]["value"] = np.stack([np.eye(6)] * 2, axis=2)
    path = tmp_path / "prescaled.c3d"
    c.write(str(path))
    back = ezc3d.c3d(str(path))["parameters"]["ANALOG"]
    assert np.all(back["SCALE"]["value"] == 1.0) and np.all(back["OFFSET"]["value"] == 0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = read_c3d_platforms(path)
    assert got.types == [2, 4] and got.rezeroed == {} and got.reversed == ["plate1", "plate2"]
    for i, (force_lab, cop_lab, loaded) in enumerate(written):
        np.testing.assert_allclose(got.force[:, i], -force_lab, atol=1e-3)  # the reaction on the foot
        np.testing.assert_allclose(got.point[loaded, i], cop_lab * 1e-3, atol=1e-6)
        assert abs(got.force[:, i, 2].max() - 700.0) < 1.0


# ------------------------------------------------------------------ tolerance rules, synthetic files
def _write(tmp_path, labels, xyz, *, rate=100.0, drop=(), name="t.c3d"):
    """A C3D written by ezc3d: ``labels``, points ``xyz`` (frames, n, 3) mm; ``drop`` POINT parameters
    removed from the parameter section afterwards (by humanbody's parameter writer)."""
    from humanbody.io.c3d_params import layout_parameters, parse_parameters

    c = ezc3d.c3d()
    c["parameters"]["POINT"]["RATE"]["value"] = [rate]
    c["parameters"]["POINT"]["LABELS"]["value"] = list(labels)
    c["parameters"]["POINT"]["UNITS"]["value"] = ["mm"]
    pts = np.ones((4, len(labels), len(xyz)))
    pts[:3] = np.transpose(np.asarray(xyz, dtype=float), (2, 1, 0))
    c["data"]["points"] = pts
    path = tmp_path / name
    c.write(str(path))
    if drop:
        raw = bytearray(path.read_bytes())
        start = (raw[0] - 1) * 512
        groups, _ = parse_parameters(bytes(raw), start)
        for p in drop:
            groups["POINT"].params.pop(p)
        section = layout_parameters(groups, first_block=raw[0])
        old_blocks = raw[start + 2]
        assert len(section) <= old_blocks * 512
        raw[start:start + old_blocks * 512] = section.ljust(old_blocks * 512, b"\0")
        raw[start + 2] = old_blocks
        path.write_bytes(bytes(raw))
    return path


def _walk(n=20, m=3):
    t = np.arange(n)[:, None, None]
    return 100.0 + np.arange(m)[None, :, None] * 50.0 + t * np.array([10.0, 0.0, 0.0]) + np.zeros((n, m, 3))


def test_repeated_labels_are_told_apart_and_an_empty_repeat_dropped(tmp_path):
    from humanbody.io.c3d import read_c3d

    xyz = _walk(m=4)
    xyz[:, 3] = np.nan  # the third RKNE is empty
    df = read_c3d(_write(tmp_path, ["RKNE", "LKNE", "RKNE", "RKNE"], xyz))
    assert df.attrs["markers"] == ["RKNE", "LKNE", "RKNE_2"]
    np.testing.assert_allclose(df["RKNE_2_x"], xyz[:, 2, 0] * 1e-3)
    notes = df.attrs["conversions"]
    assert sum("told apart" in n for n in notes) == 1 and sum("no sample dropped" in n for n in notes) == 1


def test_unnamed_points_are_named_after_their_place(tmp_path):
    from humanbody.io.c3d import read_c3d

    df = read_c3d(_write(tmp_path, ["", "A", ""], _walk()))
    assert df.attrs["markers"] == ["M01", "A", "M03"]
    assert any("unnamed" in n and "M01" in n for n in df.attrs["conversions"])


@pytest.mark.parametrize("missing", [("RATE",), ("DATA_START",), ("RATE", "DATA_START", "SCALE")])
def test_missing_point_parameters_are_taken_from_the_header(tmp_path, missing):
    from humanbody.io.c3d import read_c3d

    xyz = _walk()
    df = read_c3d(_write(tmp_path, ["A", "B", "C"], xyz, rate=120.0, drop=missing))
    assert df.attrs["rate_hz"] == pytest.approx(120.0)
    np.testing.assert_allclose(df["B_x"], xyz[:, 1, 0] * 1e-3, atol=1e-6)
    lines = [n for n in df.attrs["conversions"] if "taken from the header" in n]
    assert len(lines) <= 1


def test_a_unit_cut_short_is_read(tmp_path):
    from humanbody.io.c3d import read_c3d
    from humanbody.io.c3d_params import Parameter, layout_parameters, parse_parameters

    path = _write(tmp_path, ["A", "B", "C"], _walk())
    raw = bytearray(path.read_bytes())
    start = (raw[0] - 1) * 512
    groups, _ = parse_parameters(bytes(raw), start)
    groups["POINT"].params["UNITS"] = Parameter.of("UNITS", ["mill"])
    section = layout_parameters(groups, first_block=raw[0])
    raw[start:start + len(section)] = section
    path.write_bytes(bytes(raw))
    df = read_c3d(path)
    assert df.attrs["units_in_file"] == "mm"
    assert any("cut short" in n for n in df.attrs["conversions"])


def test_a_record_offset_that_contradicts_its_lengths_is_passed_over(tmp_path):
    from humanbody.io.c3d import read_c3d

    xyz = _walk()
    path = _write(tmp_path, ["A", "B", "C"], xyz)
    raw = bytearray(path.read_bytes())
    start = (raw[0] - 1) * 512
    pos = raw.index(b"LABELS", start)  # POINT:LABELS' offset word byte-swapped, as in C3D.org's SGI sample
    raw[pos + 6], raw[pos + 7] = raw[pos + 7], raw[pos + 6] or 1
    path.write_bytes(bytes(raw))
    df = read_c3d(path)
    assert df.attrs["markers"] == ["A", "B", "C"]
    np.testing.assert_allclose(df["C_x"], xyz[:, 2, 0] * 1e-3, atol=1e-6)


def test_a_damaged_parameter_tail_keeps_the_records_before_it(tmp_path):
    from humanbody.io.c3d import read_c3d

    xyz = _walk()
    path = _write(tmp_path, ["A", "B", "C"], xyz)
    raw = bytearray(path.read_bytes())
    start = (raw[0] - 1) * 512
    pos = raw.index(b"ANALOG", start)
    raw[pos + 20:pos + 60] = b"\x07\x02\x99" * 13 + b"\x07"  # the ANALOG group's records overwritten
    path.write_bytes(bytes(raw))
    df = read_c3d(path)
    assert df.attrs["markers"] == ["A", "B", "C"]
    assert any("damaged" in n for n in df.attrs["conversions"])


# ------------------------------------------------------------------ lab axes and messages
def test_screen_axes_give_the_forward_axis_of_a_trial_without_progression():
    from humanbody.io.c3d import read_c3d
    from humanbody.lab.axes import detect_axes

    df = read_c3d(_path(ORG, "sample_13_golfswing"))
    assert df.attrs["screen_axes"] == ("+Y", "+Z")
    mapping = detect_axes(df)
    assert mapping.spec == "y,z,x" and "X_SCREEN" in mapping.describe()
    df.attrs.pop("screen_axes")
    with pytest.raises(InputError, match="direction of progression"):
        detect_axes(df)


@pytest.mark.parametrize("screen,spec", [(("-Y", "+Z"), "-y,x,z"), (("+X", "+Z"), "x,y,z")])
def test_screen_axes_are_used_when_the_motion_gives_no_direction(tmp_path, screen, spec):
    """A synthetic standing trial (four unnamed markers, no travel, no left/right pairs): the forward axis cannot
    be detected; the file's POINT:X_SCREEN gives it (up from the markers), said in the mapping; without the screen
    axes the refusal names the direction of progression."""
    from humanbody.io.c3d import read_c3d
    from humanbody.lab.axes import detect_axes

    rng = np.random.default_rng(0)
    base = np.array([[0.0, 0.0, 100.0], [40.0, 150.0, 500.0], [-30.0, 60.0, 1000.0], [10.0, -80.0, 1600.0]])
    xyz = base[None] + rng.normal(0.0, 0.5, (50, 4, 3))  # standing still: sway of half a millimetre
    path = _write(tmp_path, ["", "", "", ""], xyz)
    c = ezc3d.c3d(str(path))
    c.add_parameter("POINT", "X_SCREEN", [screen[0]])
    c.add_parameter("POINT", "Y_SCREEN", [screen[1]])
    c.write(str(path))
    df = read_c3d(path)
    assert df.attrs["markers"] == ["M01", "M02", "M03", "M04"]
    assert df.attrs["screen_axes"] == screen
    mapping = detect_axes(df)
    assert mapping.spec == spec and f"POINT:X_SCREEN {screen[0]}" in mapping.describe()
    df.attrs.pop("screen_axes")
    with pytest.raises(InputError, match="direction of progression"):
        detect_axes(df)


def test_a_missing_markerset_file_is_said_not_found():
    from humanbody.markers.markerset import load_markerset

    with pytest.raises(InputError, match="'missing.toml' not found"):
        load_markerset("missing.toml")


def test_a_drafted_height_out_of_range_asks_for_the_height_not_for_metres():
    from humanbody.io.c3d import read_c3d
    from humanbody.lab.axes import to_ground
    from humanbody.tools.draft import draft_markerset

    ground, _ = to_ground(read_c3d(_path(ORG, "sample_30_marche281")))
    # its temples (TempeG/TempeD) read as head markers: the height is estimated from them, within 6 % of the
    # SUBJECT group's 1.74 m; the pelvis from its trochanters and C7 (it has no pelvis marker), said as a CHECK
    draft = draft_markerset(ground)
    assert abs(draft.height - 1.74) < 0.06 * 1.74
    assert any(c.startswith("no pelvis marker: the pelvis from the trochanters and C7") for c in draft.checks)
    # without the head and shoulder markers, and the subject 10 % taller, the estimate (the highest marker, C7,
    # taken at an ASIS's 0.55 of the height) is not a height: refused, asking for the height
    gone = ("TMPG", "TMPD", "MNTN", "EPLG", "EPLD")
    bare = ground.drop(columns=[f"{m}_{a}" for m in gone for a in "xyz"])
    bare[[c for c in bare.columns if c.endswith("_z")]] *= 1.1
    bare.attrs = dict(ground.attrs, markers=[m for m in ground.attrs["markers"] if m not in gone])
    with pytest.raises(InputError, match="give the subject's `height` M") as err:
        draft_markerset(bare)
    assert "give metres" not in str(err.value)
    assert "--height M" in str(err.value.on_command_line())  # the command line names its flag


def test_a_draft_from_a_walk_s_frames_says_so_when_it_fails():
    """``markerset init`` on Motion Analysis's walk (which the built-in Plug-in Gait set reads): its draft, from
    the walk's most upright frame, has feet 15 and 22 cm long; the refusal names that frame, not a standing trial."""
    from humanbody.io.c3d import read_c3d
    from humanbody.lab.axes import to_ground
    from humanbody.tools.draft import draft_markerset

    ground, _ = to_ground(read_c3d(_path(ORG, "sample_00_Motion_Analysis_Corporation_Walk1")))
    with pytest.raises(InputError, match="implausible limbs on the walk's frames it was drafted from") as err:
        draft_markerset(ground)
    assert "standing trial" not in str(err.value)

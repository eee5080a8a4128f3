"""Every command x every input kind x every way a file goes bad: one line naming the file, exit 2.

The readers' own tests check each format's messages (tests/io); this module
crosses them with the commands that take the file (a trial, a standing trial,
a marker-set draft, the viewer; a subject, a model, a simulation spec, an
OpenSim model, coordinates and loads) and with the corruptions nobody writes
by hand for every pair: empty, random bytes with the right extension, a
folder, a missing file, header only, truncated mid-row or mid-block, a
non-numeric or infinite cell, a repeated or decreasing time, UTF-16 text,
a C3D whose parameter section points outside the file.  Each run is in
process (tests/_cli.py) and must end with exit status 2 and one line of
stderr that names the file: no traceback, no warning, no output directory
left half written.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _cli import run_main
from _io_samples import write_c3d, write_motive_csv, write_qualisys_tsv, write_vicon_csv

DATA = Path(__file__).resolve().parents[2] / "data"
FRAMES = 60


def _head(src: Path, dst: Path, header: int) -> Path:
    """The first ``FRAMES`` data rows of text trial ``src`` (``header`` lines before them) in ``dst``.

    Parameters
    ----------
    src, dst : pathlib.Path
        The trial read and the shortened copy written.
    header : int
        Number of lines before the first data row; a TRC header's frame counts are set to ``FRAMES``.

    Returns
    -------
    pathlib.Path
        ``dst``.
    """
    lines = src.read_text().splitlines(keepends=True)
    if src.suffix == ".trc":
        fields = lines[2].rstrip("\n").split("\t")
        fields[2] = fields[7] = str(FRAMES)
        lines[2] = "\t".join(fields) + "\n"
    dst.write_text("".join(lines[: header + FRAMES]))
    return dst


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """Good trials of every kind, ``FRAMES`` frames each: {kind: (path, header lines, separator)}."""
    from humanbody.io import read_trial

    root = tmp_path_factory.mktemp("good")
    walk = read_trial(DATA / "sample_walk_markers.trc").iloc[:FRAMES]
    names = walk.attrs["markers"]
    xyz = walk[[f"{m}_{a}" for m in names for a in "xyz"]].to_numpy().reshape(FRAMES, len(names), 3) * 1000.0
    return {
        "trc": (_head(DATA / "sample_walk_markers.trc", root / "walk.trc", 6), 6, "\t"),
        "keypoints": (_head(DATA / "sample_walk_keypoints.trc", root / "kp.trc", 6), 6, "\t"),
        "coordinates": (_head(DATA / "sample_walk.csv", root / "coords.csv", 1), 1, ","),
        "imu": (_head(DATA / "sample_walk_imu.sto", root / "imu.sto", 6), 6, "\t"),
        "vicon": (write_vicon_csv(root / "vicon.csv", xyz, names, with_devices=False), 5, ","),
        "motive": (write_motive_csv(root / "motive.csv", xyz, names, rate=100.0), 7, ","),
        "qualisys": (write_qualisys_tsv(root / "qtm.tsv", xyz, names), 12, "\t"),
        "c3d": (write_c3d(root / "walk.c3d", xyz, names), None, None),
        "static": (_head(DATA / "sample_static.trc", root / "static.trc", 6), 6, "\t"),
        "imu_static": (_head(DATA / "sample_static_imu.sto", root / "imu_static.sto", 6), 6, "\t"),
    }


#: Column of the time stamps per text kind (0-based).
TIME_COLUMN = {"trc": 1, "keypoints": 1, "coordinates": 0, "imu": 0, "vicon": 0, "motive": 1, "qualisys": 1}
TEXT_BAD = ["empty", "random", "folder", "missing", "header_only", "truncated_row", "non_numeric", "repeated_time",
            "decreasing_time", "utf16"]
C3D_BAD = ["empty", "random", "folder", "missing", "truncated_half", "truncated_header", "parameters_outside",
           "parameters_past_end"]


def corrupt(source: Path, header: int | None, sep: str | None, how: str, folder: Path, time: int = 0) -> Path:
    """A copy of trial ``source`` gone bad in the way ``how``, written in ``folder`` with the same extension.

    Parameters
    ----------
    source : pathlib.Path
        A good trial.
    header : int or None
        Lines before its first data row (None: a binary C3D).
    sep : str or None
        Its field separator (None: binary).
    how : str
        One of ``TEXT_BAD`` (text files) or ``C3D_BAD`` (C3D).
    folder : pathlib.Path
        Where the bad copy goes (created).
    time : int
        Column of the time stamps (0-based) in a text trial.

    Returns
    -------
    pathlib.Path
        The bad file (or folder, or a path that does not exist).
    """
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{how}{source.suffix}"
    raw = source.read_bytes()
    if how == "empty":
        path.write_bytes(b"")
    elif how == "random":
        path.write_bytes(np.random.default_rng(1).bytes(3000))
    elif how == "folder":
        path.mkdir()
    elif how == "missing":
        pass
    elif how == "truncated_half":
        path.write_bytes(raw[: len(raw) // 2])
    elif how == "truncated_header":
        path.write_bytes(raw[:700])
    elif how == "parameters_outside":  # the header's first byte: the parameter section's 512-byte block
        path.write_bytes(bytes([200]) + raw[1:])
    elif how == "parameters_past_end":  # a valid block number, past the end of the file
        path.write_bytes(bytes([120]) + raw[1:])
    elif how == "parameter_blocks_outside":  # the parameter section says it has 250 blocks
        block = raw[0] - 1
        path.write_bytes(raw[: 512 * block + 2] + bytes([250]) + raw[512 * block + 3:])
    elif how == "utf16":
        path.write_text(source.read_text(), encoding="utf-16")
    else:
        assert header is not None and sep is not None
        lines = source.read_text().splitlines()
        row = header + 12
        if how == "header_only":
            lines = lines[:header]
        elif how == "truncated_row":
            lines = lines[: header + 20] + [lines[header + 20][: len(lines[header + 20]) // 2]]
        elif how == "non_numeric":
            fields = lines[row].split(sep)
            fields[4] = "abc"
            lines[row] = sep.join(fields)
        elif how == "decreasing_time":
            lines[row], lines[row + 1] = lines[row + 1], lines[row]
        elif how == "repeated_time":
            fields, before = lines[row].split(sep), lines[row - 1].split(sep)
            fields[time] = before[time]
            lines[row] = sep.join(fields)
        path.write_text("\n".join(lines) + "\n")
    return path


def check_one_line(result, bad: Path, out: Path | None = None) -> None:
    """The contract on a run given bad file ``bad``: exit 2, one stderr line naming it, nothing else.

    Parameters
    ----------
    result : subprocess.CompletedProcess
        The run (tests/_cli.py's :func:`run_main`; Python warnings appended to stderr).
    bad : pathlib.Path
        The bad file the message must name.
    out : pathlib.Path, optional
        The run's output folder, which must be absent or empty (no half-written results).
    """
    err = result.stderr.strip()
    assert result.returncode == 2, (result.args, result.returncode, err)
    assert len(err.splitlines()) == 1, (result.args, err)
    assert bad.name in err, (result.args, err)
    assert "Traceback" not in err and "Warning" not in err and "internal error" not in err, (result.args, err)
    if out is not None:
        assert not out.exists() or not any(out.rglob("*")), (result.args, sorted(out.rglob("*")))


MARKER_KINDS = ("trc", "vicon", "motive", "qualisys", "c3d")
TRIAL_KINDS = (*MARKER_KINDS, "keypoints", "coordinates", "imu")
CASES = [(kind, how) for kind in TRIAL_KINDS for how in (C3D_BAD if kind == "c3d" else TEXT_BAD)]


def _bad_trial(sources, kind, how, tmp_path):
    path, header, sep = sources[kind]
    return corrupt(path, header, sep, how, tmp_path / kind, TIME_COLUMN.get(kind, 0))


def _static_for(sources, kind):
    if kind in MARKER_KINDS:
        return ["--static", str(sources["static"][0])]
    return ["--static", str(sources["imu_static"][0])] if kind == "imu" else []


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_analyze_a_bad_trial(sources, kind, how, tmp_path):
    bad, out = _bad_trial(sources, kind, how, tmp_path), tmp_path / "out"
    check_one_line(run_main("analyze", str(bad), *_static_for(sources, kind), "--out", str(out)), bad, out)


@pytest.mark.parametrize(("kind", "how"), [c for c in CASES if c[0] in MARKER_KINDS])
def test_analyze_with_a_bad_standing_trial(sources, kind, how, tmp_path):
    bad, out = _bad_trial(sources, kind, how, tmp_path), tmp_path / "out"
    check_one_line(run_main("analyze", str(sources["trc"][0]), "--static", str(bad), "--out", str(out)), bad, out)


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_markerset_init_from_a_bad_trial(sources, kind, how, tmp_path):
    bad, out = _bad_trial(sources, kind, how, tmp_path), tmp_path / "out"
    check_one_line(run_main("markerset", "init", str(bad), "--out", str(out / "set.toml")), bad, out)


@pytest.mark.parametrize(("kind", "how"), CASES)
def test_view_a_bad_trial(sources, kind, how, tmp_path):
    bad, out = _bad_trial(sources, kind, how, tmp_path), tmp_path / "out"
    check_one_line(run_main("view", str(bad), *_static_for(sources, kind), "--screenshot", str(out / "a.png")),
                   bad, out)


def test_a_c3d_whose_parameter_section_claims_too_many_blocks_reads_the_same(sources, tmp_path):
    """The parameter section's block count (its third byte) says 250, past the end of the file: the
    records end with their terminator well before, the header's data pointer is intact, so the
    file is usable and reads the very numbers of the good file."""
    from humanbody.io import read_trial

    good = sources["c3d"][0]
    raw = good.read_bytes()
    start = 512 * (raw[0] - 1)
    bad = tmp_path / "blocks.c3d"
    bad.write_bytes(raw[: start + 2] + bytes([250]) + raw[start + 3:])
    a, b = read_trial(good), read_trial(bad)
    assert a.columns.equals(b.columns)
    np.testing.assert_array_equal(a.to_numpy(), b.to_numpy())


# ----------------------------------------------------------------------------- the files beside a trial
SUBJECT_TOML = "mass = 68.0\nheight = 1.72\nright_leg_length = 0.90\nleft_leg_length = 0.905\n"
SUBJECT_VSK = ('<KinematicModel><Parameters><Parameter NAME="Bodymass" VALUE="72.6"/>'
               '<Parameter NAME="Height" VALUE="1803"/></Parameters></KinematicModel>\n')
SPEC = ('duration = 0.2\nrate_hz = 100\nname = "swing"\n[model]\nmass = 70.0\nheight = 1.75\n[initial]\n'
        'lower_torso_z = 1.0\nright_upper_leg_alpha = -30.0\n')
#: Ways a small text file beside the trial goes bad; ``value:OLD=NEW`` replaces one value.
SIDE_BAD = ["empty", "random", "folder", "missing", "half", "utf16"]
#: (kind, file name, good text or None for the built-in file, bad values as (old, new)).
SIDES = {
    "subject_toml": ("s.toml", SUBJECT_TOML, [("0.905", "nan"), ("0.905", "inf"), ("0.905", "-0.905"),
                                              ("0.905", "0"), ("0.905", '"abc"')]),
    "subject_vsk": ("s.vsk", SUBJECT_VSK, [("72.6", "nan"), ("72.6", "inf"), ("72.6", "-72.6"), ("72.6", "abc"),
                                           ("1803", "-1803")]),
    "markerset": ("set.toml", None, [('"R.Acromium" = 0.01', '"R.Acromium" = inf'),
                                     ('"R.Acromium" = 0.01', '"R.Acromium" = nan'),
                                     ('"R.Acromium" = 0.01', '"R.Acromium" = -1.0'),
                                     ('hinge_weight = 1e-3', 'hinge_weight = inf')]),
    "model": ("model.json", None, [("[", "{"), ('"mass"', '"mass" 1')]),
    "spec": ("swing.toml", SPEC, [("1.0", "nan"), ("1.0", "inf"), ("duration = 0.2", "duration = -1"),
                                  ("duration = 0.2", "duration = inf"), ("100", '"fast"')]),
}


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    """Good side files {kind: path}: a subject (TOML, VSK), a marker set, a model, a simulation spec."""
    root = tmp_path_factory.mktemp("sides")
    paths = {}
    for kind, (name, text, _) in SIDES.items():
        paths[kind] = root / name
        if text is not None:
            paths[kind].write_text(text)
    paths["markerset"].write_text((DATA / "markersets" / "gait2392.toml").read_text())
    assert run_main("model", "export", "--out", str(paths["model"]), "--mass", "70", "--height", "1.75").returncode == 0
    return paths


def _side_commands(sources, kind, bad, out):
    """The command lines that take a side file of ``kind`` (``bad`` in its place), output in ``out``."""
    coords, trc, static = (str(sources[k][0]) for k in ("coordinates", "trc", "static"))
    if kind.startswith("subject"):
        return [["analyze", coords, "--subject", str(bad), "--out", str(out)],
                ["analyze", trc, "--static", static, "--subject", str(bad), "--out", str(out)]]
    if kind == "markerset":
        return [["analyze", trc, "--static", static, "--markerset", str(bad), "--out", str(out)],
                ["markerset", "precision", trc, "--markerset", str(bad)]]
    if kind == "model":
        return [["analyze", coords, "--model", str(bad), "--out", str(out)], ["model", "show", "--model", str(bad)],
                ["vibration", "--model", str(bad), "--out", str(out), "--no-plots"]]
    return [["simulate", str(bad), "--out", str(out), "-q"]]


SIDE_CASES = [(kind, how) for kind in SIDES for how in SIDE_BAD + [f"value{k}" for k in range(len(SIDES[kind][2]))]
              if (kind, how) != ("subject_vsk", "utf16")]  # XML in UTF-16 is XML: below


@pytest.mark.parametrize(("kind", "how"), SIDE_CASES)
def test_a_bad_side_file(sources, sides, kind, how, tmp_path):
    good = sides[kind]
    bad = tmp_path / f"{how}{good.suffix}"
    text = good.read_text()
    if how.startswith("value"):
        old, new = SIDES[kind][2][int(how[5:])]
        assert old in text
        bad.write_text(text.replace(old, new, 1))
    else:
        bad = corrupt_text(good, how, tmp_path)
    for argv in _side_commands(sources, kind, bad, tmp_path / "out"):
        check_one_line(run_main(*argv), bad, tmp_path / "out")


def corrupt_text(source: Path, how: str, folder: Path) -> Path:
    """A copy of the text file ``source`` gone bad in the way ``how`` (one of ``SIDE_BAD``) in ``folder``.

    Parameters
    ----------
    source : pathlib.Path
        A good file.
    how : str
        ``empty``, ``random`` (bytes), ``folder`` (a folder of that name), ``missing``, ``half`` (cut in
        the middle) or ``utf16`` (the same text in UTF-16).
    folder : pathlib.Path
        Where the bad copy goes.

    Returns
    -------
    pathlib.Path
        The bad file (or folder, or a path that does not exist).
    """
    path = folder / f"{how}{source.suffix}"
    text = source.read_text()
    if how == "empty":
        path.write_text("")
    elif how == "random":
        path.write_bytes(np.random.default_rng(2).bytes(2000))
    elif how == "folder":
        path.mkdir()
    elif how == "half":
        path.write_text(text[: len(text) // 2])
    elif how == "utf16":
        path.write_text(text, encoding="utf-16")
    return path


def test_a_vsk_in_utf16_or_with_a_zero_is_usable(sides, tmp_path):
    """A .vsk is XML, which may be UTF-16 (with its byte-order mark): the same subject.  Nexus writes 0 for
    a measurement not taken, so Height 0 is no height, not a zero one."""
    from humanbody.io.subject import read_subject

    good = sides["subject_vsk"]
    wide = tmp_path / "wide.vsk"
    wide.write_text(good.read_text(), encoding="utf-16")
    assert read_subject(wide).mass == read_subject(good).mass == 72.6
    assert read_subject(wide).height == read_subject(good).height == 1.803
    zero = tmp_path / "zero.vsk"
    zero.write_text(good.read_text().replace("1803", "0"))
    assert read_subject(zero).height is None and read_subject(zero).mass == 72.6


# ----------------------------------------------------------------------------- packages not installed
def _hide(monkeypatch, *names):
    """Make ``import name`` (and its submodules) fail as if the packages were not installed.

    Parameters
    ----------
    monkeypatch : pytest.MonkeyPatch
        Undoes the change after the test.
    *names : str
        Top-level package names.
    """
    import sys

    for name in names:
        for mod in [m for m in list(sys.modules) if m == name or m.startswith(name + ".")]:
            monkeypatch.delitem(sys.modules, mod)
        monkeypatch.setitem(sys.modules, name, None)


@pytest.mark.parametrize(("package", "argv", "install"), [
    ("matplotlib", ["vibration", "--out", "{out}", "--fmax", "5", "-q"], 'pip install "humanbody"'),
    ("pyarrow", ["analyze", "{coords}", "--format", "parquet", "--out", "{out}", "-q"], 'pip install "humanbody"'),
    ("dask", ["report", "{folder}", "--out", "{out}", "--scheduler", "tcp://127.0.0.1:1", "-q"],
     "humanbody[cluster]"),
])
def test_a_missing_package_is_one_line_naming_it_and_what_to_install(sources, monkeypatch, tmp_path, package, argv,
                                                                     install):
    folder = tmp_path / "trials"
    folder.mkdir()
    (folder / "walk.csv").write_text(sources["coordinates"][0].read_text())
    _hide(monkeypatch, package, *(("distributed",) if package == "dask" else ()))
    out = tmp_path / "out"
    line = [a.format(out=out, coords=sources["coordinates"][0], folder=folder) for a in argv]
    result = run_main(*line)
    err = result.stderr.strip()
    assert result.returncode == 2 and len(err.splitlines()) == 1, err
    assert package in err and install in err and "Traceback" not in err, err
    state = {".report.lock", "report_state.sqlite"}  # a report folder's resume state, not results
    assert not out.exists() or not [p for p in out.rglob("*") if p.name not in state], sorted(out.rglob("*"))


# ----------------------------------------------------------------------------- humanbody muscles
MUSCLES_BAD = ["empty", "random", "folder", "missing", "half", "utf16", "nan", "inf", "abc", "inf_point"]


def _value_replaced(source: Path, folder: Path, how: str, line: int, column: int) -> Path:
    """``source`` with the value at (``line``, ``column``) (0-based, tab-separated) replaced by ``how``.

    Parameters
    ----------
    source : pathlib.Path
        A tab-separated OpenSim table (.mot).
    folder : pathlib.Path
        Where the copy goes.
    how : str
        The text put in place of the value (``nan``, ``inf``, ``abc``).
    line, column : int
        The data line and its field (0-based).

    Returns
    -------
    pathlib.Path
        The copy.
    """
    lines = source.read_text().splitlines()
    fields = lines[line].split("\t")
    fields[column] = how.split("_")[0]
    lines[line] = "\t".join(fields)
    path = folder / f"{how}{source.suffix}"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("what", ["coordinates", "model", "forces"])
@pytest.mark.parametrize("how", MUSCLES_BAD)
def test_muscles_with_a_bad_file(shared_data, tmp_path, what, how):
    walk = shared_data / "gait2392_walk"
    files = {"model": shared_data / "opensim_models" / "gait2392" / "subject01_simbody.osim",
             "coordinates": tmp_path / "ik.mot", "forces": walk / "subject01_walk1_grf.mot"}
    ik = (walk / "reference" / "opensim_ik.mot").read_text().splitlines(keepends=True)
    files["coordinates"].write_text("".join(ik[:40]).replace("nRows=", "nRowsAll="))
    source = files[what]
    if how in ("nan", "inf", "abc", "inf_point"):
        if what == "model" or (how == "inf_point" and what != "forces"):
            return  # an .osim's numbers are checked by tests/osim (a visual scale factor may be anything)
        header = next(i for i, line in enumerate(source.read_text().splitlines()) if line.strip() == "endheader")
        # a force (ground_force_vy) or a coordinate (pelvis_list); inf_point: a centre of pressure (NaN is no
        # contact there, infinite is wrong)
        bad = _value_replaced(source, tmp_path, how, header + 5, 5 if how == "inf_point" else 2)
    else:
        bad = corrupt_text(source, how, tmp_path)
    files[what] = bad
    out = tmp_path / "out"
    result = run_main("muscles", str(files["coordinates"]), "--model", str(files["model"]), "--forces",
                      str(files["forces"]), "--out", str(out))
    check_one_line(result, bad, out)


# ----------------------------------------------------------------------------- manifests (report, compare)
MANIFEST_BAD = {"empty": None, "random": None, "folder": None, "missing": None, "utf16": None,
                "mass_text": ("70", "abc"), "mass_inf": ("70", "inf"), "mass_nan": ("70", "nan"),
                "height_negative": ("1.75", "-1.75"), "no_trial_column": ("trial,", "walk,")}


@pytest.mark.parametrize("how", list(MANIFEST_BAD))
def test_a_bad_manifest(sources, tmp_path, how):
    """The manifest itself is named (not the per-group copy compare writes), before any trial is analysed."""
    coords = sources["coordinates"][0]
    good = tmp_path / "manifest.csv"
    good.write_text(f"trial,group,mass,height\n{coords},a,70,1.75\n{coords},b,71,1.75\n")
    change = MANIFEST_BAD[how]
    if change is None:
        bad = corrupt_text(good, how, tmp_path)
    else:
        bad = tmp_path / f"{how}.csv"
        bad.write_text(good.read_text().replace(*change, 1))
    out = tmp_path / "out"
    check_one_line(run_main("compare", "--manifest", str(bad), "--by", "group", "--out", str(out), "-q"), bad, out)
    plain = tmp_path / f"plain_{bad.name}"  # report's manifest has no group column
    if bad.is_file():
        plain.write_text(bad.read_text(errors="replace").replace(",group", "").replace(",a,", ",").replace(",b,", ","))
        if how in ("random", "utf16"):
            plain.write_bytes(bad.read_bytes())
    else:
        plain = bad
    check_one_line(run_main("report", "--manifest", str(plain), "--out", str(out), "-q"), plain, out)


# ----------------------------------------------------------------------------- a wrong length unit
@pytest.mark.parametrize("layout", ["trc", "motive", "c3d"])
def test_millimetres_stated_as_metres_are_refused(sources, tmp_path, layout):
    """The walk's millimetres under a header that says metres: a person 1.7 km tall, refused in one line
    naming the file (the static's fit used to be blamed, after the trial was read)."""
    from _io_samples import write_trc

    from humanbody.io import read_trial

    walk = read_trial(sources["trc"][0])
    names = walk.attrs["markers"]
    xyz = walk[[f"{m}_{a}" for m in names for a in "xyz"]].to_numpy().reshape(len(walk), len(names), 3) * 1000.0
    bad = tmp_path / f"walk.{'csv' if layout == 'motive' else layout}"
    if layout == "trc":
        write_trc(bad, xyz, names, units="m")
    elif layout == "motive":
        write_motive_csv(bad, xyz, names, rate=100.0, units="Meters")
    else:
        write_c3d(bad, xyz, names, units="m")
    out = tmp_path / "out"
    result = run_main("analyze", str(bad), "--static", str(sources["static"][0]), "--out", str(out))
    check_one_line(result, bad, out)
    assert "span" in result.stderr and "millimetres" in result.stderr
    good = tmp_path / f"good.{bad.suffix[1:]}"  # the same numbers stated in mm read as they are
    if layout == "trc":
        write_trc(good, xyz, names, units="mm")
    elif layout == "motive":
        write_motive_csv(good, xyz, names, rate=100.0, units="Millimeters")
    else:
        write_c3d(good, xyz, names, units="mm")
    back = read_trial(good)
    np.testing.assert_allclose(back[f"{names[0]}_z"].to_numpy(), walk[f"{names[0]}_z"].to_numpy(), atol=1e-9)

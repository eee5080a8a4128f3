"""Sparse marker sets: markers a lab never placed (absent from the static and the motion trial alike).

The shared OpenSim walk and its static trial, both rewritten without the rear thigh and shank markers
and the superior midfoot marker of each side (two markers left on each thigh and shank, plus the
joints): the built-in ``gait2392`` set takes them with no option, the log says which markers are
missing in one line, and the segment fits carry on, the two-marker segments joined by their joint
centres (:func:`humanbody.markers.tracking.joined_children`).  A segment the markers no longer
determine is refused in one line naming it.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanbody.cli import main
from tests._shared import WALK, needs_shared

pytestmark = needs_shared

SPARSE = ("R.Thigh.Rear", "L.Thigh.Rear", "R.Shank.Rear", "L.Shank.Rear", "R.Midfoot.Sup", "L.Midfoot.Sup")


def drop_trc_markers(src: Path, dst: Path, drop) -> None:
    """Copy an OpenSim TRC file without the markers ``drop`` (their three columns and header entries)."""
    lines = Path(src).read_text().splitlines()
    heads = lines[3].split("\t")
    markers = [(n, c) for c, n in enumerate(heads) if c >= 2 and n]
    keep, names = [0, 1], []
    for n, c in markers:
        if n not in drop:
            keep += [c, c + 1, c + 2]
            names.append(n)
    counts = lines[2].split("\t")
    counts[3] = str(len(names))
    out = lines[:2] + ["\t".join(counts), "\t".join(["Frame#", "Time"] + [x for n in names for x in (n, "", "")]),
                       "\t\t" + "\t".join(f"{a}{j + 1}" for j in range(len(names)) for a in "XYZ")]
    for line in lines[5:]:
        f = line.split("\t")
        out.append(line if len(f) < 3 else "\t".join(f[k] if k < len(f) else "" for k in keep))
    dst.write_text("\n".join(out) + "\n")


def _analyze(args):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = main(["analyze", *map(str, args)])
    return status, err.getvalue()


@pytest.fixture(scope="module")
def sparse_walk(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sparse")
    for name in ("subject01_walk1.trc", "subject01_static.trc"):
        drop_trc_markers(WALK / name, tmp / name, SPARSE)
    return tmp


def test_markers_absent_from_both_files_are_optional(sparse_walk, tmp_path):
    """The sparse set keeps the segment fits: each shank (two markers) is fitted with the knee its thigh carries and
    the ankle its foot's markers put, each thigh (two markers and the hip) with the knee its shank's markers and the
    ankle put, the pelvis with those hips, as the full set's segment fits join them.  Measured against the full set
    (segment fits): largest RMS 2.6 deg (right hip and knee flexion, mostly a constant offset from the thigh
    markers' skin motion), every trunk, arm and head angle within 1.9 deg; whole-body inverse kinematics on the same
    sparse trial: 3.7 deg (knee rotation), and 58 deg on the neck and shoulders (its trunk weights differ)."""
    status, text = _analyze([sparse_walk / "subject01_walk1.trc", "--static", sparse_walk / "subject01_static.trc",
                             "--out", tmp_path / "sparse"])
    assert status == 0, text
    assert text.count("6 required marker(s) missing") == 1, text
    assert all(m in text for m in SPARSE), text
    assert ("segment fits (auto; fewer than three markers on right_lower_leg (2 + 2 joints), left_lower_leg (2 + 2 "
            "joints)") in text, text
    status, full_text = _analyze([WALK / "subject01_walk1.trc", "--static", WALK / "subject01_static.trc",
                                  "--out", tmp_path / "full"])
    assert status == 0, full_text
    full = pd.read_csv(tmp_path / "full" / "subject01_walk1_results.csv")
    part = pd.read_csv(tmp_path / "sparse" / "subject01_walk1_results.csv")
    cols = [c for c in full.columns if c.endswith("_deg") and "wrist" not in c]
    assert len(cols) > 30
    rms = {c: float(np.sqrt(np.mean((full[c] - part[c]) ** 2))) for c in cols}
    legs = [c for c in cols if any(j in c for j in ("pelvis", "hip", "knee", "ankle", "foot"))]
    assert max(rms[c] for c in legs) < 2.8, rms
    assert max(rms[c] for c in cols if c not in legs) < 2.0, rms
    assert np.mean([rms[c] for c in legs]) < 1.6, rms


def test_sparse_static_tracks_as_the_full_set(sparse_walk, tmp_path):
    """The static trial tracked as a motion: the sparse set's joint centres are the full set's (same calibration,
    same model offsets), so every lower-limb angle agrees within 0.35 deg RMS (measured 0.27)."""
    out = {}
    for name, folder in (("full", WALK), ("sparse", sparse_walk)):
        status, text = _analyze([folder / "subject01_static.trc", "--static", folder / "subject01_static.trc",
                                 "--out", tmp_path / name])
        assert status == 0, text
        out[name] = pd.read_csv(tmp_path / name / "subject01_static_results.csv")
    cols = [c for c in out["full"].columns if c.endswith("_deg") and any(j in c for j in ("hip", "knee", "ankle"))]
    diff = max(float(np.sqrt(np.mean((out["full"][c] - out["sparse"][c]) ** 2))) for c in cols)
    assert diff < 0.35, diff


def test_a_segment_left_undetermined_is_refused_naming_it(sparse_walk, tmp_path):
    """Without the right shank's last two markers: refused in one line naming the segment (one marker and its two
    joints still determine a shank, so that is kept)."""
    for name in ("subject01_walk1.trc", "subject01_static.trc"):
        drop_trc_markers(sparse_walk / name, tmp_path / name, ("R.Shank.Front", "R.Shank.Upper"))
    status, text = _analyze([tmp_path / "subject01_walk1.trc", "--static", tmp_path / "subject01_static.trc",
                             "--out", tmp_path / "o"])
    assert status == 2, text
    assert text.count("\n") == 1 and "Traceback" not in text, text
    assert "'right_lower_leg'" in text, text


def test_a_marker_only_the_static_lacks_is_still_refused(tmp_path):
    """A marker the motion trial has but the static trial lacks cannot be calibrated: one line naming the static."""
    drop_trc_markers(WALK / "subject01_static.trc", tmp_path / "static.trc", ("R.Thigh.Rear",))
    status, text = _analyze([WALK / "subject01_walk1.trc", "--static", tmp_path / "static.trc", "--out", tmp_path / "o"])
    assert status == 2, text
    assert "static.trc" in text and "R.Thigh.Rear" in text and text.count("\n") == 1, text

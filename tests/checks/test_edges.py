"""The trial's edges: rates of the first and last frames no larger than the trial's own, and marked as estimates
(humanbody/checks/edges.py; the Savitzky-Golay edge rows of humanbody/signal/differentiate.py)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

import humanbody as hb
from humanbody.checks.edges import edge_frames, edge_line, edge_note
from humanbody.report import html

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data"


def _edges_within_interior(table: pd.DataFrame, columns, h: int) -> dict:
    """Per column, the largest |value| of the first and last ``h`` frames over the largest of the others."""
    ratios = {}
    for c in columns:
        x = np.abs(table[c].to_numpy())
        edge, inner = np.r_[x[:h], x[-h:]], x[h:-h]
        ratios[c] = float(np.nanmax(edge) / np.nanmax(inner))
    return ratios


@pytest.fixture(scope="module")
def shared_walk(shared_data):
    walk = shared_data / "gait2392_walk"
    return hb.analyze_trial(walk / "subject01_walk1.trc", static=walk / "subject01_static.trc",
                            forces=walk / "subject01_walk1_grf.mot")


def test_shared_walk_edges_no_larger_than_its_peaks(shared_walk):
    """The right ankle power was -5.16 W/kg at t = 0 (its push-off peak 2.6 W/kg), the left knee's 2.46 W/kg at
    the end (peak 1.0): every hip, knee and ankle power of the first and last 9 frames now lies within the
    trial's own peak (the moments are the forces' and the positions', not rates: the edges leave them be)."""
    m = shared_walk.moments
    h = shared_walk.edges["frames"]
    assert h == 9
    cols = [c for c in m.columns if c.endswith("_power_W_per_kg") and any(j in c for j in ("hip", "knee", "ankle"))]
    assert len(cols) == 6
    ratios = _edges_within_interior(m, cols, h)
    assert max(ratios.values()) <= 1.0, {c: r for c, r in ratios.items() if r > 1.0}
    p = m["right_ankle_power_W_per_kg"].to_numpy()
    assert abs(p[0]) < 1.0 and np.abs(p[h:-h]).max() == pytest.approx(2.57, abs=0.1)


def test_shared_walk_edges_marked_in_the_log_and_model_json(shared_walk, tmp_path):
    note = shared_walk.edges
    assert note["start"] == pytest.approx([0.0, 8 / 60]) and note["end"] == pytest.approx([2.5 - 8 / 60, 2.5])
    line = next(m for m in shared_walk.messages if m.startswith("edges: "))
    assert line == edge_line(note) and "first and last 9 frames (0.000-0.133 s and 2.367-2.500 s)" in line
    paths = hb.write_results(shared_walk, tmp_path)
    saved = json.loads(Path(paths["model"]).read_text())
    assert saved["edges"]["frames"] == 9 and saved["edges"]["start"] == pytest.approx(note["start"])


def test_sample_walk_edges_within_its_rates():
    """The project's marker sample (no forces): the legs' angular speeds and accelerations (magnitudes) of the
    first and last frames within 3 % of the trial's own peaks (the left foot is at its swing peak in the first
    frame: 7.58 rad/s against 7.45 inside; the quartic edge fit gave 7.90)."""
    a = hb.analyze_trial(DATA / "sample_walk_markers.trc", static=DATA / "sample_static.trc", mass=75.0,
                         height=1.75)
    h = a.edges["frames"]
    table = a.results.to_dataframe()
    norms = {}
    for seg in ("right_upper_leg", "right_lower_leg", "right_foot", "left_upper_leg", "left_lower_leg", "left_foot"):
        for q in ("omega", "alpha"):
            norms[f"{seg}_{q}"] = np.linalg.norm(table[[f"{seg}_{q}_{x}" for x in "xyz"]].to_numpy(), axis=1)
    ratios = _edges_within_interior(pd.DataFrame(norms), list(norms), h)
    assert max(ratios.values()) <= 1.03, {c: r for c, r in ratios.items() if r > 1.0}


def test_rates_given_are_not_marked_and_the_span_follows_the_rate():
    d = hb.Differentiation()
    assert edge_frames(d, 60.0, 151) == 9 and edge_frames(d, 120.0, 400) > 9
    assert edge_frames(hb.Differentiation("gradient"), 60.0, 151) == 1
    assert edge_note(d, np.arange(151) / 60.0, differentiated=False) is None
    assert edge_line(None) == ""


def test_report_page_says_the_edges():
    note = edge_note(hb.Differentiation(), np.arange(151) / 60.0, differentiated=True)
    task = SimpleNamespace(key="walk", trial="walk.trc", static=None)
    page = html.trial_page(task, {}, pd.DataFrame({"a": [1.0]}), pd.DataFrame(), {}, [], edges=note)
    assert "<p class=edges style=\"color:#b9770e\">edge frames: rates of the first and last 9 frames" in page
    assert "class=edges" not in html.trial_page(task, {}, pd.DataFrame({"a": [1.0]}), pd.DataFrame(), {}, [])

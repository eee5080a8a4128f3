"""``markerset init`` on the vendor trials of the shared C3D corpus, then ``analyze`` with the drafted set.

No static trial: each trial is drafted from itself (its stillest standing second, else its most upright
frame) and analysed with that set alone.  The table of docs/markersets.md is what
``python tests/markers/test_markerset_vendor_walks.py`` prints (from the repository root, with the shared
data beside it); the test checks that every trial with leg markers is either refused in one line naming
what is missing or gives plausible angles.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import pytest

from tests._shared import SHARED_DATA, needs_shared

C3D = SHARED_DATA / "real" / "c3d"
#: The corpus's trials with leg or full-body marker sets, and the upper-body ones the issue names.
TRIALS = ("Qualisys", "BTS", "FP_Type1", "Vicon", "read_NOTworking2")
ANGLES = (("hip_flexion_deg", "hip flexion"), ("knee_flexion_deg", "knee flexion"),
          ("ankle_dorsiflexion_deg", "ankle dorsiflexion"))


def vendor_row(name: str, tmp: Path) -> dict:
    """Draft a set from the trial and analyse the trial with it: status, the draft's first line, angle ranges."""
    from humanbody.analysis import analyze_trial
    from humanbody.errors import InputError
    from humanbody.tools.markerset import draft_from_file

    path = C3D / f"{name}.c3d"
    try:
        draft, _ = draft_from_file(path)
    except InputError as err:
        return {"trial": name, "status": "refused", "line": str(err).split(": ", 1)[-1]}
    toml = tmp / f"{name}.toml"
    toml.write_text(draft.text)
    an = analyze_trial(path, markerset=toml, height=draft.height, mass=70.0)
    clin = an.clinical
    row = {"trial": name, "status": "drafted", "line": draft.window or "a standing trial: drafted from all of it",
           "markers": sum(1 for m in draft.markers if m.used), "frames": len(clin)}
    for col, _ in ANGLES:
        for side in ("right", "left"):
            x = clin[f"{side}_{col}"].to_numpy()
            row[f"{side}_{col}"] = (float(np.nanmin(x)), float(np.nanmax(x)))
    return row


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("vendor")
    return {name: vendor_row(name, tmp) for name in TRIALS}


@needs_shared
def test_the_qualisys_walk_is_drafted_from_its_most_upright_frame_and_walks_plausibly(rows):
    """No still second: drafted from one frame; knee flexion 2-66 deg, hips -10-40, ankles -15-24 (measured)."""
    row = rows["Qualisys"]
    assert row["status"] == "drafted" and row["line"].startswith("no still standing window"), row
    for side in ("right", "left"):
        lo, hi = row[f"{side}_knee_flexion_deg"]
        assert -10 < lo < 15 and 50 < hi < 80, (side, lo, hi)
        lo, hi = row[f"{side}_hip_flexion_deg"]
        assert -25 < lo < 5 and 25 < hi < 50 and hi - lo > 30, (side, lo, hi)
        lo, hi = row[f"{side}_ankle_dorsiflexion_deg"]
        assert -35 < lo < 0 < hi < 35, (side, lo, hi)


@needs_shared
def test_the_other_vendor_trials_are_drafted_or_refused_in_one_line(rows):
    assert rows["BTS"]["status"] == "refused" and "ankle" in rows["BTS"]["line"]  # no malleolus marker
    fp = rows["FP_Type1"]
    assert fp["status"] == "drafted" and fp["line"].startswith("a standing trial"), fp  # markers move 2 mm
    for name in ("Vicon", "read_NOTworking2"):  # upper-body sets: no legs to draft
        assert rows[name]["status"] == "refused" and "\n" not in rows[name]["line"], rows[name]
    assert "no leg or foot markers" in rows["Vicon"]["line"], rows["Vicon"]


def _table(rows) -> str:
    head = "| trial | draft | " + " | ".join(f"{what} R / L (deg)" for _, what in ANGLES) + " |"
    out = [head, "|" + " --- |" * (2 + len(ANGLES))]
    for r in rows.values():
        if r["status"] != "drafted":
            out.append(f"| {r['trial']} | refused: {r['line']} |" + " |" * len(ANGLES))
            continue
        cells = [" / ".join(f"{r[f'{s}_{c}'][0]:.0f} to {r[f'{s}_{c}'][1]:.0f}" for s in ("right", "left"))
                 for c, _ in ANGLES]
        out.append(f"| {r['trial']} | {r['markers']} markers; {r['line']} | " + " | ".join(cells) + " |")
    return "\n".join(out)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as tmp:
        print(_table({name: vendor_row(name, Path(tmp)) for name in TRIALS}))

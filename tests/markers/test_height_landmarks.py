"""Height without head markers (humanbody.markers.height_landmarks): Drillis and Contini's landmark fractions,
exact on a body built with them, and within a few per cent on the sample and shared statics with their head
markers (and acromia) removed, against the height the head marker gives."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from humanbody.io import read_trial
from humanbody.lab.axes import to_ground
from humanbody.markers.calibration import calibrate
from humanbody.markers.height_landmarks import FRACTIONS, combine, describe
from humanbody.tools.draft import draft_markerset

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "gait2392_walk"
HEAD = ("R.Temple", "L.Temple", "Top.Head")
ACROMIA = ("R.Acromium", "L.Acromium")


def test_landmarks_at_their_fractions_give_the_height_exactly():
    rng = np.random.default_rng(1)
    floor = 0.02 + 0.001 * rng.standard_normal(50)  # the lowest foot marker, 2 cm above the floor
    height = 1.63
    levels = {"mid_acromion": (floor + FRACTIONS["acromion"] * height, FRACTIONS["acromion"]),
              "mid_hip": (floor + FRACTIONS["hip"] * height, FRACTIONS["hip"])}
    h, used = combine(levels, floor)
    assert h == pytest.approx(height, abs=1e-12) and [u[0] for u in used] == ["mid_acromion", "mid_hip"]
    # over the ankle centres (0.039 H) instead of the floor
    ankle = FRACTIONS["ankle"] * height
    h, _ = combine({"mid_hip": (np.full(5, FRACTIONS["hip"] * height), FRACTIONS["hip"])}, np.full(5, ankle),
                   FRACTIONS["ankle"])
    assert h == pytest.approx(height, abs=1e-12)
    # the mean of two landmarks that disagree by +-4 %
    h, used = combine({"a": (np.full(3, 0.818 * 1.04 * height), 0.818), "b": (np.full(3, 0.53 * 0.96 * height), 0.53)},
                      np.zeros(3))
    assert h == pytest.approx(height) and describe(used).startswith("no head markers: mean of a at 0.818 (1.70 m)")
    assert combine({}, np.zeros(3)) == (None, [])


def _without(path: Path, names, tmp_path) -> tuple:
    raw = read_trial(path)
    out = tmp_path / f"{path.stem}_without.csv"
    raw.drop(columns=[c for c in raw.columns if c.rsplit("_", 1)[0] in names]).to_csv(out, index=False)
    return to_ground(read_trial(out), "x,-z,y")[0], to_ground(raw, "x,-z,y")[0]


def _height(static) -> tuple[float, str]:
    cal = calibrate(static, draft_markerset(static).markerset, mass=72.0)
    return cal.height, next(n for n in cal.notes if n.startswith("height estimated from markers"))


@pytest.mark.parametrize("path", [ROOT / "data" / "sample_static.trc", SHARED / "subject01_static.trc"],
                         ids=["sample", "shared"])
@pytest.mark.parametrize("removed", [HEAD, HEAD + ACROMIA], ids=["no-head", "no-head-no-acromia"])
def test_a_drafted_set_without_head_markers_gives_the_height_within_three_per_cent(path, removed, tmp_path):
    if not path.exists():
        pytest.skip("the shared walk (../shared/data) is absent")
    static, full = _without(path, removed, tmp_path)
    truth, _ = _height(full)  # from the top-of-head marker: 1.750 m (sample), 1.775 m (shared)
    assert truth == pytest.approx(1.75 if "sample" in path.name else 1.775, abs=0.002)
    height, line = _height(static)
    assert height == pytest.approx(truth, rel=0.03), line
    assert "no head markers" in line and "mid_hip at 0.53" in line
    assert ("mid_acromion at 0.818" in line) == (removed == HEAD)

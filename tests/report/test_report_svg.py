"""SVG report figures: well-formed SVG, ticks, the normative band, curves and foot-off lines where the data put them."""

import xml.etree.ElementTree as ET

import numpy as np
import pandas as pd
import pytest

from humanbody.report import svg
from humanbody.report.panels import ANGLE_PANELS, cycle_panels, foot_off_percent

NS = {"s": "http://www.w3.org/2000/svg"}
PCT = np.linspace(0.0, 100.0, 101)


def _cycles():
    rows = []
    for side, shift in (("right", 0.0), ("left", 5.0)):
        for var, y in ((f"{side}_knee_flexion_deg", 30 + 30 * np.sin(2 * np.pi * PCT / 100) + shift),
                       ("pelvis_obliquity_deg", 3 * np.sin(2 * np.pi * PCT / 100))):
            sd = np.full(101, 2.0)
            sd[:3] = np.nan  # a gap in the SD band
            rows.append(pd.DataFrame({"side": side, "variable": var, "unit": "deg", "percent": PCT, "mean": y,
                                      "sd": sd, "n_strides": 4}))
    return pd.concat(rows, ignore_index=True)


def _normative():
    p = np.arange(0.0, 101.0, 2.0)
    return pd.DataFrame({"variable": "knee_flexion_deg", "percent": p, "mean": 30 + 0 * p, "sd": 5 + 0 * p})


@pytest.mark.parametrize("lo, hi, step", [(-7.3, 12.1, 5), (0.0, 1.0, 0.25), (-0.013, 0.021, 0.01), (10, 60, 20)])
def test_nice_ticks(lo, hi, step):
    t = svg.nice_ticks(lo, hi)
    assert t[0] >= lo - 1e-12 and t[-1] <= hi + 1e-12 and len(t) >= 3
    np.testing.assert_allclose(np.diff(t), step)


def test_grid_svg_draws_bands_curves_and_foot_off():
    panels = cycle_panels(_cycles(), ANGLE_PANELS, _normative(), {"right": 60.0, "left": 62.0})
    knee = next(p for p in panels if p.title == "knee flexion")
    obliquity = next(p for p in panels if p.title.startswith("pelvis obliquity"))
    assert knee.band is not None and obliquity.band is None
    left = next(s for s in obliquity.series if s.side == "left")
    right = next(s for s in obliquity.series if s.side == "right")
    np.testing.assert_allclose(left.mean, -right.mean)  # the left side's obliquity in its own sense
    text = svg.grid_svg(panels, "test & <title>")
    root = ET.fromstring(text)  # well-formed, the title escaped
    assert root.tag.endswith("svg") and root.get("viewBox") == "0 0 900 718"
    polygons = root.findall(".//s:polygon", NS)
    grey = [p for p in polygons if p.get("fill") == "#c8c8c8"]
    assert len(grey) == 1  # the knee's normative band
    # SD bands: two sides x two variables, drawn from 2 % on (the NaN SD at 0-2 % leaves no band)
    coloured = [p for p in polygons if p.get("fill") != "#c8c8c8"]
    assert len(coloured) == 4
    curves = root.findall(".//s:polyline", NS)
    assert len(curves) == 4 and all(len(c.get("points").split()) == 101 for c in curves)
    dashed = [ln for ln in root.findall(".//s:line", NS) if ln.get("class") == "o"]
    assert len(dashed) == 4  # foot off of each side in the two panels with curves
    # the band lies where the data put it: the grey polygon spans 30 +- 5 deg on the panel's y scale
    ys = np.array([float(xy.split(",")[1]) for xy in grey[0].get("points").split()])
    top, bottom = ys.min(), ys.max()
    knee_curve = [c for c in curves if c.get("stroke") == "#c0392b"][1]  # after the obliquity panel's
    ky = np.array([float(xy.split(",")[1]) for xy in knee_curve.get("points").split()])
    # right knee: 30 + 30 sin: 0 and 50 % at 30 deg -> on the band's centre line
    assert ky[0] == pytest.approx((top + bottom) / 2, abs=0.2)
    assert ky[50] == pytest.approx((top + bottom) / 2, abs=0.2)


def test_map_and_events_svg_are_well_formed():
    scores = {("right", "a"): 3.0, ("left", "a"): 4.0, ("right", "b"): np.nan, ("left", "b"): 1.0}
    root = ET.fromstring(svg.map_svg(scores, ["a", "b"], ["a", "b"], {"right": 3.0, "left": 2.9, "overall": 2.95},
                                     "MAP"))
    bars = [r for r in root.findall(".//s:rect", NS) if r.get("fill") in ("#c0392b", "#2471a3", "#555")
            and float(r.get("height", 0)) > 9]
    assert len(bars) == 6  # three finite GVS, the two side GPS and the overall GPS (the NaN draws none)
    t = np.linspace(0, 2, 50)
    series = [("right heel", "#c0392b", False, t, np.sin(t)), ("right toe", "#c0392b", True, t, np.cos(t))]
    marks = [(0.5, float(np.sin(0.5)), "#c0392b", True, "kinematic"), (1.0, float(np.cos(1.0)), "#c0392b", False,
                                                                        "force")]
    root = ET.fromstring(svg.events_svg(series, marks, "events"))
    assert len(root.findall(".//s:circle", NS)) == 1 and len(root.findall(".//s:polyline", NS)) == 2


def test_foot_off_from_the_spatiotemporal_table():
    params = pd.DataFrame({"stance_pct": [61.0, 62.5, np.nan]}, index=["right", "left", "overall"])
    assert foot_off_percent(params) == {"right": 61.0, "left": 62.5}
    assert foot_off_percent(None) == {}

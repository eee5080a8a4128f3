"""A cluster that keeps fewer than three markers for a while (a marker hidden: Qualisys's shank in C3D.org's
walk) is fitted in those frames by its markers joined by its joint centres, the knee its thigh carries and the
ankle its foot's markers put (humanbody.markers.tracking._Tracker._joined_gap_fit), not carried from its parent.

Checked against the designed subject of test_full_range moved through the whole range (knee to 150 deg):
the noise-free angles come back in the gap exactly, where the parent's pose carried would be off by the knee's
motion."""

from __future__ import annotations

import numpy as np
import pytest

from humanbody.markers.tracking import track
from tests.markers.test_full_range import K, _angles, full_range_walk
from tests.markers.test_tracking import frame_df

GAP = slice(100, 160)  # frames


@pytest.fixture(scope="module")
def setup():
    cal, t, (ang, *_), _, markers = full_range_walk(3.0, drop=0.1)
    return cal, t, ang, markers


def _hidden(markers, names, frames=GAP):
    out = {m: v.copy() for m, v in markers.items()}
    for m in names:
        out[m][frames] = np.nan
    return out


@pytest.mark.parametrize("hidden", [("R.Shank.Front",), ("R.Shank.Front", "R.Shank.Rear")])
def test_a_shank_with_one_or_two_markers_left_is_fitted_with_knee_and_ankle(setup, hidden):
    cal, t, ang, markers = setup
    tr = track(frame_df(_hidden(markers, hidden), t), cal)
    shank = tr.status["right_lower_leg"].to_numpy()
    assert (shank == "fit").all()
    # two or one of its three markers left: the cluster cannot be fitted alone, its gap frames are the joined ones
    assert tr.joined == {"right_lower_leg": GAP.stop - GAP.start}
    err = np.degrees(np.abs(_angles(tr.coords) - ang))
    assert err[GAP, K["right_lower_leg"]].max() < 1e-6
    assert err[GAP, K["right_foot"]].max() < 1e-6
    # the knee moved in the gap: carrying the thigh's pose would have been off by that motion
    assert np.degrees(np.ptp(ang[GAP, K["right_lower_leg"], 0])) > 10.0


def test_a_shank_with_no_marker_left_is_carried_from_its_parent(setup):
    """Knee and ankle alone are two points on a line: the shank's gap frames keep its fallback, and the
    pipeline's output checks name the run."""
    cal, t, ang, markers = setup
    tr = track(frame_df(_hidden(markers, ("R.Shank.Upper", "R.Shank.Front", "R.Shank.Rear")), t), cal)
    shank = tr.status["right_lower_leg"].to_numpy()
    assert (shank[GAP] == "fallback").all() and (np.delete(shank, np.arange(GAP.start, GAP.stop)) == "fit").all()
    assert "right_lower_leg" not in tr.joined

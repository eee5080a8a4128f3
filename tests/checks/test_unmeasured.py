"""Values the recording does not measure are left empty, said in one line naming ``--skip-check unmeasured``
(:mod:`humanbody.checks.unmeasured`): the joints of a segment carried from its parent, a side's kinetics while its
foot stands off the plates.  Synthetic cases of every layout the rule meets (a segment lost at a trial's start, in
its middle, at its end; a foot, a shank, a thigh, an arm; short gaps bridged), then the sample walk with a shank
and foot hidden for half a second."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from humanbody.checks.outputs import MAX_CARRIED_S, OutputWatch
from humanbody.checks.unmeasured import carried_runs, unmeasured_line, unmeasured_masks

ROOT = Path(__file__).resolve().parents[2]
RATE = 240.0
F = 480
T = np.arange(F) / RATE
SEGMENTS = ("lower_torso", "right_upper_leg", "right_lower_leg", "right_foot", "left_upper_leg", "left_lower_leg",
            "left_foot", "right_upper_arm", "right_lower_arm", "right_hand")
KINETIC = [f"{s}_{j}_{q}" for s in ("right", "left") for j, axes in (("hip", "flexion"), ("knee", "flexion"),
                                                                      ("ankle", "dorsiflexion"))
           for q in (f"{axes}_moment_Nm_per_kg", "power_W_per_kg")]
COLUMNS = (["time", "pelvis_tilt_deg"]
           + [f"{s}_{j}_{a}_deg" for s in ("right", "left") for j, a in (("hip", "flexion"), ("knee", "flexion"),
                                                                         ("ankle", "dorsiflexion"),
                                                                         ("shoulder", "flexion"), ("elbow", "flexion"))]
           + ["right_foot_progression_deg", "left_foot_progression_deg", "right_lower_leg_joint_moment_x",
              "right_foot_joint_power", "left_foot_joint_power", "right_grf_z_N_per_kg", "left_grf_z_N_per_kg"]
           + KINETIC)


def _status(**runs) -> pd.DataFrame:
    """A tracking status table: every segment ``fit`` but ``segment=(first, stop)`` frames ``fallback``."""
    status = pd.DataFrame({s: ["fit"] * F for s in SEGMENTS})
    for segment, (a, b) in runs.items():
        status.loc[a:b - 1, segment] = "fallback"
    return status.astype("category")


def test_only_runs_longer_than_the_output_checks_limit_count():
    """A gap bridged by its parent for a few frames is the tracking's business; past MAX_CARRIED_S it is not."""
    short = int(MAX_CARRIED_S * RATE)  # 24 frames: 0.1 s, not longer
    runs = carried_runs(_status(right_foot=(10, 10 + short), left_lower_leg=(100, 131)), T)
    assert set(runs) == {"left_lower_leg"}
    assert np.flatnonzero(runs["left_lower_leg"]).tolist() == list(range(100, 131))
    assert carried_runs(None, T) == {} and carried_runs(_status(), T) == {}


@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_carried_shank_empties_its_joints_angles_and_its_limb_s_kinetics(where):
    """Qualisys-like (the shank lost at the start), Codamotion-like (in the middle: the ankle of a foot tracked
    against a shank that is not where it is), Vicon-like (at the end)."""
    a, b = {"start": (0, 40), "middle": (200, 240), "end": (F - 40, F)}[where]
    carried = carried_runs(_status(right_lower_leg=(a, b)), T)
    masks = unmeasured_masks(COLUMNS, carried, margin=5)
    run = np.zeros(F, dtype=bool)
    run[a:b] = True
    wide = np.zeros(F, dtype=bool)
    wide[max(0, a - 5):min(F, b + 5)] = True
    for c in ("right_knee_flexion_deg", "right_ankle_dorsiflexion_deg"):
        assert (masks[c] == run).all(), c
    for c in [k for k in KINETIC if k.startswith("right_")] + ["right_lower_leg_joint_moment_x",
                                                               "right_foot_joint_power"]:
        assert (masks[c] == wide).all(), c  # the pose's jump at the run's ends, spread by the differentiator
    untouched = {"right_hip_flexion_deg", "pelvis_tilt_deg", "right_foot_progression_deg", "right_grf_z_N_per_kg",
                 "right_shoulder_flexion_deg", "left_knee_flexion_deg", "left_foot_joint_power"}
    assert not untouched & set(masks)
    assert not [c for c in masks if c.startswith("left_")]


def test_a_carried_foot_thigh_or_arm_empties_its_own_joints():
    masks = unmeasured_masks(COLUMNS, carried_runs(_status(left_foot=(300, 400)), T))
    assert {c for c in masks if c.endswith("_deg")} == {"left_ankle_dorsiflexion_deg", "left_foot_progression_deg"}
    assert {c for c in masks if c in KINETIC} == {k for k in KINETIC if k.startswith("left_")}
    masks = unmeasured_masks(COLUMNS, carried_runs(_status(right_upper_leg=(300, 400)), T))
    assert {c for c in masks if c.endswith("_deg")} == {"right_hip_flexion_deg", "right_knee_flexion_deg"}
    assert {c for c in masks if c in KINETIC} == {k for k in KINETIC if k.startswith(("right_hip", "right_knee"))}
    masks = unmeasured_masks(COLUMNS, carried_runs(_status(right_lower_arm=(300, 400)), T))
    assert set(masks) == {"right_elbow_flexion_deg"}  # no wrist column in this table, no arm kinetics
    # a torso segment carried: no limb joint of its own here, nothing emptied
    assert unmeasured_masks(COLUMNS, carried_runs(_status(lower_torso=(300, 400)), T)) == {}


def test_a_stance_off_the_plates_empties_the_side_s_kinetics_only():
    off = np.zeros(F, dtype=bool)
    off[400:] = True  # Vicon_analysis-like: the right foot strikes the floor past the last plate
    masks = unmeasured_masks(COLUMNS, {}, {"right": off, "left": np.zeros(F, dtype=bool)})
    assert set(masks) == {k for k in KINETIC if k.startswith("right_")} | {"right_lower_leg_joint_moment_x",
                                                                          "right_foot_joint_power"}
    assert all((m == off).all() for m in masks.values())


def test_the_line_names_the_segments_their_times_and_the_option():
    carried = carried_runs(_status(right_lower_leg=(24, 60), right_foot=(24, 60)), T)
    off = np.zeros(F, dtype=bool)
    off[400:] = True
    line = unmeasured_line(carried, {"right": off}, T, kinetics=True)
    assert line.startswith("check outputs: not measured, left empty (--skip-check unmeasured writes them")
    assert "right_lower_leg 0.100-0.246 s" in line and "right_foot 0.100-0.246 s" in line
    assert "off the plates" in line and "right 1.667-1.996 s" in line
    assert unmeasured_line(carried, None, T, kinetics=False).count("kinetics") == 0
    assert unmeasured_line({}, None, T, kinetics=True) == ""


def test_the_output_checks_no_longer_see_what_is_left_empty():
    """The knee power a shank's return makes (Qualisys: 5.5 W/kg over a 5 W/kg limit) is flagged as computed and
    not once left empty."""
    cols = ["time", "right_knee_flexion_deg", "right_knee_power_W_per_kg"]
    table = np.column_stack([T, np.full(F, 30.0), np.zeros(F)])
    table[:40, 1] = 0.5  # frozen while carried
    table[40:45, 2] = 5.5  # the jump's rates
    watch = OutputWatch(cols)
    watch.see(table.copy(), 0)
    assert any("right_knee_power_W_per_kg reaches 5.50" in f for f in watch.findings(T))
    masks = unmeasured_masks(cols, carried_runs(_status(right_lower_leg=(0, 40)), T), margin=5)
    for j, c in enumerate(cols):
        if c in masks:
            table[masks[c], j] = np.nan
    watch = OutputWatch(cols)
    watch.see(table, 0)
    assert watch.findings(T) == []


def _hidden_walk(tmp_path, first: int, stop: int) -> Path:
    """The sample walk with the right shank's and foot's markers blank in frames ``first:stop``."""
    lines = (ROOT / "data" / "sample_walk_markers.trc").read_text().splitlines()
    names = [n for n in lines[3].split("\t")[2:] if n]
    hidden = [k for k, n in enumerate(names) if n.startswith(("R.Shank", "R.Heel", "R.Midfoot", "R.Toe"))]
    for i in range(5 + first, 5 + stop):
        cells = lines[i].split("\t")
        for k in hidden:
            cells[2 + 3 * k:5 + 3 * k] = ["", "", ""]
        lines[i] = "\t".join(cells)
    path = tmp_path / "hidden_walk.trc"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_the_sample_walk_with_a_hidden_shank_leaves_its_knee_empty(tmp_path):
    """Half a second without the right shank's and foot's markers: the knee and ankle are empty there and said
    in one line; ``--skip-check unmeasured`` writes the frozen knee as computed."""
    import humanbody as hb
    from humanbody.trial_output import results_bytes

    path = _hidden_walk(tmp_path, 200, 250)
    static = ROOT / "data" / "sample_static.trc"
    an = hb.analyze_trial(str(path), static=str(static))
    added: list = []  # the Analysis is a value: the writer's records come back in ``said``
    files = results_bytes(an, said=added)
    an = an.with_records(added)
    table = pd.read_csv(__import__("io").BytesIO(files[f"{an.stem}_results.csv"]), comment="#")
    carried = (an.tracking.status["right_lower_leg"].astype(str) == "fallback").to_numpy()
    assert carried.sum() >= 40
    knee = table["right_knee_flexion_deg"].to_numpy()
    assert np.isnan(knee[carried]).all() and np.isfinite(knee[~carried]).mean() > 0.9
    assert np.isfinite(table["right_hip_flexion_deg"].to_numpy()[carried]).all()
    said = [w for w in an.log.warnings if w.startswith("check outputs: not measured, left empty")]
    assert len(said) == 1 and "right_lower_leg" in said[0] and "--skip-check unmeasured" in said[0]
    kept = hb.analyze_trial(str(path), static=str(static), options=hb.AnalysisOptions(skip_checks=("unmeasured",)))
    added = []
    table = pd.read_csv(__import__("io").BytesIO(results_bytes(kept, said=added)[f"{kept.stem}_results.csv"]),
                        comment="#")
    kept = kept.with_records(added)
    assert np.isfinite(table["right_knee_flexion_deg"].to_numpy()[carried]).all()
    assert not [w for w in kept.log.warnings if w.startswith("check outputs: not measured")]


def test_a_short_carried_run_empties_its_joints_angles_but_keeps_the_kinetics():
    """A gap bridged for 5 frames: the knee and ankle there are a held relative pose (Codamotion's left ankle at
    50 deg for 0.01 s where the shank is carried under a carried thigh), left empty; its kinetics kept."""
    status = _status(right_lower_leg=(100, 105))
    every = carried_runs(status, T, 0.0)
    masks = unmeasured_masks(COLUMNS, carried_runs(status, T), every=every)
    assert set(masks) == {"right_knee_flexion_deg", "right_ankle_dorsiflexion_deg"}
    assert np.flatnonzero(masks["right_knee_flexion_deg"]).tolist() == list(range(100, 105))
    line = unmeasured_line({}, None, T, kinetics=True, short=5)
    assert "their joints' angles in 5 frame(s) of shorter runs carried (at most 0.1 s)" in line

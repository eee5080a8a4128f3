"""Table of docs/kinetics.md "The ankle moment's size": where each joint's moment is taken.

Our joint moments are taken about the model's joint points: the ends of the
pelvis -> thigh -> shank -> foot chain with the segment lengths of the static
trial.  Plug-in Gait (pyCGM2's inverse dynamics, Vicon Nexus) takes them
about the joint centres the markers give in each frame.  This script
analyses the shared gait2392 walk (``../shared/data/gait2392_walk`` beside
the repository) with its force plates, ``--mass 72.6 --height 1.8``, tracks
the segments again to get each segment's origin as its own markers carry it
in every frame (``track(..., keep_frames=True).origins``), and prints, over
the frames where that foot carries more than 50 N, for the hip, knee and
ankle: the RMS distance between the two points (mm) and how much the size
of the joint moment changes when it is taken about the markers' point,
M' = M + (A_chain - A_markers) x F_joint (RMS, N·m/kg).
Run: ``.venv/bin/python docs/scripts/ankle_moment_point.py``.
"""

import numpy as np
from _shared_walk import stance as foot_stance
from _shared_walk import walk_with_plates

from humanbody.markers.tracking import track
from humanbody.mechanics.kinetics import joint_load_table


def main() -> None:
    a, force, body = walk_with_plates()
    res, loads, m = a.results, a.loads, a.model.total_mass
    origins = track(a.markers, a.calibration).origins
    jl = joint_load_table(a.model, res, loads)
    names = list(a.model.names)
    print("| joint (stance, RMS) | distance chain / markers, mm (right / left) | change of the moment's size, N·m/kg (right / left) |")
    print("|---|---|---|")
    rows: dict = {}
    for side in ("right", "left"):
        stance = foot_stance(force, body, names.index(f"{side}_foot"))
        for joint, seg in (("hip", "upper_leg"), ("knee", "lower_leg"), ("ankle", "foot")):
            k = names.index(f"{side}_{seg}")
            d = origins[:, k] - res.joint[:, k]
            M = jl.joint_moment[:, k]
            moved = M - np.cross(d, jl.joint_force[:, k])  # about the markers' point: M + (A_chain - A_markers) x F
            change = np.linalg.norm(moved, axis=1) - np.linalg.norm(M, axis=1)
            rows.setdefault(joint, []).append((1e3 * np.sqrt(np.nanmean(np.sum(d[stance] ** 2, axis=1))),
                                               np.sqrt(np.nanmean(change[stance] ** 2)) / m))
    for joint, ((dr, cr), (dl, cl)) in rows.items():
        print(f"| {joint} | {dr:.1f} / {dl:.1f} | {cr:.3f} / {cl:.3f} |")


if __name__ == "__main__":
    main()

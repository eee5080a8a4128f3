#!/usr/bin/env python3
"""Make the sample orientation (IMU) trials ``data/sample_walk_imu.sto`` and ``data/sample_static_imu.sto``.

    python data/make_sample_imu.py [--coords data/sample_walk.csv] [--out-dir data] [--seed 28]

The walk is the motion of ``data/sample_walk.csv`` (17-segment default model,
75 kg, 1.75 m) seen by fifteen inertial sensors, one on each of pelvis,
thorax, head, upper arms, forearms, hands, thighs, shanks and feet, written
as OpenSense writes orientation files: ``DataType=Quaternion``, a ``time``
column and one ``w,x,y,z`` column per sensor named after the OpenSim body it
rides on (``pelvis_imu``, ``torso_imu``, ``femur_r_imu``, ``calcn_l_imu``,
...), in OpenSim's ground axes (X forward, Y up, Z right).

Each sensor sits on its segment at a fixed, arbitrary rotation (random with
a fixed seed), except that the pelvis sensor's -z axis points forward, as
OpenSense's examples mount it (``--imu-heading -z``).  A sensor on segment k
reads ``A^T R_0k(t) M_k^T``: R_0k the segment's orientation in ground
composed down the tree from the coordinates, M_k the mounting (segment axes
in sensor axes), A^T ground -> OpenSim axes.  The static file is 0.5 s of
standing in the reference posture (all angles zero) with the same sensors,
since the walk starts in mid-stride.  Quaternions are written with nine
decimals.  This is a made-up subject, not a recording.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

#: Sensor labels, by segment.
SENSORS = {
    "lower_torso": "pelvis_imu", "upper_torso": "torso_imu", "head": "head_imu",
    "right_upper_arm": "humerus_r_imu", "right_lower_arm": "radius_r_imu", "right_hand": "hand_r_imu",
    "left_upper_arm": "humerus_l_imu", "left_lower_arm": "radius_l_imu", "left_hand": "hand_l_imu",
    "right_upper_leg": "femur_r_imu", "right_lower_leg": "tibia_r_imu", "right_foot": "calcn_r_imu",
    "left_upper_leg": "femur_l_imu", "left_lower_leg": "tibia_l_imu", "left_foot": "calcn_l_imu",
}
#: Our ground in OpenSim's axes: ground = A @ opensim.
A = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, -1.0], [0.0, 1.0, 0.0]])


def absolute_rotations(model, coords: pd.DataFrame) -> dict:
    """R_0k (F, 3, 3) of every segment from its angles in its sequence, composed down the tree."""
    from humanbody.rotations import euler_to_matrix

    R = {}
    for k, name in enumerate(model.names):
        S = euler_to_matrix(coords[[f"{name}_alpha", f"{name}_beta", f"{name}_gamma"]].to_numpy(float),
                            model.sequences[k])
        p = int(model.parents[k])
        R[name] = S if p == 0 else R[model.names[p - 1]] @ S
    return R


def mountings(seed: int) -> dict:
    """Segment axes in sensor axes for every sensor; the pelvis sensor's -z along the segment's x."""
    from scipy.spatial.transform import Rotation

    rng = np.random.default_rng(seed)
    # uniform random rotations: unit quaternions from four normal samples (scalar last for scipy)
    M = {seg: Rotation.from_quat(rng.standard_normal(4)).as_matrix() for seg in SENSORS}
    spin = rng.uniform(-np.pi, np.pi)
    x = np.array([0.0, 0.0, -1.0])  # segment x (forward) in sensor axes
    y = np.array([np.cos(spin), np.sin(spin), 0.0])
    M["lower_torso"] = np.column_stack([x, y, np.cross(x, y)])
    return M


def write_sto(path: Path, time: np.ndarray, quats: dict) -> None:
    """OpenSense orientation table: ``quats`` label -> (F, 4) w, x, y, z."""
    labels = list(quats)
    rate = 1.0 / np.median(np.diff(time)) if len(time) > 1 else 100.0
    lines = [f"DataRate={rate:.6f}", "DataType=Quaternion", "version=3", "OpenSimVersion=4.5", "endheader",
             "\t".join(["time"] + labels)]
    for i, t in enumerate(time):
        lines.append("\t".join([f"{t:.2f}"] + [",".join(f"{v:.9f}" for v in quats[s][i]) for s in labels]))
    path.write_text("\n".join(lines) + "\n")


def sensor_quaternions(R: dict, M: dict) -> dict:
    from scipy.spatial.transform import Rotation

    out = {}
    for seg, label in SENSORS.items():
        Rs = np.einsum("ji,fjk,lk->fil", A, R[seg], M[seg])  # A^T R_0k M_k^T
        q = Rotation.from_matrix(Rs).as_quat()  # x, y, z, w
        q = q[:, [3, 0, 1, 2]]
        q *= np.where(q[:, :1] < 0, -1.0, 1.0)  # w >= 0: the same rotation, tidier numbers
        out[label] = q
    return out


def main(argv=None) -> int:
    import humanbody as hb

    here = Path(__file__).resolve().parent
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--coords", default=str(here / "sample_walk.csv"))
    ap.add_argument("--out-dir", default=str(here))
    ap.add_argument("--seed", type=int, default=28)
    args = ap.parse_args(argv)
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    coords = pd.read_csv(args.coords)
    M = mountings(args.seed)
    out = Path(args.out_dir)
    walk = sensor_quaternions(absolute_rotations(model, coords), M)
    write_sto(out / "sample_walk_imu.sto", coords["time"].to_numpy(float), walk)
    still = coords.iloc[:50].copy()
    still.loc[:, [c for c in still.columns if c != "time"]] = 0.0
    still["time"] = np.arange(50) / 100.0
    static = sensor_quaternions(absolute_rotations(model, still), M)
    write_sto(out / "sample_static_imu.sto", still["time"].to_numpy(float), static)
    for name in ("sample_walk_imu.sto", "sample_static_imu.sto"):
        print(f"wrote {out / name} ({(out / name).stat().st_size / 1000:.0f} kB)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

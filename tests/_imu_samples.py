"""Synthetic orientation trials with a known motion, written as OpenSense .sto and Xsens .mvnx.

The forward model is scipy's Rotation (independent of humanbody.rotations):
each segment's rotation relative to its parent is the intrinsic sequence of
the model (``yxz`` -> scipy "YXZ", root ``zxy`` -> "ZXY"), composed down the
tree; a sensor on segment k reads ``R_k M_k^T`` (M_k its mounting: the
segment's axes in sensor axes), in the file's world axes.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from humanbody.model.segments import DEFAULT_SEQUENCES, PARENTS, SEGMENT_NAMES

RATE = 100.0
#: OpenSim ground (X forward, Y up, Z right) in our ground axes' terms: ground = A @ opensim.
A_OPENSIM = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])

OPENSIM_LABELS = {
    "lower_torso": "pelvis_imu", "upper_torso": "torso_imu", "head": "head_imu",
    "right_upper_arm": "humerus_r_imu", "right_lower_arm": "radius_r_imu", "right_hand": "hand_r_imu",
    "left_upper_arm": "humerus_l_imu", "left_lower_arm": "radius_l_imu", "left_hand": "hand_l_imu",
    "right_upper_leg": "femur_r_imu", "right_lower_leg": "tibia_r_imu", "right_foot": "calcn_r_imu",
    "left_upper_leg": "femur_l_imu", "left_lower_leg": "tibia_l_imu", "left_foot": "calcn_l_imu",
    "middle_torso": "middle_torso_imu", "neck": "neck_imu",
}

XSENS = ["Pelvis", "L5", "L3", "T12", "T8", "Neck", "Head", "RightShoulder", "RightUpperArm", "RightForeArm",
         "RightHand", "LeftShoulder", "LeftUpperArm", "LeftForeArm", "LeftHand", "RightUpperLeg",
         "RightLowerLeg", "RightFoot", "RightToe", "LeftUpperLeg", "LeftLowerLeg", "LeftFoot", "LeftToe"]
#: Xsens segment -> the segment of ours whose orientation it has.
XSENS_AS = {"Pelvis": "lower_torso", "L5": "lower_torso", "L3": "middle_torso", "T12": "middle_torso",
            "T8": "upper_torso", "Neck": "neck", "Head": "head", "RightShoulder": "upper_torso",
            "RightUpperArm": "right_upper_arm", "RightForeArm": "right_lower_arm", "RightHand": "right_hand",
            "LeftShoulder": "upper_torso", "LeftUpperArm": "left_upper_arm", "LeftForeArm": "left_lower_arm",
            "LeftHand": "left_hand", "RightUpperLeg": "right_upper_leg", "RightLowerLeg": "right_lower_leg",
            "RightFoot": "right_foot", "RightToe": "right_foot", "LeftUpperLeg": "left_upper_leg",
            "LeftLowerLeg": "left_lower_leg", "LeftFoot": "left_foot", "LeftToe": "left_foot"}
XSENS_JOINTS = [("jL5S1", "Pelvis", "L5"), ("jRightHip", "Pelvis", "RightUpperLeg"),
                ("jRightKnee", "RightUpperLeg", "RightLowerLeg"), ("jRightAnkle", "RightLowerLeg", "RightFoot"),
                ("jLeftHip", "Pelvis", "LeftUpperLeg"), ("jLeftKnee", "LeftUpperLeg", "LeftLowerLeg"),
                ("jRightElbow", "RightUpperArm", "RightForeArm")]


def truth(duration: float = 4.0, psi0: float = 0.0, standing: float = 0.95, still: float = 0.6):
    """Known coordinates (time, dict name -> (F,)) with the first ``still`` s in the reference posture.

    Wide range: right hip flexion to 120 deg, right knee to 150 deg, the right
    arm overhead (flexion 170 deg), elbows to 140 deg, axial rotations, the
    root turning by 40 deg; the root heading is ``psi0`` throughout.
    """
    t = np.arange(int(round(duration * RATE))) / RATE
    u = 0.5 * (1 - np.cos(np.pi * np.clip((t - still) / 1.6, 0.0, 1.0)))
    w = u * (1 + 0.1 * np.sin(2 * np.pi * 1.3 * t))
    d = np.radians
    q = {n: np.zeros((len(t), 3)) for n in SEGMENT_NAMES}
    root = np.column_stack([0.4 * t * u, 0.03 * np.sin(2 * np.pi * t) * u, standing + 0.02 * u])
    q["lower_torso"][:] = np.column_stack([psi0 + d(40) * w, d(8) * w, d(15) * w])
    q["middle_torso"][:] = np.column_stack([d(20) * w, d(5) * w, d(10) * w])
    q["upper_torso"][:] = np.column_stack([d(10) * w, d(-8) * w, d(15) * w])
    q["neck"][:] = np.column_stack([d(10) * w, 0 * w, d(5) * w])
    q["head"][:] = np.column_stack([d(-15) * w, d(5) * w, d(30) * w])
    q["right_upper_leg"][:] = np.column_stack([d(-120) * w, d(12) * w, d(30) * w])
    q["right_lower_leg"][:] = np.column_stack([d(150) * u, d(3) * w, d(-15) * w])
    q["right_foot"][:] = np.column_stack([d(-20) * w, d(10) * w, d(5) * w])
    q["left_upper_leg"][:] = np.column_stack([d(15) * w, d(-8) * w, d(-20) * w])
    q["left_lower_leg"][:] = np.column_stack([d(60) * w, d(-2) * w, d(10) * w])
    q["left_foot"][:] = np.column_stack([d(25) * w, d(-5) * w, d(-5) * w])
    q["right_upper_arm"][:] = np.column_stack([d(-170) * u, d(-20) * w, d(40) * w])
    q["right_lower_arm"][:] = np.column_stack([d(-140) * w, 0 * w, d(60) * w])
    q["right_hand"][:] = np.column_stack([d(-30) * w, d(10) * w, 0 * w])
    q["left_upper_arm"][:] = np.column_stack([d(-90) * w, d(40) * w, d(-30) * w])
    q["left_lower_arm"][:] = np.column_stack([d(-100) * w, 0 * w, d(-50) * w])
    q["left_hand"][:] = np.column_stack([d(20) * w, d(-10) * w, 0 * w])
    return t, root, q


def absolute(q) -> dict:
    """Absolute orientation (F, 3, 3) of every segment from the relative angles, via scipy."""
    R = {}
    for k, name in enumerate(SEGMENT_NAMES):
        rel = Rotation.from_euler(DEFAULT_SEQUENCES[k].upper(), q[name]).as_matrix()
        p = PARENTS[k]
        R[name] = rel if p == 0 else np.einsum("fij,fjk->fik", R[SEGMENT_NAMES[p - 1]], rel)
    return R


def mountings(seed: int = 7, pelvis_heading: str | None = None) -> dict:
    """Arbitrary sensor mountings M (segment axes in sensor axes); the pelvis's with ``pelvis_heading`` forward."""
    rng = np.random.default_rng(seed)
    M = {n: Rotation.random(random_state=rng).as_matrix() for n in SEGMENT_NAMES}
    if pelvis_heading is not None:
        axis = np.zeros(3)
        axis["xyz".index(pelvis_heading[-1])] = -1.0 if pelvis_heading.startswith("-") else 1.0
        spin = Rotation.from_rotvec(axis * 0.7).as_matrix()
        # a rotation taking segment x to the sensor axis, then an arbitrary spin about it
        base = Rotation.align_vectors([axis], [[1.0, 0, 0]])[0].as_matrix()
        M["lower_torso"] = spin @ base
    return M


def quat_wxyz(R: np.ndarray) -> np.ndarray:
    x = Rotation.from_matrix(R).as_quat()  # x, y, z, w
    return x[:, [3, 0, 1, 2]]


def write_sto(path, t, sensors: dict, header_extra: str = "DataType=Quaternion\n", fmt="%.17g"):
    """OpenSense table: ``sensors`` label -> (F, 4) w,x,y,z."""
    labels = list(sensors)
    lines = [f"DataRate={RATE:f}", header_extra.rstrip("\n"), "version=3", "OpenSimVersion=4.5", "endheader",
             "\t".join(["time"] + labels)]
    lines = [x for x in lines if x]
    for i in range(len(t)):
        cells = [fmt % t[i]] + [",".join(fmt % v for v in sensors[s][i]) for s in labels]
        lines.append("\t".join(cells))
    path.write_text("\n".join(lines) + "\n")


def opensense_trial(path, psi0=0.0, heading=None, seed=7, labels=OPENSIM_LABELS, **kw):
    """Write the known motion as OpenSense sensor quaternions in OpenSim's ground (Y up); return the truth."""
    t, root, q = truth(psi0=psi0, **kw)
    R = absolute(q)
    M = mountings(seed, heading)
    sensors = {}
    for seg, label in labels.items():
        R_sensor = np.einsum("fij,kj->fik", R[seg], M[seg])  # R_k M_k^T, our ground
        sensors[label] = quat_wxyz(np.einsum("ji,fjk->fik", A_OPENSIM, R_sensor))  # opensim = A^T ground
    write_sto(path, t, sensors)
    return t, root, q, R


def xsens_joint_angles(R_seg: dict) -> dict:
    """jointAngle as Xsens defines it: ZXY Euler (degrees, given as x, y, z) of the child in the parent,
    both in ISB axes (X forward, Y up, Z right)."""
    C = np.array([[1.0, 0, 0], [0, 0, -1.0], [0, 1.0, 0]])  # ISB axes (columns) in MVN segment axes
    out = {}
    for name, parent, child in XSENS_JOINTS:
        S = np.einsum("fji,fjk->fik", R_seg[parent], R_seg[child])
        S_isb = np.einsum("ji,fjk,kl->fil", C, S, C)
        z, x, y = Rotation.from_matrix(S_isb).as_euler("ZXY").T  # intrinsic Z, then X, then Y
        out[name] = np.degrees(np.column_stack([x, y, z]))
    return out


def write_mvnx(path, t, quats: dict, positions: dict | None, joint_angles: dict | None, rate=RATE,
               namespace=True, extra_frames=True, fmt="%.17g"):
    """A small MVNX 4 file: segments, joints, calibration frames, normal frames."""
    ns = ' xmlns="http://www.xsens.com/mvn/mvnx"' if namespace else ""
    out = [f'<?xml version="1.0" encoding="UTF-8"?>\n<mvnx version="4"{ns}>',
           '<mvn version="2023.0.0" build="test"/>',
           f'<subject label="synthetic" frameRate="{rate:g}" segmentCount="{len(XSENS)}">',
           "<segments>"]
    for i, s in enumerate(XSENS):
        out.append(f'<segment label="{s}" id="{i + 1}"><points><point label="p{s}"><pos_b>0 0 0</pos_b>'
                   f'</point></points></segment>')
    out.append("</segments>")
    if joint_angles is not None:
        out.append("<joints>")
        for name, a, b in XSENS_JOINTS:
            out.append(f'<joint label="{name}"><connector1>{a}/{name}</connector1>'
                       f'<connector2>{b}/{name}</connector2></joint>')
        out.append("</joints>")
    out.append(f'<frames segmentCount="{len(XSENS)}">')
    if extra_frames:
        ident = " ".join("1 0 0 0" for _ in XSENS)
        out.append(f'<frame time="0" index="-3" type="identity"><orientation>{ident}</orientation>'
                   f'<position>{" ".join("0 0 0" for _ in XSENS)}</position></frame>')
    for i in range(len(t)):
        ori = " ".join(" ".join(fmt % v for v in quats[s][i]) for s in XSENS)
        parts = [f"<orientation>{ori}</orientation>"]
        if positions is not None:
            parts.append("<position>" + " ".join(" ".join(fmt % v for v in positions[s][i]) for s in XSENS)
                         + "</position>")
        if joint_angles is not None:
            parts.append("<jointAngle>" + " ".join(" ".join(fmt % v for v in joint_angles[n][i])
                                                   for n, _, _ in XSENS_JOINTS) + "</jointAngle>")
        ms = int(round(t[i] * 1000))
        out.append(f'<frame time="{ms}" index="{i}" tc="00:00:00:00" ms="{ms}" type="normal">'
                   + "".join(parts) + "</frame>")
    out.append("</frames></subject></mvnx>")
    path.write_text("\n".join(out) + "\n")


def mvnx_trial(path, psi0=0.3, model=None, **kw):
    """Write the known motion as MVN segment orientations (Z up, N-pose = reference) with positions and
    jointAngle; return (t, root, q, R, joint_angles)."""
    t, root, q = truth(psi0=psi0, **kw)
    R = absolute(q)
    R_x = {s: R[XSENS_AS[s]] for s in XSENS}
    pos = {s: np.tile(root[:, None, :], (1, 1, 1))[:, 0] + 0.0 for s in XSENS}  # every origin at the pelvis's
    angles = xsens_joint_angles(R_x)
    quats = {s: quat_wxyz(R_x[s]) for s in XSENS}
    write_mvnx(path, t, quats, pos, angles)
    return t, root, q, R, angles


def opensim_pelvis_angles(coords) -> np.ndarray:
    """OpenSim's pelvis_tilt, pelvis_list, pelvis_rotation (deg, (F, 3)) of our root: the pelvis frame in
    OpenSim's axes (X forward, Y up, Z right) as tilt about Z, then list about X, then rotation about Y."""
    R = Rotation.from_euler("ZXY", coords[["lower_torso_alpha", "lower_torso_beta", "lower_torso_gamma"]].to_numpy()
                            ).as_matrix()  # the root's sequence (rad)
    M = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # ours (x forward, y left, z up) -> OpenSim's
    out = Rotation.from_matrix(M @ R @ M.T).as_euler("ZXY", degrees=True)
    return (out + 180.0) % 360.0 - 180.0

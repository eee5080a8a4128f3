"""Synthetic trials for whole-body IK accuracy: walk, run, squat and arms overhead moved by the model's own
forward kinematics from a calibrated marker set, written as TRC files the way a lab would record them.

Angles are the model's coordinates (each body relative to its parent, in the calibrated model's sequences);
signs as in humanbody.mechanics.clinical: hip flexion = -alpha(upper_leg), knee flexion = +alpha(lower_leg),
ankle dorsiflexion = -alpha(foot), shoulder and elbow flexion = -alpha(upper_arm / lower_arm).
"""

from __future__ import annotations

import numpy as np

from humanbody.model.segments import PARENTS, SEGMENT_NAMES
from humanbody.rotations import euler_to_matrix

K = {s: i for i, s in enumerate(SEGMENT_NAMES)}
MOTIONS = ("walk", "run", "squat", "arms_overhead")


def motion(kind: str, t: np.ndarray):
    """Angles (F, 17, 3) rad and root path (F, 3) m of one synthetic movement (harmonics of its cycle)."""
    F = len(t)
    deg = np.zeros((F, 17, 3))
    root = np.zeros((F, 3))

    def wave(f, c, a, p=0.0, a2=0.0, p2=0.0):
        w = 2 * np.pi * f * t
        return c + a * np.sin(w + p) + a2 * np.sin(2 * w + p2)

    if kind in ("walk", "run"):
        f, v = (0.9, 1.3) if kind == "walk" else (1.4, 3.5)
        big = 1.0 if kind == "walk" else 1.6
        for side, ph, s in (("right", 0.0, 1.0), ("left", np.pi, -1.0)):
            deg[:, K[f"{side}_upper_leg"], 0] = -wave(f, 10 * big, 25 * big, ph)               # hip flexion
            deg[:, K[f"{side}_upper_leg"], 1] = s * wave(f, 0, 6, ph + 1, 3, ph)              # adduction
            deg[:, K[f"{side}_upper_leg"], 2] = s * wave(f, 0, 8, ph + 0.5)                   # rotation
            deg[:, K[f"{side}_lower_leg"], 0] = wave(f, 30 * big, 25 * big, ph + 2.2, 12, ph + 0.4)  # knee
            deg[:, K[f"{side}_lower_leg"], 1] = s * wave(f, 0, 3, ph)
            deg[:, K[f"{side}_lower_leg"], 2] = s * wave(f, 0, 6, ph + 1)
            deg[:, K[f"{side}_foot"], 0] = -wave(f, -3, 12 * big, ph + 3.0, 6, ph)           # dorsiflexion
            deg[:, K[f"{side}_foot"], 1] = s * wave(f, 0, 5, ph)
            deg[:, K[f"{side}_upper_arm"], 0] = -wave(f, 5, 20 * big, ph + np.pi)            # arm swing
            deg[:, K[f"{side}_upper_arm"], 1] = s * -8.0
            deg[:, K[f"{side}_lower_arm"], 0] = -wave(f, 20 + 60 * (big - 1), 10, ph + np.pi)
        deg[:, K["lower_torso"], 0] = wave(f, 0, 5)                                            # pelvis rotation
        deg[:, K["lower_torso"], 1] = wave(f, 0, 0, 0, 5)                                      # obliquity
        deg[:, K["lower_torso"], 2] = wave(f, 5 * big, 0, 0, 3)                                 # tilt
        deg[:, K["middle_torso"], 0] = wave(f, 3 * big, 0, 0, 2)
        deg[:, K["middle_torso"], 2] = wave(f, 0, -6)
        root[:] = np.c_[v * t, 0.02 * np.sin(2 * np.pi * f * t), 0.95 + 0.02 * big * np.sin(4 * np.pi * f * t)]
    elif kind == "squat":
        f = 0.4
        d = 0.5 - 0.5 * np.cos(2 * np.pi * f * t)                                              # 0 .. 1
        for side, s in (("right", 1.0), ("left", -1.0)):
            deg[:, K[f"{side}_upper_leg"], 0] = -105 * d                                       # hip flexion
            deg[:, K[f"{side}_upper_leg"], 1] = s * -10 * d                                    # abduction
            deg[:, K[f"{side}_upper_leg"], 2] = s * -10 * d
            deg[:, K[f"{side}_lower_leg"], 0] = 125 * d
            deg[:, K[f"{side}_foot"], 0] = -30 * d                                             # dorsiflexion
            deg[:, K[f"{side}_upper_arm"], 0] = -80 * d                                        # arms forward
            deg[:, K[f"{side}_lower_arm"], 0] = -15 * d
        deg[:, K["lower_torso"], 2] = 10 + 25 * d                                              # tilt forward
        deg[:, K["middle_torso"], 0] = 15 * d
        root[:] = np.c_[-0.15 * d, 0 * t, 0.95 - 0.40 * d]
    elif kind == "arms_overhead":
        f = 0.3
        d = 0.5 - 0.5 * np.cos(2 * np.pi * f * t)
        for side, s in (("right", 1.0), ("left", -1.0)):
            deg[:, K[f"{side}_upper_arm"], 0] = -170 * d                                       # flexion overhead
            deg[:, K[f"{side}_upper_arm"], 1] = s * -10 * d
            deg[:, K[f"{side}_upper_arm"], 2] = s * 20 * d
            deg[:, K[f"{side}_lower_arm"], 0] = -(10 + 30 * d)
            deg[:, K[f"{side}_lower_leg"], 0] = 5.0
            deg[:, K[f"{side}_upper_leg"], 0] = -3.0
        deg[:, K["middle_torso"], 0] = -10 * d                                                 # trunk extension
        deg[:, K["lower_torso"], 2] = 8.0
        root[:] = np.c_[0 * t, 0 * t, 0.95 + 0 * t]
    else:
        raise ValueError(kind)
    # the gait2392 rules: upper torso slerped with the middle torso, head with the neck, hands rigid
    deg[:, K["upper_torso"]] = deg[:, K["middle_torso"]]
    deg[:, K["head"]] = deg[:, K["neck"]]
    return np.radians(deg), root


def forward(cal, ang, root):
    """Markers of the calibrated set moved by the angles: {name: (F, 3)} in ground (m); also R, O."""
    seqs = cal.model.sequences
    xi = cal.model.joint_offset
    F = len(ang)
    R = np.empty((F, 17, 3, 3))
    O = np.empty((F, 17, 3))
    for k in range(17):
        S = euler_to_matrix(ang[:, k], seqs[k])
        L = PARENTS[k] - 1
        if L < 0:
            R[:, k], O[:, k] = S, root
        else:
            R[:, k] = R[:, L] @ S
            O[:, k] = O[:, L] + R[:, L] @ xi[k]
    out = {}
    for k, seg in enumerate(SEGMENT_NAMES):
        for m, c in cal.local.get(seg, {}).items():
            if np.isfinite(c).all():
                out[cal.names.get(m, m)] = O[:, k] + R[:, k] @ c
    return out, R, O


def truth_table(ang, root, t):
    """The true motion as a coordinates table (docs/conventions.md layout): time, root position, angles (rad)."""
    import pandas as pd

    return pd.DataFrame({"time": t, "lower_torso_x": root[:, 0], "lower_torso_y": root[:, 1],
                         "lower_torso_z": root[:, 2],
                         **{f"{s}_{q}": ang[:, k, j] for k, s in enumerate(SEGMENT_NAMES)
                            for j, q in enumerate(("alpha", "beta", "gamma"))}})


def angle_errors(cal, fit_calibration, truth, fit):
    """RMS error (deg) of every clinical angle but wrist, neck, thorax and progression, fitted against true,
    and the groups (legs+pelvis sagittal, legs+pelvis all, arms sagittal, arms all) of their columns."""
    from humanbody.mechanics.clinical import clinical_angles

    ct = clinical_angles(cal.model, truth, cal)
    cg = clinical_angles(fit_calibration.model, fit, fit_calibration)
    cols = [c for c in ct.columns if c.endswith("_deg") and not any(w in c for w in ("wrist", "neck", "thorax",
                                                                                       "progression"))]
    e = (cg[cols] - ct[cols]).to_numpy()
    rms = dict(zip(cols, np.sqrt(np.mean(((e + 180.0) % 360.0 - 180.0) ** 2, axis=0)), strict=True))
    legs = [c for c in cols if any(w in c for w in ("hip", "knee", "ankle", "pelvis"))]
    arms = [c for c in cols if c not in legs]
    sag = [c for c in cols if "flexion" in c or "tilt" in c]
    return rms, ([c for c in legs if c in sag], legs, [c for c in arms if c in sag], arms)

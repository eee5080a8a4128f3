#!/usr/bin/env python3
"""Make the sample trial ``data/sample_walk.csv`` (run from the repository root).

    python data/make_sample.py [--out data/sample_walk.csv] [--strides 4] [--rate 100]

A few seconds of level walking of the 17-segment model, in the
generalized-coordinates layout of CONVENTIONS.md, with exact first and
second time derivatives (``_dot``/``_ddot`` columns), so
``humanbody analyze data/sample_walk.csv`` has real gait-like motion to work
on and gives results exact to rounding.

How the motion is built: every coordinate is a periodic function of the gait
cycle, a truncated Fourier series (5 harmonics) fitted by least squares to a
handful of (percent of cycle, value) points shaped after the normal sagittal
joint-angle curves in Winter, *Biomechanics and Motor Control of Human
Movement* (4th ed., 2009, ch. 4/appendix) — hip flexion 36 deg at foot strike
to -5 deg at push-off (relative to a pelvis tilted 10 deg anterior, as a
walking adult's is: the thigh swings 26 deg forward to 15 deg back), knee
flexion near 38 deg at toe-off and peaking near 60 deg in swing, ankle
plantarflexion near -18 deg just after toe-off — timed so that the gait
events a gait lab's kinematic method finds (Zeni et al. 2008,
:func:`humanbody.gait.events.kinematic_events`: the heel furthest ahead of
the pelvis, the toe furthest behind) fall where normal walking has them:
foot strike at 0 % and foot off near 61 % of the cycle, so the sample report
shows stance about 61 % and double support about 22 % of the stride (normal:
about 60 % and 20 %); plus pelvic tilt (10-11.5 deg anterior), list (the
stance side's hip up in loading response, the swing side dropping) and
rotation after the normal curves of Schwartz et al. (2008), the legs turned
out 8 deg at the hips (the foot progression angle -3 to -16 deg),
counter-rotating thorax, and arm swing opposite to the legs. The left side
is the right side half a cycle later. Derivatives are those of the series, so
they are exact. The pelvis progresses at a constant mean speed with the
double-frequency vertical bounce of walking. Heights are set so that the
ankles of the scaled default model (75 kg, 1.75 m) stay about 8 cm above the
floor at mid-stance. This is an illustration of walking, not a recording.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

DEG = np.pi / 180.0
HARMONICS = 5
#: Toe-out (deg): the whole leg turned outward about the thigh's long axis (hip external rotation standing
#: for femoral and tibial torsion and foot abduction together), so that the foot progression angle is the
#: normal 5-15 deg of toe-out through stance.  Turned about the foot's own vertical axis instead (after
#: the ankle's plantarflexion, the last angle of the foot's sequence), the toe-out would grow as
#: atan(tan 8 deg / cos(foot pitch)) to -30 deg at toe-off, when the foot stands steeply on its toes.
TOE_OUT = 8.0

#: (percent of the right gait cycle, value in degrees) for the right side.
#: Sign conventions of the model: flexion of hip, shoulder and elbow and
#: dorsiflexion of the ankle are negative rotations about the segment's y
#: (left) axis; knee flexion is positive (see docs/theory.md).
KEYS = {
    "hip_flexion": [(0, 36), (15, 30), (40, 7), (48, -5), (55, 0), (72, 20), (88, 35), (97, 37), (100, 36)],
    "hip_adduction": [(0, 0), (15, 5), (40, 2), (60, -4), (75, -5), (100, 0)],
    "knee_flexion": [(0, 4), (15, 18), (37, 5), (45, 8), (56, 38), (70, 62), (87, 34), (97, 8), (100, 4)],
    "ankle_dorsiflexion": [(0, 0), (8, -5), (28, 7), (43, 10), (52, -5), (58, -18), (72, -2), (90, 2), (100, 0)],
    "shoulder_flexion": [(0, -15), (50, 15), (100, -15)],
    "elbow_flexion": [(0, 15), (50, 35), (100, 15)],
    "pelvis_list": [(0, 0), (12, -4), (40, -1), (50, 0), (62, 4), (90, 1), (100, 0)],
    "pelvis_tilt": [(0, 10), (25, 11.5), (50, 10), (75, 11.5), (100, 10)],
    "pelvis_rotation": [(0, 5), (50, -5), (100, 5)],
}


def fourier_fit(points, harmonics=HARMONICS):
    """Coefficients (c0, a_h, b_h) of the periodic least-squares fit to (percent, value) points."""
    x = np.array([p for p, _ in points], float) / 100.0 * 2 * np.pi
    y = np.array([v for _, v in points], float)
    # repeat the cycle endpoints are equal: drop duplicate 100 % point
    keep = x < 2 * np.pi - 1e-12
    x, y = x[keep], y[keep]
    h = np.arange(1, harmonics + 1)
    A = np.column_stack([np.ones_like(x), np.cos(np.outer(x, h)), np.sin(np.outer(x, h))])
    # minimum-norm solution with a ridge on high harmonics keeps the curve smooth
    lam = 1e-3 * np.concatenate([[0.0], h**4, h**4])
    coef = np.linalg.solve(A.T @ A + np.diag(lam), A.T @ y)
    return coef


def evaluate(coef, phase, omega):
    """Value, first and second time derivative of a fitted series at phase (rad), cycle rate omega (rad/s)."""
    H = (len(coef) - 1) // 2
    h = np.arange(1, H + 1)
    a, b = coef[1 : H + 1], coef[H + 1 :]
    c, s = np.cos(np.outer(phase, h)), np.sin(np.outer(phase, h))
    y = coef[0] + c @ a + s @ b
    yd = (-s * h) @ a * omega + (c * h) @ b * omega
    ydd = -(c * h**2) @ a * omega**2 - (s * h**2) @ b * omega**2
    return y, yd, ydd


def build(strides=4, rate=100.0, stride_time=1.1, speed=1.3, height=1.75, mass=75.0):
    """The sample trial as a DataFrame (generalized coordinates with exact rates)."""
    import humanbody as hb
    from humanbody.mechanics.kinematics import coordinate_columns

    model = hb.BodyModel.default(mass=mass, height=height)
    omega = 2 * np.pi / stride_time
    t = np.arange(0.0, strides * stride_time + 1e-9, 1.0 / rate)
    phase_r = omega * t
    phase_l = phase_r + np.pi
    cols = coordinate_columns(model)
    zero = np.zeros_like(t)
    data = {c: (zero, zero, zero) for c in cols}

    def put(name, values, scale=DEG):
        y, yd, ydd = values
        data[name] = (scale * y, scale * yd, scale * ydd)

    fit = {k: fourier_fit(v) for k, v in KEYS.items()}
    for side, ph, sign in (("right", phase_r, 1.0), ("left", phase_l, -1.0)):
        hip = evaluate(fit["hip_flexion"], ph, omega)
        put(f"{side}_upper_leg_alpha", tuple(-v for v in hip))  # flexion first (sequence yxz)
        add = evaluate(fit["hip_adduction"], ph, omega)
        put(f"{side}_upper_leg_beta", tuple(sign * v for v in add))  # adduction moves the knee medially
        put(f"{side}_lower_leg_alpha", evaluate(fit["knee_flexion"], ph, omega))
        ank = evaluate(fit["ankle_dorsiflexion"], ph, omega)
        put(f"{side}_foot_alpha", tuple(-v for v in ank))
        put(f"{side}_upper_leg_gamma", (-sign * TOE_OUT + zero, zero, zero))  # the leg turned out about the thigh
        # arms swing opposite to the leg of the same side (shoulder keys are set so)
        sh = evaluate(fit["shoulder_flexion"], ph, omega)
        put(f"{side}_upper_arm_alpha", tuple(-v for v in sh))
        put(f"{side}_upper_arm_beta", (-sign * 6.0 + zero, zero, zero))  # arms slightly abducted
        el = evaluate(fit["elbow_flexion"], ph, omega)
        put(f"{side}_lower_arm_alpha", tuple(-v for v in el))
    # the root turns in the sequence zxy: rotation, obliquity (list), tilt
    rot = evaluate(fit["pelvis_rotation"], phase_r, omega)
    put("lower_torso_alpha", rot)
    put("lower_torso_beta", evaluate(fit["pelvis_list"], phase_r, omega))
    put("lower_torso_gamma", evaluate(fit["pelvis_tilt"], phase_r, omega))
    put("middle_torso_gamma", tuple(-0.6 * v for v in rot))
    put("upper_torso_gamma", tuple(-0.8 * v for v in rot))
    put("neck_gamma", tuple(0.4 * v for v in rot))
    put("head_gamma", tuple(0.6 * v for v in rot))
    put("upper_torso_alpha", (2.0 + zero, zero, zero))  # slight forward lean
    # pelvis translation: constant speed forward, vertical bounce at twice the
    # stride frequency (lowest at double support), small lateral sway
    bounce, sway = 0.02, 0.02
    ankle_h = 0.08
    standing = hb.compute(model, pd.DataFrame({"time": [0.0, 1.0, 2.0], **{c: 0.0 for c in cols}}),
                          differentiation="gradient")
    k_ankle = model.segment("right_foot")
    z0 = ankle_h - standing.joint[0, k_ankle, 2]  # origin height putting the ankle at ankle_h
    data["lower_torso_x"] = (speed * t, speed + zero, zero)
    data["lower_torso_y"] = (sway * np.sin(phase_r), sway * omega * np.cos(phase_r),
                             -sway * omega**2 * np.sin(phase_r))
    data["lower_torso_z"] = (z0 - 0.01 - bounce * np.cos(2 * phase_r + 0.3),
                             2 * omega * bounce * np.sin(2 * phase_r + 0.3),
                             4 * omega**2 * bounce * np.cos(2 * phase_r + 0.3))
    out = {"time": t}
    for c in cols:
        out[c] = data[c][0]
    for c in cols:
        out[c + "_dot"] = data[c][1]
    for c in cols:
        out[c + "_ddot"] = data[c][2]
    return pd.DataFrame(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "sample_walk.csv"))
    ap.add_argument("--strides", type=int, default=4)
    ap.add_argument("--rate", type=float, default=100.0)
    args = ap.parse_args(argv)
    frame = build(strides=args.strides, rate=args.rate)
    frame.to_csv(args.out, index=False, float_format="%.12g")
    print(f"wrote {args.out}: {len(frame)} frames, {frame.shape[1]} columns")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

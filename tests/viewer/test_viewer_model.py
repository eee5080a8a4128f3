"""Viewer test data: a plausible standing human and a walking-like motion (and their checks).

The model is made here (not from humanbody.model.anthropometry) so the viewer tests
do not depend on the anthropometric tables: each segment is given the
semi-axes of the ellipsoid it should look like, and its inertia is that of a
uniform ellipsoid of the segment's mass (I1 = m (b^2 + c^2) / 5, ...).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from humanbody import BodyModel
from humanbody.model.segments import PARENTS, SEGMENT_NAMES

# name: (xi in parent frame, r in body frame, mass kg, semi-axes m)
_ARM = {
    "upper_arm": ((0.0, 0.19, 0.22), (0.0, 0.0, -0.15), 2.0, (0.045, 0.045, 0.16)),
    "lower_arm": ((0.0, 0.0, -0.29), (0.0, 0.0, -0.12), 1.2, (0.035, 0.035, 0.14)),
    "hand": ((0.0, 0.0, -0.26), (0.0, 0.0, -0.07), 0.45, (0.025, 0.045, 0.08)),
}
_LEG = {
    "upper_leg": ((0.0, 0.09, 0.0), (0.0, 0.0, -0.18), 10.5, (0.075, 0.075, 0.24)),
    "lower_leg": ((0.0, 0.0, -0.43), (0.0, 0.0, -0.19), 3.3, (0.05, 0.05, 0.22)),
    "foot": ((0.0, 0.0, -0.43), (0.06, 0.0, -0.05), 1.0, (0.12, 0.045, 0.04)),
}
_AXIAL = {
    "lower_torso": ((0.0, 0.0, 0.0), (0.0, 0.0, 0.05), 8.2, (0.10, 0.16, 0.09)),
    "middle_torso": ((0.0, 0.0, 0.12), (0.0, 0.0, 0.10), 12.0, (0.10, 0.15, 0.12)),
    "upper_torso": ((0.0, 0.0, 0.20), (0.0, 0.0, 0.13), 12.5, (0.11, 0.18, 0.14)),
    "neck": ((0.0, 0.0, 0.26), (0.0, 0.0, 0.05), 1.1, (0.05, 0.05, 0.06)),
    "head": ((0.0, 0.0, 0.10), (0.0, 0.0, 0.11), 5.0, (0.10, 0.08, 0.12)),
}


def _entry(name):
    if name in _AXIAL:
        return _AXIAL[name]
    side, part = name.split("_", 1)
    xi, r, m, semi = (_ARM | _LEG)[part]
    if side == "right":
        xi = (xi[0], -xi[1], xi[2])
    return xi, r, m, semi


def human_model() -> BodyModel:
    """A 17-segment model of a ~1.8 m, ~77 kg person (approximate proportions)."""
    joint, com, mass, inertia, meta = [], [], [], [], []
    for name in SEGMENT_NAMES:
        xi, r, m, semi = _entry(name)
        a2 = np.asarray(semi) ** 2
        joint.append(xi)
        com.append(r)
        mass.append(m)
        inertia.append(np.diag(m / 5.0 * (a2.sum() - a2)))
        meta.append({"length": 2 * max(semi)})
    return BodyModel(names=SEGMENT_NAMES, parents=PARENTS, joint_offset=joint, com_offset=com, mass=mass,
                     inertia=inertia, name="viewer-test", segment_meta=meta)


def walk_coordinates(model: BodyModel, duration: float = 1.2, rate: float = 60.0) -> pd.DataFrame:
    """Generalized coordinates of a walking-like motion: progression along X, swinging limbs."""
    t = np.arange(0.0, duration, 1.0 / rate)
    w = 2 * np.pi / 1.1  # one stride in 1.1 s
    data = {"time": t, "lower_torso_x": 1.3 * t, "lower_torso_y": 0.02 * np.sin(w * t),
            "lower_torso_z": 0.95 + 0.02 * np.cos(2 * w * t)}
    for name in model.names:
        for a in ("alpha", "beta", "gamma"):
            data[f"{name}_{a}"] = np.zeros_like(t)
    swing = {"right_upper_leg": -0.45, "left_upper_leg": 0.45, "right_upper_arm": 0.35, "left_upper_arm": -0.35}
    for name, amp in swing.items():
        data[f"{name}_beta"] = amp * np.sin(w * t)
    data["right_lower_leg_beta"] = 0.35 * (1 - np.cos(w * t))
    data["left_lower_leg_beta"] = 0.35 * (1 + np.cos(w * t))
    data["right_lower_arm_beta"] = -0.3 - 0.1 * np.sin(w * t)
    data["left_lower_arm_beta"] = -0.3 + 0.1 * np.sin(w * t)
    data["lower_torso_gamma"] = 0.1 * np.sin(w * t)
    data["middle_torso_gamma"] = -0.05 * np.sin(w * t)
    df = pd.DataFrame(data)
    df.attrs.update(kind="coordinates", source="walk (test)")
    return df


# ---------------------------------------------------------------- the helpers' own checks
def test_human_model_is_a_plausible_person():
    from humanbody import compute

    model = human_model()
    assert 70 < model.total_mass < 85
    res = compute(model, walk_coordinates(model, duration=0.2))
    head_top = res.com[0, model.names.index("head"), 2] + 0.12
    foot_sole = res.com[0, model.names.index("right_foot"), 2] - 0.04
    assert 1.7 < head_top - foot_sole < 1.95  # standing height at the first frame


def test_walk_progresses_forward():
    model = human_model()
    c = walk_coordinates(model)
    assert c["lower_torso_x"].iloc[-1] - c["lower_torso_x"].iloc[0] > 1.0
    assert c["right_upper_leg_beta"].abs().max() > 0.4

"""Which sensor or Xsens segment stands for which of the 17 segments.

OpenSense orientation files name one column per sensor ``<body>_imu`` after
the OpenSim body it rides on; Xsens MVN exports name their 23 segments.
Each of our segments takes the first name of its list that the file has;
names that map to no segment (Xsens' shoulder blades, toes, intermediate
vertebrae) are read and left out of the model, and the log says so.  Our own
segment names (``right_upper_leg_imu``) are accepted too.
"""

from __future__ import annotations

from ..model.segments import SEGMENT_NAMES

#: OpenSim body names (gait2392, Rajagopal 2015, the full-body models) per segment, in preference order.
OPENSIM_BODIES: dict[str, tuple[str, ...]] = {
    "lower_torso": ("pelvis",),
    "middle_torso": ("lumbar", "abdomen"),
    "upper_torso": ("torso", "thorax"),
    "neck": ("neck",),
    "head": ("head", "skull"),
    "right_upper_arm": ("humerus_r",),
    "right_lower_arm": ("radius_r", "ulna_r"),
    "right_hand": ("hand_r",),
    "left_upper_arm": ("humerus_l",),
    "left_lower_arm": ("radius_l", "ulna_l"),
    "left_hand": ("hand_l",),
    "right_upper_leg": ("femur_r",),
    "right_lower_leg": ("tibia_r",),
    "right_foot": ("calcn_r", "talus_r", "toes_r"),
    "left_upper_leg": ("femur_l",),
    "left_lower_leg": ("tibia_l",),
    "left_foot": ("calcn_l", "talus_l", "toes_l"),
}

#: Xsens MVN segment labels per segment, in preference order.
XSENS_SEGMENTS: dict[str, tuple[str, ...]] = {
    "lower_torso": ("Pelvis",),
    "middle_torso": ("L3", "L5", "T12"),
    "upper_torso": ("T8",),
    "neck": ("Neck",),
    "head": ("Head",),
    "right_upper_arm": ("RightUpperArm",),
    "right_lower_arm": ("RightForeArm",),
    "right_hand": ("RightHand",),
    "left_upper_arm": ("LeftUpperArm",),
    "left_lower_arm": ("LeftForeArm",),
    "left_hand": ("LeftHand",),
    "right_upper_leg": ("RightUpperLeg",),
    "right_lower_leg": ("RightLowerLeg",),
    "right_foot": ("RightFoot",),
    "left_upper_leg": ("LeftUpperLeg",),
    "left_lower_leg": ("LeftLowerLeg",),
    "left_foot": ("LeftFoot",),
}

#: The segment without which no trial can be placed (the root of the tree).
ROOT = SEGMENT_NAMES[0]


def assign(labels, table: dict[str, tuple[str, ...]], suffix: str = "") -> tuple[dict[str, str], list[str]]:
    """Map file labels to segments.

    Parameters
    ----------
    labels : sequence of str
        Sensor or segment labels as the file gives them (with ``suffix``).
    table : dict
        :data:`OPENSIM_BODIES` or :data:`XSENS_SEGMENTS`.
    suffix : str
        Ending of every label (``"_imu"`` for OpenSense); removed before
        matching, case-insensitively.

    Returns
    -------
    segment_of : dict
        Segment name -> file label, for the segments the file covers.
    unused : list of str
        Labels that stand for no segment.
    """
    def stem(label: str) -> str:
        low = label.lower()
        return low[: -len(suffix)] if suffix and low.endswith(suffix.lower()) else low

    by_stem: dict[str, str] = {}
    for label in labels:
        by_stem.setdefault(stem(label), label)
    segment_of: dict[str, str] = {}
    for seg in SEGMENT_NAMES:
        for name in (seg,) + table.get(seg, ()):
            if name.lower() in by_stem:
                segment_of[seg] = by_stem[name.lower()]
                break
    used = set(segment_of.values())
    return segment_of, [label for label in labels if label not in used]

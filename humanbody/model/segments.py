"""The 17-segment human body model of Huston: names, parent array, joints.

Numbering follows Huston, *Principles of Biomechanics*, Fig. 8.36 and
Table 8.1: every body's parent ("lower body" L(k)) has a lower number and
body 0 is the inertial frame (ground).  Index ``k - 1`` of every tuple here
describes body ``k``.
"""

from __future__ import annotations

#: Segment names, body k = index k-1 (docs/conventions.md, "The 17-segment model").
SEGMENT_NAMES: tuple[str, ...] = (
    "lower_torso",
    "middle_torso",
    "upper_torso",
    "left_upper_arm",
    "left_lower_arm",
    "left_hand",
    "neck",
    "head",
    "right_upper_arm",
    "right_lower_arm",
    "right_hand",
    "right_upper_leg",
    "right_lower_leg",
    "right_foot",
    "left_upper_leg",
    "left_lower_leg",
    "left_foot",
)

#: Lower body array L(k) of Table 8.1 (0 = ground).
PARENTS: tuple[int, ...] = (0, 1, 2, 3, 4, 5, 3, 7, 3, 9, 10, 1, 12, 13, 1, 15, 16)

#: Name of the proximal joint of each body (body 1 is free in ground).
JOINT_NAMES: tuple[str, ...] = (
    "free",
    "lumbar",
    "thoracic",
    "left_shoulder",
    "left_elbow",
    "left_wrist",
    "lower_neck",
    "upper_neck",
    "right_shoulder",
    "right_elbow",
    "right_wrist",
    "right_hip",
    "right_knee",
    "right_ankle",
    "left_hip",
    "left_knee",
    "left_ankle",
)

#: Rotation sequence of each body relative to its parent (docs/conventions.md,
#: "Orientation angles"): body-fixed axes in the order of the three angles.
#: Flexion-extension first ("yxz": about y, then the floating x axis, then the
#: segment's long axis z; Grood and Suntay's joint coordinate system) at the
#: hips, knees, ankles, elbows, wrists, trunk and neck joints: its singular
#: set, ab/adduction of +-90 degrees, lies outside their range, so knee
#: flexion of 150 degrees or hip flexion of 120 degrees is ordinary.  The
#: shoulders use the same sequence (flexion, abduction, axial rotation, as
#: Plug-in Gait reports them); their singular set is the arm horizontal in the
#: frontal plane (abduction +-90 degrees with no flexion), which the library
#: handles without division (docs/joint_angles.md).  The root turns about the
#: vertical first ("zxy": heading, obliquity about the floating x axis, tilt
#: about the pelvis's y axis; Baker 2001), so its singular set is the pelvis
#: lying on its side.
DEFAULT_SEQUENCES: tuple[str, ...] = ("zxy",) + ("yxz",) * 16

#: Quantities of the results table with x, y, z ground components (docs/conventions.md).
VECTOR_QUANTITIES: tuple[str, ...] = (
    "omega_rel",
    "omega",
    "alpha",
    "joint",
    "com",
    "com_vel",
    "com_acc",
    "force",
    "torque",
)

#: Units of the vector quantities, for docs and CSV metadata.
UNITS: dict[str, str] = {
    "omega_rel": "rad/s",
    "omega": "rad/s",
    "alpha": "rad/s^2",
    "joint": "m",
    "com": "m",
    "com_vel": "m/s",
    "com_acc": "m/s^2",
    "force": "N",
    "torque": "N*m",
    "inertia": "kg*m^2",
}

AXES: tuple[str, str, str] = ("x", "y", "z")
INERTIA_COMPONENTS: tuple[tuple[str, int, int], ...] = (
    ("xx", 0, 0),
    ("yy", 1, 1),
    ("zz", 2, 2),
    ("xy", 0, 1),
    ("xz", 0, 2),
    ("yz", 1, 2),
)


def segment_index(names, name: str) -> int:
    """Array index (0-based: body number k minus 1) of the segment called ``name``.

    The one lookup behind :meth:`humanbody.BodyModel.segment` and
    :meth:`humanbody.Results.segment`, so a model's and its results' arrays
    are indexed alike.

    Parameters
    ----------
    names : sequence of str
        The segments' names in array order.
    name : str
        A segment name (e.g. "right_thigh").

    Returns
    -------
    int
        Its index, 0-based.

    Raises
    ------
    KeyError
        When no segment has that name (the message lists the names).
    """
    try:
        return list(names).index(name)
    except ValueError:
        raise KeyError(f"no segment named {name!r}; segments: {', '.join(names)}") from None

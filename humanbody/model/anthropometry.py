"""Segment parameters of Huston's 17-segment body scaled to a subject.

Masses, mass-centre locations and principal radii of gyration come from
de Leva (1996), "Adjustments to Zatsiorsky-Seluyanov's segment inertia
parameters", J Biomech 29:1223-1230, Table 4 (file
``humanbody/data/de_leva_1996.csv``).  Lengths scale with stature
(``height / 1.741 m`` for men, ``height / 1.735 m`` for women, de Leva's
mean statures), masses with body mass, principal moments are
``m (r L)^2``.  docs/anthropometry.md states every choice; in short:

* body frames in the reference pose are parallel to ground (x forward,
  y left, z up); de Leva's sagittal radius is about x (the antero-posterior
  axis), the transverse radius about y (the medio-lateral axis), the
  longitudinal radius about the segment's long axis (z; x for the feet, whose
  sagittal axis is then vertical);
* the trunk is de Leva's upper, middle and lower parts (UPT, MPT, LPT);
* de Leva's head includes the neck; it is split at the middle of the
  vertex-cervicale line into a head (4/5 of the mass) and a neck (1/5) so
  that the two parts together keep de Leva's mass, mass centre and inertia;
* the lower torso origin O_1 is the mid-point of the hip joint centres;
  joints lie on vertical lines through the hip and shoulder centres, with
  lateral offsets and foot geometry from the OpenSim gait2392 / full-body
  generic models and ankle height from Drillis & Contini (1966).
"""

from __future__ import annotations

import math
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from ..errors import InputError
from .segments import DEFAULT_SEQUENCES, JOINT_NAMES, PARENTS, SEGMENT_NAMES

#: The subject of the default model when neither mass nor height is known: kg, m.
DEFAULT_MASS, DEFAULT_HEIGHT = 75.0, 1.75

__all__ = [
    "REFERENCE_STATURE",
    "SOURCE",
    "de_leva_table",
    "default_parameters",
    "principal_inertia",
    "validate_subject",
]

SOURCE = (
    "de Leva P (1996) Adjustments to Zatsiorsky-Seluyanov's segment inertia parameters, "
    "J Biomech 29:1223-1230, Table 4; head/neck split, joint geometry and axis mapping "
    "as in docs/anthropometry.md"
)

#: Mean stature (m) of de Leva's reference subjects (Zatsiorsky-Seluyanov samples).
REFERENCE_STATURE: dict[str, float] = {"male": 1.741, "female": 1.735}

#: Plausible subject ranges; outside them the input is almost surely in other units.
MASS_RANGE = (2.0, 500.0)  # kg
HEIGHT_RANGE = (0.4, 2.8)  # m

# Geometry of the reference pose as fractions of stature H.
#: Ankle joint height above the sole: 0.039 H (Drillis & Contini 1966, as drawn in
#: Winter, Biomechanics and Motor Control of Human Movement, 4th ed. 2009, Fig. 4.1).
ANKLE_HEIGHT = 0.039
#: Hip joint centre 0.0835 m lateral of the pelvis midline in the OpenSim gait2392
#: generic model (Delp et al. 1990), whose subject is about 1.80 m tall.
HIP_HALF_WIDTH = 0.0835 / 1.80
#: Shoulder joint 0.17 m lateral of the torso midline in the OpenSim full-body model
#: of Hamner, Seth & Delp (2010, J Biomech 43:2709), built on the same 1.80 m subject.
SHOULDER_HALF_WIDTH = 0.17 / 1.80
#: Posterior heel point 0.04877 m behind the ankle joint centre in gait2392
#: (calcaneus origin relative to the talus), 1.80 m subject.
HEEL_BEHIND_ANKLE = 0.04877 / 1.80
#: Fraction of de Leva's head(+neck) mass given to the neck (our modelling choice,
#: docs/anthropometry.md "Head and neck").
NECK_MASS_FRACTION = 0.20

_TABLE_FILE = "de_leva_1996.csv"
_SEXES = ("male", "female")


# ----------------------------------------------------------------- the table
@cache
def _read_table() -> dict[str, dict[str, Any]]:
    text = resources.files("humanbody").joinpath("data", _TABLE_FILE).read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    header = lines[0].split(",")
    rows: dict[str, dict[str, Any]] = {}
    for ln in lines[1:]:
        cells = ln.split(",")
        row: dict[str, Any] = {h: (c if h in ("segment", "origin", "other") else float(c)) for h, c in zip(header, cells, strict=True)}
        rows[row["segment"]] = row
    return rows


def check_sex(sex: str) -> str:
    """``sex`` as the anthropometric table's name, "male" or "female" ("m", "woman", ... taken); else an InputError.

    Parameters
    ----------
    sex : str
        The subject's sex as given.

    Returns
    -------
    str
        "male" or "female".
    """
    s = str(sex).strip().lower()
    if s in ("m", "man", "men"):
        s = "male"
    elif s in ("f", "woman", "women"):
        s = "female"
    if s not in _SEXES:
        raise InputError(f"sex {sex!r} is not known; give 'male' or 'female'")
    return s


def de_leva_table(sex: str = "male") -> dict[str, dict[str, Any]]:
    """de Leva (1996) Table 4 for one sex, in SI units and fractions.

    Parameters
    ----------
    sex : {"male", "female"}
        The table's sex.

    Returns
    -------
    dict
        ``table[segment]`` has ``origin``, ``other`` (landmark names),
        ``length`` (m, reference subject), ``mass`` (fraction of body mass),
        ``com`` (fraction of length from ``origin``), ``r_sag``, ``r_trans``,
        ``r_long`` (radii of gyration as fractions of length).  Segment keys:
        head, head_cerv, trunk, upper_trunk, middle_trunk, lower_trunk,
        upper_arm, forearm, hand, thigh, shank, shank_ajc, foot.
    """
    s = "m" if check_sex(sex) == "male" else "f"
    out = {}
    for name, row in _read_table().items():
        out[name] = {
            "origin": row["origin"],
            "other": row["other"],
            "length": row[f"length_{s}_mm"] / 1000.0,
            "mass": row[f"mass_{s}_pct"] / 100.0,
            "com": row[f"com_{s}_pct"] / 100.0,
            "r_sag": row[f"rsag_{s}_pct"] / 100.0,
            "r_trans": row[f"rtrans_{s}_pct"] / 100.0,
            "r_long": row[f"rlong_{s}_pct"] / 100.0,
        }
    return out


def principal_inertia(mass: float, length: float, radii) -> np.ndarray:
    """Diagonal inertia ``diag(m (r_i L)^2)`` about the mass centre.

    Parameters
    ----------
    mass : float
        Segment mass m (kg).
    length : float
        Segment length L (m) the radii refer to.
    radii : sequence of 3 float
        Radii of gyration about the body x, y, z axes as fractions of L.

    Returns
    -------
    ndarray, shape (3, 3), kg m^2
        The inertia tensor in the segment's axes.
    """
    r = np.asarray(radii, dtype=float) * length
    return np.diag(mass * r**2)


# ------------------------------------------------------------------ validate
def validate_subject(mass: float, height: float) -> tuple[float, float]:
    """Check subject mass (kg) and height (m); return them as floats.

    Parameters
    ----------
    mass : float, kg
        The subject's mass.
    height : float, m
        The subject's height.

    Returns
    -------
    mass, height : float
        The same values as floats (kg, m).

    Raises
    ------
    InputError
        A value that is not a finite number or lies outside the plausible
        range (mass 2-500 kg, height 0.4-2.8 m), with a hint on units.
    """
    out = []
    for what, value, (lo, hi), unit, hint in (
        ("mass", mass, MASS_RANGE, "kg", "give kilograms"),
        ("height", height, HEIGHT_RANGE, "m", "give metres"),
    ):
        try:
            v = float(value)
        except (TypeError, ValueError):
            raise InputError(f"{what} {value!r} is not a number") from None
        if not math.isfinite(v) or v <= 0:
            raise InputError(f"{what} must be a positive finite number, got {value!r}")
        if not lo <= v <= hi:
            raise InputError(
                f"{what} {v:g} {unit} is not plausible (expected {lo:g}-{hi:g} {unit}); {hint}"
            )
        out.append(v)
    return out[0], out[1]


# ----------------------------------------------------------------- the model
def _radii_upright(row) -> tuple[float, float, float]:
    """(x, y, z) radii fractions of an upright segment: sag, trans, long."""
    return row["r_sag"], row["r_trans"], row["r_long"]


def _radii_foot(row) -> tuple[float, float, float]:
    """Foot: long axis along x, transverse (flexion) axis y, sagittal axis z."""
    return row["r_long"], row["r_trans"], row["r_sag"]


def _split_head_neck(hn: dict, scale: float, mass: float):
    """Split de Leva's head+neck (VERT-CERV definition) into neck and head.

    ``mass`` is the head+neck mass (kg), ``scale`` the length scale factor.

    The joint between them (upper neck) is placed at the middle of the
    vertex-cervicale line.  The neck gets ``NECK_MASS_FRACTION`` of the mass,
    its mass centre at its mid-length and radius-of-gyration fractions of
    the whole head+neck applied to its own length.  The head gets the rest:
    its mass centre and inertia are what make the two parts together equal
    de Leva's head+neck (mass, mass centre, inertia about that centre).

    Returns
    -------
    dict
        ``neck_length``, ``head_length`` (m, vertical), ``neck_mass``,
        ``head_mass`` (kg), ``neck_com``, ``head_com`` (m above the
        segment's proximal joint), ``neck_inertia``, ``head_inertia``
        (3x3, kg m^2).
    """
    L = hn["length"] * scale
    m = mass
    radii = np.array(_radii_upright(hn))
    I_hn = principal_inertia(m, L, radii)
    g_hn = (1.0 - hn["com"]) * L  # head+neck mass centre above cervicale
    ln = 0.5 * L  # neck length; head length = L - ln
    m_n = NECK_MASS_FRACTION * m
    m_h = m - m_n
    g_n = 0.5 * ln  # neck centre above cervicale
    g_h = (m * g_hn - m_n * g_n) / m_h  # head centre above cervicale
    I_n = principal_inertia(m_n, ln, radii)

    def shift(mass_, dz):  # parallel-axis term for a vertical offset dz
        return mass_ * dz**2 * np.diag([1.0, 1.0, 0.0])

    I_h = I_hn - I_n - shift(m_n, g_n - g_hn) - shift(m_h, g_h - g_hn)
    return {
        "neck_length": ln,
        "head_length": L - ln,
        "neck_mass": m_n,
        "head_mass": m_h,
        "neck_com": g_n,
        "head_com": g_h - ln,
        "neck_inertia": I_n,
        "head_inertia": I_h,
    }


def default_parameters(mass: float = DEFAULT_MASS, height: float = DEFAULT_HEIGHT, sex: str = "male") -> dict:
    """The segment parameters of Huston's 17-segment body scaled to a subject (de Leva 1996).

    :func:`humanbody.model.body.default_model` builds the model from them
    (``BodyModel(**default_parameters(...))``).

    Parameters
    ----------
    mass : float
        Body mass (kg), 2-500.
    height : float
        Standing height (m), 0.4-2.8.
    sex : {"male", "female"}
        Selects de Leva's male or female table.

    Returns
    -------
    dict
        The keyword arguments of :class:`~humanbody.model.body.BodyModel`:
        17 segments in the order of :data:`humanbody.model.segments.SEGMENT_NAMES`.
        ``joint`` xi_k and ``com`` r_k describe the upright reference pose
        (all frames parallel to ground); ``segment_meta[k]`` holds
        ``length`` (m, proximal joint to distal joint or distal landmark),
        ``joint_name``, ``de_leva`` (the Table 4 row used) and ``source``;
        ``meta`` holds the subject (mass, height, sex) and ``source``.
        Segment masses sum to ``mass``.

    Raises
    ------
    InputError
        Implausible mass or height, or an unknown sex.

    Notes
    -----
    Segment lengths are de Leva's reference lengths times
    ``height / REFERENCE_STATURE[sex]``; masses are the Table 4 fractions
    (normalised to sum to one: the female fractions sum to 0.9999) times
    ``mass``; principal moments are ``m (r L)^2`` with L the scaled Table 4
    length of the row the radii belong to.
    """
    mass, height = validate_subject(mass, height)
    sex = check_sex(sex)
    t = de_leva_table(sex)
    s = height / REFERENCE_STATURE[sex]
    total = sum(t[p]["mass"] * (2 if p in _LIMBS else 1) for p in _PARTS)
    frac = {p: t[p]["mass"] / total for p in _PARTS}  # normalised mass fractions
    b = _Segments(t, frac, {p: t[p]["length"] * s for p in _PARTS}, mass)
    h = _joint_heights(b.L, height)
    _trunk_and_head(b, h, s)
    _arms(b, h, height)
    _legs(b, h, height)
    meta = {
        "source": SOURCE,
        "subject": {"mass": mass, "height": height, "sex": sex},
        "reference_pose": {
            "lower_torso_origin": "mid-point of the hip joint centres",
            "lower_torso_height": h["hip"],
            "sole_height": 0.0,
        },
    }
    return dict(
        names=SEGMENT_NAMES,
        parents=PARENTS,
        joint_offset=b.joint,
        com_offset=b.com,
        mass=b.masses,
        inertia=b.inertia,
        name="huston17",
        meta=meta,
        segment_meta=b.seg_meta,
        sequences=DEFAULT_SEQUENCES,
    )


#: de Leva's Table 4 rows the 17 segments take, and those of the paired limbs.
_PARTS = ("head_cerv", "upper_trunk", "middle_trunk", "lower_trunk",
          "upper_arm", "forearm", "hand", "thigh", "shank_ajc", "foot")
_LIMBS = ("upper_arm", "forearm", "hand", "thigh", "shank_ajc", "foot")


class _Segments:
    """The arrays of :class:`~humanbody.model.body.BodyModel`, filled segment by segment from de Leva's
    table ``t``: normalised mass fractions ``frac``, scaled lengths ``L`` (m), body ``mass`` (kg)."""

    def __init__(self, t: dict, frac: dict, L: dict, mass: float):
        n = len(SEGMENT_NAMES)
        self.t, self.frac, self.L, self.mass = t, frac, L, mass
        self.joint = np.zeros((n, 3))
        self.com = np.zeros((n, 3))
        self.masses = np.zeros(n)
        self.inertia = np.zeros((n, 3, 3))
        self.seg_meta: list[dict] = [{} for _ in range(n)]
        self.k = {name: i for i, name in enumerate(SEGMENT_NAMES)}

    def put(self, name, row, m, r, I, length, note=""):
        """Segment ``name``: mass ``m`` (kg), mass centre ``r`` (m), inertia ``I`` (kg m^2), ``length`` (m)."""
        i = self.k[name]
        self.masses[i] = m
        self.com[i] = r
        self.inertia[i] = I
        src = f"de Leva 1996 Table 4, {row} ({self.t[row]['origin']}-{self.t[row]['other']})"
        self.seg_meta[i] = {"length": float(length), "joint_name": JOINT_NAMES[i],
                            "de_leva": row, "source": src + (f"; {note}" if note else "")}

    def upright(self, name, row, proximal_up: bool, length_to_distal: float | None = None):
        """Segment along z; de Leva's origin landmark is the upper end."""
        p = self.t[row]
        m = self.frac[row] * self.mass
        Ls = self.L[row]
        z = (1.0 - p["com"]) * Ls if proximal_up else -p["com"] * Ls
        self.put(name, row, m, (0.0, 0.0, z), principal_inertia(m, Ls, _radii_upright(p)),
                 Ls if length_to_distal is None else length_to_distal)

    def place(self, name: str, joint) -> None:
        """The joint of segment ``name`` in its parent's frame (m)."""
        self.joint[self.k[name]] = joint


def _joint_heights(L: dict, H: float) -> dict:
    """The vertical stack of joint heights above the sole in the reference pose (m) for scaled lengths ``L``
    and standing height ``H``: ankle, knee, hip (= height of O_1, mid-hip), omphalion, xyphion, suprasternale,
    cervicale (the lower neck joint, C7/T1)."""
    h = {"ankle": ANKLE_HEIGHT * H}
    h["knee"] = h["ankle"] + L["shank_ajc"]
    h["hip"] = h["knee"] + L["thigh"]
    h["omph"] = h["hip"] + L["lower_trunk"]
    h["xyph"] = h["omph"] + L["middle_trunk"]
    h["supr"] = h["xyph"] + L["upper_trunk"]
    h["cerv"] = H - L["head_cerv"]
    return h


def _trunk_and_head(b: _Segments, h: dict, s: float) -> None:
    """The trunk (de Leva's origin, SUPR, XYPH, OMPH, is the upper end of each part), the neck and the head
    (de Leva's head+neck split, VERT-CERV definition; ``s`` the length scale)."""
    b.upright("lower_torso", "lower_trunk", True)
    b.upright("middle_torso", "middle_trunk", True)
    b.upright("upper_torso", "upper_trunk", True, length_to_distal=h["cerv"] - h["xyph"])
    b.place("middle_torso", (0.0, 0.0, h["omph"] - h["hip"]))
    b.place("upper_torso", (0.0, 0.0, h["xyph"] - h["omph"]))
    hn = _split_head_neck(b.t["head_cerv"], s, b.frac["head_cerv"] * b.mass)
    note = ("neck/head split of the head+neck segment at mid VERT-CERV, "
            f"{NECK_MASS_FRACTION:.0%} of its mass to the neck (docs/anthropometry.md)")
    b.put("neck", "head_cerv", hn["neck_mass"], (0.0, 0.0, hn["neck_com"]),
          hn["neck_inertia"], hn["neck_length"], note)
    b.put("head", "head_cerv", hn["head_mass"], (0.0, 0.0, hn["head_com"]),
          hn["head_inertia"], hn["head_length"], note)
    b.place("neck", (0.0, 0.0, h["cerv"] - h["xyph"]))
    b.place("head", (0.0, 0.0, hn["neck_length"]))


def _arms(b: _Segments, h: dict, H: float) -> None:
    """The arms hanging, shoulder joint centres at suprasternale level."""
    y_sh = SHOULDER_HALF_WIDTH * H
    for side, sign in (("left", 1.0), ("right", -1.0)):
        b.upright(f"{side}_upper_arm", "upper_arm", False)
        b.upright(f"{side}_lower_arm", "forearm", False)
        b.upright(f"{side}_hand", "hand", False)
        b.place(f"{side}_upper_arm", (0.0, sign * y_sh, h["supr"] - h["xyph"]))
        b.place(f"{side}_lower_arm", (0.0, 0.0, -b.L["upper_arm"]))
        b.place(f"{side}_hand", (0.0, 0.0, -b.L["forearm"]))


def _legs(b: _Segments, h: dict, H: float) -> None:
    """The legs and the feet (the foot's long axis along x)."""
    y_hip = HIP_HALF_WIDTH * H
    foot = b.t["foot"]
    Lf = b.L["foot"]
    heel = HEEL_BEHIND_ANKLE * H
    for side, sign in (("left", 1.0), ("right", -1.0)):
        b.upright(f"{side}_upper_leg", "thigh", False)
        b.upright(f"{side}_lower_leg", "shank_ajc", False)
        b.place(f"{side}_upper_leg", (0.0, sign * y_hip, 0.0))
        b.place(f"{side}_lower_leg", (0.0, 0.0, -b.L["thigh"]))
        b.place(f"{side}_foot", (0.0, 0.0, -b.L["shank_ajc"]))
        m = b.frac["foot"] * b.mass
        # mass centre: de Leva's fraction along heel -> toe tip (x), half the
        # ankle height above the sole (z); see docs/anthropometry.md "Feet"
        r = (-heel + foot["com"] * Lf, 0.0, -0.5 * h["ankle"])
        b.put(f"{side}_foot", "foot", m, r, principal_inertia(m, Lf, _radii_foot(foot)), Lf,
              "long axis along x: r_long about x, r_trans about y, r_sag about z")

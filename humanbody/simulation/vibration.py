"""Whole-body vibration: the body seated or standing on a vertically vibrating base, linearised.

:func:`body_on_base` builds the posture from the model, its joint springs and
dampers and its contacts (docs/vibration.md gives the values and sources);
:func:`equilibrium` settles it on its contacts (the root's height and tilt
such that the contacts carry the weight, then each joint's constant moment
``m_0`` that holds the posture against gravity, the tone of the muscles);
:func:`whole_body_vibration` linearises it there (:mod:`humanbody.simulation.linearize`)
and returns the apparent mass, the seat-to-head transmissibility and the
modes.

- apparent mass ``AM(f) = F_seat / a_seat``: the vertical force the seat
  exerts on the body per unit vertical seat acceleration (kg), with
  ``F_seat = sum_i (k_i + i w c_i)(Z - P_iz)`` over the seat's contact points
  (base displacement Z, point displacement P_iz);
- seat-to-head transmissibility ``T(f) = a_head / a_seat = P_head,z / Z``, the
  vertical motion of the head's mass centre.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.optimize import least_squares, root

from ..errors import InputError
from ..model.body import coordinate_columns
from ..rotations.quaternions import quaternion_to_matrix, sequence_to_quaternion
from .forward import System
from .linearize import frequency_response, linearize, modes, perturb, point_sensitivity, unbalanced_forces
from .passive import Contacts, JointSprings

__all__ = ["JOINTS", "CONTACTS", "body_on_base", "equilibrium", "whole_body_vibration", "VibrationResult"]

_REF_MASS, _REF_HEIGHT = 75.0, 1.75

#: Joint springs and dampers of the 75 kg, 1.75 m subject: stiffness (N m/rad) and damping (N m s/rad) about the
#: body's x (ab/adduction, lateral bending), y (flexion) and z (axial) axes.  Scaled by (m/75)(h/1.75)^2.
JOINTS = {
    "middle_torso": ((1500.0, 1200.0, 1000.0), (40.0, 30.0, 20.0)),   # lumbar
    "upper_torso": ((1500.0, 1200.0, 1000.0), (40.0, 30.0, 20.0)),    # thoracic
    "neck": ((60.0, 60.0, 40.0), (1.5, 1.5, 1.0)),                     # lower neck
    "head": ((60.0, 60.0, 40.0), (1.5, 1.5, 1.0)),                     # upper neck
    "right_upper_leg": ((300.0, 300.0, 200.0), (10.0, 10.0, 5.0)),     # hips
    "left_upper_leg": ((300.0, 300.0, 200.0), (10.0, 10.0, 5.0)),
    "right_lower_leg": ((300.0, 300.0, 200.0), (30.0, 40.0, 10.0)),    # knees
    "left_lower_leg": ((300.0, 300.0, 200.0), (30.0, 40.0, 10.0)),
    "right_foot": ((200.0, 200.0, 100.0), (15.0, 20.0, 5.0)),          # ankles
    "left_foot": ((200.0, 200.0, 100.0), (15.0, 20.0, 5.0)),
}
#: Standing: stiffer legs (the ankles hold the body as an inverted pendulum, m g h ~ 700 N m/rad).
STANDING_JOINTS = dict(JOINTS, **{
    k: ((1500.0, 1500.0, 1000.0), (80.0, 80.0, 20.0))
    for k in ("right_upper_leg", "left_upper_leg", "right_lower_leg", "left_lower_leg", "right_foot", "left_foot")})

#: Arms locked to the upper torso (resting on the thighs when seated): their own modes lie far above 10 Hz.
LOCKED = ("left_upper_arm", "left_lower_arm", "left_hand", "right_upper_arm", "right_lower_arm", "right_hand")

#: Contact points (body, point in the body frame from O_k as fractions/metres, normal stiffness N/m, damping
#: N s/m) of the 75 kg subject; scaled by m/75 (the contact frequencies and damping ratios stay).
CONTACTS = {
    "seated": [
        ("right_ischium", "lower_torso", (-0.03, -0.06, -0.09), 31000.0, 750.0, "seat"),
        ("left_ischium", "lower_torso", (-0.03, 0.06, -0.09), 31000.0, 750.0, "seat"),
        ("right_thigh", "right_upper_leg", (-0.07, 0.0, -0.45), 14000.0, 280.0, "seat"),
        ("left_thigh", "left_upper_leg", (-0.07, 0.0, -0.45), 14000.0, 280.0, "seat"),
        ("right_heel", "right_foot", (-0.04, 0.0, -0.075), 50000.0, 400.0, "floor"),
        ("right_toe", "right_foot", (0.16, 0.0, -0.075), 50000.0, 400.0, "floor"),
        ("left_heel", "left_foot", (-0.04, 0.0, -0.075), 50000.0, 400.0, "floor"),
        ("left_toe", "left_foot", (0.16, 0.0, -0.075), 50000.0, 400.0, "floor"),
    ],
    "standing": [
        ("right_heel", "right_foot", (-0.04, 0.0, -0.075), 40000.0, 900.0, "floor"),
        ("right_toe", "right_foot", (0.16, 0.0, -0.075), 40000.0, 900.0, "floor"),
        ("left_heel", "left_foot", (-0.04, 0.0, -0.075), 40000.0, 900.0, "floor"),
        ("left_toe", "left_foot", (0.16, 0.0, -0.075), 40000.0, 900.0, "floor"),
    ],
}
#: Horizontal spring and damper of every contact (static friction), N/m and N s/m, scaled like the normal ones.
TANGENTIAL = (20000.0, 500.0)

#: Angles of the seated posture (deg; the default model's sequences): hips 90 deg flexed, knees 90 deg, elbows
#: 60 deg (forearms towards the thighs); all others zero (trunk and head upright, feet flat).
SEATED = {"right_upper_leg_alpha": -90.0, "left_upper_leg_alpha": -90.0, "right_lower_leg_alpha": 90.0,
          "left_lower_leg_alpha": 90.0, "right_lower_arm_alpha": -60.0, "left_lower_arm_alpha": -60.0}

#: Standing at ease (deg): hips 10 deg and knees 20 deg flexed, ankles dorsiflexed to keep the feet flat.
STANDING = {"right_upper_leg_alpha": -10.0, "left_upper_leg_alpha": -10.0, "right_lower_leg_alpha": 20.0,
            "left_lower_leg_alpha": 20.0, "right_foot_alpha": -10.0, "left_foot_alpha": -10.0,
            "right_lower_arm_alpha": -20.0, "left_lower_arm_alpha": -20.0}


def _posture(model, posture: str) -> np.ndarray:
    cols = coordinate_columns(model)
    q = np.zeros(len(cols))
    for k, v in (SEATED if posture == "seated" else STANDING).items():
        q[cols.index(k)] = np.radians(v)
    return q


def body_on_base(model, posture: str = "seated"):
    """The system of :mod:`humanbody.simulation.forward` for the default 17-segment tree on a vibrating base.

    Returns ``(system, y0, seat)``: the system (springs, contacts moving with the base, arms locked), its
    unsettled state at the posture, and the indices of the contacts that make up the seat (seated) or the
    floor (standing) whose force gives the apparent mass.

    Parameters
    ----------
    model : BodyModel
        The body tree, its inertias and gravity
    posture : {"seated", "standing"}
        Sitting on a seat with the feet on the floor, or standing on the platform

    Returns
    -------
    system : System
        The forward-dynamics system of the body on the moving base.
    y0 : ndarray
        A starting state near the posture's equilibrium (S,).
    seat : ndarray of int
        Indices of the contacts on the seat (whose force is the seat force).
    """
    if posture not in CONTACTS:
        raise InputError(f"unknown posture {posture!r}; choose seated or standing")
    missing = [n for n in set(JOINTS) | set(LOCKED) if n not in model.names]
    if missing:
        raise InputError(f"the vibration model needs the 17-segment tree; the model has no segment {missing[0]!r}")
    mass = float(model.total_mass)
    height = float(model.meta.get("subject", {}).get("height", _REF_HEIGHT)) if isinstance(
        model.meta.get("subject"), dict) else _REF_HEIGHT
    sj = mass / _REF_MASS * (height / _REF_HEIGHT) ** 2
    sc = mass / _REF_MASS
    N = model.n_bodies
    K, C = np.zeros((N, 3)), np.zeros((N, 3))
    for name, (k, c) in (JOINTS if posture == "seated" else STANDING_JOINTS).items():
        K[model.names.index(name)] = np.array(k) * sj
        C[model.names.index(name)] = np.array(c) * sj
    q = _posture(model, posture)

    e0 = np.array([sequence_to_quaternion(a, s) for a, s in zip(q[3:].reshape(N, 3), model.sequences, strict=True)])
    springs = JointSprings(K, C, e0)
    rows = CONTACTS[posture]
    # a point along a segment's long axis is given as a fraction of the segment's length (z of the child joint)
    pts = []
    for _, body, p, *_ in rows:
        k = model.names.index(body)
        point = np.array(p, dtype=float)
        if body.endswith("upper_leg"):
            child = model.names.index(body.replace("upper_leg", "lower_leg"))
            point[2] *= -model.joint_offset[child][2]
        pts.append(point)
    contacts = Contacts(body=[model.names.index(r[1]) for r in rows], point=pts, height=0.0,
                        stiffness=[r[3] * sc for r in rows], damping=[r[4] * sc for r in rows],
                        tangential_stiffness=TANGENTIAL[0] * sc, tangential_damping=TANGENTIAL[1] * sc,
                        moving=True, names=tuple(r[0] for r in rows))
    system = System(model, springs=springs, contacts=contacts, base=lambda t: (0.0, 0.0), locked=LOCKED)
    y0 = system.state(q, np.zeros_like(q))
    # every contact plane at its point's height in the posture: the settling compresses it
    p = system.evaluate(0.0, y0)["contact_points"]
    contacts.height = p[:, 2].copy()
    seat = [i for i, r in enumerate(rows) if r[5] == ("seat" if posture == "seated" else "floor")]
    return system, y0, seat


def equilibrium(system, y0, tol: float = 1e-9) -> np.ndarray:
    """Settle a system on its contacts; returns the equilibrium state and sets the joints' holding moments.

    1. The root's height and its tilts about the ground x and y axes such that the contacts' vertical force
       and moments balance the weight with the posture held (:func:`_settle`: a bounded least squares on scaled
       unknowns, then ``scipy.optimize.root``).  A point left in the air
       on a body resting on other points (a toe) has its plane raised to meet it and the body settles again, so
       a foot rests flat.  The contacts' horizontal anchors are then put where the points are, so no
       horizontal force remains.  A body that cannot rest on its contacts (its mass centre outside them, or
       tipping over them) raises :class:`InputError`.
    2. Each joint spring's constant moment ``m_0`` equal to what the joint carries there (the recursive
       Newton-Euler residual at rest), so every generalized force vanishes.

    Parameters
    ----------
    system : System
        Its springs' holding moments are set.
    y0 : ndarray, shape (S,)
        The starting state (:meth:`humanbody.simulation.forward.System.state`)
    tol : float
        Largest generalized force left (N, N m) at which the search stops

    Returns
    -------
    ndarray, shape (S,)
        The equilibrium state (speeds zero) from ``y0``.
    """
    zero = np.zeros(system.n)
    sel = [i for i in (2, 3, 4) if system.free[i]]  # height, tilts about x and y (unless locked)
    c = system.contacts
    outside = _outside(system, y0)
    if outside > 0.0:
        raise InputError(_refusal(outside))
    d = zero.copy()
    for _ in range(4):
        d[sel] = _settle(system, y0, sel, d[sel], tol)
        # a point left in the air on a body that rests on others (a toe): its plane raised to press it in as
        # much as the body's most pressed point, and settled again (the foot flat on the floor)
        pen = c.height - system.evaluate(0.0, perturb(system, y0, d))["contact_points"][:, 2]
        lifted = [i for i in range(len(c)) if pen[i] <= 0 and np.any(pen[c.body == c.body[i]] > 0)]
        if not lifted:
            break
        for i in lifted:
            c.height[i] += pen[c.body == c.body[i]].max() - pen[i]
    y = perturb(system, y0, d)
    ev = system.evaluate(0.0, y)
    c.anchor = ev["contact_points"][:, :2].copy()
    ev = system.evaluate(0.0, y)
    G = ev["M"] @ ev["udot"]  # applied - b on the free coordinates

    S = quaternion_to_matrix(ev["e"])
    need = -G[3:].reshape(system.N, 3)  # what each joint must add, parent axes
    need[~system.free[3:].reshape(system.N, 3).all(axis=1)] = 0.0
    need[0] = 0.0  # the root has no joint: balanced by step 1
    system.springs.preload = system.springs.preload + np.einsum("nji,nj->ni", S, need)
    return y


def _settle(system, y0, sel, guess, tol: float) -> np.ndarray:
    """The root's height and tilts (``sel``) at which the contacts carry the weight with the posture held.

    The three balances (vertical force, moments about the ground's x and y axes) are stiff in height and soft
    in tilt (the contacts' spread against gravity's pull on a tilted body), hundreds of times apart, and
    piecewise smooth (a contact pushes only when pressed): a bounded least squares on scaled unknowns (height
    in units of the static compression ``m g / sum k``, tilts in radians, at most 0.5 rad) and scaled balances
    (per weight) finds the basin, and the equations are then solved to ``tol`` from there.  A body whose
    weight cannot be carried (its mass centre outside its contacts) raises :class:`InputError`.
    """
    zero = np.zeros(system.n)
    weight = float(system.model.total_mass) * 9.81
    sink = weight / float(system.contacts.stiffness.sum())  # every point pressed in by the same amount
    scale = np.array([sink if i == 2 else 1.0 for i in sel])

    def f(p):
        d = zero.copy()
        d[sel] = p
        return unbalanced_forces(system, y0, d, zero, 0.0, 0.0)[0][sel] / weight

    start = np.asarray(guess, dtype=float).copy()
    if sel and sel[0] == 2 and start[0] == 0.0:
        start[0] = -sink
    # the height between pressed 50 times the static compression and lifted off; tilts within 0.5 rad
    lo = np.array([-50.0 if i == 2 else -0.5 for i in sel])
    hi = np.array([1.0 if i == 2 else 0.5 for i in sel])
    fit = least_squares(lambda x: f(x * scale), np.clip(start / scale, lo, hi), bounds=(lo, hi), method="trf",
                        x_scale="jac", xtol=1e-12, ftol=1e-12, gtol=1e-12)
    sol = root(lambda p: f(p) * 9.81, fit.x * scale, tol=tol)  # per unit mass, as the balances always were
    if not sol.success or np.abs(f(sol.x)).max() > 1e-9:
        raise InputError(_refusal())
    return sol.x


def _outside(system, y0) -> float:
    """How far (m) the mass centre lies outside the contact points seen from above, in the posture (0 inside or
    when the points span no area)."""
    from scipy.spatial import ConvexHull, QhullError  # lazy: scipy.spatial, only for a standing posture's check

    ev = system.evaluate(0.0, y0)
    mass = np.asarray(system.model.mass, dtype=float)
    com = mass @ ev["com"][:, :2] / mass.sum()
    try:
        hull = ConvexHull(ev["contact_points"][:, :2])
    except (QhullError, ValueError):
        return 0.0
    return max(0.0, float((hull.equations[:, :2] @ com + hull.equations[:, 2]).max()))


def _refusal(outside: float | None = None) -> str:
    """One line: why the body does not rest on its contacts and what to change."""
    where = (" (it tips over them)" if outside is None
             else f" (its mass centre lies {100 * outside:.0f} cm outside the points it rests on)")
    return (f"the body cannot rest on its contacts in this posture{where}: check the segment masses, mass centres "
            "and lengths of `model`")


@dataclass
class VibrationResult:
    """Frequency response and modes of a body on a vibrating base.

    Attributes
    ----------
    response : DataFrame  ``frequency_hz``, ``apparent_mass_kg``, ``apparent_mass_phase_deg``,
        ``seat_to_head_transmissibility``, ``seat_to_head_phase_deg``
    modes : DataFrame  ``frequency_hz``, ``damping_ratio``, ``dominant``
    linearization : humanbody.simulation.linearize.Linearization
    seat : list of int  contacts whose force is the apparent mass
    head_point : (3,)  the head point of the transmissibility (its mass centre, head frame, m)
    static_mass_kg : float  the apparent mass as the frequency tends to 0 (at 0.01 Hz)
    """

    response: pd.DataFrame
    modes: pd.DataFrame
    linearization: object
    seat: list
    head_point: np.ndarray
    static_mass_kg: float


def seat_force_and_head(lin, seat, freqs_hz):
    """Complex seat force (N) and head vertical displacement per unit base displacement, (F,) each.

    Parameters
    ----------
    lin : Linearization
        The linear equations about the equilibrium (:func:`humanbody.simulation.linearize.linearize`)
    seat : ndarray of int
        The seat's (floor's) contacts.
    freqs_hz : array_like, shape (F,), Hz
        Frequencies of the base motion

    Returns
    -------
    force : ndarray of complex, shape (F,), N per m
        The seat's vertical force per unit base displacement at each frequency.
    head : ndarray of complex, shape (F,)
        The head's vertical displacement per unit base displacement (transmissibility of displacement).
    """
    system = lin.system
    X = frequency_response(lin, freqs_hz)
    w = 2 * np.pi * np.asarray(freqs_hz, dtype=float)
    c = system.contacts
    force = np.zeros(len(w), dtype=complex)
    for i in seat:
        Jz = point_sensitivity(lin, int(c.body[i]), c.point[i])[2]
        force += (c.stiffness[i] + 1j * w * c.damping[i]) * (1.0 - X @ Jz)
    head = system.model.segment("head")
    Jh = point_sensitivity(lin, head, system.model.com_offset[head])[2]
    return force, X @ Jh


def whole_body_vibration(model, posture: str = "seated", freqs_hz=None) -> VibrationResult:
    """Apparent mass, seat-to-head transmissibility and modes of the body seated or standing.

    Parameters
    ----------
    model : BodyModel
        The 17-segment model (:meth:`BodyModel.default`)
    posture : {"seated", "standing"}
        Sitting on a seat with the feet on the floor, or standing on the platform
    freqs_hz : array_like, optional
        Frequencies (Hz); default 0.5 to 20 Hz in 0.1 Hz steps

    Returns
    -------
    VibrationResult
        The response table (frequency Hz, apparent mass kg and phase, seat-to-head transmissibility and phase), the modes, the linearization and the static apparent mass (kg).
    """
    f = np.arange(0.5, 20.0001, 0.1) if freqs_hz is None else np.asarray(freqs_hz, dtype=float)
    system, y0, seat = body_on_base(model, posture)
    y = equilibrium(system, y0)
    lin = linearize(system, y)
    force, head = seat_force_and_head(lin, seat, f)
    w = 2 * np.pi * f
    am = force / (-(w**2))
    f0 = 0.01  # Hz: the limit of the dynamic apparent mass (a slow vibration shares its load as the joints yield)
    static = float(np.abs(seat_force_and_head(lin, seat, [f0])[0][0]) / (2 * np.pi * f0) ** 2)
    response = pd.DataFrame({"frequency_hz": f, "apparent_mass_kg": np.abs(am),
                             "apparent_mass_phase_deg": np.degrees(np.angle(am)),
                             "seat_to_head_transmissibility": np.abs(head),
                             "seat_to_head_phase_deg": np.degrees(np.angle(head))})
    table, _ = modes(lin)
    table = table[table.frequency_hz <= 30.0].reset_index(drop=True)
    head_point = np.array(model.com_offset[model.segment("head")])
    return VibrationResult(response, table, lin, seat, head_point, static)

"""The subject's mass from the plates, said and checked: enough whole-weight frames, a body mass index of 13-60.

The estimate is :func:`humanbody.mechanics.body_mass.mass_from_loads` (the
vertical ground reaction over the frames with the whole weight on measured
plates, against the mass centre's vertical acceleration).  It is kept only
over at least :data:`~humanbody.mechanics.body_mass.MIN_SECONDS` of such
frames and with a body mass index (mass / height^2) within :data:`BMI_RANGE`
(WHO: below 16 is severe thinness, 40 and above class III obesity; 13 and 60
bound what an adult in a gait lab is).

A stated mass (``--mass``, a subject file) is weighed against the plates
the same way when they carry the whole weight over enough frames
(:func:`stated_mass`): refused when the two differ by more than
:data:`MAX_MASS_DIFFERENCE` (the plates' estimate on the shared walk is
within 0.1 % of OpenSim's subject; a typing error such as 500 for 50.0 or
a subject file of another subject is tens of per cent off).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..mechanics.body_mass import BLOCK_SECONDS, MIN_SECONDS, mass_from_loads, model_height
from . import refusal

__all__ = ["BMI_RANGE", "MAX_MASS_DIFFERENCE", "MAX_WEIGHING_SPREAD", "check_bmi", "plates_mass", "stated_mass"]

#: Body mass index (kg/m^2) range of a plausible adult.
#: Largest spread (fraction of the mass) of the plates' weighing, second by second, for a stated mass to be judged.
MAX_WEIGHING_SPREAD = 0.10
BMI_RANGE = (13.0, 60.0)
#: Largest relative difference between a stated mass and the plates' weighing of the subject.
MAX_MASS_DIFFERENCE = 0.15


def check_bmi(mass: float, height: float, where: str, skip: bool) -> str:
    """One line on the body mass index of ``mass`` (kg) at ``height`` (m); refused outside :data:`BMI_RANGE`.

    Parameters
    ----------
    mass : float, kg
        The subject's mass.
    height : float, m
        The subject's height.
    where : str
        Where the mass came from (``"--mass"``, a subject file).
    skip : bool
        Do not refuse (--skip-check mass): keep going and say so.

    Returns
    -------
    str
        The "check mass:" line: the body mass index at the height (and the range when outside it).

    Raises
    ------
    InputError
        Outside the range (without ``skip``).
    """
    bmi = mass / height ** 2
    lo, hi = BMI_RANGE
    if not lo <= bmi <= hi and not skip:
        raise refusal("mass", f"mass {mass:.1f} kg {where} gives a body mass index of {bmi:.1f} at "
                      f"{height:.2f} m (a body: {lo:g}-{hi:g})", instead="give `mass` KG")
    return (f"check mass: body mass index {bmi:.1f} at {height:.2f} m"
            + ("" if lo <= bmi <= hi else f" (outside {lo:g}-{hi:g}; --skip-check mass)"))


def plates_mass(loads, results, model, time, source: str, *, skip: bool = False, gravity: float = 9.81,
                edges: int = 0):
    """The subject's mass from the plates (:func:`~humanbody.mechanics.body_mass.mass_from_loads`) when none was given: ``(mass or None, lines)``.

    Refused (:func:`~humanbody.checks.refusal`, asking for ``--mass``) when
    fewer than :data:`MIN_SECONDS` of the trial carry the whole weight on
    the plates, or when the estimate's body mass index at the model's
    height lies outside :data:`BMI_RANGE`; with ``skip`` (``--skip-check mass``)
    the first gives None (the model's mass is kept, said so) and the
    second keeps the estimate.  ``edges``: frames at each end not weighed (their accelerations are
    the edges' estimates, :mod:`humanbody.checks.edges`).

    Parameters
    ----------
    loads : FrameLoads
        The assigned external loads per frame (their vertical forces, N, are weighed).
    results : Results
        The trial's kinematics (the body's mass-centre acceleration body_com_acc, m/s^2).
    model : BodyModel
        The body model (its height for the BMI; its mass fractions).
    time : array_like, shape (F,), s
        The frames' times.
    source : str
        The trial's file.
    skip : bool
        Do not refuse (--skip-check mass): keep going and say so.
    gravity : float, m/s^2
        Gravity's magnitude.
    edges : int
        Frames at each end not weighed.

    Returns
    -------
    mass : float or None, kg
        The plates' mass, or None when it could not be weighed (with skip).
    lines : list of str
        The lines for the log saying how the mass was found.

    Raises
    ------
    InputError
        As said above (without ``skip``).
    """
    name = Path(source).name if source else "the plates"
    m, spread, n, seconds = mass_from_loads(loads, results, model, time, gravity, edges)
    if m is None:
        why = (f"only {n} frame(s) ({seconds:.2f} s) carry the whole weight on the plates of {name} (every foot "
               f"on a plate or in the air; at least {MIN_SECONDS:g} s needed)")
        if not skip:
            raise refusal("mass", f"no `mass`: {why}", instead="give `mass` KG (or `subject` FILE)")
        return None, [f"no --mass: {model.total_mass:g} kg assumed ({why}; --skip-check mass)"]
    line = (f"mass {m:.1f} kg from {name}: sum of the vertical force / sum of (g + the mass centre's vertical "
            f"acceleration) over {n} frames ({seconds:.1f} s) with the whole weight on the plates"
            + (f", spread {spread:.1f} kg over {BLOCK_SECONDS:g}-s blocks" if np.isfinite(spread) else "")
            + " (no --mass given)")
    lines = [line]
    height = model_height(model)
    if height is not None:
        lines.append(check_bmi(m, height, f"from {name}", skip))
    return m, lines


def stated_mass(mass: float, where: str, loads, results, model, time, source: str, *, skip: bool = False,
                gravity: float = 9.81, edges: int = 0) -> str:
    """One line weighing a stated ``mass`` (kg, from ``where``: "--mass", the subject file) on the plates.

    The plates' mass is :func:`~humanbody.mechanics.body_mass.mass_from_loads` (eq. 2 over the
    frames with the whole weight on them); with fewer than :data:`MIN_SECONDS` of such frames the
    line says the mass was not weighed; not judged either when the weighing's spread from one
    second to the next exceeds :data:`MAX_WEIGHING_SPREAD` of it (the shared walk: 0.2 %; a run
    with a foot's stances off the plates: 50 %), nor when the plates' figure is below any body of the model's
    height (:data:`BMI_RANGE`: the plates then do not carry the whole body).  Refused (``--mass``, ``--skip-check mass``) when the two
    differ by more than :data:`MAX_MASS_DIFFERENCE` of the plates' figure.  ``edges``: frames at each
    end not weighed, as in :func:`plates_mass`.

    Parameters
    ----------
    mass : float, kg
        The stated mass.
    where : str
        Where it was stated ("--mass", a subject file), named in the line.
    loads : FrameLoads
        The assigned external loads per frame (their vertical forces, N, are weighed).
    results : Results
        The trial's kinematics (the body's mass-centre acceleration body_com_acc, m/s^2).
    model : BodyModel
        The body model (its height for the BMI; its mass fractions).
    time : array_like, shape (F,), s
        The frames' times.
    source : str
        The trial's file, named in the line.
    skip : bool
        Do not refuse (--skip-check mass): keep going and say so.
    gravity : float, m/s^2
        Gravity's magnitude.
    edges : int
        Frames at each end not weighed.

    Returns
    -------
    str
        The ``check mass:`` line.

    Raises
    ------
    InputError
        As said above (without ``skip``).
    """
    name = Path(source).name if source else "the plates"
    m, spread, n, seconds = mass_from_loads(loads, results, model, time, gravity, edges)
    if m is None or not np.isfinite(m) or m <= 0:
        return (f"check mass: {mass:g} kg ({where}) not weighed on the plates of {name}: {seconds:.2f} s with "
                f"the whole weight on them (at least {MIN_SECONDS:g} s needed)")
    if np.isfinite(spread) and spread > MAX_WEIGHING_SPREAD * m:  # the plates disagree with themselves
        return (f"check mass: {mass:g} kg ({where}) not judged on the plates of {name}: they weigh {m:.1f} kg "
                f"+- {spread:.1f} kg from one second to the next (more than {100 * MAX_WEIGHING_SPREAD:g} %: a foot "
                "off the plates or a run's impacts)")
    height = (model.meta.get("subject") or {}).get("height")
    if height and m < BMI_RANGE[0] * float(height) ** 2:  # the plates do not carry a whole body: nothing weighed
        return (f"check mass: {mass:g} kg ({where}) not weighed on the plates of {name}: they carry {m:.1f} kg, "
                f"less than any body of {float(height):.2f} m (body mass index {BMI_RANGE[0]:g})")
    off = mass / m - 1.0
    pct = round(100.0 * off, 1) or 0.0  # no "-0.0"
    said = (f"{mass:g} kg ({where}) against {m:.1f} kg weighed by {name} over {n} frames ({seconds:.1f} s) with "
            f"the whole weight on them ({pct:+.1f} %, at most {100 * MAX_MASS_DIFFERENCE:g} %)")
    if abs(off) > MAX_MASS_DIFFERENCE:
        if not skip:
            raise refusal("mass", f"the stated mass does not match the plates: {said}", source or None,
                          instead="give the subject's `mass` KG")
        return f"check mass: {said} (--skip-check mass)"
    return f"check mass: {said}"

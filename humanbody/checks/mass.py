"""The subject's mass from the plates, said and checked: enough whole-weight frames, a body mass index of 13-60.

The estimate is :func:`humanbody.mechanics.body_mass.mass_from_loads` (the
vertical ground reaction over the frames with the whole weight on measured
plates, against the mass centre's vertical acceleration).  It is kept only
over at least :data:`~humanbody.mechanics.body_mass.MIN_SECONDS` of such
frames and with a body mass index (mass / height^2) within :data:`BMI_RANGE`
(WHO: below 16 is severe thinness, 40 and above class III obesity; 13 and 60
bound what an adult in a gait lab is).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..mechanics.body_mass import BLOCK_SECONDS, MIN_SECONDS, mass_from_loads, model_height
from . import refusal

__all__ = ["BMI_RANGE", "check_bmi", "plates_mass"]

#: Body mass index (kg/m^2) range of a plausible adult.
BMI_RANGE = (13.0, 60.0)


def check_bmi(mass: float, height: float, where: str, skip: bool) -> str:
    """One line on the body mass index of ``mass`` (kg) at ``height`` (m); refused outside :data:`BMI_RANGE`."""
    bmi = mass / height ** 2
    lo, hi = BMI_RANGE
    if not lo <= bmi <= hi and not skip:
        raise refusal("mass", f"mass {mass:.1f} kg {where} gives a body mass index of {bmi:.1f} at "
                      f"{height:.2f} m (a body: {lo:g}-{hi:g})", instead="give `mass` KG")
    return (f"check mass: body mass index {bmi:.1f} at {height:.2f} m"
            + ("" if lo <= bmi <= hi else f" (outside {lo:g}-{hi:g}; --skip-check mass)"))


def plates_mass(loads, results, model, time, source: str, *, skip: bool = False, gravity: float = 9.81):
    """The subject's mass from the plates (:func:`~humanbody.mechanics.body_mass.mass_from_loads`) when none was given: ``(mass or None, lines)``.

    Refused (:func:`~humanbody.checks.refusal`, asking for ``--mass``) when
    fewer than :data:`MIN_SECONDS` of the trial carry the whole weight on
    the plates, or when the estimate's body mass index at the model's
    height lies outside :data:`BMI_RANGE`; with ``skip`` (``--skip-check mass``)
    the first gives None (the model's mass is kept, said so) and the
    second keeps the estimate.
    """
    name = Path(source).name if source else "the plates"
    m, spread, n, seconds = mass_from_loads(loads, results, model, time, gravity)
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

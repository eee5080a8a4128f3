"""Is a calibrated marker set plausible?  Limb lengths against stature, and left against right.

A marker set that reads a marker wrongly (a knee marker taken as an ankle,
sides swapped, a static-only marker missing) still calibrates, but its limb
segments come out too long, too short or unequal.  Two checks on the
calibrated model, before a motion trial is analysed with it:

* length: each limb segment's calibrated length (proximal to distal joint
  centre) as a fraction of standing height, against the proportions of
  Drillis and Contini (Winter 2009, *Biomechanics and Motor Control of Human
  Movement*, Fig. 4.1): thigh 0.245 H, shank 0.246 H, foot 0.152 H, upper arm
  0.186 H, forearm 0.146 H;
* symmetry: the left and right segments' lengths, relative to their mean.

:func:`check_lengths` returns warnings (outside :data:`WARN_RATIO` of the
proportion, or :data:`WARN_ASYMMETRY` between sides) and the errors that
make a set unusable (outside :data:`REFUSE_RATIO`, or :data:`REFUSE_ASYMMETRY`).
"""

from __future__ import annotations

import numpy as np

__all__ = ["PROPORTIONS", "check_lengths", "WARN_RATIO", "REFUSE_RATIO", "WARN_ASYMMETRY", "REFUSE_ASYMMETRY"]

#: Segment (without side) -> length as a fraction of standing height (Winter 2009, Fig. 4.1).
PROPORTIONS = {"upper_leg": 0.245, "lower_leg": 0.246, "foot": 0.152, "upper_arm": 0.186, "lower_arm": 0.146}
#: Calibrated / expected length outside this range: a warning; outside REFUSE_RATIO: an error.
WARN_RATIO, REFUSE_RATIO = (0.7, 1.4), (0.45, 2.0)
#: |left - right| / mean above this: a warning; above REFUSE_ASYMMETRY: an error.
WARN_ASYMMETRY, REFUSE_ASYMMETRY = 0.10, 0.30


def check_lengths(model, height: float) -> tuple[list[str], list[str]]:
    """Warnings and errors on the calibrated limb lengths of ``model`` for a subject ``height`` m tall.

    Only segments the calibration measured (``segment_meta["calibrated"]``)
    are judged.  Returns ``(warnings, errors)``, each a list of one-line texts.

    Parameters
    ----------
    model : BodyModel
        The calibrated model (its segment lengths, m).
    height : float, m
        The subject's height.

    Returns
    -------
    warnings, errors : list of str
        One-line texts: lengths unusual for the height, and lengths no body has.
    """
    warnings, errors = [], []
    length = {}
    for k, name in enumerate(model.names):
        meta = model.segment_meta[k]
        base = name.split("_", 1)[1] if name.startswith(("right_", "left_")) else name
        if base in PROPORTIONS and meta.get("calibrated") and meta.get("length"):
            length[name] = float(meta["length"])
    for name, L in length.items():
        base = name.split("_", 1)[1]
        ratio = L / (PROPORTIONS[base] * height)
        text = (f"{name.replace('_', ' ')} is {100 * L:.0f} cm, {ratio:.2f} times the usual "
                f"{100 * PROPORTIONS[base]:.1f} % of a {height:.2f} m stature")
        if not REFUSE_RATIO[0] <= ratio <= REFUSE_RATIO[1]:
            errors.append(text)
        elif not WARN_RATIO[0] <= ratio <= WARN_RATIO[1]:
            warnings.append(text)
    for base in PROPORTIONS:
        r, lft = length.get(f"right_{base}"), length.get(f"left_{base}")
        if r is None or lft is None:
            continue
        asym = abs(r - lft) / (0.5 * (r + lft))
        text = (f"right and left {base.replace('_', ' ')} differ by {100 * asym:.0f} % "
                f"({100 * r:.0f} vs {100 * lft:.0f} cm)")
        if not np.isfinite(asym) or asym > REFUSE_ASYMMETRY:
            errors.append(text)
        elif asym > WARN_ASYMMETRY:
            warnings.append(text)
    return warnings, errors

"""Standing height from body landmarks, for a marker set without head markers.

Each landmark stands at a fixed fraction of the standing height ``H`` above
the floor (Drillis R, Contini R (1966) *Body segment parameters*, Report
1166-03, New York University, School of Engineering and Science; as drawn in
Winter DA (2009) *Biomechanics and Motor Control of Human Movement*, 4th ed.,
Fig. 4.1): the acromion at 0.818 H, the hip joint (greater trochanter) at
0.530 H, the ankle (lateral malleolus) at 0.039 H.  A landmark ``i`` at
height ``z_i`` over a floor reference at fraction ``f_0`` (0 for the lowest
foot marker) gives

    H_i = median over frames of (z_i - z_floor) / (f_i - f_0)

and the height is the mean of the landmarks' ``H_i``.  A drafted marker set
without head markers uses the acromia and the hip centres (placed from the
ASIS by the pelvis's own regression) over its lowest foot marker.  On the
sample static (1.75 m) without its head markers: acromia 1.84 m, hips
1.73 m, mean 1.784 m (+1.9 %); on the shared static (1.775 m from its head
marker): 1.85 m, 1.78 m, mean 1.815 m (+2.3 %).  The ankles are not used as a
landmark: at 0.039 H, a millimetre of marker placement is 2.5 cm of height;
the foot markers are the floor.
"""

from __future__ import annotations

import numpy as np

from ..signal.nan import nanmedian

__all__ = ["FRACTIONS", "combine", "describe"]

#: Height of each landmark above the floor as a fraction of the standing height (Drillis and Contini 1966).
FRACTIONS = {"acromion": 0.818, "hip": 0.530, "ankle": 0.039}


def combine(levels: dict[str, tuple[np.ndarray, float]], floor: np.ndarray,
            floor_fraction: float = 0.0) -> tuple[float | None, list[tuple[str, float, float]]]:
    """The height (m) from landmark heights, and each landmark's own estimate.

    Parameters
    ----------
    levels : dict
        Landmark name -> (vertical position per frame (m), fraction of the
        height at which the landmark stands).
    floor : ndarray (frames,)
        Vertical position of the floor reference per frame (m).
    floor_fraction : float
        The floor reference's own fraction of the height (0: on the floor).

    Returns
    -------
    height : float or None
        Mean of the landmarks' estimates; None when no landmark gives one.
    estimates : list of (name, fraction, height)
        Each landmark's name, its fraction of the height, and the height it gives (m).
    """
    out = []
    for name, (z, fraction) in levels.items():
        h = float(nanmedian(np.asarray(z, dtype=float) - floor)) / (float(fraction) - floor_fraction)
        if np.isfinite(h) and h > 0:
            out.append((name, float(fraction), h))
    return (float(np.mean([h for *_, h in out])) if out else None), out


def describe(estimates: list[tuple[str, float, float]], floor_fraction: float = 0.0) -> str:
    """``no head markers: mean of mid_acromion at 0.818 (1.76 m), mid_hip at 0.53 (1.73 m) of the height, ...``.

    Parameters
    ----------
    estimates : list of (str, float, float)
        Per landmark: its name, its fraction of the height and the height it gives (m).
    floor_fraction : float
        Fraction of the height the floor points stand above the floor (0: the floor itself).

    Returns
    -------
    str
        The line.
    """
    each = ", ".join(f"{name} at {fraction:g} ({h:.2f} m)" for name, fraction, h in estimates)
    floor = f"a floor reference at {floor_fraction:g}" if floor_fraction else "the lowest foot marker"
    return (f"no head markers: {'mean of ' if len(estimates) > 1 else ''}{each} of the height above {floor}; "
            "Drillis and Contini's proportions")

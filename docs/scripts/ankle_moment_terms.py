"""Table of docs/kinetics.md "The ankle moment's size": what each term adds to the ankle moment in stance.

Analyses the shared gait2392 walk (``../shared/data/gait2392_walk`` beside the
repository) with its force plates, ``--mass 72.6 --height 1.8``, splits each
ankle's net moment into its terms (:func:`humanbody.mechanics.kinetics.moment_contributions`)
and prints, over the frames where that foot carries more than 50 N: the RMS
size of the net moment, of the free moment and of the foot's weight, inertia
force and inertia torque (N·m/kg), how much the net moment's size changes
without the foot's weight and inertia or without the free moment, and what
10 mm of centre of pressure along the foot (vertical force x 10 mm) and
10 mm of plate height (horizontal force x 10 mm) change it by.
Run: ``.venv/bin/python docs/scripts/ankle_moment_terms.py``.
"""

import numpy as np
from _shared_walk import on_foot, walk_with_plates

from humanbody.mechanics.kinetics import moment_contributions


def main() -> None:
    a, force, body = walk_with_plates()
    res, loads, m = a.results, a.loads, a.model.total_mass
    print("| term (stance, RMS, N·m/kg) | right | left |")
    print("|---|---|---|")
    rows: dict = {}
    for side in ("right", "left"):
        k = a.model.names.index(f"{side}_foot")
        terms = moment_contributions(a.model, res, loads, f"{side}_foot")
        total = sum(terms.values())
        f = on_foot(force, body, k)
        fz, fh = f[:, 2], np.hypot(f[:, 0], f[:, 1])
        stance = fz > 50.0

        def rms(v, stance=stance):
            return float(np.sqrt(np.nanmean(np.asarray(v)[stance] ** 2))) / m

        size = np.linalg.norm(total, axis=1)
        foot = sum(v for name, v in terms.items() if name.startswith(f"{side}_foot "))
        free = terms["loads: free moment"]
        vals = {
            "net moment": rms(size),
            "free moment": rms(np.linalg.norm(free, axis=1)),
            "foot weight + inertia force + inertia torque": rms(np.linalg.norm(foot, axis=1)),
            "change of the net size without the foot's weight and inertia":
                rms(size - np.linalg.norm(total - foot, axis=1)),
            "change of the net size without the free moment": rms(size - np.linalg.norm(total - free, axis=1)),
            "10 mm of centre of pressure along the foot (vertical force x 10 mm)": 0.01 * rms(fz),
            "10 mm of plate height (horizontal force x 10 mm)": 0.01 * rms(fh),
        }
        for name, v in vals.items():
            rows.setdefault(name, []).append(v)
    for name, (r, l) in rows.items():
        print(f"| {name} | {r:.3f} | {l:.3f} |")


if __name__ == "__main__":
    main()

"""The shared gait2392 walk with its force plates, as the ankle-moment tables of docs/kinetics.md analyse it.

``../shared/data/gait2392_walk`` beside the repository, ``--mass 72.6 --height 1.8``; a foot's stance is
the frames where the loads given to it carry more than 50 N upwards.
"""

import sys
from pathlib import Path

import numpy as np

import humanbody as hb

DATA = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "gait2392_walk"


def walk_with_plates():
    """``(analysis, force, body)``: the analysed walk and its loads' per-frame force (F, L, 3; N, ground axes)
    and the segment each load acts on (F, L)."""
    if not DATA.is_dir():
        sys.exit(f"the shared walk is not at {DATA}")
    a = hb.analyze_trial(DATA / "subject01_walk1.trc", static=DATA / "subject01_static.trc", mass=72.6,
                         height=1.8, forces=DATA / "subject01_walk1_grf.mot")
    force, _, body = a.loads.kernel_arrays(0, a.results.joint.shape[0])
    return a, force, body


def on_foot(force, body, k: int) -> np.ndarray:
    """The summed force (F, 3; N) of the loads given to segment ``k``."""
    return np.where((body == k)[..., None], force, 0.0).sum(axis=1)


def stance(force, body, k: int) -> np.ndarray:
    """The frames (F,) where segment ``k``'s loads carry more than 50 N upwards."""
    return on_foot(force, body, k)[:, 2] > 50.0

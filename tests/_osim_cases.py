"""The OpenSim models and coordinate tables the osim tests check against OpenSim (tests/_osim_reference.py).

- ``gait2392_walk``: gait2392 scaled to the shared walk's subject, over OpenSim's own
  inverse kinematics of the walk (``gait2392_walk/reference/opensim_ik.mot``);
- ``rajagopal_poses``: Rajagopal 2016 at 30 poses drawn in its coordinates' ranges;
- ``gait2392_generic_poses``: the generic gait2392 at 20 drawn poses.

:func:`synthetic_against_opensim` compares the small wrap-surface models of tests/osim/_synthetic.py
with OpenSim over the same poses in every wrap test.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from _osim_reference import random_poses, reference
from _shared import require_shared

from humanbody.io.opensim import read_opensim
from humanbody.muscles import MuscleGeometry
from humanbody.muscles.crossing import crossed_coordinates
from humanbody.osim import OsimModel, read_osim


def crossing_mask(model: OsimModel) -> np.ndarray:
    """(muscles x coordinates) True where the muscle crosses the coordinate."""
    cc = crossed_coordinates(model)
    idx = {n: i for i, n in enumerate(model.coordinate_names)}
    mask = np.zeros((len(model.muscles), len(model.coordinates)), bool)
    for m, name in enumerate(model.muscle_names):
        mask[m, [idx[c] for c in cc[name]]] = True
    return mask


def ik_coordinates(model: OsimModel, path: Path) -> np.ndarray:
    """The model's coordinates (rad, m) from an OpenSim .mot, in model order (absent: default)."""
    table = read_opensim(path)
    q = np.zeros((len(table), len(model.coordinates)))
    for i, c in enumerate(model.coordinates):
        q[:, i] = table[c.name].to_numpy() if c.name in table else c.default
    return q


@dataclass(frozen=True)
class Case:
    name: str
    model_file: str
    poses: str

    @cached_property
    def path(self) -> Path:
        return require_shared() / "opensim_models" / self.model_file

    @cached_property
    def model(self) -> OsimModel:
        return read_osim(self.path)

    @cached_property
    def q(self) -> np.ndarray:
        if self.poses == "walk":
            return ik_coordinates(self.model, require_shared() / "gait2392_walk" / "reference" / "opensim_ik.mot")
        n, seed = (30, 1) if "rajagopal" in self.name else (20, 2)
        return random_poses(self.model, n, seed)

    def reference(self) -> dict:
        return reference(self.path, self.q, crossing_mask(self.model))


CASES = {
    "gait2392_walk": Case("gait2392_walk", "gait2392/subject01_simbody.osim", "walk"),
    "rajagopal_poses": Case("rajagopal_poses", "rajagopal2016/Rajagopal2016.osim", "random"),
    "gait2392_generic_poses": Case("gait2392_generic_poses", "gait2392/gait2392_thelen2003muscle.osim", "random"),
}


def all_cases() -> list[Case]:
    return list(CASES.values())


@dataclass(frozen=True)
class Synthetic:
    """A synthetic wrap model beside OpenSim's numbers for it (:func:`synthetic_against_opensim`)."""

    model: OsimModel
    geometry: MuscleGeometry
    reference: dict       # OpenSim's (tests/_osim_reference.py): q, lengths, moment_arms, ...
    paths: object         # ours at reference["q"]: lengths (F, M), moment_arms (F, M, 6)
    mask: np.ndarray      # (M, 6) the moment arms compared


def synthetic_against_opensim(path: Path, length_tol: float, arm_tol: float) -> Synthetic:
    """The model at ``path`` (tests/osim/_synthetic.py: one FreeJoint) against OpenSim live: lengths within
    ``length_tol`` m and moment arms within ``arm_tol`` m over the zero pose and 15 drawn poses.

    The moment arms compared are those about the FreeJoint's first rotation and its translations: OpenSim's
    about its other rotations are taken about the angular velocity, not the angles.
    """
    model = read_osim(path)
    q = np.vstack([np.zeros((1, 6)), random_poses(model, 15, 5) * [0.05, 0.05, 0.05, 1, 1, 1]])
    mask = np.zeros((len(model.muscles), 6), bool)
    mask[:, [0, 3, 4, 5]] = True
    ref = reference(path, q, mask)
    geometry = MuscleGeometry.of(model)
    paths = geometry.compute(ref["q"])
    assert np.abs(paths.lengths - ref["lengths"]).max() < length_tol
    assert np.nanmax(np.abs(np.where(mask, paths.moment_arms, np.nan) - ref["moment_arms"])) < arm_tol
    return Synthetic(model, geometry, ref, paths, mask)

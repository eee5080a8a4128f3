"""Test helpers: random trees and analytic motions with exact rates."""

from __future__ import annotations

import numpy as np
import pandas as pd

from humanbody import BodyModel
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.model.segments import PARENTS, SEGMENT_NAMES


def random_inertia(rng) -> np.ndarray:
    """A random physical inertia dyadic (SPD, triangle inequality) in random axes."""
    d = rng.uniform(0.02, 0.2, 3)
    d[2] = rng.uniform(abs(d[0] - d[1]) + 1e-3, d[0] + d[1])  # principal moments obey the triangle rule
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    return q @ np.diag(d) @ q.T


def random_model(rng, parents=PARENTS, names=None) -> BodyModel:
    n = len(parents)
    names = names or (SEGMENT_NAMES if n == 17 else [f"b{k}" for k in range(1, n + 1)])
    return BodyModel(
        names=names,
        parents=parents,
        joint_offset=rng.normal(0, 0.2, (n, 3)),
        com_offset=rng.normal(0, 0.1, (n, 3)),
        mass=rng.uniform(1, 10, n),
        inertia=np.array([random_inertia(rng) for _ in range(n)]),
        name="random",
    )


def random_tree(rng, n: int) -> list[int]:
    """A random parent array with parent[k] < k (body 1 on ground)."""
    return [0] + [int(rng.integers(1, k + 1)) for k in range(1, n)]


def sinusoid_motion(model, t, rng, amplitude=1.0, rates=True) -> pd.DataFrame:
    """Coordinates q = c + A sin(w t + phi) with exact first and second derivatives."""
    cols = coordinate_columns(model)
    m = len(cols)
    A = amplitude * rng.uniform(0.2, 1.0, m)
    w = rng.uniform(1.0, 4.0, m)
    ph = rng.uniform(0, 2 * np.pi, m)
    c = rng.uniform(-0.5, 0.5, m)
    arg = np.outer(t, w) + ph
    data = {"time": t}
    q = c + A * np.sin(arg)
    for j, name in enumerate(cols):
        data[name] = q[:, j]
    if rates:
        qd = A * w * np.cos(arg)
        qdd = -A * w * w * np.sin(arg)
        for j, name in enumerate(cols):
            data[name + "_dot"] = qd[:, j]
        for j, name in enumerate(cols):
            data[name + "_ddot"] = qdd[:, j]
    return pd.DataFrame(data)


def split_coords(model, df):
    """(root, root_vel, root_acc, angles, rates, accels) arrays from a coordinates frame with rates."""
    cols = coordinate_columns(model)
    F, n = len(df), model.n_bodies
    q = df[cols].to_numpy()
    qd = df[[c + "_dot" for c in cols]].to_numpy()
    qdd = df[[c + "_ddot" for c in cols]].to_numpy()
    return (q[:, :3], qd[:, :3], qdd[:, :3],
            q[:, 3:].reshape(F, n, 3), qd[:, 3:].reshape(F, n, 3), qdd[:, 3:].reshape(F, n, 3))


def central_diff(x, h):
    """Second-order central difference along axis 0 (interior points only valid)."""
    return np.gradient(x, h, axis=0)

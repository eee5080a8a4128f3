#!/usr/bin/env python3
"""Speed of the joint-space mass matrix: the composite rigid body algorithm against n inverse-dynamics passes.

    .venv/bin/python benchmarks/bench_mass_matrix.py [--frames 1 100 1000] [--repeat 5]

For the 17-segment body (54 coordinates), at each number of configurations F:

- ``crba``: :func:`humanbody.mass_matrix` (the tree kinematics at rest, then the composite rigid body
  algorithm on the core, :func:`humanbody._kernels.joint_tree.composite_mass_matrix`);
- ``inverse-dynamics``: column i as the generalized forces of the unit acceleration e_i at rest without
  gravity, every column of every configuration in one vectorised pass of the kinematics and joint-load
  kernels (F n frames; Walker and Orin's first method, what the mass matrix was before).

Prints one JSON line per F: best wall time of each (s), their ratio, the largest difference relative to
the matrix's largest entry, and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import humanbody as hb
from humanbody.mechanics.dynamics import inverse_dynamics, mass_matrix


def by_inverse_dynamics(model, q):
    """(F, n, n): column i = tau(q, 0, e_i) without gravity."""
    F, n = q.shape
    still = model.replace(gravity=[0.0, 0.0, 0.0])
    qq = np.repeat(q, n, axis=0)
    cols = inverse_dynamics(still, qq, np.zeros_like(qq), np.tile(np.eye(n), (F, 1))).reshape(F, n, n)
    M = np.swapaxes(cols, 1, 2)
    return 0.5 * (M + np.swapaxes(M, 1, 2))


def best(fn, repeat):
    t = np.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        t = min(t, time.perf_counter() - t0)
    return t, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--frames", type=int, nargs="+", default=[1, 100, 1000])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args(argv)
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    rng = np.random.default_rng(0)
    mass_matrix(model, np.zeros(54))  # compile / load the kernels
    by_inverse_dynamics(model, np.zeros((1, 54)))
    for F in args.frames:
        q = rng.uniform(-1.5, 1.5, (F, 54))
        t_crba, M = best(lambda q=q: mass_matrix(model, q), args.repeat)
        t_id, M_id = best(lambda q=q: by_inverse_dynamics(model, q), args.repeat)
        print(json.dumps({"frames": F, "crba_s": round(t_crba, 6), "inverse_dynamics_s": round(t_id, 6),
                          "ratio": round(t_id / t_crba, 1),
                          "max_rel_diff": float(np.abs(M - M_id).max() / np.abs(M_id).max()),
                          "load": os.getloadavg()[0]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

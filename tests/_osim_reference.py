"""OpenSim's own numbers for a model over a table of coordinates: the reference the osim tests compare with.

``reference(model_path, q, mask)`` runs the ``opensim`` package (4.6, a test-only
dependency) on every frame of ``q`` (frames x coordinates, the model's coordinate order,
rad and m): it assembles the pose (couplers), then records every body's transform in
ground, every muscle's length, and the moment arm of muscle m about coordinate c where
``mask[m, c]`` is set (OpenSim's MomentArmSolver, couplers included).  The results are
cached under the temporary folder, keyed by the model file's and the inputs' hashes, so
only the first run pays OpenSim's cost; the seconds it took per frame are kept with them
(``seconds_lengths_moment_arms``), which the speed benchmark quotes.

Run as a script to fill the cache for the shared models::

    python tests/_osim_reference.py
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import time
from pathlib import Path

import numpy as np

CACHE = Path(tempfile.gettempdir()) / "humanbody_osim_reference"
VERSION = "1"


def _key(model_path, *arrays) -> str:
    h = hashlib.sha1(VERSION.encode())
    h.update(Path(model_path).read_bytes())
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
        h.update(str(a.shape).encode())
    return h.hexdigest()[:20]


def _transform(frame, state) -> tuple[np.ndarray, np.ndarray]:
    x = frame.getTransformInGround(state)
    rot = np.array([[x.R().get(r, c) for c in range(3)] for r in range(3)])
    return rot, np.array([x.p().get(k) for k in range(3)])


def _compute(model_path, q, mask, names, bodies, muscles) -> dict:
    import opensim as osim  # lazy: test-only reference

    model = osim.Model(str(model_path))
    state = model.initSystem()
    coords = [model.getCoordinateSet().get(n) for n in names]
    frames = [model.getGround() if b == "ground" else model.getBodySet().get(b) for b in bodies]
    mus = [model.getMuscles().get(m) for m in muscles]
    F = len(q)
    out = {"q": np.zeros_like(q), "R": np.zeros((F, len(bodies), 3, 3)), "p": np.zeros((F, len(bodies), 3)),
           "lengths": np.zeros((F, len(muscles))), "moment_arms": np.full((F, len(muscles), len(names)), np.nan)}
    seconds = 0.0
    for f in range(F):
        for c, v in zip(coords, q[f], strict=True):
            c.setValue(state, float(v), False)
        model.assemble(state)
        model.realizePosition(state)
        out["q"][f] = [c.getValue(state) for c in coords]
        for b, fr in enumerate(frames):
            out["R"][f, b], out["p"][f, b] = _transform(fr, state)
        t0 = time.perf_counter()
        for m, mu in enumerate(mus):
            out["lengths"][f, m] = mu.getLength(state)
            for c in np.flatnonzero(mask[m]):
                out["moment_arms"][f, m, c] = mu.computeMomentArm(state, coords[c])
        seconds += time.perf_counter() - t0
    out["seconds_lengths_moment_arms"] = np.array(seconds / max(F, 1))
    return out


def reference(model_path, q: np.ndarray, mask: np.ndarray) -> dict:
    """OpenSim's poses, lengths and moment arms for ``q`` (cached; see the module notes).

    Returns a dict of arrays: ``q`` (the assembled coordinates), ``R`` (F x B x 3 x 3, body →
    ground, bodies in the model's order, ground first), ``p`` (F x B x 3, m), ``lengths`` (F x M, m),
    ``moment_arms`` (F x M x nq, m; NaN where ``mask`` is off), ``seconds_lengths_moment_arms``
    (OpenSim's seconds per frame for the lengths and the masked moment arms)."""
    from humanbody.osim import read_osim  # lazy: keeps this helper importable without the package path set

    model = read_osim(model_path)
    q = np.asarray(q, float)
    mask = np.asarray(mask, bool)
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"{Path(model_path).stem}_{_key(model_path, q, mask)}.npz"
    if path.exists():
        with np.load(path) as data:
            return {k: data[k] for k in data.files}
    out = _compute(model_path, q, mask, model.coordinate_names, model.body_names, model.muscle_names)
    tmp = path.with_suffix(f".{os.getpid()}.npz")
    np.savez(tmp, **out)
    os.replace(tmp, path)
    return out


def random_poses(model, n: int, seed: int = 0) -> np.ndarray:
    """``n`` poses drawn uniformly in every coordinate's range (other than translations within ±1.5; locked
    coordinates at their defaults); dependent coordinates are set by OpenSim's assembly."""
    rng = np.random.default_rng(seed)
    q = np.zeros((n, len(model.coordinates)))
    for i, c in enumerate(model.coordinates):
        lo, hi = c.range
        if c.motion_type != "translational":
            lo, hi = max(lo, -1.5), min(hi, 1.5)
        q[:, i] = c.default if c.locked else rng.uniform(lo, hi, n)
    return q


if __name__ == "__main__":
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from _osim_cases import all_cases

    for case in all_cases():
        t0 = time.perf_counter()
        ref = case.reference()
        print(f"{case.name}: {len(ref['q'])} frames, {time.perf_counter() - t0:.1f} s, "
              f"OpenSim {ref['seconds_lengths_moment_arms']:.3f} s/frame")

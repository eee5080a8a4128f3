"""Frames per second of ``humanbody.compute`` against a plain NumPy implementation
of the same equations and against Pinocchio driven frame by frame from Python.

Run through ``benchmarks/run.py`` (it starts one process per measurement so each
peak memory figure is that measurement's own).  Can be run alone:

    python benchmarks/bench_compute.py humanbody 100000        # fresh result arrays (force, torque included)
    python benchmarks/bench_compute.py humanbody-reuse 100000  # compute(..., out=previous)
    python benchmarks/bench_compute.py humanbody-all 100000    # fresh, then inertia (R I R^T) read too
    python benchmarks/bench_compute.py humanbody-kernel 100000  # the tree kernel alone, arrays prepared
    python benchmarks/bench_compute.py store-floor 100000       # only the kernel's output stores
    python benchmarks/bench_compute.py numpy 100000
    python benchmarks/bench_compute.py pinocchio 20000

prints one JSON line: {"impl", "frames", "seconds", "frames_per_s", "peak_rss_mb",
"cpu_seconds", "output_bytes_per_frame", "first_call_frames_per_s", ...}.
``seconds`` is the best wall-clock time of a few repetitions (two at 10^6
frames); the first repetition, reported apart, also pays for memory the
process never had before.  The input DataFrame is built before timing and
is not counted.
"""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

import humanbody as hb
from humanbody.mechanics.kinematics import coordinate_columns
from humanbody.model.segments import PARENTS, SEGMENT_NAMES


def bench_model() -> hb.BodyModel:
    """A 17-segment model with generic (non-principal) inertias and offsets.

    Rotation sequences: Bryant "xyz" at every joint, or the default model's
    (``zxy`` root, flexion-first ``yxz`` elsewhere) when the environment sets
    ``HUMANBODY_BENCH_SEQUENCES=default``.
    """
    from humanbody.model.segments import DEFAULT_SEQUENCES

    seqs = DEFAULT_SEQUENCES if os.environ.get("HUMANBODY_BENCH_SEQUENCES") == "default" else ()
    rng = np.random.default_rng(7)
    inertia = []
    for _ in range(17):
        d = np.sort(rng.uniform(0.02, 0.2, 3))
        d[2] = min(d[2], d[0] + d[1] - 1e-3)
        q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
        inertia.append(q @ np.diag(d) @ q.T)
    return hb.BodyModel(names=SEGMENT_NAMES, parents=PARENTS, joint_offset=rng.normal(0, 0.2, (17, 3)),
                        com_offset=rng.normal(0, 0.1, (17, 3)), mass=rng.uniform(1, 10, 17),
                        inertia=np.array(inertia), name="bench", sequences=seqs)


def motion(model, frames: int, rates: bool = True):
    """Smooth motion with exact rates, as arrays (q, qd, qdd) of shape (frames, 3 + 3n)."""
    rng = np.random.default_rng(11)
    m = 3 + 3 * model.n_bodies
    t = np.linspace(0.0, frames / 100.0, frames)
    A, w, ph = rng.uniform(0.2, 1.0, m), rng.uniform(1, 4, m), rng.uniform(0, 6, m)
    arg = np.outer(t, w) + ph
    q = A * np.sin(arg)
    return t, q, A * w * np.cos(arg), -A * w * w * np.sin(arg)


def coords_frame(model, t, q, qd, qdd) -> pd.DataFrame:
    cols = coordinate_columns(model)
    data = {"time": t}
    for j, c in enumerate(cols):
        data[c] = q[:, j]
        data[c + "_dot"] = qd[:, j]
        data[c + "_ddot"] = qdd[:, j]
    return pd.DataFrame(data)


# bytes of the arrays compute() writes, per frame, for the 17-segment model
KINEMATIC_BYTES = 17 * (9 + 9 * 3) * 8 + 9 * 8   # R, omega_rel ... com_acc, force, torque, body_com/_vel/_acc
DERIVED_BYTES = 17 * 9 * 8                        # inertia (derived on first read)


def _timed(fn, reps: int):
    """Best wall-clock time of ``reps`` calls, and the CPU time of that call (all threads)."""
    best, cpu, first = np.inf, np.nan, None
    for _ in range(reps):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        t, c = time.perf_counter() - t0, time.process_time() - c0
        first = t if first is None else first
        if t < best:
            best, cpu = t, c
    _timed.first = first
    return best, cpu


def run_humanbody(frames: int, mode: str = "fresh") -> dict:
    """``compute`` on a DataFrame with exact rates.

    Every mode computes the inertia force and torque (the kernel writes them
    with the kinematics) and reads them, like Pinocchio's rnea.

    mode "fresh": new result arrays every call (first-touch page faults included);
    "reuse": ``compute(model, df, out=res)`` into the arrays of the previous call;
    "all": fresh, then ``inertia`` (R I R^T, derived on first read) is read too
    (everything a user can read is materialised).
    """
    import numba

    model = bench_model()
    t, q, qd, qdd = motion(model, frames)
    df = coords_frame(model, t, q, qd, qdd)
    del q, qd, qdd
    hb.compute(model, df.iloc[:16]).materialize()  # load the cached kernels
    reps = 5 if frames <= 100_000 else 2
    state = {}
    if mode == "reuse":
        state["res"] = hb.compute(model, df)

        def call():
            res = hb.compute(model, df, out=state["res"])
            _ = res.force, res.torque  # touch the lazily derived arrays
    else:
        def call():
            state.pop("res", None)  # free the previous result first
            res = hb.compute(model, df)
            _ = res.force, res.torque  # touch the lazily derived arrays
            if mode == "all":
                res.materialize()
            state["res"] = res
    seconds, cpu = _timed(call, reps)
    nbytes = KINEMATIC_BYTES + (DERIVED_BYTES if mode == "all" else 0)
    return {"seconds": seconds, "cpu_seconds": cpu, "output_bytes_per_frame": nbytes,
            "threads": numba.get_num_threads(), "mode": mode}


#: The arrays the tree kernel writes (a Results' attributes).
KERNEL_OUTPUTS = ("R", "omega_rel", "omega", "alpha", "joint", "com", "com_vel", "com_acc", "force", "torque",
                  "body_com", "body_com_vel", "body_com_acc")


def run_kernel(frames: int) -> dict:
    """The tree kernel alone (``run_tree``: ``tree_kinematics``), on arrays already prepared, into a workspace
    already mapped.

    What ``compute(model, df, out=res)`` costs without reading the DataFrame
    into the kernel's inputs: the per-frame work of the kinematics, inertia
    forces and torques and the whole-body mass centre, and the stores of its
    4,968 bytes per frame.
    """
    import numba

    from humanbody.mechanics.results import run_tree

    model = bench_model()
    t, q, qd, qdd = motion(model, frames)
    res = run_tree(model, t, q, qd, qdd, False, "given")  # loaded, and the outputs mapped
    seconds, cpu = _timed(lambda: run_tree(model, t, q, qd, qdd, False, "given", res), 5 if frames <= 100_000 else 2)
    return {"seconds": seconds, "cpu_seconds": cpu, "output_bytes_per_frame": KINEMATIC_BYTES,
            "threads": numba.get_num_threads(), "mode": "kernel"}


def run_store_floor(frames: int) -> dict:
    """Only the stores: the kernel's 4,968 output bytes per frame written (``ndarray.fill``) into the arrays
    of a workspace already mapped, those ``run_kernel`` writes.  The floor under any implementation that keeps
    every body's kinematics and inertia loads of every frame; Pinocchio keeps one frame (``Data``)."""
    from humanbody.mechanics.results import run_tree

    model = bench_model()
    t, q, qd, qdd = motion(model, frames)
    res = run_tree(model, t, q, qd, qdd, False, "given")
    arrays = [getattr(res, name) for name in KERNEL_OUTPUTS]

    def fill():
        for a in arrays:
            a.fill(1.0)

    fill()
    seconds, cpu = _timed(fill, 5 if frames <= 100_000 else 2)
    return {"seconds": seconds, "cpu_seconds": cpu, "output_bytes_per_frame": KINEMATIC_BYTES, "threads": 1,
            "mode": "stores only"}


def run_numpy(frames: int) -> dict:
    sys.path.append(str(Path(__file__).resolve().parents[1] / "tests"))  # the tests' NumPy reference
    from _huston_reference import reference_kinematics

    model = bench_model()
    t, q, qd, qdd = motion(model, frames)
    n = model.n_bodies
    args = (q[:, :3], qd[:, :3], qdd[:, :3], q[:, 3:].reshape(frames, n, 3),
            qd[:, 3:].reshape(frames, n, 3), qdd[:, 3:].reshape(frames, n, 3))
    seconds, cpu = _timed(lambda: reference_kinematics(model, *args), 1)
    return {"seconds": seconds, "cpu_seconds": cpu, "output_bytes_per_frame": KINEMATIC_BYTES + DERIVED_BYTES}


def run_pinocchio(frames: int) -> dict:
    """FK with velocities and accelerations, centre of mass and RNEA, one Python call chain per frame.

    Root: free-flyer joint; every other body: a spherical joint (Pinocchio's
    fastest 3-DOF rotation, quaternion configuration).  ``rnea`` runs the
    forward pass with v and a (FK with velocities and accelerations) and the
    backward pass; ``centerOfMass`` at acceleration level then reuses that
    forward pass.
    """
    import pinocchio as pin

    model = bench_model()
    pm = pin.Model()
    ids = [0]
    for k, p in enumerate(model.parents):
        jm = pin.JointModelFreeFlyer() if p == 0 else pin.JointModelSpherical()
        jid = pm.addJoint(ids[p], jm, pin.SE3(np.eye(3), model.joint_offset[k]), model.names[k])
        pm.appendBodyToJoint(jid, pin.Inertia(float(model.mass[k]), model.com_offset[k], model.inertia[k]), pin.SE3.Identity())
        ids.append(jid)
    data = pm.createData()
    rng = np.random.default_rng(3)
    pool = 256
    qs = [pin.randomConfiguration(pm, -np.ones(pm.nq), np.ones(pm.nq)) for _ in range(pool)]
    vs = rng.normal(size=(pool, pm.nv))
    as_ = rng.normal(size=(pool, pm.nv))
    level = pin.KinematicLevel.ACCELERATION

    def loop():
        for i in range(frames):
            j = i % pool
            pin.rnea(pm, data, qs[j], vs[j], as_[j])
            pin.centerOfMass(pm, data, level, False)

    loop() if frames <= 10_000 else None  # warm up
    seconds, cpu = _timed(loop, 3 if frames <= 100_000 else 1)
    return {"seconds": seconds, "cpu_seconds": cpu, "pinocchio": pin.__version__,
            "joints": "free-flyer + 16 spherical", "threads": 1}


def main(argv):
    impl, frames = argv[0], int(float(argv[1]))
    fn = {
        "humanbody": lambda f: run_humanbody(f, "fresh"),
        "humanbody-reuse": lambda f: run_humanbody(f, "reuse"),
        "humanbody-all": lambda f: run_humanbody(f, "all"),
        "humanbody-kernel": run_kernel,
        "store-floor": run_store_floor,
        "numpy": run_numpy,
        "pinocchio": run_pinocchio,
    }[impl]
    load = os.getloadavg()[0]
    rec = fn(frames)
    rec.update(impl=impl, frames=frames, frames_per_s=frames / rec["seconds"],
               first_call_frames_per_s=frames / _timed.first,
               peak_rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0,
               load_before=load)
    print(json.dumps(rec))


if __name__ == "__main__":
    main(sys.argv[1:])

#!/usr/bin/env python3
"""Speed of :func:`humanbody.simulate` on the 17-segment body: 2 s of simulated time.

    .venv/bin/python benchmarks/bench_simulate.py [--duration 2] [--repeat 3]

Cases (all 17 segments, 54 coordinates, Euler-parameter state of 125 values):

- ``free``: the body thrown with random joint speeds, joint springs (40 N m/rad) and dampers
  (1 N m s/rad) about a random posture, gravity, no contact;
- ``standing``: dropped 2 cm onto heel and toe contacts (8e4 N/m, 800 N s/m, static friction springs),
  joint springs 300 N m/rad and dampers 10 N m s/rad, a 1 Hz knee torque;
- ``seated-5Hz``: the seated vibration model of ``humanbody vibration`` (arms locked) on a seat and floor
  vibrating at 5 Hz, 0.2 mm, from its equilibrium, with LSODA (BDF needs hundreds of Jacobians here).

Each at the default method and tolerances (BDF, rtol 1e-8, atol 1e-9), output at 100 Hz; best of ``--repeat``.
Prints one JSON line per case: wall seconds, calls of the equations of motion, Jacobians (one vectorised call\nover every state each).
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np

import humanbody as hb
from humanbody.simulation.passive import Contacts, JointSprings


def _free(model, T):
    rng = np.random.default_rng(0)
    q0 = np.zeros(54)
    q0[2] = 1.0
    q0[6:] = rng.uniform(-0.3, 0.3, 48)
    springs = JointSprings(np.r_[[[0.0, 0, 0]], np.full((16, 3), 40.0)], np.r_[[[0.0, 0, 0]], np.full((16, 3), 1.0)],
                           np.tile([0, 0, 0, 1.0], (17, 1)))
    return lambda: hb.simulate(model, T, q0, rng.normal(0, 0.5, 54), springs=springs)


def _standing(model, T):
    q0 = np.zeros(54)
    q0[2] = 0.94 + 0.02
    springs = JointSprings(np.r_[[[0.0, 0, 0]], np.full((16, 3), 300.0)], np.r_[[[0.0, 0, 0]], np.full((16, 3), 10.0)],
                           np.tile([0, 0, 0, 1.0], (17, 1)))
    feet = [model.names.index("right_foot"), model.names.index("left_foot")]
    contacts = Contacts(body=[feet[0], feet[0], feet[1], feet[1]], point=[[-0.04, 0, -0.075], [0.16, 0, -0.075]] * 2,
                        height=0.0, stiffness=8e4, damping=800.0, tangential_stiffness=2e4, tangential_damping=400.0)
    knee = hb.coordinate_columns(model).index("right_lower_leg_alpha")

    def torques(t, q, qd):
        tau = np.zeros(54)
        tau[knee] = 10.0 * np.sin(2 * np.pi * t)
        return tau

    return lambda: hb.simulate(model, T, q0, springs=springs, contacts=contacts, torques=torques)


def _seated(model, T):
    from scipy.integrate import solve_ivp

    from humanbody.simulation.vibration import body_on_base, equilibrium

    system, y0, _ = body_on_base(model, "seated")
    y = equilibrium(system, y0)
    w = 2 * np.pi * 5.0
    system.base = lambda t: (2e-4 * np.sin(w * t), 2e-4 * w * np.cos(w * t))

    def run():
        sol = solve_ivp(system.rhs, (0, T), y, method="LSODA", rtol=1e-8, atol=1e-9, t_eval=np.arange(0, T, 0.01))
        return sol

    return run


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=2.0)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    model = hb.BodyModel.default(mass=75.0, height=1.75)
    hb.simulate(model, 0.01, np.r_[0, 0, 1.0, np.zeros(51)])  # compile / load the kernels
    for name, make in (("free", _free), ("standing", _standing), ("seated-5Hz", _seated)):
        run = make(model, args.duration)
        best, nfev, njev = np.inf, 0, 0
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            out = run()
            best = min(best, time.perf_counter() - t0)
            if hasattr(out, "nfev"):
                nfev, njev = int(out.nfev), int(out.njev)
            else:
                words = out.messages[0].split(": ")[1].split()
                nfev, njev = int(words[0]), int(words[7].strip("(")) if "Jacobians" in out.messages[0] else 0
        print(json.dumps({"case": name, "simulated_s": args.duration, "wall_s": round(best, 3), "evaluations": nfev,
                          "jacobians": njev, "load": os.getloadavg()[0]}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

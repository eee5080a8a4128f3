"""``humanbody muscles COORDINATES --model MODEL.osim [--forces LOADS] --out DIR``: muscle forces of one trial.

Writes ``<trial>_muscle_lengths.csv`` and ``<trial>_moment_arms.csv``; with
``--forces`` also ``<trial>_activations.csv``, ``<trial>_muscle_forces.csv``
(muscles, then reserves) and ``<trial>_joint_reactions.csv``, and says in one
line each where the optimum hit a bound or leaned on a reserve.
"""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "muscle lengths, moment arms, and with --forces static optimization and joint reactions (OpenSim model)"


def register(sub) -> None:
    p = sub.add_parser("muscles", help=HELP, description=HELP + " (docs/muscles.md).")
    p.add_argument("coordinates", metavar="COORDINATES", help="the trial's coordinates (OpenSim IK .mot/.sto)")
    p.add_argument("--model", required=True, metavar="MODEL.osim", help="the OpenSim model")
    p.add_argument("--forces", metavar="LOADS", help="external loads: OpenSim ExternalLoads .xml or GRF .mot")
    p.add_argument("--reserves", metavar="ACTUATORS.xml", help="reserve actuators (CoordinateActuators)")
    p.add_argument("--activation-exponent", type=float, default=2.0, metavar="P",
                   help="the cost's exponent: minimise the sum of activations^P (default 2)")
    p.add_argument("--step", type=int, default=1, metavar="N", help="every Nth frame (default 1)")
    p.add_argument("--cutoff", type=float, default=None, metavar="HZ",
                   help="low-pass the coordinates first, as OpenSim's lowpass_cutoff_frequency_for_coordinates")
    p.add_argument("--start", type=float, default=None, metavar="S", help="first time to analyse (s)")
    p.add_argument("--end", type=float, default=None, metavar="S", help="last time to analyse (s)")
    p.add_argument("--joint-reactions", default=None, metavar="J1,J2",
                   help="joints whose reactions to write (default: every joint; 'none' for none)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import InputError  # lazy: keeps `humanbody --help` quick
    from ..muscles.output import write_results  # lazy: keeps `humanbody --help` quick (numba kernels)
    from ..muscles.trial import Setup  # lazy: keeps `humanbody --help` quick (numba kernels)
    from ..muscles.trial import run as run_trial  # lazy: keeps `humanbody --help` quick (numba kernels)

    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    if args.step < 1:
        raise InputError("step must be a whole number of frames, 1 or more", option="step")
    if not args.activation_exponent > 1.0:
        raise InputError("activation_exponent must be greater than 1", option="activation_exponent")
    if args.reserves and not args.forces:
        raise InputError("reserves need `forces`: give the trial's external loads", option="reserves")
    joints: tuple[str, ...] | None = None
    if args.joint_reactions:
        joints = () if args.joint_reactions == "none" else tuple(j.strip() for j in args.joint_reactions.split(","))
    setup = Setup.load(args.model)
    result = run_trial(setup, args.coordinates, args.forces, args.reserves, args.activation_exponent, args.step,
                       args.cutoff, joints if args.forces else (),
                       (-float("inf") if args.start is None else args.start,
                        float("inf") if args.end is None else args.end))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for line in [f"model: {note}" for note in setup.geometry.notes] + write_results(
            result, setup, out, Path(args.coordinates).stem, with_forces=bool(args.forces)):
        say(line)
    return 0

"""``humanbody muscles COORDINATES --model MODEL.osim --out DIR [--forces LOADS ...]``: muscles of one trial.

Always ``<trial>_muscle_lengths.csv`` and ``<trial>_moment_arms.csv``; with
``--forces`` also static optimization and joint reactions:
``<trial>_activations.csv``, ``<trial>_muscle_forces.csv`` (muscles, then
reserves) and ``<trial>_joint_reactions.csv``, and one line each where the
optimum hit a bound or leaned on a reserve (docs/muscles.md).
"""

from __future__ import annotations

import sys
from pathlib import Path

HELP = ("muscle-tendon lengths and moment arms of an OpenSim model over a coordinates file (.mot/.sto); "
        "with --forces, static optimization and joint reactions")


def register(sub) -> None:
    """Add the ``humanbody muscles`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("muscles", help=HELP, description=HELP + " (docs/muscles.md).")
    p.add_argument("coordinates", metavar="COORDINATES", help="OpenSim coordinates file (.mot or .sto), e.g. "
                   "OpenSim's inverse kinematics or humanbody analyze --model MODEL.osim's <trial>_ik.mot")
    p.add_argument("--model", required=True, metavar="MODEL.osim", help="the OpenSim model (.osim)")
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


def _check(args) -> tuple[str, ...] | None:
    """The joints asked for (None: every joint); refuses bad option values in one line."""
    from ..errors import InputError  # lazy: keeps `humanbody --help` quick

    if args.step < 1:
        raise InputError("step must be a whole number of frames, 1 or more", option="step")
    if not args.activation_exponent > 1.0:
        raise InputError("activation_exponent must be greater than 1", option="activation_exponent")
    if args.reserves and not args.forces:
        raise InputError("reserves need `forces`: give the trial's external loads", option="reserves")
    if not args.joint_reactions:
        return None
    return () if args.joint_reactions == "none" else tuple(j.strip() for j in args.joint_reactions.split(","))


def run(args) -> int:
    """Run ``humanbody muscles`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    from .._gc import gc_paused  # lazy: keeps `humanbody --help` quick

    with gc_paused():  # its imports, the model's XML and the arrays of one trial leave no cycles to collect
        return _run(args)


def _run(args) -> int:
    """:func:`run`'s body (the collector paused around it)."""
    from ..muscles.geometry import read_model_coordinates  # lazy: keeps `humanbody --help` quick (numba kernels)
    from ..muscles.output import write_muscle_results  # lazy: keeps `humanbody --help` quick (numba kernels)
    from ..muscles.tables import muscle_tables, trial_name  # lazy: numba kernels load when the command runs
    from ..muscles.trial import Setup, run_coordinates  # lazy: keeps `humanbody --help` quick (numba kernels)

    joints = _check(args)
    lines: list[str] = []
    geometry = frames = None
    if args.forces:  # the whole chain first: bad loads or reserves are refused before anything is written
        setup = Setup.load(args.model)
        span = (-float("inf") if args.start is None else args.start, float("inf") if args.end is None else args.end)
        frames = read_model_coordinates(args.coordinates, setup.geometry.model)  # read once: the tables use it too
        result = run_coordinates(setup, *frames, args.forces, args.reserves, args.activation_exponent,
                                 args.step, args.cutoff, joints, span, where=args.coordinates)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        lines = write_muscle_results(result, setup, Path(args.out), trial_name(args.coordinates))
        geometry = setup.geometry
    tables = muscle_tables(args.coordinates, args.model, args.out, geometry=geometry, frames=frames)
    if not args.quiet:
        for note in tables.notes:
            print(note, file=sys.stderr)
        print(f"{tables.frames} frames, {tables.muscles} muscles, {tables.moment_arm_columns} moment arms")
        print(f"wrote {tables.lengths}")
        print(f"wrote {tables.moment_arms}")
        for line in lines:
            print(line, file=sys.stderr)
    return 0

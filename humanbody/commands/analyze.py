"""``humanbody analyze TRIAL --out DIR``: one trial -> results table."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import METHOD, NOTE, InputError, Note, priority_of
from ._options import (  # noqa: F401  (the builders' former home: analysis_options, cutoff_value, ...)
    add_export_options,
    add_load_options,
    add_marker_options,
    add_muscle_options,
    add_rate_options,
    add_subject_options,
    analysis_options,
    cutoff_value,
    differentiation_from,
    loads_from,
    report_options,
)

if TYPE_CHECKING:
    from ..pipeline import Record

HELP = "analyse one trial: joint angles and the mechanics of every segment -> results CSV"


#: Notes said once per joint or segment, summarised on the screen into one line each (all in <trial>_log.txt).
_JUMP = re.compile(r"^check outputs: (\S+) jumps ([0-9.]+) deg between ([0-9.]+) and ")
_CARRIED = re.compile(r"^check outputs: (\S+) carried from its parent for \d+ frames \(([0-9.]+) s ")
_REACHES = re.compile(r"^check outputs: (\S+) reaches (-?[0-9.]+ \S+) at ([0-9.]+) s")


#: Lines of notes on the first screen before the results are written, and of the output checks' notes after:
#: with the files written (4) and the compile note, 25 at most.
SCREEN_NOTES = 17
CHECK_NOTES = 3


def screen_lines(messages: Sequence[Record | str], budget: int = SCREEN_NOTES) -> list[str]:
    """The messages for the screen: the output checks' repeated notes (angles that jump, segments carried from
    their parent) summarised into one line each, where the first of them stood; when more than ``budget`` lines
    remain, the lowest priorities are left to the log file first (in order within one priority; a record's
    ``priority``, :class:`humanbody.errors.Note`; ``NOTE`` never), as many as needed, and one last line says how
    many.

    Parameters
    ----------
    messages : sequence of Record or str
        The records at level ``message`` (``analysis.log.at("message")``; the log file keeps them all, one per
        line); a line is a NOTE unless it is a :class:`~humanbody.errors.Note` of another priority.
    budget : int
        Most lines to print.

    Returns
    -------
    list of str
    """
    out = _summarised([(str(m), priority_of(m)) if isinstance(m, str) else (m.message, m.priority) for m in messages])
    if len(out) <= budget:
        return [line for line, _ in out]
    quiet = sorted((p, i) for i, (_, p) in enumerate(out) if p < NOTE)
    left = {i for _, i in quiet[:max(0, len(out) - (budget - 1))]}
    lines = [line for i, (line, _) in enumerate(out) if i not in left]
    return lines + [f"({len(left)} more notes in the log file; --verbose prints them)"] if left else lines


def _summarised(messages: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """:func:`screen_lines`'s first step on (line, priority) pairs: the repeated output-check notes in one line
    each (angles that jump, segments carried from their parent, values outside a body's range), where the first
    of them stood, at the priority of the first."""
    patterns = {"jump": _JUMP, "carried": _CARRIED, "reaches": _REACHES}
    groups: dict[str, list] = {k: [] for k in patterns}
    out: list = []
    for line, priority in messages:
        for key, pattern in patterns.items():
            m = pattern.match(line)
            if m:
                if not groups[key]:
                    out.append((key, priority))  # the summary's place
                groups[key].append((line, m.groups()))
                break
        else:
            out.append((line, priority))
    for key, hits in groups.items():
        if not hits:
            continue
        at = next(i for i, (line, _) in enumerate(out) if line == key)
        out[at] = (hits[0][0] if len(hits) == 1 else _summary(key, [g for _, g in hits]), out[at][1])
    return out


def _summary(key: str, hits: list) -> str:
    """One line for several output-check notes of one kind (``hits``: their regular-expression groups)."""
    if key == "jump":
        worst = sorted(hits, key=lambda g: -float(g[1]))
        names = ", ".join(f"{n} {float(d):.0f} deg at {float(t):.3g} s" for n, d, t in worst[:3])
        return (f"check outputs: {len(hits)} angles jump faster than a joint turns (at most 1500 deg/s between two "
                f"frames): {names}" + (f" and {len(hits) - 3} more" if len(hits) > 3 else "") + " (each in the log)")
    if key == "carried":
        names = ", ".join(f"{n} {float(d):.2g} s" for n, d in hits)
        return ("check outputs: segments carried from their parent for more than 0.1 s (their motion there is the "
                f"parent's): {names}")
    names = ", ".join(f"{n} {v} at {float(t):.3g} s" for n, v, t in hits[:4])
    return (f"check outputs: {len(hits)} values outside a body's range: {names}"
            + (f" and {len(hits) - 4} more" if len(hits) > 4 else "") + " (each in the log)")


def _digits(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 15:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 15, not {text!r}")
    return value


def register(sub) -> None:
    """Add the ``humanbody analyze`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("analyze", help=HELP, description=HELP + ".")
    p.add_argument("trial", metavar="TRIAL", help="marker file (TRC, C3D, CSV, TSV), generalized-coordinates CSV or orientation trial (OpenSense .sto, Xsens .mvnx)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--format", choices=("csv", "parquet"), default="csv", help="results table format (default csv; parquet keeps every bit)")
    p.add_argument("--digits", type=_digits, default=None, metavar="N",
                   help="significant digits of the numbers in CSV results, 1-15 (default 8)")
    p.add_argument("--relative", action="append", default=[], metavar="WHAT:TO",
                   help="add the motion of frame WHAT relative to frame TO (e.g. head:upper_torso; frames: ground, "
                        "body_com, a segment, SEGMENT.com): <what>_rel_<to>_<quantity>_<axis> columns in TO's axes "
                        "(repeatable)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="also print the per-marker and per-gap details (always in <trial>_log.txt)")
    add_subject_options(p)
    add_marker_options(p)
    add_rate_options(p)
    add_load_options(p, aliases=("--grf",))  # --grf as report and view spell it
    add_export_options(p)
    p.add_argument("--ik-setup", metavar="SETUP.xml",
                   help="with --model MODEL.osim: OpenSim IK setup whose IKMarkerTask/IKCoordinateTask weights to use "
                        "(default: every marker shared with the model, weight 1)")
    add_muscle_options(p, "with --model MODEL.osim and --forces: also static optimization and joint reactions "
                          "(<trial>_activations.csv, <trial>_muscle_forces.csv, <trial>_joint_reactions.csv; "
                          "docs/muscles.md)")
    p.set_defaults(func=run)


def run_osim(args) -> int:
    """``--model MODEL.osim``: OpenSim's inverse kinematics on the model -> ``<trial>_ik.mot``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status.
    """
    from pathlib import Path  # lazy: only this branch

    import numpy as np  # lazy: keeps `humanbody --help` quick

    from ..io import markers_array, read_trial  # lazy: as above
    from ..io.opensim_writer import write_storage  # lazy: as above
    from ..osim import read_osim  # lazy: as above
    from ..osim.build import build_core_model  # lazy: as above
    from ..osim.ik import read_ik_setup, solve_ik  # lazy: as above

    if args.forces:
        _loads_xml(args.forces)  # refused before the IK runs
    elif args.muscles:
        raise InputError("--muscles needs --forces: the trial's external loads (an OpenSim ExternalLoads XML)")
    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    cm = build_core_model(read_osim(args.model))
    for note in cm.osim.notes:
        say(note)
    tasks = read_ik_setup(args.ik_setup) if args.ik_setup else None
    frame = read_trial(args.trial)
    names, xyz = markers_array(frame)
    result = solve_ik(cm, names, xyz, tasks, path=args.trial, time=frame["time"].to_numpy(dtype=float))
    degrees = np.array([c.motion_type == "rotational" for c in cm.osim.coordinates])  # as OpenSim converts
    values = np.where(degrees, np.rad2deg(result.q), result.q)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = write_storage(out / f"{Path(args.trial).stem}_ik.mot", "Coordinates", cm.osim.coordinate_names,
                       frame["time"].to_numpy(dtype=float), values, in_degrees=True)
    if not args.ik_setup:  # the markers' weights change the fit and every load after it: said, never silent
        say(Note("inverse kinematics: every marker the trial shares with the model weighs 1 (--ik-setup "
                 "SETUP.xml for the marker and coordinate weights of an OpenSim IK setup)", METHOD))
    say(f"inverse kinematics: {len(result.markers)} markers, RMS marker error "
        f"{1000 * np.nanmean(result.rms_error):.1f} mm (max {1000 * np.nanmax(result.max_error):.1f} mm)")
    say(f"wrote inverse kinematics: {path}")
    if args.forces:
        path = _osim_dynamics(args, cm, frame["time"].to_numpy(dtype=float), result.q, out)
        say(f"wrote inverse dynamics: {path}")
    if args.muscles:
        for line in _osim_muscles(args, frame["time"].to_numpy(dtype=float), result.q, out):
            say(line)
    _usual_results(args, say)
    return 0


def _osim_muscles(args, time, q, out) -> list[str]:
    """``--muscles``: static optimization and joint reactions on the IK's coordinates -> the three CSVs;
    returns the log lines (files written, then the findings)."""
    from pathlib import Path  # lazy: only this branch

    from ..muscles.markers import COORDINATE_CUTOFF_HZ, setup_of  # lazy: only this branch (numba kernels)
    from ..muscles.output import write_muscle_results  # lazy: as above
    from ..muscles.reserves import weak_reserves  # lazy: as above
    from ..muscles.trial import run_coordinates  # lazy: as above

    setup = setup_of(args.model)
    reserves = args.reserves or weak_reserves(setup.geometry.model.coordinate_names)
    result = run_coordinates(setup, time, q, str(_loads_xml(args.forces)), reserves,
                             cutoff_hz=COORDINATE_CUTOFF_HZ, joints=None, where=args.trial)
    lines = write_muscle_results(result, setup, out, Path(args.trial).stem)
    lines[:0] = [n for n in setup.geometry.notes if n not in setup.geometry.model.notes]   # the wrap surfaces
    if not args.reserves:
        lines.insert(0, "static optimization: reserves of optimal force 1 on every coordinate (--reserves to choose)")
    lines.insert(0, f"static optimization: coordinates low-passed at {COORDINATE_CUTOFF_HZ:g} Hz first, as OpenSim's "
                    "Joint Reaction tutorial")
    return lines


def _usual_results(args, say) -> None:
    """Beside the OpenSim tables, the trial's usual results on humanbody's own body model (same options,
    the default model); when they cannot be made, one line saying why (the OpenSim tables stand)."""
    from argparse import Namespace  # lazy: only this branch

    usual = Namespace(**{**vars(args), "model": None})
    try:
        _run_usual(usual, say)
    except InputError as e:
        say(f"no body-model results (clinical angles, kinetics) beside the OpenSim tables: {e}")


def _loads_xml(forces: str):
    """The ExternalLoads XML of ``--forces``: the file itself, or the .xml of the same name beside a table."""
    from pathlib import Path  # lazy: only this branch

    xml = Path(forces)
    if xml.suffix.lower() != ".xml":
        xml = xml.with_suffix(".xml")
        if not xml.exists():
            raise InputError(f"{forces}: with an .osim model, --forces takes an OpenSim ExternalLoads XML "
                             f"(none found at {xml})")
    return xml


def _osim_dynamics(args, cm, time, q, out) -> str:
    """``--forces`` (an ExternalLoads XML, or a forces table with one of the same name beside it) -> ``<trial>_id.sto``."""
    from pathlib import Path  # lazy: only this branch

    from ..io import read_opensim  # lazy: as above
    from ..io.opensim_writer import write_storage  # lazy: as above
    from ..osim.id import generalized_force_names, read_external_loads, solve_id  # lazy: as above

    forces, datafile = read_external_loads(_loads_xml(args.forces))
    tau = solve_id(cm, time, q, forces, read_opensim(datafile), path=datafile)
    return write_storage(out / f"{Path(args.trial).stem}_id.sto", "Inverse Dynamics Generalized Forces",
                       generalized_force_names(cm), time, tau, in_degrees=False)


def run(args) -> int:
    """Run ``humanbody analyze`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    if args.model and str(args.model).lower().endswith(".osim"):
        return run_osim(args)
    if args.muscles or args.reserves:
        raise InputError("--muscles and --reserves need --model MODEL.osim: an OpenSim model with muscles")
    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    return _run_usual(args, say)


def _run_usual(args, say) -> int:
    """The trial on humanbody's body model -> the results table and the exports."""
    from .. import analyze_trial  # lazy: through the package face, its big imports with the collector paused
    from ..checks.file_events import file_event_findings  # lazy: as above
    from ..trial_output import write  # lazy: keeps `humanbody --help` quick

    options = analysis_options(args)
    analysis = analyze_trial(args.trial, options, progress=not args.quiet, keep_markers=False)
    notes = analysis.log.at("message")
    analysis.log.warning("write", *file_event_findings(analysis))  # said among the output checks
    for line in analysis.messages if args.verbose else screen_lines(notes):
        say(line)
    if args.verbose:
        for line in analysis.details:
            say(line)
    pairs = []
    for item in args.relative:
        what, sep, to = item.partition(":")
        if not sep or not what or not to:
            raise InputError(f"--relative {item!r}: expected WHAT:TO, for example head:upper_torso")
        pairs.append((what, to))
    paths = write(analysis, args.out, options, fmt=args.format, digits=args.digits, progress=not args.quiet,
                  relative=pairs)
    later = analysis.log.at("message")[len(notes):]  # what the output checks and the exports had to say
    for line in [r.message for r in later] if args.verbose else screen_lines(later, CHECK_NOTES):
        say(line)
    for kind, path in paths.items():
        say(f"wrote {kind}: {path}")
    return 0

"""``humanbody analyze TRIAL --out DIR``: one trial -> results table."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import NOTE, InputError, priority_of
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
    from ..analysis.log import Record

HELP = "analyse one trial: joint angles and the mechanics of every segment -> results CSV"


#: Notes said once per joint or segment, summarised on the screen into one line each (all in <trial>_log.txt).
_JUMP = re.compile(r"^check outputs: (\S+) jumps ([0-9.]+) deg between ([0-9.]+) and ")
_CARRIED = re.compile(r"^check outputs: (\S+) carried from its parent for \d+ frames \(([0-9.]+) s ")
_REACHES = re.compile(r"^check outputs: (\S+) reaches (-?[0-9.]+ \S+) at ([0-9.]+) s")
#: The line of :func:`humanbody.checks.unmeasured.unmeasured_line` (it names the carried segments too).
_UNMEASURED = "check outputs: not measured, left empty"
#: The calibration's lines on a marker set's segment of an unusual size (both feet of a drafted set).
_CHECK_SET = "calibration: CHECK the marker set: "


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
        The lines to print, at most ``budget`` notes plus the summary line, in the records' order.
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
    of them stood, at the priority of the first; the carried segments' lines left to the log when the line on
    the values left empty (:mod:`humanbody.checks.unmeasured`) names them; the marker set's CHECK lines in one."""
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
    out = _joined_checks(out)
    said = next((line for line, _ in out if line.startswith(_UNMEASURED)), "")
    if groups["carried"] and all(f" {g[0]} " in said for _, g in groups["carried"]):
        # the line on what was left empty names the carried segments and their times: said once
        at = next(i for i, (line, _) in enumerate(out) if line == "carried")
        out.pop(at)
        groups["carried"] = []
    for key, hits in groups.items():
        if not hits:
            continue
        at = next(i for i, (line, _) in enumerate(out) if line == key)
        out[at] = (hits[0][0] if len(hits) == 1 else _summary(key, [g for _, g in hits]), out[at][1])
    return out


def _joined_checks(out: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """The calibration's CHECK lines on the marker set (one per segment: a drafted set's feet, both sides) in one
    line where the first stood, at its priority.

    Parameters
    ----------
    out : list of (str, int)
        Lines and their priorities, in order.

    Returns
    -------
    list of (str, int)
    """
    checks = [line for line, _ in out if line.startswith(_CHECK_SET)]
    if len(checks) < 2:
        return out
    joined = _CHECK_SET + "; ".join(line[len(_CHECK_SET):] for line in checks)
    first = next(i for i, (line, _) in enumerate(out) if line.startswith(_CHECK_SET))
    rest = [(line, p) for i, (line, p) in enumerate(out) if i == first or not line.startswith(_CHECK_SET)]
    return [(joined, p) if line == checks[0] else (line, p) for line, p in rest]


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
    """``--model MODEL.osim``: the trial on the OpenSim model (:func:`humanbody.analysis.osim_trial.analyze_osim_trial`:
    inverse kinematics, inverse dynamics with ``--forces``, static optimization and joint reactions with
    ``--muscles``) -> ``<trial>_ik.mot`` and the others, then the usual results on humanbody's body model.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: ``trial``, ``model``, ``out``, ``forces``, ``ik_setup``, ``muscles``,
        ``reserves``, ``quiet`` and the usual analysis' options.

    Returns
    -------
    int
        The exit status (0; bad input raises InputError, which the command line reports with status 2).
    """
    from ..analysis.osim_trial import analyze_osim_trial, write_osim_results  # lazy: only this branch

    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    analysis = analyze_osim_trial(args.model, args.trial, forces=args.forces, ik_setup=args.ik_setup,
                                  muscles=args.muscles, reserves=args.reserves)
    for line in analysis.messages:
        say(line)
    for line in write_osim_results(analysis, args.out):
        say(line)
    _usual_results(args, say)
    return 0


def _usual_results(args, say) -> None:
    """Beside the OpenSim tables, the trial's usual results on humanbody's own body model (same options,
    the default model); when they cannot be made, one line saying why (the OpenSim tables stand)."""
    try:
        _run_usual(args, say, analysis_options(args).replace(model=None))
    except InputError as e:
        say(f"no body-model results (clinical angles, kinetics) beside the OpenSim tables: {e}")


def run(args) -> int:
    """Run ``humanbody analyze`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line of ``humanbody analyze`` (:func:`register`'s options).

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


def _run_usual(args, say, options=None) -> int:
    """The trial on humanbody's body model -> the results table and the exports (``options``: the analysis'
    options, default those of ``args``)."""
    from .. import analyze_trial  # lazy: through the package face, its big imports with the collector paused
    from ..analysis.log import records  # lazy: as above
    from ..checks.file_events import file_event_findings  # lazy: as above
    from ..trial_output import write  # lazy: keeps `humanbody --help` quick

    options = analysis_options(args) if options is None else options
    analysis = analyze_trial(args.trial, options, progress=not args.quiet, keep_markers=False)
    notes = analysis.log.at("message")
    analysis = analysis.with_records(records("warning", "write", *file_event_findings(analysis)))  # output checks
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
    said: list[Record] = []  # what the output checks and the exports had to say
    paths = write(analysis, args.out, options, fmt=args.format, digits=args.digits, progress=not args.quiet,
                  relative=pairs, said=said)
    later = [r for r in said if r.level == "message"]
    for line in [r.message for r in later] if args.verbose else screen_lines(later, CHECK_NOTES):
        say(line)
    for kind, path in paths.items():
        say(f"wrote {kind}: {path}")
    return 0

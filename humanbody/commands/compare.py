"""``humanbody compare A B [C ...] --out DIR``: SPM comparison of groups of gait curves."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..atomic import atomic_write_text
from ..errors import InputError
from ._options import add_marker_options, add_subject_options, report_options
from .report import add_events_option

HELP = ("compare groups of gait curves with statistical parametric mapping (t test, paired t test, "
        "one-way and two-way ANOVA, regression, Hotelling's T2 per joint), corrected for the number of "
        "variables: spm.csv, clusters.csv, a figure per test and index.html")


def _alpha(text: str) -> float:
    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < a < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return a


def register(sub) -> None:
    """Add the ``humanbody compare`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("compare", help=HELP, description=HELP + ". Exit status 2 on bad input.")
    p.add_argument("groups", nargs="*", metavar="GROUP",
                   help="one folder per group: a report folder (written by 'humanbody report') or a folder "
                        "of trials (reported first, into DIR/reports/)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--manifest", metavar="CSV",
                   help="groups from a report manifest (trial, static, mass, height, ... columns) with a "
                        "grouping column (--by); subjects are named by a 'subject_id' column, else by the stem of "
                        "the 'subject' measurements file, else by the trial")
    p.add_argument("--by", metavar="COLUMN", nargs="+",
                   help="the manifest column that names each trial's group; two columns: the two factors of a "
                        "two-way ANOVA (each combination of their values a group)")
    p.add_argument("--regress", metavar="COLUMN",
                   help="regression of the curves on this numeric manifest column (e.g. speed; a subject's value "
                        "is the mean over its trials): all the manifest's trials form one group")
    s = p.add_argument_group("test")
    s.add_argument("--paired", action="store_true",
                   help="paired t test: the same subjects in both groups, matched by subject")
    s.add_argument("--alpha", type=_alpha, default=0.05,
                   help="family-wise type I error rate over all the tests (default 0.05)")
    s.add_argument("--correction", choices=("sidak", "bonferroni", "none"), default="sidak",
                   help="correction for the number of tests: each test at 1-(1-alpha)^(1/m) (sidak, default), "
                        "alpha/m (bonferroni) or alpha (none)")
    s.add_argument("--multivariate", action="store_true",
                   help="two groups: test each joint's angles together with Hotelling's T2 (one test per joint)")
    s.add_argument("--one-tailed", action="store_true",
                   help="test only 'first group above the second' (default: two-tailed)")
    s.add_argument("--side", choices=("right", "left", "both", "pooled"), default="both",
                   help="strides compared: right or left side variables, both sides as separate variables "
                        "(default), or both sides pooled")
    s.add_argument("--unit", choices=("subject", "stride"), default="subject",
                   help="one curve per subject (mean of its strides; default) or one per stride")
    s.add_argument("--variables", nargs="+", metavar="PATTERN",
                   help="compare only these variables (glob patterns, e.g. 'knee_*' '*_power_W_per_kg')")
    s.add_argument("--figures", choices=("svg", "png", "none"), default="svg",
                   help="figure per variable: svg (default, fast), png (matplotlib) or none")
    r = p.add_argument_group("reporting trial folders first")
    r.add_argument("--jobs", "-j", type=int, metavar="N", help="local worker processes (default: all cores)")
    r.add_argument("--scheduler", metavar="ADDRESS", help="run the reports on a Dask distributed cluster")
    r.add_argument("--no-kinetics", action="store_true", help="no joint moments and powers")
    add_events_option(r)
    r.add_argument("-q", "--quiet", action="store_true", help="no progress, no messages but errors")
    add_subject_options(p)
    add_marker_options(p)
    p.set_defaults(func=run)


def _report_options(args):
    return report_options(args, plots="none", kinetics=not args.no_kinetics, events=args.events)


def _report(tasks, out: Path, args, say):
    """Run the report pipeline on ``tasks`` into ``out``; InputError when every trial failed."""
    from ..report.batch import run_batch  # lazy: keeps `humanbody --help` quick (the report pipeline)

    if not tasks:
        raise InputError("no trial files found", out)
    say(f"reporting {len(tasks)} trial(s) -> {out}")
    result = run_batch(tasks, out, _report_options(args), jobs=args.jobs, scheduler=args.scheduler,
                       progress=not args.quiet, log=say)
    for row in result.rows:
        if row.get("status") != "ok":
            say(f"humanbody compare: trial failed: {row.get('error')}")
    if result.n_failed == len(result.rows):
        raise InputError("no trial of this group could be analysed", out)


def _groups_from_folders(args, out: Path, say):
    from ..report.groups import unique_names  # lazy: the report pipeline
    from ..stats.groups import (  # lazy: keeps `humanbody --help` quick (scipy.stats, pyarrow)
        is_report_folder,
        read_report,
    )

    groups = []
    for folder, name in zip(args.groups, unique_names(args.groups), strict=True):
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError("no such folder", folder)
        if not is_report_folder(folder):
            from ..report.inputs import discover  # lazy: keeps `humanbody --help` quick (the report pipeline)

            reported = out / "reports" / name
            _report(discover([folder], static=args.static), reported, args, say)
            folder = reported
        groups.append(read_report(folder, side=args.side, unit=args.unit, variables=args.variables, name=name))
    return groups


def _groups_from_manifest(args, out: Path, say):
    """Each group of the manifest (:func:`humanbody.report.groups.manifest_groups`), reported then read.

    Returns ``(groups, factors, regressor)``: ``factors`` for two ``--by``
    columns, ``regressor`` (column, {subject: value}) with ``--regress``.
    """
    from ..report.groups import group_regressor, group_subjects, manifest_groups  # lazy: the report pipeline
    from ..report.inputs import read_manifest  # lazy: as above
    from ..stats.groups import read_report  # lazy: keeps `humanbody --help` quick (scipy.stats, pyarrow)

    groups, cells, regressor_values = [], [], {}
    for group in manifest_groups(args.manifest, args.by or (), args.regress):
        sub = out / "reports" / group.name
        sub.mkdir(parents=True, exist_ok=True)
        manifest = sub / "manifest.csv"
        atomic_write_text(manifest, group.manifest.to_csv(index=False))
        tasks = read_manifest(manifest)
        _report(tasks, sub, args, say)
        subjects = group_subjects(group, tasks)
        if args.regress:
            regressor_values = group_regressor(group, tasks, args.regress, subjects, Path(args.manifest))
        groups.append(read_report(sub, side=args.side, unit=args.unit, subjects=subjects,
                                  variables=args.variables, name=group.value))
        cells.append(group.cells)
    by = [b.strip().lower() for b in (args.by or [])]
    factors = (by[0], by[1], cells) if len(by) == 2 else None
    regressor = (args.regress.strip().lower(), regressor_values) if args.regress else None
    return groups, factors, regressor


def run(args) -> int:
    """Run ``humanbody compare`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    from ..stats.compare import (  # lazy: keeps `humanbody --help` quick (scipy.stats, pyarrow)
        cluster_text,
        compare,
        correction_text,
        write_comparison,
    )
    from ..stats.normality import ADVICE  # lazy: keeps `humanbody --help` quick (scipy.stats, pyarrow)

    say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    out = Path(args.out)
    if args.manifest and args.groups:
        raise InputError("give group folders or --manifest with --by, not both")
    if args.manifest and not (args.by or args.regress):
        raise InputError("--manifest needs --by COLUMN (the column naming each trial's group) or --regress COLUMN")
    if (args.by or args.regress) and not args.manifest:
        raise InputError(f"{'--by' if args.by else '--regress'} needs --manifest")
    if args.by and len(args.by) > 2:
        raise InputError(f"--by takes one column (groups) or two (two factors), got {len(args.by)}")
    if args.regress and args.by:
        raise InputError("--regress takes all the manifest's trials as one group: give it without --by")
    if not args.manifest and len(args.groups) < 2:
        raise InputError(f"give at least 2 groups to compare, got {len(args.groups)}")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    factors = regressor = None
    if args.manifest:
        groups, factors, regressor = _groups_from_manifest(args, out, say)
    else:
        groups = _groups_from_folders(args, out, say)
    if factors is not None and (args.paired or args.multivariate):
        raise InputError("two factors (--by A B) take neither --paired nor --multivariate")
    comparison = compare(groups, paired=args.paired, alpha=args.alpha, two_tailed=not args.one_tailed,
                         correction=args.correction, multivariate=args.multivariate, factors=factors,
                         regressor=regressor)
    write_comparison(comparison, out, figures=args.figures)
    n_sig = sum(bool(comparison.significant_clusters(v)) for v in comparison.results)
    sizes = ", ".join(f"{g.name} {len(next(iter(g.rows.values())))}" for g in groups)
    say(f"{comparison.test}: {len(comparison.results)} test(s) ({sizes} {args.unit}s), "
        f"{n_sig} with significant clusters; {correction_text(comparison)}; {out / 'index.html'}")
    for var, r in comparison.results.items():
        for c in r.clusters:
            say(f"  {var}: {cluster_text(comparison, var, c)}")
        for line in comparison.posthoc_text(var):
            say(f"    post-hoc {line}")
    flagged = [v for v, rejected in comparison.normality.items() if rejected]
    if flagged:
        say(f"  {ADVICE} ({len(flagged)} test(s): {', '.join(flagged[:3])}{' ...' if len(flagged) > 3 else ''})")
    for var, why in comparison.skipped.items():
        say(f"  {var}: not tested ({why})")
    return 0

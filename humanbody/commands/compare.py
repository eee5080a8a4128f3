"""``humanbody compare A B [C ...] --out DIR``: SPM comparison of groups of gait curves."""

from __future__ import annotations

import sys
from pathlib import Path

from ..errors import InputError
from .analyze import add_marker_options, add_subject_options
from .report import add_events_option

HELP = ("compare groups of gait curves with statistical parametric mapping (t test, paired t test, "
        "one-way ANOVA): spm.csv, clusters.csv, a figure per variable and index.html")


def _alpha(text: str) -> float:
    import argparse

    try:
        a = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < a < 1.0:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1, got {text}")
    return a


def register(sub) -> None:
    p = sub.add_parser("compare", help=HELP, description=HELP + ". Exit status 2 on bad input.")
    p.add_argument("groups", nargs="*", metavar="GROUP",
                   help="one folder per group: a report folder (written by 'humanbody report') or a folder "
                        "of trials (reported first, into DIR/reports/)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder (created if missing)")
    p.add_argument("--manifest", metavar="CSV",
                   help="groups from a report manifest (trial, static, mass, height, ... columns) with a "
                        "grouping column (--by); subjects are named by a 'subject_id' column, else by the stem of "
                        "the 'subject' measurements file, else by the trial")
    p.add_argument("--by", metavar="COLUMN", help="the manifest column that names each trial's group")
    s = p.add_argument_group("test")
    s.add_argument("--paired", action="store_true",
                   help="paired t test: the same subjects in both groups, matched by subject")
    s.add_argument("--alpha", type=_alpha, default=0.05, help="type I error rate of each curve (default 0.05)")
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
    from .analyze import report_options

    return report_options(args, plots="none", kinetics=not args.no_kinetics, events=args.events)


def _report(tasks, out: Path, args, say):
    """Run the report pipeline on ``tasks`` into ``out``; InputError when every trial failed."""
    from ..report.batch import run_batch

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


def _unique_names(paths) -> list[str]:
    names = []
    for p in paths:
        base = Path(p).resolve().name or "group"
        name, n = base, 2
        while name in names:
            name, n = f"{base}_{n}", n + 1
        names.append(name)
    return names


def _groups_from_folders(args, out: Path, say):
    from ..stats.groups import is_report_folder, read_report

    groups = []
    for folder, name in zip(args.groups, _unique_names(args.groups)):
        folder = Path(folder)
        if not folder.is_dir():
            raise InputError("no such folder", folder)
        if not is_report_folder(folder):
            from ..report.inputs import discover  # the report pipeline: imported only for folders of trials

            reported = out / "reports" / name
            _report(discover([folder], static=args.static), reported, args, say)
            folder = reported
        groups.append(read_report(folder, side=args.side, unit=args.unit, variables=args.variables, name=name))
    return groups


def _groups_from_manifest(args, out: Path, say):
    """Each value of the ``--by`` column is a group: its trials are reported, then read."""
    from ..atomic import atomic_write_text
    from ..report.inputs import read_manifest
    from ..report.inputs import MANIFEST_COLUMNS, manifest_table
    from ..stats.groups import read_report

    path = Path(args.manifest)
    table = manifest_table(path)
    by = args.by.strip().lower()
    if by not in table.columns:
        raise InputError(f"manifest has no column {args.by!r} (--by)", path)
    if "trial" not in table.columns:
        raise InputError("manifest has no 'trial' column", path)
    base = path.parent.resolve()
    for col in ("trial", "static", "grf", "subject"):  # the group manifests live elsewhere: make paths absolute
        if col in table.columns:
            table[col] = [str(base / v.strip()) if v.strip() and not Path(v.strip()).is_absolute() else v
                          for v in table[col]]
    values = [v for v in dict.fromkeys(table[by].str.strip()) if v]
    if len(values) < 2:
        raise InputError(f"column {args.by!r} names {len(values)} group(s); at least 2 are needed", path)
    groups = []
    for value, name in zip(values, _unique_names(values)):
        rows = table[table[by].str.strip() == value]
        sub = out / "reports" / name
        sub.mkdir(parents=True, exist_ok=True)
        keep = [c for c in rows.columns if c in MANIFEST_COLUMNS]
        manifest = sub / "manifest.csv"
        atomic_write_text(manifest, rows[keep].to_csv(index=False))
        tasks = read_manifest(manifest)
        _report(tasks, sub, args, say)
        subjects = None
        if "subject_id" in rows.columns:
            subjects = {t.key: (s.strip() or t.key) for t, s in zip(tasks, rows["subject_id"])}
        elif "subject" in rows.columns:  # one measurements file per subject (.vsk, TOML): its stem names him
            subjects = {t.key: (Path(s.strip()).stem if s.strip() else t.key) for t, s in zip(tasks, rows["subject"])}
        groups.append(read_report(sub, side=args.side, unit=args.unit, subjects=subjects,
                                  variables=args.variables, name=value))
    return groups


def run(args) -> int:
    from ..stats.compare import compare, write_comparison

    say = (lambda msg: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    out = Path(args.out)
    if args.manifest and args.groups:
        raise InputError("give group folders or --manifest with --by, not both")
    if args.manifest and not args.by:
        raise InputError("--manifest needs --by COLUMN (the column naming each trial's group)")
    if args.by and not args.manifest:
        raise InputError("--by needs --manifest")
    if not args.manifest and len(args.groups) < 2:
        raise InputError(f"give at least 2 groups to compare, got {len(args.groups)}")
    if args.jobs is not None and args.jobs < 1:
        raise InputError(f"--jobs must be at least 1, got {args.jobs}")
    groups = _groups_from_manifest(args, out, say) if args.manifest else _groups_from_folders(args, out, say)
    comparison = compare(groups, paired=args.paired, alpha=args.alpha, two_tailed=not args.one_tailed)
    write_comparison(comparison, out, figures=args.figures)
    n_sig = sum(bool(r.clusters) for r in comparison.results.values())
    sizes = ", ".join(f"{g.name} {len(next(iter(g.rows.values())))}" for g in groups)
    say(f"{comparison.test}: {len(comparison.results)} variable(s) ({sizes} {args.unit}s), "
        f"{n_sig} with significant clusters; {out / 'index.html'}")
    for var, r in comparison.results.items():
        for c in r.clusters:
            a, b = c.percent(r.nodes)
            say(f"  {var}: {a:.1f}-{b:.1f} %  p = {c.p:.3g}")
    for var, why in comparison.skipped.items():
        say(f"  {var}: not tested ({why})")
    return 0

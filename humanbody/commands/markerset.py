"""``humanbody markerset init STATIC --out FILE``: draft a marker-set file from a standing trial."""

from __future__ import annotations

import sys

HELP = "draft a marker-set file (TOML) for a lab's markers from a standing trial"


def _positive(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of metres, not {text!r}")
    return value


def register(sub) -> None:
    p = sub.add_parser("markerset", help=HELP, description=HELP + ".")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    text = ("read the marker names with a vocabulary of the spellings labs use, check them against the "
            "standing pose, choose joint-centre rules and write a marker-set file to check and edit")
    q = actions.add_parser("init", help="draft a marker set from a standing (static) trial", description=text + ".")
    q.add_argument("static", metavar="STATIC_TRIAL", help="standing trial (TRC, C3D, CSV, TSV) with the lab's markers")
    q.add_argument("--out", required=True, metavar="FILE", help="marker-set file to write (.toml)")
    q.add_argument("--name", metavar="NAME", help="name of the set (default: the trial's file name)")
    q.add_argument("--axes", default="auto", metavar="SPEC",
                   help="lab axes -> ground as for analyze: 'auto' (default), 'opensim' or a spec like 'x,-z,y'")
    q.add_argument("--height", type=_positive, metavar="M", help="standing height in m (default: from the markers)")
    g = q.add_argument_group("joint widths (for a centre found from one lateral marker)")
    g.add_argument("--knee-width", type=_positive, metavar="M", help="knee width in m (default 0.105)")
    g.add_argument("--ankle-width", type=_positive, metavar="M", help="ankle width in m (default 0.075)")
    g.add_argument("--marker-radius", type=float, default=0.007, metavar="M", help="marker radius in m (default 0.007)")
    q.add_argument("--force", action="store_true", help="overwrite FILE if it exists")
    q.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    q.add_argument("-v", "--verbose", action="store_true", help="also print how every marker was read")
    q.set_defaults(func=run_init)


def run_init(args) -> int:
    import os

    from ..atomic import atomic_write_text
    from ..errors import InputError
    from ..markers.draft import draft_from_file

    if os.path.exists(args.out) and not args.force:
        raise InputError("exists already; give --force to overwrite it or choose another --out", args.out)
    if not 0 <= args.marker_radius < 0.05:
        raise InputError(f"--marker-radius {args.marker_radius:g} m is not a marker radius (0 to 0.05 m)")
    draft, axes = draft_from_file(args.static, axes=args.axes, name=args.name, height=args.height,
                                  knee_width=args.knee_width, ankle_width=args.ankle_width,
                                  marker_radius=args.marker_radius)
    try:
        atomic_write_text(args.out, draft.text)
    except OSError as err:
        raise InputError(f"cannot write the marker set ({err.strerror or err})", args.out) from None
    if not args.quiet:
        say = lambda line: print(line, file=sys.stderr)  # noqa: E731
        how = "given" if axes.how == "given" else f"detected, confidence {axes.confidence:.2f}"
        say(f"read {args.static}: {len(draft.markers)} markers; lab axes {axes.spec} -> ground ({how})")
        for line in draft.summary():
            say(line)
        if args.verbose:
            say(axes.describe())
            for line in draft.details():
                say(line)
        say(f"wrote {args.out}; analyse with: humanbody analyze TRIAL --static {args.static} --markerset {args.out}"
            + (" --height M" if not draft.markerset.parameters.get("height_top") else ""))
    return 0

"""``humanbody markerset init STATIC --out FILE``: draft a marker-set file from a standing trial.

``humanbody markerset precision TRIAL --static STATIC``: the precision of every joint angle a marker set
allows under white marker noise, along a trial (:mod:`humanbody.tools.precision`).
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

from ..atomic import atomic_write_text
from ..errors import InputError
from ..model.anthropometry import DEFAULT_MASS
from ..model.segments import SEGMENT_NAMES
from ..signal import CUTOFF_HZ

HELP = "draft a marker-set file (TOML) for a lab's markers from a standing trial"


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a positive number of metres, not {text!r}")
    return value


def register(sub) -> None:
    """Add the ``humanbody markerset`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("markerset", help=HELP, description=HELP + ".")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True
    text = ("read the marker names with a vocabulary of the spellings labs use, check them against the "
            "standing pose, choose joint-centre rules and write a marker-set file to check and edit")
    q = actions.add_parser("init", help="draft a marker set from a standing (static) trial", description=text + ".")
    q.add_argument("static", metavar="STATIC_TRIAL", help="standing trial (TRC, C3D, CSV, TSV) with the lab's markers; "
                   "a walk is drafted from its stillest standing second")
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

    text = ("track the trial by whole-body inverse kinematics and print, for white marker noise of --noise-mm "
            "per coordinate low-passed like the markers (--cutoff), the predicted RMS error of every model "
            "coordinate over the trial: sigma^2 (J^T W J + P)^-1 J^T W^2 J (J^T W J + P)^-1 per frame "
            "(docs/tracking.md, 'How precise can the angles be?')")
    q = actions.add_parser("precision", help="predicted precision of the joint angles of a marker set on a trial",
                           description=text + ".")
    q.add_argument("trial", metavar="TRIAL", help="marker trial (TRC, C3D, CSV, TSV)")
    q.add_argument("--static", metavar="FILE", help="standing calibration trial (same markers and lab)")
    q.add_argument("--markerset", metavar="NAME|FILE",
                   help="marker set: built-in name or a marker-set file (default: detected from the names)")
    q.add_argument("--axes", default="auto", metavar="SPEC", help="lab axes -> ground as for analyze")
    q.add_argument("--mass", type=_positive_number("kg"), metavar="KG", help=f"subject mass in kg (default {DEFAULT_MASS:g})")
    q.add_argument("--height", type=_positive_number("m"), metavar="M", help="standing height in m")
    q.add_argument("--noise-mm", type=_positive_number("mm"), default=2.0, metavar="MM",
                   help="standard deviation of the marker noise per coordinate, in mm (default 2)")
    q.add_argument("--cutoff", type=float, default=CUTOFF_HZ, metavar="HZ",
                   help=f"low-pass cut-off of the marker filter (default {CUTOFF_HZ:g} Hz as analyze; 0 = no filter)")
    q.add_argument("--csv", metavar="FILE", help="also write the per-frame standard deviations (deg, m) to FILE")
    q.add_argument("--force", action="store_true", help="overwrite the --csv FILE if it exists")
    q.add_argument("-q", "--quiet", action="store_true", help="print the table only")
    q.set_defaults(func=run_precision)


def _positive_number(unit: str):
    def parse(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            value = float("nan")
        if not value > 0 or value == float("inf"):
            raise argparse.ArgumentTypeError(f"must be a positive number of {unit}, not {text!r}")
        return value
    return parse


def run_precision(args) -> int:
    """Run ``humanbody markerset precision`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    from ..analysis.run import analyze_trial  # lazy: keeps `humanbody --help` quick
    from ..tools.precision import predict_precision  # lazy: keeps `humanbody --help` quick

    if not (np.isfinite(args.cutoff) and args.cutoff >= 0):
        raise InputError(f"--cutoff must be 0 (no filter) or a positive frequency in Hz, not {args.cutoff:g}")
    if args.csv and os.path.exists(args.csv) and not args.force:
        raise InputError("exists already; give --force to overwrite it or choose another --csv", args.csv)
    cutoff = args.cutoff or None
    an = analyze_trial(args.trial, static=args.static, markerset=args.markerset, axes=args.axes, mass=args.mass,
                       height=args.height, ik="global", cutoff_hz=cutoff,
                       progress=sys.stderr.isatty() and not args.quiet)
    if an.calibration is None:
        raise InputError("is not a marker trial: the precision is that of markers", args.trial)
    pred = predict_precision(an.calibration, an.coords, args.noise_mm / 1000.0, cutoff_hz=cutoff,
                             markers=an.markers, progress=not args.quiet)
    if args.csv:
        try:
            atomic_write_text(args.csv, pred.std.to_csv(index=False, float_format="%.6g"))
        except OSError as err:
            raise InputError(f"cannot write the table ({err.strerror or err})", args.csv) from None
    s = pred.summary["rms"]
    filt = (f"low-passed at {cutoff:g} Hz (noise variance x {pred.gain:.3f})" if cutoff
            else "not filtered")
    print(f"{args.trial}: {len(an.coords)} frames, {len(pred.markers)} markers of {an.calibration.markerset.name!r}, "
          f"{args.noise_mm:g} mm white noise {filt}")
    print("predicted RMS error over the trial, whole-body IK (deg; root mm); alpha, beta, gamma: each segment's "
          "angles relative to its parent (limbs: flexion, ab/adduction, axial rotation)")
    print(f"{'segment':18s} {'alpha':>7s} {'beta':>7s} {'gamma':>7s}")
    print(f"{'root position':18s} " + " ".join(f"{1000 * s[f'lower_torso_{a}']:7.2f}" for a in "xyz")
          + "   (x, y, z)")
    for seg in SEGMENT_NAMES:
        print(f"{seg:18s} " + " ".join(f"{s[f'{seg}_{q}']:7.2f}" for q in ("alpha", "beta", "gamma")))
    if not args.quiet:
        worst = s.iloc[3:].idxmax()
        print(f"largest: {worst} {s[worst]:.2f} deg RMS (max {pred.summary.loc[worst, 'max']:.2f} in one frame); "
              "0.00: decided by the set's neutral pull, no marker sees it", file=sys.stderr)
        if args.csv:
            print(f"wrote {args.csv}", file=sys.stderr)
    return 0


def run_init(args) -> int:
    """Run ``humanbody markerset init`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    if os.path.exists(args.out) and not args.force:
        raise InputError("exists already; give --force to overwrite it or choose another --out", args.out)
    if not 0 <= args.marker_radius < 0.05:
        raise InputError(f"--marker-radius {args.marker_radius:g} m is not a marker radius (0 to 0.05 m)")
    from ..tools.markerset import draft_from_file  # lazy: keeps `humanbody --help` quick

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
        assert draft.markerset is not None  # a draft holds its set as loaded
        static = "" if draft.window else f" --static {args.static}"  # a walk: each trial calibrates itself
        say(f"wrote {args.out}; analyse with: humanbody analyze TRIAL{static} --markerset {args.out}"
            + ("" if {"height_top", "height_landmarks"} & set(draft.markerset.parameters) else " --height M"))
    return 0

"""``humanbody model show|export|build``: inspect or write a body model file."""

from __future__ import annotations

import sys

import numpy as np

from ..errors import InputError
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..model.body import BodyModel, load_model
from ..model.segments import JOINT_NAMES, SEGMENT_NAMES

HELP = "show the 17-segment body model, or build it for a subject and export it as JSON"


def _subject_options(p, with_model: bool) -> None:
    g = p.add_argument_group("subject (the scaled de Leva 1996 model)")
    if with_model:
        g.add_argument("--model", metavar="FILE", help="model file (JSON) to show instead of building one")
    g.add_argument("--mass", type=float, metavar="KG", help=f"subject mass in kg (default {DEFAULT_MASS:g})")
    g.add_argument("--height", type=float, metavar="M", help=f"standing height in m (default {DEFAULT_HEIGHT:g})")
    g.add_argument("--sex", choices=("male", "female"), default="male", help="de Leva table (default male)")


def register(sub) -> None:
    """Add the ``humanbody model`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("model", help=HELP, description=HELP + ".")
    actions = p.add_subparsers(dest="action", metavar="ACTION")
    actions.required = True

    show = actions.add_parser("show", help="print the segment table and the lower body arrays")
    _subject_options(show, with_model=True)
    show.set_defaults(func=run_show)

    for name, text in (
        ("export", "write the model for a subject as JSON (docs/conventions.md layout)"),
        ("build", "same as export: build the model from subject mass and height and write it"),
    ):
        q = actions.add_parser(name, help=text, description=text + ".")
        q.add_argument("--out", required=True, metavar="FILE", help="model file to write (JSON)")
        _subject_options(q, with_model=False)
        q.set_defaults(func=run_export)


def _build(args):
    mass = DEFAULT_MASS if args.mass is None else args.mass
    height = DEFAULT_HEIGHT if args.height is None else args.height
    return BodyModel.default(mass=mass, height=height, sex=args.sex)


def _resolve(args):
    if getattr(args, "model", None):
        if args.mass is not None or args.height is not None:
            raise InputError("give either --model or --mass/--height, not both")
        return load_model(args.model)
    return _build(args)


def _vec(v) -> str:
    return " ".join(f"{x:8.4f}" for x in v)


def format_model(model) -> str:
    """The segment table and the lower body arrays of ``model`` as aligned text.

    Columns: k, name, L(k), joint name, mass (kg), r_k (m, body frame), xi_k
    (m, parent frame), principal moments of inertia about G_k (kg m^2,
    ascending).  The second table lists L^1 ... L^r like Huston's Table 8.1.

    Parameters
    ----------
    model : BodyModel
        The body model.

    Returns
    -------
    str
        The two tables, one line per row.
    """
    lines = []
    meta = model.meta
    subj = meta.get("subject")
    head = f"model {model.name!r}: {model.n_bodies} segments, total mass {model.total_mass:.3f} kg"
    if isinstance(subj, dict):
        head += f" (subject {subj.get('mass')} kg, {subj.get('height')} m, {subj.get('sex')})"
    lines.append(head)
    if meta.get("source"):
        lines.append(f"source: {meta['source']}")
    lines.append(f"gravity: {_vec(model.gravity)} m/s^2")
    lines.append("")
    width = max(len(n) for n in model.names)
    default_tree = tuple(model.names) == SEGMENT_NAMES
    jw = max(len(j) for j in JOINT_NAMES) if default_tree else 5
    lines.append(
        f"{'k':>3}  {'name':<{width}}  {'L(k)':>4}  {'joint':<{jw}}  {'seq':>3}  {'mass kg':>8}  "
        f"{'com r_k (m)':^26}  {'joint xi_k (m)':^26}  {'principal moments (kg m^2)':^30}"
    )
    for i in range(model.n_bodies):
        jname = model.segment_meta[i].get("joint_name") or (JOINT_NAMES[i] if default_tree else "")
        moments = np.linalg.eigvalsh(model.inertia[i])
        lines.append(
            f"{i + 1:>3}  {model.names[i]:<{width}}  {int(model.parents[i]):>4}  {jname:<{jw}}  "
            f"{model.sequences[i]:>3}  "
            f"{model.mass[i]:8.3f}  {_vec(model.com_offset[i])}  {_vec(model.joint_offset[i])}  "
            + " ".join(f"{x:9.5f}" for x in moments)
        )
    lines.append("")
    lines.append("lower body arrays (Huston Table 8.1 layout)")
    table = model.lower_body_table()
    cw = max(2, len(str(model.n_bodies)))
    lines.append(f"{'K':<6}" + " ".join(f"{k:>{cw}}" for k in range(1, model.n_bodies + 1)))
    for p, row in enumerate(table, start=1):
        label = "L(K)" if p == 1 else f"L{p}(K)"
        lines.append(f"{label:<6}" + " ".join(f"{int(v):>{cw}}" for v in row))
    return "\n".join(lines)


def run_show(args) -> int:
    """Run ``humanbody model show`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    print(format_model(_resolve(args)))
    return 0


def run_export(args) -> int:
    """Run one of the ``humanbody model`` export actions with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    model = _build(args)
    model.save(args.out)
    print(f"wrote model ({model.n_bodies} segments, {model.total_mass:.3f} kg): {args.out}", file=sys.stderr)
    return 0

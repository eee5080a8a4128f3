"""``humanbody view TRIAL``: the 3-D viewer, or an off-screen screenshot / movie of it."""

from __future__ import annotations

import os
import sys

from ..errors import InputError
from ._options import add_load_options, add_marker_options, add_rate_options, add_subject_options, analysis_options

HELP = "3-D viewer: segments as inertia ellipsoids, joints, mass centres, vectors, markers"

EPILOG = """\
TRIAL is a marker file, a generalized-coordinates CSV, or a results CSV written by
`humanbody analyze` (its <stem>_model.json beside it is used unless --model is given).
With --screenshot or --movie nothing is shown on screen: the picture is rendered off
screen (no display needed) and the command exits.  In the window press h for the keys.
"""


def register(sub) -> None:
    """Add the ``humanbody view`` subcommand (its options and its function) to ``sub``.

    Parameters
    ----------
    sub : argparse._SubParsersAction
        The subcommands of the ``humanbody`` parser.
    """
    p = sub.add_parser("view", help=HELP, description=HELP + ".", epilog=EPILOG,
                       formatter_class=__import__("argparse").RawDescriptionHelpFormatter)
    p.add_argument("trial", metavar="TRIAL", help="trial file or results CSV")
    g = p.add_argument_group("pictures (off screen, then exit)")
    g.add_argument("--screenshot", metavar="PNG", help="write one frame as a PNG and exit")
    g.add_argument("--frame", type=int, default=0, metavar="N",
                   help="frame for --screenshot, or the first frame shown (0-based; negative from the end)")
    g.add_argument("--movie", metavar="FILE", help="write the trial as an .mp4 or .gif movie and exit")
    g.add_argument("--fps", type=float, default=30.0, help="movie pictures per second (real time; default 30)")
    g.add_argument("--size", default="1280x800", metavar="WxH", help="picture or window size in pixels (default 1280x800)")
    g.add_argument("--camera", default="auto", choices=("auto", "front", "side", "top", "follow"),
                   help="camera preset (default auto: side view of the whole trial, or follow the pelvis on long walks)")
    g.add_argument("--show", metavar="LAYERS",
                   help="comma-separated layers to show instead of the default (segments,joints,coms,body_com,"
                        "markers,floor; also omega,force,torque,grf)")
    g.add_argument("--select", metavar="SEGMENT", help="segment whose values the overlay shows")
    g.add_argument("--follow", metavar="SEGMENT",
                   help="camera attached to this segment's frame: it moves and turns with it (e.g. head)")
    p.add_argument("--activations", metavar="CSV",
                   help="with --model MODEL.osim: colour the muscle paths by activation (time + one column per muscle, "
                        "0..1, as <trial>_activations.csv)")
    p.add_argument("-q", "--quiet", action="store_true", help="print nothing but errors")
    add_subject_options(p)
    add_marker_options(p)
    add_rate_options(p)
    add_load_options(p, aliases=("--grf",))  # the ground reactions are drawn whenever forces are given
    p.set_defaults(func=run)


def parse_size(text: str) -> tuple[int, int]:
    """``"WxH"`` -> (width, height) in pixels, each 64 .. 8192.

    Parameters
    ----------
    text : str
        The option's text, "WxH".

    Returns
    -------
    (int, int)
        Width and height in pixels.
    """
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise InputError(f"--size must look like 1280x800, got {text!r}") from None
    if not (64 <= w <= 8192 and 64 <= h <= 8192):
        raise InputError(f"--size must be between 64 and 8192 pixels each way, got {text!r}")
    return w, h


def parse_layers(text: str | None):
    """Comma-separated layer names (None: the default layers).

    Parameters
    ----------
    text : str or None
        The option's text (e.g. "segments,markers,grf"), or None.

    Returns
    -------
    list of str or None
        The layer names, or None for the defaults.
    """
    if text is None:
        return None
    from ..viewer.scene import LAYERS  # lazy: keeps `humanbody --help` quick (pyvista, the viewer)

    layers = [t.strip() for t in text.split(",") if t.strip()]
    bad = [t for t in layers if t not in LAYERS]
    if bad:
        raise InputError(f"--show: no layer {bad[0]!r}; layers: {', '.join(LAYERS)}")
    return layers


def _has_display() -> bool:
    if sys.platform.startswith("linux"):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True


def run(args) -> int:
    """Run ``humanbody view`` with the parsed ``args``.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    int
        The exit status (0 done; bad input raises InputError, which the command line reports with status 2).
    """
    say = (lambda *a: None) if args.quiet else (lambda msg: print(msg, file=sys.stderr))
    size = parse_size(args.size)
    layers = parse_layers(args.show)
    if args.screenshot and not args.screenshot.lower().endswith(".png"):
        raise InputError("--screenshot file must end in .png", args.screenshot)
    if args.movie and os.path.splitext(args.movie)[1].lower() not in (".mp4", ".gif"):
        raise InputError("--movie file must end in .mp4 or .gif", args.movie)
    if args.fps <= 0:
        raise InputError(f"--fps must be positive, got {args.fps:g}")
    offscreen = bool(args.screenshot or args.movie)
    if args.model and str(args.model).lower().endswith(".osim"):
        return _run_osim(args, say, size)
    if args.activations:
        raise InputError("--activations colours an OpenSim model's muscles: give --model MODEL.osim", args.activations)
    if not offscreen and not _has_display():
        print("humanbody view: error: no display to open a window on; use --screenshot PNG or --movie FILE "
              "to render off screen", file=sys.stderr)
        return 2

    from ..viewer import (  # lazy: keeps `humanbody --help` quick (pyvista, the viewer)
        load_scene,
        movie,
        prepare_offscreen,
        screenshot,
    )

    if offscreen:
        prepare_offscreen()
    scene, messages = load_scene(args.trial, analysis_options(args))
    for line in messages:
        say(line)
    if not -scene.n_frames <= args.frame < scene.n_frames:
        raise InputError(f"--frame {args.frame} is outside the trial (0 .. {scene.n_frames - 1})", args.trial)
    if args.select is not None and args.select not in scene.names:
        raise InputError(f"--select: no segment {args.select!r}; segments: {', '.join(scene.names)}")
    if args.follow is not None:
        if args.follow not in scene.names:
            raise InputError(f"--follow: no segment {args.follow!r}; segments: {', '.join(scene.names)}")
        args.camera = f"follow:{args.follow}"
    if args.screenshot:
        screenshot(scene, args.screenshot, frame=args.frame, size=size, layers=layers, camera=args.camera,
                   select=args.select)
        say(f"wrote screenshot: {args.screenshot}")
    if args.movie:
        movie(scene, args.movie, fps=args.fps, size=size, layers=layers, camera=args.camera,
              select=args.select, progress=not args.quiet)
        say(f"wrote movie: {args.movie}")
    if offscreen:
        return 0
    from ..viewer import ViewerApp  # lazy: keeps `humanbody --help` quick (pyvista, the viewer)

    app = ViewerApp(scene, window_size=size, layers=layers, camera=args.camera)
    if args.select is not None:
        app.select(scene.names.index(args.select))
    app.set_frame(args.frame)
    say("viewer open: press h in the window for the keys, q to quit")
    app.show()
    return 0


def _run_osim(args, say, size) -> int:
    """``--model MODEL.osim``: TRIAL is a coordinates table; the model's bodies and muscle paths."""
    if args.movie or not args.screenshot:
        raise InputError("with --model MODEL.osim the viewer writes --screenshot PNG only (no window or movie yet)",
                         args.trial)
    from ..viewer.osim_scene import load_osim_scene, osim_screenshot  # lazy: pyvista, the model's kinematics

    scene = load_osim_scene(args.trial, args.model, args.activations)
    for note in scene.notes:
        say(note)
    osim_screenshot(scene, args.screenshot, frame=args.frame, size=size)
    say(f"wrote screenshot: {args.screenshot}")
    return 0

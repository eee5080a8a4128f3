"""The command-line options several commands share, and the options objects they build.

``analyze``, ``report``, ``compare`` and ``view`` add the same groups
(:func:`add_subject_options`, :func:`add_marker_options`,
:func:`add_rate_options`, :func:`add_load_options`, :func:`add_muscle_options`,
:func:`add_export_options`) and build one
:class:`~humanbody.options.AnalysisOptions` from them
(:func:`analysis_options`; the batch's :func:`report_options`).  Every
default is the named value it stands for (``humanbody.signal.CUTOFF_HZ``,
``humanbody.model.anthropometry.DEFAULT_MASS``, ...).
"""

from __future__ import annotations

import argparse

from ..errors import InputError
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS
from ..options import MARKERSET_CUTOFF, AnalysisOptions, parse_export, parse_feet
from ..signal import CUTOFF_HZ, FORCE_THRESHOLD
from ..signal.differentiate import METHODS, Differentiation


def add_subject_options(p) -> None:
    """Options shared by the commands that build a model for a subject.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    g = p.add_argument_group("subject and model")
    g.add_argument("--model", metavar="FILE", help="model file (JSON) instead of the scaled default model")
    g.add_argument("--mass", type=float, metavar="KG",
                   help=f"subject mass in kg (default: the subject file's, else from the force plates, else {DEFAULT_MASS:g})")
    g.add_argument("--height", type=float, metavar="M", help=f"subject standing height in m (default {DEFAULT_HEIGHT:g}, or from the static trial)")
    g.add_argument("--sex", choices=("male", "female"), default="male", help="anthropometric table (de Leva 1996)")
    g.add_argument("--subject", metavar="FILE",
                   help="subject measurements: Vicon .vsk or a TOML file (mass, height, leg lengths, knee and "
                        "ankle widths, ...; docs/formats.md); --mass and --height win over it")
    g.add_argument("--skip-check", action="append", default=[], metavar="CHECK",
                   help="go on where a plausibility check refuses (repeatable): mass, static, imu-still, "
                        "force-clock; unmeasured writes the values the recording does not measure (docs/checks.md); the check "
                        "is still logged")
    g.add_argument("--angle-zero", choices=("anatomical", "static"), default="anatomical",
                   help="zero of the clinical joint angles: between the anatomical segment frames (default; a "
                        "standing subject shows his own pelvic tilt) or in the standing calibration pose")
    g.add_argument("--moment-frame", choices=("distal", "proximal", "jcs", "global"), default=None,
                   help="frame of the clinical joint moments: the distal segment's (Plug-in Gait's), the "
                        "proximal segment's, the joint coordinate system's axes, or the progression frame "
                        "(default: distal for the Plug-in Gait marker sets, jcs otherwise)")


def cutoff_value(text: str) -> float | str:
    """``--cutoff``'s value: a frequency in Hz (0: no filter), ``auto`` or ``set`` (the marker set's).

    Parameters
    ----------
    text : str
        The option's text.

    Returns
    -------
    float or str
        The cut-off frequency (Hz, >= 0), or "auto" or "set".
    """
    if text.strip().lower() in ("auto", MARKERSET_CUTOFF):
        return text.strip().lower()
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a frequency in Hz or 'auto', got {text!r}") from None
    if not (value >= 0.0 and value < float("inf")):
        raise argparse.ArgumentTypeError(f"expected a frequency >= 0 Hz or 'auto', got {text!r}")
    return value


def add_marker_options(p) -> None:
    """Options of marker trials shared by analyze, report and view.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    g = p.add_argument_group("marker trials")
    g.add_argument("--static", metavar="FILE", help="standing calibration trial (same markers and lab)")
    g.add_argument("--markerset", metavar="NAME|FILE", help="marker set: built-in name or a marker-set file (default: detected from the marker names)")
    g.add_argument("--hip-trial", metavar="FILE", help="hip calibration trial (flexion, abduction, circumduction; same markers): functional (SCoRE) hip centres where its hip range allows, else the marker set's regression; a message says which")
    g.add_argument("--axes", default="auto", metavar="SPEC", help="lab axes -> ground (X forward, Y left, Z up): 'auto' (detect, default), a spec like 'x,-z,y' (ground X = lab x, ground Y = lab -z, ground Z = lab y), or 'opensim'")
    g.add_argument("--cutoff", type=cutoff_value, default=MARKERSET_CUTOFF, metavar="HZ|auto|set",
                   help=f"low-pass cut-off of the zero-phase Butterworth marker filter (default 'set': the marker set's, "
                        f"{CUTOFF_HZ:g} Hz, none for the Plug-in Gait sets, which compute from the markers as stored; "
                        "0 = no filter; "
                        "auto = chosen per trial by Winter's residual analysis, e.g. for running or jumping)")
    g.add_argument("--max-gap", type=float, default=0.1, metavar="S", help="longest marker gap filled in time, in s (default 0.1)")
    g.add_argument("--ik", choices=("auto", "segments", "global"), default="auto",
                   help="tracking: each segment fitted alone (segments), whole-body inverse kinematics with the "
                        "joints held together (global), or auto (default): global when some tracked segment has "
                        "fewer than three points or the markers are video keypoints")
    g.add_argument("--joint-limits", choices=("off", "physiological", "anatomical"), default=None,
                   help="whole-body inverse kinematics: hold the hips, knees, ankles and elbows within "
                        "physiological (wide) or anatomical ranges (default: the marker set's [ik] limits: "
                        "anatomical for the keypoint sets, none for the other built-in sets)")
    g.add_argument("--fill", choices=("spline", "rigid", "linear"), default="spline", help="marker gap filling: cubic spline in time (default), rigid-body fit to the other markers of the segment (any gap length), or linear")
    g.add_argument("--imu-heading", default=None, metavar="AXIS", help="orientation (IMU) trials: the pelvis sensor's axis pointing forward in the calibration posture (x, -z, ...; default: the one the knees' flexion axis in the trial points to; none: the subject faced the world's +X); --static is then an orientation file in that posture (default: the trial's first 0.5 s)")
    g.add_argument("--imu-knee", choices=("hinge", "free"), default="hinge", help="orientation (IMU) sensor trials: knees as hinges fitted to the thigh and shank sensors together, as OpenSense's models (default), or free: each segment from its own sensor, three knee rotations")
    g.add_argument("--imu-map", default=None, metavar="MAP", help="Xsens MT text trials (a folder or trial prefix): the sensor -> segment mapping, an OpenSense mapping XML or ID=name pairs (00B42279=pelvis_imu,...; default: the mapping XML in the folder)")


def add_load_options(p, report: bool = False, aliases: tuple = ()) -> None:
    """External loads: force plates or a loads table (kinetics); ``aliases``: old spellings of ``--forces``.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser; the options are added to it.
    report : bool
        For ``humanbody report`` (the force files are found per trial).
    aliases : tuple of str
        Other option strings accepted for --forces.
    """
    g = p.add_argument_group("external loads (joint forces, moments and powers)")
    if report:
        g.add_argument("--no-kinetics", action="store_true",
                       help="do not compute kinetics from the force files found beside the trials")
    else:
        g.add_argument("--forces", *aliases, dest="forces", metavar="FILE",
                       help="force plates (OpenSim .mot/.sto, with its ExternalLoads .xml when beside it, or that .xml itself; C3D "
                            "force platforms) or a loads table (CSV): adds joint forces, moments and powers"
                            + (f" ({', '.join(aliases)}: the same)" if aliases else ""))
    g.add_argument("--load", action="append", default=[], metavar="NAME=SEGMENT",
                   help="give load NAME of the force file to SEGMENT (repeatable; default: the file's "
                        "ExternalLoads, else the foot nearest the centre of pressure)")
    g.add_argument("--force-threshold", type=float, default=FORCE_THRESHOLD, metavar="N",
                   help=f"vertical force below which a load is zero (default {FORCE_THRESHOLD:g} N)")
    g.add_argument("--forces-cutoff", type=float, default=None, metavar="HZ",
                   help="low-pass cut-off of the loads (default: the marker cut-off; 0 = no filter)")
    add_reduction_option(g)


def add_reduction_option(g) -> None:
    """``--reduce-residuals`` (analyze, report, view: one option).

    Parameters
    ----------
    g : argparse._ArgumentGroup
        The option group the option is added to.
    """
    g.add_argument("--reduce-residuals", action="store_true",
                   help="adjust the mass distribution, the trunk's mass centre and the pelvis trajectory (markers "
                        "within 2 cm) so the pelvis residual meets Hicks et al. 2015's criteria; reported in the log")


def add_muscle_options(g, muscles_help: str) -> None:
    """``--muscles`` and ``--reserves`` (analyze, report: one declaration).

    Parameters
    ----------
    g : argparse.ArgumentParser or argument group
        Where the two options go.
    muscles_help : str
        What ``--muscles`` adds in this command (its help text); ``--reserves`` is the same everywhere.
    """
    g.add_argument("--muscles", action="store_true", help=muscles_help)
    g.add_argument("--reserves", metavar="ACTUATORS.xml",
                   help="with --muscles: OpenSim actuators file of the reserves (default: a CoordinateActuator of "
                        "optimal force 1 on every coordinate)")


def loads_from(args) -> dict:
    """``--load NAME=SEGMENT`` options as a dict (InputError for a malformed one).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    dict of str to str
        Load name -> segment.
    """
    out = {}
    for item in getattr(args, "load", None) or []:
        name, sep, seg = item.partition("=")
        if not sep or not name.strip() or not seg.strip():
            raise InputError(f"--load {item!r}: expected NAME=SEGMENT, for example plate1=right_foot")
        out[name.strip()] = seg.strip()
    return out


def add_rate_options(p) -> None:
    """``--diff`` and ``--diff-cutoff``: how rates are differentiated when the trial does not give them.

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    g = p.add_argument_group("rates (when the trial does not give _dot/_ddot columns)")
    g.add_argument("--diff", choices=METHODS, default="savgol", help="smoothing differentiation (default savgol; the Plug-in Gait sets: gradient)")
    g.add_argument("--diff-cutoff", type=float, default=CUTOFF_HZ, metavar="HZ",
                   help=f"-3 dB cut-off of the differentiation (default {CUTOFF_HZ:g} Hz)")


def differentiation_from(args) -> Differentiation:
    """``--diff`` and ``--diff-cutoff`` (the method defaults to savgol: report's ``--diff`` has no default).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).

    Returns
    -------
    Differentiation
        The method and its cut-off frequency (Hz).
    """
    return Differentiation(method=getattr(args, "diff", None) or "savgol",
                           cutoff_hz=getattr(args, "diff_cutoff", Differentiation.cutoff_hz))


def analysis_options(args, **per_trial):
    """The :class:`~humanbody.options.AnalysisOptions` of parsed options (analyze, report, compare, view).

    The one place where a command-line option becomes an analysis option:
    the options added by :func:`add_subject_options`,
    :func:`add_marker_options`, :func:`add_rate_options`,
    :func:`add_load_options` and :func:`add_export_options`; a command that
    lacks some of them gets their defaults.  ``per_trial`` sets options
    the command decides per trial (report: ``static=None, forces=None``,
    taken from each trial's task).

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).
    **per_trial
        Option name -> value.

    Returns
    -------
    AnalysisOptions
        Every analysis option, checked.
    """
    def opt(name, default=None):
        return getattr(args, name, default)

    feet = opt("opensim_feet")
    values = dict(
        static=opt("static"), markerset=opt("markerset"), hip_trial=opt("hip_trial"), model=opt("model"),
        mass=opt("mass"), height=opt("height"), sex=opt("sex", "male"), subject=opt("subject"),
        axes=opt("axes", "auto"), cutoff_hz=opt("cutoff", MARKERSET_CUTOFF) or None, max_gap=opt("max_gap", 0.1),
        fill=opt("fill", "spline"), ik=opt("ik", "auto"), joint_limits=opt("joint_limits"), imu_heading=opt("imu_heading"),
        imu_map=opt("imu_map"), imu_knee=opt("imu_knee", "hinge"),
        angle_zero=opt("angle_zero", "anatomical"), moment_frame=opt("moment_frame"), differentiation=differentiation_from(args),
        forces=opt("forces"), load_segments=loads_from(args), force_threshold=opt("force_threshold", FORCE_THRESHOLD),
        forces_cutoff_hz=opt("forces_cutoff"), reduce_residuals=bool(opt("reduce_residuals", False)), export=parse_export(opt("export")),
        opensim_feet=parse_feet(feet) if feet else None,  # None: the default feet, as the API's
        skip_checks=tuple(opt("skip_check", None) or ()),
    )
    values.update(per_trial)
    return AnalysisOptions(**values)


def report_options(args, **report):
    """The batch's :class:`~humanbody.report.ReportOptions`: the analysis options of the command line
    (:func:`analysis_options`; each trial's static and force files are its
    task's) and the report's own ``report`` values.

    Parameters
    ----------
    args : argparse.Namespace
        The parsed command line: the command's options as attributes (argparse.Namespace).
    **report
        ReportOptions field -> value.

    Returns
    -------
    ReportOptions
        The report's options with its analysis options.
    """
    from ..report.trial import ReportOptions  # lazy: keeps `humanbody --help` quick (the report pipeline)

    return ReportOptions(analysis_options(args, static=None, forces=None), **report)


def add_export_options(p) -> None:
    """``--export`` and ``--opensim-feet`` (analyze and report).

    Parameters
    ----------
    p : argparse.ArgumentParser
        The command's parser; the options are added to it.
    """
    g = p.add_argument_group("export for other programs")
    g.add_argument("--export", metavar="FORMATS",
                   help="also write c3d (<stem>.c3d: the input with our angles, moments, powers, forces and gait "
                        "events as Vicon Nexus names them), opensim (opensim/: TRC, GRF MOT with ExternalLoads XML, "
                        "angles MOT, moments STO) or both: c3d,opensim")
    g.add_argument("--opensim-feet", metavar="R,L",
                   help="OpenSim bodies the right and left foot loads are applied to (default calcn_r,calcn_l)")

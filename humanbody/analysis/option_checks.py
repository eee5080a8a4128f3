"""The options of one analysis checked once, up front: :func:`checked` (and :func:`options_with`)."""

from __future__ import annotations

import numpy as np

from ..errors import InputError
from ..imu.calibration import parse_heading
from ..lab.axes import parse_axes
from ..markers.gaps import FILL_METHODS
from ..markers.global_ik import LIMIT_TABLES, joint_limits
from ..mechanics.clinical import ANGLE_ZEROS
from ..mechanics.moment_frames import MOMENT_FRAMES
from ..model.anthropometry import DEFAULT_HEIGHT, DEFAULT_MASS, check_sex, validate_subject
from ..model.body import BodyModel
from ..model.segments import SEGMENT_NAMES
from ..options import EXPORT_FORMATS, IK_METHODS, MARKERSET_CUTOFF, AnalysisOptions, parse_export, parse_feet


def options_with(options: AnalysisOptions | None, overrides: dict) -> AnalysisOptions:
    """``options`` (default ``AnalysisOptions()``) with the keyword ``overrides`` applied.

    Parameters
    ----------
    options : AnalysisOptions or None
        The options (None: ``AnalysisOptions()``).
    overrides : dict
        Option name -> value.

    Returns
    -------
    AnalysisOptions
        A new options value (``options`` itself without overrides).
    """
    opts = AnalysisOptions() if options is None else options
    if not isinstance(opts, AnalysisOptions):
        raise TypeError(f"options must be an AnalysisOptions, not {type(opts).__name__}")
    return opts.replace(**overrides) if overrides else opts


def checked(opts: AnalysisOptions, path: str | None = None) -> AnalysisOptions:
    """``opts``, once every option holds a value the analysis can take; else the InputError naming the
    option, raised before anything is read (``path``: the trial file, named as the stage using the option
    names it).  The one place the options' values are checked: the stages take them as given.

    ``mass`` and ``height`` (positive, plausible: :func:`humanbody.model.anthropometry.validate_subject`),
    ``sex`` (male, female), ``axes`` ("auto" or a spec, :func:`humanbody.lab.axes.parse_axes`),
    ``cutoff_hz`` (Hz, 0 or None: no filter; "auto", "set"), ``max_gap`` (s, not negative), ``fill``
    (:data:`humanbody.markers.gaps.FILL_METHODS`), ``ik`` (auto, segments, global), ``joint_limits``
    (off, physiological, anatomical or a table: :func:`humanbody.markers.global_ik.joint_limits`),
    ``imu_heading`` (:func:`humanbody.imu.calibration.parse_heading`), ``imu_knee`` (hinge, free),
    ``angle_zero`` (:data:`humanbody.mechanics.clinical.ANGLE_ZEROS`), ``moment_frame``
    (:data:`humanbody.mechanics.moment_frames.MOMENT_FRAMES`), ``load_segments`` (segments of the model:
    the given one's, else the body's; a model file's are checked as it is read, :func:`subject_model`),
    ``force_threshold`` (N, not negative), ``forces_cutoff_hz`` (Hz, 0: no filter; None), ``export``
    (:data:`humanbody.options.EXPORT_FORMATS`) and ``opensim_feet`` (two body names).  ``skip_checks`` and
    ``differentiation`` are checked as the options are made (:class:`~humanbody.options.AnalysisOptions`);
    the files (``static``, ``forces``, ...) as they are read.

    Parameters
    ----------
    opts : AnalysisOptions
        The options of one analysis.
    path : str, optional
        The trial file, named first in the errors that name it (``ik``, ``fill``, ``max_gap``).

    Returns
    -------
    AnalysisOptions
        ``opts`` itself.
    """
    for what, value in (("mass", opts.mass), ("height", opts.height)):
        if value is not None:
            try:
                validate_subject(**{"mass": DEFAULT_MASS, "height": DEFAULT_HEIGHT, what: value})
            except InputError as err:
                raise InputError(err.message, option=what) from None
    check_sex(opts.sex)
    if not (isinstance(opts.axes, str) and opts.axes.strip().lower() == "auto"):
        try:
            parse_axes(opts.axes)
        except InputError as err:
            raise InputError(err.message if err.message.startswith("axes") else f"axes {opts.axes!r}: {err.message}",
                             option="axes") from None
    if not _cutoff_ok(opts.cutoff_hz, ("auto", MARKERSET_CUTOFF)):
        raise InputError(f"cutoff_hz must be a cut-off in Hz (0 or None: no filter), \"auto\" or "
                         f"\"{MARKERSET_CUTOFF}\", not {opts.cutoff_hz!r}", option="cutoff_hz")
    if opts.max_gap is None or not np.isfinite(opts.max_gap) or opts.max_gap < 0:
        raise InputError(f"max_gap must be a non-negative number of seconds, got {opts.max_gap!r}", path)
    if opts.fill not in FILL_METHODS:
        raise InputError(f"unknown fill method {opts.fill!r}; use one of {', '.join(FILL_METHODS)}", path)
    if opts.ik not in IK_METHODS:
        raise InputError(f"ik must be auto, segments or global, not {opts.ik!r}", path, option="ik")
    _check_joint_limits(opts.joint_limits)
    parse_heading(opts.imu_heading)
    if opts.imu_knee not in ("hinge", "free"):
        raise InputError(f"imu_knee {opts.imu_knee!r}: expected hinge or free", option="imu_knee")
    if opts.angle_zero not in ANGLE_ZEROS:
        raise InputError(f"angle_zero must be one of {', '.join(ANGLE_ZEROS)}, not {opts.angle_zero!r}",
                         option="angle_zero")
    if opts.moment_frame is not None and opts.moment_frame not in MOMENT_FRAMES:
        raise InputError(f"moment_frame must be one of {', '.join(MOMENT_FRAMES)}, not {opts.moment_frame!r}",
                         option="moment_frame")
    if isinstance(opts.model, BodyModel) or opts.model is None:
        check_load_segments(opts, opts.model.names if isinstance(opts.model, BodyModel) else SEGMENT_NAMES)
    if not _number_ok(opts.force_threshold, low=0.0):
        raise InputError(f"force_threshold must be a force in N, 0 or above, not {opts.force_threshold!r}",
                         option="force_threshold")
    if not _cutoff_ok(opts.forces_cutoff_hz, ()):
        raise InputError(f"forces_cutoff_hz must be a cut-off in Hz (0: no filter) or None (the markers' cut-off), "
                         f"not {opts.forces_cutoff_hz!r}", option="forces_cutoff_hz")
    if any(not isinstance(f, str) or f not in EXPORT_FORMATS for f in opts.export):
        parse_export(",".join(map(str, opts.export)))  # the command line's error for the first unknown format
    if opts.opensim_feet is not None:
        feet = opts.opensim_feet
        parse_feet(",".join(map(str, feet)) if not isinstance(feet, str) else feet)
    return opts


def check_load_segments(opts: AnalysisOptions, names) -> None:
    """Refuse a ``load_segments`` assignment to a segment the model lacks (one line naming its segments).

    Parameters
    ----------
    opts : AnalysisOptions
        ``load_segments``: (load name, segment) pairs.
    names : sequence of str
        The model's segment names.

    Raises
    ------
    InputError
        Naming the option, the assignment and the model's segments.
    """
    for name, seg in opts.load_segments:
        if seg not in names:
            raise InputError(f"load_segments {name}={seg}: no segment {seg!r} in the model "
                             f"(segments: {', '.join(names)})", option="load_segments")


def _number_ok(value, low: float) -> bool:
    """Whether ``value`` is a real number (not a bool), finite and at least ``low``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        return False
    return bool(np.isfinite(value) and value >= low)


def _cutoff_ok(value, words: tuple) -> bool:
    """Whether ``value`` is None, one of ``words`` or a cut-off in Hz, 0 (no filter) or above (the Nyquist bound
    needs the trial's rate: the filter checks it)."""
    if value is None or (isinstance(value, str) and value in words):
        return True
    return _number_ok(value, low=0.0)


def _check_joint_limits(limits) -> None:
    """Refuse ``joint_limits`` other than None, "off", a built-in table's name or a table of bounds."""
    if limits is None or (isinstance(limits, str) and limits in ("off", *LIMIT_TABLES)):
        return
    if isinstance(limits, str) or not hasattr(limits, "items"):
        raise InputError(f"joint_limits must be off, {', '.join(LIMIT_TABLES)} or a table of bounds, not {limits!r}",
                         option="joint_limits")
    joint_limits(limits, "joint_limits")  # a table: its segments and bounds

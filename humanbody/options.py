"""Every choice of one trial's analysis in one place: :class:`AnalysisOptions`.

``humanbody analyze``, ``report``, ``compare`` and ``view`` build it once
from their command-line options
(:func:`humanbody.commands._options.analysis_options`), the batch report fills
it per trial from the manifest columns
(:func:`humanbody.report.trial.trial_options`), the viewer's loader and the
Python API take it (:func:`humanbody.analysis.analyze_trial`)::

    from humanbody.options import AnalysisOptions
    opts = AnalysisOptions(static="static.trc", mass=72.6, forces="walk_grf.mot")
    analysis = humanbody.analyze_trial("walk.trc", opts)
    analysis = humanbody.analyze_trial("walk.trc", opts, cutoff_hz=8.0)  # one option changed

A field's name is the option's one name in Python; its docstring gives its
meaning and units.  The options are frozen (hashable, safe to share across
worker processes); :meth:`AnalysisOptions.replace` gives a changed copy.
"""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .errors import InputError
from .signal import FORCE_THRESHOLD
from .signal.differentiate import Differentiation

if TYPE_CHECKING:  # types only
    from .io.subject import Subject
    from .model.body import BodyModel

#: ``cutoff_hz``'s default: the marker set's own cut-off (``parameters["marker_cutoff_hz"]``, 0: none), else
#: ``CUTOFF_HZ``.
MARKERSET_CUTOFF = "set"

__all__ = ["AnalysisOptions", "CHECKS", "check_names", "IK_METHODS", "EXPORT_FORMATS", "DEFAULT_FEET", "parse_export", "parse_feet"]

#: The plausibility checks a user may skip, each by ``--skip-check NAME`` (:mod:`humanbody.checks`).
CHECKS = ("mass", "static", "imu-still", "force-clock", "unmeasured")


def check_names(values) -> tuple:
    """``values`` (names, or one comma-separated string) as a tuple of check names; InputError for an unknown one.

    Parameters
    ----------
    values : str or iterable of str or None
        The checks to skip (``--skip-check``): names of :data:`CHECKS`, each a string or one comma-separated
        string; None or empty: none.

    Returns
    -------
    tuple of str
        The check names, in the order given.
    """
    if not values:
        return ()
    items = [values] if isinstance(values, str) else list(values)
    names = tuple(n.strip() for item in items for n in str(item).split(",") if n.strip())
    unknown = [n for n in names if n not in CHECKS]
    if unknown:
        raise InputError(f"skip_checks {unknown[0]!r}: no such check (checks: {', '.join(CHECKS)})",
                         option="skip_checks")
    return names


#: Tracking methods ``ik`` takes (:func:`humanbody.markers.global_ik.choose_method`).
IK_METHODS = ("auto", "segments", "global")
#: Formats ``--export`` writes (:mod:`humanbody.export`).
EXPORT_FORMATS = ("c3d", "opensim")
#: OpenSim bodies the right and left foot loads are applied to in an OpenSim export.
DEFAULT_FEET = ("calcn_r", "calcn_l")


def _pairs(loads) -> tuple:
    """``{name: segment}`` or pairs -> a tuple of (name, segment) pairs (hashable, order kept)."""
    if not loads:
        return ()
    items = loads.items() if hasattr(loads, "items") else loads
    return tuple((str(name), str(seg)) for name, seg in items)


def parse_export(text) -> tuple:
    """``"c3d,opensim"`` -> ("c3d", "opensim"); None or "" -> (); an unknown name is an InputError.

    Parameters
    ----------
    text : str or None
        ``--export``: export formats of :data:`EXPORT_FORMATS`, comma-separated; None or "": none.

    Returns
    -------
    tuple of str
        The formats, in the order given.
    """
    if not text:
        return ()
    items = [t.strip().lower() for t in str(text).split(",")]
    bad = [t for t in items if t not in EXPORT_FORMATS]
    if bad or not items:
        raise InputError(f"export {text!r}: unknown format {bad[0] if bad else ''!r}; choose c3d, opensim "
                         "or c3d,opensim", option="export")
    return tuple(dict.fromkeys(items))


def parse_feet(text) -> tuple:
    """``--opensim-feet R,L``: the OpenSim bodies the right and left foot loads are applied to.

    Parameters
    ----------
    text : str or None
        ``"R,L"``: two body names; None or ``""``: :data:`DEFAULT_FEET`.

    Returns
    -------
    tuple of (str, str)
        The OpenSim body names the right and the left foot's loads are applied to.
    """
    if text is None:
        return DEFAULT_FEET
    parts = [p.strip() for p in str(text).split(",")]
    if len(parts) != 2 or not all(parts) or any(not p.replace("_", "").replace(".", "").isalnum() for p in parts):
        raise InputError(f"opensim_feet {text!r}: expected two OpenSim body names RIGHT,LEFT, for example "
                         "calcn_r,calcn_l", option="opensim_feet")
    return tuple(parts)


@dataclass(frozen=True)
class AnalysisOptions:
    """The options of one trial's analysis (defaults: those of ``humanbody analyze``)."""

    static: str | None = None
    """Standing calibration trial (markers in the same lab as the trial; for an orientation
    trial an orientation file in the calibration posture).  None: calibrated from the trial."""
    markerset: str | None = None
    """Built-in marker-set name or a marker-set file; None: detected from the marker names."""
    hip_trial: str | None = None
    """Hip calibration trial (same marker set): functional (SCoRE) hip centres where its hip
    range allows, else the marker set's regression."""
    model: str | os.PathLike | BodyModel | None = None
    """Model file (JSON) or a :class:`~humanbody.model.body.BodyModel` instead of the scaled default."""
    mass: float | None = None
    """Subject mass (kg).  None: the subject file's, else from the force plates, else 75 kg (said so)."""
    height: float | None = None
    """Subject standing height (m).  None: the subject file's, else the static trial's, else 1.75 m."""
    sex: str = "male"
    """Anthropometric table scaled (de Leva 1996): "male" or "female"."""
    subject: str | os.PathLike | Subject | None = None
    """Subject measurements (Vicon ``.vsk`` or TOML path, or a :class:`~humanbody.io.subject.Subject`):
    mass and height when not given, and the widths and lengths the marker set's joint centres use."""
    axes: str = "auto"
    """Lab -> ground axes: "auto" (detected from the markers) or a spec such as "x,-z,y" or "opensim"."""
    cutoff_hz: float | str | None = MARKERSET_CUTOFF
    """Low-pass cut-off (Hz) of the zero-phase Butterworth marker filter; None: no filter; "auto":
    chosen per trial by Winter's residual analysis (:mod:`humanbody.signal.residual`); "set" (the
    default): the marker set's, ``CUTOFF_HZ`` (6 Hz) except where the set says otherwise (the Plug-in
    Gait sets: none, the markers as stored, as Plug-in Gait computes, with their rates by central differences
    unless ``differentiation`` is not the default).  A trial without markers takes ``CUTOFF_HZ`` for its loads."""
    max_gap: float = 0.1
    """Longest marker gap filled in time (s)."""
    fill: str = "spline"
    """Marker gap filling: "spline" (cubic in time), "rigid" (segment cluster fit) or "linear"."""
    ik: str = "auto"
    """Tracking: "segments" (each segment fitted alone), "global" (whole-body inverse kinematics)
    or "auto" (global when some tracked segment keeps fewer than three points or for keypoints)."""
    joint_limits: str | None = None
    """Joint limits of whole-body inverse kinematics: "off", "physiological", "anatomical", or None
    (the marker set's ``[ik] limits``; :func:`humanbody.markers.global_ik.joint_limits`)."""
    imu_heading: str | None = None
    """Orientation trials: the pelvis sensor's axis pointing forward in the calibration posture
    ("-z", ...); None: found from the knees' flexion axis in the trial (:mod:`humanbody.imu.knee_axis`);
    "none": the subject faced the world's +X."""
    imu_knee: str = "hinge"
    """Orientation (sensor) trials: "hinge" knees fitted to the thigh and shank sensors together (as
    OpenSense's models), or "free": each segment from its own sensor (three knee rotations)."""
    imu_map: str | None = None
    """Xsens MT text trials: sensor -> segment mapping, an OpenSense mapping XML or "ID=name,..."
    (None: the mapping XML in the trial's folder)."""
    angle_zero: str = "anatomical"
    """Zero of the clinical joint angles (deg): "anatomical" (between the anatomical segment
    frames) or "static" (the standing calibration pose)."""
    moment_frame: str | None = None
    """Frame of the clinical joint moments: "distal", "proximal", "jcs" or "global"
    (:mod:`humanbody.mechanics.moment_frames`); None: the marker set's ("distal" for Plug-in Gait), else "jcs"."""
    differentiation: Differentiation = field(default_factory=Differentiation)
    """How rates (rad/s, rad/s², m/s, m/s²) are obtained when the trial does not give them; a
    method name ("savgol", ...) is taken as that method at its default cut-off (6 Hz)."""
    forces: str | None = None
    """External loads: force plates (OpenSim ``.mot``/``.sto`` with its ExternalLoads ``.xml``
    beside it, C3D platforms) or a loads table (CSV), in the trial's lab axes (N, m, N·m)."""
    load_segments: tuple = ()
    """Load name -> segment assignments, overriding the file's and the automatic one; given as a
    dict or (name, segment) pairs, kept as a tuple of pairs (``--load NAME=SEGMENT``)."""
    force_threshold: float = FORCE_THRESHOLD
    """Vertical force (N) below which a load is zero (no contact)."""
    forces_cutoff_hz: float | None = None
    """Low-pass cut-off (Hz) of the loads; None: the markers' cut-off (the one chosen, under "auto")."""
    reduce_residuals: bool = False
    """Residual reduction (trials with loads): the mass distribution, the trunk's mass centre and the
    root's trajectory adjusted so the root residual meets Hicks et al. 2015's criteria
    (:func:`humanbody.analysis.reduce`, docs/kinetics.md)."""
    use_platforms: bool = True
    """A C3D marker trial with force platforms and no ``forces`` uses its own platforms."""
    export: tuple = ()
    """Formats for other programs written beside the results: "c3d", "opensim" (:mod:`humanbody.export`)."""
    opensim_feet: tuple | None = None
    """OpenSim bodies (right, left) the foot loads are applied to in an OpenSim export; None: calcn_r, calcn_l."""

    skip_checks: tuple = ()
    """Plausibility checks not to refuse on (:data:`humanbody.checks.CHECKS`: "mass", "static",
    "imu-still", "force-clock", "unmeasured": write the values the recording does not measure,
    :mod:`humanbody.checks.unmeasured`); each is still logged (``--skip-check NAME``)."""

    def __post_init__(self):
        object.__setattr__(self, "skip_checks", check_names(self.skip_checks))
        diff = self.differentiation
        if diff is None:
            object.__setattr__(self, "differentiation", Differentiation())
        elif isinstance(diff, str):
            object.__setattr__(self, "differentiation", Differentiation(method=diff))
        object.__setattr__(self, "load_segments", _pairs(self.load_segments))
        if isinstance(self.export, str):
            object.__setattr__(self, "export", (self.export,))
        else:
            object.__setattr__(self, "export", tuple(self.export or ()))

    @property
    def load_map(self) -> dict:
        """``load_segments`` as a dict {load name: segment}."""
        return dict(self.load_segments)

    def replace(self, **changes) -> AnalysisOptions:
        """A copy with ``changes`` (option name -> value); TypeError names an unknown option.

        Parameters
        ----------
        **changes
            Option name -> value.

        Returns
        -------
        AnalysisOptions
            A new options value; ``self`` is unchanged.
        """
        names = {f.name for f in dataclasses.fields(self)}
        unknown = sorted(set(changes) - names)
        if unknown:
            raise TypeError(f"unknown analysis option(s): {', '.join(unknown)} (options: {', '.join(sorted(names))})")
        return dataclasses.replace(self, **changes)

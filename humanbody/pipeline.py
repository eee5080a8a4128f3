"""One trial from file to mechanics: read, map axes, condition, track, compute.

:func:`analyze_trial` is what ``humanbody analyze`` (and the batch report
and the viewer) run for one trial file:

1. :func:`humanbody.io.read_trial` reads markers or generalized coordinates;
2. for markers: lab axes -> ground (:func:`humanbody.markers.axes.to_ground`),
   gap filling and low-pass filtering (:func:`humanbody.markers.conditioning.condition`),
   static calibration and segment tracking
   (:func:`humanbody.markers.tracking.markers_to_coordinates`) give the
   generalized coordinates;
3. :func:`humanbody.compute` gives the mechanics of every segment.

:func:`humanbody.trial_output.write_results` writes its files.  Every step
reports what it did in ``Analysis.messages`` (conversions, the axes
mapping, filled gaps, the marker set, how rates were obtained).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from .signal.differentiate import Differentiation
from .errors import InputError
from .mechanics.kinematics import Motion, compute_motion, prepare_motion
from .model.body import BodyModel, load_model
from .mechanics.results import Results

__all__ = ["Analysis", "analyze_trial", "DEFAULT_MASS", "DEFAULT_HEIGHT"]

DEFAULT_MASS = 75.0
DEFAULT_HEIGHT = 1.75


@dataclass(eq=False)
class Analysis:
    """Everything known about one analysed trial.

    Attributes
    ----------
    source : str                       the trial file
    coords : DataFrame                 generalized coordinates (layout of docs/conventions.md, rad)
    model : BodyModel                  the model used (calibrated when a static trial was given)
    motion : Motion                    coordinates with their rates, ready for the kernel
    results : Results                  the mechanics (computed on first access)
    markers : DataFrame or None        marker trajectories in ground axes after conditioning
    calibration : object or None       static calibration (marker trials)
    loads : FrameLoads or None         external loads on the frames, assigned to segments (--forces)
    angle_zero : str                   zero of the clinical angles: "anatomical" (default) or "static"
    load_table : LoadTable or None     the loads as read (ground axes, the file's own rate), for export
    raw : DataFrame or None            the marker trial as read (lab axes), kept when asked (for export)
    axes : AxesMapping or None         the lab -> ground axes of a marker trial
    tracking : object or None          tracking result with residuals (marker trials)
    messages : list of str             what each step did, for the user (a screenful)
    details : list of str              per-marker and per-gap details (``--verbose``, and the log file)
    """

    source: str
    coords: pd.DataFrame
    model: BodyModel
    motion: Motion
    markers: pd.DataFrame | None = None
    calibration: Any = None
    tracking: Any = None
    messages: list = field(default_factory=list)
    details: list = field(default_factory=list)
    loads: Any = None
    angle_zero: str = "anatomical"
    load_table: Any = None
    axes: Any = None
    raw: Any = None
    _results: Results | None = field(default=None, repr=False)
    _clinical: pd.DataFrame | None = field(default=None, repr=False)

    @property
    def kinetics(self) -> pd.DataFrame | None:
        """The kinetic columns (docs/conventions.md) as a table, when external loads were given; else None."""
        if self.loads is None:
            return None
        from .mechanics.kinetics import kinetic_block, kinetic_columns

        return pd.DataFrame(kinetic_block(self.model, self.results, self.loads),
                            columns=kinetic_columns(self.model))

    @property
    def clinical(self) -> pd.DataFrame:
        """Clinical joint angles (degrees, one row per frame; :func:`humanbody.mechanics.clinical.clinical_angles`).

        Zero as ``angle_zero`` says: between the anatomical segment frames
        (default), or in the calibration pose (``"static"``; the upper limbs
        in the reference posture).  Computed on first access, then kept.
        """
        if self._clinical is None:
            from .mechanics.clinical import clinical_angles

            self._clinical = clinical_angles(self.model, self.coords, self.calibration, zero=self.angle_zero)
        return self._clinical

    @property
    def results(self) -> Results:
        """The mechanics of every frame (computed on first access, then kept).

        A long trial written by :func:`write_results` never needs them all at
        once: it is evaluated range by range from ``motion``.
        """
        if self._results is None:
            self._results = compute_motion(self.model, self.motion)
        return self._results

    @property
    def n_frames(self) -> int:
        return self.motion.n_frames

    @property
    def stem(self) -> str:
        """File stem used for output names."""
        return Path(self.source).stem

    @property
    def residuals(self) -> pd.DataFrame | None:
        """Per-frame tracking residuals (m) by segment, when markers were tracked."""
        return getattr(self.tracking, "residuals", None)


def _subject_model(model, mass, height, sex, messages) -> BodyModel | None:
    if model is not None:
        if isinstance(model, BodyModel):
            return model
        messages.append(f"model: {model}")
        return load_model(model)
    if mass is None and height is None:
        return None
    m = DEFAULT_MASS if mass is None else float(mass)
    h = DEFAULT_HEIGHT if height is None else float(height)
    return BodyModel.default(mass=m, height=h, sex=sex)


def analyze_trial(
    path,
    *,
    static=None,
    markerset=None,
    model=None,
    mass: float | None = None,
    height: float | None = None,
    sex: str = "male",
    axes: str = "auto",
    cutoff_hz: float | None = 6.0,
    max_gap: float = 0.1,
    fill: str = "spline",
    differentiation: Differentiation | str | None = None,
    progress: bool = False,
    keep_markers: bool = True,
    calibration_cache: dict | None = None,
    forces=None,
    loads: dict | None = None,
    force_threshold: float = 20.0,
    forces_cutoff_hz: float | None = None,
    use_platforms: bool = True,
    imu_heading: str | None = None,
    angle_zero: str = "anatomical",
    subject=None,
    ik: str = "auto",
    joint_limits: str | None = None,
    keep_raw: bool = False,
    hip_trial=None,
) -> Analysis:
    """Analyse one trial file (markers or generalized coordinates).

    Parameters
    ----------
    path : str or Path
        Trial file: marker TRC/C3D/CSV/TSV or a generalized-coordinates CSV.
    static : str or Path, optional
        Standing calibration trial (markers, same lab as ``path``).
    markerset : str or Path, optional
        Built-in marker-set name or a marker-set file; detected from the
        marker names when omitted.
    hip_trial : str or Path, optional
        Hip calibration trial (markers, same marker set): each hip centre is
        then the functional (SCoRE) centre of that trial where the hip turns
        enough in a second plane, else the set's regression; a message says
        which (:func:`humanbody.markers.functional_joint.functional_hips`).
    model : BodyModel or path, optional
        Model to use instead of the default scaled one.
    mass, height : float, optional
        Subject mass (kg) and standing height (m) for the default model
        (defaults 75 kg, 1.75 m with a message when neither is given).
    sex : {"male", "female"}
        Anthropometric table to scale.
    axes : str
        Lab-to-ground axes: "auto" (detect from the markers) or a spec such
        as ``"x,-z,y"`` (see :func:`humanbody.markers.axes.parse_axes`).
    cutoff_hz : float or None
        Low-pass cut-off of the marker filter (Hz); None: no filtering.
    max_gap : float
        Longest marker gap filled (s).
    fill : {"spline", "rigid", "linear"}
        How marker gaps are filled: cubic spline in time, or from the other
        markers of the same segment cluster of the marker set (rigid-body
        fit; any gap length), or linear.
    differentiation : Differentiation or str, optional
        How rates are computed when the trial does not give them.
    progress : bool
        Show a progress bar over the stages (long trials).
    keep_markers : bool
        Keep the conditioned marker table in ``Analysis.markers`` (the viewer
        draws it); ``humanbody analyze`` lets it go once the segments are
        tracked, 24 bytes per marker and frame less to hold while the
        results are written.
    calibration_cache : dict, optional
        Calibrations already made, reused when the same static trial (by
        content: a SHA-256 of the file's bytes) is calibrated again with the
        same axes, marker set and subject (what a batch of one subject's
        trials does).  Filled as a side effect; the results are exactly
        those of a new calibration.
    forces : str or Path, optional
        External loads: an OpenSim ground-reaction file (with its
        ExternalLoads XML when one is beside it) or a loads table
        (docs/kinetics.md).  Its lab axes are the trial's.
    loads : dict, optional
        Load name -> segment, overriding the file's assignment and the
        automatic one (``--load NAME=segment``).
    force_threshold : float
        Vertical force (N) below which a load is zero.
    forces_cutoff_hz : float, optional
        Low-pass cut-off of the loads (Hz); default the markers' ``cutoff_hz``.
    use_platforms : bool
        A C3D trial with force platforms and no ``forces`` uses its own
        platforms (default); False leaves them out.
    imu_heading : str, optional
        Orientation trials: the pelvis sensor's axis pointing forward in the
        calibration posture (``"-z"``, ...); None: the subject faced the
        world's +X (:mod:`humanbody.imu.calibration`).  ``static`` is then
        an orientation file in the calibration posture (default: the first
        0.5 s of the trial) and ``axes`` the world axes ("auto": the
        format's).
    angle_zero : {"anatomical", "static"}
        Zero of the clinical angles (:func:`humanbody.mechanics.clinical.clinical_angles`):
        between the anatomical segment frames (default) or in the standing
        calibration pose.
    subject : str, Path or Subject, optional
        Subject measurements (Vicon ``.vsk`` or TOML;
        :func:`humanbody.io.subject.read_subject`): mass and height when
        ``mass``/``height`` are not given (the options win), and the
        widths, leg lengths and offsets the marker set's joint centres use
        (Plug-in Gait).
    ik : {"auto", "segments", "global"}
        How marker trials are tracked: each segment fitted alone
        (``segments``), whole-body inverse kinematics with the joints held
        together (``global``), or ``auto``: global when some tracked segment
        keeps fewer than three points or the set is a keypoint set
        (:func:`humanbody.markers.global_ik.choose_method`; docs/tracking.md).
    joint_limits : {None, "off", "physiological"}
        Joint limits of whole-body inverse kinematics (None: the marker
        set's ``[ik] limits``; :func:`humanbody.markers.global_ik.joint_limits`).
    keep_raw : bool
        Keep the marker trial as read in ``Analysis.raw`` (``--export``
        writes it again instead of reading the file twice).
    """
    from .mechanics.clinical import ANGLE_ZEROS
    from .io import read_trial

    if angle_zero not in ANGLE_ZEROS:
        raise InputError(f"--angle-zero must be one of {', '.join(ANGLE_ZEROS)}, not {angle_zero!r}")
    path = os.fspath(path)
    messages: list[str] = []
    details: list[str] = []
    subj = _subject_file(subject, messages)
    if subj is not None:
        mass = subj.mass if mass is None else mass
        height = subj.height if height is None else height
    steps = _Progress(progress, path)
    trial = read_trial(path)
    kind = trial.attrs.get("kind")
    fmt = trial.attrs.get("format", "?")
    rate = trial.attrs.get("rate_hz")
    rate_txt = f" at {rate:g} Hz" if rate else ""
    messages.append(f"read {path}: {fmt}, {kind}, {len(trial)} frames{rate_txt}")
    messages += [f"converted {c}" for c in trial.attrs.get("conversions", [])]
    steps.advance("read")
    calibration = tracking = markers = None
    if forces is None and str(path).lower().endswith(".c3d") and kind == "markers" and use_platforms:
        from .mechanics.loads import c3d_has_platforms

        if c3d_has_platforms(path):
            forces = path  # a C3D trial's own force platforms
            messages.append("loads: the trial's own force platforms")
    if mass is None and model is None:
        mass = _mass_from_plates(forces, force_threshold, messages)
    subject = _subject_model(model, mass, height, sex, messages)
    if kind in ("coordinates", "orientations"):
        coords = trial
        if subject is None:
            subject = BodyModel.default(mass=DEFAULT_MASS, height=DEFAULT_HEIGHT, sex=sex)
            messages.append(f"no --model or --height: using the default model for {DEFAULT_HEIGHT:g} m")
        if kind == "orientations":
            from .imu import orientations_to_coordinates

            if len(trial) < 2:
                raise InputError("has one frame: a calibration posture (give it as --static), not a trial", path)
            posture = None
            if static is not None:
                posture = read_trial(static)
                if posture.attrs.get("kind") != "orientations":
                    raise InputError("static trial of an orientation trial must be an orientation file", static)
            coords, notes = orientations_to_coordinates(trial, subject, static=posture, axes=axes,
                                                        heading=imu_heading)
            messages += [f"orientations: {line}" for line in notes if not line.startswith("mapping:")]
            details += [f"orientations: {line}" for line in notes if line.startswith("mapping:")]
        steps.advance("condition")
        steps.advance("track")
    elif kind == "markers":
        from .markers.axes import to_ground
        from .markers.calibration import calibrate
        from .markers.conditioning import condition
        from .markers.global_ik import choose_method, track_global
        from .markers.tracking import track

        ground, mapping = to_ground(trial, axes=axes)
        raw = trial if keep_raw else None
        del trial  # a long trial: keep one copy of the markers at a time
        messages.append(f"axes: {mapping.describe()}")
        from .markers.markerset import resolve_markerset

        names = ground.attrs.get("markers") or [c[:-2] for c in ground.columns if c.endswith("_x")]
        mset, found = resolve_markerset(markerset, names, path, required=())
        required = _present_required(mset, found, path, messages)
        if hip_trial is not None:
            from .markers.functional_joint import functional_hips

            try:
                mset, lines = functional_hips(mset, read_trial(hip_trial))
            except InputError as err:
                raise err.with_path(hip_trial) from None
            messages += lines
        clusters = {
            seg: [found[m] for m in spec.markers if m in found]
            for seg, spec in mset.segments.items()
            if spec.rule == "cluster"
        }
        used = set(found.values())
        unused = [m for m in names if m not in used]
        if unused:  # markers the set does not use (unlabeled ones included): counted, never filled or filtered
            ground = ground.drop(columns=[f"{m}_{a}" for m in unused for a in "xyz" if f"{m}_{a}" in ground.columns])
            ground.attrs["markers"] = [m for m in names if m in used]
            unlabeled = sum(1 for m in unused if m.startswith("*") or m.lower().startswith("unlabeled"))
            messages.append(f"ignored {len(unused)} marker(s) the marker set {mset.name!r} does not use"
                            + (f" ({unlabeled} unlabeled)" if unlabeled else ""))
            details.append(f"ignored markers: {', '.join(unused)}")
        markers, report = condition(ground, max_gap=max_gap, cutoff_hz=cutoff_hz, fill=fill,
                                    segments={k: v for k, v in clusters.items() if len(v) >= 3})
        del ground
        messages += list(report.summary_lines())
        details += [f"conditioning: {line}" for line in report.lines()]
        steps.advance("condition")
        subject_mass = DEFAULT_MASS if mass is None else float(mass)
        if static is not None:
            calibration, static_frames = _static_calibration(
                static, mapping.spec, mset, subject_mass, height, sex, calibration_cache, subj)
            messages.append(f"static trial {os.fspath(static)}: {static_frames} frames, same axes mapping")
        else:
            calibration = calibrate(markers, mset, mass=subject_mass, height=height, sex=sex, mode="dynamic",
                                    required=required, subject=subj)
        present = [m for m, col in found.items()
                   if f"{col}_x" in markers.columns and markers[f"{col}_x"].notna().any()]
        method, why = choose_method(mset, present, ik)
        messages.append(f"tracking: {'whole-body inverse kinematics' if method == 'global' else 'segment fits'}"
                        f" ({why})")
        tracker = track_global if method == "global" else track
        extra = {"limits": joint_limits} if method == "global" and joint_limits is not None else {}
        tracking = tracker(markers, calibration, keep_frames=False, required=required, **extra)
        coords = tracking.coords
        messages += _tracking_lines(calibration, tracking)
        if not keep_markers:
            markers = None
        if subject is None or model is None:
            subject = calibration.model if model is None else subject
        steps.advance("track")
    else:
        raise InputError(
            f"holds {kind or 'an unknown kind of'} data, not marker trajectories or "
            "generalized coordinates", path,
        )
    coords.attrs.setdefault("source", path)
    motion = prepare_motion(subject, coords, differentiation=differentiation)
    messages.append(f"rates: {motion.how}")
    if tracking is not None:
        details += [f"tracking: {line}" for line in tracking.summary()]
    analysis = Analysis(
        source=path, coords=coords, model=subject, motion=motion, markers=markers,
        calibration=calibration, tracking=tracking, messages=messages, details=details, angle_zero=angle_zero,
        axes=mapping if kind == "markers" else None, raw=raw if kind == "markers" else None,
    )
    if forces is not None:
        from .mechanics.loads import assign_loads, condition_loads, read_loads

        for name, seg in (loads or {}).items():
            if seg not in subject.names:
                raise InputError(f"--load {name}={seg}: no segment {seg!r} in the model "
                                 f"(segments: {', '.join(subject.names)})")
        spec = mapping.matrix if kind == "markers" else None
        table = read_loads(forces, mapping=spec, loads=loads)
        cut = cutoff_hz if forces_cutoff_hz is None else forces_cutoff_hz
        frame_loads = condition_loads(table, motion.time, cutoff_hz=cut or None, threshold=force_threshold)
        analysis.loads = assign_loads(frame_loads, table.segments, subject, analysis.results)
        analysis.load_table = table
        messages += table.notes + frame_loads.notes
    steps.advance("compute")
    steps.close()
    return analysis


def _present_required(mset, found, path, messages) -> list:
    """The set's required markers the trial has; the missing ones listed in ``messages``.

    Missing required markers are not fatal while the markers present still
    determine every tracked segment through its joints
    (:func:`humanbody.markers.markerset.undetermined_segments`).
    """
    from .markers.markerset import undetermined_segments

    missing = [m for m in mset.required if m not in found]
    if missing:
        lost = undetermined_segments(mset, found)
        if lost:
            seg, pts = lost[0]
            raise InputError(f"required marker {missing[0]!r} of marker set {mset.name!r} is missing and "
                             f"segment {seg!r} keeps {pts} point(s): too few to determine it through its "
                             "joints", path)
        messages.append(f"marker set {mset.name!r}: {len(missing)} required marker(s) missing "
                        f"({', '.join(missing)}); every tracked segment is still determined through its joints")
    return [m for m in mset.required if m in found]


def _mass_from_plates(forces, threshold, messages) -> float | None:
    """Subject mass from the force plates (:func:`humanbody.mechanics.loads.mass_from_plates`) when no mass is given;
    a line in ``messages`` either way.  None: the default mass (said so) or the model's."""
    if forces is not None:
        from .mechanics.loads import mass_from_plates, read_loads

        try:
            m, line = mass_from_plates(read_loads(forces), threshold)
        except InputError:
            m, line = None, None  # the kinetics read the file again below and say what is wrong with it
        if m is not None:
            messages.append(line)
            return m
        if line:
            messages.append(f"no --mass: {DEFAULT_MASS:g} kg assumed ({line})")
            return None
    messages.append(f"no --mass and no force plates: {DEFAULT_MASS:g} kg assumed")
    return None


def _subject_file(subject, messages):
    """The :class:`~humanbody.io.subject.Subject` of ``subject`` (a path or one already read), or None."""
    if subject is None:
        return None
    from .io.subject import Subject, read_subject

    subj = subject if isinstance(subject, Subject) else read_subject(subject)
    given = subj.measured()
    messages.append(f"subject {subj.source or 'measurements'}: {len(given)} measurement(s)"
                    + (f", mass {subj.mass:g} kg" if subj.mass is not None else "")
                    + (f", height {subj.height:.3f} m" if subj.height is not None else ""))
    return subj


def _static_calibration(static, axes_spec, mset, mass, height, sex, cache, subject=None):
    """Read, orient and calibrate a static trial; ``(calibration, frames)``, from ``cache`` when it holds it.

    The cache key is the SHA-256 of the file's bytes with everything else
    the calibration depends on (axes mapping, marker set, mass, height,
    sex), so an edited static trial is calibrated anew.
    """
    import hashlib

    from .io import read_trial
    from .markers.axes import to_ground
    from .markers.calibration import calibrate

    key = None
    if cache is not None:
        try:
            with open(static, "rb") as fh:
                digest = hashlib.sha256(fh.read()).hexdigest()
        except OSError:
            digest = None  # read_trial below says what is wrong with the file
        if digest is not None:
            key = (digest, axes_spec, repr(mset), float(mass), None if height is None else float(height), sex,
                   repr(subject))
            if key in cache:
                return cache[key]
    static_trial = read_trial(static)
    if static_trial.attrs.get("kind") != "markers":
        raise InputError("static trial must hold marker trajectories", static)
    static_ground, _ = to_ground(static_trial, axes=axes_spec)
    value = (calibrate(static_ground, mset, mass=mass, height=height, sex=sex, subject=subject), len(static_trial))
    if key is not None:
        if len(cache) >= 16:  # a batch holds a few subjects at a time
            cache.pop(next(iter(cache)))
        cache[key] = value
    return value


def _tracking_lines(calibration, tracking) -> list[str]:
    """A few lines on the marker set, the calibration and the fit quality."""
    import numpy as np

    lines = [
        f"marker set {calibration.markerset.name!r}; calibrated from the {calibration.mode} trial "
        f"{calibration.source}; subject height {calibration.height:.3f} m"
    ]
    lines += [f"calibration: {note}" for note in calibration.notes]
    from .markers.plausibility import check_lengths

    warn, bad = check_lengths(calibration.model, float(calibration.height))
    lines += [f"calibration: CHECK the marker set: {w}" for w in warn + bad]
    res = tracking.residuals.drop(columns="time")
    if res.shape[1]:
        med = res.median() * 1000.0
        worst = med.idxmax()
        lines.append(
            f"tracking: median RMS marker residual {np.nanmedian(res.to_numpy()) * 1000:.1f} mm "
            f"(largest: {worst} {med[worst]:.1f} mm)"
        )
    status = tracking.status.drop(columns="time")
    counts = status.isin(["fallback", "missing"]).sum()  # one pass over the table, not one per segment
    odd = {seg: int(counts[seg]) for seg in status.columns}
    odd = {k: v for k, v in odd.items() if v}
    if odd:
        lines.append("tracking: frames without enough markers (pose carried from the parent): "
                     + ", ".join(f"{k} {v}" for k, v in odd.items()))
    lines += [f"tracking: {line}" for line in tracking.singular_lines()]
    return lines


class _Progress:
    """A tqdm bar over the analysis stages; silent unless asked and on a terminal."""

    STAGES = ("read", "condition", "track", "compute")

    def __init__(self, enabled: bool, label: str):
        self.bar = None
        if enabled:
            import sys

            from tqdm import tqdm

            if sys.stderr.isatty():
                self.bar = tqdm(total=len(self.STAGES), desc=Path(label).name, unit="step", leave=False)

    def advance(self, stage: str) -> None:
        if self.bar is not None:
            self.bar.set_postfix_str(stage)
            self.bar.update(1)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()

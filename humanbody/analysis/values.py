"""The values of one analysis: :class:`TrialSubject`, :class:`Conditioned` and :class:`Analysis`."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from ..io.subject import Subject as SubjectFile
from ..markers.calibration import Calibration
from ..markers.markerset import MarkerSet
from ..markers.tracking import Tracking
from ..mechanics.clinical import clinical_angles
from ..mechanics.kinematics import Motion, compute_motion
from ..mechanics.kinetics import kinetic_block, kinetic_columns
from ..mechanics.results import Results
from ..model.anthropometry import DEFAULT_MASS
from ..model.body import BodyModel
from ..options import AnalysisOptions
from ..trial import Trial

if TYPE_CHECKING:  # types only
    from ..mechanics.loads import FrameLoads

from .log import Log


@dataclass(frozen=True)
class TrialSubject:
    """The subject of one trial, as the options, the subject file and the plates give it.

    Attributes
    ----------
    mass : float or None          kg: ``options.mass``, else the subject file's; None: not known
    height : float or None        m: ``options.height``, else the subject file's
    sex : str                     "male" or "female" (the anthropometric table)
    file : io.subject.Subject or None   the subject file's measurements (:func:`humanbody.io.subject.read_subject`)
    mass_from_plates : bool       no mass given: the loads stage estimates it from the plates
    """

    mass: float | None = None
    height: float | None = None
    sex: str = "male"
    file: SubjectFile | None = None
    mass_from_plates: bool = False

    @property
    def calibration_mass(self) -> float:
        """The mass a calibration scales the model to (kg): the subject's, else :data:`DEFAULT_MASS`."""
        return DEFAULT_MASS if self.mass is None else float(self.mass)


@dataclass(frozen=True)
class Conditioned:
    """A marker trial after the stage "condition": the markers the set uses, gaps filled, filtered.

    Attributes
    ----------
    trial : Trial                 the conditioned trial (ground axes; forces, events and log of the trial as read)
    markerset : MarkerSet         the trial's marker set (with functional hip centres from a hip trial)
    found : dict                  the set's marker names -> the trial's
    required : list of str        the set's required markers the trial has
    cutoff_hz : float or None     the marker filter's cut-off actually used (Hz; the one chosen under
                                  ``"auto"``); None: not filtered
    """

    trial: Trial
    markerset: MarkerSet
    found: dict[str, str]
    required: list[str]
    cutoff_hz: float | None

    @cached_property
    def markers(self) -> pd.DataFrame:
        """The conditioned markers as a table in ground axes (a view of ``trial``'s array, no copy), made once:
        the calibration, the tracking and the Analysis share it."""
        return self.trial.to_frame("ground")


@dataclass(frozen=True, eq=False)
class Analysis:
    """Everything known about one analysed trial: a value (frozen); a stage that changes it gives a new one.

    Attributes
    ----------
    trial : Trial                      the trial as analysed (:class:`humanbody.trial.Trial`): a marker
                                       trial's conditioned markers in ground axes (only its time base once
                                       the markers are let go, ``keep_markers=False``), with its force plates,
                                       events, axes mapping and the reader's attrs
    coords : DataFrame                 generalized coordinates (layout of docs/conventions.md, rad)
    model : BodyModel                  the model used (calibrated when a static trial was given)
    motion : Motion                    coordinates with their rates, ready for the kernel
    options : AnalysisOptions          the options it was made with; :func:`humanbody.trial_output.write_results`
                                       writes the exports they name (``export``, ``opensim_feet``)
    markers : DataFrame or None        marker trajectories in ground axes after conditioning
    calibration : Calibration or None  static calibration (marker trials)
    tracking : Tracking or None        tracking result with residuals (marker trials)
    log : Log                          what each stage said (:class:`~humanbody.analysis.log.Log`: a tuple of
                                       records, level, stage, message); :meth:`with_records` gives a new value
    loads : FrameLoads or None         external loads on the frames, assigned to segments (--forces)
    raw : DataFrame or None            the marker trial as read (lab axes), kept when asked (for export)
    computed : Results or None         the mechanics of every frame when a stage computed them already (the
                                       loads' assignment); else :attr:`results` computes them on first use
    edges : dict or None               the frames at the trial's ends whose rates are estimates
                                       (:func:`humanbody.checks.edges.edge_note`: ``frames``, ``start``,
                                       ``end``; written to model.json), from the stage "rates"; None when
                                       every frame's rates have data on both sides

    Read from the trial: ``source`` (the trial file), ``axes`` (its lab -> ground
    mapping), ``events`` (gait events the file carries, :attr:`humanbody.trial.Trial.events`;
    None when it has none, the report then finds them), ``load_table`` (the loads as
    read, ground axes, the file's own rate).
    """

    trial: Trial
    coords: pd.DataFrame
    model: BodyModel
    motion: Motion
    options: AnalysisOptions = field(default_factory=AnalysisOptions)
    markers: pd.DataFrame | None = None
    calibration: Calibration | None = None
    tracking: Tracking | None = None
    log: Log = field(default_factory=Log)
    loads: FrameLoads | None = None
    raw: pd.DataFrame | None = None
    computed: Results | None = field(default=None, repr=False)
    edges: dict | None = None

    def replace(self, **changes) -> Analysis:
        """A new Analysis with ``changes`` (field name -> value).  Its mechanics, clinical angles and kinetics
        are computed anew on first use, unless ``computed`` is given, when ``model``, ``motion`` or ``coords``
        change (the kinetics also with ``loads``); else the ones computed already are kept.

        Parameters
        ----------
        **changes
            Field name -> value.

        Returns
        -------
        Analysis
            A new frozen value; ``self`` is unchanged.
        """
        changed = set(changes)
        if "computed" not in changes:
            changes["computed"] = None if {"model", "motion", "coords"} & changed else self.held_results
        out = replace(self, **changes)
        if "clinical" in self.__dict__ and not {"model", "coords", "calibration", "options"} & changed:
            out.__dict__["clinical"] = self.__dict__["clinical"]
        if "kinetics" in self.__dict__ and not {"model", "motion", "coords", "loads", "computed"} & changed:
            out.__dict__["kinetics"] = self.__dict__["kinetics"]
        return out

    def with_records(self, more) -> Analysis:
        """This analysis with the records ``more`` added to its log: a new value sharing everything else
        (the mechanics, clinical angles and kinetics computed already included).

        Parameters
        ----------
        more : iterable of Record
            The records to append, in order (:func:`humanbody.analysis.log.records` makes them).

        Returns
        -------
        Analysis
            A new Analysis; this one when ``more`` is empty.
        """
        log = self.log.added(more)
        return self if log is self.log else self.replace(log=log)

    @property
    def angle_zero(self) -> str:
        """Zero of the clinical angles: ``options.angle_zero``, "anatomical" (default) or "static"."""
        return self.options.angle_zero

    @property
    def source(self) -> str:
        """The trial file."""
        return self.trial.source

    @property
    def axes(self):
        """The lab -> ground :class:`~humanbody.lab.axes.AxesMapping` of a marker trial, else None."""
        return self.trial.axes

    @property
    def events(self) -> pd.DataFrame | None:
        """Gait events the trial file carries (a C3D file's ``EVENT`` group, ``source`` "file"); None without."""
        return self.trial.events

    @property
    def load_table(self):
        """The loads as read (:class:`~humanbody.io.loads.LoadTable`, ground axes, the file's own rate), or None."""
        return self.trial.forces

    @property
    def messages(self) -> tuple[str, ...]:
        """What each stage did, for the user (the log's ``messages``; a writer's lines come in a new value,
        :meth:`with_records`)."""
        return self.log.messages

    @property
    def details(self) -> tuple[str, ...]:
        """Per-marker and per-gap details (``--verbose``, and the log file; read only)."""
        return self.log.details

    @cached_property
    def kinetics(self) -> pd.DataFrame | None:
        """The kinetic columns (docs/conventions.md) as a table, when external loads were given; else None.
        Computed on first access, then kept."""
        if self.loads is None:
            return None
        return pd.DataFrame(kinetic_block(self.model, self.results, self.loads),
                            columns=kinetic_columns(self.model))

    @cached_property
    def clinical(self) -> pd.DataFrame:
        """Clinical joint angles (degrees, one row per frame; :func:`humanbody.mechanics.clinical.clinical_angles`).

        Zero as ``angle_zero`` says: between the anatomical segment frames
        (default), or in the calibration pose (``"static"``; the upper limbs
        in the reference posture).  Computed on first access, then kept.
        """
        return clinical_angles(self.model, self.coords, self.calibration, zero=self.angle_zero)

    @property
    def angles(self) -> pd.DataFrame:
        """``time`` (s) and the clinical joint angles (deg), one row per frame (:attr:`clinical` with its time)."""
        out = self.clinical.copy()
        out.insert(0, "time", self.coords["time"].to_numpy())
        return out

    @property
    def moments(self) -> pd.DataFrame | None:
        """``time`` (s), the clinical joint moments (N·m/kg) and powers (W/kg), one row per frame; None without
        external loads (``forces``)."""
        kin = self.kinetics
        if kin is None:
            return None
        cols = [c for c in kin.columns if c.endswith(("_moment_Nm_per_kg", "_power_W_per_kg"))]
        out = kin[cols].copy()
        out.insert(0, "time", self.coords["time"].to_numpy())
        return out

    @cached_property
    def results(self) -> Results:
        """The mechanics of every frame (``computed``, else computed on first access, then kept).

        A long trial written by :func:`humanbody.trial_output.write_results` never needs them all at
        once: it is evaluated range by range from ``motion``.
        """
        if self.computed is not None:
            return self.computed
        return compute_motion(self.model, self.motion)

    @property
    def held_results(self) -> Results | None:
        """The mechanics of every frame when they were computed already (by a stage, or :attr:`results`), else
        None: :func:`humanbody.trial_output.write_results` then computes them range by range."""
        return self.__dict__.get("results", self.computed)

    @property
    def n_frames(self) -> int:
        """The trial's frames (the motion's)."""
        return self.motion.n_frames

    @property
    def stem(self) -> str:
        """File stem used for output names."""
        return Path(self.source).stem

    @property
    def residuals(self) -> pd.DataFrame | None:
        """Per-frame tracking residuals (m) by segment, when markers were tracked."""
        return None if self.tracking is None else self.tracking.residuals

"""The conventions a model carries: how its clinical angles and moments are expressed and its rates and loads taken.

A marker set names them (the Plug-in Gait sets' ``[parameters]``,
docs/markersets.md); the calibration gives them to the subject's model
(:func:`humanbody.markers.calibration.calibrate`), ``--moment-frame`` sets one,
and model.json keeps them as top-level keys (docs/conventions.md):

==========================  ==================================================================
``clinical_sequences``      joint -> Cardan sequence of its clinical angles ("yzx": Plug-in Gait's ankle)
``clinical_progression``    segments whose angles are also given relative to the progression
``progression_frame``       "lab_axis": the progression is one lab axis for the whole trial
``moment_frame``            frame of the clinical joint moments (:data:`humanbody.mechanics.moment_frames.MOMENT_FRAMES`)
``rates``                   the set's differentiation method ("gradient": central differences)
``load_resampling``         "frame_mean": each frame's load is the mean of its samples
``foot_rate_frames``        frames each side the feet's angular velocities are differenced over
``clinical_reference_twists``  joint reference turned by an angle (rad): ``{"right_ankle": ..., "left_ankle": ...}``
==========================  ==================================================================
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import InputError

__all__ = ["Conventions", "CONVENTION_KEYS"]


@dataclass(frozen=True)
class Conventions:
    """A model's clinical and processing conventions (the module's table); the defaults are the model's own:
    each joint's default sequence, the progression from the pelvis' path, the joint coordinate system's moments,
    the analysis' differentiation, loads resampled at the frames.

    Attributes
    ----------
    clinical_sequences : dict of str -> str
        Joint (or ``"foot_progression"``) -> Cardan sequence ("yzx", ...).
    clinical_progression : tuple of str
        Segments also given relative to the direction of progression ("thorax", "head").
    progression_frame : str or None
        "lab_axis" (Plug-in Gait), else None: the progression from the pelvis' path.
    moment_frame : str or None
        Frame of the clinical joint moments; None: "jcs" (:func:`humanbody.mechanics.moment_frames.moment_frame`).
    rates : str or None
        Differentiation method the set asks for ("gradient"); None: the analysis' own.
    load_resampling : str or None
        "frame_mean": loads averaged over each frame; None: resampled at the frames' times.
    foot_rate_frames : int or None
        Frames each side the feet's angular velocities span (Plug-in Gait's ankle power: 2).
    clinical_reference_twists : dict of str -> float
        ``"<side>_<joint>"`` -> angle (rad) the joint's reference is turned by about the proximal z axis.
    """

    clinical_sequences: Mapping[str, str] = field(default_factory=dict)
    clinical_progression: tuple = ()
    progression_frame: str | None = None
    moment_frame: str | None = None
    rates: str | None = None
    load_resampling: str | None = None
    foot_rate_frames: int | None = None
    clinical_reference_twists: Mapping[str, float] = field(default_factory=dict)

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "clinical_sequences", {str(k): str(v) for k, v in dict(self.clinical_sequences or {}).items()})
        set_(self, "clinical_progression", tuple(str(s) for s in self.clinical_progression or ()))
        set_(self, "clinical_reference_twists",
             {str(k): float(v) for k, v in dict(self.clinical_reference_twists or {}).items()})
        for name in ("progression_frame", "moment_frame", "rates", "load_resampling"):
            value = getattr(self, name)
            if value is not None and not isinstance(value, str):
                raise InputError(f"model convention {name} must be a name, not {value!r}")
            set_(self, name, value or None)
        if self.foot_rate_frames is not None:
            try:
                frames = int(float(self.foot_rate_frames))
            except (TypeError, ValueError):
                raise InputError(f"model convention foot_rate_frames must be a number of frames, not "
                                 f"{self.foot_rate_frames!r}") from None
            set_(self, "foot_rate_frames", frames or None)

    def replace(self, **changes) -> Conventions:
        """A copy with ``changes`` (field name -> value).

        Parameters
        ----------
        **changes
            Field name -> new value.

        Returns
        -------
        Conventions
            A new value with the changes.
        """
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """The conventions set, as model.json's top-level keys (in the order of :data:`CONVENTION_KEYS`; the
        frame counts as text, as the marker sets' parameters were always written).

        Returns
        -------
        dict
            Only the conventions that differ from the default.
        """
        out: dict[str, Any] = {}
        for key in CONVENTION_KEYS:
            value = getattr(self, key)
            if value is None or (not isinstance(value, str) and not value):
                continue
            if key == "clinical_progression":
                value = list(value)
            elif key == "foot_rate_frames":
                value = str(value)
            elif isinstance(value, Mapping):
                value = dict(value)
            out[key] = value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Conventions:
        """The conventions among ``data``'s keys (model.json's top level, a marker set's parameters).

        Parameters
        ----------
        data : Mapping
            Keys of :data:`CONVENTION_KEYS` are taken; the others are left.

        Returns
        -------
        Conventions
            The conventions the mapping states (defaults for the keys it lacks).
        """
        return cls(**{key: data[key] for key in CONVENTION_KEYS if data.get(key) not in (None, "", (), [], {})})


#: The conventions' keys, in the order model.json writes them.
CONVENTION_KEYS = ("clinical_sequences", "clinical_progression", "progression_frame", "moment_frame", "rates",
                   "load_resampling", "foot_rate_frames", "clinical_reference_twists")

"""A marker set drafted from a standing trial's file (``humanbody markerset init``).

:func:`draft_from_file` reads the trial (:func:`humanbody.io.read_trial`),
turns it into ground axes (:func:`humanbody.lab.axes.to_ground`) and
drafts the set (:func:`humanbody.tools.draft.draft_markerset`).
"""

from __future__ import annotations

from ..errors import InputError
from ..io import read_trial
from ..lab.axes import to_ground
from .draft import draft_markerset

__all__ = ["draft_from_file"]


def draft_from_file(path, axes="auto", **options) -> tuple:
    """Read a standing trial, turn it into ground axes and draft a set (:func:`humanbody.tools.draft.draft_markerset`).

    Parameters
    ----------
    path : str or os.PathLike
        A marker trial (TRC, C3D, CSV, ...) of the subject standing (or walking: the draft finds a still window).
    axes : str
        Lab -> ground axes: "auto" (detected) or a spec such as "x,-z,y".
    **options
        :func:`humanbody.tools.draft.draft_markerset`'s options (``name``, ``height``, ``knee_width``, ...).

    Returns
    -------
    tuple
        The draft and the :class:`~humanbody.lab.axes.AxesMapping` used.
    """
    trial = read_trial(path)
    if trial.attrs.get("kind") != "markers":
        raise InputError("holds no marker trajectories; give a standing (static) marker trial", path)
    ground, mapping = to_ground(trial, axes=axes)
    return draft_markerset(ground, **options), mapping

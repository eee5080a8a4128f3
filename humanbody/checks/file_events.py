"""Are a trial file's own gait events where its feet are?  The check ``humanbody analyze`` says among its output
checks (``humanbody report`` cuts strides and checks them as it does: :func:`humanbody.checks.outputs.event_findings`).
"""

from __future__ import annotations

from ..errors import InputError
from .outputs import event_findings

__all__ = ["file_event_findings"]


def file_event_findings(analysis) -> list[str]:
    """The output check of a trial's own gait events (a C3D's ``EVENT`` group) against the markers' (the line
    ``humanbody report`` gives, :func:`humanbody.checks.outputs.event_findings`): analyze cuts no strides, but a
    file whose events are not where the feet are is said, naming ``--events kinematic``.

    Parameters
    ----------
    analysis : humanbody.analysis.Analysis
        The analysed trial, with its markers and the file's own events.

    Returns
    -------
    list of str
        One line per finding (empty when the file's events agree with the markers', or cannot be judged).
    """
    own = analysis.events
    if own is None or not len(own) or analysis.markers is None:
        return []
    from ..gait.selection import file_event_stances, trial_events  # lazy: only trials with events of their own

    try:
        events, used, *_ = trial_events(analysis)
    except InputError:  # no foot markers to judge them by: the report says so
        return []
    return event_findings(events, used, file_event_stances(events, used), command="analyze")

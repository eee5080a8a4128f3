"""Plausibility checks every estimate and input passes before results are written.

Each check adds one line to the log saying what it checked and, when the
input cannot be what a body and a lab give, raises an
:class:`~humanbody.errors.InputError` (one line, exit status 2) naming the
option that overrides it: ``--skip-check NAME`` (``AnalysisOptions.skip_checks``)
or the value the check would otherwise estimate (``--mass``, ``--static``).

=================  ================================================  =========================================
check              what                                              module
=================  ================================================  =========================================
``mass``           body mass from the plates over the frames with    :mod:`humanbody.checks.mass`
                   the whole weight on them; body mass index 13-60
``static``         the static trial fits the trial's subject         :mod:`humanbody.checks.static_fit`
                   (marker residual of its calibration on the trial)
``imu-still``      a still window in an IMU trial for calibration    :mod:`humanbody.checks.imu_still`
``force-clock``    a force file's clock against the marker trial     :mod:`humanbody.checks.force_clock`
                   (overlap, stance against the feet's contacts);    :mod:`humanbody.checks.force_timing`
                   the centre of pressure under a sole, the force
                   onsets at the kinematic foot strikes
``mass`` (given)   a stated mass weighed on the plates (15 %)        :mod:`humanbody.checks.mass`
(outputs)          angles, moments, powers, jumps, carried segments  :mod:`humanbody.checks.outputs`
                   against gait: flagged, not refused
``unmeasured``     the joints of a segment carried from its parent,  :mod:`humanbody.checks.unmeasured`
                   a side's kinetics on a foot off the plates: left
                   empty (skipped: written as computed)
=================  ================================================  =========================================
"""

from __future__ import annotations

from ..errors import InputError
from ..options import CHECKS, check_names

__all__ = ["CHECKS", "check_names", "refusal"]


def refusal(check: str, message: str, path=None, *, instead: str = "") -> InputError:
    """The one-line error of a failed ``check``: ``message``, then the options that override it.

    ``instead`` names the option giving the value outright (``give `mass` KG``), said before
    ``skip_checks`` (parameters in backquotes: the command line shows their flags,
    :meth:`~humanbody.errors.InputError.on_command_line`).

    Parameters
    ----------
    check : str
        The check's name, as ``skip_checks`` takes it (``"mass"``, ``"force-clock"``, ...).
    message : str
        What failed.
    path : str or os.PathLike, optional
        The file the error names.
    instead : str
        The option that gives the value outright, or ``""``.

    Returns
    -------
    InputError
        To be raised by the caller.
    """
    how = f"{instead}, or " if instead else ""
    return InputError(f"{message}; {how}`skip_checks` {check} to go on anyway", path)

"""Exceptions the library raises for bad input.

Every reader and command raises :class:`InputError` for input a user can fix
(empty file, missing column, non-numeric cell, time not increasing, ...).
The command line turns it into one line on stderr and exit status 2.  An
error about one parameter names it as the Python caller wrote it
(``ik must be auto, segments or global``), and a parameter named later in
the message is written in backquotes (``give `mass` (kg)``); the command line
names its flag instead (``--ik must be ...``, ``give --mass (kg)``,
:meth:`InputError.on_command_line`).  So no message of the library spells a
command-line flag.
"""

from __future__ import annotations

import os
import re


class InputError(ValueError):
    """Bad user input: a file or a value the library cannot use.

    Parameters
    ----------
    message : str
        What is wrong, in one sentence a user understands.
    path : str or os.PathLike, optional
        The file the problem is in; it is named first in ``str(error)``.
    option : str, optional
        The parameter the message starts with (its Python name); the command
        line puts its flag there (:meth:`on_command_line`).  Parameters named
        further on are written in backquotes, ```name```.
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None, option: str | None = None):
        self.message = str(message)
        self.path = None if path is None else os.fspath(path)
        self.option = option
        super().__init__(self.__str__())

    def __str__(self) -> str:  # one line, file first
        text = " ".join(self.message.split())
        return f"{self.path}: {text}" if self.path else text

    def with_path(self, path: str | os.PathLike) -> InputError:
        """Return the same error naming ``path`` (if it named no file yet).

        Parameters
        ----------
        path : str or os.PathLike
            The file the error is about.

        Returns
        -------
        InputError
            A new error when this one named no file, else this one.
        """
        if self.path is not None:
            return self
        return InputError(self.message, path, self.option)

    def on_command_line(self) -> InputError:
        """The same error naming command-line flags where the message names parameters.

        The parameter ``option`` at the start of the message and every
        ```name``` in it become the flag (:func:`flag_of`: ``imu_map`` ->
        ``--imu-map``, or the flag :data:`OPTION_FLAGS` gives).

        Returns
        -------
        InputError
            This error when nothing changes, else a new one.
        """
        text = self.message
        if self.option and text.startswith(self.option):
            text = flag_of(self.option) + text[len(self.option):]
        text = _MENTION.sub(lambda m: flag_of(m.group(1)), text)
        return self if text == self.message else InputError(text, self.path)


#: Parameters whose command-line flag is not ``--`` and their name with ``-`` for ``_``.
OPTION_FLAGS = {"load_segments": "--load", "loads": "--load", "cutoff_hz": "--cutoff",
                "forces_cutoff_hz": "--forces-cutoff", "skip_checks": "--skip-check", "differentiation": "--diff",
                "grf": "--forces"}

#: A parameter named inside a message: its Python name in backquotes.
_MENTION = re.compile(r"`([a-z][a-z0-9_]*)`")


def flag_of(option: str) -> str:
    """The command-line flag of the parameter ``option`` (``imu_map`` -> ``--imu-map``; :data:`OPTION_FLAGS`).

    Parameters
    ----------
    option : str
        An option's parameter name (e.g. "imu_map").

    Returns
    -------
    str
        Its flag (e.g. "--imu-map").
    """
    return OPTION_FLAGS.get(option) or "--" + option.replace("_", "-")


class SingularityWarning(RuntimeWarning):
    """An orientation is at or near a singularity of its angle convention."""


class Note(str):
    """One line for the user that carries its priority on the first screen of ``humanbody analyze``.

    A ``str`` in every other respect (printed, compared and written as its text); the log
    (:class:`humanbody.analysis.Log`) keeps ``priority`` on the line's record.  When the notes before
    the results are written outnumber the screen's budget, the lowest priorities are left to the log
    file first (:func:`humanbody.commands.analyze.screen_lines`); a plain ``str`` is a :data:`NOTE`,
    never left off.  The priorities, lowest first: :data:`FILTERING` (how the markers were filtered,
    samples still missing), :data:`SETUP` (the moments' frame, the trial's own force platforms),
    :data:`INPUT` (the static trial, the calibration's pose, unit conversions), :data:`METHOD` (the
    tracking method), :data:`IGNORED` (markers and events left out), :data:`ROUTINE` (the mass check,
    the rates' method, plates off the ground, a C3D file's platforms), :data:`SAMPLING` (loads averaged
    over each frame), :data:`LENGTHS` (segment lengths not calibrated), :data:`LOADS` (the loads'
    filter), :data:`EDGES` (the frames whose rates are estimates).

    Parameters
    ----------
    text : str
        The line.
    priority : int
        Its priority (one of the constants above; :data:`NOTE` by default).
    """

    priority: int

    def __new__(cls, text: str, priority: int | None = None) -> Note:
        note = super().__new__(cls, text)
        note.priority = NOTE if priority is None else int(priority)
        return note

    def __reduce__(self) -> tuple:  # copied and pickled with its priority
        return Note, (str(self), self.priority)


#: The priorities of a :class:`Note`, lowest (left to the log file first) to highest (never left off).
FILTERING, SETUP, INPUT, METHOD, IGNORED, ROUTINE, SAMPLING, LENGTHS, LOADS, EDGES, NOTE = range(11)


def priority_of(line: str, default: int | None = None) -> int:
    """The priority of ``line``: a :class:`Note`'s own, else ``default`` (:data:`NOTE` when None).

    Parameters
    ----------
    line : str or Note
        A log line.
    default : int, optional
        The priority of a plain line (default NOTE).

    Returns
    -------
    int
        The priority.
    """
    return getattr(line, "priority", NOTE if default is None else default)

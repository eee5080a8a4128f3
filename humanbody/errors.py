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
        """Return the same error naming ``path`` (if it named no file yet)."""
        if self.path is not None:
            return self
        return InputError(self.message, path, self.option)

    def on_command_line(self) -> InputError:
        """The same error naming command-line flags where the message names parameters.

        The parameter ``option`` at the start of the message and every
        ```name``` in it become the flag (:func:`flag_of`: ``imu_map`` ->
        ``--imu-map``, or the flag :data:`OPTION_FLAGS` gives).
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
    """The command-line flag of the parameter ``option`` (``imu_map`` -> ``--imu-map``; :data:`OPTION_FLAGS`)."""
    return OPTION_FLAGS.get(option) or "--" + option.replace("_", "-")


class SingularityWarning(RuntimeWarning):
    """An orientation is at or near a singularity of its angle convention."""

"""Exceptions the library raises for bad input.

Every reader and command raises :class:`InputError` for input a user can fix
(empty file, missing column, non-numeric cell, time not increasing, ...).
The command line turns it into one line on stderr and exit status 2.  An
error about one parameter names it as the Python caller wrote it
(``ik must be auto, segments or global``); the command line names its flag
instead (``--ik must be ...``, :meth:`InputError.on_command_line`).
"""

from __future__ import annotations

import os


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
        line puts its flag there (:meth:`on_command_line`).
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
        """The same error naming the command-line flag where the message names the parameter ``option``
        (``cutoff_hz`` -> ``--cutoff-hz``, or the flag :data:`OPTION_FLAGS` gives)."""
        if not self.option or not self.message.startswith(self.option):
            return self
        flag = OPTION_FLAGS.get(self.option) or "--" + self.option.replace("_", "-")
        return InputError(flag + self.message[len(self.option):], self.path)


#: Parameters whose command-line flag is not ``--`` and their name with ``-`` for ``_``.
OPTION_FLAGS = {"load_segments": "--load", "loads": "--load"}


class SingularityWarning(RuntimeWarning):
    """An orientation is at or near a singularity of its angle convention."""

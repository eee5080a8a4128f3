"""Exceptions the library raises for bad input.

Every reader and command raises :class:`InputError` for input a user can fix
(empty file, missing column, non-numeric cell, time not increasing, ...).
The command line turns it into one line on stderr and exit status 2.
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
    """

    def __init__(self, message: str, path: str | os.PathLike | None = None):
        self.message = str(message)
        self.path = None if path is None else os.fspath(path)
        super().__init__(self.__str__())

    def __str__(self) -> str:  # one line, file first
        text = " ".join(self.message.split())
        return f"{self.path}: {text}" if self.path else text

    def with_path(self, path: str | os.PathLike) -> InputError:
        """Return the same error naming ``path`` (if it named no file yet)."""
        if self.path is not None:
            return self
        return InputError(self.message, path)


class SingularityWarning(RuntimeWarning):
    """An orientation is at or near a singularity of its angle convention."""

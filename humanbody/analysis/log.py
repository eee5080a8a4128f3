"""What the stages of one analysis say: :class:`Record` lines, a :class:`Log` value and the :class:`Logbook` they fill.

A :class:`Record` is one line: its level (:data:`LEVELS`), the stage that said it (:data:`STAGES`), the message and
its priority on the first screen of ``humanbody analyze``.  The stages before the
:class:`~humanbody.analysis.values.Analysis` exists add their records to a :class:`Logbook` (in the order they
speak); the Analysis holds them as a :class:`Log`, a frozen tuple of records, and a stage or writer after it gives a
new value (:meth:`humanbody.analysis.values.Analysis.with_records`) rather than editing one.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..errors import NOTE, priority_of

__all__ = ["LEVELS", "STAGES", "Record", "Log", "Logbook", "records"]

#: The levels of a :class:`Record`: ``message`` for the user (a screenful; printed by ``humanbody analyze``),
#: ``detail`` for ``--verbose`` and the log file (per marker, per gap), ``warning`` an output check's finding
#: (:mod:`humanbody.checks.outputs`; the write stage adds each to the user's lines once).
LEVELS = ("message", "detail", "warning")

#: The stages a :class:`Record` comes from, in the order :func:`humanbody.analysis.run.analyze_trial` runs them:
#: "calibrate" is :func:`humanbody.analysis.static.calibrate_model`, "loads"
#: :func:`humanbody.analysis.plates.apply_loads`, "mass" :func:`humanbody.analysis.plates.weigh`, "reduce"
#: :func:`humanbody.analysis.reduction.reduce`; "write" and "export" are the writer's
#: (:func:`humanbody.trial_output.write_results`).
STAGES = ("read", "subject", "condition", "calibrate", "track", "rates", "loads", "mass", "reduce", "write", "export")


@dataclass(frozen=True)
class Record:
    """One thing a stage said: its ``level`` (:data:`LEVELS`), the ``stage`` that said it (:data:`STAGES`), the ``message``
    (one line, as printed and written to ``<trial>_log.txt``) and its ``priority`` on the first screen of
    ``humanbody analyze`` (:class:`humanbody.errors.Note`: the lowest are left to the log file first; ``NOTE``,
    the default, never)."""

    level: str
    stage: str
    message: str
    priority: int = NOTE


def records(level: str, stage: str, *lines: str, priority: int = NOTE) -> tuple[Record, ...]:
    """One :class:`Record` per line of ``lines``, each at ``level`` from ``stage``.

    Parameters
    ----------
    level : str
        One of :data:`LEVELS`: ``message`` (the user's screen), ``detail`` (``--verbose``, the log file) or
        ``warning`` (an output check's finding).
    stage : str
        The stage that speaks, one of :data:`STAGES`.
    *lines : str
        The messages, one line each, in order; a :class:`humanbody.errors.Note` brings its own priority.
    priority : int
        The records' priority on the first screen (a Note's own wins): ``NOTE``, the default, is never
        left off; lower ones (``humanbody.errors.FILTERING`` ... ``EDGES``) go to the log file alone first.

    Returns
    -------
    tuple of Record
        The records, in the order of ``lines``.

    Raises
    ------
    ValueError
        An unknown level or stage.
    """
    if level not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)}, not {level!r}")
    if stage not in STAGES:
        raise ValueError(f"log stage must be one of {', '.join(STAGES)}, not {stage!r}")
    return tuple(Record(level, stage, str(line), priority_of(line, priority)) for line in lines)


class _Reading:
    """The readings of a sequence of records (``self.records``), shared by :class:`Log` and :class:`Logbook`."""

    records: tuple[Record, ...] | list[Record]

    def at(self, level: str) -> tuple[Record, ...]:
        """The records at ``level``, in order (``humanbody analyze`` screens them by their priority).

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.

        Returns
        -------
        tuple of Record
            The records of that level, in the order they were said.
        """
        return tuple(r for r in self.records if r.level == level)

    def lines(self, level: str) -> tuple[str, ...]:
        """The messages of the records at ``level``, in order.

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.

        Returns
        -------
        tuple of str
            One line per record of that level.
        """
        return tuple(r.message for r in self.records if r.level == level)

    @property
    def messages(self) -> tuple[str, ...]:
        """The lines for the user (level ``message``), in order."""
        return self.lines("message")

    @property
    def details(self) -> tuple[str, ...]:
        """The lines for ``--verbose`` and the log file (level ``detail``), in order."""
        return self.lines("detail")

    @property
    def warnings(self) -> tuple[str, ...]:
        """The output checks' findings (level ``warning``), each once, in order."""
        return tuple(dict.fromkeys(self.lines("warning")))

    def text(self) -> str:
        """The log file's text: the messages, a blank line, ``details:`` and the details, one per line.

        Returns
        -------
        str
            The text of ``<trial>_log.txt``, ending in a newline.
        """
        return "\n".join((*self.messages, "", "details:", *self.details)) + "\n"


@dataclass(frozen=True)
class Log(_Reading):
    """What the stages of one analysis said, in order: a value (a frozen tuple of :class:`Record`).

    ``messages`` (the screenful ``humanbody analyze`` prints and the log file starts with), ``details``
    (``--verbose`` and the log file) and ``warnings`` (the output checks' findings) are read from the records;
    :meth:`added` gives a new Log with more.
    """

    records: tuple[Record, ...] = ()

    def added(self, more) -> Log:
        """This log followed by the records ``more``: a new value.

        Parameters
        ----------
        more : iterable of Record
            The records to append, in order (:func:`records` makes them).

        Returns
        -------
        Log
            A new Log; this one when ``more`` is empty.
        """
        more = tuple(more)
        return Log(self.records + more) if more else self


class Logbook(_Reading):
    """The records of the stages before the :class:`~humanbody.analysis.values.Analysis` exists, added in the
    order the stages speak; :attr:`log` is the value the Analysis keeps.  Each stage adds its records with
    :meth:`add` (or :meth:`message`, :meth:`detail`, :meth:`warning`), never edits one.

    Parameters
    ----------
    initial : iterable of Record, optional
        Records said before (default none).
    """

    def __init__(self, initial=()) -> None:
        self.records: list[Record] = list(initial)

    @property
    def log(self) -> Log:
        """The records so far as a :class:`Log` (a value: later additions do not change it)."""
        return Log(tuple(self.records))

    def add(self, level: str, stage: str, *lines: str, priority: int = NOTE) -> None:
        """Add one record per line of ``lines``, each at ``level`` from ``stage`` (:func:`records`).

        Parameters
        ----------
        level : str
            One of :data:`LEVELS`.
        stage : str
            The stage that speaks, one of :data:`STAGES`.
        *lines : str
            The messages, one record each, in order; a :class:`humanbody.errors.Note` brings its own priority.
        priority : int
            The records' priority on the first screen (a Note's own wins; ``NOTE``, the default, is never left
            off).
        """
        self.records += records(level, stage, *lines, priority=priority)

    def message(self, stage: str, *lines: str, priority: int = NOTE) -> None:
        """Lines for the user (:meth:`add` at level ``message``, at ``priority`` on the first screen).

        Parameters
        ----------
        stage : str
            The stage that speaks, one of :data:`STAGES`.
        *lines : str
            The messages, one line each, in order.
        priority : int
            Their priority on the first screen (:meth:`add`).
        """
        self.add("message", stage, *lines, priority=priority)

    def detail(self, stage: str, *lines: str) -> None:
        """Lines for ``--verbose`` and the log file (:meth:`add` at level ``detail``).

        Parameters
        ----------
        stage : str
            The stage that speaks, one of :data:`STAGES`.
        *lines : str
            The details, one line each, in order (per marker, per gap, ...).
        """
        self.add("detail", stage, *lines)

    def warning(self, stage: str, *lines: str) -> None:
        """Output checks' findings (:meth:`add` at level ``warning``).

        Parameters
        ----------
        stage : str
            The stage that speaks, one of :data:`STAGES`.
        *lines : str
            The findings, one line each, in order (:mod:`humanbody.checks.outputs`).
        """
        self.add("warning", stage, *lines)

"""What one trial of a report produced (:func:`humanbody.report.trial.process_trial`)."""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["OK_STATUSES", "TrialOutcome"]

#: The statuses of a trial whose files were written: "ok", and "ok with warnings" when the output checks
#: (:mod:`humanbody.checks.outputs`) flagged some of its numbers (listed on its page).
OK_STATUSES = ("ok", "ok with warnings")


@dataclass
class TrialOutcome:
    """What one trial produced.

    ``row`` is its summary row; ``files`` maps a path relative to the report
    folder to the file's bytes; ``messages`` are the steps' messages.
    """

    key: str
    row: dict
    files: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.row.get("status") in OK_STATUSES

"""Batch gait reports: many trials -> per-trial CSVs, figures and pages, a summary and an index.

docs/report.md describes the command, the folder layout and every table.
"""

from .batch import BatchResult, run_batch, summary_columns
from .inputs import TrialTask, discover, read_manifest
from .trial import ReportOptions, TrialOutcome, process_trial

__all__ = [
    "BatchResult", "ReportOptions", "TrialOutcome", "TrialTask", "discover", "process_trial",
    "read_manifest", "run_batch", "summary_columns",
]

"""Batch gait reports: many trials -> per-trial CSVs, figures and pages, a summary and an index.

docs/report.md describes the command, the folder layout and every table.
"""

from .batch import BatchInterrupted, BatchResult, default_jobs, run_batch, summary_columns
from .inputs import TrialTask, discover, read_manifest
from .trial import ReportOptions, TrialOutcome, process_trial

__all__ = [
    "BatchInterrupted", "BatchResult", "ReportOptions", "TrialOutcome", "TrialTask", "default_jobs", "discover",
    "process_trial", "read_manifest", "run_batch", "summary_columns",
]

"""A guard on the per-trial hot path that is not a timer: counts of pandas operations and deep copies per stage.

A study runs :func:`humanbody.analysis.analyze_trial` once per trial; what it
costs there is mostly Python and pandas overhead on 151-frame tables, not
arithmetic.  Wall time on a shared machine says little, so this test counts
what that overhead is made of, for one analysis of the shared walk (its
static calibrated already, as every trial of a study after the first finds
it): the pandas operations that make a new table or column (each passes
through ``NDFrame.__finalize__``) and the ``copy.deepcopy`` calls (pandas
deep-copies a table's ``attrs`` on every operation; the reader's attrs of a
marker trial take a few hundred calls to copy).  Each stage has a budget a
little above what it takes today; a change that adds a loop of DataFrame
lookups or large ``attrs`` to a table that flows between stages fails here
before it slows a study down.  Raise a budget only with a measurement
(``benchmarks/bench_batch.py``) showing the study's speed kept.

Measured on 2026-12-02 (pandas 3.1.1): the code of bb57a23 made 299 pandas
operations and 13,866 deep copies in this analysis (the static-fit check's
column lookups, a marker table's attrs copied on each of them); after the
static-fit check and the tracking lines were put on arrays, 113 and 1,289.
"""

from __future__ import annotations

import copy
import sys
from collections import Counter
from contextlib import contextmanager
from functools import wraps
from pathlib import Path

import pandas as pd
import pandas.core.generic as pd_generic
import pytest

from humanbody.analysis import run as pipeline
from humanbody.analysis import tracking
from humanbody.options import AnalysisOptions

#: Per stage: (pandas operations, deepcopy calls) allowed for one analysis of the shared walk with plates.
BUDGET = {
    "read": (3, 370),  # 1 and 349 measured on 2026-12-02 (the plates read from one array of the GRF table)
    "subject": (5, 10),
    "condition": (25, 560),  # 22 and 545 measured on 2026-12-02 (an empty gap table made without pandas' inference)
    "calibrate_model": (5, 10),
    "track": (28, 210),  # 25 and 198 measured on 2026-12-02
    "between stages": (30, 50),
    "rates": (10, 50),
    "mechanics": (5, 10),
    "apply_loads": (10, 50),
    "weigh": (10, 50),
    "reduce": (10, 50),
    "results": (10, 50),
    "clinical": (6, 36),  # 4 and 32 measured on 2026-12-02
    "kinetics": (10, 20),
}
STAGES = ("read", "subject", "condition", "calibrate_model", "track", "rates", "mechanics", "apply_loads", "weigh", "reduce")


class _Counts:
    """Counters by stage, the innermost stage running charged."""

    def __init__(self):
        self.stage = ["between stages"]  # analyze_trial's own lines
        self.ops: Counter = Counter()
        self.copies: Counter = Counter()

    @contextmanager
    def within(self, name: str):
        self.stage.append(name)
        try:
            yield
        finally:
            self.stage.pop()

    def wrap(self, name: str, fn):
        @wraps(fn)
        def staged(*args, **kwargs):
            with self.within(name):
                return fn(*args, **kwargs)
        return staged


@pytest.fixture
def counted(monkeypatch):
    """A :class:`_Counts` charged by every pandas operation and deep copy while the pipeline's stages run."""
    counts = _Counts()
    finalize = pd_generic.NDFrame.__finalize__
    deepcopy_code = copy.deepcopy.__code__  # every call, the recursive ones too (copy binds them as defaults)

    def counted_finalize(self, other, method=None, **kwargs):
        counts.ops[counts.stage[-1]] += 1
        return finalize(self, other, method=method, **kwargs)

    def profile(frame, event, arg):
        if event == "call" and frame.f_code is deepcopy_code:
            counts.copies[counts.stage[-1]] += 1

    monkeypatch.setattr(pd_generic.NDFrame, "__finalize__", counted_finalize)
    for name in STAGES:
        monkeypatch.setattr(pipeline, name, counts.wrap(name, getattr(pipeline, name)))
    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        yield counts
    finally:
        sys.setprofile(previous)


def test_one_analysis_of_the_shared_walk_stays_within_its_budget_of_pandas_work(shared_data, counted):
    walk = shared_data / "gait2392_walk"
    opts = AnalysisOptions(static=walk / "subject01_static.trc", forces=walk / "subject01_walk1_grf.mot")
    cache: dict = {}
    first = pipeline.analyze_trial(walk / "subject01_walk1.trc", opts, calibration_cache=cache)
    assert first.kinetics is not None  # the budgets are for the path with plates
    counted.ops.clear()
    counted.copies.clear()
    analysis = pipeline.analyze_trial(walk / "subject01_walk1.trc", opts, calibration_cache=cache)
    for name in ("results", "clinical", "kinetics"):  # what the writer and the report read, computed on first use
        with counted.within(name):
            getattr(analysis, name)
    assert isinstance(analysis.clinical, pd.DataFrame)
    over = {stage: (counted.ops[stage], counted.copies[stage], BUDGET[stage]) for stage in BUDGET
            if counted.ops[stage] > BUDGET[stage][0] or counted.copies[stage] > BUDGET[stage][1]}
    assert set(counted.ops) | set(counted.copies) <= set(BUDGET)
    assert not over, f"stages over their budget (pandas operations, deep copies, budget): {over}"
    # the counting itself works: the stages did run through the counters
    assert counted.ops["track"] > 0 and counted.ops["condition"] > 0


def test_a_skipped_static_check_is_not_computed(monkeypatch):
    """``--skip-check static`` costs nothing: the check does not run, and the log says it was not made."""
    root = Path(__file__).resolve().parents[1] / "data"

    def refuse(*args, **kwargs):
        raise AssertionError("check_static_fit ran though skipped")

    monkeypatch.setattr(tracking, "check_static_fit", refuse)
    analysis = pipeline.analyze_trial(root / "sample_walk_markers.trc", static=root / "sample_static.trc", mass=75,
                                      height=1.75, skip_checks=("static",))
    said = [m for m in analysis.messages if "check static" in m]
    assert len(said) == 1 and "sample_static.trc not checked (--skip-check static)" in said[0]


#: The report's own part of one study trial (:func:`humanbody.report.trial.process_trial` after the analysis: gait
#: events, spatiotemporal parameters, curves, stride table, tables as bytes, the page; no figures), as
#: (pandas operations, deepcopy calls): 258 and 878 measured on 2026-12-02 (pandas 3.1.1; 380 and 969 before the
#: Parquet writer converted the float columns in one block and the page's tables stopped making a Series a row).
REPORT_BUDGET = (270, 900)


def test_a_report_trial_stays_within_its_budget_of_pandas_work(shared_data, counted, monkeypatch):
    from humanbody.report.inputs import TrialTask
    from humanbody.report.trial import ReportOptions, process_trial

    walk = shared_data / "gait2392_walk"
    task = TrialTask(str(walk / "subject01_walk1.trc"), key="walk", static=str(walk / "subject01_static.trc"),
                     grf=str(walk / "subject01_walk1_grf.mot"), mass=72.6, height=1.8)
    analyze = pipeline.analyze_trial
    monkeypatch.setattr(pipeline, "analyze_trial", counted.wrap("analysis", analyze))
    options = ReportOptions(plots="none")
    assert process_trial(task, options).ok  # the first: calibration, normative set, kernels
    counted.ops.clear()
    counted.copies.clear()
    with counted.within("report"):
        outcome = process_trial(task, options)
    assert outcome.ok and any(name.endswith("_cycles.csv") for name in outcome.files)
    assert counted.ops["report"] > 0  # the counting works here too
    ops, copies = counted.ops["report"], counted.copies["report"]
    assert ops <= REPORT_BUDGET[0] and copies <= REPORT_BUDGET[1], (
        f"the report's part of a trial made {ops} pandas operations and {copies} deep copies; budget {REPORT_BUDGET}")

"""Compare groups of gait curves variable by variable with SPM; write the tables, figures and page.

Two groups: :func:`~humanbody.stats.ttest2` (or :func:`ttest_paired` with
``paired=True``, rows matched by subject); three or more:
:func:`~humanbody.stats.anova1`.  Written to the output folder (each file
atomically):

- ``spm.csv``: ``variable, percent, t, threshold, significant`` - one row
  per variable and node (``t`` is the F statistic for an ANOVA; with two
  tails ``significant`` means ``|t| >= threshold``);
- ``clusters.csv``: ``variable, start_pct, end_pct, p`` - one row per
  supra-threshold cluster;
- ``<variable>.svg``: the figure of each variable (:mod:`.figure`);
- ``index.html``: the groups, the test, a table of the clusters and every figure.
"""

from __future__ import annotations

import html
import io
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .._atomic import atomic_path, atomic_write_text
from ..errors import InputError
from .groups import Group, check_groups, paired_rows
from .parametric import anova1, ttest2, ttest_paired

SPM_FILE, CLUSTERS_FILE, INDEX_FILE = "spm.csv", "clusters.csv", "index.html"


@dataclass
class Comparison:
    """Results of comparing groups, variable by variable.

    Attributes
    ----------
    groups : list of Group
    test : str                     "ttest2", "ttest_paired" or "anova1"
    results : dict variable -> SPMResult
    skipped : dict variable -> str   variables that could not be tested, and why
    """

    groups: list
    test: str
    alpha: float
    two_tailed: bool
    results: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)

    def percent(self, variable: str) -> np.ndarray:
        return np.linspace(0.0, 100.0, self.results[variable].z.size)


def compare(groups: list[Group], *, paired: bool = False, alpha: float = 0.05,
            two_tailed: bool = True) -> Comparison:
    """Test every variable the groups share (see the module docstring)."""
    variables = check_groups(groups, paired)
    test = "anova1" if len(groups) > 2 else ("ttest_paired" if paired else "ttest2")
    out = Comparison(groups, test, alpha, two_tailed)
    for var in variables:
        try:
            if test == "anova1":
                out.results[var] = anova1([g.curves[var] for g in groups], alpha=alpha)
            elif paired:
                out.results[var] = ttest_paired(*paired_rows(groups[0], groups[1], var), alpha=alpha,
                                                two_tailed=two_tailed)
            else:
                out.results[var] = ttest2(groups[0].curves[var], groups[1].curves[var], alpha=alpha,
                                          two_tailed=two_tailed)
        except InputError as err:  # e.g. a variable that does not vary at some node
            out.skipped[var] = str(err)
    return out


def _slug(variable: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in variable)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def spm_table_text(comparison: Comparison) -> str:
    """``spm.csv`` as text."""
    lines = ["variable,percent,t,threshold,significant"]
    for var, r in comparison.results.items():
        pct, sig = comparison.percent(var), r.significant
        u = _fmt(r.threshold)
        lines += [f"{var},{_fmt(p)},{_fmt(t)},{u},{int(s)}" for p, t, s in zip(pct, r.z, sig)]
    return "\n".join(lines) + "\n"


def clusters_table_text(comparison: Comparison) -> str:
    """``clusters.csv`` as text."""
    lines = ["variable,start_pct,end_pct,p"]
    for var, r in comparison.results.items():
        for c in r.clusters:
            a, b = c.percent(r.nodes)
            lines.append(f"{var},{a:.2f},{b:.2f},{_fmt(c.p)}")
    return "\n".join(lines) + "\n"


def write_comparison(comparison: Comparison, out, *, figures: str = "svg", progress=None) -> list[str]:
    """Write spm.csv, clusters.csv, the figures and index.html into ``out``; return the file names."""
    from .figure import spm_figure, svg_figure

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / SPM_FILE, spm_table_text(comparison))
    atomic_write_text(out / CLUSTERS_FILE, clusters_table_text(comparison))
    written = [SPM_FILE, CLUSTERS_FILE]
    names = {}
    for var, r in comparison.results.items():
        if figures == "none":
            break
        args = (var, comparison.groups[0].units.get(var, ""), comparison.percent(var),
                [(g.name, g.curves[var]) for g in comparison.groups], r)
        data = svg_figure(*args) if figures == "svg" else spm_figure(*args, fmt=figures)
        names[var] = f"{_slug(var)}.{figures}"
        with atomic_path(out / names[var]) as tmp:
            with open(tmp, "wb") as fh:
                fh.write(data)
        written.append(names[var])
        if progress is not None:
            progress()
    atomic_write_text(out / INDEX_FILE, index_html(comparison, names))
    written.append(INDEX_FILE)
    return written


_TEST_NAMES = {"ttest2": "two-sample t test (equal variances)", "ttest_paired": "paired t test",
               "anova1": "one-way ANOVA"}


def index_html(comparison: Comparison, figures: dict) -> str:
    """The comparison's page: groups, test, the clusters of every variable and the figures."""
    e = html.escape
    c = comparison
    buf = io.StringIO()
    buf.write("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>SPM comparison</title>\n"
              "<style>body{font-family:sans-serif;margin:1.5em;max-width:70em}table{border-collapse:collapse}"
              "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
              ".sig{background:#fdebd0}img{max-width:44em;display:block;margin:0.5em 0 1.5em}</style>"
              "</head><body>\n<h1>SPM comparison</h1>\n")
    buf.write(f"<p>{e(_TEST_NAMES[c.test])}, alpha {c.alpha:g}"
              f"{', two-tailed' if c.two_tailed and c.test != 'anova1' else ''}; random field theory "
              f"threshold per variable. Tables: <a href='{SPM_FILE}'>{SPM_FILE}</a>, "
              f"<a href='{CLUSTERS_FILE}'>{CLUSTERS_FILE}</a>.</p>\n<table><tr><th>group</th><th>curves</th>"
              "<th>source</th></tr>\n")
    for g in c.groups:
        n = len(next(iter(g.rows.values()))) if g.rows else 0
        buf.write(f"<tr><td>{e(g.name)}</td><td>{n}</td><td>{e(g.source)}</td></tr>\n")
    buf.write("</table>\n<h2>Variables</h2>\n<table><tr><th>variable</th><th>threshold</th>"
              "<th>clusters (% of the cycle, p)</th></tr>\n")
    for var, r in c.results.items():
        cl = "; ".join(f"{a:.1f}-{b:.1f} % (p {'< 0.001' if k.p < 0.001 else f'= {k.p:.3f}'})"
                       for k in r.clusters for a, b in [k.percent(r.nodes)]) or "none"
        name = f"<a href='#{e(_slug(var))}'>{e(var)}</a>" if var in figures else e(var)
        buf.write(f"<tr class='{'sig' if r.clusters else ''}'><td>{name}</td><td>{r.threshold:.3f}</td>"
                  f"<td>{e(cl)}</td></tr>\n")
    for var, why in c.skipped.items():
        buf.write(f"<tr><td>{e(var)}</td><td></td><td>not tested: {e(why)}</td></tr>\n")
    buf.write("</table>\n")
    for var, name in figures.items():
        buf.write(f"<h3 id='{e(_slug(var))}'>{e(var)}</h3><img src='{e(name)}' alt='{e(var)}'>\n")
    buf.write("</body></html>\n")
    return buf.getvalue()

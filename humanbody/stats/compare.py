"""Compare groups of gait curves variable by variable with SPM; write the tables, figures and page.

The design decides the test of each variable:

- two groups: :func:`~humanbody.stats.ttest2` (or :func:`ttest_paired` with
  ``paired=True``, rows matched by subject); with ``multivariate=True`` the
  angles of each joint are tested together (:func:`hotellings2`,
  :func:`hotellings_paired`), one test per joint;
- three or more groups: :func:`~humanbody.stats.anova1`;
- groups that are the cells of two factors (``factors``): :func:`anova2`,
  three tests per variable (A, B, A×B);
- one group and a number per subject (``regressor``): :func:`regress`.

**Many variables.**  Testing ``m`` variables each at ``alpha`` would find
``alpha m`` of them significant by chance alone.  Every test runs at the
corrected alpha (:func:`~humanbody.stats.corrected_alpha`): Šidák
``1 - (1 - alpha)^(1/m)`` (default), Bonferroni ``alpha / m``, or none, so
that the family-wise error over all the tests stays at ``alpha``; a
cluster is significant only when its p is below the corrected alpha (a
cluster whose p is not, e.g. a single node that just reaches the
threshold, is listed as not significant).

Written to the output folder (each file atomically):

- ``spm.csv``: ``variable, percent, t, threshold, significant, effect_size``
  - one row per test and node (``t`` is the F or T² statistic for an ANOVA
  or a Hotelling's test; ``significant`` means the node is in a significant
  cluster; the effect size is :mod:`.effect`'s for the test);
- ``clusters.csv``: ``variable, start_pct, end_pct, p, significant`` - one
  row per supra-threshold cluster;
- ``<variable>.svg``: the figure of each test (:mod:`.figure`);
- ``index.html``: the groups, the test, the correction, a table of the
  clusters, the normality check of each test and every figure.
"""

from __future__ import annotations

import html
import io
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from ..atomic import atomic_path, atomic_write_text
from ..errors import InputError
from . import effect, normality
from .figure import spm_figure, svg_figure
from .glm import CORRECTIONS, anova2, corrected_alpha, posthoc, regress
from .groups import Group, check_groups, paired_rows
from .hotellings import hotellings2, hotellings_paired
from .parametric import anova1, ttest2, ttest_paired

SPM_FILE, CLUSTERS_FILE, INDEX_FILE = "spm.csv", "clusters.csv", "index.html"

#: A joint angle: optional side, the joint, the angle's name (``right_hip_flexion_deg`` -> right_hip, flexion).
_ANGLE = re.compile(r"^((?:right_|left_)?[a-z]+)_(.+)_deg$")


@dataclass
class Comparison:
    """Results of comparing groups, test by test (a variable, a joint or an ANOVA effect).

    Attributes
    ----------
    groups : list of Group
    test : str                     "ttest2", "ttest_paired", "anova1", "anova2", "regress",
                                   "hotellings2" or "hotellings_paired"
    alpha : float                  family-wise type I error rate
    correction : str               "sidak", "bonferroni" or "none"
    alpha_test : float             the alpha of each test after the correction
    results : dict name -> SPMResult
    skipped : dict name -> str     tests that could not be run, and why
    curves : dict name -> list of (label, curves)   what each figure draws
    units : dict name -> str
    effect_sizes : dict name -> ndarray (nodes,)
    effect_size_name : str
    normality : dict name -> bool   the K² normality test rejects the residuals (8 curves or more)
    posthoc : dict name -> {(group, group): SPMResult}   pairwise t tests of a one-way ANOVA with
                                   significant clusters, each at the test's alpha corrected over the pairs
    """

    groups: list
    test: str
    alpha: float
    two_tailed: bool
    correction: str = "sidak"
    alpha_test: float = 0.05
    results: dict = field(default_factory=dict)
    skipped: dict = field(default_factory=dict)
    curves: dict = field(default_factory=dict)
    units: dict = field(default_factory=dict)
    effect_sizes: dict = field(default_factory=dict)
    effect_size_name: str = ""
    normality: dict = field(default_factory=dict)
    design: str = ""
    posthoc: dict = field(default_factory=dict)

    def posthoc_text(self, name: str) -> list[str]:
        """The post-hoc pairs of an ANOVA test with significant clusters: 'A vs B: 40.1-62.3 % (p ...)'.

        Parameters
        ----------
        name : str
            The test's name.

        Returns
        -------
        list of str
            One line per pair of levels: "A vs B: " and its significant clusters in percent of the cycle with their p,
            or "no significant cluster".
        """
        out = []
        for (gi, gj), r in self.posthoc.get(name, {}).items():
            sig = [c for c in r.clusters if c.p < r.alpha]
            parts = "; ".join(f"{c.percent(r.nodes)[0]:.1f}-{c.percent(r.nodes)[1]:.1f} % "
                              f"({'p < 0.001' if c.p < 0.001 else f'p = {c.p:.3g}'})" for c in sig)
            out.append(f"{gi} vs {gj}: {parts or 'no significant cluster'}")
        return out

    def percent(self, variable: str) -> np.ndarray:
        """Node positions of ``variable``'s field in percent of the cycle (0 to 100).

        Parameters
        ----------
        variable : str
            The test's name (a key of results).

        Returns
        -------
        ndarray, shape (nodes,), %
            Evenly spaced from 0 to 100 over the field's nodes.
        """
        return np.linspace(0.0, 100.0, self.results[variable].z.size)

    def significant_clusters(self, name: str) -> list:
        """The clusters of test ``name`` whose p is below the corrected alpha.

        Parameters
        ----------
        name : str
            The test's name (a key of results).

        Returns
        -------
        list of Cluster
            Those clusters, in the field's order.
        """
        return [c for c in self.results[name].clusters if c.p < self.alpha_test]

    def significant_nodes(self, name: str) -> np.ndarray:
        """Boolean (nodes,): the node lies in a significant cluster.

        Parameters
        ----------
        name : str
            The test's name (a key of results).

        Returns
        -------
        ndarray of bool, shape (nodes,)
            True at the nodes inside a cluster with p below alpha_test (and above the threshold).
        """
        r = self.results[name]
        q = np.arange(r.nodes)
        inside = np.zeros(r.nodes, bool)
        for c in self.significant_clusters(name):
            inside |= (q >= c.start - 1e-9) & (q <= c.end + 1e-9)
        return inside & r.significant

    @property
    def n_tests(self) -> int:
        return len(self.results) + len(self.skipped)


def joints(variables) -> dict:
    """Joint -> its angle variables (``right_hip`` -> [right_hip_flexion_deg, ...]), for joints with 2+ angles.

    Parameters
    ----------
    variables : iterable of str
        Variable names; the angle ones are <side>_<joint>_<angle>_deg.

    Returns
    -------
    dict of str to list of str
        Joint name to its angle variables, in the order given.
    """
    out: dict = {}
    for v in variables:
        m = _ANGLE.match(v)
        if m:
            out.setdefault(m.group(1), []).append(v)
    return {j: vs for j, vs in out.items() if len(vs) >= 2}


def compare(groups: list[Group], *, paired: bool = False, alpha: float = 0.05, two_tailed: bool = True,
            correction: str = "sidak", multivariate: bool = False, factors=None, regressor=None,
            check_normality: bool = True) -> Comparison:
    """Test every variable the groups share (see the module docstring).

    Parameters
    ----------
    groups : list of Group
        The groups of curves to compare (one for a regression, two or more otherwise).
    paired : bool
        Two groups of the same subjects.
    alpha : float
        Family-wise type I error rate over all the tests.
    correction : {"sidak", "bonferroni", "none"}
        How each test's alpha is corrected for the number of tests.
    multivariate : bool
        Two groups: each joint's angles together with Hotelling's T².
    factors : (name_A, name_B, [(a, b) per group]), optional
        The groups are the cells of two factors: two-way ANOVA.
    regressor : (name, {subject or trial: x}), optional
        One group: regression of its subjects' (or strides': their trial's) curves on ``x``.
    two_tailed : bool
        True: both signs of t are tested; False: only the first group above the second.
    check_normality : bool
        Test the residuals' normality too (:mod:`humanbody.stats.normality`).

    Returns
    -------
    Comparison
        Every test's result, their post-hoc pairs, effect sizes, normality checks and the alpha of each test.
    """
    if correction not in CORRECTIONS:
        raise InputError(f"correction must be one of {', '.join(CORRECTIONS)}, got {correction!r}", option="correction")
    if regressor is not None:
        return _compare_regress(groups, regressor, alpha, two_tailed, correction, check_normality)
    variables = check_groups(groups, paired)
    if factors is not None:
        test = "anova2"
    else:
        test = "anova1" if len(groups) > 2 else ("ttest_paired" if paired else "ttest2")
    if multivariate and test not in ("ttest2", "ttest_paired"):
        raise InputError("multivariate (Hotelling's T² per joint) compares exactly 2 groups", option="multivariate")
    tasks: list[tuple[str, list[str], str | int]] = []  # (name, variables, run: "mv", "uv" or the effect)
    if multivariate:
        test = "hotellings_paired" if paired else "hotellings2"
        grouped = joints(variables)
        in_joint = {v for vs in grouped.values() for v in vs}
        tasks += [(f"{j}_angles", vs, "mv") for j, vs in grouped.items()]
        tasks += [(v, [v], "uv") for v in variables if v not in in_joint]
    elif test == "anova2":
        names = (factors[0], factors[1], f"{factors[0]} x {factors[1]}")
        tasks += [(f"{v} [{n}]", [v], i) for v in variables for i, n in enumerate(names)]
    else:
        tasks += [(v, [v], "uv") for v in variables]
    a = corrected_alpha(alpha, len(tasks), correction)
    out = Comparison(groups, test, alpha, two_tailed, correction, a, design=test)
    anova2_cache: dict = {}
    for name, vs, kind in tasks:
        try:
            if test == "anova2":
                var = vs[0]
                if var not in anova2_cache:
                    Y = np.concatenate([g.curves[var] for g in groups])
                    A = np.concatenate([[cell[0]] * g.curves[var].shape[0] for g, cell in zip(groups, factors[2], strict=True)])
                    B = np.concatenate([[cell[1]] * g.curves[var].shape[0] for g, cell in zip(groups, factors[2], strict=True)])
                    anova2_cache[var] = (anova2(Y, A, B, alpha=a), Y, A, B)
                res, Y, A, B = anova2_cache[var]
                r = res[kind]
                out.results[name] = r
                out.effect_sizes[name] = effect.partial_eta2(r.z, r.df)
                out.effect_size_name = "partial eta squared"
                if kind == 0 and check_normality and Y.shape[0] >= 8:
                    cells = np.char.add(np.char.add(A.astype(str), "|"), B.astype(str))
                    parts = [Y[cells == c] for c in np.unique(cells)]
                    out.normality[name] = normality.rejects(np.concatenate([p - p.mean(axis=0) for p in parts]))
                out.curves[name] = [(g.name, g.curves[var]) for g in groups]
            elif kind == "mv":
                _multivariate(out, name, vs, groups, paired, a)
            else:
                _univariate(out, name, vs[0], groups, test, paired, a, two_tailed, check_normality)
            out.units[name] = groups[0].units.get(vs[0], "")
        except InputError as err:  # e.g. a variable that does not vary at some node
            out.skipped[name] = str(err)
    return out


def _univariate(out, name, var, groups, test, paired, a, two_tailed, check_normality):
    if test == "anova1" or len(groups) > 2:
        parts = [g.curves[var] for g in groups]
        r = anova1(parts, alpha=a)
        out.effect_sizes[name] = effect.partial_eta2(r.z, r.df)
        out.effect_size_name = "eta squared"
        resid = parts
        if any(c.p < a for c in r.clusters):  # post-hoc pairs, at the test's alpha corrected over the pairs
            Y = np.concatenate(parts)
            labels = np.concatenate([[g.name] * p.shape[0] for g, p in zip(groups, parts, strict=True)])
            out.posthoc[name] = posthoc(Y, labels, alpha=a, correction=out.correction if out.correction != "none"
                                        else "sidak")
    elif paired:
        YA, YB = paired_rows(groups[0], groups[1], var)
        r = ttest_paired(YA, YB, alpha=a, two_tailed=two_tailed)
        out.effect_sizes[name] = effect.cohens_dz(r.z, YA.shape[0])
        out.effect_size_name = out.effect_size_name or "Cohen's d_z"
        resid = [YA - YB]
    else:
        YA, YB = groups[0].curves[var], groups[1].curves[var]
        r = ttest2(YA, YB, alpha=a, two_tailed=two_tailed)
        out.effect_sizes[name] = effect.cohens_d(r.z, YA.shape[0], YB.shape[0])
        out.effect_size_name = out.effect_size_name or "Cohen's d"
        resid = [YA, YB]
    out.results[name] = r
    out.curves[name] = [(g.name, g.curves[var]) for g in groups]
    if check_normality and sum(y.shape[0] for y in resid) >= 8:
        out.normality[name] = normality.rejects(np.concatenate([y - y.mean(axis=0) for y in resid]))


def _multivariate(out, name, vs, groups, paired, a):
    if paired:
        pairs = [paired_rows(groups[0], groups[1], v) for v in vs]
        YA = np.stack([p[0] for p in pairs], axis=2)
        YB = np.stack([p[1] for p in pairs], axis=2)
        r = hotellings_paired(YA, YB, alpha=a)
        out.effect_sizes[name] = effect.mahalanobis(r.z, YA.shape[0])
    else:
        YA = np.stack([groups[0].curves[v] for v in vs], axis=2)
        YB = np.stack([groups[1].curves[v] for v in vs], axis=2)
        r = hotellings2(YA, YB, alpha=a)
        out.effect_sizes[name] = effect.mahalanobis(r.z, YA.shape[0], YB.shape[0])
    out.effect_size_name = "Mahalanobis distance (joints), Cohen's d (single variables)"
    out.results[name] = r
    joint = name[: -len("_angles")]
    out.curves[name] = [(f"{g.name}: {v[len(joint) + 1:-4]}", g.curves[v]) for v in vs for g in groups]


def _fit_line(Y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The least-squares line ``b0 x + b1`` of each node's values, shape of ``Y``."""
    X = np.column_stack([x, np.ones(x.size)])
    return X @ np.linalg.lstsq(X, Y, rcond=None)[0]


def _compare_regress(groups, regressor, alpha, two_tailed, correction, check_normality) -> Comparison:
    column, values = regressor
    if len(groups) != 1:
        raise InputError("a regression takes one group of subjects")
    g = groups[0]
    variables = g.variables
    a = corrected_alpha(alpha, len(variables), correction)
    out = Comparison(groups, "regress", alpha, two_tailed, correction, a, design="regress")
    out.effect_size_name = "correlation r"
    for var in variables:
        try:
            keys = [s if s in values else s.split(":")[0] for s in g.rows[var]]  # a stride: its trial's value
            missing = [s for s in keys if s not in values]
            if missing:
                raise InputError(f"no {column!r} value for {missing[0]}")
            x = np.array([values[s] for s in keys], dtype=float)
            r = regress(g.curves[var], x, alpha=a, two_tailed=two_tailed)
            out.results[var] = r
            out.effect_sizes[var] = r.r
            out.curves[var] = [(g.name, g.curves[var])]
            out.units[var] = g.units.get(var, "")
            if check_normality and x.size >= 8:
                out.normality[var] = normality.rejects(g.curves[var] - _fit_line(g.curves[var], x))
        except InputError as err:
            out.skipped[var] = str(err)
    return out


def _slug(variable: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in variable)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def spm_table_text(comparison: Comparison) -> str:
    """``spm.csv`` as text.

    Parameters
    ----------
    comparison : Comparison
        The tests to write.

    Returns
    -------
    str
        One row per variable and node: percent of the cycle, t (or F), threshold, significant (0/1), effect size.
    """
    lines = ["variable,percent,t,threshold,significant,effect_size"]
    for var, r in comparison.results.items():
        pct, sig = comparison.percent(var), comparison.significant_nodes(var)
        es = comparison.effect_sizes.get(var, np.full(r.nodes, np.nan))
        u = _fmt(r.threshold)
        lines += [f"{_csv(var)},{_fmt(p)},{_fmt(t)},{u},{int(s)},{_fmt(e)}" for p, t, s, e in zip(pct, r.z, sig, es, strict=True)]
    return "\n".join(lines) + "\n"


def _csv(text: str) -> str:
    return f'"{text}"' if "," in text or " " in text else text


def clusters_table_text(comparison: Comparison) -> str:
    """``clusters.csv`` as text.

    Parameters
    ----------
    comparison : Comparison
        The tests to write.

    Returns
    -------
    str
        One row per cluster: variable, start and end in percent of the cycle, p, significant (0/1).
    """
    lines = ["variable,start_pct,end_pct,p,significant"]
    for var, r in comparison.results.items():
        for c in r.clusters:
            a, b = c.percent(r.nodes)
            lines.append(f"{_csv(var)},{a:.2f},{b:.2f},{_fmt(c.p)},{int(c.p < comparison.alpha_test)}")
    return "\n".join(lines) + "\n"


def write_comparison(comparison: Comparison, out, *, figures: str = "svg", progress=None) -> list[str]:
    """Write spm.csv, clusters.csv, the figures and index.html into ``out``; return the file names.

    Parameters
    ----------
    comparison : Comparison
        The tests to write.
    out : str or os.PathLike
        The folder (made when missing).
    figures : {"svg", "png", "none"}
        The figures' format, or none.
    progress : callable, optional
        Called once per figure written.

    Returns
    -------
    list of str
        The names of the files written, relative to out.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    atomic_write_text(out / SPM_FILE, spm_table_text(comparison))
    atomic_write_text(out / CLUSTERS_FILE, clusters_table_text(comparison))
    written = [SPM_FILE, CLUSTERS_FILE]
    names = {}
    for var, r in comparison.results.items():
        if figures == "none":
            break
        shown = replace(r, clusters=tuple(comparison.significant_clusters(var)), alpha=comparison.alpha_test)
        args = (var, comparison.units.get(var, ""), comparison.percent(var), comparison.curves[var], shown)
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
               "anova1": "one-way ANOVA", "anova2": "two-way ANOVA (type III sums of squares)",
               "regress": "linear regression", "hotellings2": "two-sample Hotelling's T² per joint",
               "hotellings_paired": "paired Hotelling's T² per joint"}


def correction_text(c: Comparison) -> str:
    """One sentence: the correction for the number of tests, and the alpha of each.

    Parameters
    ----------
    c : Comparison
        The tests.

    Returns
    -------
    str
        The sentence.
    """
    if c.correction == "none":
        return (f"{c.n_tests} test(s), each at alpha {c.alpha:g} with no correction for their number "
                f"(about {c.alpha * c.n_tests:.1f} false positive(s) expected when nothing differs)")
    name = {"sidak": "Šidák", "bonferroni": "Bonferroni"}[c.correction]
    return (f"{name} correction over {c.n_tests} test(s): each at alpha {c.alpha_test:.3g}, "
            f"family-wise alpha {c.alpha:g}")


def cluster_text(c: Comparison, name: str, k) -> str:
    """One cluster in words: its extent in percent of the cycle and its p (``"not significant"`` past the corrected alpha).

    Parameters
    ----------
    c : Comparison
        The tests.
    name : str
        The test's name.
    k : Cluster
        The cluster.

    Returns
    -------
    str
        "a-b % (p = ...)", with ", not significant" when p is not below the corrected alpha.
    """
    a, b = k.percent(c.results[name].nodes)
    p = "p < 0.001" if k.p < 0.001 else f"p = {k.p:.3g}"
    return f"{a:.1f}-{b:.1f} % ({p}{'' if k.p < c.alpha_test else ', not significant'})"


def index_html(comparison: Comparison, figures: dict) -> str:
    """The comparison's page: groups, test, correction, the clusters of every test and the figures.

    Parameters
    ----------
    comparison : Comparison
        The tests.
    figures : dict of str to str
        Test name -> its figure's file name.

    Returns
    -------
    str
        A whole HTML document.
    """
    e = html.escape
    c = comparison
    buf = io.StringIO()
    buf.write("<!DOCTYPE html>\n<html><head><meta charset='utf-8'><title>SPM comparison</title>\n"
              "<style>body{font-family:sans-serif;margin:1.5em;max-width:70em}table{border-collapse:collapse}"
              "td,th{border:1px solid #ccc;padding:2px 8px;text-align:left}"
              ".sig{background:#fdebd0}img{max-width:44em;display:block;margin:0.5em 0 1.5em}</style>"
              "</head><body>\n<h1>SPM comparison</h1>\n")
    tails = ", two-tailed" if c.two_tailed and c.test in ("ttest2", "ttest_paired", "regress") else ""
    buf.write(f"<p>{e(_TEST_NAMES[c.test])}{tails}; random field theory threshold per test. "
              f"{e(correction_text(c))}: a cluster is significant only when its p is below {c.alpha_test:.3g}. "
              f"Effect size: {e(c.effect_size_name or 'none')}. "
              f"Tables: <a href='{SPM_FILE}'>{SPM_FILE}</a>, "
              f"<a href='{CLUSTERS_FILE}'>{CLUSTERS_FILE}</a>.</p>\n<table><tr><th>group</th><th>curves</th>"
              "<th>source</th></tr>\n")
    for g in c.groups:
        n = len(next(iter(g.rows.values()))) if g.rows else 0
        buf.write(f"<tr><td>{e(g.name)}</td><td>{n}</td><td>{e(g.source)}</td></tr>\n")
    buf.write("</table>\n<h2>Tests</h2>\n<table><tr><th>test</th><th>threshold</th>"
              "<th>clusters (% of the cycle, p)</th><th>normality of the residuals</th></tr>\n")
    for var, r in c.results.items():
        cl = "; ".join(cluster_text(c, var, k) for k in r.clusters) or "none"
        name = f"<a href='#{e(_slug(var))}'>{e(var)}</a>" if var in figures else e(var)
        nt = c.normality.get(var)
        norm = "" if nt is None else (normality.ADVICE if nt else "not rejected")
        post = "".join(f"<br>post-hoc {e(t)}" for t in c.posthoc_text(var))
        buf.write(f"<tr class='{'sig' if c.significant_clusters(var) else ''}'><td>{name}</td>"
                  f"<td>{r.threshold:.3f}</td><td>{e(cl)}{post}</td><td>{e(norm)}</td></tr>\n")
    for var, why in c.skipped.items():
        buf.write(f"<tr><td>{e(var)}</td><td></td><td>not tested: {e(why)}</td><td></td></tr>\n")
    buf.write("</table>\n")
    for var, name in figures.items():
        buf.write(f"<h3 id='{e(_slug(var))}'>{e(var)}</h3><img src='{e(name)}' alt='{e(var)}'>\n")
    buf.write("</body></html>\n")
    return buf.getvalue()

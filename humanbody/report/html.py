"""Self-contained HTML pages: one per trial (figures inlined as SVG, or embedded as base64 PNG) and an index."""

from __future__ import annotations

import base64
import html as _html
import math

import pandas as pd

from ..checks.edges import edge_line
from ..gait.gps import GPS_VARIABLES
from .outcome import OK_STATUSES

__all__ = ["trial_page", "index_page"]

_STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5em;color:#222;max-width:1100px}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em}td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}
th{background:#f2f2f2}td.l,th.l{text-align:left}
.failed{color:#b03a2e;font-weight:bold}.ok{color:#1e8449}.warnings{color:#b9770e;font-weight:bold}.pending{color:#9a7d0a}
img,svg.fig{max-width:100%;height:auto;border:1px solid #ddd;margin:.4em 0}code{font-size:.9em}
@media print{h2{break-before:auto}svg.fig,img{break-inside:avoid}}
"""


def _e(x) -> str:
    return _html.escape(str(x))


def _fmt(x) -> str:
    if isinstance(x, float):
        return "" if not math.isfinite(x) else f"{x:.4g}"
    return _e(x)


def _page(title: str, body: str) -> str:
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>{_e(title)}</title>"
            f"<style>{_STYLE}</style></head><body>\n{body}\n</body></html>\n")


def _table(df: pd.DataFrame, index: bool = True) -> str:
    cols = list(df.columns)
    head = ("<th class=l></th>" if index else "") + "".join(f"<th>{_e(c)}</th>" for c in cols)
    rows = []
    for idx, r in zip(df.index.tolist(), df.values, strict=True):  # the values iterrows would give, no Series a row
        cells = (f"<th class=l>{_e(idx)}</th>" if index else "") + "".join(f"<td>{_fmt(v)}</td>" for v in r)
        rows.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(rows)}</table>"


def _gps_table(gps: dict) -> str:
    """The Gait Profile Score and each Gait Variable Score (deg), per side."""
    s = gps["summary"]
    head = "<tr><th class=l></th><th>right</th><th>left</th><th>overall</th></tr>"
    rows = [f"<tr><th class=l>GPS</th><td>{_fmt(s['right_gait_profile_score_deg'])}</td>"
            f"<td>{_fmt(s['left_gait_profile_score_deg'])}</td><td>{_fmt(s['gait_profile_score_deg'])}</td></tr>"]
    for v in GPS_VARIABLES:
        rows.append(f"<tr><th class=l>GVS {_e(v)}</th><td>{_fmt(s[f'right_gvs_{v}'])}</td>"
                    f"<td>{_fmt(s[f'left_gvs_{v}'])}</td><td></td></tr>")
    return (f"<h2>Gait Profile Score</h2><p>against {_e(gps['name'])} (Baker et al. 2009; degrees: "
            "RMS difference of the mean stride curve from the normative mean)</p>"
            + (f"<p>population: {_e(gps['population'])}; speed: {_e(gps.get('condition', ''))}; source: "
               f"{_e(gps.get('source', ''))}</p>" if gps.get("population") else "")
            + (f"<p class=note>{_e(gps['note'])}</p>" if gps.get("note") else "")
            + f"<table>{head}{''.join(rows)}</table>")


def _figure(name: str, fig) -> str:
    if isinstance(fig, str):  # SVG text, inlined
        return f"<h2>{_e(name.removesuffix('.svg'))}</h2>" + fig.replace("<svg ", "<svg class=\"fig\" ", 1)
    data = base64.b64encode(fig).decode("ascii")
    return f"<h2>{_e(name)}</h2><img alt=\"{_e(name)}\" src=\"data:image/png;base64,{data}\">"


def _status(found) -> str:
    """The trial's status as the page shows it: "ok", or "ok with warnings" and the output checks' findings."""
    if not found:
        return "<span class=ok>ok</span>"
    items = "".join(f"<li>{_e(w.removeprefix('check outputs: '))}</li>" for w in found)
    return f"<span class=\"ok warnings\">ok with warnings</span></p><ul class=warnings>{items}</ul><p>"


def trial_page(task, row: dict, params: pd.DataFrame, events: pd.DataFrame, figures: dict,
               messages, links=(), gps: dict | None = None, warnings=(), edges: dict | None = None) -> str:
    """The trial's page: status, parameters, GPS, figures (SVG inlined, PNG embedded), events, messages, links.

    ``warnings``: the output checks' findings (:mod:`humanbody.checks.outputs`), listed under the status
    "ok with warnings".  ``edges``: the frames at the trial's ends whose rates are estimates
    (:func:`humanbody.checks.edges.edge_note`), said under the status.

    ``figures`` maps a name to SVG text or PNG bytes; ``gps`` is the trial's Gait
    Profile Score (``summary`` columns, ``name`` of the normative set) or None.

    Parameters
    ----------
    task : TrialTask
        The trial's task (its key and files).
    row : dict
        The trial's summary row (status, error, parameters).
    params : pandas.DataFrame
        The spatiotemporal table.
    events : pandas.DataFrame
        The events table (time s, side, event, source).
    figures : dict
        Figure name -> SVG text or PNG bytes.
    messages : iterable of str
        The analysis's lines.
    links : iterable of str
        Relative paths of the trial's files, listed sorted.
    gps : dict, optional
        The Gait Profile Score (summary columns, name of the normative set), or None.
    warnings : iterable of str
        The output checks' findings.
    edges : dict, optional
        The edges note (humanbody.checks.edges.edge_note), or None.

    Returns
    -------
    str
        The HTML page.
    """
    parts = [f"<h1>{_e(task.key)}</h1>",
             f"<p>trial <code>{_e(task.trial)}</code>; status {_status(warnings)}; "
             f"events from {_e(row.get('events_source', ''))}"
             + (f"; treadmill, belt {_fmt(row.get('belt_speed_m_per_s'))} m/s" if row.get("treadmill") else "")
             + "</p>"]
    if edges:
        said = edge_line(edges).removeprefix("edges: ").removesuffix("; marked in model.json (edges)")
        parts.append(f"<p class=edges style=\"color:#b9770e\">edge frames: {_e(said)}</p>")
    if task.static:
        parts.append(f"<p>static trial <code>{_e(task.static)}</code></p>")
    parts.append("<h2>Spatiotemporal parameters</h2>")
    parts.append(_table(params.T))
    if gps:
        parts.append(_gps_table(gps))
    for name, fig in figures.items():
        parts.append(_figure(name, fig))
    parts.append("<h2>Gait events</h2>")
    parts.append(_table(events, index=False))
    parts.append("<h2>Processing</h2><ul>" + "".join(f"<li>{_e(m)}</li>" for m in messages) + "</ul>")
    if links:
        parts.append("<h2>Files</h2><ul>" + "".join(f"<li><a href=\"{_e(n)}\">{_e(n)}</a></li>"
                                                     for n in sorted(links)) + "</ul>")
    return _page(f"humanbody report: {task.key}", "\n".join(parts))


INDEX_COLUMNS = ["cadence_steps_per_min", "stride_time_s", "stance_pct", "double_support_pct",
                 "stride_length_m", "step_width_m", "speed_m_per_s", "gait_profile_score_deg"]


def index_page(rows: list, pages: dict) -> str:
    """The batch index: one line per trial with its status, key parameters and a link to its page.

    ``pages`` maps a trial key to its page path relative to the index.

    Parameters
    ----------
    rows : list of dict
        The summary rows.
    pages : dict of str to str
        Trial key -> its page's path relative to the index.

    Returns
    -------
    str
        The HTML page.
    """
    n_ok = sum(r.get("status") in OK_STATUSES for r in rows)
    n_pending = sum(r.get("status") == "pending" for r in rows)
    head = "".join(f"<th>{_e(c)}</th>" for c in ["trial", "status", *INDEX_COLUMNS, "error"])
    lines = []
    for r in rows:
        key = r.get("key", "")
        name = f"<a href=\"{_e(pages[key])}\">{_e(key)}</a>" if key in pages else _e(key)
        status = r.get("status", "")
        cells = [f"<td class=l>{name}</td>", f"<td class=\"l {_e(status)}\">{_e(status)}</td>"]
        cells += [f"<td>{_fmt(r.get(c, ''))}</td>" for c in INDEX_COLUMNS]
        cells.append(f"<td class=l>{_e(r.get('error', '') or '')}</td>")
        lines.append("<tr>" + "".join(cells) + "</tr>")
    pending = f"{n_pending} not computed yet (interrupted run); " if n_pending else ""
    body = (f"<h1>humanbody batch report</h1><p>{n_ok} of {len(rows)} trials ok; {pending}"
            "all values in <a href=\"summary.csv\">summary.csv</a>.</p>"
            f"<table><tr>{head}</tr>{''.join(lines)}</table>")
    return _page("humanbody batch report", body)

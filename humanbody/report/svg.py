"""Report figures written directly as SVG text, inlined in each trial's page (the default, ``--plots svg``).

A figure is a grid of :class:`humanbody.report.panels.Panel` plots: per
panel a frame, y ticks at 1, 2, 2.5 or 5 times a power of ten, x from 0 to
100 % of the stride, the normative band (grey, mean +- 1 SD) under the
sides' SD bands and mean curves, and each side's foot off as a dashed line.
The paths are built from the NumPy arrays with one string-formatting call
per curve: a page of 30 panels takes a few milliseconds, where drawing the
same with matplotlib takes most of a second.  SVG zooms and prints sharply
and needs nothing to view but the browser.
"""

from __future__ import annotations

import html as _html
import math

import numpy as np

from .panels import SIDE_COLOURS

__all__ = ["grid_svg", "events_svg", "map_svg", "nice_ticks"]

_PW, _PH = 300, 168           # panel size (px)
_ML, _MR, _MT, _MB = 44, 14, 20, 26  # plot margins inside a panel
_HEAD = 30                    # figure title height
_BAND = "#c8c8c8"
_STYLE = ("<style>text{font:10px sans-serif;fill:#222}.t{font-size:11px;font-weight:600}"
          ".h{font-size:13px;font-weight:600}.k{stroke:#999;stroke-width:.6}.f{fill:none;stroke:#666;stroke-width:.8}"
          ".m{fill:none;stroke-width:1.6}.o{stroke-dasharray:4 3;stroke-width:1}</style>")


def _e(x) -> str:
    return _html.escape(str(x), quote=True)


def nice_ticks(lo: float, hi: float, target: int = 4) -> np.ndarray:
    """Tick values covering [lo, hi]: steps of 1, 2, 2.5 or 5 x 10^k, about ``target`` intervals.

    Parameters
    ----------
    lo, hi : float
        The range to cover (any unit).
    target : int
        The number of intervals aimed at.

    Returns
    -------
    ndarray
        The multiples of the step within [lo, hi], increasing ([lo] when the range is empty or not finite).
    """
    span = hi - lo
    if not (math.isfinite(span) and span > 0):
        return np.array([lo])
    raw = span / target
    base = 10.0 ** math.floor(math.log10(raw))
    step = next(m * base for m in (1, 2, 2.5, 5, 10) if m * base >= raw)
    first = math.ceil(lo / step - 1e-9) * step
    return np.arange(first, hi + step * 1e-9, step)


def _fmt_tick(v: float, step: float) -> str:
    """The tick value with the fewest decimals that show the step exactly."""
    if abs(v) < step * 1e-6:
        return "0"
    decimals = next((d for d in range(7) if abs(round(step, d) - step) < step * 1e-6), 6)
    return f"{v:.{decimals}f}"


def _points(x: np.ndarray, y: np.ndarray) -> str:
    """``x,y x,y ...`` with one decimal (one formatting call for the whole curve)."""
    xy = np.column_stack([x, y]).ravel()
    return ("%.1f,%.1f " * (len(xy) // 2) % tuple(xy)).rstrip()


def _runs(ok: np.ndarray):
    """Start and stop indices of the runs of True in ``ok``."""
    d = np.diff(np.concatenate([[0], ok.astype(np.int8), [0]]))
    return zip(np.flatnonzero(d == 1), np.flatnonzero(d == -1), strict=True)


class _Axes:
    """Maps data to pixels inside one panel at (x0, y0)."""

    def __init__(self, x0, y0, xlim, ylim, w=_PW, h=_PH):
        self.l, self.r = x0 + _ML, x0 + w - _MR
        self.t, self.b = y0 + _MT, y0 + h - _MB
        self.xlim, self.ylim = xlim, ylim

    def x(self, v):
        a, b = self.xlim
        return self.l + (np.asarray(v, dtype=float) - a) * (self.r - self.l) / (b - a)

    def y(self, v):
        a, b = self.ylim
        return self.b - (np.asarray(v, dtype=float) - a) * (self.b - self.t) / (b - a)

    def frame(self, out: list, title: str, unit: str, xlabel: str | None, xticks) -> None:
        yt = nice_ticks(*self.ylim)
        step = float(yt[1] - yt[0]) if len(yt) > 1 else 1.0
        for v in yt:
            py = float(self.y(v))
            out.append(f'<line class="k" x1="{self.l:.1f}" x2="{self.r:.1f}" y1="{py:.1f}" y2="{py:.1f}" '
                       f'stroke-opacity="{0.9 if abs(v) < step * 1e-6 else 0.25}"/>'
                       f'<text x="{self.l - 3:.1f}" y="{py + 3:.1f}" text-anchor="end">{_fmt_tick(v, step)}</text>')
        for v in xticks:
            px = float(self.x(v))
            out.append(f'<text x="{px:.1f}" y="{self.b + 11:.1f}" text-anchor="middle">{v:g}</text>')
        out.append(f'<rect class="f" x="{self.l:.1f}" y="{self.t:.1f}" width="{self.r - self.l:.1f}" '
                   f'height="{self.b - self.t:.1f}"/>')
        out.append(f'<text class="t" x="{(self.l + self.r) / 2:.1f}" y="{self.t - 6:.1f}" '
                   f'text-anchor="middle">{_e(title)}</text>')
        out.append(f'<text x="{self.l - 32:.1f}" y="{(self.t + self.b) / 2:.1f}" text-anchor="middle" '
                   f'transform="rotate(-90 {self.l - 32:.1f} {(self.t + self.b) / 2:.1f})">{_e(unit)}</text>')
        if xlabel:
            out.append(f'<text x="{(self.l + self.r) / 2:.1f}" y="{self.b + 22:.1f}" '
                       f'text-anchor="middle">{_e(xlabel)}</text>')

    def band(self, out: list, x, lo, hi, fill: str, opacity: float) -> None:
        ok = np.isfinite(lo) & np.isfinite(hi)
        for a, b in _runs(ok):
            xs = self.x(x[a:b])
            pts = _points(np.concatenate([xs, xs[::-1]]), np.concatenate([self.y(hi[a:b]), self.y(lo[a:b])[::-1]]))
            out.append(f'<polygon points="{pts}" fill="{fill}" fill-opacity="{opacity}" stroke="none"/>')

    def line(self, out: list, x, y, colour: str, cls: str = "m") -> None:
        ok = np.isfinite(y)
        for a, b in _runs(ok):
            out.append(f'<polyline class="{cls}" stroke="{colour}" points="{_points(self.x(x[a:b]), self.y(y[a:b]))}"/>')


def _svg(width: float, height: float, body: list, label: str) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width:.0f} {height:.0f}" '
            f'width="{width:.0f}" height="{height:.0f}" role="img" aria-label="{_e(label)}">'
            + _STYLE + "".join(body) + "</svg>")


def grid_svg(panels, title: str, ncols: int = 3, legend: bool = True) -> str:
    """A grid of panels over the stride (% of stride), as one ``<svg>`` element.

    Parameters
    ----------
    panels : list of Panel
        The panels (report.panels.cycle_panels), in reading order.
    title : str
        The figure's title; empty for none.
    ncols : int
        Panels per row.
    legend : bool
        Draw the sides' (and the normative band's) legend.

    Returns
    -------
    str
        The <svg> element (UTF-8 text).
    """
    nrows = max(1, math.ceil(len(panels) / ncols))
    width, height = ncols * _PW, _HEAD + nrows * _PH + (16 if legend else 0)
    out = [f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text class="h" x="{width / 2:.0f}" y="18" text-anchor="middle">{_e(title)}</text>']
    for i, p in enumerate(panels):
        r, c = divmod(i, ncols)
        ax = _Axes(c * _PW, _HEAD + r * _PH, (0.0, 100.0), _padded(p.limits()))
        ax.frame(out, p.title, p.unit, "% stride" if r == nrows - 1 else None, (0, 20, 40, 60, 80, 100))
        if p.band is not None:
            x, m, s = p.band
            ax.band(out, x, m - s, m + s, _BAND, 0.75)
        for s in p.series:
            sd = s.sd
            if np.isfinite(sd).any():
                ax.band(out, s.percent, s.mean - sd, s.mean + sd, s.colour, 0.18)
        for side, pct in p.foot_off.items():
            if 0 <= pct <= 100 and any(s.side == side for s in p.series):
                px = float(ax.x(pct))
                out.append(f'<line class="o" stroke="{SIDE_COLOURS[side]}" x1="{px:.1f}" x2="{px:.1f}" '
                           f'y1="{ax.t:.1f}" y2="{ax.b:.1f}"/>')
        for s in p.series:
            ax.line(out, s.percent, s.mean, s.colour)
        for k, (side, spans) in enumerate(p.bars.items()):
            y = ax.b - 5 - 5 * k
            for a, b in spans:
                out.append(f'<rect x="{float(ax.x(a)):.1f}" y="{y:.1f}" width="{max(1.0, float(ax.x(b) - ax.x(a))):.1f}" '
                           f'height="3" fill="{SIDE_COLOURS[side]}"/>')
        if not p.series:
            out.append(f'<text x="{(ax.l + ax.r) / 2:.1f}" y="{(ax.t + ax.b) / 2:.1f}" text-anchor="middle" '
                       f'fill="#888">no complete stride</text>')
    if legend:
        out.append(_legend(panels, width, height - 6))
    return _svg(width, height, out, title)


def _legend(panels, width: float, y: float) -> str:
    n: dict[str, int] = {}
    for p in panels:
        for s in p.series:
            n[s.side] = max(n.get(s.side, 0), s.n_strides)
    items = [(SIDE_COLOURS[side], f"{side} mean ± SD (n={k} stride{'' if k == 1 else 's'})", "line") for side, k in n.items()]
    if any(p.band is not None for p in panels):
        items.append((_BAND, "normative mean ± 1 SD", "band"))
    if any(p.bars for p in panels):
        items.append(("#666", "bars: group on", "band"))
    items.append(("#666", "foot off (dashed, side's colour)", "dash"))
    widths = [28 + 6.2 * len(text) for _, text, _ in items]
    parts, x = [], (width - sum(widths)) / 2
    for (colour, text, kind), w in zip(items, widths, strict=True):
        if kind == "band":
            parts.append(f'<rect x="{x:.0f}" y="{y - 8:.0f}" width="18" height="9" fill="{colour}"/>')
        else:
            dash = ' stroke-dasharray="4 3"' if kind == "dash" else ""
            parts.append(f'<line x1="{x:.0f}" x2="{x + 18:.0f}" y1="{y - 4:.0f}" y2="{y - 4:.0f}" stroke="{colour}" '
                         f'stroke-width="1.6"{dash}/>')
        parts.append(f'<text x="{x + 22:.0f}" y="{y:.0f}">{_e(text)}</text>')
        x += w
    return "".join(parts)


def _padded(lim):
    lo, hi = lim
    pad = 0.05 * (hi - lo)
    return lo - pad, hi + pad


def events_svg(series: list, events: list, title: str) -> str:
    """Heel and toe minus pelvis along the progression direction over time, with the events.

    ``series``: (label, colour, dashed, time, values); ``events``: (time, value, colour, filled, kind)
    with kind "kinematic" (triangle), "force" (circle) or "file" (square: the trial file's own events).

    Parameters
    ----------
    series : list
        One curve per side and heel/toe: (label, colour, dashed, time s, forward distance m)
        (report.panels.event_traces).
    events : list
        The marks: (time s, value m, colour, filled, kind).
    title : str
        The figure's title; empty for none.

    Returns
    -------
    str
        The <svg> element (UTF-8 text).
    """
    width, height = 900, 300
    t_all = np.concatenate([s[3] for s in series]) if series else np.array([0.0, 1.0])
    y_all = np.concatenate([s[4] for s in series]) if series else np.array([0.0, 1.0])
    xlim = (float(np.nanmin(t_all)), float(np.nanmax(t_all)) if np.nanmax(t_all) > np.nanmin(t_all) else 1.0)
    ax = _Axes(0, _HEAD, xlim, _padded((float(np.nanmin(y_all)), float(np.nanmax(y_all)))), w=width, h=height - _HEAD - 18)
    out = [f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text class="h" x="{width / 2:.0f}" y="18" text-anchor="middle">{_e(title)}</text>']
    ax.frame(out, "", "forward of pelvis (m)", "time (s)", nice_ticks(*xlim, target=8))
    for _label, colour, dashed, t, v in series:
        ax.line(out, np.asarray(t), np.asarray(v), colour, "m o" if dashed else "m")
    for t, v, colour, filled, kind in events:
        px, py = float(ax.x(t)), float(ax.y(v))
        fill = colour if filled else "#fff"
        if kind == "kinematic":
            out.append(f'<path d="M{px - 4:.1f},{py - 3:.1f}h8l-4,7z" fill="{fill}" stroke="{colour}"/>')
        elif kind == "file":
            out.append(f'<rect x="{px - 3.5:.1f}" y="{py - 3.5:.1f}" width="7" height="7" fill="{fill}" '
                       f'stroke="{colour}"/>')
        else:
            out.append(f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{fill}" stroke="{colour}"/>')
    x: float = 60
    for label, colour, dashed, _, _ in series:
        dash = ' stroke-dasharray="4 3"' if dashed else ""
        out.append(f'<line x1="{x}" x2="{x + 18}" y1="{height - 8}" y2="{height - 8}" stroke="{colour}" '
                   f'stroke-width="1.6"{dash}/><text x="{x + 22}" y="{height - 4}">{_e(label)}</text>')
        x += 34 + 6.2 * len(label)
    return _svg(width, height, out, title)


def map_svg(scores: dict, variables, labels, gps: dict, title: str) -> str:
    """Movement Analysis Profile: GVS of each variable per side and the GPS, as bars (degrees).

    ``scores``: {(side, variable): GVS}; ``gps``: {"right": ..., "left": ..., "overall": ...}.

    Parameters
    ----------
    scores : dict
        (side, variable) -> the Gait Variable Score (deg).
    variables : sequence of str
        The GPS variables (side-less clinical angle names), in the figure's order.
    labels : sequence of str
        Their labels under the bars.
    gps : dict
        "right", "left", "overall" -> the Gait Profile Score (deg).
    title : str
        The figure's title; empty for none.

    Returns
    -------
    str
        The <svg> element (UTF-8 text).
    """
    names = list(labels) + ["GPS"]
    width, height = 900, 260
    vals = [scores.get((s, v), np.nan) for v in variables for s in ("right", "left")]
    vals += [gps.get("right", np.nan), gps.get("left", np.nan), gps.get("overall", np.nan)]
    top = max([v for v in vals if np.isfinite(v)] + [1.0])
    ax = _Axes(0, _HEAD, (0, len(names)), (0.0, top * 1.1), w=width, h=height - _HEAD - 24)
    out = [f'<rect width="{width}" height="{height}" fill="#fff"/>',
           f'<text class="h" x="{width / 2:.0f}" y="18" text-anchor="middle">{_e(title)}</text>']
    ax.frame(out, "", "deg", None, ())
    bw = (ax.r - ax.l) / len(names) / 3.4
    for i, name in enumerate(names):
        cx = float(ax.x(i + 0.5))
        if name == "GPS":
            bars = [("right", gps.get("right")), ("left", gps.get("left")), ("overall", gps.get("overall"))]
        else:
            bars = [(s, scores.get((s, variables[i]))) for s in ("right", "left")]
        x = cx - bw * len(bars) / 2
        for side, v in bars:
            colour = SIDE_COLOURS.get(side, "#555")
            if v is not None and np.isfinite(v):
                y = float(ax.y(v))
                out.append(f'<rect x="{x:.1f}" y="{y:.1f}" width="{bw:.1f}" height="{ax.b - y:.1f}" fill="{colour}"/>'
                           f'<text x="{x + bw / 2:.1f}" y="{y - 2:.1f}" text-anchor="middle" '
                           f'font-size="8">{v:.1f}</text>')
            x += bw
        out.append(f'<text x="{cx:.1f}" y="{ax.b + 12:.1f}" text-anchor="middle">{_e(name)}</text>')
    out.append(f'<rect x="{width - 250}" y="{_HEAD - 8}" width="10" height="9" fill="{SIDE_COLOURS["right"]}"/>'
               f'<text x="{width - 236}" y="{_HEAD}">right</text>'
               f'<rect x="{width - 196}" y="{_HEAD - 8}" width="10" height="9" fill="{SIDE_COLOURS["left"]}"/>'
               f'<text x="{width - 182}" y="{_HEAD}">left</text>'
               f'<rect x="{width - 150}" y="{_HEAD - 8}" width="10" height="9" fill="#555"/>'
               f'<text x="{width - 136}" y="{_HEAD}">overall GPS</text>')
    return _svg(width, height, out, title)

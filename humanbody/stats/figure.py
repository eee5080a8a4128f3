"""The figure of one SPM comparison: group means +- SD over the cycle, and the statistic field.

Top panel: each group's mean curve with a band of +- 1 SD.  Bottom panel:
the SPM{t} (or SPM{F}) curve, the critical threshold(s) as dashed lines, and
each supra-threshold cluster shaded between the curve and the threshold
with its p-value written on it.

:func:`svg_figure` writes the SVG text directly (about a millisecond a
figure, against several hundred for matplotlib, whose import alone takes
longer than a whole comparison); :func:`spm_figure` draws the same figure
with matplotlib (Agg) for PNG.
"""

from __future__ import annotations

import io
from html import escape

import numpy as np

GROUP_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b")
CLUSTER_COLOUR = "#f39c12"


def _nice_ticks(lo: float, hi: float, n: int = 5) -> np.ndarray:
    """About ``n`` round tick values covering [lo, hi] (steps 1, 2, 2.5 or 5 times a power of ten)."""
    if not hi > lo:
        lo, hi = lo - 1.0, hi + 1.0
    raw = (hi - lo) / n
    mag = 10.0 ** np.floor(np.log10(raw))
    step = mag * min((m for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * mag >= raw), default=10.0)
    return np.arange(np.ceil(lo / step) * step, hi + 0.5 * step, step)


def _tick_label(v: float) -> str:
    return f"{v:.10g}" if abs(v) >= 1e-9 else "0"


class _Panel:
    """One plot area of the SVG: data -> pixel mapping and drawing primitives appended to ``out``."""

    def __init__(self, out: list, x0, y0, w, h, xlim, ylim):
        self.out, self.x0, self.y0, self.w, self.h = out, x0, y0, w, h
        self.xlim, self.ylim = xlim, ylim

    def px(self, x):
        return self.x0 + (np.asarray(x, float) - self.xlim[0]) / (self.xlim[1] - self.xlim[0]) * self.w

    def py(self, y):
        return self.y0 + self.h - (np.asarray(y, float) - self.ylim[0]) / (self.ylim[1] - self.ylim[0]) * self.h

    def _points(self, x, y) -> str:
        return " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(self.px(x), self.py(y), strict=True))

    def line(self, x, y, colour, width=1.5, dash=None):
        d = f' stroke-dasharray="{dash}"' if dash else ""
        self.out.append(f'<polyline points="{self._points(x, y)}" fill="none" stroke="{colour}" '
                        f'stroke-width="{width}"{d} clip-path="url(#{self.clip})"/>')

    def band(self, x, lo, hi, colour, opacity):
        pts = self._points(np.concatenate([x, x[::-1]]), np.concatenate([lo, hi[::-1]]))
        self.out.append(f'<polygon points="{pts}" fill="{colour}" fill-opacity="{opacity}" stroke="none" '
                        f'clip-path="url(#{self.clip})"/>')

    def text(self, x, y, s, anchor="middle", size=11, colour="#000", dy=0.0, data=True):
        X, Y = (float(self.px(x)), float(self.py(y))) if data else (x, y)
        self.out.append(f'<text x="{X:.1f}" y="{Y + dy:.1f}" font-size="{size}" text-anchor="{anchor}" '
                        f'fill="{colour}">{escape(s)}</text>')

    def frame(self, name: str, xticks: bool, ylabel: str, xlabel: str = ""):
        self.clip = name
        o = self.out
        o.append(f'<clipPath id="{name}"><rect x="{self.x0}" y="{self.y0}" width="{self.w}" '
                 f'height="{self.h}"/></clipPath>')
        o.append(f'<rect x="{self.x0}" y="{self.y0}" width="{self.w}" height="{self.h}" fill="none" '
                 f'stroke="#444" stroke-width="0.8"/>')
        for v in _nice_ticks(*self.ylim):
            if self.ylim[0] <= v <= self.ylim[1]:
                Y = float(self.py(v))
                o.append(f'<line x1="{self.x0}" y1="{Y:.1f}" x2="{self.x0 + self.w}" y2="{Y:.1f}" '
                         f'stroke="#ddd" stroke-width="0.6"/>')
                self.text(self.x0 - 4, Y + 4, _tick_label(v), anchor="end", size=10, data=False)
        for v in np.arange(0.0, 100.1, 10.0):
            X = float(self.px(v))
            o.append(f'<line x1="{X:.1f}" y1="{self.y0}" x2="{X:.1f}" y2="{self.y0 + self.h}" '
                     f'stroke="#ddd" stroke-width="0.6"/>')
            if xticks:
                self.text(X, self.y0 + self.h + 14, _tick_label(v), size=10, data=False)
        cy = self.y0 + self.h / 2
        o.append(f'<text x="14" y="{cy:.1f}" font-size="11" text-anchor="middle" '
                 f'transform="rotate(-90 14 {cy:.1f})">{escape(ylabel)}</text>')
        if xlabel:
            self.text(self.x0 + self.w / 2, self.y0 + self.h + 30, xlabel, data=False)


def svg_figure(title: str, unit: str, percent: np.ndarray, groups: list[tuple[str, np.ndarray]],
               result) -> bytes:
    """The figure as SVG bytes, written directly (same content as :func:`spm_figure`).

    Parameters
    ----------
    title : str
        The variable's name.
    unit : str
        Its unit (for the top panel's axis).
    percent : ndarray, shape (nodes,)
        Node positions in percent of the cycle.
    groups : list of (str, ndarray)
        Each group's name and curves (rows, nodes).
    result : SPMResult
        The test of these curves.

    Returns
    -------
    bytes
        A UTF-8 SVG document: the groups' mean ± SD curves above, the statistic's field with its threshold and clusters
        below.
    """
    W, H, left, right = 640, 520, 62, 12
    out: list[str] = []
    width = W - left - right
    means = [(name, Y.mean(axis=0), Y.std(axis=0, ddof=1), Y.shape[0]) for name, Y in groups]
    lo = min(float((m - s).min()) for _, m, s, _ in means)
    hi = max(float((m + s).max()) for _, m, s, _ in means)
    pad = 0.08 * (hi - lo or 1.0)
    top = _Panel(out, left, 30, width, 230, (percent[0], percent[-1]), (lo - pad, hi + pad))
    top.frame("top", False, unit or "value")
    for i, (name, m, s, n) in enumerate(means):
        colour = GROUP_COLOURS[i % len(GROUP_COLOURS)]
        top.band(percent, m - s, m + s, colour, 0.18)
        top.line(percent, m, colour, 1.8)
        Y = 30 + 14 + 15 * i
        out.append(f'<line x1="{left + 10}" y1="{Y - 4}" x2="{left + 30}" y2="{Y - 4}" stroke="{colour}" '
                   f'stroke-width="2"/>')
        top.text(left + 35, Y, f"{name} (n={n})", anchor="start", size=10, data=False)

    z, u = result.z, result.threshold
    zlo = min(float(z.min()), -u if result.two_tailed else 0.0)
    zhi = max(float(z.max()), u)
    zpad = 0.18 * (zhi - zlo)
    bottom = _Panel(out, left, 280, width, 190, (percent[0], percent[-1]),
                    (zlo - (zpad if result.two_tailed or zlo < 0 else 0.02 * (zhi - zlo)), zhi + zpad))
    stat = {"T": "SPM{t}", "T2": "SPM{T²}", "X2": "SPM{X²}"}.get(result.stat, "SPM{F}")
    bottom.frame("bottom", True, stat, "% of the cycle")
    scale = (percent[-1] - percent[0]) / (z.size - 1)
    nodes = np.arange(z.size, dtype=float)
    for c in result.clusters:
        x = np.concatenate([[c.start], nodes[(nodes > c.start) & (nodes < c.end)], [c.end]])
        zz = np.interp(x, nodes, z)
        bottom.band(percent[0] + x * scale, np.full_like(zz, c.sign * u), zz, CLUSTER_COLOUR, 0.55)
    bottom.line(percent, np.zeros_like(z), "#888", 0.7)
    for level in ((u, -u) if result.two_tailed else (u,)):
        bottom.line(percent[[0, -1]], [level, level], "#c0392b", 1.1, dash="5,3")
    bottom.line(percent, z, "#000", 1.5)
    for c in result.clusters:
        x = np.concatenate([[c.start], nodes[(nodes > c.start) & (nodes < c.end)], [c.end]])
        peak_at = x[np.argmax(c.sign * np.interp(x, nodes, z))]
        label = "p < 0.001" if c.p < 0.001 else f"p = {c.p:.3f}"
        x_text = float(np.clip(peak_at, 0.06 * (z.size - 1), 0.94 * (z.size - 1)))  # inside the axes
        bottom.text(percent[0] + x_text * scale, c.sign * c.peak, label, size=10,
                    dy=-6.0 if c.sign > 0 else 14.0)
    bottom.text(left + 6, 280 + 14, f"{stat}* = {u:.2f} (alpha {result.alpha:g}"
                f"{', two-tailed' if result.two_tailed else ''})", anchor="start", size=10,
                colour="#c0392b", data=False)
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
            f'font-family="DejaVu Sans, Arial, sans-serif">\n<rect width="{W}" height="{H}" fill="#fff"/>\n'
            f'<text x="{left + width / 2:.1f}" y="20" font-size="13" text-anchor="middle">{escape(title)}</text>\n')
    return (head + "\n".join(out) + "\n</svg>\n").encode("utf-8")


def spm_figure(title: str, unit: str, percent: np.ndarray, groups: list[tuple[str, np.ndarray]],
               result, fmt: str = "svg", dpi: int = 90) -> bytes:
    """The figure as SVG (or PNG) bytes.

    Parameters
    ----------
    title : str
        The variable's name.
    unit : str
        Its unit (for the top panel's axis).
    percent : ndarray (nodes,)
        Node positions in percent of the cycle.
    groups : list of (name, curves (rows, nodes))
        The groups' curves.
    result : SPMResult
        The test of these curves.
    fmt : {"svg", "png"}
        The image format.
    dpi : int
        Resolution of a PNG.

    Returns
    -------
    bytes
        The image: the groups' mean ± SD curves above, the statistic's field with its threshold and clusters below.
    """
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context({"svg.fonttype": "none", "font.size": 9, "axes.titlesize": 10,
                                "path.simplify": True}):
        fig = Figure(figsize=(6.4, 5.2), dpi=dpi)
        top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": (1.2, 1.0), "hspace": 0.08})
        for i, (name, Y) in enumerate(groups):
            colour = GROUP_COLOURS[i % len(GROUP_COLOURS)]
            mean, sd = Y.mean(axis=0), Y.std(axis=0, ddof=1)
            top.fill_between(percent, mean - sd, mean + sd, color=colour, alpha=0.18, linewidth=0)
            top.plot(percent, mean, color=colour, linewidth=1.6, label=f"{name} (n={Y.shape[0]})")
        top.set_ylabel(unit or "value")
        top.set_title(title)
        top.legend(loc="best", frameon=False, fontsize=8)
        top.grid(alpha=0.3, linewidth=0.5)

        z, u = result.z, result.threshold
        bottom.plot(percent, z, color="k", linewidth=1.4)
        bottom.axhline(0.0, color="0.5", linewidth=0.6)
        bottom.axhline(u, color="#c0392b", linestyle="--", linewidth=1.0)
        if result.two_tailed:
            bottom.axhline(-u, color="#c0392b", linestyle="--", linewidth=1.0)
        scale = (percent[-1] - percent[0]) / (z.size - 1)
        nodes = np.arange(z.size, dtype=float)
        for c in result.clusters:
            x = np.concatenate([[c.start], nodes[(nodes > c.start) & (nodes < c.end)], [c.end]])
            zz = np.interp(x, nodes, z)
            bottom.fill_between(percent[0] + x * scale, zz, c.sign * u, color=CLUSTER_COLOUR, alpha=0.55,
                                linewidth=0)
            peak_at = x[np.argmax(c.sign * zz)]
            label = "p < 0.001" if c.p < 0.001 else f"p = {c.p:.3f}"
            x_text = float(np.clip(peak_at, 0.06 * (z.size - 1), 0.94 * (z.size - 1)))  # inside the axes
            bottom.text(percent[0] + x_text * scale, c.sign * (c.peak + 0.06 * (abs(z).max() + u)), label,
                        ha="center", va="bottom" if c.sign > 0 else "top", fontsize=8)
        stat = {"T": "SPM{t}", "T2": "SPM{T²}", "X2": "SPM{X²}"}.get(result.stat, "SPM{F}")
        bottom.set_ylabel(stat)
        bottom.set_xlabel("% of the cycle")
        lo, hi = min(z.min(), -u if result.two_tailed else 0.0), max(z.max(), u)
        pad = 0.18 * (hi - lo)
        bottom.set_ylim(lo - (pad if result.two_tailed else 0.05 * (hi - lo)), hi + pad)
        bottom.set_xlim(percent[0], percent[-1])
        bottom.grid(alpha=0.3, linewidth=0.5)
        bottom.text(0.01, 0.97, f"{stat}* = {u:.2f} (alpha {result.alpha:g}"
                    f"{', two-tailed' if result.two_tailed else ''})", transform=bottom.transAxes,
                    ha="left", va="top", fontsize=8, color="#c0392b")
        fig.subplots_adjust(left=0.11, right=0.98, top=0.94, bottom=0.09)
        buf = io.BytesIO()
        fig.savefig(buf, format=fmt, metadata={"Date": None} if fmt == "svg" else None)
    return buf.getvalue()

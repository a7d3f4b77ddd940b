"""Hand-written SVG for the web report: the standings' error-bar chart, a rating's course
over games (`rating_line`, a league's bot page) and grid colours.

No plotting library: one chart of horizontal bars, drawn in a few dozen lines, is simpler
than embedding a library's runtime (and keeps the page working offline and small).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from arena.presentation.safe import html_text
from arena.ratings.model import Bound


@dataclass(frozen=True)
class Bar:
    """One entrant's row in the chart."""

    label: str
    elo: float
    half: float | None
    """95% half-width; None for a bound or an infinite rating."""
    bound: Bound | None
    anchor: bool


_ROW, _LEFT, _WIDTH, _RIGHT = 26, 190, 560, 60


def _ticks(lo: float, hi: float) -> list[float]:
    span = max(hi - lo, 1.0)
    step = 10 ** math.floor(math.log10(span / 4))
    for factor in (1, 2, 5, 10):
        if span / (step * factor) <= 8:
            step *= factor
            break
    first = math.ceil(lo / step) * step
    return [first + k * step for k in range(int((hi - first) / step) + 1)]


def _padded(lows: Sequence[float], highs: Sequence[float]) -> tuple[float, float]:
    """The range of a chart's values with a margin of 8% (20 Elo at least) on each side."""
    lo, hi = min(lows), max(highs)
    pad = max((hi - lo) * 0.08, 20.0)
    return lo - pad, hi + pad


def _svg_open(width: float, height: float, title: str) -> str:
    """The opening of a chart's SVG element, with its (escaped) title."""
    return (f'<svg class="chart" role="img" viewBox="0 0 {width} {height}" width="{width}" '
            f'height="{height}" xmlns="http://www.w3.org/2000/svg">'
            f"<title>{html_text(title)}</title>")


def error_bars(bars: Sequence[Bar], title: str) -> str:
    """An SVG of each rating with its 95% interval; a bound set by the prior is an arrow
    pointing where the estimate lies beyond it."""
    finite = [b for b in bars if math.isfinite(b.elo)]
    if not finite:
        return ""
    lo, hi = _padded([b.elo - (b.half or 0.0) for b in finite],
                     [b.elo + (b.half or 0.0) for b in finite])

    def x(v: float) -> float:
        return _LEFT + (v - lo) / (hi - lo) * _WIDTH

    height = _ROW * len(bars) + 40
    parts = [_svg_open(_LEFT + _WIDTH + _RIGHT, height, title)]
    for t in _ticks(lo, hi):
        parts.append(f'<line class="grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="4" '
                     f'y2="{height - 30}"/><text class="tick" x="{x(t):.1f}" '
                     f'y="{height - 14}" text-anchor="middle">{t:g}</text>')
    for k, b in enumerate(bars):
        parts.append(_bar_row(b, 14 + k * _ROW, x))
    parts.append("</svg>")
    return "".join(parts)


def _bar_row(b: Bar, y: float, x) -> str:
    label = html_text(b.label)
    row = [f'<g class="bar"><text class="label" x="{_LEFT - 8}" y="{y + 4}" '
           f'text-anchor="end">{label}</text>']
    if not math.isfinite(b.elo):
        row.append(f'<text class="note" x="{_LEFT + 4}" y="{y + 4}">{label}: '
                   f'{"+inf" if b.elo > 0 else "-inf" if b.elo < 0 else "undetermined"}</text>')
    elif b.bound in (Bound.LOWER, Bound.UPPER):
        end = x(b.elo) + (40 if b.bound is Bound.LOWER else -40)
        row.append(f'<line class="bound" x1="{x(b.elo):.1f}" x2="{end:.1f}" y1="{y}" y2="{y}"/>'
                   f'<circle class="point bound" cx="{x(b.elo):.1f}" cy="{y}" r="4"/>'
                   f'<title>{label}: {"≥" if b.bound is Bound.LOWER else "≤"}{b.elo:.1f} '
                   f'(set by the prior)</title>')
    else:
        if b.half:
            row.append(f'<line class="ci" x1="{x(b.elo - b.half):.1f}" '
                       f'x2="{x(b.elo + b.half):.1f}" y1="{y}" y2="{y}"/>')
        kind = "anchor" if b.anchor else "point"
        half = f" ± {b.half:.1f}" if b.half else ""
        row.append(f'<circle class="{kind}" cx="{x(b.elo):.1f}" cy="{y}" r="4">'
                   f'<title>{label}: {b.elo:.1f}{half}</title></circle>')
    row.append("</g>")
    return "".join(row)


def rating_line(points: Sequence[tuple[int, float, float]], title: str) -> str:
    """An SVG of one entrant's rating over its games: (games, rating, 95% half-width) in
    games order, the line with its interval as a band."""
    finite = [(g, r, h if math.isfinite(h) else 0.0) for g, r, h in points
              if math.isfinite(r)]
    if len(finite) < 2:
        return ""
    lo, hi = _padded([r - h for _, r, h in finite], [r + h for _, r, h in finite])
    first, last = finite[0][0], max(finite[-1][0], finite[0][0] + 1)
    width, height, left, top = 560, 220, 60, 10

    def x(g: float) -> float:
        return left + (g - first) / (last - first) * width

    def y(v: float) -> float:
        return top + (hi - v) / (hi - lo) * (height - 40)

    upper = " ".join(f"{x(g):.1f},{y(r + h):.1f}" for g, r, h in finite)
    lower = " ".join(f"{x(g):.1f},{y(r - h):.1f}" for g, r, h in reversed(finite))
    line = " ".join(f"{x(g):.1f},{y(r):.1f}" for g, r, _ in finite)
    parts = [_svg_open(left + width + 20, height, title)]
    for t in _ticks(lo, hi):
        parts.append(f'<line class="grid" x1="{left}" x2="{left + width}" y1="{y(t):.1f}" '
                     f'y2="{y(t):.1f}"/><text class="tick" x="{left - 6}" y="{y(t) + 4:.1f}" '
                     f'text-anchor="end">{t:g}</text>')
    parts.append(f'<polygon class="interval" points="{upper} {lower}" fill="currentColor" '
                 'fill-opacity="0.15"/>')
    parts.append(f'<polyline class="rating" points="{line}" fill="none" '
                 'stroke="currentColor" stroke-width="2"/>')
    parts.append(f'<text class="tick" x="{left}" y="{height - 8}">{first} games</text>'
                 f'<text class="tick" x="{left + width}" y="{height - 8}" text-anchor="end">'
                 f"{finite[-1][0]} games</text></svg>")
    return "".join(parts)


def shade(value: float | None) -> str:
    """A background for a share 0..1: red (0) through the page's own surface colour (0.5) to
    green (1), so that a grid reads in the light and the dark theme alike."""
    if value is None or math.isnan(value):
        return ""
    v = max(0.0, min(1.0, value))
    colour = "var(--good)" if v >= 0.5 else "var(--bad)"
    return f"background:color-mix(in srgb,{colour} {abs(v - 0.5) * 2 * 100:.0f}%,var(--surface))"

"""HTML building blocks of the web pages: sortable tables, colour grids, notes, facts.

Plain strings with every text escaped (`esc`: `safe.html_text`, so that what a bot or its
author wrote shows as text, in element content and in quoted attributes alike); the sorting
is `assets/report.js`. Only `Cell.html` is markup: it is built here, in `views` and in
`report_pages` from escaped text. The page shell and the larger views are in `views`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.presentation.charts import shade
from arena.presentation.safe import html_text


def esc(text: Any) -> str:
    """Text for HTML content or a quoted attribute value (`safe.html_text`)."""
    return html_text(text)


@dataclass(frozen=True)
class Cell:
    """One table cell: its HTML, the value it sorts by, and an optional inline style."""

    html: str
    sort: Any = None
    style: str = ""
    title: str = ""


def cell(value: Any, sort: Any = None, style: str = "", title: str = "") -> Cell:
    """A text cell (escaped) sorting by `sort`, or by the value itself."""
    return Cell(esc(value), value if sort is None else sort, style, title)


def link(href: str, text: str, sort: Any = None) -> Cell:
    return Cell(f'<a href="{esc(href)}">{esc(text)}</a>', text if sort is None else sort)


def _sort_attr(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ' data-sort=""'
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, float) and math.isinf(value):
        value = 1e308 if value > 0 else -1e308
    return f' data-sort="{esc(value)}"'


def _td(c: Cell, numeric: bool, kind: str = "") -> str:
    classes = " ".join(k for k in ("num" if numeric else "", kind) if k)
    attrs = _sort_attr(c.sort) + (f' class="{esc(classes)}"' if classes else "")
    attrs += f' style="{esc(c.style)}"' if c.style else ""
    attrs += f' title="{esc(c.title)}"' if c.title else ""
    return f"<td{attrs}>{c.html}</td>"


def table(headers: Sequence[str], rows: Sequence[Sequence[Cell]], table_id: str,
          caption: str = "", numeric: Sequence[bool] | None = None,
          kinds: Sequence[str] | None = None) -> str:
    """A table that sorts by any column when its header is clicked (assets/report.js).
    `kinds`: a class per column, on its header and cells ("minor": hidden at a phone's
    width, report.css)."""
    numeric = numeric or [False] * len(headers)
    kinds = kinds or [""] * len(headers)
    head = "".join(f'<th scope="col" data-type="{"num" if n else "text"}" tabindex="0"'
                   + (f' class="{esc(k)}"' if k else "") + f">{esc(h)}</th>"
                   for h, n, k in zip(headers, numeric, kinds, strict=True))
    body = []
    for row in rows:
        cells = "".join(_td(c, n, k) for c, n, k in zip(row, numeric, kinds, strict=True))
        body.append(f"<tr>{cells}</tr>")
    cap = f"<caption>{esc(caption)}</caption>" if caption else ""
    return (f'<div class="wide"><table class="sortable" id="{esc(table_id)}">{cap}<thead>'
            f'<tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>')


def grid(labels: Sequence[str], values: Sequence[Sequence[tuple[str, float | None]]],
         grid_id: str, caption: str) -> str:
    """A square matrix (rows and columns in the same order) with cells coloured by a share
    0..1; each value is (text, share)."""
    head = "".join(f'<th scope="col" title="{esc(l)}">{k + 1}</th>' for k, l in enumerate(labels))
    rows = []
    for k, (label, row) in enumerate(zip(labels, values, strict=True)):
        cells = []
        for j, (text, share) in enumerate(row):
            if j == k:
                cells.append('<td class="self"></td>')
            else:
                cells.append(f'<td class="num" style="{esc(shade(share))}" '
                             f'title="{esc(label)} vs {esc(labels[j])}">{esc(text)}</td>')
        rows.append(f'<tr><th scope="row">{k + 1}. {esc(label)}</th>{"".join(cells)}</tr>')
    return (f'<div class="wide"><table class="grid" id="{esc(grid_id)}"><caption>'
            f'{esc(caption)}</caption><thead><tr><th></th>{head}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div>')


def notes(lines: Sequence[str]) -> str:
    if not lines:
        return ""
    return '<ul class="notes">' + "".join(f"<li>{esc(line)}</li>" for line in lines) + "</ul>"


def facts(items: Sequence[tuple[str, str]], facts_id: str = "facts") -> str:
    """A definition list of header facts."""
    rows = "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in items)
    return f'<dl class="facts" id="{esc(facts_id)}">{rows}</dl>'

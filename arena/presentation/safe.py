"""Strings a bot or its author controls, made safe for where they go.

A bot's author writes its name (checked: `arena.referee.manifest.NAME`), its manifest's
`version`, `language`, `description`, `command` and `build`; a bot writes its output (kept as
a record's `bot_output`) and the bytes that fault messages, their details and rejections
quote. None of that may act on what shows it: every writer passes such text through the
helper of its output, here, so that it is shown as the text it is:

- `terminal`: no control character, ANSI escape, bidi override or line break of the bot's
  reaches a terminal; each is written as Python writes it in a repr (``\\x1b``, ``\\n``).
- `markdown_cell`: no markup (tables, emphasis, links, code, HTML) in markdown.
- `csv_cell`: no formula in a spreadsheet (OWASP's CSV injection): a text cell starting with
  ``=``, ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'``.
- `html_text`: HTML-escaped (quotes included, so also safe in an attribute), with the
  control characters made visible as for a terminal.

JSON needs no helper: `json.dumps` (ASCII output, the default) escapes every control
character. The web report embeds no JSON in a script tag: its game data is base64.
"""

from __future__ import annotations

import html
from typing import Any

_KEPT_ON_LINES = "\t"
"""What `terminal(..., multiline=True)` keeps besides line breaks."""
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _escaped(ch: str) -> str:
    """One character as a repr writes it: \\n, \\x1b, \\u202e, \\U000e0001."""
    if ch in _SHORT:
        return _SHORT[ch]
    code = ord(ch)
    return f"\\x{code:02x}" if code < 0x100 else \
        f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _line(text: str, keep: str) -> str:
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in keep else _escaped(ch) for ch in text)


def terminal(text: Any, multiline: bool = False) -> str:
    """`text` with every character that `str.isprintable` refuses (C0 and C1 controls, DEL,
    ESC and so every ANSI escape sequence, bidi controls, line and paragraph separators,
    unassigned code points) written as a repr writes it, so that it shows as text and cannot
    move the cursor, recolour, retitle or clear a terminal, or forge a line.

    With `multiline`, line breaks (``\\n``) and tabs are kept: for a whole message whose
    lines are the program's; a field inside a line is escaped without it.
    """
    text = str(text)
    if not multiline:
        return _line(text, "")
    return "\n".join(_line(line, _KEPT_ON_LINES) for line in text.split("\n"))


_MARKDOWN_ENTITIES = {"&": "&amp;", "<": "&lt;", ">": "&gt;"}
_MARKDOWN_PUNCTUATION = set("\\`*_[]|~#")


def markdown_cell(text: Any) -> str:
    """`text` as literal text in markdown, in a table cell or any inline place: control
    characters and line breaks escaped as for a terminal (a line break would end a table
    row), ``& < >`` as HTML entities (no raw HTML, no autolink), and the characters of
    markdown's syntax (``\\ ` * _ [ ] | ~ #``) backslash-escaped, so that no emphasis, code,
    link, image, strikethrough, heading or extra table column can come of it."""
    out = []
    for ch in terminal(text):
        if ch in _MARKDOWN_ENTITIES:
            out.append(_MARKDOWN_ENTITIES[ch])
        elif ch in _MARKDOWN_PUNCTUATION:
            out.append("\\" + ch)
        else:
            out.append(ch)
    return "".join(out)


_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A CSV cell that no spreadsheet takes for a formula: a string starting with ``=``,
    ``+``, ``-``, ``@``, a tab or a carriage return gets a leading ``'`` (OWASP). Only text
    is touched: numbers (negative ones included), booleans and None are returned as they
    are, so numeric columns stay numbers."""
    if isinstance(value, str) and value.startswith(_FORMULA_STARTS):
        return "'" + value
    return value


def html_block(text: Any) -> str:
    """`text` for a `<pre>` block: its line breaks and tabs kept, every other control
    character made visible as for a terminal, then ``& < > " '`` escaped."""
    return html.escape(terminal(text, multiline=True), quote=True)


def html_text(text: Any) -> str:
    """`text` for HTML element content or a quoted attribute value: control characters made
    visible as for a terminal, then ``& < > " '`` escaped."""
    return html.escape(terminal(text), quote=True)

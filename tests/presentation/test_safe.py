"""The escaping helpers (`arena.presentation.safe`), the report's file names and scripts,
against hostile strings."""

from __future__ import annotations

import csv
import html
import io
import re
from importlib import resources

import pytest

from arena.presentation.report import slug
from arena.presentation.safe import csv_cell, html_text, markdown_cell, terminal
from tests.presentation.payloads import (
    ALERT_IMG,
    ALERT_SCRIPT,
    CLEAR,
    CMD,
    CSI_C1,
    FORMULAS,
    HYPERLINK,
    IMG,
    MARKDOWN,
    MINUS,
    OSC_TITLE,
    SCRIPT,
    SUM,
)
from tests.requirements import need_module

CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize("text", [OSC_TITLE, CLEAR, CSI_C1, "a\nb", "a\rb", "\x00\x7f",
                                  "left\u202eright", "a\u2028b", "\U000e0001"])
def test_terminal_writes_every_control_character_as_an_escape(text):
    shown = terminal(text)
    assert not CONTROL.search(shown) and shown.isprintable()
    assert shown == repr(text)[1:-1].replace("\\\\", "\\")  # as a repr writes it


def test_terminal_shows_the_payloads_as_text():
    assert terminal(OSC_TITLE + CLEAR) == "\\x1b]0;pwned\\x07\\x1b[2J"
    assert terminal(CSI_C1) == "\\x9b31m"
    assert terminal("tab\tand\nline") == "tab\\tand\\nline"


def test_terminal_keeps_printable_text_of_any_script_as_it_is():
    for text in ("random", "±95% CI ≥ ≤ ~", "Élo 中文 🙂", ALERT_SCRIPT, "a\\x1b"):
        assert terminal(text) == text


def test_terminal_multiline_keeps_line_breaks_and_tabs_only():
    text = f"line 1\n\tline 2 {CLEAR}\r\nline 3"
    assert terminal(text, multiline=True) == "line 1\n\tline 2 \\x1b[2J\\r\nline 3"
    assert terminal(terminal(text, multiline=True), multiline=True) == \
        terminal(text, multiline=True)  # escaping escaped text changes nothing


def test_markdown_cell_escapes_every_piece_of_syntax():
    cell = markdown_cell(MARKDOWN)
    assert cell == "a\\|b\\`c\\`\\*d\\*\\_e\\_\\[f\\](g)\\~h\\~\\#i\\\\nj\\\\k"
    assert "\n" not in cell


@pytest.mark.parametrize("payload", [ALERT_SCRIPT, ALERT_IMG, SCRIPT, IMG])
def test_markdown_cell_leaves_no_html(payload):
    cell = markdown_cell(payload)
    assert "<" not in cell and ">" not in cell
    unescaped = re.sub(r"\\(.)", r"\1", cell)
    assert unescaped.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&") == payload


def _markdown(markdown_it):
    """CommonMark with GitHub's tables and strikethrough."""
    return markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"])


def test_markdown_cell_renders_as_the_text_itself():
    markdown_it = need_module("markdown_it")
    for payload in (MARKDOWN, SCRIPT, IMG, "**bold** <b>x</b> [l](javascript:alert(1))"):
        rendered = _markdown(markdown_it).render(markdown_cell(payload))
        assert not re.search(r"<(?!/?p>)", rendered), rendered  # only the paragraph
        assert html.unescape(rendered.strip()[3:-4]) == terminal(payload)


def test_markdown_cell_cannot_add_a_column_or_a_row():
    row = f"| {markdown_cell('a | b')} | {markdown_cell('c' + chr(10) + '| d |')} |"
    assert row.count("|") - row.count("\\|") == 3 and "\n" not in row


@pytest.mark.parametrize("payload", FORMULAS)
def test_csv_cell_defuses_a_formula(payload):
    assert csv_cell(payload) == "'" + payload
    out = io.StringIO()
    csv.writer(out).writerow([csv_cell(payload)])
    assert next(csv.reader(io.StringIO(out.getvalue())))[0].startswith("'")


def test_csv_cell_leaves_numbers_and_plain_text_alone():
    for value in (-2, -2.5, 0, 3.25, None, True, "random", "2-3", "a=b", ""):
        assert csv_cell(value) == value
    assert csv_cell(MINUS) == "'-2+3" and csv_cell(SUM) == "'@SUM(1+1)"
    assert csv_cell(HYPERLINK).startswith("'=") and csv_cell(CMD).startswith("'+")


@pytest.mark.parametrize("payload", [ALERT_SCRIPT, ALERT_IMG, SCRIPT, IMG])
def test_html_text_escapes_tags_and_both_quotes(payload):
    text = html_text(payload)
    assert not set("<>\"'") & set(text)
    assert f'<td title="{text}">{text}</td>'.count("<") == 2  # no element, no broken attribute


def test_html_text_makes_control_characters_visible():
    assert html_text(f"a{OSC_TITLE}<b>") == "a\\x1b]0;pwned\\x07&lt;b&gt;"


def test_report_file_names_are_one_to_one_and_safe():
    keys = ["a@0123456789abcdef", "a_0123456789abcdef_b@fedcba9876543210",
            "a@0123456789abcdef~b@fedcba9876543210#3.1",
            "a_0123456789abcdef_b@fedcba9876543210#3.1", "a.b@1", "a_b@1", "a__b@1",
            "../x", "x/../../y", "<script>", "é", ".", ".."]
    names = [slug(k) for k in keys]
    assert len(set(names)) == len(keys)  # the old lossy slug gave two games one file
    for name in names:
        assert re.fullmatch(r"[A-Za-z0-9.~@_-]+", name) and "/" not in name
        assert name not in (".", "..") or name + ".html" not in (".", "..")
    longest = slug("a" * 64 + "@" + "f" * 16 + "~" + "b" * 64 + "@" + "f" * 16 + "#99999.1")
    assert len(longest) <= 150
    assert slug("a@1~b@2#0.0") == "a@1~b@2_23_0.0"


def test_the_report_scripts_never_parse_data_as_html():
    for asset in ("cards.js", "replay.js", "report.js", "play.js"):
        code = resources.files("arena.presentation").joinpath("assets", asset).read_text()
        for sink in ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                     "eval(", "new Function", "setTimeout(\"", "srcdoc"):
            assert sink not in code, f"{asset} uses {sink}"
        assert "textContent" in code

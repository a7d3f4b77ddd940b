"""Tables, summaries, replays and `arena standings` with hostile strings in their text cells:
each format shows them as text (terminal: escapes; markdown: no markup; CSV: no formula;
HTML: no element), and numbers stay numbers."""

from __future__ import annotations

import csv
import io
import json
import random
import re
import sqlite3

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.intake import IntakeFailed, IntakePolicy, take_bot
from arena.presentation.bench import fill_store, play_record
from arena.presentation.replay import build_replay, render_replay
from arena.presentation.summary import summary
from arena.presentation.tables import (
    matchup_table,
    matrix_tables,
    sprt_progress_line,
    sprt_table,
    standings_table,
)
from arena.ratings.sprt import sprt
from arena.ratings.standings import compute_standings, pair_outcomes
from arena.referee.record import EntrantInfo, Fault, Termination
from arena.sandbox import Isolation
from arena.tournament.store import Store
from tests.presentation.payloads import CLEAR, CMD, HYPERLINK, IMG, MINUS, OSC_TITLE, SCRIPT, SUM
from tests.ratings.helpers import simulate
from tests.requirements import need_module

pytestmark = pytest.mark.timeout(120)

RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
"""A control character other than a line break or tab: none may reach a terminal."""
LABELS = {"random": (HYPERLINK, MINUS), "a": (f"{IMG}|x", CMD), "b": (f"{OSC_TITLE}b{CLEAR}", SUM)}
HUMAN = ("terminal", "markdown", "html")


@pytest.fixture(scope="module")
def standings():
    games = simulate({"random": 0.0, "a": 200.0, "b": -150.0}, 6, random.Random(2))
    return compute_standings(games, anchor="random")


def every_table(standings, fmt: str) -> str:
    result = sprt(pair_outcomes(standings_results(), "a", "random"), 0.0, 100.0)
    return "\n".join([standings_table(standings, LABELS, fmt),
                      matrix_tables(standings, LABELS, fmt),
                      matchup_table(standings.matchups, LABELS, fmt, standings),
                      sprt_table(result, "a", "random", LABELS, fmt)])


def standings_results():
    return simulate({"random": 0.0, "a": 200.0}, 6, random.Random(3))


def test_terminal_tables_show_control_characters_as_escapes(standings):
    text = every_table(standings, "terminal")
    assert not RAW.search(text)
    assert "\\x1b]0;pwned\\x07b\\x1b[2J" in text and HYPERLINK in text
    line = sprt_progress_line(sprt(pair_outcomes(standings_results(), "a", "random"), 0, 50),
                              10, LABELS, "b", "a")
    assert not RAW.search(line) and line.startswith("\\x1b]0;pwned")


def test_markdown_tables_keep_their_columns_and_hold_no_markup(standings):
    text = every_table(standings, "markdown")
    assert not RAW.search(text)
    for line in text.splitlines():
        if line.startswith("|"):  # every row of a table has as many cells as its header
            assert len(re.findall(r"(?<!\\)\|", line)) == \
                len(re.findall(r"(?<!\\)\|", _header_of(text, line)))
    assert "<" not in text.replace("&lt;", "") and ">" not in text.replace("&gt;", "")
    markdown_it = need_module("markdown_it")
    rendered = markdown_it.MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    assert "<img" not in rendered and "<script" not in rendered and "<a " not in rendered
    assert "onerror=window.__pwned=1&gt;|x" in rendered  # shown as text, pipe included


def _header_of(text: str, row: str) -> str:
    lines = text.splitlines()
    k = lines.index(row)
    while k > 0 and lines[k - 1].startswith("|"):
        k -= 1
    return lines[k]


def test_html_tables_make_no_element(standings):
    text = every_table(standings, "html")
    assert "<img" not in text and "<script" not in text and "&lt;img" in text
    assert not RAW.search(text)


def test_csv_text_cells_cannot_start_a_formula_and_numbers_stay_numbers(standings):
    rows = list(csv.DictReader(io.StringIO(standings_table(standings, LABELS, "csv"))))
    by_key = {row["entrant"]: row for row in rows}
    assert by_key["random"]["name"] == "'" + HYPERLINK and by_key["random"]["version"] == "'-2+3"
    assert by_key["a"]["version"] == "'" + CMD and by_key["b"]["version"] == "'" + SUM
    assert float(by_key["b"]["elo"]) < 0 and by_key["b"]["elo"].startswith("-")  # a number
    assert float(by_key["b"]["margin"]) < 0
    assert by_key["a"]["scale"] == f"anchor {HYPERLINK} = 0.0"  # not at a cell's start: kept
    for row in rows:
        for value in row.values():
            assert not value.startswith(("=", "+", "@", "\t", "\r")), value
            if value.startswith("-"):
                float(value)  # only numbers start with a minus


def test_json_carries_the_strings_escaped(standings):
    text = standings_table(standings, LABELS, "json")
    assert not RAW.search(text) and "\\u001b]0;pwned\\u0007" in text
    names = {row["entrant"]: row["name"] for row in json.loads(text)["standings"]}
    assert names["b"] == f"{OSC_TITLE}b{CLEAR}"  # the data itself is unchanged


def hostile_record():
    record = play_record("g1", 7, ["rand@1", "evil@2"], set(), target=200)
    record.entrants = (EntrantInfo(f"rand{OSC_TITLE}", MINUS, "."),
                       EntrantInfo(SCRIPT, f"2{CLEAR}\nWinner: team 0 (forged)", "."))
    record.termination, record.winner = Termination.PROTOCOL_VIOLATION, 0
    record.fault = Fault(Termination.PROTOCOL_VIOLATION, 1,
                         f"unknown_field at reply.{OSC_TITLE}\nforged line", 1, 3)
    return record


def test_a_summary_and_a_replay_escape_names_versions_and_the_fault():
    record = hostile_record()
    text = summary(record)
    assert not RAW.search(text)
    assert "(forged)" in text and "\nWinner: team 0 (forged)" not in text
    assert "reply.\\x1b]0;pwned\\x07\\nforged line" in text
    lines = render_replay(build_replay(record, seat=1))
    assert not any(RAW.search(line) or "\n" in line for line in lines)
    assert "\\x1b[2J" in lines[2]


def test_standings_header_escapes_a_bot_build_command(tmp_path):
    """The reason a bot was left out quotes its build command: written by its author."""
    bot = tmp_path / "unbuildable"
    bot.mkdir()
    (bot / "bot.toml").write_text(
        'name = "unbuildable"\nversion = "1"\nlanguage = "c"\ncommand = ["build/bot"]\n'
        'build = ["=HYPERLINK(\\"http://x\\")|\\u001b]0;pwned\\u0007", '
        f'"{SCRIPT}", "*x*", "\\n| forged | row |"]\n')
    with pytest.raises(IntakeFailed) as refused:
        take_bot(bot, IntakePolicy(Isolation.NONE, root=tmp_path / "cache"))
    failure = refused.value.failure
    assert OSC_TITLE in failure.reason
    storage = tmp_path / "t.sqlite"
    fill_store(storage, ["random@r1", "eager@e1"], 1, strong={"eager@e1"}, anchor="eager")
    with Store(storage) as store:  # as the runner notes the bots it left out
        store.set_meta({"left_out": json.dumps([[failure.name, failure.reason]])})
    runner = CliRunner()
    terminal = runner.invoke(main, ["standings", str(storage)])
    assert terminal.exit_code == 0, terminal.output
    assert not RAW.search(terminal.output) and "\\x1b]0;pwned\\x07" in terminal.output
    assert "\n| forged" not in terminal.output
    markdown = runner.invoke(main, ["standings", str(storage), "--format", "markdown"])
    assert markdown.exit_code == 0, markdown.output
    left = next(line for line in markdown.output.splitlines() if "Left out" in line)
    assert left.startswith("> Left out of the last run: unbuildable")
    assert "\\|" in left and "&lt;script&gt;" in left and "\\*x\\*" in left
    assert "<script" not in markdown.output and not RAW.search(markdown.output)
    rows = list(csv.DictReader(io.StringIO(runner.invoke(
        main, ["standings", str(storage), "--format", "csv"]).output)))
    assert {row["name"] for row in rows} == {"random", "eager"}
    assert float(next(r for r in rows if r["name"] == "random")["elo"]) < 0  # a number


def test_a_store_holding_a_name_no_manifest_allows_is_refused_with_the_name_escaped(tmp_path):
    storage = tmp_path / "t.sqlite"
    fill_store(storage, ["random@r1", "eager@e1"], 1)
    with sqlite3.connect(storage) as db:
        db.execute("UPDATE entrants SET name = ?, key = ? WHERE key = 'eager@e1'",
                   (f"{HYPERLINK}{OSC_TITLE}", f"{HYPERLINK}{OSC_TITLE}@e1"))
    for fmt in ("terminal", "csv"):
        result = CliRunner().invoke(main, ["standings", str(storage), "--format", fmt])
        assert result.exit_code == 1 and "not a usable tournament store" in result.output
        assert not RAW.search(result.output) and "\\x1b]0;pwned\\x07" in result.output

"""A bot's failures as its author sees them: `arena failures`, `arena replay` and the
entrant's report page show the fault with the end of the bot's own output (its stderr),
escaped, for a real bot that crashes mid-game."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.record import Termination
from arena.tournament.store import Store

pytestmark = pytest.mark.timeout(240)

CRASHER = "broken-crash-in-game"


@pytest.fixture(scope="module")
def tournament(crash_tournament) -> Path:
    """The folder's round robin: the crashing bot plays 4 games (2 against random, 2 against
    heuristic) and crashes in each; random plays 4 too, and never fails."""
    return crash_tournament


def run(*args: str) -> str:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_arena_failures_lists_each_crash_with_the_bots_last_words(tournament):
    out = run("failures", CRASHER, "--tournament", str(tournament))
    assert out.count(": crash by broken-crash-in-game ") == 4, out
    assert "the bot process exited with code 4" in out
    assert out.count("  | AssertionError: crash on purpose \\x1b[31m(in red)\\x1b[0m") == 4
    assert "\x1b" not in out  # the bot's escape is shown, never sent to the terminal
    assert out.rstrip().endswith(f"{CRASHER}: 4 failures in 4 games.")


def test_each_failure_names_the_command_replaying_its_record_to_your_bot(tournament):
    out = run("failures", CRASHER, "--tournament", str(tournament))
    commands = [shlex.split(line.removeprefix("  reproduce it: "))
                for line in out.splitlines() if line.startswith("  reproduce it: ")]
    assert len(commands) == 4, out
    for words in commands:
        assert words[:2] == ["arena", "reproduce"] and words[3:5] == ["BOT_FOLDER", "--seat"]
        assert Path(words[2]).is_file() and ".json" in words[2]


def test_failures_wants_a_tournament_or_a_league(tournament):
    for args in ([], ["--tournament", str(tournament), "--server", "http://127.0.0.1:9"]):
        result = CliRunner().invoke(main, ["failures", CRASHER, *args])
        assert result.exit_code == 2 and "either --tournament or --server" in result.output


def test_an_innocent_bot_has_none_and_an_unknown_name_is_a_usage_error(tournament):
    assert run("failures", "random", "--tournament", str(tournament)).strip() == \
        "random: 0 failures in 4 games."
    unknown = CliRunner().invoke(main, ["failures", "nobody", "--tournament", str(tournament)])
    assert unknown.exit_code == 2 and "no entrant named 'nobody'" in unknown.output


def test_arena_replay_shows_the_crashed_seats_output(tournament):
    with Store(tournament.with_name("t.sqlite"), create=False) as store:
        crashed = next(g for g in store.games() if g.termination == Termination.CRASH.value)
        record = store.record_path(crashed.record)
    out = run("replay", str(record), "--summary")
    assert "Termination: crash by seat" in out
    assert "output, last lines:\n  | Traceback (most recent call last):" in out
    assert "  | AssertionError: crash on purpose \\x1b[31m(in red)\\x1b[0m" in out


def test_the_entrant_page_shows_the_output_escaped(tournament, tmp_path):
    site = tmp_path / "site"
    run("report", str(tournament), "-o", str(site))
    page = next((site / "entrants").glob(f"{CRASHER}@*.html")).read_text()
    assert page.count('<pre class="output"') == 4
    assert "AssertionError: crash on purpose \x1b[31m(in red)" not in page
    assert "AssertionError: crash on purpose" in page


def test_a_practice_verdict_names_whose_bot_failed_from_the_record_or_the_row():
    """A practice game's page: the author's seats are 0 and 2; a fault of both teams names
    both; a game whose record is missing is told from its row, without round or decision."""
    from arena.presentation.failures import practice_verdict

    def fault(seat: int) -> dict:
        return {"kind": "crash", "seat": seat, "message": f"seat {seat} died", "round": 2,
                "decision": 41}

    def game(record: dict | None, **row: object) -> dict:
        return {"id": "a~b#0.0", "teams": ["a@1", "b@2"], "record": record, **row}

    def over(termination: str, found: dict | None) -> dict:
        return game({"termination": termination, "fault": found, "bot_output": [""] * 4})

    assert practice_verdict(over("normal", None)) == ""
    assert practice_verdict(over("crash", fault(2))) == \
        "Your bot failed: crash in round 2 (decision 41): seat 2 died."
    assert practice_verdict(over("crash", fault(1))) == \
        "The opponent's bot failed: crash in round 2 (decision 41): seat 1 died; yours did not."
    both = {**fault(0), "seat": None, "details": {"faults": [fault(0), fault(3)]}}
    assert practice_verdict(over("crash", both)).startswith(
        "Your bot failed: crash in round 2 (decision 41): seat 0 died. The opponent's bot "
        "failed too: ")
    assert practice_verdict(game(None, termination="timeout", fault_seat=0,
                                 fault_message="no reply")) == "Your bot failed: timeout: no reply."
    assert practice_verdict(game(None, termination="harness_fault", fault_seat=None)) == ""

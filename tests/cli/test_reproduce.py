"""`arena reproduce RECORD BOT --seat S`: a real game's failure replayed to the bot.

The tape bot (tests/referee/bots/tape) fails on purpose at its Nth request, as its
environment says. A game records the failure; the same bot, told the same, fails again at
the same decision (exit 1); told nothing, it gets past it (exit 0); told to answer another
option earlier, it is named at that decision. The bot's stderr is shown as it runs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli.main import main
from arena.referee.match import GameSpec, TimeControl, run_game
from arena.referee.record import GameRecord, Termination
from arena.referee.seatstream import seat_stream
from arena.tournament.records import write_record
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import HERE, ROOT, entrant

pytestmark = pytest.mark.timeout(300)
TAPE = HERE / "bots" / "tape"
FAULT, AT = "TICHU_TEST_TAPE_FAULT", "TICHU_TEST_TAPE_AT"


def recorded(tmp_path: Path, monkeypatch, fault: str, at: int,
             time: TimeControl | None = None) -> tuple[GameRecord, Path]:
    """A game of the tape bot (seats 0, 2) against the random bot, the tape bot failing by
    `fault` at its `at`-th request; its record and the record's file."""
    monkeypatch.setenv(FAULT, fault)
    monkeypatch.setenv(AT, str(at))
    spec = GameSpec("repro", 5, (entrant(TAPE), entrant(ROOT / "bots" / "random")),
                    target=300, time=time or honest_time())
    record = run_game(spec)
    path = tmp_path / "game.json"
    write_record(record, path, gzipped=False)
    monkeypatch.delenv(FAULT)
    monkeypatch.delenv(AT)
    return record, path


def live(text: str, output: str) -> bool:
    """Whether the bot's output, shown as it ran, has a line starting with `text`."""
    return re.search(rf"^\| {re.escape(text)}", output, re.MULTILINE) is not None


def reproduce(path: Path, *args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(main, ["reproduce", str(path), str(TAPE), *args], env=env)


def test_a_crash_is_reproduced_and_the_fixed_bot_gets_past_it(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "crash", 9)
    assert record.termination is Termination.CRASH and record.fault is not None
    seat = record.fault.seat
    again = reproduce(path, "--seat", str(seat), env={FAULT: "crash", AT: "9"})
    assert again.exit_code == 1, again.output
    assert f"reproduced: decision {record.fault.decision}: crash: your bot exited with " \
           "code 7" in again.output
    assert live("tape: crashing on purpose", again.output)  # its stderr, as it ran
    assert live("tape: request 8 (id ", again.output)
    assert "game| tape: crashing on purpose" in again.output  # and as it was in the game
    fixed = reproduce(path, env={FAULT: "", AT: "0"})  # the failed seat by default
    assert fixed.exit_code == 0, fixed.output
    assert f"not reproduced: decision {record.fault.decision}: your bot answers " in \
        fixed.output
    assert "now answers" not in fixed.output  # it answered as in the game until then


def test_a_bot_that_answers_otherwise_earlier_is_told_where(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "crash", 9)
    assert record.fault is not None
    third = [m for m in seat_stream(record, record.fault.seat).messages
             if m.message["type"] == "request"][2]
    result = reproduce(path, env={FAULT: "other", AT: "3"})
    assert result.exit_code == 0, result.output  # it does not crash any more
    line = re.search(rf"^decision {third.decision}: your bot now answers (.+), it answered "
                     r"(.+) in the game$", result.output, re.MULTILINE)
    assert line is not None, result.output
    assert line.group(1) != line.group(2)
    assert result.output.count("the replay goes on as the game went") == 1


def test_a_bot_that_now_fails_earlier_still_fails(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "crash", 9)
    assert record.fault is not None
    fourth = [m for m in seat_stream(record, record.fault.seat).messages
              if m.message["type"] == "request"][3]
    result = reproduce(path, env={FAULT: "illegal", AT: "4"})
    assert result.exit_code == 1, result.output
    assert f"your bot still fails, otherwise: decision {fourth.decision}: illegal_action: " \
           f"it answered play 2" in result.output
    assert f"in the game it failed at decision {record.fault.decision} by crash" in \
        result.output


def test_an_illegal_action_is_reproduced(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "illegal", 4)
    assert record.termination is Termination.ILLEGAL_ACTION and record.fault is not None
    result = reproduce(path, env={FAULT: "illegal", AT: "4"})
    assert result.exit_code == 1, result.output
    assert f"reproduced: decision {record.fault.decision}: illegal_action" in result.output


def test_a_protocol_violation_is_reproduced(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "garbage", 6)
    assert record.termination is Termination.PROTOCOL_VIOLATION and record.fault is not None
    result = reproduce(path, env={FAULT: "garbage", AT: "6"})
    assert result.exit_code == 1, result.output
    assert f"reproduced: decision {record.fault.decision}: protocol_violation: your bot " \
           "sent a message the protocol refuses" in result.output


def test_a_timeout_is_reproduced_with_the_games_time_limit(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "hang", 5)
    assert record.termination is Termination.TIMEOUT and record.fault is not None
    failing = seat_stream(record, record.fault.seat).messages[-1]
    assert failing.allowed_ms is not None
    hung = reproduce(path, env={FAULT: "hang", AT: "5"})
    assert hung.exit_code == 1, hung.output
    assert not bot_processes(TAPE)  # the hung bot was stopped, all of it
    assert f"reproduced: decision {record.fault.decision}: timeout: your bot took longer " \
           f"than {failing.allowed_ms} ms again" in hung.output
    quick = reproduce(path, env={FAULT: "", AT: "0"})
    assert quick.exit_code == 0, quick.output
    assert re.search(rf"not reproduced: decision {record.fault.decision}: your bot answered "
                     r"in \d+ ms this time", quick.output), quick.output


def test_a_record_needs_a_seat_when_none_failed_alone(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "", 0)
    assert record.termination is Termination.NORMAL
    result = reproduce(path)
    assert result.exit_code == 2
    assert "no seat failed in this game: name the seat to replay with --seat" in result.output
    replayed = reproduce(path, "--seat", "0")
    assert replayed.exit_code == 0, replayed.output
    assert "not reproduced: your bot answered every request of the game" in replayed.output
    missing = reproduce(tmp_path / "nothing.json")
    assert missing.exit_code == 2 and "no such record file" in missing.output


def test_a_start_failure_is_reproduced(tmp_path, monkeypatch):
    record, path = recorded(tmp_path, monkeypatch, "exit", 0)
    assert record.termination is Termination.START_FAILURE and record.fault is not None
    again = reproduce(path, env={FAULT: "exit", AT: "0"})
    assert again.exit_code == 1, again.output
    assert "reproduced: at its start: start_failure: your bot exited with code 3 before " \
           "saying hello" in again.output
    assert live("tape: exiting at start", again.output)
    fixed = reproduce(path, env={FAULT: "", AT: "0"})
    assert fixed.exit_code == 0, fixed.output
    assert "not reproduced: your bot said hello this time" in fixed.output

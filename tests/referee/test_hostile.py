"""Hostile and careless bots: every kind of illegal action, floods, orphans, snooping. Each is
mapped to its documented termination, and nothing is left running."""

from __future__ import annotations

import pytest

from arena.referee.match import GameSpec, run_game
from arena.referee.process import OUTPUT_TAIL_BYTES
from arena.referee.record import Termination
from tests.pace import honest_time
from tests.processes import bot_processes
from tests.referee.conftest import HERE

pytestmark = pytest.mark.timeout(120)
FAULTY = HERE / "bots" / "faulty"


def faulty_game(monkeypatch, faulty_bot, opponent, fault: str, at: int = 5, **env: str):
    monkeypatch.setenv("TICHU_TEST_FAULT", fault)
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", str(at))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    record = run_game(GameSpec(f"hostile-{fault}", 1, (opponent, faulty_bot), time=honest_time()))
    assert not bot_processes(FAULTY), "a bot process (or its child) was left behind"
    return record


@pytest.mark.parametrize("kind, rule", [
    ("card_not_held", "card-not-held"),
    ("not_a_combination", "not-a-combination"),
    ("too_low", "does-not-beat-table"),
    ("wish_pass", "must-fulfil-wish"),
    ("dragon_to_partner", "dragon-to-opponent"),
    ("exchange_not_held", "card-not-held"),
    ("non_bomb_in_window", "bomb-window-takes-bombs"),
])
def test_each_kind_of_illegal_action_is_a_forfeit_naming_its_rule(monkeypatch, faulty_bot,
                                                                  kind, rule):
    # Faulty against faulty: both play deterministically, so seed 1 reaches each situation.
    record = faulty_game(monkeypatch, faulty_bot, faulty_bot, "illegal", TICHU_TEST_ILLEGAL=kind)
    assert record.termination is Termination.ILLEGAL_ACTION, record.fault
    assert record.fault.details["rule_broken"] == rule
    assert record.winner == 1 - (record.fault.seat & 1)


def test_a_message_flood_is_a_protocol_violation(monkeypatch, faulty_bot, random_bot):
    record = faulty_game(monkeypatch, faulty_bot, random_bot, "flood")
    assert record.termination is Termination.PROTOCOL_VIOLATION
    assert record.fault.seat in (1, 3) and record.winner == 0


def test_a_reply_with_another_requests_id_is_a_protocol_violation(monkeypatch, faulty_bot,
                                                                 random_bot):
    record = faulty_game(monkeypatch, faulty_bot, random_bot, "other_seat")
    assert record.termination is Termination.PROTOCOL_VIOLATION
    assert "a reply to request" in record.fault.message


def test_a_stderr_flood_is_kept_bounded_and_the_game_goes_on(monkeypatch, faulty_bot,
                                                             random_bot):
    record = faulty_game(monkeypatch, faulty_bot, random_bot, "stderr_flood")
    assert record.termination is Termination.NORMAL
    flooded = [out for out in record.bot_output if "flood" in out]
    assert flooded
    assert all(len(out.encode()) <= OUTPUT_TAIL_BYTES + 4096 for out in record.bot_output)
    assert any("earlier bytes dropped" in out for out in flooded)


def test_a_child_process_that_outlives_its_bot_is_stopped_too(monkeypatch, faulty_bot,
                                                              random_bot):
    record = faulty_game(monkeypatch, faulty_bot, random_bot, "orphan")
    assert record.termination is Termination.NORMAL  # and faulty_game checked no process is left


def test_a_snooping_bot_finds_no_hidden_card_in_its_environment(monkeypatch, faulty_bot,
                                                               random_bot):
    record = faulty_game(monkeypatch, faulty_bot, random_bot, "snoop")
    assert record.termination is Termination.NORMAL
    reports = [out for out in record.bot_output if "snoop found" in out]
    assert reports and all("snoop found 0 hidden cards" in out for out in reports)

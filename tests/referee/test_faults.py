"""Each kind of bot failure, triggered by a deliberately broken bot, becomes the right recorded
termination and a forfeit of its entrant; the referee goes on and no process is left behind."""

from __future__ import annotations

import pytest

from arena.referee.manifest import BotManifest
from arena.referee.match import Entrant, GameSpec, Match, TimeControl, run_game
from arena.referee.record import Termination
from tests.processes import bot_processes
from tests.referee.conftest import FAST, HERE, ROOT

pytestmark = pytest.mark.timeout(120)
FAULTY = HERE / "bots" / "faulty"


def play_faulty(monkeypatch, faulty_bot, random_bot, fault: str, at: int = 5,
                time: TimeControl = FAST, **env: str):
    monkeypatch.setenv("TICHU_TEST_FAULT", fault)
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", str(at))
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    record = run_game(GameSpec(f"fault-{fault}", 1, (random_bot, faulty_bot), time=time))
    assert not bot_processes(FAULTY), "a bot process was left behind"
    assert not bot_processes(ROOT / "bots" / "random"), "a bot process was left behind"
    return record


def assert_forfeit_by_faulty(record, kind: Termination) -> None:
    assert record.termination is kind
    assert record.fault is not None and record.fault.kind is kind
    assert record.fault.seat in (1, 3), "the faulty entrant sits at seats 1 and 3"
    assert record.winner == 0, "the offending entrant forfeits"


def test_a_bot_that_cannot_be_started_is_a_start_failure(random_bot, tmp_path):
    manifest = BotManifest(tmp_path, "ghost", "1", "none", ("./no-such-program",))
    record = run_game(GameSpec("start", 1, (Entrant(manifest, "x"), random_bot), time=FAST))
    assert record.termination is Termination.START_FAILURE
    assert record.fault.seat == 0 and record.winner == 1
    assert "no-such-program" in record.fault.message
    assert not bot_processes(ROOT / "bots" / "random")


def test_a_bot_that_exits_at_start_is_a_start_failure_with_exit_code_and_output(
        monkeypatch, faulty_bot, random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "exit_at_start")
    assert_forfeit_by_faulty(record, Termination.START_FAILURE)
    assert record.fault.details["exit_code"] == 3
    assert "exiting at start" in record.fault.details["output"]


def test_a_bot_that_never_says_hello_is_a_handshake_failure(monkeypatch, faulty_bot, random_bot):
    # a hello time the honest bots' start-up stays within on a busy machine
    time = TimeControl(hello=20.0, decision=2.0, bank=60.0, grace=0.2)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "no_hello", time=time)
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert record.fault.message == "no valid hello within 20 s of its start"


def test_a_hello_with_a_wrong_token_is_rejected_and_the_seat_fails_its_handshake(
        monkeypatch, faulty_bot, random_bot):
    # a hello time no start-up comes near: the failure is the token's, not a late hello
    time = TimeControl(hello=60.0, decision=2.0, bank=60.0, grace=0.2)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "wrong_token", time=time)
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert record.fault.message == "said hello with a wrong token"


def test_an_unsupported_protocol_version_is_a_handshake_failure(monkeypatch, faulty_bot,
                                                                 random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "wrong_version")
    assert_forfeit_by_faulty(record, Termination.HANDSHAKE_FAILURE)
    assert "unsupported protocol version 99" in record.fault.message


def test_a_crash_is_recorded_with_exit_code_and_the_tail_of_stderr(monkeypatch, faulty_bot,
                                                                    random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "crash", at=6)
    assert_forfeit_by_faulty(record, Termination.CRASH)
    assert record.fault.details["exit_code"] == 7
    assert "crashing on purpose" in record.fault.details["output"]
    assert record.fault.decision >= 5


def test_a_hanging_bot_times_out_with_its_overrun(monkeypatch, faulty_bot, random_bot):
    time = TimeControl(hello=5.0, decision=0.5, bank=60.0, grace=0.1)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "hang", time=time)
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)
    assert record.fault.details["overrun"] >= time.grace


def test_a_reply_just_inside_the_grace_margin_is_accepted(monkeypatch, faulty_bot, random_bot):
    time = TimeControl(hello=5.0, decision=0.3, bank=60.0, grace=0.6)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY="0.45")
    assert record.termination is Termination.NORMAL


def test_a_reply_past_the_grace_margin_is_a_timeout(monkeypatch, faulty_bot, random_bot):
    time = TimeControl(hello=5.0, decision=0.2, bank=60.0, grace=0.1)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY="0.6")
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)


def test_the_time_bank_limits_a_seat_over_the_whole_game(monkeypatch, faulty_bot, random_bot):
    time = TimeControl(hello=5.0, decision=2.0, bank=0.3, grace=0.05)
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "slow", time=time,
                         TICHU_TEST_DELAY="0.5")
    assert_forfeit_by_faulty(record, Termination.TIMEOUT)
    assert record.fault.details["overrun"] > 0


@pytest.mark.parametrize("fault, code", [("garbage", "not_msgpack"),
                                         ("truncated", "not_msgpack"),
                                         ("multi_frame", "wrong_type")])
def test_malformed_messages_are_protocol_violations_with_the_offending_bytes(
        monkeypatch, faulty_bot, random_bot, fault, code):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, fault)
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert record.fault.details["protocol_error"] == code
    assert record.fault.details["data"]


def test_garbage_bytes_are_shown_in_the_record(monkeypatch, faulty_bot, random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "garbage")
    assert record.fault.details["data"].startswith(b"\xc1\xc1 this".hex())


def test_a_reply_to_an_unknown_request_id_is_a_protocol_violation(monkeypatch, faulty_bot,
                                                                  random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "unknown_id")
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert "a reply to request" in record.fault.message


def test_an_oversize_message_is_refused_and_the_bot_forfeits(monkeypatch, faulty_bot,
                                                             random_bot):
    record = play_faulty(monkeypatch, faulty_bot, random_bot, "oversize")
    # a 2 MiB frame: the referee's transport reads its header and refuses it there, unread
    assert_forfeit_by_faulty(record, Termination.PROTOCOL_VIOLATION)
    assert record.fault.details["protocol_error"] == "oversize"
    assert record.fault.message == ("oversize: a message of 2097152 bytes or more, over the "
                                    "maximum 16384")


def test_an_illegal_play_is_an_illegal_action_forfeit(monkeypatch, faulty_bot, random_bot):
    for at in range(8, 40):  # the first decision from `at` on that is a play
        monkeypatch.setenv("TICHU_TEST_FAULT_AT", str(at))
        record = play_faulty(monkeypatch, faulty_bot, random_bot, "illegal", at=at)
        if record.termination is not Termination.NORMAL:
            break
    assert_forfeit_by_faulty(record, Termination.ILLEGAL_ACTION)
    assert record.fault.message.startswith("card-not-held")
    assert record.fault.details["action"]["action"]["cards"]


def test_the_next_game_of_a_match_restarts_a_crashed_bot(monkeypatch, faulty_bot, random_bot):
    monkeypatch.setenv("TICHU_TEST_FAULT", "crash")
    monkeypatch.setenv("TICHU_TEST_FAULT_AT", "3")
    with Match(random_bot, faulty_bot) as match:
        first = match.play(GameSpec("m1", 1, (random_bot, faulty_bot), time=FAST), last=False)
        second = match.play(GameSpec("m2", 1, (faulty_bot, random_bot), time=FAST))
    assert first.termination is second.termination is Termination.CRASH, (first.fault,
                                                                           second.fault)
    assert not bot_processes(FAULTY)
